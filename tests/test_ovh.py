"""The ovh provider against its fake over real HTTP, each request's $1$ signature checked by
python-ovh's own Client.raw_call (tests/fakes/ovh.py). The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is OVH's own (the API's clock asked once a
run and a host clock far off still signing in time; the signature over the URL with its query and the
compact body; a PUT of the target alone keeping the TTL; each write followed by the zone's refresh,
and a refresh that failed sent by the next run; the endpoints by python-ovh's names; the consumer
key's access rules; its errors and fixes), --check, and the account's zones."""

import json

import pytest

from conftest import RECORD, ZONE
from providers import ovh_signer
from provider_harness import Harness, failed, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
PLAIN = '2001:db8::1'

OVH = Harness('ovh', NEW, before=ovh_signer)
fake, state = OVH.fixtures()
env_of, run, status, module, _job = OVH.bound()
LEAST = [('GET', '/domain/zone'), ('GET', '/domain/zone/%s/*' % ZONE), ('POST', '/domain/zone/%s/record' % ZONE),
         ('PUT', '/domain/zone/%s/record/*' % ZONE), ('POST', '/domain/zone/%s/refresh' % ZONE)]


def record(fake, name=RECORD, rtype='A'):
    return fake.find(name, rtype)[0]


# --- the signature and the clock ----------------------------------------------------------------

