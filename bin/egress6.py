#!/usr/bin/env python3
"""Choose which IPv6 address this Linux host leaves with: one source-NAT rule to the operator's address.

Flow, in steps the code names: 1. list the running interfaces; 2. pick the operator's address on one;
3. none: exit 1; 4. fall back to any address of the interface, else disable IPv6 on it; 5. apply the
NAT rule state table (no rule: insert; one rule of the same address: keep; of another: flush, insert;
several: leave them, exit 1); 6. verify with the lookup chain. Without an operator code: report the
rule and the effective address only.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, 'lib'))  # ddkit-path

from ddkit import Failure, UsageError, egress, iface, ipcheck, log, settings  # noqa: E402
from ddkit.settings import Setting, Switch, check_command, check_url  # noqa: E402

TOOL = 'egress6'
# test-ipv6.com answers JSON with ip and asn_name; USTC's LibreSpeed answers processedString;
# icanhazip answers plain text: the three answer shapes, tried in this order.
GEOIP_URL = 'https://api.ip.sb/geoip'   # GET <url>/<ip> -> isp, region, country
BACKENDS = ('auto', 'iptables', 'nft')
SAFE = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/=@+,%')
SUMMARY = (
    'Make outbound IPv6 leave with one operator\'s address (its first group): ct = China Telecom (240e), '
    'cm = China Mobile (2409), cu = China Unicom (2408).\n\n'
    'It picks that address on a running interface and installs one source-NAT rule:\n'
    'in the nat POSTROUTING chain (ip6tables), or in a table of its own,\n'
    '"table ip6 egress6" (nft); then a lookup service tells which address the\n'
    'outside world sees. Without a code it only reports. Changing the rule needs\n'
    'root; without root, --dry-run and the report do what needs no root and say\n'
    'what does.')
EPILOG = ('Every option can also come from the environment as DDNS_<NAME> (e.g. DDNS_HEALTHCHECK_URL). '
          'Exit status: 0 done, nothing to do or unsupported code; 1 failure (not root, no matching '
          'interface, several rules, rule not applied, no lookup answer, wrong effective prefix); 2 bad '
          'input. The rule does not survive a reboot or an address change: run the tool again then.')


def check_backend(value):
    if value not in BACKENDS:
        raise ValueError('use auto, iptables or nft')
    return value


SETTINGS = [
    egress.lookup_setting('IPv6 lookup service; several are tried in order until one answers (JSON "ip", '
                          'JSON "processedString" or plain text)'),
    Setting('geoip_url', GEOIP_URL, help='geolocation service, asked GET URL/<ip>', check=check_url,
            metavar='URL'),
    Setting('backend', 'auto', help='auto (ip6tables when present, else nft), iptables or nft',
            check=check_backend, metavar='NAME'),
    Setting('on_change', help='run COMMAND (no shell) after the rule changed or a run failed; details in its '
            'DDNS_HOOK_* environment', check=check_command, metavar='COMMAND'),
    Setting('healthcheck_url', help='GET URL after a good run, URL/fail after a failed one', secret=True,
            check=check_url, metavar='URL'),
]
SWITCHES = [Switch('dry_run', help='print each command that would change something; change nothing')]


def main(argv=None):
    opts = None
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
        if opts in (None, 'version'):
            return about(opts)
        if opts.code is not None and opts.code not in egress.OPERATORS:
            say('Unsupported operator code %r: use ct (240e), cm (2409) or cu (2408); nothing changed.'
                % opts.code)
            return 0
        root = os.geteuid() == 0
        if not root and opts.code is not None and not opts.dry_run:
            require_root()
        backend = pick_backend(opts.backend, root)
        status = report(opts, backend, root) if opts.code is None else select(opts, backend, root)
    except Failure as e:
        sys.stdout.flush()
        print('%s: %s' % (TOOL, log.printable(e)), file=sys.stderr)  # it quotes names and command output
        if opts is None or e.exit_status == 2:
            return e.exit_status
        status, opts.message = e.exit_status, str(e)
    if not opts.dry_run and (opts.on_change or opts.healthcheck_url):
        tell(opts, status)
    return status


def about(what):
    """--help or --version: printed, exit 0."""
    from ddkit import VERSION, helptext
    text = '%s %s' % (TOOL, VERSION) if what else helptext.usage(
        settings.prog(TOOL), SUMMARY, SETTINGS, SWITCHES, words='[ct|cm|cu] [options]', epilog=EPILOG,
        arguments=[('ct|cm|cu', 'the operator whose address outbound IPv6 leaves with; none: report only')])
    log.say(text)
    return 0


def tell(opts, status):
    """After the run: on_change when the rule changed or the run failed, then the ping (ddkit.notify)."""
    from ddkit import notify
    outcome = opts.outcome if status == 0 else 'failed'
    event = outcome and {'outcome': outcome, 'record_name': opts.ifname, 'record_type': 'SNAT',
                         'operator': opts.code, 'old_ip': opts.old_ip, 'new_ip': opts.new_ip,
                         'message': opts.message}
    notify.after_run(log.Log(secrets=[opts.healthcheck_url]), TOOL, opts.on_change, opts.healthcheck_url,
                     status == 0, event)


def parse_args(argv):
    """The command line (ddkit.settings: the parser of every tool); None when --help was asked."""
    args = settings.parse_args(argv, SETTINGS, SWITCHES, positional=True)
    if args is None or 'version' in args.on:
        return args and 'version'
    if len(args.positional) > 1:
        raise UsageError('one operator code at most (got %s); see --help' % ', '.join(map(repr, args.positional)))
    opts = settings.load(args, SETTINGS, SWITCHES, by_flag=True)
    opts.code = args.positional[0].lower() if args.positional else None
    opts.lookup_urls = opts.lookup_url or list(egress.LOOKUP_URLS)
    opts.outcome = opts.ifname = opts.old_ip = opts.new_ip = opts.message = None  # for on_change
    return opts


def require_root():
    """Changing the firewall and the interface settings needs root; stop before anything."""
    raise Failure('must run as root to change the IPv6 NAT rules and interface settings: run it with sudo, '
                  'or as root on the router (nothing was changed); without root, --dry-run shows what it '
                  'would do and a run without a code reports the addresses')


def select(opts, backend, root):
    """Steps 1-6 for one operator code (without root: a dry run only, main checked)."""
    prefix = egress.OPERATORS[opts.code]
    running = list_interfaces()                                          # step 1
    chosen = choose_address(running, prefix, opts.code, opts.dry_run)    # steps 2 to 4
    if chosen is None:
        return 0
    opts.ifname, opts.new_ip = chosen.ifname, chosen.address
    if not root:
        say('%s: not read (listing the rules needs root); for a chain with no rule:' % backend.where)
        backend.insert(chosen.ifname, chosen.address, True)
    else:
        opts.outcome, opts.old_ip = apply_nat_rule(backend, chosen, opts.dry_run)   # step 5
        warn_other_backend(backend, 1)
    if opts.dry_run:
        say('Dry run: nothing was changed; verification skipped.')
        return 0
    status = verify(opts, backend, prefix)                               # step 6
    say('The rule does not survive a reboot or an address change: run "egress6.py %s" again then.'
        % opts.code)
    return status


def report(opts, backend, root):
    """No code: report interfaces, the current rule and the effective address; change nothing.
    Without root the rules cannot be read: the rest is reported."""
    for name in list_interfaces():
        found = [a for a in iface.ipv6_addresses() if a.ifname == name and a.scope == iface.SCOPE_GLOBAL]
        shown = ['%s (%s)' % (a.address, ', '.join(w for w in (operator_of(a.address), a.describe()) if w))
                 for a in found]
        say('%s: %s' % (name, ', '.join(shown) or 'no global IPv6 address'))
    if not root:
        say('NAT rules: not read: listing them (%s) needs root' % backend.manual()[0][1])
        return verify(opts, None, None)
    if opts.backend == 'auto':
        backend = rule_holder(backend)
    rules = backend.rules()
    show_rules(backend, rules)
    if len(rules) > 1:
        too_many(backend, rules)
    warn_other_backend(backend, len(rules))
    return verify(opts, backend, None)


def rule_holder(backend):
    """The backend that holds a rule: auto picks ip6tables, but an earlier run may have used nft."""
    other = other_backend(backend)
    try:
        if not backend.rules() and other and other.rules():
            return other
    except Failure:
        pass
    return backend


# --- steps 1 to 4: interface and address ---------------------------------------------------------

def list_interfaces():
    """Step 1: running interfaces in the kernel's order, loopback skipped, the others reported."""
    running = []
    for name in iface.interfaces():
        flags = iface.flags(name)
        if flags is None or flags & iface.IFF_LOOPBACK:
            continue
        if flags & iface.IFF_RUNNING:
            running.append(name)
        else:
            say('%s: disabled (%s), skipped' % (name, 'not RUNNING: no carrier' if flags & iface.IFF_UP
                                                 else 'down'))
    return running


