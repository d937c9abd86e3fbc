"""Proxies: which one a request goes through, and the connection through it (docs/proxy.md).

Which: the record's proxy setting when it is set (off: none); else the environment's, read as curl
7.88 reads it: for https:// https_proxy, then HTTPS_PROXY; for http:// http_proxy alone (HTTP_PROXY is
not read: a CGI program finds a request's Proxy: header there); then all_proxy, ALL_PROXY; an empty
one counts as unset. no_proxy (else NO_PROXY) names the hosts that go direct: a name matches itself
and the names under it (a leading or trailing dot ignored, any letter case), an IP address itself or
its range (10.0.0.0/8), `*` alone every host; a port, or `*.` before a name, never matches, and a
loopback host is not exempt unless named.

How: HTTPS, and any request through SOCKS, goes through a tunnel (HTTP CONNECT, RFC 9110 section
9.3.6, with Basic credentials; SOCKS5, RFC 1928, with a user and password, RFC 1929) inside which
ddkit.wire runs its TLS, verified against the host's name exactly as on a direct connection. Plain
http goes to an HTTP proxy in absolute form (GET http://host/path). What a proxy answers is bounded
(MAX_ANSWER; SOCKS5's own lengths), and its handshake takes one timeout at most.

Imported only for a request that may go through a proxy (ddkit.http looks first whether any is
named): a run that sends nothing, or nothing through a proxy, loads none of it. A proxy that gives
no connection raises ProxyError, naming the proxy by scheme://host:port, never its password.
"""

import time

from ddkit import decimal, native
from ddkit.native import os
from ddkit.urls import ProxyError, first_set, proxy_variable, split_proxy

MAX_ANSWER = 8 * 1024     # a CONNECT answer's status line and headers: more is no proxy to talk to
EXEMPT = ('no_proxy', 'NO_PROXY')
# the SOCKS5 replies (RFC 1928 section 6); 3 to 6: the proxy cannot reach the address
SOCKS_REPLIES = ('', 'general failure', 'not allowed by ruleset', 'network unreachable', 'host unreachable',
                 'connection refused', 'TTL expired', 'command not supported', 'address type not supported')
# what to do, by what went wrong
FIXES = {'reach': 'check that the proxy runs at the host and port %s names',
         'protocol': 'check the scheme in %s: http:// for an HTTP proxy, socks5:// or socks5h:// for SOCKS5',
         'wants': 'give them in %s: scheme://user:password@host:port',
         'credentials': 'check the user and password in %s',
         'rules': 'allow %s in the proxy\'s rules',
         'route': 'check that the proxy reaches %s'}


def hostport(host, port):
    return '%s:%d' % ('[%s]' % host if ':' in host else host, port)


