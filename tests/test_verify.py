"""The ip file claims only what the provider holds: it is read again at the provider every
verify_interval (drift healed), and it goes before a write is sent, so a run cut short once the
provider took the write leaves the next run to read the record. Both updaters, over real HTTP."""

import os
import subprocess
import sys
import time

import pytest

from conftest import RECORD, import_guard, sampled, tool_path
from providers import READ as PROVIDERS

# every provider whose records are read under make test-full; make test samples three
BOTH = pytest.mark.parametrize('p', sampled(PROVIDERS, 3), ids=[p.provider for p in sampled(PROVIDERS, 3)])
OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
DAY = 86400


def run(p, box, state, *args, env=None):
    full = {k: v for k, v in os.environ.items() if not k.startswith('DDNS_')}
    full.update(import_guard(p.tool))
    full.update(p.env(box, state), **(env or {}))
    return subprocess.run([sys.executable, tool_path(p.tool)] + list(args), env=full, capture_output=True,
                          text=True, timeout=60)


def seed(p, box, state, holds, claims=NEW, age=0, ids=True):
    """The record holds `holds`, the lookup says NEW, the ip file claims `claims` (None: no file),
    confirmed `age` seconds ago; the stored ids and B's cached token as a previous run left them."""
    rid = p.add(box, RECORD, 'A', holds)
    box.lookup.answer = NEW
    if claims:
        path = state / p.ip_file(RECORD)
        path.write_text(claims + '\n')
        os.utime(str(path), (time.time() - age, time.time() - age))
    if ids:
        (state / (p.files['ids_file'] % RECORD)).write_text('%s\n%s\n' % (p.zone(box), rid))
    if 'auth_file' in p.files:
        (state / (p.files['auth_file'] % RECORD)).write_text('%d %s\n' % (time.time() + 3600,
                                                                         p.fake(box).issue_token()))
    return rid


def verified(p, state):
    """Seconds since the provider last confirmed the ip file (its modification time)."""
    return time.time() - os.stat(str(state / p.ip_file(RECORD))).st_mtime


@pytest.fixture
def state(tmp_path):
    made = tmp_path / 'state'
    made.mkdir()
    return made


