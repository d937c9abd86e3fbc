"""The dnspodtoken provider (DNSPod's own API: dnsapi.cn and api.dnspod.com, a DNSPod Token) against its
fake over real HTTP. The outcome table of every provider (test_provider_tables) covers the common rows;
here: what is this API's own. login_token=ID,Token in a POSTed form with format=json, never in a URL or
a line; a status code that is a string; the empty listing (code 10); the host '@'; the TTL sent back;
the default line (默认, and the international API's default); the stored ids checked in the name's
listing; a refused login that stops every later request of the token (the rest of the run, and later
runs for an hour unless the token changes); the codes and their fixes; messages in UTF-8 and GBK;
--check; the account's domains; and a record's operator lines, each on its own line alone."""

import json
import os
import sys
import time

import pytest

from conftest import RECORD, ROOT, ZONE, run_tool
from provider_harness import Harness, failed, kept_nothing, ok, shown
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit.providers import dnspodtoken  # noqa: E402

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'

HARNESS = Harness('dnspodtoken', NEW)
fake, state = HARNESS.fixtures()
env_of, run, status, job = HARNESS.env_of, HARNESS.run, HARNESS.status, HARNESS.job
ids_file = HARNESS.ids_file


def hold_file(state, name=RECORD):
    return state / ('.dnspodtoken-hold_%s.txt' % name)


def answer(code, message='', **fields):
    """An answer of the API, in UTF-8."""
    return {'text': json.dumps(dict({'status': {'code': code, 'message': message, 'created_at': 'x'}}, **fields),
                               ensure_ascii=False).encode('utf-8')}


# --- the token and the form -----------------------------------------------------------------------

def test_every_call_posts_a_form_with_the_token_and_json_and_never_shows_it(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_records', 'update_record']
    for req in fake.requests:
        assert req.method == 'POST' and req.headers['content-type'] == 'application/x-www-form-urlencoded'
        assert req.path in ('/Record.List', '/Record.Modify') and req.raw_query == ''
        sent = fake.params(req)
        assert sent['login_token'] == '%s,%s' % (fake.token_id, fake.token) and sent['format'] == 'json'
        assert req.headers['user-agent'].startswith('ddkit/')
    assert fake.token not in shown(done, state)


def test_a_token_id_that_is_no_number_is_refused_before_anything_is_sent(box, fake, state):
    for setting, value in (('DDNS_TOKEN_ID', 'AKIDabc'), ('DDNS_TOKEN', 'tok en')):
        done = run_tool('ddkit', [], env=dict(env_of(box, state), **{setting: value}))
        assert done.returncode == 2 and setting.lower()[5:] in done.stderr, done.stdout + done.stderr
    assert fake.calls() == []


# --- a refused login stops the token's requests ---------------------------------------------------

def test_a_refused_token_says_its_code_and_fix_and_is_never_shown(box, fake, state):
    fake.tokens[fake.token_id] = 'another'
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['code']) == ('find zone', 'refused', '-1')
    assert got['fix'] == dnspodtoken.TOKEN_FIX and 'not a Tencent Cloud API key' in done.stdout
    assert 'find zone: error -1: Login failed' in done.stdout
    assert fake.token not in shown(done, state) + json.dumps(got)


def test_a_refused_token_stops_the_rest_of_the_run(box, fake, state, dual):
    """Several records of one token: the first refusal stops them all (more than 30 failed logins in 5
    minutes lock the API login for an hour)."""
    fake.tokens[fake.token_id] = 'another'
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    done = run_tool('ddkit', env=env, prefix=dual.prefix)
    assert done.returncode == 1, done.stdout + done.stderr
    assert fake.calls() == ['list_records'] and done.stdout.count('Login failed') == 1, done.stdout


