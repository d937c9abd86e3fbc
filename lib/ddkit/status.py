"""Each record's last outcome, kept in its state directory and read back by --status.

The status file, `.<stem>_<record>.status` beside the record's other state files (stem: the seed
tool's name its provider keeps, so ddkit and updater_a share it), holds `key=value` lines: outcome,
checked and changed (epoch seconds), ip, and the fields of the last failure. It is written when a run
decided something new: a change at the provider, another outcome or failure than the one kept, or the
first unchanged run after a failure or no valid IP. A run that decides what is kept already (the IP
unchanged after a good outcome, or before there was a status file; the same failure again; no valid
IP again) writes nothing (a router's state directory may be on flash): its `checked` is the
modification time of the record's log file, to which that run appended its line. The keys --status --json prints are documented in docs/status.md and kept stable.
"""

import os
import time

from ddkit import CREATED, FAILED, FIELDS, REMOVED, UNCHANGED, UPDATED

GOOD = (UNCHANGED, UPDATED, CREATED)   # outcomes after which the record holds the current IP
NEVER = 'never'    # the outcome --status shows for a record no run has decided yet
KEYS = ('name', 'type', 'provider', 'ip', 'outcome', 'checked', 'changed', 'step', 'message', 'fix', 'code',
        'http_status', 'url', 'kind', 'line')   # of --status --json, in this order
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


STORED = ('outcome', 'checked', 'changed', 'ip', 'message') + FIELDS


def record(job, outcome):
    """Keep this run's outcome (not in a dry run), unless it is what is kept already. The common
    run, the IP unchanged without a request after a good outcome, never comes here
    (ddkit.reconcile.kept_good)."""
    if job.cfg.dry_run:
        return
    path = path_of(job)
    kept = read(path)
    from ddkit.log import printable
    now = '%d' % time.time()
    values = {'outcome': outcome,
              'changed': now if outcome in (UPDATED, CREATED, REMOVED) else kept.get('changed', ''),
              'ip': job.new_ip if outcome in GOOD else '' if outcome == REMOVED else kept.get('ip', '')}
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


def shown(job, provider_name):
    """The record's status as --status reads it: {key: value} of KEYS (numbers as ints, unknown as
    None; outcome 'never' when no run decided yet)."""
    from ddkit import decimal, state
    from ddkit.log import printable
    cfg = job.cfg
    # what a damaged or hand-edited file holds is shown escaped, its numbers bounded
    kept = {key: printable(value) for key, value in read(path_of(job)).items()}
    lines, verified = state.read_dated(job.ip_file)
    if not kept and lines:   # run before there was a status file: the ip file claims what it holds
        kept = {'outcome': UNCHANGED, 'checked': '%d' % verified}
    checked = seconds(kept.get('checked', ''))
    if kept:   # later runs that decided the same appended a log line and wrote nothing here
        try:
            logged = int(os.lstat(cfg.log_file).st_mtime)   # the log's own time, never a link's target's
        except OSError:
            logged = None
        if logged and checked and logged > checked:
            checked = logged
    from ddkit import ipcheck
    held = ipcheck.valid_ip(lines[0], cfg.record_type)[0] if lines else None   # a damaged ip file: unknown
    values = {'name': cfg.record_name, 'type': cfg.record_type, 'provider': provider_name,
              'ip': held or (None if lines else kept.get('ip')) or None,
              'outcome': kept.get('outcome') or NEVER, 'checked': checked,
              'changed': seconds(kept.get('changed', '')), 'step': kept.get('step') or None,
              'message': kept.get('message') or None, 'fix': kept.get('fix') or None,
              'code': kept.get('code') or None, 'http_status': decimal(kept.get('status', '')) if len(kept.get('status', '')) <= 3 else None,
              'url': kept.get('url') or None, 'kind': kept.get('kind') or None, 'line': job.line}
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
