"""`ddkit --install-service` and `--uninstall-service`, `egress6_win --install-task`: the tool run on a
schedule the way each system runs one. Linux: a oneshot systemd service and its timer; Windows: a
Task Scheduler task (schtasks /Create /XML) running pythonw.exe; macOS: a launchd agent, or daemon
as root. Each install is a list of steps (write a file, run a command, change a mode), which --dry-run
prints for any of the three systems and an install carries out; a second install replaces the first,
an uninstall removes all it made but the state and the config file. No secret goes into a unit, a task
or a command line: the config file stays the one place, its owner's alone. Only these switches load
this module (bin/ddkit.py, bin/egress6_win.py): no run of the records imports it."""

import sys

from ddkit import Failure, UsageError, decimal, settings, state
from ddkit.native import os
from ddkit.settings import Setting, Switch

PLATFORMS = ('linux', 'windows', 'macos')
EVERY_DEFAULT, EVERY_MIN, EVERY_MAX = 300, 60, 7 * 86400   # seconds, as ddkit --every
NAME = 'ddkit'
SUMMARY = 'ddkit: keep DNS records equal to this host\'s public IP'
STATE_DIR = '/var/lib/ddkit'   # the system unit's StateDirectory=ddkit
HOMES = ('/home', '/root', '/run/user')   # what ProtectHome= hides
PRIVATE_TMP = ('/tmp', '/var/tmp')   # what PrivateTmp= replaces with the service's own, empty
SYSTEM_SID, ADMINS_SID = 'S-1-5-18', 'S-1-5-32-544'   # LocalSystem, BUILTIN\Administrators: any language
TASK_NS = 'http://schemas.microsoft.com/windows/2004/02/mit/task'
NETWORK_LOG = 'Microsoft-Windows-NetworkProfile/Operational'   # event 10000: a network connected

SETTINGS = [
    Setting('every', str(EVERY_DEFAULT), help='seconds between runs (%d to %d)' % (EVERY_MIN, EVERY_MAX),
            metavar='SECONDS'),
    Setting('platform', help='with --dry-run: what the install would do on that system (%s)' % ', '.join(PLATFORMS),
            metavar='NAME', choices=PLATFORMS),
]
SWITCHES = [
    Switch('install_service', help='run ddkit --all on a schedule: a systemd timer, a Windows task, a launchd job'),
    Switch('uninstall_service', help='remove what --install-service made (the state and the config stay)'),
    Switch('user', help='for you alone (systemd --user, a launchd agent, a task at your logon), not system-wide'),
    Switch('dry_run', help='print every file and command, change nothing'),
]
HELP = ('Install the ddkit command as a service of this system, run every SECONDS with the records of '
        '--config FILE (else of the UCI file): Linux a systemd timer, Windows a Task Scheduler task '
        '(as SYSTEM when elevated), macOS a launchd job (a daemon as root). docs/schedule.md tells more.')


class Steps(list):
    """What an install does, in order: ('write', path, text, mode), ('remove', path), ('chmod', path,
    mode), ('run', argv, may_fail: its failure is shown, no error), ('task', name, XML: schtasks
    /Create), ('say', text)."""

    def write(self, path, text, mode=0o644):
        self.append(('write', path, text, mode))

    def run(self, argv, may_fail=False):
        self.append(('run', list(argv), may_fail))

    def say(self, text):
        self.append(('say', text))


class Target:
    """Where and for whom: platform, system (for everyone: root, SYSTEM) or not, and this system's
    facts an install needs (home, the user, the interpreter, and code: what runs the tool after it, a
    script's path or -m and a module)."""

    def __init__(self, platform, system, python, code, root='', home=None, user=None, uid=None, here=None):
        self.platform, self.system, self.python = platform, system, python
        self.code = [code] if isinstance(code, str) else list(code)
        self.here = here or platform   # the system this runs on
        self.root = root   # tests only: the directory every file path is taken under
        self.home = home or os.path.expanduser('~')
        self.user, self.uid = user, uid

    def path(self, path):
        """Where a file of the install is on this system (the root a test gives prefixed)."""
        return self.root + path if self.root else path


