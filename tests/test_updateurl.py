"""The updateurl provider and ddns-scripts' update-URL services, its presets, against
tests/fakes/updateurl.py over real HTTP: each service of the list is sent what its entry says
(tests/url_services.py, written from the list apart from the registry's table: the path and query in
order, Basic authentication exactly where its URL has user:password@, the address in its field or,
without [IP], over the record's family), its success is an answer that holds the entry's answer and
anything else a failure that shows the service's answer; a service without an IPv6 URL refuses an
AAAA record; the plain provider fills [PARAMENC] and [PARAMOPT], takes a literal user:password@ as
Basic auth, refuses an unknown placeholder; the services of the list that name an update script run
ddkit's provider for that API; and no secret in anything shown or kept."""

import base64

import pytest

from conftest import RECORD, sampled
from fakes.updateurl import OWN_URL, SERVICE_FAKES
from provider_harness import Harness, shown
from providers import registry
from url_services import PASSWORD, SERVICES, USER

OLD, NEW, V6 = '81.2.69.1', '81.2.69.10', '240e:3a1::10'
FAKES = {cls.PROVIDER: cls for cls in SERVICE_FAKES}
FOUR = sampled(SERVICES, keep=4)                        # every entry under make test-full
SIX = sampled([row for row in SERVICES if row[4]], keep=3)
ANSWERED = [row for row in SERVICES if row[1]]          # a success must hold an answer


def harness(name):
    return Harness(name)


def fake_of(box, name, host=None):
    """The service's fake: the sandbox's, or one of its own on host (::1, for IPv6 from the request)."""
    if host is None:
        return box.fakes[name]
    started = FAKES[name](host=host).start()
    dict.__setitem__(box.fakes, name, started)   # the sandbox stops it, and points the record at it
    return started


def basic(user, password):
    return 'Basic ' + base64.b64encode(('%s:%s' % (user, password)).encode()).decode()


def test_the_tests_list_and_the_registrys_table_name_the_same_services():
    """The entries written out here are the registry's presets of updateurl, one each, and the rows
    of the module's table (updateurl.SERVICES), which the registry names alone."""
    assert sorted(row[0] for row in SERVICES) == sorted(registry().services()) == \
        sorted(registry().URL_SERVICES) == sorted(registry().provider('updateurl').SERVICES)


@pytest.mark.parametrize('row', FOUR, ids=[row[0] for row in FOUR])
def test_each_service_is_sent_what_its_entry_says_for_an_a_record(box, tmp_path, row):
    name, answer, auth, (path, pairs), _ = row
    fake = fake_of(box, name)
    fake.add_record(None, RECORD, 'A', OLD)
    done = harness(name).run(box, tmp_path, ip=NEW)
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = fake.calls('update')
    told = NEW if any(value == '{ip}' for _, value in pairs) else '127.0.0.1'   # else the request's own
    assert fake.told('A') == told
    assert request.headers.get('authorization') == (basic(*auth) if auth else None)
    assert PASSWORD not in shown(done, tmp_path) and 'p4ss%26w%2Frd' not in shown(done, tmp_path)
    again = harness(name).run(box, tmp_path, ip=NEW)   # the ip file spares the service
    assert again.returncode == 0 and len(fake.calls('update')) == 1


@pytest.mark.parametrize('row', SIX, ids=[row[0] for row in SIX])
def test_each_service_with_an_ipv6_url_is_sent_its_aaaa_request(box, tmp_path, lookups, row):
    name, _, _, _, (path, pairs) = row
    from_request = not any(value == '{ip}' for _, value in pairs)
    fake = fake_of(box, name, host='::1' if from_request else None)
    fake.add_record(None, RECORD, 'AAAA', '240e:3a1::1')
    lookups[0].answer = V6
    done = harness(name).run(box, tmp_path, DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=lookups[0].url)
    assert done.returncode == 0, done.stdout + done.stderr
    # without [IP] the service takes the request's address: sent over IPv6, the record's family
    assert fake.told('AAAA') == ('::1' if from_request else V6) and fake.told('A') == ''


