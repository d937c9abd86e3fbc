"""Each record's last outcome, kept in its state directory and read back by --status.

The status file, `.<stem>_<record>.status` beside the record's other state files (stem: the seed
tool's name its provider keeps, so ddkit and updater_a share it), holds `key=value` lines: outcome,
checked and changed (epoch seconds), ip, the fields of the last failure, and failed_since: when the
failures of a streak began (kept through runs that found no valid IP). It is written when a run
decided something new: a change at the provider, another outcome or failure than the one kept, or the
first unchanged run after a failure or no valid IP. A run that decides what is kept already (the IP
unchanged after a good outcome, or before there was a status file; the same failure again; no valid
IP again, or still after a line's record was removed) writes nothing (a router's state directory may
be on flash): what --status shows of it is derived from the record's log, to which that run appended
its lines (log_time): its `checked` is that run's time, and a kept change (updated, created) that a
later run found in place shows as unchanged.
A run writes its status after its last log line, so a log line later than the kept `checked` is a
later run's. The keys --status --json prints are documented in docs/status.md and kept stable.
"""

import os
import time

from ddkit import CREATED, FAILED, FIELDS, NO_IP, REMOVED, UNCHANGED, UPDATED

GOOD = (UNCHANGED, UPDATED, CREATED)   # outcomes after which the record holds the current IP
NEVER = 'never'    # the outcome --status shows for a record no run has decided yet
KEYS = ('name', 'type', 'provider', 'ip', 'outcome', 'checked', 'changed', 'step', 'message', 'fix', 'code',
        'http_status', 'url', 'kind', 'line', 'section')   # of --status --json, in this order
VALUE_MAX = 500    # characters of a value kept: a provider's message is bounded


def path_of(job):
    """The record's status file."""
    return job.files['status_file']


def read(path):
    """{key: value} of a status file ({} when absent, unreadable or not ours)."""
    from ddkit import state
    found = {}
    for line in state.read_lines(path, limit=8192):
        key, eq, value = line.partition('=')
        if eq and key in STORED:
            found[key] = value
    return found


STORED = ('outcome', 'checked', 'changed', 'ip', 'message', 'failed_since') + FIELDS


def record(job, outcome):
    """Keep this run's outcome (not in a dry run), unless it is what is kept already. The common
    run, the IP unchanged without a request after a good outcome, never comes here
    (ddkit.reconcile.kept_good)."""
    if job.cfg.dry_run:
        return
    path = path_of(job)
    kept = read(path)
    if outcome == NO_IP and kept.get('outcome') == REMOVED:
        return   # the line still has no address: its record stays removed, since the time kept
    from ddkit.log import printable
    now = '%d' % time.time()
    values = {'outcome': outcome,
              'changed': now if outcome in (UPDATED, CREATED, REMOVED) else kept.get('changed', ''),
              'ip': job.new_ip if outcome in GOOD else '' if outcome == REMOVED else kept.get('ip', '')}
    # when the run's failures began (a run without a valid IP judged nothing: it ends no streak), for
    # notify, which tells the first failure of a streak and the first good run after it
    since = kept.get('failed_since') or (kept.get('checked') if kept.get('outcome') == FAILED else None) \
        if outcome in (FAILED, NO_IP) else None
    if since or outcome == FAILED:
        values['failed_since'] = since or now
    failure = job.failure if outcome == FAILED else None
    if failure is not None:
        values['message'] = job.log.clean(str(failure))   # secrets masked, as in the log
        values.update((name, job.log.clean(str(value))) for name, value in failure.fields().items())
    values = {key: printable(str(value or ''))[:VALUE_MAX] for key, value in values.items()}
    if kept and all(kept.get(key, '') == value for key, value in values.items()) and \
            not set(kept) - set(values) - {'checked'}:
        return   # the same again (a line down for days, the same failure): its time is the log's
    lines = ['%s=%s' % (key, value) for key, value in dict(values, checked=now).items()]
    job.save(path, lines, cache=True)   # a status that cannot be written must not fail the update


def read_all(reading, heading_text):
    """shown() of each (job, name in a run of several) of a --status run. A log file that several of
    them write (a shared log_file, or the lines of one record) says when each last ran by the line
    that starts its part of a run (heading_text(name)), as does one the user named (other records
    may write it); a record's own log, by its time."""
    logs = {}
    for job, _ in reading:
        logs[job.cfg.log_file] = logs.get(job.cfg.log_file, 0) + 1
    texts = {}
    found = []
    for job, name in reading:
        path = job.cfg.log_file
        if logs[path] > 1 or job.cfg.sources.get('log_file', 'default') != 'default':
            if path not in texts:
                texts[path] = log_text(path)
            later = heading_time(texts[path], heading_text(name))
        else:
            later = log_time(path)
        found.append(shown(job, job.provider.NAME, later))
    return found


