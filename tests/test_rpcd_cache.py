"""The LuCI page's rpcd plugin keeps its compiled code where the installed commands keep theirs: it
starts as the ddkit command's own stub does, so its module and the library are compiled once into
$TMPDIR/ddkit-<uid>-pyc/ (RAM on a router) and read from there by every later call (the page polls
the status every 30 s). Nothing is ever written beside the packages' code (flash); a cache directory
another user could have made or changed is not used, nor a stub another user could change; and a call
that cannot use the cache still answers, compiling as it goes."""

import json
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

import needs
from apk_root import walk
from openwrt_env import feed, install, ipk_path, signify_key  # noqa: F401  (fixtures: the feed as make feed builds it)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'lib'))
from ddkit import registry  # noqa: E402

PROVIDER = registry.PROVIDERS[0]
PACKAGES = ['ddkit', 'ddkit-ddns', 'ddkit-command', 'luci-app-ddkit', 'ddkit-' + PROVIDER]
RECORD = 'home.example.com'
OTHER = 65534   # nobody: the other user


@pytest.fixture
def router(feed, tmp_path):
    """The page's packages unpacked into a root as opkg does, and a UCI file of one record."""
    root = tmp_path / 'root'
    for name in PACKAGES:
        install(ipk_path(feed, name), str(root))
    config = tmp_path / 'ddkit'
    config.write_text("config ddkit 'home'\n\toption enabled '1'\n\toption provider '%s'\n"
                      "\toption record_name '%s'\n\toption state_dir '%s'\n" % (PROVIDER, RECORD, tmp_path / 'state'))
    config.chmod(0o600)
    return root


def call(root, tmp, method='status'):
    """The plugin's answer to one call, run as rpcd runs it (its first line: python3 -IS)."""
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'TMPDIR': str(tmp),
           'DDNS_UCI_FILE': str(root.parent / 'ddkit')}
    done = subprocess.run([sys.executable, '-I', '-S', str(root / 'usr' / 'libexec' / 'rpcd' / 'luci.ddkit'),
                           'call', method], input=b'{}', capture_output=True, env=env, timeout=60)
    assert done.returncode == 0 and done.stderr == b'', done.stderr
    answer = json.loads(done.stdout)
    if method == 'status':
        records = [(r['section'], r['name'], r['outcome']) for r in answer['records']]
        assert records == [('home', RECORD, 'never')], answer
    return answer


