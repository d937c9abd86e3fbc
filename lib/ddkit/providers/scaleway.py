"""Scaleway Domains and DNS (API v2beta1): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `scaleway`. Every call carries an API key's
secret key as `X-Auth-Token`. A DNS zone is named by its name (its subdomain and domain); a record
has an id, a name relative to the zone ("" the zone itself), and is listed by its name and type (no
call reads one record: a record of stored ids is checked in that listing). Every write is one PATCH
of the zone's records with a change: `add` a record, `set` the record of an id (the whole record: its
TTL, priority and comment are sent back as read), `delete` it; a zone is never made by it. Scaleway
has no resolution lines but holds several records of a name: a line's record is one of them
(SEVERAL).
API reference: https://www.scaleway.com/en/developers/api/domains-and-dns/ (DNS zones: list DNS
zones; records: list records within a DNS zone, update records within a DNS zone),
https://www.scaleway.com/en/docs/iam/reference-content/permission-sets/ (DomainsDNSFullAccess)
"""

from ddkit.provider import Record, Stale, Zone, declaration, listing, number, relative_name, secret_setting, url_setting

NAME = 'scaleway'
SUMMARY = 'Keep an A or AAAA record at Scaleway Domains and DNS'
API_PATH = '/domain/v2beta1'
SETTINGS = [secret_setting('secret_key', 'the secret key of a Scaleway API key whose application may change the '
                                         'zone\'s DNS (IAM: DomainsDNSFullAccess)', label='Secret key'),
            url_setting('https://api.scaleway.com', api_path=API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True        # no resolution lines: each line's address is a record of the name
NEW_TTL = 3600        # a new record's TTL; a set sends the record's own
TTL_MAX = 2 ** 31 - 1
ZONE_ROWS = 100       # zones a page of the account's listing
ZONE_PAGES = 20       # more pages of zones than this: zone_name must be given
RECORD_ROWS = 100     # records a page of the listing of a name and type: more is refused, not half read
ID_CHARS = frozenset('0123456789abcdefABCDEF-')   # a record id is a UUID
ZONE_FIX = 'zone_name must be a DNS zone of the API key\'s project in Scaleway Domains and DNS (the zone\'s ' \
    'whole name, e.g. example.com or lab.example.com)'
PERMISSION = 'the API key\'s application may not change this zone\'s DNS: give it a policy with ' \
    'DomainsDNSFullAccess (--check alone: DomainsDNSReadOnly) on the project that holds the zone'
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    400: 'the API refused the change (see its words): check record_name and record_type',
    401: 'secret_key is not the secret key of a Scaleway API key (deleted, expired, or not copied whole): '
         'create one (IAM, API keys)',
    403: PERMISSION,
    404: ZONE_FIX,
    409: 'the zone changed meanwhile (usually transient): the next run tries again',
    429: 'too many requests: run less often; the next run tries again',
}


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.secret_key


def login(job):
    """--check: the key is accepted when the zone can be looked up (the run's own first request, so
    its step is 'find zone')."""
    list_zones(job)
    return ' (API key)'


def zone_names(data, step):
    """The names of the DNS zones a listing gives: each its subdomain and domain (subdomain "": the
    domain itself), lower case."""
    names = []
    for z in listing(data, 'dns_zones', step):
        domain, sub = z.get('domain'), z.get('subdomain') or ''
        if isinstance(domain, str) and domain and isinstance(sub, str):
            names.append(('%s.%s' % (sub, domain) if sub else domain).lower().rstrip('.'))
    return names


def list_zones(job):
    """[zone_name] when the key's DNS zones hold it, looked up once a run; else a Failure.
    https://www.scaleway.com/en/developers/api/domains-and-dns/#path-dns-zones-list-dns-zones"""
    from ddkit import Failure
    from ddkit.urls import quote
    cfg = job.cfg
    data = job.shared(('zone', account(cfg), cfg.zone_name), lambda: call(
        job, 'GET', '/dns-zones?domain=&dns_zone=%s' % quote(cfg.zone_name), 'find zone'))
    if cfg.zone_name not in zone_names(data, 'find zone'):
        raise Failure.at('find zone', 'no DNS zone %s in this account; %s' % (cfg.zone_name, ZONE_FIX),
                         kind='not found', fix=ZONE_FIX)
    return [cfg.zone_name]


def choose_zone(job, zones):
    return Zone(zones[0], zones[0])


def account_zones(job):
    """Every DNS zone of the key's projects, page by page; more than ZONE_PAGES pages is a Failure
    asking for zone_name. https://www.scaleway.com/en/developers/api/domains-and-dns/#path-dns-zones-list-dns-zones"""
    from ddkit import rest

    def page(n):
        data = call(job, 'GET', '/dns-zones?domain=&page=%d&page_size=%d' % (n + 1, ZONE_ROWS), 'find zone')
        return rest.domain_zones(zone_names(data, 'find zone')), \
            (number(data.get('total_count')) or 0) > (n + 1) * ZONE_ROWS
    return rest.listed_zones(page, ZONE_PAGES, '%d zones' % (ZONE_ROWS * ZONE_PAGES))


def records(job, zone_id, step):
    """The records of the name and type in the zone, listed (a zone gone meanwhile: Stale).
    https://www.scaleway.com/en/developers/api/domains-and-dns/#path-records-list-records-within-a-dns-zone"""
    from ddkit import Failure
    from ddkit.urls import quote
    cfg = job.cfg
    data = call(job, 'GET', '/dns-zones/%s/records?name=%s&type=%s&page_size=%d' % (
        zone_id, quote(relative_name(cfg, '')), cfg.record_type, RECORD_ROWS), step, stale=True)
    found = [r for r in listing(data, 'records', step) if named(r, cfg)]
    if (number(data.get('total_count')) or 0) > RECORD_ROWS:
        raise Failure.at(step, 'the name has more than %d records of its type: more than a run reads' % RECORD_ROWS,
                         kind='unexpected')
    return found


def named(found, cfg):
    """True when a record of an answer is of this name and type, with a usable id."""
    name = found.get('name')
    return found.get('type') == cfg.record_type and isinstance(name, str) \
        and name.lower().rstrip('.') == relative_name(cfg, '') and record_id(found.get('id')) is not None


def as_record(found):
    return Record(record_id(found['id']), [found.get('data')], found)


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of a line: one holding an address of its operator), or None."""
    from ddkit import rest
    try:
        found = rest.on_line(records(job, zone_id, 'find record'), job.line, 'data')
    except Stale:   # the zone, found a moment ago, is gone
        found = []
    return as_record(found[0]) if found else None


def read_record(job, zone_id, record_id_text, held=False):
    """The record the stored ids name, found in the listing of its name and type (a set sends back its
    TTL, priority and comment); Stale when it is not there."""
    if zone_id != job.cfg.zone_name:
        raise Stale()   # ids of another zone_name: find ours again
    found = [r for r in records(job, zone_id, 'read record') if record_id(r['id']) == record_id_text]
    if not found:
        raise Stale()
    return as_record(found[0])


def entry(cfg, ip, like=None):
    """A record as a change sends it: the name, type and address, and like's TTL, priority and comment
    (a new record: NEW_TTL)."""
    like = like or {}
    ttl = number(like.get('ttl'))
    sent = {'name': relative_name(cfg, ''), 'type': cfg.record_type, 'data': ip,
            'ttl': ttl if ttl and ttl <= TTL_MAX else NEW_TTL}
    sent.update((k, like[k]) for k in ('priority', 'comment') if isinstance(like.get(k), (int, str))
                and not isinstance(like.get(k), bool))
    return sent


def change(job, zone_id, step, one):
    """One change of the zone's records, in a PATCH that never makes a zone; the records the answer
    gives. https://www.scaleway.com/en/developers/api/domains-and-dns/#path-records-update-records-within-a-dns-zone"""
    body = {'changes': [one], 'return_all_records': False, 'disallow_new_zone_creation': True}
    return listing(call(job, 'PATCH', '/dns-zones/%s/records' % zone_id, step, body, stale=True), 'records', step)


