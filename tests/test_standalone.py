"""The single files of `make standalone`: each dist/<tool>.py runs copied alone into an empty
directory, with `python3 -I` so that nothing but the standard library can be imported."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import RECORD, ROOT, built_single_file, run_tool
from providers import NOIP, PROVIDERS

sys.path.insert(0, os.path.join(ROOT, 'tools'))
import standalone  # noqa: E402

TOOLS = ('updater_a', 'updater_b', 'egress6', 'egress6_win')


@pytest.fixture(scope='module')
def dist(tmp_path_factory):
    """dist/<tool>.py for the four tools, built by tools/standalone.py as `make standalone` does."""
    out = tmp_path_factory.mktemp('dist')
    for tool in TOOLS:   # each built once a run (conftest.built_single_file), copied here
        assert os.path.exists(os.path.join(ROOT, 'bin', tool + '.py')), 'bin/%s.py is missing' % tool
        shutil.copy(built_single_file(tmp_path_factory, tool), str(out / (tool + '.py')))
    return out


def alone(dist, tmp_path, tool):
    """The single file copied into an empty directory, nothing beside it."""
    home = tmp_path / 'alone'
    home.mkdir()
    shutil.copy(str(dist / (tool + '.py')), str(home))
    return str(home / (tool + '.py'))


def test_make_standalone_builds_all_four_tools():
    dry = subprocess.run(['make', '-n', '-B', 'standalone'], cwd=ROOT, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    for tool in TOOLS:
        assert 'tools/standalone.py bin/%s.py dist/%s.py' % (tool, tool) in dry.stdout


@pytest.mark.parametrize('tool', TOOLS)
def test_single_file_holds_the_library_and_shows_help(dist, tmp_path, tool):
    path = alone(dist, tmp_path, tool)
    with open(path, encoding='utf-8') as f:
        text = f.read()
    assert '# ddkit-path' not in text and '\n#% ddkit ' in text
    done = run_tool(path, ['--help'], flags=['-I'], cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith('usage: %s.py' % tool)
    assert os.listdir(os.path.dirname(path)) == [tool + '.py']  # wrote nothing beside itself


def test_single_updater_a_updates_the_sandbox_record(dist, tmp_path, box):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    state = tmp_path / 'state'
    done = run_tool(alone(dist, tmp_path, 'updater_a'), env=box.env_a(str(state)), flags=['-I'],
                    cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: 81.2.69.10' in done.stdout
    assert box.provider_a.find(RECORD)[0]['content'] == '81.2.69.10'


def test_single_updater_b_updates_the_sandbox_record(dist, tmp_path, box):
    box.provider_b.add_record(box.zone_b, RECORD, 'A', ['81.2.69.1'])
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    state = tmp_path / 'state'
    done = run_tool(alone(dist, tmp_path, 'updater_b'), env=box.env_b(str(state)), flags=['-I'],
                    cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: 81.2.69.10' in done.stdout
    assert box.provider_b.find(RECORD)[0]['records'] == ['81.2.69.10']


def test_single_egress6_answers_an_unsupported_code(dist, tmp_path):
    done = run_tool(alone(dist, tmp_path, 'egress6'), ['xx'], flags=['-I'], cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Unsupported operator code' in done.stdout


# --- the ddkit command of chosen providers: --providers, make standalone PROVIDERS= -----------------
# a provider that is a module, and a preset (its protocol's module is what is packed); another left out
CHOSEN, PRESET, LEFT_OUT = PROVIDERS[0], NOIP, PROVIDERS[1]
NAMES = '%s,%s' % (CHOSEN.provider, PRESET.provider)
# another preset of the same protocol: packed with it, though not named
SIBLING = next(a for a in PROVIDERS if a.module_name == PRESET.module_name and a.provider not in (
    PRESET.provider, PRESET.module_name))


def build(out, *flags, tool='ddkit'):
    return subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'), *flags,
                           os.path.join(ROOT, 'bin', tool + '.py'), str(out)], capture_output=True, text=True)


@pytest.fixture(scope='module')
def chosen(tmp_path_factory):
    """dist/ddkit.py of two providers, as `make standalone PROVIDERS=NAMES` builds it."""
    out = tmp_path_factory.mktemp('chosen') / 'ddkit.py'
    done = build(out, '--providers', NAMES)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return out


def private_tmp(tmp_path):
    """A TMPDIR the single file may keep its unpacked copy in."""
    cache = tmp_path / 'tmp'
    cache.mkdir(mode=0o700)
    return str(cache)


def test_the_ddkit_command_of_chosen_providers_runs_them(chosen, box, tmp_path):
    path, cache = alone(chosen.parent, tmp_path, 'ddkit'), private_tmp(tmp_path)
    for adapter in (CHOSEN, PRESET):   # the first run unpacks, the second imports the unpacked copy
        adapter.add(box, RECORD, 'A', '81.2.69.1')
        state = tmp_path / adapter.provider
        env = dict(adapter.env(box, str(state)), DDNS_PROVIDER=adapter.provider, TMPDIR=cache,
                   PYTHONDONTWRITEBYTECODE='')
        done = run_tool(path, env=env, flags=['-I'], cwd=str(tmp_path))
        assert done.returncode == 0 and 'Traceback' not in done.stderr, done.stdout + done.stderr
        assert 'IP has been updated to: 81.2.69.10' in done.stdout
        assert adapter.held(box, RECORD) == adapter.content('81.2.69.10')


@pytest.mark.parametrize('where', ['unpacked', 'from the file'])
def test_a_provider_not_packed_is_missing_as_one_not_installed(chosen, box, tmp_path, where):
    """A provider of the registry left out of the file is what a router without its package has: named
    as not installed (exit 2, no request, no traceback); --help and --providers still list it so. Run
    from the copy a first run unpacks, and from the file itself (nowhere to unpack)."""
    path = alone(chosen.parent, tmp_path, 'ddkit')
    env = {'TMPDIR': private_tmp(tmp_path)}
    flags = ['-I'] if where == 'unpacked' else ['-I', '-B']   # -B: no compiled code kept, so nothing unpacked
    assert run_tool(path, ['--help'], env=env, flags=flags).returncode == 0   # unpacked: the next runs import that
    done = run_tool(path, env=dict(LEFT_OUT.env(box, str(tmp_path / 'state')), DDNS_PROVIDER=LEFT_OUT.provider,
                                   **env), flags=flags)
    assert done.returncode == 2 and 'Traceback' not in done.stderr, done.stdout + done.stderr
    assert 'provider %s is not installed' % LEFT_OUT.provider in done.stderr
    assert [s.calls() for s in box.servers] == [[] for _ in box.servers]
    listed = run_tool(path, ['--providers'], env=env, flags=flags)
    assert listed.returncode == 0 and 'Traceback' not in listed.stderr, listed.stdout + listed.stderr
    shown = {line.split()[0] for line in listed.stdout.splitlines() if line[:1].strip()}
    assert {CHOSEN.provider, PRESET.provider, SIBLING.provider} <= shown and LEFT_OUT.provider not in shown
    assert LEFT_OUT.provider in listed.stdout.split('not installed: ')[1].split(' (')[0].split(', ')
    helped = run_tool(path, ['--help'], env=env, flags=flags)
    assert helped.returncode == 0 and 'Traceback' not in helped.stderr, helped.stdout + helped.stderr
    assert '  %s  ' % LEFT_OUT.provider in helped.stdout and 'not installed here' in helped.stdout
    own = run_tool(path, ['--provider', LEFT_OUT.provider, '--help'], env=env, flags=flags)
    assert own.returncode == 0 and 'Traceback' not in own.stderr, own.stdout + own.stderr
    unpacked = os.path.join(env['TMPDIR'], 'ddkit-%d' % os.getuid())
    assert os.path.isdir(unpacked) == (where == 'unpacked')


def test_the_file_holds_the_chosen_provider_modules_alone(chosen):
    shown = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'), '--show', str(chosen)],
                           capture_output=True, text=True, check=True).stdout
    held = {line.split()[2] for line in shown.splitlines() if line.startswith('# ===== ddkit.providers.')}
    assert held == {'ddkit.providers.' + CHOSEN.module_name, 'ddkit.providers.' + PRESET.module_name}
    assert '# ===== ddkit.registry =====' in shown   # the registry is whole: it knows every provider
    text = chosen.read_text()
    assert 'Its provider modules: %s, %s' % (CHOSEN.module_name, PRESET.module_name) in text


@pytest.mark.parametrize('names, said', [('nope', "unknown provider 'nope'"),
                                         (CHOSEN.provider + ',cf,x', "unknown providers 'cf', 'x'"),   # cf: an alias
                                         (',', 'no provider named')])
def test_an_unknown_provider_is_refused_and_nothing_written(tmp_path, names, said):
    out = tmp_path / 'ddkit.py'
    done = build(out, '--providers', names)
    assert done.returncode == 2 and said in done.stderr and 'Traceback' not in done.stderr, done.stderr
    assert not os.listdir(str(tmp_path))


def test_a_tool_fixed_to_its_provider_refuses_providers(tmp_path):
    done = build(tmp_path / 'updater_a.py', '--providers', CHOSEN.provider, tool='updater_a')
    assert done.returncode == 2 and 'runs its own' in done.stderr, done.stderr
    assert not os.listdir(str(tmp_path))


def test_make_standalone_passes_providers_to_the_ddkit_command_alone():
    dry = subprocess.run(['make', '-n', '-B', 'standalone', 'PROVIDERS=' + NAMES], cwd=ROOT,
                         capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert 'tools/standalone.py bin/ddkit.py dist/ddkit.py --providers %s\n' % NAMES in dry.stdout
    for tool in TOOLS:
        assert 'tools/standalone.py bin/%s.py dist/%s.py\n' % (tool, tool) in dry.stdout
    every = subprocess.run(['make', '-n', '-B', 'standalone'], cwd=ROOT, capture_output=True, text=True)
    assert 'tools/standalone.py bin/ddkit.py dist/ddkit.py\n' in every.stdout, every.stdout


def test_a_change_of_providers_rebuilds_the_ddkit_command(tmp_path):
    """make remembers the PROVIDERS dist/ddkit.py was built with: another value, or none, rebuilds it."""
    for part in ('Makefile', 'bin', 'lib', 'tools'):
        copy = shutil.copytree if os.path.isdir(os.path.join(ROOT, part)) else shutil.copy
        copy(os.path.join(ROOT, part), str(tmp_path / part))

    def make(*args):
        """The provider modules dist/ddkit.py holds after `make dist/ddkit.py args`."""
        done = subprocess.run(['make', 'dist/ddkit.py', 'PYTHON=' + sys.executable] + list(args), cwd=str(tmp_path),
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return [line.split()[1] for line in (tmp_path / 'dist' / 'ddkit.py').read_text().splitlines()
                if line.startswith('#% ddkit.providers.')]
    assert make('PROVIDERS=' + CHOSEN.provider) == ['ddkit.providers.' + CHOSEN.module_name]
    assert make('PROVIDERS=' + PRESET.provider) == ['ddkit.providers.' + PRESET.module_name]
    assert sorted(make()) == sorted('ddkit.providers.' + name for name in standalone.registered())


@pytest.mark.parametrize('flags, budget', [([], 'ALL_PROVIDERS_BUDGET'), (['--providers', CHOSEN.provider], 'BUDGET')])
def test_the_build_warns_over_the_budget_of_what_the_file_holds(tmp_path, flags, budget):
    """The ddkit command of every provider is held to its own budget, of chosen providers to a single
    file's: the build warns over that one alone."""
    code = ('import sys; sys.path.insert(0, %r); import standalone; standalone.%s = 1000; '
            'standalone.main(["standalone.py"] + %r + [%r, %r])'
            % (os.path.join(ROOT, 'tools'), budget, flags, os.path.join(ROOT, 'bin', 'ddkit.py'),
               str(tmp_path / 'ddkit.py')))
    done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert done.returncode == 0 and 'over the 1000-byte budget of a single file' in done.stderr, done.stderr
    assert ('holding every provider' in done.stderr) == (not flags)
    assert build(tmp_path / 'again.py', *flags).stderr == ''   # within the budget it is held to
