"""The ns1 provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is NS1's own (the X-NSONE-Key header, the
record at /zones/<zone>/<full name>/<type> holding answers, made by a PUT with the zone's TTL and
changed by a POST of its answers alone, their meta sent back and the TTL kept), a create that meets a
record made meanwhile, its refusals with their fixes and no secret shown, --check, the account's
zones, and a record's operator lines as answers of the record."""

import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'

NS1 = Harness('ns1', NEW)
fake, state = NS1.fixtures()
env_of, run, status, module, job_of = NS1.bound()
PATH = '/v1/zones/%s/%s/A' % (ZONE, RECORD)


def record(fake, name=RECORD, rtype='A'):
    return fake.rrsets[(ZONE, name, rtype)]


# --- created, updated, unchanged ------------------------------------------------------------------

def test_created_by_a_put_with_the_zones_ttl(box, fake, state):
    fake.zones[ZONE]['ttl'] = 900
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'create_record']
    assert [r.path for r in fake.requests[1:]] == [PATH, PATH]   # the domain: the full name
    assert fake.calls('create_record')[0].json == {'zone': ZONE, 'domain': RECORD, 'type': 'A',
                                                  'answers': [{'answer': [NEW]}]}
    assert (record(fake)['records'], record(fake)['ttl']) == ([NEW], 900) and status(box, state)['outcome'] == 'created'


def test_every_call_carries_the_key_and_nothing_shows_it(box, fake, state):
    done = run(box, state)
    ok(done)
    assert {r.headers['x-nsone-key'] for r in fake.requests} == {fake.key}
    assert all('authorization' not in r.headers for r in fake.requests) and fake.key not in shown(done, state)


