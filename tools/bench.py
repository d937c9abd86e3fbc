#!/usr/bin/env python3
"""make bench: what one cron run of each tool costs, side by side with its references.

Method (BENCHMARKS.md explains it): every path and every reference is run in the same rounds, in a
rotating order, after a warm-up; medians; wall time is time.perf_counter() around the bare command
(GNU time's %e has only 10 ms resolution), peak RSS is %M of `/usr/bin/time` in a second run of the
same round (ru_maxrss of a child of this large Python process would include this process). The tools
and the floor run under /usr/bin/python3. Requests are counted in the fake servers' request logs.
Run as root, everything runs inside a fresh network namespace with an interface holding a global
IPv4 and a stable global IPv6 address (the iface paths need one; nothing there can reach the
internet); otherwise the iface paths are skipped. The HTTPS rows come from tools/bench_https.py, the
rows beside the peers (ddclient, NewFuture/DDNS: `make bench-peers` installs them) from
tools/bench_peers.py.

--providers NAME,...: the rows of those providers alone (the seed tools' providers always run: the
rows of several records and the HTTPS rows are theirs); every provider of the registry by default.
--rows 'TEXT;...': only the rows whose name holds one of the texts, and the references (the floors,
ddclient's, sh + curl's): on a busy machine, the rows a change is about; the names hold commas, so
texts are split at ';' (`--rows 'peers, ;100 records;unchanged, prefix IPv6 (LAN host)'`).

usage: python3 tools/bench.py [--runs N] [--smoke] [--providers NAME,...] [--rows 'TEXT;...'] [--write FILE]
                              [--json FILE]
"""

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, 'tests'))
import bench_https  # noqa: E402
import bench_peers  # noqa: E402
import standalone  # noqa: E402
from providers import PROVIDERS as ALL, SEEDS as PROVIDERS  # noqa: E402  (the test adapters; the seed tools')


def adapter_of(label):
    """The provider adapter whose rows are labelled so (its name in the registry)."""
    return next(a for a in ALL if a.provider == label)

PY = '/usr/bin/python3'
ISOLATED = ['-I', '-S']              # how the project starts the tools: no site, no PYTHON*
GNU_TIME = '/usr/bin/time'
IFACE = 'bench0'                      # inside the namespace
IFACE_V4, IFACE_V6 = '81.2.69.2', '240e::2'
# a LAN host behind IFACE: by a fixed interface id on its prefix, and in its neighbour table (its
# SLAAC address and another one, both stale: as the kernel keeps a host it has not heard from lately)
LAN_ID, LAN_MAC = '::1a2b:3c4d:5e6f:7890', '00:16:3e:44:55:66'
LAN_V6, NEIGH_V6, NEIGH_OTHER = '240e::1a2b:3c4d:5e6f:7890', '240e::216:3eff:fe44:5566', '240e::5'
SEEN, SEEN_NEXT = '81.2.69.10', '81.2.69.11'   # what the loopback lookup answers
MiB = 1024.0
KB = 1000                            # size budgets in the stricter reading: 160 KB = 160,000 bytes
# a single file (dist/<tool>.py: a fixed tool's, the ddkit command's of one provider, as a router
# needs: make standalone PROVIDERS=<name>), an .ipk
SINGLE_BUDGET, IPK_BUDGET = 160 * KB, 36 * KB
# the ddkit command's single file of every provider of the registry (make standalone): each provider
# makes it larger, this bounds it (tools/standalone.py warns over either)
ALL_PROVIDERS_BUDGET = 256 * KB
# what a router with the command and one provider installs, every package together (not the optional
# ddkit-notify and ddkit-proxy): 297.0 KB with the largest provider (docs/benchmarks.md says which, and why)
ROUTER_BUDGET = 298 * KB
RECORDS = 10                         # the records of the --all rows
MANY = 100                           # the records of the rows of how a run grows
PAGE_RECORDS = 20                    # the records of the LuCI page's status rows
BUSY = 1000                          # the neighbour entries of a busy LAN (the kernel's gc_thresh3: 1024)
# the reach rows: a Telegram bot and a proxy of a record that finds nothing changed, so it tells
# nothing and sends nothing through the proxy (nothing listens there: a request would fail the row)
REACH_NOTIFY = 'https://api.telegram.org/bot123456:ABCdefGhIJKlmNoPQRstuVWXyz/sendMessage?chat_id=42'
REACH_PROXY = 'http://bench:secret@127.0.0.1:9'
BUSY_IFACE = 'bench1'                # the device with the busy neighbour table (IFACE's veth peer)
TMPDIR = [tempfile.gettempdir()]     # the tools' TMPDIR (the single files keep compiled code there)
BEGIN, END = '<!-- bench: begin -->', '<!-- bench: end -->'


# --- the network namespace -------------------------------------------------------------------------
class Netns:
    """A throw-away network namespace with lo up and IFACE holding IFACE_V4/24 and IFACE_V6/64, and
    the LAN host's neighbour entries."""

    def __init__(self, name=None):
        self.name = name or 'ddkb%d' % os.getpid()

    @staticmethod
    def possible():
        """None when a namespace can be made here, else why not."""
        if os.name != 'posix' or os.geteuid() != 0:
            return 'needs root for a network namespace'
        if not shutil.which('ip'):
            return 'needs `ip` (iproute2)'
        return None

    def __enter__(self):
        n = self.name
        steps = [['ip', 'netns', 'add', n],
                 ['ip', '-n', n, 'link', 'add', IFACE, 'type', 'veth', 'peer', 'name', 'bench1'],
                 ['ip', '-n', n, 'addr', 'add', IFACE_V4 + '/24', 'dev', IFACE],
                 ['ip', '-n', n, '-6', 'addr', 'add', IFACE_V6 + '/64', 'dev', IFACE, 'nodad'],
                 ['ip', '-n', n, 'link', 'set', 'lo', 'up'],
                 ['ip', '-n', n, 'link', 'set', 'bench1', 'up'],
                 ['ip', '-n', n, 'link', 'set', IFACE, 'up']]
        # permanent: the busy table of one row (below) must not make the kernel's garbage collector
        # evict these between runs
        steps += [['ip', '-n', n, '-6', 'neigh', 'replace', address, 'lladdr', LAN_MAC, 'dev', IFACE, 'nud',
                   'permanent'] for address in (NEIGH_OTHER, NEIGH_V6)]
        # the hosts of the neigh rows that scale: each of RECORDS hosts on IFACE (a quiet LAN) and on
        # BUSY_IFACE (where the busy row adds BUSY - RECORDS others before each of its runs)
        batch = ''.join('neigh replace %s lladdr %s dev %s nud permanent\n' % (scale_address(i), scale_mac(i), dev)
                        for i in range(RECORDS) for dev in (IFACE, BUSY_IFACE))
        try:
            for step in steps:
                subprocess.run(step, check=True, capture_output=True)
            subprocess.run(['ip', '-n', n, '-batch', '-'], input=batch.encode(), check=True, capture_output=True)
        except BaseException:
            self.__exit__()
            raise
        return self

    def wrap(self, cmd):
        return ['ip', 'netns', 'exec', self.name] + list(cmd)

    def __exit__(self, *exc):
        subprocess.run(['ip', 'netns', 'del', self.name], capture_output=True)