def test_a_refused_token_stops_the_records_of_other_domains_too(box, fake, state):
    """Records of two domains share no listing: the second sends nothing after the first's refusal."""
    from ddkit import Failure
    from ddkit.provider import Run
    fake.add_zone('example.net')
    fake.tokens[fake.token_id] = 'another'
    shared = Run(several=True)
    jobs = [job(box, state, run=shared), job(box, state, run=shared, DDNS_ZONE_NAME='example.net',
                                             DDNS_RECORD_NAME='home.example.net')]
    for made in jobs:
        with pytest.raises(Failure) as refused:
            dnspodtoken.find_record(made, made.cfg.zone_name)
        assert refused.value.code == '-1'
    assert fake.calls() == ['list_records']


def test_later_runs_send_nothing_with_a_refused_token_for_an_hour(box, fake, state):
    fake.tokens[fake.token_id] = 'another'
    failed(run(box, state))
    code, _, until = hold_file(state).read_text().split()
    assert code == '-1' and 3500 < int(until) - time.time() <= 3600
    assert oct(hold_file(state).stat().st_mode & 0o777) == '0o600' and fake.token not in hold_file(state).read_text()
    fake.reset_log()
    done = run(box, state, '--force')
    failed(done)
    assert fake.calls() == [] and 'not sent: DNSPod answered code -1 to this token' in done.stdout
    assert status(box, state)['code'] == '-1'
    # --check asks the API itself: the user is looking
    done = run(box, state, '--check')
    assert fake.calls() == ['list_records'] and 'FAIL  credentials accepted' in done.stdout


def test_a_new_token_lifts_the_hold(box, fake, state):
    fake.tokens[fake.token_id] = 'another'
    failed(run(box, state))
    fake.tokens = {'520002': fake.token}
    ok(run(box, state, DDNS_TOKEN_ID='520002'))
    assert not hold_file(state).exists() and [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_a_hold_past_its_hour_is_lifted(box, fake, state):
    fake.tokens[fake.token_id] = 'another'
    failed(run(box, state))
    code, key, _ = hold_file(state).read_text().split()
    hold_file(state).write_text('%s\n%s\n%d\n' % (code, key, time.time() - 1))
    fake.tokens[fake.token_id] = fake.token
    ok(run(box, state))
    assert not hold_file(state).exists()


def test_the_apis_lock_after_failed_logins_is_held_too(box, fake, state):
    fake.locked_until = time.time() + 3600
    failed(run(box, state))
    assert status(box, state)['code'] == '-8' and hold_file(state).read_text().startswith('-8\n')


# --- its answers ----------------------------------------------------------------------------------

def test_a_chinese_message_in_utf8_reaches_the_user_as_it_is(box, fake, state):
    fake.fail('reply', route='list_records', **answer('-1', '登录失败，请检查 Token'))
    done = run(box, state)
    failed(done)
    assert 'find zone: error -1: 登录失败，请检查 Token' in done.stdout
    log = state / ('ddkit_dnspodtoken_%s.log' % RECORD)
    assert '登录失败，请检查 Token' in log.read_text(encoding='utf-8')


def test_a_gbk_answer_is_read_without_the_cjk_codecs(box, fake, state):
    """Were it GBK after all (the documents say UTF-8): its codes are read, its Chinese shown as '…'."""
    body = json.dumps({'status': {'code': '6', 'message': '域名ID错误 誠'}}, ensure_ascii=False).encode('gbk')
    fake.fail('reply', route='list_records', text=body)
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['code']) == ('find zone', 'not found', '6')
    assert 'find zone: error 6: …ID… …' in done.stdout and '\ufffd' not in done.stdout


