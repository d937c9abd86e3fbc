"""Settings: flag, then DDNS_* environment, then --config file, then default (interface.md)."""

import os
import sys

from ddkit import UsageError

NAME_CHARS = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.*@')


class Setting:
    """One setting: its name, default, help text and how to check a value."""

    def __init__(self, name, default=None, help='', secret=False, short=None, check=None):
        self.name, self.default, self.help = name, default, help
        self.secret, self.short, self.check = secret, short, check

    @property
    def flag(self):
        return '--' + self.name.replace('_', '-')


class Switch:
    """A yes/no flag given on the command line only (--force, --dry-run, ...)."""

    def __init__(self, name, help='', short=None):
        self.name, self.help, self.short = name, help, short

    @property
    def flag(self):
        return '--' + self.name.replace('_', '-')


# types.SimpleNamespace, without importing types: its attributes live in a plain dict. A class of our
# own keeps them inline only up to 30 names in CPython 3.11, and a run's Config holds more: converting
# it costs every run 64 KiB of interpreter code no other step uses.
Namespace = type(sys.implementation)


class Config(Namespace):
    """The settings of one run; `sources` says where each value came from."""

    __repr__ = object.__repr__   # not the namespace's: it would show the secrets

    def __init__(self):
        self.sources = {}
        self.secrets = []
        self.config_file = None


def check_url(value):
    """An http:// or https:// URL with a host, an optional port 1-65535 and no user:password@."""
    from ddkit.http import split_url
    try:
        scheme, host, _, _ = split_url(value)
    except ValueError:
        scheme = host = None
    if scheme not in ('http', 'https') or '://' not in value or not host \
            or '@' in value.partition('://')[2].split('/', 1)[0] \
            or any(not 32 < ord(c) < 127 for c in value):   # printable ASCII, no spaces
        raise ValueError('must be an http:// or https:// URL: host, optional :port 1-65535, no user@')
    return value.rstrip('/')


def check_name(value):
    """A DNS name: it reaches file names and URLs, so only host-name characters pass.

    DNS names are case-insensitive and providers answer in lower case without the root dot."""
    value = value.lower()
    value = value[:-1] if value.endswith('.') else value
    if not value or not set(value) <= NAME_CHARS or '..' in value or value.startswith(('.', '-')):
        raise ValueError('must be a domain name (letters, digits, "-", "_", "." only)')
    return value


def check_header(value):
    """Text sent in an HTTP header (e-mail, key, token): printable ASCII only."""
    if not value or any(not 32 < ord(c) < 127 for c in value):
        raise ValueError('must be printable ASCII with no spaces (it is sent in an HTTP header)')
    return value


def check_path(value):
    """A file or directory path; ~ is the home directory."""
    return os.path.expanduser(check_text(value))


def check_file(value):
    """An existing, readable file."""
    path = check_path(value)
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise ValueError('%s is not a readable file' % path)
    return path


def check_record_type(value):
    """A or AAAA; both ("A AAAA", "AAAA,A", a UCI list) make one record of each family (ddkit.records)."""
    types = value.upper().replace(',', ' ').split()
    if not types or not set(types) <= {'A', 'AAAA'}:
        raise ValueError('must be A or AAAA (or "A AAAA" for both)')
    return ' '.join(t for t in ('A', 'AAAA') if t in types)


def check_timeout(value):
    try:
        number = float(value)
    except ValueError:
        number = 0
    if not 0 < number <= 300:
        raise ValueError('must be a number of seconds between 0 and 300')
    return number


def check_ip_source(value):
    """url, iface:<name>, or a LAN host's IPv6 address: prefix:<iface>/<interface id>,
    eui64:<iface>/<mac>, neigh:<iface>/<mac>; returned with the MAC and the id in canonical form."""
    from ddkit import ipcheck
    kind, _, spec = value.partition(':')
    name, slash, arg = spec.partition('/')
    lan = kind in ('prefix', 'eui64', 'neigh')   # <interface>/<what>; iface: is the interface alone
    if value == 'url':
        return value
    if not (lan or kind == 'iface') or bool(slash) != lan or not 0 < len(name) < 16 \
            or name in ('.', '..') or any(not 32 < ord(c) < 127 or c in '/:' for c in name):
        raise ValueError('must be url, iface:<interface>, prefix:<interface>/<interface id>, '
                         'eui64:<interface>/<MAC> or neigh:<interface>/<MAC>')
    if not sys.platform.startswith('linux'):
        raise ValueError('%s: reads the Linux kernel\'s address tables; use "url" here' % kind)
    iid, mac = ipcheck.interface_id(arg), ipcheck.mac(arg)
    if kind == 'prefix' and iid is None:
        raise ValueError('the interface id is written as an IPv6 address, not zero and under a /48, '
                         'e.g. ::1a2b:3c4d:5e6f:7890')
    if kind in ('eui64', 'neigh') and mac is None:
        raise ValueError('%r is not a device\'s MAC address, e.g. 00:16:3e:44:55:66' % arg)
    return '%s:%s/%s' % (kind, name, ipcheck.mac_text(mac) if mac else ipcheck.address_text(6, iid)) \
        if lan else value


