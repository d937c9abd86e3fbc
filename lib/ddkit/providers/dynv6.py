"""dynv6 (the REST API, v2): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `dynv6`. Every call carries an HTTP token
as Authorization: Bearer. A zone is found by its name; a name inside it is a record of the zone
(its name relative to the zone, no TTL). The zone's own A and AAAA records are no records: they are
the zone's `ipv4address` and `ipv6prefix` fields, set by updating the zone, so the zone's own name
holds one address of each family (its "record" id in the ids file is `apex`). Several records of
one name are not known to be kept there: `lines` is refused.
API reference: https://dynv6.github.io/api-spec/ (OpenAPI 0.2.0: zones, records, errors),
https://dynv6.com/docs/apis (HTTP tokens)
"""

from ddkit import Failure
from ddkit.provider import Record, Stale, Zone, declaration, relative_name, safe_id, token_account, token_settings

NAME = 'dynv6'
SUMMARY = 'Keep an A or AAAA record at dynv6 (REST API)'
API_PATH = '/api/v2'
SETTINGS = token_settings('dynv6 HTTP token (the keys page: HTTP Tokens), for every zone or the record\'s zone',
                          'https://dynv6.com', 'API base URL, scheme and host (a trailing /api/v2 is taken off: the '
                          'tool adds it)', API_PATH)
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
APEX = 'apex'                            # the ids file's record id of the zone's own address
FIELDS = {'A': 'ipv4address', 'AAAA': 'ipv6prefix'}   # the zone's field of its own address, by family
TOKEN_FIX = ('api_token must be an HTTP token of this dynv6 account (the keys page, HTTP Tokens), copied '
             'whole; a deleted token is refused')
FIXES = {   # what to do about the API's answers users meet, by HTTP status (docs/providers.md)
    400: 'the API could not read the request (a bug: ddkit sends JSON)',
    401: TOKEN_FIX,
    403: 'the HTTP token may not change this zone: it is restricted to another zone; use a token for this zone '
         'or for every zone',
    404: 'zone_name must be a zone of this dynv6 account, its full name (e.g. myhome.dynv6.net)',
    422: 'the record was refused (see the fields): check record_name (a name inside zone_name) and record_type',
    429: 'too many requests: run less often',
}


account = token_account


def login(job):
    """--check: the token is accepted when the zone lookup passes authentication (the lookup the zone
    check then uses); a zone it cannot find is the zone check's to say."""
    try:
        list_zones(job)
    except Failure as e:
        if e.status in (401, 403) or e.status is None or e.status >= 500:
            raise
    return ' (HTTP token)'


def list_zones(job):
    """[the zone named zone_name], looked up by its name once a run.
    https://dynv6.github.io/api-spec/ (zones: GET /zones/by-name/{name})"""
    cfg = job.cfg
    return job.shared(('zone', 'by name', account(cfg), cfg.zone_name), lambda: [call(
        job, 'GET', '/zones/by-name/%s' % cfg.zone_name, 'find zone', zone=True)])


def choose_zone(job, zones):
    """The zone, by its id; one answered for another name, or without a usable id, is a Failure."""
    cfg = job.cfg
    found = zones[0]
    if safe_id(found.get('id')) is None or str(found.get('name', '')).rstrip('.').lower() != cfg.zone_name:
        raise Failure.at('find zone', 'the API answered no zone %s with a usable id' % cfg.zone_name, kind='unexpected')
    return Zone(safe_id(found['id']), cfg.zone_name)


def account_zones(job):
    """Every zone the token sees (a token of one zone: that one), for a record without zone_name.
    https://dynv6.github.io/api-spec/ (zones: GET /zones)"""
    zones = call(job, 'GET', '/zones', 'find zone', listed=True)
    found = []
    for zone in zones:
        name = zone.get('name')
        if safe_id(zone.get('id')) and isinstance(name, str) and safe_id(name.rstrip('.')):
            found.append(Zone(safe_id(zone['id']), name.rstrip('.').lower()))
    return found


def apex(cfg):
    """True when the record is the zone's own name: its address is a field of the zone."""
    return cfg.record_name == cfg.zone_name


def relative(cfg):
    """The record's name as dynv6 names it: record_name without the zone."""
    return relative_name(cfg, '')


def zone_address(cfg, zone):
    """The zone's own address of the record's family ('ipv6prefix' may hold a prefix, /len written:
    a /128 is that address), or None when it has none."""
    held = zone.get(FIELDS[cfg.record_type])
    if not isinstance(held, str) or not held.strip():
        return None
    held = held.strip()
    return held[:-4] if held.endswith('/128') else held


def zone_record(job, zone):
    """The zone's own address as a Record (None: the zone has none of this family); its id is APEX."""
    cfg = job.cfg
    if str(zone.get('name', '')).rstrip('.').lower() != cfg.zone_name:
        raise Stale()   # ids of another zone: find ours again
    held = zone_address(cfg, zone)
    return None if held is None else Record(APEX, [held], zone)


def find_record(job, zone_id, strict=False):
    """The record of this name and type, or None: at the zone's own name, the zone's address of the
    family (the zone as looked up; strict: read again); else the first record of the zone's listing
    (strict: a fresh one) with this name and type.
    https://dynv6.github.io/api-spec/ (records: GET /zones/{zoneID}/records)"""
    cfg = job.cfg
    if apex(cfg):
        zone = call(job, 'GET', '/zones/%s' % zone_id, 'find record') if strict else list_zones(job)[0]
        return zone_record(job, zone)
    listed = job.shared(None if strict else ('records', account(cfg), zone_id), lambda: call(
        job, 'GET', '/zones/%s/records' % zone_id, 'find record', listed=True, stale=True))
    for found in listed:
        if named(found, cfg):
            return as_record(found)
    return None


