"""The westcn provider (West.cn 西部数码, API v2) against its fake over real HTTP. The outcome table of
every provider (test_provider_tables) covers the common rows; here: what is West.cn's own. Its token
(md5 of user name, API password and time, checked on every call; the password never sent), its GBK
answers read without the CJK codecs, the host '@', the TTL, priority and line sent back, the default
line, an empty listing answered as an error, the identical record that is updated, the stored ids
checked in the name's listing, its error codes and their fixes, --check, the account's domains
(account_zones), and a record's operator lines: each line's record on its resolution line, found,
read, updated and deleted there alone."""

import hashlib
import json
import os
import sys
import time

import pytest

from conftest import RECORD, ROOT, ZONE, run_tool
from provider_harness import Harness, failed, ok
from fakes.base import Reply
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import rest  # noqa: E402
from ddkit.providers import westcn  # noqa: E402

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'


WESTCN = Harness('westcn', NEW)
fake, state = WESTCN.fixtures()
env_of, run, status = WESTCN.env_of, WESTCN.run, WESTCN.status


def ids_file(state, name=RECORD):
    return state / ('.westcn-id_%s.txt' % name)


def gbk(body):
    """An answer of the API: JSON in GBK."""
    return Reply(200, text=json.dumps(body, ensure_ascii=False).encode('gbk'),
                 headers={'Content-Type': 'application/json; charset=gbk'})


# --- the token and the form -------------------------------------------------------------------

def test_the_token_is_md5_of_user_password_and_milliseconds():
    assert westcn.token('ddkituser', 'pass word/密', 1767225599123) == hashlib.md5(
        'ddkituserpass word/密1767225599123'.encode('utf-8')).hexdigest()
    assert len(westcn.token('u', 'p', 1)) == 32 and westcn.token('u', 'p', 1) == westcn.token('u', 'p', 1).lower()


def test_every_call_carries_a_fresh_token_in_a_form_and_never_the_password(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    assert len(fake.tokens) == 2 and all(sent == made for _, sent, made in fake.tokens)
    for req in fake.requests:
        assert req.method == 'POST' and req.headers['content-type'] == 'application/x-www-form-urlencoded'
        assert req.raw_query == 'act=' + {'list_records': 'getdnsrecord', 'update_record': 'moddnsrecord'}[req.route]
        sent = fake.params(req)
        assert sent['username'] == fake.username and abs(int(sent['time']) / 1000 - time.time()) < 60
        assert fake.api_password not in req.path + req.raw_query + req.body.decode() + str(req.headers)


@pytest.mark.parametrize('change, code, words', [
    (lambda fake: fake.users.update({fake.username: 'another'}), '10001', 'api_password (the API password'),
    (lambda fake: fake.users.update({'other': fake.users.pop(fake.username)}), '10000', 'check username'),
    (lambda fake: setattr(fake, 'clock_offset', 3600), '10001', 'clock must be right'),
    (lambda fake: setattr(fake, 'whitelist', {'192.0.2.1'}), '10002', 'API whitelist'),
], ids=['wrong password', 'unknown user', 'clock off', 'not whitelisted'])
def test_a_refusal_says_its_code_and_fix_and_never_the_password(box, fake, state, change, code, words):
    change(fake)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['code'], shown['http_status']) == ('find zone', 'refused', code, 200)
    assert words in shown['fix'] and words in done.stdout
    # the API's message, its Chinese not decoded: each run of it one '…'
    assert 'error %s: ' % code in done.stdout and '\ufffd' not in done.stdout
    log = (state / ('ddkit_westcn_%s.log' % RECORD)).read_text()
    assert fake.api_password not in done.stdout + done.stderr + log + json.dumps(shown)
    assert fake.calls() == ['list_records']


# --- its answers: GBK ---------------------------------------------------------------------------

