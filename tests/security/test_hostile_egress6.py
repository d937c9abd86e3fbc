"""Hostile answers and names against both egress selectors: a lookup chain answering JSON nested beyond
any depth or numbers out of range ends in one clear line (or the next service), never a traceback;
control characters in interface names, lookup fields and firewall error text are escaped in everything
they print, stderr included. egress6 runs in network namespaces with real ip6tables/nft
(tests/netns.py); egress6_win against the recorded netsh output and lookup fakes on ::1."""

import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from conftest import ROOT, run_tool  # noqa: E402

CT, CU = '240e:1::10', '2408:1::10'
ESC = '\x1b[7m'                      # a terminal escape: reverse video
CONTROL = ('\x1b', '\x07', '\r', '\x00')
WIN = os.path.join(ROOT, 'tests', 'win')
WIN_CT = '240e:3b0:8c12:4f00:1c2d:3e4f:5a6b:7c8d'   # an address of the English recording


def clean(done):
    """No control character reached stdout or stderr, and no traceback."""
    out = done.stdout + done.stderr
    assert 'Traceback' not in out, out
    assert not any(c in out.replace('\n', '') for c in CONTROL), repr(out)


# --- egress6 (Linux): network namespaces ----------------------------------------------------------

def egress6(lab, *args, lookups=('/json',)):
    argv = list(args)
    for route in lookups:
        argv += ['--lookup-url', lab.url(route)]
    argv += ['--geoip-url', lab.url('/geo')]
    return run_tool('egress6', argv, prefix=lab.prefix())


@pytest.mark.parametrize('hostile', ['nested', 'unclosed', 'deep', 'numbers'])
def test_egress6_lookup_answer_out_of_bounds_falls_through_to_the_next_service(lab, hostile):
    lab.link('eth0', [CT], route=True)
    done = egress6(lab, 'ct', '--backend', 'nft', lookups=['/hostile/' + hostile, '/json'])
    clean(done)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'OK: outbound IPv6 leaves with %s' % CT in done.stdout
    assert 'answered by %s)' % lab.url('/json') in done.stdout   # /hostile gave no address


@pytest.mark.parametrize('hostile', ['nested', 'numbers'])
def test_egress6_lookup_chain_of_hostile_answers_is_one_clear_line(lab, hostile):
    lab.link('eth0', [CT], route=True)
    done = egress6(lab, lookups=['/hostile/' + hostile] * 2)
    clean(done)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.count('\n') == 1 and 'no lookup service answered with an IPv6 address' in done.stderr


def test_egress6_escapes_control_characters_of_a_lookup_field(lab):
    lab.link('eth0', [CT], route=True)
    done = egress6(lab, lookups=['/hostile/control'])
    clean(done)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Operator (asn_name): CHINANET\\x1b[2J\\x0d\\x0aOK: forged\\x07' in done.stdout


def test_egress6_escapes_an_interface_name_in_stdout_and_stderr(lab):
    name = 'e' + ESC + 'X'             # the kernel takes any character but "/", ":" and blanks
    lab.link(name, [CT], route=True)
    lab.cut(name)                       # down: only the error names it, on stderr
    done = egress6(lab, 'ct', '--backend', 'nft')
    clean(done)
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'e\\x1b[7mX: disabled' in done.stdout
    assert 'found only on disabled interface(s) e\\x1b[7mX' in done.stderr
    assert done.stderr.count('\n') == 1
    assert lab.nft_rules() == []


def test_egress6_escapes_firewall_error_text_on_stderr(lab):
    name = 'e"' + ESC + 'X'            # a quote nft cannot take: nft refuses the rule and quotes it back
    lab.link(name, [CT], route=True)
    done = egress6(lab, 'ct', '--backend', 'nft')
    clean(done)
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'insert the NAT rule' in done.stderr and 'oifname "e"\\x1b[7mX"' in done.stderr, done.stderr
    assert done.stderr.count('\n') == 1
    assert lab.nft_rules() == []


# --- egress6_win: recorded Windows output, lookups on ::1 -------------------------------------------

def run_win(tmp_path, scenarios, args, lookups):
    env = {'PATH': os.path.join(WIN, 'bin') + os.pathsep + os.environ.get('PATH', ''),
           'WIN_RECORDINGS': os.pathsep.join(scenarios), 'WIN_CALL_LOG': str(tmp_path / 'calls.jsonl'),
           'WIN_STANDIN_PYTHON': sys.executable}
    argv = list(args)
    for server in lookups:
        argv += ['--lookup-url', server.url + '/']
    return run_tool('egress6_win', argv, env=env, input='')


@pytest.mark.parametrize('answer', ['{"ip": ' + '[' * 16000, '{"ip": ' + '[' * 985 + ']' * 985 + '}',
                                    '{"ip": 1e999}', '{"ip": NaN}', '{"ip": %s}' % ('7' * 16000)],
                         ids=['nested', 'deep', '1e999', 'NaN', '16000 digits'])
def test_egress6_win_lookup_answer_out_of_bounds_falls_through_to_the_next_service(tmp_path, lookups, answer):
    lookups[0].answer, lookups[1].answer = answer, WIN_CT
    done = run_win(tmp_path, ['en'], ['ct', 'n', 'n'], lookups)
    clean(done)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Success: this host leaves with %s' % WIN_CT in done.stdout
    assert lookups[0].calls() == ['lookup'] and lookups[1].calls() == ['lookup']


def test_egress6_win_escapes_what_netsh_and_tracert_print_stderr_included(tmp_path, lookups):
    hostile = tmp_path / 'hostile'
    hostile.mkdir()
    with open(os.path.join(WIN, 'en', 'interfaces.txt'), 'rb') as f:
        listing = f.read().replace(b'Ethernet 2\r\n', b'Ether\x1b[7mnet\x07 2\r\n')
    (hostile / 'interfaces.txt').write_bytes(listing)
    (hostile / 'tracert.txt').write_bytes(b'\r\nTracing route to {host}\x1b[2J\r\n  1  <1 ms  ::1\x07\r\n')
    shutil.copy(os.path.join(WIN, 'en', 'addresses-12.txt'), str(hostile))
    lookups[0].answer = WIN_CT
    done = run_win(tmp_path, [str(hostile), 'en'], ['ct', 'n', 'n'], lookups)
    clean(done)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Interface: Ether\\x1b[7mnet\\x07 2 (index 12)' in done.stdout
    assert 'Tracing route to ::1\\x1b[2J' in done.stdout
    # no operator address: the error names the interface, on stderr
    failed = run_win(tmp_path, [str(hostile), 'en'], ['cm', 'n', 'n'], lookups)
    clean(failed)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert 'no 2409: address on Ether\\x1b[7mnet\\x07 2' in failed.stderr
