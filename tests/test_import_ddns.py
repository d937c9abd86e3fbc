"""`ddkit --import-ddns [FILE]`: the `config service` sections of ddns-scripts' /etc/config/ddns as
`config ddkit` sections of the ddkit command's UCI file (DDNS_UCI_FILE here), on the sample file
ddns-scripts ships (tests/ddns/ddns-sample, net/ddns-scripts/files/etc/config/ddns of package 2.8.4) and
on files as users write them: each option carried where ddkit has its meaning, what is not carried
named and its section written disabled, every record written enabled loaded as the command loads it
(and two of them run against the update-URL fakes), --dry-run writing nothing and masking secrets, a
second run changing nothing, a section there kept unless --force, bad input refused (exit 2, nothing
written), never a traceback; the file written read back by the UCI reader the libuci cases test, and
the writer's text held to those cases too."""

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from conftest import ROOT, tool_path
from url_services import PASSWORD, RECORD, USER

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import UsageError, ddns_import, registry, uci  # noqa: E402

SAMPLE = os.path.join(ROOT, 'tests', 'ddns', 'ddns-sample')
SECRETS = ('cf-token-SECRET-123', 'global-KEY-456', 'dyfi-PASS-789', 'duck-TOKEN-000', 'custom-PW-111',
           'proxy-PW-222', 'beget-PW-333', 'dynv6-TOKEN-444', 'ali-SECRET-555')
# a file as users write it: several services, both families, Cloudflare's host@zone and @zone, a token
# and a key pair, a custom URL over https through a proxy, a service ddkit lacks, what ddkit does not do,
# an anonymous section, the global section
USERS = """
config ddns 'global'
	option ddns_dateformat '%F %R'
	option upd_privateip '0'

config service 'cf_home'
	option enabled '1'
	option service_name 'cloudflare.com-v4'
	option lookup_host 'home.example.com'
	option domain 'home@example.com'
	option username 'Bearer'
	option password 'cf-token-SECRET-123'
	option ip_source 'web'
	option ip_url 'https://api.ipify.org'
	option check_interval '5'
	option check_unit 'minutes'
	option force_interval '24'
	option force_unit 'hours'

config service 'cf_apex6'
	option enabled '1'
	option service_name 'cloudflare.com-v4'
	option domain '@example.org'
	option username 'owner@example.org'
	option password 'global-KEY-456'
	option use_ipv6 '1'
	option ip_source 'interface'
	option ip_interface 'pppoe-wan'
	option interface 'wan6'

config service 'dyfi'
	option enabled '1'
	option service_name 'dy.fi'
	option domain 'myhost.dy.fi'
	option lookup_host 'myhost.dy.fi'
	option username 'me@example.com'
	option password 'dyfi-PASS-789'
	option check_interval '2'
	option check_unit 'hours'

config service 'duck6'
	option enabled '1'
	option service_name 'duckdns.org'
	option domain 'myduck'
	option password 'duck-TOKEN-000'
	option use_ipv6 '1'
	option use_https '1'

config service 'custom'
	option enabled '1'
	option update_url 'http://[USERNAME]:[PASSWORD]@dyn.example.net/update?host=[DOMAIN]&ip=[IP]'
	option domain 'box.example.net'
	option username 'user'
	option password 'custom-PW-111'
	option use_https '1'
	option proxy 'proxyuser:proxy-PW-222@10.0.0.1:3128'

config service 'beget'
	option enabled '1'
	option service_name 'beget.com'
	option domain 'x.example.com'
	option username 'u'
	option password 'beget-PW-333'

config service 'scripted'
	option enabled '1'
	option service_name 'dynv6.com'
	option domain 'me.dynv6.net'
	option password 'dynv6-TOKEN-444'
	option ip_source 'script'
	option ip_script '/usr/bin/myip.sh'
	option force_dnstcp '1'
	option is_glue '1'
	option dns_server '8.8.8.8'

config service
	option enabled '1'
	option service_name 'aliyun.com'
	option domain 'www@example.cn'
	option username 'LTAIaccessid'
	option password 'ali-SECRET-555'
	option param_enc 'RecordId=123'
"""


@pytest.fixture
def files(tmp_path, monkeypatch):
    """(the ddns file, the ddkit file) in tmp_path, the ddkit one named by DDNS_UCI_FILE; netifd knows
    no device (as on a host without ubus), whatever this host has."""
    monkeypatch.setattr(ddns_import, 'network_device', lambda network: None)
    ddns, ddkit = tmp_path / 'ddns', tmp_path / 'ddkit'
    ddns.write_text(USERS)
    return ddns, ddkit


def run(call_tool, monkeypatch, capsys, ddkit, *args):
    """(exit status, stdout, stderr) of ddkit --import-ddns with args, in this process."""
    status, out, err = call_tool('ddkit', ['--import-ddns'] + [str(a) for a in args],
                                 {'DDNS_UCI_FILE': str(ddkit)}, monkeypatch, capsys)
    assert 'Traceback' not in out + err, out + err
    return status, out, err


def sections(path):
    """{name: options} of a UCI file's sections, as the project's reader loads it."""
    return {name: options for _, name, options in uci.read(str(path))}


