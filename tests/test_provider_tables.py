"""Each provider's outcome-named table, over real HTTP against its fake: every row names the exact
requests the provider gets (the adapter's `calls`, its test table), in order, and no more: the fake's
request budget of each route is that row's count, so one request too many is refused and shown.
Each row ends in its outcome, as --status --json reads it."""

import json
import os
import time

import pytest

from conftest import FULL, RECORD, run_tool, sampled
from providers import FORMS, PROVIDERS

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
ROWS = ['created', 'updated', 'updated with stored ids', 'unchanged', 'verified', 'drift healed',
        'failed: no such zone', 'failed: no such name']
OUTCOME = {'created': 'created', 'updated': 'updated', 'updated with stored ids': 'updated',
           'unchanged': 'unchanged', 'verified': 'unchanged', 'drift healed': 'updated',
           'failed: no such zone': 'failed', 'failed: no such name': 'failed'}
# each provider's rows: those its table names (a provider only told the IP has no zone or record to read)
TABLE = [(adapter, row) for adapter in PROVIDERS + FORMS for row in ROWS if row in adapter.calls]
# every row under make test-full, under both of CPython's interfaces (conftest.both_interfaces); make
# test a sample spread over the providers (each provider's own test file runs its outcomes too), each
# row under one interface, native and public in turn down the rows
INTERFACES = ('native', 'public')
SAMPLE = sampled(TABLE, 60)
# and each provider at least once: the other tests of a provider run it in this process, this one as a
# process under the import guard of its package (conftest.import_guard)
SAMPLE += [next(r for r in TABLE if r[0] is a) for a in PROVIDERS + FORMS
           if not any(r[0] is a for r in SAMPLE) and any(r[0] is a for r in TABLE)]
RUNS = [(adapter, row, interface) for n, (adapter, row) in enumerate(SAMPLE)
        for interface in (INTERFACES if FULL else INTERFACES[n % 2:][:1])]


