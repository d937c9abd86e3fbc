"""The googlecloud provider against its fake over real HTTP, each JWT's RS256 signature checked by
google-auth (tests/fakes/googlecloud.py). The outcome table of every provider (test_provider_tables)
covers the common rows; here: what is Google Cloud's own (the service account's key, from a file the
tool trusts as its own files or from key_json, PKCS#8 and PKCS#1; the JWT and the token kept until it
nearly expires, of that key only; a refused token renewed once; the public managed zone by its DNS
name; a PATCH that sends the TTL back; a routing policy left alone; its errors and fixes), --check,
the project's zones page by page, and a record's lines as rrdatas of the RRset; RS256 itself against
google-auth and cryptography."""

import functools
import json
import os

import pytest

from conftest import RECORD, ZONE
from providers import google_auth
from provider_harness import Harness, failed, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM, PLAIN = '240e:1:2:3::10', '2409:8a00:1:2::10', '2001:db8::1'

GOOGLECLOUD = Harness('googlecloud', NEW, before=google_auth)
fake, state = GOOGLECLOUD.fixtures()
env_of, run, status, module, _job = GOOGLECLOUD.bound()
job_of = functools.partial(GOOGLECLOUD.job, DDNS_RECORD_TYPE='AAAA')
ZONE_ID = 'example-com'


def rrset(fake, name=RECORD, rtype='A'):
    return fake.find(name, rtype)[0]


def token_file(state):
    return state / ('.googlecloud-token_%s.txt' % RECORD)


# --- the key, the JWT, the token ----------------------------------------------------------------

def test_a_token_for_the_keys_jwt_is_kept_and_used_until_it_nearly_expires(box, fake, state):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_token', 'list_zones', 'get_record', 'update_record']
    token = [t for t in fake.tokens][-1]
    assert all(r.headers['authorization'] == 'Bearer ' + token for r in fake.requests[1:])
    kept = token_file(state)
    expiry, kept_token, kid = kept.read_text().split()
    assert (kid, kept_token) == (fake.key['private_key_id'], token) and oct(kept.stat().st_mode & 0o777) == '0o600'
    every = shown(done, state) + json.dumps(status(box, state))
    assert token not in every.replace(kept.read_text(), '') and 'PRIVATE KEY' not in every
    assert fake.key['private_key'].splitlines()[1] not in every
    fake.reset_log()
    ok(run(box, state, '--force'))
    assert fake.calls() == ['get_record', 'update_record']   # the kept token, the stored ids
    kept.write_text('%d %s %s\n' % (100, kept_token, kid))   # expired: a new one
    fake.reset_log()
    ok(run(box, state, '--force'))
    assert fake.calls()[0] == 'get_token' and rrset(fake)['records'] == [NEW]


def test_a_token_of_another_key_is_not_used(box, fake, state):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    token_file(state).write_text('%d %s %s\n' % (4102444800, fake.issue_token(), 'another-key-id'))
    ok(run(box, state))
    assert fake.calls()[0] == 'get_token' and token_file(state).read_text().split()[2] == fake.key['private_key_id']


def test_a_refused_token_is_renewed_once(box, fake, state):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    token_file(state).write_text('%d %s %s\n' % (4102444800, 'ya29.revoked', fake.key['private_key_id']))
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_zones', 'get_token', 'list_zones', 'get_record', 'update_record']
    assert 'the token was refused (HTTP 401); getting a new one' in done.stdout


def test_the_key_given_as_json_text_is_a_secret(box, fake, state):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    text = json.dumps(fake.key)
    done = run(box, state, DDNS_KEY_FILE='', DDNS_KEY_JSON=text)
    ok(done)
    assert rrset(fake)['records'] == [NEW] and 'BEGIN PRIVATE KEY' not in shown(done, state)


def test_a_pkcs1_key_signs_too(box, fake, state):
    from cryptography.hazmat.primitives import serialization
    pkcs1 = serialization.load_pem_private_key(fake.key['private_key'].encode(), None).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption()).decode()
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    ok(run(box, state, DDNS_KEY_FILE='', DDNS_KEY_JSON=json.dumps(dict(fake.key, private_key=pkcs1))))
    assert rrset(fake)['records'] == [NEW]


