"""The update loop both updaters share: one record reconciled through its provider module.

get the current IP; stop when the ip file claims it and its last verification is recent; else, under
the record's lock, read the ip file again; when it does not say what the provider holds (absent, or
due for verification), read the record at the provider; find the zone and the record (stored ids
first, looked up again once when stale); create or update the record; record the new IP. The ip file
claims only what the provider is known to hold: it goes before a write is sent and comes back once
the provider has taken it, so a run cut short leaves the next one to ask. on_change and the
health-check ping follow, the lock released. What a provider supplies is in docs/design.md.

Here is what decides a run (the current IP against the ip file) and what follows it; what it does at
the provider, from reading the record to recording the new IP, is ddkit.update, which a run loads
only when the ip file does not settle the record: a cron run that finds nothing changed loads none
of it.
"""

import sys

from ddkit import CREATED, FAILED, KEEP_DIR, NO_IP, NOTICES_FILE, REMOVED, UNCHANGED, UPDATED, Failure, state
from ddkit.native import os
from ddkit.provider import caused_by, told

def run(job):
    """Update the record under its lock; its outcome (one of ddkit.OUTCOMES; a failure's Failure is
    job.failure); then, the lock released, tell on_change and healthcheck_url when set (not in a dry
    run)."""
    cfg, log = job.cfg, job.log
    problem = job.untrusted_dirs()
    if problem:  # before the lock and the log: nothing is written into a directory others can change
        log.close()   # a run of several: the record's heading first, on stdout only
        print('%s: %s; nothing was changed; fix: %s' % ((job.tool,) + problem), file=sys.stderr)
        job.failure = Failure('%s; nothing was changed' % problem[0], step='trust the state directory',
                              kind='state', fix=problem[1])
        return FAILED
    if not cfg.dry_run and KEEP_DIR[0] is None:   # a directory no other user can change, as checked
        KEEP_DIR[0] = cfg.state_dir
    quiet = False   # True: the IP found unchanged without a request (the status may say so already)
    try:
        current = get_current_ip(job)   # the kernel or a lookup service: nothing written yet
        if current is None and gone(job):
            from ddkit import update
            outcome = update.remove_line(job)
        elif current is None:
            outcome = NO_IP   # exit 0, as nothing to do, but no health-check ping (ddkit.notify)
        elif not cfg.force and settled(job, current, *state.read_dated(job.ip_file)):
            outcome, quiet = UNCHANGED, True   # the common run: nothing to write, so no lock to take
            # (a run that may write reads the ip file again under the lock)
        elif cfg.dry_run:
            update_at_provider(job, current)  # a dry run writes no file, not even a lock file
            return UNCHANGED
        else:
            from ddkit.lock import Lock
            with Lock(job.lock_file):
                update_at_provider(job, current)
            outcome = job.outcome or UNCHANGED
    except Failure as e:
        log.error('ERROR: %s%s' % (e, caused_by(job, e)))
        outcome, job.failure = FAILED, e
    except KeyboardInterrupt:
        log.error('ERROR: interrupted')
        job.failure = Failure('interrupted', kind='unexpected')
        return FAILED
    job.outcome = outcome
    if not cfg.dry_run and (cfg.on_change or cfg.healthcheck_url):
        from ddkit import notify
        notify.tell(job, outcome)
    # the status this run follows (read with the state module every run has loaded)
    kept = state.read_lines(job.files['status_file']) if quiet or cfg.notify else None
    if not cfg.dry_run and cfg.notify:
        tell_notices(job, outcome, failed_since(kept))
    # the status last, after the run's last log line: a later line is a later run's (ddkit.status)
    if not (quiet and kept_good(job, kept)):   # the common run: its status says so already
        from ddkit import status
        status.record(job, outcome)
    return outcome


def kept_good(job, lines):
    """True when the record's status file's lines (ddkit.status) keep a good outcome with the current
    IP, or there is none: what a quiet run would keep already."""
    return not lines or lines[0] in GOOD_LINES and 'ip=%s' % job.new_ip in lines


