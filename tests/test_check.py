"""--check against the fake providers, on both updaters: one test per line that can fail, and proof
that it writes nothing (no request that changes anything, no state, lock or log file)."""

import os
import shutil
import time

import pytest

import needs
from conftest import RECORD, Sandbox, run_tool
from providers import TOOLS, of  # noqa: E402

IP_FILE = {'updater_a': '.cf-wan_ip_%s.txt' % RECORD, 'updater_b': '.hw-wan_ip_%s.txt' % RECORD}
BOTH = pytest.mark.parametrize('tool', TOOLS)


def run_check(env, state_dir, tool='updater_a', prefix=(), **extra):
    """Run tool --check; returns (exit status, stdout)."""
    env = dict(env, **{k: v for k, v in extra.items() if k.startswith(('DDNS_', 'SSL_'))})
    done = run_tool(tool, ['--check'], env=env, prefix=prefix)
    assert 'Traceback' not in done.stdout + done.stderr, done.stdout + done.stderr
    return done.returncode, done.stdout


def line(out, mark, start):
    """The one line of out with this mark whose text starts so (the test fails when it is absent)."""
    found = [ln[6:] for ln in out.splitlines() if ln.startswith('%-4s  %s' % (mark, start))]
    assert len(found) == 1, 'no %s line starting %r in:\n%s' % (mark, start, out)
    return found[0]


def marks(out):
    return [ln.split(' ', 1)[0] for ln in out.splitlines() if not ln.startswith('check:')]


def env_of(box, tool, state_dir):
    return of(tool).env(box, state_dir)


def provider(box, tool):
    return of(tool).fake(box)


@pytest.fixture
def ready(box, tmp_path):
    """A set-up where an update would succeed: the record exists and holds an older address."""
    box.rid = box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.rid_b = box.provider_b.add_record(box.zone_b, RECORD, 'A', ['81.2.69.1'])
    box.lookup.answer = '81.2.69.10'
    box.env = box.env_a(str(tmp_path / 'state'))
    return box


# --- everything fine, on both updaters ------------------------------------------------------------
CALLS = {'updater_a': ['list_zones', 'list_records'], 'updater_b': ['get_token', 'list_zones', 'list_records']}


@BOTH
def test_all_ok_exits_0_and_changes_nothing(ready, tmp_path, tool):
    state = tmp_path / 'state'
    state.mkdir()
    status, out = run_check(env_of(ready, tool, state), tmp_path, tool)
    assert status == 0, out
    assert marks(out) == ['ok'] * 10
    assert 'current IP 81.2.69.10 (from %s)' % ready.lookup.url in out
    # what a run without an ip file would log as the previous IP (the name is not published there)
    assert line(out, 'ok', 'DoH %s: answered, DoH has no A answer for %s' % (ready.doh.url, RECORD))
    assert line(out, 'ok', 'ip file %s: none yet; next read of the record at the provider: the next run'
                % (state / IP_FILE[tool]))
    assert line(out, 'ok', 'A %s %s found' % (of(tool).noun, RECORD))
    assert 'record holds 81.2.69.1, the current IP is 81.2.69.10: the next run updates it' in out
    assert out.rstrip().endswith('check: all ok; an update would succeed.')
    # read-only: only read calls (and B's token request), no state, lock, log or auth file
    assert provider(ready, tool).calls() == CALLS[tool]
    assert ready.doh.calls() == ['resolve']   # a question, read-only
    assert os.listdir(str(state)) == []
    assert ready.provider_a.records[ready.rid]['content'] == '81.2.69.1'
    assert ready.provider_b.recordsets[ready.rid_b]['records'] == ['81.2.69.1']


@BOTH
def test_missing_state_dir_is_not_created(ready, tmp_path, tool):
    status, out = run_check(env_of(ready, tool, tmp_path / 'state'), tmp_path, tool)
    assert status == 0, out
    assert 'does not exist yet; the first update creates it' in line(out, 'ok', 'state directory')
    assert not (tmp_path / 'state').exists()


