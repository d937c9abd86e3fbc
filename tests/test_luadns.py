"""The luadns provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is LuaDNS's own (HTTP Basic with the
e-mail and the key, and the Accept header the API requires; the zone's id by its name; absolute
names with the root's dot; an update that replaces the whole record, so its TTL is read and sent
back; keys restricted to a zone; its errors and fixes), --check, and a record's operator lines: each
line one record of the name."""

import base64
import functools
import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'


LUADNS = Harness('luadns', NEW)
fake, state = LUADNS.fixtures()
env_of, run, status, module, _job = LUADNS.bound()
job_of = functools.partial(LUADNS.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def zone_id(fake):
    return [zid for zid, z in fake.zones.items() if z['name'] == ZONE][0]


def held(fake, name=RECORD, rtype='A'):
    return sorted(r['content'] for r in fake.find(name, rtype))


# --- what is LuaDNS's own ------------------------------------------------------------------------

def test_every_call_carries_the_credentials_and_asks_for_json_and_nothing_shows_the_key(box, fake, state):
    rid = fake.add_record(zone_id(fake), RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'list_records', 'update_record']
    basic = 'Basic ' + base64.b64encode(('%s:%s' % (fake.email, fake.key)).encode()).decode()
    assert all(r.headers['authorization'] == basic and r.headers['accept'] == 'application/json'
               for r in fake.requests)
    assert fake.calls('update_record')[0].path == '/v1/zones/%s/records/%s' % (zone_id(fake), rid)
    assert (state / ('.luadns-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (zone_id(fake), rid)
    log = (state / ('ddkit_luadns_%s.log' % RECORD)).read_text()
    assert fake.key not in log + json.dumps(status(box, state))


def test_an_update_sends_the_whole_record_with_its_ttl(box, fake, state):
    rid = fake.add_record(zone_id(fake), RECORD, 'A', OLD, ttl=300)
    ok(run(box, state))
    assert fake.calls('update_record')[0].json == {'name': RECORD + '.', 'type': 'A', 'content': NEW, 'ttl': 300}
    assert (fake.records[rid]['content'], fake.records[rid]['ttl']) == (NEW, 300)


def test_a_later_run_reads_the_record_by_its_ids_then_replaces_it(box, fake, state):
    rid = fake.add_record(zone_id(fake), RECORD, 'A', OLD, ttl=600)
    ok(run(box, state, ip=OTHER))
    fake.reset_log()
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'update_record'] and fake.records[rid]['ttl'] == 600
    assert held(fake) == [NEW]


def test_a_new_record_is_absolute_with_ttl_3600(box, fake, state):
    fake.add_record(zone_id(fake), 'www.example.com', 'A', OTHER)
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'list_records', 'create_record']
    assert fake.calls('create_record')[0].json == {'name': RECORD + '.', 'type': 'A', 'content': NEW, 'ttl': 3600}
    assert held(fake) == [NEW] and held(fake, 'www.example.com') == [OTHER]


def test_the_apex_is_the_zones_own_name(box, fake, state):
    fake.add_record(zone_id(fake), ZONE, 'A', OLD)
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('update_record')[0].json['name'] == ZONE + '.' and held(fake, ZONE) == [NEW]


def test_stored_ids_of_a_record_deleted_meanwhile_make_it_again(box, fake, state):
    fake.add_record(zone_id(fake), RECORD, 'A', OLD)
    ok(run(box, state, ip=OTHER))
    fake.records.clear()
    fake.reset_log()
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_zones', 'list_records', 'create_record']
    assert 'Stored ids are stale' in done.stdout and held(fake) == [NEW]


def test_stored_ids_of_another_record_are_not_taken(box, fake, state):
    zid = zone_id(fake)
    mine = fake.add_record(zid, RECORD, 'A', OLD)
    other = fake.add_record(zid, 'www.example.com', 'A', OTHER)
    (state / ('.luadns-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (zid, other))
    (state / ('.luadns-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'list_zones', 'list_records', 'update_record']
    assert fake.records[mine]['content'] == NEW and fake.records[other]['content'] == OTHER


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(run(box, state, **more))
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind']) == ('find zone', 'not found') and 'a zone of this LuaDNS' in shown['fix']
    assert fake.calls() == ['list_zones']


@pytest.mark.parametrize('arrange, step, http_status, words', [
    (lambda f: f.keys.clear(), 'find zone', 401, 'API access must be enabled'),
    (lambda f: setattr(f, 'api_enabled', False), 'find zone', 401, 'API access must be enabled'),
    (lambda f: f.keys.update({f.key: '1'}), 'find zone', None, 'a key that may use it'),
], ids=['unknown key', 'api access off', 'key of another zone'])
def test_a_refused_key_says_why_and_never_shows_it(box, fake, state, arrange, step, http_status, words):
    fake.add_record(zone_id(fake), RECORD, 'A', OLD)
    arrange(fake)
    done, shown = LUADNS.failure(box, state)
    assert (shown['step'], shown['http_status']) == (step, http_status) and words in shown['fix']
    assert fake.key not in done.stdout + done.stderr + json.dumps(shown) and held(fake) == [OLD]


def test_a_key_restricted_to_the_zone_is_enough(box, fake, state):
    fake.keys[fake.key] = zone_id(fake)
    fake.add_record(zone_id(fake), RECORD, 'A', OLD)
    ok(run(box, state))
    assert held(fake) == [NEW]


def test_a_refused_record_says_what_the_api_said(box, fake, state):
    fake.add_record(zone_id(fake), RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', status=400,
              body={'status': 'Bad Request', 'request_id': 'x1', 'message': 'Invalid TTL'})
    failed(run(box, state))
    shown = status(box, state)
    assert '(HTTP 400: Invalid TTL)' in shown['message'] and 'check record_name' in shown['fix']


@pytest.mark.parametrize('answer', [
    {'body': {'zones': []}},
    {'body': [{'id': '../1', 'name': ZONE}]},
    {'text': '<html>busy</html>'},
], ids=['not a list', 'unsafe id', 'html'])
def test_an_unusable_zone_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='list_zones', **answer)
    failed(run(box, state))
    assert status(box, state)['step'] == 'find zone' and fake.calls() == ['list_zones']


# --- --check ------------------------------------------------------------------------------------

def test_check_lists_reads_and_writes_nothing(box, fake, state):
    rid = fake.add_record(zone_id(fake), RECORD, 'A', OLD)
    done = LUADNS.check(box, state)
    assert 'credentials accepted (API key of %s)' % fake.email in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, zone_id(fake)) in done.stdout
    assert 'A record %s found (id %s)' % (RECORD, rid) in done.stdout
    assert fake.calls() == ['list_zones', 'list_records'] and kept_nothing(state)


# --- in-process: a record's lines -----------------------------------------------------------------

def test_a_lines_record_is_made_found_changed_and_deleted_alone(box, fake, state):
    luadns = module()
    zid = zone_id(fake)
    other = fake.add_record(zid, RECORD, 'AAAA', CM)
    job = job_of(box, state, 'ct')
    assert luadns.find_record(job, zid) is None
    rid = luadns.create_record(job, zid, CT)
    found = luadns.find_record(job, zid, strict=True)
    assert (found.id, found.content) == (rid, [CT])
    moved = CT.replace('::10', '::20')
    assert luadns.update_record(job, zid, luadns.read_record(job, zid, rid), moved) == rid
    assert held(fake, rtype='AAAA') == sorted([CM, moved])
    assert luadns.delete_record(job, zid, found) is None
    assert held(fake, rtype='AAAA') == [CM] and other in fake.records
    assert luadns.delete_record(job, zid, found) is None   # gone already: success


def test_a_read_that_answers_another_records_id_is_not_taken(box, fake, state):
    rid = fake.add_record(zone_id(fake), RECORD, 'A', OLD)
    ok(run(box, state, ip=OTHER))
    fake.reset_log()
    fake.fail('rewrite', route='get_record', answer=lambda reply: type(reply)(200, dict(
        json.loads(reply.raw), id=int(rid) + 1)))
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'list_zones', 'list_records', 'update_record'] and held(fake) == [NEW]
