"""The command line of both updaters: main(provider) reads the settings of each record the arguments
name (one, or several: --all, --uci twice, record_type "A AAAA"), and runs each through the update
loop (ddkit.reconcile) or --check (ddkit.check). A provider module supplies only its API
(docs/design.md)."""

import sys

import ddkit
from ddkit import UsageError, decimal, settings
from ddkit.ipcheck import OPERATORS
from ddkit.native import os
from ddkit.settings import Setting, Switch
from ddkit.urls import notify_secrets, proxy_uninstalled

COMMON = [
    Setting('zone_name', help='root domain of the zone, e.g. example.com; where the provider lists the '
            'account\'s zones it may be left out: the longest zone the record is in', short='-z',
            check=settings.check_name),
    Setting('record_name', help='the record to keep updated, e.g. home.example.com (an internationalized '
            'name is sent in its xn-- form; a wildcard as *.example.com)', short='-h', check=settings.check_name),
    Setting('record_type', 'A', help='A (IPv4), AAAA (IPv6), or "A AAAA": a record of each',
            short='-t', check=settings.check_record_type, choices=settings.RECORD_TYPES),
    Setting('ip_source', 'url', help='"url" asks ip_lookup_url; "iface:<name>" reads the interface; a LAN '
            'host (AAAA): "prefix:<iface>/<interface id>", "eui64:<iface>/<MAC>", "neigh:<iface>/<MAC>"',
            check=settings.check_ip_source),
    Setting('doh_url', help='DNS-over-HTTPS resolvers (JSON API), tried in order until one answers: one given '
            'without a path is asked at /resolve, one with a path at that path. Default: https://dns.google '
            'https://doh.pub/dns-query (the second answers from mainland China too)', check=settings.check_url,
            repeat=True, metavar='URL'),
    Setting('ip_lookup_url', help='public IP lookup services, tried in order until one answers with an '
            'address. Default for A: '
            'https://ipv4.icanhazip.com https://1.1.1.1/cdn-cgi/trace; for AAAA: https://ipv6.icanhazip.com '
            'https://[2606:4700:4700::1111]/cdn-cgi/trace (reached without DNS)', check=settings.check_url,
            repeat=True, metavar='URL'),
    Setting('lines', help='the operator lines of a home with several upstream lines, each line\'s address '
            'published under the name (on its resolution line where the provider has them): ct, cm, cu '
            '(the IPv6 address of ip_source in 240e::/16, 2409::/16, 2408::/16), or CODE=SOURCE (e.g. '
            'ct=iface:pppoe-ct)', check=settings.check_line, repeat=True, metavar='LINE', commas=True,
            label='Operator lines'),
    Setting('default_line', help='the line whose address the provider\'s default line gets, for visitors of '
            'other operators and abroad (default: the first of lines)', check=settings.check_line_code,
            choices=tuple(OPERATORS)),
    Setting('line_gone', 'remove', help='a line with no address: remove its record (created again when the '
            'address comes back), or keep it', check=settings.check_line_gone, choices=settings.LINE_GONE,
            label='A line without an address'),
    Setting('state_dir', help='directory of the state files (default: your home directory; the ddkit command\'s '
            'on a PC: ~/.local/state/ddkit, or $XDG_STATE_HOME/ddkit)',
            check=settings.check_path, label='State directory'),
    Setting('log_file', help='log file (default: <state_dir>/<tool>_<record_name>.log)',
            check=settings.check_path),
    Setting('ca_file', help='CA bundle, or directory of hashed CA certificates, for https (default: the '
            'system\'s hashed directory when it has one, else its bundle)', check=settings.check_ca),
    Setting('timeout', '10', help='seconds per request', check=settings.check_timeout),
    Setting('proxy', help='the proxy of the provider, the notifications and the health-check ping: '
            'http://[user:password@]host:port (host:port alone is http://), socks5://... (names resolved here), '
            'socks5h://... (by the proxy), or '
            'off; unset: https_proxy, all_proxy, no_proxy of the environment, as curl reads them',
            secret=settings.proxy_secrets, check=settings.check_proxy),
    Setting('proxy_lookup', '0', help='1: the IP lookups and DoH go through the proxy too (0: direct)',
            check=settings.check_yes_no, choices=settings.YES_NO, label='Lookups through the proxy'),
    Setting('verify_interval', '86400', help='seconds between reads of the record at the provider while '
            'the IP is unchanged (0: every run; off: never)',
            check=settings.check_verify_interval),
    Setting('on_change', help='command run (no shell) after the record changed or an update failed; '
            'details in its DDNS_HOOK_* environment', check=settings.check_command, label='Command on change'),
    Setting('healthcheck_url', help='pinged after each run: GET <url>, or <url>/fail after a failure '
            '(no ping when no valid IP was found)', secret=True, check=settings.check_url,
            label='Health-check URL'),
    Setting('notify', help='notification URLs, each as its service gives it (Telegram, WeCom, DingTalk, Feishu/Lark, '
            'Bark, ServerChan, PushDeer, PushPlus, ntfy, Discord, Slack), or KIND+<URL> for a self-hosted server or '
            'another host (gotify+https://..., ntfy+http://...); only their kind and host are ever shown',
            secret=notify_secrets, check=settings.check_notify, repeat=True, metavar='URL', label='Notifications'),
    Setting('notify_on', ['change', 'failure', 'recovery'], help='what notify tells: change (a record updated or created, a '
            'line\'s record removed), failure (the first of a streak), recovery (the first good run after failures)',
            check=settings.check_notify_on, repeat=True, choices=settings.NOTIFY_ON, metavar='EVENT',
            label='Notify of'),
]  # healthcheck_url and notify are secret: whoever has them can ping the check, or post to the chat
SWITCHES = [
    Switch('force', help='update even when the IP has not changed', short='-f'),
    Switch('dry_run', help='say what would change, change nothing'),
    Switch('quiet', help='log file only; nothing on stdout unless an error'),
    Switch('check', help='diagnose the set-up, read-only: one ok/FAIL line per step with the fix; '
           'exit 0 when an update would succeed'),
    Switch('status', help='print the last outcome each record\'s runs kept ("never": no run yet); nothing is '
           'sent; exit 1 when one failed'),
    Switch('notify_test', help='with --check: send a test message to each notify URL'),
    Switch('json', help='with --status: a JSON array (keys: docs/status.md)'),
    Switch('all', help='run every enabled record of the UCI file (or each [record] of --config); exit '
           'status the worst'),
    # a value that is the process's, no record's: a Setting in this table is no DDNS_ variable, no file line
    Setting('every', help='with --all: run again every SECONDS (at least 60)', metavar='SECONDS'),
]
EVERY = 60, 7 * 86400   # seconds: no faster than the OpenWrt service, and a run a week at least