def loaded(path, ref, monkeypatch):
    """The provider and settings of a record, loaded as the ddkit command loads them before it runs it
    (ddkit.updater.main: its plan, ddkit.choice's choice of provider, the settings' checks, usable)."""
    from ddkit import choice, settings, updater
    argv, environ = ['--uci', ref], {'DDNS_UCI_FILE': str(path)}
    monkeypatch.setenv('DDNS_UCI_FILE', str(path))
    table = choice.every_table(updater.COMMON, choice.named(argv, environ, 'ddkit'))
    args, _, planned, _ = updater.plan(argv, 'ddkit', table, updater.SWITCHES + choice.SWITCHES)
    own = planned[0][1]()
    provider = choice.chosen(args, own, environ, False, updater.COMMON)
    cfg = settings.load(args, choice.table_of(provider, updater.COMMON), updater.SWITCHES, environ=environ, **own)
    updater.usable(provider, cfg, ref)
    return provider, cfg


def test_the_sample_ddns_scripts_ships_becomes_its_two_records_disabled_as_they_were(
        tmp_path, call_tool, monkeypatch, capsys):
    monkeypatch.setattr(ddns_import, 'network_device', lambda network: None)
    ddkit, source = tmp_path / 'ddkit', tmp_path / 'ddns'
    # a copy of root's own (the checkout's mode follows the umask; a group-writable file is refused)
    shutil.copy(SAMPLE, str(source))
    source.chmod(0o600)
    status, out, err = run(call_tool, monkeypatch, capsys, ddkit, str(source))
    assert status == 0 and err == '', err
    found = sections(ddkit)
    assert list(found) == ['myddns_ipv4', 'myddns_ipv6']
    assert found['myddns_ipv4'] == {
        'enabled': '0', 'provider': 'dyndns.org', 'record_name': 'yourhost.example.com', 'record_type': 'A',
        'ip_source': 'url', 'interface': 'wan', 'interval': '600', 'username': 'your_username',
        'password': 'your_password'}
    assert found['myddns_ipv6'] == {
        'enabled': '0', 'provider': registry.URL_PROTOCOL, 'record_name': 'yourhost.example.com',
        'record_type': 'AAAA', 'ip_source': 'url', 'interface': 'wan6', 'interval': '600',
        'update_url': 'http://[USERNAME]:[PASSWORD]@your.provider.net/nic/update?hostname=[DOMAIN]&myip=[IP]',
        'username': 'your_username', 'password': 'your_password'}
    assert 'disabled, as in ddns-scripts' in out and '/etc/init.d/ddns stop; /etc/init.d/ddns disable' in out
    assert 'your_password' not in out
    assert stat.S_IMODE(os.stat(ddkit).st_mode) == 0o600
    for name in found:   # each would run once enabled: nothing but enabled set by hand
        loaded(ddkit, name, monkeypatch)


# what each section of USERS becomes (its options beyond enabled, interface and interval)
WRITTEN = {
    'cf_home': {'provider': 'cloudflare', 'zone_name': 'example.com', 'record_name': 'home.example.com',
                'record_type': 'A', 'ip_source': 'url', 'ip_lookup_url': 'https://api.ipify.org',
                'api_token': 'cf-token-SECRET-123', 'verify_interval': '86400'},
    'cf_apex6': {'provider': 'cloudflare', 'zone_name': 'example.org', 'record_name': 'example.org',
                 'record_type': 'AAAA', 'ip_source': 'iface:pppoe-wan', 'auth_email': 'owner@example.org',
                 'auth_key': 'global-KEY-456'},
    'dyfi': {'provider': 'dy.fi', 'record_name': 'myhost.dy.fi', 'record_type': 'A', 'ip_source': 'url',
             'username': 'me@example.com', 'password': 'dyfi-PASS-789'},
    'duck6': {'provider': 'duckdns.org', 'record_name': 'myduck', 'record_type': 'AAAA', 'ip_source': 'url',
              'base_url': 'https://www.duckdns.org', 'password': 'duck-TOKEN-000'},
    'custom': {'provider': registry.URL_PROTOCOL, 'record_name': 'box.example.net', 'record_type': 'A',
               'ip_source': 'url', 'username': 'user', 'password': 'custom-PW-111',
               'update_url': 'https://[USERNAME]:[PASSWORD]@dyn.example.net/update?host=[DOMAIN]&ip=[IP]',
               'proxy': 'http://proxyuser:proxy-PW-222@10.0.0.1:3128'},
    'beget': {'record_name': 'x.example.com', 'record_type': 'A', 'ip_source': 'url'},
    'scripted': {'provider': 'dynv6.com', 'record_name': 'me.dynv6.net', 'record_type': 'A',
                 'password': 'dynv6-TOKEN-444'},
    'ddns_7': {'provider': registry.canonical('aliyun.com'), 'zone_name': 'example.cn',
               'record_name': 'www.example.cn', 'record_type': 'A', 'ip_source': 'url',
               'access_key_id': 'LTAIaccessid', 'access_key_secret': 'ali-SECRET-555'},
}
ENABLED = ('cf_home', 'cf_apex6', 'dyfi', 'duck6', 'custom', 'ddns_7')
# why a section is written disabled, in its comment lines and the output
WHY = {'beget': ['ddkit has no provider for the service beget.com'],
       'scripted': ['ip_source script (ip_script /usr/bin/myip.sh)', 'force_dnstcp 1', 'is_glue 1']}


