#!/usr/bin/env python3
"""make bench's peer rows: updater_a beside the tools users pick instead, on the same fake.

NewFuture/DDNS (PyPI `ddns`, stdlib Python) and ddclient (Debian's package, Perl) run against the
sandbox's Cloudflare-shaped fake and its IP lookup, one record each in the same zone, beside
updater_a's single file (the file a router runs): a run with nothing to do and a run that changes
the record, over plain HTTP and over HTTPS with bench_https's CA set (one bundle file, a hashed
directory). Columns: requests and connections (counted at the fakes), CPU (the child's user +
system time), wall, peak RSS, and the record as the fake holds it after the run (the address, and
whether the TTL and comment the user set survived). Budget: updater_a's CPU <= 1/4 of the cheaper
peer's on every row.

Neither peer is a dependency of the project, not even of its tests: `make bench-peers` (this file
with --install) puts ddclient in with apt and ddns in a venv outside the repository; a peer that is
missing is skipped. docs/benchmarks.md ("The peers") says what each row runs and what was found.

usage: sudo python3 tools/bench_peers.py --install
"""

import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

PEERS_DIR = os.environ.get('DDKIT_BENCH_PEERS') or '/var/tmp/ddkit-bench-peers'
VENV = os.path.join(PEERS_DIR, 'venv')
DDNS_PIN = 'ddns==4.2.0'        # the newest 4.x release of NewFuture/DDNS when these rows were made
DDCLIENT_PATHS = ('/usr/bin/ddclient', '/usr/sbin/ddclient')
INSTALL = 'sudo make bench-peers'
TTL, COMMENT = 300, 'home router'   # what the user set on the record: an update should keep both
BUDGET = 0.25                    # our CPU against the cheaper peer's on the same row
TOOLS = ('updater_a', 'ddns', 'ddclient')
TRANSPORTS = (('http', 'HTTP'), ('bundle', 'HTTPS, CA bundle'), ('hashed', 'HTTPS, hashed CA dir'))
CASES = (('unchanged', 'no change'), ('changed', 'change'))
# what each run must send: nothing to the provider when nothing changed; a change as each tool makes it
# (updater_a: ids cached by its earlier runs; NewFuture: zone, listing, PUT; ddclient: zone, listing, PATCH)
EXPECTED = {'unchanged': {tool: ('lookup',) for tool in TOOLS},
            'changed': {'updater_a': ('get_record', 'lookup', 'update_record'),
                        'ddns': ('list_records', 'list_zones', 'lookup', 'update_record'),
                        'ddclient': ('list_records', 'list_zones', 'lookup', 'patch_record')}}


# --- the peers, where they are ---------------------------------------------------------------------
def ddclient_exe():
    return shutil.which('ddclient') or next((p for p in DDCLIENT_PATHS if os.path.exists(p)), None)


def ddclient_version(exe):
    """ddclient's version from its script (its cache file is ignored unless headed with it)."""
    try:
        with open(exe, encoding='utf-8', errors='replace') as f:
            text = f.read()
    except OSError:
        return '3.10.0'
    mark = "version->declare('v"
    at = text.find(mark)
    return text[at + len(mark):text.find("'", at + len(mark))] if at >= 0 else '3.10.0'


def ddns_exe():
    exe = os.path.join(VENV, 'bin', 'ddns')
    return exe if os.access(exe, os.X_OK) else None


def ddns_version():
    found = glob.glob(os.path.join(VENV, 'lib', 'python*', 'site-packages', 'ddns-*.dist-info'))
    return os.path.basename(found[0])[len('ddns-'):-len('.dist-info')] if found else '?'


def missing(tool):
    """Why a peer cannot run here ('skipped: ...', with how to install it), or None."""
    if tool == 'ddns' and not ddns_exe():
        return 'skipped: NewFuture/DDNS is not installed (%s: %s in a venv in %s)' % (INSTALL, DDNS_PIN, PEERS_DIR)
    if tool == 'ddclient' and not ddclient_exe():
        return 'skipped: ddclient is not installed (%s, or apt-get install ddclient)' % INSTALL
    return None


# --- their settings ---------------------------------------------------------------------------------
def private_file(path, text):
    """Mode 0600: ddclient warns about (and chmods) a config or cache file others can read."""
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'w') as f:
        f.write(text)


