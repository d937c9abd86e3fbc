"""The soak's parts: a plan of runs drawn from a seed (what happens to the router and to the world in
each run), the means to bring each event about, and the invariants every run must keep."""

import ipaddress
import os
import pathlib
import pwd
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import conftest
import needs
from conftest import GUARD_MARK, RECORD, tool_path
from fakes.base import Reply
from faultkit import fill, make_rig, mount_tmpfs, remount

FIRST = '81.2.70.100'    # the record's address before the first run
# every address in play ends in three digits: a state file cut short never names one of them
ADDRESS = '81.2.70.%d'
LIE = '81.2.71.%d'
RATES = {'move': 0.55, 'back': 0.5, 'reset': 0.08, 'lookup': 0.12, 'fault': 0.4, 'revoke': 0.2,
         'kill': 0.12, 'pair': 0.08, 'state': 0.2, 'corrupt': 0.15}
LOOKUP_FAULTS = ['down', 'down', 'close', 'lie', 'lie']
# a write's own faults come first: they are where a run and the provider disagree afterwards
WRITE_FAULTS = ['lost', 'lost', 'done502', 'done502', 'status', '429', 'close', 'malformed', 'hang']
READ_FAULTS = ['status', 'status', '429', 'close', 'malformed', 'hang']
STATE_FAULTS = ['sealed', 'sealed', 'readonly', 'full', 'nobody']
SEEN_FAULTS = ('lost', 'done502', 'kill')   # the provider takes the request, then its answer goes wrong
TIMEOUT = '2'            # DDNS_TIMEOUT of a run
HANG_TIMEOUT, HANG = '1', 1.5   # a hanging provider: the run's timeout, and the hang just past it
RUN_BOUND = 30           # seconds: no run may take longer, whatever breaks
LOG_MAX = 64 * 1024
LOG_LINE = re.compile(r'\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] - .*\Z')
LOG_START = 48 * 1024    # an earlier log this large: the soak's runs cross LOG_MAX
TRACEBACK = 'Traceback (most recent call last)'
ID_LINES = re.compile(rb'[A-Za-z0-9_.-]+\n[A-Za-z0-9_.-]+\n\Z')


def require():
    """Skip (fail under CI=true) where the soak cannot run: it mounts, seals and runs as nobody."""
    if os.name != 'posix' or os.geteuid() != 0:
        needs.missing('the soak needs root: a tmpfs state directory, chattr, runs as nobody')
    for program in ('setpriv', 'chattr', 'mount'):
        if not shutil.which(program):
            needs.missing('the soak needs %s (util-linux, e2fsprogs)' % program)


