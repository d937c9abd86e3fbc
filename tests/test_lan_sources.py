"""ip_source for the LAN hosts behind the router (issue 14): prefix:, eui64: and neigh:.

The address arithmetic is tested as functions; the sources on a real kernel: a network namespace is
the router (its LAN interface br-lan holds the prefixes), another is the NAS at the far end of the
veth, which takes its SLAAC address from the router's advertisement and pings, so the router's
kernel learns it as a neighbour. The ip file already holds the expected address, so a right answer
is "IP has not changed" with no request at all; a wrong one would be an update attempt."""

import os
import re
import sys
import time

import pytest

import netns
from conftest import RECORD, ROOT, run_tool
from providers import TOOLS, of  # noqa: E402
from test_iface_source import updater_env

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import ipcheck  # noqa: E402

NAS_MAC = '00:16:3e:44:55:66'
LAN = '2408:8000:1:10::'           # the delegated /64 on br-lan
NAS_SLAAC = '2408:8000:1:10:216:3eff:fe44:5566'
IP_FILE = '.cf-wan_ip_%s_AAAA.txt' % RECORD


# --- the arithmetic ------------------------------------------------------------------------------
@pytest.mark.parametrize('mac, iid', [
    ('00:16:3e:44:55:66', '::216:3eff:fe44:5566'),   # as the kernel made it (test_iface_source)
    ('34-56-78-9A-BC-DE', '::3656:78ff:fe9a:bcde'),   # RFC 4291 appendix A's example
    ('02:00:00:00:00:01', '::ff:fe00:1'),             # a local MAC: the u/l bit goes to 0
])
def test_eui64_of_a_mac(mac, iid):
    assert ipcheck.address_text(6, ipcheck.eui64(ipcheck.mac(mac))) == iid


@pytest.mark.parametrize('text', ['00:16:3e:44:55', '00:16:3e:44:55:66:77', '0:16:3e:44:55:66',
                                  '00:16:3e:44:55:6g', '01:00:5e:00:00:01', '00163e445566', ''])
def test_not_a_device_mac(text):
    assert ipcheck.mac(text) is None


@pytest.mark.parametrize('address, length, iid, joined', [
    ('2408:8000:1:10::1', 64, '::1a2b:3c4d:5e6f:7890', '2408:8000:1:10:1a2b:3c4d:5e6f:7890'),
    ('2408:8000:1:10:ffff::1', 64, '::7', '2408:8000:1:10::7'),     # the router's own host part goes
    ('2408:8000:1:100::1', 56, '::5:0:0:0:9', '2408:8000:1:105::9'),   # a subnet id in the host part
    ('2408:8000:1:1f0::1', 60, '::c:0:0:0:9', '2408:8000:1:1fc::9'),
    ('2408:8000:1:1f0::1', 60, '::10:0:0:0:9', None),                # does not fit a /60
    ('2408:8000:1:10::1', 128, '::1', None),                         # a /128 has no host part
])
def test_prefix_joined_with_an_interface_id(address, length, iid, joined):
    assert ipcheck.join(address, length, ipcheck.interface_id(iid)) == joined


@pytest.mark.parametrize('text', ['::', '1a2b:3c4d:5e6f:7890', '2408::1', '::1:0:0:0:0:0', 'fe80::1%eth0'])
def test_not_an_interface_id(text):
    assert ipcheck.interface_id(text) is None


@pytest.mark.parametrize('source, rtype, says', [
    ('neigh:br-lan/' + NAS_MAC, 'A', 'needs record_type AAAA'),
    ('prefix:br-lan/::1', 'A', 'needs record_type AAAA'),
    ('eui64:br-lan/01:00:5e:00:00:01', 'AAAA', "is not a device's MAC address"),
    ('prefix:br-lan/::', 'AAAA', 'the interface id is written as'),
    ('prefix:br-lan', 'AAAA', 'must be url, iface:<interface>'),
    ('neigh:br/lan/' + NAS_MAC, 'AAAA', "is not a device's MAC address"),
    ('neigh:a-name-of-16-chars/' + NAS_MAC, 'AAAA', 'must be url'),
])
@pytest.mark.parametrize('tool', TOOLS)
def test_bad_lan_source_is_one_line_exit_2_and_nothing_written(tmp_path, tool, source, rtype, says):
    env = dict(updater_env(tool, tmp_path), DDNS_IP_SOURCE=source, DDNS_RECORD_TYPE=rtype)
    for args in ([], ['--check']):
        done = run_tool(tool, args, env=env)
        assert done.returncode == 2, done.stdout + done.stderr
        assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert done.stdout == '' and os.listdir(tmp_path) == []


