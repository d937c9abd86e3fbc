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

import os

from ddkit import decimal, native
from ddkit.urls import split_proxy

MAX_ANSWER = 8 * 1024     # a CONNECT answer's status line and headers: more is no proxy to talk to
VARIABLES = {'https': ('https_proxy', 'HTTPS_PROXY'), 'http': ('http_proxy',)}   # by the URL's scheme
EVERY = ('all_proxy', 'ALL_PROXY')   # after those of the scheme
EXEMPT = ('no_proxy', 'NO_PROXY')
# the SOCKS5 reply codes (RFC 1928 section 6)
SOCKS_REPLIES = {1: 'general SOCKS server failure', 2: 'connection not allowed by ruleset',
                 3: 'network unreachable', 4: 'host unreachable', 5: 'connection refused', 6: 'TTL expired',
                 7: 'command not supported', 8: 'address type not supported'}
UNREACHABLE = (3, 4, 5, 6)   # of those, the ones that say the host cannot be reached from the proxy


class ProxyError(OSError):
    """The proxy gave no connection (down, refusing, credentials rejected, the host out of its reach, or
    not speaking its protocol). proxy: scheme://host:port (None: a variable that names none); fix: what
    to do. Its text names the proxy, never its password."""

    def __init__(self, proxy, text, fix, unreachable=False):
        super().__init__(text)
        self.proxy, self.fix = proxy, fix
        self.unreachable = unreachable   # the proxy said it could not reach the address it was given