def main(provider=None, argv=None, tool=None, choice=None, looping=False):
    """Run the records the command line names through the provider; the exit status. tool: the
    command's name (a seed tool is one provider fixed), for messages, --help and its UCI file.
    choice instead of a provider (the ddkit command, ddkit.choice): each record names its own.
    looping: a run of --every (every())."""
    from ddkit.provider import Run
    argv = sys.argv[1:] if argv is None else argv
    if choice is not None:   # the providers the run names, else every one (their settings' names)
        tool = tool or 'ddkit'
        names = choice.named(argv, os.environ, tool)
        table = choice.every_table(COMMON, names)
    else:
        tool, table, names = tool or provider.STEM, provider.SETTINGS + COMMON, None
    switches = SWITCHES + (choice.SWITCHES if choice is not None else [])
    try:
        try:
            args, several, planned, shared = plan(argv, tool, table, switches)
        except UsageError:
            if names is None:
                raise
            # a name of a provider the run did not name: every provider's settings say what it is
            table = choice.every_table(COMMON)
            args, several, planned, shared = plan(argv, tool, table, switches)
    except UsageError as e:
        print('%s: %s' % (tool, e), file=sys.stderr)
        return e.exit_status
    if args is None or 'version' in args.on:
        return about(tool, provider, table, switches, args, choice, names)
    if 'every' in args.values and not looping:
        return every(provider, argv, tool, choice, args)
    if 'providers' in args.on:
        return choice.show_providers(COMMON, 'json' in args.on)
    if 'sample' in args.on:
        return choice.show_sample(names, tool, argv)
    if 'notify_test' in args.on and 'check' not in args.on:
        print('%s: --notify-test goes with --check; see --help' % tool, file=sys.stderr)
        return 2
    if 'json' in args.on and 'status' not in args.on:
        print('%s: --json goes with --status%s; see --help' % (tool, ' or --providers' if choice else ''),
              file=sys.stderr)
        return 2
    run, outcomes, reading = Run(several), [], []
    environ = dict(os.environ)   # read once: each record's settings look every name up in it
    for variable, near in settings.misspelt(environ, table, choice.owners if choice else None):
        print('%s: warning: %s is not a setting of %s, so it is ignored%s' % (tool, variable, tool, near),
              file=sys.stderr)
    bases = {}   # provider -> the Config of what the records share, or None (see shared_base)
    for label, values in planned:
        try:
            own = values()
            if choice is not None and args.config and 'file_values' not in own:   # read once, every
                own['file_values'] = settings.read_config(args.config, {s.name: s for s in table})  # provider's names known
            chosen = provider or choice.chosen(args, own, environ, several, COMMON)
            chosen_table = table if provider else choice.table_of(chosen, COMMON)
            base = shared_base(bases, chosen, args, chosen_table, environ, shared)
            cfg = settings.load(args, chosen_table, SWITCHES, environ=environ, base=base, **own)
            usable(chosen, cfg, label, reading='status' in args.on, choice=choice)
        except UsageError as e:
            print('%s: %s%s' % (tool, 'record %s: ' % label if label else '', e), file=sys.stderr)
            outcomes.append((label, e.exit_status, None))
            continue
        # a section's part of a log is headed by the name --all gives it however the run named it
        # (--uci SECTION, the page's Update now; a cfgXXXXXX id): --status finds its last run by that
        named = cfg.uci.get('run_name') or label
        families = cfg.record_type.split()
        run.several = run.several or len(families) > 1 or bool(cfg.lines)
        plans = [(family, line) for family in families for line in lines_of(chosen, cfg)]
        if 'status' in args.on:   # what the runs kept: read, nothing sent, nothing written
            reading += [(make_job(chosen, cfg, family, run, tool, line), record_label(named, family, cfg, line))
                        for family, line in plans]
            continue
        for family, line in plans:
            job = make_job(chosen, cfg, family, run, tool, line)
            name = record_label(named, family, cfg, line)
            try:
                # a log_file the user set may be shared: --status tells its records' runs by headings
                if run.several or named and job.cfg.sources.get('log_file', 'default') != 'default':
                    heading(job, heading_text(name))
                # a line's job is counted as a line of its record (label, family, name)
                outcomes.append((name, one_record(job), (label, family, cfg.record_name) if line else None))
            finally:
                job.log.close()
    if 'status' in args.on:
        from ddkit import status
        return status.show(status.read_all(reading, heading_text), [o[:2] for o in outcomes], 'json' in args.on)
    status = outcomes[0][1] if not run.several else finish(tool, args, outcomes, run)
    if 'ddkit.wire' in sys.modules:   # only a run that made a request loaded it
        sys.modules['ddkit.wire'].close_all()
    return status