def check_source_type(ip_source, record_type):
    """The LAN sources give IPv6 addresses only: with an A record they are bad input."""
    if ip_source.partition(':')[0] in ('prefix', 'eui64', 'neigh') and record_type != 'AAAA':
        raise UsageError('ip_source %s gives an IPv6 address: it needs record_type AAAA' % ip_source)


def check_command(value):
    """A command line (on_change): split into words as a shell would, never run by one (ddkit.notify)."""
    from ddkit import notify
    notify.split_command(check_text(value))
    return value


def check_text(value):
    if not value or any(ord(c) < 32 for c in value):
        raise ValueError('must be non-empty text on one line')
    return value


def prog(tool):
    """The name the user ran: `updater_a` when installed (/usr/bin/updater_a), else `updater_a.py`."""
    name = os.path.basename(sys.argv[0] or '')
    return name if name in (tool, tool + '.py') else tool + '.py'


def hint(value):
    """The likely cause of a rejected value, when one shows."""
    if ' #' in value or '\t#' in value:
        return '; a comment must be on a line of its own (# at the start of the line)'
    if value != value.strip():
        return '; remove the spaces around the value'
    return ''


def parse_args(argv, settings, switches):
    """Split argv into {name: value} for settings, a set of switch names and --config."""
    by_flag = {}
    for item in list(settings) + list(switches):
        by_flag[item.flag] = item
        if item.short:
            by_flag[item.short] = item
    values, on, config, args = {}, set(), None, list(argv)
    while args:
        arg = args.pop(0)
        if arg == '--help':
            return None, None, None
        name, eq, inline = arg.partition('=') if arg.startswith('--') else (arg, '', '')
        if name == '--config' or name in by_flag and not isinstance(by_flag[name], Switch):
            if not eq:
                if not args:
                    raise UsageError('option %s needs a value; see --help' % name)
                inline = args.pop(0)
            if name == '--config':
                config = inline
            else:
                values[by_flag[name].name] = inline
        elif name in by_flag and not eq:
            on.add(by_flag[name].name)
        else:
            raise UsageError(('unknown option %s; see --help' if arg.startswith('-') else
                              'unexpected argument %r: settings are given as --name value; see --help') % arg)
    return values, on, config


def refuse_foreign(what, path, st):
    """A UsageError when another user could change this file (st: its fstat): whoever can, steers a
    root run (which URL gets the credentials, which state_dir)."""
    if os.name == 'posix' and (st.st_uid not in (0, os.geteuid()) or st.st_mode & 0o022):
        raise UsageError('%s %s (owner uid %d, mode %04o) can be changed by another user: refused; '
                         'fix: chown root %s; chmod go-w %s' % (what, path, st.st_uid, st.st_mode & 0o7777,
                                                                 path, path))


def read_config(path, known, records=None):
    """Read name=value lines; `#` comments and single or double quotes allowed. A `[name]` line starts
    a record of its own (a --all run): its lines go to a dict appended to records as (name, dict)."""
    try:
        with open(path, encoding='utf-8-sig') as f:  # -sig: Notepad's byte order mark
            st = os.fstat(f.fileno())  # the file read, not what its path names a moment later
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError('cannot read config file %s: %s' % (path, getattr(e, 'strerror', None) or e))
    refuse_foreign('config file', path, st)
    if os.name == 'posix' and st.st_mode & 0o077:
        print('warning: config file %s is readable by other users; run: chmod 600 %s' % (path, path),
              file=sys.stderr)
    values = shared = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        if line.startswith('[') and line.endswith(']'):
            label = line[1:-1].strip()
            if records is None:
                raise UsageError('config file %s line %d: [%s] starts one of several records: run with --all '
                                 'to update them all' % (path, number, label))
            if not label or not set(label) <= NAME_CHARS:
                raise UsageError('config file %s line %d: a record is named [letters, digits, "-", "_", "."]'
                                 % (path, number))
            values = {}
            records.append((label, values))
            continue
        name, eq, value = line.partition('=')
        name, value = name.strip(), value.strip()
        if not eq:
            raise UsageError('config file %s line %d: expected setting_name=value, got %r'
                             % (path, number, line[:60]))
        if name not in known:
            from ddkit import helptext  # only on this error
            raise UsageError('config file %s line %d: %r is not a setting of this tool%s (see --help)'
                             % (path, number, name[:60], helptext.did_you_mean(name, known)))
        if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
            value = value[1:-1]
        values[name] = value
        values['line:' + name] = number  # where it was, for a bad value's message
    return shared


