"""The desec provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is deSEC's own (the Token header; paths
ending in /, the apex @; a PATCH that sends the records alone and keeps the TTL, so stored ids need
no read; a new RRset by a bulk PATCH with the domain's minimum TTL, harmless when sent twice; token
policies; throttling with Retry-After; its errors and fixes), --check, the account's domains, and a
record's operator lines: each line's address one record of the RRset, added, found, changed and
taken out alone."""

import functools
import json
import os

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM, PLAIN = '240e:1:2:3::10', '2409:8a00:1:2::10', '2001:db8::1'


DESEC = Harness('desec', NEW)
fake, state = DESEC.fixtures()
env_of, run, status, module = DESEC.env_of, DESEC.run, DESEC.status, DESEC.module


def rrset(fake, name=RECORD, rtype='A'):
    return fake.find(name, rtype)[0]


def stored(state, ids='%s\n%s\n' % (ZONE, RECORD), claims=OLD):
    (state / ('.desec-id_%s.txt' % RECORD)).write_text(ids)
    (state / ('.desec-ip_%s.txt' % RECORD)).write_text(claims + '\n')


# --- what is deSEC's own -----------------------------------------------------------------------

def test_every_call_carries_the_token_and_nothing_shows_it(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'update_record']
    assert all(r.headers['authorization'] == 'Token ' + fake.token for r in fake.requests)
    assert [r.path for r in fake.requests] == ['/api/v1/domains/%s/' % ZONE] + \
        ['/api/v1/domains/%s/rrsets/home/A/' % ZONE] * 2
    log = (state / ('ddkit_desec_%s.log' % RECORD)).read_text()
    assert fake.token not in log + json.dumps(status(box, state))


def test_a_base_url_written_with_the_api_path_is_taken(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state, DDNS_BASE_URL=fake.url + '/api/v1'))
    assert rrset(fake)['records'] == [NEW]


def test_an_update_sends_the_records_alone_and_the_rrset_keeps_its_ttl(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=7200)
    ok(run(box, state))
    assert fake.calls('update_record')[0].json == {'records': [NEW]}
    assert (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], 7200)


def test_with_stored_ids_an_update_needs_no_read(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=7200)
    stored(state)
    ok(run(box, state))
    assert fake.calls() == ['update_record'] and (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], 7200)


