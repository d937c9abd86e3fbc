"""What a new user met, round four (the help alone, a PC user coming from ddclient, small things): a
file of ddclient's words gets every unknown name at once, each with the setting it stands for; the
ddkit command on a PC keeps its state where a PC keeps a program's (the router's and the updaters'
unchanged); --status of a file of several records shows each; `make test`'s time is said alike
everywhere."""

import os
import re
import sys

import pytest

from conftest import ROOT, RECORD, run_tool
from providers import of

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import settings  # noqa: E402


def write(path, text):
    path.write_text(text)
    os.chmod(str(path), 0o600)
    return str(path)


# --- coming from ddclient: every unknown name at once, ddclient's words mapped ------------------------

DDCLIENT_CONF = '''# carried over from /etc/ddclient.conf
daemon=300
use=web
protocol=noip
server=dynupdate.no-ip.com
login=me@example.com
password='Noip-pass-0123'
home.ddns.net
'''


def test_a_file_of_ddclients_words_names_every_unknown_one_at_once(tmp_path, call_tool, monkeypatch, capsys):
    """One run says all a ddclient.conf needs changed, on one line: each name with its line and, for
    ddclient's words, the setting it stands for; its host name alone, the setting to write it as.
    (server is dyndns2's own setting: known.)"""
    conf = write(tmp_path / 'ddkit.conf', DDCLIENT_CONF)
    status, out, err = call_tool('ddkit', ['--config', conf, '--check'], {}, monkeypatch, capsys)
    assert status == 2 and out == '' and len(err.splitlines()) == 1, err
    assert 'config file %s: 5 lines this tool cannot take (see --help): ' % conf in err
    for part in ("line 2 'daemon'", "line 3 'use' (did you mean ip_source?)",
                 "line 4 'protocol' (did you mean provider?)", "line 6 'login' (did you mean username?)",
                 "line 8 'home.ddns.net' (not setting_name=value; a host name alone, as ddclient writes it, "
                 "is record_name=home.ddns.net here)"):
        assert part in err, (part, err)
    assert 'Noip-pass-0123' not in err


def test_a_uci_section_of_ddclients_words_names_every_unknown_one_at_once(tmp_path, call_tool, monkeypatch,
                                                                          capsys):
    uci = write(tmp_path / 'ddkit', "config ddkit 'home'\n\toption enabled '1'\n\toption protocol 'noip'\n"
                                    "\toption login 'me'\n\toption password 'Noip-pass-0123'\n"
                                    "\toption record_name 'home.ddns.net'\n")
    status, out, err = call_tool('ddkit', ['--uci', 'home'], {'DDNS_UCI_FILE': uci}, monkeypatch, capsys)
    assert status == 2 and len(err.splitlines()) == 1, err
    assert "UCI section home in %s: 2 options this tool does not have (see --help): 'protocol' (did you " \
           "mean provider?), 'login' (did you mean username?)" % uci in err, err


def test_one_unknown_name_is_said_as_before(tmp_path, call_tool, monkeypatch, capsys):
    """A lone misspelling keeps its message: the line, the name, the did-you-mean."""
    conf = write(tmp_path / 'one.conf', 'provider=noip\nlogin=me\npassword=x\nrecord_name=home.ddns.net\n')
    status, _, err = call_tool('ddkit', ['--config', conf], {}, monkeypatch, capsys)
    assert status == 2 and err.strip() == "ddkit: config file %s line 2: 'login' is not a setting of this tool; " \
                                         "did you mean username? (see --help)" % conf, err


def test_a_ddclient_word_without_its_setting_here_gets_no_wrong_did_you_mean(tmp_path, call_tool, monkeypatch,
                                                                             capsys):
    """login where the record's provider has no username (Cloudflare's token): never "log_file?"."""
    conf = write(tmp_path / 'cf.conf', 'provider=cloudflare\napi_token=0123456789abcdef\nrecord_name=%s\n'
                                       'login=me\n' % RECORD)
    status, _, err = call_tool('ddkit', ['--config', conf], {}, monkeypatch, capsys)
    assert status == 2 and "line 4: 'login' is not a setting of this tool (see --help)" in err, err


# --- where the state is kept without state_dir -----------------------------------------------------

