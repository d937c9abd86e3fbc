"""The rainyun provider (Rainyun 雨云, API v2) against its fake over real HTTP. The outcome table of every
provider (test_provider_tables) covers the common rows; here: what is Rainyun's own. The x-api-key on
every call (the key never shown), the domain's numeric id found by its name among the account's
domains (zone_name may be left out), both listings page by page, the host '@', the record made on the
default line and its id found by a listing, an update sending the whole record back (TTL, line,
level), the default line alone, the stored ids checked in the domain's listing, a refusal as a code
in the body or as an HTTP status, messages in UTF-8 and GBK, and --check."""

import json

import pytest

from conftest import RECORD, ZONE, run_tool
from provider_harness import Harness, listing_replies, kept_nothing, ok, sent, shown
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'

HARNESS = Harness('rainyun', NEW)
fake, state = HARNESS.fixtures()
env_of, run, status, module, job_of = HARNESS.bound()
zone_id, ids_file, stored = HARNESS.zone, HARNESS.ids_file, HARNESS.stored


# --- the key --------------------------------------------------------------------------------------

def test_every_call_carries_the_api_key_and_nothing_shows_it(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_zones', 'list_records', 'update_record']
    assert {r.headers['x-api-key'] for r in fake.requests} == {fake.api_key}
    assert fake.api_key not in shown(done, state) + sent(fake)
    checked = run(box, state, '--check')
    assert checked.returncode == 0 and fake.api_key[:8] not in checked.stdout, checked.stdout


@pytest.mark.parametrize('refusal', [
    lambda fake: fake.keys.clear(),   # HTTP 401 and code 401
    lambda fake: fake.fail('reply', route='list_zones', body={'code': 401, 'message': 'API 密钥无效'}),
    lambda fake: fake.fail('reply', route='list_zones', status=401, text=''),
], ids=['unknown key', 'a code alone', 'a status alone'])
def test_a_refused_key_says_its_fix_as_a_code_or_as_a_status(box, fake, state, refusal):
    refusal(fake)
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['fix']) == ('find zone', 'refused', module().CREDENTIALS)
    assert str(got['code'] or got['http_status']) == '401' and fake.calls() == ['list_zones']


def test_a_gbk_answer_is_read_without_the_cjk_codecs(box, fake, state):
    body = json.dumps({'code': 403, 'message': '无权操作 誠'}, ensure_ascii=False).encode('gbk')
    fake.fail('reply', route='list_zones', text=body)
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['code']) == ('find zone', 'refused', '403')
    assert 'find zone: error 403: … …' in done.stdout and '\ufffd' not in done.stdout


# --- what is Rainyun's own ------------------------------------------------------------------------

def test_a_new_record_is_made_on_the_default_line_and_its_id_found_by_a_listing(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'list_records']
    options = json.loads(fake.calls('list_zones')[0].query['options'])
    assert (options['page'], options['perPage']) == (1, 100)
    assert fake.calls('list_records')[0].query == {'limit': '100', 'page_no': '1'}
    assert fake.calls('create_record')[0].json == {'host': 'home', 'line': 'DEFAULT', 'level': 10, 'ttl': 600,
                                                   'type': 'A', 'value': NEW, 'record_id': 0}
    made = fake.find(RECORD)
    assert [(r['content'], r['ttl'], r['line']) for r in made] == [(NEW, 600, 'DEFAULT')]
    assert ids_file(state).read_text() == '%s\n%s\n' % (zone_id(box), made[0]['id'])


def test_the_apex_is_host_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('create_record')[0].json['host'] == '@'
    fake.reset_log()
    ok(run(box, state / 'again', DDNS_RECORD_NAME=ZONE, ip=OTHER))
    assert fake.calls() == ['list_zones', 'list_records', 'update_record']
    assert [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_an_ipv6_address_is_an_aaaa_record(box, fake, state, dual):
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls('create_record')[0].json['type'] == 'AAAA'
    assert [r['content'] for r in fake.find(RECORD, 'AAAA')] == [dual.v6]


def test_an_update_sends_back_the_whole_record(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD, ttl=3600, level=5)
    ok(run(box, state))
    assert fake.calls('update_record')[0].json == {'host': 'home', 'line': 'DEFAULT', 'level': 5, 'ttl': 3600,
                                                   'type': 'A', 'value': NEW, 'record_id': int(rid)}
    held = fake.records[rid]
    assert (held['content'], held['ttl'], held['level'], held['line']) == (NEW, 3600, 5, 'DEFAULT')


def test_only_the_default_lines_record_is_found_and_changed(box, fake, state):
    telecom = fake.add_record(zone_id(box), RECORD, 'A', OLD, line='LTEL')
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'list_records']
    mine = fake.add_record(zone_id(box), RECORD, 'AAAA', '240e:1::1', line='DEFAULT')
    assert fake.by_line(RECORD) == {'LTEL': [OLD], 'DEFAULT': [NEW]} and fake.records[mine]['line'] == 'DEFAULT'


