"""The dynu provider, a preset of its protocol's module (ddkit.registry.Preset), against
tests/fakes/dynu.py over real HTTP: Dynu's server by default, its IP Update Protocol's fields (the IPv4
address in myip, the IPv6 one in myipv6, and "no" for the family a record is not about, so that an
update of one never sets the other from the request's own address), Basic auth, and its answers with
their fixes. What every preset does alike is tests/test_presets.py's."""

import base64
from urllib.request import Request, urlopen

import pytest

from conftest import RECORD
from provider_harness import Harness
from providers import DYNU as P, registry

OLD, NEW, V6_OLD, V6 = '81.2.69.1', '81.2.69.10', '240e:3a1::1', '240e:3a1::10'

HARNESS = Harness('dynu')   # a run's lookup answers what the test set
env_of, run = HARNESS.env_of, HARNESS.run


def test_dynus_server_is_the_default():
    names = registry().PROVIDERS
    assert names[names.index('dynu')].changes['server'] == 'https://api.dynu.com'


def test_updated_an_a_record_leaves_the_hosts_ipv6_as_it_is(box, tmp_path):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    P.add(box, RECORD, 'AAAA', V6_OLD)
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 0 and 'IP has been updated to: %s' % NEW in done.stdout, done.stdout
    (request,) = fake.calls('update')
    assert request.method == 'GET' and request.query == {'hostname': RECORD, 'myip': NEW, 'myipv6': 'no'}
    user, password = base64.b64decode(request.headers['authorization'].split()[1]).decode().split(':')
    assert (user, password) == (env_of(box, tmp_path)['DDNS_USERNAME'], env_of(box, tmp_path)['DDNS_PASSWORD'])
    assert 'password' not in request.query   # the credential travels in the header, not the URL
    assert P.held(box, RECORD) == NEW and fake.find(RECORD, 'AAAA')[0]['content'] == V6_OLD
    assert fake.guessed == []


def test_updated_an_aaaa_record_in_myipv6_leaves_the_hosts_ipv4_as_it_is(box, tmp_path, lookups):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    P.add(box, RECORD, 'AAAA', V6_OLD)
    lookups[0].answer = V6
    done = run(box, tmp_path, DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=lookups[0].url)
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = fake.calls('update')
    assert request.query == {'hostname': RECORD, 'myip': 'no', 'myipv6': V6}
    assert request.raw_query == 'hostname=%s&myip=no&myipv6=240e%%3A3a1%%3A%%3A10' % RECORD
    assert fake.find(RECORD, 'AAAA')[0]['content'] == V6 and P.held(box, RECORD) == OLD
    assert fake.guessed == []


def test_the_fake_takes_a_family_left_out_from_the_requests_own_address(box):
    """Why both fields are sent: a request without myip has Dynu set the A record to the address
    the request came from (the fake's reading of a field left out), which is not a LAN host's."""
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    auth = base64.b64encode(('%s:%s' % (fake.username, fake.password)).encode()).decode()
    request = Request('%s/nic/update?hostname=%s&myipv6=%s' % (fake.url, RECORD, V6),
                      headers={'Authorization': 'Basic ' + auth, 'User-Agent': 'test/1'})
    with urlopen(request) as answer:
        assert answer.read().decode().startswith('good')
    assert fake.guessed == [(RECORD, 'A', '127.0.0.1')] and P.held(box, RECORD) == '127.0.0.1'


@pytest.mark.parametrize('code, fix', [
    ('badauth', 'check username (Dynu\'s user name, shown in its control panel) and password'),
    ('nohost', 'check record_name'),
    ('notfqdn', 'check record_name'),
    ('abuse', 'unblock it at the service'),
])
def test_failed_each_answer_dynu_refuses_with_says_its_fix_and_stops_sending(box, tmp_path, code, fix):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.answer = code
    first = run(box, tmp_path)
    assert first.returncode == 1 and 'the service answered %s' % code in first.stdout and fix in first.stdout, \
        first.stdout
    again = run(box, tmp_path)
    assert again.returncode == 1 and 'not sent' in again.stdout and len(fake.calls('update')) == 1


def test_failed_a_wrong_password_is_badauth(box, tmp_path):
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    done = run(box, tmp_path, DDNS_PASSWORD='not-the-password')
    assert done.returncode == 1 and 'the service answered badauth' in done.stdout, done.stdout
    assert 'not-the-password' not in done.stdout + done.stderr and P.held(box, RECORD) == OLD
