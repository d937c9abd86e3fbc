"""The alidns provider against its fake over real HTTP, the official SDK as the oracle: the tool's
signature is the one aliyunsdkcore's RPC signer makes (the fake refuses any other, as the API does),
its actions and parameters are those of aliyunsdkalidns's request classes, sent with their method.
The outcome table of every provider (test_provider_tables) covers the common rows; here: what is
Alibaba Cloud DNS's own (RR '@', the default line, the ttl sent back, the duplicate that is success,
a nonce sent twice, its error codes and their fixes), and a record's operator lines: each line's
record on its resolution line, found, read, updated and deleted there alone."""

import json
import os
import time

import pytest

from conftest import RECORD, ZONE, run_tool
from provider_harness import Harness, failed, ok
from needs import missing
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
SDK = 'aliyun-python-sdk-core and aliyun-python-sdk-alidns (pip install -r tests/requirements.txt)'
# the SDK's request class of each action the tool sends
REQUESTS = {'DescribeSubDomainRecords': 'DescribeSubDomainRecordsRequest', 'AddDomainRecord': 'AddDomainRecordRequest',
            'UpdateDomainRecord': 'UpdateDomainRecordRequest',
            'DescribeDomainRecordInfo': 'DescribeDomainRecordInfoRequest',
            'DeleteDomainRecord': 'DeleteDomainRecordRequest'}
# what every RPC request carries besides its action's own parameters
COMMON = {'Action', 'Version', 'Format', 'AccessKeyId', 'SignatureMethod', 'SignatureVersion', 'SignatureNonce',
          'Timestamp', 'Signature'}


def sdk():
    """The SDK's modules, or the test is skipped (failed under CI)."""
    try:
        import importlib
        return (importlib.import_module('aliyunsdkcore.auth.composer.rpc_signature_composer'),
                importlib.import_module('aliyunsdkalidns.request.v20150109'))
    except ImportError:
        missing(SDK)


ALIDNS = Harness('alidns', NEW)
fake, state = ALIDNS.fixtures()
env_of, run, status, module = ALIDNS.env_of, ALIDNS.run, ALIDNS.status, ALIDNS.module


# --- the SDK as the oracle ---------------------------------------------------------------------

@pytest.mark.parametrize('method', ['POST', 'GET'])
def test_the_signature_is_the_sdks(method):
    composer, _ = sdk()
    compose, sign = getattr(composer, '__compose_string_to_sign'), getattr(composer, '__get_signature')
    params = {'Action': 'UpdateDomainRecord', 'Version': '2015-01-09', 'Format': 'JSON', 'AccessKeyId': 'LTAI5tKey',
              'SignatureMethod': 'HMAC-SHA1', 'SignatureVersion': '1.0', 'SignatureNonce': '0f5e811ae45e4dbf',
              'Timestamp': '2026-01-02T03:04:05Z', 'RR': '@', 'Value': '2001:db8::1', 'TTL': '600',
              # what RFC 3986 and the SDK's form encoding disagree on: space, *, ~, +, /, =, &, non-ASCII
              'Odd': 'a b*c~d+e/f=g&h\u00e9\u4e2d'}
    for secret in ('fAkEsEcReT0123456789abcdefGHIJ', 'with space/+=&'):
        assert module().signature(secret, method, params) == sign(compose(method, params), secret)


def test_the_fake_checks_every_request_with_the_sdks_signer(box, fake, state):
    sdk()
    from fakes import alidns
    assert alidns.ORACLE == 'aliyunsdkcore'
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    assert len(fake.signed) == 2 and all(sent == made for _, sent, made in fake.signed)


def test_actions_parameters_and_method_are_the_sdk_request_classes(box, fake, state):
    """Every request the tool sends in a create, an update by stored ids and a verification: its
    action's SDK class exists, has a setter for each parameter sent, and uses the method sent."""
    sdk()
    ok(run(box, state))                                     # list, create
    ok(run(box, state, ip=OTHER))                           # read, update
    ok(run(box, state, ip=OTHER, DDNS_VERIFY_INTERVAL='0'))  # read
    assert fake.calls() == ['list_records', 'create_record', 'get_record', 'update_record', 'get_record']
    as_the_sdk_sends(fake)