@pytest.mark.parametrize('mode, words', [
    (0o620, 'can be changed by another user: refused'),
    ('link', 'it is a symbolic link, which is never followed'),
    ('missing', 'cannot read key_file'),
], ids=['group writable', 'a link', 'missing'])
def test_a_key_file_is_trusted_as_the_tools_own_files_are(box, fake, state, tmp_path, mode, words):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    path = tmp_path / 'key.json'
    if mode == 'link':
        path.symlink_to(fake.key_file)
    elif mode != 'missing':
        path.write_text(json.dumps(fake.key))
        path.chmod(mode)
    done, said = GOOGLECLOUD.failure(box, state, DDNS_KEY_FILE=str(path))
    assert (said['step'], said['kind']) == ('get token', 'state') and words in said['message']
    assert '(key_file from DDNS_KEY_FILE)' in done.stdout and fake.calls() == []


def test_a_key_readable_by_others_is_warned_of(box, fake, state, tmp_path):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    path = tmp_path / 'key.json'
    path.write_text(json.dumps(fake.key))
    path.chmod(0o644)
    done = run(box, state, DDNS_KEY_FILE=str(path))
    ok(done)
    assert 'is readable by other users; run: chmod 600 %s' % path in done.stdout


@pytest.mark.parametrize('key, words', [
    ({'type': 'service_account'}, 'it lacks one of'),
    ({'private_key': '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'}, 'the key cannot sign'),
    ({'token_uri': 'file:///etc/passwd'}, 'is no service account key'),
], ids=['not a key', 'a broken private key', 'a token URI that is no URL'])
def test_an_unusable_key_is_a_failure_naming_it(box, fake, state, key, words):
    text = json.dumps(key if 'type' in key else dict(fake.key, **key))
    done, said = GOOGLECLOUD.failure(box, state, DDNS_KEY_FILE='', DDNS_KEY_JSON=text)
    assert said['step'] == 'get token' and words in said['message'] and 'key_json' in done.stdout
    assert fake.calls() == []


@pytest.mark.parametrize('case, code, words', [
    ('deleted key', 'invalid_grant', 'make a new JSON key'),
    ('clock', 'invalid_grant', 'this host\'s clock is off'),
    ('disabled', 'invalid_client', 'disabled or deleted'),
], ids=['deleted key', 'clock off', 'disabled account'])
def test_a_refused_jwt_says_why(box, fake, state, case, code, words):
    if case == 'deleted key':
        fake.public.clear()
    elif case == 'clock':
        fake.clock_offset = 7200
    else:
        fake.allowed.clear()
    done, said = GOOGLECLOUD.failure(box, state)
    assert (said['step'], said['code']) == ('get token', code) and words in said['fix']
    assert not token_file(state).exists() and fake.calls() == ['get_token']


# --- zones and RRsets ---------------------------------------------------------------------------

def test_a_patch_keeps_the_ttl_and_a_new_rrset_is_a_post(box, fake, state):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD, ttl=7200)
    ok(run(box, state))
    sent = fake.calls('update_record')[0]
    assert sent.path == '/dns/v1/projects/ddkit-test/managedZones/%s/rrsets/%s./A' % (ZONE_ID, RECORD)
    assert sent.json == {'name': RECORD + '.', 'type': 'A', 'ttl': 7200, 'rrdatas': [NEW]}
    fake.rrsets.clear()
    ok(run(box, state, '--force'))
    assert fake.calls()[-1] == 'create_record' and (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], 300)


def test_a_private_zone_of_the_name_is_skipped_and_zones_are_read_page_by_page(box, fake, state):
    for n in range(3):
        fake.add_zone('zone%d.example' % n)
    private = fake.add_zone(ZONE, visibility='private', zone_id='a-private-example')   # listed first
    fake.add_record(private, RECORD, 'A', OTHER)
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    ok(run(box, state, DDNS_ZONE_NAME=''))
    assert len(fake.calls('list_zones')) == 4 and fake.calls('list_zones')[1].query['pageToken'] == '2'
    assert {z: r['records'] for (z, _, _), r in fake.rrsets.items()} == {ZONE_ID: [NEW], private: [OTHER]}


