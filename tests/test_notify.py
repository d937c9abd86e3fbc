"""on_change and healthcheck_url (issue 18), the tools run for real against the fake providers and a
fake Healthchecks.io: the hook's environment (the details, never a setting or a secret), its outcomes
(updated, created, failed), a hook that fails, hangs or could be another user's, the ping's path."""

import os
import time
import sys

import pytest

from conftest import RECORD, ROOT, run_tool
from fakes.healthcheck import UUID, HealthCheck

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import notify  # noqa: E402
from ddkit.log import Log  # noqa: E402

OLD, NEW = '81.2.69.1', '81.2.69.10'
# the hook: its environment and arguments to files beside it; its first output line says whether the
# record's lock was free while it ran (flock -n fails at once when the run still held it)
HOOK = '''#!/bin/sh
env > "$0.env"
printf '%s\\n' "$@" > "$0.args"
lock_file="$(dirname "$0")/../.${DDNS_HOOK_TOOL}_${DDNS_HOOK_RECORD_NAME}.lock"
if flock -n "$lock_file" true 2>/dev/null; then lock=free; else lock=held; fi
echo "told: $DDNS_HOOK_OUTCOME, lock $lock"
'''


@pytest.fixture
def hc():
    server = HealthCheck().start()
    yield server
    server.stop()


def hook(tmp_path, body=HOOK, name='hook.sh', mode=0o755):
    folder = tmp_path / 'hooks'
    folder.mkdir(mode=0o755, exist_ok=True)
    path = folder / name
    path.write_text(body)
    os.chmod(str(path), mode)
    return path


def told(path):
    """The environment the hook saw ({} when it did not run)."""
    env = path.parent / (path.name + '.env')
    if not env.exists():
        return {}
    return dict(line.split('=', 1) for line in env.read_text().splitlines() if '=' in line)


def run(box, tool, state, **settings):
    env = getattr(box, 'env_' + tool[-1])(str(state))
    env.update(settings)
    return run_tool(tool, env=env)


def log_of(state, tool):
    return (state / ('%s_%s.log' % (tool, RECORD))).read_text()