def main(argv, tool='ddkit', script=None, root='', elevated=None, python=None, runner=None, here=None):
    """ddkit --install-service or --uninstall-service: the exit status. root (the directory every path
    is taken under), elevated, python, runner (argv -> (status, stdout, stderr)) and here (the system
    this runs on) are for the tests: the command line gives none of them."""
    try:
        args = settings.parse_args(argv, SETTINGS, SWITCHES, files=True)
        if args is None:
            from ddkit import helptext
            print(helptext.usage(settings.prog(tool), HELP, SETTINGS, SWITCHES, words='--install-service [options]'))
            return 0
        install = 'install_service' in args.on
        if install == ('uninstall_service' in args.on) or args.uci or args.positional:
            raise UsageError('give --install-service or --uninstall-service (with --config FILE, --every '
                             'SECONDS, --user, --dry-run); see --install-service --help')
        dry_run = 'dry_run' in args.on
        target = target_of(args, dry_run, elevated, python, script, root, here)
        steps = Steps()
        if target.platform != target.here:
            steps.say('note: the paths are this system\'s: on %s, those of its Python and ddkit' % target.platform)
        if install:
            every = seconds_of(args.values.get('every', str(EVERY_DEFAULT)))
            if target.platform == 'windows':
                check_pythonw(target, dry_run)
            config, words = config_of(tool, args.config, target, steps, dry_run)
            command = [target.python] + target.code + words
            INSTALLS[target.platform](steps, target, command, every, config)
        else:
            UNINSTALLS[target.platform](steps, target)
        return carry_out(steps, dry_run, runner, tool, install, target)
    except Failure as e:
        print('%s: %s' % (tool, e), file=sys.stderr)
        return e.exit_status


def task_main(tool, script, words, install, dry_run, platform, elevated=None, python=None, runner=None, here=None):
    """egress6_win --install-task CODE ... or --uninstall-task: a task that runs `words` (the tool's
    arguments, checked by the tool) as SYSTEM at each logon and whenever a network connects."""
    try:
        target = target_of_platform(platform, dry_run, elevated, python, script, '', here, tasks=True)
        if target.platform != 'windows':
            raise UsageError('%s --install-task makes a Windows task: on another system give --dry-run '
                             '--platform windows' % tool)
        if not target.system and not dry_run:
            raise Failure('a task that changes addresses runs as SYSTEM: start %s --install-task from an '
                          'elevated Command Prompt ("Run as administrator")' % tool)
        target.system = True
        steps = Steps()
        if install:
            check_pythonw(target, dry_run)
            xml = task_xml(tool, [target.python] + target.code + words, None, target, network=True)
            schtasks_create(steps, tool, xml)
        else:
            steps.run(['schtasks', '/Delete', '/TN', tool, '/F'])
        return carry_out(steps, dry_run, runner, tool, install, target, task=True)
    except Failure as e:
        print('%s: %s' % (tool, e), file=sys.stderr)
        return e.exit_status


def code_of(code_file, spec):
    """What the service runs after python: the tool's module (-m), where a package installed it (its
    command a launcher, an .exe on Windows; its module's own folder must not come first on the path),
    else the file started (a checkout's bin/<tool>.py, the single file). code_file and spec: the tool's
    __file__ and __spec__."""
    started, name = sys.argv[0], getattr(spec, 'name', None)
    if name and (not started.endswith('.py') or os.path.realpath(started) == os.path.realpath(code_file)):
        return ['-m', name]
    return [os.path.realpath(started if started.endswith('.py') and os.path.isfile(started) else code_file)]


# --- what is installed, and for whom -------------------------------------------------------------
def target_of(args, dry_run, elevated, python, script, root, here):
    platform = args.values.get('platform')
    if platform is not None and platform not in PLATFORMS:
        raise UsageError('--platform takes %s, not %r' % (', '.join(PLATFORMS), platform[:20]))
    target = target_of_platform(platform, dry_run, elevated, python, script, root, here)
    if 'user' in args.on:   # as root too: else a system service when elevated, this user's when not
        target.system = False
    return target


