"""The update loop both updaters share: one record reconciled through its provider module.

get the current IP; stop when the ip file holds it; else, under the record's lock, get the previous
one (ip file, DoH, the provider's fallback); stop when it has not changed; find the zone and the
record (stored ids first, looked up again once when stale); create or update the record; record the
new IP. on_change and the health-check ping follow, the lock released. What a provider supplies is
in docs/design.md.
"""

import sys

from ddkit import Failure, state
from ddkit.provider import Exists, Stale

def run(job):
    """Update the record under its lock; the exit status; then, the lock released, tell on_change and
    healthcheck_url when set (not in a dry run)."""
    cfg, log = job.cfg, job.log
    problem = job.untrusted_dirs()
    if problem:  # before the lock and the log: nothing is written into a directory others can change
        log.close()   # a run of several: the record's heading first, on stdout only
        print('%s: %s; nothing was changed; fix: %s' % ((job.tool,) + problem), file=sys.stderr)
        return 1
    try:
        current = get_current_ip(job)   # the kernel or a lookup service: nothing written yet
        if current is None:
            job.judged = False  # exit 0, as nothing to do, but no health-check ping (ddkit.notify)
            status = 0
        elif not cfg.force and state.read_lines(job.ip_file)[:1] == [current]:
            unchanged(job, current, current)   # the common run: nothing to write, so no lock to take
            status = 0   # (a run that writes reads the ip file again under the lock)
        elif cfg.dry_run:
            return update(job, current)  # a dry run writes no file, not even a lock file
        else:
            from ddkit.lock import Lock
            with Lock(job.lock_file):
                status = update(job, current)
    except Failure as e:
        log.error('ERROR: %s' % e)
        status, job.outcome, job.message = e.exit_status, 'failed', str(e)
    except KeyboardInterrupt:
        log.error('ERROR: interrupted')
        return 1
    if not cfg.dry_run and (cfg.on_change or cfg.healthcheck_url):
        from ddkit import notify
        notify.tell(job, status)
    return status


def update(job, current):
    """The flow of one record to the current IP; the exit status (a provider failure raises)."""
    cfg, log = job.cfg, job.log
    previous = get_previous_ip(job, current)
    if unchanged(job, current, previous):
        return 0
    sent = True
    for attempt in (1, 2):
        zone_id, record = find_ids(job, fresh=attempt == 2)
        try:
            if record is None:
                record_id = create_record(job, zone_id, current)
            elif record.holds(current) and not cfg.force:
                log.info('%s %s already holds %s; nothing sent.' % (job.provider.NOUN.capitalize(),
                                                                    cfg.record_name, current))
                sent, record_id = False, record.id
            else:
                record_id = update_record(job, zone_id, record, current)
            break
        except Stale:
            if attempt == 2:
                raise Failure('update record: the provider still says the %s or its zone does not exist'
                              % job.provider.NOUN)
            log.info('Stored ids are stale; looking them up again.')
    record_ip(job, [zone_id, record_id], current, sent)
    return 0


def get_current_ip(job):
    """The current public IP, or None (logged) when there is no valid one."""
    from ddkit import lookup
    cfg = job.cfg
    urls = tuple(cfg.ip_lookup_url) if cfg.ip_source == 'url' else None
    ip, source, why = job.run.shared(('current ip', cfg.ip_source, cfg.record_type, urls),
                                     lambda: lookup.current_ip(cfg))
    if ip and urls and source != urls[0]:
        job.log.info('Current IP %s from %s: the lookup services before it gave none.' % (ip, source))
    if ip is None:
        job.log.info('No valid IP from %s: %s. Nothing changed; %s.' % (source, why, lookup.fix(cfg, why)))
    return ip


