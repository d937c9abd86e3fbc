"""West.cn 西部数码 (API v2, domain DNS): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `westcn`. Every call is a POST of a form to
<base_url>/api/v2/domain/?act=<act> carrying the account's user name, the time in milliseconds and a
token, md5(username + api_password + time): the API password itself is never sent, and a token is
good for ten minutes. Answers are JSON encoded in GBK, not UTF-8. The domain is the zone (no zone id
to look up); a record is its host (`item`: record_name without the zone, '@' for the apex), type and
resolution line (LINES; the default line, the empty code, for a record without lines). The API has no
call that reads one record by its id: a record is read from its name's listing.
API reference: https://www.west.cn/CustomerCenter/doc/apiv2.html (common parameters, the token),
https://www.west.cn/CustomerCenter/doc/domain_v2.html (the domain DNS calls)
"""

import time

from ddkit import Failure, decimal
from ddkit.provider import (PAGES, declaration, key_pair, number, relative_name,
                            safe_id, url_setting, whole_zone, zone_by_name as choose_zone)
from ddkit.settings import printable_ascii

NAME = 'westcn'
SUMMARY = 'Keep an A or AAAA record at West.cn 西部数码 (API v2)'
API_PATH = '/api/v2'
SETTINGS = key_pair('username', 'user name (member ID) of the West.cn account', 'api_password',
                    'the API password set in the account\'s API settings, not the login password',
                    check=printable_ascii(', as the account\'s API settings show it')) + [
    url_setting('https://api.west.cn', 'API base URL, scheme and host (a trailing /api/v2, as the provider\'s '
                'documents write it, is taken off: the tool adds it)', API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
# each operator line's resolution line code; 'default' stands for the default line, whose code in
# the API is the empty string (DEFAULT_CODE): a record without lines lives there
LINES = {'default': 'default', 'ct': 'LTEL', 'cm': 'LMOB', 'cu': 'LCNC'}
DEFAULT_CODE = ''
DEFAULT_NAMES = ('', '默认')             # how an answer may show the default line
LIMIT = 100                              # records (or domains) a page asks for
NAME_PAGES = 4                           # pages of one name's listing read at most (a host filter may be loose)
ZONE_PAGES = 20                          # pages of the account's domains read at most (2,000 domains)
TTL = 600                                # a new record's TTL (the API takes 60 to 86400)
TTL_MIN, TTL_MAX = 1, 86400              # a TTL read back outside these is not sent
LEVEL = 10                               # a new record's priority (MX only; the call names it)
OK = 200                                 # `result` of a successful call
AUTH = {10000, 10001}                    # the user name or token refused
ZONE_GONE = {20001, 20109, 20112}        # the domain is not this account's, or not on West.cn DNS
EXISTS = 20118                           # an identical record exists already
RECORD_GONE = 20120                      # no such record id
NO_RECORDS = {30001, 30201}              # a listing of nothing, answered as an error by some versions
CREDENTIALS = ('check username (the West.cn member ID) and api_password (the API password set under '
               'Account, API settings, not the login password); the token carries this host\'s time, so '
               'its clock must be right within minutes (NTP)')
ZONE_FIX = ('zone_name must be a domain of this account on West.cn DNS (the registered domain, e.g. '
            'example.com), and the API must be allowed for it')
FIXES = {   # what to do about the API's error codes users meet (docs/providers.md)
    10000: CREDENTIALS,
    10001: CREDENTIALS,
    10002: 'this host\'s IP is not in the API whitelist of the account: add it under Account, API settings, '
           'or clear the whitelist',
    20001: ZONE_FIX,
    20109: ZONE_FIX,
    20112: ZONE_FIX,
    20118: 'an identical record (host, type, line and value) exists already: remove the duplicate at West.cn',
    20120: 'the record is gone at the provider: the ids are looked up again and the record created',
}



def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.username, cfg.api_password


def login(job):
    """--check: the credentials are accepted when the API answers the record's listing with the
    records, or with a domain that is not this account's (the zone check says that one)."""
    try:
        records(job, 'find zone')
    except Failure as e:
        if decimal(e.code or '') not in ZONE_GONE:
            raise
    return ' (user %s)' % job.cfg.username


def list_zones(job):
    """[zone_name] once the API lists the record's name in it. West.cn names a zone by its domain, so
    no zone call is made: the listing find_record reads anyway (the same request, shared) proves the
    domain is this account's (an error of ZONE_GONE otherwise)."""
    records(job, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, as Zones named in lower case: the zone a record without
    zone_name belongs to is the longest that record_name ends with.
    API: getdomains (https://www.west.cn/CustomerCenter/doc/domain_v2.html)"""
    from ddkit import rest

    def page(n):
        data = call(job, 'getdomains', {'page': str(n + 1), 'limit': str(LIMIT)}, 'find zone')
        items = items_of(data, 'find zone')
        return rest.domain_zones(item.get('domain') for item in items), bool(items) and n + 1 < count_pages(
            data, len(items))
    return rest.listed_zones(page, ZONE_PAGES, '%d domains' % (ZONE_PAGES * LIMIT))


def host(cfg):
    """The record's host as West.cn names it: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def line_code(job):
    """The resolution line code of the job's record in the API ('' for the default line)."""
    return DEFAULT_CODE if job.line in (None, 'default') else LINES[job.line]


def on_line(code, shown):
    """True when an answer's line is this line code (the default line shows as '' or not at all)."""
    shown = '' if shown is None else str(shown)
    return shown in DEFAULT_NAMES if code == DEFAULT_CODE else shown == code


def find_record(job, zone_id, strict=False):
    """The record of this name and type on the job's line, or None; strict: a fresh listing (a
    create was refused because the record exists)."""
    return first(records(job, 'find record', fresh=strict), job)


def records(job, step, fresh=False):
    """The records listed for this name, once a run: of the type alone for a lone record; of every
    type when the run has several records or lines (the whole zone, unless it is large), each job
    taking its own from the one listing. The line is never a filter: the default line's code is
    empty, which a query cannot tell from none."""
    from ddkit import rest
    cfg = job.cfg
    listed = rest.zone_listing(job, cfg.zone_name, lambda: whole_zone(lambda page: zone_page(job, page, step)), fresh)
    if listed is not None:
        return listed
    query = {'domain': cfg.zone_name, 'host': host(cfg)}
    if not job.run.several:
        query['type'] = cfg.record_type
    key = None if fresh else ('records', account(cfg), cfg.zone_name, query['host'], query.get('type'))
    return job.shared(key, lambda: name_records(job, query, step))


def name_records(job, query, step):
    """The records of one name (and type): every page of its listing, up to NAME_PAGES."""
    found, page = [], 1
    while True:
        items, pages = list_records(job, dict(query, pageno=str(page)), step)
        found += items
        if page >= min(pages, NAME_PAGES):
            return found
        page += 1


def zone_page(job, page, step):
    """(records, number of pages) of one page of the domain's listing, every name and line."""
    return list_records(job, {'domain': job.cfg.zone_name, 'pageno': str(page)}, step)


def list_records(job, query, step):
    """getdnsrecord: (records, number of pages); an empty listing may be answered with an error
    code (NO_RECORDS), taken here as no records.
    API: https://www.west.cn/CustomerCenter/doc/domain_v2.html (获取域名解析记录)"""
    data = call(job, 'getdnsrecord', dict(query, limit=str(LIMIT)), step, empty=NO_RECORDS)
    if data is None:
        return [], 1
    items = items_of(data, step)
    return items, count_pages(data, len(items))


def items_of(data, step):
    """The objects of an answer's data.items ([] when absent); anything else: a Failure."""
    if data in (None, '', []):   # no data at all: nothing listed
        return []
    items = data.get('items') if isinstance(data, dict) else None
    items = [] if isinstance(data, dict) and items is None else items
    if not isinstance(items, list):
        raise Failure.at(step, 'unexpected answer: "data.items" is not a list', kind='unexpected')
    return [item for item in items if isinstance(item, dict)]


def count_pages(data, shown):
    """The number of pages an answer says there are (totalpages, else total / LIMIT); a full page
    whose answer says neither counts as one more page to come."""
    data = data if isinstance(data, dict) else {}
    for key, per in (('totalpages', 1), ('total', LIMIT)):
        value = number(data.get(key))
        if value is not None:
            return max(1, -(-value // per))
    return PAGES + 1 if shown >= LIMIT else 1



def first(listed, job):
    """The first listed record of this name and type on the job's line, or None."""
    from ddkit import rest
    code = line_code(job)
    return rest.first_named(job, listed, host(job.cfg), ('item', 'type', 'value'),
                            line=lambda r: on_line(code, r.get('line')))


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, as West.cn holds it now, from its name's listing (there is no
    call by id): an update sends back its TTL, priority and line; Stale when the listing has no
    record of that id on this name, type and line."""
    from ddkit import rest
    return rest.stored_in_listing(job, zone_id, record_id, lambda: records(job, 'read record'),
                                  lambda found: first(found, job))


def create_record(job, zone_id, ip):
    """adddnsrecord on the job's line, with the TTL TTL; an identical record there: Exists.
    API: https://www.west.cn/CustomerCenter/doc/domain_v2.html (添加域名解析)"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'adddnsrecord', {'domain': zone_id, 'host': host(cfg), 'type': cfg.record_type, 'value': ip,
                                      'ttl': str(TTL), 'level': str(LEVEL), 'line': line_code(job)},
                'create record', gone=ZONE_GONE, exists=True)
    return rest.new_id(safe_id(data.get('id')) if isinstance(data, dict) else None, 'create record')


def update_record(job, zone_id, record, ip):
    """moddnsrecord: the address, with the record's own TTL, priority and line sent back (what a
    call leaves out may be reset); Stale when the record or the domain is gone.
    API: https://www.west.cn/CustomerCenter/doc/domain_v2.html (修改域名解析)"""
    cfg, held = job.cfg, record.raw
    params = {'domain': zone_id, 'id': record.id, 'type': cfg.record_type, 'value': ip, 'line': line_code(job)}
    ttl, level = number(held.get('ttl')), number(held.get('level'))
    if ttl is not None and TTL_MIN <= ttl <= TTL_MAX:
        params['ttl'] = str(ttl)
    if level is not None and level < 10 ** 6:
        params['level'] = str(level)
    call(job, 'moddnsrecord', params, 'update record', gone=ZONE_GONE | {RECORD_GONE})
    return record.id


def delete_record(job, zone_id, record):
    """deldnsrecord: the record (record.id) deleted; one already gone is success (None).
    API: https://www.west.cn/CustomerCenter/doc/domain_v2.html (删除域名解析)"""
    call(job, 'deldnsrecord', {'domain': zone_id, 'id': record.id}, 'delete record', empty={RECORD_GONE})


def token(username, api_password, millis):
    """The token of a call made at millis (milliseconds since the epoch): md5 of the user name, the
    API password and that time, in lower-case hex."""
    import hashlib
    return hashlib.md5((username + api_password + str(millis)).encode('utf-8')).hexdigest()


def call(job, act, params, step, gone=(), exists=False, empty=()):
    """One call; its `data`, checked. An error whose code is in gone raises Stale (the record or the
    domain of the stored ids is gone), EXISTS with exists raises Exists, a code in empty (a listing
    of nothing, a delete of a record gone) gives None; a domain the account does not have is a
    Failure of 'find zone'; any other error a Failure of step."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    millis = int(time.time() * 1000)
    body = dict(params, username=cfg.username, time=str(millis), token=token(cfg.username, cfg.api_password, millis))
    # a read, or an update that sets what it sets, may be sent again; a create only when surely unsent
    answer = http.request('POST', '%s%s/domain/?act=%s' % (cfg.base_url, API_PATH, act), step,
                          headers={'Content-Type': 'application/x-www-form-urlencoded'}, data=rest.form(body),
                          timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=act != 'adddnsrecord')
    answer.nonempty()
    data = rest.any_json(answer, step, utf8=False)   # the API answers in GBK
    if not isinstance(data, dict) or 'result' not in data:
        raise Failure.at(step, 'unexpected answer (HTTP %d): %s' % (
            answer.status, http.snippet(rest.gbk_text(answer.body))), url=answer.where,
            status=answer.status, kind='server error' if answer.status >= 500 else 'unexpected')
    if number(data.get('result')) == OK and answer.status < 300:
        return data.get('data')
    code = number(data.get('errcode'))
    message = rest.undecoded(data.get('msg'))
    if rest.expected(job, step, code, message, gone, empty, (EXISTS,) if exists else ()):
        return None
    log.error('%s: error %s: %s' % (step, code, message))
    fix = FIXES.get(code)
    if code in ZONE_GONE:
        raise rest.zone_missing(job, answer, 'domain %s', 'error %s' % code, str(code), message, fix)
    raise Failure.at(step, 'the provider refused the request (%sresult %s, error %s)%s' % (
        'HTTP %d, ' % answer.status if answer.status != 200 else '', str(data.get('result'))[:12],
        code, '; ' + fix if fix else ''), url=answer.where, status=answer.status,
        code=None if code is None else str(code), provider_message=message, fix=fix,
        kind='server error' if answer.status >= 500 else 'refused')
