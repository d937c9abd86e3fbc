"""Hostile or broken answers against both updaters: numbers out of every range, JSON nested to any
depth, HTTP framing numbers of 60000 digits, a token Date in the year 10^20, an `inf` in the token
cache. Each row breaks one step at the real fake servers (or the auth file), runs the real updater and
checks: no traceback, the expected exit status with one clear ERROR line, nothing changed at the
provider on a failure, and a healthy run once the fault is gone. A fuzz table at the end sends every
hostile body at every step that reads an answer, and hostile HTTP framing."""

import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'faults'))

from faultkit import NEW, OLD, RECORD, per_tool, rig  # noqa: E402,F401  (rig is a fixture)

LINE = re.compile(r'^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] - ')
DEEP = 985          # just inside Python's recursion limit: it may parse, then fail wherever it is printed
NESTED = '[' * 100000 + ']' * 100000


class Row:
    """One hostile answer: inject(rig) arranges it; the run ends with `rc` saying `says`."""

    def __init__(self, name, inject, rc, says, tools='AB', ids_file=False, ip_file=True, calls=None):
        self.name, self.inject, self.rc, self.says, self.tools = name, inject, rc, says, tools
        self.ids_file, self.ip_file, self.calls = ids_file, ip_file, calls or {}

    def __str__(self):
        return self.name


def reply(step, text, status=400, times=1, **headers):
    """The step answers this body text (JSON or not) as application/json."""
    def inject(rig):
        rig.fail(step, 'reply', times, status=status, text=text,
                 headers=dict({'Content-Type': 'application/json'}, **headers))
    return inject


def a_error(code):
    return '{"success": false, "errors": [{"code": %s, "message": "refused"}], "messages": [], ' \
           '"result": null}' % code


def b_error(code):
    return '{"code": %s, "message": "refused"}' % code


def error(step, code, status=400):
    """The provider's own error shape, its code replaced by raw JSON text."""
    def inject(rig):
        reply(step, (a_error if rig.name == 'A' else b_error)(code), status)(rig)
    return inject


def read_record_ttl(ttl):
    """A: the record read back (ids known) holds this ttl, which an update would send back."""
    def inject(rig):
        rig.fail('read', 'rewrite', answer=lambda r: _raw(r, b'"ttl": 300', b'"ttl": ' + ttl.encode()))
    return inject


def _raw(reply_, old, new):
    assert old in reply_.raw, reply_.raw
    reply_.raw = reply_.raw.replace(old, new)
    return reply_


def retry_after(value, status=429):
    def inject(rig):
        rig.fail('zones', 'status', status=status, retry_after=value, text='slow down')
    return inject


def verbatim(step, head, body=b'', times=3):
    def inject(rig):
        rig.fail(step, 'verbatim', times, head=head, body=body)
    return inject


def token_date(date):
    """B: the token is issued, its answer's Date header says `date`."""
    def inject(rig):
        def rewrite(answer):
            answer.headers['Date'] = date
            return answer
        rig.fail('token', 'rewrite', answer=rewrite)
    return inject


def auth_file(expiry):
    """B: the token cache holds a valid token with this expiry text."""
    def inject(rig):
        rig.write(rig.auth_name, '%s %s\n' % (expiry, rig.provider.issue_token()))
        os.chmod(os.path.join(rig.state_dir, rig.auth_name), 0o600)
    return inject


UPDATED = 'IP has been updated to: ' + NEW
NO_JSON = 'no JSON'

