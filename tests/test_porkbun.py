"""The porkbun provider (Porkbun API v3) against its fake over real HTTP. The outcome table of every
provider (test_provider_tables) covers the common rows; here: what is Porkbun's own. The key and its
secret in the JSON body alone; an edit that replaces the record, so its subdomain (never the full
name), TTL, priority and notes are sent; the apex; stale ids; its error messages and their fixes; the
domain not opted in to the API; --check by /ping; the account's domains (account_zones); a run of
several records listing the domain once; and a record's lines as several records of the name, each
found again by its note."""

import json
import os
import sys

import pytest

from conftest import RECORD, ROOT, ZONE, run_tool
from provider_harness import Harness, failed, ok
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit.providers import porkbun  # noqa: E402

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'


PORKBUN = Harness('porkbun', NEW)
fake, state = PORKBUN.fixtures()
env_of, run, status = PORKBUN.env_of, PORKBUN.run, PORKBUN.status


def ids_file(state, name=RECORD):
    return state / ('.porkbun-id_%s.txt' % name)


def job(box, state, line=None, run=None, **more):
    """A Job of the sandbox's record (on this line), run in-process against the fake."""
    from ddkit import settings, updater
    from ddkit.log import Log
    from ddkit.provider import Job, Run
    table = porkbun.SETTINGS + updater.COMMON
    cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES,
                        environ=env_of(box, state, **more))
    made = Job(porkbun, cfg, run or Run(), Log(None, quiet=True))
    made.line = line
    return made


# --- the credentials ----------------------------------------------------------------------------

def test_the_key_and_secret_travel_in_the_json_body_alone(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    for req in fake.requests:
        assert req.method == 'POST' and req.headers['content-type'] == 'application/json'
        assert (req.json['apikey'], req.json['secretapikey']) == (fake.api_key, fake.secret_api_key)
        assert fake.secret_api_key not in req.path + req.raw_query + str(req.headers)
    assert fake.calls('list_records')[0].path == '/api/json/v3/dns/retrieveByNameType/%s/A/home' % ZONE


@pytest.mark.parametrize('change, code, words, step', [
    (lambda fake: fake.keys.update({'pk1_other': fake.keys.pop(fake.api_key)}), '001', 'api_key is not a Porkbun',
     'find zone'),
    (lambda fake: fake.keys.update({fake.api_key: 'sk1_other'}), '002', 'secret_api_key is not the secret',
     'find zone'),
], ids=['wrong key', 'wrong secret'])
def test_a_refused_key_says_which_half_and_never_the_secrets(box, fake, state, change, code, words, step):
    change(fake)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['code'], shown['http_status']) == (step, 'refused', code, 400)
    assert words in shown['fix'] and 'Invalid API key. (%s)' % code in done.stdout
    log = (state / ('ddkit_porkbun_%s.log' % RECORD)).read_text()
    for secret in (fake.api_key, fake.secret_api_key):
        assert secret not in done.stdout + done.stderr + log + json.dumps(shown)


@pytest.mark.parametrize('swap', [False, True], ids=['wrong key', 'swapped'])
def test_the_prefixes_that_tell_the_key_from_its_secret_are_shown(box, fake, state, swap):
    """pk1_ and sk1_ are no secret: the fix shows them (the log would mask "pk1_..." as the start of a
    key that begins so); a key and secret given the wrong way round are said to be swapped."""
    given = {'DDNS_API_KEY': fake.secret_api_key, 'DDNS_SECRET_API_KEY': fake.api_key} if swap else \
        {'DDNS_API_KEY': 'pk1_' + '0a' * 32}
    for args in ([], ['--check']):
        done = run(box, state, *args, **given)
        failed(done)
        said = done.stdout + done.stderr
        assert 'Invalid API key. (001)' in said and '***' not in said, said
        if swap:
            assert 'api_key and secret_api_key are swapped: api_key is the API key (it starts pk1_), ' \
                'secret_api_key the secret API key (it starts sk1_)' in said
        else:
            assert 'api_key is not a Porkbun API key: copy the API key (it starts pk1_)' in said
        for secret in list(given.values()) + [fake.secret_api_key]:
            assert secret not in said


def test_a_domain_not_opted_in_to_the_api_says_how_to_switch_it_on(box, fake, state):
    fake.domains[ZONE]['opted_in'] = False
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind']) == ('find zone', 'refused') and shown['fix'] == porkbun.OPT_IN
    assert 'the API is not switched on for domain %s' % ZONE in done.stdout


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    done = run(box, state, **more)
    failed(done)
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind']) == ('find zone', 'not found') and 'a subdomain' in shown['fix']
    assert 'no domain example.org in this account (Invalid domain.)' in done.stdout


# --- what an edit sends -----------------------------------------------------------------------