@BOTH
def test_record_that_does_not_exist_will_be_created(box, tmp_path, tool):
    status, out = run_check(env_of(box, tool, tmp_path), tmp_path, tool)
    assert status == 0, out
    assert 'does not exist yet: it will be created on the first update' in out
    assert 'the first update creates the record with 81.2.69.10' in out
    assert provider(box, tool).calls() == CALLS[tool]
    assert box.provider_a.records == {} and box.provider_b.find(RECORD) == []


@BOTH
def test_record_already_current(ready, tmp_path, tool):
    ready.lookup.answer = '81.2.69.1'
    status, out = run_check(env_of(ready, tool, tmp_path), tmp_path, tool)
    assert status == 0, out
    assert 'record holds 81.2.69.1, the current IP: nothing to update' in out


def test_api_token_is_accepted_and_never_shown(box, tmp_path):
    box.provider_a.token = 't' * 40
    env = dict(box.env_a(str(tmp_path)), DDNS_AUTH_EMAIL='', DDNS_AUTH_KEY='', DDNS_API_TOKEN='t' * 40)
    status, out = run_check(env, tmp_path)
    assert status == 0, out
    assert 'credentials accepted (API token)' in out
    assert 't' * 40 not in out


# --- the lines both updaters share ---------------------------------------------------------------------
@pytest.mark.parametrize('tool, credentials, lacking', [
    ('updater_a', {'DDNS_AUTH_KEY': ''}, ['auth_key']),   # the e-mail alone: the key is what lacks
    ('updater_a', {'DDNS_AUTH_KEY': '', 'DDNS_AUTH_EMAIL': ''}, ['auth_email and auth_key (or api_token)']),
    ('updater_b', {'DDNS_PASSWORD': '', 'DDNS_PROJECT_NAME': ''}, ['password', 'project_name'])])
def test_missing_settings_are_fail_lines_exit_2(ready, tmp_path, tool, credentials, lacking):
    env = dict(env_of(ready, tool, tmp_path), DDNS_ZONE_NAME='', DDNS_RECORD_NAME='', **credentials)
    status, out = run_check(env, tmp_path, tool)
    assert status == 2, out
    # zone_name may be left out: both list the account's zones (docs/providers.md)
    assert 'settings complete: zone_name' not in out
    assert 'give --record-name, DDNS_RECORD_NAME or record_name=' in line(out, 'FAIL', 'settings complete: record_name')
    for name in lacking:
        assert line(out, 'FAIL', 'settings complete: %s is missing' % name)
    assert out.count('FAIL  settings complete:') == 1 + len(lacking)
    assert line(out, 'skip', 'credentials accepted')
    assert line(out, 'ok', 'current IP 81.2.69.10')  # what does not need the settings still runs
    assert provider(ready, tool).calls() == []


@BOTH
def test_state_dir_that_cannot_be_written(ready, tmp_path, tool):
    blocker = tmp_path / 'file'
    blocker.write_text('not a directory\n')
    status, out = run_check(env_of(ready, tool, blocker / 'state'), tmp_path, tool)
    assert status == 1, out
    assert 'is not a directory -- fix: set state_dir' in line(out, 'FAIL', 'state directory')


def read_only(path):
    """The prefix of a command that finds path read-only. Root may write anywhere, so as root (CI)
    path is bind-mounted read-only in a mount namespace of the command's own (nothing leaks out);
    any other user gets a directory without write permission."""
    if os.geteuid() != 0:
        os.chmod(str(path), 0o500)
        return []
    if not shutil.which('unshare'):
        needs.missing('needs unshare (util-linux) to make a read-only directory for root')
    return ['unshare', '--mount', '--propagation', 'private', 'sh', '-c',
            'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', str(path)]


@pytest.mark.skipif(os.name != 'posix', reason='POSIX permissions and mounts')
def test_state_dir_without_write_permission(ready, tmp_path):
    (tmp_path / 'ro').mkdir()
    status, out = run_check(ready.env, tmp_path, prefix=read_only(tmp_path / 'ro'),
                            DDNS_STATE_DIR=str(tmp_path / 'ro'))
    assert status == 1, out
    assert 'not writable' in line(out, 'FAIL', 'state directory')