def test_a_service_that_takes_the_requests_address_is_reached_over_the_records_family_alone(box, tmp_path):
    """Without [IP] in its URL the service sets the address the request comes from: an A record's
    request never leaves over IPv6 (here its server is at ::1 alone: unreachable, nothing told)."""
    name = [row[0] for row in SERVICES if not any(v == '{ip}' for _, v in row[3][1])][0]
    fake = fake_of(box, name, host='::1')
    fake.add_record(None, RECORD, 'A', OLD)
    done = harness(name).run(box, tmp_path, ip=NEW)
    assert done.returncode == 1 and fake.calls() == [] and fake.told('AAAA') == '', done.stdout + done.stderr


def test_a_service_without_an_ipv6_url_refuses_an_aaaa_record_before_sending(box, tmp_path):
    name = [row[0] for row in SERVICES if row[4] is None][0]
    done = harness(name).run(box, tmp_path, DDNS_RECORD_TYPE='AAAA')
    assert done.returncode == 2 and 'holds A records only' in done.stderr and 'nothing was sent' in done.stderr
    assert box.fakes[name].calls() == []


@pytest.mark.parametrize('row', sampled(ANSWERED, keep=2), ids=lambda row: row[0])
def test_failed_an_answer_without_the_entrys_answer_shows_it_and_exits_1(box, tmp_path, row):
    name, answer, auth = row[:3]
    fake = fake_of(box, name)
    fake.add_record(None, RECORD, 'A', OLD)
    if not auth:
        fake.records.clear()        # it answers nohost
    # with a password it does not hold, a service of Basic auth answers badauth, with HTTP 200
    done = harness(name).run(box, tmp_path, ip=NEW, DDNS_PASSWORD='wrong-password' if auth else PASSWORD)
    assert done.returncode == 1, done.stdout + done.stderr
    said = 'badauth' if auth else 'nohost'
    assert 'answer does not hold %s: %s' % (answer, said) in done.stdout + done.stderr
    assert PASSWORD not in shown(done, tmp_path) and 'wrong-password' not in shown(done, tmp_path)
    assert harness(name).status(box, tmp_path)['outcome'] == 'failed'


def test_a_service_without_an_answer_takes_any_2xx_and_refuses_a_401(box, tmp_path):
    name = [row[0] for row in SERVICES if not row[1] and row[2]][0]
    fake = fake_of(box, name)
    fake.add_record(None, RECORD, 'A', OLD)
    fake.fail('status', status=401, times=4)
    done = harness(name).run(box, tmp_path, ip=NEW)
    assert done.returncode == 1 and 'HTTP 401' in done.stdout + done.stderr and 'check username and password' in \
        done.stdout + done.stderr


def test_the_updateurl_provider_fills_every_placeholder_as_ddns_scripts_does(box, tmp_path):
    fake = fake_of(box, 'updateurl')
    fake.add_record(None, RECORD, 'A', OLD)
    scheme, _, host = fake.url.partition('://')
    url = '%s://%s/nic/update?hostname=[DOMAIN]&myip=[IP]&k=[PARAMENC]&o=[PARAMOPT]&u=[USERNAME]' % (scheme, host)
    fake.four = ('/nic/update', [('hostname', RECORD), ('myip', '{ip}'), ('k', 'a b&c'), ('o', 'x/y'),
                                 ('u', USER)])
    fake.auth = None
    done = harness('updateurl').run(box, tmp_path, ip=NEW, DDNS_UPDATE_URL=url, DDNS_PARAM_ENC='a b&c',
                                    DDNS_PARAM_OPT='x%2Fy', DDNS_PASSWORD='')
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = fake.calls('update')
    # [PARAMENC] and [USERNAME] percent-encoded, [PARAMOPT] as given (it was written encoded)
    assert request.raw_query == 'hostname=%s&myip=%s&k=a%%20b%%26c&o=x%%2Fy&u=owner%%40example.com' % (RECORD, NEW)
    assert fake.told('A') == NEW and 'a b&c' not in shown(done, tmp_path)