def arrange(adapter, box, state, row):
    """The provider and the state directory as the row starts from; the settings of the run."""
    env = adapter.env(box, state)
    held = {'created': None, 'unchanged': NEW, 'verified': NEW, 'drift healed': OTHER}.get(row, OLD)
    record_id = adapter.add(box, RECORD, 'A', held) if held else None
    stored = row in ('updated with stored ids', 'unchanged', 'verified', 'drift healed')
    if stored:
        state.mkdir(exist_ok=True)
        if not adapter.told:
            (state / (adapter.files['ids_file'] % RECORD)).write_text('%s\n%s\n' % (adapter.zone(box), record_id))
        claimed = state / adapter.ip_file(RECORD)
        claimed.write_text((OLD if row == 'updated with stored ids' else NEW) + '\n')
        if row in ('verified', 'drift healed'):   # confirmed two days ago: due for a read
            os.utime(str(claimed), (time.time() - 2 * 86400,) * 2)
        for role, text in adapter.session(box).items():
            path = state / (adapter.files[role] % RECORD)
            path.write_text(text)
            path.chmod(0o600)
    if row.startswith('failed: no such'):
        env = dict(env, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    return env


@pytest.mark.parametrize('adapter, row, interface', RUNS, ids=['%s-%s-%s' % (i, a.label, row) for a, row, i in RUNS])
def test_each_outcome_makes_exactly_its_calls(box, tmp_path, monkeypatch, capsys, call_tool, adapter, row, interface):
    adapter.needs()
    monkeypatch.setenv('DDKIT_PUBLIC_ONLY', '1' if interface == 'public' else '')   # the run inherits it
    fake = adapter.fake(box)
    state = tmp_path / 'state'
    env = arrange(adapter, box, state, row)
    box.lookup.answer = NEW
    fake.reset_log()
    expected = adapter.calls[row]
    fake.budget(**{route: expected.count(route) for route in fake.route_names()})
    done = run_tool(adapter.tool, env=env)
    assert 'Traceback' not in done.stderr, done.stderr
    assert done.returncode == (1 if row.startswith('failed') else 0), done.stdout + done.stderr
    assert fake.calls() == expected, done.stdout
    assert fake.over_budget == []
    # the status the run kept, read in this process: only the run needs a process of its own
    shown = json.loads(call_tool(adapter.tool, ['--status', '--json'], env, monkeypatch, capsys)[1])[0]
    assert shown['outcome'] == OUTCOME[row]
    if row.startswith('failed'):
        assert (shown['step'], shown['kind']) == adapter.failure
    else:
        assert adapter.held(box, RECORD) == adapter.content(NEW)
        assert (state / adapter.ip_file(RECORD)).read_text() == NEW + '\n'


def test_a_request_over_the_budget_is_refused_and_shown(box, tmp_path):
    """The check itself: a budget of zero for a route the run needs shows the request it refused."""
    adapter = PROVIDERS[0]
    fake = adapter.fake(box)
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.budget(update_record=0)
    done = run_tool(adapter.tool, env=adapter.env(box, tmp_path / 'state'))
    # refused with a 5xx, which a PUT is tried again after: each try is refused and recorded
    assert done.returncode == 1 and {r.route for r in fake.over_budget} == {'update_record'}
    assert adapter.held(box, RECORD) == adapter.content(OLD)


@pytest.mark.parametrize('adapter', sampled(PROVIDERS, 8), ids=[p.provider for p in sampled(PROVIDERS, 8)])
@pytest.mark.usefixtures('native_interfaces')
def test_an_unchanged_run_loads_its_provider_alone_and_no_http(box, tmp_path, adapter):
    """The common run of any provider costs what the first one's does: the registry imports only the
    provider that runs, and a run that sends no request to the provider loads nothing for one (no
    signing, no JSON, no TLS: the lookup over plain HTTP needs none of them)."""
    from ddkit import registry
    state = tmp_path / 'state'
    env = arrange(adapter, box, state, 'unchanged')
    box.lookup.answer = NEW
    done = run_tool(adapter.tool, env=env, flags=['-I', '-S', '-X', 'importtime'])   # as a router starts it
    assert done.returncode == 0 and 'IP has not changed' in done.stdout, done.stdout + done.stderr
    modules = [line.rsplit('|', 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith('import time:')]
    assert registry.PACKAGE + adapter.module_name in modules   # a preset runs its protocol's module
    assert [m for m in modules if m in {registry.PACKAGE + p for p in registry.modules()}
            - {registry.PACKAGE + adapter.module_name}] == []
    assert not {'hmac', 'hashlib', 'json', 'ssl', 'http.client'} & set(modules), sorted({'hmac', 'hashlib', 'json', 'ssl', 'http.client'} & set(modules))
    assert adapter.fake(box).calls() == []


# the providers that judge an answer with no body as a request timed out at their gateway (http.Response.nonempty)
GATEWAYED = [a for a in PROVIDERS if not a.told and '.nonempty()' in open(a.module().__file__).read()]


@pytest.mark.parametrize('adapter', sampled(GATEWAYED, 4), ids=[p.provider for p in sampled(GATEWAYED, 4)])
def test_an_answer_with_no_body_is_a_request_timed_out(box, tmp_path, adapter):
    """A provider's gateway that gave up on its backend answers HTTP 200 with nothing: the run fails
    naming its first step and what to check, and says nothing else happened (no traceback, no write)."""
    state = tmp_path / 'state'
    env = arrange(adapter, box, state, 'created')
    fake = adapter.fake(box)
    fake.fail('empty', times=10)
    done = run_tool(adapter.tool, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'empty answer (HTTP 200): the request timed out; check connectivity' in done.stdout + done.stderr, \
        done.stdout + done.stderr
    assert 'Traceback' not in done.stderr
    shown = json.loads(run_tool(adapter.tool, ['--status', '--json'], env=env).stdout)[0]
    assert shown['kind'] == 'unexpected' and shown['fix'] == 'check connectivity', shown
    assert not [c for c in fake.calls() if c.startswith(('create', 'update'))]