# --- on a real kernel ----------------------------------------------------------------------------
LOOKUP = False   # the lab fixture (conftest.py) starts no lookup server


def lan(lab, addresses, mac=NAS_MAC):
    """br-lan in the router namespace (lab.host) with these address/length entries; its far end
    nas0, with `mac`, in the NAS namespace (lab.server)."""
    netns.sh(['ip', '-n', lab.host, 'link', 'add', 'br-lan', 'type', 'veth', 'peer', 'name', 'nas0',
              'address', mac, 'netns', lab.server])
    for address in addresses:
        netns.sh(['ip', '-n', lab.host, 'addr', 'add', address, 'dev', 'br-lan', 'nodad'])
    nas(lab, 'sysctl', '-q', '-w', 'net.ipv6.conf.nas0.dad_transmits=0')   # its link-local usable at once
    for ns, name in ((lab.server, 'nas0'), (lab.host, 'br-lan')):
        netns.sh(['ip', '-n', ns, 'link', 'set', name, 'up'])
    lab.wait_state('br-lan', running=True)
    nas_addresses(lab, 1, scope='20')


def nas(lab, *argv):
    return netns.sh(['ip', 'netns', 'exec', lab.server] + list(argv))


def nas_addresses(lab, count, scope='00'):
    """Wait for `count` usable addresses of the NAS of this scope (global: its kernel's SLAAC after an
    advertisement; link: once the link is up): [(address, flags)]."""
    deadline = time.monotonic() + 10
    while True:
        found = [(ipcheck.address_text(6, int(p[0], 16)), int(p[4], 16))
                 for p in (line.split() for line in nas(lab, 'cat', '/proc/net/if_inet6').stdout.splitlines())
                 if p[5] == 'nas0' and p[3] == scope and not int(p[4], 16) & 0x40]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def ping_router(lab, source):
    """The NAS pings the router from `source`: the router's kernel learns that address as a neighbour."""
    nas(lab, 'ping', '-6', '-c', '1', '-W', '5', '-I', source, LAN + '1')


def run(lab, tmp_path, source, previous=None, tool='updater_a', args=()):
    if previous:
        (tmp_path / IP_FILE).write_text(previous + '\n')
    env = dict(updater_env(tool, tmp_path), DDNS_RECORD_TYPE='AAAA', DDNS_IP_SOURCE=source)
    done = run_tool(tool, list(args), env=env, prefix=lab.prefix())
    assert 'Traceback' not in done.stdout + done.stderr, done.stdout + done.stderr
    return done


@pytest.mark.parametrize('address, source, expected', [
    ('2408:8000:1:10::1/64', 'prefix:br-lan/::1a2b:3c4d:5e6f:7890', '2408:8000:1:10:1a2b:3c4d:5e6f:7890'),
    ('2408:8000:1:100::1/56', 'prefix:br-lan/::5:0:0:0:9', '2408:8000:1:105::9'),
    ('2408:8000:1:1f0::1/60', 'prefix:br-lan/::c:0:0:0:9', '2408:8000:1:1fc::9'),
    ('2408:8000:1:10::1/64', 'eui64:br-lan/' + NAS_MAC.upper(), NAS_SLAAC),
    ('2408:8000:1:100::1/56', 'eui64:br-lan/' + NAS_MAC, '2408:8000:1:100:216:3eff:fe44:5566'),
])
@pytest.mark.parametrize('tool', TOOLS)
def test_prefix_sources_join_the_global_prefix_of_the_interface(lab, tmp_path, tool, address, source,
                                                                 expected):
    # beside the global prefix: a ULA, and a prefix the ISP took away (deprecated): neither is used
    lan(lab, ['fd00:1::1/64', '2409:8a00:9:10::1/64', address])
    lab.in_host(['ip', '-6', 'addr', 'change', '2409:8a00:9:10::1/64', 'dev', 'br-lan', 'preferred_lft', '0'])
    ip_file = of(tool).ip_file(RECORD + '_AAAA')
    (tmp_path / ip_file).write_text(expected + '\n')
    done = run(lab, tmp_path, source, tool=tool)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has not changed: %s' % expected in done.stdout