def busy_table(on):
    """Before and after each run of the busy row: BUSY_IFACE's table with BUSY - RECORDS other hosts,
    or without them (the dump of a neighbour table has every device's entries: the other rows must
    not pay for these)."""
    verb = 'replace' if on else 'del'
    batch = ''.join('neigh %s 240e::f:%x lladdr 02:00:00:01:%02x:%02x dev %s%s\n'
                    % (verb, i, i >> 8, i & 255, BUSY_IFACE, ' nud permanent' if on else '')
                    for i in range(BUSY - RECORDS))
    subprocess.run(['ip', '-force', '-batch', '-'], input=batch.encode(), capture_output=True)


def scale_address(i):
    return '240e::e:%x' % i


def scale_mac(i):
    return '02:00:00:00:aa:%02x' % i


def private_file(path, text):
    """Write a config file of the bench, mode 0600 (it holds the fakes' credentials; the tools refuse a
    config file others could change)."""
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'w') as f:
        f.write(text)


def settings_of(env):
    """A DDNS_* environment as the settings of a config file (record_name left out: each record has
    its own)."""
    return {k[5:].lower(): v for k, v in env.items() if k != 'DDNS_RECORD_NAME'}


# --- one command, run and measured -----------------------------------------------------------------
def clean_env(extra=None):
    """What cron would give a tool: PATH, HOME, LANG, and the DDNS_* settings; no PYTHON* variables."""
    env = {'PATH': os.environ.get('PATH', '/usr/sbin:/usr/bin:/sbin:/bin'), 'LANG': 'C.UTF-8',
           'HOME': os.environ.get('HOME', '/root'), 'TMPDIR': TMPDIR[0]}
    env.update(extra or {})
    return env


def run(cmd, env, mode='wall'):
    """Run cmd once: mode 'wall' (perf_counter), 'rss' (under GNU time) or 'imports' (-X importtime).

    Returns a dict: wall (s), cpu (s: user + system), rss (KiB, rss mode), modules (imports mode),
    rc, out, err."""
    argv = list(cmd)
    report = None
    if mode == 'rss':
        fd, report = tempfile.mkstemp(prefix='bench-time-')
        os.close(fd)
        argv = [GNU_TIME, '-f', '%e %M', '-o', report] + argv
    elif mode == 'imports' and argv[0] == PY:
        argv = [PY, '-X', 'importtime'] + argv[1:]
    import resource
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = {'wall': wall, 'rc': p.returncode,
              'cpu': now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime,
              'out': p.stdout.decode('utf-8', 'replace'), 'err': p.stderr.decode('utf-8', 'replace')}
    if report:
        with open(report) as f:
            last = (f.read().strip().splitlines() or ['0 0'])[-1].split()
        os.unlink(report)
        result['rss'] = int(last[1])
    if mode == 'imports':
        names = [line.split('|')[-1].strip() for line in result['err'].splitlines()
                 if line.startswith('import time:') and not line.endswith('imported package')]
        result['modules'] = names
        result['err'] = '\n'.join(line for line in result['err'].splitlines()
                                  if not line.startswith('import time:'))
    return result


# --- the paths -------------------------------------------------------------------------------------
def public_twin(path):
    """The same row run with DDKIT_PUBLIC_ONLY=1 (socket, ssl and json instead of the C extensions,
    ddkit.native): no budget, shown beside it so the cost of the fallback is known."""
    import copy
    twin = copy.copy(path)
    twin.name, twin.budget = path.name + ', DDKIT_PUBLIC_ONLY=1', None
    twin.env = dict(path.env, DDKIT_PUBLIC_ONLY='1')
    twin.walls, twin.rss, twin.requests, twin.errors, twin.cpus, twin.connections = [], [], [], [], [], []
    twin.outcomes = []
    twin.modules = None
    return twin


class Path:
    """One measured command: how to run it, what to reset before each run, what it must show."""

    def __init__(self, name, cmd=None, env=None, expect=None, budget=None, before=None,
                 missing=None, reference=False):
        self.name, self.cmd, self.env, self.expect = name, cmd, env, expect
        self.budget, self.before, self.missing, self.reference = budget, before, missing, reference
        self.walls, self.rss, self.requests, self.modules, self.errors = [], [], [], None, []
        self.cpus, self.connections = [], []   # CPU seconds; (connections accepted, hosts asked)
        self.forbid = None     # text that must not show in its output
        self.after = None      # what to undo after each run
        self.isolated = False   # run under python3 -I -S
        self.https = False      # an HTTPS row (tools/bench_https.py): a table of its own
        self.peer = False       # a row beside the peers (tools/bench_peers.py): a table of its own
        self.outcomes = []      # what its after() found after each measured run (the peer rows' record)

    def once(self, servers, mode):
        if self.before:
            self.before()
        for server in servers:
            server.reset_log()
        accepted = [server.connections for server in servers]
        result = run(self.cmd, self.env, mode)
        if self.after:
            self.after()
        calls = []
        for server in servers:
            calls += server.calls()
        result['requests'] = calls
        result['connections'] = (sum(s.connections for s in servers) - sum(accepted),
                                 sum(1 for s in servers if s.calls()))
        problem = None
        if result['rc'] != 0:
            problem = 'exit %d: %s' % (result['rc'], (result['err'] or result['out']).strip()[-300:])
        elif self.expect and self.expect not in result['out'] + result['err']:
            problem = 'no %r in its output: %s' % (self.expect, (result['out'] + result['err'])[-300:])
        elif self.forbid and self.forbid in result['out'] + result['err']:
            problem = '%r in its output: %s' % (self.forbid, (result['out'] + result['err'])[-300:])
        if problem and problem not in self.errors:
            self.errors.append(problem)
        return result

    def measure(self, servers, mode):
        result = self.once(servers, mode)
        self.requests.append(tuple(sorted(result['requests'])))
        self.connections.append(result['connections'])
        if mode == 'wall':
            self.walls.append(result['wall'])
            self.cpus.append(result['cpu'])
        elif mode == 'rss':
            self.rss.append(result['rss'])

    @property
    def wall(self):
        return statistics.median(self.walls) if self.walls else None

    @property
    def peak(self):
        return statistics.median(self.rss) if self.rss else None

    @property
    def request_summary(self):
        if not self.requests:
            return ''
        common = max(set(self.requests), key=self.requests.count)
        text = ', '.join('%s %d' % (r, common.count(r)) for r in sorted(set(common))) or '0'
        return text if len(set(self.requests)) == 1 else text + ' (varied)'


