"""The baiducloud provider against its fake over real HTTP, the official SDK as the oracle: the tool's
Authorization is the one bce-python-sdk's bce_v1_signer makes (the fake refuses any other, as the
gateway does), its writes' fields those of the official Go SDK's request models.
The outcome table of every provider (test_provider_tables) covers the common rows; here: what is
Baidu AI Cloud DNS's own (rr '@', the zone in the path, a create that answers no id, the ttl and
description sent back, clientTokens, what it does where the API's codes are not documented, its
error codes and their fixes, every zone of the account), and a record's operator lines: each line's
record on its resolution line (ct, cmnet, cnc), found, read, updated and deleted there alone."""

import json
import os
import time

import pytest

from conftest import RECORD, ZONE, run_tool
from provider_harness import Harness, failed, ok
from needs import missing
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
SDK = 'bce-python-sdk (pip install -r tests/requirements.txt)'


def sdk():
    """The SDK's signer and its DNS client, or the test is skipped (failed under CI)."""
    try:
        from baidubce.auth import bce_v1_signer
        from baidubce.services.dns import dns_client
        return bce_v1_signer, dns_client
    except ImportError:
        missing(SDK)


BAIDUCLOUD = Harness('baiducloud', NEW)
fake, state = BAIDUCLOUD.fixtures()
env_of, run, status, module = BAIDUCLOUD.env_of, BAIDUCLOUD.run, BAIDUCLOUD.status, BAIDUCLOUD.module


def sent(req):
    return json.loads(req.body) if req.body else {}


def ids_file(state):
    return state / ('.baiducloud-id_%s.txt' % RECORD)


# --- the SDK as the oracle ---------------------------------------------------------------------

@pytest.mark.parametrize('method, path, query, host', [
    ('GET', '/v1/dns/zone', {'name': ZONE, 'maxKeys': '500'}, 'dns.baidubce.com'),
    ('GET', '/v1/dns/zone/example.com/record', {'rr': '@', 'marker': 'a b/~*', 'id': ''}, '127.0.0.1:8080'),
    ('PUT', '/v1/dns/zone/xn--fiqs8s.example/record/2300001', {'clientToken': 'ab01'}, '[::1]:8443'),
])
def test_the_signature_is_the_sdks(method, path, query, host):
    signer, _ = sdk()
    from baidubce.auth.bce_credentials import BceCredentials
    baiducloud = module()
    stamp = 1767323045   # 2026-01-02T03:04:05Z
    for secret in ('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'with space/+=&'):
        made = baiducloud.sign('AKID', secret, method, host, path, baiducloud.canonical_query(query), stamp)
        assert made['x-bce-date'] == '2026-01-02T03:04:05Z'
        theirs = signer.sign(BceCredentials('AKID', secret), method.encode(), path.encode(),
                             {b'host': host.encode(), b'x-bce-date': made['x-bce-date'].encode()}, query, stamp, 1800,
                             [b'host', b'x-bce-date'])
        assert made['Authorization'].encode() == theirs


def test_the_fakes_own_copy_of_the_signer_is_the_sdks():
    sdk()
    from fakes.baiducloud import own_authorization, sdk_authorization
    from fakes.baiducloud import sdk as oracle
    headers = {'host': '127.0.0.1:1234', 'x-bce-date': '2026-01-02T03:04:05Z', 'content-type': 'application/json',
               'content-length': '12', 'x-bce-request-id': 'r1', 'user-agent': 'x'}
    for signed in (['host', 'x-bce-date'], []):
        args = ('POST', '/v1/dns/zone/example.com/record', headers, {'clientToken': 't', 'a b': '~*'}, 'AKID', 'secret',
                1767323045, 1800, signed)
        assert own_authorization(*args) == sdk_authorization(oracle(), *args)


def test_the_fake_checks_every_request_with_the_sdks_signer(box, fake, state):
    sdk()
    assert fake.oracle is not None
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    assert len(fake.signed) == 2 and all(made == given for _, given, made in fake.signed)


def test_every_request_is_the_sdks(box, fake, state):
    """A create, an update by stored ids and a verification: each request's method, path and query
    names are those of bce-python-sdk's DNS API table, each write's body fields those of the Go SDK's
    request model (no line in an update), with a clientToken; nothing the fake does not know."""
    _, client = sdk()
    from baidubce.services.dns.api.dns_api import dns_apis
    ok(run(box, state))                                     # list, create
    ok(run(box, state, ip=OTHER))                           # list by name (the create gave no id), update
    ok(run(box, state, ip=OTHER, DDNS_VERIFY_INTERVAL='0'))  # list by id
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'update_record', 'get_record']
    apis = {'list_zones': 'list_zone', 'list_records': 'list_record', 'get_record': 'list_record',
            'create_record': 'create_record',
            'update_record': 'update_record', 'delete_record': 'delete_record'}
    for req in fake.requests:
        api = dns_apis[apis[req.route]]
        assert req.method == api['method'].decode() if isinstance(api['method'], bytes) else api['method']
        assert req.path.startswith(api['path'].split('[')[0])
        known = {'clientToken' if k == 'client_token' else 'maxKeys' if k == 'max_keys' else k for k in api['queries']}
        assert set(req.query) <= known, (req.route, req.query)
        assert req.headers['content-type'] == 'application/json; charset=utf-8'
    writes = [r for r in fake.requests if r.method != 'GET']
    assert all(len(r.query['clientToken']) == 32 for r in writes)
    assert set(sent(writes[0])) == {'rr', 'type', 'value', 'line'} and 'line' not in sent(writes[1])
    assert fake.unknown_fields == []


