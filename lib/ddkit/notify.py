"""Tell someone after a run: the on_change hook and the health-check ping.

Imported only when on_change or healthcheck_url is set: a run without them loads nothing of this.
The hook runs once the record's lock is released, without a shell, with only the DDNS_HOOK_*
details and a few neutral variables in its environment (no setting: so no secret), and is stopped
with its children after HOOK_TIMEOUT seconds: it can hold neither the lock nor the next run. The
ping is one GET, no retry, a short timeout, no credential; its failure is logged, never the run's.
"""

from ddkit.native import os

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


def split_command(value):
    """on_change as argv, never run by a shell: words split at blanks, '...' taken as it is, "..."
    and \\ as in sh (shlex.split's words); $, ;, |, > and * are plain characters.
    ValueError when a quote is open or no program is named (shlex would import re: start-up cost)."""
    argv, word, quote, escaped, started = [], [], None, False, False
    for c in value:
        if escaped:  # inside "...", as in sh, \\ escapes only " and \\
            word.append(c if quote is None or c in '"\\' else '\\' + c)
            escaped = False
        elif c == '\\' and quote != "'":
            escaped = started = True
        elif quote:
            if c == quote:
                quote = None
            else:
                word.append(c)
        elif c in '"\'':
            quote, started = c, True
        elif c in ' \t':
            if started:
                argv.append(''.join(word))
            word, started = [], False
        else:
            word.append(c)
            started = True
    if quote or escaped:
        raise ValueError('a quote or a backslash is not closed; quote with \' or "')
    if started:
        argv.append(''.join(word))
    if not argv or not argv[0]:
        raise ValueError('must name a program, e.g. /etc/ddns/notify.sh')
    if '/' in argv[0] and not os.path.isabs(argv[0]):
        raise ValueError('the program must be an absolute path or a name found on PATH')
    return argv


def tell(job, outcome):
    """After a record's run (ddkit.reconcile.run), by its outcome: the on_change hook after a change
    or a failure, then the health-check ping. A run that found no valid current IP judged nothing: no
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
        job.run.pings[url] = (merge(job.run.pings.get(url, (True,))[0], ok), cfg.ca_file, cfg.proxy or '')
        url = None
    after_run(job.log, job.tool, cfg.on_change, url, ok, event, cfg.ca_file)


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
