#!/usr/bin/env python3
"""Make this Windows host leave over one operator's IPv6 line: keep that operator's addresses on the
interface, delete the others. Steps, as the code names them: 1. the interface; 2. its addresses
(renewed first when asked); 3. keep or delete; 4. check the address in use; 5. trace the route.
netsh, ipconfig and tracert run by name through PATH;
their output is decoded with the console's OEM code page and read by numbers, addresses and columns.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, 'lib'))  # ddkit-path

from ddkit import Failure, UsageError, egress, settings  # noqa: E402
from ddkit.log import printable  # noqa: E402
from ddkit.settings import Setting, Switch  # noqa: E402

TOOL = 'egress6_win'
CODES = ('ct', 'cm', 'cu')  # the order of egress6 and every message (the usage line keeps [ct|cu|cm])
YES_NO = ('y', 'n')
HOPS = 5
LOOPBACK_MTU = '4294967295'                      # the loopback pseudo-interface's MTU, any language
DISCONNECTED = ('disconnected', '已断开连接')       # zh-CN prints the English word; other builds may not
TEMPORARY = ('temporary', '临时')                 # address type of privacy addresses (table or block)
SUMMARY = ('Make this Windows host leave over one operator\'s IPv6 line: on the first connected '
           'interface keep that operator\'s addresses and delete the others. Run as administrator '
           '(egress6_win.cmd asks). The arguments are asked when missing; `%s ct y y` runs unattended.')
EPILOG = ('Environment: DDNS_CODEPAGE=936 (or 437, 850, 65001) decodes command output with that code page '
          'instead of the console\'s. Exit status: 0 the address in use is the operator\'s, 1 failure or '
          'another operator\'s address still in use, 2 bad input or a question left unanswered.')


def check_trace_host(value):
    if not value or value.startswith('-') or not all(c.isalnum() or c in '-._:%' for c in value):
        raise ValueError('must be a host name or an IPv6 address')
    return value


SETTINGS = [
    egress.lookup_setting('service answering, over IPv6, with the address this host leaves with; several '
                          'are fallbacks, tried in order'),
    Setting('trace_host', help='host for `tracert -6 -h %d` (default: the first lookup service\'s host)' % HOPS,
            check=check_trace_host, metavar='HOST'),
]
SWITCHES = [Switch('persistent', help='delete with store=persistent, so the deletion survives a restart'),
            Switch('dry_run', help='print the commands that would change something, change nothing'),
            Switch('install_task', help='make a Task Scheduler task that runs this selection (the operator and '
                   'options given) as SYSTEM at each logon and whenever a network connects; run elevated'),
            Switch('uninstall_task', help='remove that task'),
            # a Setting in this table is a flag alone: no DDNS_ variable
            Setting('platform', help='with --install-task --dry-run: the task as Windows would get it, shown on any '
                    'system (windows)', metavar='NAME')]
ARGUMENTS = [('ct|cu|cm', 'operator, by the first group of its addresses: ct = China Telecom (240e), '
              'cm = China Mobile (2409), cu = China Unicom (2408)'),
             ('y|n', 'renew the interface\'s IPv6 addresses first (ipconfig /renew6 <interface>)'),
             ('y|n', 'when the address in use is another operator\'s, check again with the next lookup '
              'service')]


class Interface:
    """One row of `netsh interface ipv6 show interfaces`."""

    def __init__(self, index, mtu, state, name):
        self.index, self.mtu, self.state, self.name = index, mtu, state, name


class Address:
    """One IPv6 address of the interface, as netsh lists it."""

    def __init__(self, text):
        self.text, self.temporary = text, False


def main(argv=None):
    if sys.stdout is None or sys.stderr is None:   # pythonw.exe (the task): no console to write to
        sys.stdout, sys.stderr = sys.stdout or open(os.devnull, 'w'), sys.stderr or open(os.devnull, 'w')
    for stream in (sys.stdout, sys.stderr):  # an interface name the console cannot show must not crash
        if hasattr(stream, 'reconfigure'):
            stream.reconfigure(errors='replace')
    try:
        opts = parse_command_line(sys.argv[1:] if argv is None else argv)
        if opts in (None, 'version'):
            from ddkit import VERSION, helptext
            name = settings.prog(TOOL)
            print('%s %s' % (TOOL, VERSION) if opts else helptext.usage(
                name, SUMMARY % name, SETTINGS, SWITCHES, words='[ct|cu|cm] [y|n] [y|n] [options]',
                arguments=ARGUMENTS, epilog=EPILOG))
            return 0
        if opts.install_task or opts.uninstall_task:
            from ddkit import service   # only then: a selection loads none of it
            return service.task_main(TOOL, service.code_of(__file__, __spec__), task_words(opts), opts.install_task,
                                     opts.dry_run, opts.platform)
        check_admin(opts.dry_run)
        code, renew, recheck = answers(opts.positional)
        return select(opts, code, renew == 'y', recheck == 'y')
    except Failure as e:
        sys.stdout.flush()
        say('%s: %s' % (TOOL, e), file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt:
        say('%s: interrupted' % TOOL, file=sys.stderr)
        return 130


def select(opts, code, renew, recheck):
    prefix = egress.OPERATORS[code]
    encoding = console_encoding()
    iface = find_interface(encoding)
    say('Interface: %s (index %s); keeping its %s: addresses (%s).'
        % (iface.name, iface.index, prefix, code))
    if renew:
        renew_addresses(opts, iface, encoding)
    addresses = list_addresses(iface, encoding)
    keep_or_delete(opts, iface, addresses, prefix, encoding)
    if opts.dry_run:
        say('Dry run: nothing was changed.')
        return 0
    found = check_effective(opts, code, prefix, recheck)
    trace_route(opts, encoding)
    return 0 if found else 1


def say(text, file=None):
    """One output function: what netsh, the lookup services and the console send cannot carry a
    control character (a forged line, a terminal escape) to the screen, stderr included."""
    print(printable(text), file=file)


# --- arguments and questions ---------------------------------------------------------------------
def parse_command_line(argv):
    """The command line (ddkit.settings: the parser of every tool); None when --help was asked."""
    args = settings.parse_args(argv, SETTINGS, SWITCHES, positional=True)
    if args is None or 'version' in args.on:
        return args and 'version'
    if len(args.positional) > 3:
        raise UsageError('at most three arguments: operator, renew, re-check (e.g. ct y y); see --help')
    opts = settings.load(args, SETTINGS, SWITCHES, by_flag=True)
    opts.positional, opts.flags, opts.platform = args.positional, args.values, args.values.get('platform')
    if opts.install_task and opts.uninstall_task or opts.platform and not (opts.install_task or opts.uninstall_task):
        raise UsageError('--platform goes with --install-task or --uninstall-task, and those two not together; '
                         'see --help')
    opts.lookup_urls = opts.lookup_url or list(egress.LOOKUP_URLS)
    opts.trace_host = opts.trace_host or url_host(opts.lookup_urls[0])
    return opts


def task_words(opts):
    """The arguments of the task --install-task makes: the operator, n for the two questions not given
    (a task asks nothing), the options given as flags (none from the environment, which the task has not)."""
    if not opts.install_task:
        return []
    if not opts.positional:
        raise UsageError('--install-task needs the operator: e.g. %s --install-task ct' % TOOL)
    words = answers(opts.positional + ['n'] * (3 - len(opts.positional)))
    for url in opts.flags.get('lookup_url', []):
        words += ['--lookup-url', url]
    if 'trace_host' in opts.flags:
        words += ['--trace-host', opts.flags['trace_host']]
    return words + (['--persistent'] if opts.persistent else [])


def url_host(url):
    """The host part of an http(s) URL, without brackets or port."""
    hostport = url.split('://', 1)[-1].split('/', 1)[0].split('?', 1)[0].rsplit('@', 1)[-1]
    if hostport.startswith('['):
        return hostport[1:].partition(']')[0]
    return hostport.partition(':')[0]


def answers(positional):
    """Operator, renew and re-check: from the arguments, or asked for when missing."""
    questions = [
        ('operator', CODES, 'Operator: ct = China Telecom (240e), cm = China Mobile (2409), '
                            'cu = China Unicom (2408)'),
        ('renew', YES_NO, 'Renew the IPv6 addresses first (ipconfig /renew6)?'),
        ('re-check', YES_NO, 'If the address in use turns out to be another operator\'s, check again '
                             'with the next lookup service?'),
    ]
    result = []
    for position, (what, values, question) in enumerate(questions):
        if position < len(positional):
            answer = positional[position].strip().lower()
            if answer not in values:
                raise UsageError('argument %d (%s) must be %s, not %r; see --help'
                                 % (position + 1, what, ' or '.join(values), positional[position]))
        else:
            answer = ask(what, values, question)
        result.append(answer)
    return result


def ask(what, values, question):
    """Ask until the answer is one of `values`; with no terminal a wrong answer is bad input."""
    interactive = sys.stdin is not None and sys.stdin.isatty()
    while True:
        sys.stdout.write('%s [%s]: ' % (question, '/'.join(values)))
        sys.stdout.flush()
        line = sys.stdin.readline() if sys.stdin is not None else ''
        if not interactive:   # show the piped answer, so the transcript reads like a console
            sys.stdout.write(printable(line.rstrip('\n')) + '\n')
        answer = line.strip().lower()
        if answer in values:
            return answer
        if not line:
            raise UsageError('no answer for %s: give all three arguments (e.g. %s.py ct y y) to run '
                             'without questions' % (what, TOOL))
        if not interactive:
            raise UsageError('%r is not an answer for %s: use %s' % (line.strip(), what, ' or '.join(values)))
        say('Please answer %s.' % ' or '.join(values))


def check_admin(dry_run, platform=os.name, is_admin=None):
    """Deleting addresses needs an elevated prompt on Windows; elsewhere only stand-ins can answer."""
    if platform != 'nt':
        say('warning: this is not Windows: running the netsh, ipconfig and tracert found on PATH',
            file=sys.stderr)
        return
    if is_admin is None:
        try:
            import ctypes
            admin = bool(ctypes.windll.shell32.IsUserAnAdmin())
        except (ImportError, AttributeError, OSError):
            admin = True     # cannot tell: netsh itself will refuse if rights are missing
    else:
        admin = is_admin()
    if not admin and not dry_run:
        raise Failure('administrator rights are needed to delete addresses: start egress6_win.cmd '
                      '(it asks for them), or a Command Prompt with "Run as administrator"')


# --- running Windows commands --------------------------------------------------------------------
def console_encoding():
    """The code page netsh, ipconfig and tracert write in: the console's OEM code page."""
    import codecs
    page = os.environ.get('DDNS_CODEPAGE', '').strip().lower()
    page = page[2:] if page.startswith('cp') else page
    if not page and os.name == 'nt':
        import ctypes
        kernel32 = ctypes.windll.kernel32
        page = str(kernel32.GetConsoleOutputCP() or kernel32.GetOEMCP())
    name = 'utf-8' if page == '65001' else 'cp' + (page or '437')
    try:
        codecs.lookup(name)
    except LookupError:
        raise UsageError('unknown code page %r in DDNS_CODEPAGE: use e.g. 936, 437, 850 or 65001' % page)
    return name


