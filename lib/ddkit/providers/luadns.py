"""LuaDNS (REST API v1): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `luadns`. Every call carries HTTP Basic
authentication, the account's e-mail and an API key, and asks for JSON (`Accept: application/json`,
which the API requires). The zone is found by its name in the account's zones (its id names it in
paths); a record has an id and an absolute name (with the root's dot). An update replaces the whole
record (PUT of its name, type, content and TTL): the record is read first, and its TTL sent back.
LuaDNS has no resolution lines but holds several records of a name: a line's record is one of them
(SEVERAL).
API reference: https://luadns.com/api.html (authentication, zones, records: list, get, create,
update, delete)
"""

from ddkit.provider import Record, Stale, Zone, declaration, key_pair, number, safe_id, url_setting

NAME = 'luadns'
SUMMARY = 'Keep an A or AAAA record at LuaDNS (REST API v1)'
API_PATH = '/v1'
SETTINGS = key_pair('email', 'the LuaDNS account\'s e-mail address (the user of its API keys)', 'api_key',
                    'an API key of that account (Account Settings, API Keys; API access enabled there)',
                    label='E-mail') + [url_setting('https://api.luadns.com', api_path=API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True        # no resolution lines: each line's address is a record of the name
NEW_TTL = 3600        # a new record's TTL; an update sends the record's own
TTL_MAX = 2 ** 31 - 1
ZONE_FIX = 'zone_name must be a zone of this LuaDNS account (as its zone list shows it, e.g. example.com), and ' \
    'api_key a key that may use it'
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    400: 'the API refused the record (see its words): check record_name and record_type',
    401: 'email and api_key were refused: email is the account\'s e-mail, api_key an API key of it (Account '
         'Settings, API Keys), and API access must be enabled in the account settings',
    403: 'the API key may not use this zone: use a global key, or one restricted to this zone',
    404: ZONE_FIX,
    406: 'the API refused the request\'s Accept header (a bug: ddkit asks for application/json)',
    429: 'too many requests: run less often; the next run tries again',
}


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.email, cfg.api_key


def login(job):
    """--check: the key is accepted when the account's zones can be listed (the run's own first
    request, so its step is 'find zone')."""
    list_zones(job)
    return ' (API key of %s)' % job.cfg.email


def list_zones(job):
    """The account's zones, listed once a run.
    https://luadns.com/api.html (List zones: GET /v1/zones)"""
    return job.shared(('zones', account(job.cfg)), lambda: objects(call(job, 'GET', '/zones', 'find zone', kind=list)))


def objects(items):
    """The objects of a listing."""
    return [item for item in items if isinstance(item, dict)]


def choose_zone(job, found):
    """The zone named zone_name, by its id; none is a Failure of 'find zone'."""
    from ddkit import rest
    return rest.zone_named(job, found, 'id', 'name', 'zone', ZONE_FIX)


def account_zones(job):
    """Every zone of the account, for a record without zone_name (one listing: the API lists them
    all unless asked for a page)."""
    return [Zone(safe_id(z.get('id')), z['name'].lower().rstrip('.')) for z in list_zones(job)
            if safe_id(z.get('id')) and isinstance(z.get('name'), str)]


def records(job, zone_id, fresh=False):
    """Every record of the zone, listed once a run (the records of a run share it).
    https://luadns.com/api.html (List records: GET /v1/zones/{zone_id}/records)"""
    return job.shared(None if fresh else ('records', account(job.cfg), zone_id), lambda: objects(call(
        job, 'GET', '/zones/%s/records' % zone_id, 'find record', kind=list)))


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of a line: one holding an address of its operator), or None;
    strict: a fresh listing."""
    from ddkit import rest
    found = rest.on_line([r for r in records(job, zone_id, fresh=strict) if named(r, job.cfg)], job.line, 'content')
    return as_record(found[0]) if found else None


def named(found, cfg):
    """True when a record of an answer is of this name and type, with a usable id."""
    name = found.get('name')
    return found.get('type') == cfg.record_type and isinstance(name, str) \
        and name.lower().rstrip('.') == cfg.record_name and safe_id(found.get('id')) is not None


def as_record(found):
    return Record(safe_id(found['id']), [found.get('content')], found)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, as LuaDNS holds it now (an update sends its TTL back); Stale
    when it or its zone is gone, or it is another name's or type's.
    https://luadns.com/api.html (Get record: GET /v1/zones/{zone_id}/records/{record_id})"""
    data = call(job, 'GET', '/zones/%s/records/%s' % (zone_id, record_id), 'read record', stale=True)
    if not named(data, job.cfg) or safe_id(data.get('id')) != record_id:
        raise Stale()   # ids of another record: find ours again
    return as_record(data)


def create_record(job, zone_id, ip):
    """The new record's id, with the TTL NEW_TTL.
    https://luadns.com/api.html (Create record: POST /v1/zones/{zone_id}/records)"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'POST', '/zones/%s/records' % zone_id, 'create record',
                {'name': cfg.record_name + '.', 'type': cfg.record_type, 'content': ip, 'ttl': NEW_TTL}, stale=True)
    return rest.new_id(safe_id(data.get('id')), 'create record')


def update_record(job, zone_id, record, ip):
    """The whole record sent with the new address: its name, type and TTL as read (a TTL not sent
    would not be kept).
    https://luadns.com/api.html (Update record: PUT /v1/zones/{zone_id}/records/{record_id})"""
    cfg = job.cfg
    ttl = number(record.raw.get('ttl'))
    body = {'name': cfg.record_name + '.', 'type': cfg.record_type, 'content': ip,
            'ttl': ttl if ttl and ttl <= TTL_MAX else NEW_TTL}
    data = call(job, 'PUT', '/zones/%s/records/%s' % (zone_id, record.id), 'update record', body, stale=True)
    return safe_id(data.get('id')) or record.id


def delete_record(job, zone_id, record):
    """A line's record, its line without an address; one gone already (HTTP 404) is success.
    https://luadns.com/api.html (Delete record: DELETE /v1/zones/{zone_id}/records/{record_id})"""
    try:
        call(job, 'DELETE', '/zones/%s/records/%s' % (zone_id, record.id), 'delete record', stale=True)
    except Stale:
        return None


def authorization(cfg):
    """The Basic authorization header of the e-mail and the API key."""
    import binascii
    pair = ('%s:%s' % (cfg.email, cfg.api_key)).encode('utf-8')
    return 'Basic ' + binascii.b2a_base64(pair, newline=False).decode('ascii')


def call(job, method, path, step, body=None, stale=False, kind=dict):
    """One API call, its JSON answer of kind ({} for none). stale: HTTP 404 raises Stale (the record
    or the zone is gone: the loop looks again)."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': authorization(cfg),
                                                        'Accept': 'application/json'})
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=method == 'DELETE', kind=kind)
    said = rest.error_json(answer).get('message')
    rest.refused(job, answer, step, str(said)[:200] if isinstance(said, str) and said else None, stale=stale)
