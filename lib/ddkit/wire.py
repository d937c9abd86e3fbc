"""HTTP/1.1 on a bare socket, the connections kept open for the rest of the run.

http.client brings the email package, socket, selectors, ssl and more: on a router that triples the
start-up of a cron run and adds 7 MiB, for one GET. This is the part of HTTP the tools use; TLS (the
_ssl extension, not the ssl module) is loaded only for https:// (docs/benchmarks.md). A run keeps
one connection per (scheme, host, port, family, source, CA) while the server keeps it open, and one
TLS context per CA setting: a router's CPU pays one handshake per host and one reading of its CA
certificates per run (docs/https.md). The sockets and TLS come from ddkit.native: the C extensions
when they behave as expected, else the socket and ssl modules. Through a proxy (a ddkit.proxy.Proxy,
which ddkit.http picks) the connection is a tunnel, and TLS inside it is the same as on a direct one.
"""

from ddkit import decimal, native

SOCKETS = native.sockets()   # _socket, or socket

MAX_HEAD = 64 * 1024     # status line and headers; more is not an HTTP server we can talk to
MAX_DIGITS = 15          # of a Content-Length or chunk size: a petabyte
ANSWER_TIMEOUTS = 3      # the whole answer must come within this many timeouts, however it drips

POOL = {}                # (scheme, host, port, family, source, ca_file, proxy) -> a connection kept open
CONTEXTS = {}            # (ca_file, anchors or None) -> a TLS context of this run, made at its first use
LOCATIONS = {}           # ca_file -> ca_locations(ca_file), found once a run as its contexts are


class ProtocolError(OSError):
    """The server broke HTTP (subclasses are named as in http.client, so messages stay familiar)."""


class RemoteDisconnected(ProtocolError):
    """The connection closed before any answer."""


class IncompleteRead(ProtocolError):
    """The connection closed in the middle of the body."""


class BadStatusLine(ProtocolError):
    """The answer does not start like HTTP."""


def exchange(scheme, host, port, method, target, headers, body=None, timeout=10, ca_file=None,
             family=None, source=None, max_body=256 * 1024, repeatable=True, anchors=None, via=None):
    """Send one request; return (status, {lower-case name: value}, body), the body cut at max_body + 1
    bytes (so the caller sees that it was larger). The connection a request of this run left open to
    the same place is used again. On one the server had closed meanwhile the request fails before any
    byte of the answer: then it is sent once more on a new connection, when it is safe to send twice
    (repeatable; never a create: the server may have taken it before it closed). anchors: where the
    CA certificates earlier runs' chains ended at are kept (see secure), or None. via: the proxy
    (a ddkit.proxy.Proxy) the request goes through, or None."""
    key = (scheme, host, port, family, source, ca_file, via and via.key)
    sock = POOL.pop(key, None)
    reused = sock is not None
    absolute = via is not None and via.absolute and scheme == 'http'   # to an HTTP proxy: GET http://...
    if absolute:
        headers = dict(headers, **via.headers())
    data = _head(method, target, host, port, 443 if scheme == 'https' else 80, headers, body,
                 absolute) + (body or b'')
    while True:
        if sock is None:
            if scheme == 'https':
                sock = secure(host, port, timeout, family, source, ca_file, anchors, via)
            elif absolute:
                sock = via.reach(connect, timeout, source)
            else:
                sock = opened(host, port, timeout, family, source, via)
        reader = _Deadline(sock, timeout)
        try:
            sock.sendall(data)
            status, got, answer, keep = _answer(reader, method, max_body)
        except OSError as e:
            sock.close()
            sock = None
            if reused and repeatable and not reader.received and isinstance(e, (ConnectionError, RemoteDisconnected)):
                reused = False   # the server closed the idle connection: once more, on a new one
                continue
            raise
        if absolute:   # an answer the proxy made itself to refuse the request is its failure
            try:
                via.judge(status, got, host, port)
            except OSError:
                sock.close()
                raise
            keep = False   # a proxy may close after each answer without saying so (tinyproxy 1.11 does)
        if keep:
            POOL[key] = sock
        else:
            sock.close()
        return status, got, answer


def close_all():
    """Close the connections this run kept open (at its end)."""
    while POOL:
        POOL.popitem()[1].close()


class Socket(SOCKETS.socket):
    """A socket TLS can wrap: the C layer keeps a weak reference to it, which _socket's base type
    does not allow (the ssl module wraps socket.socket, this class's cousin, for the same)."""


