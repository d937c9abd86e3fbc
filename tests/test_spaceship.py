"""The spaceship provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is Spaceship's own (a record known by its
type, name and address, so its id is its address; a changed address deleted, then saved with its
TTL; '@' for the apex; only the custom group's records; take and skip on every listing; the key and
its secret as headers), its refusals with their fixes, --check, the domains of the account for a
record without zone_name, and a record's operator lines as several records of the name."""

import json
import os

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'


SPACESHIP = Harness('spaceship', NEW)
fake, state = SPACESHIP.fixtures()
env_of, run, status, module = SPACESHIP.env_of, SPACESHIP.run, SPACESHIP.status, SPACESHIP.module


def ids(state, name=RECORD):
    return (state / ('.spaceship-id_%s.txt' % name)).read_text()


job_of = SPACESHIP.job


# --- created, updated, unchanged: what Spaceship's own API asks ---------------------------------

def test_created_with_its_name_relative_to_the_domain_and_the_default_ttl(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'save_records']
    listed, saved = fake.requests
    assert (listed.query['take'], listed.query['skip']) == ('100', '0')
    assert saved.json == {'items': [{'type': 'A', 'name': 'home', 'address': NEW, 'ttl': 3600}]}   # no force
    assert all((r.headers['x-api-key'], r.headers['x-api-secret']) == (fake.key, fake.secret) for r in fake.requests)
    assert [(r['content'], r['ttl'], r['group']) for r in fake.find(RECORD)] == [(NEW, 3600, 'custom')]
    assert ids(state) == '%s\n%s\n' % (ZONE, NEW) and status(box, state)['outcome'] == 'created'


def test_the_apex_is_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('save_records')[0].json['items'][0]['name'] == '@'
    assert [r['content'] for r in fake.find(ZONE)] == [NEW]
    fake.reset_log()
    ok(run(box, state / 'again', DDNS_RECORD_NAME=ZONE, ip=OTHER))   # no ids: found in the listing by '@'
    assert fake.calls() == ['list_records', 'delete_records', 'save_records']
    assert [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_a_changed_address_is_the_old_record_deleted_then_the_new_saved_with_its_ttl(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=600)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'delete_records', 'save_records']
    deleted, saved = fake.requests[1:]
    assert deleted.json == [{'type': 'A', 'name': 'home', 'address': OLD}]
    assert saved.json == {'items': [{'type': 'A', 'name': 'home', 'address': NEW, 'ttl': 600}]}
    assert [(r['content'], r['ttl']) for r in fake.find(RECORD)] == [(NEW, 600)]
    assert ids(state) == '%s\n%s\n' % (ZONE, NEW)
    ok(run(box, state, ip=OTHER))   # by the stored ids (the address): read in the listing, for its TTL
    assert fake.calls()[3:] == ['list_records', 'delete_records', 'save_records']
    assert [(r['content'], r['ttl']) for r in fake.find(RECORD)] == [(OTHER, 600)] and ids(state).endswith(OTHER + '\n')


def test_an_ipv6_records_id_is_its_address_with_dashes(box, fake, state):
    spaceship = module()
    fake.add_record(ZONE, RECORD, 'AAAA', '2001:db8:1::10')
    job = job_of(box, state, DDNS_RECORD_TYPE='AAAA')
    assert spaceship.find_record(job, ZONE).id == '2001-db8-1--10'
    assert spaceship.read_record(job, ZONE, '2001-db8-1--10').content == ['2001:db8:1::10']
    assert spaceship.create_record(job, ZONE, '2001:db8:1::11') == '2001-db8-1--11'
    assert [spaceship.record_id(a) for a in ('::ffff:1.2.3.4', '10.0.0.1', '1.2.3', '1.2.3.400', '../x', None)] == [
        '--ffff-1.2.3.4', '10.0.0.1', None, None, None, None]


def test_force_with_the_address_held_saves_it_again_and_keeps_its_ttl(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', NEW, ttl=120)
    ok(run(box, state, '--force'))
    assert fake.calls() == ['list_records', 'save_records']
    assert fake.requests[1].json['items'][0]['ttl'] == 120 and [(r['content'], r['ttl']) for r in fake.find(RECORD)] \
        == [(NEW, 120)]


def test_unchanged_when_the_record_holds_the_ip(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', NEW)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_records'] and 'the record at the provider holds it' in done.stdout


def test_records_of_spaceships_own_features_are_left_alone(box, fake, state):
    """A record of another group (URL redirect, email) is not the API's to change: not taken."""
    fake.add_record(ZONE, RECORD, 'A', OLD, group='product')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'save_records']
    assert sorted((r['group'], r['content']) for r in fake.find(RECORD)) == [('custom', NEW), ('product', OLD)]