def test_a_new_prefix_is_a_change(lab, tmp_path):
    lan(lab, ['2408:8000:1:20::1/64'])
    done = run(lab, tmp_path, 'prefix:br-lan/::1a2b:3c4d:5e6f:7890', '2408:8000:1:10:1a2b:3c4d:5e6f:7890')
    assert ('IP changed from 2408:8000:1:10:1a2b:3c4d:5e6f:7890 to 2408:8000:1:20:1a2b:3c4d:5e6f:7890'
            in done.stdout), done.stdout + done.stderr


@pytest.mark.parametrize('addresses, says', [
    ([], 'interface br-lan has no stable global IPv6 prefix'),
    (['fd00:1::1/64'], 'interface br-lan has no stable global IPv6 prefix'),
    (['2408:8000:1:10::1/128'], 'no stable global IPv6 prefix the interface id fits in '
                                '(2408:8000:1:10::1/128)'),
])
def test_no_prefix_is_no_valid_ip_and_nothing_sent(lab, tmp_path, addresses, says):
    lan(lab, addresses)
    done = run(lab, tmp_path, 'prefix:br-lan/::1a2b:3c4d:5e6f:7890')
    assert done.returncode == 0, done.stdout + done.stderr
    assert says in done.stdout and 'Nothing changed; name the LAN interface' in done.stdout
    assert IP_FILE not in os.listdir(tmp_path)


def advertise(lab):
    """The router advertises LAN/64 on br-lan; the NAS makes its SLAAC address and a temporary one."""
    netns.sh(['ip', '-n', lab.host, 'addr', 'add', netns.GATEWAY + '/64', 'dev', 'br-lan', 'nodad'])
    for key, value in (('accept_ra', '2'), ('use_tempaddr', '2')):
        nas(lab, 'sysctl', '-q', '-w', 'net.ipv6.conf.nas0.%s=%s' % (key, value))
    netns.sh(['ip', 'netns', 'exec', lab.host, sys.executable, os.path.join(ROOT, 'tests', 'netns.py'), 'ra',
              'br-lan', LAN])
    return nas_addresses(lab, 2)


def test_neigh_takes_the_devices_slaac_address_first(lab, tmp_path):
    lan(lab, [LAN + '1/64'])
    found = advertise(lab)
    temporary = [a for a, flags in found if flags & 0x01]
    assert NAS_SLAAC in [a for a, _ in found] and temporary, found
    nas(lab, 'ip', 'addr', 'add', LAN[:-1] + '1000::5/64', 'dev', 'nas0', 'nodad')   # configured, sorts first
    for source in (temporary[0], LAN[:-1] + '1000::5', NAS_SLAAC):   # the SLAAC one seen last
        ping_router(lab, source)
    table = lab.in_host(['ip', '-6', 'neigh', 'show', 'dev', 'br-lan']).stdout
    assert all(a in table for a in (temporary[0], LAN[:-1] + '1000::5', NAS_SLAAC)), table
    done = run(lab, tmp_path, 'neigh:br-lan/' + NAS_MAC, NAS_SLAAC)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has not changed: %s' % NAS_SLAAC in done.stdout