class Proxy:
    """A proxy of the run: scheme (http, socks5, socks5h), host, port, user and password (None: none),
    and where it was named (name: the setting proxy, or a variable of the environment)."""

    def __init__(self, url, name):
        self.scheme, self.user, self.password, self.host, self.port = split_proxy(url)
        self.name, self.key = name, url   # key: what the connections kept open through it are known by
        self.origin = 'the proxy setting' if name == 'proxy' else 'environment variable ' + name
        self.label = '%s://%s' % (self.scheme, hostport(self.host, self.port))
        self.absolute = self.scheme == 'http'   # plain http goes to it as GET http://host/path

    def error(self, text, fix, target=None):
        """A ProxyError: 'proxy <label> (<origin>) <text>', its fix one of FIXES (about target, else
        about the setting or variable); with a target, the proxy could not connect to it."""
        return ProxyError(self.label, 'proxy %s (%s) %s' % (self.label, self.origin, text), FIXES[fix] % (
            target or ('the proxy setting' if self.name == 'proxy' else self.name)), target is not None)

    def headers(self):
        """The header an HTTP proxy takes the credentials in (Basic, RFC 9110 section 11.7.2), or none."""
        if self.user is None:
            return {}
        import binascii
        pair = ('%s:%s' % (self.user, self.password or '')).encode('utf-8')
        return {'Proxy-Authorization': 'Basic ' + binascii.b2a_base64(pair, newline=False).decode('ascii')}

    def reach(self, connect, timeout, source=None):
        """A socket connected to the proxy itself (connect: ddkit.wire.connect), or a ProxyError."""
        try:
            return connect(self.host, self.port, timeout, None, source)
        except OSError as e:
            raise self.error('cannot be reached: %s' % reason(e, timeout), 'reach')

    def tunnel(self, connect, host, port, timeout, family=None, source=None):
        """A socket through the proxy to host:port, for TLS or HTTP to run inside, or a ProxyError.
        socks5: the name is resolved here first (over family 4 or 6 when given), so a name that does
        not resolve is the resolver's error, as without a proxy; its addresses are tried in turn while
        the proxy cannot connect to one, as a direct connection tries them."""
        addresses = resolved(host, port, family) if self.scheme == 'socks5' else [None]
        for number, address in enumerate(addresses):
            sock = self.reach(connect, timeout, source)
            self.end = time.monotonic() + timeout   # the whole handshake in one timeout, however it drips
            try:
                if self.scheme == 'http':
                    self.connect_method(sock, host, port)
                else:
                    self.socks(sock, host, port, address)
                sock.settimeout(timeout)
                return sock
            except ProxyError as e:
                sock.close()
                if not e.unreachable or number == len(addresses) - 1:
                    raise
            except OSError as e:   # reset, timed out: in the handshake, so the proxy's doing
                sock.close()
                raise self.error('broke off its handshake: %s' % reason(e, timeout), 'protocol')

    def recv(self, sock, size, exactly=True):
        """Up to size bytes of the proxy's answer (exactly size: SOCKS5's lengths), by the deadline."""
        data = b''
        while len(data) < size:
            left = self.end - time.monotonic()
            if left <= 0:
                raise TimeoutError('timed out')
            sock.settimeout(left)
            chunk = sock.recv(size - len(data))
            if not chunk:
                raise self.error('closed the connection in its handshake', 'protocol')
            data += chunk
            if not exactly:
                break
        return data

    def connect_method(self, sock, host, port):
        """HTTP CONNECT host:port; returns once the proxy answered 2xx (the socket is the tunnel)."""
        target = hostport(host, port)
        lines = ['CONNECT %s HTTP/1.1' % target, 'Host: ' + target] + ['%s: %s' % h for h in self.headers().items()]
        sock.sendall(('\r\n'.join(lines) + '\r\n\r\n').encode('latin-1'))
        answer = b''
        while b'\r\n\r\n' not in answer:
            if len(answer) >= MAX_ANSWER:
                raise self.error('answered CONNECT with more than %d bytes of headers' % MAX_ANSWER, 'protocol')
            answer += self.recv(sock, MAX_ANSWER - len(answer), exactly=False)
        head, _, rest = answer.partition(b'\r\n\r\n')
        parts = head.split(None, 2) + [b'', b'']   # HTTP/1.1 200 ...
        status = decimal(parts[1].decode('latin-1')) if parts[0].startswith(b'HTTP/') and len(parts[1]) == 3 else None
        if status is not None and not 200 <= status < 300:
            raise self.refused(status, target)
        if status is None or rest:   # the server speaks only after our TLS hello: bytes now are the proxy's
            raise self.error('answered CONNECT with no HTTP, or more than HTTP', 'protocol')

    def refused(self, status, target):
        """The ProxyError of an HTTP proxy's refusal, by its status, of a connection to target."""
        said = '(HTTP %d)' % status
        if status in (401, 407):   # 407, as RFC 9110 says; tinyproxy 1.11 answers 401
            return self.error('refused the credentials ' + said, 'credentials') if self.user is not None else \
                self.error('wants credentials ' + said, 'wants')
        if status == 403:
            return self.error('refused to connect to %s %s' % (target, said), 'rules', target)
        return self.error('could not reach %s %s' % (target, said), 'route', target) if status >= 500 else \
            self.error('answered CONNECT ' + said, 'protocol')

    def judge(self, status, headers, host, port):
        """A plain-http answer through this proxy in absolute form: when the proxy made it itself to
        refuse the request (407; or an error with no Via header, which a proxy adds to each answer it
        forwards, RFC 9110 section 7.6.3), a ProxyError; the server's answers pass."""
        if status == 407 or status >= 400 and 'via' not in headers:
            raise self.refused(status, hostport(host, port))

    def socks(self, sock, host, port, address):
        """SOCKS5: the greeting, the user and password when given, CONNECT to address (socks5: resolved
        here) or to the host's name (socks5h); returns once the proxy connected."""
        method = 0 if self.user is None else 2   # no authentication, or a user and password
        sock.sendall(bytes((5, 1, method)))
        version, chosen = self.recv(sock, 2)
        if version != 5 or chosen not in (method, 255):
            raise self.error('answered no SOCKS5 greeting (version %d, method %d)' % (version, chosen), 'protocol')
        if chosen == 255:
            raise self.error('wants credentials (SOCKS5)', 'wants') if method == 0 else \
                self.error('takes no user and password (SOCKS5)', 'protocol')
        if method:
            user, password = self.user.encode('utf-8'), (self.password or '').encode('utf-8')
            sock.sendall(bytes((1, len(user))) + user + bytes((len(password),)) + password)
            if self.recv(sock, 2)[1]:
                raise self.error('refused the credentials (SOCKS5)', 'credentials')
        address = address or packed(host) or bytes((3, len(host))) + host.encode('ascii')   # socks5h: the name
        sock.sendall(bytes((5, 1, 0)) + address + port.to_bytes(2, 'big'))
        version, reply, _, kind = self.recv(sock, 4)
        if version != 5 or reply:
            said = SOCKS_REPLIES[reply] if reply < len(SOCKS_REPLIES) else 'an unknown reply'
            raise self.error('could not connect to %s: %s (SOCKS5 reply %d)' % (hostport(host, port), said, reply),
                             'route' if 3 <= reply <= 6 else 'rules', hostport(host, port))
        size = self.recv(sock, 1)[0] if kind == 3 else {1: 4, 4: 16}.get(kind)
        if size is None:
            raise self.error('answered with an unknown address type %d' % kind, 'protocol')
        self.recv(sock, size + 2)   # the address and port it connected from: not used


