"""The scaleway provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is Scaleway's own (X-Auth-Token; the zone
looked up by its name, a sub-zone among them; the name relative, "" the zone itself; no call reads one
record, so stored ids are checked in the name's listing; every write one PATCH of a change that never
makes a zone, a set sending the whole record back; its errors and fixes), --check, the key's zones
page by page, and a record's operator lines: each line one record of the name."""

import functools
import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'


SCALEWAY = Harness('scaleway', NEW)
fake, state = SCALEWAY.fixtures()
env_of, run, status, module, _job = SCALEWAY.bound()
job_of = functools.partial(SCALEWAY.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def held(fake, name=RECORD, rtype='A'):
    return sorted(r['content'] for r in fake.find(name, rtype))


def changes(fake):
    return [r.json['changes'] for r in fake.calls('patch_records')]


# --- what is Scaleway's own ----------------------------------------------------------------------

def test_every_call_carries_the_key_and_nothing_shows_it(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'list_records', 'patch_records']
    assert all(r.headers['x-auth-token'] == fake.secret for r in fake.requests)
    assert fake.calls('list_zones')[0].query == {'domain': '', 'dns_zone': ZONE}
    assert fake.calls('list_records')[0].query == {'name': 'home', 'type': 'A', 'page_size': '100'}
    assert fake.calls('patch_records')[0].path == '/domain/v2beta1/dns-zones/%s/records' % ZONE
    new = fake.find(RECORD)[0]['id']
    assert new != rid and (state / ('.scaleway-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, new)
    log = (state / ('ddkit_scaleway_%s.log' % RECORD)).read_text()
    assert fake.secret not in log + json.dumps(status(box, state))


def test_an_update_sets_the_whole_record_and_never_makes_a_zone(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=600, priority=0, comment='the router')
    ok(run(box, state))
    sent = fake.calls('patch_records')[0].json
    assert sent == {'changes': [{'set': {'id': rid, 'records': [
        {'name': 'home', 'type': 'A', 'data': NEW, 'ttl': 600, 'priority': 0, 'comment': 'the router'}]}}],
        'return_all_records': False, 'disallow_new_zone_creation': True}
    record = fake.find(RECORD)[0]
    assert (record['content'], record['ttl'], record['comment']) == (NEW, 600, 'the router')


def test_a_later_run_finds_the_stored_id_in_the_listing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=600)
    ok(run(box, state, ip=OTHER))
    fake.reset_log()
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'patch_records'] and held(fake) == [NEW]
    assert fake.find(RECORD)[0]['ttl'] == 600


def test_a_new_record_is_added_with_ttl_3600(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'list_records', 'patch_records']
    assert changes(fake) == [[{'add': {'records': [{'name': 'home', 'type': 'A', 'data': NEW, 'ttl': 3600}]}}]]
    assert held(fake) == [NEW]


def test_the_apex_is_the_empty_name_and_a_sub_zone_is_its_own(box, fake, state):
    fake.add_record(ZONE, ZONE, 'A', OLD)
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('list_records')[0].query['name'] == '' and held(fake, ZONE) == [NEW]
    lab = fake.add_zone('lab.example.com')
    fake.add_record(lab, 'home.lab.example.com', 'A', OLD)
    ok(run(box, state / 'lab', DDNS_ZONE_NAME=lab, DDNS_RECORD_NAME='home.lab.example.com'))
    assert held(fake, 'home.lab.example.com') == [NEW]
    assert fake.calls('patch_records')[-1].path == '/domain/v2beta1/dns-zones/lab.example.com/records'


def test_stored_ids_of_a_record_deleted_meanwhile_make_it_again(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state, ip=OTHER))
    fake.records.clear()
    fake.reset_log()
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_records', 'list_zones', 'list_records', 'patch_records']
    assert 'Stored ids are stale' in done.stdout and held(fake) == [NEW]
    assert list(changes(fake)[0][0]) == ['add']


def test_a_set_of_a_record_deleted_meanwhile_makes_it_again(box, fake, state):
    def gone(reply):
        fake.records.clear()
        return reply
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('rewrite', route='list_records', answer=gone)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_zones', 'list_records', 'patch_records', 'list_zones', 'list_records',
                            'patch_records']
    assert [list(c[0]) for c in changes(fake)] == [['set'], ['add']] and held(fake) == [NEW]


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(run(box, state, **more))
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind']) == ('find zone', 'not found') and 'DNS zone of the API key' in shown['fix']
    assert fake.calls() == ['list_zones']


