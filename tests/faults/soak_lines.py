"""The lines soak's parts: a home with three operator lines (China Telecom 240e, Mobile 2409, Unicom
2408) in a network namespace, and seeded random runs of `ddkit --lines ct cm cu` as the home meets the
world: a line goes down (its prefix withdrawn) and comes back, a prefix is renumbered, the state
directory is lost (a reboot with state_dir in RAM), the provider fails a request (5xx, a dropped
connection, a write taken but its answer lost), a run is killed. After every run the invariants of
LinesSoak.verdict hold: a run that exits 0 leaves the provider holding each live line's address on
its line and nothing of a line that is down; a healthy run exits 0; a run after a good one, nothing
having changed, makes no request."""

import random
import subprocess
import sys
import time

from conftest import GUARD_MARK, import_guard, tool_path

RECORD = 'home.example.com'
PREFIXES = {'ct': '240e:1:2:%x', 'cm': '2409:8a00:1:%x', 'cu': '2408:8000:1:%x'}
RATES = {'down': 0.2, 'up': 0.5, 'renumber': 0.1, 'lost': 0.15, 'fault': 0.25, 'kill': 0.08}
FAULTS = [('status', {'status': 500, 'retry_after': 0}), ('status', {'status': 503, 'retry_after': 0}),
          ('close', {}), ('lost', {})]
TRACEBACK = 'Traceback (most recent call last)'


class Step:
    """One run of the plan: the lines' addresses for it, and the events drawn."""

    def __init__(self, number, addresses):
        self.number = number
        self.addresses = dict(addresses)   # code -> address, or None: the line is down
        self.changed = []                  # the lines' events, in words
        self.lost = False                  # the state directory emptied before the run
        self.fault = None                  # (kind, options, times)
        self.kill = None                   # the moment, as a share of a typical run

    def events(self):
        said = ['lines %s' % ', '.join('%s %s' % (c, a or 'down') for c, a in sorted(self.addresses.items()))]
        said += self.changed + ['state directory lost'] * self.lost
        if self.fault:
            said.append('provider fault %s x%d' % (self.fault[0], self.fault[2]))
        if self.kill is not None:
            said.append('SIGKILL at %.2f of a run' % self.kill)
        return '; '.join(said)


def plan(seed, runs):
    """The steps of one seed, drawn from it alone."""
    rnd = random.Random(seed)
    renumbered = iter(range(0x10, 0xffff))
    addresses = {code: (prefix % 3) + '::10' for code, prefix in PREFIXES.items()}
    steps = []
    for number in range(1, runs + 1):
        step = Step(number, addresses)
        for code in sorted(PREFIXES):
            if addresses[code] and rnd.random() < RATES['down']:
                addresses[code] = None
                step.changed.append('%s went down' % code)
            elif addresses[code] is None and rnd.random() < RATES['up']:
                addresses[code] = (PREFIXES[code] % next(renumbered)) + '::10'
                step.changed.append('%s came back' % code)
            elif addresses[code] and rnd.random() < RATES['renumber']:
                addresses[code] = (PREFIXES[code] % next(renumbered)) + '::10'
                step.changed.append('%s renumbered' % code)
        step.addresses = dict(addresses)
        step.lost = rnd.random() < RATES['lost']
        if rnd.random() < RATES['fault']:
            kind, options = rnd.choice(FAULTS)
            step.fault = (kind, options, rnd.choice([1, 1, 2]) if kind == 'status' else 1)
        if rnd.random() < RATES['kill']:
            step.kill = rnd.uniform(0.1, 1.2)
        steps.append(step)
    return steps


def expected(names, addresses):
    """What the provider should hold: {line name: [address]} ({None: every address} at a provider
    without lines; names: its LINES, or None) for the lines that have an address; the default line
    gets the first of ct, cm, cu that has one."""
    held = {code: ip for code, ip in addresses.items() if ip}
    if not names:
        return {None: sorted(held.values())} if held else {}
    found = {names[code]: [ip] for code, ip in held.items()}
    for code in ('ct', 'cm', 'cu'):
        if code in held:
            found[names['default']] = [held[code]]
            break
    return found