def test_a_users_file_becomes_records_each_carrying_what_ddkit_has_a_meaning_for(files, call_tool, monkeypatch,
                                                                                  capsys):
    ddns, ddkit = files
    status, out, err = run(call_tool, monkeypatch, capsys, ddkit, ddns)
    assert status == 0 and err == '', err
    found = sections(ddkit)
    assert list(found) == list(WRITTEN)
    for name, options in found.items():
        service = {'enabled': '1' if name in ENABLED else '0', 'interface': 'wan6' if name == 'cf_apex6' else 'wan',
                   'interval': {'cf_home': '300', 'dyfi': '7200'}.get(name, '600')}
        assert options == dict(service, **WRITTEN[name]), name
    text = ddkit.read_text()
    for name, whys in WHY.items():
        for why in whys:
            assert why in out and why in text
    # named as not carried: the lookup server, the record id of the Aliyun script
    assert 'dns_server not carried' in out and 'param_enc not carried' in out
    for secret in SECRETS:
        assert secret not in out


@pytest.mark.parametrize('name', ENABLED)
def test_each_record_written_enabled_loads_as_the_command_loads_it(files, call_tool, monkeypatch, capsys, name):
    ddns, ddkit = files
    run(call_tool, monkeypatch, capsys, ddkit, ddns)
    provider, cfg = loaded(ddkit, name, monkeypatch)
    assert provider.NAME == WRITTEN[name]['provider'] and cfg.record_name == WRITTEN[name]['record_name']


def test_the_records_a_service_ddkit_lacks_and_a_script_source_are_written_disabled(files, call_tool, monkeypatch,
                                                                                    capsys):
    ddns, ddkit = files
    run(call_tool, monkeypatch, capsys, ddkit, ddns)
    found = sections(ddkit)
    assert [name for name in found if found[name]['enabled'] == '1'] == list(ENABLED)
    assert 'provider' not in found['beget']   # a name no provider has would make every run read them all
    with pytest.raises(UsageError, match='missing setting provider'):
        loaded(ddkit, 'beget', monkeypatch)


def test_dry_run_writes_nothing_and_masks_every_secret(files, call_tool, monkeypatch, capsys):
    ddns, ddkit = files
    status, out, err = run(call_tool, monkeypatch, capsys, ddkit, ddns, '--dry-run')
    assert status == 0 and not ddkit.exists()
    assert "option api_token '***'" in out and "option proxy 'http://***@10.0.0.1:3128'" in out
    assert "option update_url '***'" in out and "option auth_email 'owner@example.org'" in out
    for secret in SECRETS:
        assert secret not in out + err
    ddkit.write_text("config defaults\n\toption state_dir '/tmp'\n")
    before = ddkit.read_bytes()
    assert run(call_tool, monkeypatch, capsys, ddkit, ddns, '--dry-run')[0] == 0
    assert ddkit.read_bytes() == before


def test_a_second_run_changes_nothing(files, call_tool, monkeypatch, capsys):
    ddns, ddkit = files
    run(call_tool, monkeypatch, capsys, ddkit, ddns)
    before, when = ddkit.read_bytes(), os.stat(ddkit).st_mtime_ns
    status, out, _ = run(call_tool, monkeypatch, capsys, ddkit, ddns)
    assert status == 0 and 'kept' in out and 'Nothing written' in out
    assert ddkit.read_bytes() == before and os.stat(ddkit).st_mtime_ns == when
    status, out, _ = run(call_tool, monkeypatch, capsys, ddkit, ddns, '--force')   # the same sections again
    assert status == 0 and ddkit.read_bytes() == before and os.stat(ddkit).st_mtime_ns == when


def test_the_file_is_written_mode_0600_whatever_the_umask(files, call_tool, monkeypatch, capsys):
    ddns, ddkit = files
    old = os.umask(0)
    try:
        assert run(call_tool, monkeypatch, capsys, ddkit, ddns)[0] == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(ddkit).st_mode) == 0o600
    assert [name for name in os.listdir(ddkit.parent) if '.tmp' in name] == []   # no temporary file left


HAND = """# my own comment, kept
config defaults
	option state_dir '/var/run/ddkit'

# the record I set up by hand
config ddkit 'dyfi'
	option enabled '1'
	option provider 'duckdns'
	option record_name 'mine.duckdns.org'
	option token 'hand-TOKEN'

config ddkit 'after'
	option enabled '0'
	option provider 'he'
"""


def test_a_section_already_there_is_kept_unless_force_which_replaces_it_where_it_stands(
        files, call_tool, monkeypatch, capsys):
    ddns, ddkit = files
    ddkit.write_text(HAND)
    ddkit.chmod(0o600)
    status, out, _ = run(call_tool, monkeypatch, capsys, ddkit, ddns)
    assert status == 0 and 'section dyfi: kept' in out
    text = ddkit.read_text()
    assert text.startswith(HAND) and sections(ddkit)['dyfi']['token'] == 'hand-TOKEN'
    status, out, _ = run(call_tool, monkeypatch, capsys, ddkit, ddns, '--force')
    assert status == 0
    found = sections(ddkit)
    assert list(found) == [None, 'dyfi', 'after', 'cf_home', 'cf_apex6', 'duck6', 'custom', 'beget', 'scripted',
                           'ddns_7']
    assert found['dyfi']['provider'] == 'dy.fi' and 'token' not in found['dyfi']
    text = ddkit.read_text()
    assert text.startswith('# my own comment, kept\n') and '# the record I set up by hand\n' in text
    assert text.count("config ddkit 'dyfi'") == 1


