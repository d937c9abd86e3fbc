"""ddkit: the small library shared by the router tools (settings, HTTP, state, log, IP checks, locking).

Every module imports what it needs lazily: a cron run that finds nothing to do must stay cheap.
"""

VERSION = '1.0.0'


def decimal(text):
    """The value of text when it is ASCII digits only (no sign, no spaces, no "_"), else None: int()
    alone takes all of those, and any script's digits."""
    if not text or not text.isascii() or not text.isdigit():
        return None
    return int(text)


# Where a run may keep what it learns that is no record's own (the CA certificates its HTTPS hosts'
# chains end at: ddkit.http.Anchors): the state directory of its first record, set by the updater for
# a run that writes state; None (egress6, --check, a dry run): nothing is kept.
KEEP_DIR = [None]
# the notices of notify that could not be delivered, in that directory, sent again by the next run
# (ddkit.notices)
NOTICES_FILE = '.ddkit-notices'

# How the requests of the record being run reach their hosts, set by the updater before each record's
# requests (ddkit.updater.proxy_route): a function (scheme, host) giving the ddkit.proxy.Proxy a request
# goes through, or None; ddkit.http asks it unless its caller wants a direct request (the IP lookups,
# DoH). None (egress6: no proxy settings): every request direct.
PROXY = [None]

# The library modules that are packages of their own, installed only by the routers that use them (as
# ddns-scripts ships its optional parts apart): {module: its package}. A run imports one only when a
# setting asks for it, and says which package to install when it is not there (needs_package).
# openwrt/Makefile's OPTIONAL_MODULES_<package> lines say the same: tools/feed.py checks that they do.
OPTIONAL = {'notices': 'ddkit-notify', 'proxy': 'ddkit-proxy', 'ddns_import': 'ddkit-import'}


def exit_quickly(status):
    """End the run with the tool's exit status as sys.exit(status) does, without the interpreter's
    tear-down: the single file's last line (tools/standalone.py). Freeing every module, function and
    object one by one, in a process that ends anyway, cost a quiet run 15% of its CPU
    (docs/benchmarks.md). What the tear-down would do that shows is done first (stdout and stderr
    flushed) or is not there: the tools write every file through os.write or a closed `with` block,
    start no thread and register no exit handler. Where something else may have (atexit imported, a
    thread running, a tracer or profiler set), or when the status is no exit code (sys.exit prints
    it), a flush failed (the interpreter reports it as it always did), or warnings were asked for
    (the tear-down's ResourceWarnings): sys.exit, the tear-down as always."""
    import sys

    from ddkit.native import os
    threading = sys.modules.get('threading')
    if (status is None or type(status) is int and 0 <= status <= 255) and 'atexit' not in sys.modules \
            and (threading is None or threading.active_count() == 1) and sys.gettrace() is None \
            and sys.getprofile() is None and not sys.warnoptions and not sys.flags.dev_mode:
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        except (OSError, ValueError):   # ValueError: a stream closed
            pass
        else:
            os._exit(status or 0)
    sys.exit(status)


def install_command(package):
    """How a router installs a package, with either package manager."""
    return 'opkg install %s (apk add %s on OpenWrt 25.12)' % (package, package)


def not_installed(module):
    """The package of the optional library module ddkit.<module> (OPTIONAL) when it is not installed,
    else None. Asked of the import system's finders (sys.meta_path, as importlib.util.find_spec asks
    them, which would load more modules), never imported: a run whose setting names it yet that uses
    it not (notify with nothing to tell) loads no more than a run without the setting."""
    import sys
    name = '%s.%s' % (__name__, module)
    if name in sys.modules or any(getattr(finder, 'find_spec', None) and finder.find_spec(name, __path__)
                                  for finder in sys.meta_path):
        return None
    return OPTIONAL[module]


def needs_package(setting, module):
    """The UsageError of a setting whose optional module ddkit.<module> is not installed, else None."""
    package = not_installed(module)
    if package is None:
        return None
    why = '%s needs the package %s' % (setting, package)
    return UsageError('%s: %s' % (why, install_command(package)), why=why, fix=install_command(package),
                      setting=setting)

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
    """An expected failure: one line for the user (its text), exit status 1, never a traceback. What
    it is about is in fields, which the code that acts on it reads (--check, the status, the hooks),
    never the wording: step (what was attempted: 'find zone', 'get current IP'), why (the line
    without its step), url, status (the HTTP status), code and provider_message (the provider's
    own), fix (what the user can do), kind (what went wrong, one of KINDS), verify_code (OpenSSL's,
    for a certificate refused), setting (the name of the setting whose value caused it: its FAIL or
    ERROR line says where that value came from, ddkit.provider.caused_by). A field not known is None."""

    exit_status = 1
    step = why = url = status = code = provider_message = fix = kind = verify_code = setting = None

    def __init__(self, text, **fields):
        super().__init__(text)
        for name, value in fields.items():
            if not hasattr(Failure, name):
                raise TypeError('Failure has no field %s' % name)
            setattr(self, name, value)

    @classmethod
    def at(cls, step, why, **fields):
        """A failure of step, said as '<step>: <why>'."""
        return cls('%s: %s' % (step, why), step=step, why=why, **fields)

    def fields(self):
        """The fields that are known, by name (the status and the hooks write them)."""
        return {name: getattr(self, name) for name in FIELDS if getattr(self, name) is not None}


# How a record's run ended: the one value ddkit.reconcile.run returns, from which the exit status, the
# on_change hook, the health-check ping and the status derive. Nothing to change (also: the record
# at the provider was read and holds the IP); updated or created at the provider; failed (its
# Failure is the Job's failure); no valid current IP, so nothing was judged; removed: a line's record,
# the line having no address (line_gone remove).
UNCHANGED, UPDATED, CREATED, FAILED, NO_IP, REMOVED = 'unchanged', 'updated', 'created', 'failed', 'no-ip', 'removed'
OUTCOMES = (UNCHANGED, UPDATED, CREATED, FAILED, NO_IP, REMOVED)


FIELDS = ('step', 'why', 'url', 'status', 'code', 'provider_message', 'fix', 'kind', 'verify_code', 'setting')
# what went wrong: no answer came (the name did not resolve, the connection was refused or cut, the
# time ran out, TLS refused the certificate); a server error (HTTP 5xx); an answer that was no JSON,
# too large, a redirect; the provider refused the request, or has no such zone; an answer the tool
# cannot use; a state file could not be written or removed; another run holds the record; the proxy
# gave no connection (down, refused it or its credentials, could not reach the host)
KINDS = ('resolve', 'unreachable', 'timeout', 'tls', 'no tls', 'server error', 'not json', 'too large',
         'redirect', 'refused', 'not found', 'unexpected', 'state', 'busy', 'proxy')


class UsageError(Failure):
    """Bad input (unknown flag, bad value, missing setting): exit status 2, nothing changed."""

    exit_status = 2
