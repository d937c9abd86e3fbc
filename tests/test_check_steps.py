"""The step a --check FAIL names, for every provider: the one a run names for the same request, or
`login` for the request only --check makes; either way a step docs/check.md lists. Each request of
each provider's --check is made to fail in turn (its fake's route answers HTTP 403), in-process
through ddkit.updater.main, and a run meeting the same failure is asked what it calls the step."""

import os
import re
import sys

import pytest

from conftest import HERE, RECORD, Sandbox
from providers import FORMS, PROVIDERS

sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'lib'))

import ddkit  # noqa: E402
from ddkit import choice, updater  # noqa: E402

CHECK_DOC = os.path.join(os.path.dirname(HERE), 'docs', 'check.md')
REMOTE = ('credentials accepted', 'zone found', 'record found', 'API reachable')   # the checks that ask the provider
CHECK_ONLY = 'login'   # the step of a request only --check makes (the run has no such request)


def documented_steps():
    """The steps docs/check.md lists: the first column of the table under its heading 'The step a FAIL names'."""
    with open(CHECK_DOC, encoding='utf-8') as f:
        text = f.read()
    section = text.split('## The step a FAIL names', 1)[1].split('\n## ', 1)[0]
    return set(re.findall(r'^\| `([a-z ]+)` \|', section, re.M))


def run(argv, env, monkeypatch, capsys):
    """ddkit with this environment only (of the DDNS_* variables), in-process; (status, its output)."""
    for name in [n for n in os.environ if n.startswith('DDNS_')]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(ddkit, 'KEEP_DIR', [None])   # what a run keeps goes to its own state directory
    status = updater.main(argv=list(argv), tool='ddkit', choice=choice)
    out = capsys.readouterr()
    return status, out.out + out.err


def failed_step(out, mark):
    """The step of the first failure in the output: of a FAIL line of a remote check (after the
    check's name), or of a run's ERROR line; None when there is none."""
    for line in out.splitlines():
        if mark == 'FAIL' and line.startswith('FAIL  '):
            name, _, rest = line[6:].partition(': ')
            assert name in REMOTE, out   # the settings, state directory, TLS and IP checks pass here
            return rest.split(':', 1)[0]
        if mark == 'ERROR' and 'ERROR: ' in line:
            return line.split('ERROR: ', 1)[1].split(':', 1)[0]
    return None


@pytest.mark.parametrize('adapter', PROVIDERS + FORMS, ids=lambda a: a.label)
def test_a_check_names_the_step_a_run_names_and_check_md_lists_it(adapter, tmp_path, monkeypatch, capsys):
    adapter.needs()
    listed = documented_steps()
    assert CHECK_ONLY in listed and 'find zone' in listed, listed
    box = Sandbox()
    try:
        adapter.add(box, RECORD, 'A', '81.2.69.1')
        box.doh.names[(RECORD, 'A')] = ['81.2.69.1']   # a run's previous IP, without a ping
        box.lookup.answer = '81.2.69.10'
        fake = adapter.fake(box)
        steps = {}
        for route in fake.route_names():
            fake.faults.clear()
            fake.reset_log()
            env = dict(adapter.env(box, tmp_path / route / 'check'), DDNS_PROVIDER=adapter.provider)
            fake.fail('status', route=route, times=10, status=403, text='refused by the test')
            status, out = run(['--check'], env, monkeypatch, capsys)
            if route not in fake.calls():
                assert status == 0, out   # a request --check does not make
                continue
            checked = failed_step(out, 'FAIL')
            assert status == 1 and checked, (route, out)
            fake.faults.clear()
            fake.reset_log()
            fake.fail('status', route=route, times=10, status=403, text='refused by the test')
            env['DDNS_STATE_DIR'] = str(tmp_path / route / 'run')
            status, out = run([], env, monkeypatch, capsys)
            ran = failed_step(out, 'ERROR') if route in fake.calls() else None
            steps[route] = (checked, ran)
    finally:
        box.stop()
    # a provider only told the IP is asked nothing by --check (nothing to fail); the others are
    assert bool(steps) != adapter.told, 'requests of %s --check that could fail: %s' % (adapter.provider, steps)
    for route, (checked, ran) in steps.items():
        # a request a run makes too is named as the run names it (one only --check makes is the login)
        assert ran is None or checked == ran, (adapter.provider, route, checked, ran)
        assert checked in listed, 'docs/check.md lists no step %r (%s, route %s)' % (checked, adapter.provider, route)
