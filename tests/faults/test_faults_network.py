"""Fault matrix, network and provider rows: each row breaks one thing at the fakes, runs the real
updater, checks exit status, message, state files and the record, then heals and runs again."""

import pytest

from faultkit import NEW, OLD, closed_port, make_rig, per_tool, rig  # noqa: F401  (rig is a fixture)
from fakes.base import FakeServer, Reply


class Row:
    """One fault: inject(rig) breaks something (and may return settings to override); the run must
    end with `rc` and say `says`; `updated` tells whether the record holds NEW afterwards."""

    def __init__(self, name, inject, rc, says, updated=None, calls=None, args=(), ip_file=True,
                 tools='AB', check=None, heal=None):
        self.name, self.inject, self.rc, self.says, self.args = name, inject, rc, says, args
        self.updated = rc == 0 if updated is None else updated
        self.calls, self.ip_file, self.tools, self.check, self.heal = calls or {}, ip_file, tools, check, heal

    def __str__(self):
        return self.name

    def expect(self, tool):
        return self.says.get(tool, self.says.get('*')) if isinstance(self.says, dict) else self.says


def fail(step, kind, times=1, **options):
    return lambda rig: rig.fail(step, kind, times, **options)


def refused(rig):
    return {rig.first_url_setting: 'http://127.0.0.1:%d' % closed_port()}


def lookup_says(text):
    def inject(rig):
        rig.box.lookup.answer = text
    return inject


def doh_status(status):
    def inject(rig):
        rig.box.doh.status = status
    return inject


def several_errors(rig):
    rig.fail('update', 'reply', status=400, body=rig.error_body(
        [(9005, 'Content for A record is invalid'), (1004, 'DNS Validation Error')]))


def unknown_record(rig):
    rig.fail('update', 'reply', status=404, body=rig.error_body([(81044, 'Record does not exist.')]))


def bare_success(reply):
    """The provider's answer to a request that took effect, cut down to `success: true` alone."""
    return Reply(reply.status, {'success': True} if b'"success"' in reply.raw else {})


def record_deleted(rig):
    rig.write(rig.ids_name, '%s\n%s\n' % (rig.zone_id, rig.rid))
    rig.provider.records.pop(rig.rid) if hasattr(rig.provider, 'records') else rig.provider.recordsets.pop(rig.rid)


def hostile_zone_id(value):
    return lambda rig: rig.fail('zones', 'reply', body=rig.zones_body(value))


def no_hostile_path(rig, out):
    assert not [r.path for r in rig.provider.requests if 'evil' in r.path or '..' in r.path]


def zones_not_a_list(rig):
    body = rig.zones_body('x')
    body[rig.zones_key] = 5
    rig.fail('zones', 'reply', body=body)


def no_redirect_followed(rig):
    assert rig.extra_servers[0].requests == [], 'credentials followed a redirect'


def redirect_away(rig):
    evil = FakeServer().start()
    rig.extra_servers = [evil]
    rig.box.servers.append(evil)  # stopped with the sandbox
    rig.fail('zones', 'redirect', location=evil.url + '/client/v4/zones')


TIMEOUT = ('--timeout', '0.5')