def test_stored_ids_of_an_rrset_deleted_meanwhile_make_it_again(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    stored(state)
    fake.rrsets.clear()
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['update_record', 'get_zone', 'get_record', 'create_record']
    assert 'Stored ids are stale' in done.stdout and rrset(fake)['records'] == [NEW]


def test_stored_ids_of_another_zone_or_a_line_are_not_taken(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    for ids in ('other.example\n%s\n' % RECORD, '%s\nip-81.2.69.1\n' % ZONE):
        stored(state, ids)
        fake.reset_log()
        ok(run(box, state, '--force'))
        assert fake.calls() == ['get_zone', 'get_record', 'update_record']
        assert (state / ('.desec-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, RECORD)


@pytest.mark.parametrize('minimum', [3600, 60], ids=['default', 'dedyn.io'])
def test_a_new_rrset_is_a_bulk_patch_with_the_domains_minimum_ttl(box, fake, state, minimum):
    fake.domains[ZONE]['minimum_ttl'] = minimum
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'create_record']
    made = fake.calls('create_record')[0]
    assert (made.method, made.path) == ('PATCH', '/api/v1/domains/%s/rrsets/' % ZONE)
    assert made.json == [{'subname': 'home', 'type': 'A', 'ttl': minimum, 'records': [NEW]}]
    assert (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], minimum)


def test_a_create_whose_answer_was_lost_is_sent_again_harmlessly(box, fake, state):
    """The bulk PATCH makes the RRset and its answer is lost: sent again, it changes the RRset it
    made (a POST would be refused as a conflict)."""
    fake.fail('lost', route='create_record')
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'create_record', 'create_record']
    assert len(fake.find(RECORD)) == 1 and rrset(fake)['records'] == [NEW]


def test_the_apex_is_at(box, fake, state):
    fake.add_record(ZONE, ZONE, 'A', OLD)
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('update_record')[0].path == '/api/v1/domains/%s/rrsets/@/A/' % ZONE
    assert rrset(fake, ZONE)['records'] == [NEW]
    fake.rrsets.clear()
    ok(run(box, state / 'x', DDNS_RECORD_NAME=ZONE, ip=OTHER))
    assert fake.calls('create_record')[0].json[0]['subname'] == '' and rrset(fake, ZONE)['records'] == [OTHER]


def test_a_record_without_lines_is_the_rrset_holding_the_one_address(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', [NEW, OTHER])
    ok(run(box, state))
    assert rrset(fake)['records'] == [NEW]


def test_an_ipv6_address_held_in_another_spelling_is_the_same(box, fake, state):
    """deSEC keeps values canonical: the address it holds is the current one however written."""
    fake.add_record(ZONE, RECORD, 'AAAA', '2a01:4f8::10')
    from ddkit.provider import Run
    record = module().find_record(job_of(box, state, run=Run()), ZONE)
    assert record.holds('2a01:4f8:0:0::10')


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    done = run(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(done)
    shown = status(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'not found', 404)
    assert 'a domain of this deSEC account' in shown['fix'] and fake.calls() == ['get_zone']


@pytest.mark.parametrize('policies, step, http_status, words', [
    (None, 'find zone', 401, 'is not a valid deSEC token'),
    ([(None, None, None, False)], 'update record', 403, 'a policy with perm_write'),
    ([(None, None, None, False), (ZONE, 'home', 'AAAA', True)], 'update record', 403, 'a policy with perm_write'),
], ids=['unknown token', 'read only', 'another type allowed'])
def test_a_refused_token_says_why_and_never_shows_it(box, fake, state, policies, step, http_status, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    if policies is None:
        fake.tokens = {'another': None}
    else:
        fake.restrict(fake.token, *policies)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['http_status']) == (step, 'refused', http_status)
    assert words in shown['fix'] and words in done.stdout
    assert fake.token not in done.stdout + done.stderr + json.dumps(shown)
    assert rrset(fake)['records'] == [OLD]


def test_a_token_allowed_this_rrset_alone_is_enough(box, fake, state):
    """Least privilege: a deny-by-default policy and write on the record's subname and type."""
    fake.restrict(fake.token, (None, None, None, False), (ZONE, 'home', 'A', True))
    ok(run(box, state))
    assert rrset(fake)['records'] == [NEW]
    ok(run(box, state, '--check'))


def test_a_throttled_request_is_waited_for_or_fails_saying_how_long(box, fake, state):
    """HTTP 429 with Retry-After: a wait a run can afford is waited for and the request sent again;
    a longer one stands, and the failure says how long and what deSEC allows."""
    fake.add_record(ZONE, RECORD, 'A', OLD)
    throttled = '{"detail": "Request was throttled. Expected available in 3600 seconds."}'
    fake.fail('status', route='update_record', status=429, retry_after=3600, text=throttled)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['http_status']) == ('update record', 'refused', 429)
    assert 'the API asks to wait 3600 seconds' in done.stdout and '15/min' in shown['fix']
    assert 'Request was throttled' in shown['message'] and rrset(fake)['records'] == [OLD]
    fake.fail('status', route='update_record', status=429, retry_after=0, text=throttled)
    ok(run(box, state))
    assert fake.calls()[3:] == ['get_zone', 'get_record', 'update_record', 'update_record']
    assert rrset(fake)['records'] == [NEW]


def test_a_refused_ttl_says_what_the_domain_allows(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', status=400,
              body={'ttl': ['Ensure this value is greater than or equal to 3600.']})
    failed(run(box, state))
    shown = status(box, state)
    assert 'ttl: Ensure this value is greater than or equal to 3600.' in shown['message']
    assert 'minimum_ttl' in shown['fix']


@pytest.mark.parametrize('answer', [
    {'body': [1, 2]},
    {'body': {'type': 'A', 'records': 'none'}},
    {'body': {'type': 'AAAA', 'records': []}},
    {'text': '<html>busy</html>'},
], ids=['not an object', 'records not a list', 'another type', 'html'])
def test_an_unusable_rrset_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='get_record', **answer)
    failed(run(box, state))
    assert fake.calls('update_record') == [] and rrset(fake)['records'] == [OLD]


# --- --check ------------------------------------------------------------------------------------

def test_check_lists_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'credentials accepted (API token)' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id %s)' % (RECORD, RECORD) in done.stdout
    assert fake.calls() == ['list_zones', 'get_zone', 'get_record'] and os.listdir(str(state)) == []
    assert fake.calls('list_zones')[0].query == {'owns_qname': RECORD}


