"""DNSPod's own API (the "DNSPod Token" API at dnsapi.cn, and its international twin): keep one A or
AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `dnspodtoken`. Every call is a POST of a
form to <base_url>/<Action> carrying login_token=<ID>,<Token> (a DNSPod Token of the main account, not
a Tencent Cloud key) and format=json; every answer says {"status": {"code": "1"}} on success, its code
a string. The domain is the zone: every call names it (no zone id to look up); a record is its host
(sub_domain: record_name without the zone, '@' for the apex), type and line. The API has no call of
ours that reads one record: a record is read from its name's listing. A login refused stops every
request with that token (more than 30 failed logins in 5 minutes lock the API login for an hour): the
rest of the run sends nothing, and later runs wait HOLD_SECONDS unless the token changes.
API reference: https://docs.dnspod.cn/api/ (API 开发规范, 公共请求参数, 共通返回) and its older copy
http://dnspod.github.io/dnspod-api-doc/records.html (Record.List, Record.Create, Record.Modify,
Record.Remove), http://dnspod.github.io/dnspod-api-doc/domains.html (Domain.List); the international
API: https://docs.dnspod.com/api/
"""

from ddkit import Failure
from ddkit.provider import (PAGE, PAGES, declaration, listing, number, relative_name, safe_id,
                            secret_setting, url_setting, whole_zone, zone_by_name as choose_zone)
from ddkit.settings import Setting, printable_ascii

NAME = 'dnspodtoken'
SUMMARY = 'Keep an A or AAAA record at DNSPod (its own API, DNSPod Token)'


def check_token_id(value):
    """The ID of a DNSPod Token: digits."""
    if not value.isdigit() or not value.isascii() or len(value) > 19:
        raise ValueError('must be the number DNSPod shows as the token\'s ID')
    return value


SETTINGS = [
    Setting('token_id', help='ID of a DNSPod Token of the main account (the number shown beside it)',
            check=check_token_id, label='Token ID'),
    secret_setting('token', 'that DNSPod Token (not a Tencent Cloud SecretKey)',
                   check=printable_ascii(', as the DNSPod console shows it')),
    url_setting('https://dnsapi.cn', 'API base URL, scheme and host: https://dnsapi.cn (DNSPod China) or '
                'https://api.dnspod.com (DNSPod international)')]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, hold_file='hold')
# each operator line's record_line (what Record.Create and Record.Modify take: the China API names
# its lines in Chinese); a record without lines is on the default one
LINES = {'default': '默认', 'ct': '电信', 'cm': '移动', 'cu': '联通'}
INTERNATIONAL = ('api.dnspod.com',)      # the international API: its default line is `default`, no operators
INTERNATIONAL_DEFAULT = 'default'
DEFAULT_NAMES = ('默认', 'default')      # how a listing shows the default line (lower-cased: 'Default')
OK, EMPTY = '1', '10'                    # success; a listing of nothing
RECORD_GONE = '8'                        # no such record id
ZONE_MISSING = {'6'}                     # the domain (or its id) is not the account's
HOLD = {'-1', '-8', '85', '-2'}          # later runs wait: repeating the request is what locks the API
HOLD_SECONDS = 3600                      # the API's lock and ban last about an hour
ACCOUNT = HOLD | {'-7', '-99', '2', '3', '7', '9', '83'}   # not about the record: a create refused so stands
TTL_MIN, TTL_MAX = 1, 604800             # a TTL read back outside these is not sent
TOKEN_FIX = ('token_id and token must be a DNSPod Token of the main account (DNSPod console: Account, API '
             'Keys, DNSPod Token: its ID and the token shown once at creation), not a Tencent Cloud API key '
             '(a SecretId and SecretKey belong to DNSPod through Tencent Cloud API 3.0); a token of https://dnsapi.cn '
             'does not work at https://api.dnspod.com')
