"""ddkit --install-service and egress6_win --install-task (ddkit.service): the dry runs of every system
from this one, and installs into a temporary root (a test's argument of ddkit.service.main, which the
command line never gives), with stand-ins for systemctl, schtasks, launchctl and icacls first on PATH
(tests/service: they answer as the real ones do and log every call, as tests/win replays netsh). The
units pass `systemd-analyze verify` where it is installed; the Task XML keeps to the Task Scheduler
schema's documented structure (TASK_SCHEMA below); the plist round-trips through plistlib."""

import json
import os
import plistlib
import shutil
import stat
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

from conftest import ROOT, run_tool, tool_path
import needs

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import registry, service  # noqa: E402

PROVIDER = registry.PROVIDERS[0]   # provider A

STANDINS = os.path.join(ROOT, 'tests', 'service', 'bin')
SECRET = 'k3y-that-must-stay-in-the-config-file'
NS = '{http://schemas.microsoft.com/windows/2004/02/mit/task}'


@pytest.fixture
def system(tmp_path, monkeypatch):
    """A temporary root, the stand-ins first on PATH, a config file of two records holding a secret
    (mode 600); system.calls(): the stand-ins' calls so far; system.held(): what they keep."""
    class System:
        root = tmp_path / 'root'
        log, state = tmp_path / 'calls.jsonl', tmp_path / 'held.json'
        conf = tmp_path / 'etc' / 'ddkit.conf'

        def calls(self):
            return [json.loads(line) for line in self.log.read_text().splitlines()] if self.log.exists() else []

        def held(self):
            return json.loads(self.state.read_text()) if self.state.exists() else {'tasks': {}, 'enabled': [], 'loaded': []}

        def files(self):
            return sorted(os.path.relpath(os.path.join(top, name), str(self.root))
                          for top, _, names in os.walk(str(self.root)) for name in names)

    made = System()
    made.root.mkdir()
    made.conf.parent.mkdir()
    made.conf.write_text('provider=%s\nauth_email=me@example.com\nauth_key=%s\nzone_name=example.com\n'
                         '[home]\nrecord_name=home.example.com\n[nas]\nrecord_name=nas.example.com\n'
                         % (PROVIDER, SECRET))
    made.conf.chmod(0o600)
    monkeypatch.setenv('PATH', STANDINS + os.pathsep + os.environ['PATH'])
    for name, value in (('SERVICE_CALL_LOG', made.log), ('SERVICE_STATE', made.state), ('SERVICE_ROOT', made.root),
                        ('SERVICE_STANDIN_PYTHON', sys.executable)):
        monkeypatch.setenv(name, str(value))
    for name in [n for n in os.environ if n.startswith('DDNS_')]:
        monkeypatch.delenv(name)
    return made


def install(system, capsys, *args, here='linux', elevated=True, python=None, script=None):
    """ddkit.service.main in this process, into the system's root: (status, stdout, stderr)."""
    capsys.readouterr()
    status = service.main(list(args), script=script or tool_path('ddkit'), root=str(system.root),
                          elevated=elevated, python=python, here=here)
    out = capsys.readouterr()
    return status, out.out, out.err


def analyze(paths, user=False, tmp_path=None):
    """systemd-analyze verify of unit files: (exit status, what it said)."""
    if not shutil.which('systemd-analyze'):
        needs.missing('systemd-analyze (Debian: systemd) verifies the units')
    env = dict(os.environ)
    if user:   # the user manager it loads needs a runtime directory
        runtime = tmp_path / 'runtime'
        runtime.mkdir(mode=0o700, exist_ok=True)
        env['XDG_RUNTIME_DIR'] = str(runtime)
    done = subprocess.run(['systemd-analyze'] + (['--user'] if user else []) + ['verify'] + [str(p) for p in paths],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=str(paths[0].parent))
    return done.returncode, done.stdout


# --- Linux: systemd ------------------------------------------------------------------------------
def test_linux_system_install_hardened_units_that_systemd_accepts(system, capsys, tmp_path):
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf))
    assert status == 0, err
    units = system.root / 'etc' / 'systemd' / 'system'
    assert system.files() == ['etc/systemd/system/ddkit.service', 'etc/systemd/system/ddkit.timer']
    unit, timer = (units / 'ddkit.service').read_text(), (units / 'ddkit.timer').read_text()
    for path in units.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
    lines = unit.splitlines()
    assert 'Type=oneshot' in lines
    assert [line for line in lines if line.startswith('ExecStart=')] == [
        'ExecStart=%s %s --all --config %s --state-dir /var/lib/ddkit' % (sys.executable, tool_path('ddkit'), system.conf)]
    for hardening in ('NoNewPrivileges=yes', 'ProtectSystem=strict', 'PrivateTmp=yes', 'StateDirectory=ddkit',
                      'StateDirectoryMode=0700', 'UMask=0077'):
        assert hardening in lines
    assert [line for line in lines if line.startswith('ProtectHome=')] in (['ProtectHome=yes'], ['ProtectHome=tmpfs'])
    assert timer.splitlines()[3:] == ['[Timer]', 'OnBootSec=1min', 'OnUnitActiveSec=300s', 'Persistent=true', '',
                                      '[Install]', 'WantedBy=timers.target']
    assert system.calls() == [['systemctl', 'daemon-reload'], ['systemctl', 'enable', '--now', 'ddkit.timer']]
    assert 'journalctl -u ddkit' in out
    assert analyze([units / 'ddkit.service', units / 'ddkit.timer']) == (0, '')


