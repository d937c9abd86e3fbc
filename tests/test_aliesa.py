"""The ESA provider (Alibaba Cloud Edge Security Acceleration) against its fake over real HTTP, the
official SDK as the oracle: the tool's ACS3-HMAC-SHA256 Authorization is the one tea-openapi's signer
makes (the fake refuses any other, as the API does), its parameters are those of
alibabacloud-esa20240910's request models, sent with the SDK's methods. The outcome table of every
provider (test_provider_tables) covers the common rows; here: what is ESA's own (one type A/AAAA for
both families, told apart by value; the site found by name and every site listed; a site connected by
CNAME; what an update keeps), stale ids, a create that meets the record, a nonce sent twice, the
refusals with their codes and fixes, --check, hostile answers, and `lines` refused."""

import json
import os
import re
import sys

import pytest

import needs
from conftest import RECORD, ROOT, ZONE, run_tool
from provider_harness import Harness, failed, ok
from fakes import aliesa as fake_module
from fakes.base import Reply
from test_records import dual  # noqa: F401  (the fixture: a lookup that answers both families)

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import Failure, provider  # noqa: E402
from ddkit.providers import aliesa  # noqa: E402

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
V6 = '2001:db8::10'
SDK = 'alibabacloud-tea-openapi and alibabacloud-esa20240910 (pip install -r tests/requirements.txt)'


def oracle():
    """The SDK's signer and models (fakes.aliesa.sdk), or the test says it is missing."""
    found = fake_module.sdk()
    if found is None:
        needs.missing('the official SDK is the oracle: ' + SDK)
    return found


ALIESA = Harness('aliesa', NEW, before=oracle)
fake, state = ALIESA.fixtures()
env_of, run, status = ALIESA.env_of, ALIESA.run, ALIESA.status


