#!/usr/bin/env python3
"""Keep one DNS recordset (A or AAAA) at cloud provider B equal to this host's public IP.

Flow (service.md 3): get current IP; get previous IP (ip file, DoH, one ping); stop if unchanged;
resolve zone and recordset ids; update the recordset, or create it; record the new IP. The DNS API
is called with a password-based token, cached for a day in the auth file.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, 'lib'))  # ddkit-path

from ddkit import Failure, decimal, http, updater  # noqa: E402
from ddkit.settings import Setting, check_text, check_url  # noqa: E402

TOOL = 'updater_b'
SUMMARY = ('Keep one A or AAAA recordset at cloud provider B (IAM token, DNS v2) equal to this host\'s '
           'public IP.')
SETTINGS = [
    Setting('username', help='account user name (also the user\'s domain name)', check=check_text),
    Setting('password', help='account password (prefer DDNS_PASSWORD or --config: argv is visible)',
            secret=True, check=check_text),
    Setting('project_name', help='region project name in the token scope, e.g. cn-north-4',
            check=check_text),
    Setting('auth_url', 'https://iam.myhuaweicloud.com', help='IAM base URL (token)', check=check_url),
    Setting('dns_url', 'https://dns.myhuaweicloud.com', help='DNS API base URL', check=check_url),
]
FILES = {'ip_file': '.hw-wan_ip_%s.txt', 'ids_file': '.hw-id_%s.txt', 'auth_file': '.hw-token_%s.txt'}
TTL = 120                     # service.md 8: always sent
TOKEN_DAYS = 1                # service.md 5: a token is taken as valid for a day from its Date
TOKEN_MAX = 64 * 1024         # real tokens are several KiB; the auth file holds one line
ZONE_GONE = {'DNS.0302'}      # "This zone does not exist.": the stored zone id is stale
DOESNT_EXIST = 'Doesn\'t exist.'  # service.md 7: a listing with total_count 0
FIXES = {   # what to do about the provider's codes users meet (README: troubleshooting)
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
}


def main(argv=None):
    started = updater.start(argv, TOOL, SUMMARY, SETTINGS, ('username', 'password', 'project_name'),
                            FILES, each=run_record)
    if isinstance(started, int):
        return started
    return run_record(*started)


def run_record(cfg, log):
    """One record: --check, or its update (a run of several records calls this for each)."""
    cfg.token, cfg.token_cached = None, False  # get_token fills them on the first DNS call
    if cfg.check:
        return check(cfg)
    return updater.run(cfg, log, update)


def check(cfg):
    """--check: each step of an update, read-only, one ok/FAIL line each (ddkit.check)."""
    from ddkit.check import Report
    report = Report(cfg)
    log = report.log
    report.settings_complete()
    report.state_dir_writable()
    report.tls_working([cfg.auth_url, cfg.dns_url, cfg.ip_lookup_url if cfg.ip_source == 'url' else None])
    current = report.current_ip()
    # a new token, never the cached one, and not saved: --check runs as a dry run
    report.step('credentials accepted', lambda: new_token(cfg, log),
                lambda _: 'credentials accepted: a token for user %s, project %s (not cached)'
                % (cfg.username, cfg.project_name))
    zone = report.step('zone found', lambda: choose_zone(cfg, list_zones(cfg, log)), describe_zone)
    what = '%s recordset %s' % (cfg.record_type, cfg.record_name)
    record = report.step('record found', lambda: record_or_none(cfg, log, zone[0]['id']),
                         lambda r: '%s found (id %s)' % (what, r['id']) if r else
                         '%s does not exist yet: it will be created on the first update' % what)
    held = record.get('records') if record else None
    report.compare(record is not None, ', '.join(map(str, held)) if isinstance(held, list) else held, current)
    return report.finish()


def describe_zone(found):
    """The ok line of the zone check: which zone was taken, and which loose matches were not."""
    zone, listed = found
    others = [str(z.get('name')) for z in listed if z is not zone]
    return 'zone %s found (id %s)%s' % (zone.get('name'), zone['id'], '; also listed (a loose match, not '
                                        'taken): %s' % ', '.join(others) if others else '')


def record_or_none(cfg, log, zone_id):
    """find_record without its tolerance: --check reports a failed lookup, not "will be created"."""
    try:
        return find_record(cfg, log, zone_id, tolerate=False)
    except Failure as e:
        if str(e).endswith(DOESNT_EXIST):
            return None
        raise


def update(cfg, log):
    current = updater.get_current_ip(cfg, log)
    if current is None:
        return 0
    previous = updater.get_previous_ip(cfg, log, fallback=ping_previous_ip)
    if updater.unchanged(cfg, log, current, previous):
        return 0
    sent = True
    for attempt in (1, 2):
        zone_id, record = resolve_ids(cfg, log, fresh=attempt == 2)
        try:
            if record is None:
                record_id = create_record(cfg, log, zone_id, current)
            elif holds(record, current) and not cfg.force:
                log.info('Recordset %s already holds %s; nothing sent.' % (cfg.record_name, current))
                sent = False
                record_id = record['id']
            else:
                # rule 2: an update answered without an id means the recordset must be created
                record_id = update_record(cfg, log, zone_id, record, current) or \
                    create_record(cfg, log, zone_id, current)
            break
        except Stale:
            if attempt == 2:
                raise Failure('create record: the provider still says the zone does not exist')
            log.info('The zone id is stale; looking the ids up again.')
    updater.record_ip(cfg, log, [zone_id, record_id], current, sent)
    return 0


def ping_previous_ip(cfg, log):
    """Step 2's last resort: the address one ping of the record name shows (service.md 3)."""
    import subprocess
    from ddkit import ipcheck
    count = '-n' if os.name == 'nt' else '-c'
    argv = ['ping'] + (['-6'] if cfg.record_type == 'AAAA' else []) + [count, '1', cfg.record_name]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=cfg.timeout + 5)
    except (OSError, subprocess.SubprocessError) as e:
        log.info('No previous IP from ping: %s.' % e)
        return None
    # "PING name (addr) ...", "Pinging name [addr] ...", "64 bytes from addr: ...": no reply needed,
    # the name resolving is what tells the previous IP
    text = done.stdout[:8192].decode('utf-8', 'replace')
    for word in text.replace('(', ' ').replace(')', ' ').replace('[', ' ').replace(']', ' ').split():
        for candidate in (word, word.rstrip(',:')):
            ip, _ = ipcheck.valid_ip(candidate, cfg.record_type)
            if ip:
                return ip
    log.info('No previous IP from ping: no %s address in its output.' % cfg.record_type)
    return None