def ddclient_conf(path, lookup_url, fake, zone, record, ca=None):
    """ddclient's config: its own Cloudflare protocol against the fake, its IPv4 from the lookup.

    use=no: 3.10 keeps use=ip as a default beside usev4, warns on every run that it found no
    address that way and, finding no ip= in its cache (Cloudflare's update writes ipv4=), tries an
    update every other run. The password is quoted: unquoted, ddclient keeps the comma after it.
    server= is the API's base (ddclient puts https:// before it, always)."""
    server = fake.url.split('://', 1)[1] + '/client/v4'
    lines = ['daemon=0', 'ssl=%s' % ('yes' if ca else 'no')]
    if ca:
        lines.append('%s=%s' % ('ssl_ca_dir' if os.path.isdir(ca) else 'ssl_ca_file', ca))
    lines += ['use=no, usev4=webv4, webv4=%s/' % lookup_url,
              "protocol=cloudflare, zone=%s, login=%s, password='%s', server=%s" % (zone, fake.email, fake.key, server),
              record]
    private_file(path, '\n'.join(lines) + '\n')


def ddclient_cache(path, version, record, ip, mtime):
    """The cache line ddclient itself leaves after a run that found nothing to do: ipv4= what it set,
    status-ipv4=good, mtime= when it set it (an update within min-interval, 30 s, of it is refused)."""
    private_file(path, '## ddclient-%s\natime=0,host=%s,ipv4=%s,mtime=%d,status=,status-ipv4=good,wtime=30 %s\n'
                 % (version, record, ip, mtime, record))


def ddns_config(path, lookup_url, fake, record, cache):
    """NewFuture's JSON config: its cloudflare provider, the e-mail and global key, the documented
    endpoint key (the API's base), the lookup as its IPv4 source, the cache file. ssl true: its
    default, auto, retries without verification when the issuer is unknown."""
    private_file(path, json.dumps({'dns': 'cloudflare', 'id': fake.email, 'token': fake.key, 'endpoint': fake.url,
                                   'ipv4': [record], 'index4': ['url:%s/' % lookup_url], 'ipv6': [],
                                   'index6': False, 'cache': cache, 'ssl': True}, indent=1) + '\n')


def ddns_cache(path, record, ip):
    """NewFuture's cache as its run leaves it: '<name>:A' -> the address it set (read when the file is
    younger than cache_max_age, 3 days)."""
    private_file(path, json.dumps({'%s:A' % record: ip}, separators=(',', ':')))


def ddns_ca_env(ca, tmp):
    """NewFuture uses Python's default context: the CA set comes in through SSL_CERT_FILE or
    SSL_CERT_DIR, the other one pointed at nothing (else OpenSSL's default would be read too). With
    the directory alone its context holds no certificate yet, and NewFuture then loads the system's
    bundle itself: what it does on a machine with ca-certificates, so the row keeps it."""
    nothing = os.path.join(tmp, 'no-ca')
    os.makedirs(nothing, exist_ok=True)
    if os.path.isdir(ca):
        return {'SSL_CERT_DIR': ca, 'SSL_CERT_FILE': os.path.join(nothing, 'none.pem')}
    return {'SSL_CERT_FILE': ca, 'SSL_CERT_DIR': nothing}


# --- the fake, as the peers call it -----------------------------------------------------------------
def prepare_fake(fake):
    """Write bodies not held to the project's copy of the API schema, which makes `id` required
    (updater_a sends one; NewFuture, like the real API, does without and would get a 400): under
    /usr/bin/python3, which make bench uses, the fake has no validator anyway (no
    openapi-schema-validator), and the rows must not depend on the harness's interpreter."""
    fake.validator = None


# --- the rows ---------------------------------------------------------------------------------------
def label(tool, form=''):
    if tool == 'updater_a':
        return 'updater_a (%s)' % form
    if tool == 'ddns':
        return 'NewFuture/DDNS' + (' ' + ddns_version() if ddns_exe() else '')
    exe = ddclient_exe()
    return 'ddclient' + (' ' + ddclient_version(exe) if exe else '')


