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

import pytest

from conftest import run_tool


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

    def module(self):
        """The provider's module of the library."""
        from providers import PROVIDERS
        return [p for p in PROVIDERS if p.provider == self.name][0].module()

    def env_of(self, box, state, **more):
        """The environment of a run of this provider against its fake, with more DDNS_ variables."""
        return dict(box.env_of(self.name, str(state)), DDNS_PROVIDER=self.name, **more)

    def run(self, box, state, *args, **more):
        """A run of ddkit (args; ip: the address the lookup service answers), never a traceback."""
        answer = more.pop('ip', self.answer)
        if answer is not None:
            box.lookup.answer = answer
        done = run_tool('ddkit', list(args), env=self.env_of(box, state, **more))
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
        return json.loads(run_tool('ddkit', ['--status', '--json'], env=self.env_of(box, state, **more)).stdout)[0]


def shown(done, state):
    """All a run printed and kept: its output, and every file of its state directory."""
    return done.stdout + done.stderr + ''.join(p.read_text() for p in state.iterdir() if p.is_file())


def ok(done):
    """The run succeeded (exit 0)."""
    assert done.returncode == 0 and 'Traceback' not in done.stdout + done.stderr, done.stdout + done.stderr


def failed(done):
    """The run failed (exit 1), saying why in a line, not a traceback."""
    assert done.returncode == 1 and 'Traceback' not in done.stdout + done.stderr, done.stdout + done.stderr