class Proxy:
    """A proxy of the run: scheme (http, socks5, socks5h), host, port, user and password (None: none),
    and where it was named (the proxy setting, or a variable of the environment)."""

    def __init__(self, url, name, origin):
        self.scheme, self.user, self.password, self.host, self.port = split_proxy(url)
        self.name, self.origin = name, origin   # 'proxy', 'the proxy setting'; or a variable's name, twice
        self.where = 'the proxy setting' if name == 'proxy' else name   # what a fix names
        self.label = '%s://%s:%d' % (self.scheme, '[%s]' % self.host if ':' in self.host else self.host, self.port)
        self.key = url   # what the connections kept open through it are known by (ddkit.wire.POOL)
        self.absolute = self.scheme == 'http'   # plain http goes to it as GET http://host/path

    def error(self, text, fix, unreachable=False):
        """A ProxyError saying what this proxy did: 'proxy <label> (<origin>) <text>'."""
        return ProxyError(self.label, 'proxy %s (%s) %s' % (self.label, self.origin, text), fix, unreachable)

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
            raise self.error('cannot be reached: %s' % reason(e, timeout),
                             'check that the proxy runs and that %s names its host and port%s'
                             % (self.where, '' if self.name == 'proxy' else ' (or set proxy off: none)'))

    def tunnel(self, connect, host, port, timeout, family=None, source=None):
        """A socket through the proxy to host:port, for TLS or HTTP to run inside; a ProxyError when the
        proxy gives none. socks5: the name is resolved here first (over family 4 or 6 when given), so
        a name that does not resolve is the resolver's error, as without a proxy; its addresses are
        tried in turn while the proxy says it cannot reach one, as a direct connection tries them."""
        addresses = resolved(host, port, family) if self.scheme == 'socks5' else [None]
        for number, address in enumerate(addresses):
            sock = self.reach(connect, timeout, source)
            try:
                reader = Reader(sock, timeout)
                if self.scheme == 'http':
                    self.connect_method(sock, reader, host, port)
                else:
                    self.socks(sock, reader, host, port, address)
                sock.settimeout(timeout)
                return sock
            except ProxyError as e:
                sock.close()
                if not e.unreachable or number == len(addresses) - 1:
                    raise
            except OSError as e:   # reset, timed out: in the handshake, so the proxy's doing
                sock.close()
                raise self.error('broke off its handshake: %s' % reason(e, timeout), 'check the proxy and its log')

    def connect_method(self, sock, reader, host, port):
        """HTTP CONNECT host:port; returns once the proxy answered 2xx (the socket is the tunnel)."""
        target = '%s:%d' % ('[%s]' % host if ':' in host else host, port)
        lines = ['CONNECT %s HTTP/1.1' % target, 'Host: ' + target]
        lines += ['%s: %s' % pair for pair in self.headers().items()]
        sock.sendall(('\r\n'.join(lines) + '\r\n\r\n').encode('latin-1'))
        answer = b''
        while b'\r\n\r\n' not in answer:
            if len(answer) >= MAX_ANSWER:
                raise self.error('answered CONNECT with more than %d bytes of headers' % MAX_ANSWER,
                                 'check that %s names an HTTP proxy' % self.where)
            chunk = reader.recv(MAX_ANSWER - len(answer))
            if not chunk:
                raise self.error('closed the connection without answering CONNECT',
                                 'check that %s names an HTTP proxy (a SOCKS proxy is socks5://)' % self.where)
            answer += chunk
        head, _, rest = answer.partition(b'\r\n\r\n')
        first = head.split(b'\r\n', 1)[0].decode('latin-1')
        parts = first.split(None, 2)
        status = decimal(parts[1]) if len(parts) > 1 and len(parts[1]) == 3 and parts[0].startswith('HTTP/') else None
        if status is None:
            raise self.error('answered CONNECT with no HTTP (%r)' % first[:40],
                             'check that %s names an HTTP proxy (a SOCKS proxy is socks5://)' % self.where)
        if not 200 <= status < 300:
            raise self.refused(status, target)
        if rest:   # the server speaks only after our TLS hello: these bytes are the proxy's own
            raise self.error('sent bytes of its own into the tunnel after its answer', 'check the proxy')

    def refused(self, status, target):
        """The ProxyError of an HTTP proxy's refusal, by its status, of a connection to target."""
        if status in (401, 407):   # 407, as RFC 9110 says; tinyproxy 1.11 answers 401
            if self.user is None:
                return self.error('wants credentials (HTTP %d)' % status,
                                  'give them in %s: http://user:password@host:port' % self.where)
            return self.error('refused the credentials (HTTP %d)' % status,
                              'check the user and password in %s' % self.where)
        if status == 403:
            return self.error('refused to connect to %s (HTTP 403)' % target,
                              'allow %s at the proxy (tinyproxy: ConnectPort; squid: http_access)' % target)
        if status >= 500:
            return self.error('could not reach %s (HTTP %d)' % (target, status),
                              'check that the proxy reaches %s (its network, its resolver)' % target)
        return self.error('answered HTTP %d for %s' % (status, target),
                          'check that %s names an HTTP proxy' % self.where)

    def judge(self, status, headers, host, port):
        """A plain-http answer through this proxy in absolute form: when the proxy made it itself to
        refuse the request (407; or an error with no Via header, which a proxy adds to each answer it
        forwards, RFC 9110 section 7.6.3), a ProxyError; the server's answers pass."""
        if status == 407 or status >= 400 and 'via' not in headers:
            raise self.refused(status, '%s:%d' % ('[%s]' % host if ':' in host else host, port))

    def socks(self, sock, reader, host, port, address):
        """SOCKS5: the greeting, the user and password when given, CONNECT to address (4 or 16 bytes,
        socks5) or to the host's name (socks5h); returns once the proxy connected."""
        method = 0 if self.user is None else 2   # no authentication, or a user and password
        sock.sendall(bytes((5, 1, method)))
        version, chosen = self.exactly(reader, 2)
        if version != 5:
            raise self.error('answered no SOCKS5 (version %d)' % version,
                             'check the scheme in %s: an HTTP proxy is http://' % self.where)
        if chosen != method:
            if method == 0:
                raise self.error('wants credentials (SOCKS5 method %d)' % chosen,
                                 'give them in %s: %s://user:password@host:port' % (self.where, self.scheme))
            raise self.error('takes no user and password (SOCKS5 method %d)' % chosen,
                             'check the proxy\'s settings, or leave the credentials out of %s' % self.where)
        if method == 2:
            user, password = self.user.encode('utf-8'), (self.password or '').encode('utf-8')
            sock.sendall(bytes((1, len(user))) + user + bytes((len(password),)) + password)
            if self.exactly(reader, 2)[1] != 0:
                raise self.error('refused the credentials (SOCKS5)', 'check the user and password in %s' % self.where)
        if address is None:   # socks5h: the proxy resolves the name (an address is sent as one)
            address = packed(host) or bytes((3, len(host))) + host.encode('ascii')
        sock.sendall(bytes((5, 1, 0)) + address + port.to_bytes(2, 'big'))
        version, reply, _, kind = self.exactly(reader, 4)
        target = '%s:%d' % ('[%s]' % host if ':' in host else host, port)
        if version != 5:
            raise self.error('answered CONNECT with no SOCKS5 (version %d)' % version, 'check the proxy')
        if reply:
            said = '%s (SOCKS5 reply %d)' % (SOCKS_REPLIES.get(reply, 'an unknown reply'), reply)
            if reply in UNREACHABLE:
                raise self.error('could not connect to %s: %s' % (target, said),
                                 'check that the proxy reaches %s (its network%s)'
                                 % (target, ', its resolver' if self.scheme == 'socks5h' else ''), True)
            raise self.error('refused to connect to %s: %s' % (target, said),
                             'check the proxy\'s rules%s' % (' or use socks5:// (names resolved here)'
                                                             if reply == 8 else ''))
        size = {1: 4, 4: 16}.get(kind)
        if kind == 3:
            size = self.exactly(reader, 1)[0]
        if size is None:
            raise self.error('answered with an unknown address type %d' % kind, 'check the proxy')
        self.exactly(reader, size + 2)   # the address and port it connected from: not used

    def exactly(self, reader, size):
        """size bytes of the proxy's answer (SOCKS5's lengths), or a ProxyError when it closes first."""
        data = b''
        while len(data) < size:
            chunk = reader.recv(size - len(data))
            if not chunk:
                raise self.error('closed the connection in its SOCKS5 handshake',
                                 'check that %s names a SOCKS5 proxy (an HTTP proxy is http://), and its log'
                                 % self.where)
            data += chunk
        return data


