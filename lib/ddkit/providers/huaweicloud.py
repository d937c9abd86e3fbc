"""Huawei Cloud DNS: keep one A or AAAA recordset equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `huaweicloud` (ddkit.registry); updater_b
is this provider fixed. The DNS API is called with a password-based IAM token, cached for a day in
the auth file (the token is the provider's session: Session, never an attribute of the shared Job),
or, given an access key (AK/SK), with each request signed SDK-HMAC-SHA256: no token, no auth file.
A missing recordset is created; the previous IP may also come from one ping of the name. A record
with lines (ddkit.lines) keeps a recordset per resolution line, on the v2.1 API (v2 has no lines).
API reference: https://support.huaweicloud.com/intl/en-us/api-dns/dns_api_64001.html (recordsets),
https://support.huaweicloud.com/intl/en-us/api-iam/iam_30_0001.html (tokens),
https://support.huaweicloud.com/intl/en-us/devg-apisign/api-sign-algorithm-002.html (AK/SK signing)
"""

import time

from ddkit import Failure, decimal
from ddkit.provider import (PAGE, Absent, Exists, ProviderSession, Record, Stale, Zone, account_zones as every_zone,
                            listing, safe_id, secret_setting, url_setting, whole_zone)
from ddkit.settings import Setting, check_header, check_text

NAME = 'huaweicloud'
STEM = 'updater_b'                       # its lock and log files' prefix: the seed tool's name
SUMMARY = 'Keep an A or AAAA recordset at Huawei Cloud DNS (DNS v2)'
SETTINGS = [
    Setting('username', help='account user name (also the user\'s domain name)', check=check_text),
    secret_setting('password', 'account password', check=check_text),
    Setting('project_name', help='region project name in the token scope, e.g. cn-north-4',
            check=check_text),
    Setting('access_key', help='access key ID (AK): with secret_key, requests are signed instead of '
            'using username, password and project_name', check=check_header, label='Access key ID (AK)'),
    secret_setting('secret_key', 'secret access key (SK) of access_key', label='Secret access key (SK)'),
    url_setting('https://iam.myhuaweicloud.com', 'IAM base URL (token)', name='auth_url', label='IAM URL'),
    url_setting('https://dns.myhuaweicloud.com', 'DNS API base URL', name='dns_url', label='DNS API URL'),
]
FILES = {'ip_file': '.hw-wan_ip_%s.txt', 'ids_file': '.hw-id_%s.txt', 'auth_file': '.hw-token_%s.txt'}
REQUIRED = ()                 # the credentials: missing_credentials
URLS = ('auth_url', 'dns_url')
NOUN = 'recordset'
TTL = 120                     # sent on every create and update
TOKEN_DAYS = 1                # a token is taken as valid for a day from its Date
TOKEN_MAX = 64 * 1024         # real tokens are several KiB; the auth file holds one line
ZONE_GONE = {'DNS.0302'}      # "This zone does not exist.": the stored zone id is stale
# HTTP 404 "This record set does not exist." / "No record sets found." (the API reference's error
# codes, https://support.huaweicloud.com/intl/en-us/api-dns/ErrorCode.html): a delete's work is done
RECORD_GONE = {'DNS.0313', 'DNS.0004'}
# The line IDs of the v2.1 API (its recordsets' `line`, the `line` field of the SDK model
# CreateRecordSetWithLineRequestBody), as the DNS API reference lists them under "resolution line
# types": https://support.huaweicloud.com/api-dns/zh-cn_topic_0085546214.html
LINES = {'default': 'default_view', 'ct': 'Dianxin', 'cm': 'Yidong', 'cu': 'Liantong'}
LINE_API = '/v2.1'            # a record with a line: the v2 API neither sets nor shows lines
DOESNT_EXIST = 'Doesn\'t exist.'  # what the original tool logged for a listing with total_count 0
SIGNED_HEADERS = 'content-type;host;x-sdk-date'   # what an AK/SK signature covers, besides the body
SIGNATURE_FIX = ('check access_key and secret_key (a pair of the same access key), and that this host\'s '
                 'clock is right: the API refuses a request signed more than 15 minutes off')