ROWS = [
    Row('connection refused', refused, 1, 'Connection refused'),
    Row('accepts, never answers', fail('zones', 'hang', 3, seconds=3), 1, 'timed out', args=TIMEOUT,
        calls={'zones': 3}),
    Row('answers a byte at a time (slow drip)', fail('zones', 'trickle', 3, interval=0.2), 1, 'timed out',
        args=('--timeout', '0.3'), calls={'zones': 3}),
    Row('500 then success', fail('zones', 'status', status=500), 0, 'IP has been updated to: ' + NEW,
        calls={'zones': 2}),
    Row('502 then success', fail('zones', 'status', status=502), 0, 'IP has been updated to', calls={'zones': 2}),
    Row('503 then success', fail('zones', 'status', status=503), 0, 'IP has been updated to', calls={'zones': 2}),
    Row('503 always: bounded', fail('zones', 'status', 9, status=503), 1, 'HTTP 503', calls={'zones': 3}),
    Row('429 with Retry-After', fail('zones', 'status', status=429, retry_after=1, text='slow down'), 0,
        'IP has been updated to', calls={'zones': 2}),
    Row('malformed JSON', fail('zones', 'malformed'), 1, {'A': 'no JSON', 'B': 'unexpected answer (HTTP 200)'},
        calls={'zones': 1}),
    Row('HTML page with 200', fail('zones', 'html'), 1,
        {'A': 'HTTP 200 with no JSON', 'B': 'unexpected answer (HTTP 200): <html>'}, calls={'zones': 1}),
    Row('HTML page from the IP lookup', fail('lookup', 'html'), 0, 'No valid IP', calls={'zones': 0},
        updated=False),
    Row('empty body', fail('zones', 'empty'), 1, {'A': 'empty answer', 'B': 'no data received, check connectivity'},
        calls={'zones': 1}),
    Row('truncated body once', fail('zones', 'truncated'), 0, 'IP has been updated to', calls={'zones': 2}),
    Row('truncated body always', fail('zones', 'truncated', 3), 1, 'the answer was cut short', calls={'zones': 3}),
    Row('connection dropped always', fail('zones', 'close', 3), 1, 'no answer from', calls={'zones': 3}, tools='A'),
    # B asks for its token first, so the zone listing goes out on the kept connection: a drop there
    # (no byte of an answer) is sent once more on a new one, before the three tries of any request
    Row('connection dropped always (on a kept connection)', fail('zones', 'close', 4), 1, 'no answer from',
        calls={'zones': 4}, tools='B'),
    Row('an answer that is not HTTP', fail('zones', 'raw', 3), 1, 'not an HTTP answer', calls={'zones': 3}),
    Row('huge body capped', fail('zones', 'huge'), 1, 'larger than 262144 bytes'),
    Row('huge IP lookup answer capped', fail('lookup', 'huge'), 0, 'an answer of more than 4096 bytes',
        calls={'zones': 0}, updated=False),
    Row('success false, several errors', several_errors, 1, 'DNS Validation Error', tools='A',
        check=lambda rig, out: 'Content for A record is invalid' in out and 'codes 9005, 1004' in out),
    Row('error key instead of errors', fail('zones', 'reply', status=400, body={'error': 'Invalid request'}), 1,
        'find zone: Invalid request', tools='A'),
    Row('update answers "record unknown" (81044)', unknown_record, 0, 'IP has been updated to', tools='A',
        calls={'update': 2}),
    Row('update done, answered with success but no record', fail('update', 'rewrite', answer=bare_success), 0,
        'IP has been updated to', check=lambda rig, out: (rig.calls('update'), rig.calls('create')) == (
            (1, 0) if rig.name == 'A' else (2, 1))),  # B, rule 2: no id -> create, which finds it exists
    Row('record deleted at the provider: stored ids unknown', record_deleted, 0, 'IP has been updated to',
        calls={'create': 1}),
    Row('B DNS error {code, message}', fail('zones', 'reply', status=400,
                                            body={'code': 'DNS.0005', 'message': 'Zone query failed.'}),
        1, 'find zone: Zone query failed.', tools='B'),
    Row('B API gateway error {error_code, error_msg}', fail('zones', 'reply', status=404, body={
        'error_code': 'APIGW.0101', 'error_msg': 'The API does not exist or has not been published'}),
        1, 'find zone: The API does not exist', tools='B'),
    Row('B IAM error {error: {code, message, title}}', fail('token', 'reply', status=401, body={'error': {
        'code': 401, 'message': 'The username or password is wrong.', 'title': 'Unauthorized'}}),
        1, 'get token: The username or password is wrong.', tools='B'),
    Row('B token answer without X-Subject-Token', fail('token', 'reply', status=201, body={'token': {}}),
        1, 'get token: HTTP 201 without a token', tools='B'),
    Row('B API refuses a new token (APIGW.0301)', fail('zones', 'reply', status=401, body={
        'error_code': 'APIGW.0301', 'error_msg': 'Incorrect IAM authentication information'}),
        1, 'refused a new token', tools='B', calls={'token': 1}),
    Row('B listing says total_count 0 for an existing recordset', fail('records', 'reply', body={
        'recordsets': [], 'metadata': {'total_count': 0}}), 0, 'conflicts with an existing record set',
        tools='B', calls={'create': 1, 'update': 1}),
    Row('redirect to another host', redirect_away, 1, 'redirect', check=lambda rig, out: no_redirect_followed(rig)),
    Row('zone id with URL-path characters', hostile_zone_id('../../../evil?x=1#'), 1, 'find zone: no zone named',
        check=no_hostile_path),
    Row('zone id ".."', hostile_zone_id('..'), 1, 'find zone: no zone named', check=no_hostile_path),
    Row('JSON nested deeper than Python parses', fail('zones', 'reply', text='[' * 50000), 1,
        {'A': 'no JSON', 'B': 'unexpected answer (HTTP 200)'}, calls={'zones': 1}),
    Row('a number where a list belongs', zones_not_a_list, 1, 'is not a list', calls={'zones': 1}),
    Row('DoH Answer not a list', fail('doh', 'reply', body={'Status': 0, 'Answer': 5}), 0,
        'IP has been updated to', ip_file=False),
    Row('DoH answer nested too deep', fail('doh', 'reply', text='[' * 50000), 0, 'IP has been updated to',
        ip_file=False),
    Row('DoH Status 2 (SERVFAIL)', doh_status(2), 0, 'DoH answered Status 2', ip_file=False,
        heal=doh_status(0)),
    Row('lookup answers a private address', lookup_says('192.168.1.20'), 0, 'not a public address (private)',
        calls={'zones': 0}, updated=False, heal=lookup_says(NEW)),
    Row('lookup answers a CGNAT address', lookup_says('100.64.3.4'), 0, 'not a public address',
        calls={'zones': 0}, updated=False, heal=lookup_says(NEW)),
    Row('lookup answers the wrong family', lookup_says('2606:4700::1111'), 0, 'is an IPv6 address',
        calls={'zones': 0}, updated=False, heal=lookup_says(NEW)),
    Row('lookup answers loopback', lookup_says('127.0.0.1'), 0, 'not a public address',
        calls={'zones': 0}, updated=False, heal=lookup_says(NEW)),
]


