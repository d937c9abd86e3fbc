"""bin/egress6.py on a real network stack: network namespaces, veth pairs, ip6tables and nft.

Each test builds its own namespaces (tests/netns.py): the host side holds operator addresses under
240e:, 2409: and 2408:, the server side runs tests/fakes/lookup6.py on 2001:db8::1, which answers
with the source address it sees. Assertions are on what the kernel and that server show.
"""

import ipaddress
import os
import sys
import warnings

import pytest

import netns
from conftest import FULL, run_tool

CT, CM, CU = '240e:1::10', '2409:1::10', '2408:1::10'
ADDRESSES = {'ct': CT, 'cm': CM, 'cu': CU}
REASON = netns.unavailable()
if REASON and os.environ.get('CI') != 'true':
    warnings.warn('egress6 namespace tests skipped: %s' % REASON)


@pytest.fixture
def lan(lab):
    """The usual LAN host: one interface holding one address of each operator."""
    lab.link('eth0', [CT, CM, CU], route=True)
    return lab


def egress6(lab, *args, user=None, lookups=('/json',), prefix=None, copy=None):
    """Run egress6 in the lab's host; as `user`, its copy that user can open (copy: the for_others fixture)."""
    argv = list(args)
    for route in lookups:
        argv += ['--lookup-url', route if '://' in route else lab.url(route)]
    argv += ['--geoip-url', lab.url('/geo')]
    tool, env = copy('egress6') if user else ('egress6', None)
    return run_tool(tool, argv, env=env, prefix=prefix or lab.prefix(user))


def rules(lab, backend):
    return lab.ip6tables_rules() if backend == 'iptables' else lab.nft_rules()


def rule_for(backend, address, ifname='eth0'):
    if backend == 'iptables':
        return '-A POSTROUTING -o %s -j SNAT --to-source %s' % (ifname, address)   # -S drops -d ::/0
    return 'oifname "%s" ip6 daddr ::/0 snat to %s' % (ifname, address)


def seen(lab):
    """The source addresses the lookup service saw, in order."""
    return [r['client'] for r in lab.requests() if r['route'] != 'geo']


def changes(result):
    return [line for line in result.stdout.splitlines() if line.startswith('+ ')]


# --- NAT rule state table (service.md 3), both backends ---------------------------------------------

# each operator under each backend under make test-full; make test each operator once, the backends in turn
INSERTS = [(code, backend) for n, code in enumerate(ADDRESSES) for backend in ('iptables', 'nft')
           if FULL or backend == ('iptables', 'nft')[n % 2]]


@pytest.mark.parametrize('code, backend', INSERTS, ids=['%s-%s' % row for row in INSERTS])
def test_no_rule_inserts_one_and_traffic_leaves_with_the_operator_address(lan, backend, code):
    result = egress6(lan, code, '--backend', backend)
    assert result.returncode == 0, result.stdout + result.stderr
    assert rules(lan, backend) == [rule_for(backend, ADDRESSES[code])]
    assert seen(lan) == [ADDRESSES[code]]                      # the kernel rewrote the source
    assert 'OK: outbound IPv6 leaves with %s' % ADDRESSES[code] in result.stdout
    operator = {'ct': 'CHINANET-BACKBONE', 'cm': 'CMNET', 'cu': 'CHINA169-BACKBONE'}[code]
    assert 'Operator (asn_name): %s' % operator in result.stdout
    assert 'Geolocation: isp China' in result.stdout and 'country China' in result.stdout


def test_spec_rule_text_for_ip6tables(lan):
    result = egress6(lan, 'cu', '--backend', 'iptables')
    assert '+ ip6tables -t nat -I POSTROUTING -o eth0 -d ::/0 -j SNAT --to-source %s' % CU in result.stdout
    listing = lan.in_host(['ip6tables', '-t', 'nat', '-vnL', 'POSTROUTING', '--line-number']).stdout
    assert len(listing.strip().splitlines()) == 3          # "exactly 3 lines means one rule"


@pytest.mark.parametrize('backend', ['iptables', 'nft'])
def test_one_rule_same_address_is_kept(lan, backend):
    assert egress6(lan, 'cm', '--backend', backend).returncode == 0
    again = egress6(lan, 'cm', '--backend', backend)
    assert again.returncode == 0, again.stdout + again.stderr
    assert 'kept' in again.stdout and changes(again) == []
    assert rules(lan, backend) == [rule_for(backend, CM)]
    assert seen(lan) == [CM, CM]


