"""The rfc2136 provider against a real BIND 9 named (started here on 127.0.0.1 with TSIG keys of
every algorithm and an update-policy that grants one name; the zone read back with dig), and
against its DNS fake, which parses every message and checks every TSIG with dnspython, for what a
real server will not do on cue (truncated answers, unsigned and broken answers, silence). The
outcome table of every provider (test_provider_tables) covers the common rows with the fake."""

import base64
import functools
import json

import pytest

from conftest import RECORD, ZONE
from fakes.rfc2136 import Named, missing
from provider_harness import Harness, failed, kept_nothing, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM, PLAIN = '240e:1:2:3::10', '2409:8a00:1:2::10', '2001:db8::1'
ALGORITHMS = ('hmac-md5', 'hmac-sha1', 'hmac-sha224', 'hmac-sha256', 'hmac-sha384', 'hmac-sha512')
KEYS = {'key-%s' % a: (a, base64.b64encode(('secret of %s for the tests' % a).encode()).decode()) for a in ALGORITHMS}
KEY = 'key-hmac-sha256'
GRANTS = ['grant %s name %s. A AAAA;' % (k, RECORD) for k in KEYS] + \
    ['grant %s name home.lab.%s. A;' % (KEY, ZONE), 'grant %s name alias.%s. A;' % (KEY, ZONE)]

