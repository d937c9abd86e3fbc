"""The dynadot provider (Dynadot API3) against its fake over real HTTP. The outcome table of every
provider (test_provider_tables) covers the common rows; here: what is Dynadot's own. A change never
drops another record of the domain (set_dns2 replaces the whole set: every other main and sub record,
its Value2 and the domain's TTL are sent back as read) and never leaves the old address beside the
new (no append mode; several entries of the name become the one); a domain whose DNS is not Dynadot's
is never written; the key in the query string, never in a line, a status or a Failure; its refusals
and fixes; --check; the account's domains; a line's address as one entry of the name."""

import functools
import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'

DYNADOT = Harness('dynadot', NEW)
fake, state = DYNADOT.fixtures()
env_of, run, status, module, _job = DYNADOT.bound()
job_of = functools.partial(DYNADOT.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def neighbours(fake):
    """A domain's other records, each of a kind a set must carry back: the apex's A, MX (its distance
    in Value2) and TXT, a www CNAME, another name's A, and an AAAA of the record's own name."""
    fake.add_record(ZONE, ZONE, 'A', '192.0.2.1')
    fake.add_record(ZONE, ZONE, 'MX', 'mail.example.com', value2='10')
    fake.add_record(ZONE, ZONE, 'TXT', 'v=spf1 mx -all')
    fake.add_record(ZONE, 'www.' + ZONE, 'CNAME', ZONE)
    fake.add_record(ZONE, 'nas.' + ZONE, 'A', '192.0.2.7')
    fake.add_record(ZONE, RECORD, 'AAAA', '2001:db8::7')


def held(fake, domain=ZONE):
    """What the domain holds, in its order: (name, type, value, Value2)."""
    return [(r['name'], r['type'], r['content'], r['value2']) for r in fake.of_domain(domain)]


# --- the domain's whole set ----------------------------------------------------------------------

def test_an_update_changes_the_one_entry_in_place_and_sends_back_every_other_record(box, fake, state):
    neighbours(fake)
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.add_record(ZONE, 'z.' + ZONE, 'TXT', 'after the record')
    fake.domains[ZONE]['ttl'] = '3600'
    before = held(fake)
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'get_dns', 'set_dns']
    assert held(fake) == [(n, t, NEW if (n, t) == (RECORD, 'A') else v, x) for n, t, v, x in before]
    assert fake.domains[ZONE] == {'type': 'Dynadot DNS', 'ttl': '3600'}   # a ttl not sent resets it
    sent = fake.calls('set_dns')[0].query
    assert 'add_dns_to_current_setting' not in sent and sent['ttl'] == '3600'
    assert (sent['main_record_type1'], sent['main_record1'], sent['main_recordx1']) == ('mx', 'mail.example.com', '10')
    assert (sent['subdomain2'], sent['sub_record_type2'], sent['sub_record2']) == ('home', 'aaaa', '2001:db8::7')
    assert (sent['subdomain3'], sent['sub_record_type3'], sent['sub_record3']) == ('home', 'a', NEW)


def test_a_create_adds_the_entry_after_the_others_and_keeps_them(box, fake, state):
    neighbours(fake)
    before = held(fake)
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'get_dns', 'set_dns']
    assert held(fake) == before + [(RECORD, 'A', NEW, '')]
    assert status(box, state)['outcome'] == 'created'


def test_several_entries_of_the_name_become_the_one_address_never_old_beside_new(box, fake, state):
    neighbours(fake)
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.add_record(ZONE, RECORD, 'A', OTHER)
    ok(run(box, state))
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]
    assert len(held(fake)) == 7 and fake.find(RECORD, 'AAAA')[0]['content'] == '2001:db8::7'


def test_the_apex_is_a_main_record(box, fake, state):
    neighbours(fake)
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert [r['content'] for r in fake.find(ZONE)] == [NEW]
    sent = fake.calls('set_dns')[0].query
    assert (sent['main_record_type0'], sent['main_record0']) == ('a', NEW) and 'main_record_type3' not in sent
    assert len(held(fake)) == 6


def test_an_unchanged_record_sends_nothing_and_a_drift_is_healed_by_the_set(box, fake, state):
    neighbours(fake)
    fake.add_record(ZONE, RECORD, 'A', NEW)
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'get_dns'] and (state / ('.dynadot-ip_%s.txt' % RECORD)).exists()
    fake.reset_log()
    fake.find(RECORD)[0].update(content=OTHER)   # changed at Dynadot
    ok(run(box, state, '--force'))
    assert fake.calls() == ['get_dns', 'set_dns'] and fake.find(RECORD)[0]['content'] == NEW
    assert len(held(fake)) == 7


