"""A threaded HTTP(S) server on 127.0.0.1 with named routes, a request log, per-route request budgets
and switches that make the next answers fail the way real services fail; and a bare listener for the
tests whose server must send what no HTTP server would."""

import json
import re
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Request:
    """One request as the server saw it."""

    def __init__(self, route, method, path, query, headers, body, client):
        self.route, self.method, self.path, self.query = route, method, path, query
        self.headers, self.body, self.client = headers, body, client

    @property
    def json(self):
        return json.loads(self.body) if self.body else None

    def __repr__(self):
        return '<%s %s %s>' % (self.route, self.method, self.path)


class Reply:
    """What a handler answers: status, JSON or text body, extra headers."""

    def __init__(self, status=200, body=None, headers=None, text=None):
        self.status, self.headers = status, dict(headers or {})
        if text is not None:
            self.raw = text.encode() if isinstance(text, str) else text
            self.headers.setdefault('Content-Type', 'text/plain')
        else:
            self.raw = json.dumps(body).encode()
            self.headers.setdefault('Content-Type', 'application/json')


class Listener:
    """A TCP server on 127.0.0.1 for bytes no HTTP server would send: a thread accepts each
    connection and hands it to handle(conn), which subclasses write (and set what it uses first)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(5)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return   # stopped
            self.handle(conn)

    def handle(self, conn):
        raise NotImplementedError

    def stop(self):
        self.sock.close()


class RecordStore:
    """What a test asks of the records a provider's fake holds by id (in its attribute STORE): the
    records of a name and type, and their addresses by operator line. A fake states the fields its
    API names them by: TYPE (the type's), LINE (the line's; None: the provider has no lines)."""
    STORE = 'records'
    TYPE = 'type'
    LINE = None

    def find(self, name, rtype='A'):
        """The records named so, on any line (what a test asserts on)."""
        return [r for r in getattr(self, self.STORE).values() if r['name'] == name.rstrip('.') and r[self.TYPE] == rtype]

    def by_line(self, name, rtype='A'):
        """{line: the sorted addresses of the records of this name and type on it} ({None: ...} without
        lines: every address is a record of the name)."""
        held = {} if self.LINE else {None: []}
        for r in self.find(name, rtype):
            held.setdefault(r[self.LINE] if self.LINE else None, []).append(r['content'])
        return {line: sorted(values) for line, values in held.items()}


class NameStore(RecordStore):
    """The store of a service only told an address (a webhook, an update URL): no zones (the domain
    stands for the names under it), one address a name and type, each telling replacing it; records
    '<name> <type>' -> {'name', 'type', 'content'}."""

    def add_zone(self, name):
        return name

    def add_record(self, zone_id, name, rtype, content):
        key = '%s %s' % (name, rtype)
        self.records[key] = {'name': name, 'type': rtype, 'content': content}
        return key


class FakeServer:
    """Subclasses register routes with `self.route(name, method, pattern, handler)`."""

    def __init__(self, tls_cert=None, host='127.0.0.1'):
        self.routes = []
        self.requests = []
        self.budgets = {}
        self.over_budget = []
        self.faults = []          # [(route or None, kind, options)], consumed in order
        self.lock = threading.RLock()
        self.tls_cert = tls_cert  # a trustme LeafCert, or None for plain HTTP
        self.host = host
        self.httpd = None
        self.clock_offset = 0     # seconds added to the Date header (a server clock that is off)
        self.connections = 0      # TCP connections accepted (a kept-alive one counts once)
        self.close_quietly = False  # close each connection after one answer without saying so, as a
        # server whose keep-alive timeout has passed does

    # --- set-up --------------------------------------------------------------------------------
    def route(self, name, method, pattern, handler, guard=None, header=None):
        """handler(req, *the pattern's groups) answers; guard(req, *groups), when given, first: a Reply
        it returns (credentials refused, no such zone) is the answer instead. header: (name, value) the
        request must carry too, for an API that sends every action to one path and names it in a
        header (X-TC-Action)."""
        self.routes.append((name, method, re.compile(pattern + '$'), handler, guard, header))

    def route_names(self):
        """The names of its routes (what calls() and budget() speak of)."""
        return [route[0] for route in self.routes]

    def budget(self, **limits):
        """At most this many requests per route name; more is recorded in over_budget and refused."""
        self.budgets.update(limits)

    def fail(self, kind, route=None, times=1, **options):
        """Make the next `times` requests (to `route`, or any) fail: kinds are listed in _fault, and
        in _dispatch the two whose request takes effect ('rewrite', 'lost')."""
        with self.lock:
            for _ in range(times):
                self.faults.append((route, kind, options))

    def start(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            # headers and body go out in two writes: with Nagle the body waits for the client's
            # delayed ACK (40 ms a request), a delay no real server adds
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def date_time_string(self, timestamp=None):
                now = time.time() if timestamp is None else timestamp
                return BaseHTTPRequestHandler.date_time_string(self, now + server.clock_offset)

            def handle_one(self):
                server._dispatch(self)
                if server.close_quietly:
                    self.close_connection = True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_one

        family = socket.AF_INET6 if ':' in self.host else socket.AF_INET

        class Server(ThreadingHTTPServer):
            address_family = family
            daemon_threads = True

            def get_request(self):
                accepted = super().get_request()
                with server.lock:
                    server.connections += 1
                return accepted

        self.httpd = Server((self.host, 0), Handler)
        if self.tls_cert is not None:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls_cert.configure_cert(ctx)
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self):
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None

    @property
    def port(self):
        return self.httpd.server_address[1]

    @property
    def url(self):
        host = '[%s]' % self.host if ':' in self.host else self.host
        return '%s://%s:%d' % ('https' if self.tls_cert else 'http', host, self.port)

    # --- inspection ----------------------------------------------------------------------------
    def calls(self, route=None):
        """The route names of the requests so far (or the requests to one route)."""
        with self.lock:
            if route is None:
                return [r.route for r in self.requests]
            return [r for r in self.requests if r.route == route]

    def reset_log(self):
        with self.lock:
            self.requests.clear()
            self.over_budget.clear()

    # --- serving -------------------------------------------------------------------------------
    def _dispatch(self, h):
        split = urlsplit(h.path)
        length = int(h.headers.get('Content-Length') or 0)
        body = h.rfile.read(length) if length else b''
        query = {k: v[0] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        name, handler, guard, match = 'unknown', None, None, None
        for rname, method, pattern, fn, check, header in self.routes:
            m = pattern.match(split.path)
            if m and method == h.command and (header is None or h.headers.get(header[0]) == header[1]):
                name, handler, guard, match = rname, fn, check, m
                break
        req = Request(name, h.command, split.path, query, {k.lower(): v for k, v in h.headers.items()},
                      body, h.client_address[0])
        req.raw_query = split.query   # as sent, before decoding: how the client escaped it
        with self.lock:
            self.requests.append(req)
            count = len([r for r in self.requests if r.route == name])
            fault = self._take_fault(name)
            self.seen(req)
        if name in self.budgets and count > self.budgets[name]:
            self.over_budget.append(req)
            return self._send(h, Reply(599, {'error': 'over budget for %s' % name}))
        if fault and fault[0] not in ('rewrite', 'lost'):
            return self._fault(h, *fault)
        if handler is None:
            return self._send(h, Reply(404, {'error': 'no route %s %s' % (h.command, split.path)}))
        try:
            reply = (guard and guard(req, *match.groups())) or handler(req, *match.groups())
            if fault and fault[0] == 'rewrite':  # the request takes effect, its answer is changed by
                reply = fault[1]['answer'](reply)  # options['answer']
        except Exception as e:  # a bug in a fake must show up in the test, not hang it
            reply = Reply(598, {'error': 'fake crashed: %r' % e})
        if fault and fault[0] == 'lost':  # the request takes effect, its answer never leaves: the
            h.close_connection = True     # connection closes with no byte of it
            return
        self._send(h, reply)

    def seen(self, req):
        """Called for each request before it is answered, so a reader never sees the answer first."""

    def _take_fault(self, name):
        for i, (route, kind, options) in enumerate(self.faults):
            if route in (None, name):
                return self.faults.pop(i)[1:]
        return None

    def _send(self, h, reply, length=None):
        h.send_response_only(reply.status)
        h.send_header('Server', h.version_string())
        if 'date' not in (k.lower() for k in reply.headers):  # one Date: a reply may bring its own
            h.send_header('Date', h.date_time_string())
        for k, v in reply.headers.items():
            h.send_header(k, v)
        h.send_header('Content-Length', str(len(reply.raw) if length is None else length))
        h.end_headers()
        h.wfile.write(reply.raw)
        h.wfile.flush()

    def _fault(self, h, kind, options):
        """The ways real services fail."""
        if kind == 'hang':  # accept, read, never answer (until options['until'], an Event, is set)
            if 'until' in options:
                options['until'].wait(options.get('seconds', 30))
            else:
                time.sleep(options.get('seconds', 30))
            h.close_connection = True
        elif kind == 'status':  # e.g. 500, 502, 503, or 429 with retry_after
            headers = {'Retry-After': str(options['retry_after'])} if 'retry_after' in options else {}
            self._send(h, Reply(options.get('status', 500), text=options.get('text', 'server error'),
                                headers=headers))
        elif kind == 'malformed':
            self._send(h, Reply(200, text='{"success": true, "result": [', headers={
                'Content-Type': 'application/json'}))
        elif kind == 'html':
            self._send(h, Reply(200, text='<html><body><h1>Service unavailable</h1></body></html>',
                                headers={'Content-Type': 'text/html'}))
        elif kind == 'empty':
            self._send(h, Reply(200, text=''))
        elif kind == 'truncated':  # promise more than is sent, then close
            self._send(h, Reply(200, text='{"success": tr'), length=400)
            h.close_connection = True
        elif kind == 'huge':
            size = options.get('size', 8 * 1024 * 1024)
            h.send_response(200)
            h.send_header('Content-Type', 'text/plain')
            h.send_header('Content-Length', str(size))
            h.end_headers()
            try:
                chunk = b'1' * 65536
                for _ in range(size // len(chunk)):
                    h.wfile.write(chunk)
            except OSError:
                pass
            h.close_connection = True
        elif kind == 'redirect':
            self._send(h, Reply(options.get('status', 302), text='', headers={
                'Location': options['location']}))
        elif kind == 'reply':  # any canned answer: options status, body (JSON) or text
            self._send(h, Reply(options.get('status', 200), options.get('body'), text=options.get('text'),
                                headers=options.get('headers')))
        elif kind == 'verbatim':  # a hostile HTTP answer: this status line and these header lines as
            # given (no Date or Content-Length added), then the body bytes, then the connection closes
            head = [options.get('status_line', 'HTTP/1.1 200 OK')] + list(options.get('head', ()))
            h.wfile.write(('\r\n'.join(head) + '\r\n\r\n').encode('latin-1') + options.get('body', b''))
            h.wfile.flush()
            h.close_connection = True
        elif kind == 'close':  # accept and drop the connection with no answer
            h.close_connection = True
        elif kind == 'raw':  # bytes that are not HTTP at all (a captive portal, a wrong port)
            h.wfile.write(options.get('data', b'SSH-2.0-OpenSSH_9.2\r\n'))
            h.wfile.flush()
            h.close_connection = True
        elif kind == 'trickle':  # answer one byte at a time, each just inside a read timeout
            h.send_response(200)
            h.send_header('Content-Type', 'application/json')
            h.send_header('Content-Length', str(options.get('size', 400)))
            h.end_headers()
            try:
                for _ in range(options.get('size', 400)):
                    h.wfile.write(b' ')
                    h.wfile.flush()
                    time.sleep(options.get('interval', 0.3))
            except OSError:
                pass
            h.close_connection = True
        else:
            raise ValueError('unknown fault %r' % kind)
