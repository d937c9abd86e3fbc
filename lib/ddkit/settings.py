"""Settings and the command line of every tool. Where a setting comes from, highest first: flag,
DDNS_* environment variable, UCI section (--uci or --all), --config file, default."""

import sys

from ddkit import UsageError, decimal
from ddkit.native import os

NAME_CHARS = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.*@')
# printable ASCII but the space: VISIBLE.issuperset(value) tests a whole value in one call, where a test
# of each character cost Python a step each (a run checks its URLs, keys and interface names)
VISIBLE = frozenset(map(chr, range(33, 127)))


class Setting:
    """One setting: its name, default, help text and how to check a value; `repeat`: given several
    times, its values are kept in order (a list); `decides`: its value decides which other settings
    exist (the ddkit command's provider), so a file's unknown name is explained by its value first: a
    function giving the values under which a name is a setting (the providers that have it);
    `choices`: the values it takes when they are a closed set (a form offers them as a list);
    `secret`: True (its value is masked in every message, never shown), or a function giving the parts
    of a value that are masked (the rest is shown: a URL's origin); `commas`: a repeated setting none
    of whose values holds a comma or a blank, so that both separate its values in every form
    (--lines ct,cm,cu; not a URL, which may hold a comma, nor a header).
    `help` says what the setting means, as the LuCI page shows it too: what only the command line
    needs (a flag's argv is visible, -h) --help adds (ddkit.helptext); `label`: what a form calls it,
    when its name in words (ddkit.helptext.label) does not say it well."""

    takes_value = True

    def __init__(self, name, default=None, help='', secret=False, short=None, check=None, repeat=False,
                 metavar='VALUE', decides=False, choices=None, commas=False, label=None):
        self.name, self.default, self.help = name, default, help
        self.secret, self.short, self.check = secret, short, check
        self.repeat, self.metavar, self.decides = repeat, metavar, decides
        self.choices, self.commas, self.label = choices, commas, label
        self.env = 'DDNS_' + name.upper()

    @property
    def flag(self):
        return '--' + self.name.replace('_', '-')


UNSET = ('', [])   # a source that gives one of these leaves the setting to the next source


class Switch:
    """A yes/no flag given on the command line only (--force, --dry-run, ...)."""

    takes_value = False

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
        self.names = {}
        self.secrets = []
        self.config_file = None

    def copy(self):
        """A Config of the same values, whose values can be set without changing this one's."""
        other = Config()
        other.__dict__.update(self.__dict__)
        return other


def check_url(value):
    """An http:// or https:// URL with a host, an optional port 1-65535 and no user:password@."""
    from ddkit.urls import split_url
    try:
        scheme, host, _, _ = split_url(value)
    except ValueError:
        scheme = host = None
    if scheme not in ('http', 'https') or '://' not in value or not host \
            or '@' in value.partition('://')[2].split('/', 1)[0] \
            or not VISIBLE.issuperset(value):   # printable ASCII, no spaces
        raise ValueError('must be an http:// or https:// URL: host, optional :port 1-65535, no user@')
    return value.rstrip('/')


def check_proxy(value):
    """proxy: off, or http://, socks5:// or socks5h:// [user:password@]host:port (ddkit.proxy); a
    host:port without a scheme (as Clash and v2rayN show their port) is an HTTP proxy, as curl takes
    it, and is returned with http:// so that every message names the proxy as it is used."""
    if value.lower() == 'off':
        return 'off'
    from ddkit.urls import split_proxy
    split_proxy(value)   # its ValueError says what is wrong, never showing the value
    return value if '://' in value else 'http://' + value


def proxy_secrets(value):
    """What of a proxy setting is masked in every message: its user:password and its password, as
    written and decoded. Never its scheme, host and port, which messages name the proxy by."""
    if '@' not in value:
        return []
    from ddkit.urls import split_proxy
    userinfo = value.partition('://')[2].rpartition('@')[0]
    return [userinfo, userinfo.partition(':')[2], split_proxy(value)[2] or '']


YES_NO = ('0', '1')   # a yes/no setting's values, as UCI and the LuCI page keep a flag


