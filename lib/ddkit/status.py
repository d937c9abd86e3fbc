"""Each record's last outcome, kept in its state directory and read back by --status.

The status file, `.<stem>_<record>.status` beside the record's other state files (stem: the seed
tool's name its provider keeps, so ddkit and updater_a share it), holds `key=value` lines: outcome,
checked and changed (epoch seconds), ip, the fields of the last failure, failed_since: when the
failures of a streak began (kept through runs that found no valid IP), and log: where the record's
log ended when the status was written (`<inode>:<size>:<its first line's time>`). It is written when
a run decided something new: a change at the provider, another outcome or failure than the one kept,
or the first unchanged run after a failure or no valid IP. A run that decides what is kept already
(the IP unchanged after a good outcome, or before there was a status file; the same failure again;
no valid IP again, or still after a line's record was removed) writes nothing (a router's state
directory may be on flash): it only appends its lines to the record's log, and --status derives what
it decided from them.
Order, not time, tells a later run: a run writes its status after its last log line, so a line of
the record's past the kept log end is a later run's, however soon it came (two runs in one second).
Its `checked` is then that run's time, and a kept change (updated, created) that a later run found in
place shows as unchanged. A status file without the log end (written before it was kept), or a shared
log cut since (ddkit.log: the cut file is a new one), falls back to the times, to the second.
The keys --status --json prints are documented in docs/status.md and kept stable.
"""

import time

from ddkit import CREATED, FAILED, FIELDS, NO_IP, REMOVED, UNCHANGED, UPDATED, decimal
from ddkit.native import os

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


STORED = ('outcome', 'checked', 'changed', 'ip', 'message', 'failed_since', 'log') + FIELDS


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
            not set(kept) - set(values) - {'checked', 'log'}:
        return   # the same again (a line down for days, the same failure): the log says when
    lines = ['%s=%s' % (key, value) for key, value in dict(values, checked=now, log=log_end(job.log)).items()]
    job.save(path, lines, cache=True)   # a status that cannot be written must not fail the update


def log_end(log):
    """Where the record's log ends after this run's lines: `<inode>:<size>:<its first line's time>`
    of the file they went to ('' without one): the file itself (a cut makes a new one, which may get
    an old inode number back, never the old first line) and a place in it, past which a later run's
    lines of the record lie (later_run)."""
    found = log_file(log.path) if log.path else None
    return '%d:%d:%s' % found[:3] if found else ''


def log_file(path, tail=0):
    """(inode, size, first line's time as digits, modification time, offset of the bytes read, its
    last `tail` bytes) of a log file (never through a link), or None when it cannot be read."""
    from ddkit import state
    try:
        fd, st = state.open_file(path, os.O_RDONLY, keep=0o7777, stat=True)
    except OSError:
        return None
    try:
        head = os.read(fd, 21)
        base = max(0, st.st_size - tail)
        os.lseek(fd, base, os.SEEK_SET)
        chunks, size = [], 0
        while size < tail:
            chunk = os.read(fd, tail - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    first = ''.join(c for c in head[1:20].decode('ascii', 'replace') if c.isdigit()) if head[:1] == b'[' else ''
    return st.st_ino, st.st_size, first, int(st.st_mtime), base, b''.join(chunks)


def read_all(reading, heading_text):
    """shown() of each (job, name in a run of several) of a --status run. A log file that several of
    them write (a shared log_file, or the lines of one record) tells each one's last run by the line
    that starts its part of a run (heading_text(name)), as does one the user named (other records
    may write it); a record's own log, by where it ends."""
    logs = {}
    for job, _ in reading:
        logs[job.cfg.log_file] = logs.get(job.cfg.log_file, 0) + 1
    tails = {}
    found = []
    for job, name in reading:
        path = job.cfg.log_file
        if logs[path] > 1 or job.cfg.sources.get('log_file', 'default') != 'default':
            if path not in tails:
                tails[path] = log_tail(path)
            last = heading_run(tails[path], heading_text(name))
        else:
            last = own_run(path)
        found.append(shown(job, job.provider.NAME, last))
    return found


def own_run(path):
    """(the log file, its size, its modification time, True) of a record's own log, or None: its
    last run ended where the file ends."""
    found = log_file(path)
    return ((found[0], found[2]), found[1], found[3], True) if found else None


def log_tail(path):
    """A log file (log_file) with its last LOG_MAX + 4096 bytes: as much as the log ever holds."""
    from ddkit.log import LOG_MAX
    return log_file(path, tail=LOG_MAX + 4096)


def heading_run(tail, heading):
    """(the log file, offset, epoch second, False) of the last log line `[<date>] - <heading>` of a
    log's tail (log_tail), or None when there is none."""
    if tail is None:
        return None
    inode, _, first, _, base, data = tail
    at = data.rfind(('] - %s\n' % heading).encode('utf-8'))
    if at < 0:
        return None
    start = data.rfind(b'\n', 0, at) + 1
    return (inode, first), base + start, stamp_seconds(data[start + 1:at].decode('ascii', 'replace')), False


def stamp_seconds(stamp):
    """The epoch second of a log line's time (2026-11-24 01:02:03, local as ddkit.log writes it), or
    None."""
    parts = stamp.replace('-', ' ').replace(':', ' ').split()
    numbers = [int(p) for p in parts if p.isdigit() and p.isascii()]
    if len(numbers) != 6 or len(stamp) != 19:
        return None
    try:
        return int(time.mktime(tuple(numbers) + (0, 0, -1)))
    except (OverflowError, ValueError):
        return None


def later_run(last, end, checked):
    """True when the record's log shows a run after the one that wrote its status. last: where the
    record's last run stands in its log (own_run, heading_run); end: the status's log end. Past the
    end in the same file is later, whatever the clock said; a record's own log made anew since (a
    cut) was written by a later run of its own; else (no end kept, a shared log cut since) the later
    second tells."""
    if last is None:
        return False
    file, position, seconds, own = last
    kept = end.split(':')
    numbers = [decimal(part) if len(part) <= 20 else None for part in kept[:2]]
    if len(kept) == 3 and None not in numbers:
        if file == (numbers[0], kept[2]):
            return position != numbers[1] if own else position >= numbers[1]
        if own:
            return True
    return seconds is not None and checked is not None and seconds > checked


def shown(job, provider_name, last=None):
    """The record's status as --status reads it: {key: value} of KEYS (numbers as ints, unknown as
    None; outcome 'never' when no run decided yet). last: where the record's last run stands in its
    log (later_run; None: unknown)."""
    from ddkit import state
    from ddkit.log import printable
    cfg = job.cfg
    # what a damaged or hand-edited file holds is shown escaped, its numbers bounded
    kept = {key: printable(value) for key, value in read(path_of(job)).items()}
    lines, verified = state.read_dated(job.ip_file)
    if not kept and lines:   # run before there was a status file: the ip file claims what it holds
        kept = {'outcome': UNCHANGED, 'checked': '%d' % verified}
    checked = seconds(kept.get('checked', ''))
    outcome = kept.get('outcome') or NEVER
    if kept and later_run(last, kept.get('log', ''), checked):
        # a later run decided what was kept already and wrote nothing: a change it found in place
        checked = last[2] if last[2] is not None else checked
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
