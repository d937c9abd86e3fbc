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


IP_FILE = '.cf-wan_ip_%s.txt' % RECORD
IDS_FILE = '.cf-id_%s.txt' % RECORD


def cached(box, tmp_path, ip='81.2.69.1', content='81.2.69.1', **record):
    """A record at the provider and the files a previous run left: ip file and ids file."""
    rid = box.provider_a.add_record(box.zone_a, RECORD, 'A', content, **record)
    (tmp_path / IP_FILE).write_text(ip + '\n')
    (tmp_path / IDS_FILE).write_text('%s\n%s\n' % (box.zone_a, rid))
    return rid


def test_changed_with_ids_cached_reads_then_updates(box, tmp_path):
    rid = cached(box, tmp_path, ttl=120, proxied=True)
    box.lookup.answer = '81.2.69.20'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout
    assert box.provider_a.calls() == ['get_record', 'update_record']
    assert box.doh.calls() == []
    record = box.provider_a.records[rid]
    assert (record['content'], record['ttl'], record['proxied']) == ('81.2.69.20', 120, True)
    assert (tmp_path / IP_FILE).read_text() == '81.2.69.20\n'
    log = (tmp_path / ('updater_a_%s.log' % RECORD)).read_text().splitlines()
    assert log[-1].endswith('] - IP has been updated to: 81.2.69.20') and log[-1].startswith('[')


def test_force_updates_an_unchanged_ip(box, tmp_path):
    cached(box, tmp_path, ip='81.2.69.1')
    box.lookup.answer = '81.2.69.1'
    done = run_tool('updater_a', ['-f'], env=box.env_a(str(tmp_path)))
    assert done.returncode == 0
    assert box.provider_a.calls() == ['get_record', 'update_record']
    assert 'IP has been updated to: 81.2.69.1' in done.stdout


def test_record_already_holding_the_ip_gets_no_write(box, tmp_path):
    cached(box, tmp_path, ip='81.2.69.1', content='81.2.69.30')
    box.lookup.answer = '81.2.69.30'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0
    assert box.provider_a.calls() == ['get_record']
    assert 'already holds 81.2.69.30; nothing sent.' in done.stdout and 'has been updated' not in done.stdout
    assert (tmp_path / IP_FILE).read_text() == '81.2.69.30\n'


def test_missing_record_is_created_and_its_id_stored(box, tmp_path):
    box.lookup.answer = '81.2.69.40'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout
    assert box.provider_a.calls() == ['list_zones', 'list_records', 'create_record']
    [record] = box.provider_a.find(RECORD)
    assert record['content'] == '81.2.69.40'
    assert (tmp_path / IDS_FILE).read_text() == '%s\n%s\n' % (box.zone_a, record['id'])
    assert box.provider_a.schema_errors == []


def test_stale_ids_are_looked_up_again_once(box, tmp_path):
    (tmp_path / IP_FILE).write_text('81.2.69.1\n')
    (tmp_path / IDS_FILE).write_text('%s\n%s\n' % (box.zone_a, 'f' * 32))
    rid = box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.lookup.answer = '81.2.69.50'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout
    assert box.provider_a.calls() == ['get_record', 'list_zones', 'list_records', 'update_record']
    assert box.provider_a.records[rid]['content'] == '81.2.69.50'
    assert (tmp_path / IDS_FILE).read_text() == '%s\n%s\n' % (box.zone_a, rid)


def test_stale_zone_id_is_looked_up_again(box, tmp_path):
    rid = box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    (tmp_path / IP_FILE).write_text('81.2.69.1\n')
    (tmp_path / IDS_FILE).write_text('%s\n%s\n' % ('e' * 32, rid))
    box.lookup.answer = '81.2.69.51'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout
    assert box.provider_a.records[rid]['content'] == '81.2.69.51'


def test_api_token_is_sent_as_bearer(box, tmp_path):
    box.provider_a.token = 'tok-' + 'x' * 36
    cached(box, tmp_path)
    box.lookup.answer = '81.2.69.60'
    env = dict(box.env_a(str(tmp_path)), DDNS_API_TOKEN=box.provider_a.token)
    del env['DDNS_AUTH_EMAIL'], env['DDNS_AUTH_KEY']
    done = run_tool('updater_a', env=env)
    assert done.returncode == 0, done.stdout
    for req in box.provider_a.requests:
        assert req.headers['authorization'] == 'Bearer ' + box.provider_a.token
        assert 'x-auth-key' not in req.headers and 'x-auth-email' not in req.headers
    assert box.provider_a.token not in done.stdout + done.stderr


def test_aaaa_record_uses_doh_type_28(box, tmp_path):
    rid = box.provider_a.add_record(box.zone_a, RECORD, 'AAAA', '240e:1::1')
    box.doh.names[(RECORD, 'AAAA')] = ['240e:1::1']
    box.lookup.answer = '240e:1::2'
    env = dict(box.env_a(str(tmp_path)), DDNS_RECORD_TYPE='AAAA')
    # the lookup is asked over IPv6 only: serve it on ::1
    from fakes.helpers import IpLookup
    six = IpLookup('240e:1::2', host='::1').start()
    try:
        env['DDNS_IP_LOOKUP_URL'] = six.url
        done = run_tool('updater_a', env=env)
    finally:
        six.stop()
    assert done.returncode == 0, done.stdout
    assert box.doh.calls('resolve')[0].query == {'name': RECORD, 'type': 'AAAA'}
    assert box.provider_a.records[rid]['content'] == '240e:1::2'
    assert (tmp_path / ('.cf-wan_ip_%s_AAAA.txt' % RECORD)).read_text() == '240e:1::2\n'
    assert not (tmp_path / IP_FILE).exists()   # the A record's file is its own


def test_previous_ip_from_doh_is_confirmed_at_the_provider_before_it_is_recorded(box, tmp_path):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.70')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.70']
    box.lookup.answer = '81.2.69.70'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0
    assert 'IP has not changed: 81.2.69.70 (the record at the provider holds it)' in done.stdout
    assert box.provider_a.calls() == ['list_zones', 'list_records']
    assert (tmp_path / IP_FILE).read_text() == '81.2.69.70\n'


def test_doh_that_lies_does_not_keep_a_wrong_record(box, tmp_path):
    """DoH (a cache, or a resolver that lies) says the name holds the current IP; the record holds
    another: the provider's word counts."""
    rid = box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.70']
    box.lookup.answer = '81.2.69.70'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP changed from 81.2.69.1 to 81.2.69.70; updating A' in done.stdout
    assert box.provider_a.records[rid]['content'] == '81.2.69.70'
    assert (tmp_path / IP_FILE).read_text() == '81.2.69.70\n'
