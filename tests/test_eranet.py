"""The eranet provider (the Todaynic DNS API at Eranet) against its fake over real HTTP; the preset
nowcn (the same API at Now.cn) is tests/test_nowcn.py's. The outcome table of every provider
(test_provider_tables) covers the common rows; here: what is Todaynic's own. Each request signed in
Alibaba Cloud's RPC style (the fake checks it with aliyun-python-sdk-core's signer), the key never
sent, a new nonce each; the apex as '@'; the TTL of a new record and the record's own sent back; the
API's words, UTF-8 or GBK, as they reach the user; its refusals; a create sent once; --check; `lines`
refused."""

import json
import time

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'

ERANET = Harness('eranet', NEW)
fake, state = ERANET.fixtures()
env_of, run, status, module, job_of = ERANET.bound()


def ids_file(state, name=RECORD):
    return state / ('.eranet-id_%s.txt' % name)


# --- the signature ---------------------------------------------------------------------------------

def test_each_request_is_signed_and_the_key_never_sent(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_records', 'update_record']
    nonces = set()
    for req in fake.requests:
        assert req.method == 'GET' and req.body == b'' and req.path.startswith('/api/Dns/')
        q = req.query
        assert (q['AccessInstanceID'], q['SignatureMethod']) == (fake.instance_id, 'HMAC-SHA1') and q['Signature']
        assert abs(time.mktime(time.strptime(q['Timestamp'], '%Y-%m-%dT%H:%M:%SZ')) - time.mktime(time.gmtime())) < 60
        assert fake.api_key not in req.path + req.raw_query + str(req.headers)
        nonces.add(q['SignatureNonce'])
    assert len(nonces) == 2 and fake.api_key not in shown(done, state)
    signatures = [r.query['Signature'] for r in fake.requests]
    assert not [s for s in signatures if s in shown(done, state)]


def test_the_signature_is_the_rpc_styles_with_any_character(box, fake, state):
    """Values that need encoding (a space, '*', '~', '/', non-ASCII) are signed as the SDK signs them."""
    from fakes.eranet import sdk_signature   # the SDK's signer, the fake's oracle
    from ddkit.provider import canonical_query, rpc_signature
    params = {'Domain': 'bücher.example', 'Host': 'a b*c~d/e', 'Type': 'A', 'AccessInstanceID': 'x',
              'SignatureNonce': 'n', 'Timestamp': '2026-01-02T03:04:05Z', 'SignatureMethod': 'HMAC-SHA1'}
    assert rpc_signature('secret', 'GET', canonical_query(params)) == sdk_signature('secret', 'GET', params)[0]


def test_a_wrong_key_or_instance_or_clock_is_refused_with_the_apis_words(box, fake, state):
    fake.instances[fake.instance_id] = 'another-key'
    done, said = ERANET.failure(box, state)
    assert (said['step'], said['kind'], said.get('code')) == ('find zone', 'refused', None)
    assert 'find zone: error: 签名错误' in done.stdout and 'api_key' in said['fix'] and 'clock' in said['fix']
    fake.instances = {fake.instance_id: fake.api_key}
    fake.clock_offset = 3600
    failed(run(box, state))
    assert '时间戳已过期' in status(box, state)['message']


# --- what reaches the user: UTF-8 or GBK -----------------------------------------------------------

def test_a_refusal_in_utf8_is_shown_in_its_chinese(box, fake, state):
    done = run(box, state, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(done)
    line = [x for x in done.stdout.splitlines() if 'the provider refused the request' in x][0]
    assert 'find zone: the provider refused the request for domain example.org (域名不存在或不属于该账户); ' \
           'check access_instance_id' in line


def test_a_refusal_in_gbk_is_shown_with_its_ascii_and_each_chinese_run_one_mark(box, fake, state):
    """python3-light has no GBK codec: an answer that is no UTF-8 is read as GBK, its ASCII kept
    (the instance id, a host) and each run of Chinese one '…'; the fix says what to do."""
    fake.encoding = 'gbk'
    fake.instances = {}
    done, said = ERANET.failure(box, state)
    assert 'find zone: error: AccessInstanceID …' in done.stdout and '\ufffd' not in shown(done, state)
    assert said['fix'] == module().REFUSED and 'AccessInstanceID …' in said['message']


def test_a_gbk_answer_whose_second_byte_is_a_backslash_is_still_read(box, fake, state):
    """誠 is D5 5C in GBK: read byte by byte its second byte would escape the closing quote."""
    fake.fail('reply', route='list_records', text=json.dumps({'RequestId': 'r', 'error': '誠'},
                                                             ensure_ascii=False).encode('gbk'))
    done = run(box, state)
    failed(done)
    assert 'find zone: error: …' in done.stdout and status(box, state)['kind'] == 'refused'


# --- records -----------------------------------------------------------------------------------

def test_the_apex_is_host_at_and_a_new_record_gets_ttl_600(box, fake, state):
    ok(run(box, state, DDNS_RECORD_NAME=ZONE))
    sent = fake.calls('create_record')[0].query
    assert (sent['Domain'], sent['Host'], sent['Type'], sent['Value'], sent['Ttl']) == (ZONE, '@', 'A', NEW, '600')
    made = fake.find(ZONE)
    assert [(r['content'], r['ttl']) for r in made] == [(NEW, 600)]
    assert ids_file(state, ZONE).read_text() == '%s\n%s\n' % (ZONE, made[0]['id'])
    fake.reset_log()
    ok(run(box, state, '--force', DDNS_RECORD_NAME=ZONE, ip=OTHER))
    assert fake.calls() == ['list_records', 'update_record'] and fake.calls('update_record')[0].query['Host'] == '@'


def test_an_update_sends_back_the_listed_ttl(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=3600)
    ok(run(box, state))
    assert fake.calls('update_record')[0].query['Ttl'] == '3600'
    assert [(r['content'], r['ttl']) for r in fake.find(RECORD)] == [(NEW, 3600)]


def test_a_listing_without_ttl_sends_none(box, fake, state):
    """Whether the API lists the TTL is not known: without one the update leaves Ttl out."""
    fake.ttl_listed = False
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=3600)
    ok(run(box, state))
    assert 'Ttl' not in fake.calls('update_record')[0].query and fake.find(RECORD)[0]['content'] == NEW


def test_only_the_name_and_type_are_taken(box, fake, state):
    fake.add_record(ZONE, 'x' + RECORD, 'A', OLD)
    fake.add_record(ZONE, RECORD, 'AAAA', '240e:1::1')
    fake.fail('reply', route='list_records', body={'RequestId': 'r', 'Data': [
        {'id': 7, 'Domain': ZONE, 'Host': 'xhome', 'Type': 'A', 'Value': OLD},
        {'id': 8, 'Domain': ZONE, 'Host': 'home', 'Type': 'AAAA', 'Value': '240e:1::1'},
        {'id': '../9', 'Domain': ZONE, 'Host': 'home', 'Type': 'A', 'Value': OLD}]})
    ok(run(box, state))
    assert fake.calls() == ['list_records', 'create_record'] and fake.calls('create_record')[0].query['Host'] == 'home'


def test_stored_ids_are_checked_in_the_listing(box, fake, state):
    rid = fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state))
    fake.reset_log()
    ok(run(box, state, ip=OTHER))
    assert fake.calls() == ['list_records', 'update_record'] and fake.calls('update_record')[0].query['Id'] == rid
    del fake.records[int(rid)]
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.reset_log()
    ok(run(box, state))   # the stored id is gone: the record found by name in the same listing
    assert fake.calls() == ['list_records', 'update_record'] and fake.find(RECORD)[0]['content'] == NEW
    assert ids_file(state).read_text() == '%s\n%s\n' % (ZONE, fake.find(RECORD)[0]['id'])


