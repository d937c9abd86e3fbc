"""Issue 13: root imports the code the single file unpacks ($TMPDIR/ddkit-<uid>/) and the compiled code
of the installed tools ($TMPDIR/ddkit-<uid>-pyc/). In a TMPDIR another user could change (writable by
others and not sticky, or below such a directory) that user could move root's folder aside and put
code of theirs in its place: then nothing is unpacked or cached there, and the tool still runs."""

import os
import subprocess
import sys

import pytest

from attacker import place  # noqa: F401  (the fixture)
from conftest import ROOT, run_tool


@pytest.fixture(scope='module')
def stub(tmp_path_factory):
    root = tmp_path_factory.mktemp('router')
    subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'), '--installed', str(root),
                    os.path.join(ROOT, 'bin', 'updater_a.py')], check=True)
    return str(root / 'usr' / 'bin' / 'updater_a')


def tmpdir(place, how):
    """A TMPDIR of the given kind under the root-owned base directory."""
    path = os.path.join(place.base, 'tmp')
    os.mkdir(path)
    os.chmod(path, {'writable by others': 0o777, 'writable by its group': 0o770, 'sticky': 0o1777,
                    'below one writable by others': 0o755}.get(how, 0o755))
    if how == 'below one writable by others':
        os.chmod(place.base, 0o777)
    return path


def run(tool, tmp):
    env = {k: v for k, v in os.environ.items() if not k.startswith(('DDNS_', 'PYTHON'))}
    env.update(TMPDIR=tmp, PYTHONDONTWRITEBYTECODE='')
    done = run_tool(tool, ['--help'], env=env)
    assert done.returncode == 0 and done.stdout.startswith('usage: updater_a'), done.stdout + done.stderr
    return done


UNTRUSTED = ['writable by others', 'writable by its group', 'below one writable by others']


@pytest.mark.parametrize('how', UNTRUSTED)
def test_the_single_file_unpacks_nothing_into_a_tmpdir_others_can_change(single, place, how):
    tmp = tmpdir(place, how)
    run(single, tmp)
    assert os.listdir(tmp) == []


@pytest.mark.parametrize('how', UNTRUSTED)
def test_the_installed_tool_caches_no_code_in_a_tmpdir_others_can_change(stub, place, how):
    tmp = tmpdir(place, how)
    run(stub, tmp)
    assert os.listdir(tmp) == []


@pytest.mark.parametrize('which', ['single', 'stub'])
def test_a_sticky_tmpdir_like_tmp_is_used(single, stub, place, which):
    tmp = tmpdir(place, 'sticky')
    run(single if which == 'single' else stub, tmp)
    assert os.listdir(tmp) == ['ddkit-%d%s' % (os.getuid(), '' if which == 'single' else '-pyc')]