def test_an_edit_sends_the_subdomain_ttl_priority_and_notes_back(box, fake, state):
    """The edit replaces the record (the fake resets what is left out, and moves a record sent
    without a name to the apex): the record's own are sent back, the name as its subdomain."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=3600, prio=5, notes='router at home')
    ok(run(box, state))
    held = fake.records[rid]
    assert (held['name'], held['content'], held['ttl'], held['prio'], held['notes']) == (
        RECORD, NEW, 3600, 5, 'router at home')
    sent = fake.calls('update_record')[0].json
    assert (sent['name'], sent['type'], sent['ttl'], sent['prio'], sent['notes']) == ('home', 'A', '3600', '5',
                                                                                      'router at home')


def test_a_ttl_out_of_range_is_not_sent_back(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body={'status': 'SUCCESS', 'records': [
        {'id': rid, 'name': RECORD, 'type': 'A', 'content': OLD, 'ttl': '60', 'prio': 'x', 'notes': None}]})
    ok(run(box, state))
    sent = fake.calls('update_record')[0].json
    assert 'ttl' not in sent and 'prio' not in sent and 'notes' not in sent and fake.records[rid]['content'] == NEW


def test_the_apex_is_listed_without_a_subdomain_and_made_with_an_empty_name(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('list_records')[0].path == '/api/json/v3/dns/retrieveByNameType/%s/A' % ZONE
    assert fake.calls('create_record')[0].json['name'] == '' and [r['content'] for r in fake.find(ZONE)] == [NEW]
    fake.reset_log()
    ok(run(box, state, '--force', DDNS_RECORD_NAME=ZONE, ip=OTHER))
    assert fake.calls() == ['get_record', 'update_record'] and fake.calls('update_record')[0].json['name'] == ''
    assert [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_a_write_warns_when_the_domain_is_served_elsewhere(box, fake, state):
    fake.foreign_ns = ['ns.other-dns.example.net']
    done = run(box, state)
    ok(done)
    assert 'create record: Porkbun warns: The nameservers of this domain are not ours (ns.other-dns.example.net)' in done.stdout


def test_a_create_whose_answer_was_lost_is_not_sent_again(box, fake, state):
    fake.fail('lost', route='create_record')
    failed(run(box, state))
    assert len(fake.calls('create_record')) == 1 and [r['content'] for r in fake.find(RECORD)] == [NEW]
    fake.reset_log()
    ok(run(box, state))
    assert fake.calls() == ['list_records'] and len(fake.find(RECORD)) == 1


# --- stored ids ---------------------------------------------------------------------------------

def test_stored_ids_of_a_deleted_record_are_looked_up_again(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ids_file(state).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.porkbun-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    del fake.records[rid]
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_records', 'create_record'] and 'Stored ids are stale' in done.stdout


def test_a_read_refused_for_the_record_is_taken_as_stale(box, fake, state):
    """The API's words for an unknown id are not known: an error answer to the read (but one about
    the credentials) makes the ids stale; the lookup by name that follows finds the record."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ids_file(state).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.porkbun-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    fake.fail('reply', route='get_record', status=400, body={'status': 'ERROR', 'message': 'Invalid record ID.'})
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'list_records', 'update_record'] and fake.records[rid]['content'] == NEW