def check_yes_no(value):
    """A yes/no setting: True for 1, yes, on, true; False for 0, no, off, false (UCI's words)."""
    words = ('0', 'no', 'off', 'false', '1', 'yes', 'on', 'true')
    if value.strip().lower() not in words:
        raise ValueError('must be 1 (yes) or 0 (no)')
    return words.index(value.strip().lower()) > 3


def check_notify(value):
    """A notify URL: a notification service's own (its kind known by its host: https only), or KIND+ and
    a URL of another host (ddkit.urls.notify_target); secret= only where the service signs."""
    from ddkit.urls import SIGNED, notify_target
    kind, bare, host = notify_target(value)
    try:
        check_url(bare)
    except ValueError as e:
        raise Withheld('%s %s: %s' % (kind, host, e))
    if bare == value and not value.startswith('https://'):
        raise Withheld('%s %s: a service\'s own URL is https://' % (kind, host))
    if kind not in SIGNED and 'secret' in [pair.partition('=')[0] for pair in bare.partition('?')[2].split('&')]:
        raise Withheld('%s %s: secret= signs the messages of %s robots only' % (kind, host, ' and '.join(SIGNED)))
    return value


NOTIFY_ON = ('change', 'failure', 'recovery')   # what notify tells: ddkit.reconcile.tell_notices


def check_notify_on(value):
    value = value.strip().lower()
    if value not in NOTIFY_ON:
        raise ValueError('must be %s' % ', '.join(NOTIFY_ON))
    return value


def api_base_url(api_path=''):
    """The check of a provider's base URL (every provider's base_url, server, auth_url, dns_url):
    check_url; api_path, the path its documents write it with (the tool adds it to every call), taken
    off its end in any letter case; any other path is refused, naming what to write instead: the
    scheme and host alone (else every request would go to a path the API does not serve)."""
    def check(value):
        value = check_url(value)
        scheme, _, rest = value.partition('://')
        cut = min([rest.index(c) for c in '/?#' if c in rest] or [len(rest)])
        base, path = '%s://%s' % (scheme, rest[:cut]), rest[cut:]
        if path and path.lower() != api_path.lower():
            raise ValueError('is the service\'s base URL alone, scheme and host (the tool adds %s): write %s'
                             % (api_path or 'the paths', base))
        return base
    return check


def check_name(value):
    """A DNS name: it reaches file names and URLs, so only host-name characters pass; an internationalized
    name becomes its xn-- form (what DNS holds); a wildcard only as the whole first label (*.example.com).

    DNS names are case-insensitive and providers answer in lower case without the root dot."""
    value = value.lower()
    value = value[:-1] if value.endswith('.') else value
    if not value:
        raise ValueError('must be a domain name, e.g. home.example.com')
    if '' in value.split('.'):
        raise ValueError('has an empty label (".." or a dot at the start)')
    if not value.isascii():
        value = ascii_name(value)
    labels = value.split('.')
    if not set(value) <= NAME_CHARS or value[0] == '-' or value[-1] == '-' or '.-' in value or '-.' in value:
        raise ValueError('must be a domain name: letters (also non-ASCII), digits, "-" (not at the start or '
                         'end of a label), "_" and "."')
    if '*' in value and (labels[0] != '*' or '*' in ''.join(labels[1:])):
        raise ValueError('a wildcard is written *.example.com: "*" only as the whole first label')
    if max(map(len, labels)) > 63 or len(value) > 253:
        raise ValueError('is too long (63 characters a label, 253 in all)')
    return value


def ascii_name(name):
    """The xn-- form of an internationalized name (IDNA, as DNS holds it)."""
    try:
        return name.encode('idna').decode('ascii')
    except LookupError:   # the idna codec needs unicodedata: python3-codecs on OpenWrt
        try:
            guess = '.'.join(label if label.isascii() else 'xn--' + label.encode('punycode').decode('ascii')
                             for label in name.split('.'))
        except (LookupError, UnicodeError):
            guess = None
        raise ValueError('is an internationalized name, and this Python cannot convert it (no idna codec; '
                         'OpenWrt: opkg install python3-codecs)%s' % ('; give its xn-- form, likely %s'
                                                                       % guess if guess else ''))
    except UnicodeError as e:
        raise ValueError('is not a valid internationalized domain name (%s)' % e)


