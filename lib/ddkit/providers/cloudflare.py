"""Cloudflare (API v4): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `cloudflare` (ddkit.registry); updater_a is
this provider fixed. Authentication: X-Auth-Email + X-Auth-Key, or an API token as Authorization:
Bearer. API reference: https://developers.cloudflare.com/api/resources/dns/subresources/records/
"""

from ddkit import Failure, decimal
from ddkit.provider import (PAGE, Record, Stale, Zone, account_zones as every_zone, listing, safe_id, secret_setting,
                            url_setting, whole_zone)
from ddkit.settings import Setting, check_header

NAME = 'cloudflare'
STEM = 'updater_a'                       # its lock and log files' prefix: the seed tool's name
SUMMARY = 'Keep an A or AAAA record at Cloudflare (API v4)'
API_PATH = '/client/v4'
SETTINGS = [
    Setting('auth_email', help='account e-mail (with auth_key)', short='-u', check=check_header,
            label='Account e-mail'),
    Setting('auth_key', help='the account\'s Global API Key, with auth_email (an API token is the safer choice)',
            short='-k', secret=True, check=check_header, label='Global API key'),
    secret_setting('api_token', 'API token, sent as Authorization: Bearer (instead of e-mail + key)'),
    url_setting('https://api.cloudflare.com', api_path=API_PATH),
]
FILES = {'ip_file': '.cf-wan_ip_%s.txt', 'ids_file': '.cf-id_%s.txt'}
REQUIRED = ()                            # the credentials: missing_credentials
URLS = ('base_url',)
NOUN = 'record'
SEVERAL = True                           # no resolution lines: each line's address is a record of the name
LINE_COMMENT = 'ddkit line %s'           # the comment a line's record is made with: how it is found again
TTL_MAX = 86400                          # the provider's longest ttl: a longer one read back is not sent
NOT_FOUND = {81044, 7003, 7000, 1001}   # record or zone id no longer valid: look the ids up again
FIXES = {   # what to do about the provider's error codes users meet (docs/providers.md)
    6003: 'the credential headers are malformed: an API token belongs in api_token, not auth_key',
    6007: 'the provider could not read the request (usually transient): the next run retries',
    7000: 'the zone or record id is not valid for these credentials: check auth_email, auth_key and '
          'zone_name (stored ids are looked up again)',
    7003: 'the zone or record id is not valid for these credentials: check auth_email, auth_key and '
          'zone_name (stored ids are looked up again)',
    9005: 'the record content was refused: check record_type (A for IPv4, AAAA for IPv6)',
    9103: 'auth_email must be the account e-mail and auth_key its Global API Key (an API token '
          'belongs in api_token)',
    9106: 'set auth_email and auth_key, or api_token',
    9107: 'set auth_email and auth_key, or api_token',
    9109: 'the API token is not valid: create a new one with Zone.DNS edit permission',
    10000: 'the API token is not valid or lacks permission: it needs Zone.Zone read and Zone.DNS edit '
           'for this zone',
    81044: 'the record is gone at the provider: the ids are looked up again and the record created',
    81053: 'another record (e.g. a CNAME) already uses this name: remove it or choose another record_name',
    81057: 'an identical record already exists: remove the duplicate at the provider',
}


def missing_credentials(cfg):
    """[(setting, fix or None)]: an API token, or e-mail and key, are needed."""
    if cfg.api_token or (cfg.auth_email and cfg.auth_key):
        return []
    if cfg.auth_email or cfg.auth_key:
        return [('auth_key' if cfg.auth_email else 'auth_email', None)]
    return [('auth_email and auth_key (or api_token)', 'set api_token, or auth_email and auth_key '
             '(e.g. DDNS_AUTH_EMAIL and DDNS_AUTH_KEY)')]


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_token, cfg.auth_email, cfg.auth_key


def login(job):
    """--check: the credentials are accepted when the zones can be listed (a read call)."""
    list_zones(job)
    cfg = job.cfg
    return ' (%s)' % ('API token' if cfg.api_token else 'global API key of %s' % cfg.auth_email)


