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

from ddkit import Failure
from ddkit.ipcheck import same_ip
from ddkit.provider import (ProviderSession, Record, Stale, Zone, address_id, address_of, address_record, listing,
                            secret_setting, state_files, url_setting)

NAME = 'gcore'
STEM = 'ddkit_gcore'                     # its lock and log files' prefix (no seed tool)
SUMMARY = 'Keep one A or AAAA record at Gcore DNS (API v2, RRsets) equal to this host\'s public IP.'
API_PATH = '/dns/v2'
SETTINGS = [
    secret_setting('api_token', 'a permanent API token (Gcore Customer Portal: Profile > API tokens)'),
    url_setting('https://api.gcore.com', 'API base URL (a trailing /dns/v2, as the provider\'s documents write it, '
                'is taken off: the tool adds it)', API_PATH),
]
FILES = state_files(NAME)
REQUIRED = ('api_token',)
URLS = ('base_url',)
NOUN = 'record'
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


class Session(ProviderSession):
    """The RRset this record's run read last (a line's create adds its address to it), and whether
    one was read (None: the RRset does not exist)."""

    def __init__(self):
        self.read, self.rrset = False, None


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_token


def login(job):
    """--check: the token is accepted when the account's zones can be listed (a read call).
    https://gcore.com/docs/api-reference/dns/zones/list-zones"""
    call(job, 'GET', '/zones?limit=1', 'login')
    return ' (permanent API token)'


def list_zones(job):
    """[the zone named zone_name], read once a run; a zone the account lacks is a Failure.
    https://gcore.com/docs/api-reference/dns/zones/get-zone"""
    cfg = job.cfg
    data = job.shared(('zone', account(cfg), cfg.zone_name), lambda: call(
        job, 'GET', '/zones/%s' % cfg.zone_name, 'find zone', zone=True))
    name = str(data.get('name') or cfg.zone_name).lower().rstrip('.')
    if name != cfg.zone_name:
        raise Failure.at('find zone', 'unexpected answer: the zone read is %s, not %s' % (name[:80], cfg.zone_name),
                         kind='unexpected')
    return [name]


def choose_zone(job, zones):
    """The zone: its id is its name."""
    return Zone(zones[0], zones[0])


def account_zones(job):
    """Every zone the token sees, page by page; more than ZONE_PAGES pages is a Failure asking for
    zone_name. https://gcore.com/docs/api-reference/dns/zones/list-zones"""
    found = []
    for page in range(ZONE_PAGES):
        data = call(job, 'GET', '/zones?limit=%d&offset=%d' % (ZONE_ROWS, page * ZONE_ROWS), 'find zone')
        zones = listing(data, 'zones', 'find zone')
        found += [Zone(name, name) for name in (str(z.get('name') or '').lower().rstrip('.') for z in zones) if name]
        total = data.get('total_amount')
        if len(zones) < ZONE_ROWS or isinstance(total, int) and not isinstance(total, bool) \
                and total <= (page + 1) * ZONE_ROWS:
            return found
    raise Failure.at('find zone', 'the account has more than %d zones: set zone_name' % (ZONE_ROWS * ZONE_PAGES),
                     kind='unexpected', fix='set zone_name')


def rrset_path(zone, cfg):
    return '/zones/%s/%s/%s' % (zone, cfg.record_name, cfg.record_type)


def read_rrset(job, zone, step, fresh=False):
    """The RRset of the record's name and type, or None when there is none. A line's record is one
    address of an RRset other lines change too: always read afresh; a record without lines once a
    run. https://gcore.com/docs/api-reference/dns/rrsets/get-rrset"""
    cfg = job.cfg
    key = None if fresh or job.line is not None else ('rrset', account(cfg), zone, cfg.record_name, cfg.record_type)
    rrset = job.shared(key, lambda: call(job, 'GET', rrset_path(zone, cfg), step, missing=True))
    if rrset is not None and (not isinstance(rrset, dict) or str(rrset.get('type', cfg.record_type)) != cfg.record_type):
        raise Failure.at(step, 'unexpected answer: not the %s RRset of %s' % (cfg.record_type, cfg.record_name),
                         kind='unexpected')
    job.session.read, job.session.rrset = True, rrset
    return rrset


def addresses(rrset):
    """The addresses an RRset holds, one a resource record (each record's first content)."""
    return [rr['content'][0] for rr in listing(rrset or {}, 'resource_records', 'find record')
            if isinstance(rr.get('content'), list) and rr['content'] and isinstance(rr['content'][0], str)]


def of_line(job, found, hint=None):
    """The Record of the job's line in an RRset (ddkit.provider.address_record)."""
    return address_record(job, addresses(found), found, hint)


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of a line: its address in the RRset), or None."""
    found = read_rrset(job, zone_id, 'find record', fresh=strict)
    if found is None:
        return None
    if job.line is None:
        return Record(job.cfg.record_name, addresses(found), found)
    return of_line(job, found)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, read: an update sends back what the RRset holds. A line's id
    is its address (its record gone from the RRset: Stale); the record's own id, from before it had
    lines, is the default line's: the address of its operator, else the RRset's one address."""
    cfg = job.cfg
    if zone_id != cfg.zone_name:
        raise Stale()   # ids of another zone_name: find ours again
    if job.line is None:
        if record_id != cfg.record_name:
            raise Stale()
        found = read_rrset(job, zone_id, 'read record', fresh=True)
        if found is None:
            raise Stale()
        return Record(record_id, addresses(found), found)
    found = read_rrset(job, zone_id, 'read record', fresh=True)
    if found is None:
        raise Stale()
    if record_id == cfg.record_name:
        record = of_line(job, found) or (of_line(job, found, addresses(found)[0]) if len(addresses(found)) == 1
                                         else None)
    else:
        record = of_line(job, found, address_of(record_id)) if address_of(record_id) else None
    if record is None:
        raise Stale()
    return record