def add(bench, b):
    """The peer rows, appended to bench.paths (b: the bench module, for Path and its helpers)."""
    from sandbox import Sandbox
    certs = getattr(bench, 'tls_certs', None)
    # sandboxes of their own: the zone holds only these rows' records, as an account would
    plain = Sandbox(every=True)
    tls = Sandbox(tls_cert=certs, every=True) if certs is not None and not certs.why else None
    for box in (plain, tls):
        if box:
            prepare_fake(box.provider_a)
            bench.servers += box.servers
            bench.stoppers.append(box.stop)
    worlds = {'http': (plain, None), 'bundle': (tls, tls and certs.bundle), 'hashed': (tls, tls and certs.hashed)}
    ours, why, form = bench.tool('updater_a', 'dist', isolated=True) + ('single file, -I -S',)
    if ours is None:   # the development tree, when the single file is not built (the tests' smoke run)
        ours, why, form = bench.tool('updater_a', 'bin', isolated=True) + ('bin/, -I -S',)
    for transport, transport_name in TRANSPORTS:
        box, ca = worlds[transport]
        for case, case_name in CASES:
            for tool in TOOLS:
                path = b.Path('peers, %s, %s: %s' % (case_name, transport_name, label(tool, form)),
                              budget=('peer', case, transport, tool))
                path.peer = True
                path.isolated = tool == 'updater_a'
                bench.paths.append(path)
                if box is None:
                    path.missing = certs.why if certs is not None and certs.why else \
                        'skipped: no CA set (tools/bench_https.py made none)'
                elif tool == 'updater_a':
                    path.missing = why if ours is None else None
                else:
                    path.missing = missing(tool)
                if not path.missing and tool == 'ddclient' and case == 'changed' and transport == 'http':
                    path.missing = ('skipped: ddclient %s sends its Cloudflare API calls to https:// only, '
                                    'whatever ssl= says' % ddclient_version(ddclient_exe()))
                if path.missing:
                    continue
                row(bench, b, path, tool, case, transport, box, ca, ours)


def row(bench, b, path, tool, case, transport, box, ca, ours):
    """Settings, and what to reset before each run and read after it, of one peer row."""
    from sandbox import ZONE
    fake, lookup = box.provider_a, box.lookup
    record = 'peer-%s-%s-%s.%s' % (tool, case, transport, ZONE)
    rid = fake.add_record(box.zone_a, record, 'A', b.SEEN, ttl=TTL, comment=COMMENT)
    state = bench.state('peers-%s-%s-%s' % (tool, case, transport))
    flip = [b.SEEN_NEXT, b.SEEN]
    path.seed, path.want = {}, None

    if tool == 'updater_a':
        import providers
        env = providers.A.env(box, state)
        env['DDNS_RECORD_NAME'] = record
        if ca:
            env['DDNS_CA_FILE'] = ca
        ip_file = os.path.join(state, providers.A.ip_file(record))

        def seed(ip, _):
            with open(ip_file, 'w') as f:
                f.write(ip + '\n')
        path.cmd, path.env = ours, b.clean_env(env)
        path.expect = 'IP has been updated to' if case == 'changed' else 'IP has not changed'
    elif tool == 'ddns':
        config, cache = os.path.join(state, 'config.json'), os.path.join(state, 'ddns.cache')
        ddns_config(config, lookup.url, fake, record, cache)

        def seed(ip, _):
            ddns_cache(cache, record, ip)
        path.cmd = [ddns_exe(), '-c', config]
        path.env = b.clean_env(ddns_ca_env(ca, bench.tmp) if ca else {})
        path.expect = 'successfully' if case == 'changed' else 'address not changed'
    else:
        exe = ddclient_exe()
        version = ddclient_version(exe)
        config, cache = os.path.join(state, 'ddclient.conf'), os.path.join(state, 'ddclient.cache')
        ddclient_conf(config, lookup.url, fake, ZONE, record, ca)

        def seed(ip, now):
            # its last update an hour ago: past min-interval (30 s), within max-interval (30 days)
            ddclient_cache(cache, version, record, ip, now - 3600)
        path.cmd = [exe, '-daemon=0', '-file', config, '-cache', cache]
        path.env = b.clean_env()
        path.expect = 'SUCCESS' if case == 'changed' else None
        path.forbid = 'WARNING'   # a refused or skipped update, a config line it did not take

    def before():
        """The record at the fake holds the old address with the user's TTL and comment, the tool's
        own cache says the same; the lookup answers the new address (the same one: no change)."""
        if case == 'changed':
            flip.reverse()
        new, old = (flip[0], flip[1]) if case == 'changed' else (b.SEEN, b.SEEN)
        lookup.answer = new
        fake.records[rid].update(content=old, ttl=TTL, comment=COMMENT, proxied=False, tags=[])
        seed(old, int(time.time()))
        path.want = new

    def after():
        held = fake.records.get(rid) or {}
        path.outcomes.append((held.get('content') == path.want, held.get('ttl'), held.get('comment')))
    path.before, path.after = before, after


# --- the verdicts and the tables --------------------------------------------------------------------
def cpu(path):
    return statistics.median(path.cpus) if path.cpus else None