def plan(argv, tool, table, switches):
    """(args, whether it runs several records, [(label, values)] of the records to run, the values
    they share or None) of a command line; args None: --help."""
    args = settings.parse_args(argv, table, switches, files=True)
    if args is not None and settings.shows_every_record(args):
        args.on.add('all')   # --status of a file of several records: each one's
    several = args is not None and 'providers' not in args.on and ('all' in args.on or len(args.uci) > 1)
    if several:
        from ddkit import records
        return (args, several) + tuple(records.plan(args, tool, table))
    if args is not None and not args.on & {'version', 'providers'}:
        return args, several, [(None, lambda: settings.named_section(args, tool, table))], None
    return args, several, [], None


class Stopped(BaseException):
    """SIGTERM or SIGINT (its number: args[0]) while --every runs. A BaseException, so no `except
    Exception` of a run takes it, while each `finally` and `except BaseException` on its way out does
    its part: a temporary file removed, a lock released."""


def every(provider, argv, tool, choice, args):
    """--every SECONDS: the command line run, then again SECONDS after each run ended, in this process,
    as the OpenWrt service's loop runs it. SIGTERM or SIGINT between runs: exit 0; during a run: the run
    ends where it stands, as a kill of it would (each state file is written whole or not at all, and the
    ip file claims only what the provider took), exit 128 + the signal's number, as a shell reports a
    killed run. A failed run, even one that raised, does not end the loop; each run reads the settings
    anew, so an edited config file holds from the next run."""
    seconds = decimal(args.values['every'][:8])
    if not EVERY[0] <= (seconds or 0) <= EVERY[1] or 'all' not in args.on or args.on & {'check', 'status'}:
        print('%s: --every takes whole seconds from 60 to 604800, and goes with --all, not with --check or '
              '--status; see --help' % tool, file=sys.stderr)
        return 2
    import signal
    ours = [getattr(signal, name) for name in ('SIGTERM', 'SIGINT', 'SIGBREAK') if hasattr(signal, name)]
    before = {s: signal.signal(s, stop) for s in ours}
    try:
        while True:
            try:
                main(provider, argv, tool, choice, looping=True)
            except Stopped as e:
                print('%s: stopped by signal %d during a run' % (tool, e.args[0]), file=sys.stderr)
                return 128 + e.args[0]
            except Exception:   # a bug: said, and the next run tries again, as the service's next run would
                import traceback
                traceback.print_exc()
            fresh()
            wait(seconds)
    except Stopped:   # between runs
        return 0
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def stop(signum, frame):
    raise Stopped(signum)