def list_zones(job):
    """The zones listed for zone_name."""
    cfg = job.cfg
    return job.shared(('zones', account(cfg), cfg.zone_name), lambda: [
        z for z in listing(call(job, 'GET', '/zones?name=%s' % cfg.zone_name, 'find zone'), 'result', 'find zone')
        if safe_id(z.get('id'))])


ZONES_PAGE = 50   # zones a page: the most the API gives


def account_zones(job):
    """Every zone the credentials see, for a record without zone_name (List Zones, page by page):
    https://developers.cloudflare.com/api/resources/zones/methods/list/"""
    def page(number):
        data = call(job, 'GET', '/zones?per_page=%d&page=%d' % (ZONES_PAGE, number), 'find zone')
        info = data.get('result_info') if isinstance(data.get('result_info'), dict) else {}
        pages = info.get('total_pages')
        return [Zone(safe_id(z.get('id')), str(z.get('name', '')).lower().rstrip('.'))
                for z in listing(data, 'result', 'find zone')], pages
    return every_zone(page)


def choose_zone(job, zones):
    """The zone named exactly zone_name, else the first listed."""
    cfg = job.cfg
    exact = [z for z in zones if z.get('name') == cfg.zone_name]
    if not zones:
        raise Failure.at('find zone', 'no zone named %s in this account; check zone_name (the root domain, '
                         'not a zone id) and the credentials' % cfg.zone_name, kind='not found',
                         fix='check zone_name (the root domain, not a zone id) and the credentials')
    zone = (exact or zones)[0]
    return Zone(safe_id(zone['id']), str(zone.get('name')))


def find_record(job, zone_id, strict=False):
    """The record of this name and type, or None (a failed lookup is a Failure, strict or not)."""
    from ddkit import rest
    cfg = job.cfg
    listed = rest.zone_listing(job, zone_id, lambda: whole_zone(lambda page: zone_page(job, zone_id, page)))
    if listed is not None:
        return first(listed, cfg, job.line)
    # several records in a run list a name once for both families (the API's older variant)
    query = 'name=%s' % cfg.record_name + ('' if job.run.several else '&type=%s' % cfg.record_type)
    data = job.shared(('records', account(cfg), zone_id, query), lambda: call(
        job, 'GET', '/zones/%s/dns_records?%s' % (zone_id, query), 'find record'))
    return first(listing(data, 'result', 'find record'), cfg, job.line)


