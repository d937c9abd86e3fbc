"""The DNSPod provider (Tencent Cloud API 3.0) against its fake over real HTTP, with the official SDK
as the oracle: the tool's TC3 signatures are the SDK's, its request fields are the SDK models', and
the fake checks each request with the SDK's own code. Beyond the shared outcome tables: the default
line, what an update keeps, the apex, stale ids, a create that meets the record, credentials refused
the way the API refuses them, --check, a run of several records, hostile answers, and a record's
operator lines: each line's record on its resolution line, found, read, updated and deleted there
alone."""

import json
import os
import subprocess
import sys
import time

import pytest

import needs
from conftest import RECORD, ROOT, run_tool
from fakes import dnspod as fake_module
from fakes.base import Reply

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import jsontext  # noqa: E402
from ddkit import provider  # noqa: E402
from ddkit.providers import dnspod  # noqa: E402

OLD, NEW = '81.2.69.1', '81.2.69.10'
SDK_PACKAGES = 'tencentcloud-sdk-python-common==3.1.195 tencentcloud-sdk-python-dnspod==3.1.130'


def sign(secret_id, secret_key, host, action, payload, timestamp):
    """The headers of a call as the provider signs it (ddkit.provider.tc3, for DNSPod)."""
    return provider.tc3(secret_id, secret_key, dnspod.SERVICE, dnspod.VERSION, host, action, payload, timestamp)


def oracle():
    """The SDK's signing code and models (fakes.dnspod.sdk), or the test says it is missing."""
    found = fake_module.sdk()
    if found is None:
        needs.missing('the official SDK is the oracle: pip install ' + SDK_PACKAGES)
    return found


def fake(box):
    return box.fakes['dnspod']


def env_of(box, state, **more):
    return dict(box.env_of('dnspod', str(state)), DDNS_PROVIDER='dnspod', **more)


def run(box, state, args=(), **more):
    """The ddkit command on the sandbox's record; a setting given as None is not set."""
    env = {k: v for k, v in env_of(box, state, **more).items() if v is not None}
    done = run_tool('ddkit', list(args), env=env)
    assert 'Traceback' not in done.stderr, done.stderr
    return done


def shown_status(box, state, **more):
    done = run(box, state, ['--status', '--json'], **more)
    return json.loads(done.stdout)[0]


def ids(state, name=RECORD):
    return (state / ('.dnspod-id_%s.txt' % name)).read_text().split()


# --- the SDK as the oracle ---------------------------------------------------------------------

@pytest.mark.parametrize('host, params', [
    ('dnspod.tencentcloudapi.com', {'Domain': 'example.com', 'SubDomain': 'home', 'RecordLine': '默认'}),
    ('127.0.0.1:8443', {'Domain': 'xn--bcher-kva.example', 'RecordId': 1600000001, 'TTL': 600}),
    ('[::1]:8080', {}),
])
def test_the_signature_is_the_one_the_sdk_makes(host, params):
    client, request, _, _ = oracle()
    payload = jsontext.dumps(params).encode()
    stamp = 1767225599   # 2025-12-31 23:59:59 UTC: the scope's date is the UTC one
    headers = sign('AKIDexample', 'secret-key', host, 'DescribeRecordList', payload, stamp)
    req = request(host, 'POST', '/', header={'Content-Type': headers['Content-Type'], 'Host': host,
                                             'X-TC-Timestamp': headers['X-TC-Timestamp']}, data=payload)
    expected = client._get_tc3_signature(None, None, req, '2025-12-31', 'dnspod', 'secret-key')
    assert headers['Authorization'] == ('TC3-HMAC-SHA256 Credential=AKIDexample/2025-12-31/dnspod/tc3_request, '
                                        'SignedHeaders=content-type;host, Signature=%s' % expected)
    assert headers['X-TC-Action'] == 'DescribeRecordList' and headers['X-TC-Version'] == '2021-03-23'


