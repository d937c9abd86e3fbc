"""make bench's HTTPS rows: what a router pays for TLS, beside the plain-HTTP rows.

The sandbox's fakes over HTTPS with a certificate of a throw-away CA (made with the openssl command),
trusted through a router-sized CA set: this machine's CA bundle plus that CA, as one bundle file (what
OpenWrt's ca-bundle installs) and as a hashed directory (what ca-certificates installs). For A and B,
each layout: an unchanged `url` run, the first run of one record, the first run of 6 records
(--all). Columns: requests and connections (counted at the fakes), CPU (the child's user + system
time), wall, peak RSS. Budgets, as ratios in the same run: connections = the hosts the run talked
to; the 6-record run's CPU <= 2x the 1-record run's; the unchanged run's wall <= 3x the -I -S floor
with the hashed directory (docs/benchmarks.md).
"""

import os
import re
import shutil
import statistics
import subprocess

SIX = 6
LAYOUTS = (('bundle', 'CA bundle'), ('hashed', 'hashed CA dir'))
CASES = (('unchanged', 'unchanged, url'), ('first', 'first run, 1 record'),
         ('six', 'first run, %d records (--all)' % SIX))
BUNDLES = ('/etc/ssl/certs/ca-certificates.crt', '/etc/ssl/cert.pem', '/etc/pki/tls/certs/ca-bundle.crt')
PEM = re.compile(r'-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----\n', re.S)


