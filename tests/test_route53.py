"""The route53 provider against its fake over real HTTP, each request's Signature V4 checked by
botocore's own signer (tests/fakes/route53.py). The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is Route 53's own (the signature, a
temporary key's session token, the clock; XML both ways; the hosted zone by its name, a private one of
the same name skipped, several public ones refused; a listing that is no filter; one UPSERT that
keeps the set's TTL and health check; alias and weighted sets left alone; its errors and fixes),
--check, the account's zones page by page, and a record's lines as values of the set."""

import functools
import json

import pytest

from conftest import RECORD, ZONE
from providers import botocore_signer
from provider_harness import Harness, failed, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM, PLAIN = '240e:1:2:3::10', '2409:8a00:1:2::10', '2001:db8::1'

ROUTE53 = Harness('route53', NEW, before=botocore_signer)
fake, state = ROUTE53.fixtures()
env_of, run, status, module, _job = ROUTE53.bound()


def rrset(fake, name=RECORD, rtype='A'):
    return fake.find(name, rtype)[0]


def zone_id(box):
    return box.zones['route53']


def stored(box, state, record_id=RECORD, claims=OLD):
    (state / ('.route53-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (zone_id(box), record_id))
    (state / ('.route53-ip_%s.txt' % RECORD)).write_text(claims + '\n')


# --- the signature, the key, the clock ---------------------------------------------------------

def test_every_request_is_signed_and_nothing_shows_the_secret(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_zones', 'get_record', 'change_record'] and fake.bad_elements == []
    for req in fake.requests:
        auth = req.headers['authorization']
        assert auth.startswith('AWS4-HMAC-SHA256 Credential=%s/' % fake.key_id)
        assert '/us-east-1/route53/aws4_request, SignedHeaders=host;x-amz-date, Signature=' in auth
    assert [(r.method, r.path) for r in fake.requests] == [
        ('GET', '/2013-04-01/hostedzonesbyname'), ('GET', '/2013-04-01/hostedzone/%s/rrset' % zone_id(box)),
        ('POST', '/2013-04-01/hostedzone/%s/rrset/' % zone_id(box))]
    assert fake.requests[1].query == {'name': RECORD, 'type': 'A', 'maxitems': '1'}
    assert fake.secret not in shown(done, state) + json.dumps(status(box, state))
    assert rrset(fake)['records'] == [NEW]


def test_a_temporary_key_sends_and_signs_its_session_token(box, fake, state):
    fake.add_key('ASIAEXAMPLETEMPORARY1', 'temporary/secret+key0123456789abcdefghij', token='FwoGZXIvYXdzE' + 'x' * 60)
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    done = run(box, state, DDNS_ACCESS_KEY_ID='ASIAEXAMPLETEMPORARY1',
               DDNS_SECRET_ACCESS_KEY='temporary/secret+key0123456789abcdefghij',
               DDNS_SESSION_TOKEN='FwoGZXIvYXdzE' + 'x' * 60)
    ok(done)
    assert all('SignedHeaders=host;x-amz-date;x-amz-security-token,' in r.headers['authorization']
               and r.headers['x-amz-security-token'] == 'FwoGZXIvYXdzE' + 'x' * 60 for r in fake.requests)
    assert 'FwoGZXIvYXdzE' not in shown(done, state) and rrset(fake)['records'] == [NEW]


@pytest.mark.parametrize('change, code, words', [
    ({'DDNS_SECRET_ACCESS_KEY': 'not-the-secret'}, 'SignatureDoesNotMatch', 'copy both from the same access key'),
    ({'DDNS_ACCESS_KEY_ID': 'AKIANOSUCHKEY0000000'}, 'InvalidClientTokenId', 'no access key of AWS'),
    ('temporary without token', 'InvalidClientTokenId', 'without its session_token'),
    ('expired', 'ExpiredToken', 'session_token has expired'),
    ('clock', 'SignatureDoesNotMatch', 'the signature expired, this host\'s clock is off'),
], ids=['wrong secret', 'unknown key', 'token missing', 'token expired', 'clock off'])
def test_a_refused_key_says_why_and_never_shows_the_secret(box, fake, state, change, code, words):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    more = change if isinstance(change, dict) else {}
    if change in ('temporary without token', 'expired'):
        fake.add_key('ASIAEXAMPLETEMPORARY1', 'temp-secret', token='token-1', expired=change == 'expired')
        more = {'DDNS_ACCESS_KEY_ID': 'ASIAEXAMPLETEMPORARY1', 'DDNS_SECRET_ACCESS_KEY': 'temp-secret'}
        if change == 'expired':
            more['DDNS_SESSION_TOKEN'] = 'token-1'
    if change == 'clock':
        fake.clock_offset = 600
    done, said = ROUTE53.failure(box, state, **more)
    assert (said['step'], said['kind'], said['http_status'], said['code']) == ('find zone', 'refused', 403, code)
    assert words in said['fix'] and words in done.stdout
    assert fake.calls() == ['list_zones'] and rrset(fake)['records'] == [OLD]
    assert 'temp-secret' not in shown(done, state) and fake.secret not in shown(done, state)


def test_the_signature_covers_the_body(box, fake, state):
    """A body changed after signing (a planted bug's worth) is refused: botocore signs its SHA-256."""
    module_ = module()
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    job = ROUTE53.job(box, state)
    real = module_.sign
    try:
        module_.sign = lambda cfg, method, url, query, payload, when: real(cfg, method, url, query, b'', when)
        from ddkit import Failure
        with pytest.raises(Failure) as refused:
            module_.update_record(job, zone_id(box), module_.find_record(job, zone_id(box)), NEW)
    finally:
        module_.sign = real
    assert refused.value.code == 'SignatureDoesNotMatch' and rrset(fake)['records'] == [OLD]


# --- the hosted zone ----------------------------------------------------------------------------

def test_a_private_zone_of_the_same_name_is_skipped(box, fake, state):
    private = fake.add_zone(ZONE, private=True)
    fake.add_record(private, RECORD, 'A', OTHER)
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    ok(run(box, state))
    assert {r['zone']: r['records'] for r in fake.find(RECORD)} == {zone_id(box): [NEW], private: [OTHER]}


def test_two_public_zones_of_one_name_are_refused_naming_both(box, fake, state):
    twin = fake.add_zone(ZONE)
    done, said = ROUTE53.failure(box, state)
    assert said['step'] == 'find zone' and zone_id(box) in said['message'] and twin in said['message']
    assert 'not delegated to' in said['fix'] and fake.calls() == ['list_zones']


def test_a_zone_not_in_the_account_fails_at_find_zone(box, fake, state):
    fake.add_zone('example.net')
    done, said = ROUTE53.failure(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert (said['step'], said['kind']) == ('find zone', 'not found') and 'a public hosted zone' in said['fix']
    assert fake.calls('list_zones')[0].query == {'dnsname': 'example.org', 'maxitems': '10'}


def test_without_zone_name_the_longest_zone_of_the_account_is_taken(box, fake, state):
    sub = fake.add_zone('sub.example.com')
    fake.add_zone('example.net', private=True)
    name = 'home.sub.example.com'
    done = run(box, state, DDNS_ZONE_NAME='', DDNS_RECORD_NAME=name)
    ok(done)
    assert fake.calls() == ['account_zones', 'list_zones', 'get_record', 'change_record']
    assert fake.find(name)[0]['zone'] == sub
    assert (state / ('.route53-id_%s.txt' % name)).read_text() == '%s\n%s\n%s\n' % (sub, name, 'sub.example.com')


def test_account_zones_are_read_page_by_page(box, fake, state, monkeypatch):
    r53 = module()
    monkeypatch.setattr(r53, 'ZONE_PAGE', 2)
    for n in range(4):
        fake.add_zone('zone%d.example' % n)
    fake.add_zone('hidden.example', private=True)
    names = sorted(z.name for z in r53.account_zones(job_of(box, state)))
    assert names == ['example.com'] + ['zone%d.example' % n for n in range(4)]
    markers = [r.query.get('marker') for r in fake.calls('account_zones')]
    assert len(markers) == 3 and markers[0] is None and all(markers[1:])
    monkeypatch.setattr(r53, 'PAGES', 2)
    from ddkit import Failure
    with pytest.raises(Failure) as refused:
        r53.account_zones(job_of(box, state))
    assert refused.value.fix == 'set zone_name'


# --- the record set -----------------------------------------------------------------------------

def test_an_upsert_keeps_the_ttl_and_health_check(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD, ttl=7200, HealthCheckId='0b5e1c4e-8e3f-4b7a-9d53-3c2b1e0f6a11')
    ok(run(box, state))
    body = fake.calls('change_record')[0].body.decode()
    assert '<Action>UPSERT</Action>' in body and '<TTL>7200</TTL>' in body
    assert (rrset(fake)['records'], rrset(fake)['ttl'], rrset(fake)['HealthCheckId']) == (
        [NEW], 7200, '0b5e1c4e-8e3f-4b7a-9d53-3c2b1e0f6a11')


def test_a_new_set_is_an_upsert_with_the_default_ttl(box, fake, state):
    fake.add_record(zone_id(box), 'www.' + ZONE, 'A', OTHER)
    fake.add_record(zone_id(box), RECORD, 'AAAA', PLAIN)
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'get_record', 'change_record']
    assert (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], 300)
    assert rrset(fake, 'www.' + ZONE)['records'] == [OTHER] and rrset(fake, rtype='AAAA')['records'] == [PLAIN]


def test_the_listing_is_no_filter_the_set_after_the_name_is_not_taken(box, fake, state):
    """ListResourceRecordSets starts at the name and type: what it gives first may be another set."""
    fake.add_record(zone_id(box), 'hone.' + ZONE, 'A', OTHER)     # after home in Route 53's order
    fake.add_record(zone_id(box), RECORD, 'TXT', '"note"')
    r53 = module()
    assert r53.find_record(job_of(box, state), zone_id(box)) is None
    ok(run(box, state))
    assert rrset(fake)['records'] == [NEW] and rrset(fake, 'hone.' + ZONE)['records'] == [OTHER]


def test_the_apex_and_a_wildcard_are_found_by_their_names(box, fake, state):
    fake.add_record(zone_id(box), ZONE, 'A', OLD)
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    assert rrset(fake, ZONE)['records'] == [NEW] and len(fake.find(ZONE)) == 1
    fake.add_record(zone_id(box), '*.' + ZONE, 'A', OLD)
    r53 = module()
    found = r53.find_record(ROUTE53.job(box, state, DDNS_RECORD_NAME='*.' + ZONE), zone_id(box))
    assert found.content == [OLD]   # Route 53 writes it \052.example.com.


def test_with_stored_ids_the_set_is_read_then_upserted(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD, ttl=60)
    stored(box, state)
    ok(run(box, state))
    assert fake.calls() == ['get_record', 'change_record'] and rrset(fake)['ttl'] == 60


def test_stored_ids_of_a_deleted_zone_are_looked_up_again(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    (state / ('.route53-id_%s.txt' % RECORD)).write_text('Z0000000000000000099\n%s\n' % RECORD)
    (state / ('.route53-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_zones', 'get_record', 'change_record']
    assert 'Stored ids are stale' in done.stdout and rrset(fake)['records'] == [NEW]


@pytest.mark.parametrize('more, words', [
    ({'AliasTarget': {'HostedZoneId': 'Z2FDTNDATAQYW2', 'DNSName': 'd111111abcdef8.cloudfront.net.',
                      'EvaluateTargetHealth': 'false'}}, 'is an alias'),
    ({'SetIdentifier': 'eu', 'Weight': '10'}, 'of a routing policy'),
], ids=['alias', 'weighted'])
def test_an_alias_or_a_weighted_set_is_left_alone(box, fake, state, more, words):
    fake.add_record(zone_id(box), RECORD, 'A', OLD, **more)
    done, said = ROUTE53.failure(box, state)
    assert said['step'] == 'find record' and words in said['message'] and 'a simple record' in said['fix']
    assert fake.calls('change_record') == []


@pytest.mark.parametrize('body, code, words', [
    ('<?xml version="1.0"?>\n<InvalidChangeBatch xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><Messages>'
     '<Message>RRSet of type A with DNS name home.example.com. is not permitted because a conflicting RRSet of type '
     'CNAME with the same DNS name already exists</Message></Messages><RequestId>r</RequestId></InvalidChangeBatch>',
     'InvalidChangeBatch', 'a CNAME of the name'),
    ('<?xml version="1.0"?>\n<ErrorResponse xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><Error><Type>Sender'
     '</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error><RequestId>r</RequestId></ErrorResponse>',
     'Throttling', 'run less often'),
    ('<?xml version="1.0"?>\n<ErrorResponse xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><Error><Type>Sender'
     '</Type><Code>PriorRequestNotComplete</Code><Message>The request was rejected because Route 53 was still '
     'processing a prior request.</Message></Error><RequestId>r</RequestId></ErrorResponse>',
     'PriorRequestNotComplete', 'still in progress'),
], ids=['invalid change batch', 'throttling', 'prior request'])
def test_a_refused_change_says_the_apis_code_and_its_fix(box, fake, state, body, code, words):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    fake.fail('reply', route='change_record', status=400, text=body)
    failed(run(box, state))
    said = status(box, state)
    assert (said['step'], said['kind'], said['code']) == ('update record', 'refused', code)
    assert words in said['fix']


def test_a_policy_without_the_change_action_names_the_least_privilege(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    fake.keys[fake.key_id]['actions'] = {'ListHostedZones', 'ListHostedZonesByName', 'ListResourceRecordSets'}
    failed(run(box, state))
    said = status(box, state)
    assert (said['step'], said['code']) == ('update record', 'AccessDenied')
    assert 'route53:ChangeResourceRecordSets on arn:aws:route53:::hostedzone/' in said['fix']
    fake.keys[fake.key_id]['zones'] = {zone_id(box)}
    fake.keys[fake.key_id]['actions'] |= {'ChangeResourceRecordSets'}
    ok(run(box, state))   # the policy the docs name: those four actions, that zone
    assert rrset(fake)['records'] == [NEW]


@pytest.mark.parametrize('answer', [
    {'text': '<html>busy</html>'},
    {'text': '<ListResourceRecordSetsResponse><ResourceRecordSets><ResourceRecordSet><Name>home.example.com.</Name>'
             '<Type>A</Type><TTL>99999999999999</TTL><ResourceRecords><ResourceRecord><Value>81.2.69.1</Value>'
             '</ResourceRecord></ResourceRecords></ResourceRecordSet></ResourceRecordSets>'},
    {'status': 500, 'text': 'internal'},
], ids=['html', 'ttl out of range', 'server error'])
def test_an_unusable_answer_is_a_failure_or_a_bounded_value_not_a_traceback(box, fake, state, answer):
    fake.add_record(zone_id(box), RECORD, 'A', OLD, ttl=3600)
    fake.fail('reply', route='get_record', times=3, **answer)
    done = run(box, state)
    assert 'Traceback' not in done.stdout + done.stderr
    if 'TTL' in answer['text']:   # read as a set without a TTL: the new set's
        ok(done)
        assert '<TTL>300</TTL>' in fake.calls('change_record')[0].body.decode()
    else:
        failed(done)
        assert rrset(fake)['records'] == [OLD]


# --- --check ------------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(zone_id(box), RECORD, 'A', OLD)
    done = ROUTE53.check(box, state)
    assert 'credentials accepted (access key %s)' % fake.key_id in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, zone_id(box)) in done.stdout
    assert 'A record %s found (id %s)' % (RECORD, RECORD) in done.stdout
    assert fake.calls() == ['list_zones', 'get_record'] and list(state.iterdir()) == []


def test_check_names_a_refused_secret(box, fake, state):
    done = run(box, state, '--check', DDNS_SECRET_ACCESS_KEY='not-the-secret')
    assert done.returncode == 1
    assert 'FAIL  credentials accepted: find zone: the provider refused the request (HTTP 403, code ' \
           'SignatureDoesNotMatch)' in done.stdout, done.stdout
    assert 'not-the-secret' not in done.stdout


# --- in-process: a record's lines ---------------------------------------------------------------------

job_of = functools.partial(ROUTE53.job, DDNS_RECORD_TYPE='AAAA')


def test_a_lines_address_is_added_changed_and_taken_out_alone(box, fake, state):
    from ddkit.provider import address_id
    r53 = module()
    fake.add_record(zone_id(box), RECORD, 'AAAA', [CM, PLAIN], ttl=7200)
    job = job_of(box, state, 'ct')
    assert r53.find_record(job, zone_id(box)) is None
    rid = r53.create_record(job, zone_id(box), CT)
    assert rid == address_id(CT) and rrset(fake, rtype='AAAA')['records'] == [CM, PLAIN, CT]
    record = r53.read_record(job, zone_id(box), rid)
    moved = CT.replace('::10', '::20')
    assert r53.update_record(job, zone_id(box), record, moved) == address_id(moved)
    assert (rrset(fake, rtype='AAAA')['records'], rrset(fake, rtype='AAAA')['ttl']) == ([CM, PLAIN, moved], 7200)
    record = r53.read_record(job, zone_id(box), address_id(moved))
    assert r53.delete_record(job, zone_id(box), record) is None
    assert rrset(fake, rtype='AAAA')['records'] == [CM, PLAIN]


def test_the_last_lines_address_deletes_the_set_as_read(box, fake, state):
    r53 = module()
    fake.add_record(zone_id(box), RECORD, 'AAAA', [CM], ttl=900)
    job = job_of(box, state, 'cm')
    assert r53.delete_record(job, zone_id(box), r53.find_record(job, zone_id(box))) is None
    assert fake.find(RECORD, 'AAAA') == [] and fake.calls() == ['get_record', 'change_record']
    body = fake.calls('change_record')[0].body.decode()
    assert '<Action>DELETE</Action>' in body and '<TTL>900</TTL>' in body and fake.bad_elements == []
