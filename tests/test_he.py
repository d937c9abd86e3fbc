"""The he provider (Hurricane Electric's free DNS, dns.he.net), a preset of its protocol's module
(ddkit.registry.Preset), against tests/fakes/he.py over real HTTP: dyn.dns.he.net by default, no
account login but a key per record (the user name is the host name itself, sent when username is not
set, the password that record's key), myip for either family, and its answers with their fixes.
What every preset does alike is tests/test_presets.py's."""

import base64

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness
from providers import HE as P, registry

OLD, NEW, V6 = '81.2.69.1', '81.2.69.10', '240e:3a1::10'
OTHER = 'nas.' + ZONE

HARNESS = Harness('he')   # a run's lookup answers what the test set
env_of, run = HARNESS.env_of, HARNESS.run


def test_hurricane_electrics_server_is_the_default():
    names = registry().PROVIDERS
    assert names[names.index('he')].changes['server'] == 'https://dyn.dns.he.net'


@pytest.mark.parametrize('username', [None, RECORD], ids=['username not set', 'username the host name'])
def test_updated_with_the_host_name_as_user_and_its_key_as_password(box, tmp_path, username):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    done = run(box, tmp_path, **({'DDNS_USERNAME': username} if username else {}))
    assert 'DDNS_USERNAME' not in P.env(box, tmp_path)
    assert done.returncode == 0 and 'IP has been updated to: %s' % NEW in done.stdout, done.stdout
    (request,) = fake.calls('update')
    assert request.method == 'GET' and request.query == {'hostname': RECORD, 'myip': NEW}
    credentials = request.headers['authorization'].split()[1]
    assert base64.b64decode(credentials).decode() == '%s:%s' % (RECORD, fake.keys[RECORD])
    assert P.held(box, RECORD) == NEW
    assert fake.keys[RECORD] not in done.stdout + done.stderr and credentials not in done.stdout


def test_updated_an_aaaa_record_through_myip(box, tmp_path, lookups):
    P.add(box, RECORD, 'AAAA', '240e:3a1::1')
    lookups[0].answer = V6
    done = run(box, tmp_path, DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=lookups[0].url)
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = P.fake(box).calls('update')
    assert request.query == {'hostname': RECORD, 'myip': V6}
    assert P.fake(box).find(RECORD, 'AAAA')[0]['content'] == V6


def test_each_record_has_its_own_key(box, tmp_path):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    fake.keys[OTHER] = 'the-nas-key'
    P.add(box, OTHER, 'A', OLD)
    box.lookup.answer = NEW
    wrong = run(box, tmp_path / 'wrong', DDNS_RECORD_NAME=OTHER)   # the first record's key
    assert wrong.returncode == 1 and 'the service answered badauth' in wrong.stdout, wrong.stdout
    right = run(box, tmp_path / 'right', DDNS_RECORD_NAME=OTHER, DDNS_PASSWORD='the-nas-key')
    assert right.returncode == 0 and fake.find(OTHER)[0]['content'] == NEW, right.stdout
    assert P.held(box, RECORD) == OLD


def test_failed_a_user_name_that_is_not_the_host_name_says_so(box, tmp_path):
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    done = run(box, tmp_path, DDNS_USERNAME='owner@example.com')
    assert done.returncode == 1 and 'the service answered badauth' in done.stdout, done.stdout
    assert 'username, when set, the host name itself' in done.stdout and P.held(box, RECORD) == OLD


@pytest.mark.parametrize('code, fix', [
    ('badauth', 'password is that record\'s dynamic DNS key (dns.he.net: the record\'s DDNS key), and username'),
    ('nohost', 'check record_name'),
    ('badsys', 'report it to the ddkit project'),
    ('abuse', 'unblock it at the service'),
])
def test_failed_each_answer_he_refuses_with_says_its_fix_and_stops_sending(box, tmp_path, code, fix):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.answer = code
    first = run(box, tmp_path)
    assert first.returncode == 1 and 'the service answered %s' % code in first.stdout and fix in first.stdout, \
        first.stdout
    again = run(box, tmp_path)
    assert again.returncode == 1 and 'not sent' in again.stdout and len(fake.calls('update')) == 1
    assert fake.after_stop == 0


def test_failed_a_name_with_no_record_there_is_nohost(box, tmp_path):
    box.lookup.answer = NEW
    done = run(box, tmp_path, DDNS_RECORD_NAME=OTHER)
    assert done.returncode == 1 and 'the service answered nohost' in done.stdout, done.stdout
