"""The dnsla provider (DNS.LA API v2) against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is DNS.LA's own. HTTP Basic on every call
(the secret never shown), the domain's id read by its name, the type as a number, the body in lower
camel case, the host '@', the TTL sent back, the default line alone, the stored ids checked in the
name's listing, a refusal as a code in the body or as an HTTP status, its codes and their fixes,
messages in UTF-8 and GBK, a record made meanwhile, and --check."""

import base64
import json

import pytest

from conftest import RECORD, ZONE, run_tool
from provider_harness import Harness, listing_replies, kept_nothing, ok, sent, shown
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'

HARNESS = Harness('dnsla', NEW)
fake, state = HARNESS.fixtures()
env_of, run, status, module, _job = HARNESS.bound()
zone_id, ids_file, stored = HARNESS.zone, HARNESS.ids_file, HARNESS.stored


# --- the key --------------------------------------------------------------------------------------

def test_every_call_carries_basic_auth_and_nothing_shows_the_secret(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_zone', 'list_records', 'update_record']
    basic = 'Basic ' + base64.b64encode(('%s:%s' % (fake.api_id, fake.api_secret)).encode()).decode()
    assert {r.headers['authorization'] for r in fake.requests} == {basic}
    assert fake.api_secret not in shown(done, state) + sent(fake) and basic.split()[1] not in shown(done, state)


@pytest.mark.parametrize('refusal', [
    lambda fake: fake.keys.update({fake.api_id: 'another'}),   # HTTP 401 and code 401
    lambda fake: fake.fail('reply', route='get_zone', body={'code': 401, 'msg': '认证失败', 'data': None}),
    lambda fake: fake.fail('reply', route='get_zone', status=401, text=''),
], ids=['wrong secret', 'a code alone', 'a status alone'])
def test_a_refused_key_says_its_fix_as_a_code_or_as_a_status(box, fake, state, refusal):
    refusal(fake)
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['fix']) == ('find zone', 'refused', module().CREDENTIALS)
    assert str(got['code'] or got['http_status']) == '401' and fake.calls() == ['get_zone']


def test_a_gbk_answer_is_read_without_the_cjk_codecs(box, fake, state):
    body = json.dumps({'code': 404, 'msg': '域名不存在 誠', 'data': None}, ensure_ascii=False).encode('gbk')
    fake.fail('reply', route='get_zone', text=body)
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['code']) == ('find zone', 'not found', '404')
    assert 'find zone: error 404: … …' in done.stdout and '\ufffd' not in done.stdout


# --- what is DNS.LA's own -------------------------------------------------------------------------

def test_a_new_record_is_made_with_its_type_as_a_number_in_lower_camel_case(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'list_records', 'create_record']
    assert fake.calls('get_zone')[0].query == {'domain': ZONE}
    assert fake.calls('list_records')[0].query == {'domainId': zone_id(box), 'host': 'home', 'type': '1',
                                                   'pageIndex': '1', 'pageSize': '100'}
    assert fake.calls('create_record')[0].json == {'domainId': zone_id(box), 'host': 'home', 'type': 1, 'data': NEW,
                                                   'ttl': 600}
    made = fake.find(RECORD)
    assert [(r['content'], r['ttl'], r['line']) for r in made] == [(NEW, 600, '')]
    assert ids_file(state).read_text() == '%s\n%s\n' % (zone_id(box), made[0]['id'])


def test_the_apex_is_host_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('create_record')[0].json['host'] == '@' and fake.calls('list_records')[0].query['host'] == '@'
    fake.reset_log()
    ok(run(box, state / 'again', DDNS_RECORD_NAME=ZONE, ip=OTHER))
    assert fake.calls() == ['get_zone', 'list_records', 'update_record']
    assert [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_an_ipv6_address_is_type_28(box, fake, state, dual):
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls('list_records')[0].query['type'] == '28' and fake.calls('create_record')[0].json['type'] == 28
    assert [r['content'] for r in fake.find(RECORD, 'AAAA')] == [dual.v6]


def test_an_update_sends_back_the_ttl_and_no_line(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD, ttl=3600)
    ok(run(box, state))
    assert fake.calls('update_record')[0].json == {'id': rid, 'host': 'home', 'type': 1, 'data': NEW, 'ttl': 3600}
    assert (fake.records[rid]['content'], fake.records[rid]['ttl']) == (NEW, 3600)


@pytest.mark.parametrize('default', ['', '0'])
def test_only_the_default_lines_record_is_found_and_changed(box, fake, state, default):
    telecom = fake.add_record(zone_id(box), RECORD, 'A', OLD, line='285344768')
    mine = fake.add_record(zone_id(box), RECORD, 'A', OLD, line=default)
    ok(run(box, state))
    assert fake.records[telecom]['content'] == OLD and fake.records[mine]['content'] == NEW


def test_a_record_on_another_line_alone_is_left_and_one_made_on_the_default(box, fake, state):
    telecom = fake.add_record(zone_id(box), RECORD, 'A', OLD, line='285344768')
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'list_records', 'create_record']
    assert fake.by_line(RECORD) == {None: sorted([OLD, NEW])} and fake.records[telecom]['line'] == '285344768'


