"""The namesilo provider (NameSilo API version 1) against its fake over real HTTP. The outcome table of
every provider (test_provider_tables) covers the common rows; here: what is NameSilo's own. The API
key in the query string, never in a line, a status or a Failure; reply codes as numbers or strings;
the new record id every update gives; the TTL sent back (3600 at least); the apex; a create or update
sent once; its reply codes and their fixes; --check; the account's domains (account_zones); `lines`
refused."""

import json
import os
import sys

import pytest

from conftest import RECORD, ROOT, ZONE
from provider_harness import Harness, failed, ok

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit.providers import namesilo  # noqa: E402

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'


NAMESILO = Harness('namesilo', NEW)
fake, state = NAMESILO.fixtures()
env_of, run, status = NAMESILO.env_of, NAMESILO.run, NAMESILO.status


def ids_file(state, name=RECORD):
    return state / ('.namesilo-id_%s.txt' % name)


def shown_nowhere(fake, state, *texts):
    """The key is in no output, log line, state file or status."""
    seen = ''.join(texts)
    for name in os.listdir(str(state)):
        seen += (state / name).read_text()
    assert fake.api_key not in seen, seen


# --- the key in the query string ---------------------------------------------------------------

def test_the_key_is_sent_in_the_query_only(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    for req in fake.requests:
        assert req.method == 'GET' and req.body == b''
        assert (req.query['key'], req.query['version'], req.query['type']) == (fake.api_key, '1', 'json')
        assert fake.api_key not in str(req.headers)


@pytest.mark.parametrize('fault', [
    dict(kind='reply', code=110),
    dict(kind='redirect', status=302, location='https://www.namesilo.com/api/dnsListRecords?key={key}'),
    dict(kind='reply', status=404, text='<html>Not found: /api/dnsListRecords?version=1&type=json&key={key}</html>'),
    dict(kind='reply', status=500, text='{"reply": {"detail": "echo key={key}"}}'),
    dict(kind='reply', body={'reply': {'code': 280, 'detail': 'Bad request for key {key}'}}),
], ids=['refused', 'redirect', 'echoed in html', 'echoed in json', 'echoed in a detail'])
def test_the_key_is_in_no_line_status_or_failure(box, fake, state, fault):
    fault = dict(fault)
    kind = fault.pop('kind')
    if fault.pop('code', None):
        fake.keys = {}   # the key is refused: 110
    else:
        fault = {k: v.replace('{key}', fake.api_key) if isinstance(v, str) else v for k, v in fault.items()}
        if 'body' in fault:
            fault['body'] = {'reply': dict(fault['body']['reply'], detail=fault['body']['reply']['detail'].replace(
                '{key}', fake.api_key))}
        fake.fail(kind, route='list_records', times=3, **fault)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert shown['url'] == fake.url + '/api/dnsListRecords'
    shown_nowhere(fake, state, done.stdout, done.stderr, json.dumps(shown),
                  run(box, state, '--check').stdout)


def test_a_failure_in_process_carries_no_key(box, fake, state):
    """The Failure itself, before any log masks it: its text and every field."""
    from ddkit import Failure
    fake.fail('reply', route='list_records', status=404, text='no such path /api/dnsListRecords?key=%s' % fake.api_key)
    with pytest.raises(Failure) as refused:
        namesilo.find_record(job(box, state), ZONE)
    e = refused.value
    assert fake.api_key not in str(e) + json.dumps(e.fields()) and e.url == fake.url + '/api/dnsListRecords'


# --- what is NameSilo's own ---------------------------------------------------------------------

@pytest.mark.parametrize('code_as', [int, str], ids=['number', 'string'])
def test_a_reply_code_as_a_number_or_a_string(box, fake, state, code_as):
    fake.code_as = code_as
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record'] and rid not in fake.records
    fake.keys = {}
    failed(run(box, state, '--force'))
    assert status(box, state)['code'] == '110'


def test_every_update_gives_a_new_id_which_is_kept(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    new_id = fake.find(RECORD)[0]['record_id']
    assert new_id != rid and ids_file(state).read_text() == '%s\n%s\n' % (ZONE, new_id)
    fake.reset_log()
    ok(run(box, state, ip=OTHER))   # read by the new id: no stale ids, no lookup again
    assert fake.calls() == ['list_records', 'update_record']
    assert ids_file(state).read_text() == '%s\n%s\n' % (ZONE, fake.find(RECORD)[0]['record_id'])


def test_an_update_sends_back_the_records_ttl(box, fake, state):
    """dnsUpdateRecord without rrttl sets 7207 (the fake does so): the TTL read is sent back."""
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=3603)
    ok(run(box, state))
    assert [(r['content'], r['ttl']) for r in fake.find(RECORD)] == [(NEW, 3603)]
    assert fake.calls('update_record')[0].query['rrttl'] == '3603'


def test_a_ttl_the_api_would_refuse_is_not_sent_back(box, fake, state):
    """A TTL below 3600 (or out of range) read back is left out: the update takes NameSilo's default
    rather than fail."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.records[rid]['ttl'] = 600
    ok(run(box, state))
    assert 'rrttl' not in fake.calls('update_record')[0].query and fake.find(RECORD)[0]['content'] == NEW


def test_the_apex_is_an_empty_rrhost(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    sent = fake.calls('create_record')[0].query
    assert (sent['rrhost'], sent['domain'], sent['rrtype'], sent['rrvalue']) == ('', ZONE, 'A', NEW)
    assert 'rrttl' not in sent and [(r['content'], r['ttl']) for r in fake.find(ZONE)] == [(NEW, 7207)]
    fake.reset_log()
    ok(run(box, state, '--force', DDNS_RECORD_NAME=ZONE, ip=OTHER))
    assert fake.calls() == ['list_records', 'update_record'] and fake.calls('update_record')[0].query['rrhost'] == ''
    assert [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_a_name_is_matched_whole_not_by_its_ending(box, fake, state):
    fake.add_record(ZONE, 'x' + RECORD, 'A', OLD)
    fake.add_record(ZONE, RECORD, 'AAAA', '240e:1::1')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    assert fake.calls('create_record')[0].query['rrhost'] == 'home'


def test_one_record_listed_as_an_object_is_read(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body={'request': {'operation': 'dnsListRecords', 'ip': '127.0.0.1'},
                                                   'reply': {'code': '300', 'detail': 'success', 'resource_record': {
                                                       'record_id': rid, 'type': 'A', 'host': RECORD, 'value': OLD,
                                                       'ttl': '7207', 'distance': '0'}}})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record'] and fake.find(RECORD)[0]['content'] == NEW


@pytest.mark.parametrize('route', ['create_record', 'update_record'])
def test_a_create_or_update_whose_answer_was_lost_is_not_sent_again(box, fake, state, route):
    """It took effect (an update: the record has a new id); sent once, the run fails; the next run
    finds the record by name holding the address, and keeps its id."""
    if route == 'update_record':
        fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('lost', route=route)
    failed(run(box, state))
    assert len(fake.calls(route)) == 1 and [r['content'] for r in fake.find(RECORD)] == [NEW]
    fake.reset_log()
    ok(run(box, state))
    assert fake.calls() == ['list_records']
    assert ids_file(state).read_text() == '%s\n%s\n' % (ZONE, fake.find(RECORD)[0]['record_id'])


@pytest.mark.parametrize('change, code, words', [
    (lambda fake: setattr(fake, 'keys', {}), '110', 'API Manager'),
    (lambda fake: fake.keys[fake.api_key].update(sub=True), '112', 'main account'),
    (lambda fake: fake.keys[fake.api_key].update(ips={'192.0.2.1'}), '113', 'IP restriction'),
], ids=['invalid key', 'sub-account', 'ip not allowed'])
def test_a_refusal_says_its_code_and_fix(box, fake, state, change, code, words):
    change(fake)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['code']) == ('find zone', 'refused', code)
    assert words in shown['fix'] and words in done.stdout and 'error %s: ' % code in done.stdout
    assert fake.calls() == ['list_records']


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    done = run(box, state, **more)
    failed(done)
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind'], shown['code']) == ('find zone', 'not found', '200')
    assert 'no active domain example.org in this account' in done.stdout


def test_a_refused_update_says_namesilos_detail(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', body={'reply': {'code': 280, 'detail': 'Invalid value'}})
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['code'], shown['kind']) == ('update record', '280', 'refused')
    assert 'update record: error 280: Invalid value' in done.stdout


def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'credentials accepted (API key)' in done.stdout and 'zone %s found' % ZONE in done.stdout
    assert 'A record %s found (id ' % RECORD in done.stdout
    assert fake.calls() == ['list_records', 'list_records'] and os.listdir(str(state)) == []


def test_check_tells_a_foreign_domain_from_a_refused_key(box, fake, state):
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert 'ok    credentials accepted' in done.stdout and 'FAIL  zone found: find zone: no active domain' \
        in done.stdout, done.stdout
    fake.keys = {}
    done = run(box, state, '--check')
    assert 'FAIL  credentials accepted: find zone: the provider refused the request (code 110)' in done.stdout


@pytest.mark.parametrize('answer', [
    {'body': {'reply': {'code': 300, 'resource_record': 'none'}}},
    {'body': {'reply': 'ok'}},
    {'body': [1, 2]},
    {'text': '<?xml version="1.0"?><namesilo><reply><code>300</code></reply></namesilo>'},
    {'text': ''},
    {'status': 503, 'text': 'busy'},
], ids=['records not a list', 'reply not an object', 'not an object', 'xml', 'empty', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='list_records', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('create_record') == [] and fake.calls('update_record') == []


def test_a_hostile_record_id_is_not_taken(box, fake, state):
    fake.fail('reply', route='list_records', body={'reply': {'code': 300, 'resource_record': [
        {'record_id': '../x?y', 'type': 'A', 'host': RECORD, 'value': OLD, 'ttl': '7207'}]}})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']


def test_lines_are_refused_before_anything_is_sent(box, fake, state):
    done = run(box, state, DDNS_LINES='ct=iface:lo', DDNS_IP_SOURCE='iface:lo')
    assert done.returncode == 2 and 'provider namesilo holds one address per name' in done.stderr
    assert fake.calls() == []


# --- the account's domains (zone_name left out) -------------------------------------------------

def job(box, state, **more):
    """A Job of the sandbox's record, run in-process against the fake."""
    from ddkit import settings, updater
    from ddkit.log import Log
    from ddkit.provider import Job, Run
    table = namesilo.SETTINGS + updater.COMMON
    cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES,
                        environ=env_of(box, state, **more))
    return Job(namesilo, cfg, Run(), Log(None, quiet=True))