def test_a_listing_of_several_pages_is_read_to_its_end(box, fake, state, monkeypatch):
    spaceship = module()
    monkeypatch.setattr(spaceship, 'TAKE', 2)
    for n in range(5):
        fake.add_record(ZONE, 'n%d.%s' % (n, ZONE), 'A', '81.2.69.%d' % (n + 20))
    fake.add_record(ZONE, RECORD, 'A', OLD)
    found = spaceship.find_record(job_of(box, state), ZONE)
    assert (found.id, found.content) == (OLD, [OLD])
    assert [r.query['skip'] for r in fake.requests] == ['0', '2', '4'] and {r.query['take'] for r in fake.requests} \
        == {'2'}


def test_stored_ids_of_an_address_no_longer_held_are_looked_up_again(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OTHER)
    (state / ('.spaceship-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, OLD))
    (state / ('.spaceship-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    done = run(box, state)
    ok(done)
    # the one listing serves the read of the stored ids and the lookup by name
    assert fake.calls() == ['list_records', 'delete_records', 'save_records'] and 'Stored ids are stale' in done.stdout
    assert [r['content'] for r in fake.find(RECORD)] == [NEW] and ids(state).endswith(NEW + '\n')


def test_stored_ids_that_are_no_address_or_of_another_zone_are_not_read(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    for stored in ('%s\n../x\n' % ZONE, 'other.example\n%s\n' % OLD):
        (state / ('.spaceship-id_%s.txt' % RECORD)).write_text(stored)
        (state / ('.spaceship-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
        fake.reset_log()
        ok(run(box, state, ip=OTHER if 'other' in stored else NEW))
        assert fake.calls() == ['list_records', 'delete_records', 'save_records']
    assert [r['content'] for r in fake.find(RECORD)] == [OTHER] and ids(state) == '%s\n%s\n' % (ZONE, OTHER)


def test_a_delete_of_a_record_gone_already_is_success(box, fake, state):
    from ddkit.provider import Record
    spaceship = module()
    assert spaceship.delete_record(job_of(box, state), ZONE, Record(OLD, [OLD], {'type': 'A', 'name': 'home',
                                                                             'address': OLD})) is None
    assert fake.calls() == ['delete_records']


# --- refusals: their fixes, and no secret shown -------------------------------------------------

@pytest.mark.parametrize('change, status_code, step, kind, words', [
    (lambda fake: setattr(fake, 'secret', 'another-secret-0000'), 401, 'find zone', 'refused', 'API Manager'),
    (lambda fake: fake.permissions.discard('dnsrecords:read'), 403, 'find zone', 'refused', 'dnsrecords:read'),
    (lambda fake: fake.permissions.discard('dnsrecords:write'), 403, 'update record', 'refused', 'dnsrecords:write'),
    (lambda fake: fake.domains.clear(), 404, 'find zone', 'not found', 'Spaceship\'s nameservers'),
], ids=['bad secret', 'no read permission', 'no write permission', 'no spaceship dns'])
def test_a_refusal_says_its_fix_and_never_the_secrets(box, fake, state, change, status_code, step, kind, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    key, secret = fake.key, fake.secret
    change(fake)
    done = run(box, state, DDNS_API_SECRET=secret)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['http_status'], shown['kind']) == (step, status_code, kind)
    assert words in shown['fix'] and words in done.stdout
    assert shown['code'] == {401: 'unauthorized', 403: 'forbidden', 404: 'not_found'}[status_code]
    log = (state / ('ddkit_spaceship_%s.log' % RECORD)).read_text()
    for text in (key, secret):
        assert text not in done.stdout + done.stderr + log + json.dumps(shown)
        assert all(text not in r.path + str(r.query) for r in fake.requests)
    assert [r['content'] for r in fake.find(RECORD)] == [OLD]


def test_a_record_that_cannot_live_beside_one_of_the_name_is_refused_with_its_fix(box, fake, state):
    fake.add_record(ZONE, RECORD, 'CNAME', 'elsewhere.example.net')
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['http_status'], shown['code']) == ('create record', 422, 'conflict')
    assert 'a CNAME' in shown['fix'] and 'conflicts with an existing record' in done.stdout
    assert [r['type'] for r in fake.records.values()] == ['CNAME']   # nothing forced over it


def test_a_refused_field_shows_the_providers_details(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='save_records', status=400, headers={'spaceship-error-code': 'validation'}, body={
        'detail': 'Validation failed.', 'data': [{'field': 'items[0].address', 'details': 'invalid address'}]})
    done = run(box, state)
    failed(done)
    assert 'HTTP 400, code validation: Validation failed.; items[0].address: invalid address' in done.stdout


def test_rate_limited_says_so(box, fake, state):
    fake.fail('reply', route='list_records', times=3, status=429, body={'detail': 'Too many requests.'},
              headers={'Retry-After': '3600'})
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert shown['http_status'] == 429 and '300 in 300 seconds' in shown['fix']
    assert fake.calls() == ['list_records']   # a Retry-After longer than a run waits: the answer stands


@pytest.mark.parametrize('answer', [
    {'text': '{"items": {"type": "A"}, "total": 1}'},
    {'text': '{"items": "none"}'},
    {'text': '[1, 2]'},
    {'text': '<html>busy</html>'},
    {'text': ''},
    {'status': 500, 'body': {'detail': 'Internal error.'}},
], ids=['items not a list', 'items a string', 'not an object', 'html', 'empty', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='list_records', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('save_records') == [] and fake.calls('delete_records') == []


def test_a_hostile_address_or_ttl_is_not_taken(box, fake, state):
    """An address that would steer the ids file is no record: one is made; a TTL out of the API's
    range is not sent back."""
    fake.fail('reply', route='list_records', body={'items': [
        {'type': 'A', 'name': 'home', 'address': '../../x', 'ttl': 600, 'group': {'type': 'custom'}}], 'total': 1})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'save_records'] and ids(state).endswith(NEW + '\n')
    fake.records.clear()
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body={'items': [
        {'type': 'A', 'name': 'home', 'address': OLD, 'ttl': 10 ** 30, 'group': {'type': 'custom'}}], 'total': 1})
    ok(run(box, state / 'x', ip=OTHER))
    assert 'ttl' not in fake.calls('save_records')[-1].json['items'][0]
    assert [r['content'] for r in fake.find(RECORD)] == [OTHER]


# --- --check -----------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'ok    credentials accepted (API key and secret)' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id %s)' % (RECORD, OLD) in done.stdout
    # the credentials and the zone share one listing; the record's check lists afresh
    assert fake.calls() == ['list_records', 'list_records'] and os.listdir(str(state)) == []


def test_check_fails_on_a_refused_secret_and_tells_a_domain_without_spaceship_dns(box, fake, state):
    done = run(box, state, '--check', DDNS_API_SECRET='wrong-secret-0000')
    assert done.returncode == 1 and 'FAIL  credentials accepted: find zone: the provider refused the request ' \
        '(HTTP 401, code unauthorized: Unauthorized.)' in done.stdout, done.stdout
    assert 'wrong-secret-0000' not in done.stdout
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert 'ok    credentials accepted' in done.stdout and \
        'FAIL  zone found: find zone: no domain example.org with Spaceship DNS' in done.stdout, done.stdout


# --- the account's domains, for a record without zone_name --------------------------------------

def test_account_zones_lists_every_domain_of_every_page(box, fake, state, monkeypatch):
    spaceship = module()
    monkeypatch.setattr(spaceship, 'ZONES_TAKE', 2)
    for name in ('b.example.net', 'A.Example.org', 'c.example.io', 'd.example.dev'):
        fake.add_zone(name)
    zones = spaceship.account_zones(job_of(box, state))
    assert sorted((z.id, z.name) for z in zones) == sorted(
        (n, n) for n in ('a.example.org', 'b.example.net', 'c.example.io', 'd.example.dev', ZONE))
    assert fake.calls() == ['list_domains'] * 3 and [r.query['skip'] for r in fake.requests] == ['0', '2', '4']


def test_account_zones_needs_the_domains_read_permission(box, fake, state):
    from ddkit import Failure
    spaceship = module()
    fake.permissions.discard('domains:read')
    with pytest.raises(Failure) as refused:
        spaceship.account_zones(job_of(box, state))
    e = refused.value
    assert (e.step, e.status, e.fix) == ('find zone', 403, spaceship.PERMISSION_FIX) and 'domains:read' in e.fix


# --- operator lines: several records of the name ------------------------------------------------

def test_a_lines_record_is_the_one_of_its_operators_address(box, fake, state):
    """Spaceship has no lines: each line's record is a record of the name; without stored ids the one
    holding an address of the line's operator is that line's; its update and delete touch it alone."""
    from ddkit.provider import Stale
    spaceship = module()
    fake.add_record(ZONE, RECORD, 'AAAA', CM)
    ct_job = job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA')
    assert spaceship.find_record(ct_job, ZONE) is None
    rid = spaceship.create_record(ct_job, ZONE, CT)
    assert rid == CT.replace(':', '-') and fake.by_line(RECORD, 'AAAA') == {None: sorted([CT, CM])}
    assert spaceship.find_record(ct_job, ZONE, strict=True).id == rid
    cm_job = job_of(box, state, line='cm', DDNS_RECORD_TYPE='AAAA')
    assert spaceship.find_record(cm_job, ZONE, strict=True).content == [CM]
    record = spaceship.find_record(ct_job, ZONE, strict=True)
    renumbered = '240e:1:2:99::10'
    assert spaceship.update_record(ct_job, ZONE, record, renumbered) == renumbered.replace(':', '-')
    assert fake.by_line(RECORD, 'AAAA') == {None: sorted([renumbered, CM])}
    gone = spaceship.read_record(job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA'), ZONE,
                                 renumbered.replace(':', '-'))
    assert spaceship.delete_record(ct_job, ZONE, gone) is None
    assert fake.by_line(RECORD, 'AAAA') == {None: [CM]}
    with pytest.raises(Stale):
        spaceship.read_record(job_of(box, state, line='ct', DDNS_RECORD_TYPE='AAAA'), ZONE, rid)