def outside_zone(record, zone):
    """(problem, fix) when the record name is not zone_name or a name inside it, else None: the
    provider would make another name, or refuse it, after the first requests. No zone_name (a
    provider that is only told the IP needs none): nothing to compare."""
    if not zone or record == zone or record.endswith('.' + zone):
        return None
    looks_like_id = len(zone) >= 20 and '.' not in zone
    return ('record_name %s is not inside zone_name %s' % (record, zone),
            'zone_name is the root domain, e.g. example.com, not the zone id' if looks_like_id else
            full_name_fix(record, [zone]) or 'set zone_name to the domain the record belongs to (record_name ends '
            'with it)')


def full_name_fix(record, zones):
    """The fix when record_name looks like the host part alone, as Chinese consoles show it (主机记录
    'home'): no dot, or no label in common with the end of any zone (zones: names, none known: no dot
    alone); else None."""
    if '.' in record and (not zones or any(record.rpartition('.')[2] == zone.rpartition('.')[2] for zone in zones)):
        return None
    example = '%s.%s' % (record.partition('.')[0], zones[0]) if zones else 'home.example.com'
    return 'record_name is the full name, e.g. %s%s' % (
        example, ', or set zone_name to the domain %s is in' % record if '.' in record else '')


def printable_ascii(why):
    """The check of a value that must be printable ASCII with no spaces, the message saying why (a
    key signed or hashed as its console shows it: then its bytes are the same in every encoding)."""
    def check(value):
        if not value or not VISIBLE.issuperset(value):
            raise ValueError('must be printable ASCII with no spaces%s' % why)
        return value
    return check


check_header = printable_ascii(' (it is sent in an HTTP header)')   # an e-mail, a key, a token


def check_path(value):
    """A file or directory path; ~ is the home directory."""
    return os.path.expanduser(check_text(value))


def default_state_dir(tool, environ=None, openwrt=False):
    """The state directory of a record that sets no state_dir. The ddkit command's on a PC: where a
    user's programs keep their state, out of sight among the user's own files ($XDG_STATE_HOME/ddkit,
    else ~/.local/state/ddkit, as the XDG base directories say; Windows: %LOCALAPPDATA%\\ddkit). On
    OpenWrt (whose packages set state_dir), and for updater_a and updater_b, whose original scripts
    kept their files in it, the home directory, as ever."""
    environ = os.environ if environ is None else environ
    home = os.path.expanduser('~')
    if tool != 'ddkit' or openwrt:
        return home
    if os.name == 'nt':
        return os.path.join(environ.get('LOCALAPPDATA') or home, 'ddkit')
    base = environ.get('XDG_STATE_HOME', '')
    # the spec: a relative path is invalid, and ignored
    return os.path.join(base if os.path.isabs(base) else os.path.join(home, '.local', 'state'), 'ddkit')


def check_ca(value):
    """A readable CA bundle, or a directory of hashed CA certificates (c_rehash)."""
    path = check_path(value)
    if not (os.path.isfile(path) or os.path.isdir(path)) or not os.access(path, os.R_OK):
        raise ValueError('%s is not a readable file or directory' % path)
    return path


RECORD_TYPES = ('A', 'AAAA', 'A AAAA')   # the values check_record_type returns


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
        raise ValueError('must be a number of seconds, more than 0 and at most 300')
    return number


VERIFY_MAX = 366 * 86400   # a verify_interval longer than a year is a mistake, not a wish


