"""Stand-in for systemctl, schtasks, launchctl and icacls: answers as each does (its messages and exit
statuses), logs every call and keeps what the real one would keep, so tests/test_service.py can install
a service on any system.

Environment: SERVICE_CALL_LOG, a file that gets one JSON argv per call; SERVICE_STATE, a JSON file of
what the system holds now: the tasks ({name: the XML given}), the units enabled, the launchd jobs loaded
(`domain/label`); SERVICE_FAIL, a call (its words joined by blanks, at their start) that fails.
"""

import json
import os
import sys
import xml.etree.ElementTree as ElementTree

TASK_NS = '{http://schemas.microsoft.com/windows/2004/02/mit/task}'


def load():
    try:
        with open(os.environ['SERVICE_STATE'], encoding='utf-8') as f:
            return json.load(f)
    except FileNotFoundError:
        return {'tasks': {}, 'enabled': [], 'loaded': []}


def save(held):
    with open(os.environ['SERVICE_STATE'], 'w', encoding='utf-8') as f:
        json.dump(held, f, indent=1, sort_keys=True)


def systemctl(args, held):
    words = [a for a in args if a != '--user']
    scope = 'user:' if '--user' in args else ''
    if words == ['daemon-reload']:
        return 0, ''
    if words[:2] == ['enable', '--now'] and len(words) == 3:
        if scope + words[2] not in held['enabled']:   # enabled once, however often asked
            held['enabled'].append(scope + words[2])
        return 0, 'Created symlink /etc/systemd/system/timers.target.wants/%s.\n' % words[2]
    if words[:1] == ['restart'] and len(words) == 2:
        return (0, '') if scope + words[1] in held['enabled'] else (5, 'Failed to restart %s: Unit %s not found.\n'
                                                                    % (words[1], words[1]))
    if words[:2] == ['disable', '--now'] and len(words) == 3:
        if scope + words[2] not in held['enabled']:
            return 1, 'Failed to disable unit: Unit file %s does not exist.\n' % words[2]
        held['enabled'].remove(scope + words[2])
        return 0, 'Removed "/etc/systemd/system/timers.target.wants/%s".\n' % words[2]
    return 1, 'Unknown command verb %s.\n' % (words[:1] or [''])[0]


def schtasks(args, held):
    upper = [a.upper() for a in args]
    if len(args) == 7 and upper[:2] == ['/CREATE', '/TN'] and upper[3] == '/XML' and upper[5:] == ['/F'] \
            or len(args) == 6 and upper[:2] == ['/CREATE', '/TN'] and upper[3] == '/XML':
        with open(args[4], 'rb') as f:
            data = f.read()
        if not data.startswith(b'\xff\xfe'):   # what schtasks reads best: UTF-16 with its byte order mark
            return 1, 'ERROR: The task XML is malformed.\r\n'
        text = data[2:].decode('utf-16-le')
        try:
            root = ElementTree.fromstring(text.replace('encoding="UTF-16"', 'encoding="UTF-8"').encode('utf-8'))
        except ElementTree.ParseError as e:
            return 1, 'ERROR: The task XML is malformed.\r\n(%s)\r\n' % e
        if root.tag != TASK_NS + 'Task' or root.find(TASK_NS + 'Actions') is None:
            return 1, 'ERROR: The task XML is missing a required element or attribute.\r\n'
        if args[2] in held['tasks'] and '/F' not in upper:
            return 1, 'ERROR: Cannot create a file when that file already exists.\r\n'
        held['tasks'][args[2]] = text
        return 0, 'SUCCESS: The scheduled task "%s" has successfully been created.\r\n' % args[2]
    if len(args) == 4 and upper[:2] == ['/DELETE', '/TN'] and upper[3] == '/F':
        if args[2] not in held['tasks']:
            return 1, 'ERROR: The system cannot find the file specified.\r\n'
        del held['tasks'][args[2]]
        return 0, 'SUCCESS: The scheduled task "%s" was successfully deleted.\r\n' % args[2]
    return 1, 'ERROR: Invalid syntax. Type "SCHTASKS /?" for usage.\r\n'


def launchctl(args, held):
    if len(args) == 3 and args[0] == 'bootstrap':
        label = os.path.basename(args[2])[:-len('.plist')]
        if not os.path.exists(os.environ.get('SERVICE_ROOT', '') + args[2]):
            return 5, 'Bootstrap failed: 5: Input/output error\n'
        if '%s/%s' % (args[1], label) in held['loaded']:
            return 37, 'Bootstrap failed: 37: Operation already in progress\n'
        held['loaded'].append('%s/%s' % (args[1], label))
        return 0, ''
    if len(args) == 2 and args[0] == 'bootout':
        if args[1] not in held['loaded']:
            return 113, 'Boot-out failed: 113: Could not find specified service\n'
        held['loaded'].remove(args[1])
        return 0, ''
    return 64, 'Unrecognized subcommand: %s\n' % (args[:1] or [''])[0]


def icacls(args, held):
    if len(args) >= 4 and args[1:3] == ['/inheritance:r', '/grant:r']:
        return 0, 'processed file: %s\r\nSuccessfully processed 1 files; Failed processing 0 files\r\n' % args[0]
    return 87, 'Invalid parameter "%s"\r\n' % ' '.join(args)


def main():
    name, args = sys.argv[1], sys.argv[2:]
    with open(os.environ['SERVICE_CALL_LOG'], 'a', encoding='utf-8') as log:
        log.write(json.dumps([name] + args) + '\n')
    failing = os.environ.get('SERVICE_FAIL', '')
    if failing and ' '.join([name] + args).startswith(failing):
        sys.stderr.write('%s: failed as the test asked (SERVICE_FAIL)\n' % name)
        return 1
    held = load()
    status, said = {'systemctl': systemctl, 'schtasks': schtasks, 'launchctl': launchctl, 'icacls': icacls}[name](args, held)
    save(held)
    (sys.stdout if name in ('schtasks', 'icacls') or not status else sys.stderr).write(said)
    return status


if __name__ == '__main__':
    sys.exit(main())