@pytest.mark.parametrize('ddns, why', [
    ("config service 'x'\n\toption domain 'a b' c\n", 'too many words'),
    ("this is no UCI file\n", 'expected config, option or list'),
    ("config service 'x'\n\toption service_name 'no-such.example'\n\toption domain 'a.example.com'\n",
     'service_name no-such.example is not a service of ddns-scripts\' list'),
    (None, 'cannot read UCI file'),
])
def test_bad_input_exits_2_with_nothing_written(tmp_path, call_tool, monkeypatch, capsys, ddns, why):
    source, ddkit = tmp_path / 'ddns', tmp_path / 'ddkit'
    if ddns is not None:
        source.write_text(ddns)
    ddkit.write_text(HAND)
    ddkit.chmod(0o600)
    status, out, err = run(call_tool, monkeypatch, capsys, ddkit, source)
    assert status == 2 and why in err and ddkit.read_text() == HAND, err


@pytest.mark.parametrize('target, why', [
    ("config ddkit 'x'\n\toption a 'open\n", 'never closed'),
    ('link', 'symbolic link'),
])
def test_a_ddkit_file_that_cannot_be_written_safely_is_left_alone(files, call_tool, monkeypatch, capsys, target, why):
    ddns, ddkit = files
    if target == 'link':
        other = ddkit.parent / 'elsewhere'
        other.write_text(HAND)
        ddkit.symlink_to(other)
    else:
        ddkit.write_text(target)
    before = ddkit.read_text()
    status, _, err = run(call_tool, monkeypatch, capsys, ddkit, ddns)
    assert status == 2 and why in err and ddkit.read_text() == before


def test_a_bad_argument_is_refused(files, call_tool, monkeypatch, capsys):
    ddns, ddkit = files
    status, _, err = run(call_tool, monkeypatch, capsys, ddkit, ddns, '--provider', 'dy.fi')
    assert status == 2 and '--import-ddns [FILE] goes with --dry-run and --force only' in err
    assert not ddkit.exists()


# sections no user should write, each of which must still end in a clear outcome
ODD = [
    "config service 'a'\n\tlist domain 'x.example.com'\n\tlist domain 'y.example.com'\n\toption service_name 'dy.fi'\n",
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption domain 'new\nline.example.com'\n\toption enabled 1\n",
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption domain \"it's \\\"odd\\\" #;\"\n\toption enabled 1\n",
    "config service 'a'\n\toption service_name 'cloudflare.com-v4'\n\toption domain '@'\n\toption enabled 1\n",
    "config service 'a'\n\toption service_name 'cloudflare.com-v4'\n\toption domain 'a@b@c'\n\toption enabled 1\n",
    "config service 'a'\n\toption service_name 'namesilo.com-v1'\n\toption enabled 1\n",
    "config service 'a'\n\toption update_url 'ftp://x/[IP]'\n\toption domain 'a.example.com'\n\toption enabled 1\n",
    "config service 'a'\n\toption update_url 'http://x/?h=[HOST]'\n\toption enabled 1\n",
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption check_interval 'often'\n\toption enabled 1\n",
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption check_interval '99999999999999999999'\n",
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption ip_source 'interface'\n\toption ip_interface '@'\n",
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption ip_source 'web'\n\toption ip_url 'x:y'\n"
    "\toption enabled 1\n\toption domain 'a.example.com'\n\toption password 'p'\n\toption username 'u'\n",
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption proxy 'no port'\n\toption enabled 1\n",
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption cacert '/no/such/dir'\n\toption use_https 1\n"
    "\toption enabled 1\n",
    "config service 'a'\n\toption service_name '../../etc/passwd'\n",
    "config service 'a'\n\toption enabled 1\n",
    "config service 'a'\n\toption update_script '/usr/lib/ddns/update_x.sh'\n\toption enabled 1\n",
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption domain '%s'\n\toption enabled 1\n" % ('x' * 300),
    "config service 'a'\n\toption service_name 'dy.fi'\n\toption domain 'bücher.example'\n\toption enabled 1\n",
    "config service 'a'\n\toption service_name '-'\n\toption update_url 'http://x.example/[IP]'\n"
    "\toption domain 'a.example.com'\n\toption use_ipv6 '1'\n\toption enabled 1\n\toption ip_source 'sorcery'\n",
]


@pytest.mark.parametrize('text', ODD, ids=range(len(ODD)))
def test_no_input_makes_a_traceback_or_an_enabled_record_that_would_not_load(tmp_path, call_tool, monkeypatch,
                                                                             capsys, text):
    monkeypatch.setattr(ddns_import, 'network_device', lambda network: None)
    source, ddkit = tmp_path / 'ddns', tmp_path / 'ddkit'
    source.write_text(text)
    status, out, err = run(call_tool, monkeypatch, capsys, ddkit, source)
    assert status in (0, 2), out + err
    if status == 2:
        assert err.startswith('ddkit: ') and not ddkit.exists()
        return
    for name, options in sections(ddkit).items():
        if options.get('enabled') == '1':
            loaded(ddkit, name, monkeypatch)


