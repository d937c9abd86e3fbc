"""The fault matrix's rig: one updater (A or B) against its sandbox, how to break it, and the checks
every row makes (exit status, message, state files, record at the fake, healing, no secret leaked)."""

import os
import socket
import subprocess
import textwrap

import pytest

import conftest
import needs
from conftest import FULL, RECORD, ZONE, Sandbox, run_tool

OLD, NEW = '81.2.69.1', '81.2.69.10'
KEY = 'Ak3y-' + 'q7Z' * 11                  # provider A's global key: distinctive, easy to grep
PASSWORD = 'Pw0rd-' + 'x9Y' * 8             # provider B's password


class Rig:
    """One tool, its sandbox and a state directory; subclasses name the provider's routes."""

    tool = None
    routes = {}           # abstract step -> route name at the provider's fake

    def __init__(self, box, state_dir, tmp):
        self.box, self.state_dir, self.tmp = box, str(state_dir), str(tmp)
        self.runs = []
        self.argv_log = os.path.join(self.tmp, 'child-argv.log')
        self.bin = os.path.join(self.tmp, 'stand-ins')
        _stand_ins(self.bin, self.argv_log)

    # --- running -------------------------------------------------------------------------------
    def env(self):
        raise NotImplementedError

    def run(self, *args, env=None, drop=(), timeout=60, prefix=()):
        """Run the real tool with the sandbox's settings; children's argv are logged (audit hook)."""
        full = self.env()
        full.update(env or {})
        for name in drop:
            full.pop(name, None)
        guard = getattr(conftest, 'import_guard', lambda tool: {})(self.tool).get('PYTHONPATH')
        full.update({'PYTHONPATH': os.pathsep.join(p for p in (self.bin, guard) if p),
                     'FAULTS_ARGV_LOG': self.argv_log,
                     'PATH': self.bin + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin')})
        done = run_tool(self.tool, list(args), env=full, timeout=timeout, prefix=prefix)
        self.runs.append(done)
        return done

    # --- breaking ------------------------------------------------------------------------------
    def where(self, step):
        """(server, route name) of one step: lookup, doh, or a provider step (zones, update, ...)."""
        if step == 'lookup':
            return self.box.lookup, 'lookup'
        if step == 'doh':
            return self.box.doh, 'resolve'
        return self.provider, self.routes[step]

    def fail(self, step, kind, times=1, **options):
        """Make the next `times` requests of one step fail in one way (FakeServer.fail kinds)."""
        server, route = self.where(step)
        server.fail(kind, route, times, **options)

    def heal(self):
        for server in self.box.servers:
            server.faults.clear()

    def calls(self, step):
        server, route = self.where(step)
        return len(server.calls(route))

    def seed(self, ip_file=True, ids_file=False):
        """The record holds OLD; the lookup says NEW; state as a previous run left it."""
        self.rid = self.add_old_record()
        self.box.doh.names[(RECORD, 'A')] = [OLD]
        self.box.lookup.answer = NEW
        if ip_file:
            self.write(self.ip_name, OLD + '\n')
        if ids_file:
            self.write(self.ids_name, '%s\n%s\n' % (self.zone_id, self.rid))

    def write(self, name, text):
        """Put a state file in place, as a previous run (or a fault) left it."""
        with open(os.path.join(self.state_dir, name), 'w' if isinstance(text, str) else 'wb') as f:
            f.write(text)

    # --- looking -------------------------------------------------------------------------------
    def ids_text(self):
        """The ids file a correct run writes: zone id, then the id of the record now at the fake."""
        return '%s\n%s\n' % (self.zone_id, self.provider.find(RECORD)[0]['id'])

    def ids_ok(self):
        return self.read(self.ids_name) == self.ids_text()

    def updates(self):
        """Writes that reached the provider: updates and creations."""
        return len(self.provider.calls('update_record')) + len(self.provider.calls('create_record'))

    def read(self, name):
        path = os.path.join(self.state_dir, name)
        try:
            with open(path) as f:
                return f.read()
        except FileNotFoundError:
            return None

    def ip_state(self):
        text = self.read(self.ip_name)
        return text.strip() if text else text

    def output(self, done):
        return done.stdout + done.stderr

    def places(self):
        """Every place a secret must never appear: (where, text)."""
        for i, done in enumerate(self.runs):
            yield 'stdout of run %d' % i, done.stdout
            yield 'stderr of run %d' % i, done.stderr
        for root, _, names in os.walk(self.state_dir):
            for name in names:
                if name in self.token_names:
                    continue
                try:
                    with open(os.path.join(root, name), errors='replace') as f:
                        yield name, f.read()
                except OSError:
                    pass
        for server in self.box.servers + getattr(self, 'extra_servers', []):
            for req in server.requests:
                yield 'URL at %s' % req.route, req.path + '?' + repr(req.query)
        if os.path.exists(self.argv_log):
            with open(self.argv_log) as f:
                yield 'argv of a child process', f.read()

    def assert_no_secret(self):
        leaks = [(where, s) for where, text in self.places() for s in self.secrets if s in text]
        assert not leaks, 'secret leaked: %s' % leaks

    def token_files_private(self):
        """Files holding a token are 0600."""
        for name in self.token_names:
            path = os.path.join(self.state_dir, name)
            if os.path.exists(path):
                assert os.stat(path).st_mode & 0o077 == 0, '%s is %o' % (name, os.stat(path).st_mode)


class RigA(Rig):
    tool = 'updater_a'
    name = 'A'
    routes = {'zones': 'list_zones', 'records': 'list_records', 'read': 'get_record',
              'update': 'update_record', 'create': 'create_record'}
    ip_name = '.cf-wan_ip_%s.txt' % RECORD
    ids_name = '.cf-id_%s.txt' % RECORD
    log_name = 'updater_a_%s.log' % RECORD
    token_names = ()
    first_url_setting = 'DDNS_BASE_URL'

    def __init__(self, box, state_dir, tmp):
        super().__init__(box, state_dir, tmp)
        self.provider = box.provider_a
        self.provider.key = KEY
        self.secrets = [KEY]
        self.zone_id = box.zone_a
        self.rid = None

    def add_old_record(self):
        return self.provider.add_record(self.zone_id, RECORD, 'A', OLD, ttl=300)

    def env(self):
        return self.box.env_a(self.state_dir)

    def content(self):
        found = self.provider.find(RECORD)
        assert len(found) <= 1, 'duplicate records: %s' % found
        return found[0]['content'] if found else None

    def credentials(self):
        return {'auth_email': self.provider.email, 'auth_key': KEY}

    def credential_env(self):
        return ['DDNS_AUTH_EMAIL', 'DDNS_AUTH_KEY']

    def children_checked(self):
        """Updater A starts no child process at all."""
        assert not os.path.exists(self.argv_log)

    def clock_checks(self, offset):
        """Updater A keeps nothing that depends on the clock."""

    zones_key = 'result'

    @staticmethod
    def zones_body(zone_id):
        return {'success': True, 'errors': [], 'messages': [], 'result': [{'id': zone_id, 'name': ZONE}]}

    @staticmethod
    def error_body(errors):
        return {'success': False, 'errors': [{'code': c, 'message': m} for c, m in errors],
                'messages': [], 'result': None}


def make_rig(kind, tmp_path, tls_cert=None):
    """A rig of the given kind ('A' or 'B') on a fresh sandbox; the caller stops rig.box."""
    if kind == 'B':
        from faultkit_b import RigB   # here, not at the top: faultkit_b imports Rig from this module
        cls = RigB
    else:
        cls = RigA
    state = tmp_path / 'state'
    state.mkdir(exist_ok=True)
    box = Sandbox(tls_cert=tls_cert)
    return cls(box, state, tmp_path)


def per_tool(rows, tools=lambda row: 'AB'):
    """[(updater, row)] of a table run against both updaters: under make test-full each row with every
    updater it applies to (tools(row)), under make test with one of them, A and B in turn down the
    table, so that each meets rows of every kind."""
    if FULL:
        return [(tool, row) for tool in 'AB' for row in rows if tool in tools(row)]
    pairs, turn = [], 0
    for row in rows:
        usable = [tool for tool in 'AB' if tool in tools(row)]
        pairs.append((usable[turn % len(usable)], row))
        turn += len(usable) > 1
    return pairs


@pytest.fixture(params=['A', 'B'])
def rig(request, tmp_path):
    """Each row runs once per updater."""
    made = make_rig(request.param, tmp_path)
    yield made
    made.box.stop()


def closed_port():
    """A 127.0.0.1 port nobody listens on (connection refused)."""
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _stand_ins(directory, argv_log):
    """sitecustomize.py logging the argv of every child process the tool starts (audit hook), and a
    `ping` that logs its argv and answers nothing (so no test ever sends a packet off the host)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, 'sitecustomize.py'), 'w') as f:
        f.write(textwrap.dedent('''\
            import os, sys
            _log = os.environ.get('FAULTS_ARGV_LOG')
            _argv = {'subprocess.Popen': 1, 'os.exec': 1, 'os.posix_spawn': 1, 'os.spawn': 2,
                     'os.system': 0}
            def _hook(event, args):
                if event in _argv and _log:
                    with open(_log, 'a') as f:
                        f.write('%s %r\\n' % (event, args[_argv[event]]))
            sys.addaudithook(_hook)
            # then the next sitecustomize on the path (the import guard of tests/conftest.py)
            _here = os.path.dirname(os.path.abspath(__file__))
            for _dir in sys.path:
                _next = os.path.join(_dir, 'sitecustomize.py')
                if _dir and os.path.abspath(_dir) != _here and os.path.exists(_next):
                    with open(_next) as _f:
                        exec(compile(_f.read(), _next, 'exec'), {'__name__': 'sitecustomize', '__file__': _next})
                    break
            '''))
    ping = os.path.join(directory, 'ping')
    with open(ping, 'w') as f:
        f.write('#!/bin/sh\necho "ping $*" >> "%s"\nexit 1\n' % argv_log)
    os.chmod(ping, 0o755)


def mount_tmpfs(path, size='64k'):
    """A tiny tmpfs at path (root only); returns an unmount function, or says it is missing (needs)."""
    os.makedirs(path, exist_ok=True)
    done = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=%s,mode=0755' % size, 'tmpfs', path],
                          capture_output=True, text=True)
    if done.returncode != 0:
        needs.missing('cannot mount a tmpfs here (needs root): %s' % done.stderr.strip())

    def unmount():
        subprocess.run(['umount', '-l', path], capture_output=True)
    return unmount


def remount(path, mode):
    subprocess.run(['mount', '-o', 'remount,' + mode, path], check=True, capture_output=True)


def fill(path):
    """Fill the file system of path until it is full (a file at path takes what is left)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while os.write(fd, b'\0' * 65536):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
