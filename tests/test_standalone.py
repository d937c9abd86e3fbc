"""The single files of `make standalone`: each dist/<tool>.py runs copied alone into an empty
directory, with `python3 -I` so that nothing but the standard library can be imported."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import RECORD, ROOT, run_tool

TOOLS = ('updater_a', 'updater_b', 'egress6', 'egress6_win')


@pytest.fixture(scope='module')
def dist(tmp_path_factory):
    """dist/<tool>.py for the four tools, built by tools/standalone.py as `make standalone` does."""
    out = tmp_path_factory.mktemp('dist')
    for tool in TOOLS:
        source = os.path.join(ROOT, 'bin', tool + '.py')
        assert os.path.exists(source), 'bin/%s.py is missing' % tool
        subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'), source,
                        str(out / (tool + '.py'))], check=True)
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