def test_a_literal_user_and_password_in_the_url_go_as_basic_auth_percent_decoded(box, tmp_path):
    fake = fake_of(box, 'updateurl')
    fake.add_record(None, RECORD, 'A', OLD)
    fake.password = 'se:cr/et'
    scheme, _, host = fake.url.partition('://')
    url = (OWN_URL % (scheme, host)).replace('[USERNAME]:[PASSWORD]', 'owner%40example.com:se%3Acr%2Fet')
    done = harness('updateurl').run(box, tmp_path, ip=NEW, DDNS_UPDATE_URL=url, DDNS_USERNAME='', DDNS_PASSWORD='')
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = fake.calls('update')
    assert request.headers['authorization'] == basic(USER, 'se:cr/et') and '@' not in request.path
    assert 'se%3Acr' not in shown(done, tmp_path) and 'se:cr/et' not in shown(done, tmp_path)


@pytest.mark.parametrize('env, said', [
    ({'DDNS_UPDATE_URL': 'https://example.com/u?h=[HOST]&ip=[IP]'}, '[HOST] is not a placeholder'),
    ({'DDNS_UPDATE_URL': 'ftp://example.com/u?ip=[IP]'}, 'must be an http:// or https:// URL'),
    ({'DDNS_ANSWER': 'good|(nochg'}, 'is not a regular expression'),
    ({'DDNS_PASSWORD': ''}, 'missing setting password'),
    ({'DDNS_PARAM_OPT': 'a b'}, 'printable ASCII without blanks'),
    ({'DDNS_BASE_URL': 'https://example.com/nic/update'}, 'base URL alone'),
], ids=['placeholder', 'scheme', 'answer', 'password', 'param_opt', 'base_url'])
def test_refused_before_anything_is_sent(box, tmp_path, env, said):
    done = harness('updateurl').run(box, tmp_path, **env)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert box.fakes['updateurl'].calls() == []


def test_check_sends_nothing_and_checks_the_urls_host(box, tmp_path):
    name = 'dyndns.org'
    fake = fake_of(box, name)
    done = harness(name).run(box, tmp_path, '--check')
    assert done.returncode == 0 and 'all ok' in done.stdout, done.stdout
    assert fake.calls() == [] and PASSWORD not in done.stdout


def test_check_verifies_tls_with_the_services_own_host(box, tmp_path):
    """The update URL is a template (user:password@ before its host): --check takes the host it
    fills to, the service's own without base_url (unreachable here: a FAIL naming it)."""
    name = [row[0] for row in SERVICES if row[2] and row[4]][0]   # Basic auth, both families
    url = registry().provider('updateurl').SERVICES[name][1]
    host = url.split('@', 1)[1].split('/', 1)[0]
    assert url.startswith('https://'), url
    done = harness(name).run(box, tmp_path, '--check', DDNS_BASE_URL='')
    assert 'TLS with %s' % host in done.stdout and 'TLS: not used' not in done.stdout, done.stdout
    assert PASSWORD not in done.stdout and box.fakes[name].calls() == []


def test_a_service_that_names_an_update_script_runs_ddkits_provider_for_its_api(box, tmp_path):
    """A service of the list that names an update script is ddkit's provider for
    its API: its settings, its files, its status; one whose API ddkit lacks is not registered."""
    from conftest import run_tool
    scripts = registry().SCRIPT_SERVICES
    name = [name for name, target in scripts.items() if target == registry().PROVIDERS[0]][0]
    target = registry().canonical(name)
    assert target == registry().PROVIDERS[0] != name
    env = dict(box.env_of(target, str(tmp_path)), DDNS_PROVIDER=name)
    box.lookup.answer = NEW
    done = run_tool('ddkit', [], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / registry().provider(target).FILES['ip_file'].replace('%s', RECORD)).exists()
    lacking = [name for name, target in scripts.items() if target is None][0]
    assert registry().canonical(lacking) == lacking not in registry().PROVIDERS