def keep_ids(box, state, rid, claimed=OLD):
    (state / ('.aliesa-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (box.zones['aliesa'], rid))
    (state / ('.aliesa-ip_%s.txt' % RECORD)).write_text(claimed + '\n')


def sent(req):
    """The Data a request sent, parsed."""
    return json.loads(req.query['Data'])


# --- the SDK as the oracle ---------------------------------------------------------------------

@pytest.mark.parametrize('method, params', [
    ('GET', {'SiteId': '7000000000001', 'RecordName': RECORD, 'RecordMatchType': 'exact', 'Type': 'A/AAAA'}),
    ('POST', {'RecordId': '5000000000001', 'Data': '{"Value": "2001:db8::1"}', 'Comment': 'a b*c~d+e/f=g&h\u00e9\u4e2d'}),
    ('GET', {}),
])
def test_the_signature_is_the_one_the_sdks_signer_makes(method, params):
    utils, _ = oracle()
    import types
    query = provider.canonical_query(params)
    for secret in ('eSaSeCrEt0123456789abcdefGHIJ', 'with space/+=&'):
        headers = aliesa.sign('LTAI5tKey', secret, method, 'esa.cn-hangzhou.aliyuncs.com:8443', query, 'ListRecords',
                              '2026-01-02T03:04:05Z', '0f5e811ae45e4dbf')
        signed = {k: v for k, v in headers.items() if k != 'Authorization'}
        signed['host'] = 'esa.cn-hangzhou.aliyuncs.com:8443'
        remade = types.SimpleNamespace(pathname='/', method=method, query=params, headers=signed)
        assert headers['Authorization'] == utils.get_authorization(remade, 'ACS3-HMAC-SHA256',
                                                                   aliesa.EMPTY_SHA256, 'LTAI5tKey', secret)
    assert aliesa.EMPTY_SHA256 == __import__('hashlib').sha256(b'').hexdigest()


def test_each_action_is_sent_with_the_sdks_method_and_its_model_fields(box, fake, state):
    """The methods the fake expects are those of the SDK's client; every request the tool sends names
    only parameters of its action's request model, with the SDK's method."""
    _, models = oracle()
    import importlib.util
    with open(importlib.util.find_spec('alibabacloud_esa20240910.client').origin, encoding='utf-8') as f:
        source = f.read()   # read, not imported: the client module is large, and loads aiohttp
    for action, (method, _) in fake_module.ACTIONS.items():
        name = re.sub(r'(?<!^)([A-Z])', r'_\1', action).lower()
        body = source.split('    def %s_with_options(' % name, 1)[1].split('\n    def ', 1)[0]
        assert "method = '%s'" % method in body, action
    ok(run(box, state))                                       # site, listing, create
    ok(run(box, state, ip=OTHER))                             # read, update
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'get_record', 'update_record']
    assert len(fake.signed) == 5 and all(got == made for _, got, made in fake.signed)
    for req in fake.requests:
        action = req.headers['x-acs-action']
        assert req.method == fake_module.ACTIONS[action][0] and req.path == '/' and req.body == b''
        assert set(req.query) <= fake_module.sdk_fields(models, action), action


def test_the_sdk_itself_is_served_by_the_fake(box, fake):
    """The fake in the SDK's eyes: its client lists a site's records through it, and a wrong secret is
    refused in the shape the SDK reads."""
    from alibabacloud_esa20240910 import models
    from alibabacloud_esa20240910.client import Client
    from alibabacloud_tea_openapi import models as open_api_models
    from alibabacloud_tea_openapi.exceptions import ClientException
    site = box.zones['aliesa']
    rid = fake.add_record(site, RECORD, 'A', OLD, ttl=300)

    def client(secret):
        return Client(open_api_models.Config(access_key_id=fake.key_id, access_key_secret=secret,
                                             endpoint='127.0.0.1:%d' % fake.port, protocol='http'))
    listed = client(fake.secret).list_records(models.ListRecordsRequest(site_id=site, record_name=RECORD,
                                                                        type='A/AAAA'))
    assert [(r.record_id, r.data.value, r.ttl) for r in listed.body.records] == [(rid, OLD, 300)]
    with pytest.raises(ClientException) as refused:
        client('not-the-secret').list_records(models.ListRecordsRequest(site_id=site))
    assert (refused.value.code, refused.value.status_code) == ('SignatureDoesNotMatch', 400)


# --- what is ESA's own -------------------------------------------------------------------------

def test_the_record_is_made_as_type_a_aaaa_with_the_automatic_ttl(box, fake, state):
    ok(run(box, state))
    (made,) = fake.find(RECORD)
    assert (made['RecordType'], made['content'], made['Ttl'], made['Proxied']) == ('A/AAAA', NEW, 1, False)
    create = fake.calls('create_record')[0].query
    assert (create['Type'], sent(fake.calls('create_record')[0]), create['Ttl']) == ('A/AAAA', {'Value': NEW}, '1')
    assert fake.calls('list_zones')[0].query['SiteSearchType'] == 'exact'
    listing = fake.calls('list_records')[0].query
    assert (listing['Type'], listing['RecordName'], listing['RecordMatchType']) == ('A/AAAA', RECORD, 'exact')
    assert (state / ('.aliesa-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (box.zones['aliesa'],
                                                                                 made['RecordId'])


def test_the_other_familys_record_of_the_name_is_not_ours(box, fake, state, dual):
    """A/AAAA is one type: the IPv6 record of the name is told from the IPv4 one by its value."""
    v6 = fake.add_record(box.zones['aliesa'], RECORD, 'AAAA', V6)
    ok(run(box, state))
    assert fake.records[v6]['content'] == V6 and [r['content'] for r in fake.find(RECORD)] == [NEW]
    fake.reset_log()
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_zones', 'list_records', 'update_record']
    assert fake.records[v6]['content'] == dual.v6 and [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_both_families_in_one_run_list_the_name_once(box, fake, state, dual):
    zone = box.zones['aliesa']
    rids = [fake.add_record(zone, RECORD, t, ip) for t, ip in (('AAAA', '240e:1::1'), ('A', OLD))]
    env = dict(env_of(box, state), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    ok(run_tool('ddkit', env=env, prefix=dual.prefix))
    assert fake.calls() == ['list_zones', 'list_records', 'update_record', 'update_record']
    assert [fake.records[r]['content'] for r in rids] == [dual.v6, dual.v4]


def test_an_update_keeps_the_ttl_proxying_and_comment(box, fake, state):
    """UpdateRecord may reset what it is not sent (the fake does): what was read is sent back."""
    rid = fake.add_record(box.zones['aliesa'], RECORD, 'A', OLD, ttl=600, proxied=True, biz_name='api',
                          comment='the router')
    ok(run(box, state))
    held = fake.records[rid]
    assert (held['content'], held['Ttl'], held['Proxied'], held['BizName'], held['Comment']) == \
        (NEW, 600, True, 'api', 'the router')
    update = fake.calls('update_record')[0].query
    assert {k: update[k] for k in ('Type', 'Ttl', 'Proxied', 'BizName', 'Comment')} == \
        {'Type': 'A/AAAA', 'Ttl': '600', 'Proxied': 'true', 'BizName': 'api', 'Comment': 'the router'}


def test_a_ttl_the_api_would_refuse_is_not_sent_back(box, fake, state):
    rid = fake.add_record(box.zones['aliesa'], RECORD, 'A', OLD, ttl=10)
    ok(run(box, state))
    assert 'Ttl' not in fake.calls('update_record')[0].query and fake.records[rid]['Ttl'] == 1


def test_the_apex_is_the_site_name(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert [r['content'] for r in fake.find(ZONE)] == [NEW]
    assert fake.calls('create_record')[0].query['RecordName'] == ZONE


def test_at_a_site_connected_by_cname_a_record_is_made_proxied(box, fake, state):
    fake.sites[box.zones['aliesa']]['AccessType'] = 'CNAME'
    ok(run(box, state))
    (made,) = fake.find(RECORD)
    assert (made['Proxied'], made['BizName']) == (True, 'web')


def test_stale_ids_are_looked_up_again_once(box, fake, state):
    gone = fake.add_record(box.zones['aliesa'], RECORD, 'A', OLD)
    del fake.records[gone]
    keep_ids(box, state, gone)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_zones', 'list_records', 'create_record']
    assert 'Stored ids are stale' in done.stdout and [r['content'] for r in fake.find(RECORD)] == [NEW]


@pytest.mark.parametrize('what', ['other site', 'other name', 'other family'])
def test_ids_of_another_record_are_not_taken(box, fake, state, what):
    zone = box.zones['aliesa']
    if what == 'other site':
        theirs = fake.add_record(fake.add_zone('example.net'), 'home.example.net', 'A', OLD)
    else:
        theirs = fake.add_record(zone, 'nas.example.com' if what == 'other name' else RECORD,
                                 'AAAA' if what == 'other family' else 'A', V6 if what == 'other family' else OLD)
    keep_ids(box, state, theirs)
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'list_zones', 'list_records', 'create_record']
    assert fake.records[theirs]['content'] in (OLD, V6)


def test_a_create_that_meets_the_record_updates_it(box, fake, state):
    """A listing that missed the record (made meanwhile): the create is refused (which code a duplicate
    gets is not documented, so a refusal is looked at), a fresh listing finds it, and it is updated."""
    rid = fake.add_record(box.zones['aliesa'], RECORD, 'A', NEW, ttl=900)

    def none_listed(reply):
        return Reply(200, dict(json.loads(reply.raw), TotalCount=0, Records=[]))
    fake.fail('rewrite', route='list_records', answer=none_listed)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'list_records', 'list_records',
                            'update_record']
    assert list(fake.records) == [rid] and fake.records[rid]['Ttl'] == 900
    assert 'the record exists, so it is updated' in done.stdout and status(box, state)['outcome'] == 'updated'


def test_a_refused_create_of_a_record_that_is_not_there_fails_with_the_code(box, fake, state):
    fake.add_record(box.zones['aliesa'], RECORD, 'CNAME', 'elsewhere.example.net')
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['code'], shown['http_status'], shown['kind']) == \
        ('create record', 'Record.Conflict', 400, 'refused')
    assert fake.calls() == ['list_zones', 'list_records', 'create_record', 'list_records']


def test_an_update_refused_for_the_record_that_is_there_fails_with_its_code(box, fake, state):
    """A refused update is followed by a read: the record is there, so the refusal stands as it is."""
    rid = fake.add_record(box.zones['aliesa'], RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', status=400, body={'Code': 'InvalidParameter.Data', 'Message': 'no',
                                                                'RequestId': 'r'})
    done = run(box, state)
    failed(done)
    assert (status(box, state)['step'], status(box, state)['code']) == ('update record', 'InvalidParameter.Data')
    assert fake.calls() == ['list_zones', 'list_records', 'update_record', 'get_record']
    assert fake.records[rid]['content'] == OLD and 'update record: error InvalidParameter.Data: no' in done.stdout


def test_an_update_refused_for_a_record_gone_meanwhile_makes_it_again(box, fake, state):
    fake.add_record(box.zones['aliesa'], RECORD, 'A', OLD)

    def gone(reply):
        fake.records.clear()
        return fake_module.error(404, 'Record.NotFound', 'The record does not exist.')
    fake.fail('rewrite', route='update_record', answer=gone)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_zones', 'list_records', 'update_record', 'get_record', 'list_zones', 'list_records',
                            'create_record']
    assert [r['content'] for r in fake.find(RECORD)] == [NEW] and 'Stored ids are stale' in done.stdout