# each row only with the updaters it applies to (row.tools): no row is made to be skipped; under make
# test with one of them (faultkit.per_tool)
APPLIED = per_tool(ROWS, lambda row: row.tools)


@pytest.mark.parametrize('rig, row', APPLIED, ids=['%s-%s' % pair for pair in APPLIED], indirect=['rig'])
def test_network_fault(row, rig):
    rig.seed(ip_file=row.ip_file)
    settings = row.inject(rig)
    done = rig.run(*row.args, env=settings if isinstance(settings, dict) else None)
    out = rig.output(done)
    assert done.returncode == row.rc, out
    assert row.expect(rig.name) in out
    assert 'Traceback' not in out
    assert len(out.strip().splitlines()) <= 12, out  # a few log lines, not a dump
    for step, count in row.calls.items():
        assert rig.calls(step) == count, (step, out)
    if row.check:
        assert row.check(rig, out) is not False, out
    assert rig.content() == (NEW if row.updated else OLD), out
    # the ip file claims only what the provider holds: a write that failed took it away
    assert rig.ip_state() == NEW if row.updated else rig.ip_state() in (None, rig.content()), out
    if row.rc:
        assert rig.ip_state() != NEW
    # it heals: the fault removed, the next run brings the record up to date
    rig.heal()
    if row.heal:
        row.heal(rig)
    again = rig.run()
    assert again.returncode == 0, rig.output(again)
    assert rig.content() == NEW and rig.ip_state() == NEW
    rig.assert_no_secret()
    rig.token_files_private()


