"""The vercel provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is Vercel's own (the team's id on every
call, the records listed whole page by page, the name relative with "" the apex, a PATCH of the
address alone that keeps the TTL and comment, so stored ids update unread), its refusals with their
fixes (a bad token is HTTP 403 with invalidToken) and no secret shown, --check, the domains the token
sees, and a record's operator lines as records of the name with a comment naming the line."""

import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'
TEAM = 'team_nLlpyC6REAqxydlFKbrMDlud'

VERCEL = Harness('vercel', NEW)
fake, state = VERCEL.fixtures()
env_of, run, status, module, job_of = VERCEL.bound()
stored = VERCEL.stored


# --- created, updated, unchanged ------------------------------------------------------------------

def test_created_with_the_name_relative_to_the_domain_and_the_apis_ttl(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    assert fake.calls('create_record')[0].json == {'name': 'home', 'type': 'A', 'value': NEW}
    assert [(r['content'], r['ttl'], r['comment']) for r in fake.find(RECORD)] == [(NEW, 60, None)]
    assert status(box, state)['outcome'] == 'created'


def test_every_call_carries_the_token_and_nothing_shows_it(box, fake, state):
    done = run(box, state)
    ok(done)
    assert {r.headers['authorization'] for r in fake.requests} == {'Bearer ' + fake.token}
    assert all('teamId' not in r.query for r in fake.requests) and fake.token not in shown(done, state)


def test_a_teams_domain_is_reached_with_the_team_id_on_every_call(box, fake, state):
    fake.domains[ZONE]['owner'] = TEAM
    fake.tokens[fake.token] = {None, TEAM}   # a token that may use the team too
    done = run(box, state)
    failed(done)   # without team_id the personal account's scope has no such domain
    assert status(box, state)['http_status'] == 404 and 'team_id' in status(box, state)['fix']
    fake.reset_log()
    ok(run(box, state, DDNS_TEAM_ID=TEAM))
    assert fake.calls() == ['list_records', 'create_record'] and {r.query['teamId'] for r in fake.requests} == {TEAM}
    rid = fake.find(RECORD)[0]['id']
    ok(run(box, state, ip=OTHER, DDNS_TEAM_ID=TEAM))   # stored ids: the PATCH alone, with the team too
    assert fake.calls()[2:] == ['update_record'] and fake.calls('update_record')[0].query == {'teamId': TEAM}
    assert fake.records[rid]['content'] == OTHER


def test_an_update_patches_the_address_alone_and_the_ttl_and_comment_stay(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=300, comment='router')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    assert fake.calls('update_record')[0].json == {'value': NEW}
    assert fake.calls('update_record')[0].path == '/v1/domains/records/' + rid
    assert [fake.records[rid][k] for k in ('content', 'ttl', 'comment')] == [NEW, 300, 'router']


def test_with_stored_ids_an_update_needs_no_read(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    stored(state, ZONE, rid, OLD)
    ok(run(box, state))
    assert fake.calls() == ['update_record'] and fake.records[rid]['content'] == NEW


def test_stored_ids_of_a_deleted_record_are_looked_up_again(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    stored(state, ZONE, rid, OLD)
    del fake.records[rid]
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['update_record', 'list_records', 'create_record'] and 'Stored ids are stale' in done.stdout


def test_the_apex_is_the_empty_name(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('create_record')[0].json['name'] == ''
    fake.reset_log()
    ok(run(box, state / 'again', DDNS_RECORD_NAME=ZONE, ip=OTHER))   # no ids: found in the listing as ''
    assert fake.calls() == ['list_records', 'update_record'] and [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_unchanged_when_the_record_holds_the_ip_and_other_records_untouched(box, fake, state):
    txt = fake.add_record(ZONE, RECORD, 'TXT', 'hello')
    fake.add_record(ZONE, 'nas.' + ZONE, 'A', OLD)
    fake.add_record(ZONE, RECORD, 'A', NEW)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_records'] and 'the record at the provider holds it' in done.stdout
    assert fake.records[txt]['content'] == 'hello' and [r['content'] for r in fake.find('nas.' + ZONE)] == [OLD]


def test_a_listing_of_several_pages_is_read_to_its_end(box, fake, state, monkeypatch):
    vercel = module()
    monkeypatch.setattr(vercel, 'PAGE_ROWS', 2)
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)   # the oldest: on the last page
    for n in range(4):
        fake.add_record(ZONE, 'n%d.%s' % (n, ZONE), 'A', '81.2.69.%d' % (n + 20))
    found = vercel.find_record(job_of(box, state), ZONE)
    assert (found.id, found.content) == (rid, [OLD])
    assert [r.query.get('until') is not None for r in fake.requests] == [False, True, True]


def test_a_listing_longer_than_a_run_reads_is_a_failure(box, fake, state, monkeypatch):
    from ddkit import Failure
    vercel = module()
    monkeypatch.setattr(vercel, 'PAGE_ROWS', 1)
    monkeypatch.setattr(vercel, 'PAGES', 2)
    for n in range(3):
        fake.add_record(ZONE, 'n%d.%s' % (n, ZONE), 'A', '81.2.69.%d' % (n + 20))
    with pytest.raises(Failure) as refused:
        vercel.find_record(job_of(box, state), ZONE)
    assert 'more than 2 records' in str(refused.value) and len(fake.requests) == 2


# --- refusals: their fixes, and no secret shown -------------------------------------------------

def test_a_bad_token_is_a_403_with_invalid_token_and_its_fix(box, fake, state):
    secret = 'vcp_the_wrong_token_0123456789'
    done, seen = VERCEL.failure(box, state, DDNS_API_TOKEN=secret)
    assert (seen['step'], seen['http_status'], seen['code']) == ('find zone', 403, 'forbidden')
    assert seen['fix'] == module().TOKEN_FIX
    assert secret not in shown(done, state) + json.dumps(seen)


def test_a_team_the_token_may_not_use_says_so(box, fake, state):
    done, seen = VERCEL.failure(box, state, DDNS_TEAM_ID='team_other')
    assert (seen['http_status'], seen['code']) == (403, 'forbidden') and seen['fix'] == module().FIXES[403]


def test_a_team_id_that_would_steer_the_query_is_refused_before_anything_is_sent(box, fake, state):
    done = run(box, state, DDNS_TEAM_ID='team_x&limit=1')
    assert done.returncode == 2 and 'team_id' in done.stdout + done.stderr and fake.calls() == []


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done, seen = VERCEL.failure(box, state, **more)
    assert (seen['step'], seen['kind'], seen['code']) == ('find zone', 'not found', 'not_found')
    assert 'no domain example.org in this account' in done.stdout


@pytest.mark.parametrize('answer, words', [
    ({'status': 400, 'body': {'error': {'code': 'invalid_value', 'message': 'Invalid value for A record'}}},
     'check record_name and record_type'),
    ({'status': 429, 'body': {'error': {'code': 'rate_limited', 'message': 'Rate limit exceeded'}},
      'headers': {'Retry-After': '3600', 'X-RateLimit-Remaining': '0'}}, 'run less often'),
], ids=['invalid value', 'rate limited'])
def test_an_update_refused_says_why_and_what_to_do(box, fake, state, answer, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', times=3, **answer)
    done, seen = VERCEL.failure(box, state)
    assert (seen['step'], seen['http_status'], seen['code']) == ('update record', answer['status'],
                                                                 answer['body']['error']['code'])
    assert words in seen['fix'] and answer['body']['error']['message'] in seen['message']


@pytest.mark.parametrize('answer', [
    {'text': '{"records": {"id": "rec_1"}}'},
    {'text': '[1, 2]'},
    {'text': '<html>busy</html>'},
    {'status': 500, 'body': {'error': {'code': 'internal_server_error', 'message': 'An unexpected error'}}},
], ids=['records not a list', 'not an object', 'html', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    VERCEL.unusable_listing(box, state, answer)


def test_a_hostile_record_id_or_page_is_not_taken(box, fake, state):
    fake.fail('reply', route='list_records', body={'records': [
        {'id': '../../x', 'name': 'home', 'type': 'A', 'value': OLD, 'ttl': 60}],
        'pagination': {'count': 1, 'next': '1; rm', 'prev': None}})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']


# --- --check ------------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = VERCEL.check(box, state)
    assert 'ok    credentials accepted (access token)' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id rec_' % RECORD in done.stdout
    assert set(fake.calls()) == {'list_zones', 'list_records'} and kept_nothing(state)


# --- the domains the token sees, for a record without zone_name -----------------------------------

def test_account_zones_lists_every_domain_of_the_scope(box, fake, state, monkeypatch):
    vercel = module()
    monkeypatch.setattr(vercel, 'PAGE_ROWS', 2)
    for name in ('b.example.net', 'c.example.io'):
        fake.add_zone(name)
    fake.add_zone('team.example.dev', team=TEAM)
    zones = vercel.account_zones(job_of(box, state))
    assert sorted(z.name for z in zones) == sorted(['b.example.net', 'c.example.io', ZONE])
    assert len(fake.calls('list_zones')) == 2


# --- operator lines: records of the name, each with its line's comment -----------------------------

def test_a_lines_record_is_made_with_its_comment_and_found_by_it(box, fake, state):
    vercel = module()
    fake.add_record(ZONE, RECORD, 'AAAA', '240e:1:2:3::99', comment='ddkit line cm')   # cm's, though 240e
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert vercel.find_record(ct_job, ZONE) is None   # another line's comment: not ct's
    rid = vercel.create_record(ct_job, ZONE, CT)
    assert fake.records[rid]['comment'] == 'ddkit line ct'
    assert vercel.find_record(ct_job, ZONE, strict=True).id == rid
    record = vercel.read_record(ct_job, ZONE, rid, held=True)
    assert vercel.update_record(ct_job, ZONE, record, CM) == rid
    assert vercel.find_record(ct_job, ZONE, strict=True).id == rid   # its comment, whatever it holds
    assert vercel.delete_record(ct_job, ZONE, record) is None
    assert vercel.delete_record(ct_job, ZONE, record) is None   # gone already: success
    assert [r['comment'] for r in fake.find(RECORD, 'AAAA')] == ['ddkit line cm']
