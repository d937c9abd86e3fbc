"""ip_source=iface:<name> on a real kernel (a network namespace): which address the updaters take.

The interface holds one stable global address among temporary, deprecated, DAD-failed, ULA and
link-local ones; the ip file already holds the stable one, so a right choice is "IP has not
changed" with no request at all, and a wrong one would be an update attempt."""

import os

import pytest

from conftest import RECORD, run_tool
from providers import of

STABLE = '2408:1::7'


LOOKUP = False   # the lab fixture (conftest.py) starts no lookup server


def updater_env(tool, state):
    env = {'DDNS_ZONE_NAME': 'example.com', 'DDNS_RECORD_NAME': RECORD, 'DDNS_STATE_DIR': str(state),
           'DDNS_IP_SOURCE': 'iface:wan0', 'DDNS_BASE_URL': 'http://127.0.0.1:9',
           'DDNS_DOH_URL': 'http://127.0.0.1:9', 'DDNS_DNS_URL': 'http://127.0.0.1:9',
           'DDNS_AUTH_URL': 'http://127.0.0.1:9', 'DDNS_IP_LOOKUP_URL': 'http://127.0.0.1:9'}
    env.update(of(tool).credentials)
    return env


@pytest.mark.parametrize('tool, ip_file', [('updater_a', '.cf-wan_ip_%s_AAAA.txt'),
                                           ('updater_b', '.hw-wan_ip_%s_AAAA.txt')])
def test_aaaa_takes_the_stable_global_address_only(lab, tmp_path, tool, ip_file):
    lab.link('wan0', [STABLE], peer_addresses=['240e:1::9'])
    lab.add_address('wan0', '240e:1::5', extra=['preferred_lft', '0'])          # deprecated
    lab.add_address('wan0', 'fd00:1::1')                                        # ULA
    lab.add_address('wan0', '240e:1::9', dad=True)                              # DAD fails: the peer has it
    lab.wait_flag('240e:1::9', 0x08)
    (tmp_path / (ip_file % RECORD)).write_text(STABLE + '\n')
    env = dict(updater_env(tool, tmp_path), DDNS_RECORD_TYPE='AAAA')
    done = run_tool(tool, env=env, prefix=lab.prefix())
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has not changed: %s' % STABLE in done.stdout


def test_aaaa_with_only_unusable_addresses_is_no_valid_ip(lab, tmp_path):
    lab.link('wan0', [], peer_addresses=['240e:1::9'])
    lab.add_address('wan0', '240e:1::5', extra=['preferred_lft', '0'])
    lab.add_address('wan0', 'fd00:1::1')
    lab.add_address('wan0', '240e:1::9', dad=True)
    lab.wait_flag('240e:1::9', 0x08)
    env = dict(updater_env('updater_a', tmp_path), DDNS_RECORD_TYPE='AAAA')
    done = run_tool('updater_a', env=env, prefix=lab.prefix())
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'No valid IP from interface wan0: interface wan0 has no stable global IPv6 address' in done.stdout
    # nothing to write but what was decided: no lock, the log and the status (no-ip)
    status = tmp_path / ('.updater_a_%s_AAAA.status' % RECORD)
    assert sorted(os.listdir(tmp_path)) == sorted([status.name, 'updater_a_%s_AAAA.log' % RECORD])
    assert status.read_text().startswith('outcome=no-ip\n')
    # the line is still down: the same decision again writes nothing (a router's flash)
    kept, stamp = status.read_text(), os.stat(str(status)).st_mtime_ns
    os.utime(str(status), ns=(stamp - 10 ** 9, stamp - 10 ** 9))
    again = run_tool('updater_a', env=env, prefix=lab.prefix())
    assert again.returncode == 0 and status.read_text() == kept
    assert os.stat(str(status)).st_mtime_ns == stamp - 10 ** 9


@pytest.mark.parametrize('address, says', [('81.2.69.5/24', 'IP has not changed: 81.2.69.5'),
                                           ('192.168.1.2/24', 'not a public address (private)'),
                                           ('100.64.0.9/10', 'not a public address (carrier-grade NAT)')])
def test_a_takes_the_interface_ipv4_address(lab, tmp_path, address, says):
    lab.link('wan0', [])
    lab.in_host(['ip', 'addr', 'add', address, 'dev', 'wan0'])
    (tmp_path / ('.cf-wan_ip_%s.txt' % RECORD)).write_text('81.2.69.5\n')
    done = run_tool('updater_a', env=updater_env('updater_a', tmp_path), prefix=lab.prefix())
    assert done.returncode == 0, done.stdout + done.stderr
    assert says in done.stdout


def test_aaaa_never_takes_a_temporary_privacy_address(tmp_path, monkeypatch):
    # the kernel makes a temporary address only beside its stable SLAAC twin (and drops it with it),
    # so this row reads a recorded /proc/net/if_inet6 in which the temporary one comes first
    import sys
    from conftest import ROOT
    sys.path.insert(0, os.path.join(ROOT, 'lib'))
    from ddkit import iface
    table = tmp_path / 'if_inet6'
    table.write_text(
        '24098a00000100020c2a1f5b3d4e6f70 03 40 00 01     wan0\n'   # temporary
        '24098a000001000202163efffe112233 03 40 00 20     wan0\n'   # deprecated
        '24098a000001000202163efffe445566 03 40 00 00     wan0\n'   # SLAAC, stable
        'fe80000000000000020163efffe44556 03 40 20 80     wan0\n')
    original = iface.ipv6_addresses
    monkeypatch.setattr(iface, 'ipv6_addresses', lambda: original(str(table)))
    assert [a.address for a in iface.global_ipv6('wan0')] == ['2409:8a00:1:2:216:3eff:fe44:5566']
