"""The init, hotplug and maintainer scripts of the packages, run by sh from a temporary root
with stand-ins for OpenWrt's /lib/functions.sh, /etc/rc.common (procd) and logger; the tools they
start run for real against the sandbox. Also: syslog lines under OpenWrt, with a stand-in /dev/log."""

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

import needs  # noqa: E402
from conftest import RECORD, import_guard
from openwrt_env import (feed, install, ipk_path, package_of, quoted, records, signify_key,  # noqa: F401
                         standins, COMMAND, COMMAND_PACKAGE, DDNS_LIBRARY, LIBRARY, PACKAGES, PROVIDER_PACKAGES,
                         SAMPLED_PROVIDER_PACKAGES, SERVICES)
from providers import PROVIDERS as ADAPTERS


@pytest.fixture
def root(feed, tmp_path):
    """A router root: every package of the feed installed as opkg does, and the stand-ins."""
    path = tmp_path / 'root'
    path.mkdir()
    for name in PACKAGES:
        install(ipk_path(feed, name), str(path))
    standins(str(path))
    with open(str(path / 'lib' / 'functions.sh'), 'a') as f:
        f.write(UCI_EXPORT_NAMES)
    return path


# The real config_load evals `uci -n export <config>`, which names every section: an anonymous one
# by the id libuci makes up as it loads the file, cfg<%02x counter><%04x hash> (list.c
# uci_fixup_section), so config_foreach passes that id. Here the hash is cksum's: the scripts must
# not depend on how the id is made.
UCI_EXPORT_NAMES = r'''
config_load() { CONFIG_SECTIONS=; CONFIG_NUM_SECTIONS=0; . "$IPKG_INSTROOT/etc/config/$1"; }
config() {
	CONFIG_NUM_SECTIONS=$((CONFIG_NUM_SECTIONS + 1))
	set -- "$1" "${2:-$(printf 'cfg%02x%04x' $CONFIG_NUM_SECTIONS $(($(echo "$1" | cksum | cut -d' ' -f1) % 65536)))}"
	CONFIG_SECTION="$2"; CONFIG_SECTIONS="$CONFIG_SECTIONS $2"; eval "CONFIG_${2}_TYPE=\$1"
}
'''


def environment(root, tool, extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(('DDNS_', 'IFUPDATE_'))}
    env.update(import_guard(tool))
    env.update({'IPKG_INSTROOT': str(root), 'STANDIN_LOG': str(root / 'standin.log'),
                'PATH': str(root / 'bin') + os.pathsep + os.environ['PATH'],
                'DDNS_UCI_FILE': str(root / 'etc' / 'config' / tool)})
    env.update(extra or {})
    return env


def init(root, tool, action, env):
    return subprocess.run(['sh', str(root / 'etc' / 'rc.common'), str(root / 'etc' / 'init.d' / tool), action],
                          env=env, capture_output=True, text=True, timeout=60)


def hotplug(root, tool, env, **event):
    """The hotplug script sourced in a subshell, as /sbin/hotplug-call does."""
    full = dict(env, **event)
    return subprocess.run(['sh', '-c', '. "$0"', str(root / 'etc' / 'hotplug.d' / 'iface' / ('95-' + tool))],
                          env=full, capture_output=True, text=True, timeout=60)


def until(predicate, what, limit=30):
    """Wait for something a background process does (a bound, not a timed assertion)."""
    end = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < end, 'gave up waiting for ' + what
        time.sleep(0.05)


def line_written(path):
    """True once a stand-in's `echo ... >> path` has written its whole line: the shell creates the file
    before echo writes to it, so the file existing is not the line being there (the race a fast
    machine never showed, Python 3.14's slower start did)."""
    try:
        with open(path) as f:
            return f.read().endswith('\n')
    except FileNotFoundError:
        return False


def stand_in(root, tool, tmp_path):
    """The installed tool replaced by a stand-in that writes its arguments, a line a run, into the
    file whose path it returns."""
    started = str(tmp_path / 'started')
    (root / 'usr' / 'bin' / tool).write_text('#!/bin/sh\necho "$@" >> %s\n' % started)
    return started


def runs_started(started):
    """The argument lines the stand-in wrote, once the background run has written its line."""
    until(lambda: line_written(started), 'the background run')
    return open(started).read().splitlines()


def uci_a(box, state, sections):
    """An /etc/config/updater_a pointing at the sandbox; sections: {name: {option: value}}, or
    [(name or None for an anonymous section, {option: value})]."""
    env = box.env_a(str(state))
    text = ''
    for name, options in sections.items() if isinstance(sections, dict) else sections:
        text += "\nconfig updater_a%s\n" % (" '%s'" % name if name else '')
        base = {'zone_name': env['DDNS_ZONE_NAME'], 'record_name': RECORD, 'auth_email': env['DDNS_AUTH_EMAIL'],
                'auth_key': env['DDNS_AUTH_KEY'], 'base_url': env['DDNS_BASE_URL'],
                'doh_url': env['DDNS_DOH_URL'], 'ip_lookup_url': env['DDNS_IP_LOOKUP_URL'],
                'state_dir': str(state)}
        base.update(options)
        text += ''.join("\toption %s %s\n" % (key, quoted(value)) for key, value in base.items())
    return text


