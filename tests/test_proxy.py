"""The proxy (issue 42 part 4), against real proxies from Debian started here on 127.0.0.1, each with a
throwaway configuration: tinyproxy (HTTP CONNECT, plain http in absolute form, Basic credentials) and
microsocks (SOCKS5, a user and password). What went through a proxy is read from the proxy's own
log: tinyproxy's request lines (LogLevel Connect), microsocks's "connected to" lines. The provider's
requests are there; the IP lookup and DoH are not (unless proxy_lookup), and the fakes saw them all
the same. A proxy's failure is kind 'proxy', names the proxy and never its password."""

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT, run_tool
from fakes.healthcheck import HealthCheck
import needs

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import proxy, wire  # noqa: E402

USER, PASSWORD = 'router', 'Pr0xy-s3cret-pw'   # long enough that a log would mask it anywhere
NEW = '81.2.69.10'   # the sandbox lookup's answer


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def listening(port, process):
    """Return once the started proxy accepts connections (polled: no fixed wait)."""
    end = time.monotonic() + 10
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError('the proxy exited with %s' % process.returncode)
        try:
            socket.create_connection(('127.0.0.1', port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.01)
    raise RuntimeError('the proxy did not listen on port %d' % port)


def program(name):
    found = shutil.which(name)
    if not found:
        needs.missing('%s is not installed (apt-get install %s)' % (name, name))
    return found


class Tinyproxy:
    """tinyproxy in the foreground, its configuration and log in folder; auth: BasicAuth USER PASSWORD;
    connect_ports: the only ports it lets CONNECT reach (none: every port)."""

    def __init__(self, folder, auth=False, connect_ports=()):
        os.makedirs(folder, exist_ok=True)
        self.port = free_port()
        self.log = os.path.join(folder, 'tinyproxy.log')
        lines = ['Port %d' % self.port, 'Listen 127.0.0.1', 'Timeout 30', 'LogFile "%s"' % self.log,
                 'LogLevel Connect', 'MaxClients 20'] + (['BasicAuth %s %s' % (USER, PASSWORD)] if auth else [])
        conf = os.path.join(folder, 'tinyproxy.conf')
        with open(conf, 'w') as f:
            f.write('\n'.join(lines + ['ConnectPort %d' % p for p in connect_ports]) + '\n')
        self.process = subprocess.Popen([program('tinyproxy'), '-d', '-c', conf], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        listening(self.port, self.process)

    def url(self, user=None, password=None):
        return 'http://%s127.0.0.1:%d' % ('%s:%s@' % (user, password) if user else '', self.port)

    @property
    def label(self):
        return 'http://127.0.0.1:%d' % self.port

    def requests(self):
        """The request lines the proxy logged: 'CONNECT host:port HTTP/1.1', 'GET http://... HTTP/1.1'."""
        with open(self.log) as f:
            return [line.split('): ', 1)[1].strip() for line in f if 'Request (file descriptor' in line]

    def connects(self):
        """host:port of each CONNECT tunnel it was asked for."""
        return [line.split()[1] for line in self.requests() if line.startswith('CONNECT ')]

    def stop(self):
        self.process.terminate()
        self.process.wait()


class Microsocks:
    """microsocks with a user and password (auth), its output (a line per connection it made) in folder;
    bound: its outgoing connections from 127.0.0.1, so a name it resolves takes its IPv4 address."""

    def __init__(self, folder, auth=True, bound=False):
        os.makedirs(folder, exist_ok=True)
        self.port = free_port()
        self.log = os.path.join(folder, 'microsocks.log')
        argv = [program('microsocks'), '-i', '127.0.0.1', '-p', str(self.port)]
        argv += (['-u', USER, '-P', PASSWORD] if auth else []) + (['-b', '127.0.0.1'] if bound else [])
        self.out = open(self.log, 'wb')
        self.process = subprocess.Popen(argv, stdout=self.out, stderr=subprocess.STDOUT)
        listening(self.port, self.process)

    def url(self, scheme='socks5', user=USER, password=PASSWORD):
        return '%s://%s127.0.0.1:%d' % (scheme, '%s:%s@' % (user, password) if user else '', self.port)

    def connections(self):
        """The host:port of each connection it made for a client (as the client named it)."""
        with open(self.log) as f:
            return [line.rsplit('connected to ', 1)[1].strip() for line in f if 'connected to ' in line]

    def stop(self):
        self.process.terminate()
        self.process.wait()
        self.out.close()


@pytest.fixture
def tinyproxy(tmp_path):
    started = Tinyproxy(str(tmp_path / 'tinyproxy'))
    yield started
    started.stop()


@pytest.fixture
def guarded(tmp_path):
    """tinyproxy that wants USER and PASSWORD (BasicAuth)."""
    started = Tinyproxy(str(tmp_path / 'tinyproxy'), auth=True)
    yield started
    started.stop()


@pytest.fixture
def socks(tmp_path):
    started = Microsocks(str(tmp_path / 'microsocks'), bound=True)
    yield started
    started.stop()


def env_of(box, state, **more):
    env = box.env_a(str(state))
    env.update(more)
    return env


def tls_env(box, state, **more):
    return env_of(box, state, DDNS_CA_FILE=box.ca_file, **more)


def status(env):
    return json.loads(run_tool('updater_a', ['--status', '--json'], env=env).stdout)[0]


def everything(done, env, kept=None):
    """All a run showed and kept: its output, its log file, its status."""
    state = env['DDNS_STATE_DIR']
    logs = ''.join(open(os.path.join(state, n)).read() for n in os.listdir(state) if n.endswith('.log'))
    return done.stdout + done.stderr + logs + json.dumps(kept or status(env))


def ok(done):
    assert done.returncode == 0 and 'Traceback' not in done.stderr, done.stdout + done.stderr


def hostport(server):
    return '127.0.0.1:%d' % server.port


# --- HTTP CONNECT: the provider through the tunnel, the lookup and DoH direct ---------------------

def test_https_goes_through_connect_and_the_lookup_and_doh_do_not(tls_box, tmp_path, tinyproxy, both_interfaces):
    env = tls_env(tls_box, tmp_path / 'state', DDNS_PROXY=tinyproxy.url())
    done = run_tool('updater_a', [], env=env)
    ok(done)
    fake = tls_box.provider_a
    assert fake.calls() == ['list_zones', 'list_records', 'create_record']
    # one tunnel carried every request of the provider (TLS inside it, the connection kept)
    assert tinyproxy.connects() == [hostport(fake)] and fake.connections == 1
    # the lookup and DoH were asked, and not through the proxy
    assert tls_box.lookup.calls() == ['lookup'] and tls_box.doh.calls() == ['resolve']
    assert not {hostport(tls_box.lookup), hostport(tls_box.doh)} & set(' '.join(tinyproxy.requests()).split())


@pytest.fixture
def named_box(ca, tmp_path):
    """The sandbox over HTTPS with a certificate for the name localhost only, and its URLs written with
    that name: TLS verified against anything else (the proxy's 127.0.0.1) fails."""
    from sandbox import Sandbox
    sandbox = Sandbox(tls_cert=ca.issue_cert('localhost'))
    sandbox.ca_file = str(tmp_path / 'ca.pem')
    ca.cert_pem.write_to_path(sandbox.ca_file)
    yield sandbox
    sandbox.stop()


def by_name(env):
    return {k: v.replace('://127.0.0.1:', '://localhost:') for k, v in env.items()}


@pytest.mark.parametrize('trust', ['whole bundle', 'kept anchors'])
def test_tls_in_the_tunnel_is_verified_against_the_provider_name(named_box, tmp_path, tinyproxy, both_interfaces,
                                                                 trust):
    """The certificate names localhost, the provider's host, not 127.0.0.1, the proxy's: verified
    against the provider's name the update succeeds through the tunnel. Both ways TLS is set up
    (ddkit.wire.secure): the whole CA bundle (the run's first TLS: lookup and DoH over plain http),
    or the anchors the lookup's TLS just kept."""
    from fakes.helpers import DoH, IpLookup
    env = dict(by_name(tls_env(named_box, tmp_path / 'state')), DDNS_PROXY=tinyproxy.url())
    plain = [IpLookup(NEW).start(), DoH().start()] if trust == 'whole bundle' else []
    if plain:
        env.update(DDNS_IP_LOOKUP_URL=plain[0].url, DDNS_DOH_URL=plain[1].url)
    try:
        done = run_tool('updater_a', [], env=env)
    finally:
        for server in plain:
            server.stop()
    ok(done)
    assert tinyproxy.connects() == ['localhost:%d' % named_box.provider_a.port]
    assert len(named_box.provider_a.calls('create_record')) == 1


def test_a_certificate_for_another_name_fails_in_the_tunnel_as_without_a_proxy(ca, tmp_path, tinyproxy,
                                                                                both_interfaces):
    from fakes.helpers import IpLookup
    from sandbox import Sandbox
    box, lookup = Sandbox(tls_cert=ca.issue_cert('api.example.net')), IpLookup(NEW).start()   # over http
    try:
        box.ca_file = str(tmp_path / 'ca.pem')
        ca.cert_pem.write_to_path(box.ca_file)
        env = tls_env(box, tmp_path / 'state', DDNS_PROXY=tinyproxy.url(), DDNS_IP_LOOKUP_URL=lookup.url)
        done = run_tool('updater_a', [], env=env)
        kept, provider = status(env), hostport(box.provider_a)
    finally:
        box.stop()
        lookup.stop()
    assert done.returncode == 1 and 'certificate' in done.stdout, done.stdout + done.stderr
    assert kept['kind'] == 'tls' and tinyproxy.connects() == [provider]
    assert box.provider_a.calls() == []


def test_plain_http_goes_to_the_proxy_in_absolute_form(box, tmp_path, tinyproxy):
    env = env_of(box, tmp_path / 'state', DDNS_PROXY=tinyproxy.url())
    ok(run_tool('updater_a', [], env=env))
    fake = box.provider_a
    assert fake.calls() == ['list_zones', 'list_records', 'create_record']
    sent = tinyproxy.requests()
    assert [line.split()[0] for line in sent] == ['GET', 'GET', 'POST']
    assert all(line.split()[1].startswith('http://%s/client/v4/zones' % hostport(fake)) for line in sent)
    assert box.lookup.calls() == ['lookup'] and hostport(box.lookup) not in ' '.join(sent)


def test_proxy_lookup_sends_the_lookup_and_doh_through_the_proxy(tls_box, tmp_path, tinyproxy):
    env = tls_env(tls_box, tmp_path / 'state', DDNS_PROXY=tinyproxy.url(), DDNS_PROXY_LOOKUP='1')
    ok(run_tool('updater_a', [], env=env))
    assert sorted(tinyproxy.connects()) == sorted(hostport(s) for s in (tls_box.lookup, tls_box.doh,
                                                                         tls_box.provider_a))


def test_the_health_check_ping_goes_through_the_proxy(box, tmp_path, tinyproxy):
    check = HealthCheck().start()
    url = check.check_url
    try:
        env = env_of(box, tmp_path / 'state', DDNS_PROXY=tinyproxy.url(), DDNS_HEALTHCHECK_URL=url)
        ok(run_tool('updater_a', [], env=env))
    finally:
        check.stop()
    assert check.pings == ['success'] and tinyproxy.requests()[-1] == 'GET %s HTTP/1.1' % url


def test_a_run_of_several_records_pings_through_their_proxy_at_its_end(box, tmp_path, tinyproxy):
    check = HealthCheck().start()
    url = check.check_url
    conf = tmp_path / 'records.conf'
    conf.write_text('proxy=%s\nhealthcheck_url=%s\n' % (tinyproxy.url(), url) +
                    ''.join('[r%d]\nrecord_name=h%d.example.com\n' % (n, n) for n in range(2)))
    os.chmod(str(conf), 0o600)
    env = env_of(box, tmp_path / 'state')
    del env['DDNS_RECORD_NAME']
    try:
        ok(run_tool('updater_a', ['--all', '--config', str(conf)], env=env))
    finally:
        check.stop()
    assert check.pings == ['success'] and tinyproxy.requests()[-1] == 'GET %s HTTP/1.1' % url
    assert len(box.provider_a.calls('create_record')) == 2


@pytest.mark.parametrize('several', [False, True], ids=['one record', 'a run of several'])
def test_a_notification_goes_through_the_proxy(box, tmp_path, tinyproxy, several):
    """The record's notice (a Telegram bot's, at its fake) is sent through the record's proxy: at once in
    a run of one record, at the end of a run of several."""
    from fakes.notices import Telegram
    service = Telegram().start()
    where = hostport(service)
    try:
        env = env_of(box, tmp_path / 'state', DDNS_PROXY=tinyproxy.url(), DDNS_NOTIFY=service.notify_url)
        args = []
        if several:
            conf = tmp_path / 'records.conf'
            conf.write_text(''.join('[r%d]\nrecord_name=h%d.example.com\n' % (n, n) for n in range(2)))
            os.chmod(str(conf), 0o600)
            del env['DDNS_RECORD_NAME']
            args = ['--all', '--config', str(conf)]
        ok(run_tool('updater_a', args, env=env))
    finally:
        service.stop()
    assert len(service.messages) == 1
    told = [line for line in tinyproxy.requests() if where in line]
    assert told and told[-1].startswith('POST http://%s/' % where), tinyproxy.requests()


# --- credentials, refusals, a proxy that is down: kind 'proxy', the proxy named, never its password --

@pytest.mark.parametrize('credentials, said', [
    ((USER, PASSWORD), None),
    ((USER, 'wrong-password'), 'refused the credentials (HTTP 401)'),   # tinyproxy 1.11 answers 401, not 407
    (None, 'wants credentials (HTTP 407)'),   # and 407 without any
], ids=['right', 'wrong', 'none'])
@pytest.mark.parametrize('scheme', ['https', 'http'])
def test_basic_credentials(request, tmp_path, guarded, credentials, said, scheme):
    sandbox = request.getfixturevalue('tls_box' if scheme == 'https' else 'box')
    env = (tls_env if scheme == 'https' else env_of)(sandbox, tmp_path / 'state',
                                                     DDNS_PROXY=guarded.url(*credentials or ()))
    done = run_tool('updater_a', [], env=env)
    if said is None:
        ok(done)
        assert len(sandbox.provider_a.calls('create_record')) == 1
        return
    kept = status(env)
    assert done.returncode == 1 and sandbox.provider_a.calls() == [], done.stdout + done.stderr
    assert 'ERROR: find zone: proxy %s (the proxy setting) %s' % (guarded.label, said) in done.stdout
    assert (kept['kind'], kept['url'], kept['step']) == ('proxy', guarded.label, 'find zone')
    assert PASSWORD not in everything(done, env, kept) and 'wrong-password' not in everything(done, env, kept)


def test_a_proxy_that_forbids_the_port_is_a_proxy_failure(tls_box, tmp_path):
    forbidding = Tinyproxy(str(tmp_path / 'tinyproxy'), connect_ports=[443])
    try:
        env = tls_env(tls_box, tmp_path / 'state', DDNS_PROXY=forbidding.url())
        done = run_tool('updater_a', [], env=env)
    finally:
        forbidding.stop()
    assert done.returncode == 1 and status(env)['kind'] == 'proxy'
    assert 'proxy %s (the proxy setting) refused to connect to %s (HTTP 403)' % (
        forbidding.label, hostport(tls_box.provider_a)) in done.stdout


def test_a_proxy_that_is_down_fails_the_run_naming_the_proxy(tls_box, tmp_path):
    port = free_port()   # nothing listens there
    env = tls_env(tls_box, tmp_path / 'state', DDNS_PROXY='socks5h://%s:%s@127.0.0.1:%d' % (USER, PASSWORD, port))
    done = run_tool('updater_a', [], env=env)
    kept = status(env)
    assert done.returncode == 1 and kept['kind'] == 'proxy' and kept['url'] == 'socks5h://127.0.0.1:%d' % port
    assert 'proxy socks5h://127.0.0.1:%d (the proxy setting) cannot be reached: Connection refused' % port in done.stdout
    assert str(tls_box.provider_a.port) not in done.stdout and PASSWORD not in everything(done, env, kept)


def test_a_proxy_failure_is_not_retried(tls_box, tmp_path):
    """A proxy that closes each connection unanswered: the run fails at once, one connection (a server
    that does so to a direct request is tried three times, a second apart)."""
    server = Hostile([b''])
    try:
        env = tls_env(tls_box, tmp_path / 'state', DDNS_PROXY='http://127.0.0.1:%d' % server.port)
        done = run_tool('updater_a', [], env=env)
    finally:
        server.close()
    assert done.returncode == 1 and status(env)['kind'] == 'proxy' and server.connections == 1
    assert 'closed the connection in its handshake' in done.stdout


# --- SOCKS5 --------------------------------------------------------------------------------------

@pytest.mark.parametrize('credentials, said', [
    ((USER, PASSWORD), None),
    ((USER, 'wrong-password'), 'refused the credentials (SOCKS5)'),
    ((None, None), 'wants credentials (SOCKS5)'),
], ids=['right', 'wrong', 'none'])
def test_socks5_with_a_user_and_password(tls_box, tmp_path, socks, credentials, said, both_interfaces):
    env = tls_env(tls_box, tmp_path / 'state', DDNS_PROXY=socks.url('socks5', *credentials))
    done = run_tool('updater_a', [], env=env)
    if said is None:
        ok(done)
        assert socks.connections() == [hostport(tls_box.provider_a)] and tls_box.provider_a.connections == 1
        assert len(tls_box.provider_a.calls('create_record')) == 1 and tls_box.lookup.calls() == ['lookup']
        return
    kept = status(env)
    assert done.returncode == 1 and kept['kind'] == 'proxy' and socks.connections() == []
    assert 'proxy socks5://127.0.0.1:%d (the proxy setting) %s' % (socks.port, said) in done.stdout
    assert PASSWORD not in everything(done, env, kept)


@pytest.mark.parametrize('scheme', ['socks5', 'socks5h'])
def test_socks5h_names_the_host_to_the_proxy_and_socks5_an_address(named_box, tmp_path, socks, scheme):
    """The provider's URL names localhost: socks5h hands the proxy that name (it resolves it itself),
    socks5 the address this host resolved it to. microsocks logs what it was given."""
    env = dict(by_name(tls_env(named_box, tmp_path / 'state')), DDNS_PROXY=socks.url(scheme))
    ok(run_tool('updater_a', [], env=env))
    port = named_box.provider_a.port
    # (socks5: an address of localhost the fake does not listen on, ::1, is refused and not logged)
    assert socks.connections() == (['localhost:%d' % port] if scheme == 'socks5h' else ['127.0.0.1:%d' % port])


# --- the environment's proxies, as curl reads them ---------------------------------------------------

A, B, C, D, E = ('http://127.0.0.1:%d' % n for n in (1001, 1002, 1003, 1004, 1005))
HOST = 'api.example.com'
# (environment, URL scheme, host, the variable whose proxy is used or None: direct); curl 7.88.1 agrees
# with each row (test_curl_reads_the_variables_as_the_table_says), but those marked CURL_DIFFERS
ROWS = [
    ({'https_proxy': A, 'HTTPS_PROXY': B}, 'https', HOST, 'https_proxy'),
    ({'HTTPS_PROXY': B}, 'https', HOST, 'HTTPS_PROXY'),
    ({'https_proxy': '', 'HTTPS_PROXY': B}, 'https', HOST, 'HTTPS_PROXY'),   # empty: unset
    ({'all_proxy': C, 'ALL_PROXY': D}, 'https', HOST, 'all_proxy'),
    ({'ALL_PROXY': D}, 'https', HOST, 'ALL_PROXY'),
    ({'https_proxy': A, 'all_proxy': C}, 'https', HOST, 'https_proxy'),
    ({'http_proxy': E}, 'https', HOST, None),   # http_proxy is for http:// URLs
    ({'http_proxy': E}, 'http', HOST, 'http_proxy'),
    ({'HTTP_PROXY': E}, 'http', HOST, None),    # never read
    ({'https_proxy': A}, 'http', HOST, None),
    ({'all_proxy': C}, 'http', HOST, 'all_proxy'),
    ({'https_proxy': A}, 'https', 'localhost', 'https_proxy'),   # a loopback host is not exempt
    ({'https_proxy': A}, 'https', '127.0.0.1', 'https_proxy'),
] + [({'https_proxy': A, 'no_proxy': exempt}, 'https', HOST, used) for exempt, used in [
    ('api.example.com', None), ('example.com', None), ('.example.com', None), ('EXAMPLE.COM', None),
    ('example.com.', None), ('ample.com', 'https_proxy'), ('*.example.com', 'https_proxy'),
    ('api.example.com:443', 'https_proxy'), ('*', None), ('*,foo', 'https_proxy'), ('foo, example.com', None),
    ('foo example.com', None), ('foo,,example.com', None)]
] + [
    ({'https_proxy': A, 'NO_PROXY': 'example.com'}, 'https', HOST, None),
    ({'https_proxy': A, 'no_proxy': 'foo', 'NO_PROXY': 'example.com'}, 'https', HOST, 'https_proxy'),
    ({'https_proxy': A, 'no_proxy': '', 'NO_PROXY': 'example.com'}, 'https', HOST, None),
    ({'https_proxy': A, 'no_proxy': 'example.com'}, 'https', 'example.com.', None),
] + [({'https_proxy': A, 'no_proxy': exempt}, 'https', '10.1.2.3', used) for exempt, used in [
    ('10.1.2.3', None), ('10.0.0.0/8', None), ('10.1.2.0/24', None), ('10.1.2.3/0', None),
    ('10.1', 'https_proxy'), ('2.3', 'https_proxy'), ('10.0.0.0/33', 'https_proxy'), ('010.1.2.3', 'https_proxy'),
    ('10.1.2.4', 'https_proxy')]
] + [({'https_proxy': A, 'no_proxy': exempt}, 'https', '2001:db8::1', used) for exempt, used in [
    ('2001:db8::1', None), ('[2001:db8::1]', 'https_proxy'), ('2001:db8::/32', None), ('2001:db9::/32', 'https_proxy'),
    ('2001:0db8::1', None)]
]
# curl 7.88.1 matches an IPv6 host by the address's exact text alone, never by a range or another
# spelling (its documentation says ranges match): here they match by the address, as documented
CURL_DIFFERS = [('2001:db8::/32', '2001:db8::1'), ('2001:0db8::1', '2001:db8::1')]


def row_id(row):
    env, scheme, host, _ = row
    return '%s %s://%s' % (' '.join('%s=%s' % (k, v.replace('http://127.0.0.1:', ':')) for k, v in env.items()),
                           scheme, host)


@pytest.mark.parametrize('env, scheme, host, used', ROWS, ids=[row_id(r) for r in ROWS])
def test_the_environment_names_the_proxy_as_curl_reads_it(env, scheme, host, used):
    chosen, _ = proxy.route('', scheme, host, env)
    assert (chosen and chosen.name) == used
    if used:
        assert chosen.key == env[used] and chosen.origin == 'environment variable ' + used


@pytest.mark.parametrize('env, scheme, host, used', [r for r in ROWS if (r[0].get('no_proxy'), r[2]) not in CURL_DIFFERS],
                         ids=[row_id(r) for r in ROWS if (r[0].get('no_proxy'), r[2]) not in CURL_DIFFERS])
def test_curl_reads_the_variables_as_the_table_says(env, scheme, host, used):
    """The table checked against curl itself: which variable it says it uses (nothing is sent: its
    proxies and the direct connection go to closed ports on 127.0.0.1)."""
    curl = shutil.which('curl')
    if not curl:
        needs.missing('curl is not installed (apt-get install curl): the table is checked against it')
    url = '%s://%s/' % (scheme, '[%s]' % host if ':' in host else host)
    done = subprocess.run([curl, '-sv', '--max-time', '2', '--connect-to', '::127.0.0.1:1', url],
                          env=dict(env, PATH=os.environ.get('PATH', '')), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    said = [line.split()[5] for line in done.stderr.splitlines() if 'Uses proxy env variable' in line]
    assert [name for name in said if name.lower() != 'no_proxy'] == ([used] if used else []), done.stderr


@pytest.mark.parametrize('env, through', [
    ({'https_proxy': True}, True),
    ({'HTTPS_PROXY': True, 'no_proxy': 'localhost'}, True),   # 127.0.0.1 is not named
    ({'all_proxy': True, 'no_proxy': '127.0.0.1'}, False),
    ({'https_proxy': True, 'DDNS_PROXY': 'off'}, False),
], ids=['https_proxy', 'HTTPS_PROXY, no_proxy another', 'all_proxy, no_proxy the host', 'proxy off'])
def test_the_environment_proxy_in_a_run(tls_box, tmp_path, tinyproxy, env, through):
    named = {k: tinyproxy.url() if v is True else v for k, v in env.items()}
    done = run_tool('updater_a', [], env=tls_env(tls_box, tmp_path / 'state', **named))
    ok(done)
    assert tinyproxy.connects() == ([hostport(tls_box.provider_a)] if through else [])
    assert len(tls_box.provider_a.calls('create_record')) == 1


def test_an_environment_variable_naming_no_usable_proxy_fails_without_showing_it(tls_box, tmp_path):
    env = tls_env(tls_box, tmp_path / 'state', https_proxy='https://%s:%s@127.0.0.1:3128' % (USER, PASSWORD))
    done = run_tool('updater_a', [], env=env)
    kept = status(env)
    assert done.returncode == 1 and kept['kind'] == 'proxy' and tls_box.provider_a.calls() == []
    assert 'environment variable https_proxy names no proxy ddkit can use: a proxy is http://, socks5:// or ' \
           'socks5h://, not https://' in done.stdout
    assert PASSWORD not in everything(done, env, kept)


# --- --check -------------------------------------------------------------------------------------

def check_lines(done):
    return done.stdout.splitlines()


def test_check_shows_the_proxy_before_the_provider_steps(tls_box, tmp_path, guarded):
    env = tls_env(tls_box, tmp_path / 'state', DDNS_PROXY=guarded.url(USER, PASSWORD))
    done = run_tool('updater_a', ['--check'], env=env)
    ok(done)
    lines = check_lines(done)
    step = 'ok    proxy %s (from the proxy setting) connected to %s; the IP lookups and DoH go direct' % (
        guarded.label, hostport(tls_box.provider_a))
    assert step in lines, done.stdout
    first_remote = [n for n, line in enumerate(lines) if 'TLS with' in line][0]
    assert lines.index(step) < first_remote < [n for n, line in enumerate(lines) if 'credentials accepted' in line][0]
    assert guarded.connects() and set(guarded.connects()) == {hostport(tls_box.provider_a)}
    assert PASSWORD not in done.stdout + done.stderr


def test_check_fails_at_the_proxy_and_skips_what_needs_it(tls_box, tmp_path, guarded):
    env = tls_env(tls_box, tmp_path / 'state', DDNS_PROXY=guarded.url(USER, 'wrong-password'))
    done = run_tool('updater_a', ['--check'], env=env)
    lines = check_lines(done)
    assert done.returncode == 1 and tls_box.provider_a.calls() == []
    assert 'FAIL  proxy %s (the proxy setting) refused the credentials (HTTP 401) -- fix: check the user and ' \
           'password in the proxy setting' % guarded.label in lines, done.stdout
    assert 'skip  credentials accepted: not checked (needs: proxy reached)' in lines
    assert 'skip  TLS with %s: not checked (needs: proxy reached)' % hostport(tls_box.provider_a) in lines
    assert 'wrong-password' not in done.stdout + done.stderr


@pytest.mark.parametrize('env, line', [
    ({}, None),
    ({'https_proxy': True}, 'ok    proxy {proxy} (from environment variable https_proxy) connected to {host}; the '
                            'IP lookups and DoH go direct'),
    ({'https_proxy': True, 'DDNS_PROXY_LOOKUP': 'yes'}, 'ok    proxy {proxy} (from environment variable '
                                                        'https_proxy) connected to {host}; the IP lookups and DoH '
                                                        'go through it too (proxy_lookup)'),
    ({'https_proxy': True, 'DDNS_PROXY': 'off'}, 'ok    proxy: none for 127.0.0.1 (proxy off: https_proxy of the '
                                                 'environment is not used)'),
    ({'https_proxy': True, 'NO_PROXY': '127.0.0.1'}, 'ok    proxy: none for 127.0.0.1 (NO_PROXY exempts 127.0.0.1 '
                                                     'from https_proxy)'),
], ids=['none', 'https_proxy', 'proxy_lookup', 'off', 'no_proxy'])
def test_check_says_where_the_proxy_comes_from(tls_box, tmp_path, tinyproxy, env, line):
    named = {k: tinyproxy.url() if v is True else v for k, v in env.items()}
    done = run_tool('updater_a', ['--check'], env=tls_env(tls_box, tmp_path / 'state', **named))
    ok(done)
    said = [text for text in check_lines(done) if 'proxy' in text]
    assert said == ([line.format(proxy=tinyproxy.label, host=hostport(tls_box.provider_a))] if line else []), done.stdout


# --- settings ------------------------------------------------------------------------------------

@pytest.mark.parametrize('value, said', [
    ('ftp://%s:%s@127.0.0.1:21' % (USER, PASSWORD), 'a proxy is http://, socks5:// or socks5h://, not ftp://'),
    ('http://%s:%s@127.0.0.1:99999' % (USER, PASSWORD), 'the proxy\'s port must be 1-65535'),
    ('http://%s:%s@127.0.0.1:3128/path' % (USER, PASSWORD), 'with no path'),
    ('socks5://%s:%s@127.0.0.1:1080' % (USER, 'p' * 256), 'at most 255 bytes'),
])
def test_a_bad_proxy_setting_is_refused_without_showing_it(box, tmp_path, value, said):
    done = run_tool('updater_a', ['--proxy', value], env=env_of(box, tmp_path / 'state'))
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert PASSWORD not in done.stdout + done.stderr and 'p' * 256 not in done.stderr and box.provider_a.calls() == []


def test_a_proxy_without_a_scheme_is_an_http_proxy_as_curl_takes_it(tls_box, tmp_path, guarded):
    """host:port alone, as Clash and v2rayN show their port (and as http_proxy takes it), is an HTTP
    proxy: used, and named http://host:port by --check; its credentials stay secret."""
    bare = guarded.url(USER, PASSWORD).partition('://')[2]
    env = tls_env(tls_box, tmp_path / 'state', DDNS_PROXY=bare)
    done = run_tool('updater_a', ['--check'], env=env)
    ok(done)
    assert 'ok    proxy %s (from the proxy setting) connected to %s; the IP lookups and DoH go direct' % (
        guarded.label, hostport(tls_box.provider_a)) in check_lines(done), done.stdout
    assert set(guarded.connects()) == {hostport(tls_box.provider_a)}
    assert PASSWORD not in done.stdout + done.stderr


@pytest.mark.parametrize('where, said', [('defaults', 'UCI config defaults, read by section home'),
                                         ('home', 'UCI section home')])
def test_a_bad_proxy_in_a_uci_file_names_the_section_it_came_from(box, tmp_path, where, said):
    """A value refused names where it was written: the record's section, or `config defaults`,
    which the record's section read it from."""
    uci = tmp_path / 'updater_a'
    bad = "\toption proxy 'ftp://%s:%s@127.0.0.1:21'\n" % (USER, PASSWORD)
    uci.write_text("config defaults\n%s\nconfig updater_a 'home'\n\toption enabled '1'\n%s"
                   % (bad if where == 'defaults' else '', bad if where == 'home' else ''))
    env = dict(env_of(box, tmp_path / 'state'), DDNS_UCI_FILE=str(uci))
    done = run_tool('updater_a', ['--uci', 'home'], env=env)
    assert done.returncode == 2 and 'bad value for proxy (%s): a proxy is http://' % said in done.stderr, done.stderr
    assert PASSWORD not in done.stdout + done.stderr and box.provider_a.calls() == []


def test_proxy_lookup_takes_yes_or_no(box, tmp_path):
    done = run_tool('updater_a', ['--proxy-lookup', 'maybe'], env=env_of(box, tmp_path / 'state'))
    assert done.returncode == 2 and 'bad value for proxy_lookup (--proxy-lookup): must be 1 (yes) or 0 (no)' \
        in done.stderr, done.stderr


def test_the_proxy_credentials_are_the_settings_secrets():
    from ddkit import settings
    from ddkit.log import Log
    value = 'http://%s:%s@127.0.0.1:3128' % (USER, PASSWORD.replace('-', '%2D'))
    assert settings.proxy_secrets(value) == ['%s:%s' % (USER, PASSWORD.replace('-', '%2D')),
                                             PASSWORD.replace('-', '%2D'), PASSWORD]
    log = Log(secrets=settings.proxy_secrets(value))
    assert log.clean('proxy said %s and %s' % (PASSWORD, value)) == 'proxy said *** and http://***@127.0.0.1:3128'
    assert settings.proxy_secrets('socks5h://127.0.0.1:1080') == []


# --- what a run loads --------------------------------------------------------------------------

def imported(done):
    return {line.rsplit('|', 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith('import time:')}


def test_the_proxy_code_is_loaded_only_for_a_request_through_a_proxy(box, tmp_path, tinyproxy, native_interfaces):
    """A first run through the proxy loads ddkit.proxy; the unchanged run after it (the lookup, direct:
    the common run) loads exactly what the same run without a proxy loads; a run without a proxy that
    makes requests loads no proxy code either."""
    env = env_of(box, tmp_path / 'state', DDNS_PROXY=tinyproxy.url())
    first = run_tool('updater_a', [], env=env, flags=['-X', 'importtime'])
    ok(first)
    assert 'ddkit.proxy' in imported(first) and len(tinyproxy.requests()) == 3
    box.doh.names[(env['DDNS_RECORD_NAME'], 'A')] = [NEW]
    with_proxy = run_tool('updater_a', [], env=env, flags=['-X', 'importtime'])
    without = run_tool('updater_a', [], env=dict(env, DDNS_PROXY=''), flags=['-X', 'importtime'])
    assert 'IP has not changed' in with_proxy.stdout and 'IP has not changed' in without.stdout
    assert 'ddkit.wire' in imported(with_proxy) and imported(with_proxy) == imported(without)
    assert len(tinyproxy.requests()) == 3   # the unchanged runs sent nothing through it
    direct = run_tool('updater_a', ['--force'], env=dict(env, DDNS_PROXY=''), flags=['-X', 'importtime'])
    ok(direct)
    assert 'ddkit.proxy' not in imported(direct) and box.provider_a.calls()[-1] == 'update_record'


# --- what comes from outside is bounded: a hostile proxy, in-process ---------------------------------

class Hostile:
    """A TCP server on 127.0.0.1 that answers each thing a client sends with the next of `answer`: bytes,
    None (nothing, the connection held), or a number of seconds (a byte every so often, without end);
    counts the connections."""

    def __init__(self, answer, read=4096):
        self.answer, self.read, self.connections = answer, read, 0
        self.server = socket.socket()
        self.server.bind(('127.0.0.1', 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                try:
                    for answer in self.answer if isinstance(self.answer, list) else [self.answer]:
                        got = conn.recv(self.read)
                        if answer is None:   # hold the connection, answer nothing
                            conn.recv(1)
                            break
                        while isinstance(answer, float):   # drip a byte of headers every so often
                            conn.sendall(b'X')
                            time.sleep(answer)
                        conn.sendall(answer)
                except OSError:
                    pass

    def close(self):
        self.server.close()


def tunnel(url, timeout=2, host='127.0.0.1', port=443):
    return proxy.parsed(url, 'proxy').tunnel(wire.connect, host, port, timeout)


@pytest.mark.parametrize('answer, said', [
    ([b'HTTP/1.1 200 OK\r\n' + b'X-Filler: ' + b'x' * 9000], 'answered CONNECT with more than 8192 bytes'),
    ([b'SSH-2.0-OpenSSH_9.2\r\n\r\n'], 'answered CONNECT with no HTTP'),
    ([b'HTTP/1.1\r\n\r\n'], 'answered CONNECT with no HTTP'),
    ([b''], 'closed the connection in its handshake'),
    ([b'HTTP/1.1 200 OK\r\n\r\n\x16\x03\x01'], 'answered CONNECT with no HTTP, or more than HTTP'),
    ([b'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n'], 'wants credentials (HTTP 407)'),
    ([b'HTTP/1.1 502 Bad Gateway\r\n\r\n'], 'could not reach 127.0.0.1:443 (HTTP 502)'),
    ([None], 'no answer within 0.3 seconds'),
    ([0.05], 'no answer within 0.3 seconds'),   # each byte well within the timeout, the whole never
], ids=['huge headers', 'not http', 'no status', 'closed', 'bytes after', '407', '502', 'silent', 'dripping'])
def test_a_hostile_http_proxy_is_a_bounded_proxy_failure(answer, said):
    server = Hostile(answer)
    start = time.monotonic()
    try:
        with pytest.raises(proxy.ProxyError) as raised:
            tunnel('http://127.0.0.1:%d' % server.port, timeout=0.3)
    finally:
        server.close()
    assert time.monotonic() - start < 2   # the whole handshake within the timeout, not a timeout a read
    assert said in str(raised.value) and raised.value.proxy == 'http://127.0.0.1:%d' % server.port
    assert server.connections == 1


GREETED, ACCEPTED = b'\x05\x02', b'\x01\x00'


@pytest.mark.parametrize('answer, said', [
    ([b'\x04\x00'], 'answered no SOCKS5 greeting (version 4, method 0)'),
    ([GREETED, b'\x01\x01'], 'refused the credentials (SOCKS5)'),
    ([b'\x05\x00'], 'answered no SOCKS5 greeting (version 5, method 0)'),   # a method not offered
    ([b'\x05\xff'], 'takes no user and password (SOCKS5)'),
    ([GREETED, ACCEPTED, b'\x05\x02\x00\x01' + bytes(6)], 'could not connect to 127.0.0.1:443: not allowed by '
                                                          'ruleset (SOCKS5 reply 2)'),
    ([GREETED, ACCEPTED, b'\x05\x04\x00\x01' + bytes(6)], 'could not connect to 127.0.0.1:443: host unreachable '
                                                          '(SOCKS5 reply 4)'),
    ([GREETED, ACCEPTED, b'\x05\x00\x00\x09' + bytes(6)], 'answered with an unknown address type 9'),
    ([GREETED, ACCEPTED, b'\x05\x00\x00\x03\xff' + bytes(10)], 'closed the connection in its handshake'),
    ([GREETED, ACCEPTED, b'\x05\x00'], 'closed the connection in its handshake'),
], ids=['socks4', 'credentials', 'method', 'no method', 'ruleset', 'unreachable', 'address type', 'short name', 'short reply'])
def test_a_hostile_socks_proxy_is_a_bounded_proxy_failure(answer, said):
    server = Hostile(answer)
    try:
        with pytest.raises(proxy.ProxyError) as raised:
            tunnel('socks5://%s:%s@127.0.0.1:%d' % (USER, PASSWORD, server.port), timeout=2)
    finally:
        server.close()
    assert said in str(raised.value) and PASSWORD not in str(raised.value), str(raised.value)


@pytest.mark.parametrize('bound', [b'\x01' + bytes(4), b'\x04' + bytes(16), b'\x03\x09localhost'],
                         ids=['IPv4', 'IPv6', 'name'])
def test_a_socks_reply_of_any_address_type_is_read_to_its_end(bound):
    """The bound address of a reply, of each type, is read whole: the tunnel's first byte is the
    first after it."""
    server = Hostile([GREETED, ACCEPTED, b'\x05\x00\x00' + bound + b'\x01\xbbtunnel'])
    try:
        sock = tunnel('socks5h://%s:%s@127.0.0.1:%d' % (USER, PASSWORD, server.port))
        try:
            assert sock.recv(6) == b'tunnel'
        finally:
            sock.close()
    finally:
        server.close()