FIXES = {   # what to do about the provider's codes users meet (docs/providers.md)
    'APIGW.0101': 'check dns_url and auth_url: the bare base URL, without a path',
    'APIGW.0308': 'too many requests: run at most every 5 minutes',
    'DNS.0005': 'the user lacks DNS permissions: grant it a DNS policy (e.g. DNS FullAccess)',
    'DNS.0013': 'the user lacks DNS permissions, or the project is frozen: grant a DNS policy, '
                'settle the account',
    'DNS.0302': 'check zone_name and project_name',
    'DNS.0304': 'record_name must end with zone_name',
    'DNS.0307': 'check record_type (A for IPv4, AAAA for IPv6)',
    'DNS.0308': 'check record_type (A for IPv4, AAAA for IPv6)',
    'DNS.0312': 'a recordset of this name and type already exists: run again, or delete the ids file',
    'DNS.0403': 'the recordset quota is used up: raise it or delete unused recordsets',
    'DNS.1601': 'the zone takes no such resolution line: lines need a public zone; else remove lines',
}



class Session(ProviderSession):
    """The record's token: its value, and whether it came from the cache (a refused cached token is
    worth one new one; a refused new one is not)."""

    def __init__(self):
        self.token, self.cached = None, False


def missing_credentials(cfg):
    """[(setting, fix or None)]: an access key (access_key and secret_key), or username, password and
    project_name (a token). Either half of an access key chooses that form."""
    if cfg.access_key or cfg.secret_key:
        return [(name, None) for name in ('access_key', 'secret_key') if not getattr(cfg, name)]
    password = [name for name in ('username', 'password', 'project_name') if not getattr(cfg, name)]
    if len(password) < 3:
        return [(name, None) for name in password]
    return [('access_key and secret_key (or username, password and project_name)',
             'set access_key and secret_key (e.g. DDNS_ACCESS_KEY and DDNS_SECRET_KEY), or username, '
             'password and project_name')]


def signed(cfg):
    """True when requests are signed with the access key (AK/SK) instead of carrying a token."""
    return bool(cfg.access_key or cfg.secret_key)


def account(cfg):
    """Whose token, zones and recordsets: the key of what several records of a run share."""
    return cfg.auth_url, cfg.dns_url, cfg.username, cfg.password, cfg.project_name, cfg.access_key, cfg.secret_key


def login(job):
    """--check: a new token, never the cached one, and not saved (--check runs as a dry run); with an
    access key, the zone listing (a read call) proves the signature."""
    cfg = job.cfg
    if signed(cfg):
        list_zones(job)
        return ' (access key and secret key: each request signed, no token)'
    new_token(job)
    return ': a token for user %s, project %s (not cached)' % (cfg.username, cfg.project_name)


def list_zones(job):
    """The zones the listing returns for zone_name (it matches names loosely): ListPublicZones,
    https://support.huaweicloud.com/intl/en-us/api-dns/dns_api_62003.html"""
    cfg = job.cfg
    return job.shared(('zones', account(cfg), cfg.zone_name), lambda: [
        z for z in listing(call(job, 'GET', '/v2/zones?name=%s' % cfg.zone_name, 'find zone', zones=True), 'zones',
                           'find zone')
        if safe_id(z.get('id'))])