def choose_address(running, prefix, code, dry_run):
    """Steps 2 to 4: (interface, address) of the operator, or None after the disable_ipv6 fallback."""
    addresses = [a for a in iface.ipv6_addresses() if egress.first_group(a.address) == prefix]
    matching = [name for name in running if any(a.ifname == name for a in addresses)]
    if not matching:
        elsewhere = sorted(set(a.ifname for a in addresses if a.ifname != 'lo'))
        raise Failure('no running interface has an address under %s::/16 (operator %s)%s'
                      % (prefix, code, '; found only on disabled interface(s) ' + ', '.join(elsewhere)
                         if elsewhere else ''))
    name = matching[0]
    own = [a for a in addresses if a.ifname == name and a.scope == iface.SCOPE_GLOBAL]
    best = iface.best_first(own)
    if not best:
        # step 4: the interface holds the prefix but no usable global address: search them all
        others = [a for a in addresses if a.ifname in running and a.scope == iface.SCOPE_GLOBAL]
        best = iface.best_first(others)
        if best:
            say('%s has no usable %s address (%s); fallback: found %s on %s'
                % (name, prefix, ', '.join('%s %s' % (a.address, a.describe()) for a in own) or 'none global',
                   best[0].address, best[0].ifname))
    if not best:
        return disable_ipv6(name, prefix, [a for a in addresses if a.ifname == name], dry_run)
    chosen = best[0]
    why = 'stable' if chosen.stable else 'the only kind there is: ' + chosen.describe()
    passed = ['%s (%s)' % (a.address, a.describe()) for a in best[1:]] + \
             ['%s (%s)' % (a.address, a.describe()) for a in own if not a.usable]
    say('Chosen: %s on %s for %s (%s, %s)%s' % (
        chosen.address, chosen.ifname, code, why, chosen.describe(),
        '; passed over ' + ', '.join(passed) if passed else ''))
    return chosen


