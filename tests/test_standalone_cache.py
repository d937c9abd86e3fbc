"""The single file unpacks its modules into a private folder ($TMPDIR/ddkit-<uid>/<tool>-<build>/) where
Python keeps their compiled code, so that a cron run on a router compiles a few lines, not ~60 KB of
Python; a folder it cannot trust is never used."""

import os
import shutil
import stat
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(os.name != 'posix', reason='the code cache is for POSIX hosts')


def run(single, tmp, *args, **env):
    full = {k: v for k, v in os.environ.items() if not k.startswith(('DDNS_', 'PYTHON'))}
    full.update(TMPDIR=str(tmp), **env)
    done = subprocess.run([sys.executable, single] + list(args or ['--help']), env=full,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith('usage: updater_a.py'), done.stdout + done.stderr
    return done


def cache_of(tmp):
    """This user's private folder, and the single file's unpacked copy in it (one per build)."""
    folder = tmp / ('ddkit-%d' % os.getuid())
    found = sorted(folder.glob('updater_a-*')) if folder.exists() else []
    return folder, found[0] if found else None


def sources(copy):
    return sorted(str(p.relative_to(copy)) for p in copy.rglob('*.py'))


def test_first_run_unpacks_into_a_private_folder_where_python_keeps_the_compiled_code(single, tmp_path):
    run(single, tmp_path)
    folder, copy = cache_of(tmp_path)
    assert stat.S_IMODE(os.stat(str(folder)).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(str(copy)).st_mode) == 0o700
    unpacked = sources(copy)
    assert 'updater_a.py' in unpacked and 'ddkit/__init__.py' in unpacked and 'ddkit/wire.py' in unpacked
    assert all(stat.S_IMODE(os.stat(str(copy / p)).st_mode) == 0o600 for p in unpacked)
    compiled = sorted(p.name for p in copy.rglob('*.pyc'))
    # what --help imported, compiled once and kept; what it did not import, not compiled
    assert any(n.startswith('settings.') for n in compiled) and not any(n.startswith('wire.') for n in compiled)
    before = {p: (os.stat(str(p)).st_ino, os.stat(str(p)).st_mtime_ns) for p in copy.rglob('*')}
    run(single, tmp_path)
    assert {p: (os.stat(str(p)).st_ino, os.stat(str(p)).st_mtime_ns) for p in copy.rglob('*')} == before


def test_a_run_from_the_unpacked_copy_needs_nothing_of_the_file_but_its_start(single, tmp_path):
    run(single, tmp_path)
    with open(single, encoding='utf-8') as f:
        text = f.read()
    start = text.index('# --- the data of the single file')
    assert all(line.startswith('#') for line in text[start:].splitlines())  # the code is in comments
    # what Python compiles on every run: 3 KB until the trust check of TMPDIR resolved links itself,
    # with posix (ddkit.native: importing os cost more than the check now compiles)
    assert len(text[:start]) < 3400
    cut = tmp_path / 'updater_a.py'
    cut.write_text(text[:start])
    run(str(cut), tmp_path)
    shutil.rmtree(str(cache_of(tmp_path)[1]))   # without the copy, a cut file says what is wrong
    done = subprocess.run([sys.executable, str(cut), '--help'], env=dict(os.environ, TMPDIR=str(tmp_path)),
                          capture_output=True, text=True)
    assert done.returncode == 1 and 'this single file is incomplete' in done.stderr, done.stderr


def test_a_folder_others_can_write_is_neither_read_nor_written(single, tmp_path):
    folder, _ = cache_of(tmp_path)
    folder.mkdir()
    os.chmod(str(folder), 0o777)
    run(single, tmp_path)
    assert list(folder.iterdir()) == []


def test_a_copy_unpacked_in_part_is_unpacked_again(single, tmp_path):
    run(single, tmp_path)
    _, copy = cache_of(tmp_path)
    unpacked = sources(copy)
    (copy / 'updater_a.py').unlink()   # the last file written: an unpacking cut short
    (copy / 'ddkit' / 'settings.py').write_text('half a modu')
    run(single, tmp_path)
    assert sources(copy) == unpacked and 'def load(' in (copy / 'ddkit' / 'settings.py').read_text()


def test_an_unpacking_that_fails_half_way_is_never_run(single, tmp_path):
    """The tool's module is written last, as the mark of a complete copy: an unpacking stopped by an
    error (here a directory where a library module goes) leaves no copy a later run would trust."""
    with open(single, encoding='utf-8') as f:
        build = next(line.split("'")[1] for line in f if line.startswith('_BUILD = '))
    folder = tmp_path / ('ddkit-%d' % os.getuid())
    blocked = folder / ('updater_a-' + build) / 'ddkit' / 'settings.py'
    blocked.mkdir(mode=0o700, parents=True)
    for path in (folder, blocked.parent.parent, blocked.parent):
        os.chmod(str(path), 0o700)
    for _ in range(2):  # both runs: from the file itself, since no complete copy exists
        run(single, tmp_path)
        assert not (blocked.parent.parent / 'updater_a.py').exists()


def test_other_builds_of_the_tool_are_removed(single, tmp_path):
    folder, _ = cache_of(tmp_path)
    folder.mkdir(mode=0o700)
    for old in ('updater_a-0000000000000000', 'updater_b-0000000000000000'):
        (folder / old / 'ddkit').mkdir(mode=0o700, parents=True)
        (folder / old / 'ddkit' / '__init__.py').write_text('old')
    (folder / ('updater_a.' + sys.implementation.cache_tag)).write_bytes(b'the cache file of earlier versions')
    run(single, tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [cache_of(tmp_path)[1].name, 'updater_b-0000000000000000'])  # another tool's: kept


def test_nothing_is_written_when_bytecode_writing_is_off(single, tmp_path):
    run(single, tmp_path, PYTHONDONTWRITEBYTECODE='1')
    assert not cache_of(tmp_path)[0].exists()


def test_show_prints_the_tool_and_each_inlined_module(single):
    done = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'), '--show', single],
                          capture_output=True, text=True, check=True)
    assert '# ===== updater_a (the tool) =====' in done.stdout
    assert '# ===== ddkit.wire =====' in done.stdout and 'def exchange(' in done.stdout
    assert '"""' not in done.stdout.split('# ===== ddkit =====')[1]  # docstrings dropped