def test_systemd_analyze_catches_a_unit_it_would_refuse(system, capsys, tmp_path):
    """The check above can fail: a unit with a mistake in it does not pass."""
    install(system, capsys, '--install-service', '--config', str(system.conf))
    unit = system.root / 'etc' / 'systemd' / 'system' / 'ddkit.service'
    unit.write_text(unit.read_text().replace('ProtectSystem=strict', 'ProtectSystem=strictest'))
    status, said = analyze([unit])
    assert 'Failed to parse protect system value' in said and 'strictest' in said, said


def test_linux_user_units_hold_no_mount_sandboxing(system, capsys, tmp_path):
    status, out, err = install(system, capsys, '--install-service', '--user', '--every', '120',
                               '--config', str(system.conf), elevated=False)
    assert status == 0, err
    units = system.root / os.path.expanduser('~').lstrip('/') / '.config' / 'systemd' / 'user'
    unit = (units / 'ddkit.service').read_text()
    for option in ('ProtectSystem', 'ProtectHome', 'PrivateTmp', 'PrivateDevices', 'StateDirectory', 'BindReadOnlyPaths',
                   'network-online'):
        assert option not in unit
    assert 'NoNewPrivileges=yes' in unit and '--state-dir' not in unit
    assert 'OnUnitActiveSec=120s' in (units / 'ddkit.timer').read_text()
    assert system.calls() == [['systemctl', '--user', 'daemon-reload'],
                              ['systemctl', '--user', 'enable', '--now', 'ddkit.timer']]
    assert 'loginctl enable-linger' in out
    assert analyze([units / 'ddkit.service', units / 'ddkit.timer'], user=True, tmp_path=tmp_path) == (0, '')


def test_without_root_the_service_is_the_users(system, capsys):
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf), elevated=False)
    assert status == 0, err
    assert out.startswith('ddkit --install-service for linux (this user)\n')
    assert system.files() == [os.path.join(os.path.expanduser('~').lstrip('/'), '.config/systemd/user', name)
                              for name in ('ddkit.service', 'ddkit.timer')]


@pytest.mark.parametrize('argv0, spec, code', [
    ('/src/ddkit/bin/ddkit.py', None, ['/src/ddkit/bin/ddkit.py']),                  # a clone
    ('/opt/ddkit/bin/ddkit', 'ddkit_cli.ddkit', ['-m', 'ddkit_cli.ddkit']),          # pip's command
    ('C:\\Py\\Scripts\\ddkit.exe', 'ddkit_cli.ddkit', ['-m', 'ddkit_cli.ddkit']),  # pip's launcher
    ('/site/ddkit_cli/ddkit.py', 'ddkit_cli.ddkit', ['-m', 'ddkit_cli.ddkit']),      # python -m ddkit_cli.ddkit
    ('/root/dist/ddkit.py', 'ddkit_command', ['/root/dist/ddkit.py']),               # the single file
])
def test_the_service_runs_the_tool_as_it_was_started(monkeypatch, tmp_path, argv0, spec, code):
    """A package's module by -m (its own folder first on the path would hide the library ddkit behind
    its ddkit.py), else the file started."""
    for path in (argv0, '/site/ddkit_cli/ddkit.py'):
        if path.startswith('/'):
            (tmp_path / path.lstrip('/')).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path.lstrip('/')).write_text('')
    where = (lambda path: str(tmp_path / path.lstrip('/')) if path.startswith('/') else path)
    monkeypatch.setattr(sys, 'argv', [where(argv0)])
    spec = type('Spec', (), {'name': spec})() if spec else None
    code_file = where('/site/ddkit_cli/ddkit.py' if spec and spec.name == 'ddkit_cli.ddkit' else '/tmp/cache/ddkit_command.py')
    assert service.code_of(code_file, spec) == [where(word) for word in code]


