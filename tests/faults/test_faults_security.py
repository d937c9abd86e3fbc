"""Fault matrix, security rows: secrets never leave the process, token files are private, a
readable config file is warned about, provider text cannot forge log lines, hostile names are refused."""

import os
import re

import pytest

from faultkit import NEW, OLD, rig  # noqa: F401  (rig is a fixture)

LINE = re.compile(r'^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] - ')
FORGED = 'IP has been updated to: 6.6.6.6'


def config_file(rig, mode=0o600, **extra):
    """The rig's credentials in a --config file instead of the environment."""
    path = os.path.join(rig.tmp, 'ddns.conf')
    values = dict(rig.credentials(), **extra)
    with open(path, 'w') as f:
        f.write('# written by the test\n')
        for name, value in values.items():
            f.write('%s="%s"\n' % (name, value))
    os.chmod(path, mode)
    return path


@pytest.mark.parametrize('source', ['config file', 'environment'])
def test_secrets_never_leak(rig, source):
    rig.seed(ip_file=False)
    rig.box.doh.status = 2           # no previous IP from DoH: B falls back to its ping child
    if source == 'config file':
        args, env, drop = ['--config', config_file(rig)], {}, rig.credential_env()
    else:
        args, env, drop = [], {}, ()
    done = rig.run(*args, env=env, drop=drop)
    assert done.returncode == 0, rig.output(done)
    assert rig.content() == NEW
    # a provider that echoes the credentials back in an error must not make them show
    rig.box.lookup.answer = '81.2.69.11'
    os.unlink(os.path.join(rig.state_dir, rig.ids_name))
    rig.fail('zones', 'reply', status=400, body=rig.error_body(
        [(1004, 'bad request from %s' % ' '.join(rig.secrets))]))
    failed = rig.run(*args, env=env, drop=drop)
    assert failed.returncode == 1, rig.output(failed)
    assert '***' in failed.stdout
    rig.assert_no_secret()
    rig.children_checked()


def test_files_holding_secrets_are_private_even_with_umask_0(rig):
    rig.seed(ip_file=False)
    old = os.umask(0)
    try:
        done = rig.run()
    finally:
        os.umask(old)
    assert done.returncode == 0, rig.output(done)
    for name in os.listdir(rig.state_dir):
        path = os.path.join(rig.state_dir, name)
        with open(path, errors='replace') as f:
            text = f.read()
        if name in rig.token_names or name.endswith('.lock') or any(s in text for s in rig.secrets):
            assert os.stat(path).st_mode & 0o077 == 0, '%s is %o' % (name, os.stat(path).st_mode)
    rig.token_files_private()
    rig.assert_no_secret()


@pytest.mark.parametrize('mode', [0o644, 0o600], ids=['readable by others', 'private'])
def test_config_file_readable_by_others_is_warned_about(rig, mode):
    rig.seed()
    path = config_file(rig, mode)
    done = rig.run('--config', path, drop=rig.credential_env())
    assert done.returncode == 0, rig.output(done)
    warned = 'warning: config file %s is readable by other users; run: chmod 600' % path in done.stderr
    assert warned == (mode == 0o644), done.stderr
    assert rig.content() == NEW
    rig.assert_no_secret()


def provider_text(rig, text):
    rig.fail('zones', 'reply', status=400, body=rig.error_body([(1004, text)]))


def lookup_text(rig, text):
    rig.box.lookup.answer = text


@pytest.mark.parametrize('inject', [provider_text, lookup_text], ids=['provider error', 'IP lookup'])
def test_provider_text_cannot_forge_log_lines(rig, inject):
    rig.seed()
    inject(rig, 'oops\n[2026-01-01 00:00:00] - %s\r\n\x1b[2K\x1b[1A%s\x00\u2028' % (FORGED, FORGED))
    done = rig.run()
    assert done.returncode in (0, 1), rig.output(done)
    with open(os.path.join(rig.state_dir, rig.log_name), encoding='utf-8') as f:
        logged = f.read()
    for text in (logged, done.stdout):
        lines = text.splitlines()
        assert lines and all(LINE.match(line) for line in lines), text
        assert not any(line.split(' - ', 1)[1].startswith(FORGED) for line in lines), text
        assert not any(c in text for c in '\r\x1b\x00\u2028'), repr(text)
    assert rig.content() == OLD
    rig.heal()
    rig.box.lookup.answer = NEW
    again = rig.run()
    assert again.returncode == 0 and rig.content() == NEW, rig.output(again)


BAD_NAMES = ['home.example.com/../../x', 'a;reboot', 'a b.example.com', 'x.example.com?y=1',
             '$(reboot).example.com', '`id`.example.com', 'a%2f.example.com', 'a&type=MX',
             "a'b.example.com", 'a\nb.example.com', '-rf', '..', 'a|b', 'home.example.com#x']


@pytest.mark.parametrize('setting', ['record_name', 'zone_name'])
def test_names_that_could_reach_a_shell_or_a_url_path_are_refused(rig, setting):
    rig.seed()
    for i, name in enumerate(BAD_NAMES):
        source = ('flag', 'environment', 'config file')[i % 3]
        env = rig.env()
        env.pop('DDNS_' + setting.upper())
        if source == 'flag':
            args = ['--' + setting.replace('_', '-'), name]
        elif source == 'environment':
            args, env['DDNS_' + setting.upper()] = [], name
        else:
            path = os.path.join(rig.tmp, 'names.conf')
            with open(path, 'w') as f:
                f.write('%s=%s\n' % (setting, name.replace('\n', '')))
            os.chmod(path, 0o600)
            args = ['--config', path]
        done = rig.run(*args, env=env, drop=['DDNS_' + setting.upper()] if source != 'environment' else ())
        assert done.returncode == 2, (name, source, rig.output(done))
        assert done.stderr.count('\n') == 1 and 'bad value for %s' % setting in done.stderr, done.stderr
        assert done.stdout == ''
    assert sum(len(s.requests) for s in rig.box.servers) == 0
    assert sorted(os.listdir(rig.state_dir)) == [rig.ip_name]
    assert rig.content() == OLD