def test_a_service_of_the_routers_own_files_is_its_update_url_the_users_own_first(tmp_path, call_tool,
                                                                                   monkeypatch, capsys):
    """As ddns-scripts looks a service_name up: /usr/share/ddns/custom/ first (even for a service of the
    list), then the list, then /usr/share/ddns/default/ (a service newer than the list)."""
    monkeypatch.setattr(ddns_import, 'network_device', lambda network: None)
    custom, default = tmp_path / 'custom', tmp_path / 'default'
    custom.mkdir()
    default.mkdir()
    monkeypatch.setattr(ddns_import, 'CUSTOM_DIR', str(custom))
    monkeypatch.setattr(ddns_import, 'DEFAULT_DIR', str(default))
    (custom / 'dy.fi.json').write_text(json.dumps({'name': 'dy.fi', 'ipv4': {
        'url': 'https://mine.example/u?h=[DOMAIN]&p=[PASSWORD]', 'answer': 'ok'}}))
    (default / 'new.example.json').write_text(json.dumps({'name': 'new.example', 'ipv4': {
        'url': 'http://new.example/nic?ip=[IP]&h=[DOMAIN]'}}))
    (default / 'scripted.example.json').write_text(json.dumps({'name': 's', 'ipv4': {'url': 'update_s.sh'}}))
    source, ddkit = tmp_path / 'ddns', tmp_path / 'ddkit'
    source.write_text(''.join("config service '%s'\n\toption enabled '1'\n\toption service_name '%s'\n"
                              "\toption domain 'a.example.com'\n\toption password 'p'\n" % pair
                              for pair in (('a', 'dy.fi'), ('b', 'new.example'), ('c', 'scripted.example'))))
    status, out, err = run(call_tool, monkeypatch, capsys, ddkit, source)
    assert status == 0, err
    found = sections(ddkit)
    assert found['a']['provider'] == found['b']['provider'] == registry.URL_PROTOCOL
    assert found['a']['update_url'] == 'https://mine.example/u?h=[DOMAIN]&p=[PASSWORD]' and found['a']['answer'] == 'ok'
    assert found['b']['update_url'] == 'http://new.example/nic?ip=[IP]&h=[DOMAIN]' and 'answer' not in found['b']
    assert found['a']['enabled'] == found['b']['enabled'] == '1'
    assert found['c']['enabled'] == '0' and 'runs an update script' in out


def test_netifds_device_of_the_network_is_read_where_ubus_answers(tmp_path, call_tool, monkeypatch, capsys):
    """ip_source network: the device netifd names now (ubus call network.interface.<name> status)."""
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    ubus = bin_dir / 'ubus'
    ubus.write_text('#!/bin/sh\n[ "$1 $2 $3" = "call network.interface.wan status" ] || exit 4\n'
                    'echo \'{"up": true, "l3_device": "pppoe-wan", "device": "eth1"}\'\n')
    ubus.chmod(0o755)
    monkeypatch.setenv('PATH', '%s:%s' % (bin_dir, os.environ.get('PATH', '')))
    source, ddkit = tmp_path / 'ddns', tmp_path / 'ddkit'
    source.write_text("config service 'a'\n\toption service_name 'dy.fi'\n\toption domain 'a.example.com'\n"
                      "config service 'b'\n\toption service_name 'dy.fi'\n\toption domain 'b.example.com'\n"
                      "\toption ip_network 'lan'\n")
    status, out, _ = run(call_tool, monkeypatch, capsys, ddkit, source)
    found = sections(ddkit)
    assert status == 0 and found['a']['ip_source'] == 'iface:pppoe-wan' and found['b']['ip_source'] == 'url'


@pytest.mark.parametrize('given, interval, verify', [
    ({}, '600', None),                                                     # ddns-scripts' default: 10 minutes
    ({'check_interval': '2', 'check_unit': 'minutes'}, '300', None),       # below 300 s: check_interval_min (5)
    ({'check_interval': '30', 'check_unit': 'seconds'}, '60', None),       # 5 seconds then: ddkit's least, 60
    ({'check_interval': '2', 'check_unit': 'minutes', 'check_interval_min': '3'}, '180', None),
    ({'check_interval': '1', 'check_unit': 'days'}, '86400', None),
    ({'force_interval': '3', 'force_unit': 'days'}, '600', '259200'),
    ({'force_interval': '1', 'force_unit': 'minutes'}, '600', '600'),      # never below the check interval
    ({'force_interval': '0'}, '600', None),                                # ddns-scripts' "run once"
])
def test_the_intervals_become_the_services_interval_and_the_records_verify_interval(
        tmp_path, call_tool, monkeypatch, capsys, given, interval, verify):
    monkeypatch.setattr(ddns_import, 'network_device', lambda network: None)
    source, ddkit = tmp_path / 'ddns', tmp_path / 'ddkit'
    options = dict({'service_name': 'cloudflare.com-v4', 'domain': 'a@example.com', 'username': 'Bearer',
                    'password': 't'}, **given)
    source.write_text("config service 'a'\n" + ''.join('\toption %s %s\n' % (k, ddns_import.quoted(v))
                                                       for k, v in options.items()))
    run(call_tool, monkeypatch, capsys, ddkit, source)
    found = sections(ddkit)['a']
    assert found['interval'] == interval and found.get('verify_interval') == verify


def script_services():
    """The services of the list that name an update script and map to a registered provider."""
    return sorted(name for name, target in registry.SCRIPT_SERVICES.items() if target in registry.PROVIDERS)


def test_every_update_script_service_of_the_registry_has_its_options_read_here():
    assert sorted(ddns_import.SCRIPTS) == sorted(name for name, target in registry.SCRIPT_SERVICES.items() if target)


USERNAMES = {'dnspod.cn': '123456'}   # a DNSPod token's ID is a number
PASSWORDS = {'bind-nsupdate': 'c2VjcmV0LXZhbHVlIQ==',   # a TSIG secret is base64; a Google key JSON
             'cloud.google.com-v1': '{"type": "service_account", "private_key": "secret-value"}'}