def run(argv, encoding, show=False):
    """Run a command found through PATH (no shell): (exit status, decoded output); `show` prints
    each line as it comes (tracert is slow)."""
    import subprocess
    try:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
    except OSError as e:
        raise Failure('cannot run %s: %s' % (argv[0], e.strerror or e))
    lines = []
    for raw in child.stdout:     # no OEM code page has 0x0a inside a character
        lines.append(raw.decode(encoding, 'replace').rstrip('\r\n'))
        if show:
            say(lines[-1])
            sys.stdout.flush()
    return child.wait(), '\n'.join(lines)


def shown(argv):
    """A command line as the user would type it (arguments with spaces quoted)."""
    return ' '.join('"%s"' % a if not a or ' ' in a else a for a in argv)


def first_line(text, last=False):
    lines = [line.strip() for line in text.splitlines() if line.strip()] or ['no output']
    return lines[-1] if last else lines[0]


# --- step 1: the interface -----------------------------------------------------------------------
def find_interface(encoding):
    """Step 1: the first interface that is neither disconnected nor loopback."""
    argv = ['netsh', 'interface', 'ipv6', 'show', 'interfaces']
    status, text = run(argv, encoding)
    if status != 0:
        raise Failure('list interfaces: %s failed: %s' % (shown(argv), first_line(text)))
    rows = parse_interfaces(text)
    for iface in rows:
        if iface.state.lower() in DISCONNECTED:
            continue
        if iface.mtu == LOOPBACK_MTU or iface.name.startswith('Loopback Pseudo-Interface'):
            continue
        return iface
    raise Failure('list interfaces: no connected interface besides loopback among the %d listed by %s'
                  % (len(rows), shown(argv)))


