"""Log lines `[<date>] - <message>` to a bounded file and to stdout, with secrets masked."""

import os
import sys
import time

# The log lives in a router's tiny storage: past LOG_MAX bytes it is cut to its newest LOG_KEEP bytes.
LOG_MAX = 64 * 1024
LOG_KEEP = 32 * 1024
MASK = '***'


class Log:
    """One output function for every message of a run."""

    def __init__(self, path=None, quiet=False, secrets=(), tag=None):
        self.path = path
        self.quiet = quiet
        self.tag = tag  # syslog tag; set when running under OpenWrt
        self.secrets = []
        self.forms = []  # every form of every secret, longest first
        for secret in secrets:
            self.add_secret(secret)

    def add_secret(self, secret):
        """Mask this value (a setting, or a token obtained during the run) from now on."""
        if secret and len(secret) >= 3 and secret not in self.secrets:
            self.secrets.append(secret)
            self.forms = sorted(set(self.forms).union(secret_forms(secret)), key=len, reverse=True)

    def clean(self, message):
        """Mask secrets in every form a server can echo them, then escape what is not printable, so
        provider text can neither show a secret nor forge lines."""
        text = str(message)
        for form in self.forms:
            text = text.replace(form, MASK)
        if '...' in text and self.forms:
            text = _mask_cut(text, self.forms)
        return printable(text)

    def info(self, message):
        """Log one line; printed unless quiet."""
        self._emit(message, error=False)

    def error(self, message):
        """Log one line; always printed, also when quiet."""
        self._emit(message, error=True)

    def _emit(self, message, error):
        line = '[%s] - %s' % (time.strftime('%Y-%m-%d %H:%M:%S'), self.clean(message))
        if error or not self.quiet:
            say(line)
        if self.path:
            self._append(line)
        if self.tag:
            _syslog(self.tag, line, error)

    def _append(self, line):
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            with open(self.path, 'ab') as f:  # binary: a text file's tell() is costly code
                f.write((line + '\n').encode('utf-8'))
                size = f.tell()
            if size > LOG_MAX:
                _trim(self.path)
        except OSError as e:
            # a full or read-only disk must not stop the DNS update itself
            print('[%s] - cannot write log file %s: %s' % (
                time.strftime('%Y-%m-%d %H:%M:%S'), self.path, e.strerror), file=sys.stderr)


def printable(text):
    """text with every character that is not printable escaped (\\x1b, \\u2028): one line, no
    terminal control sequence. The one escaping of everything the tools print or log."""
    text = str(text)
    # the common line is printable ASCII: checked without str.isprintable's Unicode tables
    if any(not 31 < ord(c) < 127 for c in text) and not text.isprintable():
        text = ''.join(c if c.isprintable() else '\\x%02x' % ord(c) if ord(c) < 256
                       else '\\u%04x' % ord(c) for c in text)
    return text


# Characters a URL never encodes (RFC 3986 unreserved), and what some encoders also leave alone:
# Python's quote() keeps "/", JavaScript's encodeURIComponent keeps "!'()*"
UNRESERVED = frozenset('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~')
URL_SAFE = ('', '/', "!'()*")
JSON_SHORT = {'"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f'}


def secret_forms(secret):
    """The forms a server may echo a secret back in: as sent, with its whitespace collapsed,
    JSON-escaped (with or without "\\/", \\u in either case, non-ASCII escaped or not), URL-encoded
    (%20 or +, hex in either case, "/" and "!'()*" encoded or not). Only those of 3 characters or more."""
    forms = {secret}
    chars = set(secret)
    if not chars <= UNRESERVED:
        for slash in ('/', '\\/'):
            for upper in (False, True):
                for ascii_only in (False, True):
                    forms.add(secret.translate({ord(c): _json_escape(c, slash, upper, ascii_only)
                                                for c in chars}))
        for safe in URL_SAFE:
            for space in ('%20', '+'):
                for upper in (False, True):
                    forms.add(secret.translate({ord(c): c if c in UNRESERVED or c in safe else
                                                space if c == ' ' else _percent(c, upper) for c in chars}))
    forms.update([' '.join(form.split()) for form in forms])  # as an excerpt collapses each of them
    return [form for form in forms if len(form) >= 3]


def _json_escape(c, slash, upper, ascii_only):
    code = ord(c)
    if c in JSON_SHORT:
        return JSON_SHORT[c]
    if c == '/':
        return slash
    if code >= 32 and not (ascii_only and code > 126):
        return c
    units = [code] if code < 0x10000 else [0xd800 + ((code - 0x10000) >> 10), 0xdc00 + (code & 0x3ff)]
    return ''.join('\\u' + _hex(unit >> 8, upper) + _hex(unit & 255, upper) for unit in units)


def _percent(c, upper):
    return ''.join('%' + _hex(byte, upper) for byte in c.encode('utf-8', 'surrogatepass'))


def _hex(byte, upper):
    # by table, not '%02x': number formatting is code no cheap run otherwise loads (ddkit.ipcheck)
    digits = '0123456789ABCDEF' if upper else '0123456789abcdef'
    return digits[byte >> 4] + digits[byte & 15]


def _mask_cut(text, forms):
    """Mask the start of a secret that an excerpt cut short ("...", as ddkit.http.snippet cuts)."""
    at = text.find('...')
    while at >= 0:
        for form in forms:
            start = _cut_start(text, at, form)
            if start is not None:
                text = text[:start] + MASK + text[at:]
                at = start + len(MASK)
                break
        at = text.find('...', at + 3)
    return text


def _cut_start(text, at, form):
    """Where a start of form, 3 characters or more, ends exactly at `at`; None when none does."""
    start = text.find(form[:3], max(0, at - len(form)), at)
    while start >= 0:
        if form.startswith(text[start:at]):
            return start
        start = text.find(form[:3], start + 1, at)
    return None


def say(text):
    """Print text on stdout. Where stdout is a pipe closed early (`| head`), the rest goes nowhere:
    no traceback, and the run goes on (the log file still gets every line)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _trim(path):
    from ddkit import state
    with open(path, 'rb') as f:
        f.seek(-LOG_KEEP, os.SEEK_END)
        tail = f.read().decode('utf-8', 'replace')
    state.write_if_changed(path, tail.split('\n', 1)[-1].splitlines())


def _syslog(tag, line, error):
    # OpenWrt's logd listens on /dev/log; `logread` then shows our lines. _socket, not socket: that
    # module loads enum and selectors, several times what the rest of a run costs a router.
    import _socket
    try:
        s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_DGRAM)
        try:
            s.connect('/dev/log')
            prio = 27 if error else 30  # daemon.err / daemon.info
            s.send(('<%d>%s: %s' % (prio, tag, line.split(' - ', 1)[-1])).encode('utf-8'))
        finally:
            s.close()
    except OSError:
        pass