# the other options an update script reads, as its header says
EXTRA = {('pdns', 'param_opt'): 'https://pdns.example.com:8081', ('netcup.com', 'param_opt'): 'example.com',
         ('netcup.com', 'param_enc'): 'api-key', ('cloud.google.com-v1', 'param_enc'): 'project=my-project&zone=z',
         ('bind-nsupdate', 'dns_server'): 'ns.example.com'}


@pytest.mark.parametrize('service', script_services())
def test_each_update_script_service_becomes_a_record_of_its_provider_or_says_which_setting_it_lacks(
        tmp_path, call_tool, monkeypatch, capsys, service):
    """username, password, domain (and the script's param_enc, param_opt, dns_server) reach settings of
    the provider that exist; where the provider has none for one, the section is disabled naming it."""
    monkeypatch.setattr(ddns_import, 'network_device', lambda network: None)
    source, ddkit = tmp_path / 'ddns', tmp_path / 'ddkit'
    mapping = ddns_import.SCRIPTS[service]
    options = {'enabled': '1', 'service_name': service, 'username': USERNAMES.get(service, 'key-id'),
               'password': PASSWORDS.get(service, 'secret-value'), 'lookup_host': 'home.example.com'}
    options.update({ddns_import.named_label: {'domain': 'example.com', 'username': 'home'},
                    ddns_import.named_in_zone: {'domain': 'home.example.com', 'username': 'example.com'},
                    ddns_import.named_full: {'domain': 'home.example.com'},
                    ddns_import.named_lookup: {'domain': 'Z0123456789'}}.get(mapping[0],
                                                                             {'domain': 'home@example.com'}))
    for option in mapping[2]:
        if option not in options:   # param_enc, param_opt, dns_server the script reads
            options[option] = EXTRA.get((service, option), 'value')
    source.write_text("config service 'a'\n" + ''.join('\toption %s %s\n' % (k, ddns_import.quoted(v))
                                                       for k, v in options.items()))
    status, out, err = run(call_tool, monkeypatch, capsys, ddkit, source)
    assert status == 0, err
    found = sections(ddkit)['a']
    assert found['provider'] == registry.canonical(service)
    if found['enabled'] == '1':
        provider, cfg = loaded(ddkit, 'a', monkeypatch)
        assert cfg.record_name == 'home.example.com'
        assert options['password'] in [getattr(cfg, s.name) for s in provider.SETTINGS]
    else:
        assert 'has no setting for' in out or 'not installed' in out, out
    assert options['password'] not in out


@pytest.mark.parametrize('service, given, expected', [
    ('cloudflare.com-v4', {'domain': 'a.b@example.com'},
     {'record_name': 'a.b.example.com', 'zone_name': 'example.com'}),
    ('cloudflare.com-v4', {'domain': 'example.com'}, {'record_name': 'example.com', 'zone_name': None}),
    ('dnspod.cn', {'domain': 'home.example.com'}, {'record_name': 'home.example.com', 'zone_name': 'example.com'}),
    ('dnspod.cn', {'domain': '@.example.com'}, {'record_name': 'example.com', 'zone_name': 'example.com'}),
    ('huaweicloud.com', {'domain': 'www@example.com'}, {'record_name': 'www.example.com', 'zone_name': 'example.com'}),
    ('hetzner.cloud', {'username': '@', 'domain': 'example.com'}, {'record_name': 'example.com'}),
    ('namesilo.com-v1', {'username': 'www', 'domain': 'example.com'}, {'record_name': 'www.example.com'}),
    ('ns1.com', {'username': 'example.com', 'domain': 'a.example.com'}, {'record_name': 'a.example.com',
                                                                         'zone_name': 'example.com'}),
    ('route53-v1', {'domain': 'Z0123456789', 'lookup_host': 'h.example.com'}, {'record_name': 'h.example.com',
                                                                               'zone_name': None}),
    ('bind-nsupdate', {'username': 'hmac-sha512:k1', 'domain': 'h.example.com'},
     {'tsig_key_name': 'k1', 'tsig_algorithm': 'hmac-sha512'}),
    ('bind-nsupdate', {'username': 'k1', 'domain': 'h.example.com'},
     {'tsig_key_name': 'k1', 'tsig_algorithm': 'hmac-md5'}),
    ('cloud.google.com-v1', {'password': '/etc/gcp.json', 'param_enc': 'project=p1&zone=z', 'domain': 'h.example.com'},
     {'key_file': '/etc/gcp.json', 'project_id': 'p1'}),
    ('cloud.google.com-v1', {'password': '{"type": "service_account"}', 'domain': 'h.example.com'},
     {'key_json': '{"type": "service_account"}', 'key_file': None}),
])
def test_an_update_scripts_own_forms_are_read_as_the_script_reads_them(monkeypatch, service, given, expected):
    monkeypatch.setattr(ddns_import, 'network_device', lambda network: None)
    if registry.canonical(service) not in registry.PROVIDERS:
        pytest.skip('no provider of ddkit runs %s yet' % service)
    record = ddns_import.convert('a', dict({'service_name': service}, **given), {})
    assert {key: record.values.get(key) for key in expected} == expected


@pytest.fixture
def servers():
    """A lookup service, a DoH resolver, dy.fi's fake and the updateurl provider's own (tests/fakes/)."""
    from fakes.helpers import DoH, IpLookup
    from fakes.updateurl import SERVICE_FAKES, UrlService
    started = {'lookup': IpLookup('81.2.69.10').start(), 'doh': DoH().start(),
               'dy.fi': [cls for cls in SERVICE_FAKES if cls.PROVIDER == 'dy.fi'][0]().start(),
               registry.URL_PROTOCOL: UrlService().start()}
    yield started
    for server in started.values():
        server.stop()


