"""The gcore provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is Gcore's own (the APIKey token; the
RRset read whole and put back whole, its TTL, meta, pickers and each resource record's meta kept;
the zone read by its name; its HTTP statuses and their fixes; a throttled answer), --check, the
account's zones, and a record's operator lines: each line's address one resource record of the
RRset, added, found, changed and taken out alone."""

import functools
import json
import os

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM, PLAIN = '240e:1:2:3::10', '2409:8a00:1:2::10', '2001:db8::1'
PICKERS = [{'type': 'geodns', 'strict': False}, {'type': 'first_n', 'limit': 1}]


GCORE = Harness('gcore', NEW)
fake, state = GCORE.fixtures()
env_of, run, status, module = GCORE.env_of, GCORE.run, GCORE.status, GCORE.module


def rrset(fake, name=RECORD, rtype='A'):
    return fake.find(name, rtype)[0]


# --- what is Gcore's own -----------------------------------------------------------------------

def test_every_call_carries_the_token_as_apikey_and_nothing_shows_it(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'update_record']
    assert all(r.headers['authorization'] == 'APIKey ' + fake.token for r in fake.requests)
    assert [r.path for r in fake.requests] == ['/dns/v2/zones/%s' % ZONE] + ['/dns/v2/zones/%s/%s/A' % (ZONE, RECORD)] * 2
    log = (state / ('ddkit_gcore_%s.log' % RECORD)).read_text()
    assert fake.token not in log + json.dumps(status(box, state))


def test_a_base_url_written_with_the_api_path_is_taken(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state, DDNS_BASE_URL=fake.url + '/dns/v2'))
    assert rrset(fake)['records'] == [NEW]


def test_an_update_keeps_everything_the_rrset_holds_but_the_address(box, fake, state):
    """A PUT replaces the whole RRset (the fake resets what is not sent): its TTL, meta and pickers
    and the resource record's own meta and state go back as they were."""
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=120, meta={'geodns_link': 'eu'}, pickers=PICKERS,
                    rr_meta={OLD: {'notes': 'home', 'weight': 10}})
    rrset(fake)['rr'][OLD]['enabled'] = False
    ok(run(box, state))
    held = rrset(fake)
    assert (held['records'], held['ttl'], held['meta'], held['pickers']) == ([NEW], 120, {'geodns_link': 'eu'}, PICKERS)
    assert held['rr'][NEW]['meta'] == {'notes': 'home', 'weight': 10} and held['rr'][NEW]['enabled'] is False
    sent = fake.calls('update_record')[0].json
    assert sent == {'ttl': 120, 'meta': {'geodns_link': 'eu'}, 'pickers': PICKERS,
                    'resource_records': [{'content': [NEW], 'enabled': False, 'meta': {'notes': 'home', 'weight': 10}}]}


def test_a_record_without_lines_is_the_rrset_holding_the_one_address(box, fake, state):
    """The RRset held two addresses: the record is not what the IP says until it holds this one alone."""
    fake.add_record(ZONE, RECORD, 'A', [NEW, OTHER], rr_meta={NEW: {'notes': 'first'}})
    done = run(box, state)
    ok(done)
    assert rrset(fake)['records'] == [NEW] and rrset(fake)['rr'][NEW]['meta'] == {'notes': 'first'}
    assert fake.calls() == ['get_zone', 'get_record', 'update_record']


def test_a_new_rrset_is_made_by_put_with_ttl_300(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['get_zone', 'get_record', 'create_record']
    made = fake.calls('create_record')[0]
    assert made.method == 'PUT' and made.json == {'ttl': 300, 'resource_records': [{'content': [NEW], 'enabled': True}]}
    assert (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], 300)


