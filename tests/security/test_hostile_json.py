"""ddkit.jsontext bounds what it reads, on both of its paths (CPython's _json scanner, and the json
package where _json is missing): numbers out of range, NaN and Infinity, and nesting of any depth are
one ValueError, never an inf, a nan, a huge int or a RecursionError further on."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HOSTILE = ['[1e999]', '[-1e999]', '{"code": 1e400}', '[NaN]', '{"ttl": Infinity}', '[-Infinity]',
           '[%s]' % ('7' * 60000), '[-%s]' % ('9' * 41), '[' * 100000, '{"a":' * 100000,
           '[' * 33 + ']' * 33, '{"e": [{"code": %s}]}' % ('[' * 985 + ']' * 985),
           '[' * 40 + '1' + ']' * 40 + ' trailing']
FINE = ['{"code": 1e308, "n": -12345678901234567890, "f": 0.5, "ttl": 120}', '[' * 32 + ']' * 32,
        '{"ip": "240e::2", "deep": [[[{"a": [1, {"b": null}]}]]]}']

PROBE = r'''
import json, sys
if sys.argv[1] == 'no _json':
    sys.modules['_json'] = None   # as where the interpreter is built without it
sys.path.insert(0, sys.argv[2])
from ddkit import jsontext
out = []
for text in json.load(sys.stdin):
    try:
        value = jsontext.loads(text)
        out.append(['ok', json.dumps(value)])
    except ValueError as e:
        out.append(['ValueError', str(e)[:100]])
print(json.dumps(out))
'''


@pytest.mark.parametrize('path', ['_json', 'no _json'])
def test_numbers_and_nesting_are_bounded(path):
    done = subprocess.run([sys.executable, '-I', '-c', PROBE, path, os.path.join(ROOT, 'lib')],
                          input=json.dumps(HOSTILE + FINE), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr       # no RecursionError, no OverflowError: no traceback
    got = json.loads(done.stdout)
    for text, (kind, detail) in zip(HOSTILE, got):
        assert kind == 'ValueError', (text[:60], detail)
    for text, (kind, detail) in zip(FINE, got[len(HOSTILE):]):
        assert kind == 'ok' and json.loads(detail) == json.loads(text), (text, detail)