@pytest.mark.parametrize('backend', ['iptables', 'nft'])
def test_one_rule_other_address_is_flushed_and_replaced(lan, backend):
    assert egress6(lan, 'ct', '--backend', backend).returncode == 0
    result = egress6(lan, 'cu', '--backend', backend)
    assert result.returncode == 0, result.stdout + result.stderr
    flush = 'ip6tables -t nat -F POSTROUTING' if backend == 'iptables' else \
        'nft flush chain ip6 egress6 postrouting'
    assert '+ ' + flush in changes(result)
    assert rules(lan, backend) == [rule_for(backend, CU)]
    assert seen(lan) == [CT, CU]


@pytest.mark.parametrize('backend', ['iptables', 'nft'])
def test_several_rules_print_manual_commands_and_change_nothing(lan, backend):
    for address in (CT, CM):
        if backend == 'iptables':
            lan.in_host(['ip6tables', '-t', 'nat', '-A', 'POSTROUTING', '-o', 'eth0', '-j', 'SNAT',
                         '--to-source', address])
        else:
            lan.in_host(['nft', 'add', 'table', 'ip6', 'egress6'])
            lan.in_host(['nft', 'add', 'chain', 'ip6', 'egress6', 'postrouting', '{', 'type', 'nat', 'hook',
                         'postrouting', 'priority', '100', ';', '}'])
            lan.in_host(['nft', 'add', 'rule', 'ip6', 'egress6', 'postrouting', 'oifname', 'eth0', 'snat',
                         'to', address])
    before = rules(lan, backend)
    for args in (['cu'], []):                               # "several rules, any run"
        result = egress6(lan, *args, '--backend', backend)
        assert result.returncode == 1, result.stdout + result.stderr
        assert '2 rules' in result.stderr and 'exactly 1' in result.stderr
        manual = 'ip6tables -t nat -D POSTROUTING <n>' if backend == 'iptables' else \
            'nft delete rule ip6 egress6 postrouting handle <handle>'
        assert manual in result.stdout
        assert changes(result) == []
    assert rules(lan, backend) == before and len(before) == 2
    assert seen(lan) == []


def test_nft_table_of_its_own_leaves_other_rules_alone(lan):
    # what fw4 and ip6tables-nft keep: their tables must come through untouched
    lan.in_host(['nft', 'add', 'table', 'inet', 'fw4'])
    lan.in_host(['nft', 'add', 'chain', 'inet', 'fw4', 'srcnat', '{', 'type', 'nat', 'hook', 'postrouting',
                 'priority', '100', ';', '}'])
    lan.in_host(['nft', 'add', 'rule', 'inet', 'fw4', 'srcnat', 'oifname', 'eth0', 'counter', 'accept'])
    lan.in_host(['ip6tables', '-t', 'nat', '-A', 'POSTROUTING', '-o', 'eth9', '-j', 'MASQUERADE'])
    others = lan.in_host(['nft', 'list', 'table', 'inet', 'fw4']).stdout.replace('packets 1 ', '')
    assert egress6(lan, 'ct', '--backend', 'nft').returncode == 0
    result = egress6(lan, 'cm', '--backend', 'nft')
    assert result.returncode == 0, result.stdout + result.stderr
    assert lan.nft_rules() == [rule_for('nft', CM)]
    assert lan.ip6tables_rules() == ['-A POSTROUTING -o eth9 -j MASQUERADE']
    assert 'oifname "eth0" counter' in lan.in_host(['nft', 'list', 'table', 'inet', 'fw4']).stdout
    assert lan.in_host(['nft', 'list', 'table', 'inet', 'fw4']).stdout.count('oifname') == \
        others.count('oifname') == 1


@pytest.mark.parametrize('first, then', [('iptables', 'nft'), ('nft', 'iptables')])
def test_rule_of_the_other_backend_is_reported_not_touched(lan, first, then):
    assert egress6(lan, 'ct', '--backend', first).returncode == 0
    result = egress6(lan, 'cm', '--backend', then)
    assert 'also has 1 source-NAT rule(s) (%s), which compete' % CT in result.stdout
    assert rules(lan, first) == [rule_for(first, CT)] and rules(lan, then) == [rule_for(then, CM)]


# --- steps 1 to 4: interfaces and addresses -----------------------------------------------------------

def test_no_matching_interface_exits_1(lab):
    lab.link('eth0', [CT], route=True)
    result = egress6(lab, 'cm')
    assert result.returncode == 1
    assert 'no running interface has an address under 2409::/16' in result.stderr
    assert 'Traceback' not in result.stderr
    assert lab.ip6tables_rules() == [] and lab.nft_rules() == []
    assert seen(lab) == []