def test_the_apex(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('create_record')[0].path == '/create/dns/v2/zones/%s/%s/A' % (ZONE, ZONE)
    assert rrset(fake, ZONE)['records'] == [NEW]


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    done = run(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(done)
    shown = status(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'not found', 404)
    assert 'zone_name must be a zone of this account' in shown['fix'] and fake.calls() == ['get_zone']


@pytest.mark.parametrize('change, step, http_status, words', [
    (lambda fake: fake.tokens.update({'other': fake.tokens.pop(fake.token)}), 'find zone', 401,
     'is not a valid permanent API token'),
    (lambda fake: fake.tokens[fake.token].update(write=False), 'update record', 403, 'a role that may (Engineers)'),
], ids=['unknown token', 'read-only role'])
def test_a_refused_token_says_why_and_never_shows_it(box, fake, state, change, step, http_status, words):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    change(fake)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['http_status']) == (step, 'refused', http_status)
    assert words in shown['fix'] and words in done.stdout
    assert fake.token not in done.stdout + done.stderr + json.dumps(shown)
    assert rrset(fake)['records'] == [OLD]


def test_stored_ids_of_a_deleted_rrset_are_looked_up_again(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.gcore-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, RECORD))
    (state / ('.gcore-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    fake.rrsets.clear()
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'get_zone', 'get_record', 'create_record']
    assert 'Stored ids are stale' in done.stdout and rrset(fake)['records'] == [NEW]


def test_stored_ids_of_another_zone_or_name_are_not_read(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    for ids in ('other.example\n%s\n' % RECORD, '%s\nip-81.2.69.1\n' % ZONE):
        (state / ('.gcore-id_%s.txt' % RECORD)).write_text(ids)
        fake.reset_log()
        ok(run(box, state, '--force'))
        assert fake.calls() == ['get_zone', 'get_record', 'update_record']
        assert (state / ('.gcore-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, RECORD)


def test_a_throttled_answer_that_asks_a_long_wait_stands(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('status', route='get_zone', status=429, retry_after=3600, text='{"error": "too many requests"}')
    failed(run(box, state))
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'refused', 429)
    assert 'too many requests' in shown['fix'] and fake.calls() == ['get_zone']
    fake.fail('status', route='get_record', status=429, retry_after=0, text='{"error": "too many requests"}')
    ok(run(box, state))
    assert fake.calls()[1:] == ['get_zone', 'get_record', 'get_record', 'update_record']


@pytest.mark.parametrize('answer', [
    {'body': [1, 2]},
    {'body': {'name': RECORD, 'type': 'AAAA', 'resource_records': []}},
    {'body': {'name': RECORD, 'type': 'A', 'resource_records': 'none'}},
    {'text': '<html>busy</html>'},
], ids=['not an object', 'another type', 'records not a list', 'html'])
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
    assert 'credentials accepted (permanent API token)' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id %s)' % (RECORD, RECORD) in done.stdout
    assert fake.calls() == ['list_zones', 'get_zone', 'get_record'] and os.listdir(str(state)) == []


def test_check_names_a_refused_token(box, fake, state):
    done = run(box, state, '--check', DDNS_API_TOKEN='1$not-the-token')
    assert done.returncode == 1
    assert 'FAIL  credentials accepted: login: the provider refused the request (HTTP 401: token is invalid ' \
           'or expired); api_token is not a valid permanent API token' in done.stdout, done.stdout
    assert 'not-the-token' not in done.stdout


# --- in-process: the account's zones, a record's lines --------------------------------------------

job_of = functools.partial(GCORE.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def test_account_zones_lists_every_page(box, fake, state, monkeypatch):
    gcore = module()
    for n in range(104):
        fake.add_zone('zone%03d.example' % n)
    zones = gcore.account_zones(job_of(box, state))
    assert sorted(z.name for z in zones) == sorted(fake.zones) and all(z.id == z.name for z in zones)
    assert [r.query for r in fake.requests] == [{'limit': '100', 'offset': '0'}, {'limit': '100', 'offset': '100'}]
    monkeypatch.setattr(gcore, 'ZONE_PAGES', 1)
    from ddkit import Failure
    with pytest.raises(Failure) as refused:
        gcore.account_zones(job_of(box, state))
    assert refused.value.fix == 'set zone_name'


def test_a_lines_address_is_added_found_changed_and_taken_out_alone(box, fake, state):
    """The RRset holds another line's address and one of no line, with its TTL, meta and pickers:
    line ct's address is one more resource record; each step reads the RRset afresh and puts all of
    it back."""
    from ddkit.provider import Stale, address_id
    gcore = module()
    fake.add_record(ZONE, RECORD, 'AAAA', [CM, PLAIN], ttl=60, meta={'geodns_link': 'cn'}, pickers=PICKERS,
                    rr_meta={PLAIN: {'notes': 'nas'}})
    job = job_of(box, state, 'ct')
    assert gcore.find_record(job, ZONE) is None
    rid = gcore.create_record(job, ZONE, CT)
    assert rid == 'ip-240e-1-2-3--10' and rrset(fake, rtype='AAAA')['records'] == [CM, PLAIN, CT]
    found = gcore.find_record(job, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [CT])
    record = gcore.read_record(job, ZONE, rid)
    moved = CT.replace('::10', '::20')
    assert gcore.update_record(job, ZONE, record, moved) == address_id(moved)
    held = rrset(fake, rtype='AAAA')
    assert (held['records'], held['ttl'], held['meta'], held['pickers']) == ([CM, PLAIN, moved], 60,
                                                                           {'geodns_link': 'cn'}, PICKERS)
    assert held['rr'][PLAIN]['meta'] == {'notes': 'nas'}
    with pytest.raises(Stale):
        gcore.read_record(job, ZONE, rid)   # its old address is gone from the RRset
    record = gcore.read_record(job, ZONE, address_id(moved))
    assert gcore.delete_record(job, ZONE, record) is None
    assert rrset(fake, rtype='AAAA')['records'] == [CM, PLAIN]
    assert gcore.delete_record(job, ZONE, record) is None   # gone already: success, nothing sent
    assert fake.calls() == ['get_record', 'update_record', 'get_record', 'get_record', 'update_record', 'get_record',
                            'get_record', 'update_record', 'get_record']
    assert fake.calls('update_record')[-1].json['resource_records'][1] == {'content': [PLAIN], 'enabled': True,
                                                                           'meta': {'notes': 'nas'}}


def test_the_last_lines_address_takes_the_rrset_with_it(box, fake, state):
    gcore = module()
    fake.add_record(ZONE, RECORD, 'AAAA', [CM])
    job = job_of(box, state, 'cm')
    record = gcore.find_record(job, ZONE)
    assert gcore.delete_record(job, ZONE, record) is None
    assert fake.find(RECORD, 'AAAA') == [] and fake.calls() == ['get_record', 'delete_record']


def test_a_new_rrset_for_a_line_and_the_records_own_ids_taken_over(box, fake, state):
    """No RRset yet: the line's address makes it. The record's own ids, from before it had lines,
    name the RRset: its one address is the default line's record."""
    from ddkit.provider import address_id
    gcore = module()
    job = job_of(box, state, 'cu')
    assert gcore.find_record(job, ZONE) is None
    gcore.create_record(job, ZONE, '2408:8000:1:2::10')
    assert fake.calls() == ['get_record', 'create_record']
    fake.rrsets.clear()
    fake.add_record(ZONE, RECORD, 'AAAA', [PLAIN])
    record = gcore.read_record(job_of(box, state, 'ct'), ZONE, RECORD)
    assert (record.id, record.content) == (address_id(PLAIN), [PLAIN])


def test_each_lines_job_reads_the_rrset_afresh(box, fake, state):
    """Other lines change the RRset during the run: no line's job takes another's read of it."""
    from ddkit.provider import Run
    gcore = module()
    run = Run(several=True)
    for line, address in (('ct', CT), ('cm', CM)):
        job = job_of(box, state, line, run)
        assert gcore.find_record(job, ZONE) is None
        gcore.create_record(job, ZONE, address)
    assert rrset(fake, rtype='AAAA')['records'] == [CT, CM]
    assert fake.calls() == ['get_record', 'create_record', 'get_record', 'update_record']