@pytest.mark.parametrize('reply', [
    {'text': '{"status": {"code": "1"}, "records": {"id": "1"}}'},
    {'text': '{"records": []}'},
    {'text': '[1, 2]'},
    {'text': '<?xml version="1.0"?><dnspod><status><code>1</code></status></dnspod>'},
    {'text': ''},
    {'status': 502, 'text': 'Bad Gateway'},
], ids=['records not a list', 'no status', 'not an object', 'xml', 'empty', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, reply):
    HARNESS.unusable_listing(box, state, reply)


def test_a_post_is_all_the_api_takes(box, fake, state):
    """The fake answers a GET with code 2, as the API does: the provider never sends one."""
    from urllib.request import urlopen
    with urlopen(fake.url + '/Record.List') as got:
        assert b'<code>2</code>' in got.read()


# --- what is this API's own -----------------------------------------------------------------------

def test_an_empty_listing_is_code_10_and_the_record_is_made_on_the_default_line(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    sent = fake.params(fake.calls('create_record')[0])
    assert (sent['domain'], sent['sub_domain'], sent['record_type'], sent['record_line'], sent['value']) == (
        ZONE, 'home', 'A', '默认', NEW)
    assert 'ttl' not in sent and 'record_line_id' not in sent   # the plan's TTL; line ids are not sent
    made = fake.find(RECORD)
    assert [(r['content'], r['ttl'], r['line']) for r in made] == [(NEW, 600, '默认')]
    assert ids_file(state).read_text() == '%s\n%s\n' % (ZONE, made[0]['id'])


def test_the_apex_is_host_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert fake.params(fake.calls('create_record')[0])['sub_domain'] == '@'
    fake.reset_log()
    ok(run(box, state, '--force', DDNS_RECORD_NAME=ZONE, ip=OTHER))
    assert fake.calls() == ['list_records', 'update_record'] and [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_an_update_sends_back_the_ttl_and_line(box, fake, state):
    """Record.Modify may reset a TTL it is not sent (the fake does): the record's own is sent."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=3600)
    ok(run(box, state))
    held = fake.records[rid]
    assert (held['content'], held['ttl'], held['line']) == (NEW, 3600, '默认')
    sent = fake.params(fake.calls('update_record')[0])
    assert (sent['record_id'], sent['ttl'], sent['record_line'], sent['record_type'], sent['sub_domain']) == (
        rid, '3600', '默认', 'A', 'home')


def test_only_the_default_lines_record_is_found_and_changed(box, fake, state):
    telecom = fake.add_record(ZONE, RECORD, 'A', OLD, line='电信')
    abroad = fake.add_record(ZONE, RECORD, 'A', OLD, line='境外')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    assert 'record_line' not in fake.params(fake.calls('list_records')[0])
    assert fake.records[telecom]['content'] == fake.records[abroad]['content'] == OLD
    assert fake.by_line(RECORD) == {'电信': [OLD], '境外': [OLD], '默认': [NEW]}


def test_stored_ids_are_checked_in_the_names_listing(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ids_file(state).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.dnspodtoken-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record'] and fake.records[rid]['content'] == NEW


def test_stored_ids_of_another_record_are_not_taken(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    other = fake.add_record(ZONE, 'nas.' + ZONE, 'A', OLD)
    for zone, record in (('other.example', rid), (ZONE, other)):
        HARNESS.stored(state, zone, record, OLD)
        ok(run(box, state, ip=NEW if zone == ZONE else OTHER))
        assert ids_file(state).read_text() == '%s\n%s\n' % (ZONE, rid)
    assert fake.records[other]['content'] == OLD and fake.records[rid]['content'] == NEW


def test_an_update_of_a_record_deleted_meanwhile_is_made_again(box, fake, state):
    """Record.Modify answers 8 (the record went between the listing and the update): the ids are
    looked up again once and the record created."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)

    def gone_first(reply):
        fake.records.pop(rid, None)
        return reply
    fake.fail('rewrite', route='list_records', answer=gone_first)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_records', 'update_record', 'list_records', 'list_records', 'create_record']
    assert [r['content'] for r in fake.find(RECORD)] == [NEW] and 'Stored ids are stale' in done.stdout


def test_a_create_that_meets_the_record_made_meanwhile_updates_it(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', NEW)
    fake.fail('reply', route='list_records', **answer('10', 'Empty result'))
    ok(run(box, state))
    # code 104 (the fake's reading of an identical record): the name listed again holds it; the loop
    # finds it afresh and updates it
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'list_records', 'update_record']
    assert list(fake.records) == [rid] and status(box, state)['outcome'] == 'updated'


def test_both_families_in_one_run_list_the_name_once(box, fake, state, dual):
    ids = [fake.add_record(ZONE, RECORD, t, ip) for t, ip in (('A', OLD), ('AAAA', '240e:1::1'))]
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_records', 'update_record', 'update_record']
    assert {'sub_domain', 'record_type'} & set(fake.params(fake.calls('list_records')[0])) == set()
    assert [fake.records[r]['content'] for r in ids] == [dual.v4, dual.v6]


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    done, got = HARNESS.failure(box, state, **more)
    assert (got['step'], got['kind'], got['code'], got['fix']) == ('find zone', 'not found', '6', dnspodtoken.ZONE_FIX)
    assert 'no domain example.org in this account' in done.stdout and fake.calls() == ['list_records']


@pytest.mark.parametrize('code', ['26', '32', '34'])
def test_a_refused_create_says_its_code_and_fix(box, fake, state, code):
    fake.fail('reply', route='create_record', **answer(code, 'refused'))
    done, got = HARNESS.failure(box, state)
    assert (got['step'], got['kind'], got['code'], got['fix']) == ('create record', 'refused', code,
                                                                    dnspodtoken.FIXES[code])


def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = HARNESS.check(box, state)
    assert 'credentials accepted (token %s)' % fake.token_id in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id ' % RECORD in done.stdout
    assert fake.calls() == ['list_records', 'list_records'] and kept_nothing(state)


def test_check_tells_a_foreign_domain_from_a_refused_token(box, fake, state):
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert 'ok    credentials accepted' in done.stdout and 'FAIL  zone found: find zone: no domain example.org' \
        in done.stdout, done.stdout
    fake.tokens[fake.token_id] = 'another'
    done = run(box, state, '--check')
    assert 'FAIL  credentials accepted: find zone: the provider refused the request (HTTP 200, code -1)' \
        in done.stdout, done.stdout
    assert kept_nothing(state)   # --check keeps no hold


def test_a_hostile_record_id_or_ttl_is_not_taken(box, fake, state):
    fake.fail('reply', route='list_records', **answer('1', records=[
        {'id': '../1', 'name': 'home', 'type': 'A', 'value': OLD, 'line': '默认'}]))
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    fake.records.clear()
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', **answer('1', records=[
        {'id': rid, 'name': 'home', 'type': 'A', 'value': OLD, 'line': '默认', 'ttl': '9' * 30}]))
    ok(run(box, state / 'x', ip=OTHER))
    assert 'ttl' not in fake.params(fake.calls('update_record')[-1]) and fake.records[rid]['content'] == OTHER