def test_a_record_imported_from_a_service_url_and_a_custom_url_updates_the_fakes(servers, tmp_path, call_tool,
                                                                                 monkeypatch, capsys):
    """dy.fi's preset (no [IP]: the service takes the request's address) and a custom update_url, run
    as imported against the update-URL fakes (their base_url pointed there), the address from a
    lookup service given as ip_url."""
    monkeypatch.setattr(ddns_import, 'network_device', lambda network: None)
    source, ddkit, state = tmp_path / 'ddns', tmp_path / 'ddkit', tmp_path / 'state'
    custom = 'http://[USERNAME]:[PASSWORD]@dyn.example.net/nic/update?hostname=[DOMAIN]&myip=[IP]'
    source.write_text(''.join(
        "config service '%s'\n\toption enabled '1'\n\t%s\n\toption domain '%s'\n\toption username '%s'\n"
        "\toption password %s\n\toption ip_source 'web'\n\toption ip_url '%s'\n" % (
            name, how, RECORD, USER, ddns_import.quoted(PASSWORD), servers['lookup'].url)
        for name, how in (('fi', "option service_name 'dy.fi'"), ('mine', "option update_url '%s'" % custom))))
    assert run(call_tool, monkeypatch, capsys, ddkit, source)[0] == 0
    for name, fake, told in (('fi', servers['dy.fi'], '127.0.0.1'), ('mine', servers[registry.URL_PROTOCOL],
                                                                      '81.2.69.10')):
        fake.add_record(None, RECORD, 'A', '81.2.69.1')
        env = {'DDNS_UCI_FILE': str(ddkit), 'DDNS_BASE_URL': fake.url, 'DDNS_DOH_URL': servers['doh'].url,
               'DDNS_STATE_DIR': str(state)}
        status, out, err = call_tool('ddkit', ['--uci', name], env, monkeypatch, capsys)
        assert status == 0, out + err
        assert fake.told('A') == told and len(fake.calls('update')) == 1
        assert PASSWORD not in out + err