def test_a_set_whose_answer_was_lost_is_sent_again_to_the_same_effect(box, fake, state):
    neighbours(fake)
    fake.add_record(ZONE, RECORD, 'A', OLD)
    before = held(fake)
    fake.fail('lost', route='set_dns')
    ok(run(box, state))
    assert len(fake.calls('set_dns')) == 2 and fake.overlapped == 0
    assert held(fake) == [(n, t, NEW if (n, t) == (RECORD, 'A') else v, x) for n, t, v, x in before]


@pytest.mark.parametrize('kind', ['Dynadot Parking', 'Name Servers', ''])
def test_a_domain_whose_dns_is_not_dynadots_is_never_written(box, fake, state, kind):
    fake.domains[ZONE]['type'] = kind
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state)
    failed(done)
    assert fake.calls() == ['list_zones', 'get_dns'] and fake.find(RECORD)[0]['content'] == OLD
    said = status(box, state)
    assert (said['step'], said['kind']) == ('find zone', 'not found') and 'Dynadot DNS' in said['fix']
    assert 'is not Dynadot DNS' in done.stdout


@pytest.mark.parametrize('settings', [
    {'Type': 'Dynadot DNS', 'MainDomains': [{'RecordType': 'A'}]},
    {'Type': 'Dynadot DNS', 'SubDomains': [{'RecordType': 'A', 'Value': OLD}]},
    {'Type': 'Dynadot DNS', 'SubDomains': ['home']},
    {'Type': 'Dynadot DNS', 'MainDomains': {'RecordType': 'A', 'Value': OLD}},
    {'Type': 'Dynadot DNS', 'MainDomains': [{'RecordType': ['A'], 'Value': OLD}]},
], ids=['no value', 'no subhost', 'not an object', 'not a list', 'a type not text'])
def test_a_set_that_cannot_be_read_whole_is_never_sent_back(box, fake, state, settings):
    """Sent back without the entry it could not read, the set would drop that record."""
    fake.fail('reply', route='get_dns', times=3, body={'GetDnsResponse': {
        'ResponseCode': '0', 'Status': 'success', 'GetDns': {'NameServerSettings': settings}}})
    failed(run(box, state))
    assert fake.calls('set_dns') == [] and status(box, state)['kind'] == 'unexpected'


def test_a_set_too_large_for_set_dns2_is_not_sent(box, fake, state):
    for n in range(100):
        fake.add_record(ZONE, 'h%d.%s' % (n, ZONE), 'A', '192.0.2.%d' % (n + 1))
    done = run(box, state)
    failed(done)
    assert fake.calls() == ['list_zones', 'get_dns'] and len(fake.of_domain(ZONE)) == 100
    assert 'nothing was sent' in done.stdout


# --- the key in the query string -----------------------------------------------------------------

