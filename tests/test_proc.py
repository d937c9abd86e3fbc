"""ddkit.proc runs the firewall tools without the subprocess module (start-up cost)."""

import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import proc  # noqa: E402


def test_output_status_and_stderr_are_kept_apart():
    code, out, err = proc.run(['sh', '-c', 'echo out; echo err >&2; exit 3'])
    assert (code, out, err) == (3, 'out\n', 'err\n')


def test_large_output_on_both_streams_does_not_deadlock():
    code, out, err = proc.run(['sh', '-c', 'head -c 300000 /dev/zero | tr "\\0" a; '
                                           'head -c 300000 /dev/zero | tr "\\0" b >&2'])
    assert code == 0 and len(out) == 300000 and len(err) == 300000


def test_stdin_is_empty_and_the_environment_is_passed(monkeypatch):
    monkeypatch.setenv('DDKIT_PROC_TEST', 'x1')
    assert proc.run(['sh', '-c', 'cat; echo "$DDKIT_PROC_TEST"'])[1] == 'x1\n'


def test_missing_program_is_an_oserror():
    with pytest.raises(OSError):
        proc.run(['ddkit-no-such-program'])


def test_a_hung_program_is_killed_at_the_timeout():
    with pytest.raises(TimeoutError):
        proc.run(['sleep', '5'], timeout=0.3)


def test_killed_program_reports_its_signal():
    assert proc.run(['sh', '-c', 'kill -9 $$'])[0] == -9