@BOTH
@pytest.mark.parametrize('answer, words', [
    ('<html><body>blocked</body></html>', 'did not answer with a bare address'),
    ('10.1.2.3', 'no public address of its own'),
    ('100.64.1.2', 'carrier-grade'),
    ('2001:db8::1', 'set record_type'),
    ('', 'try again later'),
])
def test_current_ip_rejected_says_why(ready, tmp_path, tool, answer, words):
    ready.lookup.answer = answer
    status, out = run_check(env_of(ready, tool, tmp_path), tmp_path, tool)
    assert status == 1, out
    text = line(out, 'FAIL', 'current IP: no valid IPv4 address from %s' % ready.lookup.url)
    assert words in text
    assert line(out, 'ok', 'A record')  # the provider checks still run
    assert line(out, 'skip', 'record vs current IP')


@BOTH
def test_current_ip_lookup_unreachable(ready, tmp_path, tool):
    status, out = run_check(env_of(ready, tool, tmp_path), tmp_path, tool, DDNS_IP_LOOKUP_URL='http://127.0.0.1:9')
    assert status == 1, out
    assert 'check connectivity' in line(out, 'FAIL', 'current IP: get current IP: no answer')


@BOTH
def test_current_ip_from_missing_interface(ready, tmp_path, tool):
    status, out = run_check(env_of(ready, tool, tmp_path), tmp_path, tool, DDNS_IP_SOURCE='iface:nosuch0')
    assert status == 1, out
    assert 'interface nosuch0 does not exist (ip_source from DDNS_IP_SOURCE) -- fix: name an interface this host ' \
        'has' in line(out, 'FAIL', 'current IP: no valid IPv4 address from interface nosuch0')
    assert ready.lookup.calls() == []


@BOTH
def test_ip_file_hides_a_wrong_record(ready, tmp_path, tool):
    state = tmp_path / 'state'
    state.mkdir()
    (state / IP_FILE[tool]).write_text('81.2.69.10\n')
    status, out = run_check(env_of(ready, tool, state), tmp_path, tool)
    assert status == 1, out
    text = line(out, 'FAIL', 'record holds 81.2.69.1 but the current IP is 81.2.69.10')
    assert 'run once with --force' in text and 'until it reads the record' in text
    said = line(out, 'ok', 'ip file %s: says 81.2.69.10, last verified at the provider: ' % (state / IP_FILE[tool]))
    assert said.endswith('; next read of the record at the provider: %s' % time.strftime(
        '%Y-%m-%d %H:%M:%S', time.localtime(os.stat(str(state / IP_FILE[tool])).st_mtime + 86400)))
    assert (state / IP_FILE[tool]).read_text() == '81.2.69.10\n'
    assert os.listdir(str(state)) == [IP_FILE[tool]]
    # a day old: the next run reads the record, and corrects it
    os.utime(str(state / IP_FILE[tool]), (time.time() - 86400, time.time() - 86400))
    status, out = run_check(env_of(ready, tool, state), tmp_path, tool)
    assert line(out, 'ok', 'ip file').endswith('next read of the record at the provider: the next run')
    status, out = run_check(env_of(ready, tool, state), tmp_path, tool, DDNS_VERIFY_INTERVAL='off')
    assert line(out, 'ok', 'ip file').endswith('next read of the record at the provider: never (verify_interval off)')


# --- provider A ---------------------------------------------------------------------------------------
def test_a_zone_id_given_as_zone_name(ready, tmp_path):
    status, out = run_check(ready.env, tmp_path, DDNS_ZONE_NAME='023e105f4ecef8ad9ca31a8372d0c353')
    assert status == 2, out   # bad input: no request is made before it is fixed
    assert 'not the zone id' in line(out, 'FAIL', 'settings complete: record_name')
    assert line(out, 'skip', 'zone found') and line(out, 'skip', 'record found')
    assert ready.provider_a.calls() == []


def test_a_wrong_key(ready, tmp_path):
    status, out = run_check(ready.env, tmp_path, DDNS_AUTH_KEY='0' * 37)
    assert status == 1, out
    text = line(out, 'FAIL', 'credentials accepted')
    assert 'codes 9103' in text and 'Global API Key' in text and 'Unknown X-Auth-Key' in text
    assert '0' * 37 not in out
    assert line(out, 'skip', 'zone found') and line(out, 'skip', 'record found')
    assert ready.provider_a.calls() == ['list_zones']