# --- the account's domains (zone_name left out) ---------------------------------------------------

def test_account_zones_are_every_domain_of_every_page(box, fake, state):
    for n in range(dnspodtoken.PAGE + 30):
        fake.add_zone('d%03d.example.net' % n)
    zones = dnspodtoken.account_zones(job(box, state))
    assert sorted(z.name for z in zones) == sorted([ZONE] + ['d%03d.example.net' % n
                                                             for n in range(dnspodtoken.PAGE + 30)])
    assert fake.calls() == ['list_zones', 'list_zones']
    assert [fake.params(r)['offset'] for r in fake.requests] == ['0', str(dnspodtoken.PAGE)]


def test_a_record_without_zone_name_finds_its_domain(box, fake, state):
    fake.add_zone('example.net')
    env = {k: v for k, v in env_of(box, state).items() if k != 'DDNS_ZONE_NAME'}
    ok(run_tool('ddkit', env=env))
    assert fake.calls() == ['list_zones', 'list_records', 'create_record']


# --- the international API -----------------------------------------------------------------------

@pytest.fixture
def abroad(fake, monkeypatch):
    """The fake as the international API, and the provider taking its base URL for it."""
    fake.international = True
    monkeypatch.setattr(dnspodtoken, 'INTERNATIONAL', ('127.0.0.1',))
    return fake