class Step:
    """One run of the plan: the events drawn for it."""

    def __init__(self, number, ip):
        self.number, self.ip = number, ip
        self.moved = None      # 'new' or 'back': the public IP changed before this run
        self.reset = False     # the record deleted by hand, the router's state files gone
        self.lookup = None     # 'down' (5xx), 'close' (dropped), 'lie' (another valid address)
        self.lookup_times = 0  # requests the lookup's fault spoils
        self.lie = None
        self.fault = None      # (provider step, kind, times, options)
        self.revoke = False    # B: the cached token revoked at the provider
        self.kill = None       # 'after write', or the moment as a share of a typical run
        self.pair = False      # two runs at once
        self.state = None      # the state directory: 'sealed', 'readonly', 'full', or 'nobody' runs
        self.corrupt = None    # (file, 'garbage' | 'truncated' | 'empty', seed of its bytes)

    @property
    def answer(self):
        """The address the lookup gives in this run."""
        return self.lie or self.ip

    @property
    def hangs(self):
        return bool(self.fault) and self.fault[1] == 'hang'

    def kinds(self):
        """The kinds of its events, for a tally."""
        found = ['ip %s' % self.moved] if self.moved else []
        found += ['reset'] * self.reset + ['token revoked'] * self.revoke + ['pair'] * self.pair
        if self.lookup:
            found.append('lookup %s' % self.lookup)
        if self.fault and self.kill != 'after write':
            found.append('fault %s %s' % self.fault[:2])
        if self.kill is not None:
            found.append('kill %s' % ('after write' if self.kill == 'after write' else 'at random'))
        if self.state:
            found.append('state %s' % self.state)
        if self.corrupt:
            found.append('%s file %s' % self.corrupt[:2])
        return found

    def events(self):
        """The events, in words, for a failure's message."""
        said = ['ip %s%s' % (self.ip, ' (%s)' % self.moved if self.moved else '')]
        if self.reset:
            said.append('record deleted and state files gone')
        if self.lookup:
            said.append('lookup %s%s' % (self.lookup, ' %s' % self.lie if self.lie else
                                         ' x%d' % self.lookup_times))
        if self.fault and self.kill != 'after write':
            route, kind, times, options = self.fault
            said.append('fault %s %s x%d%s' % (route, kind, times, ' %s' % options if options else ''))
        if self.revoke:
            said.append('token revoked')
        if self.kill is not None:
            said.append('SIGKILL %s' % (self.kill if self.kill == 'after write' else
                                        'at %.2f of a run' % self.kill))
        if self.pair:
            said.append('two runs at once')
        if self.state:
            said.append('state dir %s' % self.state)
        if self.corrupt:
            said.append('%s file %s' % self.corrupt[:2])
        return '; '.join(said)


def plan(tool, seed, runs):
    """The steps of one seed, drawn from it alone (never from what the runs do): the seed reproduces
    them."""
    rnd = random.Random(seed)
    fresh = iter(range(101, 255))
    recent, ip, steps = [FIRST], FIRST, []
    reads = ['token', 'zones', 'records'] if tool == 'B' else ['zones', 'records', 'read']
    files = ['ip', 'ids', 'auth'] if tool == 'B' else ['ip', 'ids']
    for number in range(1, runs + 1):
        moved = None
        if rnd.random() < RATES['move']:
            # back to one of the last addresses: what a stale ip file still claims
            earlier = [a for a in recent[-4:] if a != ip]
            if earlier and rnd.random() < RATES['back']:
                ip, moved = rnd.choice(earlier), 'back'
            else:
                ip, moved = ADDRESS % next(fresh), 'new'
            recent = [a for a in recent if a != ip] + [ip]
        step = Step(number, ip)
        step.moved = moved
        step.reset = rnd.random() < RATES['reset']
        if rnd.random() < RATES['lookup']:
            step.lookup = rnd.choice(LOOKUP_FAULTS)
            if step.lookup == 'lie':
                step.lie = rnd.choice([a for a in recent if a != ip] + [LIE % rnd.randrange(100, 255)])
            else:   # 'down' spoils every try (no valid IP); 'close' one (retried) or all three
                step.lookup_times = 3 if step.lookup == 'down' else rnd.choice([1, 3])
        write = 'create' if step.reset else 'update'
        if rnd.random() < RATES['fault']:
            route = write if rnd.random() < 0.6 else rnd.choice(reads)
            step.fault = provider_fault(rnd, route, WRITE_FAULTS if route == write else READ_FAULTS)
        if tool == 'B':
            step.revoke = rnd.random() < RATES['revoke']
        if rnd.random() < RATES['kill']:
            if rnd.random() < 0.5:
                step.kill, step.fault = 'after write', (write, 'kill', 1, {})
            else:
                step.kill = rnd.uniform(0.0, 1.5)
        step.pair = step.kill is None and rnd.random() < RATES['pair']
        # two runs at once matter most where both would create: the lock is what keeps it one
        step.reset = step.reset or (step.pair and rnd.random() < 0.5)
        if rnd.random() < RATES['state']:
            step.state = rnd.choice(STATE_FAULTS)
        if rnd.random() < RATES['corrupt']:
            step.corrupt = (rnd.choice(files), rnd.choice(['garbage', 'truncated', 'empty']),
                            rnd.randrange(1 << 30))
        steps.append(step)
    return steps