def wait(seconds):
    """The pause between two runs of --every."""
    import time
    time.sleep(seconds)


# What a run keeps in module globals for its records ("once a run": an interface's prefixes, a CA
# bundle's text, checked values), cleared between runs of --every, as a process of its own would start:
# the next run reads them again (a new prefix, an updated CA bundle) and nothing piles up run after run.
# A module not loaded kept nothing. tests/test_every.py checks that every module-level cache is here or
# said to hold only what the code itself or the host's kind decides.
PER_RUN = (('ddkit.lan', 'DUMPS'), ('ddkit.lan', 'PREFIXES'), ('ddkit.ipcheck', '_IIDS'),
           ('ddkit.settings', 'CHECKED'), ('ddkit.http', '_ANCHORS'), ('ddkit.wire', 'CONTEXTS'),
           ('ddkit.wire', 'LOCATIONS'))


def fresh():
    """Forget what the last run of --every kept (PER_RUN, the directory it kept its state in, its
    proxy, the connections it left open)."""
    for module, name in PER_RUN:
        if module in sys.modules:
            getattr(sys.modules[module], name).clear()
    ddkit.KEEP_DIR[0] = ddkit.PROXY[0] = None
    if 'ddkit.wire' in sys.modules:
        sys.modules['ddkit.wire'].close_all()


def shared_base(bases, provider, args, table, environ, shared):
    """What the records of a run share (ddkit.records' shared values), resolved once a run for each
    provider; None for a run of one record, or when a shared value is bad (then each record keeping
    it says so when it loads)."""
    if shared is None:
        return None
    if provider not in bases:
        try:
            bases[provider] = settings.load(args, table, SWITCHES, environ=environ, **shared())
        except UsageError:
            bases[provider] = None
    return bases[provider]


def about(tool, provider, table, switches, args, choice=None, names=None):
    """--help or --version: printed, exit 0. choice (the ddkit command's, instead of a provider): the
    help of the providers named, or without one an overview (the usual settings, the providers a
    line each)."""
    from ddkit import VERSION
    from ddkit.log import say
    if args is not None:
        say('%s %s' % (tool, VERSION))
        return 0
    from ddkit import helptext
    usages = ()
    if choice is None:
        summary = provider.SUMMARY
        sections = [('settings of provider %s:' % provider.NAME, provider.SETTINGS),
                    ('settings of every record:', COMMON)]
    elif names:
        summary, sections = choice.provider_help(names, table, COMMON)
    else:
        summary, sections = choice.overview(COMMON)
        usages = ['--provider NAME --help']
    say(helptext.usage(settings.prog(tool), summary, [], switches, uci_name=tool, sections=sections,
                       usages=usages))
    return 0


