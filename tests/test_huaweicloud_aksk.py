"""Provider B with an access key (AK/SK): each DNS request signed SDK-HMAC-SHA256, no token, no auth
file. The official SDK is the oracle: the tool's signature is the one huaweicloudsdkcore's signer
makes, the fake checks every signature with that signer (and refuses a wrong one as the API gateway
does), the fake is served by the SDK's own DNS client, and what the fake takes is what
huaweicloudsdkdns's request models name."""

import json
import os
import time
import types
import urllib.error
import urllib.request

import pytest

import needs
from conftest import RECORD, ZONE, in_process
from providers import of

B = of('updater_b')
OLD, NEW = '81.2.69.1', '81.2.69.10'


def sdk():
    """The SDK's modules, or the test skipped (failed under CI) without them."""
    try:
        from huaweicloudsdkcore.auth.credentials import BasicCredentials
        from huaweicloudsdkcore.sdk_request import SdkRequest
        from huaweicloudsdkcore.signer.signer import Signer
        from huaweicloudsdkdns.v2 import model
    except ImportError:
        needs.missing('huaweicloudsdkcore and huaweicloudsdkdns are not installed (pip install -r '
                      'tests/requirements.txt): they are the oracle of the AK/SK signature and requests')
    return types.SimpleNamespace(BasicCredentials=BasicCredentials, SdkRequest=SdkRequest, Signer=Signer,
                                 model=model)


@pytest.fixture
def state(tmp_path):
    return tmp_path / 'state'


def signed_env(box, state):
    """The sandbox's settings of B in the access key's form."""
    env = box.env_b(str(state))
    env.update(box.provider_b.signed_settings())
    return env


def secret(box):
    return box.provider_b.access_keys[box.provider_b.access_key]


def status_of(env):
    return json.loads(in_process('updater_b', ['--status', '--json'], env=env).stdout)[0]


def everything_written(state, done):
    """stdout, stderr and every state file (the log among them)."""
    text = done.stdout + done.stderr
    for name in os.listdir(str(state)) if state.exists() else ():
        with open(str(state / name), errors='replace') as f:
            text += f.read()
    return text


# --- the signature ---------------------------------------------------------------------------------
REQUESTS = [   # (method, URL, body): the calls the provider makes, and the corners of their URLs
    ('GET', 'https://dns.myhuaweicloud.com/v2/zones?name=example.com', None),
    ('GET', 'https://dns.myhuaweicloud.com/v2/zones/ff8080827a/recordsets?type=AAAA&name=*.example.com', None),
    ('GET', 'http://127.0.0.1:8080/v2/zones/ff80/recordsets?limit=500&offset=1000', None),
    ('GET', 'https://[2001:db8::1]:8443/base/v2/zones/ff80/recordsets/ff81', None),
    ('POST', 'https://dns.myhuaweicloud.com/v2/zones/ff80/recordsets',
     {'name': 'home.example.com.', 'type': 'A', 'ttl': 120, 'records': [NEW], 'description': 'créé "ici"'}),
    ('PUT', 'https://dns.myhuaweicloud.com:443/v2/zones/ff80/recordsets/ff81',
     {'name': 'home.example.com.', 'type': 'AAAA', 'ttl': 120, 'records': ['2001:db8::1']}),
]


@pytest.mark.parametrize('method, url, body', REQUESTS, ids=[' '.join(r[:2]) for r in REQUESTS])
def test_the_signature_is_the_one_the_sdk_signer_makes(method, url, body):
    """The request as sent (URL, headers, body bytes) signed again by the SDK gives the same Authorization."""
    from urllib.parse import parse_qsl, urlsplit
    sdk_ = sdk()
    provider = B.module()
    from ddkit import jsontext
    cfg = types.SimpleNamespace(access_key='HPUAEXAMPLE0ACCESS01', secret_key='rC4x/9Qe+Wm2Lk0aZ7pT8vYb3sN6hJ1gF5')
    sent, headers = provider.sign(cfg, method, url, body)
    assert headers['Authorization'].startswith('SDK-HMAC-SHA256 Access=HPUAEXAMPLE0ACCESS01, SignedHeaders=')
    assert cfg.secret_key not in sent + json.dumps(headers)
    parts = urlsplit(sent)
    default = {'https': 443, 'http': 80}[parts.scheme]
    host = parts.hostname if ':' not in parts.hostname else '[%s]' % parts.hostname
    host += '' if (parts.port or default) == default else ':%d' % parts.port   # as ddkit.wire writes Host
    signed = dict(headers, Host=host)
    del signed['Authorization']
    again = sdk_.SdkRequest(method=method, schema=parts.scheme, host=host, resource_path=parts.path,
                            query_params=parse_qsl(parts.query), header_params=signed,
                            body=jsontext.dumps(body).encode('utf-8') if body is not None else b'')
    sdk_.Signer(sdk_.BasicCredentials(cfg.access_key, cfg.secret_key)).sign(again)
    assert again.header_params['Authorization'] == headers['Authorization']
    # what is sent is what is signed: the query in canonical order and encoding
    assert sent == url.split('?')[0] + ('?' + again.uri.partition('?')[2] if '?' in again.uri else '')


