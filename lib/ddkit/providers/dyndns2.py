"""dyndns2: tell a dynamic-DNS service this host's public IP with the dyndns2 update protocol.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md),
registered as `dyndns2`: one `GET /nic/update?hostname=<name>&myip=<ip>` with HTTP Basic
authentication, which DynDNS and many other services speak. The registry's presets run this module at
one service each, with that service's server by default (ddkit.registry.Preset): what a preset may
change (FIXES, ADDRESS_QUERY) is read through job.provider. Such a service is only told the IP, never
read (ddkit.provider.told): the ip file alone says what it was last told. The protocol's rules for its
answers are kept: `good` and `nochg` are success; an answer that says the settings are wrong
(`badauth`, `nohost`, ...) stops every later run from sending until the settings change, as the
protocol asks (a client that repeats them is blocked); `911` and `dnserr` hold sends back for half an
hour.
Protocol reference: https://help.dyn.com/remote-access-api/perform-update/ and
https://help.dyn.com/remote-access-api/return-codes/
"""

import time

from ddkit import Failure
from ddkit.provider import declaration, secret_setting, url_setting
from ddkit.settings import Setting, check_text

NAME = 'dyndns2'
SUMMARY = 'Tell a dyndns2 service (DynDNS and others) this host\'s IP'
UPDATE_PATH = '/nic/update'
SETTINGS = [
    Setting('username', help='account user name (some services: the host name)', check=check_text),
    secret_setting('password', 'account password or the service\'s update key', check=check_text),
    url_setting('https://members.dyndns.org', 'the service\'s base URL, scheme and host (the tool adds '
                '/nic/update)', UPDATE_PATH, name='server'),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, noun='host', urls=('server',), ids=False,
                                                hold_file='hold')
HOLD_SECONDS = 1800      # after 911 or dnserr: the protocol asks for 30 minutes or more before a retry
FIXES = {   # what to do about the protocol's answers (docs/providers.md)
    'badauth': 'the user name or password is wrong: check username and password',
    'nohost': 'the host name does not exist in this account: check record_name',
    'notfqdn': 'record_name is not a fully-qualified host name of the service: check record_name',
    'numhost': 'too many host names in one request: give one record_name',
    'abuse': 'the service blocked this host name for abuse: unblock it at the service, then change a setting',
    'badagent': 'the service refused this client: report it to the ddkit project',
    '!donator': 'this feature needs a paid account at the service',
    '!yours': 'the host name belongs to another account: check record_name and username',
    '911': 'the service has a problem on its side: sends are held back for 30 minutes',
    'dnserr': 'the service\'s DNS has a problem: sends are held back for 30 minutes',
}
# the query that tells the address, by record type: the protocol's myip for both (a preset may name
# its service's own fields)
ADDRESS_QUERY = {'A': 'myip=%s', 'AAAA': 'myip=%s'}
WAIT = frozenset(('911', 'dnserr'))   # the service's trouble: sends wait HOLD_SECONDS; any other code
# of FIXES says the settings are wrong: the same ones are never sent again


def send_ip(job, ip):
    """Tell the service the IP: True when it says it held it already (nochg). GET
    /nic/update?hostname=&myip= with Basic auth (https://help.dyn.com/remote-access-api/perform-update/)."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    import base64
    from ddkit.urls import quote
    cfg, fixes = job.cfg, job.provider.FIXES
    held_back(job)
    query = 'hostname=%s&%s' % (quote(cfg.record_name), job.provider.ADDRESS_QUERY[cfg.record_type] % quote(ip))
    credentials = base64.b64encode(('%s:%s' % (user_of(cfg), cfg.password)).encode('utf-8')).decode('ascii')
    # GET changes state here, yet the protocol makes it safe to repeat: the same IP again is nochg
    answer = http.request('GET', '%s%s?%s' % (cfg.server, UPDATE_PATH, query), 'update record',
                          headers={'Authorization': 'Basic ' + credentials}, timeout=cfg.timeout,
                          ca_file=cfg.ca_file)
    words = answer.text.split()
    code = words[0] if words else ''
    if answer.status == 200 and code in ('good', 'nochg'):
        job.discard(job.files['hold_file'])
        return code == 'nochg'
    if code in fixes:
        hold(job, code)
        raise Failure.at('update record', 'the service answered %s (HTTP %d): %s' % (
            code, answer.status, fixes[code]), url=answer.where, status=answer.status,
            kind='server error' if code in WAIT else 'refused', code=code, fix=fixes[code])
    if answer.status >= 500:
        raise Failure.at('update record', 'the service failed (HTTP %d): %s; the next run tries again' % (
            answer.status, http.snippet(answer.text)), url=answer.where, status=answer.status, kind='server error')
    if answer.status in (401, 403):
        # an answer of no known code: the server said it in HTTP alone, so the next run may try again
        raise Failure.at('update record', 'the service refused the credentials (HTTP %d): check username and '
                         'password' % answer.status, url=answer.where, status=answer.status, kind='refused',
                         fix='check username and password')
    raise Failure.at('update record', 'unexpected answer (HTTP %d): %s; check server (the service\'s base URL)'
                     % (answer.status, http.snippet(answer.text)), url=answer.where, status=answer.status,
                     kind='unexpected', fix='check server (the service\'s base URL)')


def user_of(cfg):
    """The user name sent: username, else the host name (a preset whose service logs a record in as
    itself does not require username)."""
    return cfg.username or cfg.record_name


def settings_key(cfg):
    """What the hold is bound to: a digest of the settings sent, so changing any of them lifts it (the
    file keeps no secret, only this digest)."""
    import hashlib
    text = '\n'.join((cfg.server, user_of(cfg), cfg.password, cfg.record_name))
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def hold(job, code):
    """Keep why sends stop (a stop code, until the settings change) or wait (until a time)."""
    until = int(time.time()) + HOLD_SECONDS if code in WAIT else 0
    job.save(job.files['hold_file'], [code, settings_key(job.cfg), str(until)], private=True, cache=True)


def held_back(job):
    """Refuse to send while an earlier answer holds sends back for these settings (a Failure that
    says which answer, when, and what lifts it); a hold of other settings is lifted."""
    from ddkit import decimal, state
    path, fixes = job.files['hold_file'], job.provider.FIXES
    lines, when = state.read_dated(path, private=True)
    if len(lines) != 3 or lines[0] not in fixes:
        return
    code, key, until = lines[0], lines[1], decimal(lines[2]) if len(lines[2]) <= 12 else None
    if key != settings_key(job.cfg) or code in WAIT and (until is None or time.time() >= until):
        job.discard(path)
        return
    since = time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(when)) if when else 'an earlier run'
    if code in WAIT:
        why = 'held back until %s: the service answered %s at %s' % (
            time.strftime('%H:%M:%S', time.localtime(until)), code, since)
        raise Failure.at('update record', why, kind='server error', code=code, fix=fixes[code])
    raise Failure.at('update record', 'not sent: the service answered %s at %s, and the dyndns2 protocol '
                     'forbids sending the same settings again (the service blocks clients that do); fix: %s, '
                     'then run again' % (code, since, fixes[code]), kind='refused', code=code,
                     fix=fixes[code] + ', then run again')