def disable_ipv6(name, prefix, held, dry_run):
    """Step 4's last resort: turn IPv6 off on the interface so it cannot leave with another operator."""
    path = '/proc/sys/net/ipv6/conf/%s/disable_ipv6' % name
    say('%s holds %s but no usable address of it (%s): disabling IPv6 on %s'
        % (name, prefix, ', '.join('%s %s' % (a.address, a.describe()) for a in held), name))
    if dry_run:
        say('would run: echo 1 > %s' % path)
    else:
        say('+ echo 1 > %s' % path)
        try:
            with open(path, 'w') as f:
                f.write('1\n')
        except OSError as e:
            raise Failure('disable IPv6 on %s: cannot write %s: %s' % (name, path, e.strerror or e))
    say('To enable IPv6 on %s again: echo 0 > %s   (or: sysctl -w net.ipv6.conf.%s.disable_ipv6=0)'
        % (name, path, name.replace('.', '/')))
    return None


# --- step 5: the NAT rule state table --------------------------------------------------------------

def apply_nat_rule(backend, chosen, dry_run):
    """Step 5: no rule -> insert; one rule, same address -> keep; other address -> flush, insert.

    Returns (None when kept, else 'created' or 'updated'; the address the rule had before)."""
    rules = backend.rules()
    show_rules(backend, rules)
    if len(rules) > 1:
        too_many(backend, rules)
    if rules and rules[0].matches(chosen):
        say('The rule already uses %s on %s: kept.' % (chosen.address, chosen.ifname))
        return None, chosen.address
    if rules:
        say('The rule uses %s on %s, not %s on %s: flushing the chain.'
            % (rules[0].source or 'no source address', rules[0].out, chosen.address, chosen.ifname))
        backend.flush(dry_run)
    backend.insert(chosen.ifname, chosen.address, dry_run)
    outcome, before = ('updated', rules[0].source) if rules else ('created', None)
    if dry_run:
        return outcome, before
    rules = backend.rules()
    if len(rules) != 1 or not rules[0].matches(chosen):
        show_rules(backend, rules)
        print_manual(backend)
        raise Failure('the rule is not in place after inserting it (%d rule(s) in %s); '
                      'see the manual commands above' % (len(rules), backend.where))
    say('Rule in place: %s' % rules[0].text)
    return outcome, before