def usable(provider, cfg, label, reading=False, choice=None):
    """A UsageError when the record cannot be run: settings missing (all named at once), the record
    outside its zone (--check reports these two as FAIL lines instead), a LAN source on an A record,
    lines the provider cannot publish, a record type it cannot hold.
    reading (--status): only the record's name is needed, to find its files."""
    if reading:
        if not cfg.record_name:
            raise UsageError('missing setting record_name: --status shows the record it names (or every '
                             'record with --all)')
        return
    settings.check_source_type(cfg.ip_source, cfg.record_type)
    if cfg.lines or cfg.default_line:   # --check refuses them too: no line could be checked
        from ddkit import lines
        for family in cfg.record_type.split():
            problem = lines.refused(provider, cfg, family, choice and choice.with_lines)
            if problem:
                raise problem
    held = getattr(provider, 'FAMILIES', ('A', 'AAAA'))   # the record types the provider can hold
    if [family for family in cfg.record_type.split() if family not in held]:
        raise UsageError('record_type %s: provider %s holds %s records only; nothing was sent; fix: set '
                         'record_type %s' % (cfg.record_type, provider.NAME, ' and '.join(held), ' '.join(held)))
    if cfg.check:   # --check says it on a FAIL line of its own
        return
    for setting, module in (('notify', 'notices'), ('proxy', 'proxy')):   # refused before anything is sent
        if getattr(cfg, setting) not in (None, '', [], 'off'):
            problem = ddkit.needs_package(setting, module)
            if problem:
                raise problem
    from ddkit.provider import missing
    lacking = missing(provider, cfg)
    if lacking:
        names = [name for name, _ in lacking]
        example = lacking[0][0].split()[0]
        raise UsageError('missing setting%s %s: give %s as --%s, DDNS_%s or %s= in a --config file%s; '
                         '--check shows the whole set-up' % (
                             's' if len(names) > 1 else '', ', '.join(names), 'each' if len(names) > 1 else 'it',
                             example.replace('_', '-'), example.upper(), example,
                             " (UCI: option %s '...')" % example if cfg.uci else ''))
    problem = settings.outside_zone(cfg.record_name, cfg.zone_name)
    if problem:
        raise UsageError('%s: nothing was sent; fix: %s' % problem)


def lines_of(provider, cfg):
    """The record's ddkit.lines.Line of each job it runs ([None]: one job, a record without lines)."""
    if not cfg.lines:
        return [None]
    from ddkit import lines
    return lines.of_record(provider, cfg)


def make_job(provider, cfg, family, run, tool, line=None):
    """The Job of one record (of one of its lines): the settings of its family, with the defaults
    derived from them."""
    from ddkit.lookup import LOOKUP
    from ddkit.log import Log
    from ddkit.provider import Job
    own = cfg.copy()
    own.record_type = family
    own.dry_run = cfg.dry_run or cfg.check  # belt and braces: --check writes no file, as a dry run
    own.ip_lookup_url = cfg.ip_lookup_url or list(LOOKUP[family])
    own.state_dir = cfg.state_dir or settings.default_state_dir(tool, openwrt=openwrt())
    key = '%s_AAAA' % cfg.record_name if family == 'AAAA' else cfg.record_name
    # the seed tools' log names, whichever command runs the record
    own.log_file = cfg.log_file or os.path.join(own.state_dir, '%s_%s.log' % (provider.STEM, key))
    log = Log(None if own.dry_run else own.log_file, quiet=cfg.quiet, secrets=cfg.secrets,
              tag=tool if openwrt() else None)
    return Job(provider, own, run, log, tool, line)


_OPENWRT = []