def provider_fault(rnd, route, kinds):
    """(route, kind, times, options) of one provider fault."""
    kind = rnd.choice(kinds)
    if kind == 'status':   # Retry-After 0 mostly: a run waits a second for each retry without one
        return (route, kind, rnd.choice([1, 1, 2, 3]),
                dict({'status': rnd.choice([500, 502, 503])}, **({'retry_after': 0} if rnd.random() < 0.75 else {})))
    if kind == '429':
        return route, 'status', rnd.choice([1, 2]), {'status': 429, 'retry_after': rnd.choice([0, 0, 1])}
    return route, kind, 1, {}


class Outcome:
    """One run as it ended: exit status, output, and how."""

    def __init__(self, returncode, stdout, stderr, seconds, overran):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.seconds, self.overran = seconds, overran

    @property
    def killed(self):
        return self.returncode == -signal.SIGKILL and not self.overran

    @property
    def output(self):
        return self.stdout + self.stderr


class Soak:
    """One tool's rig with its state directory on a small tmpfs, run step by step."""

    def __init__(self, tool, seed, runs):
        self.tool, self.seed, self.runs = tool, seed, runs
        # under /tmp and 0755 all the way: a run as nobody reaches the state directory
        self.base = tempfile.mkdtemp(prefix='ddkit-soak-', dir='/tmp')
        os.chmod(self.base, 0o755)
        self.rig = make_rig(tool, pathlib.Path(self.base))
        self.unmount = mount_tmpfs(self.rig.state_dir, size='1m')
        self.files = {'ip': self.rig.ip_name, 'ids': self.rig.ids_name}
        if tool == 'B':
            self.files['auth'] = self.rig.auth_name
        self.victim = []          # the run a kill after its write stops
        self.durations = []       # of healthy single runs: when a random kill lands
        self.checked = {}         # server -> requests whose URLs were searched for secrets
        self.sealed = False
        user = pwd.getpwnam('nobody')
        self.nobody = ['setpriv', '--reuid=%d' % user.pw_uid, '--regid=%d' % user.pw_gid, '--clear-groups']
        # what nobody runs: a copy, as the checkout may lie in a directory closed to others (0700)
        self.for_others = conftest.copy_for_others(os.path.join(self.base, 'for-others'))
        self.store = self.rig.provider.records if tool == 'A' else self.rig.provider.recordsets
        self.add_record(FIRST)
        # DoH answers what the provider holds, as a resolver past the record's TTL does
        self.rig.box.doh.names = Resolved(self)
        line = '[2026-01-01 00:00:00] - an earlier run\n'
        self.write(self.rig.log_name, line.encode() * (LOG_START // len(line)))

    def close(self):
        if self.sealed:
            subprocess.run(['chattr', '-i', self.rig.state_dir], capture_output=True)
        self.unmount()
        self.rig.box.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    # --- the world ------------------------------------------------------------------------------
    def add_record(self, ip):
        if self.tool == 'A':
            self.rig.provider.add_record(self.rig.zone_id, RECORD, 'A', ip, ttl=300)
        else:
            self.rig.provider.add_record(self.rig.zone_id, RECORD, 'A', [ip], ttl=120)

    def held(self):
        """The addresses of each record of the name at the provider (DoH asks too, from its own thread:
        list() copies the records at once)."""
        found = [r for r in list(self.store.values()) if r['name'].rstrip('.') == RECORD and r['type'] == 'A']
        return [[r['content']] if self.tool == 'A' else list(r['records']) for r in found]

    def path(self, name):
        return os.path.join(self.rig.state_dir, name)

    def write(self, name, data):
        """A state file's bytes as something else left them (its mode kept, new ones 0600)."""
        fd = os.open(self.path(name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'wb') as f:
            f.write(data)

    def read(self, name):
        try:
            with open(self.path(name), 'rb') as f:
                return f.read()
        except FileNotFoundError:
            return None

    def tmp_names(self):
        return {name for name in os.listdir(self.rig.state_dir) if '.tmp' in name}

    def writes(self):
        """(creates, updates) the provider has received."""
        return len(self.rig.provider.calls('create_record')), len(self.rig.provider.calls('update_record'))

    # --- one step -------------------------------------------------------------------------------
    def perform(self, step):
        """Bring the step's events about, run; (what broke, empty when every invariant held; the runs)."""
        self.prepare(step)
        before = {name: self.read(name) for name in self.files.values()}, self.tmp_names(), self.writes()
        queued = self.queued()
        self.condition(step.state, True)
        try:
            outcomes = self.launch(step)
        finally:
            self.condition(step.state, False)
        fired = {server: queued[server] - len(server.faults) for server in queued}
        self.rig.heal()
        self.rig.runs += outcomes
        return self.verdict(step, outcomes, before, fired), outcomes

    def prepare(self, step):
        rig = self.rig
        if step.reset:
            for record in rig.provider.find(RECORD):
                del self.store[record['id']]
            for name in self.files.values():
                if os.path.exists(self.path(name)):
                    os.unlink(self.path(name))
        if step.corrupt:
            which, kind, seed = step.corrupt
            self.write(self.files[which], damaged(self.read(self.files[which]) or b'', kind, random.Random(seed)))
        rig.box.lookup.answer = step.answer
        if step.lookup in ('down', 'close'):
            options = {'status': 503, 'retry_after': 0} if step.lookup == 'down' else {}
            rig.fail('lookup', 'status' if step.lookup == 'down' else 'close', step.lookup_times, **options)
        if step.revoke:
            rig.provider.revoke()
        if step.fault:
            route, kind, times, options = step.fault
            if kind == 'kill':
                rig.fail(route, 'rewrite', answer=self.kill_victim)
            elif kind == 'done502':
                rig.fail(route, 'rewrite', answer=done_then_502)
            else:
                rig.fail(route, kind, times, **dict(options, **({'seconds': HANG} if kind == 'hang' else {})))

    def kill_victim(self, reply):
        """A 'rewrite' answer: once the provider has taken the write, the run dies before its answer."""
        if reply.status < 300:
            os.kill(self.victim[0].pid, signal.SIGKILL)
        return reply

    def queued(self):
        return {server: len(server.faults) for server in self.rig.box.servers}

    def condition(self, state, on):
        """Make the state directory what the step says for its run (on), or writable again."""
        directory = self.rig.state_dir
        if state == 'readonly':
            remount(directory, 'ro' if on else 'rw')
        elif state == 'sealed':   # files in it can be written in place, none made, renamed or removed
            subprocess.run(['chattr', '+i' if on else '-i', directory], check=True, capture_output=True)
            self.sealed = on
        elif state == 'full' and on:
            fill(os.path.join(directory, 'filler'))
        elif state == 'full':
            os.unlink(os.path.join(directory, 'filler'))

    def launch(self, step):
        """Run the tool (twice at once for a pair), killed when the plan says so."""
        argv, env = command(self.rig, self.nobody if step.state == 'nobody' else (),
                            {'DDNS_TIMEOUT': HANG_TIMEOUT if step.hangs else TIMEOUT},
                            self.for_others if step.state == 'nobody' else None)
        procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2 if step.pair else 1)]
        self.victim[:] = procs[:1]
        if isinstance(step.kill, float):
            typical = statistics.median(self.durations[-10:]) if self.durations else 0.1
            return [finish(procs[0], step.kill * typical)]
        outcomes = [finish(proc) for proc in procs]
        if self.healthy(step, outcomes, None):
            self.durations.append(outcomes[0].seconds)
        return outcomes

    def healthy(self, step, outcomes, fired):
        """No fault reached the run (fired None: none asked for), its state directory writable, no
        kill, no second run: it must succeed."""
        provider_faults = step.fault if fired is None else fired[self.rig.provider]
        lookup_faults = step.lookup in ('down', 'close') if fired is None else fired[self.rig.box.lookup]
        return not (provider_faults or lookup_faults or step.state or step.pair
                    or any(o.killed or o.overran for o in outcomes))

    # --- the invariants -------------------------------------------------------------------------
    def verdict(self, step, outcomes, before, fired):
        """Every invariant the step broke, in words."""
        files_before, tmp_before, (creates_before, updates_before) = before
        creates, updates = self.writes()
        held = self.held()
        answer = step.answer
        holds = held == [[answer]]
        wrote = creates - creates_before + updates - updates_before
        no_ip = step.lookup in ('down', 'close') and fired[self.rig.box.lookup] and not wrote
        broke = []
        for i, o in enumerate(outcomes):
            run = 'run' if len(outcomes) == 1 else 'run %d of the pair' % (i + 1)
            if TRACEBACK in o.output:
                broke.append('1 (no traceback): the %s printed one' % run)
            if GUARD_MARK in o.output:
                broke.append('import guard: the %s imported a module its package lacks' % run)
            if o.overran:
                broke.append('bounded: the %s was still going after %d s' % (run, RUN_BOUND))
            if o.returncode == 0 and not holds and not (no_ip and 'No valid IP' in o.output):
                broke.append('2 (exit 0 only when the record holds the lookup\'s IP): the %s exited 0, the '
                             'lookup gave %s, the provider holds %s' % (run, answer, held))
        if self.healthy(step, outcomes, fired) and (outcomes[0].returncode != 0 or not holds):
            broke.append('4 (a healthy run succeeds): exit %d, the lookup gave %s, the provider holds %s'
                         % (outcomes[0].returncode, answer, held))
        broke += self.whole_files(files_before, tmp_before, killed=any(o.killed for o in outcomes))
        # a create a fault answered before the provider saw it was no create: sent again, it is not
        # the second of one (a 429 says the provider did nothing)
        unseen = fired[self.rig.provider] if step.fault and step.fault[0] == 'create' and \
            step.fault[1] not in SEEN_FAULTS else 0
        if creates - creates_before - unseen > 1:
            broke.append('5 (one create a run at most): %d creates reached the provider'
                         % (creates - creates_before - unseen))
        if len(held) > 1:
            broke.append('5 (one record of the name): the provider holds %d: %s' % (len(held), held))
        broke += self.log_kept()
        leaked = self.leaks(outcomes)
        if leaked:
            broke.append('7 (no secret): a secret in %s' % ', '.join(leaked))
        return broke

    def whole_files(self, files_before, tmp_before, killed):
        """Invariant 3: each state file as it was or whole; no temporary file of a run not killed."""
        broke = []
        for which, name in self.files.items():
            data = self.read(name)
            if data is None or data == files_before[name] or self.whole(which, data):
                continue
            broke.append('3 (state files whole): the %s file holds %r' % (which, data[:120]))
        left = sorted(self.tmp_names() - tmp_before)
        if left and not killed:
            broke.append('3 (no temporary file left): %s' % left)
        return broke

    def whole(self, which, data):
        if which == 'ids':
            return bool(ID_LINES.match(data))
        try:
            text = data.decode('ascii')
        except UnicodeDecodeError:
            return False
        if which == 'auth':
            return self.rig.token_line_ok(text)
        try:
            ipaddress.ip_address(text[:-1])
        except ValueError:
            return False
        return text.endswith('\n') and text.count('\n') == 1

    def log_kept(self):
        """Invariant 6: the log at most LOG_MAX bytes, each line `[date time] - message`."""
        data = self.read(self.rig.log_name)
        if data is None:
            return []
        broke = ['6 (log bounded): %d bytes' % len(data)] if len(data) > LOG_MAX else []
        lines = data.decode('utf-8', 'replace').split('\n')
        bad = [line for line in lines[:-1] if not LOG_LINE.match(line)] + [lines[-1]] * bool(lines[-1])
        if bad:
            broke.append('6 (log lines dated): %d lines are not, e.g. %r' % (len(bad), bad[0][:120]))
        return broke

    def leaks(self, outcomes):
        """Invariant 7 for what this step added: where a secret shows (outputs, URLs, files)."""
        rig = self.rig
        places = [('output of a run', o.output) for o in outcomes]
        for server in rig.box.servers:
            start, self.checked[server] = self.checked.get(server, 0), len(server.requests)
            places += [('URL at %s' % r.route, r.path + '?' + repr(r.query)) for r in server.requests[start:]]
        for name in os.listdir(rig.state_dir):
            # the token file holds the token, and so does a copy a run killed while writing it left
            # (the next write removes it): both its owner's alone
            if name in rig.token_names or name.partition('.tmp')[0] in rig.token_names and '.tmp' in name:
                if os.stat(self.path(name)).st_mode & 0o077:
                    places.append(('%s, readable by others' % name, ''.join(rig.secrets)))
                continue
            places.append((name, (self.read(name) or b'').decode('utf-8', 'replace')))
        if os.path.exists(rig.argv_log):
            with open(rig.argv_log) as f:
                places.append(('argv of a child process', f.read()))
        secrets = rig.secrets
        return sorted({where for where, text in places for secret in secrets if secret in text})

    def message(self, step, broke, outcomes):
        """What a failure says: how to reproduce it, the events, what broke, and the runs' output."""
        said = ['soak of updater %s, seed %d (DDKIT_SOAK_SEED=%d), run %d of %d: %s' % (
            self.tool, self.seed, self.seed, step.number, self.runs, step.events())]
        said += ['  invariant %s' % b for b in broke]
        for o in outcomes:
            said.append('  --- exit %s after %.2f s ---\n%s' % (o.returncode, o.seconds, o.output[-3000:]))
        return '\n'.join(said)


class Resolved:
    """DoH's names: the addresses the provider holds now (DoH.resolve asks names.get)."""

    def __init__(self, soak):
        self.soak = soak

    def get(self, key, default=None):
        if key != (RECORD, 'A'):
            return default
        held = self.soak.held()
        return held[0] if held else default


def damaged(data, kind, rnd):
    """A state file's bytes as a fault leaves them: random garbage, cut short, or empty."""
    if kind == 'empty':
        return b''
    if kind == 'truncated':   # a proper prefix of its text: never an address in play
        text = data.rstrip(b'\n')
        return text[:rnd.randrange(len(text))] if text else b''
    return bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 64)))


