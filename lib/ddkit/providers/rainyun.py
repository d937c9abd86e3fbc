"""Rainyun 雨云 (API v2, a domain's DNS records): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `rainyun`. Every call carries the account's
API key as `x-api-key`. The zone is Rainyun's numeric id of the domain, found by its name in the
account's domains (GET /product/domain/, page by page), so zone_name may be left out. A domain's
records are listed whole (page by page, once a run for every name and type); a record is its host
('@' for the apex), type and line. Only the default line (DEFAULT) is sent: other line values are not
confirmed, so a record is made on it and found there alone, and records of the name on other lines are
left alone. An update (PATCH) sends the whole record: its TTL, line and level as read. The create's
answer gives no id that is documented: the domain is listed again to find it. An answer is JSON
{"code": 200, "message", "data"} on success; a refusal may be another code in the body or an HTTP
status (both are read), its words maybe Chinese, in UTF-8 (or GBK: ddkit.rest.any_json).
API reference: https://s.apifox.cn/a4595cc8-44c5-4678-a2a3-eed7738dab03/api-153559362 (the domain's DNS
records: list, add, change), the calls as jeessy2/ddns-go's dns/rainyun.go makes them
"""

from ddkit import Failure
from ddkit.provider import Zone, declaration, listing, number, relative_name, safe_id, secret_setting, url_setting
from ddkit.settings import printable_ascii

NAME = 'rainyun'
SUMMARY = 'Keep an A or AAAA record at Rainyun 雨云 (domain DNS, API v2)'
SETTINGS = [secret_setting('api_key', 'API key of the Rainyun account (its console: account settings, API 密钥)',
                           check=printable_ascii(', as the Rainyun console shows it'), label='API key'),
            url_setting('https://api.v2.rainyun.com', 'API base URL, scheme and host')]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
OK = '200'                     # `code` of a successful call
LINE = 'DEFAULT'               # the default line, the one line value sent
NEW_TTL, NEW_LEVEL = 600, 10   # a new record's TTL and level (the peers')
TTL_MIN, TTL_MAX = 1, 604800   # a TTL read back outside these is not sent back
PER_PAGE = 100                 # domains, or records, a page asks for
PAGES = 20                     # pages read at most (2,000 domains, or records of a domain)
CREDENTIALS = 'check api_key (the Rainyun console: account settings, API 密钥), without spaces around it'
ZONE_FIX = 'zone_name must be a domain of this Rainyun account (the domain as its domain list shows it, e.g. ' \
    'example.com)'
FIXES = {   # what to do about the codes (in the body, or the HTTP status) users meet (docs/providers.md)
    '400': 'the request was refused as invalid (see the API\'s words): check record_name and record_type',
    '401': CREDENTIALS,
    '403': 'the API key may not manage this domain: check zone_name and whose key this is',
    '404': ZONE_FIX,
    '429': 'too many requests: run less often; the next run tries again',
}
FIXES.update({int(code): FIXES[code] for code in ('401', '403', '429')})   # the same, as a bare HTTP status


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_key


def login(job):
    """--check: the key is accepted when the account's domains can be listed (the run's own first
    request, so its step is 'find zone')."""
    list_zones(job)
    return ' (API key)'


def list_zones(job):
    """The account's domains ([Zone]), listed once a run, page by page.
    API: GET /product/domain/ (options: page, perPage) -> data.TotalRecords, data.Records[].id, domain"""
    from ddkit import jsontext, rest
    from ddkit.urls import quote

    def page(n):
        options = jsontext.dumps({'columnFilters': {'domains.Domain': ''}, 'sort': [], 'page': n + 1,
                                  'perPage': PER_PAGE})
        data = call(job, 'GET', '/product/domain/?options=' + quote(options), 'find zone')
        found = listing(data, 'Records', 'find zone')
        zones = [Zone(safe_id(d.get('id')), str(d['domain']).lower().rstrip('.')) for d in found
                 if safe_id(d.get('id')) and isinstance(d.get('domain'), str)]
        total = number(data.get('TotalRecords'))
        return zones, len(found) >= PER_PAGE and (total is None or (n + 1) * PER_PAGE < total)
    return job.shared(('zones', account(job.cfg)), lambda: rest.listed_zones(page, PAGES, '%d domains' % (
        PAGES * PER_PAGE)))


def account_zones(job):
    """Every domain of the account, for a record without zone_name."""
    return list_zones(job)


def choose_zone(job, zones):
    """The domain named zone_name, by its id; none is a Failure of 'find zone'."""
    found = [z for z in zones if z.name == job.cfg.zone_name]
    if not found:
        raise Failure.at('find zone', 'no domain %s in this account; %s' % (job.cfg.zone_name, ZONE_FIX),
                         kind='not found', fix=ZONE_FIX)
    return found[0]