class LinesSoak:
    """A provider's fake started inside the lab's router namespace, whose interface (wan<seed>) holds the
    lines' addresses; one state directory, lost when a step says so."""

    def __init__(self, lab, tmp_path, adapter, seed, runs):
        import netns
        from sandbox import Sandbox
        self.lab, self.adapter, self.seed, self.runs = lab, adapter, seed, runs
        self.wan = 'wan%d' % seed   # a seed's own interface: the lab serves the seeds of a test
        lab.link(self.wan, [])
        adapter.needs()
        with netns.inside(lab.host):   # its fake (started on first use) serves inside the namespace
            self.box = Sandbox()
            self.fake = self.box.fakes[adapter.provider]
        self.names = getattr(adapter.module(), 'LINES', None)
        self.state = tmp_path / 'state'
        self.state.mkdir(mode=0o700, parents=True)
        self.env = dict(adapter.env(self.box, self.state), DDNS_PROVIDER=adapter.provider, DDNS_RECORD_TYPE='AAAA',
                        DDNS_RECORD_NAME=RECORD, DDNS_IP_SOURCE='iface:' + self.wan, DDNS_LINES='ct cm cu',
                        DDNS_TIMEOUT='2')
        self.on_wan = set()
        self.durations = []
        self.good = False   # the last run succeeded, unkilled: a next run with nothing changed is quiet

    def close(self):
        self.box.stop()

    def held(self):
        return {line: values for line, values in self.fake.by_line(RECORD, 'AAAA').items() if values}

    def perform(self, step):
        """Bring the step's events about, run; (what broke, empty when every invariant held; the run)."""
        import netns
        for address in sorted(self.on_wan - set(step.addresses.values())):
            netns.sh(['ip', '-n', self.lab.host, 'addr', 'del', address + '/64', 'dev', self.wan])
        for address in sorted(set(a for a in step.addresses.values() if a) - self.on_wan):
            self.lab.add_address(self.wan, address)
        self.on_wan = set(a for a in step.addresses.values() if a)
        if step.lost:
            for path in self.state.iterdir():
                path.unlink()
        if step.fault:
            kind, options, times = step.fault
            self.fake.fail(kind, times=times, **options)
        quiet = self.good and not step.changed and not step.lost and not step.fault
        before = len(self.fake.requests)
        run = self.launch(step)
        requests = len(self.fake.requests) - before
        self.fake.faults.clear()
        held, wanted = self.held(), expected(self.names, step.addresses)
        if not wanted and sum(map(len, held.values())) == 1:   # no line has an address: the default
            held = {}                                          # line's record is kept as it is
        broke = []
        if TRACEBACK in run.output or GUARD_MARK in run.output:
            broke.append('no traceback, no import outside the package: the run printed one')
        if run.returncode == 0 and held != wanted:
            broke.append('exit 0 only when the provider holds each live line\'s address and nothing of a '
                         'line that is down: it holds %s, the lines want %s' % (held, wanted))
        if not step.fault and run.returncode != 0 and not run.killed:
            broke.append('a healthy run succeeds: exit %s' % run.returncode)
        if quiet and not run.killed and requests:
            broke.append('a run after a good one, nothing changed, makes no request: it made %d' % requests)
        self.good = run.returncode == 0
        return broke, run

    def launch(self, step):
        argv = self.lab.prefix() + [sys.executable, tool_path('ddkit')]
        env = dict(self.env, **import_guard('ddkit'))
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started = time.monotonic()
        killed = False
        if step.kill is not None:
            typical = sorted(self.durations)[len(self.durations) // 2] if self.durations else 0.3
            try:
                proc.wait(timeout=step.kill * typical)
            except subprocess.TimeoutExpired:
                proc.kill()
                killed = True
        out, err = proc.communicate(timeout=60)
        if not killed and not step.fault:
            self.durations.append(time.monotonic() - started)
        return Run(proc.returncode, out + err, killed)

    def message(self, step, broke, run):
        said = ['lines soak at %s, seed %d (DDKIT_SOAK_SEED=%d), run %d of %d: %s' % (
            self.adapter.provider, self.seed, self.seed, step.number, self.runs, step.events())]
        said += ['  invariant: %s' % b for b in broke]
        said.append('  --- exit %s%s ---\n%s' % (run.returncode, ' (killed)' if run.killed else '', run.output[-3000:]))
        return '\n'.join(said)


class Run:
    def __init__(self, returncode, output, killed):
        self.returncode, self.output, self.killed = returncode, output, killed