def test_an_answer_is_read_as_gbk_and_its_chinese_is_not_needed():
    """A GBK character's second byte may be a backslash (誠 is D5 5C): read byte by byte it would
    escape the closing quote; read as UTF-8 the answer is no text at all."""
    body = json.dumps({'result': 500, 'msg': 'IP未授权访问API 誠', 'errcode': 10002}, ensure_ascii=False).encode('gbk')
    assert b'\xd5\\"' in body
    with pytest.raises(UnicodeDecodeError):
        body.decode('utf-8')
    data = json.loads(rest.gbk_text(body))
    assert data['errcode'] == 10002 and data['result'] == 500
    assert rest.undecoded(data['msg']) == 'IP…API …'
    assert rest.gbk_text(b'{"a": "ok"}') == '{"a": "ok"}' and rest.gbk_text(b'\x81') == '\ufffd'


def test_a_gbk_error_answer_gives_its_code_and_fix(box, fake, state):
    fake.fail('reply', route='list_records', text=json.dumps(
        {'result': 500, 'clientid': 'x', 'msg': '域名不存在 誠', 'errcode': 20001}, ensure_ascii=False).encode('gbk'))
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['code']) == ('find zone', 'not found', '20001')
    assert shown['fix'] == westcn.ZONE_FIX and 'find zone: error 20001: … …' in done.stdout
    assert 'find zone: no domain %s in this account (error 20001)' % ZONE in done.stdout


# --- what is West.cn's own ----------------------------------------------------------------------

