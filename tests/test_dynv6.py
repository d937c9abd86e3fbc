"""The dynv6 provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is dynv6's own (the zone's own A and AAAA
are its ipv4address and ipv6prefix fields, set by a PATCH of the zone with that field alone; a
record's name relative to its zone and no TTL; a PATCH of a record with its name and type as read),
its refusals with their fixes, --check, and the zones of the account for a record without
zone_name. `lines` is refused there (test_lines: one address per name)."""

import json
import os

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'


DYNV6 = Harness('dynv6', NEW)
fake, state = DYNV6.fixtures()
env_of, run, status, module = DYNV6.env_of, DYNV6.run, DYNV6.status, DYNV6.module


@pytest.fixture
def zid(box):
    return box.zones['dynv6']


def ids(state, name=RECORD):
    return (state / ('.dynv6-id_%s.txt' % name)).read_text()


job_of = DYNV6.job


# --- a record of the zone -----------------------------------------------------------------------

def test_created_with_its_name_relative_to_the_zone_and_no_ttl(box, fake, zid, state):
    ok(run(box, state))
    assert fake.calls() == ['zone_by_name', 'list_records', 'create_record']
    assert fake.requests[0].path == '/api/v2/zones/by-name/%s' % ZONE
    assert fake.calls('create_record')[0].json == {'name': 'home', 'type': 'A', 'data': NEW}
    assert {r.headers['authorization'] for r in fake.requests} == {'Bearer ' + fake.token}
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]
    assert ids(state) == '%s\n%s\n' % (zid, fake.find(RECORD)[0]['id'])