def named(found, cfg):
    """True when a record of an answer is of this name and type: its name relative to the zone, or
    (any reading of the reference) the full name."""
    name = found.get('name')
    return found.get('type') == cfg.record_type and safe_id(found.get('id')) is not None \
        and isinstance(name, str) and name.rstrip('.').lower() in (relative(cfg), cfg.record_name)


def as_record(found):
    return Record(safe_id(found['id']), [found.get('data')], found)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, as dynv6 holds it now; Stale when it is gone, or is another
    name's or type's (or, at the zone's own name, the zone is another).
    https://dynv6.github.io/api-spec/ (GET /zones/{id}; GET /zones/{zoneID}/records/{recordID})"""
    cfg = job.cfg
    if (record_id == APEX) != apex(cfg):
        raise Stale()   # record_name moved to or from the zone's own name
    if apex(cfg):
        return zone_record(job, call(job, 'GET', '/zones/%s' % zone_id, 'read record', stale=True)) or Record(APEX)
    found = call(job, 'GET', '/zones/%s/records/%s' % (zone_id, record_id), 'read record', stale=True)
    if not named(found, cfg) or safe_id(found.get('id')) != record_id \
            or ('zoneID' in found and safe_id(found.get('zoneID')) != zone_id):
        raise Stale()   # ids of another record: find ours again
    return as_record(found)


def create_record(job, zone_id, ip):
    """The new record's id: at the zone's own name, the zone's address set (APEX); else a record of the
    zone (name, type, data: dynv6 keeps no TTL).
    https://dynv6.github.io/api-spec/ (PATCH /zones/{id}; POST /zones/{zoneID}/records)"""
    from ddkit import rest
    cfg = job.cfg
    if apex(cfg):
        return set_zone_address(job, zone_id, ip, 'create record')
    found = call(job, 'POST', '/zones/%s/records' % zone_id, 'create record',
                 {'name': relative(cfg), 'type': cfg.record_type, 'data': ip}, stale=True)
    return rest.new_id(safe_id(found.get('id')), 'create record')


def update_record(job, zone_id, record, ip):
    """The record's id: at the zone's own name, the zone's address of the family set (its other
    fields kept: only this one is sent); else the record's data, with its name and type as read
    (a PATCH changes what it is sent; priority, port, weight and the rest are kept).
    https://dynv6.github.io/api-spec/ (PATCH /zones/{id}; PATCH /zones/{zoneID}/records/{recordID})"""
    cfg = job.cfg
    if apex(cfg):
        return set_zone_address(job, zone_id, ip, 'update record')
    name = record.raw.get('name') if isinstance(record.raw.get('name'), str) else relative(cfg)
    found = call(job, 'PATCH', '/zones/%s/records/%s' % (zone_id, record.id), 'update record',
                 {'name': name, 'type': cfg.record_type, 'data': ip}, stale=True)
    return safe_id(found.get('id')) or record.id


def set_zone_address(job, zone_id, ip, step):
    """PATCH the zone with its own address of the record's family alone; APEX."""
    call(job, 'PATCH', '/zones/%s' % zone_id, step, {FIELDS[job.cfg.record_type]: ip}, stale=True)
    return APEX


def call(job, method, path, step, body=None, stale=False, zone=False, listed=False):
    """One API call, its answer checked: the JSON object of a 2xx answer ({} for none; listed: the
    objects of a JSON array). stale: a 404 (the zone or the record is gone) raises Stale, so the loop
    looks the ids up again; zone: a 404 is a zone the account does not have, a Failure of 'find zone'."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    headers = {'Authorization': 'Bearer ' + cfg.api_token}
    if body is not None:
        headers['Content-Type'] = 'application/json'
    answer = http.request(method, cfg.base_url + API_PATH + path, step, headers=headers, json_body=body,
                          timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=method != 'POST')
    if 200 <= answer.status < 300:
        # a PATCH of the zone is answered with no body ("Zone was updated successfully")
        data = rest.json_of(answer, step, empty=method == 'PATCH' and not listed, kind=list if listed else dict)
        return [item for item in data if isinstance(item, dict)] if listed else data
    code, said = error_of(answer)
    rest.refused(job, answer, step, said, code, stale=stale, zone='zone %s' if zone else None, shown=', %s')


def error_of(answer):
    """(name, words) of an error answer: {"error": {"name", "message", "fields": [{"name",
    "message"}]}}; (None, '') for any other."""
    try:
        data = answer.json()
    except Failure:
        return None, ''
    error = data.get('error') if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return None, ''
    name = error.get('name')
    code = str(name)[:80] if isinstance(name, str) and name else None
    parts = [str(error['message'])[:200]] if isinstance(error.get('message'), str) and error['message'] else []
    fields = error.get('fields') if isinstance(error.get('fields'), list) else []
    for field in [f for f in fields if isinstance(f, dict)][:4]:
        if isinstance(field.get('message'), str):
            parts.append(('%s: %s' % (field.get('name'), field['message']))[:200])
    return code, '; '.join(parts)