def test_an_update_whose_answer_was_lost_is_signed_anew_once_its_nonce_is_refused(box, fake, state):
    """The update takes effect and its answer is lost; ddkit.http sends the same request again, whose
    nonce the API has seen (SignatureNonceUsed): signed anew, it goes through."""
    fake.add_record(box.zones['aliesa'], RECORD, 'A', OLD)
    fake.fail('lost', route='update_record')
    done = run(box, state)
    ok(done)
    nonces = [r.headers['x-acs-signature-nonce'] for r in fake.calls('update_record')]
    assert len(nonces) == 3 and nonces[0] == nonces[1] != nonces[2]
    assert 'signing it anew' in done.stdout and [r['content'] for r in fake.find(RECORD)] == [NEW]


def test_lines_are_refused_before_any_request(box, fake, state):
    done = run(box, state, DDNS_RECORD_TYPE='AAAA', DDNS_LINES='ct=iface:lo cm=iface:lo')
    assert done.returncode == 2 and 'lines: provider aliesa holds one address per name' in done.stderr, \
        done.stdout + done.stderr
    assert fake.calls() == []


# --- every site the key sees ---------------------------------------------------------------------

def zones_job(box, state):
    """A Job of the sandbox's record, run in-process against the fake."""
    from ddkit import settings, updater
    from ddkit.log import Log
    from ddkit.provider import Job, Run
    table = aliesa.SETTINGS + updater.COMMON
    cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES,
                        environ=env_of(box, state))
    return Job(aliesa, cfg, Run(), Log(None, quiet=True))