def resolve_ids(cfg, log, fresh=False):
    """Step 4: (zone id, recordset or None) from the ids file, else from the zone and record lookups."""
    ids = None if fresh else updater.read_ids(cfg)
    if ids:
        return ids[0], {'id': ids[1]}  # the update answer tells whether it still exists
    zone_id = find_zone(cfg, log)
    return zone_id, find_record(cfg, log, zone_id)


def find_zone(cfg, log):
    return updater.shared(cfg, ('zone', account(cfg), cfg.zone_name),
                          lambda: choose_zone(cfg, list_zones(cfg, log))[0]['id'])


def account(cfg):
    """Whose token, zones and recordsets: the key of what several records of a run share."""
    return cfg.auth_url, cfg.dns_url, cfg.username, cfg.password, cfg.project_name


def list_zones(cfg, log):
    """The zones the listing returns for zone_name (it matches names loosely)."""
    data = call(cfg, log, 'GET', '/v2/zones?name=%s' % cfg.zone_name, 'find zone')
    return [z for z in updater.listing(data, 'zones', 'find zone') if _id(z.get('id'))]


def choose_zone(cfg, zones):
    """(the zone named exactly zone_name, all listed): not blindly the first of a loose match."""
    want = cfg.zone_name  # settings.check_name dropped any trailing dot
    exact = [z for z in zones if str(z.get('name', '')).rstrip('.') == want]
    if not exact:
        raise Failure('find zone: no zone named %s in project %s (found: %s); check zone_name (the root '
                      'domain) and project_name' % (want, cfg.project_name,
                                                    ', '.join(str(z.get('name')) for z in zones) or 'none'))
    return exact[0], zones


def find_record(cfg, log, zone_id, tolerate=True):
    """Rule 3: a failed lookup is tolerated (None), so that creation follows."""
    # several records in a run list a name once for both families; a lookup that must not fail is fresh
    query = 'name=%s' % cfg.record_name + ('&type=%s' % cfg.record_type if cfg.run is None else '')
    key = ('records', account(cfg), zone_id, query) if tolerate else None
    data = updater.shared(cfg, key, lambda: call(cfg, log, 'GET', '/v2/zones/%s/recordsets?%s' % (
        zone_id, query), 'find record', tolerate=tolerate)) or {}
    records = [r for r in updater.listing(data, 'recordsets', 'find record') if _id(r.get('id'))
               and str(r.get('name', '')).rstrip('.') == cfg.record_name and r.get('type') == cfg.record_type]
    return records[0] if records else None


