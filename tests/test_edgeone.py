"""The EdgeOne provider (Tencent Cloud TEO API 3.0) against its fake over real HTTP, the official SDK
as the oracle: the tool's TC3 signatures (ddkit.provider.tc3, for the service teo) are the SDK's, its
request fields, nested ones too, are the SDK models', and the fake checks each request with the SDK's
own code. The outcome table of every provider (test_provider_tables) covers the common rows; here:
the site found by name and every site listed (account_zones), the default line, what an update
keeps, the apex, stale ids, a create that meets the record, the refusals with their codes and fixes,
--check, both families in one run, hostile answers, and `lines` refused."""

import json
import os
import sys
import time

import pytest

import needs
from conftest import RECORD, ROOT, ZONE, run_tool
from provider_harness import Harness, failed, ok
from fakes import edgeone as fake_module
from fakes.base import Reply
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import Failure, jsontext, provider  # noqa: E402
from ddkit.providers import edgeone  # noqa: E402

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
SDK = 'tencentcloud-sdk-python-common and tencentcloud-sdk-python-teo (pip install -r tests/requirements.txt)'


def oracle():
    """The SDK's signing code and models (fakes.edgeone.sdk), or the test says it is missing."""
    found = fake_module.sdk()
    if found is None:
        needs.missing('the official SDK is the oracle: ' + SDK)
    return found


EDGEONE = Harness('edgeone', NEW, before=oracle)
fake, state = EDGEONE.fixtures()
env_of, run, status = EDGEONE.env_of, EDGEONE.run, EDGEONE.status


def ids(state):
    return (state / ('.edgeone-id_%s.txt' % RECORD)).read_text().split()