def get_previous_ip(job, current=None):
    """The ip file, else the DoH resolver, else the provider's own fallback; found -> ip file."""
    cfg, log = job.cfg, job.log
    lines = state.read_lines(job.ip_file)
    if lines and lines[0] == current:
        return current   # the text of a valid address: nothing to parse (most records of most runs)
    if lines:
        from ddkit import ipcheck
        ip, _ = ipcheck.valid_ip(lines[0], cfg.record_type)
        if ip:
            return ip
        log.info('Ignoring unreadable ip file %s.' % job.ip_file)
    from ddkit import lookup
    ip, why = lookup.resolve(cfg, cfg.record_name)
    fallback = getattr(job.provider, 'previous_ip', None)
    if ip is None and fallback:
        log.info('No previous IP from DoH (%s); trying a ping of %s.' % (why, cfg.record_name))
        ip = fallback(job)
    elif ip is None:
        log.info('No previous IP from DoH: %s.' % why)
    if ip:
        job.save(job.ip_file, [ip])
    return ip


def unchanged(job, current, previous):
    """True (logged) when there is nothing to do; else log why an update follows."""
    from ddkit import ipcheck
    cfg, log = job.cfg, job.log
    job.old_ip, job.new_ip = previous, current  # for on_change (ddkit.notify)
    same = ipcheck.same_ip(current, previous)
    if same and not cfg.force:
        log.info('IP has not changed: %s' % current)
        return True
    what = '%s %s %s' % ('a real run would update' if cfg.dry_run else 'updating', cfg.record_type, job.name)
    if same:
        log.info('IP %s has not changed; %s anyway (--force).' % (current, what))
    else:
        log.info('IP changed from %s to %s; %s.' % (previous or 'unknown', current, what))
    return False


def find_ids(job, fresh=False):
    """(zone id, Record or None): the stored ids when the provider still knows them, else looked up."""
    job.fresh = fresh
    ids = None if fresh else read_ids(job)
    if ids:
        try:
            return ids[0], job.provider.read_record(job, *ids)
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
    """The ids file: exactly two lines (zone id, record id), else None."""
    from ddkit.provider import safe_id
    lines = state.read_lines(job.ids_file)
    if len(lines) == 2 and all(safe_id(x) for x in lines):
        return lines
    return None


def create_record(job, zone_id, ip):
    """Create the record (its new id); one that exists already (made elsewhere) is updated instead."""
    cfg, log, noun = job.cfg, job.log, job.provider.NOUN
    if cfg.dry_run:
        log.info('Dry run: would create %s %s %s with %s.' % (cfg.record_type, noun, cfg.record_name, ip))
        return 'new'
    try:
        record_id = job.provider.create_record(job, zone_id, ip)
    except Exists:
        # the stored id was stale, yet a record of this name exists: take that one, or every run
        # would fail on the same conflict
        record = job.provider.find_record(job, zone_id, strict=True)
        record_id = record and job.provider.update_record(job, zone_id, record, ip)
        if not record_id:
            raise Failure('create record: %s %s exists but cannot be found or updated' % (noun, cfg.record_name))
        job.changed('updated')
        return record_id
    log.info('Created %s %s %s.' % (cfg.record_type, noun, job.name))
    job.changed('created')
    return record_id


def update_record(job, zone_id, record, ip):
    """Update the record (its id); an answer without one means the record must be created."""
    cfg, log, noun = job.cfg, job.log, job.provider.NOUN
    if cfg.dry_run:
        held = ', '.join(map(str, record.content))[:200] if record.content else None  # an answer's words: bounded
        log.info('Dry run: would update %s %s%s to %s.' % (noun, cfg.record_name,
                                                           ' from %s' % held if held else '', ip))
        return record.id
    record_id = job.provider.update_record(job, zone_id, record, ip)
    if record_id:
        job.changed('updated')
        return record_id
    log.info('update record: no %s id in the answer; creating the %s.' % (noun, noun))
    return create_record(job, zone_id, ip)


def record_ip(job, ids, ip, sent=True):
    """Remember the ids and the new IP, and say so (a dry run only says it changed nothing)."""
    job.save(job.ids_file, ids)
    if job.cfg.dry_run:
        job.log.info('Dry run: nothing was changed.')
        return
    job.save(job.ip_file, [ip])
    if sent:  # not sent: the record already held ip, which the loop has said in one line
        job.log.info('IP has been updated to: %s' % ip)