def peers_of(bench, path):
    """The rows of the other tools on the same case and transport: {tool: path}."""
    _, case, transport, _ = path.budget
    return {p.budget[3]: p for p in bench.paths
            if p.peer and p.budget[1:3] == (case, transport) and p is not path}


def record_text(path):
    """The record after the runs: right in n of N; the TTL and comment kept, or what they became."""
    if not path.outcomes:
        return ''
    right = sum(1 for ok, _, _ in path.outcomes if ok)
    text = 'right %d/%d' % (right, len(path.outcomes))
    ttls = sorted(set(t for _, t, _ in path.outcomes if t != TTL), key=str)
    comments = [c for _, _, c in path.outcomes if c != COMMENT]
    if not ttls and not comments:
        return text + '; TTL, comment kept'
    lost = (['TTL %d -> %s' % (TTL, '/'.join(map(str, ttls)))] if ttls else []) \
        + (['comment -> %r' % comments[-1]] if comments else [])
    return text + '; ' + ', '.join(lost)


def checks(path):
    """What is wrong with a row's runs (whichever tool): [] when nothing."""
    _, case, _, tool = path.budget
    wrong = []
    if any(c != EXPECTED[case][tool] for c in path.requests):
        wrong.append('requests')
    if not all(ok for ok, _, _ in path.outcomes):
        wrong.append('record not right')
    if path.errors:
        wrong.append('runs failed')
    return wrong


def cheaper_peer(bench, path):
    """(tool, CPU) of the cheaper peer measured on the same row whose runs came out right, or None."""
    found = [(cpu(p), tool) for tool, p in peers_of(bench, path).items()
             if tool != 'updater_a' and not p.missing and cpu(p) is not None and not checks(p)]
    return (min(found)[1], min(found)[0]) if found else None


def verdict(path, bench):
    """(budget text, verdict) of a peer row: updater_a's against the budget, a peer's runs checked."""
    if not path.budget or path.wall is None:
        return '', ''
    tool = path.budget[3]
    wrong = checks(path)
    if tool != 'updater_a':
        return '', 'WRONG: ' + ', '.join(wrong) if wrong else 'ok'
    text = 'CPU <= 1/4 of the cheaper peer\'s; record right, TTL and comment kept'
    if any(t != TTL or c != COMMENT for _, t, c in path.outcomes):
        wrong.append('TTL or comment lost')
    cheaper = cheaper_peer(bench, path)
    if cheaper is None:   # nothing to hold it against: its own runs are still judged
        return text, 'MISSED: ' + ', '.join(wrong) if wrong else 'not judged: no peer measured'
    if cpu(path) > BUDGET * cheaper[1]:
        wrong.append('CPU %s %s\'s' % (times(cpu(path) / cheaper[1]), name_of(cheaper[0])))
    return text, 'MISSED: ' + ', '.join(wrong) if wrong else 'ok (%s %s\'s)' % (
        times(cpu(path) / cheaper[1]), name_of(cheaper[0]))


def times(ratio):
    """'0.21x'; three decimals next to the budget, where two would round onto it ('0.251x')."""
    return ('%.3fx' if round(ratio, 2) == BUDGET else '%.2fx') % ratio


def name_of(tool):
    return {'updater_a': 'updater_a', 'ddns': 'NewFuture', 'ddclient': 'ddclient'}[tool]


def budgets(bench):
    """One line per case and transport: [(row name, {tool: CPU s or why not}, (cheaper peer, ratio) or
    None, verdict)]."""
    lines = []
    for transport, transport_name in TRANSPORTS:
        for case, case_name in CASES:
            rows = {p.budget[3]: p for p in bench.paths if p.peer and p.budget[1:3] == (case, transport)}
            if not rows:
                continue
            ours = rows.get('updater_a')
            cpus = {tool: (p.missing or 'not measured') if p.missing or cpu(p) is None else cpu(p)
                    for tool, p in rows.items()}
            cheaper = cheaper_peer(bench, ours) if ours is not None and not ours.missing else None
            ratio = (cheaper[0], cpu(ours) / cheaper[1]) if cheaper and cpu(ours) else None
            if ratio is None:
                result = 'not judged: %s' % ('no peer measured' if ours is not None and not ours.missing
                                              else 'updater_a not run')
            else:
                result = 'met' if ratio[1] <= BUDGET else 'MISSED'
            lines.append(('%s, %s' % (case_name, transport_name), cpus, ratio, result))
    return lines


