"""The noip provider, a preset of its protocol's module (ddkit.registry.Preset), against
tests/fakes/noip.py over real HTTP: No-IP's server by default, the request No-IP documents (Basic auth
with the account's e-mail, a User-Agent naming the client and its version), its answers and what each
stops. What every preset does alike (its own state files, the hold after a refusal, lines refused,
--check) is tests/test_presets.py's."""

import base64
import os

import pytest

from conftest import RECORD
from provider_harness import Harness
from providers import NOIP as P, registry

OLD, NEW, V6 = '81.2.69.1', '81.2.69.10', '240e:3a1::10'

HARNESS = Harness('noip')   # a run's lookup answers what the test set
env_of, run, status = HARNESS.env_of, HARNESS.run, HARNESS.status


def test_no_ips_server_is_the_default():
    names = registry().PROVIDERS
    assert names[names.index('noip')].changes['server'] == 'https://dynupdate.no-ip.com'


def test_updated_with_the_request_no_ip_documents(box, tmp_path):
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 0 and 'IP has been updated to: %s' % NEW in done.stdout, done.stdout
    (request,) = P.fake(box).calls('update')
    assert request.method == 'GET' and request.path == '/nic/update'
    assert request.query == {'hostname': RECORD, 'myip': NEW}
    env = env_of(box, tmp_path)
    credentials = request.headers['authorization'].split()[1]
    assert base64.b64decode(credentials).decode() == '%s:%s' % (env['DDNS_USERNAME'], env['DDNS_PASSWORD'])
    # No-IP identifies clients by their User-Agent: ours names the program and its version
    assert P.fake(box).agents == [request.headers['user-agent']] and request.headers['user-agent'].startswith('ddkit/')
    assert P.held(box, RECORD) == NEW
    # its own state files and log, named after the preset, none of the protocol's
    made = sorted(os.listdir(str(tmp_path)))
    assert P.ip_file(RECORD) in made and 'ddkit_noip_%s.log' % RECORD in made, made
    assert not [name for name in made if P.module_name in name], made
    said = done.stdout + done.stderr + ''.join(p.read_text() for p in tmp_path.iterdir() if p.is_file())
    assert env['DDNS_PASSWORD'] not in said and credentials not in said
    assert status(box, tmp_path)['provider'] == 'noip'


def test_an_aaaa_host_is_updated_in_a_request_of_its_own(box, tmp_path, lookups):
    P.add(box, RECORD, 'A', OLD)
    P.add(box, RECORD, 'AAAA', '240e:3a1::1')
    lookups[0].answer = V6
    done = run(box, tmp_path, DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=lookups[0].url)
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = P.fake(box).calls('update')
    assert request.query == {'hostname': RECORD, 'myip': V6}
    assert P.fake(box).find(RECORD, 'AAAA')[0]['content'] == V6 and P.held(box, RECORD) == OLD


def test_unchanged_nochg_is_success_once_then_the_ip_file_spares_no_ip(box, tmp_path):
    """No-IP blocks clients that keep sending an address it holds: nochg once, then nothing."""
    P.add(box, RECORD, 'A', NEW)
    box.lookup.answer = NEW
    first = run(box, tmp_path)
    assert first.returncode == 0 and 'already held %s' % NEW in first.stdout, first.stdout
    for _ in range(2):
        assert run(box, tmp_path).returncode == 0
    assert len(P.fake(box).calls('update')) == 1


@pytest.mark.parametrize('code, fix', [
    ('badauth', 'check username (the account\'s e-mail or user name, or a DDNS key\'s user name) and password'),
    ('nohost', 'check record_name'),
    ('badagent', 'report it to the ddkit project'),
    ('!donator', 'paid account'),
    ('abuse', 'unblock it at the service'),
])
def test_failed_each_answer_no_ip_refuses_with_says_its_fix_and_stops_sending(box, tmp_path, code, fix):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.answer = code
    first = run(box, tmp_path)
    assert first.returncode == 1 and 'the service answered %s' % code in first.stdout and fix in first.stdout, \
        first.stdout
    again = run(box, tmp_path)
    assert again.returncode == 1 and 'not sent: the service answered %s' % code in again.stdout, again.stdout
    assert len(fake.calls('update')) == 1 and fake.after_stop == 0
    shown = status(box, tmp_path)
    assert (shown['outcome'], shown['code'], shown['kind'], shown['step']) == ('failed', code, 'refused', 'update record')
    assert fix in shown['fix']
    assert (tmp_path / (P.files['hold_file'] % RECORD)).exists()


def test_failed_a_wrong_password_is_refused_as_no_ip_does(box, tmp_path):
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    done = run(box, tmp_path, DDNS_PASSWORD='not-the-password')
    assert done.returncode == 1 and 'the service answered badauth' in done.stdout, done.stdout
    assert 'not-the-password' not in done.stdout + done.stderr and P.held(box, RECORD) == OLD


def test_failed_a_host_not_in_the_account_is_nohost(box, tmp_path):
    """No-IP's answers have no notfqdn: a name it does not hold is nohost, whatever its form."""
    box.lookup.answer = NEW
    done = run(box, tmp_path, DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='elsewhere.example.org')
    assert done.returncode == 1 and 'the service answered nohost' in done.stdout, done.stdout


def test_the_fake_answers_badagent_to_a_client_that_does_not_name_its_version(box):
    """The fake's own rule, as No-IP's request page states it: no program/version, no update."""
    from urllib.request import Request, urlopen
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    auth = base64.b64encode(('%s:%s' % (fake.username, fake.password)).encode()).decode()
    for agent, code in (('', 'badagent'), ('my-router', 'badagent'), ('Acme router/1.2 ops@example.com', 'good')):
        headers = {'Authorization': 'Basic ' + auth, 'User-Agent': agent}
        with urlopen(Request('%s/nic/update?hostname=%s&myip=%s' % (fake.url, RECORD, NEW), headers=headers)) as r:
            assert r.read().decode().split()[0] == code, agent
        fake.stopped = False
