"""The gandi provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is Gandi's own (the personal access token
as Bearer, the RRset at /records/<name>/<type> with `@` the apex, a PUT that makes or replaces it
whole, its TTL sent back since a PUT without it falls to 10800, a new RRset's TTL 300), its refusals
with their fixes and no secret shown, --check, the domains the token may use, and a record's
operator lines as values of the RRset."""

import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'

GANDI = Harness('gandi', NEW)
fake, state = GANDI.fixtures()
env_of, run, status, module, job_of = GANDI.bound()
PATH = '/v5/livedns/domains/%s/records/home/A' % ZONE


def rrset(fake, name='home', rtype='A'):
    return fake.rrsets[(ZONE, name, rtype)]


# --- created, updated, unchanged ------------------------------------------------------------------

def test_created_by_a_put_with_ttl_300(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'put_record']
    assert [r.path for r in fake.requests[1:]] == [PATH, PATH]
    assert fake.calls('put_record')[0].json == {'rrset_values': [NEW], 'rrset_ttl': 300}
    assert (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], 300) and status(box, state)['outcome'] == 'created'


def test_every_call_carries_the_token_as_bearer_and_nothing_shows_it(box, fake, state):
    done = run(box, state)
    ok(done)
    assert {r.headers['authorization'] for r in fake.requests} == {'Bearer ' + fake.token}
    assert fake.token not in shown(done, state)


def test_an_update_sends_the_rrsets_ttl_back(box, fake, state):
    """A PUT replaces the RRset: without rrset_ttl the TTL would fall to 10800."""
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=1200)
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'put_record']
    assert fake.calls('put_record')[0].json == {'rrset_values': [NEW], 'rrset_ttl': 1200}
    assert (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], 1200)
    ok(run(box, state, ip=OTHER))   # by the stored ids: read first, for the TTL
    assert fake.calls()[3:] == ['get_record', 'put_record'] and rrset(fake)['ttl'] == 1200


def test_the_fakes_put_without_a_ttl_falls_to_gandis_default(box, fake):
    """What makes a TTL not sent back a visible bug."""
    import urllib.request
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=1200)
    request = urllib.request.Request(fake.url + PATH, method='PUT', data=json.dumps({'rrset_values': [NEW]}).encode(),
                                     headers={'Content-Type': 'application/json',
                                              'Authorization': 'Bearer ' + fake.token})
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 201
    assert rrset(fake)['ttl'] == 10800


