"""Gcore DNS (API v2, RRsets): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `gcore`. Every call carries a permanent API
token as `Authorization: APIKey <token>`. A zone is named by its name; the record is the RRset of
its name and type (/dns/v2/zones/<zone>/<name>/<type>), which holds one resource record per
address, each with its own meta, and the RRset's TTL, meta and pickers. PUT replaces the whole
RRset (it creates one that is not there): an update sends back everything it holds but the address
it changes. A record without lines is the RRset holding one address; with `lines` each line's
address is one resource record of the RRset (SEVERAL), known again by its address (kept in the ids
file) or by its operator's prefix.
API reference: https://gcore.com/docs/api-reference/dns/rrsets/create-rrset (and the RRset and zone
pages beside it), https://gcore.com/docs/account-settings/api-tokens (the token)
"""

from ddkit import Failure, rrset
from ddkit.provider import (RRsetSession, declaration, listing, token_account, token_settings,
                            zone_by_name as choose_zone)

NAME = 'gcore'
SUMMARY = 'Keep an A or AAAA record at Gcore DNS (API v2, RRsets)'
API_PATH = '/dns/v2'
SETTINGS = token_settings('a permanent API token (Gcore Customer Portal: Profile > API tokens)',
                          'https://api.gcore.com', api_path=API_PATH)
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True    # no resolution lines; an RRset holds several addresses: each line's is one of them
NEW_TTL = 300     # a new RRset's TTL (the API publishes no minimum); an update sends the RRset's own
ZONE_ROWS = 100   # zones a page of the account's listing
ZONE_PAGES = 20   # more pages of zones than this: zone_name must be given
KEPT = (('meta', dict), ('pickers', list), ('filters', list))   # what a PUT sends back as the RRset holds it
THROTTLED = 'too many requests: run less often (the next run tries again)'
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    401: 'api_token is not a valid permanent API token: copy it whole (its number, then $ or _, then the rest) '
         'from Profile > API tokens, or create a new one; an expired token is refused too',
    403: 'the API token\'s role may not change DNS: create a token with a role that may (Engineers)',
    404: 'zone_name must be a zone of this account in Gcore DNS (the root domain, e.g. example.com)',
    429: THROTTLED,
}


Session = RRsetSession


account = token_account


def login(job):
    """--check: the token is accepted when the account's zones can be listed (a read call).
    https://gcore.com/docs/api-reference/dns/zones/list-zones"""
    call(job, 'GET', '/zones?limit=1', 'login')
    return ' (permanent API token)'


def list_zones(job):
    """[the zone named zone_name], read once a run; a zone the account lacks is a Failure.
    https://gcore.com/docs/api-reference/dns/zones/get-zone"""
    from ddkit import rest
    cfg = job.cfg
    return rest.zone_read(job.shared(('zone', account(cfg), cfg.zone_name), lambda: call(
        job, 'GET', '/zones/%s' % cfg.zone_name, 'find zone', zone=True)), cfg)


def account_zones(job):
    """Every zone the token sees, page by page; more than ZONE_PAGES pages is a Failure asking for
    zone_name. https://gcore.com/docs/api-reference/dns/zones/list-zones"""
    from ddkit import rest

    def page(n):
        data = call(job, 'GET', '/zones?limit=%d&offset=%d' % (ZONE_ROWS, n * ZONE_ROWS), 'find zone')
        zones, total = listing(data, 'zones', 'find zone'), data.get('total_amount')
        ends = isinstance(total, int) and not isinstance(total, bool) and total <= (n + 1) * ZONE_ROWS
        return rest.domain_zones(z.get('name') for z in zones), len(zones) >= ZONE_ROWS and not ends
    return rest.listed_zones(page, ZONE_PAGES, '%d zones' % (ZONE_ROWS * ZONE_PAGES))


def rrset_path(zone, cfg):
    return '/zones/%s/%s/%s' % (zone, cfg.record_name, cfg.record_type)


# The record is an RRset (ddkit.rest): its entries are resource records, each an address with its
# own meta, and a PUT replaces the whole RRset, so an update sends back all it holds.

def get_rrset(job, zone_id, step):
    """The RRset of the record's name and type, or None.
    https://gcore.com/docs/api-reference/dns/rrsets/get-rrset"""
    return call(job, 'GET', rrset_path(zone_id, job.cfg), step, missing=True)


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and str(rrset.get('type', cfg.record_type)) == cfg.record_type


def entries(rrset, step):
    """The RRset's resource records as a PUT sends them back: content, enabled and meta each."""
    kept = []
    for rr in listing(rrset or {}, 'resource_records', step):
        if isinstance(rr.get('content'), list) and rr['content']:
            kept.append(dict({k: rr[k] for k in ('enabled', 'meta') if k in rr}, content=rr['content']))
    return kept


def address(rr):
    """A resource record's address: its first content."""
    return rr['content'][0] if isinstance(rr['content'][0], str) else None


def entry(ip, like=None):
    """A resource record of ip; like's state and meta kept."""
    return dict(like, content=[ip]) if like else {'content': [ip], 'enabled': True}


def write_rrset(job, zone_id, found, records, step):
    """PUT the RRset with these resource records and the RRset's TTL, meta and pickers as it holds
    them (a new RRset: NEW_TTL); it creates or replaces the whole RRset. No records: it is deleted.
    https://gcore.com/docs/api-reference/dns/rrsets/update-rrset,
    https://gcore.com/docs/api-reference/dns/rrsets/delete-rrset"""
    if not records:
        call(job, 'DELETE', rrset_path(zone_id, job.cfg), step, missing=True)
        return
    rrset = found or {}
    ttl = rrset.get('ttl')
    sent = {'ttl': ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl > 0 else NEW_TTL,
            'resource_records': records}
    for key, kind in KEPT:
        if isinstance(rrset.get(key), kind):
            sent[key] = rrset[key]
    call(job, 'PUT', rrset_path(zone_id, job.cfg), step, sent, stale=True)


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records()


def call(job, method, path, step, data=None, stale=False, missing=False, zone=False):
    """One API call with the token; its JSON answer ({} when it has none). stale: HTTP 404 raises
    Stale (the zone or the RRset is gone: the loop looks again); missing: HTTP 404 gives None (no
    such RRset); zone: HTTP 404 is the zone that is not this account's."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=data, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'APIKey ' + cfg.api_token})
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=True)
    if answer.status == 404 and missing and not zone:
        return None
    rest.refused(job, answer, step, error_of(answer), stale=stale, zone='zone %s' if zone else None)


def error_of(answer):
    """The API's words in an error answer ({"error": ...}), or None."""
    try:
        data = answer.json()
    except Failure:
        return None
    said = data.get('error') or data.get('message') if isinstance(data, dict) else None
    return str(said)[:200] if isinstance(said, (str, int)) and not isinstance(said, bool) else None
