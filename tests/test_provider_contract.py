"""The update loop and --check driven through the provider contract alone: tests/memory_provider.py, a
third provider of a few dozen lines with no HTTP, runs in-process through ddkit.updater.main. Each row
names the calls the loop may make, and no more (the request budget of each outcome)."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'lib'))

import memory_provider as memory  # noqa: E402
from ddkit import updater  # noqa: E402
from fakes.helpers import DoH, IpLookup  # noqa: E402

NAME, OLD, NEW = 'home.example.com', '81.2.69.1', '81.2.69.10'


@pytest.fixture
def world(tmp_path, monkeypatch):
    """The memory provider reset, an IP lookup answering NEW, a DoH resolver that knows nothing."""
    memory.reset()
    lookup, doh = IpLookup(answer=NEW).start(), DoH().start()
    for name in [n for n in os.environ if n.startswith('DDNS_')]:
        monkeypatch.delenv(name)
    for name, value in (('ACCOUNT', 'acct-1'), ('ZONE_NAME', 'example.com'), ('RECORD_NAME', NAME),
                        ('STATE_DIR', str(tmp_path)), ('IP_LOOKUP_URL', lookup.url), ('DOH_URL', doh.url)):
        monkeypatch.setenv('DDNS_' + name, value)
    yield tmp_path
    lookup.stop()
    doh.stop()


def run(*argv):
    return updater.main(memory, list(argv))


def names():
    return [name for name, _ in memory.calls]


def ids_file(state):
    with open(os.path.join(str(state), '.m-id_%s.txt' % NAME)) as f:
        return f.read().split()


def seed(state, content=OLD, stored=True):
    memory.records['r1'] = {'zone': 'z1', 'name': NAME, 'type': 'A', 'content': content}
    if stored:
        for name, lines in (('.m-id_%s.txt', ['z1', 'r1']), ('.m-ip_%s.txt', [OLD])):
            with open(os.path.join(str(state), name % NAME), 'w') as f:
                f.write('\n'.join(lines) + '\n')


def test_first_run_finds_the_zone_and_creates_the_record(world, capsys):
    assert run() == 0
    assert names() == ['list_zones', 'find_record', 'create_record']
    assert memory.records['r1']['content'] == NEW and ids_file(world) == ['z1', 'r1']
    out = capsys.readouterr().out
    assert 'Created A entry %s.' % NAME in out and 'IP has been updated to: %s' % NEW in out


def test_an_unchanged_ip_asks_the_provider_nothing(world, capsys):
    seed(world, content=NEW)
    with open(os.path.join(str(world), '.m-ip_%s.txt' % NAME), 'w') as f:
        f.write(NEW + '\n')
    assert run() == 0 and names() == []
    assert 'IP has not changed: %s' % NEW in capsys.readouterr().out


def test_a_changed_ip_reads_the_stored_record_then_updates_it(world):
    seed(world)
    assert run() == 0
    assert names() == ['read_record', 'update_record'] and memory.records['r1']['content'] == NEW


@pytest.mark.parametrize('breaks, calls', [
    # stale stored ids: looked up again once, then updated
    ({'read_record': 'stale'}, ['read_record', 'list_zones', 'find_record', 'update_record']),
    # the update finds them stale: a fresh lookup of zone and record, then the update again
    ({'update_record': 'stale'}, ['read_record', 'update_record', 'list_zones', 'find_record', 'update_record']),
    # an update answered without an id: the record is created
    ({'update_record': 'no id'}, ['read_record', 'update_record', 'create_record']),
])
def test_the_loop_heals_what_the_provider_reports(world, breaks, calls):
    seed(world)
    memory.fail.update(breaks)
    assert run() == 0
    assert names() == calls
    assert NEW in [r['content'] for r in memory.records.values()]


def test_ids_stale_twice_is_a_failure_not_a_loop(world, capsys):
    seed(world)
    del memory.records['r1']                       # the stored ids are stale
    memory.fail['create_record'] = ['stale', 'stale']   # and the zone is gone, twice
    assert run() == 1
    assert names() == ['read_record', 'list_zones', 'find_record', 'create_record', 'list_zones', 'find_record',
                       'create_record']
    assert 'the provider still says the entry or its zone does not exist' in capsys.readouterr().out


def test_a_create_that_meets_an_existing_record_updates_that_one(world):
    memory.fail['create_record'] = 'exists'
    memory.records['r9'] = {'zone': 'z1', 'name': NAME, 'type': 'A', 'content': OLD}
    memory.fail['find_record'] = None
    # the first lookup does not see it (made meanwhile elsewhere): simulate by hiding it once
    hidden = memory.records.pop('r9')
    original = memory.find_record

    def find_once(job, zone_id, strict=False):
        if strict:
            memory.records['r9'] = hidden
        return original(job, zone_id, strict)
    memory.find_record = find_once
    try:
        assert run() == 0
    finally:
        memory.find_record = original
    assert names() == ['list_zones', 'find_record', 'create_record', 'find_record', 'update_record']
    assert memory.records['r9']['content'] == NEW


def test_a_provider_failure_is_one_line_and_exit_1(world, capsys):
    seed(world)
    memory.fail['update_record'] = 'error'
    assert run() == 1
    assert 'ERROR: update_record: the provider is down' in capsys.readouterr().out
    # the ip file went before the write was sent: it claims nothing the provider may not hold
    assert not os.path.exists(os.path.join(str(world), '.m-ip_%s.txt' % NAME))
    assert run() == 0 and names()[-2:] == ['read_record', 'update_record']   # read, then written


def test_dry_run_makes_no_write_and_no_file(world, capsys):
    assert run('--dry-run') == 0
    assert names() == ['list_zones', 'find_record']
    assert memory.records == {} and os.listdir(str(world)) == []
    assert 'Dry run: would create A entry %s with %s.' % (NAME, NEW) in capsys.readouterr().out


def test_force_updates_an_unchanged_ip(world):
    seed(world, content=NEW)
    with open(os.path.join(str(world), '.m-ip_%s.txt' % NAME), 'w') as f:
        f.write(NEW + '\n')
    assert run('--force') == 0
    assert names() == ['read_record', 'update_record']


def test_check_runs_every_step_through_the_contract(world, capsys):
    seed(world)
    assert run('--check') == 0
    out = capsys.readouterr().out
    for line in ('ok    credentials accepted (account 6)', 'ok    zone example.com found (id z1)',
                 'ok    A entry %s found (id r1)' % NAME, 'check: all ok'):
        assert line in out, out
    assert names() == ['login', 'list_zones', 'find_record'] and memory.records['r1']['content'] == OLD


def test_check_says_which_step_failed(world, capsys):
    memory.fail['list_zones'] = 'error'
    assert run('--check') == 1
    out = capsys.readouterr().out
    assert 'FAIL  zone found: list_zones: the provider is down' in out
    assert 'skip  record found: not checked (needs: zone found)' in out


def test_several_records_share_one_zone_lookup(world, capsys, monkeypatch):
    conf = world / 'records.conf'
    conf.write_text('zone_name=example.com\n[one]\nrecord_name=a.example.com\n[two]\nrecord_name=b.example.com\n'
                    '[three]\nrecord_name=c.example.org\nzone_name=example.org\n')
    os.chmod(str(conf), 0o600)
    monkeypatch.delenv('DDNS_RECORD_NAME')
    monkeypatch.delenv('DDNS_ZONE_NAME')   # the environment would win over the file
    assert run('--all', '--config', str(conf)) == 1   # example.org is no zone of this account
    assert names().count('list_zones') == 2            # once per zone, not per record
    assert sorted(r['name'] for r in memory.records.values()) == ['a.example.com', 'b.example.com']
    out = capsys.readouterr().out
    assert 'Record one: A a.example.com:' in out and 'Record two: A b.example.com:' in out
    assert '1 of 3 records failed: three: A c.example.org (exit 1)' in out


def test_missing_settings_are_named_at_once(world, capsys, monkeypatch):
    monkeypatch.delenv('DDNS_ACCOUNT')
    monkeypatch.delenv('DDNS_ZONE_NAME')
    assert run() == 2 and names() == []
    assert 'missing settings zone_name, account' in capsys.readouterr().err
