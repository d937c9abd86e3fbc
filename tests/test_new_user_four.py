"""What a new user met, round four (issue 52): --check says what it could not check for a service only
told the IP, and fails while a protocol hold stands; a notify host one or two letters from a
service's gets a did-you-mean, never the key; a bare host name gets "record_name is the full name";
a name in no zone of the listing fails `zone found`, not the credentials; a failed test message is
notify's problem alone, and an https notify URL is TLS; `lines ct` on an A record left at its default
suggests record_type AAAA; the DoH resolvers tried in order, and a DoH line in --check."""

import os
import sys
import types

import pytest

from conftest import RECORD, ROOT, ZONE, in_process, sampled
from fakes.helpers import DoH
from fakes.notices import WeCom
from providers import PROVIDERS, READ, of

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import lookup, updater  # noqa: E402

NEW = '81.2.69.10'   # what the sandbox's lookup answers
DEAD = 'http://127.0.0.1:9'   # the discard port: nothing listens, the connection is refused at once

# the providers only told the IP that have no request checking the credentials alone
TOLD = [a for a in PROVIDERS if a.told and not hasattr(a.module(), 'login')]
# the providers only told the IP that hold sends back after an answer (the update protocol's rule)
HELD = [a for a in TOLD if hasattr(a.module(), 'held_back')]
# the providers that find a zone left out in the account's zones
LISTING = [a for a in READ if hasattr(a.module(), 'account_zones')]


def check(adapter, box, state, *args, **env):
    env = dict(adapter.env(box, str(state)), DDNS_PROVIDER=adapter.provider, **env)
    done = in_process('ddkit', ['--check'] + list(args), env=env)
    assert 'Traceback' not in done.stdout + done.stderr, done.stdout + done.stderr
    return done


def marked(out, mark):
    return [line for line in out.splitlines() if line.startswith('%-4s  ' % mark)]


# --- 1. what --check cannot know of a service only told the IP ------------------------------------------

