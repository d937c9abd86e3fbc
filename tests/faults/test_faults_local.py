"""Fault matrix, local rows: the state directory read-only or full, the tool killed while writing,
ten runs at once, damaged state files, a clock off by a day."""

import os
import random
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT
from faultkit import NEW, OLD, fill, mount_tmpfs, per_tool, remount, rig  # noqa: F401  (rig is a fixture)
import needs  # noqa: E402


def assert_healed(rig):
    again = rig.run()
    assert again.returncode == 0, rig.output(again)
    assert rig.content() == NEW and rig.ip_state() == NEW
    assert rig.ids_ok()
    rig.assert_no_secret()
    rig.token_files_private()


def leftovers(rig):
    return [n for n in os.listdir(rig.state_dir) if '.tmp' in n]


def test_state_dir_read_only(rig, request):
    request.addfinalizer(mount_tmpfs(rig.state_dir))
    rig.seed(ids_file=True)
    before = {n: rig.read(n) for n in os.listdir(rig.state_dir)}
    remount(rig.state_dir, 'ro')
    done = rig.run()
    out = rig.output(done)
    assert done.returncode == 1, out
    assert 'Read-only file system' in out and 'Traceback' not in out
    assert {n: rig.read(n) for n in os.listdir(rig.state_dir)} == before
    assert rig.content() == OLD and rig.updates() == 0  # no lock, no run: nothing is sent
    remount(rig.state_dir, 'rw')
    assert_healed(rig)


def test_disk_full_keeps_old_state(rig, request):
    request.addfinalizer(mount_tmpfs(rig.state_dir, size='64k'))
    rig.seed(ids_file=False)
    filler = os.path.join(rig.state_dir, 'filler')
    fill(filler)
    done = rig.run()
    out = rig.output(done)
    assert done.returncode == 1, out
    assert 'No space left on device' in out and 'Traceback' not in out
    # the ip file went before the update was sent (a removal needs no space): it claims nothing,
    # never a truncated line; B used its token without caching it
    assert rig.ip_state() is None and (rig.name == 'A' or 'going on without it' in out)
    assert rig.content() == NEW
    assert rig.read(rig.ids_name) in (None, rig.ids_text())   # the removal may have freed its room
    assert leftovers(rig) == []
    os.unlink(filler)
    assert_healed(rig)


def test_sigkill_while_writing_state_never_leaves_a_mix(rig):
    """50 runs killed at random points: every state file holds the old or the new content (the ip
    file may be gone: it goes before a write is sent)."""
    rig.seed(ids_file=False)
    full = None
    for ip in (NEW, '81.2.70.99'):                         # two full runs: how long one takes
        rig.box.lookup.answer = ip
        started = time.monotonic()
        first = rig.run()
        full = min(full or 60, time.monotonic() - started)
        assert first.returncode == 0, rig.output(first)
    seed = random.randrange(1 << 30)
    rnd = random.Random(seed)
    names = [rig.ip_name, rig.ids_name] + list(rig.token_names)
    outcomes = {'old': 0, 'new': 0, 'gone': 0}
    for i in range(50):
        ip = '81.2.70.%d' % (i + 1)
        rig.box.lookup.answer = ip
        before = {n: rig.read(n) for n in names}
        try:
            rig.run(timeout=rnd.uniform(0.6, 1.4) * full)  # run_tool kills the tool (SIGKILL) on timeout
            rig.runs.pop()
        except subprocess.TimeoutExpired:
            pass
        for name in names:
            text = rig.read(name)
            assert text != '', 'seed %d: %s is empty' % (seed, name)
            if name == rig.ip_name:
                assert text in (before[name], ip + '\n', None), 'seed %d: ip file holds %r' % (seed, text)
                assert text in (ip + '\n', None) or rig.content() + '\n' == text, 'seed %d: false claim' % seed
                outcomes['new' if text == ip + '\n' else 'old' if text else 'gone'] += 1
                full *= 0.87 if text == ip + '\n' else 1.15  # home in on the moment the file is written
            elif name == rig.ids_name:
                assert text in (before[name], rig.ids_text()), 'seed %d: ids file holds %r' % (seed, text)
            else:
                assert text == before[name] or rig.token_line_ok(text), 'seed %d: %s holds %r' % (seed, name, text)
    print('SIGKILL outcomes (seed %d): %s' % (seed, outcomes))
    rig.box.lookup.answer = NEW
    assert_healed(rig)
    assert outcomes['new'] and outcomes['old'] + outcomes['gone'], outcomes   # kills before and after the write
    assert leftovers(rig) == [], 'temporary files of killed runs pile up'