def account_zones(job):
    """Every public zone the credentials see, for a record without zone_name (ListPublicZones, PAGE
    a page by offset): https://support.huaweicloud.com/intl/en-us/api-dns/dns_api_62003.html"""
    def page(number):
        data = call(job, 'GET', '/v2/zones?type=public&limit=%d&offset=%d' % (PAGE, (number - 1) * PAGE),
                    'find zone', zones=True)
        total = total_count(data)
        pages = -(-total // PAGE) if isinstance(total, int) and not isinstance(total, bool) and total >= 0 else None
        return [Zone(safe_id(z.get('id')), str(z.get('name', '')).lower().rstrip('.'))
                for z in listing(data, 'zones', 'find zone')], pages
    return every_zone(page)


def choose_zone(job, zones):
    """The zone named exactly zone_name (not blindly the first of a loose match), and the others listed."""
    cfg = job.cfg
    want = cfg.zone_name  # settings.check_name dropped any trailing dot
    exact = [z for z in zones if str(z.get('name', '')).rstrip('.') == want]
    if not exact:
        # a token is scoped to a project; an access key sees its account's public zones
        scope, whose = ('this account', 'the access key') if signed(cfg) else \
            ('project %s' % cfg.project_name, 'project_name')
        fix = 'check zone_name (the root domain) and %s' % whose
        raise Failure.at('find zone', 'no zone named %s in %s (found: %s); %s' % (
            want, scope, ', '.join(str(z.get('name')) for z in zones) or 'none', fix), kind='not found', fix=fix)
    return Zone(safe_id(exact[0]['id']), str(exact[0].get('name')),
                [str(z.get('name')) for z in zones if z is not exact[0]])


def find_record(job, zone_id, strict=False):
    """The recordset of this name and type, or None; not strict, a failed lookup is None too, so that
    creation follows (what the original tool did). ListRecordSetsByZone,
    https://support.huaweicloud.com/intl/en-us/api-dns/dns_api_64004.html"""
    if job.line is not None:
        return find_on_line(job, zone_id, strict)
    cfg = job.cfg
    if job.run.several and not strict:   # one listing of the zone for every name of the run
        try:
            listed = job.shared(('zone records', account(cfg), zone_id), lambda: whole_zone(
                lambda page: zone_page(job, zone_id, page)))
        except Failure:
            listed = None   # a large zone, or a failed listing: this name alone, as below
        if listed is not None:
            return first(listed, cfg)
    # several records in a run list a name once for both families; a strict lookup is fresh
    query = 'name=%s' % cfg.record_name + ('' if job.run.several else '&type=%s' % cfg.record_type)
    try:
        data = job.shared(None if strict else ('records', account(cfg), zone_id, query), lambda: call(
            job, 'GET', '/v2/zones/%s/recordsets?%s' % (zone_id, query), 'find record', tolerate=not strict))
    except Absent:
        return None
    return first(listing(data or {}, 'recordsets', 'find record'), cfg)


def find_on_line(job, zone_id, strict):
    """find_record of a record with a line: the recordset of this name and type on the job's line.
    In a run of several, one listing of the zone on every line (v2.1 without line_id lists them all)
    serves every name and line, each job taking its own line's; alone or strict, the name on this
    line (line_id matches loosely, as name does: the exact line is taken). ShowRecordSetByZone,
    https://support.huaweicloud.com/intl/en-us/api-dns/ShowRecordSetByZone.html"""
    cfg, line = job.cfg, LINES[job.line]
    several = job.run.several and not strict
    if several:
        try:
            listed = job.shared(('zone records', LINE_API, account(cfg), zone_id), lambda: whole_zone(
                lambda page: zone_page(job, zone_id, page, LINE_API)))
        except Failure:
            listed = None   # a large zone, or a failed listing: this name on every line, as below
        if listed is not None:
            return first(listed, cfg, line)
    query = 'name=%s' % cfg.record_name + ('' if several else '&type=%s&line_id=%s' % (cfg.record_type, line))
    try:
        data = job.shared(('records', LINE_API, account(cfg), zone_id, query) if several else None, lambda: call(
            job, 'GET', '%s/zones/%s/recordsets?%s' % (LINE_API, zone_id, query), 'find record',
            tolerate=not strict))
    except Absent:
        return None
    return first(listing(data or {}, 'recordsets', 'find record'), cfg, line)


def zone_page(job, zone_id, page, api='/v2'):
    """(recordsets, number of pages) of one page of the zone's listing (api: its version's path)."""
    try:
        data = call(job, 'GET', '%s/zones/%s/recordsets?limit=%d&offset=%d' % (api, zone_id, PAGE, (page - 1) * PAGE),
                    'find record')
    except Absent:   # an empty zone
        return [], 0
    total = total_count(data)
    return listing(data, 'recordsets', 'find record'), None if total is None else -(-total // PAGE)


def first(records, cfg, line=None):
    """The first listed recordset of this name and type (and line ID, given one), or None."""
    records = [r for r in records if safe_id(r.get('id')) and str(r.get('name', '')).rstrip('.') == cfg.record_name
               and r.get('type') == cfg.record_type and (line is None or r.get('line') == line)]
    if not records:
        return None
    held = records[0].get('records')
    return Record(safe_id(records[0]['id']), held if isinstance(held, list) else None, records[0])


def read_record(job, zone_id, record_id, held=False):
    """The recordset the stored ids name; unread unless held (what it holds) is asked for: the
    update's answer tells whether it still exists. ShowRecordSet,
    https://support.huaweicloud.com/intl/en-us/api-dns/dns_api_64002.html; with a line always read
    (ShowRecordSetWithLine, https://support.huaweicloud.com/intl/en-us/api-dns/ShowRecordSetWithLine.html):
    an update's answer tells its line only once another line's recordset has taken the write."""
    if not held and job.line is None:
        return Record(record_id)
    data = call(job, 'GET', recordset_path(job, zone_id, record_id), 'read record', stale=True)
    found = first([data], job.cfg, line_id(job))
    if found is None or found.id != record_id:
        raise Stale()  # ids of another recordset, or of another line's: find ours again
    return found


def create_record(job, zone_id, ip):
    """The new recordset's id. CreateRecordSet,
    https://support.huaweicloud.com/intl/en-us/api-dns/dns_api_64001.html; with a line, on it:
    CreateRecordSetWithLine, https://support.huaweicloud.com/intl/en-us/api-dns/CreateRecordSetWithLine.html"""
    body = recordset(job, ip, 'created')
    if job.line is not None:
        body['line'] = line_id(job)
    data = call(job, 'POST', '%s/zones/%s/recordsets' % (api(job), zone_id), 'create record', body, create=True)
    record_id = safe_id(data.get('id'))
    if not record_id:
        raise Failure.at('create record', 'the answer has no recordset id', kind='unexpected')
    return record_id


def update_record(job, zone_id, record, ip):
    """The recordset's id, or None when the update failed or its answer has none: then the loop
    creates it (what the original tool did). UpdateRecordSet,
    https://support.huaweicloud.com/intl/en-us/api-dns/dns_api_64005.html; with a line UpdateRecordSets
    (v2.1), https://support.huaweicloud.com/intl/en-us/api-dns/UpdateRecordSets.html, whose body has no
    line: a recordset keeps the line it was made on."""
    data = call(job, 'PUT', recordset_path(job, zone_id, record.id), 'update record',
                recordset(job, ip, 'updated'), tolerate=True)
    return safe_id((data or {}).get('id'))


def delete_record(job, zone_id, record):
    """Delete the recordset; one already gone (HTTP 404, DNS.0313 or DNS.0004) is success. DeleteRecordSet,
    https://support.huaweicloud.com/intl/en-us/api-dns/DeleteRecordSet.html; with a line DeleteRecordSets
    (v2.1), https://support.huaweicloud.com/intl/en-us/api-dns/DeleteRecordSets.html"""
    call(job, 'DELETE', recordset_path(job, zone_id, record.id), 'delete record', gone=True)


def api(job):
    """The path of the API version of the job's recordsets: v2.1 for a record with a line."""
    return '/v2' if job.line is None else LINE_API


def line_id(job):
    """The line ID of the job's recordset (LINES), or None for a record without lines."""
    return None if job.line is None else LINES[job.line]


def recordset_path(job, zone_id, record_id):
    """The path of one of the zone's recordsets, in the job's API version."""
    return '%s/zones/%s/recordsets/%s' % (api(job), zone_id, record_id)


def recordset(job, ip, what):
    """The body of a create or an update: the name carries the trailing dot."""
    cfg = job.cfg
    when = time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())
    return {'name': cfg.record_name + '.', 'type': cfg.record_type, 'ttl': TTL, 'records': [ip],
            'description': '%s by %s at %s' % (what, job.tool, when)}


def previous_ip(job):
    """The previous IP's last resort: the address one ping of the record name shows."""
    from ddkit import lookup
    return lookup.by_ping(job.cfg, job.log)


def call(job, method, path, step, body=None, tolerate=False, create=False, zones=False, stale=False, gone=False):
    """One DNS API call, signed with the access key or with the token, its answer checked; a tolerated
    failure is logged and gives None. create: a zone that is gone raises Stale, a recordset that
    exists raises Exists (the loop acts on both); stale: a zone or recordset that is gone raises
    Stale; gone: a recordset that is gone (RECORD_GONE) gives None; zones: a zone listing, where none
    found is for choose_zone to say; elsewhere total_count 0 raises Absent."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    log = job.log
    answer, code, message = (signed_call if signed(job.cfg) else token_call)(job, method, path, step, body)
    data = None if code or message else _json(answer)
    failure = Failure
    if code or message:
        why = message or code
    elif not answer.body.strip():
        why = 'no data received, check connectivity'
    elif not isinstance(data, dict):
        raise Failure.at(step, 'unexpected answer (HTTP %d): %s' % (answer.status, http.snippet(answer.text)),
                         url=answer.where, status=answer.status, kind='unexpected')
    elif total_count(data) == 0 and not zones:
        why, failure = DOESNT_EXIST, Absent
    elif answer.status >= 400:
        why = 'HTTP %d: %s' % (answer.status, http.snippet(answer.text))
    else:
        log.info('%s: OK.' % step)
        return data
    if gone and code in RECORD_GONE and answer.status == 404:
        log.info('%s: %s (gone already).' % (step, why))
        return None
    if (create or stale) and (code in ZONE_GONE or answer.status == 404):
        log.info('%s: %s' % (step, why))
        raise Stale()
    if create and (code == 'DNS.0312' or answer.status == 409):
        log.info('%s: %s' % (step, why))
        raise Exists()
    if tolerate:
        log.info('%s: %s' % (step, why))
        return None
    raise failure.at(step, '%s%s' % (why, '; ' + FIXES[code] if code in FIXES else ''), url=answer.where,
                     status=answer.status, code=code, provider_message=message, fix=FIXES.get(code),
                     kind=kind_of(answer, code, message))


def signed_call(job, method, path, step, body):
    """(answer, its error code, its error message) of one DNS API request signed with the access key.
    A refused signature is a Failure whatever the caller tolerates: there is nothing to renew."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    url, headers = sign(cfg, method, cfg.dns_url + path, body)
    answer = http.request(method, url, step, json_body=body, timeout=cfg.timeout, ca_file=cfg.ca_file,
                          headers=headers)
    code, message = provider_error(answer)
    if credentials_refused(answer, code):
        fix = FIXES.get(code) or SIGNATURE_FIX
        raise Failure.at(step, 'the API refused the signed request (HTTP %d%s); %s' % (
            answer.status, ', %s: %s' % (code, message) if code or message else '', fix), url=answer.where,
            status=answer.status, code=code, provider_message=message, kind='refused', fix=fix)
    return answer, code, message


def sign(cfg, method, url, body=None):
    """(url, headers) of a request signed SDK-HMAC-SHA256 with access_key and secret_key: the URL with
    its query in canonical form (what is sent is what is signed), and the Content-Type, X-Sdk-Date and
    Authorization headers. The signature covers the method, the path, the query, the Content-Type,
    Host and X-Sdk-Date headers and the JSON body as ddkit.http sends it.
    https://support.huaweicloud.com/intl/en-us/devg-apisign/api-sign-algorithm-002.html"""
    import hashlib
    import hmac
    from ddkit import jsontext
    from ddkit.urls import quote, split_url
    scheme, host, port, target = split_url(url)
    path, _, query = target.partition('?')
    # the Host header as ddkit.wire writes it: the port only when it is not the scheme's own
    hostport = '[%s]' % host if ':' in host else host
    if port != (443 if scheme == 'https' else 80):
        hostport += ':%d' % port
    # our paths and queries hold ids and host names only (no "%" to decode): each part is encoded as it
    # stands (urls.quote keeps the unreserved characters, as the signer does)
    pairs = sorted(pair.partition('=')[::2] for pair in query.split('&') if pair)
    canonical_query = '&'.join('%s=%s' % (quote(key), quote(value)) for key, value in pairs)
    canonical_path = '/'.join(quote(part) for part in ('/' + path).split('/'))
    payload = jsontext.dumps(body).encode('utf-8') if body is not None else b''
    date = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())
    canonical = '\n'.join((method, canonical_path if canonical_path.endswith('/') else canonical_path + '/',
                           canonical_query, 'content-type:application/json\nhost:%s\nx-sdk-date:%s\n'
                           % (hostport, date), SIGNED_HEADERS, hashlib.sha256(payload).hexdigest()))
    to_sign = 'SDK-HMAC-SHA256\n%s\n%s' % (date, hashlib.sha256(canonical.encode('utf-8')).hexdigest())
    signature = hmac.new(cfg.secret_key.encode('utf-8'), to_sign.encode('utf-8'), hashlib.sha256).hexdigest()
    sent = url.split('?', 1)[0] + ('?' + canonical_query if canonical_query else '')
    return sent, {'Content-Type': 'application/json', 'X-Sdk-Date': date,
                  'Authorization': 'SDK-HMAC-SHA256 Access=%s, SignedHeaders=%s, Signature=%s'
                                   % (cfg.access_key, SIGNED_HEADERS, signature)}