def test_account_zones_lists_every_site_page_by_page(box, fake, state):
    made = {str(fake.add_zone('Site%d.Example.NET.' % n)): 'site%d.example.net' % n for n in range(1100)}
    made[str(box.zones['aliesa'])] = ZONE
    found = aliesa.account_zones(zones_job(box, state))
    assert sorted((z.id, z.name) for z in found) == sorted(made.items())
    assert [r.query['PageNumber'] for r in fake.calls('list_zones')] == ['1', '2', '3']
    assert all('SiteName' not in r.query and r.query['PageSize'] == '500' for r in fake.calls('list_zones'))


def test_account_zones_stops_at_its_bound(box, fake, state, monkeypatch):
    monkeypatch.setattr(aliesa, 'SITE_PAGES', 1)
    for n in range(600):
        fake.add_zone('site%d.example.net' % n)
    with pytest.raises(Failure) as refused:
        aliesa.account_zones(zones_job(box, state))
    assert (refused.value.step, refused.value.fix) == ('find zone', 'set zone_name')
    assert len(fake.calls('list_zones')) == 1


# --- refusals: their codes, fixes, and no secret shown ----------------------------------------

@pytest.mark.parametrize('change, code, status_code', [
    (lambda fake: fake.keys[fake.key_id].update(secret='another'), 'SignatureDoesNotMatch', 400),
    (lambda fake: fake.keys.update({'other': fake.keys.pop(fake.key_id)}), 'InvalidAccessKeyId.NotFound', 404),
    (lambda fake: fake.keys[fake.key_id].update(active=False), 'InvalidAccessKeyId.Inactive', 400),
    (lambda fake: setattr(fake, 'clock_offset', 3600), 'InvalidTimeStamp.Expired', 400),
    (lambda fake: fake.keys[fake.key_id].update(actions={'ListRecords'}), 'Forbidden.RAM', 403),
], ids=['bad secret', 'unknown key', 'disabled key', 'clock off', 'RAM'])
def test_a_refusal_says_its_code_and_fix_and_never_the_secret(box, fake, state, change, code, status_code):
    fake.add_record(box.zones['aliesa'], RECORD, 'A', OLD)
    change(fake)
    done = run(box, state)
    failed(done)
    shown = status(box, state)
    assert (shown['step'], shown['code'], shown['http_status'], shown['kind']) == \
        ('find zone', code, status_code, 'refused')
    assert shown['fix'] == aliesa.FIXES[code] and shown['fix'] in done.stdout
    log = (state / ('ddkit_aliesa_%s.log' % RECORD)).read_text()
    assert fake.secret not in done.stdout + done.stderr + log + json.dumps(shown)
    assert all(fake.secret not in r.path + str(r.query) + str(r.headers) for r in fake.requests)
    assert fake.find(RECORD)[0]['content'] == OLD