def test_an_update_posts_the_answers_alone_their_meta_kept_and_the_ttl_stays(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=120, meta={'note': 'router', 'up': True})
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'update_record']
    sent = fake.calls('update_record')[0].json
    assert sent == {'answers': [{'answer': [NEW], 'meta': {'note': 'router', 'up': True}}]}
    assert (record(fake)['records'], record(fake)['ttl']) == ([NEW], 120)
    assert record(fake)['metas'][0]['meta'] == {'note': 'router', 'up': True}
    ok(run(box, state, ip=OTHER))   # by the stored ids: read first, for the answers' meta
    assert fake.calls()[3:] == ['get_record', 'update_record'] and record(fake)['records'] == [OTHER]
    assert (state / ('.ns1-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, RECORD)


def test_a_record_without_lines_holds_the_one_address(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', [OLD, OTHER])
    ok(run(box, state))
    assert record(fake)['records'] == [NEW]


def test_other_types_and_names_are_untouched(box, fake, state):
    fake.add_record(ZONE, RECORD, 'AAAA', CT)
    fake.add_record(ZONE, 'nas.' + ZONE, 'A', OLD)
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert record(fake, rtype='AAAA')['records'] == [CT] and record(fake, 'nas.' + ZONE)['records'] == [OLD]


def test_the_apex_is_the_zones_own_name(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('create_record')[0].path == '/v1/zones/%s/%s/A' % (ZONE, ZONE)
    assert record(fake, ZONE)['records'] == [NEW]


def test_stored_ids_of_a_deleted_record_make_it_again(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.ns1-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, RECORD))
    (state / ('.ns1-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    del fake.rrsets[(ZONE, RECORD, 'A')]
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'get_zone', 'get_record', 'create_record'] and 'stale' in done.stdout


def test_a_create_that_meets_a_record_made_meanwhile_updates_it(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=120)
    fake.fail('reply', route='get_record', status=404, body={'message': 'record not found'})   # not there yet
    done = run(box, state)
    ok(done)
    assert fake.calls('create_record') and fake.calls()[-1] == 'update_record'
    assert (record(fake)['records'], record(fake)['ttl']) == ([NEW], 120)


# --- refusals: their fixes, and no secret shown -------------------------------------------------

def test_a_wrong_key_is_refused_with_its_fix_and_never_shown(box, fake, state):
    secret = 'the-wrong-key-0123456789'
    done, seen = NS1.failure(box, state, DDNS_API_KEY=secret)
    assert (seen['step'], seen['http_status']) == ('find zone', 401) and seen['fix'] == module().FIXES[401]
    assert 'Authentication required' in seen['message'] and secret not in shown(done, state) + json.dumps(seen)


def test_a_key_that_may_not_manage_records_says_which_permissions_it_needs(box, fake, state):
    fake.keys['view-only-key'] = {'view_zones'}
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done, seen = NS1.failure(box, state, DDNS_API_KEY='view-only-key')
    assert (seen['step'], seen['http_status']) == ('update record', 403) and 'Manage records' in seen['fix']


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done, seen = NS1.failure(box, state, **more)
    assert (seen['step'], seen['kind'], seen['http_status']) == ('find zone', 'not found', 404)
    assert 'no zone example.org in this account' in done.stdout and fake.calls() == ['get_zone']


@pytest.mark.parametrize('answer, words', [
    ({'status': 400, 'body': {'message': 'invalid A answer'}}, 'check record_name'),
    ({'status': 429, 'body': {'message': 'rate limit exceeded'}, 'headers': {'Retry-After': '3600'}},
     'run less often'),
], ids=['bad request', 'rate limited'])
def test_an_update_refused_says_why_and_what_to_do(box, fake, state, answer, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', times=3, **answer)
    done, seen = NS1.failure(box, state)
    assert (seen['step'], seen['http_status']) == ('update record', answer['status'])
    assert words in seen['fix'] and answer['body']['message'] in seen['message']


@pytest.mark.parametrize('answer', [
    {'text': '{"answers": {"answer": ["81.2.69.1"]}, "type": "A"}'},
    {'text': '{"answers": [], "type": "CNAME"}'},
    {'text': '[1, 2]'},
    {'text': '<html>busy</html>'},
    {'status': 500, 'body': {'message': 'internal error'}},
], ids=['answers not a list', 'another type', 'not an object', 'html', 'server error'])
def test_an_unusable_record_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='get_record', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('update_record') == [] and fake.calls('create_record') == []



def test_a_zone_answered_for_another_name_is_a_failure(box, fake, state):
    fake.fail('reply', route='get_zone', times=3, body={'zone': 'other.example'})
    done = run(box, state)
    failed(done)
    assert 'unexpected answer: the zone read is other.example, not %s' % ZONE in done.stdout
    assert fake.calls() == ['get_zone']

# --- --check ------------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = NS1.check(box, state)
    assert 'ok    credentials accepted (API key)' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found' % RECORD in done.stdout
    assert set(fake.calls()) == {'list_zones', 'get_zone', 'get_record'} and kept_nothing(state)


def test_account_zones_lists_the_zones(box, fake, state):
    for name in ('b.example.net', 'C.Example.io'):
        fake.add_zone(name)
    zones = module().account_zones(job_of(box, state))
    assert sorted(z.name for z in zones) == sorted(['b.example.net', 'c.example.io', ZONE])


# --- operator lines: answers of the record ----------------------------------------------------------

def test_a_lines_answer_is_added_found_changed_and_taken_out_alone(box, fake, state):
    ns1 = module()
    fake.add_record(ZONE, RECORD, 'AAAA', CM, ttl=300, meta={'note': 'cm'})
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert ns1.find_record(ct_job, ZONE) is None
    rid = ns1.create_record(ct_job, ZONE, CT)
    assert fake.by_line(RECORD, 'AAAA') == {None: sorted([CM, CT])}
    found = ns1.find_record(ct_job, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [CT])
    new = ns1.update_record(ct_job, ZONE, ns1.read_record(ct_job, ZONE, rid), '240e:1:2:99::10')
    assert fake.by_line(RECORD, 'AAAA') == {None: sorted([CM, '240e:1:2:99::10'])}
    assert record(fake, rtype='AAAA')['metas'][0]['meta'] == {'note': 'cm'}   # the other line's answer as it was
    assert ns1.delete_record(ct_job, ZONE, ns1.read_record(ct_job, ZONE, new)) is None
    assert fake.by_line(RECORD, 'AAAA') == {None: [CM]} and record(fake, rtype='AAAA')['ttl'] == 300


def test_the_last_lines_answer_takes_the_record_with_it(box, fake, state):
    ns1 = module()
    fake.add_record(ZONE, RECORD, 'AAAA', CT)
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert ns1.delete_record(ct_job, ZONE, ns1.find_record(ct_job, ZONE)) is None
    assert fake.find(RECORD, 'AAAA') == [] and fake.calls()[-1] == 'delete_record'
