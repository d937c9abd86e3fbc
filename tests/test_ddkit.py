"""The ddkit command: every provider of the registry through one command, against the fake providers
over real HTTP. A record's state does not depend on the command that ran it: `ddkit --provider
<name>` reads and writes the files of the seed tool fixed to that provider (updater_a, updater_b), so
either command takes over from the other without a provider request; a --config file or a UCI file
mixes providers."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import RECORD, ROOT, ZONE, built_single_file, run_tool, sampled
from openwrt_env import quoted
from providers import PROVIDERS, SEEDS

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import registry, updater  # noqa: E402

OLD, NEW, NEWER = '81.2.69.1', '81.2.69.10', '81.2.69.20'


def env_of(adapter, box, state, **more):
    env = dict(adapter.env(box, state), DDNS_PROVIDER=adapter.provider)
    env.update(more)
    return env


def provider_calls(box):
    return [c for fake in box.fakes.values() for c in fake.calls()]


@pytest.mark.parametrize('adapter', SEEDS, ids=[p.provider for p in SEEDS])
def test_ddkit_and_the_seed_tool_share_one_records_state(box, tmp_path, adapter):
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    done = run_tool('ddkit', env=env_of(adapter, box, tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert adapter.held(box, RECORD) == adapter.content(NEW)
    made = sorted(os.listdir(str(tmp_path)))
    # the seed tool's file names: its ip and ids files, its log (and B's token)
    assert adapter.ip_file(RECORD) in made and '%s_%s.log' % (adapter.tool, RECORD) in made, made
    assert (tmp_path / adapter.ip_file(RECORD)).read_text() == NEW + '\n'

    # the seed tool finds the record done: no provider request
    before = len(provider_calls(box))
    seed = run_tool(adapter.tool, env=adapter.env(box, tmp_path))
    assert seed.returncode == 0 and 'IP has not changed: %s' % NEW in seed.stdout, seed.stdout + seed.stderr
    assert len(provider_calls(box)) == before

    # the seed tool updates, then ddkit finds it done: the same files, whichever command ran
    box.lookup.answer = NEWER
    assert run_tool(adapter.tool, env=adapter.env(box, tmp_path)).returncode == 0
    before = len(provider_calls(box))
    again = run_tool('ddkit', env=env_of(adapter, box, tmp_path))
    assert again.returncode == 0 and 'IP has not changed: %s' % NEWER in again.stdout, again.stdout
    assert len(provider_calls(box)) == before
    assert sorted(os.listdir(str(tmp_path))) == made


def test_a_config_file_mixes_providers_in_one_run(box, tmp_path):
    for adapter in PROVIDERS:
        adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    lines = []
    for adapter in PROVIDERS:
        lines.append('[%s]' % adapter.provider)
        lines.append('provider=%s' % adapter.provider)
        lines += ['%s=%s' % (k[5:].lower(), v) for k, v in adapter.env(box, tmp_path / adapter.provider).items()
                  if k != 'DDNS_PROVIDER']
        (tmp_path / adapter.provider).mkdir()
    config = tmp_path / 'ddkit.conf'
    config.write_text('\n'.join(lines) + '\n')
    config.chmod(0o600)
    done = run_tool('ddkit', ['--config', str(config), '--all'])
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'All %d records done.' % len(PROVIDERS) in done.stdout
    for adapter in PROVIDERS:
        assert adapter.held(box, RECORD) == adapter.content(NEW), adapter
        assert (tmp_path / adapter.provider / adapter.ip_file(RECORD)).read_text() == NEW + '\n'


def test_a_uci_file_names_the_provider_of_each_section(box, tmp_path):
    for adapter in PROVIDERS:
        adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    text = "config defaults\n\toption ip_lookup_url %s\n\toption doh_url %s\n" % (
        quoted(box.lookup.url), quoted(box.doh.url))
    for adapter in PROVIDERS:
        (tmp_path / adapter.provider).mkdir()
        options = {k[5:].lower(): v for k, v in adapter.env(box, tmp_path / adapter.provider).items()
                   if k not in ('DDNS_IP_LOOKUP_URL', 'DDNS_DOH_URL', 'DDNS_PROVIDER')}
        # a section is named by letters, digits and _ (a provider's name may hold . and -: dy.fi)
        section = adapter.provider.replace('.', '_').replace('-', '_')
        text += "\nconfig ddkit '%s'\n\toption enabled '1'\n\toption provider '%s'\n" % (section, adapter.provider)
        text += ''.join('\toption %s %s\n' % (k, quoted(v)) for k, v in options.items())
    uci = tmp_path / 'ddkit.uci'
    uci.write_text(text)
    uci.chmod(0o600)
    done = run_tool('ddkit', ['--all'], env={'DDNS_UCI_FILE': str(uci)})
    assert done.returncode == 0, done.stdout + done.stderr
    for adapter in PROVIDERS:
        assert adapter.held(box, RECORD) == adapter.content(NEW), adapter


KNOWN = registry.known()   # in the registry's order, ddns-scripts' update URLs counted
FIRST, OTHER = PROVIDERS[0], PROVIDERS[1]
# a setting of the second provider that the first does not have
FOREIGN = [s.name for s in OTHER.module().SETTINGS if s.name not in {t.name for t in FIRST.module().SETTINGS}][0]


@pytest.mark.parametrize('args, env, said', [
    ([], {}, 'ddkit: missing setting provider: give it as --provider, DDNS_PROVIDER or provider= in a '
             '--config file'),
    (['--provider', 'xyzzy'], {}, "ddkit: bad value for provider (--provider): not a known provider; known: "
                                 "%s; got 'xyzzy'" % KNOWN),
    ([], {'DDNS_PROVIDER': FIRST.provider.upper()}, 'bad value for provider (DDNS_PROVIDER)'),
    (['--provider', FIRST.provider, '--' + FOREIGN.replace('_', '-'), 'u'], {},
     'ddkit: --%s is not a setting of provider %s; see --help' % (FOREIGN.replace('_', '-'), FIRST.provider)),
], ids=['none', 'unknown', 'unknown in the environment', 'another provider\'s flag'])
def test_a_record_without_a_known_provider_is_refused_before_any_request(box, tmp_path, args, env, said):
    done = run_tool('ddkit', ['--zone-name', ZONE, '--record-name', RECORD] + args,
                    env=dict(env, DDNS_STATE_DIR=str(tmp_path), DDNS_IP_LOOKUP_URL=box.lookup.url))
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert 'Traceback' not in done.stderr and os.listdir(str(tmp_path)) == []
    assert [s.calls() for s in box.servers] == [[] for _ in box.servers]


def test_help_lists_the_providers_and_a_providers_help_shows_its_settings_alone(call_tool, monkeypatch, capsys):
    """ddkit --help: the common settings and each provider a line; ddkit --provider NAME --help: the
    common settings and that provider's alone, each with the default it has there (a provider's from
    ddkit's main in this process)."""
    import re
    done = run_tool('ddkit', ['--help'])
    assert done.returncode == 0 and '--provider' in done.stdout and '--zone-name' in done.stdout
    listed = done.stdout.split('\nproviders (', 1)[1]
    common = {s.name for s in updater.COMMON}
    services = registry.services()   # ddns-scripts' update URLs: one row, the first naming it
    for adapter in PROVIDERS:
        if adapter.provider in services:
            assert re.search(r'^  %s +and %d more update URLs' % (re.escape(services[0]), len(services) - 1),
                             listed, re.M) and adapter.provider not in listed, adapter
            continue
        assert re.search(r'^  %s +%s' % (adapter.provider, re.escape(adapter.module().SUMMARY.split()[0])),
                         listed, re.M), adapter
        for s in adapter.module().SETTINGS:   # no provider's own flag in the overview
            if s.name not in common:
                assert '--%s ' % s.name.replace('_', '-') not in done.stdout.split('\nproviders (')[0], s.name
    for adapter in PROVIDERS:
        status, out, err = call_tool('ddkit', ['--provider', adapter.provider, '--help'], {}, monkeypatch, capsys)
        own = subprocess.CompletedProcess([], status, out, err)
        assert own.returncode == 0 and 'providers (' not in own.stdout
        text = ''.join(own.stdout.split())   # the help's lines joined: a default may wrap, a URL anywhere
        for s in adapter.module().SETTINGS:
            assert '--%s' % s.name.replace('_', '-') in own.stdout, (adapter, s.name)
            if s.default:
                assert '(default:%s)' % ''.join(str(s.default).split()) in text, (adapter, s.name)
        others = {t.name for other in PROVIDERS if other is not adapter for t in other.module().SETTINGS}
        for name in others - {t.name for t in adapter.module().SETTINGS} - common:
            assert '--%s ' % name.replace('_', '-') not in own.stdout, (adapter, name)