class Certs:
    """The throw-away CA, the fakes' certificate (127.0.0.1 and localhost), and the CA set in both
    layouts; `why` says what is missing to make them."""

    def __init__(self, tmp):
        self.dir = os.path.join(tmp, 'tls')
        self.why, self.count = None, 0
        system = next((p for p in BUNDLES if os.path.isfile(p)), None)
        if not shutil.which('openssl'):
            self.why = 'skipped: the openssl command is missing (apt-get install openssl)'
        elif system is None:
            self.why = 'skipped: no system CA bundle (%s)' % ', '.join(BUNDLES)
        else:
            self.make(system)

    def openssl(self, *args):
        done = subprocess.run(['openssl'] + list(args), cwd=self.dir, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError('openssl %s: %s' % (args[0], done.stderr.strip()[-300:]))

    def make(self, system):
        os.makedirs(os.path.join(self.dir, 'hashed'))
        ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
        self.openssl('req', '-x509', *ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '7',
                     '-subj', '/CN=ddkit bench CA', '-addext', 'basicConstraints=critical,CA:TRUE',
                     '-addext', 'keyUsage=critical,keyCertSign,cRLSign')
        self.openssl('req', *ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost')
        with open(os.path.join(self.dir, 'leaf.ext'), 'w') as f:
            f.write('subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n'
                    'extendedKeyUsage=serverAuth\n')
        self.openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key',
                     '-CAcreateserial', '-out', 'leaf.pem', '-days', '7', '-extfile', 'leaf.ext')
        with open(system) as f, open(os.path.join(self.dir, 'ca.pem')) as ours:
            certs = PEM.findall(f.read()) + PEM.findall(ours.read())
        self.count = len(certs)
        self.bundle, self.hashed = os.path.join(self.dir, 'bundle.pem'), os.path.join(self.dir, 'hashed')
        with open(self.bundle, 'w') as f:
            f.write(''.join(certs))
        for i, cert in enumerate(certs):
            with open(os.path.join(self.hashed, 'ca%03d.pem' % i), 'w') as f:
                f.write(cert)
        self.openssl('rehash', self.hashed)

    def configure_cert(self, context):
        """What the fakes call to serve the certificate (trustme's LeafCert interface)."""
        context.load_cert_chain(os.path.join(self.dir, 'leaf.pem'), os.path.join(self.dir, 'leaf.key'))


def add(bench, b):
    """The HTTPS rows, appended to bench.paths (b: the bench module, for Path and its helpers)."""
    from sandbox import Sandbox
    from providers import SEEDS as PROVIDERS
    certs = bench.tls_certs = Certs(bench.tmp)   # the peer rows (tools/bench_peers.py) use the same CA set
    box = None if certs.why else Sandbox(tls_cert=certs, every=True)
    if box:
        bench.servers += box.servers
        bench.stoppers.append(box.stop)
        bench.notes.append(
            'HTTPS rows: the fakes over TLS (an ECDSA P-256 certificate of a throw-away CA, for '
            '127.0.0.1), trusted through %d CA certificates: this machine\'s bundle plus that CA, as one '
            'file ("CA bundle", ca-bundle\'s /etc/ssl/cert.pem) or as a hashed directory ("hashed CA '
            'dir", ca-certificates\' /etc/ssl/certs); "connections" counts the TCP+TLS connections the '
            'fakes accepted, "hosts" the fakes the run sent requests to; CPU is the run\'s user + '
            'system time.' % certs.count)
    for adapter in PROVIDERS:
        label = adapter.provider
        cmd, why = bench.tool(adapter.tool, 'dist', isolated=True)
        form = 'single file, -I -S'
        if cmd is None:   # the development tree, when the single file is not built (tests' smoke run)
            cmd, why, form = bench.tool(adapter.tool, 'bin', isolated=True) + ('bin/, -I -S',)
        for layout, layout_name in LAYOUTS:
            for case, case_name in CASES:
                path = b.Path('%s %s, HTTPS, %s (%s)' % (label, case_name, layout_name, form),
                              budget=('https-' + case, label, layout))
                path.https, path.isolated = True, True
                bench.paths.append(path)
                if box is None or cmd is None:
                    path.missing = certs.why or why
                    continue
                row(bench, b, path, adapter, box, cmd, case, certs.bundle if layout == 'bundle' else certs.hashed)
                if case == 'unchanged' and adapter is PROVIDERS[0]:
                    bench.paths.append(b.public_twin(path))


def row(bench, b, path, adapter, box, cmd, case, ca):
    """Settings and the reset before each run of one HTTPS row."""
    state = bench.state('https-%s-%s-%s' % (adapter.tool, case, os.path.basename(ca)))
    env = adapter.env(box, state)
    zone = env['DDNS_ZONE_NAME']
    count = SIX if case == 'six' else 1
    names = ['%s-https-%s-%s-%d.%s' % (adapter.provider, case, os.path.basename(ca).split('.')[0], i, zone)
             for i in range(count)]
    env.update({'DDNS_CA_FILE': ca, 'DDNS_RECORD_NAME': names[0]})
    path.seed = {}
    if case == 'unchanged':
        with open(os.path.join(state, adapter.ip_file(names[0])), 'w') as f:
            f.write(box.lookup.answer + '\n')
        path.expect = 'IP has not changed'
    else:
        def before():
            """No record at the provider and no state (ids, ip file, token); the resolver still
            knows the names' old address, as after a first install over a hand-made record."""
            for name in names:
                adapter.remove(box, name)
                box.doh.names[(name, 'A')] = ['81.2.69.1']
            for entry in os.listdir(state):
                os.unlink(os.path.join(state, entry))
        path.before = before
        path.expect = 'IP has been updated to' if case == 'first' else 'All %d records done.' % SIX
    if case == 'six':
        config = os.path.join(bench.state('https-config'), '%s-%s.conf' % (adapter.tool, os.path.basename(ca)))
        b.private_file(config, ''.join('%s=%s\n' % kv for kv in sorted(b.settings_of(env).items()))
                       + ''.join('[r%d]\nrecord_name=%s\n' % (i, name) for i, name in enumerate(names)))
        path.cmd, path.env = cmd + ['--all', '--config', config], b.clean_env()
    else:
        path.cmd, path.env = cmd, b.clean_env(env)


def cpu(path):
    return statistics.median(path.cpus) if path.cpus else None


def verdict(path, bench):
    """(budget text, 'ok' | 'MISSED: why') of an HTTPS row ('' for a row shown without a budget)."""
    if not path.budget or path.wall is None:
        return '', ''
    kind, label, layout = path.budget
    texts, missed = ['connections = hosts'], []
    if any(c != h for c, h in path.connections):
        missed.append('connections %s' % sorted(set(c for c, _ in path.connections)))
    if kind == 'https-six':
        one = next(p for p in bench.paths if p.budget == ('https-first', label, layout))
        texts.append('CPU <= 2.0x the 1-record run\'s')
        if cpu(one) is None or cpu(path) > 2.0 * cpu(one):
            missed.append('CPU %.2fx' % (cpu(path) / cpu(one)) if cpu(one) else 'no 1-record row')
    if kind == 'https-unchanged' and layout == 'hashed':
        ratio = path.wall / bench.floor_isolated.wall
        texts.append('wall <= 3.5x -I -S floor')
        if ratio > 3.5:
            missed.append('wall %.2fx' % ratio)
    if path.errors:
        missed.append('runs failed')
    return '; '.join(texts), 'MISSED: ' + ', '.join(missed) if missed else 'ok'


def table(bench, MiB):
    """The HTTPS rows' table (markdown lines)."""
    floor = bench.floor_isolated
    lines = ['', 'Over HTTPS (the forms a router runs; x -I -S floor: wall against `python3 -I -S -c pass`, '
             '%.1f ms wall, %.1f ms CPU):' % (floor.wall * 1000, cpu(floor) * 1000), '',
             '| path | requests | connections | hosts | CPU ms | wall ms | x -I -S floor | peak RSS MiB '
             '| budget | verdict |', '|---|---|---:|---:|---:|---:|---:|---:|---|---|']
    for path in bench.paths:
        if not path.https:
            continue
        if path.missing:
            lines.append('| %s | | | | | | | | | %s |' % (path.name, path.missing))
            continue
        text, result = verdict(path, bench)
        if path.errors:
            result += '; ERRORS: ' + ' / '.join(path.errors)
        connections, hosts = path.connections[-1] if path.connections else ('', '')
        lines.append('| %s | %s | %s | %s | %.1f | %.1f | %.2f | %.1f | %s | %s |' % (
            path.name, path.request_summary, connections, hosts, cpu(path) * 1000, path.wall * 1000,
            path.wall / floor.wall, path.peak / MiB, text, result))
    return lines