def parse_interfaces(text):
    """Rows `Idx Met MTU State Name` by column: three numbers, the state word, the name is the rest."""
    rows = []
    for line in text.splitlines():
        cells = line.split(None, 4)
        if len(cells) == 5 and all(c.isdigit() for c in cells[:3]):
            rows.append(Interface(cells[0], cells[2], cells[3], cells[4].strip()))
    return rows


# --- position 2 and step 2: renew, list the addresses --------------------------------------------
def renew_addresses(opts, iface, encoding):
    """Ask for fresh addresses first. /renew6, not the spec's /renew: /renew only renews IPv4 leases."""
    argv = ['ipconfig', '/renew6', iface.name]
    if opts.dry_run:
        say('Would run: %s' % shown(argv))
        return
    say('Renewing: %s' % shown(argv))
    status, text = run(argv, encoding)
    if status != 0:   # stateless (SLAAC-only) lines have no DHCPv6 lease to renew: not fatal
        say('warning: %s failed (%s); going on with the current addresses'
            % (shown(argv), first_line(text, last=True)))


def list_addresses(iface, encoding):
    """Step 2: the interface's IPv6 addresses from netsh, link-local ones left out."""
    import ipaddress
    argv = ['netsh', 'interface', 'ipv6', 'show', 'addresses', 'interface=%s' % iface.index]
    status, text = run(argv, encoding)
    if status != 0:
        raise Failure('list addresses: %s failed: %s' % (shown(argv), first_line(text)))
    found = []
    for address in parse_addresses(text, iface.index):
        if not ipaddress.IPv6Address(address.text.split('%')[0]).is_link_local:
            found.append(address)
    return found


