"""The update loop both updaters share: one record reconciled through its provider module.

get the current IP; stop when the ip file claims it and its last verification is recent; else, under
the record's lock, read the ip file again; when it does not say what the provider holds (absent, or
due for verification), read the record at the provider; find the zone and the record (stored ids
first, looked up again once when stale); create or update the record; record the new IP. The ip file
claims only what the provider is known to hold: it goes before a write is sent and comes back once
the provider has taken it, so a run cut short leaves the next one to ask. on_change and the
health-check ping follow, the lock released. What a provider supplies is in docs/design.md.
"""

import os
import sys

from ddkit import CREATED, FAILED, KEEP_DIR, NO_IP, NOTICES_FILE, REMOVED, UNCHANGED, UPDATED, Failure, state
from ddkit.provider import Exists, Stale, caused_by, told


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
            outcome = remove_line(job)
        elif current is None:
            outcome = NO_IP   # exit 0, as nothing to do, but no health-check ping (ddkit.notify)
        elif not cfg.force and settled(job, current, *state.read_dated(job.ip_file)):
            outcome, quiet = UNCHANGED, True   # the common run: nothing to write, so no lock to take
            # (a run that may write reads the ip file again under the lock)
        elif cfg.dry_run:
            update(job, current)  # a dry run writes no file, not even a lock file
            return UNCHANGED
        else:
            from ddkit.lock import Lock
            with Lock(job.lock_file):
                update(job, current)
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


def update(job, current):
    """The flow of one record to the current IP (what the provider took: job.outcome; a failure
    raises)."""
    cfg, log = job.cfg, job.log
    lines, verified = state.read_dated(job.ip_file)
    if not cfg.force and settled(job, current, lines, verified):
        return
    claimed = claimed_ip(job, lines)
    if told(job.provider):
        return tell(job, claimed, current)
    # the record is read at the provider before any write when the ip file cannot say what it holds
    held = (claimed is None or claimed == current) and not cfg.force
    if claimed is None:
        job.old_ip, job.new_ip = get_previous_ip(job), current   # DoH, ping: for the log alone
    if not held:
        announce(job, claimed or job.old_ip, current)
    elif claimed is not None:
        job.old_ip, job.new_ip = claimed, current
        log.info('IP has not changed: %s; verifying the %s at the provider (%s).' % (
            current, job.provider.NOUN, job.last_verified(verified)))
    sent = True
    for attempt in (1, 2):
        zone_id, record = find_ids(job, fresh=attempt == 2, held=held)
        try:
            if record is not None and record.holds(current) and not cfg.force:
                log.info('IP has not changed: %s (the %s at the provider holds it).' % (current, job.provider.NOUN)
                         if claimed is None else '%s %s already holds %s; nothing sent.' % (
                             job.provider.NOUN.capitalize(), cfg.record_name, current))
                sent, record_id = False, record.id
                break
            if held:   # what the provider holds is known now: the reason for the write
                announce(job, shown(record) if record else None, current, drift=claimed is not None)
            record_id = create_record(job, zone_id, current) if record is None else \
                update_record(job, zone_id, record, current)
            break
        except Stale:
            if attempt == 2:
                raise Failure.at('update record', 'the provider still says the %s or its zone does not exist'
                                 % job.provider.NOUN, kind='not found')
            log.info('Stored ids are stale; looking them up again.')
    record_ip(job, [zone_id, record_id], current, sent)


def shown(record):
    """What a record read at the provider holds, for a log line (an answer's words: bounded)."""
    return ', '.join(map(str, record.content))[:200] if record.content else None


def settled(job, current, lines, verified):
    """True (logged) when the ip file claims current and its last verification is recent enough:
    nothing to do, no request."""
    if lines[:1] != [current] or job.verify_due(verified):
        return False
    job.old_ip = job.new_ip = current  # for on_change (ddkit.notify)
    job.log.info('IP has not changed: %s (%s)' % (current, job.last_verified(verified)))
    return True