def openwrt():
    """True on OpenWrt, whose logd gets our lines too (asked once a run: records share the answer)."""
    if not _OPENWRT:
        _OPENWRT.append(os.path.exists('/etc/openwrt_release'))
    return _OPENWRT[0]


def one_record(job):
    """--check or the update of one record: its exit status."""
    ddkit.PROXY[0] = proxy_route(job.cfg.proxy)   # the record's requests go through its proxy (ddkit.http)
    if job.cfg.check:
        from ddkit import check
        return check.run(job)
    from ddkit import reconcile
    return reconcile.exit_status(job, reconcile.run(job))


PROXY_VARIABLES = ('https_proxy', 'http_proxy', 'all_proxy')   # in any letter case: may name a proxy


def proxy_route(setting):
    """How the requests of a record with this proxy setting reach their hosts (ddkit.PROXY): a function
    (scheme, host) giving the ddkit.proxy.Proxy to go through, or None. The proxy code is loaded by the
    first request that may go through one: never with proxy off, nor unset with no variable naming one."""
    def route(scheme, host):
        if setting == 'off' or not setting and not any(name.lower() in PROXY_VARIABLES for name in os.environ):
            return None
        if ddkit.not_installed('proxy'):   # the package ddkit-proxy: a proxy named by the environment fails
            problem = proxy_uninstalled(setting, scheme, os.environ)
            if problem:
                raise problem
            return None
        from ddkit import proxy
        return proxy.route(setting, scheme, host)[0]
    return route


def record_label(label, family, cfg, line):
    """A record's name in a run of several: its label (UCI section, [record]), family, name and line."""
    return '%s%s %s%s' % ('%s: ' % label if label else '', family, cfg.record_name,
                          ' line %s' % line.code if line else '')


def heading_text(name):
    """The log line that starts a record's part of a run of several (--status finds it again)."""
    return 'Record %s:' % name


def heading(job, text):
    """The line that starts a record's part of a run of several: a log line, or a plain one in --check."""
    if job.cfg.check:
        from ddkit.log import say
        say(text)
    else:
        job.log.heading(text)


def finish(tool, args, outcomes, run):
    """The worst exit status; one line naming the records that failed (always shown); then one ping
    of each healthcheck_url the records name (ok when every record naming it was), and one message to
    each notify URL for the notices of the records naming it."""
    from ddkit.log import Log, say
    log = Log(None, quiet='quiet' in args.on, tag=tool if openwrt() else None)
    failed = ['%s (exit %d)' % (name, status) for name, status, _ in outcomes if status]
    lined = sum(1 for _, _, of in outcomes if of is not None)
    if not failed:
        text = 'All %s done.' % counted(outcomes)
    elif 0 < lined < len(outcomes):   # records and lines: the count of all first, then what they were
        text = '%d of %d failed (%s): %s' % (len(failed), len(outcomes), counted(outcomes), ', '.join(failed))
    else:
        text = '%d of %s failed: %s' % (len(failed), counted(outcomes), ', '.join(failed))
    if 'check' in args.on:
        say(text)
    elif failed:
        log.error(text)
    else:
        log.info(text)
    if run.pings:
        from ddkit import notify
        for url, (ok, ca_file, proxy) in run.pings.items():
            if ok is not None:
                ddkit.PROXY[0] = proxy_route(proxy)   # the proxy of the records naming it
                notify.ping(log, url, ok, ca_file)
    if run.notices:
        from ddkit import notices
        notices.send_notices(log, run)
    return max([status for _, status, _ in outcomes] or [0])


def counted(outcomes):
    """What a run of several ran, in words: '3 records', '4 lines of 1 record', or '1 record and 3
    lines of 1 other record' (a record with lines runs a job for each: they are its lines)."""
    lines = [of for _, _, of in outcomes if of is not None]
    plain = len(outcomes) - len(lines)
    lined = len(set(lines))
    words = ['%d record%s' % (plain, '' if plain == 1 else 's')] if plain or not lines else []
    if lines:
        words.append('%d line%s of %d %srecord%s' % (len(lines), '' if len(lines) == 1 else 's', lined,
                                                     'other ' if plain else '', '' if lined == 1 else 's'))
    return ' and '.join(words)