def target_of_platform(platform, dry_run, elevated, python, script, root, here, tasks=False):
    here = here or this_platform()
    if platform is not None and platform != here and not dry_run:
        raise UsageError('--platform %s goes with --dry-run: an install is made on its own system' % platform)
    platform = platform or here
    if platform is None:
        raise UsageError('this system (%s) has no service form here: give --dry-run --platform %s to see '
                         'one' % (sys.platform, '|'.join(PLATFORMS)))
    if platform == 'linux' and here == 'linux' and not dry_run and not tasks and not root:   # this host's
        if os.path.exists('/etc/openwrt_release'):
            raise UsageError('on OpenWrt the package\'s service runs the records (/etc/init.d/ddkit, '
                             'docs/schedule.md): nothing to install')
        if not os.path.isdir('/run/systemd/system'):
            raise Failure('this system does not run systemd: run ddkit --all --every 300 under its own '
                          'service manager, or from cron (docs/schedule.md)')
    if elevated is None:
        elevated = is_elevated(here)
    python = python or sys.executable
    if platform == 'windows':   # beside python.exe, the same Python without a console window
        python = os.path.join(os.path.dirname(python), 'pythonw.exe')
    user = os.environ.get('USERNAME') if platform == 'windows' else None
    if user and os.environ.get('USERDOMAIN'):
        user = '%s\\%s' % (os.environ['USERDOMAIN'], user)
    uid = os.geteuid() if hasattr(os, 'geteuid') else 0
    return Target(platform, elevated, python, script or [os.path.abspath(sys.argv[0])], root,
                  user=user or os.environ.get('USER') or 'user', uid=uid, here=here)


def this_platform():
    return 'windows' if os.name == 'nt' else 'macos' if sys.platform == 'darwin' else \
        'linux' if sys.platform.startswith('linux') else None


def is_elevated(platform):
    """Root, or on Windows an elevated (administrator) process."""
    if platform != 'windows':
        return hasattr(os, 'geteuid') and os.geteuid() == 0
    try:
        import ctypes
        return bool(ctypes.windll.shell32.IsUserAnAdmin())
    except (ImportError, AttributeError, OSError):
        return False


def seconds_of(text):
    number = decimal(text) if len(text) <= 7 else None
    if number is None or not EVERY_MIN <= number <= EVERY_MAX:
        raise UsageError('--every takes whole seconds from %d to %d, not %r' % (EVERY_MIN, EVERY_MAX, text[:20]))
    return number


def config_of(tool, given, target, steps, dry_run):
    """(the config file the service reads, the tool's arguments for it): --config FILE, else the UCI
    file. Checked as the tool checks it when it reads it (ddkit.state.refuse_foreign), and for the
    user the service runs as (root for a system service); one others can read is made its owner's
    alone, a step of the install. A dry run for another system may name a file of that system, not
    read here."""
    uci = given is None
    path = settings.uci_path(tool) if uci else given
    here = target.platform == target.here
    if here:
        path = os.path.abspath(os.path.expanduser(path))
    if uci and (target.platform == 'windows' or not os.path.isfile(path)):
        raise UsageError('give --config FILE: the file of the records\' settings (docs/config.md)%s'
                         % ('' if target.platform == 'windows' else '; there is no UCI file %s' % path))
    try:
        with open(path, 'rb') as f:
            st, text = os.fstat(f.fileno()), f.read(1 << 20).decode('utf-8', 'replace')
    except OSError as e:
        if here or not dry_run:
            raise UsageError('cannot read config file %s: %s' % (path, e.strerror or e))
        st, text = None, None
        steps.say('note: %s is not read here: its records are taken to be [name] blocks (--all)' % path)
    if st is not None:
        state.refuse_foreign('config file', path, st)
        if os.name == 'posix' and target.platform != 'windows' and target.system and st.st_uid != 0:
            raise UsageError('config file %s belongs to uid %d, and the service runs as root, which reads only '
                             'its own: fix: chown root %s' % (path, st.st_uid, path))
        if os.name == 'posix' and target.platform != 'windows' and st.st_mode & 0o077:
            steps.append(('chmod', path, 0o600))
    if target.platform == 'windows':   # the owner alone: SYSTEM and the administrators, or the user
        steps.run(['icacls', path, '/inheritance:r', '/grant:r'] + (
            ['*%s:F' % SYSTEM_SID, '*%s:F' % ADMINS_SID] if target.system else ['%s:F' % target.user]))
    unseen = sorted(name for name in os.environ if name.startswith('DDNS_') and name != 'DDNS_UCI_FILE')
    if unseen:
        steps.say('note: the service does not see your %s: put those settings in %s' % (', '.join(unseen), path))
    several = uci or text is None or any(line.strip().startswith('[') for line in text.splitlines())
    return path, (['--all'] if several else []) + ([] if uci else ['--config', path])


