"""The dnsimple provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is DNSimple's own (the Bearer token; the
account from whoami, or a user token's one account; the account kept in the zone id, so stored ids
need neither whoami nor a read; a PATCH of the content alone, which keeps the TTL, priority and
regions; the relative name, "" the apex; its errors and fixes), --check, the account's zones page by
page, and a record's operator lines: each line one record of the name."""

import functools
import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'


DNSIMPLE = Harness('dnsimple', NEW)
fake, state = DNSIMPLE.fixtures()
env_of, run, status, module, _job = DNSIMPLE.bound()
job_of = functools.partial(DNSIMPLE.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def held(fake, name=RECORD, rtype='A'):
    return sorted(r['content'] for r in fake.find(name, rtype))


def stored(state, rid, zone_id='1385-' + ZONE, claims=OLD):
    (state / ('.dnsimple-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (zone_id, rid))
    (state / ('.dnsimple-ip_%s.txt' % RECORD)).write_text(claims + '\n')


# --- what is DNSimple's own ----------------------------------------------------------------------

def test_every_call_carries_the_token_and_nothing_shows_it(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['whoami', 'list_records', 'update_record']
    assert all(r.headers['authorization'] == 'Bearer ' + fake.token for r in fake.requests)
    assert [r.path for r in fake.requests] == ['/v2/whoami', '/v2/1385/zones/%s/records' % ZONE,
                                               '/v2/1385/zones/%s/records/%s' % (ZONE, rid)]
    assert fake.calls('list_records')[0].query == {'name': 'home', 'type': 'A', 'per_page': '100'}
    assert (state / ('.dnsimple-id_%s.txt' % RECORD)).read_text() == '1385-%s\n%s\n' % (ZONE, rid)
    log = (state / ('ddkit_dnsimple_%s.log' % RECORD)).read_text()
    assert fake.token not in log + json.dumps(status(box, state))


def test_an_update_sends_the_content_alone_and_the_record_keeps_the_rest(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=7200, priority=5, regions=('SV1', 'AMS'))
    ok(run(box, state))
    assert fake.calls('update_record')[0].json == {'content': NEW}
    assert {k: fake.records[rid][k] for k in ('content', 'ttl', 'priority', 'regions')} == {
        'content': NEW, 'ttl': 7200, 'priority': 5, 'regions': ['SV1', 'AMS']}


def test_with_stored_ids_an_update_needs_no_whoami_and_no_read(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=7200)
    stored(state, rid)
    ok(run(box, state))
    assert fake.calls() == ['update_record'] and held(fake) == [NEW] and fake.records[rid]['ttl'] == 7200


def test_a_record_deleted_meanwhile_is_made_again(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    stored(state, rid)
    fake.records.clear()
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['update_record', 'whoami', 'list_records', 'create_record']
    assert 'Stored ids are stale' in done.stdout and held(fake) == [NEW]


@pytest.mark.parametrize('ids', ['1385-other.example', 'example.com', '1385-%s\n../1' % ZONE],
                         ids=['another zone', 'no account', 'unsafe record id'])
def test_stored_ids_of_another_zone_or_of_no_account_are_not_taken(box, fake, state, ids):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    zone_id, _, rid = ids.partition('\n')
    stored(state, rid or '5001', zone_id)
    ok(run(box, state))
    assert fake.calls() == ['whoami', 'list_records', 'update_record'] and held(fake) == [NEW]


def test_a_new_record_is_made_with_the_relative_name_and_no_ttl(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['whoami', 'list_records', 'create_record']
    assert fake.calls('create_record')[0].json == {'name': 'home', 'type': 'A', 'content': NEW}
    assert held(fake) == [NEW] and fake.find(RECORD)[0]['ttl'] == 3600


def test_the_apex_is_the_empty_name(box, fake, state):
    fake.add_record(ZONE, ZONE, 'A', OLD)
    fake.add_record(ZONE, RECORD, 'A', OTHER)
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('list_records')[0].query['name'] == '' and held(fake, ZONE) == [NEW]
    assert held(fake) == [OTHER]


def test_a_user_token_of_one_account_acts_for_it(box, fake, state):
    fake.tokens[fake.token] = ('user', [1385])
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['whoami', 'list_accounts', 'list_records', 'update_record']


def test_a_user_token_of_several_accounts_asks_for_an_account_token(box, fake, state):
    fake.tokens[fake.token] = ('user', [1385, 1386])
    failed(run(box, state))
    shown = status(box, state)
    assert (shown['step'], shown['kind']) == ('find zone', 'unexpected')
    assert 'use an account access token' in shown['fix'] and fake.calls() == ['whoami', 'list_accounts']


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(run(box, state, **more))
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'not found', 404)
    assert 'Zone `example.org` not found' in shown['message'] and 'token\'s account' in shown['fix']


def test_a_refused_token_says_why_and_never_shows_it(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done, shown = DNSIMPLE.failure(box, state, DDNS_API_TOKEN='not-the-token')
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'refused', 401)
    assert 'Authentication failed' in shown['message'] and 'account access token' in shown['fix']
    assert 'not-the-token' not in done.stdout + done.stderr + json.dumps(shown)


def test_a_refused_body_names_the_field(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', status=400,
              body={'message': 'Validation failed', 'errors': {'content': ['is not a valid IPv4 address']}})
    failed(run(box, state))
    shown = status(box, state)
    assert '(HTTP 400: Validation failed; content: is not a valid IPv4 address)' in shown['message']
    assert 'check record_name and record_type' in shown['fix'] and held(fake) == [OLD]


def test_a_throttled_request_fails_saying_so(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', status=429, times=5, headers={'Retry-After': '900'},
              body={'message': 'Your account exceeded the rate limit'})
    failed(run(box, state))
    shown = status(box, state)
    assert (shown['step'], shown['http_status']) == ('update record', 429) and '2,400 an hour' in shown['fix']


@pytest.mark.parametrize('answer', [
    {'body': {'data': 'x'}},
    {'body': {'data': [{'id': 'x/1', 'name': 'home', 'type': 'A', 'content': OLD}]}},
    {'body': {'data': [{'id': 2 ** 60, 'name': 'home', 'type': 'A', 'content': OLD}]}},
    {'text': '<html>busy</html>'},
], ids=['not a list', 'unsafe id', 'id out of bounds', 'html'])
def test_an_unusable_listing_is_a_failure_or_no_record_never_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', **answer)
    done = run(box, state)
    assert fake.calls('update_record') == []
    if 'text' in answer or answer['body']['data'] == 'x':
        failed(done)
    else:   # no record of a usable id: one is made
        ok(done)
        assert fake.calls('create_record')


# --- --check ------------------------------------------------------------------------------------

def test_check_lists_reads_and_writes_nothing(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    done = DNSIMPLE.check(box, state)
    assert 'credentials accepted (account 1385)' in done.stdout
    assert 'zone %s found (id 1385-%s)' % (ZONE, ZONE) in done.stdout
    assert 'A record %s found (id %s)' % (RECORD, rid) in done.stdout
    # the record's check lists the name afresh: what it says is not the zone check's listing
    assert fake.calls() == ['whoami', 'list_records', 'list_records'] and kept_nothing(state)


# --- in-process: the account's zones, a record's lines --------------------------------------------

def test_account_zones_reads_every_page(box, fake, state):
    for n in range(120):
        fake.add_zone('zone%03d.example' % n)
    zones = module().account_zones(job_of(box, state))
    assert len(zones) == 121 and 'example.com' in [z.name for z in zones]
    assert [r.query['page'] for r in fake.calls('list_zones')] == ['1', '2']


def test_a_lines_record_is_made_found_changed_and_deleted_alone(box, fake, state):
    dnsimple = module()
    other = fake.add_record(ZONE, RECORD, 'AAAA', CM)
    job = job_of(box, state, 'ct')
    zone_id = dnsimple.choose_zone(job, dnsimple.list_zones(job)).id
    assert dnsimple.find_record(job, zone_id) is None
    rid = dnsimple.create_record(job, zone_id, CT)
    found = dnsimple.find_record(job, zone_id, strict=True)
    assert (found.id, found.content) == (rid, [CT])
    moved = CT.replace('::10', '::20')
    assert dnsimple.update_record(job, zone_id, dnsimple.read_record(job, zone_id, rid), moved) == rid
    assert held(fake, rtype='AAAA') == sorted([CM, moved])
    assert dnsimple.delete_record(job, zone_id, found) is None
    assert held(fake, rtype='AAAA') == [CM] and other in fake.records
    assert dnsimple.delete_record(job, zone_id, found) is None   # gone already: success