def test_a_second_install_replaces_the_first_and_an_uninstall_leaves_state_and_config(system, capsys):
    install(system, capsys, '--install-service', '--config', str(system.conf))
    state_file = system.root / 'var' / 'lib' / 'ddkit' / 'ddkit_home.example.com.log'   # as runs leave it
    state_file.parent.mkdir(parents=True)
    state_file.write_text('a run\n')
    status, out, err = install(system, capsys, '--install-service', '--every', '900', '--config', str(system.conf))
    assert status == 0, err
    timer = system.root / 'etc' / 'systemd' / 'system' / 'ddkit.timer'
    assert 'OnUnitActiveSec=900s' in timer.read_text() and 'OnUnitActiveSec=300s' not in timer.read_text()
    assert system.calls()[-1] == ['systemctl', 'restart', 'ddkit.timer']   # the new interval counts from now
    assert system.held()['enabled'] == ['ddkit.timer']
    status, out, err = install(system, capsys, '--uninstall-service')
    assert status == 0, err
    assert system.files() == ['var/lib/ddkit/ddkit_home.example.com.log']
    assert system.conf.read_text().count(SECRET) == 1
    assert system.calls()[-2:] == [['systemctl', 'disable', '--now', 'ddkit.timer'], ['systemctl', 'daemon-reload']]
    assert 'the state files and the config file stay' in out
    status, out, err = install(system, capsys, '--uninstall-service')   # nothing there: no error
    assert status == 0 and '(exit 1: Failed to disable unit: Unit file ddkit.timer does not exist.)' in out, err


def test_a_command_that_fails_stops_the_install_and_is_named(system, capsys, monkeypatch):
    monkeypatch.setenv('SERVICE_FAIL', 'systemctl enable')
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf))
    assert status == 1
    assert 'systemctl enable --now ddkit.timer failed (exit 1): systemctl: failed as the test asked' in err


def test_execstart_words_are_quoted_as_systemd_splits_them(system, capsys, tmp_path):
    odd = tmp_path / 'my ddkit 100%' / 'bin'
    odd.mkdir(parents=True)
    shutil.copy(tool_path('ddkit'), str(odd / 'ddkit.py'))
    assert service.systemd_word('/a b/100%$x') == '"/a b/100%%$$x"'
    assert service.systemd_word('/plain/path') == '/plain/path'
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf),
                               script=str(odd / 'ddkit.py'))
    assert status == 0, err
    unit = system.root / 'etc' / 'systemd' / 'system' / 'ddkit.service'
    assert '"%s/ddkit.py"' % str(odd).replace('%', '%%') in unit.read_text()
    assert analyze([unit, unit.with_suffix('.timer')]) == (0, '')


@pytest.mark.parametrize('python, hidden', [
    ('/root/.pyenv/versions/3.12.1/bin/python3', '/root/.pyenv/versions/3.12.1'),
    ('/home/me/venv/bin/python', '/home/me/venv'),
    ('/usr/bin/python3', None),
])
def test_a_home_holding_python_is_hidden_but_what_the_unit_needs(system, capsys, python, hidden):
    status, out, err = install(system, capsys, '--install-service', '--dry-run', '--config', str(system.conf),
                               python=python, script='/opt/ddkit/bin/ddkit.py')
    assert status == 0, err
    # the config, under /tmp here, is bound too (test_a_system_service_sees_a_config_kept_in_tmp)
    bound = sorted([hidden, str(system.conf)] if hidden else [str(system.conf)])
    assert 'ProtectHome=%s' % ('tmpfs' if hidden else 'yes') in out and 'BindReadOnlyPaths=%s\n' % ' '.join(bound) in out


# --- the config file ------------------------------------------------------------------------------
def test_a_config_readable_by_others_is_made_its_owners_alone(system, capsys):
    system.conf.chmod(0o644)
    status, out, err = install(system, capsys, '--install-service', '--dry-run', '--config', str(system.conf))
    assert status == 0 and 'chmod 600 %s' % system.conf in out
    assert stat.S_IMODE(system.conf.stat().st_mode) == 0o644   # a dry run changes nothing
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf))
    assert status == 0, err
    assert stat.S_IMODE(system.conf.stat().st_mode) == 0o600


def test_a_config_others_can_change_is_refused_nothing_made(system, capsys):
    system.conf.chmod(0o620)
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf))
    assert status == 2 and 'can be changed by another user: refused' in err
    assert system.files() == [] and system.calls() == []


def test_the_root_service_refuses_a_config_root_does_not_own(system, capsys):
    if os.geteuid() != 0:
        needs.missing('root, to give the config file to another user')
    os.chown(str(system.conf), 65534, 65534)
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf))
    assert status == 2 and 'refused' in err and 'chown root %s' % system.conf in err
    assert system.files() == []