def test_stored_ids_of_another_record_are_not_taken(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    other = fake.add_record(ZONE, 'nas.' + ZONE, 'A', OLD)
    ids_file(state).write_text('%s\n%s\n' % (ZONE, other))
    (state / ('.porkbun-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'list_records', 'update_record']
    assert (fake.records[rid]['content'], fake.records[other]['content']) == (NEW, OLD)
    assert ids_file(state).read_text() == '%s\n%s\n' % (ZONE, rid)


def test_both_families_in_one_run_list_the_domain_once(box, fake, state, dual):
    ids = [fake.add_record(ZONE, RECORD, t, ip) for t, ip in (('A', OLD), ('AAAA', '240e:1::1'))]
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_records', 'update_record', 'update_record']
    assert fake.calls('list_records')[0].path == '/api/json/v3/dns/retrieve/%s' % ZONE
    assert [fake.records[r]['content'] for r in ids] == [dual.v4, dual.v6]


# --- --check and hostile answers ------------------------------------------------------------------

def test_check_pings_then_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'credentials accepted (API key and secret)' in done.stdout and 'zone %s found' % ZONE in done.stdout
    assert fake.calls() == ['ping', 'list_records', 'list_records'] and os.listdir(str(state)) == []
    fake.keys[fake.api_key] = 'sk1_other'
    done = run(box, state, '--check')
    assert 'FAIL  credentials accepted: login: the provider refused the request (HTTP 400, code 002)' in done.stdout
    assert fake.secret_api_key not in done.stdout + done.stderr


@pytest.mark.parametrize('answer', [
    {'body': {'status': 'SUCCESS', 'records': {'id': '1'}}},
    {'body': {'status': 'MAYBE'}},
    {'body': [1, 2]},
    {'text': '<html>busy</html>'},
    {'text': ''},
    {'status': 503, 'text': 'busy'},
], ids=['records not a list', 'unknown status', 'not an object', 'html', 'empty', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='list_records', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('create_record') == [] and fake.calls('update_record') == []


def test_a_hostile_record_id_is_not_taken(box, fake, state):
    fake.fail('reply', route='list_records', body={'status': 'SUCCESS', 'records': [
        {'id': '../1', 'name': RECORD, 'type': 'A', 'content': OLD, 'ttl': '600'}]})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']


def test_the_base_url_as_the_documents_write_it_is_taken(box, fake, state):
    ok(run(box, state, DDNS_BASE_URL=fake.url + '/api/json/v3/'))
    assert fake.calls() == ['list_records', 'create_record']


# --- the account's domains (zone_name left out) -------------------------------------------------

def test_account_zones_are_read_chunk_by_chunk_until_one_is_empty(box, fake, state):
    for n in range(1005):
        fake.add_zone('d%04d.Example.NET' % n)
    zones = porkbun.account_zones(job(box, state))
    assert len(zones) == 1006 and {ZONE, 'd0000.example.net', 'd1004.example.net'} <= {z.name for z in zones}
    assert all(z.id == z.name for z in zones)
    assert [r.json['start'] for r in fake.requests] == ['0', '1000', '1006']


def test_account_zones_of_an_account_too_large_say_set_zone_name(box, fake, state, monkeypatch):
    from ddkit import Failure
    monkeypatch.setattr(porkbun, 'CHUNK_PAGES', 1)
    with pytest.raises(Failure) as refused:
        porkbun.account_zones(job(box, state))
    assert (refused.value.step, refused.value.fix) == ('find zone', 'set zone_name')


# --- lines: several records of the name, each found by its note -----------------------------------

def test_a_lines_record_is_made_with_its_note_and_found_by_it_after_its_address_changed(box, fake, state):
    from ddkit.provider import Run, Stale
    shared = Run(several=True)
    ct, cm = (job(box, state, line, shared, DDNS_RECORD_TYPE='AAAA') for line in ('ct', 'cm'))
    assert porkbun.find_record(ct, ZONE) is None and porkbun.find_record(cm, ZONE) is None
    ct_id = porkbun.create_record(ct, ZONE, '240e:1::10')
    cm_id = porkbun.create_record(cm, ZONE, '2409:8a00::10')
    assert {r['notes'] for r in fake.find(RECORD, 'AAAA')} == {'ddkit line ct', 'ddkit line cm'}
    fake.records[ct_id]['content'] = '2409:8a00::99'   # changed elsewhere to another operator's address
    later = Run(several=True)
    ct, cm = (job(box, state, line, later, DDNS_RECORD_TYPE='AAAA') for line in ('ct', 'cm'))
    assert (porkbun.find_record(ct, ZONE).id, porkbun.find_record(cm, ZONE).id) == (ct_id, cm_id)
    with pytest.raises(Stale):
        porkbun.read_record(ct, ZONE, cm_id)   # another line's record is not this line's
    record = porkbun.read_record(ct, ZONE, ct_id)
    porkbun.update_record(ct, ZONE, record, '240e:1::11')
    assert fake.records[ct_id]['notes'] == 'ddkit line ct' and fake.by_line(RECORD, 'AAAA') == {
        None: ['2409:8a00::10', '240e:1::11']}


def test_a_record_made_by_hand_is_taken_by_the_line_of_its_operator(box, fake, state):
    from ddkit.provider import Run
    mine = fake.add_record(ZONE, RECORD, 'AAAA', '2408:8000::1')
    fake.add_record(ZONE, RECORD, 'AAAA', '2408:8000::2', notes='ddkit line cm')   # made for another line
    shared = Run(several=True)
    assert porkbun.find_record(job(box, state, 'cu', shared, DDNS_RECORD_TYPE='AAAA'), ZONE).id == mine
    assert porkbun.find_record(job(box, state, 'ct', shared, DDNS_RECORD_TYPE='AAAA'), ZONE) is None


def test_a_delete_of_a_record_gone_already_is_success(box, fake, state):
    """The API's words for a delete of a gone record are not known: a refused delete is checked with
    a read of the id, and a record that is not there is deleted as asked."""
    from ddkit.provider import Record
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, notes='ddkit line cm')
    made = job(box, state, 'cm')
    assert porkbun.delete_record(made, ZONE, Record(rid)) is None and fake.records == {}
    assert porkbun.delete_record(made, ZONE, Record(rid)) is None
    assert fake.calls() == ['delete_record', 'delete_record', 'get_record']


def test_a_refused_delete_of_a_record_that_is_there_is_a_failure(box, fake, state):
    from ddkit import Failure
    from ddkit.provider import Record
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, notes='ddkit line cu')
    fake.fail('reply', route='delete_record', status=400, body={'status': 'ERROR', 'message': 'Delete error: locked.'})
    with pytest.raises(Failure) as refused:
        porkbun.delete_record(job(box, state, 'cu'), ZONE, Record(rid))
    e = refused.value
    assert (e.step, e.status, e.kind, e.provider_message) == ('delete record', 400, 'refused', 'Delete error: locked.')
    assert e.url == fake.url + '/api/json/v3/dns/delete/%s/%s' % (ZONE, rid) and rid in fake.records
    fake.keys[fake.api_key] = 'sk1_other'
    with pytest.raises(Failure) as refused:   # refused for the credentials: no read, the refusal stands
        porkbun.delete_record(job(box, state, 'cu'), ZONE, Record(rid))
    assert refused.value.code == '002' and fake.calls()[-1] == 'delete_record'