def holds(record, ip):
    from ddkit import ipcheck
    records = record.get('records')
    return isinstance(records, list) and len(records) == 1 and ipcheck.same_ip(str(records[0]), ip)


def create_record(cfg, log, zone_id, ip):
    body = recordset(cfg, ip, 'created')
    if cfg.dry_run:
        log.info('Dry run: would create %s recordset %s with %s.' % (cfg.record_type, cfg.record_name, ip))
        return 'new'
    try:
        data = call(cfg, log, 'POST', '/v2/zones/%s/recordsets' % zone_id, 'create record', body)
    except Exists:
        # the stored id was stale, yet a recordset of this name exists (re-created elsewhere):
        # take that one, or every run would fail on the same conflict
        record = find_record(cfg, log, zone_id, tolerate=False)
        record_id = record and update_record(cfg, log, zone_id, record, ip)
        if not record_id:
            raise Failure('create record: %s exists but cannot be found or updated' % body['name'])
        return record_id
    record_id = _id(data.get('id'))
    if not record_id:
        raise Failure('create record: the answer has no recordset id')
    log.info('Created %s recordset %s.' % (cfg.record_type, cfg.record_name))
    updater.changed(cfg, 'created')
    return record_id


def update_record(cfg, log, zone_id, record, ip):
    """Rule 3: a failed update is tolerated; its id, or None when the recordset must be created."""
    body = recordset(cfg, ip, 'updated')
    if cfg.dry_run:
        log.info('Dry run: would update recordset %s to %s.' % (cfg.record_name, ip))
        return record['id']
    data = call(cfg, log, 'PUT', '/v2/zones/%s/recordsets/%s' % (zone_id, record['id']), 'update record',
                body, tolerate=True) or {}
    record_id = _id(data.get('id'))
    if record_id:
        updater.changed(cfg, 'updated')
    else:
        log.info('update record: no recordset id in the answer; creating the recordset.')
    return record_id


def recordset(cfg, ip, what):
    """The body of a create or an update (service.md 4.2): the name carries the trailing dot."""
    when = time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())
    return {'name': cfg.record_name + '.', 'type': cfg.record_type, 'ttl': TTL, 'records': [ip],
            'description': '%s by %s at %s' % (what, TOOL, when)}


class Stale(Exception):
    """The stored zone id is no longer valid at the provider."""


class Exists(Exception):
    """A create met a recordset of the same name and type (DNS.0312)."""


def call(cfg, log, method, path, step, body=None, tolerate=False):
    """One DNS API call with the token; the answer checked as in service.md 7. A tolerated failure is
    logged and gives None. A cached token the API refuses is dropped and replaced, once."""
    token = cfg.token or get_token(cfg, log)
    for _ in (1, 2):
        answer = http.request(method, cfg.dns_url + path, step, json_body=body, timeout=cfg.timeout,
                              ca_file=cfg.ca_file, headers={'X-Auth-Token': token,
                                                            'Content-Type': 'application/json'})
        code, message = provider_error(answer)
        if not token_refused(answer, code):
            break
        if not cfg.token_cached:  # a new token refused: asking again would loop
            raise Failure('%s: the API refused a new token (HTTP %d%s): check project_name and the '
                          'user\'s DNS permissions' % (step, answer.status, ', %s: %s' % (code, message)
                                                       if code or message else ''))
        log.info('%s: the API refused the cached token (%s); getting a new one.' % (step, message or code))
        drop_token(cfg)
        token = new_token(cfg, log)
    data = None if code or message else _json(answer)
    if code or message:
        why = message or code
    elif not answer.body.strip():
        why = 'no data received, check connectivity'
    elif not isinstance(data, dict):
        raise Failure('%s: unexpected answer (HTTP %d): %s'
                      % (step, answer.status, http.snippet(answer.text)))
    elif total_count(data) == 0 and step != 'find zone':  # no zone: choose_zone says which, and the fix
        why = DOESNT_EXIST
    elif answer.status >= 400:
        why = 'HTTP %d: %s' % (answer.status, http.snippet(answer.text))
    else:
        log.info('%s: OK.' % step)
        return data
    if step == 'create record' and (code in ZONE_GONE or answer.status == 404):
        log.info('%s: %s' % (step, why))
        raise Stale()
    if step == 'create record' and (code == 'DNS.0312' or answer.status == 409):
        log.info('%s: %s' % (step, why))
        raise Exists()
    if tolerate:
        log.info('%s: %s' % (step, why))
        return None
    raise Failure('%s: %s%s' % (step, why, '; ' + FIXES[code] if code in FIXES else ''))


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