def test_the_key_is_sent_in_the_query_only(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    for req in fake.requests:
        assert req.method == 'GET' and req.body == b'' and req.query['key'] == fake.api_key
        assert req.raw_query.startswith('key=%s&command=' % fake.api_key) and fake.api_key not in str(req.headers)


@pytest.mark.parametrize('fault', [
    dict(kind='reply', status=404, text='<html>Not found: /api3.json?key={key}&command=list_domain</html>'),
    dict(kind='reply', status=500, text='{"error": "echo key={key}"}'),
    dict(kind='reply', body={'ListDomainInfoResponse': {'ResponseCode': '-1', 'Status': 'error',
                                                        'Error': 'invalid key {key}'}}),
    dict(kind='redirect', status=302, location='https://www.dynadot.com/api3.json?key={key}'),
], ids=['echoed in html', 'echoed in json', 'echoed in an error', 'redirect'])
def test_the_key_is_in_no_line_status_or_failure(box, fake, state, fault):
    fault = {k: v.replace('{key}', fake.api_key) if isinstance(v, str) else v for k, v in fault.items()}
    if 'body' in fault:
        fault['body'] = json.loads(json.dumps(fault['body']).replace('{key}', fake.api_key))
    fake.fail(fault.pop('kind'), route='list_zones', times=3, **fault)
    done, said = DYNADOT.failure(box, state)
    assert said['url'] == fake.url + '/api3.json'
    assert fake.api_key not in shown(done, state) + json.dumps(said) + run(box, state, '--check').stdout


def test_a_failure_in_process_carries_no_key(box, fake, state):
    from ddkit import Failure
    fake.fail('reply', route='list_zones', body={'ListDomainInfoResponse': {
        'ResponseCode': '-1', 'Status': 'error', 'Error': 'bad request key=%s' % fake.api_key}})
    with pytest.raises(Failure) as refused:
        module().list_zones(job_of(box, state))
    e = refused.value
    assert fake.api_key not in str(e) + json.dumps(e.fields()) and e.provider_message == 'bad request key=***'


# --- refusals ------------------------------------------------------------------------------------

@pytest.mark.parametrize('change, error', [
    (lambda fake: setattr(fake, 'keys', {}), 'invalid key'),
    (lambda fake: fake.keys.update({fake.api_key: {'192.0.2.1'}}), 'ip address not allowed'),
], ids=['invalid key', 'ip not allowed'])
def test_a_refusal_says_the_apis_error_and_the_fix(box, fake, state, change, error):
    change(fake)
    done, said = DYNADOT.failure(box, state)
    assert (said['step'], said['kind'], said['code']) == ('find zone', 'refused', '-1')
    assert error in said['message'] and 'allowed IPs' in said['fix']
    assert 'find zone: error -1: %s' % error in done.stdout and fake.calls() == ['list_zones']


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    done, said = DYNADOT.failure(box, state, **more)
    assert (said['step'], said['kind']) == ('find zone', 'not found') and fake.calls() == ['list_zones']
    assert 'no domain example.org in this account' in done.stdout


def test_a_refused_set_says_dynadots_error(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='set_dns', body={'SetDns2Response': {
        'ResponseCode': '-1', 'Status': 'error', 'Error': 'problem with connection to main server'}})
    done, said = DYNADOT.failure(box, state)
    assert (said['step'], said['code'], said['kind']) == ('update record', '-1', 'refused')
    assert 'update record: error -1: problem with connection to main server' in done.stdout
    assert 'next run tries again' in said['fix'] and fake.find(RECORD)[0]['content'] == OLD
    fake.reset_log()
    ok(run(box, state))   # nothing was kept: the next run looks the record up and sends again
    assert fake.calls() == ['list_zones', 'get_dns', 'set_dns'] and fake.find(RECORD)[0]['content'] == NEW


@pytest.mark.parametrize('answer', [
    {'body': {'GetDnsResponse': {'Status': 'success'}}},
    {'body': {'GetDnsResponse': {'ResponseCode': '0', 'Status': 'success'}}},
    {'body': {'A': {}, 'BResponse': 1}},
    {'body': [1, 2]},
    {'text': '<html>maintenance</html>'},
    {'status': 503, 'text': 'busy'},
], ids=['no code', 'no settings', 'no response object', 'not an object', 'html', 'server error'])
def test_an_unusable_answer_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='get_dns', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('set_dns') == [] and fake.find(RECORD)[0]['content'] == OLD


# --- --check and the account's domains -------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    neighbours(fake)
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = DYNADOT.check(box, state)
    assert 'credentials accepted (API key)' in done.stdout and 'zone %s found' % ZONE in done.stdout
    assert 'A record %s found' % RECORD in done.stdout
    assert 'set_dns' not in fake.calls() and kept_nothing(state)


def test_a_record_without_zone_name_finds_its_domain(box, fake, state):
    fake.add_zone('home.example.com.cn')
    fake.add_zone('example.net')
    env = {k: v for k, v in env_of(box, state).items() if k != 'DDNS_ZONE_NAME'}
    from conftest import run_tool
    done = run_tool('ddkit', [], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]
    assert (state / ('.dynadot-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n%s\n' % (ZONE, RECORD, ZONE)
    names = [z.name for z in module().account_zones(job_of(box, state))]
    assert sorted(names) == ['example.com', 'example.net', 'home.example.com.cn']


def test_lines_run_one_entry_a_line(box, fake, state):
    """Dynadot has no resolution lines: each line's address is one AAAA entry of the name (SEVERAL),
    added, found, changed and taken out alone, every other record kept."""
    from ddkit.provider import Run, address_id
    dynadot = module()
    neighbours(fake)
    run_ = Run(several=True)
    for line, ip in (('ct', CT), ('cm', CM)):
        job = job_of(box, state, line, run_)
        assert dynadot.find_record(job, ZONE) is None
        assert dynadot.create_record(job, ZONE, ip) == address_id(ip)
    assert [r['content'] for r in fake.find(RECORD, 'AAAA')] == ['2001:db8::7', CT, CM]
    job = job_of(box, state, 'ct', run_)
    record = dynadot.read_record(job, ZONE, address_id(CT))
    moved = CT.replace('::10', '::20')
    assert dynadot.update_record(job, ZONE, record, moved) == address_id(moved)
    assert [r['content'] for r in fake.find(RECORD, 'AAAA')] == ['2001:db8::7', moved, CM]
    dynadot.delete_record(job, ZONE, dynadot.read_record(job, ZONE, address_id(moved)))
    assert [r['content'] for r in fake.find(RECORD, 'AAAA')] == ['2001:db8::7', CM] and len(held(fake)) == 7