def test_neigh_without_slaac_prefers_a_confirmed_entry_to_a_stale_one(lab, tmp_path):
    lan(lab, [LAN + '1/64'])
    for host in ('5', '9'):
        nas(lab, 'ip', 'addr', 'add', LAN + host + '/64', 'dev', 'nas0', 'nodad')
        ping_router(lab, LAN + host)
    # ::5 has not been heard from lately: the kernel marks such an entry stale
    lab.in_host(['ip', '-6', 'neigh', 'change', LAN + '5', 'lladdr', NAS_MAC, 'dev', 'br-lan', 'nud', 'stale'])
    done = run(lab, tmp_path, 'neigh:br-lan/' + NAS_MAC, LAN + '9')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has not changed: %s9' % LAN in done.stdout


@pytest.mark.parametrize('mac, says', [
    (NAS_MAC, 'the IPv6 neighbour table of br-lan has no global address of %s (only fd00:1::5, '
              'fe80::216:3eff:fe44:5566)' % NAS_MAC),
    ('00:16:3e:00:00:01', 'the IPv6 neighbour table of br-lan has no global address of 00:16:3e:00:00:01.'),
])
def test_neigh_without_a_global_entry_is_no_valid_ip_and_nothing_sent(lab, tmp_path, mac, says):
    lan(lab, [LAN + '1/64'])
    nas(lab, 'ip', 'addr', 'add', 'fd00:1::5/64', 'dev', 'nas0', 'nodad')   # a ULA: not for a public record
    lab.in_host(['ip', 'addr', 'add', 'fd00:1::1/64', 'dev', 'br-lan', 'nodad'])
    nas(lab, 'ping', '-6', '-c', '1', '-W', '5', '-I', 'fd00:1::5', 'fd00:1::1')
    lab.in_host(['ip', 'addr', 'add', netns.GATEWAY + '/64', 'dev', 'br-lan', 'nodad'])
    nas(lab, 'ping', '-6', '-c', '1', '-W', '5', '-I', 'nas0', netns.GATEWAY)   # from its link-local address
    link_local = lab.in_host(['ip', '-6', 'neigh', 'show', 'dev', 'br-lan']).stdout
    assert 'fe80::216:3eff:fe44:5566' in link_local and 'fd00:1::5' in link_local, link_local
    done = run(lab, tmp_path, 'neigh:br-lan/' + mac)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'No valid IP from neighbour %s on interface br-lan' % mac in done.stdout
    assert says in done.stdout and 'ip -6 neigh show dev br-lan' in done.stdout
    assert IP_FILE not in os.listdir(tmp_path)


def test_neigh_reads_a_full_table_in_several_netlink_answers(lab, tmp_path):
    # a thousand neighbours (the kernel's gc_thresh3 is 1024) take several answers of a dump; the
    # NAS's entry comes last
    lan(lab, [LAN + '1/64'])
    batch = tmp_path / 'neigh.batch'
    batch.write_text(''.join('neigh replace %s%x lladdr 02:00:00:00:%02x:%02x dev br-lan nud stale\n'
                             % (LAN, i, i >> 8, i & 255) for i in range(0x100, 0x100 + 1000))
                     + 'neigh replace %sabcd lladdr %s dev br-lan nud stale\n' % (LAN, NAS_MAC))
    lab.in_host(['ip', '-batch', str(batch)])
    batch.unlink()
    done = run(lab, tmp_path, 'neigh:br-lan/' + NAS_MAC, LAN + 'abcd')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has not changed: %sabcd' % LAN in done.stdout


def test_neigh_on_a_missing_interface_says_so(lab, tmp_path):
    done = run(lab, tmp_path, 'neigh:nosuch0/' + NAS_MAC)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'cannot read the IPv6 neighbour table of nosuch0: no interface with this name' in done.stdout


