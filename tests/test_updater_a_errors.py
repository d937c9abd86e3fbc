"""Updater A's error table (service.md 7), invalid IP answers, corrupt state, locking, TLS, dry run."""

import os
import subprocess
import sys
import threading
import time

import pytest

from conftest import RECORD, ROOT, run_tool, tool_path
from test_updater_a import IDS_FILE, IP_FILE, cached

sys.path.insert(0, os.path.join(ROOT, 'lib'))


@pytest.mark.parametrize('body, shown', [
    ({'success': False, 'errors': [{'code': 6007, 'message': 'Malformed JSON in request body'}],
      'messages': [], 'result': None}, ['error 6007: Malformed JSON in request body']),
    ({'success': False, 'errors': [{'code': 7003, 'message': 'Could not route to /zones/x, perhaps your '
                                    'object identifier is invalid?'},
                                   {'code': 7000, 'message': 'No route for that URI'}],
      'messages': [], 'result': None}, ['error 7003: Could not route', 'error 7000: No route for that URI']),
    ({'success': False, 'errors': [{'code': '10000', 'message': 'Authentication error'}],
      'messages': [], 'result': None}, ['error 10000: Authentication error']),
    ({'error': 'Invalid request headers'}, ['Invalid request headers']),
])
def test_provider_errors_are_logged_and_exit_1(box, tmp_path, body, shown):
    rid = cached(box, tmp_path)
    box.lookup.answer = '81.2.69.80'
    # twice: 7003 means a stale id, which is looked up again once and the update retried
    box.provider_a.fail('reply', route='update_record', status=400, body=body, times=2)
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 1
    for text in shown:
        assert text in done.stdout
    log = (tmp_path / ('updater_a_%s.log' % RECORD)).read_text()
    assert all(text in log for text in shown)
    # the ip file went before the update was sent, and the update failed: it claims nothing
    assert not (tmp_path / IP_FILE).exists()
    assert box.provider_a.records[rid]['content'] == '81.2.69.1'


def test_empty_answer_says_timed_out_check_connectivity(box, tmp_path):
    cached(box, tmp_path)
    box.lookup.answer = '81.2.69.81'
    box.provider_a.fail('empty', route='get_record')
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 1
    assert 'timed out; check connectivity' in done.stdout
    assert (tmp_path / IP_FILE).read_text() == '81.2.69.1\n'


@pytest.mark.parametrize('answer', [
    '<html><body>502 Bad Gateway</body></html>', '', '192.168.1.2', '10.0.0.1', '127.0.0.1',
    '100.64.1.2', '169.254.3.4', '240e:1::1', 'not an address', '81.2.69.1 81.2.69.2'])
def test_no_valid_ip_changes_nothing_and_exits_0(box, tmp_path, answer):
    rid = cached(box, tmp_path, ip='81.2.69.1')
    box.lookup.answer = answer
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0
    assert 'No valid IP' in done.stdout
    assert box.provider_a.calls() == []
    assert (tmp_path / IP_FILE).read_text() == '81.2.69.1\n'
    assert box.provider_a.records[rid]['content'] == '81.2.69.1'


def test_no_valid_ip_for_aaaa_when_lookup_gives_link_local_or_ula(box, tmp_path):
    from fakes.helpers import IpLookup
    for answer in ('fe80::1', 'fd00::5', '::1', '81.2.69.1'):
        six = IpLookup(answer, host='::1').start()
        try:
            env = dict(box.env_a(str(tmp_path)), DDNS_RECORD_TYPE='AAAA', DDNS_IP_LOOKUP_URL=six.url)
            done = run_tool('updater_a', env=env)
        finally:
            six.stop()
        assert done.returncode == 0 and 'No valid IP' in done.stdout, answer
    assert box.provider_a.calls() == [] and box.doh.calls() == []


def test_lookup_unreachable_is_exit_1(box, tmp_path):
    cached(box, tmp_path)
    env = box.env_a(str(tmp_path))
    box.lookup.stop()
    done = run_tool('updater_a', env=env)
    assert done.returncode == 1
    assert 'get current IP: no answer from' in done.stdout
    assert box.provider_a.calls() == []


# a router's run waits ddkit.http.BACKOFF (a second) before its first retry; the suite's runs wait what
# DDKIT_TEST_BACKOFF says (tests/conftest.py), which can only make it shorter
@pytest.mark.parametrize('value, wait', [(None, 1.0), ('0.05', 0.05), ('0', 0.0), ('5', 1.0), ('', 1.0),
                                         ('-1', 1.0), ('nan', 1.0), ('1e-3', 1.0), ('0.5.1', 1.0)])
def test_the_first_retry_waits_a_second_unless_the_suite_asks_for_less(value, wait):
    from ddkit import http
    assert http.first_wait({} if value is None else {'DDKIT_TEST_BACKOFF': value}) == wait