@pytest.mark.parametrize('adapter', sampled(TOLD), ids=lambda a: a.label)
def test_check_of_a_told_service_says_the_credentials_are_not_checked(box, tmp_path, adapter):
    done = check(adapter, box, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (skipped,) = [line for line in marked(done.stdout, 'skip') if 'credentials accepted' in line]
    assert 'the first update checks them' in skipped
    closing = done.stdout.rstrip().splitlines()[-1]
    assert closing.startswith('check: all ok') and 'not checked: the credentials' in closing
    assert 'an update would succeed' not in closing, closing   # it cannot know
    assert adapter.fake(box).calls() == []


@pytest.mark.parametrize('adapter', sampled(HELD), ids=lambda a: a.label)
def test_check_fails_while_a_protocol_hold_stands_and_names_what_lifts_it(box, tmp_path, adapter):
    """A wrong password: the run gets badauth and holds every later send of those settings; --check
    fails while the hold stands (it wrote nothing: the hold is still there), and not once a setting
    changed."""
    adapter.add(box, RECORD, 'A', '81.2.69.1')
    box.lookup.answer = NEW
    wrong = {'DDNS_PASSWORD': 'a-wrong-password'}
    run = in_process('ddkit', env=dict(adapter.env(box, str(tmp_path)), **wrong))
    assert run.returncode == 1 and 'badauth' in run.stdout + run.stderr, run.stdout + run.stderr
    hold = tmp_path / (adapter.files['hold_file'] % RECORD)
    assert hold.exists()
    done = check(adapter, box, tmp_path, **wrong)
    assert done.returncode == 1, done.stdout
    (failed,) = marked(done.stdout, 'FAIL')
    assert 'sends held back: the service answered badauth at 20' in failed
    assert 'a changed setting lifts the hold' in failed and 'remove %s' % hold in failed, failed
    assert 'an update would not succeed' in done.stdout.rstrip().splitlines()[-1]
    assert len(adapter.fake(box).calls()) == 1 and hold.exists()   # the run's one request; nothing removed
    assert 'a-wrong-password' not in done.stdout
    fixed = check(adapter, box, tmp_path)   # another password: the hold is not of these settings
    assert fixed.returncode == 0 and not marked(fixed.stdout, 'FAIL'), fixed.stdout
    assert hold.exists()


def test_check_says_until_when_a_service_troubles_hold_stands(box, tmp_path):
    adapter = HELD[0]
    adapter.add(box, RECORD, 'A', '81.2.69.1')
    box.lookup.answer = NEW
    adapter.fake(box).answer = '911'
    assert in_process('ddkit', env=adapter.env(box, str(tmp_path))).returncode == 1
    done = check(adapter, box, tmp_path)
    (failed,) = marked(done.stdout, 'FAIL')
    assert failed.startswith('FAIL  sends held back until ') and 'the service answered 911' in failed, failed
    assert 'or, to send before then, remove %s' % (tmp_path / (adapter.files['hold_file'] % RECORD)) in failed


# --- 2. a notify host one or two letters from a service's ---------------------------------------------

WECOM_KEY = '693a91f6-7c1e-4bc4-97a0-0ec2f1fa5aaa'
WECOM_PATH = WeCom.path(None, WECOM_KEY)   # the robot's path and its key, as WeCom gives the URL


@pytest.mark.parametrize('given', [
    'https://qyap.weixin.qq.com' + WECOM_PATH,         # one letter left out
    'wecom+https://qyap.weixin.qq.com' + WECOM_PATH,   # the KIND+ form too
    'ntfy+https://qyapl.weixin.qq.com' + WECOM_PATH,   # any kind: two letters
], ids=['bare', 'kind', 'other kind'])
def test_a_notify_host_near_a_services_is_refused_with_a_did_you_mean(box, tmp_path, monkeypatch, capsys,
                                                                       call_tool, given):
    env = dict(READ[0].env(box, str(tmp_path)), DDNS_PROVIDER=READ[0].provider, DDNS_NOTIFY=given)
    status, out, err = call_tool('ddkit', ['--check'], env, monkeypatch, capsys)
    assert status == 2, out + err
    assert 'did you mean qyapi.weixin.qq.com?' in err and 'KIND+' not in err, err
    assert WECOM_KEY not in out + err and READ[0].fake(box).requests == []


def test_a_notify_host_of_a_service_or_far_from_every_one_is_taken():
    from ddkit.urls import notify_target
    assert notify_target('https://qyapi.weixin.qq.com' + WECOM_PATH)[0] == 'wecom'
    assert notify_target('ntfy+https://ntfy.example.org/topic')[0] == 'ntfy'
    assert notify_target('ntfy+http://127.0.0.1:8080/topic')[0] == 'ntfy'
    assert notify_target('ntfy+https://ntfy.io/topic')[0] == 'ntfy'   # two from ntfy.sh: a short host takes one


def test_a_refused_notify_url_names_the_uci_section_it_came_from(box, tmp_path):
    adapter = READ[0]
    values = {k[5:].lower(): v for k, v in adapter.env(box, str(tmp_path / 'state')).items()}
    uci = tmp_path / 'ddkit'
    uci.write_text("config defaults\n\toption notify 'https://qyap.weixin.qq.com%s'\n\n"
                   "config ddkit 'home'\n\toption enabled '1'\n\toption provider '%s'\n%s" % (
                       WECOM_PATH, adapter.provider, ''.join("\toption %s '%s'\n" % item for item in values.items())))
    for args in (['--uci', 'home'], ['--all']):
        done = in_process('ddkit', args + ['--check'], env={'DDNS_UCI_FILE': str(uci)})
        assert done.returncode == 2, done.stdout + done.stderr
        assert 'config defaults' in done.stderr and 'did you mean qyapi.weixin.qq.com?' in done.stderr, done.stderr


# --- 4 and 5. record_name: the full name, in a zone of the account ------------------------------------

@pytest.mark.parametrize('adapter', sampled(LISTING), ids=lambda a: a.label)
def test_a_name_in_no_zone_of_the_listing_fails_zone_found_not_the_credentials(box, tmp_path, adapter):
    env = {'DDNS_ZONE_NAME': '', 'DDNS_RECORD_NAME': 'home.exmaple.com'}
    done = check(adapter, box, tmp_path, **env)
    assert done.returncode == 1, done.stdout
    assert marked(done.stdout, 'ok')[-2].startswith('ok    credentials accepted'), done.stdout
    (failed,) = marked(done.stdout, 'FAIL')
    assert failed.startswith('FAIL  zone found: find zone: no zone of this account holds home.exmaple.com'), failed
    assert '(record_name from DDNS_RECORD_NAME)' in failed


@pytest.mark.parametrize('adapter', sampled(LISTING), ids=lambda a: a.label)
def test_a_bare_host_name_is_told_to_be_the_full_name(box, tmp_path, adapter):
    """主机记录 'home', as the consoles call it: without zone_name, no zone holds it."""
    env = {'DDNS_ZONE_NAME': '', 'DDNS_RECORD_NAME': 'home'}
    done = check(adapter, box, tmp_path, **env)
    (failed,) = marked(done.stdout, 'FAIL')
    assert 'fix: record_name is the full name, e.g. home.%s' % ZONE in failed, failed
    run = in_process('ddkit', env=dict(adapter.env(box, str(tmp_path)), DDNS_PROVIDER=adapter.provider, **env))
    assert run.returncode == 1 and 'fix: record_name is the full name, e.g. home.%s' % ZONE in run.stdout + run.stderr


@pytest.mark.parametrize('name, full', [('home.lan', True), ('home.example.net', True), ('home.other.com', False)])
def test_a_name_of_another_top_domain_is_told_to_be_the_full_name(box, tmp_path, name, full):
    """At a provider listing every zone of the account: a name of another domain altogether gets the
    same fix; one of another zone of the same top domain (a zone this account may lack) does not."""
    done = check(LISTING[0], box, tmp_path, DDNS_ZONE_NAME='', DDNS_RECORD_NAME=name)
    assert done.returncode == 1, done.stdout
    assert ('record_name is the full name, e.g. home.%s' % ZONE in done.stdout) == full, done.stdout


@pytest.mark.parametrize('name', ['home', 'home.lan'])
def test_a_bare_host_name_with_zone_name_is_told_to_be_the_full_name(box, tmp_path, name):
    adapter = READ[0]
    env = dict(adapter.env(box, str(tmp_path)), DDNS_PROVIDER=adapter.provider, DDNS_RECORD_NAME=name)
    for args in (['--check'], []):
        done = in_process('ddkit', args, env=env)
        assert done.returncode == 2, done.stdout + done.stderr
        assert 'record_name is the full name, e.g. home.%s' % ZONE in done.stdout + done.stderr


# --- 7. --check --notify-test ------------------------------------------------------------------------

def test_a_failed_test_message_is_notifys_problem_alone(box, tmp_path):
    wecom = WeCom().start()
    try:
        wecom.key = 'another'   # the URL's key is refused
        adapter = READ[0]
        adapter.add(box, RECORD, 'A', NEW)
        done = check(adapter, box, tmp_path, '--notify-test', DDNS_NOTIFY=wecom.notify_url)
    finally:
        wecom.stop()
    assert done.returncode == 1, done.stdout
    (failed,) = marked(done.stdout, 'FAIL')
    assert failed.startswith('FAIL  notify wecom 127.0.0.1: ')
    closing = done.stdout.rstrip().splitlines()[-1]
    assert 'of notify alone' in closing and 'an update would succeed' in closing, closing
    assert 'would not succeed' not in closing


def test_the_tls_line_counts_an_https_notify_url(box, ca, tmp_path):
    """The provider over plain HTTP, the notices over HTTPS: the TLS line names the notify host."""
    wecom = WeCom(tls_cert=ca.issue_cert('127.0.0.1')).start()
    bundle = tmp_path / 'ca.pem'
    ca.cert_pem.write_to_path(str(bundle))
    try:
        adapter = READ[0]
        done = check(adapter, box, tmp_path / 'state', DDNS_NOTIFY=wecom.notify_url, DDNS_CA_FILE=str(bundle))
    finally:
        wecom.stop()
    assert done.returncode == 0, done.stdout
    assert 'TLS: not used' not in done.stdout
    (verified,) = [line for line in marked(done.stdout, 'ok') if line.startswith('ok    TLS with 127.0.0.1:')]
    assert verified.endswith('for notify') and wecom.requests == []   # a handshake: nothing sent


def test_a_notify_host_failing_tls_is_notifys_problem_alone(box, ca, tmp_path):
    """A certificate for another name at the notify host: a FAIL of notify, the update unaffected."""
    wecom = WeCom(tls_cert=ca.issue_cert('notify.example.net')).start()
    bundle = tmp_path / 'ca.pem'
    ca.cert_pem.write_to_path(str(bundle))
    try:
        adapter = READ[0]
        adapter.add(box, RECORD, 'A', '81.2.69.1')
        done = check(adapter, box, tmp_path / 'state', DDNS_NOTIFY=wecom.notify_url, DDNS_CA_FILE=str(bundle))
    finally:
        wecom.stop()
    (failed,) = marked(done.stdout, 'FAIL')
    assert failed.startswith('FAIL  TLS with 127.0.0.1:') and '(notify)' in failed, failed
    assert 'ok    record holds 81.2.69.1' in done.stdout   # the provider's steps still ran
    assert 'of notify alone' in done.stdout.rstrip().splitlines()[-1]


# --- 13. lines ct on an A record ------------------------------------------------------------------------

@pytest.mark.parametrize('given, first', [(None, 'set record_type AAAA'), ('A', 'for an A record give its IPv4')])
def test_a_bare_line_code_on_an_a_record_suggests_record_type_aaaa_when_it_was_left_unset(
        box, tmp_path, monkeypatch, capsys, call_tool, given, first):
    adapter = [a for a in READ if getattr(a.module(), 'LINES', None)][0]
    env = dict(adapter.env(box, str(tmp_path)), DDNS_PROVIDER=adapter.provider, DDNS_LINES='ct',
               DDNS_IP_SOURCE='iface:lo')
    if given:
        env['DDNS_RECORD_TYPE'] = given
    status, out, err = call_tool('ddkit', ['--check'], env, monkeypatch, capsys)
    assert status == 2, out + err
    assert 'ct alone is the IPv6 address of China Telecom' in err
    assert err.split('fix: ', 1)[1].startswith(first), err


# --- 14. the DoH resolvers, in order; a DoH line in --check ----------------------------------------------

def config(doh_url, record_type='A'):
    """What ddkit.lookup reads of a record's settings."""
    return types.SimpleNamespace(doh_url=doh_url, record_type=record_type, timeout=5, ca_file=None,
                                 proxy_lookup=False)


@pytest.fixture
def resolvers():
    """Two DoH resolvers, each holding the record's name with an address of its own."""
    started = [DoH().start(), DoH().start()]
    for number, server in enumerate(started):
        server.names[(RECORD, 'A')] = ['81.2.69.%d' % (number + 1)]
    yield started
    for server in started:
        server.stop()


def test_the_doh_resolvers_are_asked_in_order_until_one_answers(resolvers):
    first, second = resolvers
    assert lookup.resolve(config([first.url, second.url]), RECORD) == ('81.2.69.1', None)
    assert second.requests == []
    first.fail('status', route='resolve', times=5, status=503)   # down: asked once, never retried
    assert lookup.resolve(config([first.url, second.url]), RECORD) == ('81.2.69.2', None)
    assert len(first.calls('resolve')) == 2
    # an answer without the name is an answer: the next resolver is not asked
    del first.names[(RECORD, 'A')]
    first.faults.clear()
    ip, why = lookup.resolve(config([first.url, second.url]), RECORD)
    assert ip is None and 'no A answer' in why and len(second.calls('resolve')) == 1
    # none answering: why each did not
    ip, why = lookup.resolve(config([DEAD, DEAD + '0']), RECORD)
    assert ip is None and why.startswith('no DoH resolver answered (%s: ' % DEAD) and '; %s0: ' % DEAD in why


def test_a_doh_url_with_a_path_is_asked_at_that_path(resolvers):
    """https://doh.pub/dns-query serves the JSON API at its path, https://dns.google at /resolve."""
    first, _ = resolvers
    assert lookup.resolve(config([first.url + '/resolve']), RECORD) == ('81.2.69.1', None)
    assert lookup.doh_query('https://doh.pub/dns-query', RECORD, 'AAAA') == \
        'https://doh.pub/dns-query?name=%s&type=AAAA' % RECORD
    assert lookup.doh_query('https://dns.google', RECORD, 'A') == 'https://dns.google/resolve?name=%s&type=A' % RECORD


def test_the_default_resolvers_begin_with_the_specs_and_one_reached_from_mainland_china(resolvers, monkeypatch):
    assert lookup.DOH[0] == 'https://dns.google' and len(lookup.DOH) > 1   # docs/../spec: interface.md
    monkeypatch.setattr(lookup, 'DOH', (DEAD, resolvers[1].url))   # no doh_url: the defaults, in order
    assert lookup.resolve(config(None), RECORD) == ('81.2.69.2', None)
    assert lookup.resolve(config([]), RECORD) == ('81.2.69.2', None)


def test_doh_url_is_a_list_whose_default_is_lookups():
    (setting,) = [s for s in updater.COMMON if s.name == 'doh_url']
    assert setting.repeat and setting.default is None
    assert all(url in setting.help for url in lookup.DOH)


def test_check_has_a_doh_line(box, tmp_path):
    adapter = READ[0]
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    done = check(adapter, box, tmp_path)
    assert 'ok    DoH %s: %s holds 81.2.69.1' % (box.doh.url, RECORD) in done.stdout, done.stdout
    # unreachable: a note, no failure (a run logs it and updates all the same), with the fix
    done = check(adapter, box, tmp_path, DDNS_DOH_URL=DEAD)
    assert done.returncode == 0, done.stdout
    (note,) = [line for line in done.stdout.splitlines() if line.startswith('note  DoH')]
    assert note.startswith('note  DoH: no resolver answered (') and 'fix: set doh_url' in note, note
    assert done.stdout.rstrip().endswith('check: all ok; an update would succeed.')


def test_a_resolver_that_gave_no_answer_is_passed_over_by_the_runs_later_records(resolvers):
    """dns.google unreachable: its timeout once a run, not once a record."""
    first, second = resolvers
    first.fail('status', route='resolve', times=5, status=503)
    unanswered = set()
    for _ in range(3):
        assert lookup.resolve(config([first.url, second.url]), RECORD, unanswered) == ('81.2.69.2', None)
    assert unanswered == {first.url} and len(first.calls('resolve')) == 1 and len(second.calls('resolve')) == 3
    # every one passed over: asked again all the same
    assert lookup.resolve(config([first.url]), RECORD, unanswered)[0] is None and len(first.calls('resolve')) > 1