def parse_addresses(text, index):
    """Addresses in either netsh layout: blocks (`Address <addr> Parameters`, `key : value` lines),
    or tables under `Interface <n>: <name>` / `接口 <n>: <name>` headings (only `index` counts)."""
    found, heading, current = [], None, None
    for line in text.splitlines():
        cells = line.split()
        number = heading_number(line, cells)
        if number is not None:
            heading, current = number, None
            continue
        address = next((c for c in cells if is_ipv6(c)), None)
        if address:
            current = Address(address)
            if heading in (None, index):
                found.append(current)
            current.temporary = cells[0].lower() in TEMPORARY      # table row: the type comes first
        elif current and ' : ' in line and 'Luid' not in line:      # block line; Luid holds the name
            if line.rpartition(' : ')[2].strip().lower() in TEMPORARY:
                current.temporary = True
    return found


def heading_number(line, cells):
    """The interface number of an `Interface 12: Ethernet` (`接口 12: 以太网`) heading, else None."""
    if len(cells) < 2 or line[:1].isspace() or is_ipv6(cells[1]):    # `Address 2408:... Parameters`
        return None
    digits, colon, _ = cells[1].replace('：', ':').partition(':')   # zh-CN may use a full-width colon
    return digits if colon and digits.isdigit() else None


def is_ipv6(text):
    import ipaddress
    if ':' not in text or text.endswith(':'):
        return False
    try:
        ipaddress.IPv6Address(text.split('%')[0])
        return True
    except ValueError:
        return False


