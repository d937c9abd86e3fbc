"""A tool whose stdout is closed early (`updater_a | head -1`, a terminal gone) stops printing, not
working: no traceback, the update is done, the log file has every line."""

import os

import pytest

from conftest import RECORD, run_tool
from providers import TOOLS, of  # noqa: E402


@pytest.fixture
def closed_stdout():
    """A pipe whose reading end is closed: every write to it fails (EPIPE)."""
    read, write = os.pipe()
    os.close(read)
    yield write
    os.close(write)


@pytest.mark.parametrize('tool', ['updater_a', 'updater_b', 'egress6'])
def test_help_into_a_closed_pipe_is_no_error(tool, closed_stdout):
    done = run_tool(tool, ['--help'], stdout=closed_stdout)
    assert done.returncode == 0 and done.stderr == '', done.stderr


@pytest.mark.parametrize('tool', TOOLS)
def test_an_update_with_stdout_closed_still_completes_and_logs(box, tmp_path, tool, closed_stdout):
    of(tool).add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    env = of(tool).env(box, tmp_path)
    done = run_tool(tool, env=env, stdout=closed_stdout)
    assert done.returncode == 0 and 'Traceback' not in done.stderr, done.stderr
    assert of(tool).held(box, RECORD) == of(tool).content('81.2.69.10')
    with open(os.path.join(str(tmp_path), '%s_%s.log' % (tool, RECORD))) as f:
        log = f.read()
    assert 'IP changed from 81.2.69.1 to 81.2.69.10' in log and 'IP has been updated to: 81.2.69.10' in log


def test_a_line_without_a_secret_computes_no_masks():
    """A secret of unreserved characters alone is shown only as it is: a line that holds its letters
    but not itself (a proxy password 'secret' against 'IP has not changed ... verified at the
    provider') loads nothing of ddkit.mask, the forms a quiet run has no use for; one that holds it is
    masked."""
    import subprocess
    import sys
    from conftest import ROOT
    code = ('import sys; sys.path.insert(0, %r); from ddkit.log import Log; log = Log(secrets=["secret", "bench:secret"]); '
            'print(log.clean("IP has not changed: 240e::2 (last verified at the provider: 2026-11-27 20:00:00)")); '
            'print("ddkit.mask" in sys.modules); print(log.clean("the proxy said: secret")); '
            'print("ddkit.mask" in sys.modules)' % os.path.join(ROOT, 'lib'))
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.split('\n')
    assert out[:4] == ['IP has not changed: 240e::2 (last verified at the provider: 2026-11-27 20:00:00)', 'False',
                       'the proxy said: ***', 'True'], out