def test_check_names_a_refused_token(box, fake, state):
    done = run(box, state, '--check', DDNS_API_TOKEN='not-the-token')
    assert done.returncode == 1
    assert 'FAIL  credentials accepted: login: the provider refused the request (HTTP 401: Invalid token.); ' \
           'api_token is not a valid deSEC token' in done.stdout, done.stdout
    assert 'not-the-token' not in done.stdout


# --- in-process: the account's domains, a record's lines ------------------------------------------

job_of = functools.partial(DESEC.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def test_account_zones_lists_the_domains(box, fake, state):
    desec = module()
    fake.add_zone('example.net')
    assert sorted((z.id, z.name) for z in desec.account_zones(job_of(box, state))) == [
        ('example.com', 'example.com'), ('example.net', 'example.net')]
    fake.fail('reply', route='list_zones', status=400, body={'detail': 'Pagination required. You can query up to '
                                                                       '500 items at a time.'})
    from ddkit import Failure
    with pytest.raises(Failure) as refused:
        desec.account_zones(job_of(box, state))
    assert refused.value.fix == 'set zone_name'


def test_a_lines_address_is_added_found_changed_and_taken_out_alone(box, fake, state):
    """The RRset holds another line's address and one of no line: line ct's address is one more
    record; each step reads the RRset afresh, and a PATCH keeps its TTL."""
    from ddkit.provider import Stale, address_id
    desec = module()
    fake.add_record(ZONE, RECORD, 'AAAA', [CM, PLAIN], ttl=7200)
    job = job_of(box, state, 'ct')
    assert desec.find_record(job, ZONE) is None
    rid = desec.create_record(job, ZONE, CT)
    assert rid == 'ip-240e-1-2-3--10' and rrset(fake, rtype='AAAA')['records'] == [CM, PLAIN, CT]
    found = desec.find_record(job, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [CT])
    record = desec.read_record(job, ZONE, rid)
    moved = CT.replace('::10', '::20')
    assert desec.update_record(job, ZONE, record, moved) == address_id(moved)
    assert (rrset(fake, rtype='AAAA')['records'], rrset(fake, rtype='AAAA')['ttl']) == ([CM, PLAIN, moved], 7200)
    with pytest.raises(Stale):
        desec.read_record(job, ZONE, rid)   # its old address is gone from the RRset
    record = desec.read_record(job, ZONE, address_id(moved))
    assert desec.delete_record(job, ZONE, record) is None
    assert rrset(fake, rtype='AAAA')['records'] == [CM, PLAIN]
    assert desec.delete_record(job, ZONE, record) is None   # gone already: success, nothing sent
    assert fake.calls() == ['get_record', 'update_record', 'get_record', 'get_record', 'update_record', 'get_record',
                            'get_record', 'update_record', 'get_record']
    assert [r.json for r in fake.calls('update_record')] == [{'records': [CM, PLAIN, CT]},
                                                             {'records': [CM, PLAIN, moved]}, {'records': [CM, PLAIN]}]


def test_the_last_lines_address_takes_the_rrset_with_it(box, fake, state):
    desec = module()
    fake.add_record(ZONE, RECORD, 'AAAA', [CM])
    job = job_of(box, state, 'cm')
    record = desec.find_record(job, ZONE)
    assert desec.delete_record(job, ZONE, record) is None
    assert fake.find(RECORD, 'AAAA') == [] and fake.calls() == ['get_record', 'update_record']
    assert fake.calls('update_record')[0].json == {'records': []}


def test_a_new_rrset_for_a_line_and_the_records_own_ids_taken_over(box, fake, state):
    from ddkit.provider import address_id
    desec = module()
    job = job_of(box, state, 'cu')
    assert desec.find_record(job, ZONE) is None
    desec.create_record(job, ZONE, '2408:8000:1:2::10')
    assert fake.calls() == ['get_record', 'get_zone', 'create_record']
    fake.rrsets.clear()
    fake.add_record(ZONE, RECORD, 'AAAA', [PLAIN])
    record = desec.read_record(job_of(box, state, 'ct'), ZONE, RECORD)
    assert (record.id, record.content) == (address_id(PLAIN), [PLAIN])


def test_each_lines_job_reads_the_rrset_afresh(box, fake, state):
    from ddkit.provider import Run
    desec = module()
    run = Run(several=True)
    for line, address in (('ct', CT), ('cm', CM)):
        job = job_of(box, state, line, run)
        assert desec.find_record(job, ZONE) is None
        desec.create_record(job, ZONE, address)
    assert rrset(fake, rtype='AAAA')['records'] == [CT, CM]
    assert fake.calls() == ['get_record', 'get_zone', 'create_record', 'get_record', 'update_record']