def read_uci(argv, uci_name, known, environ):
    """Take `--uci SECTION` out of argv; returns (the other arguments, that section's settings)."""
    args, ref = list(argv), None
    for i, arg in enumerate(args):
        if arg == '--uci' or arg.startswith('--uci='):
            ref = arg[6:] if '=' in arg else (args[i + 1] if i + 1 < len(args) else '')
            del args[i:i + (1 if '=' in arg else 2)]
            break
    if ref is None or '--help' in args:
        return args, {}
    if not ref:
        raise UsageError('option --uci needs a section name; see --help')
    from ddkit import uci
    path = environ.get('DDNS_UCI_FILE') or '/etc/config/' + uci_name
    return args, uci_settings(path, ref, uci.record(path, ref), known)


def uci_settings(path, ref, options, known):
    """The settings among a UCI section's options; record_type may be a list (both families)."""
    from ddkit import uci
    values = {'uci:section': ref}
    for key, value in options.items():
        if key in uci.SERVICE_OPTIONS:
            values['uci:' + key] = value  # not settings: --check tells whether the service runs it
            continue
        if isinstance(value, list) and key == 'record_type':
            value = ' '.join(value)
        if key not in known:
            from ddkit.helptext import did_you_mean  # only on this error
            raise UsageError('UCI section %s in %s: %r is not a setting of this tool (option --%s%s, '
                             'see --help)' % (ref, path, key, key.replace('_', '-'), did_you_mean(key, known)))
        if isinstance(value, list):   # `list` lines, or an option followed by a list of its name
            raise UsageError("UCI section %s in %s: %s is a list; give it once as option %s '...'"
                             % (ref, path, key, key))
        values[key] = value
    return values


def load(argv, settings, switches, required=(), environ=None, uci_name=None, uci_values=None,
         file_values=None):
    """Build the Config of a run; None when --help was asked (the caller prints usage). A --all run
    (ddkit.records) gives each record's UCI section or config file values itself."""
    environ = os.environ if environ is None else environ
    known = {s.name: s for s in settings}
    if uci_values is not None:
        from_uci = uci_values
    else:
        argv, from_uci = read_uci(argv, uci_name, known, environ) if uci_name else (argv, {})
    flags, on, config_path = parse_args(argv, settings, switches)
    if flags is None:
        return None
    if file_values is not None:
        from_file = file_values
    else:
        from_file = read_config(config_path, known) if config_path else {}
    cfg = Config()
    cfg.config_file = config_path
    cfg.uci = {k[4:]: v for k, v in from_uci.items() if k.startswith('uci:')}  # section, enabled, ...
    for s in settings:
        env = 'DDNS_' + s.name.upper()
        for source, table, key in (('flag', flags, s.name), ('environment', environ, env),
                                   ('uci section', from_uci, s.name), ('config file', from_file, s.name)):
            if table.get(key, '') != '':
                value = table[key]
                break
        else:
            source, value = 'default', s.default
        if value is not None and s.check:
            try:
                value = s.check(value)
            except ValueError as e:
                line = from_file.get('line:' + s.name)
                where = {'flag': s.flag, 'environment': env, 'default': 'default',
                         'config file': 'config file %s line %s' % (config_path, line)}.get(source, source)
                shown = '' if s.secret else '; got %r' % value[:80]  # a secret is never shown
                raise UsageError('bad value for %s (%s): %s%s%s' % (s.name, where, e, shown, hint(value)))
        if value in (None, '') and s.name in required:
            raise UsageError('missing setting %s: give %s, DDNS_%s or %s= in a --config file'
                             % (s.name, s.flag, s.name.upper(), s.name))
        setattr(cfg, s.name, value)
        cfg.sources[s.name] = source
        if s.secret and value:
            cfg.secrets.append(value)
    for sw in switches:
        setattr(cfg, sw.name, sw.name in on)
    return cfg