def test_other_records_of_the_domain_are_untouched(box, fake, state):
    txt = fake.add_record(zone_id(box), RECORD, 'TXT', 'v=spf1 -all')
    nas = fake.add_record(zone_id(box), 'nas.' + ZONE, 'A', OLD)
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    ok(run(box, state))
    assert [fake.records[r]['content'] for r in (txt, nas, rid)] == ['v=spf1 -all', OLD, NEW]
    assert len(fake.records) == 3


def test_both_families_in_one_run_list_the_domains_and_the_records_once(box, fake, state, dual):
    ids = [fake.add_record(zone_id(box), RECORD, t, ip) for t, ip in (('A', OLD), ('AAAA', '240e:1::1'))]
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_zones', 'list_records', 'update_record', 'update_record']
    assert [fake.records[r]['content'] for r in ids] == [dual.v4, dual.v6]


def test_without_zone_name_the_domain_is_the_longest_the_name_ends_with(box, fake, state):
    lab = fake.add_zone('lab.' + ZONE)
    fake.add_zone('example.net')
    ok(run(box, state, DDNS_RECORD_NAME='nas.lab.' + ZONE, DDNS_ZONE_NAME=''))
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'list_records']
    made = fake.find('nas.lab.' + ZONE)
    assert [r['domain'] for r in made] == [lab]
    assert (state / '.rainyun-id_nas.lab.example.com.txt').read_text() == '%s\n%s\nlab.%s\n' % (lab, made[0]['id'],
                                                                                                  ZONE)


def test_the_account_domains_and_the_domains_records_are_read_page_by_page(box, fake, state, monkeypatch):
    rainyun = module()
    monkeypatch.setattr(rainyun, 'PER_PAGE', 2)
    for name in ('b.example.net', 'c.example.io', 'd.example.dev'):
        fake.add_zone(name)
    job = job_of(box, state)
    zones = rainyun.list_zones(job)
    assert sorted(z.name for z in zones) == sorted(['b.example.net', 'c.example.io', 'd.example.dev', ZONE])
    assert [json.loads(r.query['options'])['page'] for r in fake.requests] == [1, 2]
    for n in range(4):
        fake.add_record(zone_id(box), 'n%d.%s' % (n, ZONE), 'A', OLD)
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    fake.reset_log()
    assert rainyun.find_record(job, zone_id(box)).id == rid
    assert [r.query['page_no'] for r in fake.requests] == ['1', '2', '3']


def test_stored_ids_are_checked_in_the_domains_listing(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    other = fake.add_record(zone_id(box), 'nas.' + ZONE, 'A', OLD)
    stored(state, zone_id(box), other, OLD)
    done = run(box, state)
    ok(done)
    # the stored id is not the name's: looked up again (the domains listed, the run's listing of the
    # domain holds the name's own record), the name's own record updated
    assert fake.calls() == ['list_records', 'list_zones', 'update_record'] and 'Stored ids are stale' in done.stdout
    assert fake.records[rid]['content'] == NEW and fake.records[other]['content'] == OLD


def test_with_stored_ids_an_update_is_one_listing_and_the_patch(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD, ttl=120)
    stored(state, zone_id(box), rid, OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record'] and fake.records[rid]['ttl'] == 120


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    done, got = HARNESS.failure(box, state, **more)
    assert (got['step'], got['kind'], got['fix']) == ('find zone', 'not found', module().ZONE_FIX)
    assert 'no domain example.org in this account' in done.stdout and fake.calls() == ['list_zones']


def test_a_server_error_says_the_next_run_tries_again(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', times=3, body={'code': 500, 'message': '服务器错误'})
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['code']) == ('update record', 'server error', '500')


def test_lines_are_refused(box, fake, state):
    done = run_tool('ddkit', [], env=dict(env_of(box, state), DDNS_LINES='ct', DDNS_RECORD_TYPE='AAAA',
                                          DDNS_IP_SOURCE='iface:lo'))
    assert done.returncode == 2 and 'holds one address per name' in done.stderr, done.stdout + done.stderr
    assert fake.calls() == []


def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    done = HARNESS.check(box, state)
    assert 'credentials accepted (API key)' in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, zone_id(box)) in done.stdout
    assert fake.calls() == ['list_zones', 'list_records'] and kept_nothing(state)


@listing_replies({'text': '{"code": 200, "data": {"TotalRecords": 1, "Records": {"record_id": 1}}}'},
                 {'text': '{"data": []}'},
                 ids=['records not a list', 'no code'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, reply):
    HARNESS.unusable_listing(box, state, reply)


def test_a_hostile_record_id_or_ttl_is_not_taken(box, fake, state):
    fake.fail('reply', route='list_records', body={'code': 200, 'data': {'TotalRecords': 1, 'Records': [
        {'record_id': '../1', 'host': 'home', 'type': 'A', 'value': OLD, 'line': 'DEFAULT'}]}})
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'list_records']
    fake.records.clear()
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body={'code': 200, 'data': {'TotalRecords': 1, 'Records': [
        {'record_id': int(rid), 'host': 'home', 'type': 'A', 'value': OLD, 'line': 'DEFAULT', 'ttl': 10 ** 9,
         'level': 10}]}})
    ok(run(box, state / 'x', ip=OTHER))
    assert fake.calls('update_record')[-1].json['ttl'] == 600 and fake.records[rid]['content'] == OTHER