# --- step 3: keep or delete ----------------------------------------------------------------------
def keep_or_delete(opts, iface, addresses, prefix, encoding):
    """Step 3: keep the operator's addresses (and unique-local ones), delete the other global ones."""
    import ipaddress
    ours = [a for a in addresses if egress.first_group(a.text) == prefix]
    if not ours:
        listed = ', '.join(a.text for a in addresses) or 'none'
        raise Failure('no %s: address on %s (only %s); nothing deleted, that would leave it without '
                      'IPv6' % (prefix, iface.name, listed))
    deleted, failed = [], []
    for address in addresses:
        if address in ours:
            say('Keeping  %s%s' % (address.text, ' (temporary)' if address.temporary else ''))
        elif ipaddress.IPv6Address(address.text.split('%')[0]) in ipaddress.IPv6Network('fc00::/7'):
            say('Keeping  %s (unique local, never used to reach the internet)' % address.text)
        elif delete_address(opts, iface, address, encoding):
            deleted.append(address)
        else:
            failed.append(address)
    if deleted and not opts.dry_run:
        report_deleted(opts, deleted)
    if failed:
        say('warning: %d address(es) could not be deleted: %s'
            % (len(failed), ', '.join(a.text for a in failed)))


def delete_address(opts, iface, address, encoding):
    """One `netsh interface ipv6 delete address`; by index, which needs no quoting in any language."""
    argv = ['netsh', 'interface', 'ipv6', 'delete', 'address', 'interface=%s' % iface.index,
            'address=%s' % address.text] + (['store=persistent'] if opts.persistent else [])
    if opts.dry_run:
        say('Would run: %s' % shown(argv))
        return True
    say('Deleting %s%s' % (address.text, ' (temporary)' if address.temporary else ''))
    status, text = run(argv, encoding)
    if status != 0:
        say('  %s failed: %s' % (shown(argv), first_line(text)))
        return False
    return True


def report_deleted(opts, deleted):
    """The manual variant's advice: what comes back by itself, and how to make it last."""
    temporary = [a for a in deleted if a.temporary]
    if temporary:
        say('%d of the deleted addresses were temporary (privacy) addresses: Windows makes new ones, '
            'so run this again, or turn them off with:' % len(temporary))
        say('  netsh interface ipv6 set privacy state=disable')
    if not opts.persistent:
        say('Deleted for now (store=active): a router advertisement or a restart may bring them back; '
            '--persistent deletes with store=persistent.')
    say('Deleted addresses may still show in the network settings; they are no longer used. '
        'Run this again when the addresses change.')


# --- steps 4 and 5: check, trace -----------------------------------------------------------------
def check_effective(opts, code, prefix, recheck):
    """Step 4: ask the lookup services in order which address we leave with; True when it is ours."""
    urls, answered = list(opts.lookup_urls), False
    while urls:
        address, _, url = egress.effective_ipv6(urls)
        if address is None:
            break
        answered = True
        if egress.first_group(address) == prefix:
            say('Success: this host leaves with %s, a %s address (%s says so).' % (address, code, url))
            return True
        say('Not yet: this host leaves with %s, not a %s (%s:) address (%s says so).'
            % (address, code, prefix, url))
        urls = urls[urls.index(url) + 1:]
        if not (recheck and urls):
            break
        say('Checking again with %s.' % urls[0])
    if not answered:
        raise Failure('look up the effective IPv6: no answer from %s; check the IPv6 connectivity'
                      % ' nor '.join(opts.lookup_urls))
    say('Open connections keep their old address; if new ones do too, run again with renew (y).')
    return False


def trace_route(opts, encoding):
    """Step 5: the first hops, which show the line the traffic takes."""
    argv = ['tracert', '-6', '-h', str(HOPS), opts.trace_host]
    say('Route: %s' % shown(argv))
    sys.stdout.flush()
    try:
        run(argv, encoding, show=True)
    except Failure as e:     # the selection is done; a missing trace does not undo it
        say('warning: %s' % e)


if __name__ == '__main__':
    sys.exit(main())