def test_a_wrong_api_token(ready, tmp_path):
    ready.provider_a.token = 'good-token-value'
    status, out = run_check(ready.env, tmp_path, DDNS_API_TOKEN='bad-token-value')
    assert status == 1, out
    assert 'codes 10000' in line(out, 'FAIL', 'credentials accepted')
    assert 'bad-token-value' not in out


def test_a_record_lookup_refused(ready, tmp_path):
    ready.provider_a.fail('reply', route='list_records', status=400,
                          body={'success': False, 'errors': [{'code': 7003, 'message': 'Could not route'},
                                                             {'code': 7000, 'message': 'No route for that URI'}],
                                'messages': [], 'result': None})
    status, out = run_check(ready.env, tmp_path)
    assert status == 1, out
    text = line(out, 'FAIL', 'record found')
    assert 'codes 7003, 7000' in text and 'check auth_email, auth_key and zone_name' in text
    assert line(out, 'skip', 'record vs current IP')


def test_a_provider_answers_html(ready, tmp_path):
    ready.provider_a.fail('html', route='list_zones')
    status, out = run_check(ready.env, tmp_path)
    assert status == 1, out
    assert 'no JSON' in line(out, 'FAIL', 'credentials accepted')


# --- provider B ---------------------------------------------------------------------------------------
def test_b_takes_the_exact_zone_of_a_loose_match(ready, tmp_path):
    ready.provider_b.add_zone('myexample.com')
    ready.provider_b.add_zone('example.com.cn')
    status, out = run_check(ready.env_b(str(tmp_path)), tmp_path, 'updater_b')
    assert status == 0, out
    text = line(out, 'ok', 'zone example.com. found (id %s)' % ready.zone_b)
    assert text.endswith('; also listed (a loose match, not taken): myexample.com., example.com.cn.')


def test_b_no_exact_zone(ready, tmp_path):
    status, out = run_check(ready.env_b(str(tmp_path)), tmp_path, 'updater_b', DDNS_ZONE_NAME='xample.com',
                            DDNS_RECORD_NAME='home.xample.com')
    assert status == 1, out
    assert 'no zone named xample.com in project cn-north-4 (found: example.com.)' in line(out, 'FAIL', 'zone found')


def test_b_missing_zone_says_which_and_what_to_check(ready, tmp_path):
    status, out = run_check(ready.env_b(str(tmp_path)), tmp_path, 'updater_b', DDNS_ZONE_NAME='example.org',
                            DDNS_RECORD_NAME='home.example.org')
    assert status == 1, out
    text = line(out, 'FAIL', 'zone found')
    assert 'no zone named example.org in project cn-north-4 (found: none)' in text
    assert 'check zone_name (the root domain) and project_name' in text and "Doesn't exist" not in text


def test_b_cached_token_is_neither_used_nor_touched(ready, tmp_path):
    token = ready.provider_b.issue_token()
    auth = tmp_path / ('.hw-token_%s.txt' % RECORD)
    auth.write_text('9999999999 %s\n' % token)
    status, out = run_check(ready.env_b(str(tmp_path)), tmp_path, 'updater_b')
    assert status == 0, out
    assert ready.provider_b.calls() == CALLS['updater_b']  # a token request even with a cached token
    assert auth.read_text() == '9999999999 %s\n' % token
    assert token not in out and ready.provider_b.issued[-1] not in out


@pytest.mark.parametrize('change, words', [
    ({'DDNS_PASSWORD': 'Not-the-password-1'}, 'The username or password is wrong.'),
    ({'DDNS_PROJECT_NAME': 'xx-north-9'}, 'Project xx-north-9 not found.'),
])
def test_b_credentials_refused(ready, tmp_path, change, words):
    status, out = run_check(ready.env_b(str(tmp_path)), tmp_path, 'updater_b', **change)
    assert status == 1, out
    text = line(out, 'FAIL', 'credentials accepted: get token: ')
    assert words in text and 'check username, password and project_name' in text
    assert 'Not-the-password-1' not in out and ready.provider_b.password not in out
    assert ready.provider_b.calls() == ['get_token']