def test_a_zone_not_in_the_project_fails_at_find_zone(box, fake, state):
    done, said = GOOGLECLOUD.failure(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert (said['step'], said['kind']) == ('find zone', 'not found') and 'public managed zone' in said['fix']
    assert fake.calls('list_zones')[0].query == {'dnsName': 'example.org.'}


def test_another_project_is_refused_naming_the_permission(box, fake, state):
    failed(run(box, state, DDNS_PROJECT_ID='someone-else'))
    said = status(box, state, DDNS_PROJECT_ID='someone-else')
    assert (said['step'], said['http_status'], said['code']) == ('find zone', 403, 'forbidden')
    assert 'dns.resourceRecordSets.update' in said['fix'] and 'project_id' in said['fix']


def test_a_read_only_account_fails_at_the_write(box, fake, state):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    fake.allowed[fake.email] = False
    failed(run(box, state))
    assert (status(box, state)['step'], status(box, state)['code']) == ('update record', 'forbidden')
    assert rrset(fake)['records'] == [OLD]


def test_an_rrset_of_a_routing_policy_is_left_alone(box, fake, state):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD, routingPolicy={'geo': {'items': []}})
    failed(run(box, state))
    assert 'has a routing policy' in status(box, state)['message'] and fake.calls('update_record') == []


def test_with_stored_ids_the_rrset_is_read_then_patched(box, fake, state):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD, ttl=60)
    (state / ('.googlecloud-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE_ID, RECORD))
    (state / ('.googlecloud-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    ok(run(box, state))
    assert fake.calls() == ['get_token', 'get_record', 'update_record'] and rrset(fake)['ttl'] == 60


# --- --check ------------------------------------------------------------------------------------

def test_check_asks_a_token_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE_ID, RECORD, 'A', OLD)
    token_file(state).write_text('%d %s %s\n' % (4102444800, fake.issue_token(), fake.key['private_key_id']))
    done = GOOGLECLOUD.check(box, state)
    assert 'credentials accepted (service account %s, project ddkit-test)' % fake.email in done.stdout
    assert 'zone %s found (id %s)' % (ZONE, ZONE_ID) in done.stdout
    assert fake.calls() == ['get_token', 'list_zones', 'get_record']
    assert [p.name for p in state.iterdir()] == [token_file(state).name]


# --- in-process: RS256, a record's lines ----------------------------------------------------------

def test_rs256_is_what_cryptography_signs_and_google_auth_verifies():
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding
    from fakes.googlecloud import new_key
    from google.auth import crypt
    google = module()
    private, public = new_key(0)
    for message in (b'', b'header.claims', os.urandom(300)):
        signed = google.rs256(private, message)
        key = serialization.load_pem_private_key(private.encode(), None)
        assert signed == key.sign(message, padding.PKCS1v15(), hashes.SHA256())   # deterministic: equal
        assert crypt.RSAVerifier.from_string(public).verify(message, signed)


def test_a_lines_address_is_added_changed_and_taken_out_alone(box, fake, state):
    from ddkit.provider import address_id
    google = module()
    fake.add_record(ZONE_ID, RECORD, 'AAAA', [CM, PLAIN], ttl=7200)
    job = job_of(box, state, 'ct')
    assert google.find_record(job, ZONE_ID) is None
    rid = google.create_record(job, ZONE_ID, CT)
    assert rrset(fake, rtype='AAAA')['records'] == [CM, PLAIN, CT]
    moved = CT.replace('::10', '::20')
    assert google.update_record(job, ZONE_ID, google.read_record(job, ZONE_ID, rid), moved) == address_id(moved)
    assert (rrset(fake, rtype='AAAA')['records'], rrset(fake, rtype='AAAA')['ttl']) == ([CM, PLAIN, moved], 7200)
    google.delete_record(job, ZONE_ID, google.read_record(job, ZONE_ID, address_id(moved)))
    assert rrset(fake, rtype='AAAA')['records'] == [CM, PLAIN]
    google.delete_record(job_of(box, state, 'cm'), ZONE_ID, google.find_record(job_of(box, state, 'cm'), ZONE_ID))
    assert rrset(fake, rtype='AAAA')['records'] == [PLAIN] and fake.calls('delete_record') == []
    fake.rrsets[(ZONE_ID, RECORD + '.', 'AAAA')]['records'] = [CT]
    google.delete_record(job, ZONE_ID, google.find_record(job, ZONE_ID))   # the last address: the RRset goes
    assert fake.find(RECORD, 'AAAA') == [] and len(fake.calls('delete_record')) == 1