def test_other_records_of_the_name_are_untouched(box, fake, state):
    txt = fake.add_record(zone_id(box), RECORD, 'TXT', 'v=spf1 -all')
    aaaa = fake.add_record(zone_id(box), RECORD, 'AAAA', '240e:1::1')
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    ok(run(box, state))
    assert [fake.records[r]['content'] for r in (txt, aaaa, rid)] == ['v=spf1 -all', '240e:1::1', NEW]
    assert len(fake.records) == 3


def test_a_listing_of_every_type_yields_the_record_of_the_type_asked(box, fake, state):
    """A listing that holds the name's other types too (the type asked for not applied): the record
    taken is the one whose type number is the record's, not the first of the name."""
    aaaa = fake.add_record(zone_id(box), RECORD, 'AAAA', '240e:1::1')
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    held = [fake._public(fake.records[r]) for r in (aaaa, rid)]
    fake.fail('reply', route='list_records', body={'code': 200, 'msg': '', 'data': {'total': 2, 'results': held}})
    ok(run(box, state))
    assert [fake.records[r]['content'] for r in (aaaa, rid)] == ['240e:1::1', NEW] and len(fake.records) == 2


def test_stored_ids_are_checked_in_the_names_listing(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    other = fake.add_record(zone_id(box), 'nas.' + ZONE, 'A', OLD)
    stored(state, zone_id(box), other, OLD)
    done = run(box, state)
    ok(done)
    # the stored id is not the name's: looked up again (the domain read, the run's listing of the name
    # holds its own record), the name's own record updated
    assert fake.calls() == ['list_records', 'get_zone', 'update_record'] and 'Stored ids are stale' in done.stdout
    assert fake.records[rid]['content'] == NEW and fake.records[other]['content'] == OLD


def test_with_stored_ids_an_update_is_one_listing_and_the_put(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD, ttl=120)
    stored(state, zone_id(box), rid, OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record'] and fake.records[rid]['ttl'] == 120


def test_an_update_of_a_record_deleted_meanwhile_is_made_again(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)

    def gone_first(reply):
        fake.records.pop(rid, None)
        return reply
    fake.fail('rewrite', route='list_records', answer=gone_first)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_zone', 'list_records', 'update_record', 'get_zone', 'list_records', 'create_record']
    assert 'Stored ids are stale' in done.stdout and [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_a_record_made_meanwhile_is_updated_not_made_twice(box, fake, state):
    def made_meanwhile(reply):
        fake.add_record(zone_id(box), RECORD, 'A', NEW)
        return reply
    fake.fail('rewrite', route='list_records', answer=made_meanwhile)
    done = run(box, state)
    ok(done)
    assert fake.calls()[:3] == ['get_zone', 'list_records', 'create_record'] and fake.calls()[-1] == 'update_record'
    assert [r['content'] for r in fake.find(RECORD)] == [NEW] and '与已有记录冲突' in done.stdout


@pytest.mark.parametrize('answer', [
    None,   # the fake's own: code 404
    {'body': {'code': 200, 'msg': '', 'data': None}},
    {'body': {'code': 400, 'msg': '域名格式错误', 'data': None}},
], ids=['code 404', 'no domain', 'code 400'])
def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state, answer):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    if answer:
        fake.fail('reply', route='get_zone', **answer)
    done, got = HARNESS.failure(box, state, **more)
    assert (got['step'], got['kind'], got['fix']) == ('find zone', 'not found', module().ZONE_FIX)
    assert 'no domain example.org in this account' in done.stdout and fake.calls() == ['get_zone']


def test_a_server_error_says_the_next_run_tries_again(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', times=3, body={'code': 500, 'msg': '服务器错误', 'data': None})
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
    assert 'credentials accepted (API ID %s...)' % fake.api_id[:6] in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, zone_id(box)) in done.stdout and fake.api_secret not in done.stdout
    assert fake.calls() == ['get_zone', 'list_records'] and kept_nothing(state)


@listing_replies({'text': '{"code": 200, "data": {"results": {"id": "1"}}}'}, {'text': '{"data": []}'},
                 ids=['results not a list', 'no code'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, reply):
    HARNESS.unusable_listing(box, state, reply)


def test_a_hostile_record_id_or_ttl_is_not_taken(box, fake, state):
    fake.fail('reply', route='list_records', body={'code': 200, 'data': {'total': 1, 'results': [
        {'id': '../1', 'host': 'home', 'type': 1, 'data': OLD, 'lineId': ''}]}})
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'list_records', 'create_record']
    fake.records.clear()
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body={'code': 200, 'data': {'total': 1, 'results': [
        {'id': rid, 'host': 'home', 'type': 1, 'data': OLD, 'lineId': '', 'ttl': 10 ** 9}]}})
    ok(run(box, state / 'x', ip=OTHER))
    assert 'ttl' not in fake.calls('update_record')[-1].json and fake.records[rid]['content'] == OTHER