@pytest.mark.parametrize('route, reply, step, words', [
    ('list_zones', {'status': 404, 'body': {'error_code': 'APIGW.0101', 'error_msg': 'The API does not exist '
                                             'or has not been published in the environment.'}},
     'zone found', 'the bare base URL'),
    ('list_records', {'status': 403, 'body': {'code': 'DNS.0013', 'message': 'You do not have the permission '
                                              'to perform this operation using the API.'}},
     'record found', "the user's DNS permissions"),
])
def test_b_dns_errors_carry_the_fix(ready, tmp_path, route, reply, step, words):
    ready.provider_b.fail('reply', route=route, **reply)
    status, out = run_check(ready.env_b(str(tmp_path)), tmp_path, 'updater_b')
    assert status == 1, out
    assert words in line(out, 'FAIL', step)
    assert line(out, 'skip', 'record vs current IP')


# --- TLS ----------------------------------------------------------------------------------------------
def hosts(box, tool):
    return [of(tool).fake(box).url.split('://')[1]]


@BOTH
@pytest.mark.usefixtures('both_interfaces')
def test_tls_verified(tls_box, tmp_path, tool):
    status, out = run_check(env_of(tls_box, tool, tmp_path), tmp_path, tool, DDNS_CA_FILE=tls_box.ca_file)
    assert status == 0, out
    for host in hosts(tls_box, tool) + [tls_box.lookup.url.split('://')[1]]:
        assert line(out, 'ok', 'TLS with %s verified (CA: ca_file %s)' % (host, tls_box.ca_file))


@BOTH
@pytest.mark.usefixtures('both_interfaces')
def test_tls_with_another_ca(tls_box, tmp_path, tool):
    trustme = pytest.importorskip('trustme')
    other = str(tmp_path / 'other.pem')
    trustme.CA().cert_pem.write_to_path(other)
    status, out = run_check(env_of(tls_box, tool, tmp_path), tmp_path, tool, DDNS_CA_FILE=other)
    assert status == 1, out
    for host in hosts(tls_box, tool):
        assert 'set ca_file' in line(out, 'FAIL', 'TLS with %s: certificate not trusted' % host)
    assert line(out, 'skip', 'credentials accepted: not checked (needs: TLS working)')
    assert line(out, 'skip', 'current IP: not asked')
    assert provider(tls_box, tool).calls() == [] and tls_box.lookup.calls() == []


@pytest.mark.parametrize('kind, fix', [
    ('expired', 'check the clock of this host (on a router: enable NTP)'),
    ('another name', 'check the host in the URL'),
])
@pytest.mark.usefixtures('both_interfaces')
def test_tls_refused_for_the_time_or_the_name_says_which(ca, tmp_path, kind, fix):
    """The fix follows OpenSSL's verify code (clock or name), never the words of its message."""
    import datetime
    if kind == 'expired':
        past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=30)
        cert = ca.issue_cert('127.0.0.1', 'localhost', not_before=past - datetime.timedelta(days=2), not_after=past)
    else:
        cert = ca.issue_cert('other.example.net')
    sandbox = Sandbox(tls_cert=cert)
    try:
        ca_file = str(tmp_path / 'ca.pem')
        ca.cert_pem.write_to_path(ca_file)
        status, out = run_check(env_of(sandbox, 'updater_a', tmp_path), tmp_path, 'updater_a', DDNS_CA_FILE=ca_file)
        assert status == 1, out
        text = line(out, 'FAIL', 'TLS with %s: certificate %s' % (
            hosts(sandbox, 'updater_a')[0], '' if kind == 'expired' else 'is for another name'))
        assert fix in text, text
        assert provider(sandbox, 'updater_a').calls() == []
    finally:
        sandbox.stop()


@BOTH
def test_tls_without_ca_bundle_names_the_package(tls_box, tmp_path, tool):
    missing = str(tmp_path / 'nothing')
    status, out = run_check(env_of(tls_box, tool, tmp_path), tmp_path, tool,
                            SSL_CERT_FILE=missing, SSL_CERT_DIR=missing)
    assert status == 1, out
    for host in hosts(tls_box, tool):
        text = line(out, 'FAIL', 'TLS with %s: certificate not trusted: no CA bundle' % host)
        assert 'opkg install ca-bundle (or ca-certificates)' in text


