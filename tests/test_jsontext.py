"""ddkit.jsontext reads and writes JSON like the json package, without importing it (start-up cost)."""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import jsontext  # noqa: E402


@pytest.mark.parametrize('text', [
    '{"success": true, "errors": [], "result": {"id": "abc", "ttl": 1, "proxied": false, "x": null}}',
    ' \n[1, -2.5e3, "\\u00e9\\n", {"a": {"b": []}}]\r\n', '"just a string"', '42',
    '{"ip": "240e::2", "asn_name": "CHINANET \\ud83d\\ude00"}', '{"a": 1, "a": 2}',
])
def test_loads_gives_what_json_gives(text):
    got, want = jsontext.loads(text), json.loads(text)
    assert json.dumps(got) == json.dumps(want)


# (what json accepts and jsontext refuses, NaN, 1e999 and deep nesting: tests/security/test_hostile_json.py)
@pytest.mark.parametrize('text', ['', '   ', '{"success": true, "result": [', '{"a": 1} trailing', "{'a': 1}",
                                  '<html>', '{"a": "\x01"}', '[' * 100000])
def test_loads_refuses_what_json_refuses(text):
    with pytest.raises((ValueError, RecursionError)):
        json.loads(text)
    with pytest.raises((ValueError, RecursionError)):
        jsontext.loads(text)


@pytest.mark.parametrize('value', [
    {'id': 'z', 'type': 'AAAA', 'name': 'home.example.com', 'content': '240e::2', 'ttl': 1, 'proxied': False,
     'comment': None, 'tags': ['a:b', 'é"\\\n']},
    {'auth': {'identity': {'methods': ['password']}}, 'n': 120, 'f': 1.5}, [], {}, 'x', True, None,
])
def test_dumps_gives_what_json_gives(value):
    assert jsontext.dumps(value) == json.dumps(value)


@pytest.mark.parametrize('value', [float('nan'), {1: 'x'}, object()])
def test_dumps_refuses_what_is_not_json(value):
    with pytest.raises((ValueError, TypeError)):
        jsontext.dumps(value)


@pytest.mark.usefixtures('native_interfaces')
def test_it_does_not_load_the_json_package():
    code = ('import sys; sys.path.insert(0, %r); from ddkit import jsontext; '
            'jsontext.loads(jsontext.dumps({"a": [1, "b"]})); print("json" in sys.modules, "re" in sys.modules)'
            % os.path.join(ROOT, 'lib'))
    done = subprocess.run([sys.executable, '-I', '-c', code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ['False', 'False']


@pytest.mark.parametrize('text', ['{"success": true, "result": [],}', '{"a": "unterminated', '[1, 2,]'])
def test_bad_json_is_a_value_error_in_a_fresh_interpreter(text):
    """The C scanner of some Python releases reports these errors through json.decoder, which a run
    has not imported: a SystemError then, which must end as the ValueError every caller expects (a
    provider's broken answer is a failure line, never a traceback)."""
    code = ('import sys; sys.path.insert(0, %r)\nfrom ddkit import jsontext\ntry:\n    jsontext.loads(%r)\n'
            'except ValueError:\n    print("ValueError")\n' % (os.path.join(ROOT, 'lib'), text))
    done = subprocess.run([sys.executable, '-I', '-S', '-c', code], capture_output=True, text=True, timeout=30)
    assert done.stdout == 'ValueError\n' and done.stderr == '', done.stderr
