"""Settings and bad input (interface.md): flag > DDNS_* environment > --config file > default; exit 2."""

import os

import pytest

from conftest import RECORD, in_process
from test_updater_a import IP_FILE


def test_help_is_long_only_and_exits_0():
    done = in_process('updater_a', ['--help'])
    assert done.returncode == 0
    for text in ('--zone-name', '-h, --record-name', '-k, --auth-key', '--dry-run', 'DDNS_'):
        assert text in done.stdout


@pytest.mark.parametrize('args, env, says', [
    (['--bogus'], {}, 'unknown option --bogus'),
    (['--record-type', 'MX'], {}, 'bad value for record_type (--record-type): must be A or AAAA'),
    (['--timeout', 'soon'], {}, 'bad value for timeout'),
    (['--base-url', 'ftp://x'], {}, 'bad value for base_url'),
    (['--ip-source', 'eth0'], {}, 'bad value for ip_source'),
    (['--record-name', 'a;rm -rf /'], {}, 'bad value for record_name'),
    (['--record-name', '../../etc/passwd'], {}, 'bad value for record_name'),
    (['--zone-name'], {}, 'option --zone-name needs a value'),
    (['--config', '/nonexistent/ddns.conf'], {}, 'cannot read config file /nonexistent/ddns.conf'),
    ([], {'DDNS_RECORD_NAME': ''}, 'missing setting record_name'),
    ([], {'DDNS_AUTH_KEY': ''}, 'missing setting auth_key: give it as --auth-key'),
    # every missing setting in one line, and where to look next
    ([], {'DDNS_ZONE_NAME': '', 'DDNS_RECORD_NAME': '', 'DDNS_AUTH_EMAIL': '', 'DDNS_AUTH_KEY': ''},
     'missing settings record_name, auth_email and auth_key (or api_token): give each'),
    ([], {'DDNS_AUTH_KEY': ''}, '--check shows the whole set-up'),
    (['--zone-nam', 'x'], {}, 'unknown option --zone-nam; did you mean --zone-name?'),
    (['--zone_name', 'x'], {}, 'unknown option --zone_name; did you mean --zone-name?'),
    (['--zonename', 'x'], {}, 'unknown option --zonename; did you mean --zone-name?'),
    (['-h'], {}, 'option -h needs a value (-h is record_name; help is --help)'),
    (['--timeout', '0'], {}, 'bad value for timeout (--timeout): must be a number of seconds, more than 0 and '
                             'at most 300'),
    (['--record-name', 'home.example.org'], {}, 'record_name home.example.org is not inside zone_name '
                                                'example.com: nothing was sent'),
    (['--record-name', 'notexample.com'], {}, 'is not inside zone_name'),
    (['--record-name', 'home..example.com'], {}, 'bad value for record_name (--record-name): has an empty '
                                                 'label'),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, args, env, says):
    base = {'DDNS_ZONE_NAME': 'example.com', 'DDNS_RECORD_NAME': RECORD, 'DDNS_AUTH_EMAIL': 'a@b.c',
            'DDNS_AUTH_KEY': 'k' * 37, 'DDNS_STATE_DIR': str(tmp_path)}
    base.update(env)
    done = in_process('updater_a', args, env={k: v for k, v in base.items() if v})
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert done.stdout == '' and os.listdir(tmp_path) == []


def test_precedence_flag_over_env_over_config_over_default(box, tmp_path):
    box.lookup.answer = '81.2.69.11'
    conf = tmp_path / 'ddns.conf'
    conf.write_text('# provider A\nauth_email="%s"\nauth_key=\'%s\'\nzone_name=example.com\n'
                    'record_name=wrong.example.com\nstate_dir=%s\n' % (box.provider_a.email, box.provider_a.key,
                                                                       tmp_path / 'from-config'))
    conf.chmod(0o600)
    env = {'DDNS_BASE_URL': box.provider_a.url, 'DDNS_DOH_URL': box.doh.url,
           'DDNS_IP_LOOKUP_URL': box.lookup.url, 'DDNS_RECORD_NAME': 'env.example.com',
           'DDNS_STATE_DIR': str(tmp_path / 'from-env')}
    done = in_process('updater_a', ['--config', str(conf), '-h', RECORD], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ''
    assert (tmp_path / 'from-env' / IP_FILE).read_text() == '81.2.69.11\n'   # env beat the config file
    assert box.doh.calls('resolve')[0].query['name'] == RECORD                 # the flag beat the env
    assert not (tmp_path / 'from-config').exists()


def test_short_flags_of_the_original_script(box, tmp_path):
    box.lookup.answer = '81.2.69.12'
    env = {'DDNS_BASE_URL': box.provider_a.url, 'DDNS_DOH_URL': box.doh.url,
           'DDNS_IP_LOOKUP_URL': box.lookup.url, 'DDNS_STATE_DIR': str(tmp_path)}
    done = in_process('updater_a', ['-k', box.provider_a.key, '-u', box.provider_a.email, '-z', 'example.com',
                                  '-h', RECORD, '-t', 'a', '-f'], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert box.provider_a.find(RECORD)[0]['content'] == '81.2.69.12'


def test_config_readable_by_others_warns(box, tmp_path):
    conf = tmp_path / 'ddns.conf'
    conf.write_text('auth_key=%s\n' % box.provider_a.key)
    conf.chmod(0o644)
    env = dict(box.env_a(str(tmp_path)), DDNS_AUTH_KEY='')
    done = in_process('updater_a', ['--config', str(conf), '--dry-run'], env={k: v for k, v in env.items() if v})
    assert 'readable by other users; run: chmod 600 %s' % conf in done.stderr
    assert box.provider_a.key not in done.stderr + done.stdout


def test_unknown_setting_in_config_file_is_bad_input(tmp_path):
    conf = tmp_path / 'ddns.conf'
    conf.write_text('zone_nmae=example.com\n')
    conf.chmod(0o600)
    done = in_process('updater_a', ['--config', str(conf)])
    assert done.returncode == 2 and "line 1" in done.stderr and 'zone_nmae' in done.stderr
    assert 'did you mean zone_name?' in done.stderr and len(done.stderr.splitlines()) == 1


def test_trailing_comment_in_config_file_names_line_value_and_fix(tmp_path):
    conf = tmp_path / 'ddns.conf'
    conf.write_text('# my router\nrecord_name=%s\nzone_name=example.com  # my zone\n' % RECORD)
    conf.chmod(0o600)
    env = {'DDNS_AUTH_EMAIL': 'a@b.c', 'DDNS_AUTH_KEY': 'k' * 37, 'DDNS_STATE_DIR': str(tmp_path)}
    done = in_process('updater_a', ['--config', str(conf)], env=env)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert 'bad value for zone_name (config file %s line 3)' % conf in done.stderr
    assert "got 'example.com  # my zone'" in done.stderr
    assert 'a comment must be on a line of its own' in done.stderr


def test_bad_secret_value_is_never_echoed(tmp_path):
    done = in_process('updater_a', ['--auth-key', 'sec ret'], env={'DDNS_AUTH_EMAIL': 'a@b.c',
                                                                'DDNS_ZONE_NAME': 'example.com',
                                                                'DDNS_RECORD_NAME': RECORD})
    assert done.returncode == 2 and 'bad value for auth_key' in done.stderr
    assert 'sec ret' not in done.stderr


def test_misspelt_option_in_a_uci_section_suggests_the_setting(tmp_path):
    uci = tmp_path / 'updater_a'
    uci.write_text("config updater_a 'home'\n\toption enabled '1'\n\toption zone_nme 'example.com'\n")
    done = in_process('updater_a', ['--uci', 'home'], env={'DDNS_UCI_FILE': str(uci)})
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "'zone_nme' is not an option of this tool; did you mean zone_name? (see --help)" in done.stderr
    assert '--zone-nme' not in done.stderr   # no flag that does not exist
    assert 'did you mean zone_name?' in done.stderr