def test_the_single_file_holds_every_provider_and_runs_from_its_unpacked_copy(box, tmp_path, tmp_path_factory):
    """dist/ddkit.py: every provider in one file; the second run imports the copy the first unpacked
    (the command's module must not be shadowed by the library of the same name). The runs: of every
    provider under make test-full, of four spread over the registry under make test."""
    out = built_single_file(tmp_path_factory, 'ddkit')
    # every provider is in it, packed with the library (24 of them in plain text would not fit the
    # budget of a single file): --show prints each as the file holds it
    shown = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'), '--show', out],
                           capture_output=True, text=True, check=True).stdout
    for adapter in PROVIDERS:
        assert '# ===== ddkit.providers.%s =====\n' % adapter.module_name in shown, adapter
    cache = tmp_path / 'tmp'
    cache.mkdir(mode=0o700)
    for adapter in sampled(PROVIDERS, 4):
        adapter.add(box, RECORD, 'A', OLD)
        state = tmp_path / adapter.provider
        state.mkdir()
        for answer in (NEW, NEWER):   # the first run unpacks, the second imports the unpacked copy
            box.lookup.answer = answer
            done = run_tool(out, env=env_of(adapter, box, state, TMPDIR=str(cache), PYTHONDONTWRITEBYTECODE=''))
            assert done.returncode == 0 and 'Traceback' not in done.stderr, done.stdout + done.stderr
            assert adapter.held(box, RECORD) == adapter.content(answer)
    unpacked = [p for p in (cache / ('ddkit-%d' % os.getuid())).iterdir()]
    assert len(unpacked) == 1 and (unpacked[0] / 'ddkit_command.py').exists(), unpacked