def test_account_zones_are_every_domain_of_every_page(box, fake, state):
    for n in range(namesilo.PAGE_SIZE + 5):
        fake.add_zone('d%03d.Example.NET' % n)
    zones = namesilo.account_zones(job(box, state))
    assert sorted(z.name for z in zones) == sorted([ZONE] + ['d%03d.example.net' % n
                                                             for n in range(namesilo.PAGE_SIZE + 5)])
    assert all(z.id == z.name for z in zones) and fake.calls() == ['list_zones', 'list_zones']
    assert [r.query['page'] for r in fake.requests] == ['1', '2']


def test_account_zones_without_a_pager_are_one_call(box, fake, state):
    fake.fail('reply', route='list_zones', body={'reply': {'code': 300, 'domains': {'domain': ['a.com', 'B.net']}}})
    assert sorted(z.name for z in namesilo.account_zones(job(box, state))) == ['a.com', 'b.net']
    assert fake.calls() == ['list_zones']


@pytest.mark.parametrize('domains, names', [
    ([{'domain': 'a.com', 'created': '2024-01-01'}, {'domain': 'B.net.'}], ['a.com', 'b.net']),
    (['a.com', 'b.net'], ['a.com', 'b.net']),
    ({'domain': 'a.com'}, ['a.com']),
    ({'domain': ['a.com', {'domain': 'b.net'}]}, ['a.com', 'b.net']),
    ('a.com', ['a.com']),
    ([None, 3, {'domain': '../x'}, ''], []),
], ids=['objects', 'names', 'one object', 'a list in an object', 'one name', 'junk'])
def test_domain_names_however_the_json_holds_them(domains, names):
    assert namesilo.domain_names(domains) == names


def test_account_zones_of_an_account_too_large_say_set_zone_name(box, fake, state, monkeypatch):
    from ddkit import Failure
    monkeypatch.setattr(namesilo, 'ZONE_PAGES', 2)
    for n in range(3 * namesilo.PAGE_SIZE):
        fake.add_zone('d%03d.example.net' % n)
    with pytest.raises(Failure) as refused:
        namesilo.account_zones(job(box, state))
    assert (refused.value.step, refused.value.fix) == ('find zone', 'set zone_name')
    assert fake.calls() == ['list_zones', 'list_zones']
