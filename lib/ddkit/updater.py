"""The steps both updaters share (service.md 3): settings, log, lock, current and previous IP,
comparison, recording the new IP. Each updater's own script holds its provider steps."""

import os
import sys

from ddkit import Failure, UsageError, settings, state
from ddkit.settings import Setting, Switch

COMMON = [
    Setting('zone_name', help='root domain of the zone, e.g. example.com', short='-z',
            check=settings.check_name),
    Setting('record_name', help='the record to keep updated, e.g. home.example.com', short='-h',
            check=settings.check_name),
    Setting('record_type', 'A', help='A (IPv4) or AAAA (IPv6)', short='-t', check=settings.check_record_type),
    Setting('doh_url', 'https://dns.google', help='DNS-over-HTTPS resolver (/resolve is appended)',
            check=settings.check_url),
    Setting('ip_lookup_url', help='public IP lookup (default https://ipv4.icanhazip.com for A, '
            'https://ipv6.icanhazip.com for AAAA)', check=settings.check_url),
    Setting('ip_source', 'url', help='"url" asks ip_lookup_url; "iface:<name>" reads the interface; a LAN '
            'host (AAAA): "prefix:<iface>/<interface id>", "eui64:<iface>/<MAC>", "neigh:<iface>/<MAC>"',
            check=settings.check_ip_source),
    Setting('state_dir', help='directory of the state files (default: your home directory)',
            check=settings.check_path),
    Setting('log_file', help='log file (default: <state_dir>/<tool>_<record_name>.log)',
            check=settings.check_path),
    Setting('ca_file', help='CA bundle for https (default: the system store)', check=settings.check_file),
    Setting('timeout', '10', help='seconds per request', check=settings.check_timeout),
    Setting('on_change', help='command run (no shell) after the record changed or an update failed; '
            'details in its DDNS_HOOK_* environment', check=settings.check_command),
    Setting('healthcheck_url', help='pinged after each run: GET <url>, or <url>/fail after a failure',
            secret=True, check=settings.check_url),  # secret: whoever has it can ping the check
]
SWITCHES = [
    Switch('force', help='update even when the IP has not changed', short='-f'),
    Switch('dry_run', help='say what would change, change nothing'),
    Switch('quiet', help='log file only; nothing on stdout unless an error'),
    Switch('check', help='diagnose the set-up, read-only: one ok/FAIL line per step with the fix; '
           'exit 0 when an update would succeed'),
    Switch('all', help='every enabled record of /etc/config/<tool> (or every [record] of the --config '
           'file) in one run; exit status the worst of them'),
]
LOOKUP = {'A': 'https://ipv4.icanhazip.com', 'AAAA': 'https://ipv6.icanhazip.com'}


def start(argv, tool, summary, provider_settings, required, files, each=None):
    """Load settings and open the log; returns (cfg, log) or an exit status (help, bad input).

    Several records (--all, --uci given twice, record_type "A AAAA"): ddkit.records runs each(cfg, log)
    for every one and start returns the worst exit status."""
    from ddkit.log import say
    table = provider_settings + COMMON
    argv = sys.argv[1:] if argv is None else argv
    required = required + ('zone_name', 'record_name')
    several = '--all' in argv or len([a for a in argv if a.startswith('--uci')]) > 1
    if each and several and '--help' not in argv:
        from ddkit import records
        return records.run_all(argv, tool, table, required, files, each)
    try:
        # --check reports every missing setting itself, as FAIL lines (ddkit.check)
        cfg = settings.load(argv, table, SWITCHES, required=() if '--check' in argv else required,
                            uci_name=tool)
        if cfg is not None:
            settings.check_source_type(cfg.ip_source, cfg.record_type)
    except UsageError as e:
        print('%s: %s' % (tool, e), file=sys.stderr)
        return e.exit_status
    if cfg is None:
        from ddkit import helptext
        say(helptext.usage(settings.prog(tool), summary, table, SWITCHES, uci_name=tool))
        return 0
    if ' ' in cfg.record_type and each:
        from ddkit import records
        return records.run_families(cfg, tool, files, required, each)
    if ' ' in cfg.record_type:
        print('%s: record_type %s: give one of A and AAAA here' % (tool, cfg.record_type), file=sys.stderr)
        return 2
    return prepare(cfg, tool, files, required)