class Bench:
    """One bench run: the fake servers (the sandbox's), the paths, and their measurements."""

    def __init__(self, runs, smoke, iface_ok, why_no_iface):
        from sandbox import RECORD, Sandbox
        self.runs, self.smoke = runs, smoke
        self.iface_ok, self.why_no_iface = iface_ok, why_no_iface
        self.tmp = tempfile.mkdtemp(prefix='ddkit-bench-')
        TMPDIR[0] = self.tmp
        self.record = RECORD
        self.box = Sandbox(every=True)
        from fakes.healthcheck import HealthCheck
        self.healthcheck = HealthCheck().start()   # the ping of the 'notify' rows
        self.servers = list(self.box.servers) + [self.healthcheck]
        self.paths = []
        self.notes = []
        self.stoppers = []   # what else to stop at the end (the HTTPS rows' fakes)
        self.providers = None   # the providers whose rows run (--providers), None: every one
        self.rows = None        # texts the names of the rows that run hold (--rows), None: every row
        self.feed_built = None  # a folder of the feed tools/feed.py built already (a test's), None: build it

    def stop(self):
        for stop in self.stoppers:
            stop()
        self.box.stop()
        for server in self.servers:
            if server not in self.box.servers:
                server.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # --- building the list of paths --------------------------------------------------------------
    def state(self, name):
        path = os.path.join(self.tmp, name)
        os.makedirs(path, exist_ok=True)
        return path

    def tool(self, tool, variant, isolated=False):
        """The command of a tool (bin/, dist/ or installed), or (None, why) when it does not exist yet;
        isolated: under python3 -I -S, as the single file's and the stub's first line start it."""
        python = [PY] + (ISOLATED if isolated else [])
        if variant == 'installed':
            if self.installed_root is None:
                return None, self.why_not_installed
            return python + [os.path.join(self.installed_root, 'usr', 'bin', tool)], None
        path = os.path.join(ROOT, variant, tool + '.py')
        if not os.path.exists(path):
            return None, ('not built yet (%s/%s.py missing%s)'
                          % (variant, tool, '; run make standalone' if variant == 'dist' else ''))
        return python + [path], None

    def settings(self, label, state):
        return adapter_of(label).env(self.box, state)

    def lookup_answer(self, value):
        def before():
            self.box.lookup.answer = value
        return before

    def alternate(self):
        """Before each run of a 'changed' path: the lookup answers the other address."""
        flip = [SEEN, SEEN_NEXT]

        def before():
            flip.reverse()
            self.box.lookup.answer = flip[0]
        return before

    def install(self):
        """The feed built now (tools/feed.py), or the one feed_built names, unpacked into a temporary
        root as opkg does."""
        self.installed_root, self.why_not_installed = None, None
        try:
            sys.path.insert(0, HERE)
            import feed
            import io
            import tarfile
            out, root = os.path.join(self.tmp, 'feed'), os.path.join(self.tmp, 'root')
            os.makedirs(root)
            if self.feed_built:
                out = self.feed_built
                names = sorted(name for name in os.listdir(out) if name.endswith('.ipk'))
            else:
                names = feed.build(out)
            for name in names:
                with tarfile.open(os.path.join(out, name)) as ipk:
                    data = ipk.extractfile('./data.tar.gz').read()
                with tarfile.open(fileobj=io.BytesIO(data)) as layer:
                    layer.extractall(root, **({'filter': 'data'} if hasattr(tarfile, 'data_filter') else {}))
            self.installed_root = root
        except Exception as e:  # reported in the table, the rest of the bench still runs
            self.why_not_installed = 'not built: tools/feed.py failed (%s)' % e

    def build(self):
        floor = Path('floor: /usr/bin/python3 -c pass', [PY, '-c', 'pass'], clean_env(), reference=True)
        self.floor = floor
        # the floor of the way the tools are started now: no site module, no site-packages scan
        self.floor_isolated = Path('floor, isolated: /usr/bin/python3 -I -S -c pass',
                                   [PY] + ISOLATED + ['-c', 'pass'], clean_env(), reference=True)
        self.floor_isolated.isolated = True
        self.paths += [floor, self.floor_isolated]
        self.install()
        for adapter in ALL:   # each provider of the registry: the seed tool fixed to it, else ddkit
            if self.providers and adapter.provider not in self.providers and adapter not in PROVIDERS:
                continue
            tool, label = adapter.tool, adapter.provider
            for variant in ('bin', 'dist', 'installed'):
                self.updater_paths(tool, label, variant)
                if variant != 'bin':   # the forms a router runs, as it starts them: -I -S
                    self.updater_paths(tool, label, variant, isolated=True)
        for variant in ('dist', 'installed'):
            self.page_paths(variant)
        self.plugin_paths()
        self.ddclient_path()
        self.shell_path()
        self.egress_path()
        bench_https.add(self, sys.modules[__name__])
        bench_peers.add(self, sys.modules[__name__])
        if self.rows:
            self.paths = [p for p in self.paths if p.reference or any(text in p.name for text in self.rows)]
        self.notes.append('"(installed)" rows run /usr/bin/<tool> of the packages (ddkit and the tool) '
                          'unpacked into a temporary root as opkg does: a stub that imports the tool\'s code '
                          'from /usr/lib/ddkit, compiled code cached in $TMPDIR/ddkit-<uid>-pyc/ (filled by the '
                          'warm-up run), what a router runs. "(single file)" rows run dist/<tool>.py, the '
                          'copy-one-file install. The other rows run bin/<tool>.py, the development tree, whose '
                          'script Python compiles on every run (a script never gets a .pyc: about 1 MiB of peak '
                          'memory for a 12-19 KB tool): their RSS is shown, and its budget is checked on the '
                          'two forms a router runs.')
        self.notes.append('"-I -S" rows run the same single file or stub as `python3 -I -S <file>`, which '
                          'is how the project starts them now (their first line is `#!/usr/bin/python3 -IS`; '
                          'cron, procd and hotplug start them by path): isolated (no PYTHON* variables, no '
                          'user site) and site-less (no site-packages scan, no .pth files). "x -I -S floor" '
                          'is each row against `/usr/bin/python3 -I -S -c pass`, the floor of that way of '
                          'starting Python.')

    def updater_paths(self, tool, label, variant, isolated=False):
        suffix = {'bin': '', 'dist': ' (single file', 'installed': ' (installed'}[variant]
        suffix += (', -I -S)' if isolated else ')') if suffix else ''
        cmd, why = self.tool(tool, variant, isolated)
        lacking = adapter_of(label).lacking()
        if lacking and cmd is not None:   # its fake cannot check a request: every run would be refused
            cmd, why = None, 'skipped: ' + lacking
        seed = adapter_of(label).seed   # the other providers: what their own code adds to a run
        specs = ([('iface', 'A'), ('iface', 'AAAA'), ('prefix', 'AAAA'), ('neigh', 'AAAA')] if seed else []) \
            + ([('reach', 'AAAA')] if seed and variant != 'bin' else []) \
            + [('url', 'A')] + ([('notify', 'A')] if not isolated and seed else []) \
            + ([('changed', 'A')] if variant != 'installed' and not isolated else [])
        for kind, rtype in specs:
            name = {'iface': '%s unchanged, iface %s' % (label, 'IPv4' if rtype == 'A' else 'IPv6'),
                    'prefix': '%s unchanged, prefix IPv6 (LAN host)' % label,
                    'neigh': '%s unchanged, neigh IPv6 (LAN host)' % label,
                    'reach': '%s unchanged, iface IPv6, notify and proxy set' % label,
                    'url': '%s unchanged, url' % label,
                    'notify': '%s unchanged + on_change + healthcheck_url (url)' % label,
                    'changed': '%s changed, %s' % (label, 'nothing to read: told the IP' if adapter_of(label).told else
                                                   'ids%s cached' % (' and token' if 'auth_file' in
                                                                     adapter_of(label).files else ''))}[kind]
            # the LAN sources read the kernel as iface: does, so they are held to its budget
            local = kind in ('iface', 'prefix', 'neigh', 'reach')
            path = Path(name + suffix, budget=('iface' if kind != 'reach' and local else kind, label, variant))
            path.isolated = isolated
            self.paths.append(path)
            if cmd is None:
                path.missing = why
                continue
            if local and not self.iface_ok:
                path.missing = 'skipped: %s' % self.why_no_iface
                continue
            state = self.state('%s-%s-%s-%s%s' % (label, variant, kind, rtype, '-is' if isolated else ''))
            env = self.settings(label, state)
            # a record of its own per path: a 'changed' path alternates its record between two
            # addresses, which another path's updates must not disturb
            record = '%s-%s-%s-%s%s.%s' % (label, variant, kind, rtype, '-is' if isolated else '',
                                          env['DDNS_ZONE_NAME'])
            env.update({'DDNS_RECORD_TYPE': rtype, 'DDNS_RECORD_NAME': record.lower()})
            if adapter_of(label).told:   # it updates only a host that exists: made as its user made it
                adapter_of(label).add(self.box, record.lower(), rtype, SEEN)
            if local:
                env['DDNS_IP_SOURCE'] = {'iface': 'iface:' + IFACE, 'reach': 'iface:' + IFACE, 'prefix': 'prefix:%s/%s' % (
                    IFACE, LAN_ID), 'neigh': 'neigh:%s/%s' % (IFACE, LAN_MAC)}[kind]
                held = {'iface': IFACE_V4 if rtype == 'A' else IFACE_V6, 'reach': IFACE_V6, 'prefix': LAN_V6,
                        'neigh': NEIGH_V6}
                if kind == 'reach':   # nothing changed: nothing is told, nothing goes through the proxy
                    env.update({'DDNS_NOTIFY': REACH_NOTIFY, 'DDNS_PROXY': REACH_PROXY})
                    # the ip file a run before made (through a proxy that is up then), claiming the address
                    ip_file = os.path.join(state, adapter_of(label).files['ip_file'] % (record.lower() + '_AAAA'))
                    path.before = lambda ip_file=ip_file: private_file(ip_file, IFACE_V6 + '\n')
                path.seed = {(record.lower(), rtype): [held[kind]]}
                path.expect = 'IP has not changed: %s' % held[kind]
            elif kind in ('url', 'notify'):
                path.before = self.lookup_answer(SEEN)
                path.seed = {(record.lower(), 'A'): [SEEN]}
                path.expect = 'IP has not changed'
                if kind == 'notify':  # both set: the hook is not run (nothing changed), one ping is sent
                    env.update({'DDNS_ON_CHANGE': '/bin/false',
                                'DDNS_HEALTHCHECK_URL': self.healthcheck.check_url})
                    path.forbid = 'on_change'
            else:
                path.before = self.alternate()
                path.seed = {}
                path.expect = 'IP has been updated to'
            path.cmd, path.env = cmd, clean_env(env)
            if kind in ('iface', 'url') and rtype == 'A' and variant == 'installed' and isolated \
                    and adapter_of(label) is PROVIDERS[0]:
                self.paths.append(public_twin(path))
        if not seed:
            return
        if not isolated:
            self.records_path(tool, label, variant, cmd, why)
        if variant == 'bin' and not isolated:
            self.both_changed_path(tool, label, cmd, why)
        if variant == 'bin' and not isolated and adapter_of(label) is PROVIDERS[0]:   # one provider is enough
            self.scale_paths(tool, label, cmd, why)

    def scale_paths(self, tool, label, cmd, why):
        """How a run's cost grows: MANY unchanged prefix: records; RECORDS neigh: records on a quiet
        and on a busy neighbour table; the first run of MANY names in one zone (its listings)."""
        rows = [('prefix', Path('%s unchanged, %d records, prefix (--all)' % (label, MANY), budget=(
                    'many', label, 'bin'))),
                ('quiet', Path('%s unchanged, %d neigh records, %d-entry table (--all)' % (label, RECORDS, RECORDS + 2),
                               budget=('neigh-quiet', label, 'bin'))),
                ('busy', Path('%s unchanged, %d neigh records, %d-entry table (--all)' % (label, RECORDS, BUSY),
                              budget=('neigh-busy', label, 'bin'))),
                ('first', Path('%s first run, %d names in one zone (--all)' % (label, MANY), budget=(
                    'listings', label, 'bin')))]
        for kind, path in rows:
            self.paths.append(path)
            if cmd is None or not self.iface_ok:
                path.missing = why if cmd is None else 'skipped: %s' % self.why_no_iface
                continue
            state = self.state('%s-scale-%s' % (tool, kind))
            shared = settings_of(self.settings(label, state))
            count = RECORDS if kind in ('quiet', 'busy') else MANY
            names = [('%s-%s-%d.%s' % (label, kind, i, shared['zone_name'])).lower() for i in range(count)]
            text = ''.join('[r%d]\nrecord_name=%s\n' % (i, name) for i, name in enumerate(names))
            if kind == 'prefix':
                shared.update(record_type='AAAA', ip_source='prefix:%s/::1a2b:%x' % (IFACE, 0))
                text = ''.join('[r%d]\nrecord_name=%s\nip_source=prefix:%s/::1a2b:%x\n' % (i, name, IFACE, i + 1)
                               for i, name in enumerate(names))
                path.seed = {(name, 'AAAA'): ['240e::1a2b:%x' % (i + 1)] for i, name in enumerate(names)}
            elif kind in ('quiet', 'busy'):
                shared['record_type'] = 'AAAA'
                device = IFACE if kind == 'quiet' else BUSY_IFACE
                text = ''.join('[r%d]\nrecord_name=%s\nip_source=neigh:%s/%s\n' % (i, name, device, scale_mac(i))
                               for i, name in enumerate(names))
                path.seed = {(name, 'AAAA'): [scale_address(i)] for i, name in enumerate(names)}
                if kind == 'busy':
                    path.before, path.after = (lambda: busy_table(True)), (lambda: busy_table(False))
            else:
                shared['ip_source'] = 'iface:' + IFACE
                path.seed = {}
                path.before = self.first_run(adapter_of(label), state, names)
            config = os.path.join(state, 'records.conf')
            private_file(config, ''.join('%s=%s\n' % kv for kv in sorted(shared.items())) + text)
            path.expect = 'All %d records done.' % count
            path.cmd, path.env = cmd + ['--all', '--config', config], clean_env()

    def first_run(self, adapter, state, names):
        """Before each run of the first-run row: no record at the provider, no state file."""
        def before():
            for name in names:
                adapter.remove(self.box, name)
            for name in os.listdir(state):
                if name.startswith('.'):
                    os.unlink(os.path.join(state, name))
        return before

    def records_path(self, tool, label, variant, cmd, why):
        """RECORDS records (names of A and AAAA) in one --all run, all unchanged, iface sources: the
        UCI file of a router with its hosts, credentials once in its defaults section."""
        suffix = {'bin': '', 'dist': ' (single file)', 'installed': ' (installed)'}[variant]
        path = Path('%s unchanged, %d records, iface (--all)%s' % (label, RECORDS, suffix),
                    budget=('records', label, variant))
        self.paths.append(path)
        if cmd is None or not self.iface_ok:
            path.missing = why if cmd is None else 'skipped: %s' % self.why_no_iface
            return
        state = self.state('%s-%s-records' % (tool, variant))
        shared = settings_of(self.settings(label, state))
        shared['ip_source'] = 'iface:' + IFACE
        text = 'config defaults\n' + ''.join("\toption %s '%s'\n" % (k, v.replace("'", "'\\''"))
                                              for k, v in sorted(shared.items()))
        path.seed = {}
        for n in range(RECORDS // 2):
            record = ('%s-%s-records-%d.%s' % (label, variant, n, shared['zone_name'])).lower()
            text += "\nconfig %s 'r%d'\n\toption enabled '1'\n\toption record_name '%s'\n" \
                    "\toption record_type 'A AAAA'\n" % (tool, n, record)
            path.seed.update({(record, 'A'): [IFACE_V4], (record, 'AAAA'): [IFACE_V6]})
        config = os.path.join(state, tool + '.uci')
        private_file(config, text)
        path.expect = 'All %d records done.' % RECORDS
        path.cmd, path.env = cmd + ['--all'], clean_env({'DDNS_UCI_FILE': config})

    def page_paths(self, variant):
        """What the LuCI page asks on every load and refresh, run as a router starts the command
        (-I -S): --status --json --all of PAGE_RECORDS records that have run, and --providers --json
        with every provider of the registry installed."""
        suffix = {'dist': ' (single file, -I -S)', 'installed': ' (installed, -I -S)'}[variant]
        cmd, why = self.tool('ddkit', variant, isolated=True)
        status = Path('ddkit --status --json --all, %d records%s' % (PAGE_RECORDS, suffix),
                      budget=('page-status', 'ddkit', variant))
        providers = Path('ddkit --providers --json, every provider%s' % suffix,
                         budget=('page-providers', 'ddkit', variant))
        for path in (status, providers):
            path.isolated = True
            self.paths.append(path)
            if cmd is None:
                path.missing = why
        if cmd is None:
            return
        label = PROVIDERS[0].provider
        state = self.state('page-%s' % variant)
        shared = dict(settings_of(self.settings(label, state)), provider=label)
        text = 'config defaults\n' + ''.join("\toption %s '%s'\n" % (k, v.replace("'", "'\\''"))
                                              for k, v in sorted(shared.items()))
        for n in range(PAGE_RECORDS):
            text += "\nconfig ddkit 'r%d'\n\toption enabled '1'\n\toption record_name 'page-%s-%d.%s'\n" % (
                n, variant, n, shared['zone_name'])
        config = os.path.join(state, 'ddkit.uci')
        private_file(config, text)
        env = clean_env({'DDNS_UCI_FILE': config})
        self.box.lookup.answer = SEEN   # each record made once: the status shows what runs kept
        done = subprocess.run(cmd + ['--all', '--quiet'], env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            status.missing = 'its records could not be made: %s' % (done.stderr or done.stdout).strip()[-200:]
        status.cmd, status.env, status.expect = cmd + ['--status', '--json', '--all'], env, '"created"'
        providers.cmd, providers.env, providers.expect = cmd + ['--providers', '--json'], clean_env(), '"providers"'

    def plugin_paths(self):
        """The LuCI page's status poll (every 30 s while the page is open) as rpcd runs it: the
        packages' plugin (-I -S) asked `call status` of one record that has run. From its second call
        (the warm-up run compiled its code into the command's cache), and, beside it, its first call:
        its own TMPDIR emptied before each run, everything compiled (what the cache saves)."""
        name = 'luci.ddkit call status, one record%s (installed, -I -S)'
        again = Path(name % '', budget=('rpcd-status', 'ddkit', 'installed'))
        first = Path(name % ', first call (nothing compiled yet)', budget=('rpcd-first', 'ddkit', 'installed'))
        command, why = self.tool('ddkit', 'installed', isolated=True)
        for path in (again, first):
            path.isolated = True
            self.paths.append(path)
            path.missing = why
        if command is None:
            return
        label = PROVIDERS[0].provider
        state = self.state('rpcd')
        shared = dict(settings_of(self.settings(label, state)), provider=label, enabled='1')
        shared['record_name'] = 'rpcd.' + shared['zone_name']
        config = os.path.join(state, 'ddkit.uci')
        private_file(config, "config ddkit 'home'\n" + ''.join("\toption %s '%s'\n" % (k, v.replace("'", "'\\''"))
                                                             for k, v in sorted(shared.items())))
        env = clean_env({'DDNS_UCI_FILE': config})
        self.box.lookup.answer = SEEN   # the record made once: its status is what that run kept
        done = subprocess.run(command + ['--all', '--quiet'], env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            why = 'its record could not be made: %s' % (done.stderr or done.stdout).strip()[-200:]
            again.missing = first.missing = why
        plugin = [PY] + ISOLATED + [os.path.join(self.installed_root, 'usr', 'libexec', 'rpcd', 'luci.ddkit'),
                                    'call', 'status']
        tmp = self.state('rpcd-first')   # a TMPDIR of its own: the other rows keep their compiled code
        cache = os.path.join(tmp, 'ddkit-%d-pyc' % os.getuid())
        again.cmd, again.env, again.expect = plugin, env, '"created"'
        first.cmd, first.env, first.expect = plugin, dict(env, TMPDIR=tmp), '"created"'
        first.before = lambda: shutil.rmtree(cache, ignore_errors=True)
        self.notes.append('"luci.ddkit call status" rows: the LuCI page\'s status poll as rpcd runs it, the '
                          'plugin of the packages started as `python3 -I -S` for each call; judged by its CPU '
                          '(user + system), which its verdict states.')

    def both_changed_path(self, tool, label, cmd, why):
        """The A and AAAA records of one name both changed, no ids stored (each run starts from the
        old addresses at the provider and in the ip files): one zone lookup, one listing, two updates."""
        path = Path('%s changed, A and AAAA of one name, no ids' % label, budget=('both', label, 'bin'))
        self.paths.append(path)
        if cmd is None or not self.iface_ok:
            path.missing = why if cmd is None else 'skipped: %s' % self.why_no_iface
            return
        state = self.state('%s-both' % tool)
        env = self.settings(label, state)
        record = ('%s-both.%s' % (label, env['DDNS_ZONE_NAME'])).lower()
        env.update({'DDNS_RECORD_NAME': record, 'DDNS_RECORD_TYPE': 'A AAAA',
                    'DDNS_IP_SOURCE': 'iface:' + IFACE})
        files = adapter_of(label).files
        old = {'A': '81.2.69.3', 'AAAA': '240e::3'}

        def before():
            for rtype, key in (('A', record), ('AAAA', record + '_AAAA')):
                with open(os.path.join(state, files['ip_file'] % key), 'w') as f:
                    f.write(old[rtype] + '\n')
                if os.path.exists(os.path.join(state, files['ids_file'] % key)):
                    os.unlink(os.path.join(state, files['ids_file'] % key))
                adapter_of(label).hold(self.box, record, rtype, old[rtype])
        path.before, path.seed, path.expect = before, {}, 'All 2 records done.'
        path.cmd, path.env = cmd, clean_env(env)

    def ddclient_path(self):
        """ddclient's own no-change check, as the peer rows run it (tools/bench_peers.py): usev4=webv4
        against the same loopback lookup, its cache saying the address is already set."""
        path = Path('ddclient, unchanged, usev4=webv4', reference=True)
        self.ddclient = path
        self.paths.append(path)
        exe = bench_peers.ddclient_exe()
        if not exe:
            path.missing = bench_peers.missing('ddclient')
            return
        from sandbox import ZONE
        state = self.state('ddclient')
        conf, cache = os.path.join(state, 'ddclient.conf'), os.path.join(state, 'ddclient.cache')
        # the provider is the loopback fake A: an unexpected update would stay on this machine and
        # show in the request counts
        bench_peers.ddclient_conf(conf, self.box.lookup.url, self.box.provider_a, ZONE, self.record)
        path.version = bench_peers.ddclient_version(exe)

        def before():
            self.box.lookup.answer = SEEN
            bench_peers.ddclient_cache(cache, path.version, self.record, SEEN, int(time.time()) - 3600)
        path.cmd = [exe, '-daemon=0', '-file', conf, '-cache', cache]
        path.env = clean_env()
        path.before = before
        path.forbid = 'WARNING'
        path.seed = {}

    def shell_path(self):
        path = Path('sh + curl, unchanged (the original approach)', reference=True)
        self.paths.append(path)
        if not shutil.which('curl'):
            path.missing = 'skipped: curl is not installed'
            return
        state = self.state('shell')
        with open(os.path.join(state, 'ip.txt'), 'w') as f:
            f.write(SEEN + '\n')
        path.cmd = ['/bin/sh', '-c', 'ip=$(curl -s "$1"); [ "$ip" = "$(cat "$2")" ] && echo unchanged',
                    'sh', self.box.lookup.url + '/', os.path.join(state, 'ip.txt')]
        path.env = clean_env()
        path.before = self.lookup_answer(SEEN)
        path.expect = 'unchanged'
        path.seed = {}

    def egress_path(self):
        path = Path('egress6.py report-only', budget=('egress', None, 'bin'))
        self.paths.append(path)
        cmd, why = self.tool('egress6', 'bin')
        if cmd is None:
            path.missing = why
            return
        if not self.iface_ok:
            path.missing = 'skipped: %s' % self.why_no_iface
            return
        from fakes.base import FakeServer, Reply
        from fakes.helpers import IpLookup
        lookup = IpLookup(json.dumps({'ip': IFACE_V6, 'asn_name': 'CHINANET', 'type': 'ipv6'}),
                          host='::1').start()
        geo = FakeServer(host='::1')
        geo.route('geoip', 'GET', '/.*', lambda req: Reply(200, {
            'isp': 'China Telecom', 'region': 'Guangdong', 'country': 'China'}))
        geo.start()
        self.servers += [lookup, geo]
        self.egress_servers = [lookup, geo]
        path.cmd = cmd + ['--lookup-url', lookup.url + '/', '--geoip-url', geo.url]
        path.env = clean_env()
        path.seed = {}

    # --- running ---------------------------------------------------------------------------------
    def active(self):
        return [p for p in self.paths if not p.missing]

    def warm_up(self):
        """One run of each path (fills the state files and caches), then its -X importtime run."""
        for path in self.active():
            self.box.doh.names.clear()
            self.box.doh.names.update(getattr(path, 'seed', {}))
            path.once(self.servers, 'wall')
            self.box.doh.names.clear()
            path.errors = []  # the first run may rightly differ (no ip file yet); judge the rest
            result = path.once(self.servers, 'imports')
            path.modules = result.get('modules')

    def measure(self):
        paths = self.active()
        for path in paths:
            path.outcomes = []   # the warm-up's runs are not judged
        for i in range(self.runs):
            turn = paths[i % len(paths):] + paths[:i % len(paths)]  # rotate: no path always first
            for path in turn:
                path.measure(self.servers, 'wall')
            for path in turn:
                path.measure(self.servers, 'rss')

    def lookup_rtt(self):
        """Median round trip of one loopback lookup from here (the 'its lookups' term of egress6)."""
        import socket
        servers = getattr(self, 'egress_servers', None)
        if not servers:
            return 0.0
        times = []
        for _ in range(max(self.runs, 3)):
            s = socket.create_connection(('::1', servers[0].port))
            started = time.perf_counter()
            s.sendall(b'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
            while s.recv(65536):
                pass
            times.append(time.perf_counter() - started)
            s.close()
        servers[0].reset_log()
        return statistics.median(times)


# --- verdicts ---------------------------------------------------------------------------------------
def verdict(path, bench, rtt):
    """(budget text, 'ok' | 'MISSED: why' | '')"""
    if not path.budget or path.wall is None:
        return '', ''
    if path.https:
        return bench_https.verdict(path, bench)
    if path.peer:
        return bench_peers.verdict(path, bench)
    kind, label, variant = path.budget
    floor, dd = bench.floor, bench.ddclient
    ratio = path.wall / floor.wall
    calls = path.requests[-1] if path.requests else ()
    missed, said = [], ''   # said: the figures a verdict states (a row judged by CPU, not shown in the table)
    if kind == 'iface':
        # bin/<tool>.py is the development tree: Python compiles a script on every run (about
        # 1 MiB of peak memory for 12-19 KB of code); a router runs the single file or the package
        text = 'wall <= 1.6x floor; %s; 0 requests' % (
            'RSS: on the rows a router runs' if variant == 'bin' else 'RSS <= floor + 1.5 MiB')
        if ratio > 1.6:
            missed.append('wall %.2fx' % ratio)
        if variant != 'bin' and path.peak > floor.peak + 1536:
            missed.append('RSS +%.1f MiB' % ((path.peak - floor.peak) / MiB))
        if any(path.requests):
            missed.append('requests')
    elif kind == 'url':
        text = 'wall <= 4.0x floor and < ddclient; RSS <= ddclient; 1 lookup'
        if ratio > 4.0:
            missed.append('wall %.2fx' % ratio)
        if dd.wall is not None and path.wall >= dd.wall:
            missed.append('slower than ddclient')
        if dd.peak is not None and path.peak > dd.peak:
            missed.append('RSS above ddclient')
        if any(c != ('lookup',) for c in path.requests):
            missed.append('requests')
    elif kind == 'reach':
        # the same run without them (the iface IPv6 row of the same form): what notify and proxy cost
        plain = next((p for p in bench.paths if p.name == path.name.replace(', notify and proxy set', '')), None)
        text = 'wall <= 1.1x and RSS <= +0.1 MiB the same row without them, its modules; 0 requests'
        if plain is None or plain.wall is None:
            missed.append('no row without them')
        else:
            if path.wall > 1.1 * plain.wall:
                missed.append('wall %.2fx' % (path.wall / plain.wall))
            if path.peak > plain.peak + 102:
                missed.append('RSS +%.1f MiB' % ((path.peak - plain.peak) / MiB))
            if plain.modules is not None and path.modules is not None and set(path.modules) != set(plain.modules):
                missed.append('modules %s' % ', '.join(sorted(set(path.modules) ^ set(plain.modules))))
        if any(path.requests):
            missed.append('requests')
    elif kind == 'notify':
        text = 'wall <= 4.0x floor; 1 lookup + 1 ping; hook not run'
        if ratio > 4.0:
            missed.append('wall %.2fx' % ratio)
        if any(c != ('lookup', 'ping') for c in path.requests):
            missed.append('requests')
    elif kind == 'records':
        # the same tool and form with one record: what the other records may add
        one = next((p for p in bench.paths if p.name == path.name.replace(
            ' %d records, iface (--all)' % RECORDS, ' iface IPv6')), None)   # None: not run (--rows)
        text = 'wall <= 1.3x one record\'s (iface IPv6 row); 0 requests'
        if one is None or one.wall is None or path.wall > 1.3 * one.wall:
            missed.append('wall %.2fx one record' % (path.wall / one.wall) if one and one.wall
                          else 'no one-record row')
        if any(path.requests):
            missed.append('requests')
    elif kind == 'many':
        one = next((p for p in bench.paths if p.name == '%s unchanged, prefix IPv6 (LAN host)' % label), None)
        text = 'wall <= 2.0x one record\'s (prefix row); 0 requests'
        if one is None or one.wall is None or path.wall > 2.0 * one.wall:
            missed.append('wall %.2fx one record' % (path.wall / one.wall) if one and one.wall
                          else 'no one-record row')
        if any(path.requests):
            missed.append('requests')
    elif kind == 'neigh-busy':
        quiet = next((p for p in bench.paths if p.budget and p.budget[0] == 'neigh-quiet'), None)
        text = 'wall <= 1.3x the same on a %d-entry table; 0 requests' % (RECORDS + 2)
        if quiet is None or quiet.wall is None or path.wall > 1.3 * quiet.wall:
            missed.append('wall %.2fx the quiet table' % (path.wall / quiet.wall) if quiet and quiet.wall
                          else 'no quiet row')
        if any(path.requests):
            missed.append('requests')
    elif kind == 'neigh-quiet':
        text = '0 requests'
        if any(path.requests):
            missed.append('requests')
    elif kind == 'listings':
        text = '<= 10 record listings'
        if any(c.count('list_records') > 10 for c in path.requests):
            missed.append('%d listings' % max(c.count('list_records') for c in path.requests))
    elif kind == 'both':
        text = 'requests: 1 zone lookup, 1 listing, 2 updates%s' % (
            ', no token' if 'auth_file' in adapter_of(label).files else '')
        if any(c != ('list_records', 'list_zones', 'update_record', 'update_record') for c in path.requests):
            missed.append('requests')
    elif kind in ('page-status', 'page-providers'):   # what the LuCI page asks on each load and refresh
        limit = 2.0 if kind == 'page-status' else 3.0
        text = 'wall <= %.1fx floor; 0 requests' % limit
        if ratio > limit:
            missed.append('wall %.2fx' % ratio)
        if any(path.requests):
            missed.append('requests')
    elif kind in ('rpcd-status', 'rpcd-first'):   # CPU: the interpreter rpcd starts for each call
        used, floor_cpu = bench_https.cpu(path), bench_https.cpu(bench.floor_isolated)
        said = 'CPU %.1f ms, %.2fx the -I -S floor\'s %.1f ms' % (used * 1000, used / floor_cpu, floor_cpu * 1000)
        if kind == 'rpcd-first':
            return 'none: what the cache saves', said
        text, said = 'CPU <= 2.0x the -I -S floor\'s; 0 requests', ' (%s)' % said
        if used > 2.0 * floor_cpu:
            missed.append('CPU %.2fx' % (used / floor_cpu))
        if any(path.requests):
            missed.append('requests')
    elif kind == 'changed':   # the provider's own row of a change with stored ids, and the lookup
        adapter = adapter_of(label)
        own = adapter.calls.get('updated with stored ids', adapter.calls['updated'])   # told: no ids
        want = tuple(sorted(own + ['lookup']))
        words = {'get_record': 'read record', 'update_record': 'update'}
        text = 'requests: %s%s' % (' + '.join(['lookup'] + [words.get(c, c) for c in own]),
                                   ', no token' if 'auth_file' in adapter.files else '')
        if any(c != want for c in path.requests):
            missed.append('requests')
    else:
        lookups = len(calls)
        limit = 3.0 * floor.wall + lookups * rtt
        text = 'wall <= 3.0x floor + its lookups (%d x %.1f ms)' % (lookups, rtt * 1000)
        if path.wall > limit:
            missed.append('wall %.1f ms > %.1f ms' % (path.wall * 1000, limit * 1000))
    if path.errors:
        missed.append('runs failed')
    return text, ('MISSED: ' + ', '.join(missed) if missed else 'ok') + said


def one_provider_sizes():
    """{provider module: bytes} of the ddkit command's single file holding that provider alone
    (make standalone PROVIDERS=<name>), built in memory: what a router with one provider copies."""
    return {name: len(standalone.build(os.path.join(ROOT, 'bin', 'ddkit.py'), providers=[name]).encode('utf-8'))
            for name in standalone.registered()}


def packed_providers(path):
    """The provider modules a single file holds (its table of modules, the #% lines)."""
    with open(path, encoding='utf-8') as f:
        return [line.split()[1][len('ddkit.providers.'):] for line in f
                if line.startswith('#% ddkit.providers.')]


def sizes(dist=None):
    """[(file, bytes, budget bytes, verdict)] of dist/*.py, the ddkit command's single file of its
    largest provider alone, and the .ipk files of make feed."""
    rows = []
    dist = dist or os.path.join(ROOT, 'dist')
    for tool in ('updater_a', 'updater_b', 'egress6', 'egress6_win', 'ddkit'):
        path, name, budget = os.path.join(dist, tool + '.py'), 'dist/%s.py' % tool, SINGLE_BUDGET
        if tool == 'ddkit':
            name, budget = name + ' (every provider)', ALL_PROVIDERS_BUDGET
        if os.path.exists(path):
            size = os.path.getsize(path)
            if tool == 'ddkit':
                held = packed_providers(path)
                if len(held) < len(standalone.registered()):   # built with PROVIDERS=: a router's own
                    name, budget = 'dist/%s.py (providers %s)' % (tool, ', '.join(held)), SINGLE_BUDGET
            rows.append((name, size, budget, 'ok' if size <= budget else 'MISSED'))
        else:
            rows.append((name, None, budget, 'not built yet (make standalone)'))
        if tool == 'ddkit':
            largest, size = max(one_provider_sizes().items(), key=lambda item: item[1])
            rows.append(('ddkit.py of one provider, the largest (make standalone PROVIDERS=%s)' % largest, size,
                         SINGLE_BUDGET, 'ok' if size <= SINGLE_BUDGET else 'MISSED'))
    feed = os.path.join(dist, 'feed')
    ipks = sorted(f for f in os.listdir(feed) if f.endswith('.ipk')) if os.path.isdir(feed) else []
    sources = [os.path.join(ROOT, d, f) for d in ('bin', os.path.join('lib', 'ddkit'), 'openwrt',
                                                  os.path.join('openwrt', 'files'))
               for f in os.listdir(os.path.join(ROOT, d)) if os.path.isfile(os.path.join(ROOT, d, f))]
    newest = max(os.path.getmtime(f) for f in sources)
    for name in ipks:
        path = os.path.join(feed, name)
        size = os.path.getsize(path)
        stale = newest > os.path.getmtime(path)
        rows.append(('dist/feed/' + name, size, IPK_BUDGET, ('ok' if size <= IPK_BUDGET else 'MISSED')
                     + (' (built before the last change of its sources: run make feed)' if stale else '')))
    if not ipks:
        rows.append(('dist/feed/*.ipk', None, IPK_BUDGET, 'not built yet (make feed)'))
    return rows


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo') as f:
            cpu = next((l.split(':', 1)[1].strip() for l in f if l.startswith('model name')), cpu)
    except OSError:
        pass
    py = subprocess.run([PY, '-c', 'import sys; print(sys.version.split()[0])'],
                        capture_output=True, text=True).stdout.strip()
    return '%s, %d cores, %s %s, /usr/bin/python3 %s' % (cpu, os.cpu_count() or 0, platform.system(),
                                                         platform.release(), py)


def report(bench, rtt, elapsed):
    floor, isolated = bench.floor, bench.floor_isolated
    floor_modules = set(floor.modules or ())
    lines = ['Ran %s UTC on: %s.' % (time.strftime('%Y-%m-%d %H:%M', time.gmtime()), machine()),
             '%d rounds after a warm-up; medians; the whole bench took %.0f s.%s'
             % (bench.runs, elapsed, ' SMOKE RUN: 1 round, figures meaningless.' if bench.smoke else ''),
             '',
             '| path | wall ms | x floor | x -I -S floor | peak RSS MiB | vs floor | modules | requests '
             '| budget | verdict |',
             '|---|---:|---:|---:|---:|---:|---:|---|---|---|']
    for path in bench.paths:
        if path.https or path.peer:
            continue   # in tables of their own, below
        if path.missing:
            lines.append('| %s | | | | | | | | | %s |' % (path.name, path.missing))
            continue
        text, result = verdict(path, bench, rtt)
        if path.errors:
            result = (result + '; ' if result else '') + 'ERRORS: ' + ' / '.join(path.errors)
        ratio = path.wall / floor.wall
        extra = '' if path is floor else '%+.1f' % ((path.peak - floor.peak) / MiB)
        modules = '' if path.modules is None or path.cmd[0] != PY else str(len(path.modules))
        version = getattr(path, 'version', '')
        name = path.name + (' %s' % version if version else '')
        lines.append('| %s | %.1f | %.2f | %.2f | %.1f | %s | %s | %s | %s | %s |' % (
            name, path.wall * 1000, ratio, path.wall / isolated.wall, path.peak / MiB, extra, modules,
            path.request_summary.replace('|', '/'), text, result))
    lines += bench_https.table(bench, MiB)
    lines += bench_peers.table(bench, MiB)
    lines += ['', '| file | bytes | budget | verdict |', '|---|---:|---:|---|']
    for name, size, budget, result in sizes():
        lines.append('| %s | %s | %s | %s |' % (name, '' if size is None else '{:,}'.format(size),
                                               '{:,}'.format(budget), result))
    lines += ['', 'Modules each path imports beyond the floor\'s %d (from `-X importtime`; -I -S rows beyond '
              'the -I -S floor\'s %d):' % (len(floor_modules), len(isolated.modules or ())), '']
    for path in bench.active():
        if path.modules is None or path.reference or path.peer or path.cmd[0] != PY:
            continue
        base = set((isolated if path.isolated else floor).modules or ())
        extra = [m for m in path.modules if m not in base]
        lines.append('- %s (%d): %s' % (path.name, len(extra), ', '.join(extra)))
    if bench.notes:
        lines += [''] + ['Note: ' + n for n in bench.notes]
    return '\n'.join(lines)


def write_into(path, text):
    """Replace the block between the bench markers of path (create the file when absent)."""
    try:
        with open(path, encoding='utf-8') as f:
            old = f.read()
    except FileNotFoundError:
        old = '# Benchmarks\n\n%s\n%s\n' % (BEGIN, END)
    if BEGIN not in old or END not in old:
        old = old.rstrip('\n') + '\n\n%s\n%s\n' % (BEGIN, END)
    head, rest = old.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(path, 'w', encoding='utf-8') as f:
        f.write('%s%s\n%s\n%s%s' % (head, BEGIN, text, END, tail))


def inner(args, iface_ok, why):
    """Measure and report (inside the namespace when there is one)."""
    started = time.monotonic()
    for need in (PY, GNU_TIME):
        if not os.path.exists(need):
            sys.exit('bench: %s is missing (apt-get install %s)' % (need, 'time' if need == GNU_TIME
                                                                     else 'python3'))
    bench = Bench(1 if args['smoke'] else args['runs'], args['smoke'], iface_ok, why)
    bench.providers, bench.rows = args['providers'], args['rows']
    try:
        bench.build()
        bench.warm_up()
        bench.measure()
        rtt = bench.lookup_rtt()
        text = report(bench, rtt, time.monotonic() - started)
        results = [{'name': p.name, 'table': 'peers' if p.peer else 'https' if p.https else 'main',
                    'budget': list(p.budget) if p.budget else None, 'outcomes': [list(o) for o in p.outcomes],
                    'missing': p.missing, 'wall': p.wall, 'rss': p.peak,
                    'cpu': bench_https.cpu(p), 'connections': [list(c) for c in p.connections],
                    'requests': [list(c) for c in p.requests], 'errors': p.errors,
                    'modules': p.modules, 'verdict': verdict(p, bench, rtt)[1] if not p.missing else None}
                   for p in bench.paths]
    finally:
        bench.stop()
    print(text)
    if args['write']:
        write_into(args['write'], text)
        print('\n(written into %s)' % args['write'])
    if args['json']:
        with open(args['json'], 'w') as f:
            json.dump(results, f, indent=1)
    return 0


def parse(argv):
    args = {'runs': 20, 'smoke': False, 'write': None, 'json': None, 'inner': False, 'providers': None,
            'rows': None}
    argv = list(argv)
    while argv:
        arg = argv.pop(0)
        if arg == '--providers' and argv:
            args['providers'] = set(argv.pop(0).split(','))
            unknown = sorted(args['providers'] - {a.provider for a in ALL})
            if unknown:
                sys.exit('bench: --providers: unknown %s; known: %s' % (', '.join(unknown),
                                                                       ', '.join(a.provider for a in ALL)))
        elif arg == '--rows' and argv:
            args['rows'] = [text for text in argv.pop(0).split(';') if text]
        elif arg in ('--runs', '--write', '--json') and argv:
            value = argv.pop(0)
            args[arg[2:]] = int(value) if arg == '--runs' else value
        elif arg in ('--smoke', '--inner'):
            args[arg[2:]] = True
        else:
            sys.exit(__doc__.strip().splitlines()[-1])
    if args['runs'] < 1:
        sys.exit('bench: --runs must be at least 1')
    return args


def main(argv):
    args = parse(argv)
    if args['inner']:
        return inner(args, True, None)
    why = Netns.possible()
    if why:
        print('bench: running without a network namespace (%s): the iface and egress6 paths are skipped'
              % why, file=sys.stderr)
        return inner(args, False, why)
    # the whole bench runs inside the namespace: tools, floor and fakes alike, and nothing can
    # reach the internet from there
    with Netns() as ns:
        return subprocess.call(ns.wrap([sys.executable, os.path.abspath(__file__), '--inner']
                                       + list(argv)))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
