"""deSEC (API v1, RRsets): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `desec`. Every call carries a token as
`Authorization: Token <token>`. A domain is named by its name; the record is the RRset of its
subname and type (/api/v1/domains/<domain>/rrsets/<subname or @>/<type>/): a PATCH changes only the
fields it sends, so an update sends the records alone and the RRset keeps its TTL. A new RRset is
made by a bulk PATCH of the domain's rrsets/ (it creates or changes, so sending it twice does no
harm), with the domain's minimum TTL. A record without lines is the RRset holding one address; with
`lines` each line's address is one record of the RRset (SEVERAL), known again by its address (kept
in the ids file) or by its operator's prefix. deSEC throttles (HTTP 429 with Retry-After): a wait a
run can afford is waited for, a longer one fails the run, saying how long.
API reference: https://desec.readthedocs.io/en/latest/dns/rrsets.html,
https://desec.readthedocs.io/en/latest/dns/domains.html, https://desec.readthedocs.io/en/latest/rate-limits.html,
https://desec.readthedocs.io/en/latest/auth/tokens.html
"""

from ddkit import Failure, rrset
from ddkit.provider import (ProviderSession, Zone, declaration, relative_name, token_account, token_settings,
                            zone_by_name as choose_zone)

NAME = 'desec'
SUMMARY = 'Keep an A or AAAA record at deSEC (API v1, RRsets)'
API_PATH = '/api/v1'
SETTINGS = token_settings('a deSEC API token (Token Management, or POST auth/tokens/)', 'https://desec.io',
                          api_path=API_PATH)
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True    # no resolution lines; an RRset holds several addresses: each line's is one of them
DEFAULT_TTL = 3600    # the minimum TTL of a domain whose answer does not say it (deSEC's default)
MAX_TTL = 604800
THROTTLED = ('deSEC throttles writes to a domain\'s RRsets (2/s, 15/min, 100/h, 300/day) and reads (10/s, 50/min): '
             'run less often; the next run tries again')
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    401: 'api_token is not a valid deSEC token (deleted, expired by its max_age or max_unused_period, or not copied '
         'whole): create a new one',
    403: 'the token may not write this RRset, or not from this address: give it a policy with perm_write for the '
         'domain, subname and type (and allowed_subnets that hold this host\'s address)',
    404: 'zone_name must be a domain of this deSEC account (the domain as deSEC lists it, e.g. example.com or '
         'name.dedyn.io)',
    429: THROTTLED,
}
TTL_FIX = 'the RRset\'s TTL is outside what the domain allows (its minimum_ttl up to 604800): set it at deSEC'


class Session(ProviderSession):
    """The RRset this record's run read last (a line's create adds its address to it), and whether
    one was read (None: the RRset does not exist); the domain as this run read it."""

    def __init__(self):
        self.read, self.rrset, self.domain = False, None, None


account = token_account


def login(job):
    """--check: the token is accepted when the account's domains can be listed (a read call).
    https://desec.readthedocs.io/en/latest/dns/domains.html#listing-domains"""
    call(job, 'GET', '/domains/?owns_qname=%s' % job.cfg.record_name, 'login')
    return ' (API token)'


def domain(job):
    """The domain zone_name, read once a run (its minimum TTL); one the account lacks is a Failure.
    https://desec.readthedocs.io/en/latest/dns/domains.html#retrieving-a-specific-domain"""
    cfg = job.cfg
    job.session.domain = job.shared(('domain', account(cfg), cfg.zone_name), lambda: call(
        job, 'GET', '/domains/%s/' % cfg.zone_name, 'find zone', zone=True))
    return job.session.domain


def list_zones(job):
    """[the domain named zone_name]."""
    from ddkit import rest
    return rest.zone_read(domain(job), job.cfg, 'domain')


def account_zones(job):
    """Every domain of the account (one listing: up to 500; more needs a cursor, and zone_name then).
    https://desec.readthedocs.io/en/latest/dns/domains.html#listing-domains"""
    data = call(job, 'GET', '/domains/', 'find zone', listed=True)
    if not isinstance(data, list):
        raise Failure.at('find zone', 'unexpected answer: the domain list is not a list', kind='unexpected')
    names = [str(d.get('name') or '').lower().rstrip('.') for d in data if isinstance(d, dict)]
    return [Zone(name, name) for name in names if name]