def check_verify_interval(value):
    """Seconds between reads of an unchanged record at the provider: 0 (every run) to a year, or
    off (None: never)."""
    value = value.strip().lower()
    if value == 'off':
        return None
    number = decimal(value) if len(value) <= 9 else None
    if number is None or number > VERIFY_MAX:
        raise ValueError('must be a number of seconds from 0 (every run) to %d (a year), or off' % VERIFY_MAX)
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
            or name in ('.', '..') or not VISIBLE.issuperset(name) or '/' in name or ':' in name:
        raise ValueError('must be url, iface:<interface>, prefix:<interface>/<interface id>, '
                         'eui64:<interface>/<MAC> or neigh:<interface>/<MAC>')
    if not sys.platform.startswith('linux'):
        raise ValueError('%s: reads the Linux kernel\'s address tables; use "url" here' % kind)
    iid = ipcheck.interface_id(arg) if kind == 'prefix' else None
    mac = ipcheck.mac(arg) if kind in ('eui64', 'neigh') else None
    if kind == 'prefix' and iid is None:
        raise ValueError('the interface id is written as an IPv6 address, not zero and under a /48, '
                         'e.g. ::1a2b:3c4d:5e6f:7890')
    if kind in ('eui64', 'neigh') and mac is None:
        raise ValueError('%r is not a device\'s MAC address, e.g. 00:16:3e:44:55:66' % arg)
    return '%s:%s/%s' % (kind, name, ipcheck.mac_text(mac) if mac else ipcheck.address_text(6, iid)) \
        if lan else value


def check_line(value):
    """An item of `lines`: an operator code (its IPv6 address picked from the record's source by its
    first group) or CODE=SOURCE (its address from that ip_source); returned in canonical form."""
    from ddkit.ipcheck import OPERATORS
    code, equals, source = value.partition('=')
    code = code.strip().lower()
    if code not in OPERATORS:
        raise ValueError('a line is %s, or CODE=SOURCE (e.g. ct=iface:pppoe-ct)' % ', '.join(OPERATORS))
    if not equals:
        return code
    if source.strip() == 'url':   # a lookup answer is the address of the line traffic left by
        raise ValueError('a line\'s own source reads the kernel (iface:, prefix:, eui64:, neigh:), not url')
    return '%s=%s' % (code, check_ip_source(source.strip()))


def check_line_code(value):
    """default_line: an operator code."""
    from ddkit.ipcheck import OPERATORS
    value = value.strip().lower()
    if value not in OPERATORS:
        raise ValueError('must be one of %s' % ', '.join(OPERATORS))
    return value


LINE_GONE = ('remove', 'keep')   # what becomes of a line's record while the line has no address


def check_line_gone(value):
    if value not in LINE_GONE:
        raise ValueError('must be remove or keep')
    return value


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


class Withheld(ValueError):
    """A value refused because it holds a credential where none belongs: the message never shows it."""


def hint(value):
    """The likely cause of a rejected value, when one shows."""
    if ' #' in value or '\t#' in value:
        return '; a comment must be on a line of its own (# at the start of the line)'
    if value != value.strip():
        return '; remove the spaces around the value'
    return ''


class Args:
    """A parsed command line: settings' values, switches given, --config, --uci sections, bare words."""

    def __init__(self):
        self.values, self.on, self.config, self.uci, self.positional = {}, set(), None, [], []


def parse_args(argv, settings, switches, positional=False, files=False):
    """The one command-line parser of every tool: Args, or None when --help is asked (--version is
    the switch 'version'). files: --config FILE and --uci SECTION (repeatable) are taken; positional:
    bare words are kept for the tool, else refused."""
    by_flag = {}
    for item in list(settings) + list(switches):
        by_flag[item.flag] = item
        if item.short:
            by_flag[item.short] = item
    args, rest = Args(), list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == '--help':
            return None
        if arg == '--version':
            args.on.add('version')
            continue
        if positional and (not arg.startswith('-') or arg == '-'):
            args.positional.append(arg)
            continue
        name, eq, inline = arg.partition('=') if arg.startswith('--') else (arg, '', '')
        item = by_flag.get(name)
        if files and name in ('--config', '--uci') or item and item.takes_value:
            if not eq and rest:
                inline = rest.pop(0)
            elif not eq and name == '--uci':
                raise UsageError('option --uci needs a section name; see --help')
            elif not eq:
                raise UsageError('option %s needs a value%s; see --help' % (
                    name, ' (%s is %s; help is --help)' % (name, item.name) if name == '-h' else ''))
            if name == '--config':
                args.config = inline
            elif name == '--uci':
                if not inline:
                    raise UsageError('option --uci needs a section name; see --help')
                args.uci.append(inline)
            elif item.repeat:
                args.values.setdefault(item.name, []).append(inline)
            else:
                args.values[item.name] = inline
        elif item and not eq:
            args.on.add(item.name)
        elif arg.startswith('-'):
            from ddkit.helptext import did_you_mean  # only on this error
            flags = list(by_flag) + (['--config', '--uci'] if files else []) + ['--help', '--version']
            raise UsageError('unknown option %s%s; see --help' % (name, did_you_mean(name, flags)))
        else:
            raise UsageError('unexpected argument %r: settings are given as --name value; see --help' % arg)
    return args


