"""The digitalocean provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is DigitalOcean's own (the listing filtered
by the full name, the record's name relative to the domain, '@' the apex, a PATCH of the type and
address alone that keeps the TTL, so stored ids update unread), its refusals with their fixes and no
secret shown, --check, the account's domains page by page, and a record's operator lines as several
records of the name."""

import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, kept_nothing, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'

DIGITALOCEAN = Harness('digitalocean', NEW)
fake, state = DIGITALOCEAN.fixtures()
env_of, run, status, module, job_of = DIGITALOCEAN.bound()
stored = DIGITALOCEAN.stored


# --- created, updated, unchanged ------------------------------------------------------------------

def test_created_with_the_name_relative_to_the_domain_and_the_apis_ttl(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    listed = fake.calls('list_records')[0]
    assert listed.query == {'type': 'A', 'name': RECORD, 'per_page': '200'}   # the filter takes the full name
    assert fake.calls('create_record')[0].json == {'type': 'A', 'name': 'home', 'data': NEW}
    assert [(r['content'], r['ttl']) for r in fake.find(RECORD)] == [(NEW, 1800)]
    assert status(box, state)['outcome'] == 'created'


def test_every_call_carries_the_token_as_bearer_and_nothing_shows_it(box, fake, state):
    done = run(box, state)
    ok(done)
    assert {r.headers['authorization'] for r in fake.requests} == {'Bearer ' + fake.token}
    assert fake.token not in shown(done, state)


def test_an_update_patches_the_type_and_address_alone_and_the_ttl_stays(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=60)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    assert fake.calls('update_record')[0].json == {'type': 'A', 'data': NEW}
    assert (fake.records[rid]['content'], fake.records[rid]['ttl']) == (NEW, 60)


def test_with_stored_ids_an_update_needs_no_read(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=60)
    stored(state, ZONE, rid, OLD)
    ok(run(box, state))
    assert fake.calls() == ['update_record'] and fake.records[rid]['ttl'] == 60
    assert fake.calls('update_record')[0].path == '/v2/domains/%s/records/%s' % (ZONE, rid)


def test_the_apex_is_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('create_record')[0].json['name'] == '@'
    assert fake.calls('list_records')[0].query['name'] == ZONE
    fake.reset_log()
    ok(run(box, state / 'again', DDNS_RECORD_NAME=ZONE, ip=OTHER))   # no ids: found in the listing as '@'
    assert fake.calls() == ['list_records', 'update_record'] and [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_unchanged_when_the_record_holds_the_ip(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', NEW)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_records'] and 'the record at the provider holds it' in done.stdout


def test_other_records_of_the_name_are_untouched(box, fake, state):
    txt = fake.add_record(ZONE, RECORD, 'TXT', 'v=spf1 -all')
    aaaa = fake.add_record(ZONE, RECORD, 'AAAA', CT)
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert [fake.records[r]['content'] for r in (txt, aaaa, rid)] == ['v=spf1 -all', CT, NEW]
    assert len(fake.records) == 3


def test_stored_ids_of_a_deleted_record_are_looked_up_again(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    stored(state, ZONE, rid, OLD)
    del fake.records[rid]
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['update_record', 'list_records', 'create_record'] and 'Stored ids are stale' in done.stdout
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_stored_ids_of_another_zone_are_not_taken(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    stored(state, 'other.example', rid, OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    assert (state / ('.digitalocean-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, rid)


def test_verifying_reads_the_record_and_takes_no_other_records_id(box, fake, state):
    """A read by stored ids (verify) that finds another name's record looks the record up again."""
    other = fake.add_record(ZONE, 'nas.' + ZONE, 'A', NEW)
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    stored(state, ZONE, other, NEW)
    ok(run(box, state, DDNS_VERIFY_INTERVAL='0'))
    assert fake.calls() == ['get_record', 'list_records', 'update_record']
    assert fake.records[other]['content'] == NEW and fake.records[rid]['content'] == NEW


# --- refusals: their fixes, and no secret shown -------------------------------------------------

def test_a_wrong_token_is_refused_with_its_fix_and_never_shown(box, fake, state):
    secret = 'dop_v1_the_wrong_token_0123456789'
    done, seen = DIGITALOCEAN.failure(box, state, DDNS_API_TOKEN=secret)
    assert (seen['step'], seen['http_status'], seen['kind']) == ('find zone', 401, 'refused')
    assert seen['fix'] == module().FIXES[401] and 'Unable to authenticate you' in seen['message']
    assert secret not in shown(done, state) + json.dumps(seen)
    assert all(secret not in r.path + str(r.query) for r in fake.requests)


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done, seen = DIGITALOCEAN.failure(box, state, **more)
    assert (seen['step'], seen['kind'], seen['http_status']) == ('find zone', 'not found', 404)
    assert 'no domain example.org in this account' in done.stdout and seen['fix'] == module().FIXES[404]


def test_a_token_without_the_create_scope_says_which_scopes_it_needs(box, fake, state):
    token = 'dop_v1_read_and_update_only'
    fake.scoped(token, 'domain:read', 'domain:update')
    done, seen = DIGITALOCEAN.failure(box, state, DDNS_API_TOKEN=token)
    assert (seen['step'], seen['http_status']) == ('create record', 403)
    assert 'domain:create' in seen['fix'] and fake.calls() == ['list_records', 'create_record']
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)   # an update needs domain:update alone
    ok(run(box, state, DDNS_API_TOKEN=token))
    assert fake.records[rid]['content'] == NEW


@pytest.mark.parametrize('answer, words', [
    ({'status': 422, 'body': {'id': 'unprocessable_entity', 'message': 'Data needs to be a valid IPv4 address.'}},
     'check record_name and record_type'),
    ({'status': 429, 'body': {'id': 'too_many_requests', 'message': 'API Rate limit exceeded.'},
      'headers': {'Retry-After': '3600', 'ratelimit-remaining': '0'}}, '250 a minute'),
], ids=['unprocessable', 'rate limited'])
def test_an_update_refused_says_why_and_what_to_do(box, fake, state, answer, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', times=3, **answer)
    done, seen = DIGITALOCEAN.failure(box, state)
    assert (seen['step'], seen['http_status']) == ('update record', answer['status'])
    assert seen['code'] == answer['body']['id']
    assert words in seen['fix'] and answer['body']['message'] in seen['message']


@pytest.mark.parametrize('answer', [
    {'text': '{"domain_records": {"id": 1}}'},
    {'text': '[1, 2]'},
    {'text': '<html>busy</html>'},
    {'status': 500, 'body': {'id': 'server_error', 'message': 'Server Error'}},
], ids=['records not a list', 'not an object', 'html', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    DIGITALOCEAN.unusable_listing(box, state, answer)


def test_a_hostile_record_id_is_not_taken(box, fake, state):
    """An id that would steer a request or the ids file is no id: that record is not found, so one is made."""
    fake.fail('reply', route='list_records', body={'domain_records': [
        {'id': '../../x', 'type': 'A', 'name': 'home', 'data': OLD, 'ttl': 1800}], 'links': {}, 'meta': {'total': 1}})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']


# --- --check ------------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = DIGITALOCEAN.check(box, state)
    assert 'ok    credentials accepted (personal access token)' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id ' % RECORD in done.stdout
    assert fake.calls() == ['list_zones', 'list_records', 'list_records'] and kept_nothing(state)


def test_check_fails_on_a_wrong_token(box, fake, state):
    done = run(box, state, '--check', DDNS_API_TOKEN='dop_v1_wrong')
    assert done.returncode == 1 and 'FAIL  credentials accepted: login: the provider refused the request ' \
        '(HTTP 401, code Unauthorized: Unable to authenticate you)' in done.stdout, done.stdout
    assert 'dop_v1_wrong' not in done.stdout


# --- the account's domains, for a record without zone_name --------------------------------------

def test_account_zones_lists_every_domain_of_every_page(box, fake, state, monkeypatch):
    digitalocean = module()
    monkeypatch.setattr(digitalocean, 'PER_PAGE', 2)
    for name in ('b.example.net', 'c.example.io', 'd.example.dev'):
        fake.add_zone(name)
    zones = digitalocean.account_zones(job_of(box, state))
    assert sorted(z.name for z in zones) == sorted(['b.example.net', 'c.example.io', 'd.example.dev', ZONE])
    assert [r.query['page'] for r in fake.requests] == ['1', '2']


def test_account_zones_refuses_more_domains_than_it_reads(box, fake, state, monkeypatch):
    from ddkit import Failure
    digitalocean = module()
    monkeypatch.setattr(digitalocean, 'PER_PAGE', 1)
    monkeypatch.setattr(digitalocean, 'ZONE_PAGES', 2)
    for name in ('b.example.net', 'c.example.io'):
        fake.add_zone(name)
    with pytest.raises(Failure) as refused:
        digitalocean.account_zones(job_of(box, state))
    assert refused.value.step == 'find zone' and refused.value.fix == 'set zone_name'


# --- operator lines: several records of the name ------------------------------------------------

def test_a_lines_record_is_the_one_of_its_operators_address(box, fake, state):
    """No lines at DigitalOcean: each line's record is a record of the name; without stored ids the
    one holding an address of the line's operator is that line's, never another line's."""
    from ddkit.provider import Stale
    digitalocean = module()
    cm = fake.add_record(ZONE, RECORD, 'AAAA', CM)
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert digitalocean.find_record(ct_job, ZONE) is None
    rid = digitalocean.create_record(ct_job, ZONE, CT)
    assert fake.by_line(RECORD, 'AAAA') == {None: sorted([CT, CM])}
    assert digitalocean.find_record(ct_job, ZONE, strict=True).id == rid
    cm_job = job_of(box, state, line='cm', DDNS_RECORD_TYPE='AAAA')
    assert digitalocean.find_record(cm_job, ZONE, strict=True).id == cm
    record = digitalocean.read_record(ct_job, ZONE, rid, held=True)
    assert record.content == [CT]
    assert digitalocean.update_record(ct_job, ZONE, record, '240e:1:2:99::10') == rid
    assert digitalocean.delete_record(ct_job, ZONE, record) is None
    assert digitalocean.delete_record(ct_job, ZONE, record) is None   # gone already: success
    assert fake.by_line(RECORD, 'AAAA') == {None: [CM]}
    with pytest.raises(Stale):
        digitalocean.read_record(ct_job, ZONE, rid, held=True)