def test_interface_without_running_flag_is_reported_disabled(lab):
    lab.link('eth0', [CT], route=True)
    lab.link('eth1', [CM], keep_addr_on_down=True)
    lab.cut('eth1')                                          # UP, no carrier: not RUNNING
    result = egress6(lab, 'cm')
    assert result.returncode == 1
    assert 'eth1: disabled (not RUNNING' in result.stdout
    assert 'found only on disabled interface(s) eth1' in result.stderr
    assert lab.ip6tables_rules() == []
    ct = egress6(lab, 'ct')
    assert ct.returncode == 0 and 'eth1: disabled' in ct.stdout
    assert lab.ip6tables_rules() == [rule_for('iptables', CT)]


def test_stable_address_preferred_over_deprecated(lab):
    lab.link('eth0', ['240e:1::20'], route=True, extra=['preferred_lft', '0'])   # deprecated, first
    lab.add_address('eth0', CT)
    result = egress6(lab, 'ct')
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'Chosen: %s on eth0 for ct (stable' % CT in result.stdout
    assert 'passed over 240e:1::20 (deprecated' in result.stdout
    assert seen(lab) == [CT]


def test_stable_slaac_address_preferred_over_temporary(lab):
    lab.link('eth0', [CM], route=True)
    lab.advertise('eth0', '240e:5::')                        # SLAAC + privacy extensions, for real
    found = lab.wait_addresses('eth0', '240e:5::', 2)
    temporary = [p for p in found if int(p[4], 16) & 0x01]
    assert len(temporary) == 1 and len(found) == 2
    result = egress6(lab, 'ct')
    assert result.returncode == 0, result.stdout + result.stderr
    stable, temporary = seen(lab)[0], str(ipaddress.IPv6Address(bytes.fromhex(temporary[0][0])))
    assert stable.startswith('240e:5::') and stable != temporary
    assert 'Chosen: %s on eth0 for ct (stable, dynamic); passed over ' % stable in result.stdout
    assert '%s (temporary)' % temporary in result.stdout
    assert lab.ip6tables_rules() == [rule_for('iptables', stable)]


def test_rule_on_an_interface_traffic_does_not_use_fails_verification(lab):
    lab.link('eth0', [CT], route=True)                       # the way to the server
    lab.link('eth1', [CM])
    result = egress6(lab, 'cm')
    assert result.returncode == 1
    assert lab.ip6tables_rules() == [rule_for('iptables', CM, 'eth1')]
    assert seen(lab) == [CT]
    assert 'FAILED: outbound IPv6 leaves with %s: its first group is 240e, not the requested 2409' % CT \
        in result.stdout


def test_fallback_to_another_interface(lab):
    # eth0 comes first and holds 240e only as a duplicate (DAD failed); eth1 holds a usable one
    lab.link('eth0', [CM], peer_addresses=[CT])
    lab.add_address('eth0', CT, dad=True)
    lab.wait_flag(CT, 0x08)
    lab.link('eth1', ['240e:2::10'], route=True)
    result = egress6(lab, 'ct')
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'eth0 has no usable 240e address' in result.stdout and 'fallback' in result.stdout
    assert lab.ip6tables_rules() == [rule_for('iptables', '240e:2::10', 'eth1')]
    assert seen(lab) == ['240e:2::10']


@pytest.mark.parametrize('dry_run', [False, True])
def test_disable_ipv6_fallback(lab, dry_run):
    lab.link('eth0', [CM], route=True, peer_addresses=[CT])
    lab.add_address('eth0', CT, dad=True)                    # a duplicate on the link: DAD fails
    lab.wait_flag(CT, 0x08)
    result = egress6(lab, 'ct', *(['--dry-run'] if dry_run else []))
    assert result.returncode == 0, result.stdout + result.stderr
    path = '/proc/sys/net/ipv6/conf/eth0/disable_ipv6'
    assert lab.read(path).strip() == ('0' if dry_run else '1')
    assert ('would run: echo 1 > ' if dry_run else '+ echo 1 > ') + path in result.stdout
    assert 'echo 0 > %s' % path in result.stdout                 # how to turn it back on
    assert lab.ip6tables_rules() == [] and seen(lab) == []


# --- modes: report only, unsupported code, dry run, not root ---------------------------------------