def as_the_sdk_sends(fake):
    """Every request the fake got: its action's SDK request class exists, has a setter for each
    parameter sent, and uses the method sent."""
    _, requests = sdk()
    import importlib
    for req in fake.requests:
        params = fake.params(req)
        cls = REQUESTS[params['Action']]
        made = getattr(importlib.import_module('%s.%s' % (requests.__name__, cls)), cls)()
        assert (made.get_action_name(), made.get_version(), made.get_method()) == (
            params['Action'], params['Version'], req.method)
        own = set(params) - COMMON
        assert own and all(hasattr(made, 'set_' + name) for name in own), (cls, own)
        assert req.body == b''   # as the SDK sends them: every parameter in the query


def sdk_call(fake, action, secret=None, **params):
    """One request of the official SDK's client to the fake: its answer, parsed."""
    import importlib
    _, requests = sdk()
    from aliyunsdkcore.client import AcsClient
    cls = REQUESTS[action]
    request = getattr(importlib.import_module('%s.%s' % (requests.__name__, cls)), cls)()
    for name, value in params.items():
        getattr(request, 'set_' + name)(value)
    request.set_endpoint(fake.url.split('://')[1])
    return json.loads(AcsClient(fake.key_id, secret or fake.secret, 'cn-hangzhou').do_action_with_exception(request))


def test_the_sdk_itself_is_served_by_the_fake(box, fake):
    """The fake in the SDK's eyes: the SDK's client lists a record through it, and a wrong secret
    is refused in the shape the SDK reads."""
    sdk()
    from aliyunsdkcore.acs_exception.exceptions import ServerException
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=300)
    listed = sdk_call(fake, 'DescribeSubDomainRecords', SubDomain=RECORD, DomainName=ZONE)
    assert listed['TotalCount'] == 1 and listed['DomainRecords']['Record'][0]['RecordId'] == rid
    assert listed['DomainRecords']['Record'][0]['RR'] == 'home' and listed['DomainRecords']['Record'][0]['TTL'] == 300
    with pytest.raises(ServerException) as refused:
        sdk_call(fake, 'DescribeSubDomainRecords', 'not-the-secret', SubDomain=RECORD, DomainName=ZONE)
    # the SDK reads the fake's SignatureDoesNotMatch, finds its own string to sign in the message and
    # so blames the secret: the fake composed the very string the SDK signed
    assert refused.value.get_error_code() == 'InvalidAccessKeySecret'
    assert refused.value.get_http_status() == 400


def test_the_fakes_update_sets_what_is_not_sent_to_the_apis_defaults(box, fake):
    """What makes a ttl not sent back a visible bug: UpdateDomainRecord's TTL defaults to 600."""
    sdk()
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=120)
    assert sdk_call(fake, 'UpdateDomainRecord', RecordId=rid, RR='home', Type='A', Value=NEW)['RecordId'] == rid
    assert (fake.records[rid]['TTL'], fake.records[rid]['Line'], fake.records[rid]['content']) == (600, 'default', NEW)
    assert sdk_call(fake, 'DescribeDomainRecordInfo', RecordId=rid)['TTL'] == 600


# --- what is Alibaba Cloud DNS's own -----------------------------------------------------------