def claimed_ip(job, lines):
    """The address the ip file claims the provider holds, or None (absent, or unreadable: said)."""
    if not lines:
        return None
    from ddkit import ipcheck
    ip, _ = ipcheck.valid_ip(lines[0], job.cfg.record_type)
    if ip is None:
        job.log.info('Ignoring unreadable ip file %s.' % job.ip_file)
    return ip


def announce(job, previous, current, drift=False):
    """Log why a write follows; drift: the ip file claimed current, the provider holds previous
    (None: no record)."""
    from ddkit import ipcheck
    cfg, log = job.cfg, job.log
    job.old_ip, job.new_ip = previous, current  # for on_change (ddkit.notify)
    what = '%s %s %s' % ('a real run would update' if cfg.dry_run else 'updating', cfg.record_type, job.name)
    if drift:
        log.info('The %s at the provider holds %s, not %s (changed there); %s.' % (
            job.provider.NOUN, previous or 'nothing', current, what))
    elif previous and ipcheck.same_ip(current, previous):
        log.info('IP %s has not changed; %s anyway (--force).' % (current, what))
    else:
        log.info('IP changed from %s to %s; %s.' % (previous or 'unknown', current, what))


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


def remove_line(job):
    """The line has no address: remove its record at the provider, and its ip file; its ids file then
    says the provider holds none (GONE), so later runs make no request until the address is back.
    Without that word (the state lost: a reboot with state_dir in RAM), the record is looked up at the
    provider, as a record published before the loss may still be there."""
    cfg, log = job.cfg, job.log
    claimed = claimed_ip(job, state.read_lines(job.ip_file))
    if claimed is None and state.read_lines(job.ids_file) == [GONE]:
        return NO_IP
    job.old_ip, job.new_ip = claimed, None
    if cfg.dry_run:
        log.info('Dry run: would remove the %s of %s (it holds %s), if the provider has one.' % (
            job.provider.NOUN, job.name, claimed or 'unknown'))
        return NO_IP
    from ddkit.lock import Lock
    with Lock(job.lock_file):
        forget_ip(job)
        for attempt in (1, 2):
            zone_id, record = find_ids(job, fresh=attempt == 2)
            if record is None:
                break
            try:
                job.provider.delete_record(job, zone_id, record)
                break
            except Stale:
                continue   # ids of another record, or gone already: looked up once more
        job.save(job.ids_file, [GONE])
    if record is None and claimed is None:
        log.info('The provider holds no %s of %s: the line has no address.' % (job.provider.NOUN, job.name))
        return NO_IP
    log.info('Removed the %s of %s (it held %s): the line has no address.' % (
        job.provider.NOUN, job.name, claimed or shown(record) or 'unknown'))
    return REMOVED


# the ids file of a line whose record is removed, or was found absent: the next run sends nothing
GONE = 'gone'


def get_previous_ip(job):
    """What DoH, else the provider's own fallback, says the record holds: a hint for the log and
    on_change, never written to the ip file (only the provider's word is)."""
    from ddkit import lookup
    cfg, log = job.cfg, job.log
    if job.line is not None:   # the name resolves to every line's address: none of them is this line's
        return None
    ip, why = lookup.resolve(cfg, cfg.record_name)
    fallback = getattr(job.provider, 'previous_ip', None)
    if ip is None and fallback:
        log.info('No previous IP from DoH (%s); trying a ping of %s.' % (why, cfg.record_name))
        ip = fallback(job)
    elif ip is None:
        log.info('No previous IP from DoH: %s.' % why)
    return ip


def tell(job, claimed, current):
    """A provider that is only told the IP (ddkit.provider.told): sent whenever the ip file does not
    claim it, as nothing can be read there; its answer may say it held the IP already."""
    cfg, log = job.cfg, job.log
    announce(job, claimed or get_previous_ip(job), current)
    if cfg.dry_run:
        log.info('Dry run: would send %s %s to the provider.' % (cfg.record_type, current))
        return
    forget_ip(job)
    held = job.provider.send_ip(job, current)   # True: it says it held the IP already
    if held:
        log.info('The provider already held %s.' % current)
    else:
        job.changed(UPDATED)
    record_ip(job, None, current, sent=not held)