# --- Linux: systemd ------------------------------------------------------------------------------
def systemd_dir(target):
    return '/etc/systemd/system' if target.system else os.path.join(target.home, '.config/systemd/user')


def systemctl(target, *words):
    return ['systemctl'] + ([] if target.system else ['--user']) + list(words)


def install_linux(steps, target, command, every, config):
    units = systemd_dir(target)
    replaced = os.path.exists(target.path(os.path.join(units, NAME + '.timer')))
    if target.system:
        command = command + ['--state-dir', STATE_DIR]
    service = ['[Unit]', 'Description=%s' % SUMMARY] + (   # a user manager has no network-online.target
        ['Wants=network-online.target', 'After=network-online.target'] if target.system else []) + [
        '', '[Service]', 'Type=oneshot',
               'ExecStart=%s' % ' '.join(systemd_word(w) for w in command)]
    if os.environ.get('DDNS_UCI_FILE') and '--config' not in command:
        service.append('Environment=%s' % systemd_word('DDNS_UCI_FILE=' + config))
    service += ['UMask=0077', 'NoNewPrivileges=yes']
    if target.system:   # the user manager cannot apply these without user namespaces
        pythons = (sys.base_prefix, sys.prefix) if target.python == sys.executable else \
            (os.path.dirname(os.path.dirname(target.python)),)
        hidden = sorted({d for d in [os.path.realpath(p) for p in pythons] + [config] + (
            [project_dir(target.code[0])] if target.code[0] != '-m' else []) if under(d, HOMES + PRIVATE_TMP)})
        homes = [d for d in hidden if under(d, HOMES)]
        service += ['StateDirectory=%s' % NAME, 'StateDirectoryMode=0700', 'ProtectSystem=strict',
                    'ProtectHome=%s' % ('tmpfs' if homes else 'yes'), 'PrivateTmp=yes', 'PrivateDevices=yes',
                    'ProtectKernelTunables=yes', 'ProtectKernelModules=yes', 'ProtectControlGroups=yes',
                    'RestrictSUIDSGID=yes', 'LockPersonality=yes']
        if hidden:   # a home or /tmp holds the tool, its Python or the config: those alone seen, read-only
            service.append('BindReadOnlyPaths=%s' % ' '.join(systemd_word(d) for d in hidden))
    timer = ['[Unit]', 'Description=Run %s every %d seconds' % (NAME, every), '', '[Timer]', 'OnBootSec=1min',
             'OnUnitActiveSec=%ds' % every, 'Persistent=true', '', '[Install]', 'WantedBy=timers.target']
    steps.write(os.path.join(units, NAME + '.service'), '\n'.join(service))
    steps.write(os.path.join(units, NAME + '.timer'), '\n'.join(timer))
    steps.run(systemctl(target, 'daemon-reload'))
    steps.run(systemctl(target, 'enable', '--now', NAME + '.timer'))
    if replaced:   # the new interval counts from now
        steps.run(systemctl(target, 'restart', NAME + '.timer'))
    flags = '' if target.system else ' --user'
    steps.say('%s runs every %d s: systemctl%s list-timers %s.timer; its lines: journalctl%s -u %s; %s'
              % (NAME, every, flags, NAME, flags, NAME, outcomes(target, command)))
    if not target.system:
        steps.say('it runs while you are logged in; to run it always: loginctl enable-linger %s' % target.user)