BOM = b'\xef\xbb\xbf'   # UTF-8's byte order mark, which Notepad writes first


def read_config(path, known, records=None):
    """Read name=value lines; `#` comments and single or double quotes allowed. A `[name]` line starts
    a record of its own (a --all run): its lines go to a dict appended to records as (name, dict)."""
    try:
        with open(path, 'rb') as f:
            st = os.fstat(f.fileno())  # the file read, not what its path names a moment later
            data = f.read()
        # Notepad's byte order mark dropped, as the utf-8-sig codec drops it (a codec module of its own
        # to import: 0.8 million instructions a run): a bad byte's position counted after it, a file
        # that is a part of it read as empty
        text = '' if BOM.startswith(data) else (data[3:] if data.startswith(BOM) else data).decode('utf-8')
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError('cannot read config file %s: %s' % (path, getattr(e, 'strerror', None) or e))
    from ddkit.state import refuse_foreign
    refuse_foreign('config file', path, st)
    if os.name == 'posix' and st.st_mode & 0o077:
        tool = os.path.basename(sys.argv[0] or 'ddkit')
        print('%s: warning: config file %s is readable by other users; run: chmod 600 %s'
              % (tool[:-3] if tool.endswith('.py') else tool, path, path), file=sys.stderr)
    values = shared = {}
    wrong = []   # [(line number, what is wrong, the same in a few words)]: all said at once
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
            alone = ddclient_host(line)
            wrong.append((number, 'expected setting_name=value, got %r%s' % (line[:60], alone),
                          '%r (not setting_name=value%s)' % (line[:60], alone)))
            continue
        if name not in known:
            named = []
            for decider in deciders(known):   # e.g. a provider not installed here: said first
                named = [values.get(decider.name)]
                for later in text.splitlines()[number:]:
                    if later.strip().startswith('['):
                        break
                    key, eq, chosen = later.strip().partition('=')
                    if eq and key.strip() == decider.name:
                        named.append(chosen.strip().strip('"\''))
                named = list(filter(None, named + [shared.get(decider.name)]))
                for chosen in named:
                    checked(decider, chosen, 'config file', decider.env, path, {})
            whose = stray_owners(name, known, named[0] if named else None)
            near = '' if whose else suggestion(name, known)
            wrong.append((number, '%s is %s' % (name, whose) if whose else
                          '%r is not a setting of this tool%s' % (name[:60], near),
                          '%r (is %s)' % (name[:60], whose) if whose else
                          '%r%s' % (name[:60], ' (%s)' % near[2:] if near else '')))
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
            value = value[1:-1]
        values[name] = value
        values['line:' + name] = number  # where it was, for a bad value's message
    if len(wrong) == 1:
        raise UsageError('config file %s line %d: %s (see --help)' % (path, wrong[0][0], wrong[0][1]))
    if wrong:
        raise UsageError('config file %s: %d lines this tool cannot take (see --help): %s' % (
            path, len(wrong), ', '.join('line %d %s' % (number, short) for number, _, short in wrong)))
    return shared


def suggestion(name, known):
    """'; did you mean zone_name?' of a name no setting of known has: a near miss, or a word of
    ddclient's (helptext.DDCLIENT) for a setting known has; else ''."""
    from ddkit import helptext  # only on this error
    word = name.lower()
    if word in helptext.DDCLIENT and helptext.DDCLIENT[word] not in known:   # login without username: no log_file
        return ''
    return helptext.did_you_mean(name, known, {word: setting for word, setting in helptext.DDCLIENT.items()
                                               if setting in known})


