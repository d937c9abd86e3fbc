"""HTTP: one helper for every remote call (timeout, User-Agent, JSON, capped reads, bounded retries).

The requests go through ddkit.wire (HTTP/1.1 on a bare socket, not http.client: start-up cost);
ssl is imported only for https:// URLs.
Redirects are never followed: credentials must not travel to another host or over plain HTTP.
A request goes through the record's proxy (ddkit.PROXY) unless its caller asks for a direct one.
"""

import time

from ddkit import PROXY, VERSION, Failure, decimal
from ddkit.native import os
from ddkit.urls import split_url  # noqa: F401  (callers take it from here too)

USER_AGENT = 'ddkit/%s (+router DDNS tools)' % VERSION
MAX_BODY = 256 * 1024    # no answer we use is larger; a bigger one is a broken or hostile server
RETRIES = 2              # after the first try: 3 attempts at most
BACKOFF = 1.0            # seconds before the first retry, doubled each time
MAX_RETRY_AFTER = 30     # a Retry-After longer than this is not waited for: the answer stands
ANCHORS_FILE = 'ddkit-ca-anchors.pem'   # in the state directory the updater names (ddkit.KEEP_DIR)
MAX_ANCHORS = 8          # the certificates that file keeps: a run's hosts end at one or two
MAX_BUNDLE = 4 * 1024 * 1024   # of a CA bundle read as text (OpenWrt's: about 200 KB)


class NoAnswer(Failure):
    """No answer came from url: its kind says why (resolve, unreachable, timeout, tls)."""


class NotJson(Failure):
    """The answer was no JSON: often the wrong URL (an HTML page, a 404 of another path)."""


class TooLarge(Failure):
    """The answer was larger than the caller's cap: a broken or hostile server, or an HTML page."""


class Anchors:
    """The certificates of a CA bundle that earlier runs' verified chains ended at, kept in a file of a
    state directory (mode 0600, written only when they change): a run then loads those few, not the
    whole bundle (ddkit.wire.secure). The file only picks among the bundle's certificates: one it
    holds that the bundle does not hold now, byte for byte, is never trusted."""

    def __init__(self, directory):
        from ddkit.native import os
        self.path = os.path.join(directory, ANCHORS_FILE)
        self.texts = {}   # bundle -> its text, read once a run
        self.blocks = None   # what the file holds, read at the first use, then as learn left it

    def kept(self):
        """The PEM blocks of the file, in its order (the most recently learned first)."""
        if self.blocks is None:
            from ddkit import state
            self.blocks = pem_blocks('\n'.join(state.read_lines(self.path, limit=MAX_ANCHORS * 4096,
                                                                 private=True)))
        return self.blocks

    def bundle(self, path):
        if path not in self.texts:
            try:
                with open(path, 'rb') as f:
                    self.texts[path] = f.read(MAX_BUNDLE).decode('ascii', 'replace').replace('\r\n', '\n')
            except OSError:
                self.texts[path] = ''
        return self.texts[path]

    def cadata(self, bundle):
        """The kept certificates the bundle holds now, as PEM text ('' when none)."""
        text = self.bundle(bundle)
        return ''.join(block for block in self.kept() if block in text)

    def learn(self, bundle, chain):
        """Keep the bundle's certificates that are in chain (DER, as a handshake verified it), before
        those kept already. Never fails a request: a file that cannot be written only costs the next
        run the whole bundle."""
        import binascii
        found = []
        for block in pem_blocks(self.bundle(bundle)):
            try:
                if binascii.a2b_base64(''.join(block.split('\n')[1:-2])) in chain:
                    found.append(block)
            except binascii.Error:
                continue
        if not found:
            return
        from ddkit import state
        self.blocks = (found + [block for block in self.kept() if block not in found])[:MAX_ANCHORS]
        try:
            state.write_if_changed(self.path, [block.rstrip('\n') for block in self.blocks], private=True)
        except (OSError, Failure):
            pass


def pem_blocks(text):
    """The certificates of PEM text, each from its BEGIN line to its END line and a newline."""
    begin, end = '-----BEGIN CERTIFICATE-----', '-----END CERTIFICATE-----'
    blocks, at = [], text.find(begin)
    while at >= 0:
        stop = text.find(end, at)
        if stop < 0:
            break
        blocks.append(text[at:stop + len(end)] + '\n')
        at = text.find(begin, stop)
    return blocks


_ANCHORS = {}