def test_the_host_signed_is_the_host_header_sent():
    """The default port is not in the Host header ddkit.wire sends, so not in what is signed."""
    assert provider.host_header('https://dnspod.tencentcloudapi.com:443/') == 'dnspod.tencentcloudapi.com'
    assert provider.host_header('http://127.0.0.1:8080/') == '127.0.0.1:8080'
    assert provider.host_header('https://[::1]:8443/') == '[::1]:8443'


def test_signing_costs_under_a_millisecond():
    payload = jsontext.dumps({'Domain': 'example.com', 'SubDomain': 'home', 'RecordLine': dnspod.LINES['default'],
                              'RecordType': 'A'}).encode()
    sign('AKIDexample', 'k' * 32, 'dnspod.tencentcloudapi.com', 'DescribeRecordList', payload, 1)
    started = time.perf_counter()
    for stamp in range(1000):
        sign('AKIDexample', 'k' * 32, 'dnspod.tencentcloudapi.com', 'DescribeRecordList', payload, stamp)
    assert (time.perf_counter() - started) / 1000 < 0.001


def test_the_fakes_copies_are_the_sdks():
    """The fake's fields (used without the SDK) are the request models', its signature the SDK's."""
    client, request, dnspod_client, models = oracle()
    assert (dnspod_client._apiVersion, dnspod_client._service) == (dnspod.VERSION, dnspod.SERVICE)
    for action in fake_module.ROUTES:
        assert fake_module.FIELDS[action] == fake_module.sdk_fields(models, action), action
    args = ('127.0.0.1:1234', 'application/json', '1767225599', b'{"Domain": "example.com"}', '2025-12-31', 'key')
    assert fake_module.own_signature(*args) == fake_module.sdk_signature((client, request), *args[:-1], dnspod.SERVICE,
                                                                         args[-1])


def test_the_fake_accepts_the_sdks_own_client_and_refuses_a_wrong_key(box):
    """The fake's checks, against what the SDK's client sends: one request in and one out."""
    oracle()
    from tencentcloud.common import credential
    from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException
    from tencentcloud.common.profile.client_profile import ClientProfile
    from tencentcloud.common.profile.http_profile import HttpProfile
    from tencentcloud.dnspod.v20210323 import dnspod_client, models
    server = fake(box)
    server.add_record('example.com', RECORD, 'A', OLD)
    profile = ClientProfile(httpProfile=HttpProfile(endpoint='127.0.0.1:%d' % server.port, protocol='http'))
    request = models.DescribeRecordListRequest()
    request.Domain, request.SubDomain = 'example.com', 'home'
    client = dnspod_client.DnspodClient(credential.Credential(server.secret_id, server.secret_key), '', profile)
    assert [r.Value for r in client.DescribeRecordList(request).RecordList] == [OLD]
    wrong = dnspod_client.DnspodClient(credential.Credential(server.secret_id, 'x' + server.secret_key), '', profile)
    with pytest.raises(TencentCloudSDKException) as refused:
        wrong.DescribeRecordList(request)
    assert refused.value.code == 'AuthFailure.SignatureFailure'


def post(server, action, params, secret_key=None):
    """One request signed as the tool signs it, straight to the fake: its Response."""
    import urllib.request
    payload = jsontext.dumps(params).encode()
    host = '127.0.0.1:%d' % server.port
    headers = sign(server.secret_id, secret_key or server.secret_key, host, action, payload, int(time.time()))
    request = urllib.request.Request(server.url + '/', payload, headers, method='POST')
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())['Response']