@pytest.mark.parametrize('route, sent', [('create_record', 1), ('update_record', 2)], ids=['create', 'update'])
def test_a_write_whose_answer_was_lost_is_found_right_by_the_next_run(box, fake, state, route, sent):
    """The write took effect. A create is sent once; an update ddkit.http sends again, the same
    request, whose nonce the API (as the fake) refuses. Either way the run fails, and the next finds
    the record holding the address and sends nothing."""
    if route == 'update_record':
        fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('lost', route=route)
    failed(run(box, state))
    said = status(box, state)['message']
    assert len(fake.calls(route)) == sent and ('SignatureNonce' in said) == (sent == 2)
    assert [r['content'] for r in fake.find(RECORD)] == [NEW]
    fake.reset_log()
    ok(run(box, state))
    assert fake.calls() == ['list_records'] and status(box, state)['outcome'] == 'unchanged'


@pytest.mark.parametrize('answer, kind', [
    ({'body': {'RequestId': 'r', 'Data': 'none'}}, 'unexpected'),
    ({'body': [1, 2]}, 'unexpected'),
    ({'text': '<html>maintenance</html>'}, 'not json'),
    ({'status': 503, 'text': 'busy'}, 'server error'),
    ({'status': 403, 'text': '<html>Forbidden</html>'}, 'refused'),
], ids=['data not a list', 'not an object', 'html', 'server error', 'forbidden'])
def test_an_unusable_answer_is_a_failure_not_a_traceback(box, fake, state, answer, kind):
    fake.fail('reply', route='list_records', times=3, **answer)
    failed(run(box, state))
    said = status(box, state)
    assert said['kind'] == kind and fake.calls('create_record') == []
    if answer.get('status') == 403:
        assert said['fix'] == module().REFUSED


def test_an_echoed_signature_is_taken_out(box, fake, state):
    def echo(reply):
        sent = fake.requests[-1].raw_query
        return type(reply)(200, {'RequestId': 'r', 'error': 'bad request: ' + sent})
    fake.fail('rewrite', route='list_records', answer=echo)
    done = run(box, state)
    failed(done)
    signature = fake.requests[-1].query['Signature']
    from urllib.parse import quote
    assert signature not in shown(done, state) and quote(signature, safe='') not in shown(done, state)
    assert 'Signature=***' in done.stdout


# --- --check, lines ------------------------------------------------------------------------------

def test_check_reads_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = ERANET.check(box, state)
    assert 'credentials accepted (AccessInstanceID %s)' % fake.instance_id in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found' % RECORD in done.stdout
    assert set(fake.calls()) == {'list_records'} and kept_nothing(state)


def test_lines_are_refused_before_anything_is_sent(box, fake, state):
    done = run(box, state, DDNS_LINES='ct=iface:lo', DDNS_IP_SOURCE='iface:lo')
    assert done.returncode == 2 and 'provider eranet holds one address per name' in done.stderr
    assert fake.calls() == []