def find_ids(job, fresh=False, held=False):
    """(zone id, Record or None): the stored ids when the provider still knows them, else looked up;
    held: the Record says what the provider holds (read, where a provider updates unread)."""
    job.fresh = fresh
    from ddkit.provider import zone_of
    zone_of(job, fresh)
    ids = None if fresh else read_ids(job)
    if ids:
        try:
            return ids[0], job.provider.read_record(job, *ids, held=held)
        except Stale:
            job.log.info('Stored ids are stale; looking them up again.')
    zone_id = find_zone(job)
    return zone_id, job.provider.find_record(job, zone_id)


def find_zone(job):
    """The zone's id, looked up once per (account, zone) in a run of several records."""
    provider, cfg = job.provider, job.cfg
    return job.shared(('zone', provider.account(cfg), cfg.zone_name),
                          lambda: provider.choose_zone(job, provider.list_zones(job)).id)


def read_ids(job):
    """The ids file: two lines (zone id, record id), and a third, the zone's name, when it was found
    (zone_of); the two ids, else None."""
    from ddkit.provider import safe_id
    lines = state.read_lines(job.ids_file)
    if (len(lines) == 2 or len(lines) == 3 and job.zone_found) and all(safe_id(x) for x in lines[:2]):
        return lines[:2]
    return None


def create_record(job, zone_id, ip):
    """Create the record (its new id); one that exists already (made elsewhere) is updated instead."""
    cfg, log, noun = job.cfg, job.log, job.provider.NOUN
    if cfg.dry_run:
        log.info('Dry run: would create %s %s %s with %s.' % (cfg.record_type, noun, cfg.record_name, ip))
        return 'new'
    forget_ip(job)
    try:
        record_id = job.provider.create_record(job, zone_id, ip)
    except Exists:
        # the stored id was stale, yet a record of this name exists: take that one, or every run
        # would fail on the same conflict
        record = job.provider.find_record(job, zone_id, strict=True)
        record_id = record and job.provider.update_record(job, zone_id, record, ip)
        if not record_id:
            raise Failure.at('create record', '%s %s exists but cannot be found or updated' % (noun, cfg.record_name),
                             kind='unexpected')
        job.changed(UPDATED)
        return record_id
    log.info('Created %s %s %s.' % (cfg.record_type, noun, job.name))
    job.changed(CREATED)
    return record_id


def update_record(job, zone_id, record, ip):
    """Update the record (its id); an answer without one means the record must be created."""
    cfg, log, noun = job.cfg, job.log, job.provider.NOUN
    if cfg.dry_run:
        held = shown(record)
        log.info('Dry run: would update %s %s%s to %s.' % (noun, cfg.record_name,
                                                           ' from %s' % held if held else '', ip))
        return record.id
    forget_ip(job)
    record_id = job.provider.update_record(job, zone_id, record, ip)
    if record_id:
        job.changed(UPDATED)
        return record_id
    log.info('update record: no %s id in the answer; creating the %s.' % (noun, noun))
    return create_record(job, zone_id, ip)


def forget_ip(job):
    """Before a write is sent: the ip file claims nothing, so a run cut short once the provider has
    taken the write (killed, its answer lost) leaves the next run to read the record. A file that
    cannot be removed stops the run before anything is sent."""
    problem = state.remove(job.ip_file)
    if problem:
        raise Failure('cannot remove state file %s before the update: %s; nothing was sent; fix: state_dir '
                      'must be writable by this user' % (job.ip_file, problem), step='update record',
                      kind='state', fix='state_dir must be writable by this user')


def record_ip(job, ids, ip, sent=True):
    """Remember the ids and the IP the provider now holds, and say so (a dry run only says it changed
    nothing); the ip file's time says when the provider confirmed it. ids None: it has none."""
    if ids is not None:   # a zone found, not given, is kept with them (zone_of)
        job.save(job.ids_file, ids + ([job.cfg.zone_name] if job.zone_found else []))
    if job.cfg.dry_run:
        job.log.info('Dry run: nothing was changed.')
        return
    job.save(job.ip_file, [ip], touch=True)
    if sent:  # not sent: the record already held ip, which the loop has said in one line
        job.log.info('IP has been updated to: %s' % ip)