def test_a_record_without_lines_is_the_rrset_holding_the_one_address(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', [OLD, OTHER])
    ok(run(box, state))
    assert rrset(fake)['records'] == [NEW]


def test_other_types_and_names_are_untouched(box, fake, state):
    fake.add_record(ZONE, RECORD, 'AAAA', CT)
    fake.add_record(ZONE, 'nas.' + ZONE, 'A', OLD)
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert rrset(fake, rtype='AAAA')['records'] == [CT] and rrset(fake, 'nas')['records'] == [OLD]


def test_the_apex_is_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('put_record')[0].path == '/v5/livedns/domains/%s/records/@/A' % ZONE
    assert rrset(fake, '@')['records'] == [NEW]


@pytest.mark.parametrize('ttl', [60, 10 ** 30, '1200'], ids=['under the minimum', 'huge', 'a string'])
def test_a_ttl_the_api_would_refuse_is_not_sent_back(box, fake, state, ttl):
    fake.fail('reply', route='get_record', body={'rrset_name': 'home', 'rrset_type': 'A', 'rrset_ttl': ttl,
                                                 'rrset_values': [OLD]})
    ok(run(box, state))
    assert fake.calls('put_record')[0].json['rrset_ttl'] == (1200 if ttl == '1200' else 300)


# --- refusals: their fixes, and no secret shown -------------------------------------------------

def test_a_wrong_token_is_refused_with_its_fix_and_never_shown(box, fake, state):
    secret = 'the-wrong-token-0123456789'
    done, seen = GANDI.failure(box, state, DDNS_API_TOKEN=secret)
    assert (seen['step'], seen['http_status']) == ('find zone', 401) and seen['fix'] == module().FIXES[401]
    assert 'could not verify' in seen['message'] and secret not in shown(done, state) + json.dumps(seen)


def test_a_token_restricted_to_another_domain_cannot_write(box, fake, state):
    fake.tokens['read-only-token'] = (None, False)
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done, seen = GANDI.failure(box, state, DDNS_API_TOKEN='read-only-token')
    assert (seen['step'], seen['http_status']) == ('update record', 403)
    assert 'Manage domain name technical configurations' in seen['fix']


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done, seen = GANDI.failure(box, state, **more)
    assert (seen['step'], seen['kind'], seen['http_status']) == ('find zone', 'not found', 404)
    assert 'no domain example.org in this account' in done.stdout and fake.calls() == ['get_zone']


@pytest.mark.parametrize('answer, words', [
    ({'status': 409, 'body': {'code': 409, 'message': 'Conflict', 'object': 'HTTPConflict', 'cause': 'Conflict'}},
     'the next run reads it again'),
    ({'status': 429, 'body': {'code': 429, 'message': 'Too Many Requests', 'object': 'HTTPTooManyRequests',
                              'cause': 'Too Many Requests'}, 'headers': {'Retry-After': '3600'}}, 'run less often'),
], ids=['conflict', 'rate limited'])
def test_a_put_refused_says_why_and_what_to_do(box, fake, state, answer, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='put_record', times=3, **answer)
    done, seen = GANDI.failure(box, state)
    assert (seen['step'], seen['http_status']) == ('update record', answer['status'])
    assert words in seen['fix'] and answer['body']['message'] in seen['message']


@pytest.mark.parametrize('answer', [
    {'text': '{"rrset_type": "A", "rrset_values": "81.2.69.1"}'},
    {'text': '{"rrset_type": "CNAME", "rrset_values": []}'},
    {'text': '[1, 2]'},
    {'text': '<html>busy</html>'},
    {'status': 500, 'body': {'code': 500, 'message': 'Internal Server Error'}},
], ids=['values not a list', 'another type', 'not an object', 'html', 'server error'])
def test_an_unusable_rrset_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='get_record', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('put_record') == []



def test_a_domain_answered_for_another_name_is_a_failure(box, fake, state):
    fake.fail('reply', route='get_zone', times=3, body={'fqdn': 'other.example'})
    done = run(box, state)
    failed(done)
    assert 'unexpected answer: the domain read is other.example, not %s' % ZONE in done.stdout
    assert fake.calls() == ['get_zone']

# --- --check ------------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = GANDI.check(box, state)
    assert 'ok    credentials accepted (personal access token)' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found' % RECORD in done.stdout
    assert set(fake.calls()) == {'list_zones', 'get_zone', 'get_record'} and kept_nothing(state)


def test_account_zones_lists_the_domains_the_token_may_use(box, fake, state):
    for name in ('b.example.net', 'c.example.io'):
        fake.add_zone(name)
    fake.tokens[fake.token] = ({ZONE, 'b.example.net'}, True)
    zones = module().account_zones(job_of(box, state))
    assert sorted(z.name for z in zones) == sorted(['b.example.net', ZONE])


# --- operator lines: values of the RRset ----------------------------------------------------------

def test_a_lines_address_is_added_found_changed_and_taken_out_alone(box, fake, state):
    gandi = module()
    fake.add_record(ZONE, RECORD, 'AAAA', CM, ttl=600)
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert gandi.find_record(ct_job, ZONE) is None
    rid = gandi.create_record(ct_job, ZONE, CT)
    assert fake.by_line(RECORD, 'AAAA') == {None: sorted([CM, CT])} and rrset(fake, rtype='AAAA')['ttl'] == 600
    found = gandi.find_record(ct_job, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [CT])
    new = gandi.update_record(ct_job, ZONE, gandi.read_record(ct_job, ZONE, rid), '240e:1:2:99::10')
    assert fake.by_line(RECORD, 'AAAA') == {None: sorted([CM, '240e:1:2:99::10'])}
    assert gandi.delete_record(ct_job, ZONE, gandi.read_record(ct_job, ZONE, new)) is None
    assert fake.by_line(RECORD, 'AAAA') == {None: [CM]} and rrset(fake, rtype='AAAA')['ttl'] == 600


def test_the_last_lines_address_takes_the_rrset_with_it(box, fake, state):
    gandi = module()
    fake.add_record(ZONE, RECORD, 'AAAA', CT)
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert gandi.delete_record(ct_job, ZONE, gandi.find_record(ct_job, ZONE)) is None
    assert fake.find(RECORD, 'AAAA') == [] and fake.calls()[-1] == 'delete_record'
