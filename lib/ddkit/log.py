"""Log lines `[<date>] - <message>` to a bounded file and to stdout, with secrets masked."""

import sys
import time

from ddkit import UNRESERVED
from ddkit.native import os

# The log lives in a router's tiny storage: past LOG_MAX bytes it is cut to its newest LOG_KEEP bytes.
LOG_MAX = 64 * 1024
LOG_KEEP = 32 * 1024
MASK = '***'
# a secret shorter than this is masked only where it stands as a whole value ("wrong", =wrong&,
# ': wrong'): a password "wrong" must not rewrite the provider's "The username or password is wrong."
WHOLE_ONLY = 8
LOG_MODE = 0o644    # the most a log may allow: readable by others by the owner's choice, never writable


class Log:
    """One output function for every message of a run."""

    def __init__(self, path=None, quiet=False, secrets=(), tag=None):
        self.path = path
        self.quiet = quiet
        self.tag = tag  # syslog tag; set when running under OpenWrt
        self.secrets = []
        self.forms = None  # every form of every secret, longest first; made for the first line that needs it
        self.fd = None     # the log file, open from the first line to close()
        self.size = 0      # its size
        self.held = ''     # a heading, written with the line after it (heading())
        self.plain = []    # the secrets of unreserved characters alone: a line shows one only as it is
        for secret in secrets:
            self.add_secret(secret)

    def add_secret(self, secret):
        """Mask this value (a setting, or a token obtained during the run) from now on."""
        if secret and len(secret) >= 3 and secret not in self.secrets:
            self.secrets.append(secret)
            self.forms = None
            if UNRESERVED.issuperset(secret):   # its one form is itself (ddkit.mask.secret_forms)
                self.plain.append(secret)

    def clean(self, message):
        """Mask secrets (in every form a server may echo them) and escape the unprintable: provider
        text can neither show a secret nor forge lines."""
        text = str(message)
        forms = self.masks(text)
        for form in forms:
            text = text.replace(form, MASK) if len(form) >= WHOLE_ONLY else _whole(text, form)
        for form in forms if '...' in text else ():  # an excerpt cut in a secret (http.snippet)
            for end in range(min(len(form), 200), 2, -1):
                text = text.replace(form[:end] + '...', MASK + '...')
        return printable(text)

    def masks(self, text):
        """The forms of the secrets that text may show, longest first. Every form keeps the unreserved
        characters of its secret (only the others are escaped, blanks collapsed): a line without one
        of them (a secret of those characters alone: without itself), and without an excerpt's '...',
        shows none, and a cron run's lines skip computing the forms (sets, sorting, translate: ~200 KiB of interpreter code it uses nowhere else)."""
        if '...' not in text and not any(secret in text if secret in self.plain else
                                         all(c in text for c in secret if c in UNRESERVED)
                                         for secret in self.secrets):
            return ()
        if self.forms is None:
            from ddkit.mask import secret_forms  # only here: a cron run's lines show none
            forms = set()
            for secret in self.secrets:
                forms.update(secret_forms(secret))
            self.forms = sorted(forms, key=len, reverse=True)
        return self.forms

    def close(self):
        """Close the log file (the record is done); a later line opens it again. A heading no line
        followed is printed alone, never written to the file (a record that wrote nothing)."""
        if self.held and not self.quiet:
            say(self.held[:-1])
        self.held = ''
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def heading(self, message):
        """The line that starts a record's part of a run of several, held until the record's next
        line: both go out in one write, and a record stopped before its first line (a directory that
        fails the trust check) has put nothing in its log file."""
        self.held = '[%s] - %s\n' % (stamp(), self.clean(message))
        if self.tag:   # syslog: a message of its own, and no file
            _syslog(self.tag, self.held[:-1], False)

    def info(self, message):
        """Log one line; printed unless quiet."""
        self._emit(message, error=False)

    def error(self, message):
        """Log one line; always printed, also when quiet."""
        self._emit(message, error=True)

    def _emit(self, message, error):
        line = '[%s] - %s' % (stamp(), self.clean(message))
        text, self.held = self.held + line, ''
        if error or not self.quiet:
            say(line if self.quiet else text)
        if self.path:
            self._append(text)
        if self.tag:
            _syslog(self.tag, line, error)

    def _append(self, line, trimmed=False):
        try:
            if self.fd is None:   # opened at the record's first line, kept to its last (close())
                from ddkit import state
                # never through a link or into another user's file; new: 0600, an owner's chmod 0644 kept
                self.fd, st = state.open_file(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600,
                                              keep=LOG_MODE, make=True, stat=True)
                self.size = st.st_size
            data = (line + '\n').encode('utf-8')
            if self.size + len(data) > LOG_MAX and not trimmed:
                # cut before the line that would pass the bound: the cut file is a new one (written
                # whole, then renamed); where none can be made (a sealed directory) the line is not
                # written, so the file never grows past LOG_MAX
                self.close()
                _trim(self.path)
                return self._append(line, trimmed=True)
            self.size += len(data)   # another run's lines count at the next open
            written = 0
            try:
                while written < len(data):
                    written += os.write(self.fd, data[written:])
            except OSError:
                if written:   # a full disk took part of the line: the file keeps whole lines only
                    os.ftruncate(self.fd, os.fstat(self.fd).st_size - written)
                raise
        except OSError as e:
            # a full or read-only disk must not stop the DNS update itself
            print('[%s] - cannot write log file %s: %s' % (
                time.strftime('%Y-%m-%d %H:%M:%S'), self.path, e.strerror), file=sys.stderr)