def subname(cfg):
    """The record's subname: record_name without the zone ('' for the zone itself)."""
    return relative_name(cfg, '')


def rrset_path(zone, cfg):
    """The RRset's endpoint; the zone apex is written @ (an empty segment would not survive)."""
    return '/domains/%s/rrsets/%s/%s/' % (zone, subname(cfg) or '@', cfg.record_type)


# The record is an RRset (ddkit.rest): its entries are its addresses, and a PATCH changes only the
# fields it sends, so a record without lines is updated unread.

def get_rrset(job, zone_id, step):
    """The RRset of the record's subname and type, or None.
    https://desec.readthedocs.io/en/latest/dns/rrsets.html#retrieving-a-specific-rrset"""
    return call(job, 'GET', rrset_path(zone_id, job.cfg), step, missing=True)


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and rrset.get('type', cfg.record_type) == cfg.record_type \
        and isinstance(rrset.get('records', []), list)


def entries(rrset, step):
    """The addresses an RRset holds."""
    return [r for r in (rrset or {}).get('records', []) if isinstance(r, str)]


def address(held):
    return held


def entry(ip, like=None):
    return ip


def write_rrset(job, zone_id, found, records, step):
    """The RRset's records set (its TTL kept: a PATCH changes only what it sends; [] deletes it); a
    new RRset (none was found) by a bulk PATCH of the domain's RRsets, which creates one that is not
    there and changes one that is (a retry after a lost answer does no harm), with the domain's
    minimum TTL.
    https://desec.readthedocs.io/en/latest/dns/rrsets.html#modifying-an-rrset,
    https://desec.readthedocs.io/en/latest/dns/rrsets.html#bulk-operations"""
    cfg = job.cfg
    if found is None:
        made = {'subname': subname(cfg), 'type': cfg.record_type, 'ttl': minimum_ttl(job), 'records': records}
        call(job, 'PATCH', '/domains/%s/rrsets/' % zone_id, step, [made], stale=True)
    else:
        call(job, 'PATCH', rrset_path(zone_id, cfg), step, {'records': records}, stale=True)


def minimum_ttl(job):
    """The domain's minimum TTL (what a new RRset gets: the shortest it may have), from the domain
    this run read (after stale ids, the run reads it afresh once, not again for this)."""
    ttl = (job.session.domain or domain(job)).get('minimum_ttl')
    return ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and 0 < ttl <= MAX_TTL else DEFAULT_TTL


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records(read=False)


def call(job, method, path, step, data=None, stale=False, missing=False, zone=False, listed=False):
    """One API call with the token; its JSON answer ({} when it has none: 204). stale: HTTP 404
    raises Stale (the domain or the RRset is gone: the loop looks again); missing: HTTP 404 gives None
    (no such RRset); zone: HTTP 404 is the domain that is not this account's; listed: HTTP 400 is a
    listing too long for one page."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=data, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'Token ' + cfg.api_token})
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=True, kind=(dict, list))
    said, fields = error_of(answer)
    if answer.status == 404 and missing and not zone:
        return None
    if answer.status == 400 and listed:
        raise Failure.at(step, 'the account has more than one page of domains (%s): set zone_name' % said,
                         url=answer.where, status=answer.status, kind='unexpected', provider_message=said,
                         fix='set zone_name')
    ttl = answer.status == 400 and 'ttl' in fields
    rest.refused(job, answer, step, said, stale=stale, zone='domain %s' if zone else None, fix=TTL_FIX if ttl else None)


def error_of(answer):
    """(the API's words in an error answer, the fields they are about): {"detail": ...}, or the
    fields' messages of a refused body ({"<field>": [...]}, or a list of them for a bulk request) as
    "field: message"; (None, set()) when there are none."""
    try:
        data = answer.json()
    except Failure:
        return None, set()
    parts, fields = [], set()
    for item in data if isinstance(data, list) else [data]:
        if not isinstance(item, dict):
            continue
        for key, value in item.items():
            words = value if isinstance(value, list) else [value]
            text = '; '.join(str(w) for w in words if isinstance(w, (str, int)) and not isinstance(w, bool))
            if text:
                parts.append(text if key == 'detail' else '%s: %s' % (key, text))
                fields.add(key)
    return '; '.join(parts)[:200] or None, fields
