"""The dyndns2 provider against its fake, over real HTTP: the request the protocol defines, and its
rules for the answers (good and nochg succeed; a stop code is never sent again with the same settings;
911 and dnserr hold sends back), through `ddkit --provider dyndns2`."""

import base64
import json
import os
import time

import pytest

from conftest import RECORD, in_process
from provider_harness import Harness
from providers import DYNDNS2 as P

OLD, NEW, V6 = '81.2.69.1', '81.2.69.10', '240e:3a1::10'

HARNESS = Harness('dyndns2')   # a run's lookup answers what the test set
env_of, run = HARNESS.env_of, HARNESS.run


def hold_file(state):
    return state / (P.files['hold_file'] % RECORD)


def test_the_update_is_the_protocols_request(box, tmp_path):
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 0 and 'IP has been updated to: %s' % NEW in done.stdout, done.stdout
    (request,) = P.fake(box).calls('update')
    assert request.method == 'GET' and request.query == {'hostname': RECORD, 'myip': NEW}
    user, password = base64.b64decode(request.headers['authorization'].split()[1]).decode().split(':')
    env = env_of(box, tmp_path)
    assert (user, password) == (env['DDNS_USERNAME'], env['DDNS_PASSWORD'])
    assert request.headers['user-agent'].startswith('ddkit/')
    assert P.held(box, RECORD) == NEW and (tmp_path / P.ip_file(RECORD)).read_text() == NEW + '\n'
    # no secret in what the run printed or logged, not even as the Basic credentials
    secret = env['DDNS_PASSWORD']
    said = done.stdout + done.stderr + ''.join(p.read_text() for p in tmp_path.iterdir())
    assert secret not in said and request.headers['authorization'].split()[1] not in said


def test_an_ipv6_address_is_escaped_in_the_query(box, tmp_path, lookups):
    P.add(box, RECORD, 'AAAA', '240e:3a1::1')
    lookups[0].answer = V6
    done = run(box, tmp_path, DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=lookups[0].url)
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = P.fake(box).calls('update')
    assert request.raw_query == 'hostname=%s&myip=240e%%3A3a1%%3A%%3A10' % RECORD
    assert P.fake(box).find(RECORD, 'AAAA')[0]['content'] == V6


def test_nochg_is_success_and_the_ip_file_then_spares_the_next_run(box, tmp_path):
    P.add(box, RECORD, 'A', NEW)
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 0 and 'already held %s' % NEW in done.stdout, done.stdout
    shown = json.loads(in_process('ddkit', ['--status', '--json'], env=env_of(box, tmp_path)).stdout)
    assert shown[0]['outcome'] == 'unchanged' and shown[0]['ip'] == NEW
    again = run(box, tmp_path)
    assert again.returncode == 0 and len(P.fake(box).calls('update')) == 1   # the ip file claims it
    assert 'last told to the provider' in again.stdout, again.stdout   # never read, so never "verified"


@pytest.mark.parametrize('code', ['badauth', 'nohost', 'abuse', '!donator'])
def test_a_stop_code_is_never_sent_again_until_a_setting_changes(box, tmp_path, code):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.answer = code
    first = run(box, tmp_path)
    assert first.returncode == 1 and 'the service answered %s' % code in first.stdout, first.stdout
    assert oct(hold_file(tmp_path).stat().st_mode & 0o777) == '0o600'
    assert env_of(box, tmp_path)['DDNS_PASSWORD'] not in hold_file(tmp_path).read_text()
    for _ in range(2):   # later runs fail at once and send nothing: a client that repeats is blocked
        again = run(box, tmp_path)
        assert again.returncode == 1 and 'not sent: the service answered %s' % code in again.stdout, again.stdout
    assert len(fake.calls('update')) == 1 and fake.after_stop == 0
    shown = json.loads(in_process('ddkit', ['--status', '--json'], env=env_of(box, tmp_path)).stdout)
    assert shown[0]['outcome'] == 'failed' and shown[0]['code'] == code and shown[0]['kind'] == 'refused'
    # the user fixes the settings: the next run sends again, and succeeds
    fake.answer = None
    fake.password = 'a-new-password'
    fixed = run(box, tmp_path, DDNS_PASSWORD='a-new-password')
    assert fixed.returncode == 0 and P.held(box, RECORD) == NEW, fixed.stdout
    assert not hold_file(tmp_path).exists()


@pytest.mark.parametrize('code', ['911', 'dnserr'])
def test_a_server_trouble_answer_holds_sends_back_for_half_an_hour(box, tmp_path, code):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.answer = code
    assert run(box, tmp_path).returncode == 1
    fake.answer = None
    held = run(box, tmp_path)
    assert held.returncode == 1 and 'held back until' in held.stdout and len(fake.calls('update')) == 1
    # half an hour later (the hold's time moved back): sent again
    lines = hold_file(tmp_path).read_text().split('\n')
    lines[2] = str(int(time.time()) - 1)
    hold_file(tmp_path).write_text('\n'.join(lines))
    assert run(box, tmp_path).returncode == 0 and P.held(box, RECORD) == NEW
    assert len(fake.calls('update')) == 2 and not hold_file(tmp_path).exists()


def test_an_http_error_without_a_code_is_tried_again_next_run(box, tmp_path):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.fail('status', route='update', times=3, status=503, text='busy')
    failed = run(box, tmp_path)
    assert failed.returncode == 1 and 'HTTP 503' in failed.stdout, failed.stdout
    assert not hold_file(tmp_path).exists()
    assert run(box, tmp_path).returncode == 0 and P.held(box, RECORD) == NEW


def test_check_sends_nothing_and_needs_no_zone(box, tmp_path):
    env = {k: v for k, v in env_of(box, tmp_path).items() if k != 'DDNS_ZONE_NAME'}
    box.lookup.answer = NEW
    done = in_process('ddkit', ['--check'], env=env)
    assert done.returncode == 0 and 'only told the IP' in done.stdout, done.stdout
    assert P.fake(box).calls() == [] and os.listdir(str(tmp_path)) == []
    assert env['DDNS_PASSWORD'] not in done.stdout
