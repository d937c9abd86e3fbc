"""Tell someone after a run: the on_change hook, the health-check ping and the notices of notify.

Imported only when on_change or healthcheck_url is set, or when notify may have something to send
(ddkit.reconcile.notices_due): a run without them loads nothing of this.
The hook runs once the record's lock is released, without a shell, with only the DDNS_HOOK_*
details and a few neutral variables in its environment (no setting: so no secret), and is stopped
with its children after HOOK_TIMEOUT seconds: it can hold neither the lock nor the next run. The
ping is one GET, no retry, a short timeout, no credential; its failure is logged, never the run's.
A notice says what notify_on asks of a record's run: a change, the first failure of a streak, the
first good run after one; the services are ddkit.notices, imported only when a notice is sent or
kept ones are there to send again.
"""

import os

from ddkit.proc import split_command

HOOK_TIMEOUT = 30        # seconds: well inside the shortest schedule (every 5 minutes)
PING_TIMEOUT = 5         # seconds: the ping must not make a run noticeably longer
OUTPUT_KEEP = 4096       # bytes of the hook's output read into memory; the rest is read away
LINE_MAX = 200           # characters of its first output line that go to the log
# what the hook inherits from ours: where programs are, the language and the time zone, no more
INHERIT = ('PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'USER', 'LOGNAME')
DEFAULT_PATH = '/usr/sbin:/usr/bin:/sbin:/bin'
# what the hook is told, each as DDNS_HOOK_<KEY> (empty when unknown); outcome: updated, created, failed
# (the DNS updaters add step: what a failed run was attempting; egress6 its operator)
EVENT = ('outcome', 'record_name', 'record_type', 'old_ip', 'new_ip', 'message')


def tell(job, outcome, since=None):
    """After a record's run (ddkit.reconcile.run), by its outcome: the on_change hook after a change
    or a failure, then the health-check ping, then notify's notices (since: when the record's failures
    began, as its status said before this run; None when its last judged run went well). A run that found no valid current IP judged nothing: no
    ping, neither ok nor /fail (a line down for a minute pages nobody; a source that never gives an
    address stops the pings, so the check's own grace period raises the alert). In a run of several
    records each URL is pinged once, at the end (ddkit.updater)."""
    from ddkit import CREATED, FAILED, NO_IP, REMOVED, UPDATED
    cfg, failure = job.cfg, job.failure
    event = outcome in (UPDATED, CREATED, FAILED, REMOVED) and {
        'outcome': outcome, 'record_name': cfg.record_name, 'record_type': cfg.record_type, 'line': job.line,
        'old_ip': job.old_ip, 'new_ip': job.new_ip, 'step': failure and failure.step,
        'message': str(failure) if failure else 'the record of line %s was removed: the line has no address'
        % job.line if outcome == REMOVED else 'IP has been updated to: %s' % job.new_ip}
    ok = None if outcome == NO_IP else outcome != FAILED
    url = cfg.healthcheck_url
    if url and job.run.several:
        job.run.pings[url] = (merge(job.run.pings.get(url, (True,))[0], ok), cfg.ca_file)
        url = None
    after_run(job.log, job.tool, cfg.on_change, url, ok, event, cfg.ca_file)
    if cfg.notify:
        notice(job, outcome, since)


def notice(job, outcome, since):
    """What notify_on asks to tell of this run, to each notify URL, with the notices kept from earlier
    runs: at once in a run of one record; at the end of a run of several (send_notices, from
    ddkit.updater), so that each URL gets one message for all of them."""
    from ddkit import CREATED, FAILED, REMOVED, UNCHANGED, UPDATED
    changed, good = outcome in (UPDATED, CREATED, REMOVED), outcome in (UNCHANGED, UPDATED, CREATED, REMOVED)
    events = {'change'} if changed else set()
    events |= {'failure'} if outcome == FAILED and since is None else set()
    events |= {'recovery'} if good and since is not None else set()
    cfg = job.cfg
    part = about(job, outcome, since) if events & set(cfg.notify_on) else None
    job.run.notices.append((cfg.notify, part, cfg.ca_file, cfg.timeout))
    if not job.run.several:
        send_notices(job.log, job.run)


def about(job, outcome, since):
    """(what, its line) of a record's run for a notice: the record, type, line and provider, then the
    old and the new address, or the failure and its fix; its secrets masked (the job's log)."""
    import time
    from ddkit import CREATED, FAILED, REMOVED, UPDATED
    cfg, failure = job.cfg, job.failure
    subject = '%s %s%s (%s)' % (cfg.record_name, cfg.record_type, ' line %s' % job.line if job.line else '',
                                job.provider.NAME)
    what = {UPDATED: 'updated', CREATED: 'created', REMOVED: 'removed', FAILED: 'failed'}.get(outcome)
    if outcome == UPDATED:
        said = '%s -> %s' % (job.old_ip or 'unknown', job.new_ip)
    elif outcome == CREATED:
        said = job.new_ip
    elif outcome == REMOVED:
        said = 'it held %s; the line has no address' % (job.old_ip or 'unknown')
    elif outcome == FAILED:
        fix = failure.fix if failure.fix and 'fix: ' not in str(failure) else None
        said = '%s%s' % (failure, '; fix: %s' % fix if fix else '')
    else:
        said = 'holds %s' % job.new_ip
    if since is not None and outcome != FAILED:
        from ddkit import decimal
        began = decimal(since) if len(since) <= 12 else None   # the status file's epoch seconds
        stamp = time.strftime('%Y-%m-%d %H:%M', time.localtime(began)) if began else 'an earlier run'
        what, header, said = 'recovered', 'recovered, %s' % what if what else 'recovered', \
            '%s (failing since %s)' % (said, stamp)
    else:
        header = what
    from ddkit.notices import PART_MAX, cut
    return what, cut(job.log.clean('%s %s: %s' % (subject, header, said)), PART_MAX)


def send_notices(log, run):
    """Send the run's notices and those kept from earlier runs (ddkit.notices, imported only when there
    is one); never fails the run. Kept in the directory where a run keeps what is no record's own (the
    state directory of its first record: ddkit.KEEP_DIR, set by every run that writes state)."""
    import ddkit
    notes, run.notices, directory = run.notices, [], ddkit.KEEP_DIR[0]
    if directory is None or not any(part for _, part, _, _ in notes) and \
            not os.path.exists(os.path.join(directory, ddkit.NOTICES_FILE)):
        return
    from ddkit import notices
    notices.deliver(log, notes, directory)


def merge(one, other):
    """The verdict of two records sharing a check: a failure wins, then "not judged" (None), then ok."""
    if one is False or other is False:
        return False
    return None if one is None or other is None else True


def after_run(log, tool, on_change, healthcheck_url, ok, event=None, ca_file=None):
    """The hook when event (a change or a failure) is given, then the ping (none when ok is None): at
    most one of each."""
    if on_change and event:
        run_hook(log, tool, on_change, event)
    if healthcheck_url and ok is not None:
        ping(log, healthcheck_url, ok, ca_file)


def hook_environment(log, tool, event):
    """The hook's whole environment: neutral variables of ours and the details, secrets masked."""
    env = {name: os.environ[name] for name in INHERIT if name in os.environ}
    env.setdefault('PATH', DEFAULT_PATH)
    env['DDNS_HOOK_TOOL'] = tool
    for key in set(EVENT) | set(event):  # the updaters add step and line, egress6 its operator
        env['DDNS_HOOK_' + key.upper()] = str(event.get(key) or '')
    # log.clean masks every secret of the run and escapes control characters (a provider's text)
    return {name: log.clean(value).replace('\0', '') for name, value in env.items()}


def run_hook(log, tool, command, event):
    """Run on_change once, bounded in time; its exit status and first output line go to the log."""
    from ddkit import proc
    argv = split_command(command)
    name = os.path.basename(argv[0])
    path = program(argv[0])
    why = untrusted(path) if path else 'no such file' if os.path.isabs(argv[0]) else \
        'not found on PATH (%s)' % os.environ.get('PATH', DEFAULT_PATH)
    if why:
        log.error('on_change: %s not run: %s' % (name, why))
        return None
    try:
        code, out, err = proc.run([path] + argv[1:], timeout=HOOK_TIMEOUT, group=True, limit=OUTPUT_KEEP,
                                  env=hook_environment(log, tool, event))
    except TimeoutError:
        log.error('on_change: %s did not finish within %d s: stopped (with its children)'
                  % (name, HOOK_TIMEOUT))
        return None
    except OSError as e:
        fix = '; fix: chmod +x %s' % path if isinstance(e, PermissionError) and not os.access(path, os.X_OK) else ''
        log.error('on_change: cannot run %s: %s%s' % (path, e.strerror or e, fix))
        return None
    line = first_line(out) or first_line(err)
    said = ': %s' % line if line else ' (no output)'
    if code == 0:
        log.info('on_change: %s exited 0%s' % (name, said))
    else:
        log.error('on_change: %s failed (%s)%s' % (name, 'exit %d' % code if code > 0 else
                                                   'signal %d' % -code, said))
    return code


def program(word):
    """The file the hook's first word names: itself when a path, else the first on PATH; or None."""
    if os.path.isabs(word):
        return word if os.path.isfile(word) else None
    for folder in os.environ.get('PATH', DEFAULT_PATH).split(os.pathsep):
        path = os.path.join(folder, word)
        if os.path.isabs(folder) and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def untrusted(path):
    """Why another user could have made or changed the hook program (run as root), or None: the path
    as given (a link too), the file it leads to, and every directory above both (state.untrusted)."""
    if os.name != 'posix':
        return None
    from ddkit import state
    real = os.path.realpath(path)
    for what, where in ([('link', path)] if real != path else []) + [('program', real)]:
        try:
            st = os.lstat(where)
        except OSError as e:
            return 'cannot read %s: %s' % (where, e.strerror)
        # a link's own mode means nothing (always 0777)
        if st.st_uid not in (0, os.geteuid()) or what == 'program' and st.st_mode & 0o022:
            return ('%s %s is owned by another user or writable by others (mode %o): make it root\'s and '
                    'not group/world-writable' % (what, where, st.st_mode & 0o7777))
    for directory in (os.path.dirname(path), os.path.dirname(real)):
        found = state.untrusted(directory)
        if found:
            return 'directory %s; fix: %s' % found
    return None


def first_line(text):
    """The first non-blank line of the hook's output, cut to LINE_MAX characters."""
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= LINE_MAX else line[:LINE_MAX] + '...'
    return ''


def ping_url(url, ok):
    """Healthchecks.io's convention: <url> after a good run, <url>/fail after a failed one."""
    base, mark, query = url.partition('?')
    return base.rstrip('/') + ('' if ok else '/fail') + mark + query


def ping(log, url, ok, ca_file=None):
    """One GET, no retry, PING_TIMEOUT; a failure is logged and changes nothing else. True when sent."""
    from ddkit import Failure, http
    _, host, _, _ = http.split_url(url)
    # the URL is the check's credential (anyone who has it can ping): only its host is ever logged
    for secret in (url, url.partition('?')[0]):
        log.add_secret(secret)
    target = ping_url(url, ok)
    try:
        answer = http.request('GET', target, 'health-check ping', timeout=PING_TIMEOUT, ca_file=ca_file,
                              retries=0, max_body=4096)
    except Failure as e:
        log.info('Health-check ping to %s failed (the run\'s outcome stands): %s' % (host, e))
        return False
    if answer.status >= 300:
        log.info('Health-check ping to %s failed (the run\'s outcome stands): HTTP %d %s'
                 % (host, answer.status, http.snippet(answer.text, 80)))
        return False
    return True