def outcomes(target, command):
    """Where the runs' outcomes show: the --status of the same records, as the user the service runs as."""
    words = [w for w in command[1 + len(target.code):] if w != '--quiet']
    return 'each record\'s last outcome: %s%s --status %s' % (
        'sudo ' if target.system and target.platform != 'windows' else '', NAME, ' '.join(
            systemd_word(w) if target.platform != 'windows' else w for w in words))


def uninstall_linux(steps, target):
    units = systemd_dir(target)
    steps.run(systemctl(target, 'disable', '--now', NAME + '.timer'), may_fail=True)
    for unit in (NAME + '.timer', NAME + '.service'):
        steps.append(('remove', os.path.join(units, unit)))
    steps.run(systemctl(target, 'daemon-reload'))


def systemd_word(word):
    """A word of ExecStart= as systemd splits it: quoted when it holds a blank or a quote; its % and $
    doubled (systemd's specifiers and variables)."""
    word = word.replace('%', '%%').replace('$', '$$')
    if word and not any(c in word for c in ' \t"\'\\;'):
        return word
    return '"%s"' % word.replace('\\', '\\\\').replace('"', '\\"')


def project_dir(script):
    """The folder a system service must see of the tool: a checkout's (bin/ and lib/), or the script's."""
    folder = os.path.dirname(os.path.realpath(script))
    return os.path.dirname(folder) if os.path.basename(folder) == 'bin' else folder


def under(path, folders):
    return any(path == d or path.startswith(d + '/') for d in folders)


# --- Windows: Task Scheduler ---------------------------------------------------------------------
def install_windows(steps, target, command, every, config):
    schtasks_create(steps, NAME, task_xml(NAME, command + ['--quiet'], every, target))
    steps.say('%s runs every %d minute%s%s: schtasks /Query /TN %s /V /FO LIST; %s%s'
              % (NAME, minutes(every), '' if minutes(every) == 1 else 's',
                 ' (Task Scheduler counts whole minutes)' if every % 60 else '', NAME, outcomes(target, command),
                 ' (as SYSTEM: its files are in the SYSTEM profile, %WINDIR%\\System32\\config\\systemprofile, '
                 'unless the config sets state_dir)' if target.system else ''))


def uninstall_windows(steps, target):   # no task, or no right to delete it: said, exit 1
    steps.run(['schtasks', '/Delete', '/TN', NAME, '/F'])


def schtasks_create(steps, name, xml):
    """schtasks /Create of the task's XML (a file of its own, UTF-16 as schtasks reads it best); /F:
    a task of that name is replaced."""
    steps.append(('task', name, xml))


def check_pythonw(target, dry_run):
    if target.here == 'windows' and not dry_run and not os.path.isfile(target.python):
        raise Failure('%s not found: it runs the task without a console window' % target.python)