def instances(calls):
    """{instance name: [recorded procd calls]} from the stand-in log."""
    out, current = {}, None
    for call in calls:
        if call[0] == 'open_instance':
            current = call[1]
            out[current] = []
        elif call[0] == 'close_instance':
            current = None
        elif current:
            out[current].append(call[1:])
    return out


# --- init script --------------------------------------------------------------------------------

def test_init_starts_one_looping_all_instance_at_the_shortest_interval(root, box, tmp_path):
    """One process runs every enabled section (--all): the loop waits the shortest of their intervals."""
    config = root / 'etc' / 'config' / 'updater_a'
    config.write_text(uci_a(box, tmp_path / 'state', {
        'home': {'enabled': '1', 'interval': '120'}, 'off': {'enabled': '0', 'interval': '5'},
        'bad': {'enabled': 'yes', 'interval': 'soon'}, 'tiny': {'enabled': 'on', 'interval': '5'}}))
    done = init(root, 'updater_a', 'start', environment(root, 'updater_a'))
    assert done.returncode == 0, done.stderr
    calls = records(str(root / 'standin.log'))
    assert calls[0] == ['start', 'updater_a']
    assert ['reload_trigger', 'updater_a'] in calls
    found = instances(calls)
    assert list(found) == ['all']
    command = found['all'][0]
    assert command[:3] == ['command', '/bin/sh', '-c'] and '--all --quiet' in command[3]
    assert command[4:] == [str(root / 'usr' / 'bin' / 'updater_a'), '60']
    assert ['file', str(config)] in found['all'] and ['respawn'] in found['all']


@pytest.mark.parametrize('sections, interval', [
    ({'home': {'enabled': '1', 'interval': '600'}, 'v6': {'enabled': '1'}}, '600'),
    ({'home': {'enabled': '1'}, 'v6': {'enabled': '1', 'interval': 'x'}}, '1800'),
    ({'home': {'enabled': '0'}}, None)], ids=['shortest', 'default', 'none-enabled'])
def test_init_interval_and_no_instance_without_an_enabled_section(root, box, tmp_path, sections, interval):
    (root / 'etc' / 'config' / 'updater_a').write_text(uci_a(box, tmp_path / 'state', sections))
    assert init(root, 'updater_a', 'start', environment(root, 'updater_a')).returncode == 0
    found = instances(records(str(root / 'standin.log')))
    assert [calls[0][-1] for calls in found.values()] == ([interval] if interval else [])


@pytest.mark.parametrize('name', ['home', None], ids=['named', 'anonymous'])
def test_instance_loop_runs_the_update_then_stops_cleanly_on_term(root, box, tmp_path, name):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    (root / 'etc' / 'config' / 'updater_a').write_text(uci_a(box, tmp_path / 'state', [
        (None, {'enabled': '0', 'zone_name': 'wrong.example'}), (name, {'enabled': '1', 'interval': '3600'})]))
    env = environment(root, 'updater_a')
    assert init(root, 'updater_a', 'start', env).returncode == 0
    [calls] = instances(records(str(root / 'standin.log'))).values()
    command = calls[0][1:]
    assert command[-1] == '3600'
    loop = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        until(lambda: box.provider_a.find(RECORD)[0]['content'] == '81.2.69.10', 'the update')
        until(lambda: os.path.exists(str(tmp_path / 'state' / ('.cf-wan_ip_%s.txt' % RECORD))), 'the ip file')
        loop.send_signal(signal.SIGTERM)
        out, err = loop.communicate(timeout=30)
    finally:
        if loop.poll() is None:
            loop.kill()
    assert loop.returncode == 0, err   # the trap ended the loop (a plain sh would die of the signal)
    assert out == '' and err == ''     # --quiet: the log file and syslog have it


def test_reload_trigger_and_config_file_make_uci_commit_restart_instances(root):
    text = (root / 'etc' / 'init.d' / 'updater_a').read_text()
    assert text.startswith('#!/bin/sh /etc/rc.common\n') and 'USE_PROCD=1' in text
    assert '@NAME@' not in text and 'procd_add_reload_trigger "$NAME"' in text


def uci_ddkit(box, state, enabled):
    """An /etc/config/ddkit with one section per provider of the sandbox, each naming its provider, the
    URLs every record shares in `config defaults`; enabled: {provider: interval} of the enabled ones."""
    text = "config defaults\n\toption ip_lookup_url %s\n\toption doh_url %s\n\toption state_dir %s\n" % (
        quoted(box.lookup.url), quoted(box.doh.url), quoted(str(state)))
    for adapter in ADAPTERS:
        options = {k[5:].lower(): v for k, v in adapter.env(box, state).items()
                   if k not in ('DDNS_IP_LOOKUP_URL', 'DDNS_DOH_URL', 'DDNS_STATE_DIR')}
        options.update(enabled='1' if adapter.provider in enabled else '0', provider=adapter.provider,
                       interval=enabled.get(adapter.provider, '60'), interface='wan')
        text += "\nconfig ddkit '%s'\n" % adapter.provider + ''.join(
            '\toption %s %s\n' % (k, quoted(v)) for k, v in sorted(options.items()))
    return text