def token_call(job, method, path, step, body):
    """(answer, its error code, its error message) of one DNS API request with the token. A cached
    token the API refuses is dropped and replaced, once."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    token = job.session.token or get_token(job)
    for _ in (1, 2):
        answer = http.request(method, cfg.dns_url + path, step, json_body=body, timeout=cfg.timeout,
                              ca_file=cfg.ca_file, headers={'X-Auth-Token': token,
                                                            'Content-Type': 'application/json'})
        code, message = provider_error(answer)
        if not credentials_refused(answer, code):
            break
        if not job.session.cached:  # a new token refused: asking again would loop
            raise Failure.at(step, 'the API refused a new token (HTTP %d%s): check project_name and the '
                             'user\'s DNS permissions' % (answer.status, ', %s: %s' % (code, message)
                                                          if code or message else ''),
                             url=answer.where, status=answer.status, code=code, provider_message=message,
                             kind='refused', fix='check project_name and the user\'s DNS permissions')
        log.info('%s: the API refused the cached token (%s); getting a new one.' % (step, message or code))
        drop_token(job)
        token = new_token(job)
    return answer, code, message


def kind_of(answer, code, message):
    """A failed answer's kind: refused (the provider said why, or a 4xx), a server error, else unexpected."""
    if code or message or 400 <= answer.status < 500:
        return 'refused'
    return 'server error' if answer.status >= 500 else 'unexpected'