def test_ten_runs_at_once_send_one_update(rig):
    rig.seed(ids_file=True)
    results = [None] * 10

    def one(i):
        results[i] = rig.run(timeout=60)
    threads = [threading.Thread(target=one, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert rig.updates() == 1, rig.provider.calls()
    for done in results:
        out = rig.output(done)
        assert done.returncode == 0 or (done.returncode == 1 and 'another run' in out), out
        assert 'Traceback' not in out
    assert sum('IP has been updated to: ' + NEW in d.stdout for d in results) == 1
    assert rig.content() == NEW and rig.ip_state() == NEW


# each damage with both updaters; under make test with one of them, in turn (faultkit.per_tool)
DAMAGED_IDS = per_tool([('0 lines', ''), ('1 line', 'one-line\n'), ('3 lines', 'a\nb\nc\n'),
                        ('binary garbage', b'\xff\xfe\x00garbage\x00\n\x80\n'),
                        ('text garbage', '<html>\n../../etc/passwd\n'), ('2 lines of a deleted record', 'stale')])


@pytest.mark.parametrize('rig, ids', [(tool, ids) for tool, (_, ids) in DAMAGED_IDS], indirect=['rig'],
                         ids=['%s-%s' % (tool, name) for tool, (name, _) in DAMAGED_IDS])
def test_damaged_ids_file_is_rebuilt(rig, ids):
    rig.seed()
    writes = 1
    if ids == 'stale':
        ids = '%s\n%s\n' % (rig.zone_id, 'f' * 32)
        # B, rules 2 and 3: the update of the gone id fails, the create meets the existing
        # recordset (DNS.0312), which is then found and updated; its id replaces line 2
        writes = 3 if rig.name == 'B' else 1
    rig.write(rig.ids_name, ids)
    done = rig.run()
    assert done.returncode == 0, rig.output(done)
    assert rig.content() == NEW and rig.ip_state() == NEW and rig.ids_ok()
    assert rig.updates() == writes
    assert_healed(rig)


DAMAGED_IP = per_tool([('words', 'not an ip\n'), ('binary', b'\xff\x00\x81\n'), ('empty', ''),
                       ('out of range', '999.1.1.1\n'), ('wrong family', '2606:4700::1\n'),
                       ('huge', '81.2.69.1 81.2.69.1\n' * 500)])


@pytest.mark.parametrize('rig, text', [(tool, text) for tool, (_, text) in DAMAGED_IP], indirect=['rig'],
                         ids=['%s-%s' % (tool, name) for tool, (name, _) in DAMAGED_IP])
def test_damaged_ip_file_falls_back_to_doh(rig, text):
    rig.seed()
    rig.write(rig.ip_name, text)
    done = rig.run()
    assert done.returncode == 0, rig.output(done)
    assert 'Traceback' not in rig.output(done)
    assert rig.content() == NEW and rig.ip_state() == NEW
    assert_healed(rig)


@pytest.mark.parametrize('offset', [-86400, 86400], ids=['server clock a day behind', 'a day ahead'])
def test_clock_off_by_a_day(rig, offset):
    for server in rig.box.servers:
        server.clock_offset = offset
    rig.seed()
    done = rig.run()
    assert done.returncode == 0, rig.output(done)
    assert rig.content() == NEW and rig.ip_state() == NEW
    rig.clock_checks(offset)
    assert_healed(rig)


@pytest.mark.parametrize('shift', ['-1d', '+1d'], ids=['tool clock a day behind', 'a day ahead'])
def test_tool_clock_off_by_a_day(rig, shift):
    """The router's own clock is off (no NTP yet after a boot): libfaketime shifts the tool's clock.
    For B the cached token was issued 25 hours ago, so the provider has expired it: a clock a day
    behind still takes it as valid (the API refuses it: dropped, one new token), a clock a day
    ahead takes it as expired (one new token). Either way one token request and the update."""
    import shutil
    if not shutil.which('faketime'):
        needs.missing('faketime is not installed (apt-get install faketime)')
    rig.seed()
    if rig.name == 'B':
        token = rig.provider.issue_token(ttl=-3600)
        rig.write(rig.auth_name, '%d %s\n' % (time.time() - 3600, token))
    done = rig.run(prefix=['faketime', '-f', shift])
    assert done.returncode == 0, rig.output(done)
    assert rig.content() == NEW and rig.ip_state() == NEW
    if rig.name == 'B':
        assert rig.calls('token') == 1
        rig.clock_checks(0)   # the new token's expiry comes from the provider's Date, not our clock
    assert_healed(rig)


def auth_garbage(rig):
    return b'\xff\xfe garbage \x00\n'


def auth_expired(rig):
    return '%d %s\n' % (time.time() - 60, rig.provider.issue_token())


def auth_far_future_revoked(rig):
    token = rig.provider.issue_token()
    rig.provider.revoke(token)
    return '%d %s\n' % (time.time() + 10 * 365 * 86400, token)


def auth_no_token(rig):
    return '%d\n' % (time.time() + 3600)


def auth_readable(rig):
    return '%d %s\n' % (time.time() + 3600, rig.provider.issue_token())


@pytest.mark.parametrize('rig', ['B'], indirect=True)   # updater A keeps no token
@pytest.mark.parametrize('auth, new_token', [(auth_garbage, True), (auth_expired, True),
                                              (auth_far_future_revoked, True), (auth_no_token, True),
                                              (auth_readable, False)],
                         ids=['garbage', 'expiry past', 'expiry far future, token revoked', 'no token',
                              'valid but readable by others'])
def test_damaged_auth_file(rig, auth, new_token):
    rig.seed()
    rig.write(rig.auth_name, auth(rig))
    os.chmod(os.path.join(rig.state_dir, rig.auth_name), 0o644)
    issued = len(rig.provider.issued)
    done = rig.run()
    out = rig.output(done)
    assert done.returncode == 0, out
    assert 'Traceback' not in out
    assert rig.content() == NEW and rig.ip_state() == NEW
    assert len(rig.provider.issued) == issued + new_token, out
    expiry, token = rig.token_line()
    assert token == rig.provider.issued[-1] and expiry > time.time()
    assert_healed(rig)
    assert len(rig.provider.issued) == issued + new_token  # the healed run reuses the cached token


def test_a_refused_token_in_a_directory_the_run_cannot_write_is_no_traceback(request, tmp_path, for_others):
    """Updater B run by its owner, nobody, in a state directory it can no longer write (0500), when
    its record is due for verification: the cached token is refused, its file cannot be removed,
    the new token cannot be cached. Each is said in one line and the run goes on: the record is
    read, holds the IP, and the ip file's time (which needs no write to the directory) says so."""
    import pwd
    import shutil
    import tempfile
    from conftest import RECORD, run_tool
    from faultkit import make_rig
    from netns import user_group
    python = '/usr/bin/python3'   # a Python nobody can start (not one under /root)
    if os.geteuid() != 0 or not shutil.which('setpriv') or not os.path.exists(python):
        needs.missing('needs root, setpriv (util-linux) and %s to run the tool as nobody' % python)
    rig = make_rig('B', tmp_path)
    request.addfinalizer(rig.box.stop)
    base = tempfile.mkdtemp(prefix='ddkit-ro-', dir='/tmp')   # under /tmp: sticky, so trusted
    request.addfinalizer(lambda: shutil.rmtree(base, ignore_errors=True))
    os.chmod(base, 0o755)
    rig.state_dir = os.path.join(base, 'state')
    os.mkdir(rig.state_dir)
    rig.seed(ids_file=True)
    rig.provider.recordsets[rig.rid]['records'] = [NEW]
    rig.write(rig.ip_name, NEW + '\n')
    os.utime(os.path.join(rig.state_dir, rig.ip_name), (time.time() - 2 * 86400,) * 2)
    token = rig.provider.issue_token()
    rig.write(rig.auth_name, '%d %s\n' % (time.time() + 3600, token))
    rig.provider.tokens[token]['revoked'] = True
    rig.write('.updater_b_%s.lock' % RECORD, '')
    user = pwd.getpwnam('nobody')
    for name in os.listdir(rig.state_dir) + ['']:
        os.chown(os.path.join(rig.state_dir, name), user.pw_uid, user.pw_gid)
    os.chmod(rig.state_dir, 0o500)
    prefix = ['setpriv', '--reuid=nobody', '--regid=%s' % user_group('nobody'), '--clear-groups']
    tool, guard = for_others(rig.tool)   # the checkout may be closed to nobody
    env = dict(rig.env(), DDNS_LOG_FILE=os.path.join(base, 'b.log'), **guard)
    done = run_tool(tool, env=env, prefix=prefix, python=python)
    out = rig.output(done)
    assert done.returncode == 0 and 'Traceback' not in out, out
    assert 'cannot remove state file %s' % os.path.join(rig.state_dir, rig.auth_name) in out
    assert 'cannot write state file %s' % os.path.join(rig.state_dir, rig.auth_name) in out and 'going on without it' in out
    assert 'already holds %s; nothing sent.' % NEW in out and rig.updates() == 0 and rig.read(rig.auth_name)
    assert time.time() - os.stat(os.path.join(rig.state_dir, rig.ip_name)).st_mtime < 60
    # changed at the provider meanwhile: the ip file cannot be taken away first, so nothing is sent
    rig.provider.recordsets[rig.rid]['records'] = [OLD]
    done = run_tool(tool, env=dict(env, DDNS_VERIFY_INTERVAL='0'), prefix=prefix, python=python)
    out = rig.output(done)
    assert done.returncode == 1 and 'Traceback' not in out, out
    assert 'before the update' in out and 'nothing was sent' in out and rig.updates() == 0
    assert rig.ip_state() == NEW and rig.content() == OLD


def test_disk_full_in_the_middle_of_a_log_line_leaves_whole_lines(tmp_path, request):
    """A write the full disk cuts short is taken back: the log keeps whole lines only."""
    sys.path.insert(0, os.path.join(ROOT, 'lib'))
    from ddkit.log import Log
    directory = str(tmp_path / 'small')
    request.addfinalizer(mount_tmpfs(directory, size='4k'))   # one page
    path = os.path.join(directory, 'log')
    earlier = b'[2026-01-01 00:00:00] - an earlier line\n' * 100    # 4,000 bytes: 96 left
    with open(path, 'wb') as f:
        f.write(earlier)
    log = Log(path, quiet=True)
    log.info('a line longer than the room left: ' + 'x' * 300)
    log.close()
    with open(path, 'rb') as f:
        assert f.read() == earlier


def test_a_log_that_cannot_be_cut_is_not_written_past_its_bound(tmp_path, request):
    """A sealed state directory (chattr +i: files written in place, none made or renamed): the line that
    would take the log past LOG_MAX is not written, as the cut file cannot be made; the log stays
    within its bound, and a line that fits is still written."""
    sys.path.insert(0, os.path.join(ROOT, 'lib'))
    from ddkit.log import LOG_MAX, Log
    directory = str(tmp_path / 'sealed')
    request.addfinalizer(mount_tmpfs(directory, size='1m'))   # room: only the seal refuses
    path = os.path.join(directory, 'log')
    line = b'[2026-01-01 00:00:00] - an earlier line\n'
    earlier = line * ((LOG_MAX - 60) // len(line))   # room for one short line, not for a long one
    with open(path, 'wb') as f:
        f.write(earlier)
    sealed = subprocess.run(['chattr', '+i', directory], capture_output=True, text=True)
    if sealed.returncode:
        needs.missing('chattr +i on a tmpfs: %s' % sealed.stderr.strip())
    request.addfinalizer(lambda: subprocess.run(['chattr', '-i', directory], capture_output=True))
    log = Log(path, quiet=True)
    log.info('short')
    log.info('a line that would take the log past its bound: ' + 'x' * 200)
    log.close()
    with open(path, 'rb') as f:
        data = f.read()
    assert len(data) <= LOG_MAX and data.startswith(earlier) and data.endswith(b' - short\n'), len(data)