def log_time(path):
    """The log's own modification time (never a link's target's), or None."""
    try:
        return int(os.lstat(path).st_mtime)
    except OSError:
        return None


def log_text(path):
    """The text of a log file (bounded, as the log is), or '' when it cannot be read."""
    from ddkit import state
    from ddkit.log import LOG_MAX
    return '\n'.join(state.read_lines(path, limit=LOG_MAX + 4096))


def heading_time(text, heading):
    """The epoch second of the last log line `[<date>] - <heading>` in text, else None."""
    at = (text + '\n').rfind('] - %s\n' % heading)
    if at < 0:
        return None
    start = text.rfind('\n', 0, at) + 1
    stamp = text[start + 1:at]   # 2026-11-24 01:02:03
    parts = stamp.replace('-', ' ').replace(':', ' ').split()
    numbers = [int(p) for p in parts if p.isdigit() and p.isascii()]
    if len(numbers) != 6 or len(stamp) != 19:
        return None
    try:   # the log's times are local, as log.stamp writes them
        return int(time.mktime(tuple(numbers) + (0, 0, -1)))
    except (OverflowError, ValueError):
        return None


def shown(job, provider_name, later=None):
    """The record's status as --status reads it: {key: value} of KEYS (numbers as ints, unknown as
    None; outcome 'never' when no run decided yet). later: the time of the record's last run as its
    log says (None: unknown)."""
    from ddkit import decimal, state
    from ddkit.log import printable
    cfg = job.cfg
    # what a damaged or hand-edited file holds is shown escaped, its numbers bounded
    kept = {key: printable(value) for key, value in read(path_of(job)).items()}
    lines, verified = state.read_dated(job.ip_file)
    if not kept and lines:   # run before there was a status file: the ip file claims what it holds
        kept = {'outcome': UNCHANGED, 'checked': '%d' % verified}
    checked = seconds(kept.get('checked', ''))
    outcome = kept.get('outcome') or NEVER
    if kept and later and checked and later > checked:
        # a later run decided what was kept already and wrote nothing: a change it found in place
        checked = later
        if outcome in (UPDATED, CREATED):
            outcome = UNCHANGED
    from ddkit import ipcheck
    held = ipcheck.valid_ip(lines[0], cfg.record_type)[0] if lines else None   # a damaged ip file: unknown
    values = {'name': cfg.record_name, 'type': cfg.record_type, 'provider': provider_name,
              'ip': held or (None if lines else kept.get('ip')) or None,
              'outcome': outcome, 'checked': checked,
              'changed': seconds(kept.get('changed', '')), 'step': kept.get('step') or None,
              'message': kept.get('message') or None, 'fix': kept.get('fix') or None,
              'code': kept.get('code') or None, 'http_status': decimal(kept.get('status', '')) if len(kept.get('status', '')) <= 3 else None,
              'url': kept.get('url') or None, 'kind': kept.get('kind') or None, 'line': job.line,
              'section': cfg.uci.get('section')}
    return {key: values[key] for key in KEYS}


def seconds(text):
    """Epoch seconds as the status file keeps them, or None: digits only, at most 12 (a damaged file's
    60-digit number is no time, and would overflow the clock's)."""
    from ddkit import decimal
    return decimal(text) if len(text) <= 12 else None


def line(values):
    """One line of --status for a record."""
    def when(seconds):
        return time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(seconds)) if seconds else 'never'
    text = '%s %s %s%s: %s' % (values['provider'], values['type'], values['name'],
                               ' line %s' % values['line'] if values['line'] else '', values['outcome'])
    if values['outcome'] == NEVER:
        return text + ' (no run has decided yet)'
    text += ', ip %s, checked %s, changed %s' % (values['ip'] or 'unknown', when(values['checked']),
                                                 when(values['changed']))
    if values['outcome'] == FAILED:
        text += '; failed at %s: %s' % (values['step'] or 'an unknown step', values['message'] or '')
    return text


def show(shown, failed_loads, as_json):
    """Print each record's kept status (a line each, or one JSON array); the exit status: 2 when a
    record's settings could not be read, 1 when a record's last run failed, else 0."""
    from ddkit.log import say
    if as_json:
        from ddkit import jsontext
        say(jsontext.dumps(shown))
    else:
        for values in shown:
            say(line(values))
    worst = max([code for _, code in failed_loads] or [0])
    return worst or (1 if any(values['outcome'] == FAILED for values in shown) else 0)
