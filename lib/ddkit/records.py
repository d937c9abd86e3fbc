"""Several records in one run: `--all` (every enabled UCI section, or every [record] of the --config
file), `--uci` given more than once, and record_type "A AAAA" (one record per family).

Each record has its own settings, lock, state and log file, and is updated on its own: a failing one
does not stop the others, and the exit status is the worst of them. The records of one run share its
caches (updater.shared): one zone lookup per zone, one current IP per (source, family), one token."""

import os
import sys

from ddkit import UsageError, settings, uci, updater


def run_all(argv, tool, table, required, files, each):
    """Run each(cfg, log) for every record the arguments name; the worst exit status."""
    known = {s.name: s for s in table}
    try:
        args, planned = plan(argv, tool, known)
    except UsageError as e:
        print('%s: %s' % (tool, e), file=sys.stderr)
        return e.exit_status
    run, outcomes = {}, []
    for label, load in planned:
        try:
            cfg = settings.load(args, table, updater.SWITCHES, required=() if '--check' in args else required,
                                uci_name=tool, **load())
            settings.check_source_type(cfg.ip_source, cfg.record_type)
        except UsageError as e:
            print('%s: record %s: %s' % (tool, label, e), file=sys.stderr)
            outcomes.append((label, e.exit_status))
            continue
        cfg.run = run
        outcomes += families(cfg, tool, files, required, each, label)
    return finish(tool, '--quiet' in args, outcomes, run)


def run_families(cfg, tool, files, required, each):
    """record_type "A AAAA" in a run of one record: the A record, then the AAAA record."""
    cfg.run = {}
    return finish(tool, cfg.quiet, families(cfg, tool, files, required, each, None), cfg.run)


def plan(argv, tool, known):
    """(the arguments every record shares, [(label, load)]): load() gives settings.load the record's
    own values, read when its turn comes, so one bad section fails only its own record."""
    args, refs = [], []
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == '--uci' or arg.startswith('--uci='):
            ref = arg[6:] if '=' in arg else (rest.pop(0) if rest else '')
            if not ref:
                raise UsageError('option --uci needs a section name; see --help')
            refs.append(ref)
        else:
            args.append(arg)
    values, on, config = settings.parse_args(args, known.values(), updater.SWITCHES)
    if 'all' in on and refs:
        raise UsageError('give --all (every enabled record) or --uci SECTION, not both')
    if 'all' in on and config:
        blocks = []
        shared = settings.read_config(config, known, records=blocks)
        if not blocks:
            raise UsageError('config file %s lists no [record]: add one [name] line before the settings '
                             'of each record, or run without --all' % config)
        return args, [(label, lambda own=own: {'file_values': dict(shared, **own), 'uci_values': {}})
                      for label, own in blocks]
    path = os.environ.get('DDNS_UCI_FILE') or '/etc/config/' + tool
    if 'all' in on:
        found = uci.enabled(path, tool)
        if not found:
            raise UsageError('no enabled %s section in %s: set option enabled \'1\' in the sections to run'
                             % (tool, path))
        return args, [(ref, lambda ref=ref, options=options: {
            'uci_values': settings.uci_settings(path, ref, options, known)}) for ref, options in found]
    return args, [(ref, lambda ref=ref: {
        'uci_values': settings.uci_settings(path, ref, uci.record(path, ref), known)}) for ref in refs]


def families(cfg, tool, files, required, each, label):
    """[(record, exit status)] of one settings' records: one per family of its record_type."""
    outcomes = []
    for family in cfg.record_type.split():
        one = settings.Config()
        one.__dict__.update(cfg.__dict__)
        one.record_type = family
        one, log = updater.prepare(one, tool, files, required)
        name = '%s%s %s' % ('%s: ' % label if label else '', family, one.record_name)
        log.info('Record %s:' % name)
        outcomes.append((name, each(one, log)))
    return outcomes


def finish(tool, quiet, outcomes, run):
    """The worst exit status; one line naming the records that failed (always shown); then one ping
    of each healthcheck_url the records name (ok when every record naming it was)."""
    from ddkit.log import Log
    pings = run.get('pings', {})
    log = Log(None, quiet=quiet, tag=tool if os.path.exists('/etc/openwrt_release') else None)
    failed = ['%s (exit %d)' % (name, status) for name, status in outcomes if status]
    if failed:
        log.error('%d of %d records failed: %s' % (len(failed), len(outcomes), ', '.join(failed)))
    else:
        log.info('All %d records done.' % len(outcomes))
    if pings:
        from ddkit import notify
        for url, (ok, ca_file) in pings.items():
            notify.ping(log, url, ok, ca_file)
    return max([status for _, status in outcomes] or [0])
