"""A test that runs a tool as another user (nobody) runs a copy that user can open: the checkout may
lie in a directory closed to others (mode 0700: root's home, a mktemp -d folder), where the tool's
own file cannot be opened by nobody (`make test` there failed each such test with Permission denied)."""

import os
import shutil
import subprocess
import sys

import pytest

import needs
from conftest import ROOT, run_tool
from netns import user_group

AS_NOBODY = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups']


def test_a_tool_run_as_another_user_from_the_checkout_is_refused():
    """run_tool refuses it before anything runs, wherever the checkout lies (in the open too)."""
    with pytest.raises(pytest.fail.Exception) as refused:
        run_tool('ddkit', ['--version'], prefix=AS_NOBODY)
    assert 'for_others' in str(refused.value) and 'bin/ddkit.py' in str(refused.value)
    with pytest.raises(pytest.fail.Exception):
        run_tool(os.path.join(ROOT, 'bin', 'egress6.py'), ['--version'], prefix=['/usr/bin/setpriv'] + AS_NOBODY[1:])


def test_the_copy_runs_as_nobody_in_a_checkout_closed_to_others(for_others, tmp_path):
    """The copy of a tool nobody can open and run, though the checkout it came from is closed to others
    (here: the tool's file copied into a 0700 directory, which nobody cannot open)."""
    python = sys.executable if os.access(sys.executable, os.X_OK) else '/usr/bin/python3'
    if os.geteuid() != 0 or not shutil.which('setpriv'):
        needs.missing('needs root and setpriv (util-linux) to run a tool as nobody')
    prefix = ['setpriv', '--reuid=nobody', '--regid=%s' % user_group('nobody'), '--clear-groups']
    closed = tmp_path / 'closed'
    closed.mkdir(mode=0o700)
    shutil.copy(os.path.join(ROOT, 'bin', 'ddkit.py'), str(closed))
    done = subprocess.run(prefix + [python, '-c', 'open(%r)' % str(closed / 'ddkit.py')],
                          capture_output=True, text=True)
    if 'Permission denied' not in done.stderr:   # the interpreter itself cannot start as nobody
        needs.missing('%s cannot open a file as nobody here: %s' % (python, done.stderr.strip()[:200]))
    tool, guard = for_others('ddkit')
    done = run_tool(tool, ['--version'], env=guard, prefix=prefix, python=python)
    assert done.returncode == 0 and done.stdout.startswith('ddkit '), done.stdout + done.stderr
    assert not tool.startswith(ROOT + os.sep) and oct(os.stat(os.path.dirname(os.path.dirname(tool))).st_mode & 0o777) == '0o755'