def show_rules(backend, rules):
    say('%s: %s' % (backend.where, 'no rule' if not rules else
                    '; '.join('#%s %s' % (r.position, r.text) for r in rules)))


def too_many(backend, rules):
    print_manual(backend)
    raise Failure('%d rules in %s, exactly 1 is accepted: remove the extra ones with the commands '
                  'above, then run again' % (len(rules), backend.where))


def print_manual(backend):
    say('Manual commands (%s):' % backend.name)
    for what, command in backend.manual():
        say('  %-22s %s' % (what + ':', command))


def warn_other_backend(backend, ours):
    """A source-NAT rule left by the other backend competes with ours: say so (never touch it)."""
    other = other_backend(backend)
    try:
        found = [r for r in other.rules() if r.source] if other else []
    except Failure:
        return
    if found and ours:
        say('Warning: %s also has %d source-NAT rule(s) (%s), which compete with this one; '
            'see: %s' % (other.where, len(found), ', '.join(r.source for r in found), other.manual()[0][1]))
    elif found:
        say('%s: %d source-NAT rule(s) (%s); --backend %s shows them' % (
            other.where, len(found), ', '.join(r.source for r in found), 'nft' if other.name == 'nft'
            else 'iptables'))


def other_backend(backend):
    """The backend this one is not, when its program is installed; else None."""
    other = Nft() if isinstance(backend, Ip6tables) else Ip6tables()
    return other if which(other.name) else None


class Rule:
    """One rule of the chain: position (number or handle), out interface, SNAT source, its text."""

    def __init__(self, position, out, source, text):
        self.position, self.out, self.source, self.text = position, out, source, text

    def matches(self, chosen):
        return ipcheck.same_ip(self.source, chosen.address) and self.out == chosen.ifname