def keep_ids(box, fake, state, rid, claimed=OLD):
    (state / ('.edgeone-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (box.zones['edgeone'], rid))
    (state / ('.edgeone-ip_%s.txt' % RECORD)).write_text(claimed + '\n')


def listed_nothing(reply):
    """A DescribeDnsRecords answer that lists nothing (a record made meanwhile elsewhere)."""
    body = json.loads(reply.raw)
    body['Response'].update(TotalCount=0, DnsRecords=[])
    return Reply(200, body)


# --- the SDK as the oracle ---------------------------------------------------------------------

@pytest.mark.parametrize('host, params', [
    ('teo.tencentcloudapi.com', {'ZoneId': 'zone-2noz78a8ev6k', 'Filters': [{'Name': 'name', 'Values': [RECORD]}]}),
    ('127.0.0.1:8443', {'ZoneId': 'zone-2noz78a8ev6k', 'Name': 'xn--bcher-kva.example', 'TTL': 600}),
    ('[::1]:8080', {}),
])
def test_the_signature_is_the_one_the_sdk_makes_for_teo(host, params):
    client, request, teo_client, _ = oracle()
    assert (teo_client._apiVersion, teo_client._service) == (edgeone.VERSION, edgeone.SERVICE)
    payload = jsontext.dumps(params).encode()
    stamp = 1767225599   # 2025-12-31 23:59:59 UTC: the scope's date is the UTC one
    headers = provider.tc3('AKIDexample', 'secret-key', 'teo', edgeone.VERSION, host, 'DescribeDnsRecords',
                           payload, stamp)
    req = request(host, 'POST', '/', header={'Content-Type': headers['Content-Type'], 'Host': host,
                                             'X-TC-Timestamp': headers['X-TC-Timestamp']}, data=payload)
    expected = client._get_tc3_signature(None, None, req, '2025-12-31', 'teo', 'secret-key')
    assert headers['Authorization'] == ('TC3-HMAC-SHA256 Credential=AKIDexample/2025-12-31/teo/tc3_request, '
                                        'SignedHeaders=content-type;host, Signature=%s' % expected)
    assert (headers['X-TC-Action'], headers['X-TC-Version']) == ('DescribeDnsRecords', '2022-09-01')


def test_the_fake_serves_the_sdks_own_client_and_refuses_a_wrong_key(fake):
    from tencentcloud.common import credential
    from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException
    from tencentcloud.common.profile.client_profile import ClientProfile
    from tencentcloud.common.profile.http_profile import HttpProfile
    from tencentcloud.teo.v20220901 import models, teo_client
    fake.add_record(fake.add_zone('example.net'), 'www.example.net', 'A', OLD)
    profile = ClientProfile(httpProfile=HttpProfile(endpoint='127.0.0.1:%d' % fake.port, protocol='http'))
    request = models.DescribeZonesRequest()
    request.Filters = [models.AdvancedFilter()]
    request.Filters[0].Name, request.Filters[0].Values = 'zone-name', ['example.net']
    client = teo_client.TeoClient(credential.Credential(fake.secret_id, fake.secret_key), '', profile)
    (zone,) = client.DescribeZones(request).Zones
    listing = models.DescribeDnsRecordsRequest()
    listing.ZoneId = zone.ZoneId
    assert [r.Content for r in client.DescribeDnsRecords(listing).DnsRecords] == [OLD]
    wrong = teo_client.TeoClient(credential.Credential(fake.secret_id, 'x' + fake.secret_key), '', profile)
    with pytest.raises(TencentCloudSDKException) as refused:
        wrong.DescribeZones(request)
    assert refused.value.code == 'AuthFailure.SignatureFailure'


def test_every_request_is_signed_and_names_only_fields_of_its_sdk_model(box, fake, state):
    _, _, _, models = oracle()
    ok(run(box, state))                                      # site, listing, create
    ok(run(box, state, ip=OTHER))                            # read, update
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'get_record', 'update_record']
    assert len(fake.signatures) == 5 and all(expected for _, expected in fake.signatures)
    for req in fake.requests:
        assert req.path == '/' and req.method == 'POST'
        assert fake_module.model_problem(models, req.action + 'Request', req.json) is None, req.action


@pytest.mark.parametrize('action, params, code', [
    ('DescribeDnsRecords', {'ZoneId': 'zone-none', 'Filters': [{'Name': 'name', 'Values': [RECORD]}]},
     'ResourceNotFound.ZoneNotFound'),
    ('DescribeDnsRecords', {'ZoneId': 1}, 'InvalidParameter'),
    ('DescribeDnsRecords', {'ZoneId': 'z', 'Filter': []}, 'UnknownParameter'),
    ('CreateDnsRecord', {'ZoneId': 'z', 'Name': RECORD, 'Type': 'A'}, 'MissingParameter'),
    ('ModifyDnsRecords', {'ZoneId': 'z', 'DnsRecords': [{'RecordId': 'r', 'TTL': '600'}]}, 'InvalidParameter'),
    ('ModifyDnsRecords', {'ZoneId': 'z', 'DnsRecords': [{'RecordId': 'r', 'Ttl': 600}]}, 'UnknownParameter'),
    ('DeleteZone', {'ZoneId': 'z'}, 'InvalidAction'),
])
def test_the_fake_refuses_what_the_api_refuses(fake, action, params, code):
    import urllib.request
    payload = jsontext.dumps(params).encode()
    headers = provider.tc3(fake.secret_id, fake.secret_key, 'teo', edgeone.VERSION, '127.0.0.1:%d' % fake.port,
                           action, payload, int(time.time()))
    with urllib.request.urlopen(urllib.request.Request(fake.url + '/', payload, headers, method='POST'),
                                timeout=10) as answer:
        assert json.loads(answer.read())['Response']['Error']['Code'] == code


# --- what a run does ---------------------------------------------------------------------------

def test_the_record_is_made_on_the_default_line_and_the_site_id_kept(box, fake, state):
    done = run(box, state)
    ok(done)
    (made,) = fake.find(RECORD)
    assert (made['content'], made['Location'], made['TTL'], made['Weight']) == (NEW, 'Default', 300, -1)
    assert ids(state) == [box.zones['edgeone'], made['RecordId']]
    sent = fake.calls('list_zones')[0].json
    assert sent['Filters'] == [{'Name': 'zone-name', 'Values': [ZONE]}]
    assert fake.calls('list_records')[0].json['Filters'] == [{'Name': 'name', 'Values': [RECORD]},
                                                             {'Name': 'type', 'Values': ['A']}]
    assert status(box, state)['outcome'] == 'created'


def test_a_record_of_the_name_on_another_line_is_not_ours(box, fake, state):
    other = fake.add_record(box.zones['edgeone'], RECORD, 'A', OLD, location='Overseas')
    ok(run(box, state))
    assert fake.records[other]['content'] == OLD
    assert fake.by_line(RECORD) == {'Default': [NEW], 'Overseas': [OLD]}


def test_an_update_keeps_the_ttl_weight_and_priority_set_in_the_console(box, fake, state):
    """ModifyDnsRecords may reset what it is not sent (the fake does): what was read is sent back."""
    rid = fake.add_record(box.zones['edgeone'], RECORD, 'A', OLD, ttl=1200, weight=30, priority=5, status='disable')
    ok(run(box, state))
    held = fake.records[rid]
    assert (held['content'], held['TTL'], held['Weight'], held['Priority'], held['Status'], held['Location']) == \
        (NEW, 1200, 30, 5, 'disable', 'Default')
    (sent,) = fake.calls('update_record')[0].json['DnsRecords']
    assert sent == {'RecordId': rid, 'Name': RECORD, 'Type': 'A', 'Content': NEW, 'Location': 'Default',
                    'TTL': 1200, 'Weight': 30, 'Priority': 5}


def test_a_ttl_the_api_would_refuse_is_not_sent_back(box, fake, state):
    rid = fake.add_record(box.zones['edgeone'], RECORD, 'A', OLD, ttl=10 ** 9, weight=True)
    ok(run(box, state))
    (sent,) = fake.calls('update_record')[0].json['DnsRecords']
    assert 'TTL' not in sent and 'Weight' not in sent and fake.records[rid]['TTL'] == 300


def test_the_apex_is_the_site_name(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    (made,) = fake.find(ZONE)
    assert made['content'] == NEW and fake.calls('create_record')[0].json['Name'] == ZONE


@pytest.mark.parametrize('name', ['@', 'home', 'HOME.Example.com.'])
def test_a_name_listed_in_another_form_is_still_the_record(box, fake, state, name):
    """Whether the API lists a full name or the host, the record is recognised (no second one made)."""
    rid = fake.add_record(box.zones['edgeone'], ZONE if name == '@' else RECORD, 'A', OLD)

    def renamed(reply):
        body = json.loads(reply.raw)
        for r in body['Response']['DnsRecords']:
            r['Name'] = name
        return Reply(200, body)
    fake.fail('rewrite', route='list_records', answer=renamed)
    ok(run(box, state, **({'DDNS_RECORD_NAME': ZONE} if name == '@' else {})))
    assert fake.calls() == ['list_zones', 'list_records', 'update_record'] and fake.records[rid]['content'] == NEW


def test_stale_ids_are_looked_up_again_once(box, fake, state):
    gone = fake.add_record(box.zones['edgeone'], RECORD, 'A', OLD)
    del fake.records[gone]
    keep_ids(box, fake, state, gone)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_zones', 'list_records', 'create_record']
    assert 'Stored ids are stale' in done.stdout and ids(state)[1] == fake.find(RECORD)[0]['RecordId']


@pytest.mark.parametrize('code', sorted(edgeone.ZONE_GONE) + ['ResourceNotFound'])
def test_ids_of_a_site_or_record_gone_are_stale(box, fake, state, code):
    """Which code says the site is gone is not documented per action: each of them is taken so."""
    rid = fake.add_record(box.zones['edgeone'], RECORD, 'A', OLD)
    keep_ids(box, fake, state, rid)
    fake.fail('reply', route='get_record', body={'Response': {'Error': {'Code': code, 'Message': 'gone'},
                                                              'RequestId': 'r'}})
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'list_zones', 'list_records', 'update_record']


def test_a_create_that_meets_the_record_updates_it(box, fake, state):
    """A listing that missed the record (made meanwhile): the create is refused, a fresh listing finds it
    (which code a duplicate gets is not documented, so a refusal is looked at), and the loop's own
    fresh lookup takes it and updates it."""
    rid = fake.add_record(box.zones['edgeone'], RECORD, 'A', NEW, ttl=900)
    fake.fail('rewrite', route='list_records', answer=listed_nothing)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'list_records', 'list_records',
                            'update_record']
    assert [r['RecordId'] for r in fake.find(RECORD)] == [rid] and fake.records[rid]['TTL'] == 900
    assert 'the record exists, so it is updated' in done.stdout and status(box, state)['outcome'] == 'updated'