def host(cfg):
    """The record's host as Rainyun names it: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def records(job, zone_id, step, fresh=False):
    """Every record of the domain, page by page, listed once a run (its names and types share it).
    API: GET /product/domain/{id}/dns/?limit=&page_no= -> data.TotalRecords, data.Records"""
    def fetch():
        found, seen = [], set()
        for n in range(1, PAGES + 1):
            data = call(job, 'GET', '/product/domain/%s/dns/?limit=%d&page_no=%d' % (zone_id, PER_PAGE, n), step)
            listed = listing(data, 'Records', step)
            new = [r for r in listed if str(r.get('record_id')) not in seen]
            seen.update(str(r.get('record_id')) for r in new)
            found += new
            total = number(data.get('TotalRecords'))
            if len(listed) < PER_PAGE or not new or total is None or len(found) >= total:
                return found
        raise Failure.at(step, 'the domain has more than %d records: this tool reads %d' % (
            PAGES * PER_PAGE, PAGES * PER_PAGE), kind='unexpected')
    return job.shared(None if fresh else ('records', account(job.cfg), zone_id), fetch)


def first(listed, job):
    """The first listed record of this host and type on the default line, or None."""
    from ddkit import rest
    return rest.first_named(job, listed, host(job.cfg), ('host', 'type', 'value'), record_id,
                            lambda r: str(r.get('line') or LINE).upper() == LINE, 'record_id')


def find_record(job, zone_id, strict=False):
    """The record of this name and type on the default line, or None; strict: a fresh listing."""
    return first(records(job, zone_id, 'find record', fresh=strict), job)


def read_record(job, zone_id, record_id_text, held=False):
    """The record the stored ids name, from the domain's listing (an update sends it back whole);
    Stale when the listing has no record of that id on this name, type and line."""
    from ddkit import rest
    return rest.stored_in_listing(job, zone_id, record_id_text, lambda: records(job, zone_id, 'read record'),
                                  lambda found: first(found, job), record_id, 'record_id', named=False)


def create_record(job, zone_id, ip):
    """POST on the domain's records, on the default line with the TTL NEW_TTL; the new record's id,
    from a fresh listing (the answer's data is not documented).
    API: POST /product/domain/{id}/dns"""
    from ddkit import rest
    cfg = job.cfg
    call(job, 'POST', '/product/domain/%s/dns' % zone_id, 'create record',
         {'host': host(cfg), 'line': LINE, 'level': NEW_LEVEL, 'ttl': NEW_TTL, 'type': cfg.record_type, 'value': ip,
          'record_id': 0}, repeatable=False)
    made = find_record(job, zone_id, strict=True)
    return rest.new_id(made.id if made else None, 'create record')


def update_record(job, zone_id, record, ip):
    """PATCH of the whole record: the new address, its host, type, line, TTL and level as read (what
    the call does with a field left out is not documented).
    API: PATCH /product/domain/{id}/dns"""
    cfg, raw = job.cfg, record.raw
    ttl, level = number(raw.get('ttl')), number(raw.get('level'))
    call(job, 'PATCH', '/product/domain/%s/dns' % zone_id, 'update record',
         {'host': host(cfg), 'line': LINE, 'level': level if level is not None else NEW_LEVEL,
          'ttl': ttl if ttl is not None and TTL_MIN <= ttl <= TTL_MAX else NEW_TTL, 'type': cfg.record_type,
          'value': ip, 'record_id': int(record.id)})
    return record.id


def record_id(value):
    """A record (or domain) id from an answer or the ids file, as text: a positive whole number."""
    found = number(value)
    return str(found) if found and safe_id(value) else None


def call(job, method, path, step, body=None, repeatable=None):
    """One call; its `data` (an object, {} when it has none). A refusal is a code other than 200 in
    the body, or an HTTP status other than 200 (the body's code, when it has one, names it; without
    one, an HTTP 404 is a path the host does not serve): a Failure with the fix for that code."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + path, step, json_body=body, timeout=cfg.timeout, ca_file=cfg.ca_file,
                          headers={'x-api-key': cfg.api_key}, repeatable=repeatable)
    found, code, message = rest.coded_answer(job, answer, step, 'message', OK)
    if code is None:
        data = found.get('data')
        return data if isinstance(data, dict) else {}
    job.log.error('%s: error %s: %s' % (step, code, message))
    raise rest.code_refused(job, answer, step, code, message, server=(code,) if (number(code) or 0) >= 500 else ())