@pytest.mark.parametrize('action, params, code', [
    ('DescribeRecordList', {'Domain': 'example.com', 'Line': '默认'}, 'UnknownParameter'),
    ('DescribeRecord', {'Domain': 'example.com', 'RecordId': '1600000001'}, 'InvalidParameter'),
    ('DescribeRecord', {'Domain': 'example.com', 'RecordId': True}, 'InvalidParameter'),
    ('CreateRecord', {'Domain': 'example.com', 'RecordType': 'A', 'Value': NEW}, 'MissingParameter'),
    ('CreateRecord', {'Domain': 'example.com', 'RecordType': 'A', 'RecordLine': 'default', 'Value': NEW},
     'InvalidParameter.RecordLineInvalid'),
    ('CreateRecord', {'Domain': 'example.com', 'RecordType': 'AAAA', 'RecordLine': '默认', 'Value': NEW},
     'InvalidParameter.RecordValueInvalid'),
    ('ModifyDynamicDNS', {'Domain': 'example.com', 'RecordId': 1, 'RecordLine': '默认', 'Value': NEW},
     'InvalidParameter.RecordIdInvalid'),
    ('DescribeRecordList', {'Domain': 'example.net'}, 'InvalidParameterValue.DomainNotExists'),
    ('DescribeRecordList', {'Domain': 'example.com', 'RecordLine': 'ct'}, 'InvalidParameter.RecordLineInvalid'),
    ('DeleteRecord', {'Domain': 'example.com', 'RecordId': 1}, 'InvalidParameter.RecordIdInvalid'),
    ('DeleteRecord', {'Domain': 'example.com', 'RecordId': '1600000001'}, 'InvalidParameter'),
    ('DeleteRecord', {'Domain': 'example.com'}, 'MissingParameter'),
    ('DeleteDomain', {'Domain': 'example.com'}, 'InvalidAction'),
])
def test_the_fake_refuses_what_the_api_refuses(box, action, params, code):
    assert post(fake(box), action, params)['Error']['Code'] == code


def test_every_request_is_signed_and_names_only_fields_of_its_sdk_model(box, tmp_path):
    _, _, _, models = oracle()
    server = fake(box)
    box.lookup.answer = NEW
    assert run(box, tmp_path).returncode == 0                    # listed, created
    (tmp_path / ('.dnspod-ip_%s.txt' % RECORD)).unlink()
    box.lookup.answer = OLD
    assert run(box, tmp_path).returncode == 0                    # read, updated
    assert server.calls() == ['list_records', 'create_record', 'get_record', 'update_record']
    assert all(expected for _, expected in server.signatures)   # each one checked, none refused
    for req in server.requests:
        assert req.path == '/' and req.method == 'POST'
        assert set(req.json) <= set(fake_module.sdk_fields(models, req.action)), req.action
        assert req.json.get('RecordLine', dnspod.LINES['default']) == dnspod.LINES['default']


# --- what a run does ---------------------------------------------------------------------------

def test_an_empty_listing_is_no_record_and_one_is_made_on_the_default_line(box, tmp_path):
    """The empty listing is an error answer (NoDataOfRecord): taken as "none", never as a failure."""
    server = fake(box)
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (made,) = server.find(RECORD)
    assert (made['sub'], made['line'], made['content'], made['ttl']) == ('home', '默认', NEW, 600)
    assert ids(tmp_path) == ['example.com', str(made['id'])]
    assert shown_status(box, tmp_path)['outcome'] == 'created'


def test_a_record_of_the_name_on_another_line_is_not_ours(box, tmp_path):
    server = fake(box)
    other = server.add_record('example.com', RECORD, 'A', OLD, line='电信')
    box.lookup.answer = NEW
    assert run(box, tmp_path).returncode == 0
    assert server.records[other]['content'] == OLD and server.records[other]['line'] == '电信'
    assert sorted((r['line'], r['content']) for r in server.find(RECORD)) == sorted([('默认', NEW), ('电信', OLD)])


def test_an_update_keeps_what_the_user_set(box, tmp_path):
    """ModifyDynamicDNS keeps status, weight, MX and remark; its TTL is sent back, as it would be reset."""
    server = fake(box)
    rid = server.add_record('example.com', RECORD, 'A', OLD, ttl=1200, status='DISABLE', weight=20, remark='router')
    box.lookup.answer = NEW
    assert run(box, tmp_path).returncode == 0
    held = server.records[rid]
    assert (held['content'], held['ttl'], held['status'], held['weight'], held['remark'], held['line']) == \
        (NEW, 1200, 'DISABLE', 20, 'router', '默认')
    assert server.calls('update_record')[0].json['TTL'] == 1200


