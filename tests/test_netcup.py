"""The netcup provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is netcup's own (one endpoint, the action in
the body; one login a run, the password sent with it alone; the domain's records, which prove it is
the customer's; the record of a stored id checked in them; updateDnsRecords with the whole record;
errors by status code in HTTP 200 answers), --check, and a record's operator lines."""

import functools
import json

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'


NETCUP = Harness('netcup', NEW)
fake, state = NETCUP.fixtures()
env_of, run, status, module, _job = NETCUP.bound()
job_of = functools.partial(NETCUP.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def held(fake, name=RECORD, rtype='A'):
    return sorted(r['content'] for r in fake.find(name, rtype))


def test_one_login_a_run_and_the_password_goes_with_it_alone(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, priority='0')
    ok(run(box, state))
    assert fake.calls() == ['login', 'infoDnsRecords', 'updateDnsRecords']
    assert all(r.path == '/run/webservice/servers/endpoint.php' and r.raw_query == 'JSON' for r in fake.requests)
    params = [r.json['param'] for r in fake.requests]
    assert [('apipassword' in p) for p in params] == [True, False, False]
    assert params[1]['apisessionid'] in fake.sessions and params[2]['apisessionid'] == params[1]['apisessionid']
    assert params[2]['dnsrecordset'] == {'dnsrecords': [{'id': rid, 'hostname': 'home', 'type': 'A',
                                                         'destination': NEW, 'deleterecord': False,
                                                         'priority': '0'}]}
    log = (state / ('ddkit_netcup_%s.log' % RECORD)).read_text()
    assert fake.password not in log + json.dumps(status(box, state)) and fake.key not in log


def test_a_later_run_changes_the_record_of_its_stored_id_unread(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state, ip=OTHER))
    fake.reset_log()
    ok(run(box, state))
    assert fake.calls() == ['login', 'updateDnsRecords'] and fake.records[rid]['content'] == NEW
    assert (state / ('.netcup-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, rid)


def test_a_new_record_is_made_without_an_id_and_its_id_kept(box, fake, state):
    ok(run(box, state))
    made = fake.calls('updateDnsRecords')[0].json['param']['dnsrecordset']['dnsrecords']
    assert made == [{'hostname': 'home', 'type': 'A', 'destination': NEW, 'deleterecord': False}]
    rid = fake.find(RECORD)[0]['id']
    assert (state / ('.netcup-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, rid)


def test_the_apex_is_at(box, fake, state):
    fake.add_record(ZONE, ZONE, 'A', OLD)
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.calls('updateDnsRecords')[0].json['param']['dnsrecordset']['dnsrecords'][0]['hostname'] == '@'
    assert held(fake, ZONE) == [NEW]


def test_stored_ids_of_a_record_deleted_meanwhile_make_it_again(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state, ip=OTHER))
    fake.records.clear()
    fake.reset_log()
    done = run(box, state)
    ok(done)
    # the refused change is about a record gone from the listing: looked up again, and made
    assert fake.calls() == ['login', 'updateDnsRecords', 'infoDnsRecords', 'infoDnsRecords', 'updateDnsRecords']
    assert 'Stored ids are stale' in done.stdout and held(fake) == [NEW]


def test_a_refused_change_of_a_record_still_there_is_a_failure(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state, ip=OTHER))
    fake.fail('reply', route='updateDnsRecords', body={'status': 'error', 'statuscode': 4013,
                                                       'shortmessage': 'Validation Error.', 'responsedata': ''})
    failed(run(box, state))
    shown = status(box, state)
    assert (shown['step'], shown['code']) == ('update record', '4013') and fake.records[rid]['content'] == OTHER


def test_a_domain_not_the_customers_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(run(box, state, **more))
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind'], shown['code']) == ('find zone', 'not found', '5028')
    assert 'netcup\'s name servers' in shown['fix']


@pytest.mark.parametrize('setting', ['DDNS_API_PASSWORD', 'DDNS_API_KEY', 'DDNS_CUSTOMER_NUMBER'])
def test_refused_credentials_fail_at_the_login_and_are_never_shown(box, fake, state, setting):
    done, shown = NETCUP.failure(box, state, **{setting: 'wrong-value-9'})
    assert (shown['step'], shown['kind'], shown['code']) == ('get token', 'refused', '4013')
    assert 'Master Data, API' in shown['fix'] and fake.calls() == ['login']
    assert fake.password not in done.stdout + done.stderr + json.dumps(shown)


def test_a_login_without_a_session_id_is_a_failure(box, fake, state):
    fake.fail('reply', route='login', body={'status': 'success', 'statuscode': 2000, 'responsedata': {}})
    failed(run(box, state))
    assert status(box, state)['step'] == 'get token' and fake.calls() == ['login']


def test_a_session_ended_says_so(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('rewrite', route='login', answer=lambda reply: (fake.sessions.clear(), reply)[1])
    failed(run(box, state))
    shown = status(box, state)
    assert (shown['step'], shown['code']) == ('find zone', '4001') and 'logs in again' in shown['fix']


@pytest.mark.parametrize('answer', [
    {'text': '<html>maintenance</html>'},
    {'body': {'status': 'success', 'statuscode': 2000, 'responsedata': {'dnsrecords': 'x'}}},
    {'status': 500, 'text': 'busy'},
], ids=['html', 'records not a list', 'server error'])
def test_an_unusable_answer_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='infoDnsRecords', times=5, **answer)
    failed(run(box, state))
    assert fake.calls('updateDnsRecords') == []


def test_check_logs_in_reads_and_writes_nothing(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    done = NETCUP.check(box, state)
    assert 'credentials accepted (customer %s)' % fake.customer in done.stdout
    assert 'A record %s found (id %s)' % (RECORD, rid) in done.stdout
    assert fake.calls() == ['login', 'infoDnsRecords', 'infoDnsRecords'] and kept_nothing(state)


def test_a_lines_record_is_made_found_changed_and_deleted_alone(box, fake, state):
    netcup = module()
    other = fake.add_record(ZONE, RECORD, 'AAAA', CM)
    job = job_of(box, state, 'ct')
    assert netcup.find_record(job, ZONE) is None
    rid = netcup.create_record(job, ZONE, CT)
    found = netcup.find_record(job, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [CT])
    moved = CT.replace('::10', '::20')
    assert netcup.update_record(job, ZONE, netcup.read_record(job, ZONE, rid), moved) == rid
    assert held(fake, rtype='AAAA') == sorted([CM, moved])
    netcup.delete_record(job, ZONE, netcup.read_record(job, ZONE, rid))
    assert held(fake, rtype='AAAA') == [CM] and other in fake.records
    assert fake.calls().count('login') == 1   # one session for every call of the run