def test_a_run_that_does_not_import_loads_none_of_it():
    """The switch costs a run of the records nothing: bin/ddkit.py imports ddkit.ddns_import only for it."""
    code = ('import runpy, sys; sys.argv = ["ddkit", "--version"]\n'
            'try:\n    runpy.run_path(%r, run_name="__main__")\nexcept SystemExit:\n    pass\n'
            'print("ddkit.ddns_import" in sys.modules)' % tool_path('ddkit'))
    done = subprocess.run([sys.executable, '-I', '-S', '-c', code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ['ddkit', '1.0.0', 'False'] or done.stdout.split()[-1] == 'False', done.stdout


# --- the writer (ddkit.ddns_import's): what it writes reads back as libuci reads it (ddkit.uci) ----------------

def cases():
    """The sections libuci loads from each file of the cases the reader is tested with (tests/uci/)."""
    found = []
    for name in ('uci-cases.json', 'uci-cases-ours.json'):
        with open(os.path.join(ROOT, 'tests', 'uci', name), encoding='utf-8') as f:
            found += [case for case in json.load(f)['cases'] if case['sections'] is not None]
    return found


CASES = cases()
ODD_VALUES = ["it's", 'a "b" c', 'back\\slash', '#not a comment', 'semi;colon', 'new\nline', 'tab\there', '中文',
              "''", '\\', ' padded ', '$(x)']


def as_loaded(case):
    return [(s['type'], s['name'], s['options']) for s in case['sections']]


def test_export_of_each_libuci_case_reads_back_the_same():
    for case in CASES:
        assert uci.Parser(ddns_import.export(as_loaded(case))).parse() == as_loaded(case), case['file']


def test_a_value_of_any_characters_is_written_so_that_it_reads_back_as_itself():
    written = [('t', 'n%d' % i, {'v': value, 'l': [value, 'x']}) for i, value in enumerate(ODD_VALUES)]
    assert uci.Parser(ddns_import.export(written)).parse() == written


@pytest.mark.parametrize('index', range(len(CASES)))
def test_rewrite_of_each_libuci_case_keeps_its_sections_and_replaces_one_where_it_stands(index):
    """A new section appended, or each named one replaced: the rest of the file loads as before."""
    case = CASES[index]
    old = as_loaded(case)
    new = ddns_import.block('ddkit', 'added', {'enabled': '0', 'odd': ODD_VALUES[index % len(ODD_VALUES)]})
    text = ddns_import.rewrite(case['file'], {'added': new}, '# mark')
    if 'added' not in [name for _, name, _ in old]:
        assert uci.Parser(text).parse() == old + [('ddkit', 'added', {'enabled': '0',
                                                                       'odd': ODD_VALUES[index % len(ODD_VALUES)]})]
    for position, (_, name, _) in enumerate(old):
        if name is None:
            continue
        text = ddns_import.rewrite(case['file'], {name: ddns_import.block('ddkit', name, {'x': 'y'})}, '# mark')
        if text is not None:   # None: a line holds this section's statement and another's
            expected = [s if s[1] != name else ('ddkit', name, {'x': 'y'}) for s in old]
            assert uci.Parser(text).parse() == expected, (case['file'], name)


# --- the LuCI page's import: the rpcd plugin's method import (under the page's write ACL) ----------------------

PLUGIN = os.path.join(ROOT, 'luci-app-ddkit', 'root', 'usr', 'libexec', 'rpcd', 'luci.ddkit')


def plugin(method, request, ddkit):
    """The plugin run as rpcd runs it, its UCI file ddkit (ddns-scripts' file beside it): its answer."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('DDNS_')}
    env.update(DDNS_UCI_FILE=str(ddkit), PATH='/nonexistent')   # no ubus here: the reload is said, not done
    done = subprocess.run([sys.executable, PLUGIN, 'call', method], input=json.dumps(request).encode(),
                          capture_output=True, env=env, timeout=60)
    assert done.returncode == 0 and done.stderr == b'', done.stderr
    return json.loads(done.stdout)


def test_the_pages_import_shows_the_dry_run_then_imports_on_confirmation(files):
    ddns, ddkit = files
    ddkit.write_text(HAND)
    ddkit.chmod(0o600)
    shown = plugin('import', {}, ddkit)   # a call that says nothing is a dry run
    assert shown['services'] == 8 and shown['exit_status'] == 0 and ddkit.read_text() == HAND
    text = '\n'.join(shown['lines'])
    assert 'section dyfi: kept' in text and "option api_token '***'" in text
    assert not [secret for secret in SECRETS if secret in text]
    forced = '\n'.join(plugin('import', {'dry_run': True, 'force': True}, ddkit)['lines'])
    assert 'section dyfi (service dy.fi)' in forced and ddkit.read_text() == HAND
    done = plugin('import', {'dry_run': False}, ddkit)
    assert done['exit_status'] == 0 and done['lines'][-1].startswith('The ddkit service was not told')
    assert list(sections(ddkit)) == [None, 'dyfi', 'after'] + [name for name in WRITTEN if name != 'dyfi']
    assert sections(ddkit)['dyfi']['token'] == 'hand-TOKEN'   # kept: no force
    assert not [secret for secret in SECRETS if secret in '\n'.join(done['lines'])]


def test_the_page_offers_no_import_without_ddns_scripts_and_says_why_a_file_is_refused(tmp_path):
    ddkit = tmp_path / 'ddkit'
    assert plugin('import', {}, ddkit) == {'services': 0, 'exit_status': 0, 'lines': []}
    (tmp_path / 'ddns').write_text('not a UCI file\n')
    assert 'UCI file' in plugin('import', {'dry_run': False}, ddkit)['error'] and not ddkit.exists()


def page_texts(ddns, translations):
    """Every text of the LuCI page as its view builds it (tests/test_luci_page.py's stand-in of LuCI),
    the plugin's import answering ddns."""
    import shutil
    import needs
    from test_luci_page import HARNESS, VIEW
    node = shutil.which('node') or shutil.which('nodejs')
    if not node:
        needs.missing('node is not installed (.ci/run installs nodejs)')
    render = "page.render([ null, input.catalog, { records: [], problems: [] }, {} ])"
    assert render in HARNESS
    harness = HARNESS.split(render)[0] + (
        "const texts = [];\n"
        "const walk = n => { if (n == null) return; if (typeof n == 'string') { texts.push(n); return; }\n"
        "  if (Array.isArray(n)) { n.forEach(walk); return; } if (typeof n == 'object') {\n"
        "  if (Array.isArray(n.attrs)) walk(n.attrs); walk(n.children); } };\n"
        "page.render([ null, input.catalog, { records: [], problems: [] }, {}, input.ddns ])"
        ".then(tree => { walk(tree); console.log(JSON.stringify(texts)); });\n")
    with open(VIEW, encoding='utf-8') as f:
        source = f.read()
    catalog = {'providers': [], 'common': [], 'service': []}
    done = subprocess.run([node, '-e', harness], capture_output=True, text=True, timeout=60, input=json.dumps(
        {'source': source, 'catalog': catalog, 'translations': translations, 'ddns': ddns,
         'sections': [{'.type': 'defaults', '.name': 'cfg01'}]}))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def chinese():
    """{msgid: its Chinese} of the page's translation."""
    sys.path.insert(0, os.path.join(ROOT, 'tools'))
    import lmo
    with open(os.path.join(ROOT, 'luci-app-ddkit', 'po', 'zh_Hans', 'ddkit.po'), encoding='utf-8') as f:
        return {e.msgid: e.msgstr[0] for e in lmo.po_entries(f.read()) if e.msgid and e.msgstr and e.msgstr[0]}


@pytest.mark.parametrize('language', ['en', 'zh_Hans'])
def test_the_page_offers_the_import_only_when_ddns_scripts_has_services(language):
    words = chinese() if language == 'zh_Hans' else {}
    said = (words.get('This router has %d services of ddns-scripts (/etc/config/ddns). The import carries each over '
                      'as a record of ddkit, under its own name; one that cannot be carried whole is written '
                      'disabled, saying why. Stop ddns-scripts once the records run: both would update the same '
                      'names.') or 'This router has %d services').split('%d')[0] + '3'
    button = words.get('Import from ddns-scripts…', 'Import from ddns-scripts…')
    shown = page_texts({'services': 3, 'exit_status': 0, 'lines': []}, words)
    assert any(said in text for text in shown) and button in shown
    for answer in (None, {'services': 0, 'exit_status': 0, 'lines': []}, {'error': 'Access denied'}):
        assert button not in page_texts(answer, words)