def table(bench, MiB):
    """The peer rows' tables (markdown lines): each tool's runs, then the budget side by side."""
    rows = [p for p in bench.paths if p.peer]
    if not rows:
        return []
    floor = bench.floor
    lines = ['', 'Beside the peers (the same Cloudflare-shaped fake, lookup, zone and record shape; "x floor '
             'CPU": CPU against `python3 -c pass`, %.1f ms CPU; "record": the record at the fake after each '
             'run, which held TTL %d and a comment before it):' % (cpu(floor) * 1000, TTL), '',
             '| row | requests | connections | hosts | CPU ms | x floor CPU | wall ms | peak RSS MiB | record '
             '| budget | verdict |', '|---|---|---:|---:|---:|---:|---:|---:|---|---|---|']
    for path in rows:
        if path.missing:
            lines.append('| %s | | | | | | | | | | %s |' % (path.name, path.missing))
            continue
        text, result = verdict(path, bench)
        if path.errors:
            result += '; ERRORS: ' + ' / '.join(path.errors)
        connections, hosts = path.connections[-1] if path.connections else ('', '')
        lines.append('| %s | %s | %s | %s | %.1f | %.1f | %.1f | %.1f | %s | %s | %s |' % (
            path.name, path.request_summary, connections, hosts, cpu(path) * 1000, cpu(path) / cpu(floor),
            path.wall * 1000, path.peak / MiB, record_text(path), text, result))
    lines += ['', 'CPU side by side (budget: updater_a <= %.2fx the cheaper peer\'s):' % BUDGET, '',
              '| row | updater_a CPU ms | NewFuture/DDNS CPU ms | ddclient CPU ms | updater_a / cheaper peer '
              '| budget |', '|---|---:|---:|---:|---:|---|']
    for name, cpus, ratio, result in budgets(bench):
        cells = []
        for tool in TOOLS:
            value = cpus.get(tool)
            cells.append('%.1f' % (value * 1000) if isinstance(value, float) else
                         'n/a' if value is None or 'https:// only' in value else '-')
        lines.append('| %s | %s | %s | %s |' % (name, ' | '.join(cells), '' if ratio is None else '%s (%s)' % (
            times(ratio[1]), name_of(ratio[0])), result))
    return lines


# --- installing them (make bench-peers) --------------------------------------------------------------
def install():
    """ddclient from Debian's packages (its daemon stopped and disabled: the bench runs it by hand,
    with its own config and cache), ddns from PyPI into a venv of /usr/bin/python3 in PEERS_DIR."""
    if os.geteuid() != 0:
        sys.exit('bench-peers: apt-get needs root (sudo make bench-peers)')
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    apt = ['apt-get', 'install', '-y', '-q', 'ddclient']
    if subprocess.call(apt, env=env) != 0:   # a machine whose package lists were never fetched
        subprocess.check_call(['apt-get', 'update', '-q'], env=env)
        subprocess.check_call(apt, env=env)
    stop_daemon()
    if not os.path.exists(os.path.join(VENV, 'bin', 'python')):
        subprocess.check_call(['/usr/bin/python3', '-m', 'venv', VENV])
    subprocess.check_call([os.path.join(VENV, 'bin', 'python'), '-m', 'pip', 'install', '-q',
                           '--disable-pip-version-check', DDNS_PIN])
    print('bench-peers: ddclient %s (%s), NewFuture/DDNS %s (%s)'
          % (ddclient_version(ddclient_exe()), ddclient_exe(), ddns_version(), ddns_exe()))


def stop_daemon():
    """The package enables and may start its daemon (with the /etc/ddclient.conf its questions made):
    disabled, and stopped by the id in its pid file when it runs."""
    if shutil.which('systemctl'):
        now = ['--now'] if os.path.isdir('/run/systemd/system') else []
        subprocess.call(['systemctl', 'disable'] + now + ['ddclient'], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
    elif shutil.which('update-rc.d'):
        subprocess.call(['update-rc.d', 'ddclient', 'disable'], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
    for pidfile in ('/run/ddclient.pid', '/var/run/ddclient.pid'):
        try:
            with open(pidfile) as f:
                pid = int(f.read().split()[0])
            with open('/proc/%d/cmdline' % pid, 'rb') as f:
                if b'ddclient' in f.read():
                    os.kill(pid, 15)
        except (OSError, ValueError, IndexError):
            pass


if __name__ == '__main__':
    if sys.argv[1:] != ['--install']:
        sys.exit(__doc__.strip().splitlines()[-1])
    install()