def test_no_secret_in_any_unit_task_plist_or_command(system, capsys, monkeypatch):
    monkeypatch.setenv('DDNS_AUTH_KEY', SECRET)   # a setting of the environment the service never sees
    shown = []
    for here, args in (('linux', []), ('linux', ['--user']), ('macos', []), ('macos', ['--user'])):
        status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf), *args, here=here)
        assert status == 0, err
        shown.append(out + err)
        assert 'the service does not see your DDNS_AUTH_KEY: put those settings in %s' % system.conf in out
    for platform in service.PLATFORMS:
        status, out, err = install(system, capsys, '--install-service', '--dry-run', '--platform', platform,
                                   '--config', str(system.conf))
        shown.append(out + err)
    written = [(system.root / name).read_text() for name in system.files()]
    assert written and not [text for text in written + shown if SECRET in text]
    assert not [call for call in system.calls() if SECRET in ' '.join(call)]


# --- dry runs of every system, from this one --------------------------------------------------------
@pytest.mark.parametrize('platform', service.PLATFORMS)
def test_a_dry_run_shows_every_file_and_command_and_changes_nothing(system, capsys, platform):
    system.conf.chmod(0o640)
    status, out, err = install(system, capsys, '--install-service', '--dry-run', '--platform', platform,
                               '--config', str(system.conf))
    assert status == 0, err
    assert system.files() == [] and system.calls() == [] and stat.S_IMODE(system.conf.stat().st_mode) == 0o640
    assert out.startswith('ddkit --install-service for %s (system-wide): a dry run, nothing is changed\n' % platform)
    assert out.endswith('Dry run: nothing was changed.\n')
    shown = {'linux': ['write /etc/systemd/system/ddkit.service', '    ExecStart=', 'write /etc/systemd/system/ddkit.timer',
                       '    OnUnitActiveSec=300s', 'run: systemctl daemon-reload', 'run: systemctl enable --now ddkit.timer'],
             'windows': ['write ddkit.xml (UTF-16):', '    <Task version="1.3"', 'pythonw.exe</Command>',
                         'run: icacls %s /inheritance:r /grant:r *S-1-5-18:F *S-1-5-32-544:F' % system.conf,
                         'run: schtasks /Create /TN ddkit /XML ddkit.xml /F'],
             'macos': ['run: launchctl bootout system/ddkit', 'write /Library/LaunchDaemons/ddkit.plist (mode 0644):',
                       '<key>StartInterval</key>', 'run: launchctl bootstrap system /Library/LaunchDaemons/ddkit.plist']}
    for text in shown[platform]:
        assert text in out


def test_the_command_dispatches_the_switches_and_its_normal_run_loads_none_of_it(system, box, tmp_path):
    done = run_tool('ddkit', ['--install-service', '--dry-run', '--platform', 'macos', '--user', '--every', '600',
                              '--config', str(system.conf)])
    assert done.returncode == 0, done.stderr
    assert 'launchctl bootstrap gui/%d %s/Library/LaunchAgents/ddkit.plist' % (os.geteuid(), os.path.expanduser('~')) \
        in done.stdout and '<integer>600</integer>' in done.stdout
    assert run_tool('ddkit', ['--install-service', '--help']).stdout.startswith('usage: ')
    env = dict(box.env_of(PROVIDER, str(tmp_path)), DDNS_PROVIDER=PROVIDER)
    done = run_tool('ddkit', env=env, flags=['-X', 'importtime'])
    assert done.returncode == 0, done.stderr
    assert 'ddkit.service' not in done.stderr and 'ddkit.updater' in done.stderr