@pytest.fixture(params=['A', 'B'])
def tls_rig(request, tmp_path, ca):
    """A rig whose fakes speak HTTPS with a certificate for `localhost` only, from the test CA."""
    made = make_rig(request.param, tmp_path, tls_cert=ca.issue_cert('localhost'))
    made.ca_file = str(tmp_path / 'ca.pem')
    ca.cert_pem.write_to_path(made.ca_file)
    made.localhost = {k: v.replace('://127.0.0.1:', '://localhost:') for k, v in made.env().items()
                      if k.endswith('_URL')}
    yield made
    made.box.stop()


@pytest.mark.usefixtures('both_interfaces')
def test_tls_wrong_ca_is_refused(tls_rig, tmp_path):
    import trustme
    other = str(tmp_path / 'other-ca.pem')
    trustme.CA().cert_pem.write_to_path(other)
    rig = tls_rig
    rig.seed()
    done = rig.run(env=dict(rig.localhost, DDNS_CA_FILE=other))
    assert done.returncode == 1 and 'TLS certificate not trusted' in done.stdout, rig.output(done)
    assert rig.content() == OLD and rig.ip_state() == OLD
    assert sum(len(s.requests) for s in rig.box.servers) == 0  # nothing was sent before the check
    again = rig.run(env=dict(rig.localhost, DDNS_CA_FILE=rig.ca_file))
    assert again.returncode == 0, rig.output(again)
    assert rig.content() == NEW and rig.ip_state() == NEW
    rig.assert_no_secret()


@pytest.mark.usefixtures('both_interfaces')
def test_tls_wrong_host_name_is_refused(tls_rig):
    rig = tls_rig
    rig.seed()
    done = rig.run(env={'DDNS_CA_FILE': rig.ca_file})  # 127.0.0.1: not a name the certificate holds
    assert done.returncode == 1, rig.output(done)
    assert 'TLS certificate not trusted' in done.stdout and "match" in done.stdout, rig.output(done)
    assert sum(len(s.requests) for s in rig.box.servers) == 0
    assert rig.content() == OLD and rig.ip_state() == OLD
    again = rig.run(env=dict(rig.localhost, DDNS_CA_FILE=rig.ca_file))
    assert again.returncode == 0, rig.output(again)
    assert rig.content() == NEW
    rig.assert_no_secret()


def test_tls_redirect_to_plain_http_is_refused(tls_rig):
    rig = tls_rig
    rig.seed()
    plain = FakeServer().start()
    rig.extra_servers = [plain]
    rig.box.servers.append(plain)
    rig.fail('zones', 'redirect', status=301, location=plain.url + '/client/v4/zones')
    done = rig.run(env=dict(rig.localhost, DDNS_CA_FILE=rig.ca_file))
    assert done.returncode == 1 and 'redirect' in done.stdout, rig.output(done)
    assert plain.requests == []
    assert rig.content() == OLD
    rig.heal()
    again = rig.run(env=dict(rig.localhost, DDNS_CA_FILE=rig.ca_file))
    assert again.returncode == 0 and rig.content() == NEW
    rig.assert_no_secret()


def test_a_create_answered_502_after_it_was_done_is_never_sent_again(rig):
    """The provider makes the record, then answers 502: a create is not repeatable, so it is not
    sent twice (a duplicate, or a conflict blamed on the user); the next run finds it by name."""
    rig.seed(ids_file=False)
    records = getattr(rig.provider, 'records', None) or rig.provider.recordsets
    records.pop(rig.rid)
    rig.fail('create', 'rewrite', answer=lambda reply: Reply(502, text='<html>502 Bad Gateway</html>'))
    done = rig.run()
    out = rig.output(done)
    assert done.returncode == 1 and 'Traceback' not in out, out
    assert 'duplicate' not in out and rig.calls('create') == 1
    assert rig.content() == NEW and rig.ip_state() is None
    again = rig.run()
    assert again.returncode == 0, rig.output(again)
    assert rig.calls('create') == 1 and rig.content() == NEW and rig.ip_state() == NEW and rig.ids_ok()