ROWS = [
    # numbers in provider answers
    Row('error code 1e999', error('zones', '1e999'), 1, {'A': NO_JSON, 'B': 'unexpected answer'}),
    Row('error code -1e999', error('zones', '-1e999'), 1, {'A': NO_JSON, 'B': 'unexpected answer'}),
    Row('error code NaN', error('zones', 'NaN'), 1, {'A': NO_JSON, 'B': 'unexpected answer'}),
    Row('error code of 5000 digits', error('zones', '7' * 5000), 1, {'A': NO_JSON, 'B': 'unexpected answer'}),
    Row('error code nested deep', error('zones', '[' * DEEP + ']' * DEEP), 1,
        {'A': NO_JSON, 'B': 'unexpected answer'}),
    Row('ttl NaN in the record read back', read_record_ttl('NaN'), 1, 'read record', tools='A', ids_file=True,
        calls={'update': 0}),
    Row('ttl 1e999 in the record read back', read_record_ttl('1e999'), 1, 'read record', tools='A',
        ids_file=True, calls={'update': 0}),
    Row('ttl of 400 digits in the record read back', read_record_ttl('9' * 400), 1, 'read record',
        tools='A', ids_file=True, calls={'update': 0}),
    Row('total_count Infinity', reply('records', '{"recordsets": [], "metadata": {"total_count": Infinity}}',
                                      status=200), 1, 'find record', tools='B'),
    Row('DoH Status NaN', reply('doh', '{"Status": NaN, "Answer": []}', status=200), 0, UPDATED,
        ip_file=False),
    # JSON nested beyond any depth, at each step that reads JSON
    Row('zones nested 100000 deep', reply('zones', NESTED, status=200), 1, 'find zone'),
    Row('records nested 100000 deep', reply('records', NESTED, status=200), 1, 'find record'),
    Row('update answer nested 100000 deep', reply('update', NESTED, status=200), 1, 'update record',
        tools='A', ids_file=True),
    Row('DoH answer nested 100000 deep', reply('doh', NESTED, status=200), 0, UPDATED, ip_file=False),
    Row('token error nested 100000 deep', reply('token', NESTED, status=401), 1, 'get token', tools='B'),
    Row('token error nested in a field', reply('token', '{"error": {"code": %s, "message": "x"}}'
                                              % ('[' * DEEP + ']' * DEEP), status=401), 1, 'get token',
        tools='B'),
    # HTTP framing and header numbers
    Row('Retry-After nan', retry_after('nan'), 0, UPDATED, calls={'zones': 2}),
    Row('Retry-After inf', retry_after('inf'), 0, UPDATED, calls={'zones': 2}),
    Row('Retry-After -1e999', retry_after('-1e999'), 0, UPDATED, calls={'zones': 2}),
    Row('Retry-After 1e9', retry_after('1e9'), 0, UPDATED, calls={'zones': 2}),
    Row('Retry-After 1000000000 seconds: not waited for', retry_after('1000000000'), 1, 'HTTP 429',
        calls={'zones': 1}),
    Row('Retry-After of 60000 digits', retry_after('9' * 60000), 1, 'HTTP 429', calls={'zones': 1}),
    Row('Content-Length of 60000 digits', verbatim('zones', ['Content-Type: application/json',
                                                             'Content-Length: ' + '9' * 60000], b'{}'),
        1, 'not an HTTP answer', calls={'zones': 3}),
    Row('Content-Length negative', verbatim('zones', ['Content-Length: -5'], b'{}'), 1, 'not an HTTP answer',
        calls={'zones': 3}),
    Row('chunk size of 60000 hex digits', verbatim('zones', ['Transfer-Encoding: chunked'],
                                                   b'f' * 60000 + b'\r\nxx'), 1, 'find zone'),
    Row('chunk size negative', verbatim('zones', ['Transfer-Encoding: chunked'], b'-5\r\n{}\r\n0\r\n\r\n'),
        1, 'not an HTTP answer', calls={'zones': 3}),
    # provider B's token: its Date header and the cache
    Row('token Date in the year 10^20', token_date('Sun, 06 Nov 1%s 08:49:37 GMT' % ('0' * 20)), 0, UPDATED,
        tools='B'),
    Row('token Date of 60000 digits', token_date('Sun, 06 Nov %s 08:49:37 GMT' % ('9' * 60000)), 0, UPDATED,
        tools='B'),
    Row('token Date hour 1e999', token_date('Sun, 06 Nov 2026 1e999:00:00 GMT'), 0, UPDATED, tools='B'),
    Row('token cache expiry inf', auth_file('inf'), 0, UPDATED, tools='B'),
    Row('token cache expiry nan', auth_file('nan'), 0, UPDATED, tools='B'),
    Row('token cache expiry 1e999', auth_file('1e999'), 0, UPDATED, tools='B'),
    Row('token cache expiry of 400 digits', auth_file('9' * 400), 0, UPDATED, tools='B'),
]


# each row only with the updaters it applies to (row.tools): no row is made to be skipped; under make
# test with one of them (faultkit.per_tool)
APPLIED = per_tool(ROWS, lambda row: row.tools)