def prepare(cfg, tool, files, required):
    """One record's derived settings (lookup URL, state and log files) and its log: (cfg, log)."""
    from ddkit.log import Log
    cfg.tool = tool
    cfg.required = required
    cfg.dry_run = cfg.dry_run or cfg.check  # belt and braces: --check writes no file, as a dry run
    cfg.ip_lookup_url = cfg.ip_lookup_url or LOOKUP[cfg.record_type]
    cfg.state_dir = cfg.state_dir or os.path.expanduser('~')
    # A keeps the original script's names; an AAAA record of the same name gets files of its own
    key = '%s_AAAA' % cfg.record_name if cfg.record_type == 'AAAA' else cfg.record_name
    for name, pattern in files.items():
        setattr(cfg, name, os.path.join(cfg.state_dir, pattern % key))
    cfg.lock_file = os.path.join(cfg.state_dir, '.%s_%s.lock' % (tool, key))
    cfg.log_file = cfg.log_file or os.path.join(cfg.state_dir, '%s_%s.log' % (tool, key))
    log = Log(None if cfg.dry_run else cfg.log_file, quiet=cfg.quiet, secrets=cfg.secrets,
              tag=tool if os.path.exists('/etc/openwrt_release') else None)
    cfg.run = getattr(cfg, 'run', None)   # a --all run's caches (shared), shared by its records
    return cfg, log


def shared(cfg, key, make):
    """make(), once per key in a run of several records (zone, IP, listing); a Failure is kept too."""
    if cfg.run is None or key is None:
        return make()
    if key not in cfg.run:
        try:
            cfg.run[key] = (True, make())
        except Failure as e:
            cfg.run[key] = (False, e)
    done, value = cfg.run[key]
    if not done:
        raise value
    return value


def remember(cfg, key, value):
    """Keep value for the other records of this run (a token); None forgets it."""
    if cfg.run is not None:
        cfg.run[key] = (True, value)


def recall(cfg, key):
    """What a record of this run remembered under key, else None."""
    done, value = (cfg.run or {}).get(key, (False, None))
    return value if done else None


def run(cfg, log, update):
    """Run update(cfg, log) under the record's lock; map the outcome to an exit status; then, the
    lock released, tell on_change and healthcheck_url when set (not in a dry run)."""
    from ddkit.lock import Lock
    problem = untrusted_dirs(cfg)
    if problem:  # before the lock and the log: nothing is written into a directory others can change
        print('%s: %s; nothing was changed; fix: %s' % ((cfg.tool,) + problem), file=sys.stderr)
        return 1
    try:
        if cfg.dry_run:
            return update(cfg, log)  # a dry run writes no file, not even a lock file
        with Lock(cfg.lock_file):
            status = update(cfg, log)
    except Failure as e:
        log.error('ERROR: %s' % e)
        status, cfg.outcome, cfg.message = e.exit_status, 'failed', str(e)
    except KeyboardInterrupt:
        log.error('ERROR: interrupted')
        return 1
    if not cfg.dry_run and (cfg.on_change or cfg.healthcheck_url):
        from ddkit import notify
        notify.tell(cfg, log, status)
    return status


def changed(cfg, outcome):
    """The provider took a write ('created' or 'updated'): what on_change hears after the run."""
    if getattr(cfg, 'outcome', None) != 'created':
        cfg.outcome = outcome


def untrusted_dirs(cfg):
    """(problem, fix) when another user could change the state or the log file's directory, so plant
    links or files where a root run writes; else None. --check gives the same verdict."""
    for directory in (cfg.state_dir, os.path.dirname(os.path.abspath(cfg.log_file))):
        # once per directory in a run of several records (they share their state_dir): only root or
        # this user, who own every trusted directory, could change the verdict meanwhile
        found = shared(cfg, ('untrusted', directory), lambda: state.untrusted(directory))
        if found:
            return 'directory %s cannot be trusted: %s' % (directory, found[0]), found[1]
    return None