def test_report_only_changes_nothing(lan):
    empty = egress6(lan)
    assert empty.returncode == 0, empty.stdout + empty.stderr
    assert 'ip6tables nat POSTROUTING: no rule' in empty.stdout       # auto: ip6tables is present
    assert 'Effective IPv6: %s' % seen(lan)[0] in empty.stdout
    assert egress6(lan, 'cu').returncode == 0
    result = egress6(lan)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'SNAT' in result.stdout and 'to:%s' % CU in result.stdout
    assert result.stdout.startswith('eth0: ') and '%s (ct 240e, permanent)' % CT in result.stdout
    assert 'OK: outbound IPv6 leaves with %s, as the rule says' % CU in result.stdout
    assert changes(result) == [] and lan.ip6tables_rules() == [rule_for('iptables', CU)]
    assert seen(lan)[-1] == CU


def test_unsupported_code_exits_0_and_does_nothing(lan):
    result = egress6(lan, 'xx')
    assert result.returncode == 0
    assert "Unsupported operator code 'xx'" in result.stdout
    assert lan.ip6tables_rules() == [] and lan.nft_rules() == [] and seen(lan) == []


@pytest.mark.parametrize('backend', ['iptables', 'nft'])
def test_dry_run_prints_commands_and_changes_nothing(lan, backend):
    assert egress6(lan, 'ct', '--backend', backend).returncode == 0
    before, ruleset = rules(lan, backend), lan.nft_ruleset()
    result = egress6(lan, 'cu', '--backend', backend, '--dry-run')
    assert result.returncode == 0, result.stdout + result.stderr
    if backend == 'iptables':
        expected = ['ip6tables -t nat -F POSTROUTING',
                    'ip6tables -t nat -I POSTROUTING -o eth0 -d ::/0 -j SNAT --to-source %s' % CU]
    else:
        expected = ['nft flush chain ip6 egress6 postrouting',
                    'nft insert rule ip6 egress6 postrouting oifname eth0 ip6 daddr ::/0 snat to %s' % CU]
    for command in expected:
        assert 'would run: ' + command in result.stdout
    assert changes(result) == []
    assert rules(lan, backend) == before == [rule_for(backend, CT)]
    assert lan.nft_ruleset() == ruleset
    assert seen(lan) == [CT]                                  # no verification in a dry run


def test_dry_run_creates_no_nft_table(lan):
    result = egress6(lan, 'cm', '--backend', 'nft', '--dry-run')
    assert result.returncode == 0
    assert 'would run: nft add table ip6 egress6' in result.stdout
    assert 'egress6' not in lan.nft_ruleset()


def test_not_root_exits_1_before_touching_anything(lan, for_others):
    result = egress6(lan, 'ct', user='nobody', copy=for_others)
    assert result.returncode == 1
    assert 'must run as root' in result.stderr and 'Traceback' not in result.stderr
    assert lan.ip6tables_rules() == [] and lan.nft_rules() == [] and seen(lan) == []


def test_report_as_non_root_reports_what_needs_no_root(lan, for_others):
    assert egress6(lan, 'cu').returncode == 0
    result = egress6(lan, user='nobody', copy=for_others)
    assert result.returncode == 0, result.stdout + result.stderr
    assert '%s (cu 2408, permanent)' % CU in result.stdout
    assert 'NAT rules: not read: listing them (ip6tables -t nat -vnL POSTROUTING --line-number) needs root' \
        in result.stdout
    assert 'OK: outbound IPv6 leaves with %s' % CU in result.stdout and seen(lan)[-1] == CU
    assert lan.ip6tables_rules() == [rule_for('iptables', CU)]


@pytest.mark.parametrize('backend', ['iptables', 'nft'])
def test_dry_run_as_non_root_shows_the_commands_for_an_empty_chain(lan, backend, for_others):
    result = egress6(lan, 'cm', '--backend', backend, '--dry-run', user='nobody', copy=for_others)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'Chosen: %s on eth0' % CM in result.stdout
    assert 'not read (listing the rules needs root); for a chain with no rule:' in result.stdout
    assert ('would run: ' + ('ip6tables -t nat -I POSTROUTING -o eth0 -d ::/0 -j SNAT --to-source %s' % CM
                             if backend == 'iptables' else
                             'nft insert rule ip6 egress6 postrouting oifname eth0 ip6 daddr ::/0 snat to %s'
                             % CM)) in result.stdout
    assert changes(result) == [] and lan.ip6tables_rules() == [] and lan.nft_rules() == [] and seen(lan) == []