def _whole(text, form):
    """text with form masked where it stands as a whole value: after a quote, "=" or ": ", and with no
    letter or digit after it (a short secret in prose is a word, not a value)."""
    parts, start = [], 0
    at = text.find(form)
    while at >= 0:
        end = at + len(form)
        value = text[at - 1:at] in ('"', "'", '=') or text[max(at - 2, 0):at] in (': ', '= ')
        if value and not (end < len(text) and text[end].isalnum()):
            parts += [text[start:at], MASK]
            start = end
        at = text.find(form, end if start == end else at + 1)
    return ''.join(parts) + text[start:]


_STAMPS = {}   # second -> its text: a run of many records logs hundreds of lines within a few seconds,
# and names the few seconds their ip files were last confirmed in
STAMPS_KEPT = 64


def stamp(when=None):
    """The time of a log line (now), or of `when` (seconds since the epoch): '2026-11-24 01:02:03'."""
    second = int(time.time() if when is None else when)
    text = _STAMPS.get(second)
    if text is None:
        if len(_STAMPS) >= STAMPS_KEPT:
            _STAMPS.clear()
        text = _STAMPS[second] = time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(second))
    return text


def printable(text):
    """text with the unprintable escaped (\\x1b, \\u2028): one line, no terminal control sequence.
    The one escaping of all the tools print or log."""
    text = str(text)
    if not text.isprintable():
        text = ''.join(c if c.isprintable() else '\\x%02x' % ord(c) if ord(c) < 256
                       else '\\u%04x' % ord(c) for c in text)
    return text


def say(text):
    """Print text on stdout. Where stdout is a pipe closed early (`| head`), the rest goes nowhere:
    no traceback, and the run goes on (the log file still gets every line)."""
    out = sys.stdout
    if out is None:   # pythonw: no console
        return
    try:   # one write a line: print() writes the line and its end apart
        out.write('%s\n' % text)
        out.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _trim(path):
    from ddkit import state
    with os.fdopen(state.open_file(path, os.O_RDONLY, keep=LOG_MODE), 'rb') as f:
        mode = os.fstat(f.fileno()).st_mode & LOG_MODE
        f.seek(-LOG_KEEP, os.SEEK_END)
        tail = f.read().decode('utf-8', 'replace')
    state.write_if_changed(path, tail.split('\n', 1)[-1].splitlines(), mode=mode)


def _syslog(tag, line, error):
    # OpenWrt's logd listens on /dev/log; `logread` then shows our lines. _socket when it is there
    # (ddkit.native), not socket: that module loads enum and selectors, several times what the rest of
    # a run costs a router.
    from ddkit import native
    sockets = native.sockets()
    try:
        s = sockets.socket(sockets.AF_UNIX, sockets.SOCK_DGRAM)
        try:
            s.connect('/dev/log')
            prio = 27 if error else 30  # daemon.err / daemon.info
            s.send(('<%d>%s: %s' % (prio, tag, line.split(' - ', 1)[-1])).encode('utf-8'))
        finally:
            s.close()
    except OSError:
        pass