def minutes(seconds):
    return -(-seconds // 60)


def task_xml(name, command, every, target, network=False):
    """The Task Scheduler XML (schema 1.3: Windows 7 and later) of a task running command[0] with the
    rest as its arguments: every `every` seconds (whole minutes) and at start-up (SYSTEM) or at the
    user's logon; network: at each logon and 30 s after a network connects (NetworkProfile event
    10000) instead. As SYSTEM when target.system, else as the user, only while logged on."""
    import subprocess   # list2cmdline: the quoting the C runtime of pythonw.exe undoes
    if len(command[0]) > 260:
        raise Failure('%s: a task\'s program path is at most 260 characters' % command[0])
    if target.system:
        principal = '<UserId>%s</UserId><RunLevel>HighestAvailable</RunLevel>' % SYSTEM_SID
    else:
        principal = '<UserId>%s</UserId><LogonType>InteractiveToken</LogonType><RunLevel>LeastPrivilege</RunLevel>' \
            % escape(target.user)
    triggers = []
    if network:
        query = ('<QueryList><Query Id="0" Path="%s"><Select Path="%s">*[System[Provider[@Name='
                 '\'Microsoft-Windows-NetworkProfile\'] and EventID=10000]]</Select></Query></QueryList>'
                 % (NETWORK_LOG, NETWORK_LOG))
        triggers += ['<LogonTrigger><Enabled>true</Enabled></LogonTrigger>',
                     '<EventTrigger><Enabled>true</Enabled><Subscription>%s</Subscription><Delay>PT30S</Delay>'
                     '</EventTrigger>' % escape(query)]
    else:
        start = '<BootTrigger><Enabled>true</Enabled><Delay>PT1M</Delay></BootTrigger>' if target.system else \
            '<LogonTrigger><Enabled>true</Enabled><UserId>%s</UserId><Delay>PT1M</Delay></LogonTrigger>' \
            % escape(target.user)
        # a start in the past: the first run comes at once (StartWhenAvailable), then every interval
        triggers += [start, '<TimeTrigger><Enabled>true</Enabled><StartBoundary>2020-01-01T00:00:00</StartBoundary>'
                     '<Repetition><Interval>PT%dM</Interval><StopAtDurationEnd>false</StopAtDurationEnd>'
                     '</Repetition></TimeTrigger>' % minutes(every)]
    lines = [
        '<?xml version="1.0" encoding="UTF-16"?>',
        '<Task version="1.3" xmlns="%s">' % TASK_NS,
        '  <RegistrationInfo>',
        '    <Description>%s (%s)</Description>' % (escape(SUMMARY if name == NAME else name + ': re-select the '
                                                         'egress IPv6 line'), escape(name)),
        '    <URI>\\%s</URI>' % escape(name),
        '  </RegistrationInfo>',
        '  <Triggers>'] + ['    ' + t for t in triggers] + [
        '  </Triggers>',
        '  <Principals>',
        '    <Principal id="Author">%s</Principal>' % principal,
        '  </Principals>',
        '  <Settings>',
        '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
        '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
        '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
        '    <StartWhenAvailable>true</StartWhenAvailable>',
        '    <IdleSettings><StopOnIdleEnd>false</StopOnIdleEnd></IdleSettings>',
        '    <ExecutionTimeLimit>PT10M</ExecutionTimeLimit>',
        '    <Enabled>true</Enabled>',
        '  </Settings>',
        '  <Actions Context="Author">',
        '    <Exec>',
        '      <Command>%s</Command>' % escape(command[0]),
        '      <Arguments>%s</Arguments>' % escape(subprocess.list2cmdline(command[1:])),
        '    </Exec>',
        '  </Actions>',
        '</Task>']
    return '\n'.join(lines)


def escape(text):
    """Text as XML character data or an attribute value."""
    return text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;').replace('"', '&quot;')


# --- macOS: launchd ------------------------------------------------------------------------------
def plist_path(target):
    return '/Library/LaunchDaemons/%s.plist' % NAME if target.system else \
        os.path.join(target.home, 'Library/LaunchAgents/%s.plist' % NAME)


def domain(target):
    return 'system' if target.system else 'gui/%d' % target.uid


def install_macos(steps, target, command, every, config):
    path = plist_path(target)
    arguments = ''.join('\n\t\t<string>%s</string>' % escape(w) for w in command + ['--quiet'])
    plist = ('<?xml version="1.0" encoding="UTF-8"?>\n'
             '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
             '<plist version="1.0">\n<dict>\n'
             '\t<key>Label</key>\n\t<string>%s</string>\n'
             '\t<key>ProgramArguments</key>\n\t<array>%s\n\t</array>\n'
             '\t<key>StartInterval</key>\n\t<integer>%d</integer>\n'
             '\t<key>RunAtLoad</key>\n\t<true/>\n'
             '\t<key>ProcessType</key>\n\t<string>Background</string>\n'
             '\t<key>Umask</key>\n\t<integer>63</integer>\n'
             '</dict>\n</plist>' % (NAME, arguments, every))
    steps.run(['launchctl', 'bootout', '%s/%s' % (domain(target), NAME)], may_fail=True)   # a loaded one first
    steps.write(path, plist)
    steps.run(['launchctl', 'bootstrap', domain(target), path])
    steps.say('%s runs every %d s: launchctl print %s/%s; %s' % (NAME, every, domain(target), NAME,
                                                                 outcomes(target, command)))


def uninstall_macos(steps, target):
    steps.run(['launchctl', 'bootout', '%s/%s' % (domain(target), NAME)], may_fail=True)
    steps.append(('remove', plist_path(target)))


INSTALLS = {'linux': install_linux, 'windows': install_windows, 'macos': install_macos}
UNINSTALLS = {'linux': uninstall_linux, 'windows': uninstall_windows, 'macos': uninstall_macos}


# --- carrying it out -----------------------------------------------------------------------------
def carry_out(steps, dry_run, runner, tool, install, target, task=False):
    """Print each step and, unless a dry run, do it; stop at the first that fails (exit 1)."""
    what = ('--install-task' if install else '--uninstall-task') if task else \
        ('--install-service' if install else '--uninstall-service')
    print('%s %s for %s%s%s' % (tool, what, target.platform, ' (system-wide)' if target.system else ' (this user)',
                                ': a dry run, nothing is changed' if dry_run else ''))
    runner = runner or run_command
    for step in steps:
        kind = step[0]
        if kind == 'say':
            print(step[1])
        elif kind == 'chmod':
            print('chmod %o %s' % (step[2], step[1]))
            if not dry_run:   # the file read and checked, never a link put in its place since
                fd = os.open(step[1], os.O_RDONLY | getattr(os, 'O_NOFOLLOW', 0))
                try:
                    os.fchmod(fd, step[2]) if hasattr(os, 'fchmod') else os.chmod(step[1], step[2])
                finally:
                    os.close(fd)
        elif kind == 'write':
            _, path, text, mode = step
            print('write %s (mode %04o)%s' % (path, mode, ':' if dry_run else ''))
            if dry_run:
                print(''.join('    %s\n' % line for line in text.split('\n')), end='')
            else:
                state.write_if_changed(target.path(path), text.split('\n'), mode=mode)
        elif kind == 'remove':
            print('remove %s' % step[1])
            if not dry_run:
                problem = state.remove(target.path(step[1]))
                if problem:
                    raise Failure('cannot remove %s: %s' % (step[1], problem))
        elif kind == 'task':
            create_task(step[1], step[2], dry_run, runner)
        else:
            command(step[1], step[2], dry_run, runner)
    if dry_run:
        print('Dry run: nothing was changed.')
    elif not install:
        print('Removed: the state files and the config file stay.')
    return 0


def command(argv, may_fail, dry_run, runner):
    print('run: %s' % ' '.join(argv))
    if dry_run:
        return 0
    try:
        status, out, err = runner(argv)
    except (OSError, TimeoutError) as e:
        raise Failure('%s could not run: %s' % (argv[0], getattr(e, 'strerror', None) or e))
    said = ' '.join((err or out).split())[:300]
    if status and not may_fail:
        raise Failure('%s failed (exit %d)%s' % (' '.join(argv), status, ': ' + said if said else ''))
    if status:   # nothing of ours there to stop (the files' removal says whether we may)
        print('  (exit %d%s)' % (status, ': ' + said if said else ''))
    return status


def create_task(name, xml, dry_run, runner):
    """schtasks /Create /XML of a file written for it in a folder of our own, removed after."""
    print('write %s.xml (UTF-16)%s' % (name, ':' if dry_run else ''))
    if dry_run:
        print(''.join('    %s\n' % line for line in xml.split('\n')), end='')
        command(['schtasks', '/Create', '/TN', name, '/XML', name + '.xml', '/F'], False, True, runner)
        return
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix='ddkit-task-')
    try:
        path = os.path.join(folder, name + '.xml')
        with open(path, 'wb') as f:
            f.write(('\ufeff' + xml.replace('\n', '\r\n')).encode('utf-16-le'))
        command(['schtasks', '/Create', '/TN', name, '/XML', path, '/F'], False, False, runner)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_command(argv):
    from ddkit import proc
    return proc.run(argv, timeout=60)