class Ip6tables:
    """The nat table's POSTROUTING chain, the rule written exactly as the original tool wrote it."""

    name = 'ip6tables'
    where = 'ip6tables nat POSTROUTING'
    LIST = ['ip6tables', '-t', 'nat', '-vnL', 'POSTROUTING', '--line-number']

    def rules(self):
        """The rules, counted as the original tool counted them: lines of the listing past the 2 headers."""
        lines = [line for line in run(self.LIST, 'list the NAT rules').splitlines() if line.strip()]
        found = []
        for line in lines[2:]:
            words = line.split()
            # columns: num pkts bytes target prot opt in out source destination [to:addr]
            # (opt is blank in some versions, so find out by the first address column)
            at = next((i for i, w in enumerate(words) if i > 3 and '/' in w), len(words))
            to = [w[3:] for w in words if w.startswith('to:')]
            found.append(Rule(words[0], words[at - 1] if at < len(words) else '?',
                              to[0].strip('[]') if to else None, ' '.join(words[3:])))
        return found

    def insert(self, ifname, address, dry_run):
        change(['ip6tables', '-t', 'nat', '-I', 'POSTROUTING', '-o', ifname, '-d', '::/0', '-j', 'SNAT',
                '--to-source', address], 'insert the NAT rule', dry_run)

    def flush(self, dry_run):
        change(['ip6tables', '-t', 'nat', '-F', 'POSTROUTING'], 'flush the NAT chain', dry_run)

    def manual(self):
        return [('list', 'ip6tables -t nat -vnL POSTROUTING --line-number'),
                ('delete rule <n>', 'ip6tables -t nat -D POSTROUTING <n>'),
                ('flush', 'ip6tables -t nat -F POSTROUTING'),
                ('save', 'ip6tables-save'),
                ('IPv4 equivalent', 'iptables')]


class Nft:
    """A table of this tool's own, so it never touches rules it did not write (fw4's included)."""

    name = 'nft'
    where = 'nft table ip6 egress6 chain postrouting'
    CHAIN = ['ip6', 'egress6', 'postrouting']

    def rules(self):
        """The rules of our chain (lines with a handle); no table yet means no rule."""
        text = run(['nft', '-a', 'list', 'chain'] + self.CHAIN, 'list the NAT rules', missing_ok=True)
        found = []
        for line in text.splitlines():
            body, mark, handle = line.strip().partition(' # handle ')
            if not mark or body.startswith(('chain ', 'table ')) or body.endswith('{'):
                continue
            words = body.split()
            out = words[words.index('oifname') + 1].strip('"') if 'oifname' in words else '*'
            source = words[words.index('to') + 1] if 'snat' in words and 'to' in words[:-1] else None
            found.append(Rule(handle.strip(), out, source.strip('[]') if source else None, body))
        return found

    def insert(self, ifname, address, dry_run):
        change(['nft', 'add', 'table', 'ip6', 'egress6'], 'create the nft table', dry_run)
        chain = '{ type nat hook postrouting priority 100 ; policy accept ; }'   # 100: srcnat
        change(['nft', 'add', 'chain'] + self.CHAIN + [chain], 'create the nft chain', dry_run)
        name = ifname if set(ifname) <= SAFE and ifname[:1].isalpha() else '"%s"' % ifname
        rule = ['oifname', name, 'ip6', 'daddr', '::/0', 'snat', 'to', address]
        change(['nft', 'insert', 'rule'] + self.CHAIN + rule, 'insert the NAT rule', dry_run)

    def flush(self, dry_run):
        change(['nft', 'flush', 'chain'] + self.CHAIN, 'flush the NAT chain', dry_run)

    def manual(self):
        return [('list', 'nft -a list chain ip6 egress6 postrouting'),
                ('delete rule <handle>', 'nft delete rule ip6 egress6 postrouting handle <handle>'),
                ('flush', 'nft flush chain ip6 egress6 postrouting'),
                ('remove all', 'nft delete table ip6 egress6'),
                ('save', 'nft list table ip6 egress6')]


def pick_backend(choice, root=True):
    """--backend auto: ip6tables when present, otherwise nft (OpenWrt 22.03+ has only nft)."""
    if not root:  # nothing is run, only named: a user's PATH often lacks /usr/sbin
        nft = choice == 'nft' or choice == 'auto' and not which('ip6tables') and which('nft')
        return Nft() if nft else Ip6tables()
    if choice == 'auto':
        choice = 'iptables' if which('ip6tables') else 'nft' if which('nft') else None
        if choice is None:
            raise Failure('neither ip6tables nor nft was found on PATH (%s): install nftables '
                          '(or ip6tables), or add its directory to PATH' % os.environ.get('PATH', ''))
    program = 'ip6tables' if choice == 'iptables' else 'nft'
    if not which(program):
        raise Failure('%s was not found on PATH (%s): install it, or choose the other --backend'
                      % (program, os.environ.get('PATH', '')))
    return Ip6tables() if choice == 'iptables' else Nft()