ZONE_FIX = 'zone_name must be a domain of this DNSPod account (the domain itself, e.g. example.com)'
FIXES = {   # what to do about the API's codes users meet (docs/providers.md)
    '-1': TOKEN_FIX,
    '-2': 'the API refused more requests for now (its limit; abuse bans it for about an hour): run less often',
    '-7': 'this token may not use the API: use a DNSPod Token of the main account',
    '-8': 'too many failed logins locked the API login for about an hour: fix token_id and token, then wait',
    '-99': 'DNSPod has paused this function: try again later',
    '85': 'DNSPod refused a login from an unusual location: allow it (or switch the login area protection off) '
          'in the DNSPod console\'s security settings',
    '6': ZONE_FIX,
    '7': 'this account may not manage the domain: check zone_name and whose token this is',
    '8': 'the record is gone at the provider: the ids are looked up again and the record created',
    '21': 'the domain is locked at DNSPod: unlock it in the console',
    '22': 'check record_name: a name inside zone_name',
    '26': 'the domain\'s plan does not offer the record\'s line: check the domain\'s plan in the DNSPod console',
    '32': 'the record\'s TTL is outside what the domain\'s plan allows: change it in the DNSPod console',
    '33': 'the domain\'s plan allows no more AAAA records of this name',
    '34': 'check record_type (A for IPv4, AAAA for IPv6)',
    '104': 'an identical record exists: remove the duplicate in the DNSPod console',
}


class Session:
    """What a record's run keeps: whether this run read the hold file already."""

    def __init__(self):
        self.checked = False


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.token_id, cfg.token


def international(cfg):
    """True when base_url is the international API (its lines are countries, its default `default`)."""
    from ddkit.urls import split_url
    return split_url(cfg.base_url)[1].lower() in INTERNATIONAL


def login(job):
    """--check: the token is accepted when the API answers the record's listing with the records, or
    with a domain that is not this account's (the zone check says that one)."""
    try:
        records(job, 'find zone')
    except Failure as e:
        if e.code not in ZONE_MISSING:
            raise
    return ' (token %s)' % job.cfg.token_id


