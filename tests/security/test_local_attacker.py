"""Issue 13, a local attacker against a root run: an unprivileged user (nobody) plants links and files
in a state directory the tools trust (sticky, group-writable), or owns the directory, its parent or
the config file. No root run may create, truncate, append to, chmod or read a file through a link,
hand a secret to a file the attacker made, or run at all in a directory the attacker can change."""

import os
import stat

import pytest

from attacker import as_user, place  # noqa: F401  (place: the fixture)
from faultkit import NEW, OLD, make_rig

LOG_MAX = 64 * 1024   # ddkit.log: past it, the log is trimmed (copied) to its newest part
TAIL = 'ROOT-ONLY-TAIL'


@pytest.fixture(params=['A', 'B'])
def rig(request, tmp_path, place):
    """The fault matrix's rig of one updater, its state directory the attacker's shared one."""
    made = make_rig(request.param, tmp_path)
    made.state_dir = place.state
    yield made
    made.box.stop()


def lock_name(rig):
    return '.%s_%s.lock' % (rig.tool, 'home.example.com')


def names(rig):
    return {'ip': rig.ip_name, 'ids': rig.ids_name, 'log': rig.log_name, 'lock': lock_name(rig),
            'token': getattr(rig, 'auth_name', None)}


# --- links at state, log, lock and token cache paths ----------------------------------------------
def test_a_link_at_the_ip_file_is_not_read_through(rig, place):
    rig.seed(ip_file=False)
    place.victim_file(NEW + '\n')   # read through the link, it would say "not changed"
    place.plant_link(rig.ip_name, place.victim)
    done = rig.run()
    assert done.returncode == 0, rig.output(done)
    assert rig.content() == NEW, rig.output(done)
    assert place.victim_state() == (NEW + '\n', 0o600, 0)
    assert not os.path.islink(os.path.join(rig.state_dir, rig.ip_name))   # replaced by a file of root
    assert rig.ip_state() == NEW


def test_a_link_at_the_ids_file_is_not_read_through(rig, place):
    rig.seed()
    place.victim_file('zone-of-root\nrecord-of-root\n')
    place.plant_link(rig.ids_name, place.victim)
    done = rig.run()
    assert done.returncode == 0, rig.output(done)
    assert rig.content() == NEW and rig.ids_ok(), rig.output(done)
    assert place.victim_state() == ('zone-of-root\nrecord-of-root\n', 0o600, 0)
    assert not any('of-root' in req.path for req in rig.provider.requests)   # never read, so never sent