def test_a_ttl_out_of_range_is_not_sent_back(box, tmp_path):
    server = fake(box)
    rid = server.add_record('example.com', RECORD, 'A', OLD, ttl=10 ** 12)
    box.lookup.answer = NEW
    assert run(box, tmp_path).returncode == 0
    assert 'TTL' not in server.calls('update_record')[0].json and server.records[rid]['ttl'] == 600


def test_the_apex_is_the_host_at(box, tmp_path):
    server = fake(box)
    box.lookup.answer = NEW
    assert run(box, tmp_path, DDNS_RECORD_NAME='example.com').returncode == 0
    (made,) = server.find('example.com', 'A')
    assert made['sub'] == '@' and server.calls('list_records')[0].json['SubDomain'] == '@'


def test_stale_ids_are_looked_up_again_once(box, tmp_path):
    server = fake(box)
    gone = server.add_record('example.com', RECORD, 'A', OLD)
    del server.records[gone]
    tmp_path.joinpath('.dnspod-id_%s.txt' % RECORD).write_text('example.com\n%d\n' % gone)
    tmp_path.joinpath('.dnspod-ip_%s.txt' % RECORD).write_text(OLD + '\n')
    box.lookup.answer = NEW
    assert run(box, tmp_path).returncode == 0
    assert server.calls() == ['get_record', 'list_records', 'create_record']
    assert ids(tmp_path) == ['example.com', str(server.find(RECORD)[0]['id'])]


def test_ids_of_another_domain_are_not_read(box, tmp_path):
    """zone_name changed since the ids were kept: they name a record of the other domain."""
    server = fake(box)
    server.add_zone('example.net')
    theirs = server.add_record('example.net', 'home.example.net', 'A', OLD)
    tmp_path.joinpath('.dnspod-id_%s.txt' % RECORD).write_text('example.net\n%d\n' % theirs)
    tmp_path.joinpath('.dnspod-ip_%s.txt' % RECORD).write_text(OLD + '\n')
    box.lookup.answer = NEW
    assert run(box, tmp_path).returncode == 0
    assert server.calls() == ['list_records', 'create_record'] and server.records[theirs]['content'] == OLD


def test_a_create_that_meets_the_record_updates_it(box, tmp_path):
    """A listing that missed the record (made meanwhile): the create is refused, a fresh listing finds it."""
    server = fake(box)
    rid = server.add_record('example.com', RECORD, 'A', NEW, ttl=900)
    server.fail('rewrite', route='list_records', answer=lambda reply: fake_module.error(
        'ResourceNotFound.NoDataOfRecord', 'The record list is empty.'))
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert server.calls() == ['list_records', 'create_record', 'list_records', 'update_record']
    assert [r['id'] for r in server.find(RECORD)] == [rid] and server.records[rid]['ttl'] == 900
    assert shown_status(box, tmp_path)['outcome'] == 'updated'


def run_two_records(box, tmp_path):
    """One run of two records of the domain (home and nas), from a config file."""
    config = tmp_path / 'records.conf'
    config.write_text('[home]\nrecord_name=%s\n[nas]\nrecord_name=nas.example.com\n' % RECORD)
    config.chmod(0o600)
    return run(box, tmp_path, ['--all', '--config', str(config)], DDNS_RECORD_NAME=None)


