"""ddkit.wire, the HTTP/1.1 the tools speak instead of http.client: the answer framings real servers
use (Content-Length, chunked, close-delimited), broken answers, and what is never sent."""

import os
import sys

import pytest

from conftest import ROOT
from fakes.base import Listener

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import Failure, http, wire  # noqa: E402


class RawServer(Listener):
    """A TCP server on 127.0.0.1 that sends `reply` bytes to each request and closes; keeps what it got."""

    def __init__(self, reply, close=True):
        self.reply, self.close, self.got = reply, close, b''
        super().__init__()
        self.url = 'http://127.0.0.1:%d' % self.port

    def handle(self, conn):
        conn.settimeout(5)
        data = b''
        while b'\r\n\r\n' not in data:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        self.got = data
        conn.sendall(self.reply)
        if self.close:
            conn.close()


@pytest.fixture
def raw():
    servers = []

    def make(reply, close=True):
        servers.append(RawServer(reply, close))
        return servers[-1]
    yield make
    for server in servers:
        server.stop()


def get(url, **kw):
    return http.request('GET', url + '/x?y=1', 'test step', timeout=3, retries=0, **kw)


def test_content_length_answer(raw):
    server = raw(b'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Subject-Token: abc\r\n\r\nhello', close=False)
    answer = get(server.url)
    assert (answer.status, answer.body, answer.headers['x-subject-token']) == (200, b'hello', 'abc')
    assert server.got.startswith(b'GET /x?y=1 HTTP/1.1\r\n')
    # HTTP/1.1 keeps the connection open unless a side says close: the run uses it again
    assert b'\r\nHost: 127.0.0.1:' in server.got and b'Connection:' not in server.got


def test_chunked_answer_is_joined(raw):
    server = raw(b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'
                 b'4\r\n81.2\r\n6;ext=1\r\n.69.10\r\n0\r\n\r\n')
    assert get(server.url).body == b'81.2.69.10'


def test_answer_without_length_is_read_to_the_close(raw):
    server = raw(b'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n2001:db8::1\n')
    assert get(server.url).text == '2001:db8::1\n'


def test_interim_100_continue_is_skipped(raw):
    server = raw(b'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}')
    assert get(server.url).status == 201


@pytest.mark.parametrize('reply', [
    b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort',                      # cut in the body
    b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nshort',          # cut in a chunk
])
def test_cut_answer_is_incomplete_read(raw, reply):
    server = raw(reply)
    with pytest.raises(Failure, match='the answer was cut short'):
        get(server.url)


@pytest.mark.parametrize('reply, says', [
    (b'', 'the server closed the connection without answering'),
    (b'SSH-2.0-OpenSSH_9.2\r\n\r\n', 'not an HTTP answer'),
    (b'HTTP/1.1 200 OK\r\nContent-Le', 'not an HTTP answer'),
])
def test_no_http_answer_is_a_failure_naming_why(raw, reply, says):
    with pytest.raises(Failure, match=says):
        get(raw(reply).url)


@pytest.mark.parametrize('framing', [b'Content-Length: 5000\r\n\r\n' + b'1' * 5000,
                                     b'Transfer-Encoding: chunked\r\n\r\n1388\r\n' + b'1' * 5000 + b'\r\n0\r\n\r\n',
                                     b'\r\n' + b'1' * 5000])
def test_body_over_the_cap_is_refused_whatever_the_framing(raw, framing):
    server = raw(b'HTTP/1.1 200 OK\r\n' + framing)
    with pytest.raises(Failure, match='larger than 4096 bytes'):
        get(server.url, max_body=4096)


def test_header_injection_is_refused_before_sending(raw):
    server = raw(b'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')
    with pytest.raises(ValueError):
        get(server.url, headers={'X-Auth-Key': 'k\r\nX-Evil: 1'})
    assert server.got == b''


def test_put_sends_its_json_body_with_its_length(raw):
    server = raw(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}')
    http.request('PUT', server.url + '/r', 'update', json_body={'content': '81.2.69.10'}, retries=0)
    assert b'\r\nContent-Type: application/json\r\n' in server.got
    assert b'\r\nContent-Length: 25\r\n' in server.got


def test_ipv6_literal_host_header_is_bracketed():
    head = wire._head('GET', '/', '2001:db8::1', 8080, 80, {}, None)
    assert b'\r\nHost: [2001:db8::1]:8080\r\n' in head
    assert b'Host: example.com\r\n' in wire._head('GET', '/', 'example.com', 443, 443, {}, None)