def test_signing_costs_under_a_millisecond():
    provider = B.module()
    cfg = types.SimpleNamespace(access_key='HPUAEXAMPLE0ACCESS01', secret_key='s' * 40)
    body = {'name': 'home.example.com.', 'type': 'A', 'ttl': 120, 'records': [NEW], 'description': 'x' * 60}
    provider.sign(cfg, 'PUT', 'https://dns.myhuaweicloud.com/v2/zones/ff80/recordsets/ff81', body)   # imports
    # CPU time, the best of a few batches: a busy machine (a parallel test run) must not decide it
    rounds, batches = 100, []
    for _ in range(5):
        started = time.process_time()
        for _ in range(rounds):
            provider.sign(cfg, 'PUT', 'https://dns.myhuaweicloud.com/v2/zones/ff80/recordsets/ff81', body)
        batches.append((time.process_time() - started) / rounds)
    assert min(batches) < 0.001, batches


# --- the fake, checked by the SDK ------------------------------------------------------------------
def test_the_fake_takes_what_the_sdk_request_models_name():
    """Its query parameters and body attributes, call by call, are the SDK models' (path parameters apart)."""
    from fakes import provider_b
    model = sdk().model
    path = {'zone_id', 'recordset_id', 'body'}
    assert provider_b.ZONES_QUERY == set(model.ListPublicZonesRequest.attribute_map) - path
    assert provider_b.RECORDSETS_QUERY == set(model.ListRecordSetsByZoneRequest.attribute_map) - path
    assert provider_b.CREATE_ATTRIBUTES == set(model.CreateRecordSetRequestBody.attribute_map)
    assert provider_b.UPDATE_ATTRIBUTES == set(model.UpdateRecordSetReq.attribute_map)
    assert set(model.ShowRecordSetRequest.attribute_map) == {'zone_id', 'recordset_id'}


def test_the_sdk_dns_client_is_served_by_the_fake(box):
    """The SDK's own client, signing as it does (and sending X-Project-Id), lists, creates, reads and
    updates through the fake: the fake speaks the API the SDK speaks."""
    sdk_ = sdk()
    from huaweicloudsdkcore.http.http_config import HttpConfig
    from huaweicloudsdkdns.v2 import DnsClient
    fake, model = box.provider_b, sdk_.model
    config = HttpConfig.get_default_config()
    config.timeout = (5, 10)
    client = DnsClient.new_builder().with_http_config(config).with_endpoints([fake.url]).with_credentials(
        sdk_.BasicCredentials(fake.access_key, secret(box), 'p' * 32)).build()
    zones = client.list_public_zones(model.ListPublicZonesRequest(name=ZONE)).zones
    assert [z.id for z in zones] == [box.zone_b]
    made = client.create_record_set(model.CreateRecordSetRequest(
        zone_id=box.zone_b,
        body=model.CreateRecordSetRequestBody(name=RECORD + '.', type='A', ttl=120, records=[OLD])))
    listed = client.list_record_sets_by_zone(model.ListRecordSetsByZoneRequest(zone_id=box.zone_b, name=RECORD,
                                                                               type='A'))
    assert [r.id for r in listed.recordsets] == [made.id]
    client.update_record_set(model.UpdateRecordSetRequest(zone_id=box.zone_b, recordset_id=made.id,
                                                           body=model.UpdateRecordSetReq(records=[NEW])))
    shown = client.show_record_set(model.ShowRecordSetRequest(zone_id=box.zone_b, recordset_id=made.id))
    assert shown.records == [NEW]
    assert [access for access, _ in fake.signed] == [fake.access_key] * 5
    assert fake.calls() == ['list_zones', 'create_record', 'list_records', 'update_record', 'get_record']