# a second run waits ddkit.lock.WAIT (5 s) for the first; a test of one that gives up asks for less
# (DDKIT_TEST_LOCK_WAIT), which can only make it shorter
@pytest.mark.parametrize('value, wait', [(None, 5.0), ('0.5', 0.5), ('0', 0.0), ('60', 5.0), ('', 5.0),
                                         ('-1', 5.0), ('nan', 5.0), ('0.5.1', 5.0)])
def test_a_second_run_waits_five_seconds_unless_the_suite_asks_for_less(value, wait):
    from ddkit import lock
    assert lock.waited({} if value is None else {'DDKIT_TEST_LOCK_WAIT': value}, lock.WAIT) == wait


def test_a_run_without_the_suites_setting_waits_a_second_before_its_retry(box, tmp_path):
    rid = cached(box, tmp_path)
    box.lookup.answer = '81.2.69.82'
    box.provider_a.fail('status', route='get_record', status=503)
    started = time.monotonic()
    done = run_tool('updater_a', env=dict(box.env_a(str(tmp_path)), DDKIT_TEST_BACKOFF=''))
    assert time.monotonic() - started >= 1.0
    assert done.returncode == 0, done.stdout
    assert box.provider_a.calls('get_record') and len(box.provider_a.calls('get_record')) == 2
    assert box.provider_a.records[rid]['content'] == '81.2.69.82'


@pytest.mark.parametrize('ids', ['', 'only-one-line\n', 'a\nb\nc\n', '\x00\xff garbage \x01\n', 'a b\nc/d\n'])
def test_corrupt_ids_file_is_rebuilt(box, tmp_path, ids):
    rid = box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    (tmp_path / IP_FILE).write_text('81.2.69.1\n')
    (tmp_path / IDS_FILE).write_bytes(ids.encode('latin-1'))
    box.lookup.answer = '81.2.69.90'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout
    assert box.provider_a.calls() == ['list_zones', 'list_records', 'update_record']
    assert (tmp_path / IDS_FILE).read_text() == '%s\n%s\n' % (box.zone_a, rid)


@pytest.mark.parametrize('content', [b'garbage\n', b'\xff\xfe\x00', b'', b'300.1.1.1\n'])
def test_corrupt_ip_file_falls_back_to_doh(box, tmp_path, content):
    cached(box, tmp_path)
    (tmp_path / IP_FILE).write_bytes(content)
    box.doh.names[(RECORD, 'A')] = ['81.2.69.91']
    box.lookup.answer = '81.2.69.91'
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout
    assert 'IP changed from 81.2.69.1 to 81.2.69.91' in done.stdout   # what the record held, read
    assert (tmp_path / IP_FILE).read_text() == '81.2.69.91\n'


