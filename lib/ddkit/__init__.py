"""ddkit: the small library shared by the router tools (settings, HTTP, state, log, IP checks, locking).

Every module imports what it needs lazily: a cron run that finds nothing to do must stay cheap.
"""

VERSION = '1.0.0'


class Failure(Exception):
    """An expected failure: one line for the user, exit status 1, never a traceback."""

    exit_status = 1


class UsageError(Failure):
    """Bad input (unknown flag, bad value, missing setting): exit status 2, nothing changed."""

    exit_status = 2
