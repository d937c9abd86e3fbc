"""The hetzner provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is Hetzner's own (the Bearer token; the
zone read by its name; the RRset's relative name, @ the apex; set_records, which keeps the TTL, with
each record's comment sent back; a create without a TTL, and one that meets an RRset made meanwhile;
an action that failed; its errors and fixes), --check, the project's zones page by page, and a
record's operator lines: each line's address one record of the RRset, added, changed and taken out
alone, the last one with the RRset."""

import functools
import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM, PLAIN = '240e:1:2:3::10', '2409:8a00:1:2::10', '2001:db8::1'


HETZNER = Harness('hetzner', NEW)
fake, state = HETZNER.fixtures()
env_of, run, status, module, _job = HETZNER.bound()
job_of = functools.partial(HETZNER.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def rrset(fake, name=RECORD, rtype='A'):
    return fake.find(name, rtype)[0]


def values(fake, name=RECORD, rtype='A'):
    return [r['value'] for r in rrset(fake, name, rtype)['records']]


# --- what is Hetzner's own -----------------------------------------------------------------------

def test_every_call_carries_the_token_and_nothing_shows_it(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'update_record']
    assert all(r.headers['authorization'] == 'Bearer ' + fake.token for r in fake.requests)
    assert [r.path for r in fake.requests] == ['/v1/zones/%s' % ZONE, '/v1/zones/%s/rrsets/home/A' % ZONE,
                                               '/v1/zones/%s/rrsets/home/A/actions/set_records' % ZONE]
    log = (state / ('ddkit_hetzner_%s.log' % RECORD)).read_text()
    assert fake.token not in log + json.dumps(status(box, state))


def test_an_update_keeps_the_ttl_and_sends_the_comment_back(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=7200, comment='the router')
    ok(run(box, state))
    assert fake.calls('update_record')[0].json == {'records': [{'value': NEW, 'comment': 'the router'}]}
    assert rrset(fake)['ttl'] == 7200 and rrset(fake)['records'] == [{'value': NEW, 'comment': 'the router'}]


def test_a_later_run_reads_the_rrset_by_the_stored_ids_then_sets_it(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, comment='kept')
    ok(run(box, state, ip=OTHER))
    fake.reset_log()
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'update_record']
    assert rrset(fake)['records'] == [{'value': NEW, 'comment': 'kept'}]


def test_a_new_rrset_is_made_without_a_ttl_so_the_zones_applies(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'create_record']
    made = fake.calls('create_record')[0]
    assert (made.method, made.path) == ('POST', '/v1/zones/%s/rrsets' % ZONE)
    assert made.json == {'name': 'home', 'type': 'A', 'records': [{'value': NEW}]}
    assert values(fake) == [NEW] and rrset(fake)['ttl'] is None


def test_the_apex_is_at(box, fake, state):
    fake.add_record(ZONE, ZONE, 'A', OLD)
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('update_record')[0].path == '/v1/zones/%s/rrsets/@/A/actions/set_records' % ZONE
    fake.rrsets.clear()
    ok(run(box, state / 'x', DDNS_RECORD_NAME=ZONE, ip=OTHER))
    assert fake.calls('create_record')[0].json['name'] == '@' and values(fake, ZONE) == [OTHER]


def test_a_create_that_meets_an_rrset_made_meanwhile_updates_it(box, fake, state):
    """The RRset was not there when read; the create is refused 409 uniqueness_error: it is read
    again and set."""
    def made_meanwhile(reply):
        fake.add_record(ZONE, RECORD, 'A', OLD, comment='made meanwhile')
        return reply
    fake.fail('rewrite', route='get_record', answer=made_meanwhile)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_zone', 'get_record', 'create_record', 'get_record', 'update_record']
    assert rrset(fake)['records'] == [{'value': NEW, 'comment': 'made meanwhile'}]
    assert 'uniqueness_error' in (state / ('ddkit_hetzner_%s.log' % RECORD)).read_text()


def test_stored_ids_of_an_rrset_deleted_meanwhile_make_it_again(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state, ip=OTHER))
    fake.rrsets.clear()
    fake.reset_log()
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'get_zone', 'get_record', 'create_record']
    assert 'Stored ids are stale' in done.stdout and values(fake) == [NEW]


def test_a_record_without_lines_is_the_rrset_holding_the_one_address(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', [OLD, OTHER])
    ok(run(box, state))
    assert values(fake) == [NEW]


def test_a_zone_not_in_the_project_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(run(box, state, **more))
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'not found', 404)
    assert 'a zone of the token\'s project' in shown['fix'] and fake.calls() == ['get_zone']


