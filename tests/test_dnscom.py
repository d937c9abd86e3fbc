"""The dnscom provider (51DNS, formerly DNS.COM) against its fake over real HTTP. The outcome table of
every provider (test_provider_tables) covers the common rows; here: what is 51DNS's own. Its hash (md5
of the sorted parameters and the secret, checked on every call; the secret never sent), the values
that read the same raw and encoded, the domain's id, the host '@', the TTL sent back, the default
view, the stored ids checked in the name's listing, its codes and their fixes, messages in UTF-8 and
GBK, and --check."""

import hashlib
import json
import os
import sys
import time

import pytest

from conftest import RECORD, ROOT, ZONE, run_tool
from provider_harness import Harness, listing_replies, kept_nothing, ok, shown
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit.providers import dnscom  # noqa: E402

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'

HARNESS = Harness('dnscom', NEW)
fake, state = HARNESS.fixtures()
env_of, run, status, job = HARNESS.env_of, HARNESS.run, HARNESS.status, HARNESS.job
zone_id, ids_file = HARNESS.zone, HARNESS.ids_file


# --- the hash -------------------------------------------------------------------------------------

def test_the_hash_is_md5_of_the_sorted_pairs_and_the_secret():
    body = dnscom.signed({'host': '@', 'domainID': '12', 'value': '2001:db8::1'}, 'key1', 'sec', 1767225599)
    text = 'apiKey=key1&domainID=12&host=@&timestamp=1767225599&value=2001:db8::1'
    assert body == text + '&hash=' + hashlib.md5((text + 'sec').encode()).hexdigest()
    with pytest.raises(ValueError):
        dnscom.signed({'host': 'a b'}, 'key1', 'sec', 1)


def test_every_call_is_signed_and_never_carries_the_secret(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_zone', 'list_records', 'update_record']
    assert len(fake.hashes) == 3 and all(sent == made for _, sent, made in fake.hashes)
    for req in fake.requests:
        sent = fake.params(req)
        assert req.method == 'POST' and sent['apiKey'] == fake.api_key
        assert abs(int(sent['timestamp']) - time.time()) < 60
        assert req.path.startswith('/api/') and req.path.endswith('/')
    assert fake.api_secret not in shown(done, state) + ''.join(r.body.decode() for r in fake.requests)


@pytest.mark.parametrize('change, code', [
    (lambda fake: fake.keys.update({fake.api_key: 'another'}), '2'),
    (lambda fake: setattr(fake, 'clock_offset', 3600), '2'),
], ids=['wrong secret', 'clock off'])
def test_a_refused_key_says_its_code_and_fix(box, fake, state, change, code):
    change(fake)
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['code'], got['fix']) == ('find zone', 'refused', code, dnscom.CREDENTIALS)
    assert 'find zone: error 2: 认证失败' in done.stdout and fake.calls() == ['get_zone']


def test_a_gbk_answer_is_read_without_the_cjk_codecs(box, fake, state):
    body = json.dumps({'code': 5, 'message': '域名不存在 誠', 'data': None}, ensure_ascii=False).encode('gbk')
    fake.fail('reply', route='get_zone', text=body)
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['code']) == ('find zone', 'not found', '5')
    assert 'find zone: error 5: … …' in done.stdout and '\ufffd' not in done.stdout


# --- what is 51DNS's own --------------------------------------------------------------------------

def test_a_new_record_is_made_on_the_default_view_with_the_domains_ttl(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'list_records', 'create_record']
    sent = fake.params(fake.calls('create_record')[0])
    assert (sent['domainID'], sent['host'], sent['type'], sent['value']) == (zone_id(box), 'home', 'A', NEW)
    assert 'viewID' not in sent and 'TTL' not in sent
    made = fake.find(RECORD)
    assert [(r['content'], r['ttl'], r['view']) for r in made] == [(NEW, 600, 1)]
    assert ids_file(state).read_text() == '%s\n%s\n' % (zone_id(box), made[0]['id'])


