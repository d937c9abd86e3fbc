"""DNS.LA (API v2): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `dnsla`. Every call carries HTTP Basic
authentication, the API ID and the API secret. The zone is the domain's id, read by its name (GET
/api/domain); a record is its host ('@' for the apex) and type, the type a number (A 1, AAAA 28), its
value `data`. No call reads one record by its id: stored ids are checked in the name's listing. The
lines' ids (lineId) are not confirmed: no line is sent, and only a record the listing shows on no other
line is found and changed. An answer is JSON {"code": 200, "msg", "data"} on success; a refusal may be
another code in the body or an HTTP status (both are read), its words maybe Chinese, in UTF-8 (or GBK:
ddkit.rest.any_json).
API reference: https://www.dns.la/docs/ApiDoc (recordList, record: POST, PUT; domain), the calls as
jeessy2/ddns-go's dns/dnsla.go and acme.sh's dnsapi/dns_la.sh make them
"""

from ddkit import Failure
from ddkit.provider import Zone, declaration, key_pair, listing, number, relative_name, safe_id, url_setting
from ddkit.settings import printable_ascii

NAME = 'dnsla'
SUMMARY = 'Keep an A or AAAA record at DNS.LA (API v2)'
API_PATH = '/api'
SETTINGS = key_pair('api_id', 'API ID of the DNS.LA account (its APIID)', 'api_secret',
                    'its API secret (APISecret)', label='API ID',
                    check=printable_ascii(', as the DNS.LA console shows it')) + [
    url_setting('https://api.dns.la', api_path=API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
OK = '200'                               # `code` of a successful call
TYPES = {'A': 1, 'AAAA': 28}             # the API's numbers of the record types
PAGE_SIZE = 100                          # records of a name and type a listing asks for
NEW_TTL = 600                            # a new record's TTL (the peers')
TTL_MIN, TTL_MAX = 1, 604800             # a TTL read back outside these is not sent back
DEFAULT_LINES = ('', '0')                # how a listing may show the default line's lineId (or none)
ZONE_CODES = ('400', '404')              # at 'find zone': the domain is not the account's
RECORD_GONE = '404'                      # at 'update record': the record is gone
ACCOUNT = ('401', '403', '429')          # about the key or the rate: a create so refused is not the record's
CREDENTIALS = 'check api_id and api_secret (the DNS.LA console\'s API page: its APIID and APISecret)'
ZONE_FIX = 'zone_name must be a domain of this DNS.LA account (the domain itself, e.g. example.com)'
FIXES = {   # what to do about the codes (in the body, or the HTTP status) users meet (docs/providers.md)
    '400': 'the request was refused as invalid (see the API\'s words): check record_name and record_type',
    '401': CREDENTIALS,
    '403': 'the API key may not manage this domain: check zone_name and whose key this is',
    '404': ZONE_FIX,
    '429': 'too many requests: run less often; the next run tries again',
}
FIXES.update({int(code): FIXES[code] for code in ACCOUNT})   # the same, as an HTTP status without a code


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_id, cfg.api_secret


def login(job):
    """--check: the key is accepted when the domain is read (or answered as not this account's, which
    the zone check then says)."""
    try:
        list_zones(job)
    except Failure as e:
        if e.kind != 'not found':
            raise
    return ' (API ID %s...)' % job.cfg.api_id[:6]


def list_zones(job):
    """[the domain read by its name, once a run].
    API: https://www.dns.la/docs/ApiDoc (domain: GET /api/domain?domain=)"""
    from ddkit.urls import quote
    cfg = job.cfg
    return job.shared(('domain', account(cfg), cfg.zone_name), lambda: [
        call(job, 'GET', '/domain?domain=' + quote(cfg.zone_name), 'find zone', zone=True)])


def choose_zone(job, zones):
    """The domain by its id; an answer without one is the domain not in the account."""
    found = zones[0] if isinstance(zones[0], dict) else {}
    name = str(found.get('domain') or job.cfg.zone_name).lower().rstrip('.')
    if not safe_id(found.get('id')) or name != job.cfg.zone_name:
        raise Failure.at('find zone', 'no domain %s in this account (the API answered no domain of that name); %s' % (
            job.cfg.zone_name, ZONE_FIX), kind='not found', fix=ZONE_FIX)
    return Zone(safe_id(found['id']), job.cfg.zone_name)


def host(cfg):
    """The record's host as DNS.LA names it: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def records(job, zone_id, step, fresh=False):
    """The records of the name and type, listed once a run.
    API: https://www.dns.la/docs/ApiDoc (recordList: GET /api/recordList)"""
    from ddkit.urls import quote
    cfg = job.cfg
    query = 'domainId=%s&host=%s&type=%d&pageIndex=1&pageSize=%d' % (zone_id, quote(host(cfg)),
                                                                      TYPES[cfg.record_type], PAGE_SIZE)

    def fetch():
        data = call(job, 'GET', '/recordList?' + query, step)
        return listing(data if isinstance(data, dict) else {}, 'results', step)
    return job.shared(None if fresh else ('records', account(cfg), query), fetch)


def first(listed, job):
    """The first listed record of this host and type on the default line, or None."""
    from ddkit import rest
    return rest.first_named(job, listed, host(job.cfg), ('host', None, 'data'), safe_id,
                            lambda r: str(r.get('lineId') or '') in DEFAULT_LINES,
                            of_type=lambda r: number(r.get('type')) == TYPES[job.cfg.record_type])


def find_record(job, zone_id, strict=False):
    """The record of this name and type on the default line, or None; strict: a fresh listing."""
    return first(records(job, zone_id, 'find record', fresh=strict), job)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, from its name's listing (an update sends its TTL back); Stale
    when the listing has no record of that id on this name, type and line."""
    from ddkit import rest
    return rest.stored_in_listing(job, zone_id, record_id, lambda: records(job, zone_id, 'read record'),
                                  lambda found: first(found, job), named=False)


def create_record(job, zone_id, ip):
    """POST /api/record with the TTL NEW_TTL, no line (the default one); the new record's id. A refusal
    that may be a record made meanwhile ("与已有记录冲突") is looked at again (rest.created).
    API: https://www.dns.la/docs/ApiDoc (record: POST /api/record)"""
    from ddkit import rest
    cfg = job.cfg
    body = {'domainId': zone_id, 'host': host(cfg), 'type': TYPES[cfg.record_type], 'data': ip, 'ttl': NEW_TTL}
    data = rest.created(job, zone_id, lambda: call(job, 'POST', '/record', 'create record', body, repeatable=False),
                        lambda e: e.kind == 'refused' and e.code not in ACCOUNT)
    return rest.new_id(safe_id(data.get('id')) if isinstance(data, dict) else None, 'create record')


def update_record(job, zone_id, record, ip):
    """PUT /api/record: the new address, with the record's own TTL (what an omitted one does is not
    documented); no line, as the record is on the default one. Stale when the record is gone (404).
    API: https://www.dns.la/docs/ApiDoc (record: PUT /api/record)"""
    cfg = job.cfg
    body = {'id': record.id, 'host': host(cfg), 'type': TYPES[cfg.record_type], 'data': ip}
    ttl = number(record.raw.get('ttl'))
    if ttl is not None and TTL_MIN <= ttl <= TTL_MAX:
        body['ttl'] = ttl
    call(job, 'PUT', '/record', 'update record', body, gone=RECORD_GONE)
    return record.id


def authorization(cfg):
    """The Basic authorization header of the API ID and secret."""
    import binascii
    pair = ('%s:%s' % (cfg.api_id, cfg.api_secret)).encode('utf-8')
    return 'Basic ' + binascii.b2a_base64(pair, newline=False).decode('ascii')


def call(job, method, path, step, body=None, zone=False, gone=None, repeatable=None):
    """One call; its `data`. A refusal is a code other than 200 in the body, or an HTTP status other
    than 200 (the body's code, when it has one, names it; without one, an HTTP 404 is a path the host
    does not serve): a Failure with the fix for that code; at 'find zone' (zone), a code 400 or 404 is
    the domain not in the account; the code gone raises Stale."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': authorization(cfg)}, repeatable=repeatable)
    data, code, message = rest.coded_answer(job, answer, step, 'msg', OK)
    if code is None:
        return data.get('data')
    rest.expected(job, step, code, message, gone=(gone,))
    job.log.error('%s: error %s: %s' % (step, code, message))
    if zone and code in ZONE_CODES:
        raise rest.zone_missing(job, answer, 'domain %s', code, code, message, fix=ZONE_FIX)
    raise rest.code_refused(job, answer, step, code, message, server=(code,) if (number(code) or 0) >= 500 else ())