def ddclient_host(line):
    """What a line that is a host name alone means (ddclient.conf ends a host's settings so): the
    setting to write it as; else ''."""
    try:
        return '; a host name alone, as ddclient writes it, is record_name=%s here' % check_name(line) \
            if '.' in line and ' ' not in line else ''
    except ValueError:
        return ''


def shows_every_record(args):
    """True for --status of a --config file of several records ([record] lines) without --all or
    --uci: it shows each record's outcome, as with --all (nothing is sent, so nothing to choose
    among them), where a run of one record refuses the file."""
    if 'status' not in args.on or 'all' in args.on or args.uci or not args.config:
        return False
    try:
        with open(args.config, 'rb') as f:
            text = f.read(256 * 1024).decode('utf-8', 'replace')
    except OSError:
        return False   # the run's own reading says why
    return any(line.strip().startswith('[') and line.strip().endswith(']') for line in text.splitlines())


def deciders(known):
    """The settings whose value decides which others exist (Setting.decides)."""
    return [s for s in known.values() if getattr(s, 'decides', False)]


# the key of a record's values (a [record] block of a config file, a UCI section) that lists the
# names it gives itself, not those of the shared lines or `config defaults` (ddkit.records): a
# setting of another provider among those is a mistake, where the shared ones serve several
OWN = '[own]'


def strayed(name, known, chosen=None):
    """'access_key_secret is a setting of provider <a>, not of <b>' when name is a setting
    under other values of a deciding setting (another provider's; chosen: the record's value); None."""
    whose = stray_owners(name, known, chosen)
    return '%s is %s' % (name, whose) if whose else None


def stray_owners(name, known, chosen=None):
    """What strayed says of name after 'is': 'a setting of provider <a>, not of <b>'; None."""
    for decider in deciders(known):
        owners = [str(value) for value in decider.decides(name) if value != chosen]
        if owners:
            return 'a setting of %s%s %s, not of %s' % (
                decider.name, 's' if len(owners) > 1 else '', ', '.join(owners),
                chosen or 'this record\'s %s' % decider.name)
    return None


def uci_settings(path, ref, options, known, own=()):
    """The settings among a UCI section's options; record_type may be a list (both families). own:
    the names of the options the section gives itself, not from `config defaults` (OWN)."""
    from ddkit import uci
    values = {'uci:section': ref, OWN: [key for key in own if key not in uci.SERVICE_OPTIONS]}
    for decider in deciders(known):
        if isinstance(options.get(decider.name), str):
            # first: a provider not installed here says so, not that its options are unknown
            checked(decider, options[decider.name], 'uci section', decider.env, None, {}, from_uci=values)
    unknown = []   # all said at once
    for key, value in options.items():
        if key in uci.SERVICE_OPTIONS:
            values['uci:' + key] = value  # not settings: --check tells whether the service runs it
            continue
        if isinstance(value, list) and key == 'record_type':
            value = ' '.join(value)
        if isinstance(value, list) and known.get(key) is not None and known[key].repeat:
            values[key] = value   # a list of its own (ip_lookup_url, lookup_url)
            continue
        if key not in known and strayed(key, known):
            # another provider's: `config defaults` serve records of several providers, and a section's
            # own is refused when its record loads (ddkit.choice), as one of a config file's [record]
            continue
        if key not in known:
            unknown.append(key)
            continue
        if isinstance(value, list):   # `list` lines, or an option followed by a list of its name
            raise UsageError("UCI section %s in %s: %s is a list; give it once as option %s '...'"
                             % (ref, path, key, key))
        values[key] = value
    if len(unknown) == 1:
        raise UsageError('UCI section %s in %s: %r is not an option of this tool%s (see --help)'
                         % (ref, path, unknown[0], suggestion(unknown[0], known)))
    if unknown:
        near = [suggestion(key, known) for key in unknown]
        raise UsageError('UCI section %s in %s: %d options this tool does not have (see --help): %s' % (
            ref, path, len(unknown), ', '.join('%r%s' % (key, ' (%s)' % said[2:] if said else '')
                                               for key, said in zip(unknown, near))))
    return values


def uci_path(uci_name, environ=None):
    """The UCI file of a tool: /etc/config/<tool>, or the one DDNS_UCI_FILE names."""
    return (os.environ if environ is None else environ).get('DDNS_UCI_FILE') or '/etc/config/' + uci_name