def test_without_the_module_the_command_says_where_a_service_comes_from(tmp_path):
    """A router's packages may leave ddkit.service out: the command says so, no traceback."""
    done = subprocess.run([sys.executable, '-c', 'import runpy, sys; sys.modules["ddkit.service"] = None; '
                           'sys.argv = [sys.argv[1], "--install-service"]; runpy.run_path(sys.argv[0], run_name="__main__")',
                           tool_path('ddkit')], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2 and done.stderr == (
        "ddkit: --install-service is for a PC, a NAS or a server; on OpenWrt the package's service runs the "
        "records (/etc/init.d/ddkit)\n"), done.stderr


@pytest.mark.parametrize('args, message', [
    (['--install-service', '--every', '59'], '--every takes whole seconds from 60 to 604800'),
    (['--install-service', '--every', '1' * 8], '--every takes whole seconds'),
    (['--install-service', '--dry-run', '--platform', 'bsd'], '--platform takes linux, windows, macos'),
    (['--install-service', '--platform', 'windows'], '--platform windows goes with --dry-run'),
    (['--install-service', '--uninstall-service'], 'give --install-service or --uninstall-service'),
    (['--install-service', '--uci', 'home'], 'give --install-service or --uninstall-service'),
    (['--install-service', '--config', '/nonexistent/ddkit.conf'], 'cannot read config file /nonexistent/ddkit.conf'),
])
def test_bad_input_exits_2_and_changes_nothing(system, capsys, args, message):
    status, out, err = install(system, capsys, *args)
    assert status == 2 and message in err, err
    assert system.files() == [] and system.calls() == []


def test_without_config_the_uci_file_else_a_refusal(system, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv('DDNS_UCI_FILE', str(tmp_path / 'absent'))
    status, out, err = install(system, capsys, '--install-service', '--dry-run')
    assert status == 2 and 'give --config FILE' in err and 'there is no UCI file' in err
    uci = tmp_path / 'ddkit'
    uci.write_text("config ddkit 'home'\n\toption enabled '1'\n")
    uci.chmod(0o600)
    monkeypatch.setenv('DDNS_UCI_FILE', str(uci))
    status, out, err = install(system, capsys, '--install-service', '--dry-run')
    assert status == 0, err
    assert '--all --state-dir' in out and '--config' not in out.split('ExecStart=')[1].split('\n')[0]
    assert 'Environment=DDNS_UCI_FILE=%s' % uci in out


def test_a_config_of_one_record_runs_without_all(system, capsys):
    system.conf.write_text('provider=%s\nrecord_name=home.example.com\n' % PROVIDER)
    status, out, err = install(system, capsys, '--install-service', '--dry-run', '--config', str(system.conf))
    assert status == 0, err
    assert 'ddkit.py --config %s --state-dir' % system.conf in out


# --- Windows: Task Scheduler -----------------------------------------------------------------------
# The parts of the Task Scheduler schema (its XSD, in Microsoft's "Task Scheduler Schema" page) the
# tasks use: each element's children, in order where the schema gives a sequence (None: text). The
# XSD itself is not in this repository; the tasks were checked against it once with an XSD validator.
SEQUENCE_BASE = ['Enabled', 'StartBoundary', 'EndBoundary', 'Repetition', 'ExecutionTimeLimit']
TASK_SCHEMA = {
    'Task': ('all', ['RegistrationInfo', 'Triggers', 'Settings', 'Data', 'Principals', 'Actions']),
    'RegistrationInfo': ('all', ['URI', 'SecurityDescriptor', 'Source', 'Date', 'Author', 'Version', 'Description',
                                 'Documentation']),
    'Triggers': ('choice', ['BootTrigger', 'RegistrationTrigger', 'IdleTrigger', 'TimeTrigger', 'EventTrigger',
                            'LogonTrigger', 'SessionStateChangeTrigger', 'CalendarTrigger']),
    'BootTrigger': ('sequence', SEQUENCE_BASE + ['Delay']),
    'TimeTrigger': ('sequence', SEQUENCE_BASE + ['RandomDelay']),
    'LogonTrigger': ('sequence', SEQUENCE_BASE + ['UserId', 'Delay']),
    'EventTrigger': ('sequence', SEQUENCE_BASE + ['Subscription', 'Delay', 'PeriodOfOccurrence', 'NumberOfOccurrences',
                                                  'MatchingElement', 'ValueQueries']),
    'Repetition': ('all', ['Interval', 'Duration', 'StopAtDurationEnd']),
    'Principals': ('sequence', ['Principal']),
    'Principal': ('all', ['UserId', 'LogonType', 'GroupId', 'DisplayName', 'RunLevel', 'ProcessTokenSidType',
                          'RequiredPrivileges']),
    'Settings': ('all', ['AllowStartOnDemand', 'RestartOnFailure', 'MultipleInstancesPolicy', 'DisallowStartIfOnBatteries',
                         'StopIfGoingOnBatteries', 'AllowHardTerminate', 'StartWhenAvailable', 'NetworkProfileName',
                         'RunOnlyIfNetworkAvailable', 'WakeToRun', 'Enabled', 'Hidden', 'DeleteExpiredTaskAfter',
                         'IdleSettings', 'NetworkSettings', 'ExecutionTimeLimit', 'Priority', 'RunOnlyIfIdle',
                         'UseUnifiedSchedulingEngine', 'DisallowStartOnRemoteAppSession']),
    'IdleSettings': ('all', ['Duration', 'WaitTimeout', 'StopOnIdleEnd', 'RestartOnIdle']),
    'Actions': ('choice', ['Exec', 'ComHandler', 'SendEmail', 'ShowMessage']),
    'Exec': ('all', ['Command', 'Arguments', 'WorkingDirectory']),
}
REQUIRED = {'Task': ['Actions'], 'Repetition': ['Interval'], 'Principals': ['Principal'], 'Exec': ['Command'],
            'EventTrigger': ['Subscription']}
VALUES = {'MultipleInstancesPolicy': ('Parallel', 'Queue', 'IgnoreNew', 'StopExisting'),
          'LogonType': ('S4U', 'Password', 'InteractiveToken', 'InteractiveTokenOrPassword'),
          'RunLevel': ('LeastPrivilege', 'HighestAvailable')}
BOOLEANS = ('Enabled', 'StopAtDurationEnd', 'DisallowStartIfOnBatteries', 'StopIfGoingOnBatteries',
            'StartWhenAvailable', 'StopOnIdleEnd')


def minutes_of(duration):
    """An xs:duration of the forms the tasks use (PT1M, PT30S, PT10M, PT2H) in seconds."""
    assert duration.startswith('PT') and duration[-1] in 'SMH' and duration[2:-1].isdigit(), duration
    return int(duration[2:-1]) * {'S': 1, 'M': 60, 'H': 3600}[duration[-1]]


def schema_problems(xml):
    """What in the task's XML the schema's structure refuses (TASK_SCHEMA): [] when it keeps to it."""
    root = ElementTree.fromstring(xml.replace('encoding="UTF-16"', 'encoding="UTF-8"').encode('utf-8'))
    problems = []
    if root.tag != NS + 'Task' or root.get('version') not in (None, '1.3'):
        problems.append('the root is %s version %s' % (root.tag, root.get('version')))
    ids = [p.get('id') for p in root.iter(NS + 'Principal')]
    actions = root.find(NS + 'Actions')
    if actions is not None and actions.get('Context') not in ids:
        problems.append('Actions Context %r names no Principal id %s' % (actions.get('Context'), ids))

    def check(element, name):
        kind, allowed = TASK_SCHEMA.get(name, (None, None))
        children = [child.tag[len(NS):] for child in element]
        if allowed is None:
            if children:
                problems.append('%s holds elements %s' % (name, children))
            text = element.text or ''
            if name in VALUES and text not in VALUES[name] or name in BOOLEANS and text not in ('true', 'false'):
                problems.append('%s is %r' % (name, text))
            if name in ('Interval', 'Delay', 'ExecutionTimeLimit') and not (
                    name != 'Interval' or 60 <= minutes_of(text) <= 31 * 86400):
                problems.append('Interval %s is not from PT1M to P31D' % text)
            if name == 'Command' and not 0 < len(text) <= 260:
                problems.append('Command is %d characters' % len(text))
            return
        unknown = [c for c in children if c not in allowed]
        twice = [c for c in set(children) if children.count(c) > 1 and kind != 'choice']
        order = [allowed.index(c) for c in children if c in allowed]
        if unknown or twice or kind == 'sequence' and order != sorted(order):
            problems.append('%s holds %s (the schema: %s of %s)' % (name, children, kind, allowed))
        missing = [c for c in REQUIRED.get(name, []) if c not in children]
        if missing:
            problems.append('%s lacks %s' % (name, missing))
        for child in element:
            check(child, child.tag[len(NS):])
    check(root, 'Task')
    return problems


def task_of(system, name='ddkit'):
    return system.held()['tasks'][name]


def windows_python(tmp_path):
    folder = tmp_path / 'Python312'
    folder.mkdir(exist_ok=True)
    (folder / 'python.exe').write_text('')
    (folder / 'pythonw.exe').write_text('')
    return str(folder / 'python.exe')


@pytest.mark.parametrize('elevated', [True, False], ids=['SYSTEM', 'user'])
def test_windows_task_made_with_schtasks_xml_runs_pythonw_every_interval_and_at_start(system, capsys, tmp_path,
                                                                                     monkeypatch, elevated):
    monkeypatch.setenv('USERNAME', 'me')
    monkeypatch.setenv('USERDOMAIN', 'PC')
    python = windows_python(tmp_path)
    status, out, err = install(system, capsys, '--install-service', '--every', '90', '--config', str(system.conf),
                               here='windows', elevated=elevated, python=python)
    assert status == 0, err
    grant = ['*S-1-5-18:F', '*S-1-5-32-544:F'] if elevated else ['PC\\me:F']
    calls = system.calls()
    assert calls[0] == ['icacls', str(system.conf), '/inheritance:r', '/grant:r'] + grant
    assert calls[1][:5] == ['schtasks', '/Create', '/TN', 'ddkit', '/XML'] and calls[1][6:] == ['/F']
    assert not os.path.exists(calls[1][5])   # the XML file went with the install
    xml = task_of(system)
    assert schema_problems(xml) == []
    root = ElementTree.fromstring(xml.replace('UTF-16', 'UTF-8').encode())
    exec_ = root.find(NS + 'Actions/' + NS + 'Exec')
    assert exec_.find(NS + 'Command').text == str(tmp_path / 'Python312' / 'pythonw.exe')
    assert exec_.find(NS + 'Arguments').text == '%s --all --config %s --quiet' % (tool_path('ddkit'), system.conf)
    triggers = [t.tag[len(NS):] for t in root.find(NS + 'Triggers')]
    assert triggers == ['BootTrigger' if elevated else 'LogonTrigger', 'TimeTrigger']
    assert root.find('.//%sRepetition/%sInterval' % (NS, NS)).text == 'PT2M'   # 90 s: whole minutes
    principal = root.find('.//%sPrincipal' % NS)
    assert principal.find(NS + 'UserId').text == ('S-1-5-18' if elevated else 'PC\\me')
    assert (principal.find(NS + 'LogonType') is None) == elevated
    assert 'Task Scheduler counts whole minutes' in out
    assert SECRET not in xml


def test_schema_check_refuses_what_the_schema_refuses(system, capsys, tmp_path):
    """The structure check above can fail: each of these breaks a rule of the schema."""
    target = service.Target('windows', True, 'C:\\Python312\\pythonw.exe', 'C:\\ddkit\\bin\\ddkit.py')
    xml = service.task_xml('ddkit', [target.python] + target.code + ['--all'], 300, target)
    assert schema_problems(xml) == []
    for broken in (xml.replace('<Enabled>true</Enabled><Delay>PT1M</Delay>', '<Delay>PT1M</Delay><Enabled>true</Enabled>'),
                   xml.replace('PT5M', 'PT30S'), xml.replace('Context="Author"', 'Context="Other"'),
                   xml.replace('<StartWhenAvailable>true', '<StartWhenAvailable>yes'),
                   xml.replace('C:\\Python312', 'C:\\' + 'x' * 260), xml.replace('<Exec>', '<Exec><Program/>')):
        assert schema_problems(broken), broken


def test_windows_second_install_replaces_and_uninstall_removes_the_task(system, capsys, tmp_path):
    python = windows_python(tmp_path)
    for every in ('300', '600'):
        status, out, err = install(system, capsys, '--install-service', '--every', every, '--config',
                                   str(system.conf), here='windows', python=python)
        assert status == 0, err
    assert list(system.held()['tasks']) == ['ddkit'] and '<Interval>PT10M</Interval>' in task_of(system)
    status, out, err = install(system, capsys, '--uninstall-service', here='windows')
    assert status == 0, err
    assert system.held()['tasks'] == {} and system.calls()[-1] == ['schtasks', '/Delete', '/TN', 'ddkit', '/F']
    assert system.conf.exists() and system.files() == []
    status, out, err = install(system, capsys, '--uninstall-service', here='windows')   # none: said
    assert status == 1 and 'ERROR: The system cannot find the file specified.' in err


def test_windows_needs_a_config_file_and_pythonw(system, capsys, tmp_path):
    status, out, err = install(system, capsys, '--install-service', here='windows', python=windows_python(tmp_path))
    assert status == 2 and 'give --config FILE' in err
    (tmp_path / 'Python312' / 'pythonw.exe').unlink()
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf), here='windows',
                               python=str(tmp_path / 'Python312' / 'python.exe'))
    assert status == 1 and 'pythonw.exe not found' in err
    assert system.calls() == []