@pytest.mark.parametrize('arrange, step, http_status, code, words', [
    (lambda f: f.keys.clear(), 'find zone', 401, 'denied_authentication', 'create one (IAM, API keys)'),
    (lambda f: f.keys.update({f.secret: 'read'}), 'update record', 403, 'permissions_denied', 'DomainsDNSFullAccess'),
], ids=['unknown key', 'read-only policy'])
def test_a_refused_key_says_why_and_never_shows_it(box, fake, state, arrange, step, http_status, code, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    arrange(fake)
    done, shown = SCALEWAY.failure(box, state)
    assert (shown['step'], shown['http_status'], shown['code']) == (step, http_status, code)
    assert words in shown['fix'] and fake.secret not in done.stdout + done.stderr + json.dumps(shown)
    assert held(fake) == [OLD]


def test_check_is_content_with_a_read_only_policy(box, fake, state):
    fake.keys[fake.secret] = 'read'
    fake.add_record(ZONE, RECORD, 'A', OLD)
    assert run(box, state, '--check').returncode == 0


@pytest.mark.parametrize('answer', [
    {'body': {'records': 'x'}},
    {'body': {'records': [{'id': '../x', 'name': 'home', 'type': 'A', 'data': OLD}]}},
    {'body': {'records': [], 'total_count': 101}},
    {'text': '<html>busy</html>'},
], ids=['not a list', 'unsafe id', 'too many', 'html'])
def test_an_unusable_listing_is_a_failure_or_no_record_never_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', **answer)
    done = run(box, state)
    if '../x' in str(answer):   # no record of a usable id: one is added
        ok(done)
        assert [list(c[0]) for c in changes(fake)] == [['add']]
    else:
        failed(done)
        assert fake.calls('patch_records') == []


# --- --check ------------------------------------------------------------------------------------

def test_check_lists_reads_and_writes_nothing(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    done = SCALEWAY.check(box, state)
    assert 'credentials accepted (API key)' in done.stdout and 'zone %s found' % ZONE in done.stdout
    assert 'A record %s found (id %s)' % (RECORD, rid) in done.stdout
    assert fake.calls() == ['list_zones', 'list_records'] and kept_nothing(state)


# --- in-process: the key's zones, a record's lines ------------------------------------------------

def test_account_zones_reads_every_page(box, fake, state):
    for n in range(120):
        fake.add_zone('zone%03d.example' % n)
    zones = module().account_zones(job_of(box, state))
    assert len(zones) == 121 and 'example.com' in [z.name for z in zones]
    assert [r.query['page'] for r in fake.calls('list_zones')] == ['1', '2']


def test_a_lines_record_is_made_found_changed_and_deleted_alone(box, fake, state):
    scaleway = module()
    other = fake.add_record(ZONE, RECORD, 'AAAA', CM)
    job = job_of(box, state, 'ct')
    assert scaleway.find_record(job, ZONE) is None
    rid = scaleway.create_record(job, ZONE, CT)
    found = scaleway.find_record(job, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [CT])
    moved = CT.replace('::10', '::20')
    rid = scaleway.update_record(job, ZONE, scaleway.read_record(job, ZONE, rid), moved)
    assert held(fake, rtype='AAAA') == sorted([CM, moved])
    record = scaleway.read_record(job, ZONE, rid)
    assert scaleway.delete_record(job, ZONE, record) is None
    assert held(fake, rtype='AAAA') == [CM] and other in fake.records
    assert scaleway.delete_record(job, ZONE, record) is None   # gone already: success


def test_a_zone_gone_between_its_lookup_and_the_listing_is_looked_up_again(box, fake, state):
    """The listing answers 404 for the zone found a moment ago: no record is found, and the add meets
    the zone gone too (Stale): the run looks the zone up again, and fails there, naming it."""
    from fakes.scaleway import error

    def gone(reply):
        del fake.zones[ZONE]
        return error(404, 'not_found', 'resource is not found', resource='dns_zone')
    fake.fail('rewrite', route='list_records', answer=gone)
    failed(run(box, state))
    assert fake.calls() == ['list_zones', 'list_records', 'patch_records', 'list_zones']
    assert status(box, state)['step'] == 'find zone'
