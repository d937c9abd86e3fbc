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