@pytest.mark.parametrize('arrange, step, http_status, code, words', [
    (lambda f: f.tokens.clear(), 'find zone', 401, 'unauthorized', 'not a valid Hetzner Cloud API token'),
    (lambda f: f.tokens.update({f.token: 'read'}), 'update record', 403, 'forbidden', 'Read & Write'),
    (lambda f: f.rrsets['%s/home/A' % ZONE]['protection'].update(change=True), 'update record', 403, 'protected',
     'change protection'),
    (lambda f: f.zones[ZONE].update(mode='secondary'), 'update record', 422, 'incorrect_zone_mode',
     'secondary zone'),
], ids=['unknown token', 'read-only token', 'protected rrset', 'secondary zone'])
def test_a_refusal_says_why_and_never_shows_the_token(box, fake, state, arrange, step, http_status, code, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    arrange(fake)
    done, shown = HETZNER.failure(box, state)
    assert (shown['step'], shown['kind'], shown['http_status'], shown['code']) == (step, 'refused', http_status, code)
    assert words in shown['fix'] and words in done.stdout
    assert fake.token not in done.stdout + done.stderr + json.dumps(shown)
    assert values(fake) == [OLD]


def test_a_throttled_request_fails_saying_so(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', status=429, times=5, headers={'Retry-After': '600'},
              body={'error': {'code': 'rate_limit_exceeded', 'message': 'limit of 3600 requests per hour reached',
                              'details': {}}})
    failed(run(box, state))
    shown = status(box, state)
    assert (shown['step'], shown['http_status'], shown['code']) == ('update record', 429, 'rate_limit_exceeded')
    assert '3,600 an hour' in shown['fix'] and values(fake) == [OLD]


def test_an_action_that_failed_is_a_failure(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', status=201, body={'action': {
        'id': 7, 'command': 'set_rrset_records', 'status': 'error',
        'error': {'code': 'action_failed', 'message': 'the zone could not be changed'}}})
    failed(run(box, state))
    shown = status(box, state)
    assert (shown['step'], shown['kind']) == ('update record', 'refused')
    assert 'the zone could not be changed' in shown['message']


@pytest.mark.parametrize('answer', [
    {'body': [1, 2]},
    {'body': {'rrset': {'type': 'A', 'records': 'none'}}},
    {'body': {'rrset': {'type': 'AAAA', 'records': []}}},
    {'body': {'zone': 'x'}},
    {'text': '<html>busy</html>'},
], ids=['not an object', 'records not a list', 'another type', 'no rrset', 'html'])
def test_an_unusable_rrset_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='get_record', **answer)
    failed(run(box, state))
    assert fake.calls('update_record') == [] and fake.calls('create_record') == [] and values(fake) == [OLD]


# --- --check ------------------------------------------------------------------------------------

def test_check_lists_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = HETZNER.check(box, state)
    assert 'credentials accepted (Cloud API token)' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id %s)' % (RECORD, RECORD) in done.stdout
    assert fake.calls() == ['list_zones', 'get_zone', 'get_record'] and kept_nothing(state)


def test_check_is_content_with_a_read_only_token(box, fake, state):
    fake.tokens[fake.token] = 'read'
    fake.add_record(ZONE, RECORD, 'A', OLD)
    assert run(box, state, '--check').returncode == 0


def test_check_names_a_refused_token(box, fake, state):
    done = run(box, state, '--check', DDNS_API_TOKEN='not-the-token')
    assert done.returncode == 1
    assert 'FAIL  credentials accepted: login: the provider refused the request (HTTP 401, code unauthorized: ' \
           'unable to authenticate); api_token is not a valid Hetzner Cloud API token' in done.stdout, done.stdout
    assert 'not-the-token' not in done.stdout


# --- in-process: the project's zones, a record's lines --------------------------------------------

def test_account_zones_reads_every_page(box, fake, state):
    for n in range(60):
        fake.add_zone('zone%02d.example' % n)
    zones = module().account_zones(job_of(box, state))
    assert len(zones) == 61 and ('example.com', 'example.com') in [(z.id, z.name) for z in zones]
    assert [r.query for r in fake.calls('list_zones')] == [{'page': '1', 'per_page': '50'},
                                                           {'page': '2', 'per_page': '50'}]


def test_a_lines_address_is_added_changed_and_taken_out_alone(box, fake, state):
    """The RRset holds another line's address and one of no line, with comments: line ct's address
    is one more record; each change sends the others back as they are."""
    from ddkit.provider import Stale, address_id
    hetzner = module()
    fake.add_record(ZONE, RECORD, 'AAAA', [{'value': CM, 'comment': 'mobile'}, {'value': PLAIN, 'comment': ''}],
                    ttl=7200)
    job = job_of(box, state, 'ct')
    assert hetzner.find_record(job, ZONE) is None
    rid = hetzner.create_record(job, ZONE, CT)
    assert rid == address_id(CT) and values(fake, rtype='AAAA') == [CM, PLAIN, CT]
    record = hetzner.read_record(job, ZONE, rid)
    moved = CT.replace('::10', '::20')
    assert hetzner.update_record(job, ZONE, record, moved) == address_id(moved)
    assert values(fake, rtype='AAAA') == [CM, PLAIN, moved] and rrset(fake, rtype='AAAA')['ttl'] == 7200
    assert rrset(fake, rtype='AAAA')['records'][0] == {'value': CM, 'comment': 'mobile'}
    with pytest.raises(Stale):
        hetzner.read_record(job, ZONE, rid)   # its old address is gone from the RRset
    record = hetzner.read_record(job, ZONE, address_id(moved))
    assert hetzner.delete_record(job, ZONE, record) is None
    assert values(fake, rtype='AAAA') == [CM, PLAIN]
    assert fake.calls('update_record')[-1].json == {'records': [{'value': CM, 'comment': 'mobile'},
                                                                {'value': PLAIN, 'comment': ''}]}


def test_the_last_lines_address_deletes_the_rrset(box, fake, state):
    hetzner = module()
    fake.add_record(ZONE, RECORD, 'AAAA', [CM])
    job = job_of(box, state, 'cm')
    record = hetzner.find_record(job, ZONE)
    assert hetzner.delete_record(job, ZONE, record) is None
    assert fake.find(RECORD, 'AAAA') == [] and fake.calls() == ['get_record', 'delete_record']
    assert hetzner.delete_record(job, ZONE, record) is None   # gone already: success