def without_provider(tmp_path, adapter):
    """bin/ddkit.py in a copy of the tree whose library lacks this provider's module (a router
    without its package); the tool's path."""
    shutil.copytree(os.path.join(ROOT, 'lib'), str(tmp_path / 'lib'))
    (tmp_path / 'lib' / 'ddkit' / 'providers' / (adapter.provider + '.py')).unlink()
    tool = tmp_path / 'bin' / 'ddkit.py'
    tool.parent.mkdir()
    shutil.copy(os.path.join(ROOT, 'bin', 'ddkit.py'), str(tool))
    return tool


def test_a_provider_not_installed_is_named_with_its_package(box, tmp_path):
    """A router carries the providers it uses: the others' modules are absent, and a record naming
    one says which package brings it; --help lists what is there."""
    tool = without_provider(tmp_path, OTHER)
    done = run_tool(str(tool), env=env_of(OTHER, box, tmp_path))
    assert done.returncode == 2 and 'ddkit: provider %s is not installed: install the package ddkit-%s' % (
        OTHER.provider, OTHER.provider) in done.stderr and 'Traceback' not in done.stderr, done.stderr
    assert [s.calls() for s in box.servers] == [[] for _ in box.servers]
    shown = run_tool(str(tool), ['--help'])
    assert shown.returncode == 0 and '  %s ' % FIRST.provider in shown.stdout
    assert '  %s ' % OTHER.provider in shown.stdout   # listed, and said to be missing
    assert 'not installed here: install the package ddkit-%s' % OTHER.provider in ' '.join(shown.stdout.split())


@pytest.mark.parametrize('where', ['uci', 'config'])
def test_a_section_of_a_provider_not_installed_names_its_package_not_its_options(box, tmp_path, where):
    """A section filled in for a provider whose package is missing: the package is what to install,
    not its options that are unknown."""
    tool = without_provider(tmp_path, OTHER)
    options = {k[5:].lower(): v for k, v in OTHER.env(box, tmp_path).items()}
    if where == 'uci':
        path = tmp_path / 'ddkit.uci'
        path.write_text("config ddkit 'other'\n\toption enabled '1'\n" + ''.join(
            '\toption %s %s\n' % (k, quoted(v)) for k, v in options.items()) + "\toption provider '%s'\n" % OTHER.provider)
        args, env = ['--all'], {'DDNS_UCI_FILE': str(path)}
    else:
        path = tmp_path / 'ddkit.conf'
        path.write_text('[other]\n' + ''.join('%s=%s\n' % kv for kv in options.items()) + 'provider=%s\n' % OTHER.provider)
        args, env = ['--config', str(path), '--all'], {}
    path.chmod(0o600)
    done = run_tool(str(tool), args, env=env)
    assert done.returncode == 2 and 'provider %s is not installed: install the package ddkit-%s' % (
        OTHER.provider, OTHER.provider) in done.stderr, done.stderr
    assert 'not an option' not in done.stderr and 'not a setting' not in done.stderr