def test_a_refused_create_of_a_record_that_is_not_there_fails_with_its_fix(box, fake, state):
    fake.add_record(box.zones['edgeone'], RECORD, 'CNAME', 'elsewhere.example.net')
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['code'], shown['kind']) == \
        ('create record', 'InvalidParameterValue.ConflictRecord', 'refused')
    assert shown['fix'] == edgeone.FIXES[shown['code']] and shown['fix'] in done.stdout
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'list_records']


def test_both_families_in_one_run_list_the_name_once(box, fake, state, dual):
    zone = box.zones['edgeone']
    rids = [fake.add_record(zone, RECORD, t, ip) for t, ip in (('A', OLD), ('AAAA', '240e:1::1'))]
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_zones', 'list_records', 'update_record', 'update_record']
    assert fake.calls('list_records')[0].json['Filters'] == [{'Name': 'name', 'Values': [RECORD]}]
    assert [fake.records[r]['content'] for r in rids] == [dual.v4, dual.v6]


def test_lines_are_refused_before_any_request(box, fake, state):
    done = run(box, state, DDNS_RECORD_TYPE='AAAA', DDNS_LINES='ct=iface:lo cm=iface:lo')
    assert done.returncode == 2 and 'lines: provider edgeone holds one address per name' in done.stderr, \
        done.stdout + done.stderr
    assert fake.calls() == []