class Reader:
    """recv within one deadline: a proxy's whole handshake takes one timeout, however it drips."""

    def __init__(self, sock, timeout):
        import time
        self.sock, self.clock = sock, time.monotonic
        self.end = self.clock() + timeout

    def recv(self, size):
        left = self.end - self.clock()
        if left <= 0:
            raise TimeoutError('timed out')
        self.sock.settimeout(left)
        return self.sock.recv(size)


def reason(e, timeout):
    """Why a connection to the proxy, or its handshake, failed: a few words (the OSError's class, as
    ddkit.http reads it, never its wording)."""
    name = type(e).__name__
    if isinstance(e, TimeoutError) or name == 'timeout':
        return 'no answer within %g seconds (timeout)' % timeout
    if name == 'gaierror':
        return 'its name does not resolve (%s)' % (getattr(e, 'strerror', None) or e)
    text = getattr(e, 'strerror', None) or str(e) or name
    return '%s (%s)' % (text, name) if name not in text else text


def packed(host):
    """A SOCKS5 address of host when it is an IP address (type 1 or 4 and its bytes), else None."""
    from ddkit import ipcheck
    version, number = ipcheck.parse(host)
    if version is None:
        return None
    return bytes((1,)) + number.to_bytes(4, 'big') if version == 4 else bytes((4,)) + number.to_bytes(16, 'big')


def resolved(host, port, family=None):
    """The SOCKS5 addresses of host (over family 4 or 6 when given), resolved here, in the resolver's
    order; an OSError when it has none."""
    found = packed(host)
    if found:
        return [found]
    sockets = native.sockets()
    fam = {4: sockets.AF_INET, 6: sockets.AF_INET6}.get(family, sockets.AF_UNSPEC)
    addresses = []
    for _, _, _, _, addr in sockets.getaddrinfo(host.encode('ascii'), port, fam, sockets.SOCK_STREAM):
        found = packed(addr[0].partition('%')[0])
        if found and found not in addresses:
            addresses.append(found)
    if not addresses:
        raise OSError('no address of the requested family for %s' % host)
    return addresses


PARSED = {}   # (url, variable) -> its Proxy: the records of a run share their proxy


def parsed(url, name):
    """The Proxy of a URL the proxy setting (name 'proxy') or a variable names; a ProxyError for a
    variable that names none ddkit can use (the setting was checked at load)."""
    if (url, name) not in PARSED:
        origin = 'the proxy setting' if name == 'proxy' else 'environment variable ' + name
        try:
            proxy = Proxy(url, name, origin)
            if max(len((text or '').encode('utf-8')) for text in (proxy.user, proxy.password)) > 255:
                raise ValueError('its user and password are at most 255 bytes each')
        except ValueError as e:   # the message never shows the URL: it may hold a password
            raise ProxyError(None, '%s names no proxy ddkit can use: %s' % (origin, e),
                             'set %s to http://, socks5:// or socks5h:// host:port, or set proxy (off: none)' % name)
        PARSED[url, name] = proxy
    return PARSED[url, name]


def found(environ, names):
    """(name, value) of the first of the variables that is set and not empty, else (None, '')."""
    for name in names:
        if environ.get(name):
            return name, environ[name]
    return None, ''


def route(setting, scheme, host, environ=None):
    """(the Proxy a request of scheme to host goes through, or None: direct; and when a proxy was named
    yet is not used, why, else ''). setting: the record's proxy ('' or None unset: the environment's)."""
    environ = os.environ if environ is None else environ
    names = VARIABLES.get(scheme, ()) + EVERY
    if setting == 'off':
        name = found(environ, names)[0]
        return None, 'proxy off: %s of the environment is not used' % name if name else ''
    if setting:
        return parsed(setting, 'proxy'), ''
    name, value = found(environ, names)
    if not value:
        return None, ''
    exempt_name, exempt = found(environ, EXEMPT)
    if exempt and exempted(host, exempt):
        return None, '%s exempts %s from %s' % (exempt_name, host, name)
    return parsed(value, name), ''


def exempted(host, no_proxy):
    """True when no_proxy (comma- or blank-separated entries) names host, as curl 7.88 matches it."""
    if no_proxy == '*':
        return True
    from ddkit import ipcheck
    host = host.lower()
    version, number = ipcheck.parse(host)
    host = host[:-1] if version is None and host.endswith('.') else host
    for entry in no_proxy.lower().replace(',', ' ').split():
        if version is None:
            entry = entry[:-1] if entry.endswith('.') else entry
            entry = entry[1:] if entry.startswith('.') else entry
            if entry and (host == entry or host.endswith('.' + entry)):
                return True
            continue
        address, _, bits = entry.partition('/')
        other, base = ipcheck.parse(address)
        size = 32 if version == 4 else 128
        length = (decimal(bits) if len(bits) <= 3 else None) or size   # none, 0 or not a number: the whole
        if other == version and length <= size and number >> (size - length) == base >> (size - length):
            return True
    return False