def sdk_client(fake, secret=None):
    """The official SDK's DNS client, pointed at the fake."""
    _, client = sdk()
    from baidubce import protocol
    from baidubce.auth.bce_credentials import BceCredentials
    from baidubce.bce_client_configuration import BceClientConfiguration
    from baidubce.retry.retry_policy import NoRetryPolicy
    return client.DnsClient(BceClientConfiguration(
        credentials=BceCredentials(fake.key_id, secret or fake.secret), endpoint=fake.url.split('://')[1],
        protocol=protocol.HTTP, retry_policy=NoRetryPolicy()))


def test_the_sdk_itself_is_served_by_the_fake(box, fake):
    """The fake in the SDK's eyes: the SDK's client lists and creates records through it, and a wrong
    secret is refused in the shape the SDK reads."""
    sdk()
    from baidubce.exception import BceHttpClientError
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=600, description='mine')
    client = sdk_client(fake)
    listed = client.list_record(ZONE, rr='home')
    assert [(r.id, r.rr, r.value, r.ttl, r.line, r.description) for r in listed.records] == [
        (rid, 'home', OLD, 600, 'default', 'mine')]
    client.create_record(ZONE, {'rr': 'nas', 'type': 'A', 'value': NEW, 'line': 'cnc'}, client_token='tok-1')
    client.create_record(ZONE, {'rr': 'nas', 'type': 'A', 'value': NEW, 'line': 'cnc'}, client_token='tok-1')
    assert fake.by_line('nas.' + ZONE) == {'cnc': [NEW]}   # the same token: no second record
    with pytest.raises(BceHttpClientError) as refused:
        sdk_client(fake, 'not-the-secret').list_zone(name=ZONE)
    error = refused.value.last_error   # the SDK's BceServerError, as it read the answer
    assert (error.code, error.status_code) == ('SignatureDoesNotMatch', 400)


def test_the_fakes_update_sets_what_is_not_sent_to_the_defaults(box, fake):
    """What makes a ttl or description not sent back a visible bug."""
    sdk()
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=600, description='mine', line='ct')
    sdk_client(fake).update_record(ZONE, rid, {'rr': 'home', 'type': 'A', 'value': NEW}, client_token='t2')
    held = fake.records[rid]
    assert (held['content'], held['ttl'], held['description'], held['line']) == (NEW, 300, '', 'ct')