# --- every site the key sees ---------------------------------------------------------------------

def zones_job(box, state):
    """A Job of the sandbox's record, run in-process against the fake."""
    from ddkit import settings, updater
    from ddkit.log import Log
    from ddkit.provider import Job, Run
    table = edgeone.SETTINGS + updater.COMMON
    cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES,
                        environ=env_of(box, state))
    return Job(edgeone, cfg, Run(), Log(None, quiet=True))


def test_account_zones_lists_every_site_page_by_page(box, fake, state):
    made = {fake.add_zone('Site%d.Example.NET.' % n): 'site%d.example.net' % n for n in range(230)}
    made[box.zones['edgeone']] = ZONE
    found = edgeone.account_zones(zones_job(box, state))
    assert sorted((z.id, z.name) for z in found) == sorted(made.items())
    assert [r.json['Offset'] for r in fake.calls('list_zones')] == [0, 100, 200]
    assert all('Filters' not in r.json and r.json['Limit'] == 100 for r in fake.calls('list_zones'))


def test_account_zones_stops_at_its_bound(box, fake, state, monkeypatch):
    monkeypatch.setattr(edgeone, 'ZONES_PAGES', 2)
    for n in range(250):
        fake.add_zone('site%d.example.net' % n)
    with pytest.raises(Failure) as refused:
        edgeone.account_zones(zones_job(box, state))
    assert (refused.value.step, refused.value.fix) == ('find zone', 'set zone_name')
    assert len(fake.calls('list_zones')) == 2


# --- refusals: their codes, fixes, and no secret shown ----------------------------------------

@pytest.mark.parametrize('change, code', [
    (lambda fake: fake.keys.update({fake.secret_id: 'another-secret'}), 'AuthFailure.SignatureFailure'),
    (lambda fake: fake.keys.update({'AKIDother': fake.keys.pop(fake.secret_id)}), 'AuthFailure.SecretIdNotFound'),
    (lambda fake: setattr(fake, 'skew', 301), 'AuthFailure.SignatureExpire'),
    (lambda fake: setattr(fake, 'allowed', {'DescribeDnsRecords'}), 'AuthFailure.UnauthorizedOperation'),
], ids=['bad secret', 'unknown key', 'clock off', 'CAM'])
def test_a_refusal_says_its_code_and_fix_and_never_the_secret(box, fake, state, change, code):
    fake.add_record(box.zones['edgeone'], RECORD, 'A', OLD)
    change(fake)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['code'], shown['kind']) == ('find zone', code, 'refused')
    assert shown['fix'] == edgeone.FIXES[code] and shown['fix'] in done.stdout
    log = (state / ('ddkit_edgeone_%s.log' % RECORD)).read_text()
    assert fake.secret_key not in done.stdout + done.stderr + log + json.dumps(shown)
    assert all(fake.secret_key not in r.body.decode() + str(r.headers) for r in fake.requests)
    assert fake.find(RECORD)[0]['content'] == OLD


