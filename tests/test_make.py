"""The top-level Makefile as a newcomer meets it: `make` lists the targets, an offline `make test`
says what is missing and how to install it, `make bench` rewrites BENCHMARKS.md only when asked."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(not shutil.which('make'), reason='GNU make is not installed')


def make(*args, env=None):
    """make as a user runs it: not as a sub-make of `make test` (MAKEFLAGS, MAKELEVEL would add its
    "Entering directory" lines and flags)."""
    base = {k: v for k, v in os.environ.items() if k not in ('MAKEFLAGS', 'MAKELEVEL', 'MFLAGS')}
    return subprocess.run(['make'] + list(args), cwd=ROOT, capture_output=True, text=True,
                          env=dict(base, **(env or {})))


def test_make_alone_lists_the_targets_and_builds_nothing():
    done = make('-s')
    assert done.returncode == 0, done.stderr
    for target in ('demo', 'test', 'standalone', 'feed', 'dist/apk/', 'APK_KEY=', 'bench', 'WHEELS=', 'WRITE=1'):
        assert target in done.stdout
    assert all(line.startswith('echo ') for line in make('-n').stdout.splitlines())


def test_offline_install_of_the_test_tools_says_what_is_missing_and_how(tmp_path):
    # a package index nobody answers at stands for a machine without internet
    venv = str(tmp_path / 'venv')
    done = make('VENV=' + venv, 'PYTHON=' + sys.executable, venv + '/.installed',
                env={'PIP_INDEX_URL': 'http://127.0.0.1:9/simple', 'PIP_RETRIES': '0', 'PIP_TIMEOUT': '2',
                     'PIP_NO_CACHE_DIR': '1'})
    assert done.returncode != 0
    assert 'pytest' in done.stderr and 'trustme' in done.stderr
    # pip wheel, not pip download: a test tool published as a source package alone is built into a wheel
    # there (offline, its build would need setuptools from the wheels directory)
    assert 'pip wheel -w wheels -r tests/requirements.txt' in done.stderr
    assert 'make test WHEELS=wheels' in done.stderr
    assert not os.path.exists(venv + '/.installed')


def test_make_bench_writes_benchmarks_md_only_with_write():
    assert '--write' not in make('-n', 'bench').stdout
    assert 'tools/bench.py --write BENCHMARKS.md' in make('-n', 'bench', 'WRITE=1').stdout