def test_several_records_share_one_listing_of_the_domain(box, tmp_path):
    server = fake(box)
    server.add_record('example.com', RECORD, 'A', OLD)
    for n in range(600):   # two pages of the domain's listing
        server.add_record('example.com', 'h%d.example.com' % n, 'A', '192.0.2.%d' % (n % 250 + 1))
    box.lookup.answer = NEW
    done = run_two_records(box, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert server.calls() == ['list_records', 'list_records', 'update_record', 'create_record']
    assert [r.json.get('Offset') for r in server.calls('list_records')] == [0, 500]
    assert [r['content'] for r in server.find(RECORD) + server.find('nas.example.com')] == [NEW, NEW]


def test_a_full_page_of_unknown_count_is_looked_up_name_by_name(box, tmp_path):
    """A listing that does not say how many records there are is not taken as the whole domain."""
    server = fake(box)
    for n in range(500):
        server.add_record('example.com', 'h%d.example.com' % n, 'A', '192.0.2.%d' % (n % 250 + 1))
    server.add_record('example.com', RECORD, 'A', OLD)

    def uncounted(reply):
        body = json.loads(reply.raw)
        del body['Response']['RecordCountInfo']
        return Reply(200, body)
    server.fail('rewrite', route='list_records', answer=uncounted)
    box.lookup.answer = NEW
    done = run_two_records(box, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert server.calls() == ['list_records', 'list_records', 'update_record', 'list_records', 'create_record']
    assert [len(server.find(name)) for name in (RECORD, 'nas.example.com')] == [1, 1]


# --- refusals ----------------------------------------------------------------------------------

@pytest.mark.parametrize('change, code', [
    ({'DDNS_SECRET_KEY': 'x' * 32}, 'AuthFailure.SignatureFailure'),
    ({'DDNS_SECRET_ID': 'AKID' + 'n' * 32}, 'AuthFailure.SecretIdNotFound'),
    ('skew', 'AuthFailure.SignatureExpire'),
])
def test_credentials_are_refused_as_the_api_refuses_them(box, tmp_path, change, code):
    server = fake(box)
    server.add_record('example.com', RECORD, 'A', OLD)
    if change == 'skew':
        server.skew, change = 301, {}
    box.lookup.answer = NEW
    done = run(box, tmp_path, **change)
    assert done.returncode == 1
    values = shown_status(box, tmp_path)
    assert (values['outcome'], values['step'], values['code'], values['kind']) == \
        ('failed', 'find zone', code, 'refused')
    assert values['fix'] == dnspod.FIXES[code] and values['fix'] in done.stdout
    secret = change.get('DDNS_SECRET_KEY', server.secret_key)
    log = (tmp_path / ('ddkit_dnspod_%s.log' % RECORD)).read_text()
    assert secret not in done.stdout + done.stderr + log
    assert server.find(RECORD)[0]['content'] == OLD


def test_a_domain_not_in_the_account_fails_finding_the_zone(box, tmp_path):
    other = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done = run(box, tmp_path, **other)
    assert done.returncode == 1
    values = shown_status(box, tmp_path, **other)
    assert (values['step'], values['kind'], values['code']) == \
        ('find zone', 'not found', 'InvalidParameterValue.DomainNotExists')


def test_check_walks_the_steps_and_names_the_failing_one(box, tmp_path):
    server = fake(box)
    server.add_record('example.com', RECORD, 'A', NEW)
    box.lookup.answer = NEW
    done = run(box, tmp_path, ['--check'])
    assert done.returncode == 0, done.stdout
    assert 'credentials accepted (SecretId AKIDz8kr...)' in done.stdout
    assert 'zone example.com found' in done.stdout and 'A record home.example.com found' in done.stdout
    # the credentials and the domain by one listing; the record by a fresh one, as strict lookups are
    assert server.calls() == ['list_records', 'list_records']
    done = run(box, tmp_path, ['--check'], DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert done.returncode == 1 and 'ok    credentials accepted' in done.stdout
    assert 'FAIL  zone found: find zone: no domain example.org' in done.stdout
    done = run(box, tmp_path, ['--check'], DDNS_SECRET_KEY='x' * 32)
    assert 'FAIL  credentials accepted' in done.stdout and 'skip  zone found' in done.stdout


@pytest.mark.parametrize('route, body', [
    ('create_record', {'Response': {'RecordId': 'x', 'RequestId': 'r'}}),
    ('create_record', {'Response': {'RecordId': 2 ** 64, 'RequestId': 'r'}}),
    ('create_record', {'Response': {'RecordId': True, 'RequestId': 'r'}}),
    ('list_records', {'Response': 'x'}),
    ('list_records', {'Response': {'RecordList': {'RecordId': 1}, 'RequestId': 'r'}}),
    ('list_records', {'Response': {'Error': ['AuthFailure'], 'RequestId': 'r'}}),
    ('list_records', [1, 2]),
])
def test_hostile_answers_fail_in_one_line(box, tmp_path, route, body):
    server = fake(box)
    server.fail('rewrite', route=route, answer=lambda reply: Reply(200, body))
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 1 and 'ERROR' in done.stdout + done.stderr
    assert not (tmp_path / ('.dnspod-id_%s.txt' % RECORD)).exists()


def test_a_run_that_sends_nothing_loads_no_signing_code(box, tmp_path):
    """The unchanged run: no request to the provider (the IP lookup's is ddkit.http's), so no hashing."""
    tmp_path.joinpath('.dnspod-ip_%s.txt' % RECORD).write_text(NEW + '\n')
    box.lookup.answer = NEW
    probe = ('import runpy, sys; sys.argv = [%r]\n'
             'try:\n    runpy.run_path(%r, run_name="__main__")\nexcept SystemExit:\n    pass\n'
             'print(sorted(m for m in ("hmac", "hashlib", "ddkit.providers.dnspod", "ddkit.jsontext") if m in sys.modules))'
             % (os.path.join(ROOT, 'bin', 'ddkit.py'), os.path.join(ROOT, 'bin', 'ddkit.py')))
    base = {k: v for k, v in os.environ.items() if not k.startswith('DDNS_')}
    done = subprocess.run([sys.executable, '-I', '-S', '-c', probe], env=dict(base, **env_of(box, tmp_path)),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "['ddkit.providers.dnspod']", done.stdout + done.stderr
    assert fake(box).calls() == []


# --- operator lines: each line's record on its own resolution line -----------------------------

# job.line -> the resolution line's name, what RecordLine takes
LINES = [('default', '默认'), ('ct', '电信'), ('cm', '移动'), ('cu', '联通')]


def line_job(box, state, line, run=None):
    """A Job of the sandbox's record on this line, run in-process against the fake (run: the Run of
    several records it is one of; else a run of its own)."""
    from ddkit import settings, updater
    from ddkit.log import Log
    from ddkit.provider import Job, Run
    table = dnspod.SETTINGS + updater.COMMON
    cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES,
                        environ=env_of(box, state))
    job = Job(dnspod, cfg, run or Run(), Log(None, quiet=True))
    job.line = line
    return job


@pytest.mark.parametrize('line, name', LINES, ids=[line for line, _ in LINES])
def test_a_lines_record_is_made_found_read_updated_and_deleted_on_its_line_alone(box, tmp_path, line, name):
    """Beside the record of the name on another line: that one is never taken, read as this line's,
    changed or deleted; each request's fields are its SDK model's."""
    from ddkit.provider import Stale
    _, _, _, models = oracle()
    server = fake(box)
    other_line = '电信' if name == '默认' else '默认'
    other = server.add_record('example.com', RECORD, 'A', '81.2.69.77', line=other_line)
    job = line_job(box, tmp_path, line)
    assert dnspod.find_record(job, 'example.com') is None
    rid = dnspod.create_record(job, 'example.com', OLD)
    assert server.by_line(RECORD) == {name: [OLD], other_line: ['81.2.69.77']}
    found = dnspod.find_record(job, 'example.com', strict=True)
    assert (found.id, found.content) == (rid, [OLD])
    with pytest.raises(Stale):
        dnspod.read_record(job, 'example.com', str(other))
    record = dnspod.read_record(job, 'example.com', rid)
    assert dnspod.update_record(job, 'example.com', record, NEW) == rid
    assert server.by_line(RECORD) == {name: [NEW], other_line: ['81.2.69.77']}
    assert dnspod.delete_record(job, 'example.com', record) is None
    assert server.by_line(RECORD) == {other_line: ['81.2.69.77']}
    assert dnspod.delete_record(job, 'example.com', record) is None   # gone already: success
    assert server.calls() == ['list_records', 'create_record', 'list_records', 'get_record', 'get_record',
                              'update_record', 'delete_record', 'delete_record']
    sent = [req.json for req in server.requests]
    assert 'RecordLine' not in sent[0] and [body['RecordLine'] for body, req in zip(sent, server.requests)
                                            if req.action in ('CreateRecord', 'ModifyDynamicDNS')] == [name, name]
    assert sent[-1] == {'Domain': 'example.com', 'RecordId': int(rid)}
    for req in server.requests:
        assert set(req.json) <= set(fake_module.sdk_fields(models, req.action)), req.action


def test_every_line_of_a_name_shares_one_listing(box, tmp_path):
    """A run of several records (or lines) lists the domain once, every line: each line's job takes
    its own record from it."""
    server = fake(box)
    ids = {name: server.add_record('example.com', RECORD, 'A', '81.2.69.%d' % n, line=name)
           for n, (_, name) in enumerate(LINES, 1)}
    server.add_record('example.com', RECORD, 'A', '81.2.69.99', line='境外')   # a line no job is on
    from ddkit.provider import Run
    run = Run(several=True)
    jobs = [line_job(box, tmp_path, line, run) for line, _ in LINES]
    assert [dnspod.find_record(job, 'example.com').id for job in jobs] == [str(ids[name]) for _, name in LINES]
    assert server.calls() == ['list_records'] and 'RecordLine' not in server.requests[0].json


def test_a_record_without_lines_lists_and_makes_the_default_line_alone(box, tmp_path):
    """job.line None: as before lines, the listing names the default line and the type."""
    server = fake(box)
    server.add_record('example.com', RECORD, 'A', '81.2.69.77', line='电信')
    job = line_job(box, tmp_path, None)
    assert dnspod.find_record(job, 'example.com') is None
    dnspod.create_record(job, 'example.com', NEW)
    assert server.by_line(RECORD) == {'默认': [NEW], '电信': ['81.2.69.77']}
    assert (server.requests[0].json['RecordLine'], server.requests[0].json['RecordType']) == ('默认', 'A')


def test_a_delete_whose_answer_was_lost_is_success(box, tmp_path):
    """The delete takes effect and its answer is lost; sent again, it is answered RecordIdInvalid:
    the record is gone, as asked."""
    from ddkit.provider import Record
    server = fake(box)
    rid = server.add_record('example.com', RECORD, 'A', OLD, line='移动')
    server.fail('lost', route='delete_record')
    assert dnspod.delete_record(line_job(box, tmp_path, 'cm'), 'example.com', Record(str(rid))) is None
    assert server.by_line(RECORD) == {} and len(server.calls('delete_record')) == 2


def test_a_refused_delete_is_a_failure_with_its_fields(box, tmp_path):
    from ddkit import Failure
    from ddkit.provider import Record
    server = fake(box)
    rid = server.add_record('example.com', RECORD, 'A', OLD, line='联通')
    server.fail('reply', route='delete_record', body={'Response': {'Error': {
        'Code': 'FailedOperation.DomainIsLocked', 'Message': 'The domain is locked.'}, 'RequestId': 'r'}})
    with pytest.raises(Failure) as refused:
        dnspod.delete_record(line_job(box, tmp_path, 'cu'), 'example.com', Record(str(rid)))
    e = refused.value
    assert (e.step, e.code, e.status, e.kind) == ('delete record', 'FailedOperation.DomainIsLocked', 200, 'refused')
    assert e.fix == dnspod.FIXES[e.code] and e.provider_message == 'The domain is locked.'
    assert e.url.startswith(server.url) and server.by_line(RECORD) == {'联通': [OLD]}