def test_check_reports_the_lan_sources(lab, tmp_path):
    lan(lab, [LAN + '1/64'])
    nas(lab, 'ip', 'addr', 'add', LAN + '9/64', 'dev', 'nas0', 'nodad')
    ping_router(lab, LAN + '9')
    out = run(lab, tmp_path, 'neigh:br-lan/' + NAS_MAC, args=['--check']).stdout
    assert 'ok    current IP %s9 (from neighbour %s on interface br-lan)' % (LAN, NAS_MAC) in out, out
    out = run(lab, tmp_path, 'prefix:br-lan/::7', args=['--check']).stdout
    assert 'ok    current IP %s7 (from prefix of interface br-lan + interface id ::7)' % LAN in out, out
    out = run(lab, tmp_path, 'eui64:lo/' + NAS_MAC, args=['--check']).stdout
    assert ('FAIL  current IP: no valid IPv6 address from prefix of interface lo + EUI-64 of %s: '
            'interface lo has no stable global IPv6 prefix (ip_source from DDNS_IP_SOURCE) -- fix: name the LAN '
            'interface' % NAS_MAC) in out, out
    out = run(lab, tmp_path, 'eui64:wan0/' + NAS_MAC, args=['--check']).stdout
    assert ('FAIL  current IP: no valid IPv6 address from prefix of interface wan0 + EUI-64 of %s: '
            'interface wan0 does not exist (ip_source from DDNS_IP_SOURCE) -- fix: name an interface this host '
            'has' % NAS_MAC) in out, out
    assert os.listdir(tmp_path) == []


def test_several_neigh_records_share_one_dump_of_the_table(lab, tmp_path):
    """Three LAN hosts on br-lan, each a record: the run asks the kernel for the table once (counted
    by strace at the system call), and each record still finds its own host among 500 others. An
    unchanged record writes once to stdout and once to its log file (its heading with its line)."""
    lan(lab, [LAN + '1/64'])
    macs = ['02:00:00:00:aa:%02x' % i for i in range(3)]
    batch = tmp_path / 'neigh.batch'
    batch.write_text(''.join('neigh replace %s%x lladdr 02:00:00:00:%02x:%02x dev br-lan nud stale\n'
                             % (LAN, i, i >> 8, i & 255) for i in range(0x100, 0x100 + 500))
                     + ''.join('neigh replace %sa%d lladdr %s dev br-lan nud reachable\n' % (LAN, i, mac)
                               for i, mac in enumerate(macs)))
    lab.in_host(['ip', '-batch', str(batch)])
    conf = tmp_path / 'records.conf'
    conf.write_text('record_type=AAAA\n' + ''.join('[host%d]\nrecord_name=h%d.example.com\nip_source=neigh:br-lan/%s\n'
                                                   % (i, i, mac) for i, mac in enumerate(macs)))
    os.chmod(str(conf), 0o600)
    for i in range(3):   # each record's previous IP is its current one: nothing to send
        (tmp_path / ('.cf-wan_ip_h%d.example.com_AAAA.txt' % i)).write_text('%sa%d\n' % (LAN, i))
    trace = str(tmp_path / 'trace')
    env = {k: v for k, v in updater_env('updater_a', tmp_path).items() if k not in ('DDNS_RECORD_NAME',
                                                                                   'DDNS_IP_SOURCE')}
    # no compiled code written by the traced run, whichever test first started the library's modules
    env['PYTHONDONTWRITEBYTECODE'] = '1'
    done = run_tool('updater_a', ['--all', '--config', str(conf)], env=env,
                    prefix=lab.prefix() + ['strace', '-f', '-qq', '-s', '80', '-e', 'trace=sendto,sendmsg,write', '-o', trace])
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if 'IP has not changed' in line] == [
        line for line in done.stdout.splitlines() if 'has not changed: %sa' % LAN in line]
    assert done.stdout.count('IP has not changed') == 3, done.stdout
    with open(trace) as f:
        calls = f.read()
    assert calls.count('RTM_GETNEIGH') == 1
    writes = re.findall(r'\bwrite\((\d+), "\[[^"]*\] - (Record host\d|All 3)', calls)
    assert sorted(fd == '1' for fd, _ in writes) == [False] * 3 + [True] * 4, calls   # 3 logs; stdout
    assert len(re.findall(r'\bwrite\(', calls)) == 7, calls
