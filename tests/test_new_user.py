"""What a new user meets first: names outside the zone refused before any request, internationalized
and wildcard names, a run that could not judge sends no health-check ping, base_url as the provider's
documents write it, --check naming the URL setting to fix, --version, short secrets in prose."""

import os

import pytest

from conftest import RECORD, ZONE, package_depends, run_tool
from fakes.healthcheck import HealthCheck
from providers import TOOLS, of  # noqa: E402

NEW = '81.2.69.10'   # what the sandbox's lookup answers


def env_of(box, tool, state):
    return of(tool).env(box, state)


def fake_of(box, tool):
    return of(tool).fake(box)




@pytest.mark.parametrize('tool', TOOLS)
@pytest.mark.parametrize('name', ['home.example.org', 'notexample.com', 'example.com.evil.net'])
def test_a_record_outside_the_zone_is_refused_before_any_request(box, tmp_path, tool, name):
    done = run_tool(tool, ['--record-name', name], env=env_of(box, tool, tmp_path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert 'record_name %s is not inside zone_name %s: nothing was sent' % (name, ZONE) in done.stderr
    assert fake_of(box, tool).calls() == [] and box.lookup.calls() == []
    assert os.listdir(str(tmp_path)) == []


@pytest.mark.parametrize('tool', TOOLS)
def test_a_record_outside_the_zone_fails_its_own_record_in_an_all_run(box, tmp_path, tool):
    conf = tmp_path / 'records.conf'
    conf.write_text('[good]\nrecord_name=%s\n[bad]\nrecord_name=home.example.org\n' % RECORD)
    os.chmod(str(conf), 0o600)
    state = tmp_path / 'state'
    env = env_of(box, tool, state)
    del env['DDNS_RECORD_NAME']   # the environment would win over the file
    done = run_tool(tool, ['--all', '--config', str(conf)], env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert 'record bad: record_name home.example.org is not inside zone_name' in done.stderr
    assert 'Record good: A %s:' % RECORD in done.stdout   # the good record still runs
    assert '1 of 2 records failed: bad (exit 2)' in done.stdout + done.stderr
    assert 'home.example.org' not in ' '.join(str(r.path) for r in fake_of(box, tool).requests)


def test_the_apex_is_a_valid_record_name(box, tmp_path):
    done = run_tool('updater_a', ['--record-name', ZONE], env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r['content'] for r in box.provider_a.records.values() if r['name'] == ZONE] == [NEW]


@pytest.mark.parametrize('tool', TOOLS)
def test_an_internationalized_name_is_sent_in_its_xn_form_and_logged_both_ways(box, tmp_path, tool):
    # on a router with python3-codecs, which such a name needs (the packages do not pull it in)
    env = dict(env_of(box, tool, tmp_path), DDKIT_GUARD_DEPENDS=','.join(package_depends()[tool] + ['python3-codecs']))
    done = run_tool(tool, ['--record-name', 'bücher.' + ZONE], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    ascii_name = 'xn--bcher-kva.' + ZONE
    assert 'xn--bcher-kva.%s (bücher.%s)' % (ZONE, ZONE) in done.stdout
    sent = [r.body for r in fake_of(box, tool).requests if r.method in ('POST', 'PUT') and b'records' in r.body
            or r.method in ('POST', 'PUT') and b'"content"' in r.body]
    assert sent and all(ascii_name.encode() in body and 'bücher'.encode() not in body for body in sent)
    assert os.path.exists(os.path.join(str(tmp_path), of(tool).ip_file(ascii_name)))


@pytest.mark.parametrize('name', ['*.' + ZONE, 'my-home.x-1.' + ZONE])
def test_a_wildcard_or_hyphenated_record_works(box, tmp_path, name):
    done = run_tool('updater_a', ['--record-name', name], env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r['content'] for r in box.provider_a.records.values() if r['name'] == name] == [NEW]


@pytest.mark.parametrize('name, says', [
    ('home..example.com', 'has an empty label'),
    ('a.*.example.com', '"*" only as the whole first label'),
    ('-home.example.com', 'not at the start or end of a label'),
    ('home-.example.com', 'not at the start or end of a label'),
    ('a.-b.example.com', 'not at the start or end of a label'),
    ('a.b-.example.com', 'not at the start or end of a label'),
])
def test_bad_names_say_what_is_wrong(box, tmp_path, name, says):
    done = run_tool('updater_a', ['--record-name', name], env=box.env_a(str(tmp_path)))
    assert done.returncode == 2 and says in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


@pytest.fixture
def check():
    server = HealthCheck().start()
    yield server
    server.stop()


@pytest.mark.parametrize('source', ['iface:eth9', 'url'])
def test_a_run_without_a_valid_ip_sends_no_ping(box, tmp_path, check, source):
    env = dict(box.env_a(str(tmp_path)), DDNS_HEALTHCHECK_URL=check.check_url, DDNS_IP_SOURCE=source)
    box.lookup.answer = '192.168.1.2'   # a private address: not valid either
    done = run_tool('updater_a', [], env=env)
    assert done.returncode == 0 and 'No valid IP' in done.stdout, done.stdout + done.stderr
    assert check.pings == []
    box.lookup.answer = NEW
    done = run_tool('updater_a', [], env=dict(env, DDNS_IP_SOURCE='url'))
    assert done.returncode == 0 and check.pings == ['success'], done.stdout + done.stderr


def test_base_url_with_the_api_path_is_taken_as_the_base(box, tmp_path):
    env = dict(box.env_a(str(tmp_path)), DDNS_BASE_URL=box.provider_a.url + '/client/v4')
    done = run_tool('updater_a', [], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(not r.path.startswith('/client/v4/client/v4') for r in box.provider_a.requests)


def test_check_names_the_url_setting_when_nothing_answers(box, tmp_path):
    env = dict(box.env_a(str(tmp_path)), DDNS_BASE_URL='http://127.0.0.1:1')
    done = run_tool('updater_a', ['--check'], env=env)
    assert done.returncode == 1
    # nothing answered, so nothing was judged of the credentials: the line says what failed
    failed = [line for line in done.stdout.splitlines() if line.startswith('FAIL  ')]
    assert len(failed) == 1 and failed[0].startswith('FAIL  API reachable: '), done.stdout
    assert 'fix: check base_url (http://127.0.0.1:1) and that this host reaches it' in failed[0]
    assert 'skip  zone found: not checked (needs: API reachable)' in done.stdout


@pytest.mark.parametrize('tool', ['updater_a', 'updater_b', 'egress6', 'egress6_win'])
def test_every_tool_says_its_version(tool):
    done = run_tool(tool, ['--version'])
    assert done.returncode == 0 and done.stdout.split() == [tool, '1.0.0'], done.stdout + done.stderr


@pytest.mark.parametrize('password, shown', [
    ('wrong', 'The username or password is wrong.'),     # a word in the provider's prose stays a word
    ('Wrong', 'The username or password is wrong.'),
])
def test_a_short_password_is_not_masked_in_the_providers_words(box, tmp_path, password, shown):
    env = dict(box.env_b(str(tmp_path)), DDNS_PASSWORD=password)   # refused: the fake says why
    done = run_tool('updater_b', [], env=env)
    assert done.returncode == 1
    assert shown in done.stdout + done.stderr


def test_a_short_secret_is_masked_where_it_stands_as_a_value():
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'lib'))
    from ddkit.log import Log
    log = Log(secrets=['k3y'])
    assert log.clean('sent key=k3y&x; "k3y"; auth: k3y') == 'sent key=***&x; "***"; auth: ***'
    assert log.clean('a k3y word, k3ys') == 'a k3y word, k3ys'


def test_the_config_file_warning_names_the_tool(box, tmp_path):
    conf = tmp_path / 'conf'
    conf.write_text('zone_name=%s\n' % ZONE)
    os.chmod(str(conf), 0o644)
    done = run_tool('updater_a', ['--config', str(conf), '--check'], env=box.env_a(str(tmp_path)))
    assert 'updater_a: warning: config file %s is readable by other users; run: chmod 600' % conf in done.stderr


def test_a_hook_that_cannot_run_names_its_path_and_the_fix(box, tmp_path):
    hook = tmp_path / 'notify.sh'
    hook.write_text('#!/bin/sh\necho hi\n')
    os.chmod(str(hook), 0o644)
    env = dict(box.env_a(str(tmp_path / 'state')), DDNS_ON_CHANGE=str(hook))
    done = run_tool('updater_a', [], env=env)
    assert 'on_change: cannot run %s: Permission denied; fix: chmod +x %s' % (hook, hook) in done.stdout + done.stderr


def test_all_check_prints_plain_lines_only(box, tmp_path):
    conf = tmp_path / 'records.conf'
    conf.write_text('[one]\nrecord_name=%s\n[two]\nrecord_name=two.%s\n' % (RECORD, ZONE))
    os.chmod(str(conf), 0o600)
    env = box.env_a(str(tmp_path / 'state'))
    del env['DDNS_RECORD_NAME']
    done = run_tool('updater_a', ['--all', '--check', '--config', str(conf)], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Record one: A %s:' % RECORD in done.stdout.splitlines()
    assert not [line for line in done.stdout.splitlines() if line.startswith('[')]   # no log lines
    assert done.stdout.rstrip().endswith('All 2 records done.')


def test_a_dry_run_says_it_would_update_not_that_it_is_updating(box, tmp_path):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    done = run_tool('updater_a', ['--dry-run'], env=box.env_a(str(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'a real run would update A %s' % RECORD in done.stdout and 'updating A' not in done.stdout
    assert 'Dry run: would create A record %s with %s.' % (RECORD, NEW) in done.stdout or \
        'Dry run: would update record %s' % RECORD in done.stdout
