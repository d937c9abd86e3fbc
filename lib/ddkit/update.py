"""The update loop's part at the provider (ddkit.reconcile decides when it is needed): the record
read there when the ip file cannot say what it holds, its zone and record found (stored ids first,
looked up again once when stale), created or updated, a line's record removed, the new IP recorded.
A run loads it only when its ip file does not settle the record: one that finds nothing changed
decides without it.
"""

from ddkit import CREATED, NO_IP, REMOVED, UPDATED, Failure, state
from ddkit.provider import Exists, Stale, Zone, told


def run(job, current, lines, verified):
    """The flow of one record to the current IP, its ip file's lines and last verification (its
    modification time) as read under the lock (what the provider took: job.outcome; a failure
    raises)."""
    cfg, log = job.cfg, job.log
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
    ip, why = lookup.resolve(cfg, cfg.record_name, lookup.unanswered_of(job.run))
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


def zone_of(job, fresh=False):
    """A record without zone_name at a provider that lists the account's zones: its zone_name is the
    longest zone record_name is in, kept as the third line of the ids file (a run with ids asks
    nothing), else found in the account's zones, listed once a run (fresh: the kept one was stale)."""
    cfg, provider = job.cfg, job.provider
    if not hasattr(provider, 'account_zones') or cfg.zone_name and not job.zone_found:
        return
    if not fresh:
        kept = state.read_lines(job.ids_file)[2:3]
        if kept and zone_holding(cfg.record_name, [Zone(None, kept[0])]):
            cfg.zone_name, job.zone_found = kept[0], True
            return
    zones = job.shared(zones_key(job), lambda: provider.account_zones(job))
    zone = zone_holding(cfg.record_name, zones)
    if zone is None:
        from ddkit.settings import full_name_fix
        names = sorted(z.name for z in zones if z.name)
        fix = full_name_fix(cfg.record_name, names) or \
            'set zone_name to the zone the record is in, or use credentials that can see that zone'
        raise Failure.at('find zone', 'no zone of this account holds %s (its zones: %s); fix: %s' % (
            cfg.record_name, ', '.join(names[:10]) or 'none', fix), kind='not found', fix=fix, setting='record_name')
    cfg.zone_name, job.zone_found = zone.name, True


def zones_key(job):
    """What the records of a run share the listing of an account's zones under (Run.shared)."""
    return 'account zones', job.provider.account(job.cfg)


def zones_listed(job):
    """True when this run listed the account's zones (zone_of): the provider took the credentials."""
    return job.run.recall(zones_key(job)) is not None


def zone_holding(name, zones):
    """The zone of zones that name is in (equal to it or ending with '.' + it), the longest; None."""
    found = [z for z in zones if z.name and (name == z.name or name.endswith('.' + z.name))]
    return max(found, key=lambda z: len(z.name)) if found else None


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
    plain = None
    if job.line:   # a line's record at a provider without lines: where it went, said plainly
        from ddkit import lines
        plain = lines.without_lines(job.provider)
    log.info('Created %s %s %s%s.' % (cfg.record_type, noun, job.name, '; ' + plain if plain else ''))
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
