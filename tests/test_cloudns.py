"""The cloudns provider against its fake over real HTTP. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is ClouDNS's own (the credentials in a
form body, never a URL; an API user or a sub-user by id or by name; the apex host ''; the host and
TTL sent back; the errors it says at HTTP 200; a throttled answer; get-record's answer not relied
on), --check, the account's zones, and a record's operator lines: each line's record one of the
name's records, found by its operator's prefix, updated and deleted alone."""

import functools
import json
import os

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, ok

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM = '240e:1:2:3::10', '2409:8a00:1:2::10'


CLOUDNS = Harness('cloudns', NEW)
fake, state = CLOUDNS.fixtures()
env_of, run, status, module = CLOUDNS.env_of, CLOUDNS.run, CLOUDNS.status, CLOUDNS.module


def log_of(state):
    return (state / ('ddkit_cloudns_%s.log' % RECORD)).read_text()


# --- what is ClouDNS's own ---------------------------------------------------------------------

def test_every_call_is_a_form_post_with_the_credentials_in_its_body(box, fake, state):
    """The API takes its parameters in a query too; a query is in the request line, which a log or a
    failure shows: every call carries them in a form body instead."""
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))                                      # list, update
    ok(run(box, state, ip=OTHER))                            # read, update
    assert fake.calls() == ['list_records', 'update_record', 'get_record', 'update_record']
    for req in fake.requests:
        assert req.method == 'POST' and req.raw_query == '' and req.query == {}
        assert req.headers['content-type'] == 'application/x-www-form-urlencoded'
        sent = fake.params(req)
        assert (sent['auth-id'], sent['auth-password'], sent['domain-name']) == (fake.auth_id, fake.password, ZONE)
    assert fake.password not in log_of(state) + json.dumps(status(box, state))