def test_every_call_is_signed_after_the_apis_clock_and_nothing_shows_the_secrets(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['auth_time', 'list_zones', 'list_records', 'get_record', 'update_record', 'refresh']
    signed = fake.requests[1:]
    assert all(r.headers['x-ovh-application'] == fake.application_key and r.headers['x-ovh-consumer'] ==
               fake.consumer_key and r.headers['x-ovh-signature'].startswith('$1$') for r in signed)
    assert 'x-ovh-signature' not in fake.requests[0].headers   # the clock is asked unsigned
    assert fake.calls('list_records')[0].query == {'fieldType': 'A', 'subDomain': 'home'}
    assert fake.calls('update_record')[0].body == b'{"target":"81.2.69.10"}'   # python-ovh's compact JSON
    every = shown(done, state) + json.dumps(status(box, state))
    assert fake.secret not in every and fake.consumer_key not in every
    assert record(fake)['content'] == NEW and fake.published(ZONE, RECORD) == [NEW]


@pytest.mark.parametrize('offset', [-86400 * 400, 3 * 3600], ids=['a year behind', 'hours ahead'])
def test_a_host_clock_far_off_signs_with_the_apis_time(box, fake, state, offset):
    """The router's clock is off (no NTP yet): the API's time, asked once, is what is signed."""
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.clock_offset = offset
    ok(run(box, state))
    assert fake.calls('auth_time') and len(fake.calls('auth_time')) == 1 and record(fake)['content'] == NEW


def test_a_signature_of_another_secret_is_refused_saying_so(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done, said = OVH.failure(box, state, DDNS_APPLICATION_SECRET='not-the-secret')
    assert (said['step'], said['http_status'], said['code']) == ('find zone', 400, 'INVALID_SIGNATURE')
    assert 'copy both from the same application' in said['fix'] and 'not-the-secret' not in shown(done, state)


def test_a_body_not_as_signed_is_refused(box, fake, state, monkeypatch):
    """The signature covers the body's bytes: one signed with spaces python-ovh does not write (a planted
    bug's worth) is refused, and nothing changes."""
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ovh = module()
    monkeypatch.setattr(ovh, 'compact', lambda body: json.dumps(body))
    job = OVH.job(box, state)
    from ddkit import Failure
    with pytest.raises(Failure) as refused:
        ovh.update_record(job, ZONE, ovh.find_record(job, ZONE), NEW)
    assert refused.value.code == 'INVALID_SIGNATURE' and record(fake)['content'] == OLD


@pytest.mark.parametrize('change, code, words', [
    ({'DDNS_APPLICATION_KEY': 'unknownAppKey000'}, 'INVALID_KEY', 'where the application was created'),
    ({'DDNS_CONSUMER_KEY': 'unknownConsumerKey0000000000000'}, 'INVALID_CREDENTIAL', 'open the validation URL'),
    ('not validated', 'INVALID_CREDENTIAL', 'not validated yet'),
], ids=['unknown application', 'unknown consumer key', 'consumer key not validated'])
def test_refused_keys_say_why_and_never_show_a_secret(box, fake, state, change, code, words):
    more = change if isinstance(change, dict) else {}
    if change == 'not validated':
        fake.consumers[fake.consumer_key]['validated'] = False
    done, said = OVH.failure(box, state, **more)
    assert (said['step'], said['kind'], said['http_status'], said['code']) == ('find zone', 'refused', 403, code)
    assert words in said['fix'] and fake.secret not in shown(done, state)


# --- the records, the refresh -------------------------------------------------------------------

def test_an_update_sends_the_target_alone_and_the_record_keeps_its_ttl(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=600)
    ok(run(box, state))
    assert (record(fake)['content'], record(fake)['ttl']) == (NEW, 600)
    assert fake.calls('update_record')[0].path == '/1.0/domain/zone/%s/record/%s' % (ZONE, rid)
    assert (state / ('.ovh-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, rid)


def test_a_new_record_is_made_with_the_zones_ttl_then_published(box, fake, state):
    fake.add_record(ZONE, 'www.' + ZONE, 'A', OTHER)
    fake.add_record(ZONE, RECORD, 'AAAA', PLAIN)
    ok(run(box, state))
    assert fake.calls() == ['auth_time', 'list_zones', 'list_records', 'create_record', 'refresh']
    assert json.loads(fake.calls('create_record')[0].body) == {'fieldType': 'A', 'subDomain': 'home',
                                                               'target': NEW, 'ttl': 0}
    assert fake.published(ZONE, RECORD) == [NEW] and fake.published(ZONE, RECORD, 'AAAA') == [PLAIN]
    assert record(fake, 'www.' + ZONE)['content'] == OTHER


def test_the_apex_is_the_empty_subdomain(box, fake, state):
    fake.add_record(ZONE, ZONE, 'A', OLD)
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('list_records')[0].query == {'fieldType': 'A', 'subDomain': ''}
    assert fake.calls('list_records')[0].raw_query == 'fieldType=A&subDomain='
    assert record(fake, ZONE)['content'] == NEW


def test_a_refresh_that_failed_is_sent_by_the_next_run(box, fake, state):
    """The record changed, the refresh failed: the record holds the address (so the next run writes
    nothing), and only the owed refresh publishes it."""
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('status', route='refresh', status=500, times=3)
    done = run(box, state)
    failed(done)
    assert 'not published until the zone is refreshed' in done.stdout
    assert record(fake)['content'] == NEW and fake.published(ZONE, RECORD) == [OLD]
    assert (state / ('.ovh-refresh_%s.txt' % RECORD)).read_text() == ZONE + '\n'
    fake.reset_log()
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['auth_time', 'list_zones', 'refresh', 'list_records', 'get_record']
    assert 'owes a refresh' in done.stdout and fake.published(ZONE, RECORD) == [NEW]
    assert not (state / ('.ovh-refresh_%s.txt' % RECORD)).exists()


def test_stored_ids_of_a_deleted_record_are_looked_up_again(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.ovh-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.ovh-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    fake.records.clear()
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['auth_time', 'get_record', 'list_zones', 'list_records', 'create_record', 'refresh']
    assert 'Stored ids are stale' in done.stdout and record(fake)['content'] == NEW


def test_stored_ids_of_another_name_are_not_taken(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    other = fake.add_record(ZONE, 'www.' + ZONE, 'A', OTHER)
    (state / ('.ovh-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, other))
    ok(run(box, state, '--force'))
    assert record(fake)['content'] == NEW and record(fake, 'www.' + ZONE)['content'] == OTHER


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    done, said = OVH.failure(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert (said['step'], said['kind']) == ('find zone', 'not found') and 'DNS zone of this OVH' in said['fix']
    assert fake.calls() == ['auth_time', 'list_zones']


def test_the_least_privilege_rules_are_enough_and_one_missing_is_named(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.consumers[fake.consumer_key]['rules'] = [rule for rule in LEAST if rule[1].endswith('refresh') is False]
    failed(run(box, state))
    said = status(box, state)
    assert (said['step'], said['code']) == ('update record', 'NOT_GRANTED_CALL')
    assert 'POST /domain/zone/<zone>/refresh' in said['fix']
    fake.consumers[fake.consumer_key]['rules'] = LEAST
    ok(run(box, state))
    assert fake.published(ZONE, RECORD) == [NEW]


@pytest.mark.parametrize('name, url', [('ovh-eu', 'https://eu.api.ovh.com'), ('OVH-CA', 'https://ca.api.ovh.com'),
                                       ('ovh-us', 'https://api.us.ovhcloud.com')])
def test_an_endpoint_is_named_as_python_ovh_names_it(box, fake, state, name, url):
    assert OVH.job(box, state, DDNS_BASE_URL=name).cfg.base_url == url
    assert OVH.job(box, state, DDNS_BASE_URL=url + '/1.0').cfg.base_url == url


@pytest.mark.parametrize('answer', [
    {'text': '<html>busy</html>'}, {'body': {'time': 1}}, {'text': '99999999999999999999'}, {'status': 503},
], ids=['html', 'an object', 'out of range', 'server error'])
def test_an_unusable_time_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='auth_time', times=3, **answer)
    failed(run(box, state))
    said = status(box, state)
    assert said['step'] == 'find zone' and fake.calls() == ['auth_time'] * len(fake.calls())


@pytest.mark.parametrize('answer', [
    {'body': {'ids': [1]}}, {'body': ['../../auth']}, {'text': '<html>busy</html>'},
], ids=['not a list', 'an unsafe id', 'html'])
def test_an_unusable_listing_is_a_failure_or_nothing_not_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', **answer)
    done = run(box, state)
    assert 'Traceback' not in done.stdout + done.stderr
    assert record(fake)['content'] == OLD and fake.calls('get_record') == []


# --- --check ------------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.ovh-refresh_%s.txt' % RECORD)).write_text(ZONE + '\n')   # owed: --check does not pay it
    done = OVH.check(box, state)
    assert 'credentials accepted (application key %s and a consumer key)' % fake.application_key in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id %s)' % (RECORD, rid) in done.stdout
    assert fake.calls() == ['auth_time', 'list_zones', 'list_records', 'get_record']
    assert [p.name for p in state.iterdir()] == ['.ovh-refresh_%s.txt' % RECORD]


# --- in-process: the account's zones, several records of a name -------------------------------------

def test_account_zones_lists_the_zones(box, fake, state):
    fake.add_zone('example.net')
    assert sorted(z.name for z in module().account_zones(OVH.job(box, state))) == ['example.com', 'example.net']


def test_of_several_records_of_the_name_the_first_is_the_record_and_one_deleted_meanwhile_is_none(box, fake, state):
    first = fake.add_record(ZONE, RECORD, 'A', [OLD, OTHER])
    fake.fail('reply', route='get_record', status=404, body={'class': 'Client::NotFound', 'message': 'gone'})
    found = module().find_record(OVH.job(box, state), ZONE)
    assert (found.id, found.content) == (str(int(first) + 1), [OTHER]) and len(fake.calls('get_record')) == 2