# --- what is Baidu AI Cloud DNS's own ----------------------------------------------------------

def test_the_apex_is_rr_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert sent(fake.calls('create_record')[0]) == {'rr': '@', 'type': 'A', 'value': NEW, 'line': 'default'}
    assert [r['content'] for r in fake.find(ZONE)] == [NEW]
    fake.reset_log()
    ok(run(box, state, '--force', DDNS_RECORD_NAME=ZONE, ip=OTHER))   # read by its name (no id yet), updated
    assert fake.calls() == ['list_records', 'update_record'] and [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_a_create_that_answers_no_id_learns_it_at_the_next_read(box, fake, state):
    ok(run(box, state))
    assert ids_file(state).read_text() == '%s\ncreated\n' % ZONE
    fake.reset_log()
    ok(run(box, state, DDNS_VERIFY_INTERVAL='0'))   # read by its name, and its id kept
    rid = [r['id'] for r in fake.find(RECORD)]
    assert fake.calls() == ['list_records'] and fake.requests[0].query['rr'] == 'home'
    assert len(rid) == 1 and ids_file(state).read_text() == '%s\n%s\n' % (ZONE, rid[0])
    fake.reset_log()
    ok(run(box, state, DDNS_VERIFY_INTERVAL='0'))
    assert fake.calls() == ['get_record']


def test_an_update_keeps_the_records_ttl_description_and_line(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=600, description='the NAS')
    ok(run(box, state))
    assert sent(fake.calls('update_record')[0]) == {'rr': 'home', 'type': 'A', 'value': NEW, 'ttl': 600,
                                                    'description': 'the NAS'}
    ok(run(box, state, ip=OTHER))   # by the stored ids: read (listed by id) first
    assert fake.calls()[-2:] == ['get_record', 'update_record'] and fake.calls('get_record')[-1].query['id'] == rid
    held = fake.records[rid]
    assert (held['content'], held['ttl'], held['description'], held['line']) == (OTHER, 600, 'the NAS', 'default')


def test_only_the_default_lines_record_and_this_name_are_taken(box, fake, state):
    """The listing has no type or line filter and matches rr loosely: the tool takes its own."""
    telecom = fake.add_record(ZONE, RECORD, 'A', OLD, line='ct')
    other = fake.add_record(ZONE, 'home2.' + ZONE, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    assert fake.records[telecom]['content'] == OLD and fake.records[other]['content'] == OLD
    assert fake.by_line(RECORD) == {'ct': [OLD], 'default': [NEW]}


def test_a_create_whose_answer_was_lost_makes_one_record(box, fake, state):
    """The create takes effect and its answer is lost; sent again with the same clientToken, it
    changes nothing and is answered as the first was."""
    fake.fail('lost', route='create_record')
    ok(run(box, state))
    creates = fake.calls('create_record')
    assert len(creates) == 2 and creates[0].query['clientToken'] == creates[1].query['clientToken']
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_a_create_that_meets_the_record_updates_it(box, fake, state):
    """A listing that showed no record (made meanwhile elsewhere): the create is refused (its code is
    not documented), a fresh listing shows the record: it exists, and is looked up again and updated."""
    rid = fake.add_record(ZONE, RECORD, 'A', NEW)

    def none_listed(reply):
        return type(reply)(200, dict(json.loads(reply.raw), records=[], isTruncated=False))
    fake.fail('rewrite', route='list_records', answer=none_listed)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'list_records',
                            'update_record']
    assert list(fake.records) == [rid] and status(box, state)['outcome'] == 'updated'


def test_a_refused_create_without_a_record_is_a_failure(box, fake, state):
    fake.fail('reply', route='create_record', status=400, body={'code': 'InappropriateJSON', 'message': 'no',
                                                               'requestId': 'x'})
    failed(run(box, state))
    shown = status(box, state)
    assert (shown['step'], shown['code'], shown['http_status'], shown['kind']) == (
        'create record', 'InappropriateJSON', 400, 'refused')
    assert fake.calls() == ['list_records', 'create_record', 'list_records']   # no record: the refusal stands


def test_stored_ids_of_a_deleted_record_are_looked_up_again(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ids_file(state).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.baiducloud-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    del fake.records[rid]
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_records', 'create_record']
    assert 'Stored ids are stale' in done.stdout and [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_an_update_of_a_record_deleted_meanwhile_creates_it(box, fake, state):
    """Read, then deleted before the update: the update is refused (its code is not documented), the
    record is not there by its id: the ids are stale, looked up again, the record created."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ids_file(state).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.baiducloud-ip_%s.txt' % RECORD)).write_text(OLD + '\n')

    def deleted(reply):
        fake.records.pop(rid, None)
        return reply
    fake.fail('rewrite', route='get_record', answer=deleted)
    done = run(box, state)
    ok(done)
    # looked up again afresh: the zone's check and the record's lookup each list the name
    assert fake.calls() == ['get_record', 'update_record', 'get_record', 'list_records', 'list_records',
                            'create_record']
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_stored_ids_of_another_zone_are_not_read(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ids_file(state).write_text('other.example\n%s\n' % rid)
    (state / ('.baiducloud-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    assert ids_file(state).read_text() == '%s\n%s\n' % (ZONE, rid)


def test_both_families_in_one_run_list_the_name_once(box, fake, state, dual):
    ids = [fake.add_record(ZONE, RECORD, t, ip) for t, ip in (('A', OLD), ('AAAA', '240e:1::1'))]
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_records', 'update_record', 'update_record']
    assert [fake.records[r]['content'] for r in ids] == [dual.v4, dual.v6]


# --- refusals: their codes, fixes, and no secret shown ----------------------------------------

@pytest.mark.parametrize('change, code, status_code, words', [
    (lambda fake: fake.keys[fake.key_id].update(secret='another'), 'SignatureDoesNotMatch', 400,
     'copy both from the same access key'),
    (lambda fake: fake.keys.update({'other': fake.keys.pop(fake.key_id)}), 'InvalidAccessKeyId', 403,
     'create a new key'),
    (lambda fake: setattr(fake, 'clock_offset', 3600), 'RequestExpired', 400, 'clock'),
    (lambda fake: fake.keys[fake.key_id].update(qualified=False), 'QualifyNotPass', 403, 'real-name'),
    (lambda fake: fake.keys[fake.key_id].update(routes={'list_zones', 'list_records'}), 'AccessDenied', 403,
     'DNS management'),
], ids=['bad secret', 'unknown key', 'clock off', 'not verified', 'policy'])
def test_a_refusal_says_its_code_and_fix_and_never_the_secret(box, fake, state, change, code, status_code, words):
    change(fake)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['code'], shown['http_status'], shown['kind']) == (code, status_code, 'refused')
    assert words in shown['fix'] and words in done.stdout
    assert shown['step'] == ('create record' if code == 'AccessDenied' else 'find zone')
    if code == 'AccessDenied':   # refused for the credentials: no listing to look for the record
        assert fake.calls() == ['list_records', 'create_record']
    log = (state / ('ddkit_baiducloud_%s.log' % RECORD)).read_text()
    assert fake.secret not in done.stdout + done.stderr + log + json.dumps(shown)
    assert all(fake.secret not in r.path + str(r.query) + str(r.headers) + r.body.decode() for r in fake.requests)


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    fake.add_zone('example.org.cn')   # a loose match of the name
    done = run(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(done)
    shown = status(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert (shown['step'], shown['kind']) == ('find zone', 'not found')
    assert 'no zone named example.org in this account' in done.stdout
    # no zone call: the record's listing is refused, and the zone listing says why
    assert fake.calls() == ['list_records', 'list_zones']


def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'credentials accepted (Access Key ID %s)' % fake.key_id in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, ZONE) in done.stdout and 'A record %s found (id ' % RECORD in done.stdout
    # the credentials by the zone listing, the zone by the name's listing; the record's check lists afresh
    assert fake.calls() == ['list_zones', 'list_records', 'list_records'] and os.listdir(str(state)) == []


def test_check_says_refused_credentials_and_a_missing_zone(box, fake, state):
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert 'ok    credentials accepted' in done.stdout and 'FAIL  zone found: find zone: no zone named ' \
        'example.org' in done.stdout, done.stdout
    fake.keys[fake.key_id]['secret'] = 'another'
    done = run(box, state, '--check')
    assert 'FAIL  credentials accepted: find zone: the provider refused the request (HTTP 400, code ' \
           'SignatureDoesNotMatch)' in done.stdout, done.stdout
    assert fake.secret not in done.stdout + done.stderr


@pytest.mark.parametrize('answer', [
    {'text': '{"records": {"id": "1"}}'},
    {'text': '[1, 2]'},
    {'text': '<html>busy</html>'},
    {'status': 500, 'body': {'code': 'InternalError', 'message': 'We encountered an internal error.',
                             'requestId': 'x'}},
], ids=['records not a list', 'not an object', 'html', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='list_records', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('create_record') == [] and fake.calls('update_record') == []


def test_a_hostile_record_id_ttl_or_description_is_not_taken(box, fake, state):
    fake.fail('reply', route='list_records', body={'isTruncated': False, 'records': [
        {'id': '../../x', 'rr': 'home', 'type': 'A', 'value': OLD, 'line': 'default'}]})
    ok(run(box, state))
    assert fake.calls()[:3] == ['list_records', 'create_record']
    fake.records.clear()
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body={'isTruncated': False, 'records': [
        {'id': rid, 'rr': 'home', 'type': 'A', 'value': OLD, 'line': 'default', 'ttl': 10 ** 30,
         'description': 'x' * 300}]})
    ok(run(box, state / 'x', ip=OTHER))
    assert sent(fake.calls('update_record')[-1]) == {'rr': 'home', 'type': 'A', 'value': OTHER}


def test_signing_costs_under_a_millisecond():
    baiducloud = module()
    query = baiducloud.canonical_query({'rr': 'home', 'maxKeys': '100'})
    baiducloud.sign('AKID', 'secret', 'GET', 'dns.baidubce.com', '/v1/dns/zone/example.com/record', query, time.time())
    batches = []   # the best of several: a busy machine (parallel tests) slows some of them
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(100):
            baiducloud.sign('AKID', 'secret', 'GET', 'dns.baidubce.com', '/v1/dns/zone/example.com/record', query,
                            time.time())
        batches.append((time.perf_counter() - started) / 100)
    assert min(batches) < 0.001


# --- a Job in-process: every zone of the account, operator lines -------------------------------

job_of = BAIDUCLOUD.job


def test_account_zones_lists_every_zone_of_every_page(box, fake, state, monkeypatch):
    baiducloud = module()
    for name in ('Example.NET', 'b.example.org', 'c.example.org'):
        fake.add_zone(name)
    monkeypatch.setattr(baiducloud, 'PAGE', 2)
    zones = baiducloud.account_zones(job_of(box, state))
    assert sorted((z.id, z.name) for z in zones) == [(n, n) for n in sorted(
        ('b.example.org', 'c.example.org', ZONE, 'example.net'))]
    assert fake.calls() == ['list_zones'] * 2 and 'name' not in fake.requests[0].query


def test_account_zones_of_a_huge_account_asks_for_zone_name(box, fake, state, monkeypatch):
    baiducloud = module()
    from ddkit import Failure
    for n in range(6):
        fake.add_zone('z%d.example' % n)
    monkeypatch.setattr(baiducloud, 'PAGE', 1)
    with pytest.raises(Failure) as refused:
        baiducloud.account_zones(job_of(box, state))
    assert (refused.value.step, refused.value.fix) == ('find zone', 'set zone_name')
    assert len(fake.calls()) == baiducloud.PAGES


def test_the_lines_are_the_references():
    assert module().LINES == {'default': 'default', 'ct': 'ct', 'cm': 'cmnet', 'cu': 'cnc'}


LINES = [('default', 'default'), ('ct', 'ct'), ('cm', 'cmnet'), ('cu', 'cnc')]


@pytest.mark.parametrize('line, code', LINES, ids=[line for line, _ in LINES])
def test_a_lines_record_is_made_found_read_updated_and_deleted_on_its_line_alone(box, fake, state, line, code):
    from ddkit.provider import Stale
    baiducloud = module()
    other_line = 'ct' if code == 'default' else 'default'
    other = fake.add_record(ZONE, RECORD, 'A', OTHER, line=other_line)
    job = job_of(box, state, line)
    assert baiducloud.find_record(job, ZONE) is None
    assert baiducloud.create_record(job, ZONE, OLD) == 'created'   # the answer has no id
    assert fake.by_line(RECORD) == {code: [OLD], other_line: [OTHER]}
    found = baiducloud.find_record(job, ZONE, strict=True)
    rid = [r['id'] for r in fake.records.values() if r['line'] == code][0]
    assert (found.id, found.content) == (rid, [OLD])
    with pytest.raises(Stale):
        baiducloud.read_record(job, ZONE, other)
    assert baiducloud.read_record(job_of(box, state, line), ZONE, 'created').id == rid   # a later run: by its name
    record = baiducloud.read_record(job, ZONE, rid)
    assert baiducloud.update_record(job, ZONE, record, NEW) == rid
    assert fake.by_line(RECORD) == {code: [NEW], other_line: [OTHER]}
    assert baiducloud.delete_record(job, ZONE, record) is None
    assert fake.by_line(RECORD) == {other_line: [OTHER]}
    assert baiducloud.delete_record(job, ZONE, record) is None   # gone already: success
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'get_record', 'list_records',
                            'get_record', 'update_record', 'delete_record', 'delete_record', 'get_record']
    assert sent(fake.calls('create_record')[0])['line'] == code and 'line' not in sent(fake.calls('update_record')[0])
    assert fake.unknown_fields == []


def test_every_line_of_a_name_shares_one_listing_of_the_zone(box, fake, state):
    baiducloud = module()
    from ddkit.provider import Run
    ids = {code: fake.add_record(ZONE, RECORD, 'A', '81.2.69.%d' % n, line=code)
           for n, (_, code) in enumerate(LINES, 1)}
    fake.add_record(ZONE, RECORD, 'A', '81.2.69.99', line='edu')   # a line no job is on
    run = Run(several=True)
    jobs = [job_of(box, state, line, run) for line, _ in LINES]
    assert [baiducloud.find_record(job, ZONE).id for job in jobs] == [ids[code] for _, code in LINES]
    assert fake.calls() == ['list_records'] and set(fake.requests[0].query) == {'maxKeys'}


def test_a_delete_whose_answer_was_lost_is_success(box, fake, state):
    """Sent again with the same clientToken, the delete is answered as the first was."""
    baiducloud = module()
    from ddkit.provider import Record
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, line='cmnet')
    fake.fail('lost', route='delete_record')
    assert baiducloud.delete_record(job_of(box, state, 'cm'), ZONE, Record(rid)) is None
    assert fake.by_line(RECORD) == {} and fake.calls() == ['delete_record', 'delete_record']


def test_a_refused_delete_is_a_failure_with_its_fields(box, fake, state):
    baiducloud = module()
    from ddkit import Failure
    from ddkit.provider import Record
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, line='cnc')
    fake.keys[fake.key_id]['routes'] = {'list_zones', 'list_records'}
    with pytest.raises(Failure) as refused:
        baiducloud.delete_record(job_of(box, state, 'cu'), ZONE, Record(rid))
    e = refused.value
    assert (e.step, e.code, e.status, e.kind) == ('delete record', 'AccessDenied', 403, 'refused')
    assert e.fix == baiducloud.FIXES['AccessDenied'] and e.provider_message and e.url.startswith(fake.url + '/v1/dns/')
    assert '?' not in e.url and fake.by_line(RECORD) == {'cnc': [OLD]}
