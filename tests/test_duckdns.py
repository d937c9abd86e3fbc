"""The duckdns provider against tests/fakes/duckdns.py over real HTTP: the update URL DuckDNS
documents (domains, token, the address in ip or, for an AAAA record, ipv6, which also keeps DuckDNS
from taking an IPv4 address from the request), its answers (OK with UPDATED or NOCHANGE; KO for a
wrong token or a domain of another account), and the token, which travels in the query string, in no
URL, log line, status or --check output."""

import json
import os
from urllib.request import urlopen

from conftest import RECORD, run_tool
from provider_harness import Harness, shown
from providers import DUCKDNS as P

OLD, NEW, V6_OLD, V6 = '81.2.69.1', '81.2.69.10', '240e:3a1::1', '240e:3a1::10'

HARNESS = Harness('duckdns')   # a run's lookup answers what the test set
env_of, run, status = HARNESS.env_of, HARNESS.run, HARNESS.status


def test_updated_an_a_record_with_the_documented_url(box, tmp_path):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    P.add(box, RECORD, 'AAAA', V6_OLD)
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 0 and 'IP has been updated to: %s' % NEW in done.stdout, done.stdout
    (request,) = fake.calls('update')
    assert request.method == 'GET' and request.path == '/update'
    assert request.query == {'domains': RECORD, 'token': fake.token, 'ip': NEW, 'verbose': 'true'}
    assert P.held(box, RECORD) == NEW and fake.find(RECORD, 'AAAA')[0]['content'] == V6_OLD
    assert fake.detected == [] and (tmp_path / P.ip_file(RECORD)).read_text() == NEW + '\n'
    assert fake.token not in shown(done, tmp_path)


def test_updated_an_aaaa_record_in_ipv6_and_duckdns_detects_nothing(box, tmp_path, lookups):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    P.add(box, RECORD, 'AAAA', V6_OLD)
    lookups[0].answer = V6
    done = run(box, tmp_path, DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=lookups[0].url)
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = fake.calls('update')
    assert request.query == {'domains': RECORD, 'token': fake.token, 'ipv6': V6, 'verbose': 'true'}
    assert fake.find(RECORD, 'AAAA')[0]['content'] == V6 and P.held(box, RECORD) == OLD
    assert fake.detected == []


def test_unchanged_nochange_is_success_and_the_ip_file_then_spares_duckdns(box, tmp_path):
    P.add(box, RECORD, 'A', NEW)
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 0 and 'already held %s' % NEW in done.stdout, done.stdout
    again = run(box, tmp_path)
    assert again.returncode == 0 and len(P.fake(box).calls('update')) == 1


def test_failed_a_wrong_token_is_ko_and_the_token_is_never_shown(box, tmp_path):
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    wrong = 'a-wrong-token-0123456789'
    done = run(box, tmp_path, DDNS_TOKEN=wrong)
    assert done.returncode == 1 and 'DuckDNS answered KO' in done.stdout and 'check token' in done.stdout, \
        done.stdout
    assert P.held(box, RECORD) == OLD
    kept = status(box, tmp_path)
    assert (kept['outcome'], kept['code'], kept['kind'], kept['step']) == ('failed', 'KO', 'refused', 'update record')
    assert kept['url'] == P.fake(box).url + '/update'   # without the query, which holds the token
    assert wrong not in shown(done, tmp_path) + json.dumps(kept)
    # no hold: DuckDNS asks none, and a fixed token is sent at the next run
    fixed = run(box, tmp_path)
    assert fixed.returncode == 0 and P.held(box, RECORD) == NEW


def test_failed_a_domain_of_another_account_is_ko(box, tmp_path):
    box.lookup.answer = NEW
    done = run(box, tmp_path, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    assert done.returncode == 1 and 'DuckDNS answered KO' in done.stdout and 'check' in done.stdout, done.stdout


def test_failed_a_server_error_is_tried_again_next_run_and_its_url_has_no_token(box, tmp_path):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.fail('status', route='update', times=3, status=503, text='busy')
    done = run(box, tmp_path)
    assert done.returncode == 1 and 'HTTP 503' in done.stdout, done.stdout
    kept = status(box, tmp_path)
    assert kept['kind'] == 'server error' and kept['url'] == fake.url + '/update'
    assert fake.token not in shown(done, tmp_path)
    assert run(box, tmp_path).returncode == 0 and P.held(box, RECORD) == NEW


def test_failed_an_answer_that_is_not_duckdns_names_base_url(box, tmp_path):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.fail('html', route='update')
    done = run(box, tmp_path)
    assert done.returncode == 1 and 'unexpected answer' in done.stdout and 'check base_url' in done.stdout, done.stdout


def test_the_fake_takes_the_requests_address_when_no_address_is_given(box):
    """Why an AAAA record is told in ipv6: without it (and without ip) DuckDNS sets the A record to
    the address the request came from."""
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    with urlopen('%s/update?domains=%s&token=%s' % (fake.url, RECORD.split('.')[0], fake.token)) as answer:
        assert answer.read().decode() == 'OK'
    assert fake.detected == [(RECORD, '127.0.0.1')] and P.held(box, RECORD) == '127.0.0.1'


def test_lines_are_refused_and_nothing_is_sent(box, tmp_path):
    box.lookup.answer = NEW
    done = run(box, tmp_path, '--lines', 'ct=iface:lo')
    assert done.returncode == 2 and 'provider duckdns holds one address per name' in done.stderr, done.stderr
    assert P.fake(box).calls() == []


def test_check_sends_nothing_needs_no_zone_and_shows_no_token(box, tmp_path):
    env = {k: v for k, v in env_of(box, tmp_path).items() if k != 'DDNS_ZONE_NAME'}
    box.lookup.answer = NEW
    done = run_tool('ddkit', ['--check'], env=env)
    assert done.returncode == 0 and 'only told the IP' in done.stdout, done.stdout
    assert P.fake(box).calls() == [] and os.listdir(str(tmp_path)) == []
    assert env['DDNS_TOKEN'] not in done.stdout + done.stderr


def test_a_missing_token_is_refused_before_any_request(box, tmp_path):
    env = {k: v for k, v in env_of(box, tmp_path).items() if k != 'DDNS_TOKEN'}
    done = run_tool('ddkit', env=env)
    assert done.returncode == 2 and 'missing setting token' in done.stderr, done.stderr
    assert P.fake(box).calls() == []