def provider_error(answer):
    """(code, message) of an error answer in any of B's shapes: code/message (DNS),
    error_code/error_msg (API gateway), errorCode/errorMsg (what the SDK reads), error.{code, message}
    (IAM); else (None, None)."""
    data = _json(answer)
    if not isinstance(data, dict):
        return None, None
    nested = data.get('error') if isinstance(data.get('error'), dict) else {}
    for where, code_key, message_key in ((data, 'code', 'message'), (data, 'error_code', 'error_msg'),
                                         (data, 'errorCode', 'errorMsg'), (nested, 'code', 'message')):
        if where.get(code_key) is not None or where.get(message_key) is not None:
            return (str(where[code_key]) if where.get(code_key) is not None else None,
                    str(where[message_key]) if where.get(message_key) is not None else None)
    return None, None


def credentials_refused(answer, code):
    # 401/403, or the API gateway's authentication codes (APIGW.0301 bad token or signature, .0307
    # expired token)
    return answer.status in (401, 403) or str(code or '').startswith('APIGW.03')


def total_count(data):
    """total_count at the top level or under metadata (the real listings); None when absent."""
    meta = data.get('metadata') if isinstance(data.get('metadata'), dict) else {}
    for where in (data, meta):
        if isinstance(where.get('total_count'), int) and not isinstance(where.get('total_count'), bool):
            return where['total_count']
    return None


