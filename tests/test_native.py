"""ddkit.native: CPython's private interfaces (_socket, _ssl, _json) are taken only when they are there
and behave as expected, else the public modules (socket, ssl, json) are; DDKIT_PUBLIC_ONLY=1 takes
the public ones. Each case runs in a fresh interpreter, as a tool's run does."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

LIB = os.path.join(ROOT, 'lib')


def run(code, public=False):
    """What a fresh `python3 -I -S` prints running code with the library on its path."""
    env = dict(os.environ, DDKIT_PUBLIC_ONLY='1' if public else '')
    done = subprocess.run([sys.executable, '-I', '-S', '-c', 'import sys; sys.path.insert(0, %r)\n' % LIB + code],
                          env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stderr == '', done.stderr
    return done.stdout.split()


WHICH = ('from ddkit import native\n'
         'print(native.sockets().__name__, native.tls().__name__, type(native.client_context()).__name__,\n'
         '      native.json_scanner(__import__("ddkit.jsontext").jsontext._Options) is not None,\n'
         '      native.json_string().__module__)\n')


def test_the_private_interfaces_are_taken_when_they_behave():
    assert run(WHICH) == ['_socket', '_ssl', '_SSLContext', 'True', '_json']


def test_public_only_takes_every_public_module():
    assert run(WHICH, public=True) == ['socket', 'ssl', 'SSLContext', 'False', 'json']


@pytest.mark.parametrize('public', [False, True], ids=['native', 'public'])
def test_json_reads_and_writes_the_same_either_way(public):
    code = ('from ddkit import jsontext\n'
            'print(jsontext.dumps({"a": [1, 2.5, None, True, "\\u00e9\\""]}))\n'
            'print(jsontext.loads(\'{"a": [1, 2.5, null, true, "x"]}\') == {"a": [1, 2.5, None, True, "x"]})\n'
            'for bad in ("[1,]", "1e999", "NaN", "[" * 40 + "]" * 40):\n'
            '    try:\n'
            '        jsontext.loads(bad)\n'
            '    except ValueError:\n'
            '        print("refused")\n')
    assert run(code, public) == ['{"a":', '[1,', '2.5,', 'null,', 'true,', '"\\u00e9\\""]}', 'True'] + ['refused'] * 4


def test_a_changed_tls_extension_falls_back_to_the_ssl_module():
    """A Python whose _ssl lacks the private context: ssl's public one, which still verifies."""
    code = ('import ssl, _ssl\n_ssl._SSLContext = object   # as if a release renamed it\n'
            'from ddkit import native, wire\n'
            'context = wire.make_context(None)\n'
            'print(native.tls().__name__, type(context).__name__, context.verify_mode == ssl.CERT_REQUIRED,\n'
            '      context.check_hostname)\n')
    assert run(code) == ['ssl', 'SSLContext', 'True', 'True']


def test_a_scanner_that_reads_wrong_is_not_used():
    """A _json whose scanner no longer reads JSON right: json reads instead, and right."""
    code = ('import json, _json   # json has its own scanner already\n_json.make_scanner = lambda context: (lambda text, index: (None, 0))\n'
            'from ddkit import jsontext, native\n'
            'print(native.json_scanner(jsontext._Options) is None, jsontext.loads(\'{"a": [1]}\') == {"a": [1]})\n')
    assert run(code) == ['True', 'True']


# --- os: PosixOs where a process has not imported os (ddkit.native's help) ---------------------------
def test_a_process_started_as_the_tools_start_takes_posix_and_never_imports_os():
    """python3 -I -S has not imported os: the library's os is PosixOs, and using it (the path
    functions, environ, a file) imports neither os nor collections.abc; DDKIT_PUBLIC_ONLY=1 takes os."""
    code = ('from ddkit.native import os\n'
            'fd = os.open(os.path.join(%r, "native.py"), os.O_RDONLY)\n'
            'print(type(os).__name__, os.fstat(fd).st_size > 0, os.path.isdir(os.path.dirname(os.path.abspath("x"))),\n'
            '      os.environ["DDKIT_PUBLIC_ONLY"] == "", "os" in sys.modules, "_collections_abc" in sys.modules)\n'
            % os.path.join(LIB, 'ddkit'))
    assert run(code) == ['PosixOs', 'True', 'True', 'True', 'False', 'False']
    assert run(code.replace('== ""', '== "1"'), public=True) == ['module', 'True', 'True', 'True', 'True', 'True']