def connect(host, port, timeout, family=None, source=None):
    """A connected TCP socket, over one address family (4 or 6) and/or from one source address."""
    fam = {4: SOCKETS.AF_INET, 6: SOCKETS.AF_INET6}.get(family, SOCKETS.AF_UNSPEC)
    try:
        name = host.encode('ascii')  # bytes: the idna codec (and unicodedata) stays unloaded
    except UnicodeError:
        name = host
    error = OSError('no address of the requested family for %s' % host)
    for af, kind, proto, _, addr in SOCKETS.getaddrinfo(name, port, fam, SOCKETS.SOCK_STREAM):
        sock = Socket(af, kind, proto)
        try:
            sock.settimeout(timeout)
            if source:
                sock.bind((source, 0))
            sock.connect(addr)
            return sock
        except OSError as e:
            sock.close()
            error = e
    raise error


def opened(host, port, timeout, family=None, source=None, via=None):
    """A TCP connection to host:port: direct, or a tunnel through the proxy via (a ddkit.proxy.Proxy)."""
    if via is None:
        return connect(host, port, timeout, family, source)
    return via.tunnel(connect, host, port, timeout, family, source)


def secure(host, port, timeout, family, source, ca_file, anchors=None, via=None):
    """A TLS connection to host, verified. With a CA bundle (read whole: its 150 certificates are most
    of what a run's TLS costs) and anchors (an object with cadata(bundle) and learn(bundle, chain)):
    first against only the bundle's certificates that earlier runs' verified chains ended at, which
    anchors.cadata gives (each found in the bundle as it is now: a subset of what it trusts, never
    more); when those do not verify this host, against the whole bundle, whose verified chain then
    tells anchors what to keep for the next run. No request has been sent when the first try fails.
    via: the proxy whose tunnel TLS runs in (ddkit.proxy), verified against host all the same."""
    where = located(ca_file) if anchors is not None else None
    if where and where[0] == 'cafile':
        narrowed = context_of(ca_file, anchors.cadata(where[1]))
        if narrowed is not None:
            try:
                return tls(opened(host, port, timeout, family, source, via), host, timeout, ca_file, narrowed)
            except native.tls().SSLError as e:
                if getattr(e, 'verify_code', None) is None:   # not a refused certificate: the real error
                    raise
    conn = tls(opened(host, port, timeout, family, source, via), host, timeout, ca_file)
    if where and where[0] == 'cafile':
        chain = native.verified_chain(conn.conn)
        if chain:
            anchors.learn(where[1], chain)
    return conn


def context_of(ca_file, cadata=None):
    """The run's TLS context for ca_file's certificates, or for only those of cadata (PEM text) when
    it is given; None when it is given empty."""
    if cadata is not None and not cadata:
        return None
    key = (ca_file, cadata)
    if key not in CONTEXTS:
        CONTEXTS[key] = make_context(ca_file, cadata)
    return CONTEXTS[key]


def tls(sock, host, timeout, ca_file, context=None):
    """Wrap a connected socket in TLS verified against the CA certificates (context's, else ca_file's)
    and host (a name, or an IP address checked against the certificate's IP addresses). Through _ssl,
    the C extension, directly when ddkit.native finds it as expected: the ssl module's Python layer
    (enum, socket, base64...) costs a router more than the handshake (tests/test_tls_versions.py:
    every Python 3.8 to 3.13)."""
    conn = owns = None
    try:
        if context is None:
            context = context_of(ca_file)
        name = server_name(host)
        sock.settimeout(timeout)   # before wrapping: the C layer then waits with this timeout
        conn, owns = native.wrap(context, sock, name)
        conn.do_handshake()
    except BaseException:
        if owns:   # ssl's SSLSocket has the socket now
            conn.close()
        sock.close()
        raise
    return TLS(sock, conn, owns)


def server_name(host):
    """The name TLS sends and verifies: a URL's host, always ASCII (settings.check_url), so as it is,
    with no idna codec."""
    if not host:
        raise ValueError('no host name to verify the certificate against')
    return host