def command(root, tmp, args):
    """The installed ddkit command, as cron runs it."""
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'TMPDIR': str(tmp),
           'DDNS_UCI_FILE': str(root.parent / 'ddkit')}
    done = subprocess.run([sys.executable, '-I', '-S', str(root / 'usr' / 'bin' / 'ddkit')] + args,
                          capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done


def tree(root):
    """{path: (mode, owner, size, mtime)} of everything under root (the flash of a router)."""
    return walk(root, lambda path, st: (st.st_mode, st.st_uid, st.st_size, st.st_mtime_ns))


def compiled(folder):
    return sorted(os.path.join(d, f) for d, _, names in os.walk(str(folder)) for f in names)


def cache_dir(tmp):
    return tmp / ('ddkit-%d-pyc' % os.getuid())


def made_tmp(tmp_path, mode=0o755, name='tmp'):
    tmp = tmp_path / name
    tmp.mkdir()
    tmp.chmod(mode)
    return tmp


def test_the_second_call_compiles_nothing_and_the_command_finds_the_library_compiled(router, tmp_path):
    tmp = made_tmp(tmp_path)
    flash = tree(router)
    first = call(router, tmp)
    folder = cache_dir(tmp)
    st = os.lstat(str(folder))
    assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.getuid()
    files = compiled(folder)
    code = os.path.join(str(router).lstrip(os.sep), 'usr', 'lib', 'ddkit')
    tag = sys.implementation.cache_tag
    for module in ('luci_ddkit', 'ddkit/__init__', 'ddkit/updater', 'ddkit/status'):
        assert [f for f in files if f.endswith(os.path.join(code, '%s.%s.pyc' % (module, tag)))], (module, files)
    assert tree(router) == flash   # nothing beside the code

    for f in files:
        os.utime(f, (1, 1))
    assert call(router, tmp) == first
    # nothing compiled: a module compiled again would have its .pyc written again
    assert compiled(folder) == files and all(os.stat(f).st_mtime == 1 for f in files)

    # the command's own cache: its run compiles only its own module, the library is there
    command(router, tmp, ['--status', '--json', '--all'])
    assert [os.path.basename(f) for f in compiled(folder) if f not in files] == ['ddkit_command.%s.pyc' % tag]
    assert tree(router) == flash


@pytest.mark.parametrize('case', ['world-writable', 'group-writable', 'foreign-owned', 'symlink',
                                  'in a TMPDIR others can change'])
def test_a_cache_directory_another_user_could_have_made_or_changed_is_not_used(router, tmp_path, case):
    """The call answers, compiling as it goes: nothing is written there, nor beside the code."""
    if case == 'foreign-owned' and os.geteuid() != 0:
        needs.missing('needs root to give the directory to another user')
    tmp = made_tmp(tmp_path, 0o777 if case == 'in a TMPDIR others can change' else 0o755)
    folder, elsewhere = cache_dir(tmp), tmp_path / 'elsewhere'
    if case == 'symlink':
        elsewhere.mkdir()
        elsewhere.chmod(0o700)
        folder.symlink_to(elsewhere)
    elif case != 'in a TMPDIR others can change':
        folder.mkdir()
        folder.chmod({'world-writable': 0o777, 'group-writable': 0o770}.get(case, 0o700))
        if case == 'foreign-owned':
            os.chown(str(folder), OTHER, OTHER)
    flash = tree(router)
    for _ in range(2):
        call(router, tmp)
    if case == 'in a TMPDIR others can change':
        assert os.listdir(str(tmp)) == []
    else:
        assert compiled(elsewhere if case == 'symlink' else folder) == []
        assert os.listdir(str(tmp)) == [folder.name]
    assert tree(router) == flash


@pytest.mark.parametrize('case', ['no TMPDIR', 'TMPDIR a file', 'the build folder a file'])
def test_a_call_that_cannot_write_the_cache_still_answers(router, tmp_path, case):
    """No TMPDIR, or no folder it could make or write there: each call answers, compiling as it goes,
    and nothing is written beside the code."""
    tmp = tmp_path / 'tmp'
    if case == 'TMPDIR a file':
        tmp.write_text('')
    elif case == 'the build folder a file':   # where this build's .pyc files would go
        tmp.mkdir()
        stub = (router / 'usr' / 'bin' / 'ddkit').read_text()
        build = re.search(r"pycache_prefix = _cache \+ '/([0-9a-f]+)'", stub).group(1)
        folder = cache_dir(tmp)
        folder.mkdir(mode=0o700)
        (folder / build).write_text('')
    flash = tree(router)
    for _ in range(2):
        call(router, tmp)
    assert tree(router) == flash
    if case == 'no TMPDIR':
        assert not tmp.exists()
    elif case == 'the build folder a file':
        assert compiled(cache_dir(tmp)) == [str(cache_dir(tmp) / build)]


@pytest.mark.parametrize('case', ['writable by others', 'foreign-owned', 'symlink', 'without the guard',
                                  'cut short'])
def test_a_command_stub_the_plugin_cannot_trust_or_run_is_not_used(router, tmp_path, case):
    """/usr/bin/ddkit that another user could change (or a link to one), one that would run the
    command itself (no `if __name__ == '__main__':`), or one cut short: the plugin answers from the
    library, uncached."""
    if case == 'foreign-owned' and os.geteuid() != 0:
        needs.missing('needs root to give the file to another user')
    stub = router / 'usr' / 'bin' / 'ddkit'
    if case == 'writable by others':
        stub.chmod(0o757)
    elif case == 'foreign-owned':
        os.chown(str(stub), OTHER, OTHER)
    elif case == 'symlink':
        shutil.move(str(stub), str(router / 'usr' / 'bin' / 'ddkit.real'))
        stub.symlink_to('ddkit.real')
    elif case == 'cut short':
        stub.write_bytes(stub.read_bytes()[:-len(b'main())\n')])   # sys.exit( never closed
    else:   # the stub as it was before the plugin started as it
        old = re.sub(r"if __name__ == '__main__':[^\n]*\n    (from \w+ import main)\n    (sys\.exit\(main\(\)\))\n",
                     r'\1\n\n\2\n', stub.read_text())
        assert old != stub.read_text()
        stub.write_text(old)
        ran = command(router, made_tmp(tmp_path, name='command-tmp'), ['--help'])
        assert ran.stdout.startswith(b'usage: ddkit ')   # still the command
    tmp = made_tmp(tmp_path)
    flash = tree(router)
    for _ in range(2):
        call(router, tmp)
    assert os.listdir(str(tmp)) == []
    assert tree(router) == flash
