"""Name.com (the core API, v1): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `namecom`. Every call carries HTTP Basic
authentication, the account's user name and an API token. The domain is the zone: its records are
listed by its name (no zone call), each record by its id. Name.com has no resolution lines but holds
several records of a name: a line's record is one of them (SEVERAL).
API reference: https://www.name.com/api-docs (authentication, rate limits),
https://www.name.com/api-docs/DNS (records: ListRecords, GetRecord, CreateRecord, UpdateRecord,
DeleteRecord, at /core/v1/domains/{domainName}/records as name.com's Core API 1.7.0 OpenAPI
document names them; ListDomains at /core/v1/domains)
"""

from ddkit import Failure
from ddkit.provider import (PAGE, Record, Stale, declaration, listing, number, relative_name, secret_setting,
                            url_setting, zone_by_name as choose_zone)
from ddkit.settings import Setting, check_header

NAME = 'namecom'
SUMMARY = 'Keep an A or AAAA record at Name.com (core API)'
API_PATH = '/core/v1'
SETTINGS = [
    Setting('username', help='the Name.com account\'s user name (the one its API tokens are made for; with '
            'the test API, its name with -test)', check=check_header),
    secret_setting('api_token', 'its API token'),
    url_setting('https://api.name.com', 'API base URL, scheme and host (https://api.dev.name.com is the test API)',
                API_PATH),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True                           # no resolution lines: each line's address is a record of the name
TTL_MIN, TTL_MAX = 300, 2 ** 31 - 1      # "name.com allows a minimum TTL of 300"; a TTL read back outside is not sent
MAX_PAGES = 20                           # of PAGE records each: a zone listed past them is refused, not half read
ZONE_PAGES = 10                          # of ZONES_PAGE domains each, for account_zones
ZONES_PAGE = 1000                        # ListDomains' own default and largest page
ID_MAX = 2 ** 31                         # record ids are 32-bit integers
TOKEN_FIX = ('username must be the Name.com account user name and api_token an API token made for it '
             '(Account, Settings, API Tokens: a production token; a test token works with '
             'https://api.dev.name.com and the user name with -test); an account with two-step '
             'verification needs Name.com API Access switched on in its security settings')
FIXES = {   # what to do about the API's answers users meet, by HTTP status (docs/providers.md)
    400: 'the request was refused as invalid (see the provider\'s details): check record_name, record_type and '
         'that the record\'s TTL is at least 300',
    401: TOKEN_FIX,
    403: 'the domain\'s nameservers are not Name.com\'s, or the domain has expired (records can only be '
         'changed for a domain that uses Name.com DNS); else the credentials were refused: ' + TOKEN_FIX,
    404: 'zone_name must be a domain of this Name.com account (the domain itself, e.g. example.com)',
    415: 'the API refused the request\'s Content-Type (a bug: ddkit sends application/json)',
    429: 'too many requests (Name.com allows 20 a second and 3000 an hour): run less often',
}


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.username, cfg.api_token


def login(job):
    """--check: the credentials are accepted when Hello answers with the account's user name (a read
    call that needs nothing but them).
    https://www.name.com/api-docs (Hello: GET /core/v1/hello)"""
    data = call(job, 'GET', '/hello', 'login')
    user = data.get('username')
    return ' (user %s)' % (str(user)[:80] if isinstance(user, str) and user else job.cfg.username)


def list_zones(job):
    """The domain is the zone: [zone_name] once its records could be listed (the listing find_record
    reads then, shared); a domain the account does not have is a Failure of 'find zone'."""
    records(job, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, for a record without zone_name: ListDomains, page by page (at most
    ZONE_PAGES pages, then a Failure: set zone_name).
    https://www.name.com/api-docs (ListDomains: GET /core/v1/domains)"""
    from ddkit import rest

    def page(n):
        data = call(job, 'GET', '/domains?perPage=%d&page=%d' % (ZONES_PAGE, n + 1), 'find zone')
        following = number(data.get('nextPage'))
        return rest.domain_zones(d.get('domainName') for d in listing(data, 'domains', 'find zone')), \
            bool(following) and following > n + 1
    return rest.listed_zones(page, ZONE_PAGES, '%d domains' % (ZONE_PAGES * ZONES_PAGE))


def host(cfg):
    """The record's host as Name.com names it: record_name without the zone, '' for the zone itself."""
    return relative_name(cfg, '')


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of the job's line: one holding an address of its operator),
    or None; strict: a fresh listing (the one shared with list_zones may be older)."""
    return first(records(job, 'find record', fresh=strict), job)


def records(job, step, fresh=False):
    """Every record of the zone, listed once a run (the records of a run share it), page by page.
    https://www.name.com/api-docs/DNS (ListRecords: GET /core/v1/domains/{domainName}/records)"""
    cfg = job.cfg

    def fetch():
        found, page = [], 1
        while True:
            data = call(job, 'GET', '/domains/%s/records?perPage=%d&page=%d' % (cfg.zone_name, PAGE, page), step,
                        zone=True)
            found += listing(data, 'records', step)
            following = number(data.get('nextPage'))
            if not following or following <= page:
                return found
            if following > MAX_PAGES:
                raise Failure.at(step, 'the zone has more than %d records: more than a run reads' % (
                    MAX_PAGES * PAGE), kind='unexpected')
            page = following
    return job.shared(None if fresh else ('records', account(cfg), cfg.zone_name), fetch)


def named(found, cfg):
    """True when a record of an answer is of this name and type: by its host (absent, '' or '@' for
    the apex) or, given one, its fqdn (with or without the trailing dot)."""
    if found.get('type') != cfg.record_type or not record_id(found.get('id')):
        return False
    fqdn = found.get('fqdn')
    if isinstance(fqdn, str) and fqdn:
        return fqdn.rstrip('.').lower() == cfg.record_name
    held = found.get('host') or ''
    held = '' if held == '@' else held
    return isinstance(held, str) and held.lower() == host(cfg)


def first(found, job):
    """The first listed record of this name and type; of a line: one that holds an address of the
    line's operator (Name.com keeps no comment to tell a line's record by)."""
    from ddkit import rest
    found = rest.on_line([r for r in found if named(r, job.cfg)], job.line, 'answer')
    return as_record(found[0]) if found else None


def as_record(found):
    return Record(record_id(found['id']), [found.get('answer')], found)


def read_record(job, zone_id, record_id_text, held=False):
    """The record the stored ids name, as Name.com holds it now (an update sends its TTL back); Stale
    when it is gone, or is another name's or type's.
    https://www.name.com/api-docs/DNS (GetRecord: GET /core/v1/domains/{domainName}/records/{id})"""
    cfg = job.cfg
    if zone_id != cfg.zone_name or not record_id(record_id_text):
        raise Stale()   # ids of another zone_name, or not Name.com's
    data = call(job, 'GET', '/domains/%s/records/%s' % (zone_id, record_id_text), 'read record', stale=True)
    if not named(data, cfg) or record_id(data.get('id')) != record_id_text:
        raise Stale()   # ids of another record: find ours again
    return as_record(data)


def create_record(job, zone_id, ip):
    """The new record's id; its TTL is the API's default (300).
    https://www.name.com/api-docs/DNS (CreateRecord: POST /core/v1/domains/{domainName}/records)"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'POST', '/domains/%s/records' % zone_id, 'create record',
                {'host': host(cfg), 'type': cfg.record_type, 'answer': ip}, stale=True)
    return rest.new_id(record_id(data.get('id')), 'create record')


def update_record(job, zone_id, record, ip):
    """UpdateRecord replaces the whole record: its host, type and the TTL read are sent with the new
    address (a TTL not sent would not be kept).
    https://www.name.com/api-docs/DNS (UpdateRecord: PUT /core/v1/domains/{domainName}/records/{id})"""
    cfg = job.cfg
    body = {'host': host(cfg), 'type': cfg.record_type, 'answer': ip}
    ttl = record.raw.get('ttl')
    if isinstance(ttl, int) and not isinstance(ttl, bool) and TTL_MIN <= ttl <= TTL_MAX:
        body['ttl'] = ttl
    data = call(job, 'PUT', '/domains/%s/records/%s' % (zone_id, record.id), 'update record', body, stale=True)
    return record_id(data.get('id')) or record.id


def delete_record(job, zone_id, record):
    """A line's record, its line without an address; one gone already (HTTP 404) is success.
    https://www.name.com/api-docs/DNS (DeleteRecord: DELETE /core/v1/domains/{domainName}/records/{id})"""
    try:
        call(job, 'DELETE', '/domains/%s/records/%s' % (zone_id, record.id), 'delete record', stale=True)
    except Stale:
        return None


def authorization(cfg):
    """The Basic authorization header of the user name and the API token."""
    import binascii
    pair = ('%s:%s' % (cfg.username, cfg.api_token)).encode('utf-8')
    return 'Basic ' + binascii.b2a_base64(pair, newline=False).decode('ascii')


def call(job, method, path, step, body=None, stale=False, zone=False):
    """One API call, its answer checked: the JSON object of a 2xx answer ({} for none). stale: a 404
    (the record or the domain is gone) raises Stale, so the loop looks the ids up again; zone: a 404
    is a domain the account does not have, a Failure of 'find zone'."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    headers = {'Authorization': authorization(cfg)}
    if body is not None:
        headers['Content-Type'] = 'application/json'   # else the API answers 415
    answer = http.request(method, cfg.base_url + API_PATH + path, step, headers=headers, json_body=body,
                          timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=method != 'POST')
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=method == 'DELETE')
    data = rest.error_json(answer)
    said = ' '.join(str(data[key])[:200] for key in ('message', 'details')
                    if isinstance(data.get(key), (str, int)) and not isinstance(data.get(key), bool)
                    and data[key] != '')
    rest.refused(job, answer, step, said, stale=stale, zone='domain %s' if zone else None)


def record_id(value):
    """A record id from an answer or the ids file, as text: a positive 32-bit integer, else None."""
    if isinstance(value, str):
        value = number(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < ID_MAX:
        return str(value)
    return None