GOOD_LINES = tuple('outcome=' + outcome for outcome in (UNCHANGED, UPDATED, CREATED))


def failed_since(lines):
    """When the record's failures began, as its status file's lines say (ddkit.status), or None: its
    last judged run went well."""
    for line in lines:
        if line.startswith('failed_since='):
            return line[13:] or None
    return None


def tell_notices(job, outcome, since):
    """notify: what notify_on asks to tell of this run (a change; a failure, the first of a streak; the
    first good run after failures: since, when they began, as the status said before this run), with
    the notices earlier runs could not deliver. The services (ddkit.notices) are imported only when
    there is one of either: a quiet run decides with what it has loaded."""
    events = {'change'} if outcome in (UPDATED, CREATED, REMOVED) else set()
    if outcome == FAILED and since is None:
        events.add('failure')
    elif outcome in (UNCHANGED, UPDATED, CREATED, REMOVED) and since is not None:
        events.add('recovery')
    told = bool(events & set(job.cfg.notify_on))
    if told or os.path.exists(os.path.join(KEEP_DIR[0], NOTICES_FILE)):
        from ddkit import notices
        notices.tell(job, outcome, since, told)


def exit_status(job, outcome):
    """The exit status an outcome gives: 0, or a failure's own (1; 2 for bad input)."""
    return job.failure.exit_status if outcome == FAILED else 0


def update_at_provider(job, current):
    """The ip file read again (under the record's lock: another run of the record may have written it
    meanwhile); unless it settles the record now, the record brought to the current IP at its
    provider (ddkit.update; what the provider took: job.outcome; a failure raises)."""
    lines, verified = state.read_dated(job.ip_file)
    if job.cfg.force or not settled(job, current, lines, verified):
        from ddkit import update
        update.run(job, current, lines, verified)


def settled(job, current, lines, verified):
    """True (logged) when the ip file claims current and its last verification is recent enough:
    nothing to do, no request."""
    if lines[:1] != [current] or job.verify_due(verified):
        return False
    job.old_ip = job.new_ip = current  # for on_change (ddkit.notify)
    job.log.info('IP has not changed: %s (%s)' % (current, job.last_verified(verified)))
    return True


def get_current_ip(job):
    """The current public IP (of the job's line), or None (logged) when there is no valid one."""
    from ddkit import lookup
    cfg, line = job.cfg, job.line_plan
    if line is not None:
        from ddkit import lines
        ip, source, why, taken = lines.current_ip(job)
        if ip and line.candidates and taken is not line.candidates[0]:
            job.log.info('Line %s has no address; the default line takes line %s\'s.' % (
                line.candidates[0].code, taken.code))
        elif ip is None and line.candidates:
            job.log.info('No line has an address (%s); the default line\'s %s is kept as it is.'
                         % (', '.join(c.code for c in line.candidates), job.provider.NOUN))
        elif ip is None:
            job.log.info('Line %s has no address from %s: %s.' % (line.code, source, why))
        return ip
    urls = tuple(cfg.ip_lookup_url) if cfg.ip_source == 'url' else None
    ip, source, why = job.run.shared(('current ip', cfg.ip_source, cfg.record_type, urls, None),
                                     lambda: lookup.current_ip(cfg))
    if ip and urls and source != urls[0]:
        job.log.info('Current IP %s from %s: the lookup services before it gave none.' % (ip, source))
    if ip is None:
        job.log.info('No valid IP from %s: %s. Nothing changed; %s.' % (source, why, lookup.fix(cfg, why)))
    return ip


def gone(job):
    """True when the job is a line whose record goes while the line has no address (line_gone
    remove; never the default line's record, nor one a provider is only told about)."""
    line = job.line_plan
    return line is not None and not line.candidates and job.cfg.line_gone == 'remove' and not told(job.provider)