def test_the_apex_is_host_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.params(fake.calls('create_record')[0])['host'] == '@'
    fake.reset_log()
    ok(run(box, state, '--force', DDNS_RECORD_NAME=ZONE, ip=OTHER))
    assert fake.calls() == ['list_records', 'update_record'] and [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_an_ipv6_address_is_sent_as_it_is(box, fake, state, dual):
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert 'value=%s&' % dual.v6 in fake.calls('create_record')[0].body.decode()
    assert [r['content'] for r in fake.find(RECORD, 'AAAA')] == [dual.v6]


def test_an_update_sends_back_the_ttl(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD, ttl=3600)
    ok(run(box, state))
    sent = fake.params(fake.calls('update_record')[0])
    assert (sent['recordID'], sent['newvalue'], sent['newTTL']) == (rid, NEW, '3600')
    assert (fake.records[rid]['content'], fake.records[rid]['ttl']) == (NEW, 3600)


@pytest.mark.parametrize('view', [0, 1])
def test_only_the_default_views_record_is_found_and_changed(box, fake, state, view):
    telecom = fake.add_record(zone_id(box), RECORD, 'A', OLD, view=2)
    default = fake.add_record(zone_id(box), RECORD, 'A', OLD, view=view)
    ok(run(box, state))
    assert fake.records[telecom]['content'] == OLD and fake.records[default]['content'] == NEW


def test_stored_ids_are_checked_in_the_names_listing(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    other = fake.add_record(zone_id(box), 'nas.' + ZONE, 'A', OLD)
    ids_file(state).write_text('%s\n%s\n' % (zone_id(box), other))
    (state / ('.dnscom-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    done = run(box, state)
    ok(done)
    # the stored id is not the name's: looked up again (the domain read, the run's listing of the name
    # holds its own record), the name's own record updated
    assert fake.calls() == ['list_records', 'get_zone', 'update_record']
    assert fake.records[rid]['content'] == NEW and fake.records[other]['content'] == OLD


def test_an_update_of_a_record_deleted_meanwhile_is_made_again(box, fake, state):
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)

    def gone_first(reply):
        fake.records.pop(rid, None)
        return reply
    fake.fail('rewrite', route='list_records', answer=gone_first)
    done = run(box, state)
    ok(done)
    assert fake.calls()[:2] == ['get_zone', 'list_records'] and fake.calls()[2] == 'update_record'
    assert fake.calls()[-1] == 'create_record' and 'Stored ids are stale' in done.stdout
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_both_families_in_one_run_read_the_domain_and_list_the_name_once(box, fake, state, dual):
    ids = [fake.add_record(zone_id(box), RECORD, t, ip) for t, ip in (('A', OLD), ('AAAA', '240e:1::1'))]
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['get_zone', 'list_records', 'update_record', 'update_record']
    assert [fake.records[r]['content'] for r in ids] == [dual.v4, dual.v6]


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    done, got = HARNESS.failure(box, state, **more)
    assert (got['step'], got['kind'], got['code'], got['fix']) == ('find zone', 'not found', '5', dnscom.FIXES['5'])
    assert 'no domain example.org in this account' in done.stdout and fake.calls() == ['get_zone']


def test_lines_are_refused(box, fake, state):
    done = run_tool('ddkit', [], env=dict(env_of(box, state), DDNS_LINES='ct', DDNS_RECORD_TYPE='AAAA',
                                          DDNS_IP_SOURCE='iface:lo'))
    assert done.returncode == 2 and 'holds one address per name' in done.stderr, done.stdout + done.stderr
    assert fake.calls() == []


def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    done = HARNESS.check(box, state)
    assert 'credentials accepted (API key %s...)' % fake.api_key[:6] in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, zone_id(box)) in done.stdout
    assert fake.calls() == ['get_zone', 'list_records'] and kept_nothing(state)


@listing_replies({'text': '{"code": 0, "data": {"data": {"recordID": 1}}}'}, {'text': '{"data": []}'},
                 ids=['data not a list', 'no code'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, reply):
    HARNESS.unusable_listing(box, state, reply)


def test_a_hostile_record_id_or_ttl_is_not_taken(box, fake, state):
    fake.fail('reply', route='list_records', text=json.dumps({'code': 0, 'data': {'data': [
        {'recordID': '../1', 'record': 'home', 'type': 'A', 'value': OLD, 'viewID': 1}]}}))
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'list_records', 'create_record']
    fake.records.clear()
    rid = fake.add_record(zone_id(box), RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', text=json.dumps({'code': 0, 'data': {'data': [
        {'recordID': int(rid), 'record': 'home', 'type': 'A', 'value': OLD, 'viewID': 1, 'TTL': 10 ** 30}]}}))
    ok(run(box, state / 'x', ip=OTHER))
    assert 'newTTL' not in fake.params(fake.calls('update_record')[-1]) and fake.records[rid]['content'] == OTHER