def named_section(args, uci_name, settings, environ=None):
    """load()'s values of a run of one record: its --uci section's, when one is named."""
    if not args.uci:
        return {}
    return uci_record(uci_path(uci_name, environ), args.uci[0], {s.name: s for s in settings})


def uci_record(path, ref, known):
    """load()'s values of the UCI section ref (its options over `config defaults`), the names it
    gives itself among them (OWN)."""
    from ddkit import uci
    sections = uci.read(path)
    values = uci_settings(path, ref, uci.record(path, ref, sections), known, uci.section(path, ref, sections))
    values['uci:run_name'] = uci.run_name(sections, ref)   # a cfgXXXXXX id: the @type[n] --all names it by
    return {'uci_values': values}


def load(args, settings, switches, environ=None, uci_values=None, file_values=None, by_flag=False, base=None):
    """Build the Config of one record from parsed Args (flag, then DDNS_* environment, then UCI
    section, then --config file, then default); uci_values and file_values: the record's own values
    when a run of several records reads them (ddkit.records), else the --config file is read here.
    by_flag: a bad value is named by its flag (the egress tools, whose settings are flags).
    base: the Config of the values every record of the run shares (loaded once a run, with the same
    args and environ): only the settings whose UCI or file value differs from its are resolved."""
    environ = os.environ if environ is None else environ
    from_uci = uci_values or {}
    from_file = file_values if file_values is not None else \
        read_config(args.config, {s.name: s for s in settings}) if args.config else {}
    cfg = Config()
    table = settings
    if base is not None:
        cfg.__dict__.update(base.__dict__)
        cfg.sources, cfg.names = dict(base.sources), dict(base.names)
        shared_uci, shared_file = base.given
        own = {k for k, v in from_uci.items() if shared_uci.get(k, UNSET) != v}
        own.update(k for k, v in from_file.items() if shared_file.get(k, UNSET) != v)
        table = [s for s in settings if s.name in own]
    cfg.given = (from_uci, from_file)
    cfg.config_file = args.config
    cfg.uci = {k[4:]: v for k, v in from_uci.items() if k.startswith('uci:')}  # section, enabled, ...
    flags = args.values
    for s in table:
        name, env = s.name, s.env
        # the first source that sets it (a value, not '' or []): an unrolled loop, run for every
        # setting of every record
        value = flags.get(name, '')
        if value in UNSET:
            value, source = environ.get(env, ''), 'environment'
            if value in UNSET:
                value, source = from_uci.get(name, ''), 'uci section'
                if value in UNSET:
                    value, source = from_file.get(name, ''), 'config file'
                    if value in UNSET:
                        value, source = s.default, 'default'
        else:
            source = 'flag'
        if s.repeat:
            value = listed(value, s.commas)
        if value is not None and s.check:
            raw, value = value, checked(s, value, source, env, args.config, from_file, by_flag, from_uci)
            if s.check is check_name:
                cfg.names.pop(name, None)
                if value != raw.lower().rstrip('.'):
                    cfg.names[name] = raw.rstrip('.')   # as the user wrote it: logged beside the xn-- form
        setattr(cfg, name, value)
        cfg.sources[name] = source
    if base is not None and not any(s.secret for s in table):
        return cfg   # the base's secrets and switches stand: a record of a run of several, cheaply
    # a setting's secret is its whole value, or the parts of it its secret function names (a URL's key)
    cfg.secrets = [part for s in settings if s.secret and getattr(cfg, s.name)
                   for part in (s.secret(getattr(cfg, s.name)) if callable(s.secret) else [getattr(cfg, s.name)])]
    for sw in switches:
        setattr(cfg, sw.name, sw.name in args.on)
    return cfg


def listed(value, commas=False):
    """The values of a repeated setting: a list as given (flags, a UCI list), else its text split at
    blanks; commas (Setting.commas): each value split at commas and blanks too."""
    if not isinstance(value, list):
        value = value.split() if isinstance(value, str) else []
    if commas:
        value = [item for given in value for item in given.replace(',', ' ').split()]
    return value