class TLS:
    """A TLS connection with the socket interface exchange uses (sendall, recv, settimeout, close),
    behaving as ssl.SSLSocket: a close without TLS's close_notify reads as the end, as there."""

    def __init__(self, sock, conn, owns=False):
        # conn holds only a weak reference to sock; owns: conn took the socket over (ssl's SSLSocket)
        self.sock, self.conn, self.owns = sock, conn, owns

    def sendall(self, data):
        view = memoryview(data)
        while view:
            view = view[self.conn.write(view):]

    def recv(self, size):
        tls = native.tls()
        try:
            return self.conn.read(size)
        except tls.SSLError as e:
            if e.args[0] in (tls.SSL_ERROR_EOF, tls.SSL_ERROR_ZERO_RETURN):
                return b''
            raise

    def settimeout(self, timeout):
        (self.conn if self.owns else self.sock).settimeout(timeout)

    def close(self):
        if self.owns:
            self.conn.close()
        self.conn = None
        self.sock.close()


def make_context(ca_file, cadata=None):
    """A client TLS context that verifies certificates and host names, with the CA certificates of
    ca_locations (once a run: reading a bundle of 145 certificates costs a router's CPU the most), or
    only those of cadata (PEM text)."""
    where = ('cadata', cadata) if cadata else located(ca_file)
    if where is None and _windows():
        import ssl   # the Windows certificate store is read by the ssl module's Python layer
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.load_default_certs()
        return context
    context = native.client_context()   # CERT_REQUIRED, host names checked
    if not context.check_hostname or context.verify_mode != native.tls().CERT_REQUIRED:
        raise OSError('this Python\'s TLS client context does not verify certificates')
    if where:
        context.load_verify_locations(**{where[0]: where[1]})
    else:
        context.set_default_verify_paths()
    return context


def default_paths():
    """(bundle, hashed directory) OpenSSL would use, SSL_CERT_FILE and SSL_CERT_DIR honoured, as
    ssl.get_default_verify_paths() gives them."""
    from ddkit.native import os
    file_env, cafile, dir_env, capath = native.default_verify_paths()
    return os.environ.get(file_env, cafile), os.environ.get(dir_env, capath)


def _windows():
    from ddkit.native import os
    return os.name == 'nt'


def located(ca_file):
    """ca_locations(ca_file), looked for once a run (a directory scan, on each new connection else)."""
    if ca_file not in LOCATIONS:
        LOCATIONS[ca_file] = ca_locations(ca_file)
    return LOCATIONS[ca_file]


def ca_locations(ca_file):
    """('capath' or 'cafile', path) of the CA certificates https trusts, or None (the system's own
    store, Windows). ca_file may name a bundle or a hashed directory (c_rehash, <hash>.0 links). Unset:
    the system's hashed directory when it has one, where OpenSSL reads only the issuer it needs,
    else its bundle, which it reads whole; OpenSSL's defaults, SSL_CERT_DIR and SSL_CERT_FILE honoured."""
    from ddkit.native import os
    if ca_file:
        return ('capath' if os.path.isdir(ca_file) else 'cafile'), ca_file
    cafile, capath = default_paths()
    if capath and os.path.isdir(capath) and hashed(capath):
        return 'capath', capath
    if cafile and os.path.isfile(cafile):
        return 'cafile', cafile
    return None


def hashed(directory):
    """True when directory holds OpenSSL's hash links (<8 hex digits>.<n>)."""
    from ddkit.native import os
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                name, _, number = entry.name.partition('.')
                if len(name) == 8 and not name.strip('0123456789abcdef') and number.isdigit():
                    return True
    except OSError:
        pass
    return False


class _Deadline:
    """A socket whose recv() gives up once the answer has taken ANSWER_TIMEOUTS timeouts: a server that
    sends a byte just inside each timeout would otherwise hold the run (and the record's lock) for hours."""

    def __init__(self, sock, timeout):
        import time
        self.sock, self.timeout, self.clock = sock, timeout, time.monotonic
        self.end = self.clock() + ANSWER_TIMEOUTS * timeout
        self.received = 0   # bytes of the answer so far: none, and a kept connection may be retried

    def recv(self, size):
        left = self.end - self.clock()
        if left <= 0:
            raise TimeoutError('timed out: the answer took longer than %g seconds'
                               % (ANSWER_TIMEOUTS * self.timeout))
        self.sock.settimeout(min(left, self.timeout))
        data = self.sock.recv(size)
        self.received += len(data)
        return data


def _head(method, target, host, port, default_port, headers, body, absolute=False):
    """The request line and headers; absolute: the target in absolute form (to an HTTP proxy)."""
    hostport = '[%s]' % host if ':' in host else host
    if port != default_port:
        hostport += ':%d' % port
    if absolute:
        target = 'http://%s%s' % (hostport, target)
    lines = ['%s %s HTTP/1.1' % (method, target), 'Host: ' + hostport, 'Accept-Encoding: identity']
    for name, value in headers.items():
        if any(c in str(name) + str(value) for c in '\r\n\0'):
            raise ValueError('invalid header %s' % name)  # no header injection, as in http.client
        lines.append('%s: %s' % (name, value))
    if body is not None or method in ('POST', 'PUT', 'PATCH'):
        lines.append('Content-Length: %d' % len(body or b''))
    return ('\r\n'.join(lines) + '\r\n\r\n').encode('latin-1')