def body(rrset, records):
    """The body of a PUT: these resource records, and the RRset's TTL, meta and pickers as it holds
    them (a new RRset: NEW_TTL)."""
    rrset = rrset or {}
    ttl = rrset.get('ttl')
    sent = {'ttl': ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl > 0 else NEW_TTL,
            'resource_records': records}
    for key, kind in KEPT:
        if isinstance(rrset.get(key), kind):
            sent[key] = rrset[key]
    return sent


def resource_records(rrset):
    """The RRset's resource records as a PUT sends them back: content, enabled and meta each."""
    kept = []
    for rr in listing(rrset or {}, 'resource_records', 'update record'):
        if isinstance(rr.get('content'), list) and rr['content']:
            kept.append(dict({k: rr[k] for k in ('enabled', 'meta') if k in rr}, content=rr['content']))
    return kept


def put(job, zone_id, rrset, records, step):
    """PUT the RRset with these resource records (it creates or replaces the whole RRset).
    https://gcore.com/docs/api-reference/dns/rrsets/update-rrset"""
    call(job, 'PUT', rrset_path(zone_id, job.cfg), step, body(rrset, records), stale=True)
    job.session.read = False   # it changed: a later step of this run reads it again


def create_record(job, zone_id, ip):
    """A record without lines: the RRset, made holding ip alone. A line's: its address added to the
    RRset (read by this run's lookup, else now), which is made when there is none."""
    cfg = job.cfg
    if job.line is None:
        put(job, zone_id, None, [{'content': [ip], 'enabled': True}], 'create record')
        return cfg.record_name
    found = job.session.rrset if job.session.read else read_rrset(job, zone_id, 'create record', fresh=True)
    put(job, zone_id, found, resource_records(found) + [{'content': [ip], 'enabled': True}], 'create record')
    return address_id(ip)


def update_record(job, zone_id, record, ip):
    """A record without lines: the RRset holding ip alone, in its first resource record (its meta
    and state kept). A line's: its address replaced in its own resource record, the others kept."""
    held = resource_records(record.raw)
    if job.line is None:
        first = held[0] if held else {'enabled': True}
        put(job, zone_id, record.raw, [dict(first, content=[ip])], 'update record')
        return record.id
    old = record.content[0]
    records = [dict(rr, content=[ip]) if isinstance(rr['content'][0], str) and same_ip(rr['content'][0], old) else rr
               for rr in held]
    put(job, zone_id, record.raw, records, 'update record')
    return address_id(ip)


def delete_record(job, zone_id, record):
    """A line's address taken out of the RRset (the RRset deleted with its last one); one gone
    already is success. https://gcore.com/docs/api-reference/dns/rrsets/delete-rrset"""
    cfg = job.cfg
    # the RRset as this run read it (the stored ids' read), else now
    found = job.session.rrset if job.session.read else read_rrset(job, zone_id, 'delete record', fresh=True)
    old = record.content[0] if record.content else address_of(record.id)
    kept = [rr for rr in resource_records(found) if not (isinstance(rr['content'][0], str) and old
                                                            and same_ip(rr['content'][0], old))]
    if found is None or len(kept) == len(resource_records(found)):
        job.log.info('delete record: %s is gone already.' % (old or record.id))
        return None
    if kept:
        put(job, zone_id, found, kept, 'delete record')
    else:
        call(job, 'DELETE', rrset_path(zone_id, cfg), 'delete record', missing=True)
    return None


def call(job, method, path, step, data=None, stale=False, missing=False, zone=False):
    """One API call with the token; its JSON answer ({} when it has none). stale: HTTP 404 raises
    Stale (the zone or the RRset is gone: the loop looks again); missing: HTTP 404 gives None (no
    such RRset); zone: HTTP 404 is the zone that is not this account's."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=data, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'APIKey ' + cfg.api_token})
    status = answer.status
    if 200 <= status < 300:
        if not answer.body.strip():
            return {}
        data = answer.json()
        if not isinstance(data, dict):
            raise Failure.at(step, 'unexpected answer: %s' % http.snippet(answer.text), url=answer.where,
                             status=status, kind='unexpected')
        return data
    said = error_of(answer)
    if status == 404 and missing and not zone:
        return None
    if status == 404 and stale:
        log.info('%s: %s (HTTP 404)' % (step, said or 'not found'))
        raise Stale()
    log.error('%s: HTTP %d: %s' % (step, status, said or http.snippet(answer.text)))
    if status == 404 and zone:
        raise Failure.at('find zone', 'no zone %s in this account (HTTP 404%s); %s' % (
            cfg.zone_name, ': ' + said if said else '', FIXES[404]), url=answer.where, status=status,
            kind='not found', provider_message=said, fix=FIXES[404])
    fix = FIXES.get(status) if status != 404 else None
    shown = said or http.snippet(answer.text)
    if status >= 500:
        raise Failure.at(step, 'the API failed (HTTP %d)%s; the next run tries again' % (
            status, ': ' + shown if shown else ''), url=answer.where, status=status, kind='server error',
            provider_message=said)
    raise Failure.at(step, 'the provider refused the request (HTTP %d%s)%s' % (
        status, ': ' + shown if shown else '', '; ' + fix if fix else ''), url=answer.where, status=status,
        provider_message=said, fix=fix, kind='refused')


def error_of(answer):
    """The API's words in an error answer ({"error": ...}), or None."""
    try:
        data = answer.json()
    except Failure:
        return None
    said = data.get('error') or data.get('message') if isinstance(data, dict) else None
    return str(said)[:200] if isinstance(said, (str, int)) and not isinstance(said, bool) else None