@BOTH
def test_tls_ca_file_that_does_not_exist_is_bad_input(tls_box, tmp_path, tool):
    missing = str(tmp_path / 'missing-ca.pem')
    done = run_tool(tool, ['--check'], env=dict(env_of(tls_box, tool, tmp_path), DDNS_CA_FILE=missing))
    assert done.returncode == 2 and done.stdout == ''
    assert 'bad value for ca_file (DDNS_CA_FILE): %s is not a readable file' % missing in done.stderr


@BOTH
def test_help_lists_check(tool):
    done = run_tool(tool, ['--help'])
    assert done.returncode == 0 and '--check' in done.stdout


def test_missing_setting_in_a_uci_section_says_so(ready, tmp_path):
    uci = tmp_path / 'updater_a'
    uci.write_text("config updater_a 'home'\n\toption enabled '1'\n\toption zone_name 'example.com'\n"
                   "\toption auth_email 'user@example.com'\n\toption auth_key '%s'\n" % ready.provider_a.key)
    env = dict(ready.env, DDNS_UCI_FILE=str(uci), DDNS_ZONE_NAME='', DDNS_RECORD_NAME='',
               DDNS_AUTH_EMAIL='', DDNS_AUTH_KEY='')
    done = run_tool('updater_a', ['--uci', 'home', '--check'], env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "add option record_name '...' to the UCI section" in line(
        done.stdout, 'FAIL', 'settings complete: record_name is missing')


@pytest.mark.parametrize('enabled', [None, '0', '1', 'On', 'yes'])
def test_disabled_uci_section_is_said_to_be_skipped_by_the_service(ready, tmp_path, enabled):
    uci = tmp_path / 'updater_a'
    uci.write_text("config updater_a 'home'\n%s\toption zone_name 'example.com'\n"
                   % ("\toption enabled '%s'\n" % enabled if enabled else ''))
    done = run_tool('updater_a', ['--uci', 'home', '--check'], env=dict(ready.env, DDNS_UCI_FILE=str(uci)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.endswith('check: all ok; an update would succeed.\n')
    note = "note  UCI section home is disabled: the service will not run it; set option enabled '1'"
    assert (note in done.stdout) == (enabled not in ('1', 'yes')), done.stdout   # config_get_bool: 'On' is off


@BOTH
def test_check_in_the_single_file_build(ready, tmp_path, tmp_path_factory, tool):
    import shutil
    from conftest import built_single_file
    alone = tmp_path / 'alone'
    alone.mkdir()
    shutil.copy(built_single_file(tmp_path_factory, tool), str(alone / (tool + '.py')))
    assert sorted(os.listdir(str(alone))) == [tool + '.py']
    status, out = run_check(env_of(ready, tool, tmp_path / 'state'), tmp_path, str(alone / (tool + '.py')))
    assert status == 0, out
    assert marks(out) == ['ok'] * 10
    shutil.rmtree(str(alone))


def test_a_tls_name_failure_of_a_built_in_url_does_not_ask_to_fix_its_host():
    """Offline, something answers for a default URL (a captive portal): its FAIL must not send the user
    to fix a host they never set. built_in names the URL setting whose default holds the URL, and no
    setting the user gave (settings.origin)."""
    from types import SimpleNamespace
    from ddkit.check import Report
    cfg = SimpleNamespace(ip_lookup_url=['https://lookup.example/ip'], doh_url=['https://dns.example'],
                          base_url='https://api.example', sources={'base_url': 'environment'})
    report = SimpleNamespace(cfg=cfg, job=SimpleNamespace(cfg=cfg, provider=SimpleNamespace(URLS=('base_url',))))
    assert Report.built_in(report, 'https://lookup.example') == 'ip_lookup_url'
    assert Report.built_in(report, 'https://dns.example') == 'doh_url'
    assert Report.built_in(report, 'https://api.example') is None   # the user set it: its host is theirs to fix
    cfg.sources = {}
    assert Report.built_in(report, 'https://api.example') == 'base_url'