def test_an_update_patches_the_data_with_the_name_and_type_read(box, fake, zid, state):
    rid = fake.add_record(zid, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['zone_by_name', 'list_records', 'update_record']
    assert fake.calls('update_record')[0].json == {'name': 'home', 'type': 'A', 'data': NEW}
    assert fake.records[rid]['content'] == NEW and ids(state) == '%s\n%s\n' % (zid, rid)
    ok(run(box, state, ip=OTHER))   # by the stored ids: read, then patched
    assert fake.calls()[3:] == ['get_record', 'update_record'] and fake.records[rid]['content'] == OTHER


def test_a_listing_that_names_records_in_full_is_read_too(box, fake, zid, state):
    """The reference does not say whether a record's name is relative: the full name is taken too."""
    rid = fake.add_record(zid, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body=[{'id': int(rid), 'zoneID': int(zid), 'name': RECORD,
                                                    'type': 'A', 'data': OLD}])
    ok(run(box, state))
    assert fake.calls() == ['zone_by_name', 'list_records', 'update_record'] and fake.records[rid]['content'] == NEW


def test_stored_ids_of_a_deleted_record_or_another_name_are_looked_up_again(box, fake, zid, state):
    other = fake.add_record(zid, 'nas.' + ZONE, 'A', OLD)
    (state / ('.dynv6-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (zid, other))
    (state / ('.dynv6-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'zone_by_name', 'list_records', 'create_record']
    assert 'Stored ids are stale' in done.stdout and fake.records[other]['content'] == OLD
    rid = fake.find(RECORD)[0]['id']
    del fake.records[str(rid)]
    fake.reset_log()
    ok(run(box, state, ip=OTHER))
    assert fake.calls() == ['get_record', 'zone_by_name', 'list_records', 'create_record']
    assert [r['content'] for r in fake.find(RECORD)] == [OTHER]


# --- the zone's own name: the zone's fields ------------------------------------------------------

@pytest.mark.parametrize('rtype, field, ip, other', [
    ('A', 'ipv4address', NEW, 'ipv6prefix'), ('AAAA', 'ipv6prefix', '2001:db8:1::10', 'ipv4address')])
def test_the_zones_own_address_is_its_field_set_alone(box, fake, zid, state, rtype, field, ip, other):
    zone = fake.zones[zid]
    zone[other] = '2001:db8:ff::/64' if other == 'ipv6prefix' else OLD
    from ddkit.provider import Stale
    dynv6 = module()
    job = job_of(box, state, DDNS_RECORD_NAME=ZONE, DDNS_RECORD_TYPE=rtype)
    assert dynv6.find_record(job, zid) is None   # the zone has no address of this family yet
    assert dynv6.create_record(job, zid, ip) == 'apex'
    assert fake.calls('update_zone')[0].json == {field: ip}
    assert (zone[field], zone[other]) == (ip, '2001:db8:ff::/64' if other == 'ipv6prefix' else OLD)
    record = dynv6.read_record(job, zid, 'apex')
    assert (record.id, record.content) == ('apex', [ip])
    with pytest.raises(Stale):   # a record's id for the zone's own name: another record's
        dynv6.read_record(job, zid, '12345')
    assert fake.records == {}


def test_a_zone_is_updated_by_a_run_and_verified_by_reading_the_zone(box, fake, zid, state):
    fake.zones[zid]['ipv4address'] = OLD
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls() == ['zone_by_name', 'update_zone'] and fake.zones[zid]['ipv4address'] == NEW
    assert ids(state, ZONE) == '%s\napex\n' % zid
    fake.reset_log()
    ok(run(box, state, DDNS_RECORD_NAME=ZONE, DDNS_VERIFY_INTERVAL='0'))
    assert fake.calls() == ['get_zone']
    fake.zones[zid]['ipv4address'] = OTHER   # changed there
    done = run(box, state, DDNS_RECORD_NAME=ZONE, DDNS_VERIFY_INTERVAL='0')
    ok(done)
    assert fake.calls()[1:] == ['get_zone', 'update_zone'] and fake.zones[zid]['ipv4address'] == NEW
    assert 'holds %s, not %s (changed there)' % (OTHER, NEW) in done.stdout
    assert fake.records == {}


@pytest.mark.parametrize('held, holds', [('2001:db8:1::10', True), ('2001:db8:1::10/128', True),
                                         ('2001:db8:1::/64', False), ('', False)])
def test_an_ipv6prefix_is_the_address_when_it_is_one(box, fake, zid, state, held, holds):
    fake.zones[zid]['ipv6prefix'] = held
    dynv6 = module()
    found = dynv6.find_record(job_of(box, state, DDNS_RECORD_NAME=ZONE, DDNS_RECORD_TYPE='AAAA'), zid)
    assert (found is not None and found.holds('2001:db8:1::10')) == holds


def test_stored_ids_of_a_record_when_the_record_is_now_the_zones_own_name_are_not_taken(box, fake, zid, state):
    rid = fake.add_record(zid, RECORD, 'A', OLD)
    (state / ('.dynv6-id_%s.txt' % ZONE)).write_text('%s\n%s\n' % (zid, rid))
    (state / ('.dynv6-ip_%s.txt' % ZONE)).write_text(OLD + '\n')
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls() == ['zone_by_name', 'update_zone'] and fake.records[rid]['content'] == OLD


# --- refusals: their fixes, and no token shown ----------------------------------------------------

def test_a_wrong_token_is_refused_with_its_fix_and_never_shown(box, fake, state):
    secret = 'the-wrong-token-0123456789'
    done = run(box, state, DDNS_API_TOKEN=secret)
    failed(done)
    shown = status(box, state, DDNS_API_TOKEN=secret)
    assert (shown['step'], shown['http_status'], shown['kind'], shown['code']) == (
        'find zone', 401, 'refused', 'UnauthorizedError')
    assert shown['fix'] == module().TOKEN_FIX and 'HTTP Tokens' in done.stdout
    log = (state / ('ddkit_dynv6_%s.log' % RECORD)).read_text()
    assert secret not in done.stdout + done.stderr + log + json.dumps(shown)
    assert fake.calls() == ['zone_by_name']


def test_a_token_of_another_zone_is_refused_with_its_fix(box, fake, zid, state):
    fake.tokens[fake.token] = 'other.dynv6.net'
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['http_status'], shown['code']) == ('find zone', 403, 'ForbiddenError')
    assert 'restricted to another zone' in shown['fix']


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done = run(box, state, **more)
    failed(done)
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'not found', 404)
    assert 'no zone example.org in this account' in done.stdout and fake.calls() == ['zone_by_name']


def test_a_refused_field_shows_its_name_and_message(box, fake, state):
    fake.fail('reply', route='create_record', status=422, body={'error': {
        'name': 'ValidationError', 'message': 'Validation failed',
        'fields': [{'name': 'name', 'message': 'is taken'}]}})
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['http_status'], shown['code']) == ('create record', 422, 'ValidationError')
    assert 'Validation failed; name: is taken' in done.stdout and 'record_name' in shown['fix']


def test_the_fake_refuses_a_field_the_reference_does_not_name(box, fake, zid):
    """Records have no TTL: a body with one would be refused (what keeps the tool from sending it)."""
    import urllib.error
    import urllib.request
    request = urllib.request.Request('%s/api/v2/zones/%s/records' % (fake.url, zid), method='POST',
                                     data=json.dumps({'name': 'x', 'type': 'A', 'data': NEW, 'ttl': 60}).encode(),
                                     headers={'Authorization': 'Bearer ' + fake.token,
                                              'Content-Type': 'application/json'})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    assert refused.value.code == 422 and json.loads(refused.value.read())['error']['fields'][0]['name'] == 'ttl'


@pytest.mark.parametrize('answer', [
    {'text': '{"id": 1}'},
    {'text': '[1, 2]'},
    {'text': '<html>busy</html>'},
    {'text': ''},
    {'status': 500, 'body': {'error': {'name': 'InternalError', 'message': 'oops'}}},
], ids=['an object', 'not objects', 'html', 'empty', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='list_records', times=3, **answer)
    done = run(box, state)
    if answer.get('text') == '[1, 2]':   # an array of no records: there is none, so one is made
        ok(done)
        return
    failed(done)
    assert fake.calls('create_record') == [] and fake.calls('update_record') == []


def test_a_hostile_id_is_not_taken(box, fake, zid, state):
    fake.fail('reply', route='list_records', body=[{'id': '../../x', 'zoneID': int(zid), 'name': 'home',
                                                    'type': 'A', 'data': OLD}])
    ok(run(box, state))
    assert fake.calls() == ['zone_by_name', 'list_records', 'create_record']


# --- --check -----------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, zid, state):
    fake.add_record(zid, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'ok    credentials accepted (HTTP token)' in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, zid) in done.stdout and 'A record %s found (id ' % RECORD in done.stdout
    assert fake.calls() == ['zone_by_name', 'list_records'] and os.listdir(str(state)) == []


def test_check_fails_on_a_wrong_token_and_tells_a_zone_not_in_the_account(box, fake, state):
    done = run(box, state, '--check', DDNS_API_TOKEN='wrong-token-0000')
    assert done.returncode == 1 and 'FAIL  credentials accepted: find zone: the provider refused the request ' \
        '(HTTP 401, UnauthorizedError: invalid or missing token)' in done.stdout, done.stdout
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert 'ok    credentials accepted' in done.stdout and \
        'FAIL  zone found: find zone: no zone example.org in this account' in done.stdout, done.stdout


# --- the account's zones, for a record without zone_name ------------------------------------------

def test_account_zones_lists_the_zones_the_token_sees(box, fake, zid, state):
    dynv6 = module()
    other = fake.add_zone('Other.dynv6.NET')
    zones = dynv6.account_zones(job_of(box, state))
    assert sorted((z.id, z.name) for z in zones) == sorted([(zid, ZONE), (other, 'other.dynv6.net')])
    fake.tokens[fake.token] = ZONE   # a token of one zone sees that one
    assert [(z.id, z.name) for z in dynv6.account_zones(job_of(box, state))] == [(zid, ZONE)]
    assert fake.calls() == ['list_zones', 'list_zones']