def test_the_apex_is_host_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    sent = fake.params(fake.calls('create_record')[0])
    assert (sent['host'], sent['domain'], sent['line'], sent['type']) == ('@', ZONE, '', 'A')
    assert [r['content'] for r in fake.find(ZONE)] == [NEW]
    fake.reset_log()
    ok(run(box, state, '--force', DDNS_RECORD_NAME=ZONE, ip=OTHER))   # found by its host '@' and updated
    assert fake.calls() == ['list_records', 'update_record'] and [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_a_new_record_gets_ttl_600_on_the_default_line(box, fake, state):
    ok(run(box, state))
    made = fake.find(RECORD)
    assert [(r['content'], r['ttl'], r['line']) for r in made] == [(NEW, 600, '')]
    assert ids_file(state).read_text() == '%s\n%s\n' % (ZONE, made[0]['id'])


def test_an_update_sends_back_ttl_priority_and_line(box, fake, state):
    """moddnsrecord may reset what it is not sent (the fake resets it): the record's own are sent."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=120, level=5)
    ok(run(box, state))
    held = fake.records[rid]
    assert (held['content'], held['ttl'], held['level'], held['line']) == (NEW, 120, 5, '')
    sent = fake.params(fake.calls('update_record')[0])
    assert (sent['id'], sent['ttl'], sent['level'], sent['line'], sent['value']) == (rid, '120', '5', '', NEW)


def test_only_the_default_lines_record_is_found_and_changed(box, fake, state):
    telecom = fake.add_record(ZONE, RECORD, 'A', OLD, line='LTEL')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    assert 'line' not in fake.params(fake.calls('list_records')[0])   # '' would be no filter at all
    assert fake.records[telecom]['content'] == OLD
    assert fake.by_line(RECORD) == {'LTEL': [OLD], 'default': [NEW]}


@pytest.mark.parametrize('errcode', [30001, 30201])
def test_an_empty_listing_answered_as_an_error_is_no_record(box, fake, state, errcode):
    fake.empty_as_error = errcode
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record'] and [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_a_create_that_meets_an_identical_record_updates_it(box, fake, state):
    """A listing that showed no record (made meanwhile elsewhere): adddnsrecord answers 20118, the
    record is looked up afresh and updated (it holds NEW already)."""
    rid = fake.add_record(ZONE, RECORD, 'A', NEW)
    fake.fail('rewrite', route='list_records', answer=lambda reply: gbk(
        {'result': 200, 'clientid': 'x', 'msg': '', 'errcode': 0,
         'data': {'pageno': 1, 'limit': 100, 'total': 0, 'totalpages': 1, 'items': []}}))
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'update_record']
    assert list(fake.records) == [rid] and status(box, state)['outcome'] == 'updated'


def test_stored_ids_are_checked_in_the_names_listing(box, fake, state):
    """No call reads a record by id: the listing of its name is read, the id looked for there."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ids_file(state).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.westcn-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record'] and fake.records[rid]['content'] == NEW


def test_stored_ids_of_a_deleted_record_are_looked_up_again(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ids_file(state).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.westcn-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    del fake.records[rid]
    done = run(box, state)
    ok(done)
    # the listing that did not hold the id is the one that finds the name has no record
    assert fake.calls() == ['list_records', 'create_record'] and 'Stored ids are stale' in done.stdout
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_stored_ids_of_another_zone_or_record_are_not_taken(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    other = fake.add_record(ZONE, 'nas.' + ZONE, 'A', OLD)
    for zone, record in (('other.example', rid), (ZONE, other)):
        WESTCN.stored(state, zone, record, OLD)
        ok(run(box, state, ip=NEW if zone == ZONE else OTHER))
        assert ids_file(state).read_text() == '%s\n%s\n' % (ZONE, rid)
    assert fake.records[other]['content'] == OLD and fake.records[rid]['content'] == NEW


def test_an_update_of_a_record_deleted_meanwhile_is_made_again(box, fake, state):
    """moddnsrecord answers 20120 (the record went between the listing and the update): the ids are
    looked up again once and the record created."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)

    def gone_first(reply):
        fake.records.pop(rid, None)
        return fake.error(20120)
    fake.fail('rewrite', route='update_record', answer=gone_first)
    done = run(box, state)
    ok(done)
    # looked up afresh: the zone's check and the record's each list the name
    assert fake.calls() == ['list_records', 'update_record', 'list_records', 'list_records', 'create_record']
    assert [r['content'] for r in fake.find(RECORD)] == [NEW] and 'Stored ids are stale' in done.stdout


def test_both_families_in_one_run_list_the_zone_once(box, fake, state, dual):
    ids = [fake.add_record(ZONE, RECORD, t, ip) for t, ip in (('A', OLD), ('AAAA', '240e:1::1'))]
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_records', 'update_record', 'update_record']
    assert {'host', 'type'} & set(fake.params(fake.calls('list_records')[0])) == set()
    assert [fake.records[r]['content'] for r in ids] == [dual.v4, dual.v6]


def test_a_large_zone_is_looked_up_name_by_name(box, fake, state, dual):
    """More than PAGES pages of the zone: the run of several records lists each name instead."""
    for n in range(5 * westcn.LIMIT + 1):
        fake.add_record(ZONE, 'h%d.%s' % (n, ZONE), 'A', OLD)
    fake.add_record(ZONE, RECORD, 'A', OLD)
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_records', 'list_records', 'update_record', 'create_record']
    assert fake.params(fake.calls('list_records')[1])['host'] == 'home'


# --- refusals and hostile answers ---------------------------------------------------------------

def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    done = run(box, state, **more)
    failed(done)
    shown = status(box, state, **more)
    assert (shown['step'], shown['kind'], shown['code']) == ('find zone', 'not found', '20001')
    assert 'no domain example.org in this account' in done.stdout and fake.calls() == ['list_records']


def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'credentials accepted (user %s)' % fake.username in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id ' % RECORD in done.stdout
    # the credentials and the zone share one listing; the record's check lists afresh
    assert fake.calls() == ['list_records', 'list_records'] and os.listdir(str(state)) == []


def test_check_tells_a_foreign_domain_from_refused_credentials(box, fake, state):
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert 'ok    credentials accepted' in done.stdout and 'FAIL  zone found: find zone: no domain example.org' \
        in done.stdout, done.stdout
    fake.users[fake.username] = 'another'
    done = run(box, state, '--check')
    assert 'FAIL  credentials accepted: find zone: the provider refused the request (result 500, error 10001)' \
        in done.stdout, done.stdout
    assert fake.api_password not in done.stdout + done.stderr


@pytest.mark.parametrize('answer', [
    {'text': '{"result": 200, "data": {"items": {"id": 1}}}'},
    {'text': '{"result": 200, "data": "none"}'},
    {'text': '[1, 2]'},
    {'text': '{"data": {"items": []}}'},
    {'text': '<html>busy</html>'},
    {'text': ''},
    {'status': 502, 'text': 'Bad Gateway'},
], ids=['items not a list', 'data not an object', 'not an object', 'no result', 'html', 'empty', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='list_records', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('create_record') == [] and fake.calls('update_record') == []


def test_a_hostile_record_id_or_ttl_is_not_taken(box, fake, state):
    """An id that would steer a request or the ids file is no id: that record is not found (so one is
    created); a TTL out of range is not sent back."""
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', text=json.dumps({'result': 200, 'data': {'total': 1, 'items': [
        {'id': '../../x', 'item': 'home', 'type': 'A', 'value': OLD, 'line': ''}]}}))
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    fake.records.clear()
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', text=json.dumps({'result': 200, 'data': {'total': 1, 'items': [
        {'id': int(rid), 'item': 'home', 'type': 'A', 'value': OLD, 'line': '', 'ttl': 10 ** 30, 'level': 'x'}]}}))
    ok(run(box, state / 'x', ip=OTHER))
    sent = fake.params(fake.calls('update_record')[-1])
    assert 'ttl' not in sent and 'level' not in sent and fake.records[rid]['content'] == OTHER


def test_the_base_url_as_the_documents_write_it_is_taken(box, fake, state):
    ok(run(box, state, DDNS_BASE_URL=fake.url + '/api/v2'))
    assert fake.calls() == ['list_records', 'create_record']
    base_url = [s for s in westcn.SETTINGS if s.name == 'base_url'][0]
    assert base_url.check('https://api.west.cn/API/v2/') == 'https://api.west.cn'


# --- the account's domains (zone_name left out) -------------------------------------------------

def job(box, state, line=None, run=None, **more):
    """A Job of the sandbox's record (on this line), run in-process against the fake."""
    from ddkit import settings, updater
    from ddkit.log import Log
    from ddkit.provider import Job, Run
    table = westcn.SETTINGS + updater.COMMON
    cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES,
                        environ=env_of(box, state, **more))
    made = Job(westcn, cfg, run or Run(), Log(None, quiet=True))
    made.line = line
    return made


def test_account_zones_are_every_domain_of_every_page(box, fake, state):
    for n in range(westcn.LIMIT + 30):
        fake.add_zone('d%03d.Example.NET' % n)
    zones = westcn.account_zones(job(box, state))
    assert sorted(z.name for z in zones) == sorted([ZONE] + ['d%03d.example.net' % n for n in range(westcn.LIMIT + 30)])
    assert all(z.id == z.name for z in zones)
    assert fake.calls() == ['list_zones', 'list_zones']
    assert [fake.params(r)['page'] for r in fake.requests] == ['1', '2']


def test_account_zones_of_an_account_too_large_say_set_zone_name(box, fake, state, monkeypatch):
    from ddkit import Failure
    monkeypatch.setattr(westcn, 'ZONE_PAGES', 2)
    for n in range(2 * westcn.LIMIT):
        fake.add_zone('d%03d.example.net' % n)
    with pytest.raises(Failure) as refused:
        westcn.account_zones(job(box, state))
    assert (refused.value.step, refused.value.fix) == ('find zone', 'set zone_name')
    assert len(fake.calls('list_zones')) == 2


def test_account_zones_refused_credentials_are_a_failure(box, fake, state):
    from ddkit import Failure
    fake.users[fake.username] = 'another'
    with pytest.raises(Failure) as refused:
        westcn.account_zones(job(box, state))
    assert (refused.value.code, refused.value.fix) == ('10001', westcn.CREDENTIALS)


# --- operator lines: each line's record on its own resolution line -----------------------------

LINES = [('default', ''), ('ct', 'LTEL'), ('cm', 'LMOB'), ('cu', 'LCNC')]


@pytest.mark.parametrize('line, code', LINES, ids=[line for line, _ in LINES])
def test_a_lines_record_is_made_found_read_updated_and_deleted_on_its_line_alone(box, fake, state, line, code):
    """Beside the record of the name on another line: that one is never taken, read as this line's,
    changed or deleted."""
    from ddkit.provider import Record, Stale
    other_code = 'LTEL' if code == '' else ''
    name = {'': 'default'}.get(code, code)
    other_name = {'': 'default'}.get(other_code, other_code)
    other = fake.add_record(ZONE, RECORD, 'A', OTHER, line=other_code)
    made = job(box, state, line)
    assert westcn.find_record(made, ZONE) is None
    rid = westcn.create_record(made, ZONE, OLD)
    assert fake.by_line(RECORD) == {name: [OLD], other_name: [OTHER]}
    found = westcn.find_record(made, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [OLD])
    fresh = job(box, state, line)
    with pytest.raises(Stale):
        westcn.read_record(fresh, ZONE, other)
    record = westcn.read_record(fresh, ZONE, rid)
    assert westcn.update_record(fresh, ZONE, record, NEW) == rid
    assert fake.by_line(RECORD) == {name: [NEW], other_name: [OTHER]}
    assert westcn.delete_record(fresh, ZONE, record) is None
    assert fake.by_line(RECORD) == {other_name: [OTHER]}
    assert westcn.delete_record(fresh, ZONE, Record(rid)) is None   # gone already: success
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'list_records', 'update_record',
                            'delete_record', 'delete_record']
    sent = [fake.params(req) for req in fake.requests]
    assert [p['line'] for p in sent if 'value' in p] == [code, code]
    assert 'line' not in sent[0] and sent[-1]['id'] == rid


def test_every_line_of_a_name_shares_one_listing(box, fake, state):
    """A run of several records (or lines) lists the zone once: each line's job takes its own record."""
    from ddkit.provider import Run
    ids = {code: fake.add_record(ZONE, RECORD, 'A', '81.2.69.%d' % n, line=code)
           for n, (_, code) in enumerate(LINES, 1)}
    fake.add_record(ZONE, RECORD, 'A', '81.2.69.99', line='LFOR')   # a line no job is on
    shared = Run(several=True)
    jobs = [job(box, state, line, shared) for line, _ in LINES]
    assert [westcn.find_record(j, ZONE).id for j in jobs] == [ids[code] for _, code in LINES]
    assert fake.calls() == ['list_records'] and {'host', 'type', 'line'} & set(fake.params(fake.requests[0])) == set()


def test_a_delete_whose_answer_was_lost_is_success(box, fake, state):
    """The delete takes effect and its answer is lost; sent again, it is answered 20120: gone, as asked."""
    from ddkit.provider import Record
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, line='LMOB')
    fake.fail('lost', route='delete_record')
    assert westcn.delete_record(job(box, state, 'cm'), ZONE, Record(rid)) is None
    assert fake.by_line(RECORD) == {} and len(fake.calls('delete_record')) == 2