def token_refused(answer, code):
    # 401/403, or the API gateway's authentication codes (APIGW.0301 bad token, .0307 expired)
    return answer.status in (401, 403) or str(code or '').startswith('APIGW.03')


def total_count(data):
    """total_count at the top level or under metadata (the real listings); None when absent."""
    meta = data.get('metadata') if isinstance(data.get('metadata'), dict) else {}
    for where in (data, meta):
        if isinstance(where.get('total_count'), int) and not isinstance(where.get('total_count'), bool):
            return where['total_count']
    return None


def get_token(cfg, log):
    """The token cache (service.md 3): the auth file's token while now <= its expiry, else a new one."""
    from ddkit import state
    known = updater.recall(cfg, ('token', account(cfg)))
    if known:   # another record of this run has it: one token per run
        log.add_secret(known)
        cfg.token, cfg.token_cached = known, True
        return known
    lines = state.read_lines(cfg.auth_file, limit=TOKEN_MAX, private=True)
    expiry, _, token = (lines[0] if lines else '').partition(' ')
    token = token.strip()
    # epoch seconds as new_token writes them; anything else (inf, nan, 60000 digits) is expired
    expiry = (decimal(expiry) if len(expiry) <= 12 else None) or 0
    if token and _clean_token(token) and time.time() <= expiry:
        log.add_secret(token)
        cfg.token, cfg.token_cached = token, True
        updater.remember(cfg, ('token', account(cfg)), token)
        return token
    return new_token(cfg, log)


def new_token(cfg, log):
    """POST the password to IAM; the token comes back in X-Subject-Token, cached 0600 until Date + 1 day."""
    log.info('Getting a token for user %s, project %s.' % (cfg.username, cfg.project_name))
    body = {'auth': {'identity': {'methods': ['password'], 'password': {'user': {
        'name': cfg.username, 'password': cfg.password, 'domain': {'name': cfg.username}}}},
        'scope': {'project': {'name': cfg.project_name}}}}
    answer = http.request('POST', cfg.auth_url + '/v3/auth/tokens', 'get token', json_body=body,
                          headers={'Content-Type': 'application/json;charset=utf8'},
                          timeout=cfg.timeout, ca_file=cfg.ca_file)
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
        raise Failure('get token: %s (check username, password and project_name)' % why)
    expiry = int(_http_date(answer.headers.get('date')) or time.time()) + TOKEN_DAYS * 86400
    updater.save(cfg, cfg.auth_file, ['%d %s' % (expiry, token)], private=True)
    log.info('get token: OK.')
    cfg.token, cfg.token_cached = token, False
    updater.remember(cfg, ('token', account(cfg)), token)
    return token


def drop_token(cfg):
    """Forget a refused token, so that a failure before the next one is saved cannot reuse it."""
    from ddkit import state
    if not cfg.dry_run:
        state.remove(cfg.auth_file)
    cfg.token, cfg.token_cached = None, False
    updater.remember(cfg, ('token', account(cfg)), None)


def _clean_token(token):
    # it goes into a header line and the one-line auth file
    return 0 < len(token) < TOKEN_MAX and all(33 <= ord(c) < 127 for c in token)


def _http_date(text):
    """Epoch seconds of an HTTP Date header ("Sun, 06 Nov 1994 08:49:37 GMT"), or None."""
    months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
    try:
        _, day, month, year, clock = (text or '').split()[:5]
        hour, minute, second = (decimal(x) if len(x) == 2 else None for x in clock.split(':'))
        day, year = (decimal(day) if len(day) <= 2 else None), (decimal(year) if len(year) == 4 else None)
    except ValueError:
        return None
    # bounded before use: a year 10^20 or an hour 1e999 is no date (calendar would overflow)
    if None in (day, year, hour, minute, second) or month.title() not in months or not 1 <= day <= 31 \
            or year < 1970 or hour > 23 or minute > 59 or second > 60:
        return None
    import calendar
    return calendar.timegm((year, months.index(month.title()) + 1, day, hour, minute, second))


def _json(answer):
    try:
        return answer.json()
    except Failure:
        return None


def _id(value):
    """An id from an answer, only when it is safe in a URL path and the ids file."""
    return updater.safe_id(value)


if __name__ == '__main__':
    sys.exit(main())
