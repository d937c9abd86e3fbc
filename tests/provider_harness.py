"""The scaffolding of a provider's own test file, in one place. A test file states its provider and
the address the lookup service answers, and takes the rest from here:

    HARNESS = Harness(<the provider's name>, NEW)
    fake, state = HARNESS.fixtures()
    env_of, run, status, module = HARNESS.env_of, HARNESS.run, HARNESS.status, HARNESS.module
    job_of = HARNESS.job   # a Job to call the provider's functions with in-process

Its tests then drive `ddkit` as a subprocess against the provider's fake over real HTTP: run(box,
state, *args, ip=..., DDNS_X=...), status(box, state) (the record's --status --json), ok(done) and
failed(done) (exit 0 or 1, never a traceback)."""

import json
import os

import pytest

from conftest import RECORD, in_process


class Harness:
    """One provider's fake, state directory and runs; answer: the address the lookup service gives a
    run that names no `ip` (None: the one the test set); before: called before the fake is handed out (the check that the
    provider's official SDK, its fake's oracle, is installed)."""

    def __init__(self, name, answer=None, before=None):
        self.name, self.answer, self.before = name, answer, before

    def fixtures(self):
        """The fixtures `fake` (the provider's fake server) and `state` (an empty state directory),
        to be bound to those names in the test module."""
        @pytest.fixture(name='fake')
        def fake(box):
            if self.before:
                self.before()
            return box.fakes[self.name]

        @pytest.fixture(name='state')
        def state(tmp_path):
            made = tmp_path / 'state'
            made.mkdir()
            return made
        return fake, state

    def bound(self):
        """env_of, run, status, module and job, to be bound to those names in the test module."""
        return self.env_of, self.run, self.status, self.module, self.job

    def zone(self, box):
        """The sandbox zone's id (or name) at this provider's fake."""
        return box.zones[self.name]

    def ids_file(self, state, name=RECORD):
        """The file a run keeps the record's zone and record ids in."""
        return state / ('.%s-id_%s.txt' % (self.name, name))

    def stored(self, state, zone, rid, ip):
        """The ids file and the ip file as a run that made or found record rid left them."""
        self.ids_file(state).write_text('%s\n%s\n' % (zone, rid))
        (state / ('.%s-ip_%s.txt' % (self.name, RECORD))).write_text(ip + '\n')

    def failure(self, box, state, *args, **more):
        """A run that fails (exit 1, no traceback), and the record's --status --json after it."""
        done = self.run(box, state, *args, **more)
        failed(done)
        return done, self.status(box, state, **{k: v for k, v in more.items() if k != 'ip'})

    def check(self, box, state, *args, **more):
        """A --check run that passes (exit 0)."""
        done = self.run(box, state, '--check', *args, **more)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    def unusable_listing(self, box, state, reply, route='list_records'):
        """A listing answered with reply (each retry too) fails the run, and nothing is written."""
        fake = box.fakes[self.name]
        fake.fail('reply', route=route, times=3, **reply)
        failed(self.run(box, state))
        assert fake.calls('create_record') == [] and fake.calls('update_record') == []

    def module(self):
        """The provider's module of the library."""
        from providers import PROVIDERS
        return [p for p in PROVIDERS if p.provider == self.name][0].module()

    def env_of(self, box, state, **more):
        """The environment of a run of this provider against its fake, with more DDNS_ variables."""
        return dict(box.env_of(self.name, str(state)), DDNS_PROVIDER=self.name, **more)

    def run(self, box, state, *args, **more):
        """A run of ddkit (args; ip: the address the lookup service answers), never a traceback: ddkit's
        main in this process (conftest.in_process)."""
        answer = more.pop('ip', self.answer)
        if answer is not None:
            box.lookup.answer = answer
        done = in_process('ddkit', list(args), env=self.env_of(box, state, **more))
        assert 'Traceback' not in done.stdout + done.stderr, done.stdout + done.stderr
        return done

    def job(self, box, state, line=None, run=None, **more):
        """A Job of the sandbox's record (line: its line; run: the Run of several records it is one
        of, else one of its own), to call the provider's functions in-process against its fake."""
        from ddkit import settings, updater
        from ddkit.log import Log
        from ddkit.provider import Job, Run
        provider = self.module()
        table = provider.SETTINGS + updater.COMMON
        cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES,
                            environ=self.env_of(box, state, **more))
        job = Job(provider, cfg, run or Run(several=line is not None), Log(None, quiet=True))
        job.line = line
        return job

    def status(self, box, state, **more):
        """The record's --status --json object."""
        return json.loads(in_process('ddkit', ['--status', '--json'], env=self.env_of(box, state, **more)).stdout)[0]


def shown(done, state):
    """All a run printed and kept: its output, and every file of its state directory."""
    return done.stdout + done.stderr + ''.join(p.read_text() for p in state.iterdir() if p.is_file())


def ok(done):
    """The run succeeded (exit 0)."""
    assert done.returncode == 0 and 'Traceback' not in done.stdout + done.stderr, done.stdout + done.stderr


def failed(done):
    """The run failed (exit 1), saying why in a line, not a traceback."""
    assert done.returncode == 1 and 'Traceback' not in done.stdout + done.stderr, done.stdout + done.stderr


def sent(fake):
    """All the fake was sent: every request's path, query and body."""
    return ''.join(r.path + r.raw_query + r.body.decode() for r in fake.requests)


def kept_nothing(state):
    """The state directory holds no file (a --check or a refused run)."""
    return os.listdir(str(state)) == []


def listing_replies(*own, ids=()):
    """pytest parameters of unusable listing replies: the API's own (ids: their names), then the ones
    every JSON API shares (not an object, html, empty, a server error)."""
    common = [{'text': '[1, 2]'}, {'text': '<html>busy</html>'}, {'text': ''}, {'status': 502, 'text': 'Bad Gateway'}]
    return pytest.mark.parametrize('reply', list(own) + common,
                                   ids=list(ids) + ['not an object', 'html', 'empty', 'server error'])
