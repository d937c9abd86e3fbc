"""Each preset of the registry (a protocol's module at one service: ddkit.registry.Preset) through
`ddkit --provider <preset>` against its fake over real HTTP: the service's server by default and the
protocol's settings otherwise, state files, log and status of its own, the protocol's rules for a
refusal (never sent again until a setting changes) and for the service's trouble (held back), lines
refused, --check sending nothing, and no secret in anything it prints or keeps. What each service does
differently is its own test file's (test_<preset>.py)."""

import json
import os
import sys
import time

import pytest

from conftest import RECORD, ROOT, in_process
from providers import PROVIDERS, registry

# the presets of the protocol that holds sends back; ddns-scripts' update URLs: tests/test_updateurl.py
# (a preset of a provider whose records are read is its own test file's)
PRESETS = [a for a in PROVIDERS if a.module_name != a.provider and a.provider not in registry().services()
           and a.told]
EACH = pytest.mark.parametrize('adapter', PRESETS, ids=[a.provider for a in PRESETS])
OLD, NEW = '81.2.69.1', '81.2.69.10'


def env_of(adapter, box, state, **more):
    return dict(adapter.env(box, state), **more)


def run(adapter, box, state, *args, **more):
    done = in_process('ddkit', list(args), env=env_of(adapter, box, state, **more))
    assert 'Traceback' not in done.stderr, done.stderr
    return done


def status(adapter, box, state):
    return json.loads(in_process('ddkit', ['--status', '--json'], env=env_of(adapter, box, state)).stdout)[0]


def loaded(name, environ):
    """The Config a record of this provider is loaded with, from environ alone."""
    sys.path.insert(0, os.path.join(ROOT, 'lib'))
    from ddkit import choice, settings, updater
    table = choice.table_of(registry().provider(name), updater.COMMON)
    return settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES, environ=environ)


def entry(adapter):
    names = registry().PROVIDERS
    return names[names.index(adapter.provider)]


@EACH
def test_the_services_server_is_the_default_and_the_rest_is_the_protocols(adapter):
    given = dict(adapter.credentials, DDNS_RECORD_NAME=RECORD)
    preset, protocol = loaded(adapter.provider, given), loaded(adapter.module_name, given)
    changed = entry(adapter).changes
    for setting in registry().provider(adapter.module_name).SETTINGS:
        assert getattr(preset, setting.name) == changed.get(setting.name, getattr(protocol, setting.name))
    assert preset.server == changed['server'] != protocol.server
    assert loaded(adapter.provider, dict(given, DDNS_SERVER='https://elsewhere.example')).server == \
        'https://elsewhere.example'


@EACH
def test_updated_with_its_own_state_files_log_and_status(adapter, box, tmp_path):
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    done = run(adapter, box, tmp_path)
    assert done.returncode == 0 and 'IP has been updated to: %s' % NEW in done.stdout, done.stdout
    assert adapter.held(box, RECORD) == NEW and (tmp_path / adapter.ip_file(RECORD)).read_text() == NEW + '\n'
    made = sorted(os.listdir(str(tmp_path)))
    assert '%s_%s.log' % (adapter.stem, RECORD) in made and not [n for n in made if adapter.module_name in n], made
    assert status(adapter, box, tmp_path)['provider'] == adapter.provider
    secret = env_of(adapter, box, tmp_path)['DDNS_PASSWORD']
    said = done.stdout + done.stderr + ''.join(p.read_text() for p in tmp_path.iterdir() if p.is_file())
    assert secret not in said
    again = run(adapter, box, tmp_path)
    assert again.returncode == 0 and 'IP has not changed' in again.stdout and len(adapter.fake(box).calls()) == 1


@EACH
def test_failed_a_refusal_stops_every_later_send_until_a_setting_changes(adapter, box, tmp_path):
    fake = adapter.fake(box)
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.answer = 'badauth'
    first = run(adapter, box, tmp_path)
    fix = adapter.module().FIXES['badauth']
    assert first.returncode == 1 and 'the service answered badauth' in first.stdout and fix in first.stdout, \
        first.stdout
    again = run(adapter, box, tmp_path)
    assert again.returncode == 1 and 'not sent: the service answered badauth' in again.stdout, again.stdout
    assert len(fake.calls('update')) == 1 and fake.after_stop == 0
    shown = status(adapter, box, tmp_path)
    assert (shown['outcome'], shown['code'], shown['kind'], shown['step']) == ('failed', 'badauth', 'refused',
                                                                              'update record')
    hold = tmp_path / (adapter.files['hold_file'] % RECORD)
    assert oct(hold.stat().st_mode & 0o777) == '0o600'
    assert env_of(adapter, box, tmp_path)['DDNS_PASSWORD'] not in hold.read_text()
    fake.answer, fake.password = None, 'a-new-password'
    fake.keys = {name: 'a-new-password' for name in getattr(fake, 'keys', {})}   # a service that keys each record
    fixed = run(adapter, box, tmp_path, DDNS_PASSWORD='a-new-password')
    assert fixed.returncode == 0 and adapter.held(box, RECORD) == NEW and not hold.exists(), fixed.stdout


@EACH
def test_failed_the_services_trouble_holds_sends_back_for_half_an_hour(adapter, box, tmp_path):
    fake = adapter.fake(box)
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.answer = '911'
    assert run(adapter, box, tmp_path).returncode == 1
    fake.answer = None
    held = run(adapter, box, tmp_path)
    assert held.returncode == 1 and 'held back until' in held.stdout and len(fake.calls('update')) == 1
    assert status(adapter, box, tmp_path)['kind'] == 'server error'
    hold = tmp_path / (adapter.files['hold_file'] % RECORD)
    lines = hold.read_text().split('\n')
    lines[2] = str(int(time.time()) - 1)   # half an hour later
    hold.write_text('\n'.join(lines))
    assert run(adapter, box, tmp_path).returncode == 0 and adapter.held(box, RECORD) == NEW


@EACH
def test_lines_are_refused_and_nothing_is_sent(adapter, box, tmp_path):
    box.lookup.answer = NEW
    done = run(adapter, box, tmp_path, '--lines', 'ct=iface:lo')
    assert done.returncode == 2 and 'provider %s holds one address per name' % adapter.provider in done.stderr, \
        done.stderr
    assert adapter.fake(box).calls() == []


@EACH
def test_check_sends_nothing_and_needs_no_zone(adapter, box, tmp_path):
    env = {k: v for k, v in env_of(adapter, box, tmp_path).items() if k != 'DDNS_ZONE_NAME'}
    box.lookup.answer = NEW
    done = in_process('ddkit', ['--check'], env=env)
    assert done.returncode == 0 and 'only told the IP' in done.stdout, done.stdout
    assert adapter.fake(box).calls() == [] and os.listdir(str(tmp_path)) == []
    assert env['DDNS_PASSWORD'] not in done.stdout
