"""Stand-in for Windows' netsh, ipconfig and tracert: replays the recordings of one scenario and logs
every call, so the tests can run bin/egress6_win.py on any system (tests/win/README.md).

Environment: WIN_RECORDINGS, scenario directories (os.pathsep-separated, searched in order, names
relative to tests/win); WIN_CALL_LOG, a file that gets one JSON argv per call.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def recording(name):
    for scenario in os.environ['WIN_RECORDINGS'].split(os.pathsep):
        path = os.path.join(HERE, scenario, name)
        if os.path.exists(path):
            with open(path, 'rb') as f:
                return f.read()
    return None


def reply(name, status=0, host=None):
    data = recording(name)
    if data is None:
        return not_found()
    if host is not None:
        data = data.replace(b'{host}', host.encode('ascii', 'replace'))
    sys.stdout.buffer.write(data)
    return status


def not_found():
    sys.stdout.buffer.write(b'The following command was not found: %s.\r\n' % ' '.join(sys.argv[1:]).encode())
    return 1


def netsh(args):
    words = [a.lower() for a in args]
    if words == ['interface', 'ipv6', 'show', 'interfaces']:
        return reply('interfaces.txt')
    if words[:4] == ['interface', 'ipv6', 'show', 'addresses'] and len(words) == 5 \
            and words[4].startswith('interface='):
        return reply('addresses-%s.txt' % args[4].split('=', 1)[1])
    if words[:4] == ['interface', 'ipv6', 'delete', 'address'] and len(words) in (6, 7) \
            and words[4].startswith('interface=') and words[5].startswith('address=') \
            and words[6:] in ([], ['store=persistent']):
        refused = (recording('delete-refused.txt') or b'').decode().split()
        if args[5].split('=', 1)[1] in refused:
            return reply('delete-failed.txt', 1)
        return reply('delete-ok.txt')
    return not_found()


def ipconfig(args):
    if len(args) == 2 and args[0].lower() == '/renew6':
        return reply('renew6.txt', int((recording('renew6.rc') or b'0').strip()))
    return not_found()


def tracert(args):
    if len(args) == 4 and args[:3] == ['-6', '-h', '5']:
        return reply('tracert.txt', host=args[3])
    return not_found()


def main():
    with open(os.environ['WIN_CALL_LOG'], 'a', encoding='utf-8') as log:
        log.write(json.dumps(sys.argv[1:], ensure_ascii=False) + '\n')
    return {'netsh': netsh, 'ipconfig': ipconfig, 'tracert': tracert}[sys.argv[1]](sys.argv[2:])


if __name__ == '__main__':
    sys.exit(main())
