"""The single file keeps its compiled code in a private cache ($TMPDIR/ddkit-<uid>/), so that a cron run
on a router does not compile ~60 KB of Python each time; a cache it cannot trust is never used."""

import os
import stat
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(os.name != 'posix', reason='the code cache is for POSIX hosts')


@pytest.fixture(scope='module')
def single(tmp_path_factory):
    out = str(tmp_path_factory.mktemp('dist') / 'updater_a.py')
    subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'),
                    os.path.join(ROOT, 'bin', 'updater_a.py'), out], check=True)
    return out


def run(single, tmp, *args, **env):
    full = {k: v for k, v in os.environ.items() if not k.startswith(('DDNS_', 'PYTHON'))}
    full.update(TMPDIR=str(tmp), **env)
    done = subprocess.run([sys.executable, single] + list(args or ['--help']), env=full,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith('usage: updater_a.py'), done.stdout + done.stderr
    return done


def cache_of(tmp):
    folder = tmp / ('ddkit-%d' % os.getuid())
    return folder, folder / ('updater_a.' + sys.implementation.cache_tag)


def test_first_run_fills_a_private_cache_that_later_runs_read(single, tmp_path):
    run(single, tmp_path)
    folder, cache = cache_of(tmp_path)
    assert stat.S_IMODE(os.stat(str(folder)).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(str(cache)).st_mode) == 0o600
    with open(str(cache), 'rb') as f:
        assert f.readline().startswith(b'ddkit ')
    os.utime(str(cache), (1, 1))
    run(single, tmp_path)
    assert os.stat(str(cache)).st_mtime == 1  # read, not rewritten


def test_cache_in_a_folder_others_can_write_is_neither_read_nor_written(single, tmp_path):
    folder, cache = cache_of(tmp_path)
    folder.mkdir()
    os.chmod(str(folder), 0o777)
    run(single, tmp_path)
    assert not cache.exists()


def test_torn_or_foreign_cache_is_compiled_again(single, tmp_path):
    run(single, tmp_path)
    folder, cache = cache_of(tmp_path)
    with open(str(cache), 'rb') as f:
        stamp = f.readline()
    for content in (stamp + b'\xff\x00garbage', b'ddkit 0000000000000000 other python\n' + b'x' * 50):
        cache.write_bytes(content)
        run(single, tmp_path)
        with open(str(cache), 'rb') as f:
            assert f.readline() == stamp


def test_no_cache_is_written_when_bytecode_writing_is_off(single, tmp_path):
    run(single, tmp_path, PYTHONDONTWRITEBYTECODE='1')
    assert not cache_of(tmp_path)[0].exists()


def test_show_prints_the_tool_and_each_inlined_module(single):
    done = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'), '--show', single],
                          capture_output=True, text=True, check=True)
    assert '# ===== updater_a (the tool) =====' in done.stdout
    assert '# ===== ddkit.wire =====' in done.stdout and 'def exchange(' in done.stdout
    assert '"""' not in done.stdout.split('# ===== ddkit =====')[1]  # docstrings dropped


def test_a_tool_over_the_size_budget_is_compressed_whole_and_still_runs(tmp_path):
    out = str(tmp_path / 'updater_a.py')
    code = ('import sys; sys.path.insert(0, %r); import standalone; standalone.BUDGET = 1000; '
            'standalone.main(["standalone.py", %r, %r])'
            % (os.path.join(ROOT, 'tools'), os.path.join(ROOT, 'bin', 'updater_a.py'), out))
    subprocess.run([sys.executable, '-c', code], check=True)
    with open(out) as f:
        text = f.read()
    assert '\n_TOOL = None\n' in text and 'The tool and the library (lib/ddkit/) are in _LIB' in text
    for _ in range(2):  # compiled, then from the cache
        run(out, tmp_path)
    assert run(out, tmp_path, PYTHONDONTWRITEBYTECODE='1')  # and without a cache