@pytest.mark.skipif(os.name == 'nt', reason='the POSIX places')
@pytest.mark.parametrize('tool, environ, openwrt, wanted', [
    ('ddkit', {'XDG_STATE_HOME': '/srv/state'}, False, '/srv/state/ddkit'),
    ('ddkit', {}, False, '~/.local/state/ddkit'),
    ('ddkit', {'XDG_STATE_HOME': 'relative/state'}, False, '~/.local/state/ddkit'),   # the spec: ignored
    ('ddkit', {'XDG_STATE_HOME': '/srv/state'}, True, '~'),    # the router's default unchanged
    ('updater_a', {'XDG_STATE_HOME': '/srv/state'}, False, '~'),   # the original scripts' place
    ('updater_b', {}, False, '~'),
])
def test_the_default_state_directory(tool, environ, openwrt, wanted):
    assert settings.default_state_dir(tool, environ, openwrt) == os.path.expanduser(wanted)


def test_ddkit_on_a_pc_keeps_its_state_out_of_the_home_directory(box, tmp_path):
    """A run that sets no state_dir: its ip file, ids and log in $XDG_STATE_HOME/ddkit, nothing in
    the home directory, where a visible ddkit_..._log used to appear."""
    home, xdg = tmp_path / 'home', tmp_path / 'xdg'
    home.mkdir()
    adapter = of('updater_a')
    adapter.add(box, RECORD, 'A', '81.2.69.1')
    env = {k: v for k, v in adapter.env(box, str(tmp_path / 'unused')).items() if k != 'DDNS_STATE_DIR'}
    env.update(DDNS_PROVIDER=adapter.provider, HOME=str(home), XDG_STATE_HOME=str(xdg))
    done = run_tool('ddkit', [], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert os.listdir(str(home)) == []
    kept = sorted(os.listdir(str(xdg / 'ddkit')))
    assert any(name.endswith('%s.log' % RECORD) for name in kept) and len(kept) > 1, kept


# --- --status of a file of several records shows each -----------------------------------------------

def test_status_of_a_file_of_several_records_shows_them_all_without_all(tmp_path, call_tool, monkeypatch, capsys):
    """Nothing is sent by --status: each record of the file is shown, as with --all, where a run of
    one record refuses the file ("run with --all")."""
    state = str(tmp_path / 'state')
    conf = write(tmp_path / 'two.conf', 'state_dir=%s\nprovider=noip\nusername=me\npassword=secret-0123\n\n'
                                        '[home]\nrecord_name=home.ddns.net\n\n[nas]\nrecord_name=nas.ddns.net\n'
                 % state)
    status, out, err = call_tool('ddkit', ['--config', conf, '--status'], {}, monkeypatch, capsys)
    assert status == 0 and err == '', err
    assert re.search(r'^noip A home\.ddns\.net: never', out, re.M) and re.search(r'^noip A nas\.ddns\.net: never',
                                                                              out, re.M), out
    status, _, err = call_tool('ddkit', ['--config', conf], {}, monkeypatch, capsys)   # a run: still refused
    assert status == 2 and 'run with --all to update them all' in err


# --- make test's time, said alike ------------------------------------------------------------------

def test_make_tests_time_is_said_alike_everywhere():
    """The README, docs/development.md and `make`'s list of targets give one figure for `make test`."""
    said = {}
    for name in ('README.md', os.path.join('docs', 'development.md'), 'Makefile'):
        with open(os.path.join(ROOT, name), encoding='utf-8') as f:
            text = f.read()
        line = [line for line in text.splitlines() if re.search(r'make test\s', line) and 'core' in line]
        assert line, name
        found = re.search(r'(?:about |~)(\d+(?:\.\d+)?) min(?:utes)? on (\d+) cores', line[0])
        assert found, (name, line[0])
        said[name] = found.groups()
    assert len(set(said.values())) == 1, said


def test_several_wrong_lines_name_another_providers_setting_as_such(tmp_path):
    """Among several wrong lines, a setting of another provider is said to be theirs, as it is alone
    (settings.stray_owners: one phrase for both forms)."""
    from ddkit import registry
    first = registry.PROVIDERS[0]
    own = {s.name for s in registry.provider(first).SETTINGS}
    other, setting = next((name, s.name) for name in registry.PROVIDERS[1:] if name not in registry.services()
                          for s in registry.provider(name).SETTINGS if s.name not in own and s.secret)
    conf = write(tmp_path / 'two.conf', 'provider=%s\nrecord_name=%s\n%s=x\nnot_a_setting=y\n' % (first, RECORD, setting))
    done = run_tool('ddkit', ['--config', conf, '--check'])
    assert done.returncode == 2 and '2 lines this tool cannot take' in done.stderr, done.stderr
    said = re.search(r"line 3 '%s' \(is a setting of providers? ([^)]*), not of %s\)" % (setting, first), done.stderr)
    assert said and other in said.group(1).split(', '), done.stderr