def test_non_root_without_sbin_on_path_still_reports(lan, for_others):
    # a user's PATH often lacks /usr/sbin: without root nothing is run, so no firewall program is needed
    import shutil
    prefix = [shutil.which(p) if i in (0, 4) else p for i, p in enumerate(lan.prefix('nobody'))]
    argv = ['--lookup-url', lan.url('/json'), '--geoip-url', lan.url('/geo')]
    tool, env = for_others('egress6')
    result = run_tool(tool, argv, prefix=prefix, env=dict(env, PATH='/nonexistent'))
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'NAT rules: not read' in result.stdout and 'Effective IPv6:' in result.stdout


def test_report_after_an_nft_run_shows_the_nft_rule_and_no_competition(lan):
    assert egress6(lan, 'ct', '--backend', 'nft').returncode == 0
    result = egress6(lan)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'nft table ip6 egress6 chain postrouting: #' in result.stdout
    assert 'snat to %s' % CT in result.stdout
    assert 'ip6tables nat POSTROUTING: no rule' not in result.stdout and 'compete' not in result.stdout
    assert 'OK: outbound IPv6 leaves with %s, as the rule says (%s)' % (CT, CT) in result.stdout


def test_auto_backend_uses_nft_when_ip6tables_is_missing(lan):
    # -E: the helper itself must not load the import guard meant for the tool
    hidden = lan.prefix() + ['unshare', '--mount', '--propagation', 'private', sys.executable, '-E',
                             os.path.join(netns.HERE, 'netns.py'), 'hide', 'ip6tables', '--']
    result = egress6(lan, 'cm', prefix=hidden)
    assert result.returncode == 0, result.stdout + result.stderr
    assert '+ nft insert rule ip6 egress6 postrouting' in result.stdout
    assert lan.nft_rules() == [rule_for('nft', CM)] and lan.ip6tables_rules() == []
    assert seen(lan) == [CM]


# --- step 6: the lookup chain ---------------------------------------------------------------------

@pytest.mark.parametrize('lookups, asked, answered', [
    (['/json', '/processed', '/text'], ['json'], '/json'),
    (['/empty', '/processed', '/text'], ['empty', 'processed'], '/processed'),
    (['/empty', '/html', '/text'], ['empty', 'html', 'text'], '/text'),
])
def test_lookup_fallbacks_in_order(lan, lookups, asked, answered):
    result = egress6(lan, 'cm', lookups=lookups)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [r['route'] for r in lan.requests() if r['route'] != 'geo'] == asked
    assert 'Effective IPv6: %s (cm 2409; answered by %s)' % (CM, lan.url(answered)) in result.stdout
    assert seen(lan) == [CM] * len(asked)


def test_no_lookup_answer_exits_1(lan):
    closed = 'http://[%s]:1/' % netns.SERVER                 # refused: nothing listens there
    result = egress6(lan, 'cm', lookups=['/empty', '/html', closed])
    assert result.returncode == 1
    assert 'no lookup service answered with an IPv6 address' in result.stderr
    # why each answer was refused, in the order asked
    said = result.stderr.split('asked, in order: ', 1)[1]
    assert said.index('/empty: no IPv6 address in the answer') < said.index('/html: no IPv6 address') \
        < said.index(closed.rstrip('/')) < said.index('Connection refused')
    assert [r['route'] for r in lan.requests()] == ['empty', 'html']
    assert lan.ip6tables_rules() == [rule_for('iptables', CM)]   # step 5 was done before step 6


# --- the command line (no namespace needed) --------------------------------------------------------

def test_help_exits_0():
    result = run_tool('egress6', ['--help'])
    assert result.returncode == 0 and result.stdout.startswith('usage: egress6.py [ct|cm|cu]')
    assert '--backend' in result.stdout and 'table ip6 egress6' in result.stdout


@pytest.mark.parametrize('args, message', [
    (['--bogus'], 'unknown option --bogus'),
    (['ct', 'cm'], 'one operator code at most'),
    (['ct', '--backend', 'pf'], 'bad value for --backend'),
    (['--lookup-url', 'ftp://example.net/'], 'bad value for --lookup-url'),
    (['ct', '--geoip-url'], 'option --geoip-url needs a value'),
])
def test_bad_input_exits_2_with_one_line(args, message, monkeypatch, capsys, call_tool):
    """Refused as the command line is read: egress6's main called in this process."""
    status, out, err = call_tool('egress6', args, {}, monkeypatch, capsys)
    assert status == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert out == ''