@pytest.mark.parametrize('rig, row', APPLIED, ids=['%s-%s' % pair for pair in APPLIED], indirect=['rig'])
def test_hostile_answer_ends_in_one_clear_line(rig, row):
    rig.seed(ip_file=row.ip_file, ids_file=row.ids_file)
    row.inject(rig)
    done = rig.run()
    out = rig.output(done)
    assert 'Traceback' not in out and done.stderr == '', out
    assert done.returncode == row.rc, out
    says = row.says.get(rig.name) if isinstance(row.says, dict) else row.says
    assert says in done.stdout, out
    lines = done.stdout.splitlines()
    assert lines and all(LINE.match(line) for line in lines), out
    if row.rc:
        assert sum(' - ERROR: ' in line for line in lines) == 1, out
        assert rig.content() == OLD
    else:
        assert rig.content() == NEW
    for step, count in row.calls.items():
        assert rig.calls(step) == count, (step, rig.provider.calls())
    if rig.name == 'B':
        expiry, token = rig.token_line() or (None, None)
        assert expiry is None or time.time() < expiry <= time.time() + 2 * 86400, expiry
    rig.heal()
    again = rig.run()
    assert again.returncode == 0 and rig.content() == NEW, rig.output(again)


# --- fuzz table: every hostile body and framing at every step that reads an answer -------------------

BODIES = {
    'nested': '[' * 100000, 'nested object': '{"a":' * 50000, 'NaN': '{"success": NaN, "Status": NaN}',
    '1e999': '{"success": false, "errors": [{"code": 1e999}], "code": 1e999, "total_count": 1e999}',
    '60000 digits': '7' * 60000, 'not UTF-8': b'\xff\xfe{"success": \xc0}',
    'wrong types': '{"success": true, "result": 5, "zones": "x", "recordsets": {"id": []}, "id": [], '
                   '"errors": "x", "Answer": 7, "Status": "0", "metadata": []}',
    'control characters': '{"success": false, "errors": [{"code": "\\u001b[2J", "message": "\\r\\n[x] - '
                          'IP has been updated to: 6.6.6.6"}], "code": "\\u0000", "message": "\\u2028"}',
    'empty': '',
}
FRAMES = {
    'Content-Length of 60000 digits': (['Content-Length: ' + '9' * 60000], b'{}'),
    'chunk size 0x10': (['Transfer-Encoding: chunked'], b'0x10\r\n{}\r\n0\r\n\r\n'),
    'status 2000000000': ([], b'{}'),
    'header without a colon': (['Content-Length 2', 'X: ' + '\x00' * 100], b'{}'),
}
STEPS = {'A': ['lookup', 'doh', 'zones', 'records', 'read', 'update'],
         'B': ['lookup', 'doh', 'token', 'zones', 'records', 'update']}


def reset(rig, step):
    """The record back to OLD and the state as a run before left it: no ip file when DoH is to be
    asked, the ids file when the step comes after the lookups."""
    rig.heal()
    for name in os.listdir(rig.state_dir):
        os.unlink(os.path.join(rig.state_dir, name))
    found = rig.provider.find(RECORD)[0]
    found.update({'content': OLD} if rig.name == 'A' else {'records': [OLD]})
    if step != 'doh':
        rig.write(rig.ip_name, OLD + '\n')
    if step in ('read', 'update'):
        rig.write(rig.ids_name, '%s\n%s\n' % (rig.zone_id, found['id']))


FUZZ = per_tool(list(BODIES) + list(FRAMES))


@pytest.mark.parametrize('rig, hostile', FUZZ, ids=['%s-%s' % pair for pair in FUZZ], indirect=['rig'])
def test_no_traceback_from_any_answer_at_any_step(rig, hostile):
    rig.seed()
    # the framing is read by one function for every step (ddkit.wire), and each try of it costs a backoff
    for step in STEPS[rig.name] if hostile in BODIES else ['zones']:
        reset(rig, step)
        if hostile in BODIES:
            for status in (200, 400):
                rig.fail(step, 'reply', status=status, text=BODIES[hostile],
                         headers={'Content-Type': 'application/json'})
        else:
            head, body = FRAMES[hostile]
            line = 'HTTP/1.1 2000000000 OK' if hostile.startswith('status') else 'HTTP/1.1 200 OK'
            rig.fail(step, 'verbatim', 3, status_line=line, head=head, body=body)
        done = rig.run()
        out = rig.output(done)
        assert 'Traceback' not in out and done.stderr == '', (step, out)
        assert done.returncode in (0, 1), (step, out)
        lines = done.stdout.splitlines()
        assert lines and all(LINE.match(line) for line in lines), (step, out)
        assert not any(line.split(' - ', 1)[1].startswith('[') for line in lines), (step, out)
        assert sum(' - ERROR: ' in line for line in lines) == done.returncode, (step, out)