CHECKED = {}   # (setting, value) -> checked value: the records of a run share most of their values


def checked(s, value, source, env, config_path, from_file, by_flag=False, from_uci=None):
    """s.check(value) (each value of a repeated setting); a UsageError saying where a bad one came from:
    the flag, the variable, the config file's line, the UCI section (from_uci: its values, which say
    which section, and whether the value is its own or of `config defaults`)."""
    key = (s.name, value if isinstance(value, str) else tuple(value))
    if key in CHECKED:
        return list(CHECKED[key]) if s.repeat else CHECKED[key]
    bad = value
    try:
        if s.repeat:
            done = []
            for bad in value:   # a refused value is shown alone, not with the others
                done.append(s.check(bad))
        else:
            done = s.check(value)
        CHECKED[key] = done
        return list(done) if s.repeat else done
    except ValueError as e:
        line = from_file.get('line:' + s.name)
        where = {'flag': s.flag, 'environment': env, 'default': 'default',
                 'config file': 'config file %s line %s' % (config_path, line),
                 'uci section': uci_where(s.name, from_uci or {})}.get(source, source)
        label = s.flag if by_flag and source == 'flag' else '%s (%s)' % (s.name, where)
        bad = bad if isinstance(bad, str) else ' '.join(bad)
        withheld = s.secret or isinstance(e, Withheld)   # a secret is never shown
        shown = '' if withheld else '; got %r' % bad[:80]
        raise UsageError('bad value for %s: %s%s%s' % (label, e, shown, '' if withheld else hint(bad)))


def uci_where(name, from_uci):
    """Where a UCI option of a record came from: 'UCI section home', or 'UCI config defaults, read by
    section home' when the section does not give it itself (OWN)."""
    section = from_uci.get('uci:section')
    if section is None:
        return 'UCI section'
    own = from_uci.get(OWN)
    if own is not None and name not in own:
        return 'UCI config defaults, read by section %s' % section
    return 'UCI section %s' % section


# the DDNS_* variables the tools read or set that are no record's setting: the UCI file, egress6_win's
# code page, the ddkit command's provider (which a tool fixed to one provider does not read), and the
# environment of a hook (DDNS_HOOK_*)
VARIABLES = ('DDNS_UCI_FILE', 'DDNS_CODEPAGE', 'DDNS_PROVIDER')


def misspelt(environ, table, known=None):
    """[(variable, '; did you mean DDNS_ZONE_NAME?')] of the DDNS_* variables no setting of table
    takes that are a near miss of one that does (DDNS_ZONE_NAM): ignored unseen otherwise. Not
    VARIABLES and the hooks', nor one of a setting known(name) says is another's (another provider's)."""
    names = {s.env for s in table}
    found = []
    for variable in environ:
        if variable.startswith('DDNS_') and variable not in names and variable not in VARIABLES \
                and not variable.startswith('DDNS_HOOK_'):
            from ddkit.helptext import did_you_mean  # only when one is unknown
            # a typo's likeness (zone_nam, 0.93), not a name of another tool's that shares a word
            near = did_you_mean(variable[5:], (), {s.name: s.env for s in table}, cutoff=0.8)
            if near and not (known and known(variable[5:].lower())):
                found.append((variable, near))
    return sorted(found)


def origin(cfg, name):
    """The setting and where its value came from, as the user gave it, for a failure it caused:
    'base_url from DDNS_BASE_URL' (or --base-url, config file two.conf line 4, UCI option base_url of
    section cf); None for a default value."""
    source = cfg.sources.get(name, 'default')
    if source == 'flag':
        where = '--' + name.replace('_', '-')
    elif source == 'environment':
        where = 'DDNS_' + name.upper()
    elif source == 'config file':
        line = cfg.given[1].get('line:' + name)
        where = 'config file %s%s' % (cfg.config_file, ' line %s' % line if line else '')
    elif source == 'uci section':
        where = 'UCI option %s of section %s' % (name, cfg.uci.get('section', '?'))
    else:
        return None
    return '%s from %s' % (name, where)


def missing(cfg, required):
    """The required settings that are not set, in the table's order."""
    return [name for name in required if getattr(cfg, name, None) in (None, '')]
