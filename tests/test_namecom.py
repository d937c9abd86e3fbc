"""The namecom provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is Name.com's own (the host relative to
the domain, '' for the apex and no host in its answers, the TTL sent back because UpdateRecord
overwrites the whole record, listings page by page, HTTP Basic with the user name and the token),
its refusals with their fixes, --check, the domains of the account for a record without zone_name,
and a record's operator lines as several records of the name."""

import base64
import json
import os

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'


NAMECOM = Harness('namecom', NEW)
fake, state = NAMECOM.fixtures()
env_of, run, status, module = NAMECOM.env_of, NAMECOM.run, NAMECOM.status, NAMECOM.module


job_of = NAMECOM.job


# --- created, updated, unchanged: what Name.com's own API asks ---------------------------------

def test_created_with_the_host_relative_to_the_domain_and_the_apis_ttl(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    sent = fake.calls('create_record')[0]
    assert sent.json == {'host': 'home', 'type': 'A', 'answer': NEW}
    assert sent.headers['content-type'] == 'application/json'
    assert [(r['content'], r['ttl']) for r in fake.find(RECORD)] == [(NEW, 300)]
    assert status(box, state)['outcome'] == 'created'


def test_every_request_is_basic_authenticated_with_the_user_name_and_the_token(box, fake, state):
    ok(run(box, state))
    expected = 'Basic ' + base64.b64encode(('%s:%s' % (fake.username, fake.token)).encode()).decode()
    assert {r.headers['authorization'] for r in fake.requests} == {expected}
    assert all(r.path.startswith('/core/v1/domains/%s/records' % ZONE) for r in fake.requests)


def test_the_apex_is_the_empty_host_and_is_found_without_one(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('create_record')[0].json['host'] == '' and [r['content'] for r in fake.find(ZONE)] == [NEW]
    fake.reset_log()
    ok(run(box, state / 'again', DDNS_RECORD_NAME=ZONE, ip=OTHER))   # no ids: found in the listing, no host
    assert fake.calls() == ['list_records', 'update_record'] and [r['content'] for r in fake.find(ZONE)] == [OTHER]
    assert fake.calls('update_record')[0].json['host'] == ''


def test_an_update_sends_the_records_ttl_back(box, fake, state):
    """UpdateRecord overwrites the whole record: a TTL not sent would go back to 300."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=3600)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    assert fake.calls('update_record')[0].json == {'host': 'home', 'type': 'A', 'answer': NEW, 'ttl': 3600}
    assert (fake.records[rid]['content'], fake.records[rid]['ttl']) == (NEW, 3600)
    ok(run(box, state, ip=OTHER))   # by the stored ids: read first, for its TTL
    assert fake.calls()[2:] == ['get_record', 'update_record'] and fake.records[rid]['ttl'] == 3600


def test_the_fakes_update_does_not_keep_what_is_not_sent(box, fake):
    """What makes a TTL not sent back a visible bug: the API's PUT is a full overwrite."""
    import urllib.request
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=3600)
    request = urllib.request.Request('%s/core/v1/domains/%s/records/%s' % (fake.url, ZONE, rid), method='PUT',
                                     data=json.dumps({'host': 'home', 'type': 'A', 'answer': NEW}).encode(),
                                     headers={'Content-Type': 'application/json', 'Authorization': 'Basic ' +
                                              base64.b64encode(('%s:%s' % (fake.username, fake.token)).encode())
                                              .decode()})
    with urllib.request.urlopen(request) as answer:
        assert json.loads(answer.read())['ttl'] == 300
    assert fake.records[rid]['ttl'] == 300


def test_unchanged_when_the_record_holds_the_ip(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', NEW)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_records'] and 'the record at the provider holds it' in done.stdout
    assert status(box, state)['outcome'] == 'unchanged'


def test_a_listing_of_several_pages_is_read_to_its_end(box, fake, state, monkeypatch):
    namecom = module()
    monkeypatch.setattr(namecom, 'PAGE', 2)
    for n in range(5):
        fake.add_record(ZONE, 'n%d.%s' % (n, ZONE), 'A', '81.2.69.%d' % (n + 20))
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    found = namecom.find_record(job_of(box, state), ZONE)
    assert (found.id, found.content) == (rid, [OLD])
    assert [r.query['page'] for r in fake.requests] == ['1', '2', '3']
    assert {r.query['perPage'] for r in fake.requests} == {'2'}


def test_a_zone_larger_than_a_run_reads_is_a_failure(box, fake, state, monkeypatch):
    from ddkit import Failure
    namecom = module()
    monkeypatch.setattr(namecom, 'PAGE', 1)
    monkeypatch.setattr(namecom, 'MAX_PAGES', 2)
    for n in range(3):
        fake.add_record(ZONE, 'n%d.%s' % (n, ZONE), 'A', '81.2.69.%d' % (n + 20))
    with pytest.raises(Failure) as refused:
        namecom.find_record(job_of(box, state), ZONE)
    assert 'more than 2 records' in str(refused.value) and len(fake.requests) == 2


def test_both_families_of_a_run_share_one_listing(box, fake, state):
    from ddkit.provider import Run
    namecom = module()
    a = fake.add_record(ZONE, RECORD, 'A', OLD)
    aaaa = fake.add_record(ZONE, RECORD, 'AAAA', CT)
    run = Run(several=True)
    assert namecom.find_record(job_of(box, state, run=run), ZONE).id == a
    assert namecom.find_record(job_of(box, state, run=run, DDNS_RECORD_TYPE='AAAA'), ZONE).id == aaaa
    assert fake.calls() == ['list_records']


def test_stored_ids_of_a_deleted_record_are_looked_up_again(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.namecom-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.namecom-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    del fake.records[rid]
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_records', 'create_record'] and 'Stored ids are stale' in done.stdout
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_stored_ids_of_another_zone_or_name_are_not_taken(box, fake, state):
    other = fake.add_record(ZONE, 'nas.' + ZONE, 'A', OLD)
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.namecom-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, other))
    (state / ('.namecom-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'list_records', 'update_record']
    assert fake.records[other]['content'] == OLD and fake.records[rid]['content'] == NEW
    (state / ('.namecom-id_%s.txt' % RECORD)).write_text('other.example\n%s\n' % rid)
    (state / ('.namecom-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    fake.reset_log()
    ok(run(box, state, ip=OTHER))
    assert fake.calls() == ['list_records', 'update_record']
    assert (state / ('.namecom-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, rid)


# --- refusals: their fixes, and no secret shown -------------------------------------------------

def test_a_wrong_token_is_refused_with_its_fix_and_never_shown(box, fake, state):
    secret = 'the-wrong-token-0123456789'
    done = run(box, state, DDNS_API_TOKEN=secret)
    failed(done)
    shown = status(box, state, DDNS_API_TOKEN=secret)
    assert (shown['step'], shown['http_status'], shown['kind']) == ('find zone', 401, 'refused')
    assert shown['fix'] == module().TOKEN_FIX and 'API Tokens' in done.stdout
    assert 'HTTP 401: Unauthenticated' in shown['message']
    log = (state / ('ddkit_namecom_%s.log' % RECORD)).read_text()
    for text in (secret, fake.token, base64.b64encode(('%s:%s' % (fake.username, secret)).encode()).decode()):
        assert text not in done.stdout + done.stderr + log + json.dumps(shown)
    assert all(secret not in r.path + str(r.query) for r in fake.requests)
    assert fake.calls() == ['list_records']


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done = run(box, state, **more)
    failed(done)
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'not found', 404)
    assert 'no domain example.org in this account' in done.stdout and fake.calls() == ['list_records']
    assert shown['fix'] == module().FIXES[404]


@pytest.mark.parametrize('answer, step, words', [
    ({'status': 403, 'body': {'message': 'Permission Denied', 'details': 'The authoritative nameserver for '
                              'the request domain is not name.com'}}, 'update record', 'nameservers are not Name.com'),
    ({'status': 400, 'body': {'message': 'Invalid Argument', 'details': 'TTL must be at least 300'}},
     'update record', 'at least 300'),
    ({'status': 429, 'body': {'message': 'Rate Limit Exceeded'}, 'headers': {'Retry-After': '3600'}},
     'update record', '20 a second and 3000 an hour'),
], ids=['not name.com dns', 'invalid argument', 'rate limited'])
def test_an_update_refused_says_why_and_what_to_do(box, fake, state, answer, step, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', times=3, **answer)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['http_status'], shown['kind']) == (step, answer['status'], 'refused')
    assert words in shown['fix'] and words in done.stdout
    assert answer['body']['message'] in shown['message']


@pytest.mark.parametrize('answer', [
    {'text': '{"records": {"id": 1}, "totalCount": 1}'},
    {'text': '{"records": "none"}'},
    {'text': '[1, 2]'},
    {'text': '<html>busy</html>'},
    {'text': ''},
    {'status': 500, 'body': {'message': 'Internal Server Error', 'details': 'Something went wrong.'}},
], ids=['records not a list', 'records not a list 2', 'not an object', 'html', 'empty', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='list_records', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('create_record') == [] and fake.calls('update_record') == []


def test_a_hostile_record_id_or_ttl_is_not_taken(box, fake, state):
    """An id that would steer a request or the ids file is no id: that record is not found (so one is
    made); a TTL under the API's minimum is not sent back."""
    fake.fail('reply', route='list_records', body={'records': [
        {'id': '../../x', 'host': 'home', 'type': 'A', 'answer': OLD, 'ttl': 300}], 'totalCount': 1})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    fake.records.clear()
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body={'records': [
        {'id': int(rid), 'host': 'home', 'type': 'A', 'answer': OLD, 'ttl': 10 ** 30}], 'totalCount': 1})
    ok(run(box, state / 'x', ip=OTHER))
    assert 'ttl' not in fake.calls('update_record')[-1].json and fake.records[rid]['content'] == OTHER


# --- --check -----------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'ok    credentials accepted (user %s)' % fake.username in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id ' % RECORD in done.stdout
    assert fake.calls() == ['hello', 'list_records', 'list_records'] and os.listdir(str(state)) == []


def test_check_fails_on_a_wrong_token_and_on_a_foreign_domain(box, fake, state):
    done = run(box, state, '--check', DDNS_API_TOKEN='wrong-token-0000')
    assert done.returncode == 1 and 'FAIL  credentials accepted: login: the provider refused the request ' \
        '(HTTP 401: Unauthenticated)' in done.stdout, done.stdout
    assert 'wrong-token-0000' not in done.stdout
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert 'ok    credentials accepted' in done.stdout and \
        'FAIL  zone found: find zone: no domain example.org in this account' in done.stdout, done.stdout


# --- the account's domains, for a record without zone_name --------------------------------------

def test_account_zones_lists_every_domain_of_every_page(box, fake, state, monkeypatch):
    namecom = module()
    monkeypatch.setattr(namecom, 'ZONES_PAGE', 2)
    for name in ('b.example.net', 'A.Example.org', 'c.example.io', 'd.example.dev'):
        fake.add_zone(name)
    zones = namecom.account_zones(job_of(box, state))
    assert sorted((z.id, z.name) for z in zones) == sorted(
        (n, n) for n in ('a.example.org', 'b.example.net', 'c.example.io', 'd.example.dev', ZONE))
    assert fake.calls() == ['list_domains'] * 3 and [r.query['page'] for r in fake.requests] == ['1', '2', '3']


def test_account_zones_refuses_more_domains_than_it_reads(box, fake, state, monkeypatch):
    from ddkit import Failure
    namecom = module()
    monkeypatch.setattr(namecom, 'ZONES_PAGE', 1)
    monkeypatch.setattr(namecom, 'ZONE_PAGES', 2)
    for name in ('b.example.net', 'c.example.io'):
        fake.add_zone(name)
    with pytest.raises(Failure) as refused:
        namecom.account_zones(job_of(box, state))
    assert refused.value.step == 'find zone' and refused.value.fix == 'set zone_name'


# --- operator lines: several records of the name ------------------------------------------------

def test_a_lines_record_is_the_one_of_its_operators_address(box, fake, state):
    """Name.com has no lines: each line's record is a record of the name; without stored ids the one
    holding an address of the line's operator is that line's, never another line's."""
    from ddkit.provider import Stale
    namecom = module()
    cm = fake.add_record(ZONE, RECORD, 'AAAA', CM)
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert namecom.find_record(ct_job, ZONE) is None
    rid = namecom.create_record(ct_job, ZONE, CT)
    assert fake.by_line(RECORD, 'AAAA') == {None: sorted([CT, CM])}
    assert namecom.find_record(ct_job, ZONE, strict=True).id == rid
    assert namecom.find_record(job_of(box, state, line='cm', DDNS_RECORD_TYPE='AAAA'), ZONE, strict=True).id == cm
    record = namecom.read_record(ct_job, ZONE, rid)
    assert namecom.update_record(ct_job, ZONE, record, '240e:1:2:99::10') == rid
    assert namecom.delete_record(ct_job, ZONE, record) is None
    assert namecom.delete_record(ct_job, ZONE, record) is None   # gone already: success
    assert fake.by_line(RECORD, 'AAAA') == {None: [CM]}
    with pytest.raises(Stale):
        namecom.read_record(ct_job, ZONE, rid)
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'list_records', 'get_record',
                            'update_record', 'delete_record', 'delete_record', 'get_record']