def test_a_refused_delete_is_a_failure_with_its_fields(box, fake, state):
    from ddkit import Failure
    from ddkit.provider import Record
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, line='LCNC')
    fake.whitelist = {'192.0.2.1'}
    with pytest.raises(Failure) as refused:
        westcn.delete_record(job(box, state, 'cu'), ZONE, Record(rid))
    e = refused.value
    assert (e.step, e.code, e.status, e.kind) == ('delete record', '10002', 200, 'refused')
    assert e.fix == westcn.FIXES[10002] and e.provider_message and e.url == fake.url + '/api/v2/domain/'
    assert fake.by_line(RECORD) == {'LCNC': [OLD]}


def test_an_unknown_line_is_refused_by_the_fake(box, fake, state):
    """The fake holds the documented lines only: a client sending another is refused."""
    from ddkit import Failure
    made = job(box, state, 'ct')
    with pytest.raises(Failure):
        westcn.call(made, 'adddnsrecord', {'domain': ZONE, 'host': 'home', 'type': 'A', 'value': OLD, 'ttl': '600',
                                           'level': '10', 'line': 'telecom'}, 'create record')
    assert fake.records == {}


def test_a_user_name_or_password_not_in_printable_ascii_is_refused_before_anything_is_sent(box, fake, state):
    """The token hashes them and the form sends the name: ASCII makes both the same in every encoding."""
    for setting, value in (('DDNS_API_PASSWORD', '密码pass'), ('DDNS_USERNAME', 'user name')):
        done = run_tool('ddkit', [], env=dict(env_of(box, state), **{setting: value}))
        assert done.returncode == 2 and 'printable ASCII' in done.stderr, done.stdout + done.stderr
    assert fake.calls() == []