RFC2136 = Harness('rfc2136', NEW)
fake, state = RFC2136.fixtures()
env_of, run, status, module, _job = RFC2136.bound()
job_of = functools.partial(RFC2136.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


@pytest.fixture
def named(tmp_path):
    """named holding example.com (home: an A of TTL 120 and a TXT; alias: a CNAME) and
    lab.example.com, each key allowed to update home's A and AAAA alone."""
    why = missing()
    if why:
        import needs
        needs.missing(why)
    started = Named(tmp_path, KEYS, {
        ZONE: (['home 120 IN A %s' % OLD, 'home 600 IN TXT "keep me"', 'alias IN CNAME www', 'www IN A 192.0.2.80'],
               GRANTS),
        'lab.' + ZONE: ([], GRANTS)})
    yield started
    started.stop()


def real(box, state, named, *args, **more):
    """A run of ddkit against named, with the key of hmac-sha256 unless told."""
    key = more.pop('key', KEY)
    given = dict(DDNS_SERVER='127.0.0.1:%d' % named.port, DDNS_TSIG_KEY_NAME=key, DDNS_TSIG_SECRET=KEYS[key][1],
                 DDNS_TSIG_ALGORITHM=KEYS[key][0])
    return run(box, state, *args, **dict(given, **more))


# --- against a real BIND 9 ------------------------------------------------------------------------

def test_an_update_keeps_the_ttl_and_the_names_other_records_then_leaves_it_alone(box, state, named):
    done = real(box, state, named)
    ok(done)
    assert named.dig(RECORD, 'A') == [(120, NEW)] and named.dig(RECORD, 'TXT') == [(600, '"keep me"')]
    again = real(box, state, named)
    ok(again)
    assert 'IP has not changed' in again.stdout and KEYS[KEY][1] not in shown(again, state)


@pytest.mark.parametrize('algorithm', ALGORITHMS)
def test_each_algorithm_signs_an_update_bind_takes(box, state, named, algorithm):
    ok(real(box, state, named, key='key-%s' % algorithm, ip=OTHER))
    assert named.dig(RECORD, 'A') == [(120, OTHER)]


def test_stored_ids_read_the_record_then_update_it(box, state, named):
    ok(real(box, state, named, ip=OTHER))
    assert (state / ('.rfc2136-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, RECORD)
    ok(real(box, state, named))
    assert named.dig(RECORD, 'A') == [(120, NEW)]


def test_the_zone_is_found_from_the_servers_soa_without_zone_name(box, state, named):
    name = 'home.lab.' + ZONE
    ok(real(box, state, named, DDNS_ZONE_NAME='', DDNS_RECORD_NAME=name))
    assert named.dig(name, 'A') == [(300, NEW)]
    assert (state / ('.rfc2136-id_%s.txt' % name)).read_text().split() == ['lab.' + ZONE, name, 'lab.' + ZONE]


@pytest.mark.parametrize('change, code, words', [
    ({'DDNS_TSIG_SECRET': base64.b64encode(b'not the secret').decode()}, 'BADSIG', 'tsig_secret must be the secret'),
    ({'DDNS_TSIG_KEY_NAME': 'no-such-key'}, 'BADKEY', 'the server knows no key'),
    ({'DDNS_TSIG_ALGORITHM': 'hmac-sha512'}, 'BADKEY', 'the server knows no key'),
    ({'DDNS_RECORD_NAME': 'www.' + ZONE}, 'REFUSED', 'update-policy'),
], ids=['wrong secret', 'unknown key', 'another algorithm', 'a name the key may not change'])
def test_a_refused_update_says_why_and_never_shows_the_secret(box, state, named, change, code, words):
    done = real(box, state, named, **change)
    failed(done)
    given = dict(dict(DDNS_SERVER='127.0.0.1:%d' % named.port, DDNS_TSIG_KEY_NAME=KEY,
                      DDNS_TSIG_SECRET=KEYS[KEY][1]), **change)
    said = status(box, state, **given)
    assert (said['step'], said['kind'], said['code']) == ('update record', 'refused', code)
    assert words in said['fix'] and code in done.stdout
    assert given['DDNS_TSIG_SECRET'] not in shown(done, state) + json.dumps(said)
    assert named.dig(RECORD, 'A') == [(120, OLD)] and named.dig('www.' + ZONE, 'A') == [(3600, '192.0.2.80')]


def test_a_cname_at_the_name_is_refused_before_any_update(box, state, named):
    failed(real(box, state, named, DDNS_RECORD_NAME='alias.' + ZONE))
    said = status(box, state, DDNS_RECORD_NAME='alias.' + ZONE)
    assert said['step'] == 'find record' and 'remove the CNAME' in said['fix']


def test_a_zone_the_server_lacks_and_a_name_that_is_no_zone(box, state, named):
    failed(real(box, state, named, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org'))
    said = status(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert (said['step'], said['kind']) == ('find zone', 'not found')
    done = real(box, state / 'two', named, DDNS_ZONE_NAME='www.' + ZONE, DDNS_RECORD_NAME='www.' + ZONE)
    failed(done)
    assert 'the server holds no zone www.example.com (the name is in its zone example.com); set zone_name to ' \
           'example.com' in done.stdout


def test_check_proves_the_key_with_a_signed_query_and_sends_no_update(box, state, named):
    done = real(box, state, named, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'credentials accepted (TSIG key key-hmac-sha256, hmac-sha256)' in done.stdout
    assert 'zone example.com found' in done.stdout and 'A record home.example.com found' in done.stdout
    assert kept_nothing(state) and named.dig(RECORD, 'A') == [(120, OLD)]
    refused = real(box, state, named, '--check', DDNS_TSIG_SECRET=base64.b64encode(b'wrong').decode())
    assert refused.returncode == 1 and 'FAIL  credentials accepted: login: the server refused the request ' \
        '(NOTAUTH, TSIG error BADSIG)' in refused.stdout


def test_lines_are_addresses_of_the_rrset_at_the_server(box, state, named):
    """Line ct's address added beside another's, changed, and taken out alone, each by one UPDATE."""
    from ddkit.provider import address_id
    rfc2136 = module()
    job = job_of(box, state, 'ct', DDNS_SERVER='127.0.0.1:%d' % named.port, DDNS_TSIG_KEY_NAME=KEY,
                 DDNS_TSIG_SECRET=KEYS[KEY][1])
    rfc2136.create_record(job_of(box, state, 'cm', DDNS_SERVER='127.0.0.1:%d' % named.port, DDNS_TSIG_KEY_NAME=KEY,
                                 DDNS_TSIG_SECRET=KEYS[KEY][1]), ZONE, CM)
    assert rfc2136.find_record(job, ZONE) is None
    rid = rfc2136.create_record(job, ZONE, CT)
    moved = CT.replace('::10', '::20')
    rfc2136.update_record(job, ZONE, rfc2136.read_record(job, ZONE, rid), moved)
    assert named.dig(RECORD, 'AAAA') == sorted([(300, CM), (300, moved)])
    rfc2136.delete_record(job, ZONE, rfc2136.read_record(job, ZONE, address_id(moved)))
    assert named.dig(RECORD, 'AAAA') == [(300, CM)] and named.dig(RECORD, 'A') == [(120, OLD)]


# --- against the fake: every message read and its TSIG checked by dnspython -------------------------

def test_each_update_is_signed_as_dnspython_verifies_it(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=120)
    ok(run(box, state))
    assert fake.calls() == ['find_zone', 'get_record', 'update'] and fake.crashed == []
    update = fake.calls('update')[0]
    assert update.message.had_tsig and str(update.message.keyname) == fake.key_name + '.' and update.tsig_error is None
    assert [(r.to_text(), r.ttl) for r in update.message.update] == [
        ('%s. ANY A' % RECORD, 0), ('%s. 120 IN A %s' % (RECORD, NEW), 120)]   # the RRset deleted, then added
    assert not fake.calls('find_zone')[0].message.had_tsig and fake.find(RECORD)[0]['records'] == [NEW]


@pytest.mark.parametrize('algorithm', ALGORITHMS)
def test_each_algorithm_is_dnspythons(box, fake, state, algorithm):
    fake.keys = {fake.key_name: (fake.secret, algorithm)}
    ok(run(box, state, DDNS_TSIG_ALGORITHM=algorithm))
    assert fake.calls('update')[0].tsig_error is None and fake.find(RECORD)[0]['records'] == [NEW]
    assert fake.calls('update')[0].message.keyalgorithm.to_text().lower().startswith(algorithm)


def test_a_truncated_answer_is_asked_again_over_tcp(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('truncated', route='get_record')
    fake.fail('truncated', route='update')
    ok(run(box, state))
    assert fake.calls() == ['find_zone', 'get_record', 'get_record', 'update', 'update'] and fake.tcp_messages == 2
    assert fake.find(RECORD)[0]['records'] == [NEW]


def test_an_answer_that_is_not_signed_is_not_taken(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update', wire=unsigned)
    failed(run(box, state))
    said = status(box, state)
    assert said['step'] == 'update record' and 'not signed' in said['message']


def test_an_answer_signed_with_another_secret_is_not_taken(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update', wire=forged)
    failed(run(box, state))
    said = status(box, state)
    assert said['step'] == 'update record' and 'not signed with the key' in said['message']


def forged(query):
    """An answer of NOERROR signed with the request's key name and algorithm, and another secret."""
    import dns.message
    import dns.tsig
    response = dns.message.make_response(query)
    response.use_tsig(dns.tsig.Key(query.keyname, base64.b64encode(b'another secret').decode(), query.keyalgorithm))
    response.request_mac = query.mac
    return response.to_wire()


def unsigned(query):
    """An answer of NOERROR without the TSIG a signed request's answer must carry."""
    import dns.message
    response = dns.message.make_response(query)
    response.keyring = None
    response.tsig = None
    return response.to_wire()


@pytest.mark.parametrize('answer', [
    {'wire': b'\x00'},
    {'wire': lambda query: query.to_wire()[:2] + b'\x84\x00\x00\x01\x00\x01\x00\x00\x00\x00\xc0\x0c'},
    {'wire': lambda query: query.to_wire()[:2] + b'\x84\x00\x00\x00\x00\x01\x00\x00\x00\x00\xc0\x0c\x00\x01'},
], ids=['one byte', 'a question that points at itself', 'a record that ends early'])
def test_a_broken_answer_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='get_record', times=2, **answer)
    failed(run(box, state, DDNS_TIMEOUT='1'))
    assert fake.calls('update') == [] and fake.find(RECORD)[0]['records'] == [OLD]


def test_silence_is_a_timeout_naming_the_server(box, fake, state):
    fake.fail('close', route='find_zone', times=10)
    done = run(box, state, DDNS_TIMEOUT='1')
    failed(done)
    said = status(box, state)
    assert (said['step'], said['kind']) == ('find zone', 'timeout') and 'DDNS_SERVER' in done.stdout
    assert fake.calls() == ['find_zone', 'find_zone']   # sent twice over UDP


def test_servfail_is_a_server_error_the_next_run_retries(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('status', route='update', status=500)
    done = run(box, state)
    failed(done)
    assert status(box, state)['kind'] == 'server error' and 'the next run tries again' in done.stdout


@pytest.mark.parametrize('value, words', [
    ('ns.example.com:0', 'the server\'s host name or address'),
    ('ns example.com', 'the server\'s host name or address'),
], ids=['port 0', 'a blank'])
def test_a_server_that_is_none_is_refused_before_anything_is_sent(box, fake, state, value, words):
    done = run(box, state, DDNS_SERVER=value)
    assert done.returncode == 2 and words in done.stdout + done.stderr and fake.calls() == []


def test_a_secret_that_is_no_base64_is_refused_before_anything_is_sent(box, fake, state):
    done = run(box, state, DDNS_TSIG_SECRET='not base64!')
    assert done.returncode == 2 and 'base64' in done.stdout + done.stderr and fake.calls() == []
    assert 'not base64!' not in done.stdout + done.stderr


def test_the_server_is_taken_with_its_port_ipv6_in_brackets(box, fake, state):
    split = module().split_server
    assert [split(v) for v in ('ns.example.com', '192.0.2.53:5353', '[2001:db8::53]:5353', '2001:db8::53')] == [
        ('ns.example.com', 53), ('192.0.2.53', 5353), ('2001:db8::53', 5353), ('2001:db8::53', 53)]


def test_the_last_lines_address_deletes_the_rrset(box, fake, state):
    rfc2136 = module()
    fake.add_record(ZONE, RECORD, 'AAAA', [CM], ttl=600)
    job = job_of(box, state, 'cm')
    assert rfc2136.delete_record(job, ZONE, rfc2136.find_record(job, ZONE)) is None
    assert fake.find(RECORD, 'AAAA') == [] and fake.calls() == ['get_record', 'update']
    assert [(r.to_text(), r.ttl) for r in fake.calls('update')[0].message.update] == [('%s. ANY AAAA' % RECORD, 0)]