def anchors():
    """The run's Anchors, in the directory the updater named for them (ddkit.KEEP_DIR), or None."""
    import ddkit
    directory = ddkit.KEEP_DIR[0]
    if directory is None:
        return None
    if directory not in _ANCHORS:
        _ANCHORS[directory] = Anchors(directory)
    return _ANCHORS[directory]


class Response:
    """A finished answer: status, lower-cased headers, body bytes."""

    def __init__(self, status, headers, body, step, url):
        self.status, self.headers, self.body, self.step, self.url = status, headers, body, step, url

    @property
    def where(self):
        """The URL without its query: what a failure names."""
        return _where(self.url)

    @property
    def text(self):
        return self.body.decode('utf-8', 'replace')

    def nonempty(self):
        """This answer; a Failure naming the step when it has no body: a provider's gateway that gave
        up waiting for its backend answers nothing."""
        if not self.body.strip():
            raise Failure.at(self.step, 'empty answer (HTTP %d): the request timed out; check connectivity'
                             % self.status, url=self.where, status=self.status, kind='unexpected',
                             fix='check connectivity')
        return self

    def json(self):
        """The body as JSON; a Failure naming the step when it is not JSON."""
        from ddkit import jsontext  # not json: start-up cost
        try:
            return jsontext.loads(self.body.decode('utf-8'))
        except ValueError:  # jsontext also refuses numbers out of range and deep nesting
            raise NotJson.at(self.step, '%s answered HTTP %d with no JSON: %s' % (
                _where(self.url), self.status, snippet(self.text)), url=_where(self.url), status=self.status,
                kind='server error' if self.status >= 500 else 'not json')


def first_wait(environ):
    """Seconds before a first retry: BACKOFF, or less when DDKIT_TEST_BACKOFF=<seconds> asks."""
    # the test suite sets it (tests/conftest.py): its fake servers fail on cue, so nothing clears while
    # a retry waits; it never makes a wait longer, and a router's runs never set it
    value = environ.get('DDKIT_TEST_BACKOFF', '')
    return min(float(value), BACKOFF) if value.replace('.', '', 1).isdigit() else BACKOFF


def snippet(text, limit=200):
    """A short one-line excerpt of a provider's answer, for error messages."""
    text = ' '.join(text.split())
    return text if len(text) <= limit else text[:limit] + '...'


def _where(url):
    return url.split('?', 1)[0]


def request(method, url, step, headers=None, json_body=None, timeout=10, ca_file=None,
            family=None, source=None, retries=RETRIES, max_body=MAX_BODY, repeatable=None, data=None,
            shown=None, direct=False):
    """Make one request and return its Response, whatever its status (providers explain errors in
    the body); retry what is transient (refused, reset, timeout, 5xx, 429) a bounded number of
    times; raise Failure naming the step when no answer came or a redirect was offered. repeatable:
    safe to send again (GET, PUT, DELETE, and a POST whose caller says so); one that is not (a
    create) is sent again only when its connection was refused, so it surely never arrived. data:
    a body of bytes sent as they are (its Content-Type among headers), instead of json_body. shown:
    the URL as a failure names it, where its path may hold a key (default: the URL without its query).
    direct: never through a proxy (the IP lookups and DoH: a proxy would be seen instead of this host).
    A proxy that gives no connection is a failure of kind 'proxy' naming it, not retried."""
    from ddkit import wire
    where = shown or _where(url)
    scheme, host, port, path = split_url(url)
    body = data
    sent = {'User-Agent': USER_AGENT, 'Accept': 'application/json, text/plain, */*'}
    if json_body is not None:
        from ddkit import jsontext
        body = jsontext.dumps(json_body).encode('utf-8')
        sent['Content-Type'] = 'application/json'
    for name, value in (headers or {}).items():  # header names are case-insensitive: one of each
        for old in [k for k in sent if k.lower() == name.lower()]:
            del sent[old]
        sent[name] = value
    delay = first_wait(os.environ)
    safe = method != 'POST' if repeatable is None else repeatable
    for attempt in range(retries + 1):
        last = attempt == retries
        try:
            via = None if direct or PROXY[0] is None else PROXY[0](scheme, host)
            status, got, data = wire.exchange(scheme, host, port, method, '/' + path, sent, body,
                                              timeout, ca_file, family, source, max_body,
                                              safe, anchors(), via)
        except ImportError as e:  # no _ssl for an https:// URL: the router lacks python3-openssl
            if e.name not in ('ssl', '_ssl'):
                raise
            raise Failure.at(step, 'cannot use %s: this Python has no TLS (no module %s); on OpenWrt: '
                             'opkg install python3-openssl' % (where, e.name), url=where, kind='no tls',
                             fix='opkg install python3-openssl')
        except OSError as e:  # refused, reset, timed out, TLS, and wire.ProtocolError
            if type(e).__name__ == 'ProxyError':   # the proxy's failure, said as its own
                raise NoAnswer.at(step, '%s; fix: %s' % (e, e.fix), url=e.proxy, kind='proxy', fix=e.fix)
            # a create is tried again only when it surely never arrived (the connection was refused)
            if last or not _transient(e) or not safe and not isinstance(e, ConnectionRefusedError):
                raise NoAnswer.at(step, 'no answer from %s: %s' % (where, _reason(e)), url=where,
                                  kind=_kind(e), verify_code=getattr(e, 'verify_code', None))
            time.sleep(delay)
            delay *= 2
            continue
        if len(data) > max_body:
            raise TooLarge.at(step, '%s sent an answer larger than %d bytes' % (where, max_body),
                              url=where, status=status, kind='too large')
        answer = Response(status, got, data, step, url)
        if 300 <= answer.status < 400:
            raise Failure.at(step, '%s answered with a redirect (HTTP %d to %s), which is refused: set the URL '
                             'to the final address' % (where, answer.status,
                                                       _where(answer.headers.get('location', '?'))),
                             url=where, status=answer.status, kind='redirect',
                             fix='set the URL to the final address')
        # a request that is not repeatable may have taken effect before the error: it is sent once
        if (answer.status >= 500 or answer.status == 429) and not last and safe:
            wait = _retry_after(answer.headers.get('retry-after'), delay)
            if wait is None:
                return answer  # longer than a run waits: this answer stands
            time.sleep(wait)
            delay *= 2
            continue
        return answer