def test_updated_record_tells_the_hook_in_its_environment_only_and_pings_success(box, hc, tmp_path):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', OLD)
    (tmp_path / ('.cf-wan_ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    box.lookup.answer = NEW
    script = hook(tmp_path)
    done = run(box, 'updater_a', tmp_path, DDNS_ON_CHANGE='%s "two words" $HOME;x' % script,
               DDNS_HEALTHCHECK_URL=hc.check_url, DDNS_TEST_SETTING='not for the hook')
    assert done.returncode == 0, done.stdout + done.stderr
    env = told(script)
    assert {k: v for k, v in env.items() if k.startswith('DDNS_HOOK_')} == {
        'DDNS_HOOK_TOOL': 'updater_a', 'DDNS_HOOK_OUTCOME': 'updated', 'DDNS_HOOK_RECORD_NAME': RECORD,
        'DDNS_HOOK_RECORD_TYPE': 'A', 'DDNS_HOOK_OLD_IP': OLD, 'DDNS_HOOK_NEW_IP': NEW,
        'DDNS_HOOK_MESSAGE': 'IP has been updated to: %s' % NEW, 'DDNS_HOOK_STEP': '', 'DDNS_HOOK_LINE': ''}
    # no setting reaches it, nor any other variable of ours beyond a few neutral ones
    assert [k for k in env if k.startswith('DDNS_') and not k.startswith('DDNS_HOOK_')] == []
    assert not any(box.provider_a.key in v or box.provider_a.email in v for v in env.values())
    # no shell: the words arrive as written, $HOME and ; untouched
    assert (script.parent / 'hook.sh.args').read_text() == 'two words\n$HOME;x\n'
    assert 'on_change: hook.sh exited 0: told: updated, lock free' in log_of(tmp_path, 'updater_a')
    assert hc.pings == ['success'] and len(hc.calls()) == 1
    ping = hc.calls('ping')[0]
    assert ping.path == '/' + UUID and ping.method == 'GET'
    assert not {'x-auth-key', 'x-auth-email', 'authorization', 'cookie'} & set(ping.headers)


def test_created_recordset_tells_created_without_password_or_token(box, hc, tmp_path):
    box.lookup.answer = NEW
    script = hook(tmp_path)
    done = run(box, 'updater_b', tmp_path, DDNS_ON_CHANGE=str(script), DDNS_HEALTHCHECK_URL=hc.check_url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert box.provider_b.find(RECORD)[0]['records'] == [NEW]
    env = told(script)
    assert [env[k] for k in ('DDNS_HOOK_OUTCOME', 'DDNS_HOOK_TOOL', 'DDNS_HOOK_OLD_IP', 'DDNS_HOOK_NEW_IP')] \
        == ['created', 'updater_b', '', NEW]
    token = (tmp_path / ('.hw-token_%s.txt' % RECORD)).read_text().split()[1]
    text = (script.parent / 'hook.sh.env').read_text()
    assert box.provider_b.password not in text and token not in text and 'DDNS_PASSWORD' not in text
    assert hc.pings == ['success']


def test_failed_update_tells_failed_pings_fail_and_keeps_exit_1(box, hc, tmp_path):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', OLD)
    (tmp_path / ('.cf-wan_ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    box.lookup.answer = NEW
    box.provider_a.fail('status', times=10, status=500, text='upstream down')
    script = hook(tmp_path)
    done = run(box, 'updater_a', tmp_path, DDNS_ON_CHANGE=str(script), DDNS_HEALTHCHECK_URL=hc.check_url)
    assert done.returncode == 1, done.stdout + done.stderr
    env = told(script)
    assert [env[k] for k in ('DDNS_HOOK_OUTCOME', 'DDNS_HOOK_OLD_IP', 'DDNS_HOOK_NEW_IP')] \
        == ['failed', OLD, NEW]
    assert env['DDNS_HOOK_MESSAGE'].startswith('find zone: ') and 'upstream down' in env['DDNS_HOOK_MESSAGE']
    assert env['DDNS_HOOK_STEP'] == 'find zone'   # the failure's field, not a part of its text
    assert hc.pings == ['fail'] and hc.calls('ping')[0].path == '/%s/fail' % UUID


def test_unchanged_run_runs_no_hook_and_pings_once(box, hc, tmp_path):
    (tmp_path / ('.cf-wan_ip_%s.txt' % RECORD)).write_text(NEW + '\n')
    box.lookup.answer = NEW
    script = hook(tmp_path)
    done = run(box, 'updater_a', tmp_path, DDNS_ON_CHANGE=str(script), DDNS_HEALTHCHECK_URL=hc.check_url)
    assert done.returncode == 0 and 'IP has not changed' in done.stdout, done.stdout + done.stderr
    assert told(script) == {} and 'on_change' not in done.stdout
    assert hc.pings == ['success'] and box.provider_a.calls() == []


def test_dry_run_tells_no_one(box, hc, tmp_path):
    box.lookup.answer = NEW
    script = hook(tmp_path)
    env = box.env_a(str(tmp_path))
    env.update(DDNS_ON_CHANGE=str(script), DDNS_HEALTHCHECK_URL=hc.check_url)
    done = run_tool('updater_a', ['--dry-run'], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert told(script) == {} and hc.calls() == []


def test_failing_hook_is_logged_and_changes_nothing_else(box, hc, tmp_path):
    box.lookup.answer = NEW
    script = hook(tmp_path, '#!/bin/sh\necho "boom: \\033[31mno route" >&2\nexit 3\n', 'fail.sh')
    done = run(box, 'updater_b', tmp_path, DDNS_ON_CHANGE=str(script), DDNS_HEALTHCHECK_URL=hc.check_url)
    assert done.returncode == 0, done.stdout + done.stderr
    # its output is escaped: a hook cannot forge log lines or colour the terminal
    assert 'on_change: fail.sh failed (exit 3): boom: \\x1b[31mno route' in log_of(tmp_path, 'updater_b')
    assert hc.pings == ['success']


def test_hook_another_user_could_change_is_not_run(box, tmp_path):
    box.lookup.answer = NEW
    script = hook(tmp_path, mode=0o775)
    done = run(box, 'updater_a', tmp_path, DDNS_ON_CHANGE=str(script))
    assert done.returncode == 0, done.stdout + done.stderr
    assert told(script) == {}
    assert 'on_change: hook.sh not run: program %s is owned by another user or writable' % script \
        in done.stdout


def test_hook_through_a_link_runs_and_one_of_another_user_does_not(tmp_path):
    script = hook(tmp_path)
    link = script.parent / 'notify'
    os.symlink(str(script), str(link))
    log = Log(str(tmp_path / 'run.log'), quiet=True)
    assert notify.run_hook(log, 'updater_a', str(link), {'outcome': 'updated'}) == 0
    assert told(link)['DDNS_HOOK_OUTCOME'] == 'updated'
    os.lchown(str(link), 65534, 65534)   # a link nobody made: not followed
    assert notify.run_hook(log, 'updater_a', str(link), {'outcome': 'updated'}) is None
    assert 'notify not run: link %s is owned by another user' % link in (tmp_path / 'run.log').read_text()


def test_hook_below_a_directory_others_can_change_is_not_run(tmp_path):
    """Whoever can write a directory above the hook can swap the folder it is in: every one counts."""
    loose = tmp_path / 'loose'
    loose.mkdir()
    os.chmod(str(loose), 0o777)   # not sticky: anyone may rename what is in it
    folder = loose / 'hooks'
    folder.mkdir(mode=0o755)
    script = folder / 'hook.sh'
    script.write_text(HOOK)
    os.chmod(str(script), 0o755)
    log = Log(str(tmp_path / 'run.log'), quiet=True)
    assert notify.run_hook(log, 'updater_a', str(script), {'outcome': 'updated'}) is None
    assert told(script) == {}
    assert 'hook.sh not run: directory %s (owner uid' % loose in (tmp_path / 'run.log').read_text()


def test_missing_hook_program_is_logged(tmp_path):
    log = Log(str(tmp_path / 'run.log'), quiet=True)
    for command, why in ((str(tmp_path / 'nosuch.sh'), 'no such file'),
                         ('ddkit-no-such-notifier', 'not found on PATH')):
        assert notify.run_hook(log, 'updater_a', command, {'outcome': 'failed'}) is None
        assert why in (tmp_path / 'run.log').read_text()


def test_hanging_hook_is_stopped_with_its_children(tmp_path, monkeypatch):
    monkeypatch.setattr(notify, 'HOOK_TIMEOUT', 1)
    body = '#!/bin/sh\nsleep 300 &\necho $! > "$0.child"\necho started\nsleep 300\n'
    script = hook(tmp_path, body, 'hang.sh')
    log = Log(str(tmp_path / 'run.log'), quiet=True)
    assert notify.run_hook(log, 'updater_a', str(script), {'outcome': 'updated'}) is None
    assert 'on_change: hang.sh did not finish within 1 s: stopped' in (tmp_path / 'run.log').read_text()
    child = int((script.parent / 'hang.sh.child').read_text())
    deadline = time.monotonic() + 5   # SIGKILL is sent; the kernel ends the process a moment later
    while True:
        try:
            with open('/proc/%d/stat' % child) as f:
                state = f.read().rsplit(')', 1)[1].split()[0]
        except FileNotFoundError:
            state = 'gone'
        if state in ('gone', 'Z') or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert state in ('gone', 'Z'), state  # killed (a zombie until its new parent reaps it)


def test_ping_failure_is_logged_without_the_url_and_never_changes_the_exit_status(box, hc, tmp_path):
    (tmp_path / ('.cf-wan_ip_%s.txt' % RECORD)).write_text(NEW + '\n')
    box.lookup.answer = NEW
    hc.fail('status', status=500, text='oops')
    done = run(box, 'updater_a', tmp_path, DDNS_HEALTHCHECK_URL=hc.check_url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(hc.calls()) == 1  # one request per run: no retry
    assert 'Health-check ping to 127.0.0.1 failed (the run\'s outcome stands): HTTP 500 oops' in done.stdout
    assert UUID not in log_of(tmp_path, 'updater_a')
    unknown = run(box, 'updater_a', tmp_path, DDNS_HEALTHCHECK_URL='http://127.0.0.1:1/' + UUID)
    assert unknown.returncode == 0 and 'Health-check ping to 127.0.0.1 failed' in unknown.stdout


@pytest.mark.parametrize('name, value', [('DDNS_ON_CHANGE', '/bin/echo "unclosed'),
                                         ('DDNS_ON_CHANGE', 'hooks/relative.sh'),
                                         ('DDNS_HEALTHCHECK_URL', 'https://user:pw@hc-ping.com/x'),
                                         ('DDNS_HEALTHCHECK_URL', 'hc-ping.com/x')])
def test_bad_setting_is_one_line_and_exit_2(box, hc, tmp_path, name, value):
    done = run(box, 'updater_a', tmp_path, **{name: value})
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert name.lower()[5:] in done.stderr and 'Traceback' not in done.stderr
    assert box.lookup.calls() == [] and hc.calls() == []


def test_unset_settings_load_no_notify_module(box, tmp_path):
    (tmp_path / ('.cf-wan_ip_%s.txt' % RECORD)).write_text(NEW + '\n')
    box.lookup.answer = NEW
    env = box.env_a(str(tmp_path))
    done = run_tool('updater_a', env=env, flags=['-X', 'importtime'])
    assert done.returncode == 0 and 'IP has not changed' in done.stdout
    assert 'ddkit.notify' not in done.stderr and 'ddkit.wire' in done.stderr  # (the lookup was made)


def test_split_command_is_a_shells_word_split_without_a_shell():
    assert notify.split_command('/a "x y" \'$Z\' b\\ c ;|>') == ['/a', 'x y', '$Z', 'b c', ';|>']
    assert notify.split_command('curl -d "say \\"hi\\"" https://ntfy.sh/t') == [
        'curl', '-d', 'say "hi"', 'https://ntfy.sh/t']
    for bad in ('', '  ', '"', 'x\\', 'rel/x'):
        with pytest.raises(ValueError):
            notify.split_command(bad)


def test_ping_url_keeps_a_query_after_fail():
    assert notify.ping_url('https://hc-ping.com/u', False) == 'https://hc-ping.com/u/fail'
    assert notify.ping_url('https://hc-ping.com/u?rid=1', False) == 'https://hc-ping.com/u/fail?rid=1'
    assert notify.ping_url('https://hc-ping.com/u?rid=1', True) == 'https://hc-ping.com/u?rid=1'


@pytest.mark.parametrize('form', ['flag', 'environment', 'config file', 'uci section'])
def test_both_settings_come_in_every_form(tmp_path, form):
    from ddkit import settings, updater
    command, url = '/etc/ddns-notify.sh "a b"', 'https://hc-ping.com/' + UUID
    argv, environ = [], {}
    if form == 'flag':
        argv = ['--on-change', command, '--healthcheck-url', url]
    elif form == 'environment':
        environ = {'DDNS_ON_CHANGE': command, 'DDNS_HEALTHCHECK_URL': url}
    elif form == 'config file':
        path = tmp_path / 'conf'
        path.write_text('on_change=\'%s\'\nhealthcheck_url=%s\n' % (command, url))
        os.chmod(str(path), 0o600)
        argv = ['--config', str(path)]
    else:
        path = tmp_path / 'updater_a'
        path.write_text("config updater_a 'home'\n\toption on_change '%s'\n\toption healthcheck_url '%s'\n"
                        % (command, url))
        argv, environ = ['--uci', 'home'], {'DDNS_UCI_FILE': str(path)}
    args = settings.parse_args(argv, updater.COMMON, updater.SWITCHES, files=True)
    cfg = settings.load(args, updater.COMMON, updater.SWITCHES, environ=environ,
                        **settings.named_section(args, 'updater_a', updater.COMMON, environ))
    assert (cfg.on_change, cfg.healthcheck_url) == (command, url)
    assert cfg.sources['on_change'] == cfg.sources['healthcheck_url'] == form
    assert url in cfg.secrets  # masked in every log line: whoever has it can ping the check


def test_egress6_tells_the_hook_when_the_rule_changes_and_pings_every_run(tmp_path):
    import netns
    netns.require()
    lab = netns.Lab()
    try:
        lab.start_lookup()
        lab.link('eth0', ['240e:1::10', '2409:1::10'], route=True)
        script = hook(tmp_path)
        argv = ['ct', '--lookup-url', lab.url('/json'), '--geoip-url', lab.url('/geo'),
                '--on-change', str(script)]
        env = {'DDNS_HEALTHCHECK_URL': lab.url('/ping/' + UUID)}
        first = run_tool('egress6', argv, env=env, prefix=lab.prefix())
        assert first.returncode == 0, first.stdout + first.stderr
        told_env = told(script)
        assert {k: v for k, v in told_env.items() if k.startswith('DDNS_HOOK_')} == {
            'DDNS_HOOK_TOOL': 'egress6', 'DDNS_HOOK_OUTCOME': 'created', 'DDNS_HOOK_RECORD_NAME': 'eth0',
            'DDNS_HOOK_RECORD_TYPE': 'SNAT', 'DDNS_HOOK_OPERATOR': 'ct', 'DDNS_HOOK_OLD_IP': '',
            'DDNS_HOOK_NEW_IP': '240e:1::10',
            'DDNS_HOOK_MESSAGE': 'OK: outbound IPv6 leaves with 240e:1::10, the requested prefix 240e, '
                                 'as the rule says (240e:1::10)'}
        (script.parent / 'hook.sh.env').unlink()
        again = run_tool('egress6', argv, env=env, prefix=lab.prefix())   # rule kept: no hook
        assert again.returncode == 0 and told(script) == {}
        switched = run_tool('egress6', ['cm'] + argv[1:], env=env, prefix=lab.prefix())
        assert switched.returncode == 0, switched.stdout + switched.stderr
        assert (told(script)['DDNS_HOOK_OUTCOME'], told(script)['DDNS_HOOK_OLD_IP'],
                told(script)['DDNS_HOOK_NEW_IP']) == ('updated', '240e:1::10', '2409:1::10')
        pings = [r['path'] for r in lab.requests() if r['route'] == 'ping']
        assert pings == ['/ping/' + UUID] * 3
        # no lookup answers: verification fails, the hook hears it and the ping says /fail
        blind = run_tool('egress6', ['cm', '--lookup-url', lab.url('/html'), '--on-change', str(script)],
                         env=env, prefix=lab.prefix())
        assert blind.returncode == 1, blind.stdout + blind.stderr
        assert told(script)['DDNS_HOOK_OUTCOME'] == 'failed'
        assert told(script)['DDNS_HOOK_MESSAGE'].startswith('verify: no lookup service answered')
        assert [r['path'] for r in lab.requests() if r['route'] == 'ping'][-1] == '/ping/%s/fail' % UUID
    finally:
        lab.close()
