"""The mistakes a new user makes, and what the tools say of them (issue 41, round three): a failure a
setting caused names where its value came from; a base_url with a path is refused up front; the
settings of another provider are named as such; a misspelt provider or DDNS_ variable gets a
did-you-mean; lines and record types listed with commas are taken."""

import os

import pytest

from conftest import RECORD, run_tool


def write(path, text):
    path.write_text(text)
    os.chmod(str(path), 0o600)
    return str(path)


def alidns_file(box, tmp_path, **extra):
    """A config file of one alidns record at the sandbox (two.conf, as the user's)."""
    env = box.env_of('alidns', str(tmp_path / 'state'))
    values = dict({k[5:].lower(): v for k, v in env.items()}, provider='alidns', **extra)
    return write(tmp_path / 'two.conf', ''.join('%s=%s\n' % item for item in values.items()))


# --- a failure a setting caused says where its value came from -------------------------------------

@pytest.mark.parametrize('given', ['environment', 'flag', 'config file', 'uci'])
def test_a_failure_of_a_wrong_base_url_names_where_it_came_from(box, tmp_path, given):
    """The sandbox's settings of another provider exported: the environment's base_url beats the
    config file's, and the FAIL line and the run's ERROR line say so."""
    wrong = box.fakes['cloudflare'].url   # another provider's API: it serves no POST /
    conf = alidns_file(box, tmp_path)
    args, env, where = ['--config', conf], {}, None
    if given == 'environment':
        env, where = {'DDNS_BASE_URL': wrong}, 'DDNS_BASE_URL'
    elif given == 'flag':
        args, where = args + ['--base-url', wrong], '--base-url'
    elif given == 'config file':
        with open(conf, 'a') as f:
            f.write('base_url=%s\n' % wrong)
        where = 'config file %s line 10' % conf
    else:
        lines = [line.partition('=') for line in open(conf).read().splitlines()]
        uci = write(tmp_path / 'ddkit', "config ddkit 'ali'\n" + ''.join(
            "\toption %s '%s'\n" % (k, wrong if k == 'base_url' else v) for k, _, v in lines))
        args, env, where = ['--uci', 'ali'], {'DDNS_UCI_FILE': uci}, 'UCI option base_url of section ali'
    done = run_tool('ddkit', args + ['--check'], env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = [line for line in done.stdout.splitlines() if line.startswith('FAIL')]
    assert len(failed) == 1 and '(base_url from %s)' % where in failed[0], done.stdout
    assert 'fix: check base_url' in failed[0]
    done = run_tool('ddkit', args, env=env)
    assert done.returncode == 1
    errors = [line for line in (done.stdout + done.stderr).splitlines() if 'ERROR: ' in line]
    assert errors and all('(base_url from %s)' % where in line for line in errors), done.stdout + done.stderr


def test_a_failure_no_setting_caused_names_none(box, tmp_path):
    """A refusal of the provider's own (no such domain) is no setting's fault: nothing is added."""
    conf = alidns_file(box, tmp_path, zone_name='example.org', record_name='home.example.org')
    done = run_tool('ddkit', ['--config', conf], env={'DDNS_BASE_URL': box.fakes['alidns'].url})
    assert done.returncode == 1 and 'ERROR: find zone: no domain example.org' in done.stdout, done.stdout
    assert ' from ' not in done.stdout.partition('ERROR: ')[2]


def test_a_current_ip_refused_names_where_ip_source_came_from(box, tmp_path):
    conf = alidns_file(box, tmp_path, ip_source='iface:nope0')
    done = run_tool('ddkit', ['--config', conf, '--check'])
    failed = [line for line in done.stdout.splitlines() if line.startswith('FAIL')]
    assert failed == [line for line in failed if 'interface nope0 does not exist' in line
                      and '(ip_source from config file %s line 10)' % conf in line] != [], done.stdout