def get_token(job):
    """The token cache: the auth file's token while now <= its expiry, else a new one."""
    from ddkit import state
    cfg, log = job.cfg, job.log
    known = job.run.recall(('token', account(cfg)))
    if known:   # another record of this run has it: one token per run
        log.add_secret(known)
        job.session.token, job.session.cached = known, True
        return known
    lines = state.read_lines(job.files['auth_file'], limit=TOKEN_MAX, private=True)
    expiry, _, token = (lines[0] if lines else '').partition(' ')
    token = token.strip()
    # epoch seconds as new_token writes them; anything else (inf, nan, 60000 digits) is expired
    expiry = (decimal(expiry) if len(expiry) <= 12 else None) or 0
    if token and _clean_token(token) and time.time() <= expiry:
        log.add_secret(token)
        job.session.token, job.session.cached = token, True
        job.run.remember(('token', account(cfg)), token)
        return token
    return new_token(job)


def new_token(job):
    """POST the password to IAM; the token comes back in X-Subject-Token, cached 0600 until Date + 1 day."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    log.info('Getting a token for user %s, project %s.' % (cfg.username, cfg.project_name))
    body = {'auth': {'identity': {'methods': ['password'], 'password': {'user': {
        'name': cfg.username, 'password': cfg.password, 'domain': {'name': cfg.username}}}},
        'scope': {'project': {'name': cfg.project_name}}}}
    answer = http.request('POST', cfg.auth_url + '/v3/auth/tokens', 'get token', json_body=body,
                          headers={'Content-Type': 'application/json;charset=utf8'},
                          timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=True)   # asks, changes nothing
    token = answer.headers.get('x-subject-token', '').strip()
    log.add_secret(token)
    if answer.status >= 300 or not _clean_token(token):
        code, message = provider_error(answer)
        if message or code:
            why = message or code
        elif not answer.body.strip():
            why = 'no data received, check connectivity'
        else:
            why = 'HTTP %d without a token: %s' % (answer.status, http.snippet(answer.text))
        raise Failure.at('get token', '%s (check username, password and project_name)' % why, url=answer.where,
                         status=answer.status, code=code, provider_message=message,
                         kind=kind_of(answer, code, message),
                         fix='check username, password and project_name')
    expiry = int(http.date(answer.headers.get('date')) or time.time()) + TOKEN_DAYS * 86400
    job.save(job.files['auth_file'], ['%d %s' % (expiry, token)], private=True, cache=True)
    log.info('get token: OK.')
    job.session.token, job.session.cached = token, False
    job.run.remember(('token', account(cfg)), token)
    return token


def drop_token(job):
    """Forget a refused token, so that a failure before the next one is saved cannot reuse it."""
    job.discard(job.files['auth_file'])
    job.session.token, job.session.cached = None, False
    job.run.remember(('token', account(job.cfg)), None)


def _clean_token(token):
    # it goes into a header line and the one-line auth file
    return 0 < len(token) < TOKEN_MAX and all(33 <= ord(c) < 127 for c in token)


def _json(answer):
    try:
        return answer.json()
    except Failure:
        return None
