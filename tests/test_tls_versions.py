"""The TLS the tools speak is verified under every Python they support (3.8 to 3.13 here): a server's
certificate for another host, an expired one, one from an unknown CA and one for another IP address
are refused; the right one, for a host name or for an IP address, is taken; an answer that ends with
the connection is read whole, whether the server closes TLS first or not. Each interpreter runs
ddkit.wire itself against local TLS servers."""

import datetime
import os
import ssl
import subprocess

import pytest

import needs
from conftest import ROOT, sampled
from fakes.base import Listener
from test_apk import pythons

PROBE = r'''
import sys
sys.path.insert(0, sys.argv[1])
from ddkit import wire
host, port, ca = sys.argv[2], int(sys.argv[3]), sys.argv[4]
try:
    status, _, body = wire.exchange('https', host, port, 'GET', '/', {}, ca_file=ca, timeout=5)
    print('ok', status, body.decode())
except OSError as e:
    print('refused', type(e).__name__, getattr(e, 'verify_message', ''))
'''


class TLSServer(Listener):
    """One HTTPS answer per connection, with the given certificate; ending: how the answer ends (its
    Content-Length; the close of the connection, with TLS's close_notify or without it)."""

    def __init__(self, cert, ending='length'):
        self.ending = ending
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        cert.configure_cert(self.context)
        super().__init__()

    def handle(self, conn):
        try:
            with self.context.wrap_socket(conn, server_side=True) as tls:
                tls.recv(65536)
                length = 'Content-Length: 5\r\n' if self.ending == 'length' else ''
                tls.sendall(b'HTTP/1.1 200 OK\r\n%sConnection: close\r\n\r\nhello' % length.encode())
                if self.ending == 'close_notify':
                    tls.unwrap().close()
        except (OSError, ssl.SSLError):
            pass   # the client refused the certificate


@pytest.fixture(scope='module')
def certs(tmp_path_factory):
    trustme = pytest.importorskip('trustme')
    ca, other = trustme.CA(), trustme.CA()
    past = datetime.datetime(2020, 1, 1)
    made = {'right name': ca.issue_cert('localhost'), 'right IP': ca.issue_cert('127.0.0.1'),
            'another name': ca.issue_cert('other.example'), 'another IP': ca.issue_cert('127.0.0.2'),
            'unknown CA': other.issue_cert('localhost', '127.0.0.1'),
            'expired': ca.issue_cert('localhost', '127.0.0.1', not_before=past - datetime.timedelta(days=2),
                                     not_after=past)}
    path = str(tmp_path_factory.mktemp('ca') / 'ca.pem')
    ca.cert_pem.write_to_path(path)
    servers = {name: TLSServer(cert) for name, cert in made.items()}
    # an answer whose end is the close: taken, with TLS's close_notify and without it (as ssl does)
    servers.update({ending: TLSServer(made['right name'], ending) for ending in ('close_notify', 'bare close')})
    yield servers, path
    for server in servers.values():
        server.stop()


@pytest.mark.parametrize('python', sampled(pythons()) or ['none'])   # the oldest and newest; all: test-full
@pytest.mark.parametrize('case, host, taken', [
    ('right name', 'localhost', True), ('right IP', '127.0.0.1', True),
    ('another name', 'localhost', False), ('another IP', '127.0.0.1', False),
    ('unknown CA', 'localhost', False), ('expired', 'localhost', False),
    ('close_notify', 'localhost', True), ('bare close', 'localhost', True),
])
def test_every_python_verifies_the_certificate(certs, python, case, host, taken):
    if python == 'none':
        needs.missing('no Python 3.8 to 3.13 found (pyenv install one, or put python3.8 ... python3.13 on PATH)')
    servers, ca = certs
    done = subprocess.run([python, '-I', '-S', '-c', PROBE, os.path.join(ROOT, 'lib'), host,
                           str(servers[case].port), ca], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    if taken:
        assert done.stdout.split() == ['ok', '200', 'hello'], done.stdout
    else:
        assert done.stdout.startswith('refused SSLCertVerificationError'), done.stdout