def which(program):
    """The program's path on PATH, or None (shutil.which costs imports a router does not need)."""
    for folder in os.environ.get('PATH', os.defpath).split(os.pathsep):
        path = os.path.join(folder or '.', program)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def run(command, step, missing_ok=False):
    """Run a read-only command (list args, no shell) and return its output; Failure when it fails."""
    from ddkit import proc  # not subprocess: its imports cost more than the interpreter's start-up
    try:
        returncode, stdout, stderr = proc.run(command, timeout=30)
    except OSError as e:
        raise Failure('%s: cannot run %s: %s' % (step, command[0], getattr(e, 'strerror', None) or e))
    if returncode != 0:
        if missing_ok and 'No such file or directory' in stderr:
            return ''
        raise Failure('%s: `%s` failed (exit %d): %s' % (step, quoted(command), returncode,
                                                        ' '.join(stderr.split())[:300] or 'no message'))
    return stdout


def change(command, step, dry_run):
    """Run a command that changes the firewall, printed first; under --dry-run only print it."""
    if dry_run:
        say('would run: %s' % quoted(command))
        return
    say('+ %s' % quoted(command))
    run(command, step)


def quoted(command):
    """The command as one shell line the user can copy."""
    return ' '.join(w if w and set(w) <= SAFE else "'%s'" % w.replace("'", "'\\''") for w in command)


# --- step 6: verify -----------------------------------------------------------------------------

def verify(opts, backend, prefix):
    """Step 6: the effective IPv6 from the lookup chain, checked against the prefix and the rule
    (backend None: the rules could not be read)."""
    rules = backend.rules() if backend else []
    refused = []
    address, details, url = egress.effective_ipv6(opts.lookup_urls, refused=refused)
    if not address:
        raise Failure('verify: no lookup service answered with an IPv6 address (asked, in order: %s); '
                      'check IPv6 connectivity or give --lookup-url' % '; '.join(
                          '%s: %s' % (where, why) for where, why in refused))
    say('Effective IPv6: %s (%s; answered by %s)'
        % (address, operator_of(address) or 'unknown operator', url))
    if details.get('asn_name'):
        say('Operator (asn_name): %s' % details['asn_name'])
    geo = egress.geolocate(opts.geoip_url, address)
    if geo:
        say('Geolocation: %s' % ', '.join('%s %s' % (k, geo[k]) for k in ('isp', 'region', 'country')
                                          if k in geo))
    got, problems = egress.first_group(address), []
    if prefix and got != prefix:
        problems.append('its first group is %s, not the requested %s' % (got, prefix))
    if len(rules) == 1 and rules[0].source and egress.first_group(rules[0].source) != got:
        problems.append("it does not have the rule's source prefix %s (rule to %s)"
                        % (egress.first_group(rules[0].source), rules[0].source))
    if problems:
        opts.message = 'FAILED: outbound IPv6 leaves with %s: %s' % (address, '; '.join(problems))
        say(opts.message)
        return 1
    opts.message = 'OK: outbound IPv6 leaves with %s%s%s' % (
        address, ', the requested prefix %s' % prefix if prefix else '',
        ", as the rule says (%s)" % rules[0].source if len(rules) == 1 and rules[0].source else '')
    say(opts.message)
    return 0


def operator_of(address):
    group = egress.first_group(address)
    return next(('%s %s' % (code, p) for code, p in sorted(egress.OPERATORS.items()) if p == group), '')


def say(text):
    """One output function: text from services and the kernel cannot forge extra lines."""
    log.say(log.printable(text))


if __name__ == '__main__':
    sys.exit(main())