def _answer(sock, method, max_body):
    buf = b''
    while True:
        while b'\r\n\r\n' not in buf:
            chunk = sock.recv(65536)
            if not chunk:
                if buf:
                    raise BadStatusLine('the answer ended inside its headers: %r' % buf[:80])
                raise RemoteDisconnected('Remote end closed connection without response')
            buf += chunk
            if len(buf) > MAX_HEAD and b'\r\n\r\n' not in buf:
                raise BadStatusLine('headers longer than %d bytes' % MAX_HEAD)
        head, _, buf = buf.partition(b'\r\n\r\n')
        lines = head.decode('latin-1').split('\r\n')
        parts = lines[0].split(None, 2)
        status = decimal(parts[1]) if len(parts) > 1 and len(parts[1]) == 3 else None
        if status is None or not parts[0].startswith('HTTP/'):
            raise BadStatusLine(repr(lines[0][:80]))
        if not 100 <= status < 200:
            break  # a 1xx interim answer is followed by the real one
    headers = {}
    for line in lines[1:]:
        name, colon, value = line.partition(':')
        if colon:
            headers[name.strip().lower()] = value.strip()
    # the connection may carry the next request: HTTP/1.1 not closed, and this answer read to its end
    keep = parts[0] == 'HTTP/1.1' and 'close' not in headers.get('connection', '').lower()
    if method == 'HEAD' or status in (204, 304):
        return status, headers, b'', keep and not buf
    if 'chunked' in headers.get('transfer-encoding', '').lower():
        body, rest = _chunked(sock, buf, max_body)
        return status, headers, body, keep and rest == b''
    length = headers.get('content-length')
    if length is not None:
        size = decimal(length) if len(length) <= MAX_DIGITS else None
        if size is None:
            raise BadStatusLine('bad Content-Length %r' % length[:20])
        return status, headers, _read(sock, buf, size, max_body + 1), keep and size <= max_body and len(buf) <= size
    return status, headers, _read(sock, buf, None, max_body + 1), False   # its end was the close


def _read(sock, buf, length, cap):
    """length bytes (None: up to the close), never more than cap."""
    want = cap if length is None else min(length, cap)
    parts, size = [buf], len(buf)
    while size < want:
        chunk = sock.recv(min(65536, want - size))
        if not chunk:
            if length is not None:
                raise IncompleteRead('%d bytes read, %d more expected' % (size, length - size))
            break
        parts.append(chunk)
        size += len(chunk)
    return b''.join(parts)[:want]


def _chunked(sock, buf, max_body):
    """(body, what followed it), or (the first max_body + 1 bytes, None) for a larger body."""
    body = b''
    while True:
        line, buf = _line(sock, buf, len(body))
        digits = line.split(b';', 1)[0].strip()
        # not int(x, 16) alone: it takes "-5", "0x5" and "5_0"
        if not digits or len(digits) > MAX_DIGITS or digits.strip(b'0123456789abcdefABCDEF'):
            raise BadStatusLine('bad chunk size %r' % line[:20])
        size = int(digits, 16)
        if size == 0:
            while line:   # the trailer lines, if any, up to the empty line that ends the answer
                line, buf = _line(sock, buf, len(body))
            return body, buf
        over = size > max_body - len(body)
        want = max_body + 1 - len(body) if over else size + 2  # the chunk and its CRLF
        while len(buf) < want:
            chunk = sock.recv(65536)
            if not chunk:
                raise IncompleteRead('%d bytes read, the chunked answer ended early' % (len(body) + len(buf)))
            buf += chunk
        if over:
            return body + buf[:want], None  # larger than max_body: the caller refuses it
        body, buf = body + buf[:size], buf[size + 2:]


def _line(sock, buf, read):
    """(the next CRLF-ended line of a chunked answer, what follows it)."""
    while b'\r\n' not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise IncompleteRead('%d bytes read, the chunked answer ended early' % read)
        buf += chunk
        if len(buf) > MAX_HEAD:
            raise BadStatusLine('bad chunk size line')
    line, _, buf = buf.partition(b'\r\n')
    return line, buf