def egress_task(system, capsys, words, install_it=True, dry_run=False, platform=None, elevated=True, python=None):
    capsys.readouterr()
    status = service.task_main('egress6_win', tool_path('egress6_win'), words, install_it, dry_run, platform,
                               elevated=elevated, python=python, here='windows')
    out = capsys.readouterr()
    return status, out.out, out.err


def test_egress6_win_task_reapplies_the_choice_at_logon_and_when_a_network_connects(system, capsys, tmp_path):
    python = windows_python(tmp_path)
    status, out, err = egress_task(system, capsys, ['ct', 'n', 'n'], elevated=False, python=python)
    assert status == 1 and 'runs as SYSTEM' in err and system.calls() == []
    status, out, err = egress_task(system, capsys, ['ct', 'n', 'n', '--persistent'], python=python)
    assert status == 0, err
    xml = task_of(system, 'egress6_win')
    assert schema_problems(xml) == []
    root = ElementTree.fromstring(xml.replace('UTF-16', 'UTF-8').encode())
    assert [t.tag[len(NS):] for t in root.find(NS + 'Triggers')] == ['LogonTrigger', 'EventTrigger']
    query = ElementTree.fromstring(root.find('.//%sSubscription' % NS).text)
    select = query.find('Query/Select')
    assert select.get('Path') == 'Microsoft-Windows-NetworkProfile/Operational'
    assert "Provider[@Name='Microsoft-Windows-NetworkProfile'] and EventID=10000" in select.text
    assert root.find('.//%sUserId' % NS).text == 'S-1-5-18'
    assert root.find('.//%sArguments' % NS).text == '%s ct n n --persistent' % tool_path('egress6_win')
    status, out, err = egress_task(system, capsys, [], install_it=False)
    assert status == 0 and system.held()['tasks'] == {}