def test_ddkit_init_starts_one_all_instance_that_runs_every_provider(root, box, tmp_path):
    """One service for every provider: the ddkit init script starts one `ddkit --all` instance at the
    shortest interval of the enabled sections, whatever their providers, and that one loop updates
    the record at each provider (each section names its own)."""
    for adapter in ADAPTERS:
        adapter.add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    config = root / 'etc' / 'config' / COMMAND
    config.write_text(uci_ddkit(box, tmp_path / 'state', {a.provider: str(3600 + i) for i, a in enumerate(ADAPTERS)}))
    env = environment(root, COMMAND)
    done = init(root, COMMAND, 'start', env)
    assert done.returncode == 0, done.stderr
    calls = records(str(root / 'standin.log'))
    assert calls[0] == ['start', COMMAND] and ['reload_trigger', COMMAND] in calls
    found = instances(calls)
    assert list(found) == ['all']
    command = found['all'][0]
    assert command[:3] == ['command', '/bin/sh', '-c'] and '--all --quiet' in command[3]
    assert command[4:] == [str(root / 'usr' / 'bin' / COMMAND), '3600']
    assert ['file', str(config)] in found['all'] and ['respawn'] in found['all']
    loop = subprocess.Popen(command[1:], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for adapter in ADAPTERS:
            # a record may be gone for a moment (a provider that replaces it: delete, then save)
            until(lambda: adapter.fake(box).find(RECORD) and adapter.held(box, RECORD) == adapter.content('81.2.69.10'),
                  'the update at ' + adapter.provider)
        loop.send_signal(signal.SIGTERM)
        out, err = loop.communicate(timeout=30)
    finally:
        if loop.poll() is None:
            loop.kill()
    assert loop.returncode == 0 and out == '' and err == '', err


def test_the_shipped_ddkit_file_loads_in_the_scripts_and_starts_nothing(root):
    """/etc/config/ddkit as installed (written from the registry) is read by config_load, as the init
    and hotplug scripts read it: every sample section is disabled, so no instance and no run."""
    env = environment(root, COMMAND)
    done = init(root, COMMAND, 'start', env)
    assert done.returncode == 0 and done.stderr == '', done.stderr
    assert instances(records(str(root / 'standin.log'))) == {}
    enable(root, COMMAND, env)
    done = hotplug(root, COMMAND, env, ACTION='ifup', INTERFACE='wan')
    assert done.returncode == 0 and done.stderr == ''
    assert [c for c in records(str(root / 'standin.log')) if c[0] == 'logger'] == []


def test_ddkit_hotplug_runs_the_bound_sections_of_any_provider(root, box, tmp_path):
    started = stand_in(root, COMMAND, tmp_path)
    (root / 'etc' / 'config' / COMMAND).write_text(uci_ddkit(box, tmp_path / 'state', {
        a.provider: '600' for a in ADAPTERS}))
    env = environment(root, COMMAND)
    enable(root, COMMAND, env)
    done = hotplug(root, COMMAND, env, ACTION='ifup', INTERFACE='wan')
    assert done.returncode == 0 and done.stdout == '' and done.stderr == ''
    names = ' '.join(a.provider for a in ADAPTERS)
    assert [c for c in records(str(root / 'standin.log')) if c[0] == 'logger'] == [
        ['logger', '-t', COMMAND, '-p', 'daemon.info', 'wan ifup: updating ' + names]]
    assert ' '.join(runs_started(started)).split() == [w for a in ADAPTERS for w in ('--uci', a.provider)] + ['--quiet']


def test_egress6_init_passes_the_section_as_arguments(root):
    (root / 'etc' / 'config' / 'egress6').write_text(
        "config egress6 'main'\n\toption enabled '1'\n\toption operator 'cu'\n\toption backend 'nft'\n"
        "\toption interval '600'\n\toption geoip_url 'http://127.0.0.1:1/geo'\n"
        "\tlist lookup_url 'http://127.0.0.1:1/a'\n\tlist lookup_url 'http://127.0.0.1:1/b'\n"
        "config egress6 'spare'\n\toption enabled '0'\n\toption operator 'ct'\n")
    env = environment(root, 'egress6')
    assert init(root, 'egress6', 'start', env).returncode == 0
    found = instances(records(str(root / 'standin.log')))
    assert list(found) == ['main']
    calls = found['main']
    assert calls[0][:3] == ['command', '/bin/sh', '-c']
    assert calls[0][4:] == ['egress6-loop', '600', str(root / 'usr' / 'bin' / 'egress6'), 'cu', '--backend', 'nft']
    assert calls[1:4] == [['command', '--geoip-url', 'http://127.0.0.1:1/geo'],
                          ['command', '--lookup-url', 'http://127.0.0.1:1/a'],
                          ['command', '--lookup-url', 'http://127.0.0.1:1/b']]
    assert ['stdout', '1'] in calls and ['stderr', '1'] in calls and ['respawn'] in calls


def test_egress6_init_passes_on_change_as_an_argument_and_the_ping_url_in_the_environment(root):
    (root / 'etc' / 'config' / 'egress6').write_text(
        "config egress6 'main'\n\toption enabled '1'\n\toption operator 'ct'\n"
        "\toption on_change '/etc/egress6-notify.sh \"a b\"'\n"
        "\toption healthcheck_url 'https://hc-ping.com/5bf66975'\n")
    env = environment(root, 'egress6')
    assert init(root, 'egress6', 'start', env).returncode == 0
    calls = instances(records(str(root / 'standin.log')))['main']
    assert ['command', '--on-change', '/etc/egress6-notify.sh "a b"'] in calls
    # whoever has the ping URL can ping the check: not in argv, which every user can read
    assert ['env', 'DDNS_HEALTHCHECK_URL=https://hc-ping.com/5bf66975'] in calls
    assert not any('hc-ping.com' in word for call in calls if call[0] == 'command' for word in call)


def test_egress6_loop_runs_the_tool_with_the_section_arguments(root):
    (root / 'etc' / 'config' / 'egress6').write_text(
        "config egress6 'main'\n\toption enabled '1'\n\toption operator 'xx'\n\toption interval '3600'\n")
    env = environment(root, 'egress6')
    assert init(root, 'egress6', 'start', env).returncode == 0
    command = instances(records(str(root / 'standin.log')))['main'][0][1:]
    out = str(root / 'loop.out')
    with open(out, 'w') as f:
        loop = subprocess.Popen(command, env=env, stdout=f, stderr=subprocess.STDOUT)
    try:
        until(lambda: 'Unsupported operator code' in open(out).read(), 'the first selection')
        loop.send_signal(signal.SIGTERM)
        assert loop.wait(timeout=30) == 0
    finally:
        if loop.poll() is None:
            loop.kill()


@pytest.mark.parametrize('tool', ['egress6', 'updater_a'])
def test_stopping_the_service_during_a_held_run_ends_the_run_too(root, tmp_path, tool):
    """procd sends TERM to the loop and kills it 5 s later; the run under way must end with the loop,
    not go on orphaned (egress6's prerm removes the rule right after the stop)."""
    held = str(tmp_path / 'held')
    (root / 'usr' / 'bin' / tool).write_text('#!/bin/sh\necho $$ > %s.tmp && mv %s.tmp %s\nexec sleep 600\n'
                                            % (held, held, held))
    (root / 'etc' / 'config' / tool).write_text(
        "config %s 'main'\n\toption enabled '1'\n\toption operator 'ct'\n\toption interval '3600'\n" % tool)
    env = environment(root, tool)
    assert init(root, tool, 'start', env).returncode == 0
    command = instances(records(str(root / 'standin.log')))[
        'main' if tool == 'egress6' else 'all'][0][1:]
    loop = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        until(lambda: os.path.exists(held), 'the run to start')
        run = int(open(held).read())
        loop.send_signal(signal.SIGTERM)
        assert loop.wait(timeout=4) == 0   # at once: well inside procd's 5 s
        until(lambda: not alive(run), 'the held run to end')
    finally:
        if loop.poll() is None:
            loop.kill()


def alive(pid):
    """True while pid runs (a zombie counts as ended)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


# --- hotplug ------------------------------------------------------------------------------------

def enable(root, tool, env):
    assert init(root, tool, 'enable', env).returncode == 0
    assert (root / 'etc' / 'rc.d' / ('S95' + tool if tool != 'egress6' else 'S96egress6')).is_symlink()


@pytest.mark.parametrize('event', [
    {'ACTION': 'ifup', 'INTERFACE': 'wan'},
    {'ACTION': 'ifupdate', 'INTERFACE': 'wan', 'IFUPDATE_ADDRESSES': '1'},
    {'ACTION': 'ifupdate', 'INTERFACE': 'wan', 'IFUPDATE_DATA': '1'},
], ids=['ifup', 'ifupdate-addresses', 'ifupdate-data'])
def test_hotplug_updates_the_bound_section_at_once(root, box, tmp_path, event):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    (root / 'etc' / 'config' / 'updater_a').write_text(uci_a(box, tmp_path / 'state', {
        'home': {'enabled': '1', 'interface': 'wan'}, 'other': {'enabled': '1', 'interface': 'lan'},
        'off': {'enabled': '0', 'interface': 'wan'}}))
    env = environment(root, 'updater_a')
    enable(root, 'updater_a', env)
    done = hotplug(root, 'updater_a', env, DEVICE='eth0.2', **event)
    assert done.returncode == 0 and done.stdout == '' and done.stderr == ''
    logged = [c for c in records(str(root / 'standin.log')) if c[0] == 'logger']
    assert logged == [['logger', '-t', 'updater_a', '-p', 'daemon.info', 'wan %s: updating home' % event['ACTION']]]
    until(lambda: box.provider_a.find(RECORD)[0]['content'] == '81.2.69.10', 'the update')


def test_hotplug_updates_a_bound_anonymous_section(root, box, tmp_path):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    wrong = {'enabled': '1', 'interface': 'lan', 'zone_name': 'wrong.example'}
    (root / 'etc' / 'config' / 'updater_a').write_text(uci_a(box, tmp_path / 'state', [
        (None, wrong), ('lan', wrong), (None, {'enabled': '1', 'interface': 'wan'})]))
    env = environment(root, 'updater_a')
    enable(root, 'updater_a', env)
    done = hotplug(root, 'updater_a', env, ACTION='ifup', INTERFACE='wan')
    assert done.returncode == 0 and done.stdout == '' and done.stderr == ''
    logged = [c for c in records(str(root / 'standin.log')) if c[0] == 'logger']
    assert logged == [['logger', '-t', 'updater_a', '-p', 'daemon.info', 'wan ifup: updating @updater_a[2]']]
    until(lambda: box.provider_a.find(RECORD)[0]['content'] == '81.2.69.10', 'the update')


def test_hotplug_runs_every_record_that_depends_on_the_event_in_one_process(root, tmp_path):
    """Bound by option interface, or by an ip_source that reads the event's device (a LAN host's
    prefix on br-lan); a url source, another device or a disabled section is left alone."""
    started = stand_in(root, 'updater_a', tmp_path)
    sections = [('nas', {'enabled': '1', 'ip_source': 'prefix:br-lan/::1a2b:3c4d:5e6f:7890'}),
                (None, {'enabled': '1', 'ip_source': 'neigh:br-lan/02:11:22:33:44:55'}),
                ('cam', {'enabled': '1', 'interface': 'lan', 'ip_source': 'url'}),
                ('router', {'enabled': '1', 'interface': 'wan6', 'ip_source': 'iface:pppoe-wan'}),
                ('guest', {'enabled': '1', 'ip_source': 'eui64:br-guest/02:11:22:33:44:66'}),
                ('off', {'enabled': '0', 'ip_source': 'iface:br-lan'})]
    text = ''.join("config updater_a%s\n" % (" '%s'" % name if name else '') + ''.join(
        "\toption %s '%s'\n" % kv for kv in options.items()) for name, options in sections)
    (root / 'etc' / 'config' / 'updater_a').write_text(text)
    env = environment(root, 'updater_a')
    enable(root, 'updater_a', env)
    done = hotplug(root, 'updater_a', env, ACTION='ifupdate', INTERFACE='lan', DEVICE='br-lan',
                   IFUPDATE_ADDRESSES='1')
    assert done.returncode == 0 and done.stdout == '' and done.stderr == ''
    logged = [c for c in records(str(root / 'standin.log')) if c[0] == 'logger']
    assert logged == [['logger', '-t', 'updater_a', '-p', 'daemon.info',
                       'lan ifupdate: updating nas @updater_a[1] cam']]
    assert runs_started(started) == ['--uci nas --uci @updater_a[1] --uci cam --quiet']


def test_hotplug_runs_a_record_whose_line_reads_the_device(root, tmp_path):
    """A line of its own source (list lines 'ct=iface:pppoe-ct') binds its record to that device too;
    a bare line (the record's own source) binds nothing more."""
    started = stand_in(root, 'updater_a', tmp_path)
    (root / 'etc' / 'config' / 'updater_a').write_text(
        "config updater_a 'home'\n\toption enabled '1'\n\toption ip_source 'iface:br-lan'\n"
        "\tlist lines 'cm'\n\tlist lines 'ct=iface:pppoe-ct'\n"
        "config updater_a 'other'\n\toption enabled '1'\n\toption ip_source 'iface:br-lan'\n\tlist lines 'ct'\n")
    env = environment(root, 'updater_a')
    enable(root, 'updater_a', env)
    done = hotplug(root, 'updater_a', env, ACTION='ifup', INTERFACE='wan_ct', DEVICE='pppoe-ct')
    assert done.returncode == 0 and done.stdout == '' and done.stderr == ''
    assert runs_started(started) == ['--uci home --quiet']


def test_hotplug_and_init_read_config_defaults_as_the_tool_does(root, tmp_path):
    """Options of `config defaults` hold for every section that does not set them (ddkit.uci.record):
    the device an inherited ip_source reads binds the section; an inherited interval paces the loop."""
    started = stand_in(root, 'updater_a', tmp_path)
    (root / 'etc' / 'config' / 'updater_a').write_text(
        "config defaults\n\toption ip_source 'iface:pppoe-wan'\n\toption interval '300'\n"
        "config updater_a 'router'\n\toption enabled '1'\n"
        "config updater_a 'nas'\n\toption enabled '1'\n\toption ip_source 'prefix:br-lan/::1'\n"
        "\toption interval '900'\n")
    env = environment(root, 'updater_a')
    enable(root, 'updater_a', env)
    done = hotplug(root, 'updater_a', env, ACTION='ifup', INTERFACE='wan', DEVICE='pppoe-wan')
    assert done.returncode == 0 and done.stdout == '' and done.stderr == ''
    assert runs_started(started) == ['--uci router --quiet']
    assert init(root, 'updater_a', 'start', env).returncode == 0
    found = instances(records(str(root / 'standin.log')))
    assert [calls[0][-1] for calls in found.values()] == ['300']


def test_hotplug_updates_several_bound_records_for_real(root, box, tmp_path):
    other = 'www.example.com'
    for name in (RECORD, other):
        box.provider_a.add_record(box.zone_a, name, 'A', '81.2.69.1')
        box.doh.names[(name, 'A')] = ['81.2.69.1']
    (root / 'etc' / 'config' / 'updater_a').write_text(uci_a(box, tmp_path / 'state', {
        'home': {'enabled': '1', 'interface': 'wan'}, 'www': {'enabled': '1', 'interface': 'wan',
                                                                'record_name': other}}))
    env = environment(root, 'updater_a')
    enable(root, 'updater_a', env)
    assert hotplug(root, 'updater_a', env, ACTION='ifup', INTERFACE='wan').returncode == 0
    for name in (RECORD, other):
        until(lambda: box.provider_a.find(name)[0]['content'] == '81.2.69.10', 'the update of ' + name)
    until(lambda: len(box.provider_a.calls('update_record')) == 2, 'both updates')
    assert box.provider_a.calls().count('list_zones') == 1 and box.lookup.calls() == ['lookup']


@pytest.mark.parametrize('event, enabled', [
    ({'ACTION': 'ifdown', 'INTERFACE': 'wan'}, True),
    ({'ACTION': 'ifupdate', 'INTERFACE': 'wan', 'IFUPDATE_ROUTES': '1'}, True),
    ({'ACTION': 'ifup', 'INTERFACE': 'lan'}, True),
    ({'ACTION': 'ifup', 'INTERFACE': 'wan'}, False),
], ids=['ifdown', 'ifupdate-routes-only', 'other-interface', 'service-disabled'])
def test_hotplug_leaves_other_events_alone(root, box, tmp_path, event, enabled):
    (root / 'etc' / 'config' / 'updater_a').write_text(
        uci_a(box, tmp_path / 'state', {'home': {'enabled': '1', 'interface': 'wan'}}))
    env = environment(root, 'updater_a')
    if enabled:
        enable(root, 'updater_a', env)
    done = hotplug(root, 'updater_a', env, **event)
    assert done.returncode == 0
    assert [c for c in records(str(root / 'standin.log')) if c[0] == 'logger'] == []


def test_hotplug_returns_while_the_update_still_runs(root, tmp_path):
    """The run goes to the background: the script is back while the (stand-in) tool is blocked."""
    fifo, started = str(tmp_path / 'release'), str(tmp_path / 'started')
    os.mkfifo(fifo)
    tool = root / 'usr' / 'bin' / 'updater_a'
    tool.write_text('#!/bin/sh\necho "$@" > %s\nread line < %s\n' % (started, fifo))
    (root / 'etc' / 'config' / 'updater_a').write_text(
        "config updater_a 'home'\n\toption enabled '1'\n\toption interface 'wan'\n")
    env = environment(root, 'updater_a')
    enable(root, 'updater_a', env)
    done = hotplug(root, 'updater_a', env, ACTION='ifup', INTERFACE='wan')
    assert done.returncode == 0
    assert ' '.join(runs_started(started)).split() == ['--uci', 'home', '--quiet']
    with open(fifo, 'w') as f:   # the stand-in still waits: release it
        f.write('go\n')


@pytest.mark.parametrize('listed, interface, runs', [
    ('wan6', 'wan6', True), ('wan6', 'lan', False), (None, 'lan', True)])
def test_egress6_hotplug_selects_again_after_an_address_change(root, listed, interface, runs):
    text = "config egress6 'main'\n\toption enabled '1'\n\toption operator 'ct'\n"
    if listed:
        text += "\tlist interface '%s'\n" % listed
    (root / 'etc' / 'config' / 'egress6').write_text(text)
    env = environment(root, 'egress6')
    enable(root, 'egress6', env)
    done = hotplug(root, 'egress6', env, ACTION='ifupdate', INTERFACE=interface, IFUPDATE_ADDRESSES='1')
    assert done.returncode == 0
    log = str(root / 'standin.log')
    if runs:
        until(lambda: ['restart', 'egress6'] in records(log), 'the restart of the service')
        assert ['logger', '-t', 'egress6', '-p', 'daemon.info',
                '%s ifupdate: selecting the egress address again' % interface] in records(log)
    else:
        assert [c for c in records(log) if c[0] in ('logger', 'restart')] == []


# --- maintainer scripts ---------------------------------------------------------------------------

@pytest.mark.parametrize('tool', SERVICES)
def test_postinst_and_prerm_run_the_package_steps_through_the_defaults(root, tool):
    config = root / 'etc' / 'config' / tool
    os.chmod(str(config), 0o644)   # as a kept user copy might be
    env = environment(root, tool)
    info = root / 'usr' / 'lib' / 'opkg' / 'info'
    package = package_of(tool)
    done = subprocess.run(['sh', str(info / (package + '.postinst'))], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert ['default_postinst', package] in records(str(root / 'standin.log'))
    assert stat.S_IMODE(os.stat(str(config)).st_mode) == 0o600
    links = os.listdir(str(root / 'etc' / 'rc.d'))
    assert len(links) == 1 and os.readlink(str(root / 'etc' / 'rc.d' / links[0])) == '../init.d/' + tool
    done = subprocess.run(['sh', str(info / (package + '.prerm'))], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert ['default_prerm', package] in records(str(root / 'standin.log'))
    assert os.listdir(str(root / 'etc' / 'rc.d')) == []


@pytest.mark.parametrize('name', (LIBRARY, DDNS_LIBRARY) + SAMPLED_PROVIDER_PACKAGES)
def test_library_and_provider_postinst_and_prerm_enable_nothing(root, name):
    env = environment(root, 'updater_a')
    info = root / 'usr' / 'lib' / 'opkg' / 'info'
    for script, call in (('postinst', 'default_postinst'), ('prerm', 'default_prerm')):
        done = subprocess.run(['sh', str(info / ('%s.%s' % (name, script)))], env=env, capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr
        assert [call, name] in records(str(root / 'standin.log'))
    assert os.listdir(str(root / 'etc' / 'rc.d')) == []
    assert not os.path.exists(str(info / (name + '.postinst-pkg')))
    assert not os.path.exists(str(info / (name + '.prerm-pkg')))


def test_postinst_skips_without_functions_sh(root):
    os.remove(str(root / 'lib' / 'functions.sh'))
    info = root / 'usr' / 'lib' / 'opkg' / 'info'
    done = subprocess.run(['sh', str(info / 'updater_a.postinst')], env=environment(root, 'updater_a'))
    assert done.returncode == 0 and records(str(root / 'standin.log')) == []


# --- syslog under OpenWrt -------------------------------------------------------------------------

SYSLOG_STANDIN = r'''
import json, socket, subprocess, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
server.bind('/dev/log')
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
server.setblocking(False)
lines = []
while True:
    try:
        lines.append(server.recv(65536).decode())
    except BlockingIOError:
        break
print(json.dumps({'status': done.returncode, 'stdout': done.stdout, 'stderr': done.stderr, 'syslog': lines}))
'''


def in_namespace(tmp_path, directories, command, env, files=()):
    """Run command in a private mount namespace where each of directories (/etc, /dev, /run) is an
    overlay: changes there stay in tmp_path, the machine's own files are untouched."""
    if os.geteuid() != 0 or not shutil.which('unshare'):
        needs.missing('needs root and unshare for a private mount namespace')
    layers = tmp_path / 'layers'
    for d in directories:
        (layers / (d + '_u')).mkdir(parents=True)
        (layers / (d + '_w')).mkdir(parents=True)
    for path, text in files:   # e.g. ('etc/openwrt_release', ...): placed in the upper layer
        top, _, rest = path.partition('/')
        target = layers / (top + '_u') / rest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        target.chmod(0o755)
    mount = 'mount -t overlay ddkit-test -o lowerdir=/{0},upperdir={1}/{0}_u,workdir={1}/{0}_w /{0}'
    script = ' && '.join([mount.format(d, layers) for d in directories] + ['exec "$@"'])
    done = subprocess.run(['unshare', '-m', 'sh', '-c', script, 'sh'] + command,
                          env=env, capture_output=True, text=True, timeout=60)
    if done.returncode != 0 and 'mount' in done.stderr:
        needs.missing('overlay mounts are not available here (needs a kernel with overlayfs): %s'
                      % done.stderr.strip())
    return done


@pytest.mark.parametrize('upgrade', [False, True], ids=['remove', 'upgrade'])
def test_prerm_pkg_stops_the_service_and_removes_its_state(root, tmp_path, upgrade):
    """The package's own prerm on a live system (IPKG_INSTROOT empty): /etc/init.d/<tool> stop,
    then the RAM state in /var/run/<tool> goes (kept on upgrade); for egress6 its nft table."""
    log = str(tmp_path / 'calls.log')
    stub = '#!/bin/sh\necho "$0 $*" >> %s\n' % log
    info = root / 'usr' / 'lib' / 'opkg' / 'info'
    script = ('mkdir -p /run/updater_a && touch /run/updater_a/.cf-wan_ip_x.txt && sh "$0" && sh "$1"; '
              '[ -e /run/updater_a ] && echo state kept || echo state removed')
    env = dict(environment(root, 'updater_a'), IPKG_INSTROOT='', PKG_UPGRADE='1' if upgrade else '',
               PATH=str(tmp_path / 'bin') + os.pathsep + os.environ['PATH'])
    (tmp_path / 'bin').mkdir()
    (tmp_path / 'bin' / 'nft').write_text(stub)
    (tmp_path / 'bin' / 'nft').chmod(0o755)
    done = in_namespace(tmp_path, ['etc', 'run'], ['sh', '-c', script, str(info / 'updater_a.prerm-pkg'),
                                                   str(info / 'egress6.prerm-pkg')], env,
                        files=[('etc/init.d/updater_a', stub), ('etc/init.d/egress6', stub)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ('state kept' if upgrade else 'state removed')
    calls = open(log).read().splitlines()
    assert calls[:2] == ['/etc/init.d/updater_a stop', '/etc/init.d/egress6 stop']
    assert calls[2:] == ([] if upgrade else ['%s delete table ip6 egress6' % (tmp_path / 'bin' / 'nft')])
    assert not os.path.exists('/etc/init.d/updater_a')   # the machine itself was not touched


@pytest.mark.parametrize('upgrade', [False, True], ids=['remove', 'upgrade'])
def test_ddkit_command_prerm_pkg_stops_its_one_service_and_removes_its_state(root, tmp_path, upgrade):
    """ddkit-command's own prerm on a live system: /etc/init.d/ddkit stop (the one service of every
    provider), then its RAM state in /var/run/ddkit goes (kept on upgrade)."""
    log = str(tmp_path / 'calls.log')
    stub = '#!/bin/sh\necho "$0 $*" >> %s\n' % log
    info = root / 'usr' / 'lib' / 'opkg' / 'info'
    script = ('mkdir -p /run/ddkit && touch /run/ddkit/.cf-wan_ip_x.txt && sh "$0"; '
              '[ -e /run/ddkit ] && echo state kept || echo state removed')
    env = dict(environment(root, COMMAND), IPKG_INSTROOT='', PKG_UPGRADE='1' if upgrade else '')
    done = in_namespace(tmp_path, ['etc', 'run'], ['sh', '-c', script, str(info / (COMMAND_PACKAGE + '.prerm-pkg'))],
                        env, files=[('etc/init.d/ddkit', stub)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ('state kept' if upgrade else 'state removed')
    assert open(log).read().splitlines() == ['/etc/init.d/ddkit stop']


def test_logs_reach_syslog_under_openwrt(root, box, tmp_path):
    """In a private mount namespace /etc/openwrt_release exists and /dev/log is a stand-in socket:
    the installed updater sends its lines there too, tagged with its name, secrets masked."""
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    (root / 'etc' / 'config' / 'updater_a').write_text(
        uci_a(box, tmp_path / 'state', {'home': {'enabled': '1'}}))
    done = in_namespace(tmp_path, ['dev', 'etc'], [sys.executable, '-c', SYSLOG_STANDIN, sys.executable,
                                                   str(root / 'usr' / 'bin' / 'updater_a'), '--uci', 'home'],
                        environment(root, 'updater_a'), files=[('etc/openwrt_release', "DISTRIB_ID='OpenWrt'\n")])
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result['status'] == 0, result
    assert '<30>updater_a: IP has been updated to: 81.2.69.10' in result['syslog']
    assert all(box.provider_a.key not in line for line in result['syslog'])
    # a run of several: each record's heading is a message of its own, written with its next line
    box.provider_a.add_record(box.zone_a, 'nas.example.com', 'A', '81.2.69.10')
    (root / 'etc' / 'config' / 'updater_a').write_text(uci_a(box, tmp_path / 'state', {
        'home': {'enabled': '1'}, 'nas': {'enabled': '1', 'record_name': 'nas.example.com'}}))
    done = in_namespace(tmp_path / 'again', ['dev', 'etc'], [sys.executable, '-c', SYSLOG_STANDIN, sys.executable,
                                                             str(root / 'usr' / 'bin' / 'updater_a'), '--all'],
                        environment(root, 'updater_a'), files=[('etc/openwrt_release', "DISTRIB_ID='OpenWrt'\n")])
    result = json.loads(done.stdout)
    assert result['status'] == 0, result
    messages = [line.split(': ', 1)[1] for line in result['syslog']]
    assert [m.split(' (')[0] for m in messages[:3]] == ['Record home: A %s:' % RECORD,
                                                        'IP has not changed: 81.2.69.10',
                                                        'Record nas: A nas.example.com:'], result
    assert messages[-1] == 'All 2 records done.' and not any('\n' in m for m in messages), result