def test_the_apex_is_the_host_empty(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    sent = [fake.params(r) for r in fake.requests]
    assert [(p.get('host'), p.get('type', p.get('record-type'))) for p in sent] == [('', 'A'), ('', 'A')]
    assert [r['content'] for r in fake.find(ZONE)] == [NEW] and fake.find(ZONE)[0]['ttl'] == 300
    fake.reset_log()
    ok(run(box, state, '--force', DDNS_RECORD_NAME=ZONE, ip=OTHER))   # read by its id, updated
    assert fake.calls() == ['get_record', 'update_record'] and [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_an_update_sends_back_the_records_host_and_ttl(box, fake, state):
    """mod-record requires host and ttl: what is sent is what the record keeps."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=86400)
    ok(run(box, state))
    sent = fake.params(fake.calls('update_record')[0])
    assert (sent['record-id'], sent['host'], sent['ttl'], sent['record']) == (rid, 'home', '86400', NEW)
    assert fake.records[rid]['ttl'] == 86400 and fake.records[rid]['content'] == NEW


def test_a_ttl_the_api_does_not_take_is_not_sent_back(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)

    def odd_ttl(reply):
        listed = json.loads(reply.raw)
        listed[rid]['ttl'] = '12'
        return type(reply)(200, listed)
    fake.fail('rewrite', route='list_records', answer=odd_ttl)
    done = run(box, state)
    ok(done)
    assert fake.params(fake.calls('update_record')[0])['ttl'] == '300' and "TTL '12' is not one" in done.stdout


@pytest.mark.parametrize('auth_id, sent', [
    ('sub-auth-id:20821', {'sub-auth-id': '20821'}),
    ('sub-auth-user:ddns', {'sub-auth-user': 'ddns'}),
    ('ddns', {'sub-auth-user': 'ddns'}),   # a name (not digits) is a sub-user's
], ids=['sub-auth-id', 'sub-auth-user', 'bare name'])
def test_a_sub_user_is_sent_by_id_or_by_name(box, fake, state, auth_id, sent):
    fake.add_subuser(20821, 'ddns', 'sub-Pa55word', zones=[ZONE])
    ok(run(box, state, DDNS_AUTH_ID=auth_id, DDNS_AUTH_PASSWORD='sub-Pa55word'))
    params = fake.params(fake.requests[0])
    assert {k: params[k] for k in sent} == sent and 'auth-id' not in params
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_a_sub_user_sees_only_the_zones_delegated_to_it(box, fake, state):
    fake.add_subuser(20821, 'ddns', 'sub-Pa55word', zones=['example.net'])
    fake.add_zone('example.net')
    done = run(box, state, DDNS_AUTH_ID='sub-auth-id:20821', DDNS_AUTH_PASSWORD='sub-Pa55word')
    failed(done)
    shown = status(box, state, DDNS_AUTH_ID='sub-auth-id:20821', DDNS_AUTH_PASSWORD='sub-Pa55word')
    assert (shown['step'], shown['kind'], shown['code']) == ('find zone', 'not found', 'Missing domain-name')
    assert 'one delegated to it' in shown['fix'] and 'no zone %s in this account' % ZONE in done.stdout


@pytest.mark.parametrize('value', ['sub-auth-id:abc', 'sub-auth-user:', 'with space', ''])
def test_an_auth_id_of_no_form_is_refused_before_anything_is_sent(box, fake, state, value):
    done = run(box, state, DDNS_AUTH_ID=value or ' ')
    assert done.returncode == 2 and 'auth_id' in done.stderr, done.stdout + done.stderr
    assert fake.requests == []


@pytest.mark.parametrize('settings, words, fix', [
    ({'DDNS_AUTH_PASSWORD': 'not-the-password'}, 'incorrect auth-id or auth-password',
     'auth_id must be an API user'),
    ({'DDNS_AUTH_ID': '9999'}, 'incorrect auth-id or auth-password', 'auth_id must be an API user'),
    ({'DDNS_AUTH_ID': 'sub-auth-user:nobody'}, 'incorrect sub-auth-id, sub-auth-user or auth-password',
     'auth_id must name the API sub-user'),
], ids=['password', 'auth-id', 'sub-user'])
def test_refused_credentials_say_which_and_never_the_password(box, fake, state, settings, words, fix):
    done = run(box, state, **settings)
    failed(done)
    shown = status(box, state, **settings)
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'refused', 200)
    assert words in shown['code'] and fix in shown['fix'] and fix in done.stdout
    assert fake.password not in done.stdout + done.stderr + log_of(state) + json.dumps(shown)
    assert fake.calls() == ['list_records']


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    done = run(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(done)
    shown = status(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert (shown['step'], shown['kind'], shown['code']) == ('find zone', 'not found', 'Missing domain-name')
    assert fake.calls() == ['list_records']


def test_an_empty_listing_is_no_record(box, fake, state):
    """A listing of nothing is an empty array, not an object (the answer's shape changes)."""
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    assert [(r['content'], r['ttl']) for r in fake.find(RECORD)] == [(NEW, 300)]


def test_get_records_answer_is_not_relied_on(box, fake, state):
    """get-record is not in the published reference: an answer that is no record of the id leaves
    the listing of the name to say whether the record exists."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.cloudns-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, rid))
    fake.fail('reply', route='get_record', body={'status': 'Failed', 'statusDescription': 'Invalid method'})
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'list_records', 'update_record']
    fake.fail('reply', route='get_record', status=404, text='<html>Not Found</html>')
    ok(run(box, state, ip=OTHER))
    assert fake.calls()[3:] == ['get_record', 'list_records', 'update_record']
    assert fake.records[rid]['content'] == OTHER


def test_stored_ids_of_a_deleted_record_are_looked_up_again_with_one_listing(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.cloudns-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.cloudns-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    del fake.records[rid]
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_records', 'create_record'] and 'Stored ids are stale' in done.stdout
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_stored_ids_of_another_zone_are_not_read(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.cloudns-id_%s.txt' % RECORD)).write_text('other.example\n%s\n' % rid)
    (state / ('.cloudns-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']


def test_a_throttled_answer_that_asks_a_long_wait_stands(box, fake, state):
    """HTTP 429: a Retry-After a run can wait is waited for by the HTTP layer; a longer one is a
    failure saying so, and the next run tries again."""
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('status', route='list_records', status=429, retry_after=3600, text='slow down')
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['http_status']) == ('find zone', 'refused', 429)
    assert 'too many requests' in shown['fix'] and fake.calls() == ['list_records']
    fake.fail('status', route='list_records', status=429, retry_after=0, text='slow down')
    ok(run(box, state))
    assert fake.calls()[1:] == ['list_records', 'list_records', 'update_record']


@pytest.mark.parametrize('body', [
    {'status': 'Failed'},
    [1, 2],
    'text',
    {'1': 'not a record'},
], ids=['failed, no words', 'a list', 'a string', 'no record objects'])
def test_an_unusable_listing_is_a_failure_or_none_never_a_traceback(box, fake, state, body):
    fake.fail('reply', route='list_records', body=body)
    done = run(box, state)
    assert done.returncode in (0, 1)
    assert fake.calls('update_record') == []


def test_a_hostile_record_id_is_not_taken(box, fake, state):
    fake.fail('reply', route='list_records', body={'../x': {'id': '../x', 'type': 'A', 'host': 'home',
                                                            'record': OLD, 'ttl': '300', 'status': 1}})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']


# --- --check --------------------------------------------------------------------------------------

def test_check_logs_in_finds_the_zone_and_the_record_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'credentials accepted (API user %s)' % fake.auth_id in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id ' % RECORD in done.stdout
    assert fake.calls() == ['login', 'list_records', 'list_records'] and os.listdir(str(state)) == []


def test_check_names_the_refused_credentials(box, fake, state):
    done = run(box, state, '--check', DDNS_AUTH_PASSWORD='not-the-password')
    assert done.returncode == 1
    assert 'FAIL  credentials accepted: login: the provider refused the request (Invalid authentication, ' \
           'incorrect auth-id or auth-password.); auth_id must be an API user' in done.stdout, done.stdout
    assert 'not-the-password' not in done.stdout + done.stderr and fake.calls() == ['login']


def test_check_of_a_zone_not_in_the_account(box, fake, state):
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert 'ok    credentials accepted' in done.stdout and 'FAIL  zone found: find zone: no zone example.org' \
        in done.stdout, done.stdout


# --- in-process: the account's zones, a record's lines --------------------------------------------

job_of = functools.partial(CLOUDNS.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def test_account_zones_lists_every_page(box, fake, state):
    for n in range(104):
        fake.add_zone('zone%03d.example' % n)
    zones = module().account_zones(job_of(box, state))
    assert sorted(z.name for z in zones) == sorted(fake.zones) and all(z.id == z.name for z in zones)
    assert fake.calls() == ['list_zones', 'list_zones']
    assert [fake.params(r)['page'] for r in fake.requests] == ['1', '2']


def test_account_zones_are_the_master_zones(box, fake, state):
    """A slave or parked zone holds no record the API may change: it is never the record's zone."""
    for name, kind in (('example.net', 'slave'), ('home.example.com', 'parked'), ('example.org', 'master')):
        fake.add_zone(name)
        fake.zones[name]['type'] = kind
    assert sorted(z.name for z in module().account_zones(job_of(box, state))) == ['example.com', 'example.org']


def test_account_zones_of_a_sub_user_are_its_delegated_ones(box, fake, state):
    fake.add_zone('example.net')
    fake.add_subuser(20821, 'ddns', 'sub-Pa55word', zones=['example.net'])
    job = job_of(box, state, DDNS_AUTH_ID='sub-auth-user:ddns', DDNS_AUTH_PASSWORD='sub-Pa55word')
    assert [(z.id, z.name) for z in module().account_zones(job)] == [('example.net', 'example.net')]


def test_account_zones_beyond_the_bound_ask_for_zone_name(box, fake, state, monkeypatch):
    from ddkit import Failure
    cloudns = module()
    monkeypatch.setattr(cloudns, 'ZONE_PAGES', 1)
    for n in range(100):
        fake.add_zone('zone%03d.example' % n)
    with pytest.raises(Failure) as refused:
        cloudns.account_zones(job_of(box, state))
    assert refused.value.fix == 'set zone_name'


@pytest.mark.parametrize('line, address', [('ct', CT), ('cm', CM)])
def test_a_lines_record_is_made_found_read_updated_and_deleted_alone(box, fake, state, line, address):
    """Beside another line's record of the name, and one of no line: neither is taken, changed or
    deleted."""
    from ddkit.provider import Stale
    cloudns = module()
    other_line = fake.add_record(ZONE, RECORD, 'AAAA', CM if line == 'ct' else CT)
    no_line = fake.add_record(ZONE, RECORD, 'AAAA', '2001:db8::1')
    job = job_of(box, state, line)
    assert cloudns.find_record(job, ZONE) is None
    rid = cloudns.create_record(job, ZONE, address)
    found = cloudns.find_record(job, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [address])
    record = cloudns.read_record(job, ZONE, rid)
    moved = address.replace('::10', '::20')
    assert cloudns.update_record(job, ZONE, record, moved) == rid
    assert cloudns.delete_record(job, ZONE, record) is None
    assert cloudns.delete_record(job, ZONE, record) is None   # gone already: success
    assert sorted(fake.records) == sorted([other_line, no_line])
    with pytest.raises(Stale):   # get-record refuses it; the run's listing of the name has it not
        cloudns.read_record(job, ZONE, rid)
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'get_record', 'update_record',
                            'delete_record', 'delete_record', 'get_record']


def test_the_lines_of_a_name_share_one_listing(box, fake, state):
    from ddkit.provider import Run
    cloudns = module()
    ids = [fake.add_record(ZONE, RECORD, 'AAAA', address) for address in (CT, CM)]
    run = Run(several=True)
    jobs = [job_of(box, state, line, run) for line in ('ct', 'cm', 'cu')]
    found = [cloudns.find_record(job, ZONE) for job in jobs]
    assert [r and r.id for r in found] == ids + [None] and fake.calls() == ['list_records']
    assert 'type' not in fake.params(fake.requests[0])