@pytest.mark.parametrize('code', sorted(edgeone.ZONE_GONE))
def test_a_site_gone_while_listing_fails_finding_the_zone(box, fake, state, code):
    fake.fail('reply', route='list_records', body={'Response': {'Error': {'Code': code, 'Message': 'no site'},
                                                                'RequestId': 'r'}})
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['kind'], shown['code'], shown['fix']) == \
        ('find zone', 'not found', code, edgeone.SITE)


@pytest.mark.parametrize('code', ['InvalidParameterValue.ZonePaused', 'InvalidParameterValue.InvalidDNSContent',
                                  'OperationDenied.RecordIsForbidden', 'RequestLimitExceeded'])
def test_an_update_refused_says_its_code_and_fix(box, fake, state, code):
    rid = fake.add_record(box.zones['edgeone'], RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', body={'Response': {'Error': {'Code': code, 'Message': 'no'},
                                                                 'RequestId': 'r'}})
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['code'], shown['fix']) == ('update record', code, edgeone.FIXES[code])
    assert fake.records[rid]['content'] == OLD and 'update record: error %s: no' % code in done.stdout


def test_a_site_not_in_the_account_fails_finding_the_zone(box, fake, state):
    other = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done = run(box, state, **other)
    failed(done)
    shown = status(box, state, **other)
    assert (shown['step'], shown['kind'], shown['fix']) == ('find zone', 'not found', edgeone.SITE)
    assert 'no EdgeOne site example.org in this account' in done.stdout and fake.calls() == ['list_zones']


def test_check_walks_the_steps_and_names_the_failing_one(box, fake, state):
    fake.add_record(box.zones['edgeone'], RECORD, 'A', NEW)
    done = run(box, state, '--check')
    ok(done)
    assert 'credentials accepted (SecretId %s...)' % fake.secret_id[:8] in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, box.zones['edgeone']) in done.stdout
    assert 'A record %s found' % RECORD in done.stdout and os.listdir(str(state)) == []
    # the credentials and the site by one lookup; the record by a fresh listing, as strict lookups are
    assert fake.calls() == ['list_zones', 'list_records']
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert done.returncode == 1 and 'ok    credentials accepted' in done.stdout
    assert 'FAIL  zone found: find zone: no EdgeOne site example.org' in done.stdout
    fake.keys[fake.secret_id] = 'another-secret'
    done = run(box, state, '--check')
    assert 'FAIL  credentials accepted: find zone: the provider refused the request (code ' \
           'AuthFailure.SignatureFailure)' in done.stdout and 'skip  zone found' in done.stdout, done.stdout


@pytest.mark.parametrize('route, body', [
    ('create_record', {'Response': {'RecordId': '../x', 'RequestId': 'r'}}),
    ('create_record', {'Response': {'RecordId': True, 'RequestId': 'r'}}),
    ('list_zones', {'Response': 'x'}),
    ('list_zones', {'Response': {'Zones': {'ZoneId': 'zone-1'}, 'RequestId': 'r'}}),
    ('list_records', {'Response': {'DnsRecords': 'x', 'RequestId': 'r'}}),
    ('list_records', {'Response': {'Error': ['AuthFailure'], 'RequestId': 'r'}}),
    ('list_records', [1, 2]),
])
def test_hostile_answers_fail_in_one_line(box, fake, state, route, body):
    fake.fail('rewrite', route=route, answer=lambda reply: Reply(200, body))
    done = run(box, state)
    failed(done)
    assert 'ERROR' in done.stdout + done.stderr and not (state / ('.edgeone-id_%s.txt' % RECORD)).exists()
