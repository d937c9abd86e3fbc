"""Updater A against the fake provider A over real HTTP: outcome tables in the favonia style."""

import os

from conftest import RECORD, run_tool


def state_files(d):
    return {n: open(os.path.join(d, n)).read() for n in sorted(os.listdir(d)) if n.endswith('.txt')}


def test_first_run_without_files_updates_and_writes_state(box, tmp_path):
    rid = box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1', ttl=300, proxied=True,
                                    comment='home', tags=['owner:me'])
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    box.lookup.answer = '81.2.69.10'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: 81.2.69.10' in done.stdout
    assert box.provider_a.calls() == ['list_zones', 'list_records', 'update_record']
    assert box.doh.calls() == ['resolve'] and box.lookup.calls() == ['lookup']
    record = box.provider_a.records[rid]
    assert (record['content'], record['ttl'], record['proxied'], record['comment'], record['tags']) == (
        '81.2.69.10', 300, True, 'home', ['owner:me'])
    assert state_files(tmp_path) == {'.cf-wan_ip_%s.txt' % RECORD: '81.2.69.10\n',
                                     '.cf-id_%s.txt' % RECORD: '%s\n%s\n' % (box.zone_a, rid)}
    assert box.provider_a.schema_errors == []
    put = box.provider_a.calls('update_record')[0]
    assert put.headers['x-auth-email'] == box.provider_a.email
    assert put.json['id'] == box.zone_a


def test_unchanged_makes_only_the_lookup(box, tmp_path):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.10')
    (tmp_path / ('.cf-wan_ip_%s.txt' % RECORD)).write_text('81.2.69.10\n')
    box.lookup.answer = '81.2.69.10'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0
    assert 'IP has not changed: 81.2.69.10' in done.stdout
    assert box.provider_a.calls() == [] and box.doh.calls() == []