def send(fake, method, path, body, headers):
    request = urllib.request.Request(fake.url + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.mark.parametrize('change, message', [
    (None, None),
    ('body', 'verify aksk signature fail'),          # a body other than the one signed
    ('query', 'verify aksk signature fail'),         # a query other than the one signed
    ('secret', 'verify aksk signature fail'),        # signed with another secret key
    ('clock', 'verify aksk signature fail'),         # signed 16 minutes before the provider's clock
    ('access key', 'ak not exist'),
])
def test_the_fake_refuses_a_wrong_signature_as_the_api_gateway_does(box, change, message):
    sdk()
    from ddkit import jsontext
    fake = box.provider_b
    rid = fake.add_record(box.zone_b, RECORD, 'A', [OLD])
    cfg = types.SimpleNamespace(access_key='HPUAUNKNOWN000000001' if change == 'access key' else fake.access_key,
                                secret_key=secret(box) + 'x' if change == 'secret' else secret(box))
    fake.clock_offset = 16 * 60 if change == 'clock' else 0
    if change == 'query':   # a listing signed for one name, sent for another
        url, headers = B.module().sign(cfg, 'GET', '%s/v2/zones/%s/recordsets?name=%s'
                                       % (fake.url, box.zone_b, RECORD))
        status, answer = send(fake, 'GET', url[len(fake.url):].replace('home.', 'other.'), None, headers)
    else:
        body = {'name': RECORD + '.', 'type': 'A', 'ttl': 120, 'records': [NEW]}
        url, headers = B.module().sign(cfg, 'PUT', '%s/v2/zones/%s/recordsets/%s' % (fake.url, box.zone_b, rid),
                                       body)
        sent = dict(body, ttl=300) if change == 'body' else body
        status, answer = send(fake, 'PUT', url[len(fake.url):], jsontext.dumps(sent).encode('utf-8'), headers)
    if change is None:
        assert status == 202 and fake.recordsets[rid]['records'] == [NEW], answer
        assert fake.signed == [(fake.access_key, headers['X-Sdk-Date'])]
        return
    assert status == 401 and answer['error_code'] == 'APIGW.0301', answer
    assert answer['error_msg'].startswith('Incorrect IAM authentication information: ')
    assert message in answer['error_msg']
    assert fake.recordsets[rid]['records'] == [OLD] and fake.signed == []


# --- the tool with an access key -------------------------------------------------------------------
def test_an_access_key_signs_every_request_and_writes_no_auth_file(box, state):
    sdk()
    fake = box.provider_b
    fake.add_record(box.zone_b, RECORD, 'A', [OLD])
    box.lookup.answer = NEW
    # the password form's settings given too: the access key wins, no token is asked for
    env = dict(box.env_b(str(state)), DDNS_ACCESS_KEY=fake.access_key, DDNS_SECRET_KEY=secret(box))
    done = in_process('updater_b', env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert fake.calls() == ['list_zones', 'list_records', 'update_record'] and fake.issued == []
    assert fake.find(RECORD)[0]['records'] == [NEW]
    for request in fake.requests:
        assert request.headers['authorization'].startswith('SDK-HMAC-SHA256 Access=%s, ' % fake.access_key)
        assert 'x-auth-token' not in request.headers and 'x-project-id' not in request.headers
    assert len(fake.signed) == 3
    # the ids and the IP are kept, nothing of the credentials: no auth file
    kept = set(os.listdir(str(state)))
    assert {B.files['ids_file'] % RECORD, B.ip_file(RECORD)} <= kept and B.files['auth_file'] % RECORD not in kept
    assert [name for name in kept if 'token' in name or name.startswith('.hw-') and name not in (
        B.files['ids_file'] % RECORD, B.ip_file(RECORD))] == []
    assert secret(box) not in everything_written(state, done)


def test_a_record_is_created_and_then_left_alone(box, state):
    sdk()
    fake = box.provider_b
    box.lookup.answer = NEW
    env = signed_env(box, state)
    assert in_process('updater_b', env=env).returncode == 0
    assert fake.calls() == ['list_zones', 'list_records', 'create_record']
    assert fake.find(RECORD)[0]['records'] == [NEW] and fake.find(RECORD)[0]['ttl'] == 120
    fake.reset_log()
    assert in_process('updater_b', env=env).returncode == 0 and fake.calls() == []   # the ip file decides
    assert (state / B.ip_file(RECORD)).read_text() == NEW + '\n'
    assert B.files['auth_file'] % RECORD not in os.listdir(str(state))


@pytest.mark.parametrize('wrong', ['secret key', 'clock', 'access key'])
def test_a_refused_signature_fails_with_its_fix_and_no_secret(box, state, wrong):
    sdk()
    fake = box.provider_b
    fake.add_record(box.zone_b, RECORD, 'A', [OLD])
    box.lookup.answer = NEW
    env = signed_env(box, state)
    if wrong == 'secret key':
        env['DDNS_SECRET_KEY'] = 'not-' + secret(box)
    elif wrong == 'clock':
        fake.clock_offset = 20 * 60   # this host's clock 20 minutes behind the provider's
    else:
        env['DDNS_ACCESS_KEY'] = 'HPUAUNKNOWN000000001'
    done = in_process('updater_b', env=env)
    assert done.returncode == 1 and 'Traceback' not in done.stderr
    # refused at once, never taken as "no recordset" (which would go on to create one), never retried
    assert fake.calls() == ['list_zones'] and fake.find(RECORD)[0]['records'] == [OLD]
    assert 'APIGW.0301' in done.stdout and 'check access_key and secret_key' in done.stdout
    shown = status_of(env)
    assert (shown['outcome'], shown['step'], shown['code'], shown['http_status'], shown['kind']) == \
        ('failed', 'find zone', 'APIGW.0301', 401, 'refused')
    assert 'clock' in shown['fix']
    assert secret(box) not in everything_written(state, done)
    assert env['DDNS_SECRET_KEY'] not in everything_written(state, done) + json.dumps(shown)


def test_check_says_which_form_is_used_and_shows_no_key(box, state):
    sdk()
    fake = box.provider_b
    fake.add_record(box.zone_b, RECORD, 'A', [NEW])
    box.lookup.answer = NEW
    done = in_process('updater_b', ['--check'], env=signed_env(box, state))
    assert done.returncode == 0, done.stdout
    assert 'credentials accepted (access key and secret key: each request signed, no token)' in done.stdout
    assert fake.access_key not in done.stdout and secret(box) not in done.stdout
    assert fake.calls() == ['list_zones', 'list_records'] and fake.issued == []   # the zones listed once


def test_missing_credentials_name_both_forms(box, state):
    env = dict(box.env_b(str(state)), DDNS_USERNAME='', DDNS_PASSWORD='', DDNS_PROJECT_NAME='')
    done = in_process('updater_b', env=env)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert 'access_key and secret_key (or username, password and project_name)' in done.stderr
    done = in_process('updater_b', ['--check'], env=env)
    assert done.returncode == 2
    failed = [line for line in done.stdout.splitlines() if 'settings complete:' in line and 'FAIL' in line]
    assert len(failed) == 1, done.stdout
    fix = failed[0].partition(' -- fix: ')[2]
    assert 'set access_key and secret_key' in fix and 'or username, password and project_name' in fix, fix
    # half an access key: the other half is what lacks, whatever the password form has
    done = in_process('updater_b', env=dict(box.env_b(str(state)), DDNS_ACCESS_KEY='HPUAEXAMPLE0ACCESS01'))
    assert done.returncode == 2 and 'missing setting secret_key:' in done.stderr, done.stderr
    assert box.provider_b.requests == []


def test_signed_over_https(tls_box, state):
    """The signature holds over TLS too: the scheme's port, the verified certificate."""
    sdk()
    pytest.importorskip('trustme')
    from fakes.helpers import IpLookup
    lookup = IpLookup(NEW).start()
    try:
        fake = tls_box.provider_b
        fake.add_record(tls_box.zone_b, RECORD, 'A', [OLD])
        env = dict(signed_env(tls_box, state), DDNS_CA_FILE=tls_box.ca_file, DDNS_IP_LOOKUP_URL=lookup.url)
        done = in_process('updater_b', env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert fake.url.startswith('https://') and len(fake.signed) == 3
        assert fake.calls() == ['list_zones', 'list_records', 'update_record']
        assert fake.find(RECORD)[0]['records'] == [NEW]
    finally:
        lookup.stop()