PRESETS = [a for a in PROVIDERS if a.module_name != a.provider]   # a protocol's module at one service


def without_module(tmp_path, name):
    """bin/ddkit.py in a copy of the tree whose library lacks this provider module; the tool's path."""
    shutil.copytree(os.path.join(ROOT, 'lib'), str(tmp_path / 'lib'))
    (tmp_path / 'lib' / 'ddkit' / 'providers' / (name + '.py')).unlink()
    tool = tmp_path / 'bin' / 'ddkit.py'
    tool.parent.mkdir()
    shutil.copy(os.path.join(ROOT, 'bin', 'ddkit.py'), str(tool))
    return tool


@pytest.mark.parametrize('adapter', PRESETS, ids=[a.provider for a in PRESETS])
def test_a_preset_comes_with_its_protocols_package(box, tmp_path, adapter):
    """A preset has no module of its own: without its protocol's module (a router without that
    package) a record of it names the protocol's package, and --providers leaves it out; with it,
    --providers lists the preset with its own summary and its protocol's settings."""
    import json
    with_it = run_tool('ddkit', ['--providers', '--json'])
    listed = {p['name']: p for p in json.loads(with_it.stdout)['providers']}
    assert listed[adapter.provider]['summary'] == adapter.module().SUMMARY
    assert [s['name'] for s in listed[adapter.provider]['settings']] == \
        [s['name'] for s in listed[adapter.module_name]['settings']]
    tool = without_module(tmp_path, adapter.module_name)
    done = run_tool(str(tool), env=env_of(adapter, box, tmp_path / 'state'))
    assert done.returncode == 2 and 'ddkit: provider %s is not installed: install the package %s' % (
        adapter.provider, adapter.package) in done.stderr and 'Traceback' not in done.stderr, done.stderr
    assert [s.calls() for s in box.servers] == [[] for _ in box.servers]
    shown = run_tool(str(tool), ['--providers', '--json'])
    names = [p['name'] for p in json.loads(shown.stdout)['providers']]
    assert shown.returncode == 0 and adapter.provider not in names and adapter.module_name not in names
    plain = run_tool(str(tool), ['--providers'])
    assert 'come' in plain.stdout and 'with %s' % adapter.package in plain.stdout, plain.stdout


def test_a_run_loads_only_the_providers_it_names(tmp_path):
    """choice.named: the providers named on the command line, in the environment, in the --config file
    or the UCI file, so that a run imports those alone (--help too: that provider's help); None
    (every provider) when it names none, or one not registered."""
    sys.path.insert(0, os.path.join(ROOT, 'lib'))
    from ddkit import choice, registry
    first, last = registry.PROVIDERS[0], registry.PROVIDERS[-1]
    config = tmp_path / 'ddkit.conf'
    config.write_text('[a]\nprovider=%s\n[b]\n  provider = "%s"\n' % (last, first))
    uci = tmp_path / 'ddkit.uci'
    uci.write_text("config ddkit 'a'\n\toption provider '%s'\nconfig ddkit 'b'\n\toption  provider \"%s\"\n"
                   % (last, first))   # as ddkit.uci reads it: any blanks, either quotes
    assert choice.named(['--provider', last], {}, 'ddkit') == [last]
    assert choice.named([], {'DDNS_PROVIDER': first}, 'ddkit') == [first]
    assert choice.named(['--config', str(config), '--all'], {}, 'ddkit') == [first, last]
    assert choice.named(['--all'], {'DDNS_UCI_FILE': str(uci)}, 'ddkit') == [first, last]
    assert choice.named([], {}, 'ddkit') is None
    assert choice.named(['--provider', 'nope'], {}, 'ddkit') is None
    assert choice.named(['--provider', last, '--help'], {}, 'ddkit') == [last]