def test_the_apex_is_rr_at(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    sent = fake.params(fake.calls('create_record')[0])
    assert (sent['RR'], sent['DomainName'], sent['Line']) == ('@', ZONE, 'default')
    assert [r['content'] for r in fake.find(ZONE)] == [NEW]
    fake.reset_log()
    ok(run(box, state, '--force', DDNS_RECORD_NAME=ZONE, ip=OTHER))   # found by its RR '@' and updated
    assert fake.calls() == ['get_record', 'update_record'] and [r['content'] for r in fake.find(ZONE)] == [OTHER]


def test_an_update_keeps_the_records_ttl(box, fake, state):
    """UpdateDomainRecord sets what is not sent to its default (ttl 600): the ttl read is sent back."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, ttl=120)
    ok(run(box, state))
    assert fake.records[rid]['TTL'] == 120 and fake.records[rid]['content'] == NEW
    assert fake.params(fake.calls('update_record')[0])['TTL'] == '120'


def test_only_the_default_lines_record_is_found_and_changed(box, fake, state):
    telecom = fake.add_record(ZONE, RECORD, 'A', OLD, line='telecom')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    assert fake.params(fake.calls('list_records')[0])['Line'] == 'default'
    assert fake.records[telecom]['content'] == OLD
    made = [r for r in fake.find(RECORD) if r['RecordId'] != telecom]
    assert [(r['Line'], r['content']) for r in made] == [('default', NEW)]


def test_a_listing_that_shows_another_line_is_not_taken(box, fake, state):
    """A listing is filtered again by the tool (name, type and line), whatever the API sent."""
    fake.add_record(ZONE, RECORD, 'A', OLD, line='telecom')

    def every_line(reply):   # an API that ignored the Line filter
        shown = [dict(fake._public(r)) for r in fake.records.values()]
        return type(reply)(200, dict(json.loads(reply.raw), TotalCount=len(shown),
                                     DomainRecords={'Record': shown}))
    fake.fail('rewrite', route='list_records', answer=every_line)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']


def test_an_update_to_the_value_held_is_success(box, fake, state):
    """--force with the IP the record holds: the API answers DomainRecordDuplicate, which is success."""
    rid = fake.add_record(ZONE, RECORD, 'A', NEW)
    done = run(box, state, '--force')
    ok(done)
    assert fake.calls() == ['list_records', 'update_record'] and 'holds %s already' % NEW in done.stdout
    assert (state / ('.alidns-ip_%s.txt' % RECORD)).read_text() == NEW + '\n'
    assert (state / ('.alidns-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, rid)


def test_an_update_whose_answer_was_lost_is_signed_anew_once_its_nonce_is_refused(box, fake, state):
    """The update takes effect and its answer is lost; ddkit.http sends the same URL again, whose nonce
    the API has seen (SignatureNonceUsed): signed anew, it is answered DomainRecordDuplicate: done."""
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('lost', route='update_record')
    done = run(box, state)
    ok(done)
    sent = fake.calls('update_record')
    assert len(sent) == 3 and sent[0].query['SignatureNonce'] == sent[1].query['SignatureNonce'] \
        != sent[2].query['SignatureNonce']
    assert 'signing it anew' in done.stdout and [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_a_create_that_meets_the_record_updates_it(box, fake, state):
    """A listing that showed no record (made meanwhile elsewhere): AddDomainRecord answers
    DomainRecordDuplicate, the record is looked up afresh and updated (its value is NEW already)."""
    fake.add_record(ZONE, RECORD, 'A', NEW)

    def none_listed(reply):
        return type(reply)(200, dict(json.loads(reply.raw), TotalCount=0, DomainRecords={'Record': []}))
    fake.fail('rewrite', route='list_records', answer=none_listed)
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'update_record']
    assert len(fake.find(RECORD)) == 1 and status(box, state)['outcome'] == 'updated'


def test_stored_ids_of_a_deleted_record_are_looked_up_again(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.alidns-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, rid))
    (state / ('.alidns-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    del fake.records[rid]
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_records', 'create_record'] and 'Stored ids are stale' in done.stdout
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_stored_ids_of_another_zone_are_not_read(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.alidns-id_%s.txt' % RECORD)).write_text('other.example\n%s\n' % rid)
    (state / ('.alidns-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'update_record']
    assert (state / ('.alidns-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, rid)


def test_both_families_in_one_run_list_the_name_once(box, fake, state, dual):
    ids = [fake.add_record(ZONE, RECORD, t, ip) for t, ip in (('A', OLD), ('AAAA', '240e:1::1'))]
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_records', 'update_record', 'update_record']
    assert 'Type' not in fake.params(fake.calls('list_records')[0])
    assert [fake.records[r]['content'] for r in ids] == [dual.v4, dual.v6]


# --- refusals: their codes, fixes, and no secret shown ----------------------------------------

@pytest.mark.parametrize('change, code, status_code, words', [
    (lambda fake: fake.keys[fake.key_id].update(secret='another'), 'SignatureDoesNotMatch', 400,
     'copy both from the same AccessKey pair'),
    (lambda fake: fake.keys.update({'other': fake.keys.pop(fake.key_id)}), 'InvalidAccessKeyId.NotFound', 404,
     'check it, or create a new AccessKey'),
    (lambda fake: fake.keys[fake.key_id].update(active=False), 'InvalidAccessKeyId.Inactive', 400,
     'enable it in the RAM console'),
    (lambda fake: setattr(fake, 'clock_offset', 3600), 'InvalidTimeStamp.Expired', 400, 'clock'),
    (lambda fake: fake.keys[fake.key_id].update(actions={'DescribeSubDomainRecords'}), 'Forbidden.RAM', 403,
     'AliyunDNSFullAccess'),
], ids=['bad secret', 'unknown key', 'disabled key', 'clock off', 'RAM'])
def test_a_refusal_says_its_code_and_fix_and_never_the_secret(box, fake, state, change, code, status_code, words):
    change(fake)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['code'], shown['http_status'], shown['kind']) == (code, status_code, 'refused')
    assert words in shown['fix'] and words in done.stdout
    assert shown['step'] == ('create record' if code == 'Forbidden.RAM' else 'find zone')
    log = (state / ('ddkit_alidns_%s.log' % RECORD)).read_text()
    assert fake.secret not in done.stdout + done.stderr + log + json.dumps(shown)
    assert all(fake.secret not in r.path + str(r.query) + str(r.headers) for r in fake.requests)


def test_a_domain_not_in_the_account_fails_at_find_zone(box, fake, state):
    done = run(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(done)
    shown = status(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert (shown['step'], shown['kind'], shown['code']) == ('find zone', 'not found', 'IncorrectDomainUser')
    assert 'no domain example.org in this account' in done.stdout and fake.calls() == ['list_records']


def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'credentials accepted (AccessKey %s)' % fake.key_id in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found (id ' % RECORD in done.stdout
    # the credentials and the zone share one listing; the record's check lists afresh
    assert fake.calls() == ['list_records', 'list_records'] and os.listdir(str(state)) == []


def test_check_tells_a_foreign_domain_from_refused_credentials(box, fake, state):
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert 'ok    credentials accepted' in done.stdout and 'FAIL  zone found: find zone: no domain example.org' \
        in done.stdout, done.stdout
    fake.keys[fake.key_id]['secret'] = 'another'
    done = run(box, state, '--check')
    assert 'FAIL  credentials accepted: find zone: the provider refused the request (HTTP 400, code ' \
           'SignatureDoesNotMatch)' in done.stdout, done.stdout


@pytest.mark.parametrize('answer', [
    {'text': '{"RequestId": "x", "DomainRecords": {"Record": {"RecordId": "1"}}}'},
    {'text': '{"RequestId": "x", "DomainRecords": "none"}'},
    {'text': '[1, 2]'},
    {'text': '<html>busy</html>'},
    {'text': ''},
    {'status': 500, 'body': {'RequestId': 'x', 'Code': 'InternalError',
                             'Message': 'The request processing has failed due to some unknown error.'}},
], ids=['record not a list', 'records not an object', 'not an object', 'html', 'empty', 'server error'])
def test_an_unusable_listing_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.fail('reply', route='list_records', times=3, **answer)
    failed(run(box, state))
    assert fake.calls('create_record') == [] and fake.calls('update_record') == []


def test_a_hostile_record_id_or_ttl_is_not_taken(box, fake, state):
    """An id that would steer a request or the ids file is no id: that record is not found (so one is
    created), and a ttl out of range is not sent back."""
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body={'RequestId': 'x', 'TotalCount': 1, 'DomainRecords': {'Record': [
        {'RecordId': '../../x', 'RR': 'home', 'Type': 'A', 'Value': OLD, 'Line': 'default'}]}})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record']
    fake.records.clear()
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='list_records', body={'RequestId': 'x', 'TotalCount': 1, 'DomainRecords': {'Record': [
        {'RecordId': rid, 'RR': 'home', 'Type': 'A', 'Value': OLD, 'Line': 'default', 'TTL': 10 ** 30}]}})
    ok(run(box, state / 'x', ip=OTHER))
    assert 'TTL' not in fake.params(fake.calls('update_record')[-1]) and fake.records[rid]['content'] == OTHER


def test_signing_costs_under_a_millisecond():
    alidns = module()

    class Cfg:
        access_key_id, access_key_secret = 'LTAI5tFAKEaccessKeyId01', 'fAkEsEcReT0123456789abcdefGHIJ'
    params = {'DomainName': ZONE, 'SubDomain': RECORD, 'Line': 'default', 'PageSize': '100', 'Type': 'A'}
    alidns.signed_query(Cfg, 'DescribeSubDomainRecords', params)   # its imports, once
    batches = []   # the best of several: a busy machine (parallel tests) slows some of them
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(100):
            alidns.signed_query(Cfg, 'DescribeSubDomainRecords', params)
        batches.append((time.perf_counter() - started) / 100)
    assert min(batches) < 0.001


# --- operator lines: each line's record on its own resolution line -----------------------------

# job.line -> the resolution line code the record is held on ("Resolution line enumeration")
LINES = [('default', 'default'), ('ct', 'telecom'), ('cm', 'mobile'), ('cu', 'unicom')]


def line_job(box, state, line, run=None):
    """A Job of the sandbox's record on this line, run in-process against the fake (run: the Run of
    several records it is one of; else a run of its own)."""
    alidns = module()
    from ddkit import settings, updater
    from ddkit.log import Log
    from ddkit.provider import Job, Run
    table = alidns.SETTINGS + updater.COMMON
    cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES,
                        environ=env_of(box, state))
    job = Job(alidns, cfg, run or Run(), Log(None, quiet=True))
    job.line = line
    return job


@pytest.mark.parametrize('line, code', LINES, ids=[line for line, _ in LINES])
def test_a_lines_record_is_made_found_read_updated_and_deleted_on_its_line_alone(box, fake, state, line, code):
    """Beside the record of the name on another line: that one is never taken, read as this line's,
    changed or deleted."""
    from ddkit.provider import Stale
    alidns = module()
    other_line = 'telecom' if code == 'default' else 'default'
    other = fake.add_record(ZONE, RECORD, 'A', OTHER, line=other_line)
    job = line_job(box, state, line)
    assert alidns.find_record(job, ZONE) is None
    rid = alidns.create_record(job, ZONE, OLD)
    assert fake.by_line(RECORD) == {code: [OLD], other_line: [OTHER]}
    found = alidns.find_record(job, ZONE, strict=True)
    assert (found.id, found.content) == (rid, [OLD])
    with pytest.raises(Stale):
        alidns.read_record(job, ZONE, other)
    record = alidns.read_record(job, ZONE, rid)
    assert alidns.update_record(job, ZONE, record, NEW) == rid
    assert fake.by_line(RECORD) == {code: [NEW], other_line: [OTHER]}
    assert alidns.delete_record(job, ZONE, record) is None
    assert fake.by_line(RECORD) == {other_line: [OTHER]}
    assert alidns.delete_record(job, ZONE, record) is None   # gone already: success
    assert fake.calls() == ['list_records', 'create_record', 'list_records', 'get_record', 'get_record',
                            'update_record', 'delete_record', 'delete_record']
    sent = [fake.params(req) for req in fake.requests]
    assert 'Line' not in sent[0] and [p['Line'] for p in sent if p['Action'] in (
        'AddDomainRecord', 'UpdateDomainRecord')] == [code, code]
    assert sent[-1]['RecordId'] == rid and set(sent[-1]) - COMMON == {'RecordId'}
    as_the_sdk_sends(fake)


def test_every_line_of_a_name_shares_one_listing(box, fake, state):
    """A run of several records (or lines) lists the name once, every line and family: each line's
    job takes its own record from it."""
    alidns = module()
    ids = {code: fake.add_record(ZONE, RECORD, 'A', '81.2.69.%d' % n, line=code)
           for n, (_, code) in enumerate(LINES, 1)}
    fake.add_record(ZONE, RECORD, 'A', '81.2.69.99', line='oversea')   # a line no job is on
    from ddkit.provider import Run
    run = Run(several=True)
    jobs = [line_job(box, state, line, run) for line, _ in LINES]
    assert [alidns.find_record(job, ZONE).id for job in jobs] == [ids[code] for _, code in LINES]
    assert fake.calls() == ['list_records']
    assert {'Line', 'Type'} & set(fake.params(fake.requests[0])) == set()


def test_a_record_without_lines_lists_and_makes_the_default_line_alone(box, fake, state):
    """job.line None: as before lines, the listing names the default line and its type."""
    alidns = module()
    fake.add_record(ZONE, RECORD, 'A', OTHER, line='telecom')
    job = line_job(box, state, None)
    assert alidns.find_record(job, ZONE) is None
    alidns.create_record(job, ZONE, NEW)
    assert fake.by_line(RECORD) == {'default': [NEW], 'telecom': [OTHER]}
    assert (fake.params(fake.requests[0])['Line'], fake.params(fake.requests[0])['Type']) == ('default', 'A')


def test_a_delete_whose_answer_was_lost_is_success(box, fake, state):
    """The delete takes effect and its answer is lost; sent again (signed anew once its nonce is
    refused), it is answered DomainRecordNotBelongToUser: the record is gone, as asked."""
    alidns = module()
    from ddkit.provider import Record
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, line='mobile')
    fake.fail('lost', route='delete_record')
    assert alidns.delete_record(line_job(box, state, 'cm'), ZONE, Record(rid)) is None
    assert fake.by_line(RECORD) == {} and len(fake.calls('delete_record')) == 3


def test_a_refused_delete_is_a_failure_with_its_fields(box, fake, state):
    alidns = module()
    from ddkit import Failure
    from ddkit.provider import Record
    rid = fake.add_record(ZONE, RECORD, 'A', OLD, line='unicom', locked=True)
    with pytest.raises(Failure) as refused:
        alidns.delete_record(line_job(box, state, 'cu'), ZONE, Record(rid))
    e = refused.value
    assert (e.step, e.code, e.status, e.kind) == ('delete record', 'DomainRecordLocked', 400, 'refused')
    assert e.fix == alidns.FIXES['DomainRecordLocked'] and e.provider_message and e.url.startswith(fake.url)
    assert fake.by_line(RECORD) == {'unicom': [OLD]}


def test_the_fake_holds_the_documented_lines_and_refuses_others(box, fake):
    """The SDK's client against the fake: a line the enumeration does not name is an invalid
    parameter; a delete of a record that is gone, DomainRecordNotBelongToUser."""
    sdk()
    from aliyunsdkcore.acs_exception.exceptions import ServerException
    rid = sdk_call(fake, 'AddDomainRecord', DomainName=ZONE, RR='home', Type='A', Value=OLD, Line='mobile')['RecordId']
    assert fake.by_line(RECORD) == {'mobile': [OLD]}
    for action, params in (('AddDomainRecord', dict(DomainName=ZONE, RR='home', Type='A', Value=NEW, Line='ct')),
                           ('DescribeSubDomainRecords', dict(DomainName=ZONE, SubDomain=RECORD, Line='cm'))):
        with pytest.raises(ServerException) as refused:
            sdk_call(fake, action, **params)
        assert (refused.value.get_error_code(), refused.value.get_http_status()) == ('InvalidParameter', 400)
    assert sdk_call(fake, 'DeleteDomainRecord', RecordId=rid)['RecordId'] == rid
    with pytest.raises(ServerException) as refused:
        sdk_call(fake, 'DeleteDomainRecord', RecordId=rid)
    assert refused.value.get_error_code() == 'DomainRecordNotBelongToUser'
