"""Every form of a tool as the project starts it: bin/<tool>.py under `python3 -I -S`, the single file
(dist/<tool>.py) and the installed stub (/usr/bin/<tool>, what procd, hotplug and cron start by
path) by their first line, `#!/usr/bin/python3 -IS`; the Windows launcher's `py -3 -I -S` line.
Isolated and site-less (issue 19): no PYTHONPATH, no site-packages, no .pth files, and each form
still works and reads a UCI file exactly as libuci does (issue 16)."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import RECORD, ROOT, built_single_file
from openwrt_env import quoted
from providers import TOOLS, of  # noqa: E402

PY = '/usr/bin/python3'
FIRST_LINE = '#!/usr/bin/python3 -IS'
STANDALONE = os.path.join(ROOT, 'tools', 'standalone.py')
ROUTER_TOOLS = ('updater_a', 'updater_b', 'egress6')
FORMS = ('bin', 'single file', 'installed')
RUNS = [(tool, form) for tool in ROUTER_TOOLS for form in FORMS] + [('egress6_win', 'bin'),
                                                                   ('egress6_win', 'single file')]

needs_python3 = pytest.mark.skipif(not os.access(PY, os.X_OK), reason='no %s to run the first lines' % PY)


def source(tool):
    return os.path.join(ROOT, 'bin', tool + '.py')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    """The single files and the packages' installed files, built now as `make standalone` and the
    feed build them (tools/standalone.py)."""
    out = tmp_path_factory.mktemp('forms')
    os.mkdir(str(out / 'dist'))
    for tool in ROUTER_TOOLS + ('egress6_win',):   # each built once a run (conftest.built_single_file)
        shutil.copy(built_single_file(tmp_path_factory, tool), str(out / 'dist' / (tool + '.py')))
    subprocess.run([sys.executable, STANDALONE, '--installed', str(out / 'root')]
                   + [source(tool) for tool in ROUTER_TOOLS], check=True)
    return out


def path_of(built, tool, form):
    return source(tool) if form == 'bin' else str(
        built / 'dist' / (tool + '.py') if form == 'single file' else built / 'root' / 'usr' / 'bin' / tool)


def as_started(built, tool, form):
    """The command line the project starts the form with: bin/ is given -I -S, the others run as
    programs, so their first line picks the interpreter and its flags."""
    path = path_of(built, tool, form)
    return [sys.executable, '-I', '-S', path] if form == 'bin' else [path]


def start(command, tmp_path, env=None, args=()):
    """Run with what cron gives (PATH, HOME) plus env; TMPDIR for the code caches."""
    full = {'PATH': os.environ['PATH'], 'HOME': str(tmp_path), 'TMPDIR': str(tmp_path)}
    full.update(env or {})
    return subprocess.run(list(command) + list(args), env=full, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize('tool', ROUTER_TOOLS + ('egress6_win',))
def test_single_file_and_stub_start_isolated_site_less_python(built, tool):
    """One word after the interpreter: the kernel passes everything after it as one argument."""
    for form in FORMS[1:] if tool != 'egress6_win' else FORMS[1:2]:
        with open(path_of(built, tool, form), encoding='utf-8') as f:
            assert f.readline() == FIRST_LINE + '\n', (tool, form)
        assert os.access(path_of(built, tool, form), os.X_OK), (tool, form)


@needs_python3
@pytest.mark.parametrize('tool, form', RUNS)
def test_every_form_runs_isolated(built, tmp_path, tool, form):
    done = start(as_started(built, tool, form), tmp_path, args=['--help'])
    name = tool if form == 'installed' else tool + '.py'   # as the user typed it (issue 17)
    assert done.returncode == 0 and done.stdout.startswith('usage: %s ' % name), done.stdout + done.stderr


def test_windows_launcher_starts_isolated_python_and_the_tool_runs_so(tmp_path):
    """egress6_win.cmd's PYTHON lines (`py -3 -I -S`, or `python -I -S` without the py launcher): the
    flags they give, after this interpreter, run the tool."""
    with open(os.path.join(ROOT, 'windows', 'egress6_win.cmd'), encoding='ascii') as f:
        lines = re.findall(r'set "PYTHON=([^"]*)"', f.read())
    assert lines == ['py -3 -I -S', 'python -I -S']
    for line in lines:
        flags = [word for word in line.split() if word.startswith('-') and word != '-3']
        assert flags == ['-I', '-S']
        done = start([sys.executable] + flags + [source('egress6_win')], tmp_path, args=['--help'])
        assert done.returncode == 0 and done.stdout.startswith('usage: egress6_win.py'), done.stderr


# --- a module named like a standard one, planted on PYTHONPATH --------------------------------------
# `_json` (lib-dynload, not built in): ddkit.jsontext imports it for every provider answer. The plant
# leaves a mark and then fails as a missing module would, so that jsontext falls back to json.
PLANT = '''import os
with open(os.environ['PLANT_MARK'], 'a') as f:
    f.write('imported\\n')
raise ImportError('planted')
'''


@needs_python3
@pytest.mark.parametrize('form', ['single file', 'installed'])
def test_a_planted_standard_module_is_not_imported_by_the_forms_we_start(built, box, tmp_path, form):
    plant = tmp_path / 'plant'
    plant.mkdir()
    (plant / '_json.py').write_text(PLANT)
    mark = tmp_path / 'mark'
    path = path_of(built, 'updater_a', form)
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    env = dict(box.env_a(str(tmp_path / 'state')), PYTHONPATH=str(plant), PLANT_MARK=str(mark))
    # the control: plain python3 on the same form imports the plant (so the test can fail)
    control = start([PY, path], tmp_path, env=dict(env, DDNS_STATE_DIR=str(tmp_path / 'control')))
    assert 'IP has been updated to: 81.2.69.10' in control.stdout, control.stdout + control.stderr
    assert mark.exists()
    mark.unlink()
    box.lookup.answer = '81.2.69.11'
    done = start([path], tmp_path, env=env)
    assert 'IP has been updated to: 81.2.69.11' in done.stdout, done.stdout + done.stderr
    assert not mark.exists()


# --- UCI: every form reads a file as libuci does ----------------------------------------------------
QUIRKS = '''package {tool}

config {tool} 'home'
	option enabled '1'
	option zone_name {zone}#the zone: libuci ends the word at a # even inside it
	option record_type ''
	option timeout
	option interval '600'; option ip_lookup_url {lookup}
	list interface 'wan'
'''


@needs_python3
@pytest.mark.parametrize('tool', TOOLS)
@pytest.mark.parametrize('form', FORMS)
def test_every_form_updates_from_a_uci_file_read_as_libuci_reads_it(built, box, tmp_path, tool, form):
    """A comment mid-word, an empty option (the default), an option with no value, two statements
    on a line: what uci makes of them, each form alike."""
    env = of(tool).env(box, tmp_path / 'state')
    of(tool).add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    config = tmp_path / tool
    config.write_text(QUIRKS.format(tool=tool, zone=env.pop('DDNS_ZONE_NAME'),
                                    lookup=quoted(env.pop('DDNS_IP_LOOKUP_URL'))) + ''.join(
        "\toption %s %s\n" % (name[5:].lower(), quoted(value)) for name, value in sorted(env.items())))
    done = start(as_started(built, tool, form), tmp_path, env={'DDNS_UCI_FILE': str(config)},
                 args=['--uci', 'home'])
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: 81.2.69.10' in done.stdout


@needs_python3
@pytest.mark.parametrize('form', FORMS)
def test_a_file_uci_refuses_is_one_line_naming_it_and_exit_2_in_every_form(built, tmp_path, form):
    config = tmp_path / 'updater_a'
    config.write_text("config updater_a 'home'\n\toption zone_name 'example.com'\n"
                      "\toption record_name home example.com\n")
    done = start(as_started(built, 'updater_a', form), tmp_path, env={'DDNS_UCI_FILE': str(config)},
                 args=['--uci', 'home'])
    assert done.returncode == 2 and done.stdout == '', done.stdout + done.stderr
    assert done.stderr.count('\n') == 1 and 'UCI file %s line 3: too many words' % config in done.stderr


def test_procd_and_hotplug_start_the_stub_by_path():
    """So the stub's first line decides how Python starts: no `python3 <stub>` that would drop -I -S."""
    folder = os.path.join(ROOT, 'openwrt', 'files')
    for name in sorted(os.listdir(folder)):
        if name.endswith(('.init', '.hotplug')):
            with open(os.path.join(folder, name), encoding='utf-8') as f:
                text = f.read()
            code = '\n'.join(line for line in text.split('\n') if not line.lstrip().startswith('#'))
            assert 'python' not in code, name
            if name != 'egress6.hotplug':   # (it restarts the service instead)
                assert '$IPKG_INSTROOT/usr/bin/@NAME@"' in code, name
