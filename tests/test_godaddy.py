"""The godaddy provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is GoDaddy's own (the sso-key header, the
records of a name and type read and PUT together at /records/<type>/<name>, `@` the apex, their TTL
sent back since a PUT replaces them, a new record's TTL 600), its refusals with their fixes (the 403
GoDaddy gives smaller accounts among them) and no secret shown, --check, the account's domains page
by page, and a record's operator lines as addresses among the name's records."""

import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'

GODADDY = Harness('godaddy', NEW)
fake, state = GODADDY.fixtures()
env_of, run, status, module, job_of = GODADDY.bound()
PATH = '/v1/domains/%s/records/A/home' % ZONE


def held(fake, name=RECORD, rtype='A'):
    return sorted((r['content'], r['ttl']) for r in fake.find(name, rtype))


# --- created, updated, unchanged ------------------------------------------------------------------

def test_created_by_a_put_of_the_names_records_with_ttl_600(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['get_records', 'put_records']
    assert [r.path for r in fake.requests] == [PATH, PATH]
    assert fake.calls('put_records')[0].json == [{'data': NEW, 'ttl': 600}]
    assert held(fake) == [(NEW, 600)] and status(box, state)['outcome'] == 'created'


def test_every_call_carries_the_sso_key_and_nothing_shows_the_secret(box, fake, state):
    done = run(box, state)
    ok(done)
    assert {r.headers['authorization'] for r in fake.requests} == {'sso-key %s:%s' % (fake.key, fake.secret)}
    assert fake.secret not in shown(done, state)


def test_an_update_sends_the_ttl_back(box, fake, state):
    """A PUT replaces the name's records: a TTL not sent would not be kept."""
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=7200)
    ok(run(box, state))
    assert fake.calls() == ['get_records', 'put_records']
    assert fake.calls('put_records')[0].json == [{'data': NEW, 'ttl': 7200}] and held(fake) == [(NEW, 7200)]
    ok(run(box, state, ip=OTHER))   # by the stored ids: read first, for the TTL
    assert fake.calls()[2:] == ['get_records', 'put_records'] and held(fake) == [(OTHER, 7200)]
    assert (state / ('.godaddy-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, RECORD)


def test_a_record_without_lines_is_the_names_records_holding_the_one_address(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=1800)
    fake.add_record(ZONE, RECORD, 'A', OTHER, ttl=1800)
    ok(run(box, state))
    assert held(fake) == [(NEW, 1800)]


def test_other_types_and_names_are_untouched(box, fake, state):
    fake.add_record(ZONE, RECORD, 'AAAA', CT)
    fake.add_record(ZONE, RECORD, 'TXT', 'v=spf1 -all')
    fake.add_record(ZONE, 'nas.' + ZONE, 'A', OLD)
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert held(fake) == [(NEW, 3600)] and held(fake, rtype='AAAA') == [(CT, 3600)]
    assert held(fake, rtype='TXT') == [('v=spf1 -all', 3600)] and held(fake, 'nas.' + ZONE) == [(OLD, 3600)]


def test_the_apex_is_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert {r.path for r in fake.requests} == {'/v1/domains/%s/records/A/@' % ZONE} and held(fake, ZONE) == [(NEW, 600)]


def test_unchanged_when_the_record_holds_the_ip(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', NEW)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_records'] and 'the record at the provider holds it' in done.stdout


@pytest.mark.parametrize('ttl', [5, 10 ** 30, 'x'], ids=['under the minimum', 'huge', 'not a number'])
def test_a_ttl_the_api_would_refuse_is_not_sent_back(box, fake, state, ttl):
    fake.fail('reply', route='get_records', body=[{'data': OLD, 'name': 'home', 'ttl': ttl, 'type': 'A'}])
    ok(run(box, state))
    assert fake.calls('put_records')[0].json == [{'data': NEW, 'ttl': 600}]


# --- refusals: their fixes, and no secret shown -------------------------------------------------

def test_a_wrong_secret_is_refused_with_its_fix_and_never_shown(box, fake, state):
    secret = 'the-wrong-secret-0123456789'
    done, seen = GODADDY.failure(box, state, DDNS_API_SECRET=secret)
    assert (seen['step'], seen['http_status'], seen['code']) == ('find zone', 401, 'UNABLE_TO_AUTHENTICATE')
    assert seen['fix'] == module().KEY_FIX and 'Production API key' in done.stdout
    assert secret not in shown(done, state) + json.dumps(seen)


def test_an_account_under_godaddys_threshold_is_told_so(box, fake, state):
    fake.small = True
    done, seen = GODADDY.failure(box, state)
    assert (seen['http_status'], seen['code']) == (403, 'ACCESS_DENIED')
    assert 'fewer than 10 domains' in seen['fix'] and 'Discount Domain Club' in done.stdout


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done, seen = GODADDY.failure(box, state, **more)
    assert (seen['step'], seen['kind'], seen['code']) == ('find zone', 'not found', 'UNKNOWN_DOMAIN')
    assert 'no domain example.org in this account' in done.stdout and seen['fix'] == module().FIXES[404]


@pytest.mark.parametrize('answer, words', [
    ({'status': 422, 'body': {'code': 'INVALID_BODY', 'message': 'Request body doesn\'t fulfill schema',
                              'fields': [{'code': 'UNEXPECTED_VALUE', 'message': 'must be at least 600',
                                          'path': 'records[0].ttl'}]}}, 'at least 600'),
    ({'status': 429, 'body': {'code': 'TOO_MANY_REQUESTS', 'message': 'Too many requests', 'retryAfterSec': 40}},
     '60 a minute'),
], ids=['invalid body', 'rate limited'])
def test_a_put_refused_says_why_and_what_to_do(box, fake, state, answer, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='put_records', times=3, **answer)
    done, seen = GODADDY.failure(box, state)
    assert (seen['step'], seen['http_status'], seen['code']) == ('update record', answer['status'],
                                                                 answer['body']['code'])
    assert words in seen['fix'] and answer['body']['message'] in seen['message']
    if 'fields' in answer['body']:
        assert 'records[0].ttl: must be at least 600' in done.stdout


@pytest.mark.parametrize('answer', [
    {'text': '{"data": "81.2.69.1"}'},
    {'text': '<html>busy</html>'},
    {'status': 500, 'body': {'code': 'INTERNAL_SERVER_ERROR', 'message': 'Internal error'}},
], ids=['not a list', 'html', 'server error'])
def test_an_unusable_answer_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='get_records', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('put_records') == []


# --- --check ------------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = GODADDY.check(box, state)
    assert 'ok    credentials accepted (API key and secret)' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found' % RECORD in done.stdout
    assert set(fake.calls()) == {'list_zones', 'get_records'} and kept_nothing(state)


def test_check_fails_on_a_wrong_key(box, fake, state):
    done = run(box, state, '--check', DDNS_API_KEY='wrong-key')
    assert done.returncode == 1 and 'FAIL  credentials accepted: login: the provider refused the request ' \
        '(HTTP 401, code UNABLE_TO_AUTHENTICATE' in done.stdout, done.stdout


# --- the account's domains, for a record without zone_name --------------------------------------

def test_account_zones_lists_every_domain_page_after_page(box, fake, state, monkeypatch):
    godaddy = module()
    monkeypatch.setattr(godaddy, 'ZONES_PAGE', 2)
    for name in ('b.example.net', 'c.example.io', 'd.example.dev'):
        fake.add_zone(name)
    zones = godaddy.account_zones(job_of(box, state))
    assert sorted(z.name for z in zones) == sorted(['b.example.net', 'c.example.io', 'd.example.dev', ZONE])
    assert [r.query.get('marker') for r in fake.requests] == [None, 'c.example.io', ZONE]


def test_account_zones_refuses_more_domains_than_it_reads(box, fake, state, monkeypatch):
    from ddkit import Failure
    godaddy = module()
    monkeypatch.setattr(godaddy, 'ZONES_PAGE', 1)
    monkeypatch.setattr(godaddy, 'ZONE_PAGES', 2)
    for name in ('b.example.net', 'c.example.io'):
        fake.add_zone(name)
    with pytest.raises(Failure) as refused:
        godaddy.account_zones(job_of(box, state))
    assert refused.value.step == 'find zone' and refused.value.fix == 'set zone_name'


# --- operator lines: addresses among the name's records -----------------------------------------

def test_a_lines_address_is_added_found_changed_and_taken_out_alone(box, fake, state):
    godaddy = module()
    fake.add_record(ZONE, RECORD, 'AAAA', CM, ttl=1200)
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert godaddy.find_record(ct_job, ZONE) is None
    rid = godaddy.create_record(ct_job, ZONE, CT)
    assert held(fake, rtype='AAAA') == [(CM, 1200), (CT, 1200)]   # the new one takes the others' TTL
    record = godaddy.find_record(ct_job, ZONE, strict=True)
    assert (record.id, record.content) == (rid, [CT])
    new = godaddy.update_record(ct_job, ZONE, godaddy.read_record(ct_job, ZONE, rid), '240e:1:2:99::10')
    assert held(fake, rtype='AAAA') == [(CM, 1200), ('240e:1:2:99::10', 1200)]
    assert godaddy.delete_record(ct_job, ZONE, godaddy.read_record(ct_job, ZONE, new)) is None
    assert held(fake, rtype='AAAA') == [(CM, 1200)]


def test_the_last_lines_address_takes_the_names_records_with_it(box, fake, state):
    godaddy = module()
    fake.add_record(ZONE, RECORD, 'AAAA', CT)
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert godaddy.delete_record(ct_job, ZONE, godaddy.find_record(ct_job, ZONE)) is None
    assert fake.find(RECORD, 'AAAA') == [] and fake.calls()[-1] == 'delete_records'