def test_the_state_files_of_a_run_import_no_os(tmp_path):
    """What a quiet run does with its files, a missing one among them (state.open_file then asks
    islink), imports neither os nor collections.abc."""
    (tmp_path / 'ip').write_text('192.0.2.1\n')
    os.chmod(str(tmp_path / 'ip'), 0o600)
    code = ('from ddkit import state\n'
            'print(state.read_lines(%r), state.read_lines(%r), state.untrusted(%r))\n'
            'print("os" in sys.modules, "_collections_abc" in sys.modules)\n'
            % (str(tmp_path / 'ip'), str(tmp_path / 'missing'), str(tmp_path)))
    assert run(code) == ["['192.0.2.1']", '[]', 'None', 'False', 'False']


def test_what_posix_lacks_comes_from_os_itself():
    """A constant posix lacks, os lacks too: asking for it imports nothing (state.NOFOLLOW's O_BINARY)."""
    code = ('from ddkit.native import os\n'
            'print(hasattr(os, "O_BINARY"), "os" in sys.modules)\n'
            'print(callable(os.makedirs), "os" in sys.modules, os.path.realpath("/") == "/")\n')
    assert run(code) == ['False', 'False', 'True', 'True', 'True']


PATHS = ['', '/', '//', '///', 'a', 'a/', 'a//b', '/a/b/', '//a/b', '///a', 'a/./b/../c', '../a', 'a/../..',
         '/../a', '/a/b/../../..', './', '.', '..', '~', '~/x', '~root/x', 'x/~', '/a/b.c', 'a\u00e9/b',
         'a/b/c/../../d/./e//f/']


def test_posix_path_answers_as_posixpath(tmp_path, monkeypatch):
    """Each function of PosixPath against posixpath on the same paths, files of each type among them."""
    import posix
    import posixpath
    sys.path.insert(0, LIB)
    from ddkit.native import PosixPath
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'file').write_text('x')
    (tmp_path / 'dir').mkdir()
    os.symlink('dir', str(tmp_path / 'link'))
    os.symlink('nowhere', str(tmp_path / 'dangling'))
    os.mkfifo(str(tmp_path / 'fifo'))
    shim = PosixPath(posix, dict(os.environ, HOME='/home/someone/'))
    monkeypatch.setenv('HOME', '/home/someone/')
    on_disk = ['file', 'dir', 'link', 'dangling', 'fifo', 'dir/', 'link/', 'file/', 'missing', 'nul\0byte',
               str(tmp_path / 'link' / '..' / 'file')]
    for path in PATHS + on_disk:
        for name in ('split', 'dirname', 'basename', 'isabs', 'normpath', 'abspath', 'exists', 'isfile', 'isdir',
                     'islink', 'expanduser', 'lexists'):   # the last: posixpath's own
            if '\0' in path and name in ('abspath', 'normpath', 'split', 'dirname', 'basename', 'isabs', 'expanduser'):
                continue
            assert getattr(shim, name)(path) == getattr(posixpath, name)(path), (name, path)
        for other in PATHS[:8]:
            assert shim.join(path, other) == posixpath.join(path, other), (path, other)
            assert shim.join(path, other, 'z') == posixpath.join(path, other, 'z'), (path, other)
    assert shim.realpath(str(tmp_path / 'link')) == posixpath.realpath(str(tmp_path / 'link'))   # posixpath's


def test_posix_os_environ_is_os_environ_and_fdopen_opens(tmp_path):
    """Values os decodes with surrogateescape (not UTF-8) come out the same; fdopen gives a file."""
    env = dict(os.environ, DDKIT_ODD=b'caf\xe9'.decode('utf-8', 'surrogateescape'), DDKIT_PUBLIC_ONLY='')
    code = ('from ddkit.native import os\n'
            'import posix\n'
            'print(type(os).__name__, ascii(os.environ["DDKIT_ODD"]), len(os.environ) == len(posix.environ))\n'
            'with os.fdopen(os.open(%r, os.O_RDONLY), encoding="utf-8") as f:\n'
            '    print(f.read())\n' % str(tmp_path / 'text'))
    (tmp_path / 'text').write_text('read')
    done = subprocess.run([sys.executable, '-I', '-S', '-c', 'import sys; sys.path.insert(0, %r)\n' % LIB + code],
                          env=env, capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == ['PosixOs', "'caf\\udce9'", 'True', 'read'], done.stderr