def test_dry_run_changes_nothing(box, tmp_path):
    rid = box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.lookup.answer = '81.2.69.92'
    done = run_tool('updater_a', ['--dry-run'], env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout
    assert 'would update record %s from 81.2.69.1 to 81.2.69.92' % RECORD in done.stdout
    assert [c for c in box.provider_a.calls() if c in ('update_record', 'create_record')] == []
    assert box.provider_a.records[rid]['content'] == '81.2.69.1'
    assert os.listdir(tmp_path) == []


def test_dry_run_of_a_missing_record_says_it_would_create(box, tmp_path):
    box.lookup.answer = '81.2.69.93'
    done = run_tool('updater_a', ['--dry-run'], env=box.env_a(str(tmp_path)))
    assert done.returncode == 0 and 'would create A record %s' % RECORD in done.stdout
    assert box.provider_a.records == {} and os.listdir(tmp_path) == []


def test_no_secret_in_log_stdout_or_urls(box, tmp_path):
    box.provider_a.key = 'SECRETKEY' + 'z' * 28
    cached(box, tmp_path)
    box.lookup.answer = '81.2.69.94'
    # a provider echoing the key back in an error must not make it reach the log either
    box.provider_a.fail('reply', route='update_record', status=400, body={
        'success': False, 'errors': [{'code': 9103, 'message': 'bad key %s' % box.provider_a.key}],
        'messages': [], 'result': None})
    done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 1 and 'bad key ***' in done.stdout
    log = (tmp_path / ('updater_a_%s.log' % RECORD)).read_text()
    for text in (done.stdout, done.stderr, log, ' '.join(r.path + str(r.query) for r in box.provider_a.requests)):
        assert 'SECRETKEY' not in text


def test_an_unchanged_record_needs_no_lock(box, tmp_path):
    """Nothing to write, so nothing to lock: a run finds the IP unchanged while another run holds
    the record's lock (a record that changes waits for it: the test below)."""
    import fcntl
    cached(box, tmp_path, ip=box.lookup.answer, content=box.lookup.answer)
    lock = tmp_path / ('.updater_a_%s.lock' % RECORD)
    with open(str(lock), 'a') as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        done = run_tool('updater_a', env=box.env_a(str(tmp_path)))
    assert done.returncode == 0 and 'IP has not changed: %s' % box.lookup.answer in done.stdout, done.stdout
    assert box.provider_a.calls() == []


def test_two_runs_at_once_one_waits_then_gives_up(box, tmp_path):
    rid = cached(box, tmp_path)
    box.lookup.answer = '81.2.69.95'
    # the first run holds the lock, its read unanswered, until the second has given up: however
    # slow a loaded machine starts the second, it meets the lock taken
    second_done = threading.Event()
    box.provider_a.fail('hang', route='get_record', seconds=60, until=second_done)
    env = dict(os.environ, **box.env_a(str(tmp_path)), DDNS_TIMEOUT='60')
    first = subprocess.Popen([sys.executable, tool_path('updater_a')], env=env, stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not box.provider_a.calls('get_record') and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        # it gives up as after a router's 5 s, sooner
        second = run_tool('updater_a', env=dict(box.env_a(str(tmp_path)), DDKIT_TEST_LOCK_WAIT='0.5'))
    finally:
        second_done.set()
    out, _ = first.communicate(timeout=60)
    assert second.returncode == 1 and 'another run for this record is still going' in second.stdout
    assert first.returncode == 0, out
    assert len(box.provider_a.calls('update_record')) == 1
    assert box.provider_a.records[rid]['content'] == '81.2.69.95'


def test_tls_verified_and_wrong_ca_refused_with_nothing_changed(tls_box, tmp_path, ca):
    import trustme
    rid = cached(tls_box, tmp_path)
    tls_box.lookup.answer = '81.2.69.96'
    env = tls_box.env_a(str(tmp_path))
    wrong = str(tmp_path / 'other-ca.pem')
    trustme.CA().cert_pem.write_to_path(wrong)
    done = run_tool('updater_a', env=dict(env, DDNS_CA_FILE=wrong))
    assert done.returncode == 1
    assert 'TLS certificate not trusted' in done.stdout
    assert tls_box.provider_a.records[rid]['content'] == '81.2.69.1'
    assert (tmp_path / IP_FILE).read_text() == '81.2.69.1\n'
    os.remove(wrong)
    done = run_tool('updater_a', env=dict(env, DDNS_CA_FILE=tls_box.ca_file))
    assert done.returncode == 0, done.stdout
    assert tls_box.provider_a.records[rid]['content'] == '81.2.69.96'


def test_iface_source_reads_the_interface_and_makes_no_request(box, tmp_path):
    cached(box, tmp_path)
    done = run_tool('updater_a', ['--ip-source', 'iface:lo'], env=box.env_a(str(tmp_path)))
    assert done.returncode == 0
    assert 'No valid IP from interface lo: 127.0.0.1 is not a public address' in done.stdout
    assert box.lookup.calls() == [] and box.provider_a.calls() == []


def test_missing_python3_openssl_says_which_package_in_one_line(tls_box, tmp_path):
    # a router without python3-openssl has no _ssl: one line naming the package, no traceback
    site = tmp_path / 'site'
    site.mkdir()
    (site / 'sitecustomize.py').write_text(
        'import sys\n'
        'class NoSsl:\n'
        '    @staticmethod\n'
        '    def find_spec(name, path=None, target=None):\n'
        '        if name == "_ssl":\n'
        '            raise ModuleNotFoundError("No module named %r" % name, name=name)\n'
        'sys.meta_path.insert(0, NoSsl)\n')
    state = tmp_path / 'state'
    state.mkdir()
    env = dict(tls_box.env_a(str(state)), PYTHONPATH=str(site), DDNS_CA_FILE=tls_box.ca_file)
    done = subprocess.run([sys.executable, tool_path('updater_a')], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'Traceback' not in done.stderr
    lines = [line for line in (done.stdout + done.stderr).splitlines() if 'python3-openssl' in line]
    assert lines and 'opkg install python3-openssl' in lines[0]
    assert tls_box.lookup.requests == []


def test_aaaa_with_an_ipv4_only_lookup_url_says_the_lookup_goes_over_ipv6(box, tmp_path):
    # not "Address family for hostname not supported (gaierror)"
    env = dict(box.env_a(str(tmp_path)), DDNS_RECORD_TYPE='AAAA')
    done = run_tool('updater_a', env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ('get current IP: 127.0.0.1 has no IPv6 address, and AAAA records are looked up over IPv6: '
            'set ip_lookup_url to a service reachable over IPv6') in done.stdout
    assert 'gaierror' not in done.stdout + done.stderr and box.lookup.requests == []


def test_iface_source_naming_a_missing_interface_says_it_does_not_exist(box, tmp_path):
    done = run_tool('updater_a', env=dict(box.env_a(str(tmp_path)), DDNS_IP_SOURCE='iface:nosuch0'))
    assert done.returncode == 0, done.stdout + done.stderr   # service.md 3: no valid IP is exit 0
    assert 'interface nosuch0 does not exist' in done.stdout and 'no IPv4 address' not in done.stdout