def made_id(made, ip, step, known=None):
    """The id of the record holding ip among those a change answered (known: the record's own, when
    the answer names none)."""
    from ddkit import rest
    from ddkit.ipcheck import same_ip
    found = [record_id(r.get('id')) for r in made if isinstance(r.get('data'), str) and same_ip(r['data'], ip)]
    return rest.new_id(next((f for f in found if f), None), step, known)


def create_record(job, zone_id, ip):
    """The record added, with the TTL NEW_TTL; its id."""
    return made_id(change(job, zone_id, 'create record', {'add': {'records': [entry(job.cfg, ip)]}}), ip,
                   'create record')


def update_record(job, zone_id, record, ip):
    """The record of its id set to the new address, its TTL, priority and comment sent back; its id."""
    made = change(job, zone_id, 'update record', {'set': {'id': record.id, 'records': [
        entry(job.cfg, ip, record.raw)]}})
    return made_id(made, ip, 'update record', record.id)


def delete_record(job, zone_id, record):
    """A line's record, its line without an address; one gone already (HTTP 404) is success."""
    try:
        change(job, zone_id, 'delete record', {'delete': {'id': record.id}})
    except Stale:
        return None


def call(job, method, path, step, body=None, stale=False):
    """One API call with the secret key; its JSON answer. stale: HTTP 404 raises Stale (the zone or the
    record is gone: the loop looks again)."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'X-Auth-Token': cfg.secret_key})
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step)
    data = rest.error_json(answer)
    said, code = (str(data[k])[:200] if isinstance(data.get(k), str) and data[k] else None for k in ('message', 'type'))
    rest.refused(job, answer, step, said, code, stale=stale)


def record_id(value):
    """A record id from an answer or the ids file: a UUID's characters, else None."""
    return value if isinstance(value, str) and 0 < len(value) <= 64 and set(value) <= ID_CHARS else None
