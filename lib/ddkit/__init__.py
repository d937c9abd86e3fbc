"""ddkit: the small library shared by the router tools (settings, HTTP, state, log, IP checks, locking).

Every module imports what it needs lazily: a cron run that finds nothing to do must stay cheap.
"""

VERSION = '1.0.0'


def decimal(text):
    """The value of text when it is ASCII digits only (no sign, no spaces), else None.

    Not int(): the first base-10 int() of a run calls the C library's log(), which maps ~190 KiB of
    libm into a run that does no maths; the cheap cron runs parse their numbers here (BENCHMARKS.md)."""
    if not text or text.strip('0123456789'):
        return None
    value = 0
    for digit in text:
        value = value * 10 + ord(digit) - 48
    return value


# RFC 3986's unreserved characters: what every encoding of a secret keeps as it is (ddkit.log, ddkit.mask)
UNRESERVED = frozenset('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~')


class Reason(str):
    """Why a value was refused: the words for the user, and `kind`, what the code acts on (a fix is
    chosen by kind, never by the wording)."""

    def __new__(cls, text, kind):
        self = str.__new__(cls, text)
        self.kind = kind
        return self


class Failure(Exception):
    """An expected failure: one line for the user, exit status 1, never a traceback."""

    exit_status = 1


class UsageError(Failure):
    """Bad input (unknown flag, bad value, missing setting): exit status 2, nothing changed."""

    exit_status = 2