def test_egress6_win_install_task_from_its_command_line(tmp_path):
    env = {'PATH': STANDINS + os.pathsep + os.environ['PATH'], 'SERVICE_CALL_LOG': str(tmp_path / 'calls.jsonl'),
           'SERVICE_STATE': str(tmp_path / 'held.json'), 'SERVICE_STANDIN_PYTHON': sys.executable}
    done = run_tool('egress6_win', ['--install-task', 'cm', 'y', '--dry-run', '--platform', 'windows',
                                    '--lookup-url', 'https://lookup.example/'], env=env)
    assert done.returncode == 0, done.stderr
    assert '%s cm y n --lookup-url https://lookup.example/</Arguments>' % tool_path('egress6_win') in done.stdout
    assert 'EventID=10000' in done.stdout and 'run: schtasks /Create /TN egress6_win /XML egress6_win.xml /F' in done.stdout
    assert not (tmp_path / 'calls.jsonl').exists()   # a dry run runs nothing
    for args, message in ((['--install-task', '--dry-run', '--platform', 'windows'], 'needs the operator'),
                          (['--install-task', 'xx', '--dry-run', '--platform', 'windows'], 'argument 1 (operator)'),
                          (['--install-task', 'ct'], 'makes a Windows task'),
                          (['ct', '--platform', 'windows'], '--platform goes with --install-task')):
        done = run_tool('egress6_win', args, env=env)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
    assert not (tmp_path / 'calls.jsonl').exists()