@BOTH
def test_inside_the_interval_no_request_is_made(p, box, state):
    seed(p, box, state, holds=OTHER, age=3600)    # changed at the provider, not yet due
    done = run(p, box, state)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has not changed: %s (last verified at the provider: ' % NEW in done.stdout
    assert p.fake(box).calls() == [] and p.held(box, RECORD) == p.content(OTHER)


@BOTH
def test_due_and_holding_the_ip_one_read_and_the_file_is_touched_not_written(p, box, state):
    seed(p, box, state, holds=NEW, age=DAY + 5)
    inode = os.stat(str(state / p.ip_file(RECORD))).st_ino
    done = run(p, box, state)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'verifying the %s at the provider' % p.noun in done.stdout and 'already holds %s; nothing sent.' % NEW in done.stdout
    # one request: the cached ids (B: and token) read; where no call reads a record by id, its name's listing
    assert p.fake(box).calls() == p.calls['verified']
    assert verified(p, state) < 60 and os.stat(str(state / p.ip_file(RECORD))).st_ino == inode
    again = run(p, box, state)
    assert again.returncode == 0 and p.fake(box).calls() == p.calls['verified']   # then not due again


@BOTH
def test_drift_is_corrected(p, box, state):
    seed(p, box, state, holds=OTHER, age=DAY + 5)
    done = run(p, box, state)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'The %s at the provider holds %s, not %s (changed there)' % (p.noun, OTHER, NEW) in done.stdout
    assert p.fake(box).calls() == p.calls['drift healed'] and p.held(box, RECORD) == p.content(NEW)
    assert verified(p, state) < 60


@BOTH
def test_a_record_deleted_at_the_provider_is_made_again(p, box, state):
    seed(p, box, state, holds=NEW, age=DAY + 5)
    p.remove(box, RECORD)
    done = run(p, box, state)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'The %s at the provider holds nothing, not %s (changed there)' % (p.noun, NEW) in done.stdout
    assert p.fake(box).calls()[-1] == p.calls['created'][-1] and p.held(box, RECORD) == p.content(NEW)


@BOTH
def test_without_stored_ids_the_record_is_found_by_name(p, box, state):
    rid = seed(p, box, state, holds=NEW, age=DAY + 5, ids=False)
    done = run(p, box, state)
    assert done.returncode == 0, done.stdout + done.stderr
    # the lookups by name (a provider whose zone is the domain itself has no zone to list)
    assert p.fake(box).calls() == p.calls.get('found by name', ['list_zones', 'list_records'])
    assert (state / (p.files['ids_file'] % RECORD)).read_text() == '%s\n%s\n' % (p.zone(box), rid)


@BOTH
@pytest.mark.parametrize('interval, age, reads', [
    ('0', 0, True),              # every run
    ('off', 400 * DAY, False),   # never, however old
    ('3600', 3599 - 30, False),
    ('3600', 3600 + 30, True),
    ('86400', -DAY, True),       # confirmed "tomorrow": the clock went back, so read once
], ids=['0', 'off', 'inside', 'past', 'clock-went-back'])
def test_verify_interval(p, box, state, interval, age, reads):
    seed(p, box, state, holds=NEW, age=age)
    done = run(p, box, state, env={'DDNS_VERIFY_INTERVAL': interval})
    assert done.returncode == 0, done.stdout + done.stderr
    assert p.fake(box).calls() == (p.calls['verified'] if reads else [])
    if reads:
        assert abs(verified(p, state)) < 60


@pytest.mark.parametrize('value', ['-1', '1e3', '31708801', 'never', '9' * 400, ''])
def test_a_bad_verify_interval_is_refused(box, state, value):
    p = PROVIDERS[0]
    seed(p, box, state, holds=NEW)
    done = run(p, box, state, env={'DDNS_VERIFY_INTERVAL': value or ' '})
    assert done.returncode == 2 and 'bad value for verify_interval (DDNS_VERIFY_INTERVAL)' in done.stderr, \
        done.stdout + done.stderr
    assert p.fake(box).calls() == [] and 'Traceback' not in done.stderr


@BOTH
def test_killed_once_the_provider_took_the_write_the_ip_moving_back_is_still_published(p, box, state):
    """The provider takes the update and the run is killed before it can write the ip file; the IP
    then goes back to the address the ip file held: the next run must not say "not changed"."""
    seed(p, box, state, holds=OLD, claims=OLD)
    env = {k: v for k, v in os.environ.items() if not k.startswith('DDNS_')}
    env.update(import_guard(p.tool), **p.env(box, state))
    tool = subprocess.Popen([sys.executable, tool_path(p.tool)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)

    def kill_then_answer(reply):
        tool.kill()
        tool.wait()
        return reply
    # the write that changes the address: the last request of healing a drift
    p.fake(box).fail('rewrite', route=p.calls['drift healed'][-1], answer=kill_then_answer)
    tool.communicate(timeout=60)
    assert tool.returncode == -9 and p.held(box, RECORD) == p.content(NEW)
    assert not (state / p.ip_file(RECORD)).exists()   # it went before the write was sent
    box.lookup.answer = OLD                            # the IP moves back
    done = run(p, box, state)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP changed from %s to %s' % (NEW, OLD) in done.stdout
    assert p.held(box, RECORD) == p.content(OLD)
    assert (state / p.ip_file(RECORD)).read_text() == OLD + '\n'


@BOTH
def test_an_ip_file_that_cannot_be_removed_stops_the_write_before_it_is_sent(p, box, state, tmp_path):
    """Root ignores a directory's mode: the ip file is made a directory, which unlink() refuses."""
    seed(p, box, state, holds=OLD, claims=None)
    (state / p.ip_file(RECORD)).mkdir()
    (state / p.ip_file(RECORD) / 'x').write_text('x')
    done = run(p, box, state, '--force')
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'before the update' in done.stdout and 'nothing was sent' in done.stdout
    assert 'Traceback' not in done.stdout + done.stderr
    # nothing sent but a read (B reads nothing: its update would say whether the recordset exists)
    assert set(p.fake(box).calls()) <= set(p.calls['verified']) and p.held(box, RECORD) == p.content(OLD)