def test_a_tool_over_the_size_budget_stays_readable_and_the_build_warns(tmp_path):
    # a user must be able to read what they copy to a router: the tool's code is never compressed
    out = str(tmp_path / 'updater_a.py')
    code = ('import sys; sys.path.insert(0, %r); import standalone; standalone.BUDGET = 1000; '
            'standalone.main(["standalone.py", %r, %r])'
            % (os.path.join(ROOT, 'tools'), os.path.join(ROOT, 'bin', 'updater_a.py'), out))
    done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True)
    assert 'over the 1000-byte budget' in done.stderr
    with open(out) as f:
        text = f.read()
    assert '\n#| def main(' in text and 'compressed (plain' not in text
    assert run(out, tmp_path)


def test_the_start_raises_the_collectors_threshold_and_the_library_does_not(single, tmp_path):
    """A run makes few reference cycles: the single file's start and the stubs raise the cyclic
    collector's first threshold (its passes over what the imports make cost a run 2% of its CPU), and
    nothing else changes it (a library imported in another program leaves its collector alone)."""
    env = dict(os.environ, TMPDIR=str(tmp_path))
    code = ('import atexit, gc, runpy, sys   # atexit loaded: the tool exits by sys.exit (ddkit.exit_quickly)\n'
            'sys.argv = [%r, "--help"]\n'
            'try:\n'
            '    runpy.run_path(%r, run_name="__main__")\n'
            'except SystemExit:\n'
            '    pass\n'
            'sys.stderr.write("threshold %%d\\n" %% gc.get_threshold()[0])\n' % (single, single))
    done = subprocess.run([sys.executable, '-I', '-S', '-c', code], env=env, capture_output=True, text=True, timeout=60)
    assert 'threshold 10000' in done.stderr, done.stderr[-500:]
    library = subprocess.run([sys.executable, '-I', '-S', '-c', 'import sys, gc; sys.path.insert(0, %r)\n'
                              'from ddkit import updater, registry\nprint(gc.get_threshold()[0])'
                              % os.path.join(ROOT, 'lib')], capture_output=True, text=True, timeout=60)
    assert library.stdout.split() == ['700'], library.stderr