def date(text):
    """Epoch seconds of an HTTP Date header ("Sun, 06 Nov 1994 08:49:37 GMT"), or None."""
    months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
    try:
        _, day, month, year, clock = (text or '').split()[:5]
        hour, minute, second = (decimal(x) if len(x) == 2 else None for x in clock.split(':'))
        day, year = (decimal(day) if len(day) <= 2 else None), (decimal(year) if len(year) == 4 else None)
    except ValueError:
        return None
    # bounded before use: a year 10^20 or an hour 1e999 is no date (calendar would overflow)
    if None in (day, year, hour, minute, second) or month.title() not in months or not 1 <= day <= 31 \
            or year < 1970 or hour > 23 or minute > 59 or second > 60:
        return None
    import calendar
    return calendar.timegm((year, months.index(month.title()) + 1, day, hour, minute, second))


def _transient(e):
    # ConnectionError: refused, reset, aborted, broken pipe; 'timeout' is socket.timeout before 3.10
    return isinstance(e, (ConnectionError, TimeoutError)) or \
        type(e).__name__ in ('timeout', 'RemoteDisconnected', 'IncompleteRead', 'BadStatusLine')


def _kind(e):
    """What kept an answer from coming, as a Failure's kind (by the OSError's class, as _transient
    does, never the words; no socket module to import for its gaierror)."""
    if type(e).__name__ == 'SSLCertVerificationError' or getattr(e, 'verify_code', None):
        return 'tls'
    if type(e).__name__ == 'gaierror':
        return 'resolve'
    if isinstance(e, TimeoutError) or type(e).__name__ == 'timeout':
        return 'timeout'
    if type(e).__name__ in ('BadStatusLine', 'IncompleteRead'):   # something answered, not in HTTP
        return 'unexpected'
    return 'unreachable'


def _retry_after(value, default):
    """Seconds to wait: Retry-After's digits (not float(): nan, inf), else the default; None: too long."""
    value = (value or '').strip()
    if not value or value.strip('0123456789'):
        return default  # absent, or an HTTP-date
    seconds = decimal(value) if len(value) <= 3 else MAX_RETRY_AFTER + 1
    return seconds if seconds <= MAX_RETRY_AFTER else None


PLAIN = {'IncompleteRead': 'the answer was cut short', 'BadStatusLine': 'not an HTTP answer',
         'RemoteDisconnected': 'the server closed the connection without answering'}


def _reason(e):
    name = type(e).__name__
    if name in PLAIN:
        return '%s (%s)' % (PLAIN[name], e) if str(e) and name != 'RemoteDisconnected' else PLAIN[name]
    if name == 'SSLCertVerificationError':
        return ('TLS certificate not trusted (%s); set ca_file, or install the CA bundle '
                '(OpenWrt: opkg install ca-bundle)' % (getattr(e, 'verify_message', '') or e))
    text = getattr(e, 'strerror', None) or str(e) or name
    return '%s (%s)' % (text, name) if name not in text else text