def test_a_read_refused_for_the_credentials_is_a_failure_not_stale_ids(box, fake, state):
    rid = fake.add_record(box.zones['aliesa'], RECORD, 'A', OLD)
    keep_ids(box, state, rid)
    fake.keys[fake.key_id]['actions'] = {'ListSites', 'ListRecords', 'UpdateRecord'}
    done = run(box, state)
    failed(done)
    assert (status(box, state)['step'], status(box, state)['code']) == ('read record', 'Forbidden.RAM')
    assert fake.calls() == ['get_record']


def test_a_site_not_in_the_account_fails_finding_the_zone(box, fake, state):
    other = {'DDNS_ZONE_NAME': 'example.org', 'DDNS_RECORD_NAME': 'home.example.org'}
    done = run(box, state, **other)
    failed(done)
    shown = status(box, state, **other)
    assert (shown['step'], shown['kind'], shown['fix']) == ('find zone', 'not found', aliesa.SITE)
    assert 'no ESA site example.org in this account' in done.stdout and fake.calls() == ['list_zones']


def test_check_walks_the_steps_and_names_the_failing_one(box, fake, state):
    fake.add_record(box.zones['aliesa'], RECORD, 'A', NEW)
    done = run(box, state, '--check')
    ok(done)
    assert 'credentials accepted (AccessKey %s)' % fake.key_id in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, box.zones['aliesa']) in done.stdout
    assert 'A record %s found' % RECORD in done.stdout and os.listdir(str(state)) == []
    assert fake.calls() == ['list_zones', 'list_records']
    done = run(box, state, '--check', DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert done.returncode == 1 and 'ok    credentials accepted' in done.stdout
    assert 'FAIL  zone found: find zone: no ESA site example.org' in done.stdout
    fake.keys[fake.key_id]['secret'] = 'another'
    done = run(box, state, '--check')
    assert 'FAIL  credentials accepted: find zone: the provider refused the request (HTTP 400, code ' \
           'SignatureDoesNotMatch)' in done.stdout and 'skip  zone found' in done.stdout, done.stdout


@pytest.mark.parametrize('route, body', [
    ('create_record', {'RecordId': '../x', 'RequestId': 'r'}),
    ('create_record', {'RecordId': True, 'RequestId': 'r'}),
    ('list_zones', {'Sites': {'SiteId': 1}, 'RequestId': 'r'}),
    ('list_records', {'Records': 'x', 'RequestId': 'r'}),
    ('list_records', [1, 2]),
    ('list_records', {'Code': ['Throttling'], 'RequestId': 'r'}),
])
def test_hostile_answers_fail_in_one_line(box, fake, state, route, body):
    fake.fail('rewrite', route=route, answer=lambda reply: Reply(200, body))
    done = run(box, state)
    failed(done)
    assert 'ERROR' in done.stdout + done.stderr and not (state / ('.aliesa-id_%s.txt' % RECORD)).exists()