def done_then_502(reply):
    """A 'rewrite' answer: the provider took the write, its gateway answered 502."""
    if reply.status < 300:
        return Reply(502, text='Bad Gateway', headers={'Retry-After': '0'})
    return reply


def command(rig, prefix, env, copy=None):
    """argv and environment of one run of the tool, as Rig.run and run_tool make them; copy: the tool's
    copy to run instead (conftest.copy_for_others)."""
    path, guard = copy(rig.tool) if copy else (tool_path(rig.tool), conftest.import_guard(rig.tool))
    full = {k: v for k, v in os.environ.items() if not k.startswith('DDNS_')}
    full.update(guard)
    full.update(rig.env())
    full.update(env)
    full.update({'PYTHONPATH': os.pathsep.join(p for p in (rig.bin, guard.get('PYTHONPATH')) if p),
                 'FAULTS_ARGV_LOG': rig.argv_log,
                 'PATH': rig.bin + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin')})
    return list(prefix) + [sys.executable, path], full


def finish(proc, kill_at=None):
    """Wait for a run, or SIGKILL it kill_at seconds after its start (kill_at None: RUN_BOUND)."""
    started = time.monotonic()
    overran = False
    try:
        out, err = proc.communicate(timeout=RUN_BOUND if kill_at is None else kill_at)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        overran = kill_at is None
    return Outcome(proc.returncode, out, err, time.monotonic() - started, overran)