# --- macOS: launchd ----------------------------------------------------------------------------------
@pytest.mark.parametrize('elevated', [True, False], ids=['daemon', 'agent'])
def test_macos_launchd_job_with_start_interval_loaded_with_bootstrap(system, capsys, elevated):
    status, out, err = install(system, capsys, '--install-service', '--every', '600', '--config', str(system.conf),
                               here='macos', elevated=elevated)
    assert status == 0, err
    path = '/Library/LaunchDaemons/ddkit.plist' if elevated else \
        os.path.join(os.path.expanduser('~'), 'Library/LaunchAgents/ddkit.plist')
    assert system.files() == [path.lstrip('/')]
    written = (system.root / path.lstrip('/')).read_bytes()
    job = plistlib.loads(written)
    assert plistlib.loads(plistlib.dumps(job)) == job
    assert job == {'Label': 'ddkit', 'StartInterval': 600, 'RunAtLoad': True, 'ProcessType': 'Background', 'Umask': 63,
                   'ProgramArguments': [sys.executable, tool_path('ddkit'), '--all', '--config', str(system.conf), '--quiet']}
    domain = 'system' if elevated else 'gui/%d' % os.geteuid()
    assert system.calls() == [['launchctl', 'bootout', domain + '/ddkit'], ['launchctl', 'bootstrap', domain, path]]
    assert system.held()['loaded'] == [domain + '/ddkit']
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf), here='macos',
                               elevated=elevated)
    assert status == 0 and system.held()['loaded'] == [domain + '/ddkit']   # unloaded, then loaded again
    assert '<integer>300</integer>' in (system.root / path.lstrip('/')).read_text()
    status, out, err = install(system, capsys, '--uninstall-service', here='macos', elevated=elevated)
    assert status == 0 and system.files() == [] and system.held()['loaded'] == []


def test_a_system_service_sees_a_config_kept_in_tmp(system, capsys, tmp_path):
    """PrivateTmp= gives the service an empty /tmp of its own: a config file under /tmp (as here) is
    bound into it, read-only, or the service would find none; a home stays hidden but for what it holds."""
    assert str(system.conf).startswith(tuple(service.PRIVATE_TMP))
    status, out, err = install(system, capsys, '--install-service', '--config', str(system.conf))
    assert status == 0, err
    lines = (system.root / 'etc' / 'systemd' / 'system' / 'ddkit.service').read_text().splitlines()
    bound = [line for line in lines if line.startswith('BindReadOnlyPaths=')]
    assert len(bound) == 1 and str(system.conf) in bound[0].split('=', 1)[1].split(), lines
    assert 'PrivateTmp=yes' in lines