def get_current_ip(cfg, log):
    """Step 1: the current public IP, or None (logged) when there is no valid one."""
    from ddkit import lookup
    url = cfg.ip_lookup_url if cfg.ip_source == 'url' else None
    ip, source, why = shared(cfg, ('current ip', cfg.ip_source, cfg.record_type, url),
                             lambda: lookup.current_ip(cfg))
    if ip is None:
        from ddkit.check import ip_fix
        log.info('No valid IP from %s: %s. Nothing changed; %s.' % (source, why, ip_fix(cfg, why)))
    return ip


def get_previous_ip(cfg, log, fallback=None):
    """Step 2: the ip file, else the DoH resolver, else fallback(cfg, log); found -> ip file."""
    lines = state.read_lines(cfg.ip_file)
    if lines:
        from ddkit import ipcheck
        ip, _ = ipcheck.valid_ip(lines[0], cfg.record_type)
        if ip:
            return ip
        log.info('Ignoring unreadable ip file %s.' % cfg.ip_file)
    from ddkit import lookup
    ip, why = lookup.resolve(cfg, cfg.record_name)
    if ip is None and fallback:
        log.info('No previous IP from DoH (%s); trying a ping of %s.' % (why, cfg.record_name))
        ip = fallback(cfg, log)
    elif ip is None:
        log.info('No previous IP from DoH: %s.' % why)
    if ip:
        save(cfg, cfg.ip_file, [ip])
    return ip


def unchanged(cfg, log, current, previous):
    """Step 3: True (logged) when there is nothing to do; else log why an update follows."""
    from ddkit import ipcheck
    cfg.old_ip, cfg.new_ip = previous, current  # for on_change (ddkit.notify)
    same = ipcheck.same_ip(current, previous)
    if same and not cfg.force:
        log.info('IP has not changed: %s' % current)
        return True
    if same:
        log.info('IP %s has not changed; updating %s %s anyway (--force).' % (
            current, cfg.record_type, cfg.record_name))
    else:
        log.info('IP changed from %s to %s; updating %s %s.' % (
            previous or 'unknown', current, cfg.record_type, cfg.record_name))
    return False


def read_ids(cfg):
    """The ids file: exactly two lines (zone id, record id), else None."""
    lines = state.read_lines(cfg.ids_file)
    if len(lines) == 2 and all(safe_id(x) for x in lines):
        return lines
    return None


def listing(data, key, step):
    """The objects listed under key in a provider's answer ([] when absent); not a list: a Failure."""
    items = data.get(key)
    if items is None:
        return []
    if not isinstance(items, list):
        raise Failure('%s: unexpected answer: "%s" is not a list' % (step, key))
    return [item for item in items if isinstance(item, dict)]


ID_CHARS = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.')


def safe_id(value):
    """An id from a provider's answer or the ids file, only when it is safe in a URL path; else None."""
    value = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ''
    # a hostile or broken answer must not steer a request ("../", "?", "#") or the ids file
    return value if value and set(value) <= ID_CHARS and not value.startswith('.') else None


def save(cfg, path, lines, private=False):
    """Write a state file (not in a dry run); a full or read-only disk is a Failure, state kept."""
    if cfg.dry_run:
        return False
    try:
        return state.write_if_changed(path, lines, private=private)
    except OSError as e:
        raise Failure('cannot write state file %s: %s' % (path, e.strerror or e))


def record_ip(cfg, log, ids, ip, sent=True):
    """Step 5: remember the ids and the new IP, and say so (a dry run only says it changed nothing)."""
    save(cfg, cfg.ids_file, ids)
    if cfg.dry_run:
        log.info('Dry run: nothing was changed.')
        return
    save(cfg, cfg.ip_file, [ip])
    if sent:  # not sent: the record already held ip, which the script has said in one line
        log.info('IP has been updated to: %s' % ip)