def list_zones(job):
    """[zone_name] once the API lists the record's name in it: a domain the account does not have is
    refused (code 6), a Failure of 'find zone'."""
    records(job, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, as Zones named in lower case (their punycode): the zone a record
    without zone_name belongs to is the longest that record_name ends with.
    API: Domain.List (http://dnspod.github.io/dnspod-api-doc/domains.html)"""
    from ddkit import rest

    def page(n):
        data = call(job, 'Domain.List', {'type': 'all', 'offset': str(n * PAGE), 'length': str(PAGE)}, 'find zone')
        items = listing(data, 'domains', 'find zone')
        info = data.get('info') if isinstance(data.get('info'), dict) else {}
        total = number(info.get('all_total', info.get('domain_total')))
        names = (item.get('punycode') or item.get('name') for item in items)
        return rest.domain_zones(names), len(items) >= PAGE and (total is None or (n + 1) * PAGE < total)
    return rest.listed_zones(page, PAGES * 5, '%d domains' % (PAGES * 5 * PAGE))


def host(cfg):
    """The record's host as DNSPod names it: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def line_name(job, step='find record'):
    """The record_line of the job's record: its line's name; on the international API, whose lines
    are countries, the default line's (`default`), and an operator line is a Failure."""
    if not international(job.cfg):
        return LINES[job.line or 'default']
    if job.line not in (None, 'default'):
        raise Failure.at(step, 'DNSPod\'s international API (%s) has no operator lines (its lines are countries), '
                         'so line %s cannot be kept there' % (job.cfg.base_url, job.line), kind='refused',
                         fix='remove lines, or use https://dnsapi.cn', setting='lines')
    return INTERNATIONAL_DEFAULT


def on_line(name, shown):
    """True when a listing's line is this one (the default line shown as 默认, Default or default)."""
    shown = str(shown or '')
    return shown.lower() in DEFAULT_NAMES if name.lower() in DEFAULT_NAMES else shown == name


def find_record(job, zone_id, strict=False):
    """The record of this name and type on the job's line, or None; strict: a fresh listing (a
    create was refused because the record exists)."""
    return first(records(job, 'find record', fresh=strict), job)


def records(job, step, fresh=False):
    """The records listed for this name: of the type alone for a lone record; of every type when the
    run has several records or lines (the whole zone, unless it is large), each job taking its own
    from the one listing. The line is never a filter: each job takes its own line's record."""
    from ddkit import rest
    cfg = job.cfg
    line_name(job, step)   # a line the API cannot hold: refused before anything is sent
    listed = rest.zone_listing(job, cfg.zone_name, lambda: whole_zone(lambda page: zone_page(job, page, step)), fresh)
    if listed is not None:
        return listed
    query = {'domain': cfg.zone_name, 'sub_domain': host(cfg), 'length': str(PAGE)}
    if not job.run.several:
        query['record_type'] = cfg.record_type
    key = None if fresh else ('records', account(cfg), cfg.zone_name, query['sub_domain'], query.get('record_type'))
    return job.shared(key, lambda: list_records(job, query, step)[0])


def zone_page(job, page, step):
    """(records, number of pages) of one page of the domain's listing, every name and line; a full page
    whose answer does not say how many there are counts as a large zone (looked up name by name)."""
    found, total = list_records(job, {'domain': job.cfg.zone_name, 'offset': str((page - 1) * PAGE),
                                      'length': str(PAGE)}, step)
    if total is None:
        return found, PAGES + 1 if len(found) >= PAGE else page
    return found, max(1, -(-total // PAGE))


def list_records(job, query, step):
    """Record.List: (records, how many the domain has, or None); a listing of nothing is code 10,
    taken here as no records.
    API: http://dnspod.github.io/dnspod-api-doc/records.html (Record.List)"""
    data = call(job, 'Record.List', query, step, empty={EMPTY})
    if data is None:
        return [], 0
    info = data.get('info') if isinstance(data.get('info'), dict) else {}
    return listing(data, 'records', step), number(info.get('record_total'))


def first(listed, job):
    """The first listed record of this name and type on the job's line, or None."""
    from ddkit import rest
    line = line_name(job)
    return rest.first_named(job, listed, host(job.cfg), ('name', 'type', 'value'), record_id,
                            lambda r: on_line(line, r.get('line')))


def read_record(job, zone_id, record_id_text, held=False):
    """The record the stored ids name, as DNSPod holds it now, from its name's listing (an update sends
    its TTL back); Stale when the listing has no record of that id on this name, type and line."""
    from ddkit import rest
    return rest.stored_in_listing(job, zone_id, record_id_text, lambda: records(job, 'read record'),
                                  lambda found: first(found, job), record_id)


def create_record(job, zone_id, ip):
    """Record.Create on the job's line, with the domain plan's default TTL; a record made meanwhile
    (a refusal about the record, when the name's listing then holds it): Exists.
    API: http://dnspod.github.io/dnspod-api-doc/records.html (Record.Create)"""
    from ddkit import rest
    cfg = job.cfg
    params = {'domain': zone_id, 'sub_domain': host(cfg), 'record_type': cfg.record_type,
              'record_line': line_name(job), 'value': ip}
    data = rest.created(job, zone_id, lambda: call(job, 'Record.Create', params, 'create record'),
                        lambda e: e.code is not None and e.code not in ACCOUNT)
    found = data.get('record') if isinstance(data.get('record'), dict) else {}
    return rest.new_id(record_id(found.get('id')), 'create record')


def update_record(job, zone_id, record, ip):
    """Record.Modify: the address on the job's line (record_line is required), with the record's own
    TTL sent back (what an omitted one does is not documented); Stale when the record is gone.
    API: http://dnspod.github.io/dnspod-api-doc/records.html (Record.Modify)"""
    cfg = job.cfg
    params = {'domain': zone_id, 'record_id': record.id, 'sub_domain': host(cfg), 'record_type': cfg.record_type,
              'record_line': line_name(job), 'value': ip}
    ttl = number(record.raw.get('ttl'))
    if ttl is not None and TTL_MIN <= ttl <= TTL_MAX:
        params['ttl'] = str(ttl)
    data = call(job, 'Record.Modify', params, 'update record', gone={RECORD_GONE})
    found = data.get('record') if isinstance(data.get('record'), dict) else {}
    return record_id(found.get('id')) or record.id


def delete_record(job, zone_id, record):
    """Record.Remove: the record (record.id) deleted; one already gone (code 8) is success (None).
    API: http://dnspod.github.io/dnspod-api-doc/records.html (Record.Remove)"""
    call(job, 'Record.Remove', {'domain': zone_id, 'record_id': record.id}, 'delete record', empty={RECORD_GONE})


def record_id(value):
    """A record id from an answer or the ids file, as text: a positive whole number, else None."""
    found = number(value)
    return str(found) if found and safe_id(value) else None


def settings_key(cfg):
    """What a hold is bound to: a digest of the API and the token (the file keeps no secret)."""
    import hashlib
    return hashlib.sha256(('%s\n%s\n%s' % account(cfg)).encode('utf-8')).hexdigest()


def held_back(job, step):
    """A Failure when a run of this token within HOLD_SECONDS was refused a login (or locked out, or
    over the limit): sending again is what the API punishes. A hold of another token is lifted."""
    import time
    from ddkit import decimal, state
    path = job.files['hold_file']
    lines, when = state.read_dated(path, private=True)
    until = decimal(lines[2]) if len(lines) == 3 and len(lines[2]) <= 12 else None
    if until is None or lines[0] not in HOLD or lines[1] != settings_key(job.cfg) or time.time() >= until:
        if lines:
            job.discard(path)
        return None
    fix = FIXES[lines[0]]
    return Failure.at(step, 'not sent: DNSPod answered code %s to this token at %s; runs send nothing with it '
                      'until %s (repeated failed logins lock the API), or until token_id or token change; fix: %s' % (
                          lines[0], time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(when or time.time())),
                          time.strftime('%H:%M:%S', time.localtime(until)), fix),
                      kind='refused', code=lines[0], fix=fix)


def refused_before(job, step):
    """The refusal that stops this request: one met earlier in this run with the same token, else
    the hold of an earlier run (not read by --check, which asks the API itself)."""
    kept = job.run.recall(('refused token', account(job.cfg)))
    if kept is not None:
        return kept
    if job.cfg.check or job.session.checked:
        return None
    job.session.checked = True
    return held_back(job, step)


def call(job, action, params, step, gone=(), empty=()):
    """One call: POST <base_url>/<action> with the token; the answer's JSON object, checked. A code in
    gone raises Stale (the record of the stored ids is gone), one in empty (a listing of nothing, a
    delete of a record gone) gives None; a domain the account does not have is a Failure of 'find
    zone'; a refused login (HOLD) stops the token's later requests; any other code is a Failure."""
    import time
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    stop = refused_before(job, step)
    if stop is not None:
        raise stop
    body = dict(params, login_token='%s,%s' % (cfg.token_id, cfg.token), format='json')
    # a read, or an update that sets what it sets, may be sent again; a create only when surely unsent
    answer = http.request('POST', '%s/%s' % (cfg.base_url, action), step, data=rest.form(body),
                          headers={'Content-Type': 'application/x-www-form-urlencoded'}, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, repeatable=action != 'Record.Create')
    data = rest.any_json(answer.nonempty(), step)
    status = data.get('status') if isinstance(data, dict) else None
    code = status.get('code') if isinstance(status, dict) else None
    code = str(code)[:12] if isinstance(code, (str, int)) and not isinstance(code, bool) else None
    if code is None:
        raise Failure.at(step, 'unexpected answer (HTTP %d): %s' % (answer.status, http.snippet(answer.text)),
                         url=answer.where, status=answer.status,
                         kind='server error' if answer.status >= 500 else 'unexpected')
    if code == OK and answer.status < 300:
        return data
    message = rest.undecoded(status.get('message'))
    if rest.expected(job, step, code, message, gone, empty):
        return None
    job.log.error('%s: error %s: %s' % (step, code, message))
    if code in ZONE_MISSING and step in ('find zone', 'find record', 'read record'):
        raise rest.zone_missing(job, answer, 'domain %s', 'code %s' % code, code, message)
    failure = rest.code_refused(job, answer, step, code, message, server={'3'})
    if code in HOLD:
        job.run.remember(('refused token', account(cfg)), failure)
        job.save(job.files['hold_file'], [code, settings_key(cfg), str(int(time.time()) + HOLD_SECONDS)],
                 private=True, cache=True)
    raise failure