def reason(e, timeout):
    """Why a connection to the proxy, or its handshake, failed: a few words (the OSError's class, as
    ddkit.http reads it, never its wording)."""
    name = type(e).__name__
    if isinstance(e, TimeoutError) or name == 'timeout':
        return 'no answer within %g seconds (timeout)' % timeout
    text = getattr(e, 'strerror', None) or str(e) or name
    return 'its name does not resolve (%s)' % text if name == 'gaierror' else \
        '%s (%s)' % (text, name) if name not in text else text


def packed(host):
    """A SOCKS5 address of host when it is an IP address (type 1 or 4 and its bytes), else None."""
    from ddkit import ipcheck
    version, number = ipcheck.parse(host)
    if version is None:
        return None
    return bytes((1 if version == 4 else 4,)) + number.to_bytes(4 if version == 4 else 16, 'big')


def resolved(host, port, family=None):
    """The SOCKS5 addresses of host (over family 4 or 6 when given), resolved here, in the resolver's
    order (a name that does not resolve: its OSError)."""
    if packed(host):
        return [packed(host)]
    sockets, found = native.sockets(), []
    fam = {4: sockets.AF_INET, 6: sockets.AF_INET6}.get(family, sockets.AF_UNSPEC)
    for *_, addr in sockets.getaddrinfo(host.encode('ascii'), port, fam, sockets.SOCK_STREAM):
        address = packed(addr[0].partition('%')[0])   # an IPv6 address may end in %<scope>
        if address not in found:
            found.append(address)
    return found


def parsed(url, name):
    """The Proxy of a URL the proxy setting (name 'proxy') or a variable names; a ProxyError for a
    variable that names none ddkit can use (the setting was checked at load)."""
    try:
        return Proxy(url, name)
    except ValueError as e:   # the message never shows the URL: it may hold a password
        raise ProxyError(None, 'environment variable %s names no proxy ddkit can use: %s' % (name, e),
                         'set %s to an http:// or socks5:// proxy, or set proxy (off: none)' % name)


def route(setting, scheme, host, environ=None):
    """(the Proxy a request of scheme to host goes through, or None: direct; and when a proxy was named
    yet is not used, why, else ''). setting: the record's proxy ('' or None unset: the environment's)."""
    environ = os.environ if environ is None else environ
    name, value = proxy_variable(environ, scheme)
    exempt_name, exempt = first_set(environ, EXEMPT)
    if setting == 'off':
        return None, 'proxy off: %s of the environment is not used' % name if name else ''
    if setting:
        return parsed(setting, 'proxy'), ''
    if not value:
        return None, ''
    if exempt and exempted(host, exempt):
        return None, '%s exempts %s from %s' % (exempt_name, host, name)
    return parsed(value, name), ''


def exempted(host, no_proxy):
    """True when no_proxy (comma- or blank-separated entries) names host, as curl 7.88 matches it."""
    from ddkit import ipcheck
    version, number = ipcheck.parse(host)
    size = 32 if version == 4 else 128
    for entry in no_proxy.lower().replace(',', ' ').split():
        if version is None:   # a name: itself and the names under it, a dot at either end ignored
            entry = entry.strip('.')
            if entry and ('.' + host.lower().rstrip('.')).endswith('.' + entry):
                return True
            continue
        address, _, bits = entry.partition('/')
        other, base = ipcheck.parse(address)
        length = (decimal(bits) if len(bits) <= 3 else None) or size   # none, 0 or not a number: the whole
        if other == version and length <= size and number >> (size - length) == base >> (size - length):
            return True
    return no_proxy == '*'