def test_a_link_at_the_log_is_neither_appended_to_nor_copied_by_the_trim(rig, place):
    rig.seed()
    big = ('x' * 99 + '\n') * (LOG_MAX // 100 + 1) + TAIL + '\n'   # over LOG_MAX: a trim would copy it
    place.victim_file(big)
    place.plant_link(rig.log_name, place.victim)
    done = rig.run()
    assert done.returncode == 0 and rig.content() == NEW, rig.output(done)
    assert place.victim_state() == (big, 0o600, 0)
    assert 'cannot write log file' in done.stderr and 'symbolic link' in done.stderr, done.stderr
    for name in os.listdir(rig.state_dir):
        path = os.path.join(rig.state_dir, name)
        if not os.path.islink(path):
            with open(path, errors='replace') as f:
                assert TAIL not in f.read(), name


def test_a_link_at_the_lock_creates_nothing(rig, place):
    rig.seed()
    place.plant_link(lock_name(rig), place.victim)   # the victim does not exist: the link dangles
    done = rig.run()
    assert done.returncode == 1, rig.output(done)
    assert 'cannot create lock file' in done.stdout and 'symbolic link' in done.stdout, rig.output(done)
    assert place.victim_state() is None
    assert rig.content() == OLD


@pytest.mark.parametrize('rig', ['B'], indirect=True)   # updater A keeps no token
def test_a_link_at_the_token_cache_is_neither_read_nor_chmod_ed(rig, place):
    rig.seed()
    place.victim_file('%d stolen-token-of-root\n' % (2 ** 40), mode=0o644)
    place.plant_link(rig.auth_name, place.victim)
    done = rig.run()
    assert done.returncode == 0 and rig.content() == NEW, rig.output(done)
    assert place.victim_state() == ('%d stolen-token-of-root\n' % (2 ** 40), 0o644, 0)
    assert 'stolen-token-of-root' not in repr(rig.box.provider_b.requests)
    path = os.path.join(rig.state_dir, rig.auth_name)
    st = os.lstat(path)
    assert stat.S_ISREG(st.st_mode) and st.st_uid == 0 and st.st_mode & 0o777 == 0o600


def test_a_fifo_at_a_state_file_does_not_hang_the_run(rig, place):
    rig.seed(ip_file=False)
    as_user('mkfifo -m 666 "%s"' % os.path.join(rig.state_dir, rig.ip_name))
    done = rig.run(timeout=30)   # only a safety net: opened as before, the run blocks for good
    assert done.returncode == 0 and rig.content() == NEW, rig.output(done)


# --- temporary files: unpredictable names, created exclusively -------------------------------------
def test_a_file_pre_created_at_a_guessable_temporary_name_never_receives_a_secret(rig, place):
    """The run gets pid 1 in a PID namespace of its own, so the old `<file>.tmp<pid>` names are known
    in advance: the attacker makes them all, writable by everyone."""
    rig.seed(ip_file=False)
    targets = [n for n in (rig.ip_name, rig.ids_name, getattr(rig, 'auth_name', None)) if n]
    for name in targets:
        for pid in range(1, 20):
            place.plant_file('%s.tmp%d' % (name, pid))
    done = rig.run(prefix=['unshare', '--pid', '--fork'])
    assert done.returncode == 0 and rig.content() == NEW, rig.output(done)
    for name in os.listdir(rig.state_dir):
        path = os.path.join(rig.state_dir, name)
        st = os.lstat(path)
        with open(path, errors='replace') as f:
            text = f.read()
        if st.st_uid != 0:   # the attacker's files hold nothing of the run
            assert text == '' and name not in targets, (name, text)
        if name in targets:
            assert st.st_uid == 0, name
    # and the attacker cannot read any secret the run wrote
    for name in os.listdir(rig.state_dir):
        seen = as_user('cat "%s"' % os.path.join(rig.state_dir, name), check=False).stdout
        assert not any(s in seen for s in rig.secrets), name


def test_temporary_files_of_a_killed_writer_go_and_those_of_a_running_one_stay(rig, place):
    """The pid stays in the temporary name (the random part after it), so the clean-up after a write
    still tells a writer killed mid-write from one still writing."""
    rig.seed(ip_file=False)
    os.chmod(place.state, 0o755)
    gone = _dead_pid()
    dead = ['%s.tmp%d' % (rig.ip_name, gone), '%s.tmp%d.0123456789ab' % (rig.ip_name, gone)]
    alive = ['%s.tmp%d.0123456789ab' % (rig.ip_name, os.getpid())]
    for name in dead + alive:
        rig.write(name, 'half')
    done = rig.run()
    assert done.returncode == 0 and rig.content() == NEW, rig.output(done)
    left = [n for n in os.listdir(rig.state_dir) if '.tmp' in n]
    assert left == alive


def test_temporary_names_with_odd_numbers_are_no_traceback_and_stay(rig, place):
    """A name with a pid past any pid_max or with non-ASCII digits is no temporary file of ours."""
    rig.seed(ip_file=False)
    os.chmod(place.state, 0o755)
    odd = ['%s.tmp%s' % (rig.ip_name, n) for n in ('9' * 25, '\u0663\u0663', '99999999')]
    for name in odd:
        rig.write(name, 'half')
    done = rig.run()
    assert done.returncode == 0 and rig.content() == NEW, rig.output(done)
    assert 'Traceback' not in rig.output(done)
    assert sorted(n for n in os.listdir(rig.state_dir) if '.tmp' in n) == sorted(odd)


def _dead_pid():
    import subprocess
    child = subprocess.Popen(['true'])
    child.wait()
    return child.pid


# --- the state directory: trusted only when no other user can change it ----------------------------
def make_untrusted(place, how):
    """Make the state directory (or its parent) one the attacker could change; returns the culprit."""
    import grp
    import pwd
    if how == 'world-writable':
        os.chmod(place.state, 0o777)
        return place.state
    if how == 'group-writable':
        os.chmod(place.state, 0o770)
        return place.state
    if how == 'owned by another user':
        os.chown(place.state, pwd.getpwnam('nobody').pw_uid, grp.getgrnam('root').gr_gid)
        os.chmod(place.state, 0o700)
        return place.state
    if how == 'parent writable':
        os.chmod(place.state, 0o755)
        os.chmod(place.base, 0o777)
        return place.base
    raise ValueError(how)


UNTRUSTED = ['world-writable', 'group-writable', 'owned by another user', 'parent writable']


@pytest.mark.parametrize('how', UNTRUSTED)
def test_a_state_directory_others_can_change_stops_the_run_with_one_line(rig, place, how):
    rig.seed()
    culprit = make_untrusted(place, how)
    before = sorted(os.listdir(place.state))
    done = rig.run()
    assert done.returncode == 1, rig.output(done)
    assert done.stdout == '' and done.stderr.count('\n') == 1, rig.output(done)
    assert 'directory %s cannot be trusted: %s' % (place.state, culprit) in done.stderr, done.stderr
    assert 'fix: chown root %s; chmod go-w %s' % (culprit, culprit) in done.stderr, done.stderr
    assert sorted(os.listdir(place.state)) == before     # no lock, no log, nothing
    assert sum(len(s.requests) for s in rig.box.servers) == 0
    assert rig.content() == OLD


def test_a_state_directory_reached_through_a_link_is_judged_where_it_leads(rig, place):
    rig.seed()
    theirs = os.path.join(place.base, 'theirs')
    os.chmod(place.base, 0o777)
    as_user('mkdir -m 700 "%s"' % theirs)
    os.chmod(place.base, 0o711)
    os.symlink(theirs, os.path.join(place.base, 'link'))
    rig.state_dir = os.path.join(place.base, 'link')
    done = rig.run()
    assert done.returncode == 1, rig.output(done)
    assert 'cannot be trusted: %s (owner uid' % theirs in done.stderr, done.stderr
    assert os.listdir(theirs) == []


@pytest.mark.parametrize('how', ['sticky and world-writable', 'sticky and group-writable'])
def test_a_sticky_state_directory_is_trusted(rig, place, how):
    os.chmod(place.state, 0o1777 if how.endswith('world-writable') else 0o1770)
    rig.seed()
    done = rig.run()
    assert done.returncode == 0 and rig.content() == NEW, rig.output(done)


def test_a_log_file_in_a_directory_others_can_change_stops_the_run(rig, place):
    rig.seed()
    logs = os.path.join(place.base, 'logs')
    os.mkdir(logs)
    os.chmod(logs, 0o777)
    done = rig.run(env={'DDNS_LOG_FILE': os.path.join(logs, 'ddns.log')})
    assert done.returncode == 1 and 'directory %s cannot be trusted' % logs in done.stderr, rig.output(done)
    assert os.listdir(logs) == [] and rig.content() == OLD


@pytest.mark.parametrize('how', UNTRUSTED)
def test_check_gives_the_same_verdict(rig, place, how):
    rig.seed()
    culprit = make_untrusted(place, how)
    done = rig.run('--check')
    assert done.returncode == 1, rig.output(done)
    fail = [ln for ln in done.stdout.splitlines() if ln.startswith('FAIL  directory %s' % place.state)]
    assert len(fail) == 1 and 'cannot be trusted: %s' % culprit in fail[0], done.stdout
    assert '-- fix: chown root %s; chmod go-w %s' % (culprit, culprit) in fail[0], done.stdout


# --- modes whatever the umask ------------------------------------------------------------------------
@pytest.mark.parametrize('umask', [0o000, 0o277])
def test_modes_whatever_the_umask(rig, place, umask):
    rig.seed(ip_file=False)
    os.chmod(place.state, 0o755)
    rig.state_dir = os.path.join(place.state, 'new', 'dir')   # made by the run
    old = os.umask(umask)
    try:
        done = rig.run()
    finally:
        os.umask(old)
    assert done.returncode == 0 and rig.content() == NEW, rig.output(done)
    for path in (os.path.join(place.state, 'new'), rig.state_dir):
        assert os.stat(path).st_mode & 0o7777 == 0o700, path
    modes = {name: os.stat(os.path.join(rig.state_dir, name)).st_mode & 0o7777
             for name in os.listdir(rig.state_dir)}
    # the status holds no secret (a failure's line is masked as in the log): readable, as the ip file
    expected = {rig.ip_name: 0o644, rig.ids_name: 0o644, rig.log_name: 0o600, lock_name(rig): 0o600,
                '.%s_%s.status' % (rig.tool, 'home.example.com'): 0o644}
    if rig.name == 'B':
        expected[rig.auth_name] = 0o600
    assert modes == expected


def test_a_log_others_could_write_loses_that_permission_and_a_chosen_0644_stays(rig, place):
    rig.seed()
    log = os.path.join(rig.state_dir, rig.log_name)
    with open(log, 'w') as f:
        f.write('[2026-01-01 00:00:00] - an older line\n')
    os.chmod(log, 0o666)
    done = rig.run()
    assert done.returncode == 0, rig.output(done)
    assert os.stat(log).st_mode & 0o7777 == 0o644
    rig.box.lookup.answer = OLD
    os.chmod(log, 0o644)   # the owner's choice: readable by others
    assert rig.run().returncode == 0
    assert os.stat(log).st_mode & 0o7777 == 0o644


# --- the config file ----------------------------------------------------------------------------------
@pytest.mark.parametrize('how, mode', [('owned by another user', 0o600), ('writable by others', 0o622),
                                       ('group-writable', 0o664)])
def test_a_config_file_another_user_can_change_is_refused(rig, place, how, mode):
    """Refused, nothing sent; the fix it names, done as said, makes the file one the run takes without
    a word (its owner's alone: no warning that others can read it)."""
    import pwd
    import subprocess
    rig.seed()
    path = os.path.join(place.base, 'ddns.conf')
    with open(path, 'w') as f:
        f.write(''.join('%s=%s\n' % item for item in rig.credentials().items()))
    owner = pwd.getpwnam('nobody').pw_uid if how == 'owned by another user' else 0
    os.chown(path, owner, -1)
    os.chmod(path, mode)
    done = rig.run('--config', path, drop=rig.credential_env())
    assert done.returncode == 2, rig.output(done)
    assert done.stderr.count('\n') == 1 and 'config file %s (owner uid %d, mode %04o) can be changed by ' \
        'another user: refused' % (path, owner, mode) in done.stderr, done.stderr
    assert sum(len(s.requests) for s in rig.box.servers) == 0
    assert rig.content() == OLD
    fix = done.stderr.rstrip('\n').split('; fix: ', 1)[1]
    subprocess.run(['sh', '-c', fix], check=True)
    done = rig.run('--config', path, drop=rig.credential_env())
    assert done.returncode == 0 and done.stderr == '' and rig.content() == NEW, rig.output(done)


def test_a_uci_file_another_user_owns_is_refused(rig, place):
    import pwd
    rig.seed()
    env = rig.env()
    path = os.path.join(place.base, rig.tool)
    with open(path, 'w') as f:
        f.write("config %s 'home'\n" % rig.tool)
        f.write(''.join("\toption %s '%s'\n" % (k[5:].lower(), v) for k, v in env.items()
                        if k.startswith('DDNS_') and "'" not in v))
    os.chown(path, pwd.getpwnam('nobody').pw_uid, -1)
    done = rig.run('--uci', 'home', env={'DDNS_UCI_FILE': path}, drop=[k for k in env if "'" not in env[k]])
    assert done.returncode == 2, rig.output(done)
    assert done.stderr.count('\n') == 1 and 'UCI file %s (owner uid' % path in done.stderr, done.stderr
    assert sum(len(s.requests) for s in rig.box.servers) == 0 and rig.content() == OLD
    os.chown(path, 0, -1)   # the same file of root: the run goes ahead
    done = rig.run('--uci', 'home', env={'DDNS_UCI_FILE': path}, drop=[k for k in env if "'" not in env[k]])
    assert done.returncode == 0 and rig.content() == NEW, rig.output(done)