def test_the_international_api_takes_the_default_line_as_default(box, abroad, state):
    made = job(box, state)
    assert dnspodtoken.find_record(made, ZONE) is None
    rid = dnspodtoken.create_record(made, ZONE, OLD)
    assert abroad.params(abroad.calls('create_record')[0])['record_line'] == 'default'
    found = dnspodtoken.find_record(job(box, state), ZONE)   # listed as Default
    assert (found.id, found.content) == (rid, [OLD])
    assert dnspodtoken.update_record(job(box, state), ZONE, found, NEW) == rid
    assert abroad.by_line(RECORD) == {'Default': [NEW]}


def test_the_international_api_refuses_operator_lines_before_sending(box, abroad, state):
    from ddkit import Failure
    for line in ('ct', 'cm', 'cu'):
        with pytest.raises(Failure) as refused:
            dnspodtoken.find_record(job(box, state, line), ZONE)
        assert (refused.value.kind, refused.value.setting) == ('refused', 'lines')
        assert 'no operator lines' in str(refused.value)
    assert abroad.calls() == []
    assert dnspodtoken.find_record(job(box, state, 'default'), ZONE) is None   # its default line is kept


# --- operator lines: each line's record on its own line ------------------------------------------

LINES = [('default', '默认'), ('ct', '电信'), ('cm', '移动'), ('cu', '联通')]


@pytest.mark.parametrize('line, name', LINES, ids=[line for line, _ in LINES])
def test_a_lines_record_is_made_found_read_updated_and_deleted_on_its_line_alone(box, fake, state, line, name):
    from ddkit.provider import Record, Stale
    other_name = '电信' if name == '默认' else '默认'
    other = fake.add_record(ZONE, RECORD, 'A', OTHER, line=other_name)
    made = job(box, state, line)
    assert dnspodtoken.find_record(made, ZONE) is None
    rid = dnspodtoken.create_record(made, ZONE, OLD)
    assert fake.by_line(RECORD) == {name: [OLD], other_name: [OTHER]}
    found = dnspodtoken.find_record(made, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [OLD])
    fresh = job(box, state, line)
    with pytest.raises(Stale):
        dnspodtoken.read_record(fresh, ZONE, other)
    record = dnspodtoken.read_record(fresh, ZONE, rid)
    assert dnspodtoken.update_record(fresh, ZONE, record, NEW) == rid
    assert fake.by_line(RECORD) == {name: [NEW], other_name: [OTHER]}
    assert dnspodtoken.delete_record(fresh, ZONE, record) is None
    assert fake.by_line(RECORD) == {other_name: [OTHER]}
    assert dnspodtoken.delete_record(fresh, ZONE, Record(rid)) is None   # gone already (code 8): success
    sent = [fake.params(req) for req in fake.requests]
    assert [p['record_line'] for p in sent if 'value' in p] == [name, name]
    assert 'record_line' not in sent[0] and sent[-1]['record_id'] == rid


def test_every_line_of_a_name_shares_one_listing(box, fake, state):
    from ddkit.provider import Run
    ids = {name: fake.add_record(ZONE, RECORD, 'A', '81.2.69.%d' % n, line=name)
           for n, (_, name) in enumerate(LINES, 1)}
    fake.add_record(ZONE, RECORD, 'A', '81.2.69.99', line='教育网')   # a line no job is on
    shared = Run(several=True)
    jobs = [job(box, state, line, shared) for line, _ in LINES]
    assert [dnspodtoken.find_record(j, ZONE).id for j in jobs] == [ids[name] for _, name in LINES]
    assert fake.calls() == ['list_records'] and {'sub_domain', 'record_type'} & set(fake.params(fake.requests[0])) \
        == set()