def zone_page(job, zone_id, page):
    """(records, number of pages) of one page of the zone's listing."""
    data = call(job, 'GET', '/zones/%s/dns_records?per_page=%d&page=%d' % (zone_id, PAGE, page), 'find record')
    info = data.get('result_info') if isinstance(data.get('result_info'), dict) else {}
    total = info.get('total_count')
    pages = -(-total // PAGE) if isinstance(total, int) and not isinstance(total, bool) and total >= 0 else None
    return listing(data, 'result', 'find record'), pages


def first(records, cfg, line=None):
    """The first listed record of this name and type, or None; of a line: the one made for it (its
    comment), else one that holds an address of the line's operator and was made for no other line."""
    from ddkit import rest
    records = rest.on_line([r for r in records if safe_id(r.get('id')) and r.get('name') == cfg.record_name
                            and r.get('type') == cfg.record_type], line, 'content', 'comment', LINE_COMMENT)
    return as_record(records[0]) if records else None


def as_record(found):
    return Record(safe_id(found['id']), [found.get('content')], found)


def read_record(job, zone_id, record_id, held=False):
    """The record as the provider holds it now (held or not), so an update keeps its other fields."""
    cfg = job.cfg
    data = call(job, 'GET', '/zones/%s/dns_records/%s' % (zone_id, record_id), 'read record', stale=True)
    record = data.get('result')
    if not isinstance(record, dict) or record.get('type') != cfg.record_type \
            or record.get('name') != cfg.record_name or record.get('id') != record_id:
        raise Stale()  # ids of another record: find ours again
    return as_record(record)


def create_record(job, zone_id, ip):
    cfg = job.cfg
    body = {'id': zone_id, 'type': cfg.record_type, 'name': cfg.record_name, 'content': ip,
            'ttl': 1, 'proxied': False}
    if job.line:
        body['comment'] = LINE_COMMENT % job.line
    data = call(job, 'POST', '/zones/%s/dns_records' % zone_id, 'create record', body)
    return record_id_of(data, 'create record')


def delete_record(job, zone_id, record):
    """A line's record, its line without an address (one gone already is success).
    https://developers.cloudflare.com/api/resources/dns/subresources/records/methods/delete/"""
    try:
        call(job, 'DELETE', '/zones/%s/dns_records/%s' % (zone_id, record.id), 'delete record', stale=True)
    except Stale:
        return None


def update_record(job, zone_id, record, ip):
    """PUT overwrites the whole record: send back its ttl, proxied, comment and tags with the new IP."""
    cfg, held = job.cfg, record.raw
    body = {'id': zone_id, 'type': cfg.record_type, 'name': cfg.record_name, 'content': ip}
    ttl = held.get('ttl')
    if isinstance(ttl, int) and not isinstance(ttl, bool) and 0 < ttl <= TTL_MAX:  # 1: automatic
        body['ttl'] = ttl
    for key, kind in (('proxied', bool), ('comment', str), ('tags', list)):
        if isinstance(held.get(key), kind):
            body[key] = held[key]
    data = call(job, 'PUT', '/zones/%s/dns_records/%s' % (zone_id, record.id), 'update record', body, stale=True)
    return record_id_of(data, 'update record', known=record.id)


def call(job, method, path, step, body=None, stale=False):
    """One API call, its envelope checked (success false, error, empty). stale: an answer that the
    zone or record id is not valid (any more) raises Stale, so the loop looks them up again."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    headers = {'Content-Type': 'application/json'}  # the API asks for it on every call
    if cfg.api_token:
        headers['Authorization'] = 'Bearer ' + cfg.api_token
    else:
        headers.update({'X-Auth-Email': cfg.auth_email, 'X-Auth-Key': cfg.auth_key})
    answer = http.request(method, cfg.base_url + API_PATH + path, step, headers=headers,
                          json_body=body, timeout=cfg.timeout, ca_file=cfg.ca_file)
    answer.nonempty()
    data = answer.json()
    if not isinstance(data, dict):
        raise Failure.at(step, 'unexpected answer: %s' % http.snippet(answer.text), url=answer.where,
                         status=answer.status, kind='unexpected')
    if data.get('success') is False or 'error' in data:
        errors = listing(data, 'errors', step)
        codes = set()
        for e in errors:
            log.error('%s: error %s: %s' % (step, e.get('code'), e.get('message')))
            codes.add(_int(e.get('code')))
        if 'error' in data:
            log.error('%s: %s' % (step, data['error']))
        if stale and (codes & NOT_FOUND or answer.status == 404):
            raise Stale()
        fixes = [FIXES[_int(e.get('code'))] for e in errors if _int(e.get('code')) in FIXES]
        first = errors[0] if errors else {}
        raise Failure.at(step, 'the provider refused the request (HTTP %d%s)%s' % (
            answer.status, ', codes ' + ', '.join(str(e.get('code')) for e in errors) if errors else '',
            '; ' + fixes[0] if fixes else ''), url=answer.where, status=answer.status, kind='refused',
            code=None if first.get('code') is None else str(first.get('code'))[:40],
            provider_message=str(first.get('message') or data.get('error') or '')[:200] or None,
            fix=fixes[0] if fixes else None)
    if data.get('success') is not True:
        raise Failure.at(step, 'unexpected answer: %s' % http.snippet(answer.text), url=answer.where,
                         status=answer.status, kind='unexpected')
    return data


def record_id_of(data, step, known=None):
    """The record id in an answer; an update that says success without one keeps the known id."""
    from ddkit import rest
    result = data.get('result')
    return rest.new_id(safe_id(result.get('id')) if isinstance(result, dict) else None, step, known)


def _int(value):
    """An error code as a number, or None (jsontext already refused 1e999 and NaN; a string may be
    anything)."""
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else ''
    return decimal(text) if len(text) <= 9 else None
