"""bin/egress6_win.py against recorded English and Chinese Windows output (tests/win): stand-ins for
netsh, ipconfig and tracert, first on PATH, replay the recordings (OEM code page bytes, CRLF) and log
every call; the lookup services are fakes on ::1; answers are typed on stdin."""

import importlib.util
import json
import os
import sys

import pytest

from conftest import ROOT, run_tool

WIN = os.path.join(ROOT, 'tests', 'win')

# the addresses of the recorded interfaces (tests/win/*/addresses-*.txt), by operator
EN_CT = ['240e:3b0:8c12:4f00:1c2d:3e4f:5a6b:7c8d', '240e:3b0:8c12:4f00:95d1:2b7e:6a0f:11c3']
EN_CU = ['2408:8256:3a82:1c60:1c2d:3e4f:5a6b:7c8d', '2408:8256:3a82:1c60:58e1:90a:c4d2:7f31',
         '2408:8256:3a82:1c60:a0b:cc4:71:2e']
EN_ULA = 'fd7a:1b2c:3d4e:0:1c2d:3e4f:5a6b:7c8d'
ZH_CM = ['2409:8a55:2e1:b4a0:8d3c:2f1e:77a1:4c10', '2409:8a55:2e1:b4a0:6c0:9b1e:3d2f:a511']
ZH_CT = ['240e:3b4:38e1:7210:8d3c:2f1e:77a1:4c10', '240e:3b4:38e1:7210:2d41:77c:e0a2:9f16',
         '240e:3b4:38e1:7210:1a:2b:3c:4d']
ZH_CU = ['2408:8207:6c48:c3a0:8d3c:2f1e:77a1:4c10']
ZH_NAME = '以太网 2'

LIST_IF = ['netsh', 'interface', 'ipv6', 'show', 'interfaces']
PROMPT_OP = ('Operator: ct = China Telecom (240e), cm = China Mobile (2409), cu = China Unicom (2408) '
             '[ct/cm/cu]: ')
PROMPT_RENEW = 'Renew the IPv6 addresses first (ipconfig /renew6)? [y/n]: '
PROMPT_RECHECK = ("If the address in use turns out to be another operator's, check again with the next "
                  "lookup service? [y/n]: ")


def list_addresses(index):
    return ['netsh', 'interface', 'ipv6', 'show', 'addresses', 'interface=%s' % index]


def delete(index, address, persistent=False):
    return (['netsh', 'interface', 'ipv6', 'delete', 'address', 'interface=%s' % index, 'address=' + address]
            + (['store=persistent'] if persistent else []))


def tracert(host='::1'):
    return ['tracert', '-6', '-h', '5', host]


def renew(name):
    return ['ipconfig', '/renew6', name]


def run_win(tmp_path, recordings, args, lookups=(), input='', codepage=None, stdin=None):
    """Run the tool with the stand-ins of `recordings` ('zh-table,zh': searched in order) first on PATH;
    (completed process, the argv of every stand-in call)."""
    log = tmp_path / 'calls.jsonl'
    if log.exists():
        log.unlink()
    env = {'PATH': os.path.join(WIN, 'bin') + os.pathsep + os.environ.get('PATH', ''),
           'WIN_RECORDINGS': os.pathsep.join(recordings.split(',')), 'WIN_CALL_LOG': str(log),
           'WIN_STANDIN_PYTHON': sys.executable}
    if codepage:
        env['DDNS_CODEPAGE'] = codepage
    argv = list(args)
    for server in lookups:
        argv += ['--lookup-url', server.url + '/']
    done = run_tool('egress6_win', argv, env=env, input=None if stdin is not None else input, stdin=stdin)
    calls = [json.loads(line) for line in log.read_text(encoding='utf-8').splitlines()] if log.exists() else []
    return done, calls


# --- the flow on English Windows ----------------------------------------------------------------
def test_ct_keeps_240e_deletes_the_other_global_addresses(tmp_path, lookups):
    lookups[0].answer = EN_CT[1]
    done, calls = run_win(tmp_path, 'en', ['ct', 'n', 'n'], lookups)
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls == [LIST_IF, list_addresses(12)] + [delete(12, a) for a in EN_CU] + [tracert()]
    out = done.stdout
    assert 'Interface: Ethernet 2 (index 12); keeping its 240e: addresses (ct).' in out
    assert 'Keeping  %s\n' % EN_CT[0] in out and 'Keeping  %s (temporary)\n' % EN_CT[1] in out
    assert 'Keeping  %s (unique local' % EN_ULA in out
    assert 'fe80' not in out
    assert 'Deleting %s\nDeleting %s (temporary)\nDeleting %s (temporary)\n' % tuple(EN_CU) in out
    assert '2 of the deleted addresses were temporary (privacy) addresses' in out
    assert '\n  netsh interface ipv6 set privacy state=disable\n' in out
    assert 'Success: this host leaves with %s, a ct address' % EN_CT[1] in out
    assert 'Tracing route to ::1 over a maximum of 5 hops' in out and out.rstrip().endswith('Trace complete.')
    assert 'warning: this is not Windows' in done.stderr
    assert lookups[0].calls() == ['lookup'] and lookups[1].calls() == []


def test_cu_keeps_2408_and_deletes_240e(tmp_path, lookups):
    lookups[0].answer = EN_CU[0]
    done, calls = run_win(tmp_path, 'en', ['cu', 'n', 'n'], lookups)
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls == [LIST_IF, list_addresses(12)] + [delete(12, a) for a in EN_CT] + [tracert()]
    assert '1 of the deleted addresses were temporary' in done.stdout


def test_renew_runs_before_the_addresses_are_listed(tmp_path, lookups):
    lookups[0].answer = EN_CT[0]
    done, calls = run_win(tmp_path, 'en', ['ct', 'y', 'n'], lookups)
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls[:3] == [LIST_IF, renew('Ethernet 2'), list_addresses(12)]
    assert 'Renewing: ipconfig /renew6 "Ethernet 2"' in done.stdout


def test_renew_failing_on_a_stateless_line_is_a_warning(tmp_path, lookups):
    lookups[0].answer = EN_CT[0]
    done, calls = run_win(tmp_path, 'en-renew-fails,en', ['ct', 'y', 'n'], lookups)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ('warning: ipconfig /renew6 "Ethernet 2" failed (An error occurred while renewing interface '
            'Ethernet 2 : The system cannot find the file specified.)') in done.stdout
    assert calls == [LIST_IF, renew('Ethernet 2'), list_addresses(12)] + [
        delete(12, a) for a in EN_CU] + [tracert()]


def test_persistent_deletes_with_store_persistent(tmp_path, lookups):
    lookups[0].answer = EN_CT[0]
    done, calls = run_win(tmp_path, 'en', ['ct', 'n', 'n', '--persistent'], lookups)
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls[2:5] == [delete(12, a, persistent=True) for a in EN_CU]
    assert 'Deleted for now' not in done.stdout


def test_a_refused_delete_is_reported_and_the_rest_goes_on(tmp_path, lookups):
    lookups[0].answer = EN_CT[0]
    done, calls = run_win(tmp_path, 'en-delete-fails,en', ['ct', 'n', 'n'], lookups)
    assert calls == [LIST_IF, list_addresses(12)] + [delete(12, a) for a in EN_CU] + [tracert()]
    assert ('  netsh interface ipv6 delete address interface=12 address=%s failed: Element not found.'
            % EN_CU[1]) in done.stdout
    assert 'warning: 1 address(es) could not be deleted: %s' % EN_CU[1] in done.stdout
    assert '1 of the deleted addresses were temporary' in done.stdout   # the refused one is not counted
    assert done.returncode == 0


def test_dry_run_prints_the_commands_and_changes_nothing(tmp_path, lookups):
    done, calls = run_win(tmp_path, 'en', ['ct', 'y', 'n', '--dry-run', '--persistent'], lookups)
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls == [LIST_IF, list_addresses(12)]
    assert 'Would run: ipconfig /renew6 "Ethernet 2"' in done.stdout
    for address in EN_CU:
        assert ('Would run: netsh interface ipv6 delete address interface=12 address=%s store=persistent'
                % address) in done.stdout
    assert 'Would run' not in ''.join(line for line in done.stdout.splitlines() if '240e' in line)
    assert done.stdout.rstrip().endswith('Dry run: nothing was changed.')
    assert lookups[0].calls() == [] and lookups[1].calls() == []


def test_trace_host_option(tmp_path, lookups):
    lookups[0].answer = EN_CT[0]
    done, calls = run_win(tmp_path, 'en', ['ct', 'n', 'n', '--trace-host', 'www.example.cn'], lookups)
    assert done.returncode == 0 and calls[-1] == tracert('www.example.cn')
    assert 'Tracing route to www.example.cn over' in done.stdout


# --- Chinese Windows: cp936 output ---------------------------------------------------------------
def test_chinese_windows_cp936_names_and_blocks(tmp_path, lookups):
    lookups[0].answer = ZH_CT[0]
    done, calls = run_win(tmp_path, 'zh', ['ct', 'y', 'n'], lookups, codepage='936')
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls == [LIST_IF, renew(ZH_NAME), list_addresses(14)] + [
        delete(14, a) for a in ZH_CM + ZH_CU] + [tracert()]
    out = done.stdout
    assert 'Interface: 以太网 2 (index 14); keeping its 240e: addresses (ct).' in out
    assert 'Renewing: ipconfig /renew6 "以太网 2"' in out
    assert 'Keeping  %s\nKeeping  %s (temporary)\nKeeping  %s (temporary)\n' % tuple(ZH_CT) in out
    assert 'Deleting %s (temporary)' % ZH_CM[1] in out
    assert '1 of the deleted addresses were temporary' in out
    assert '通过最多 5 个跃点跟踪' in out and '跟踪完成。' in out     # tracert decoded as cp936 too


def test_chinese_output_read_with_the_wrong_code_page_garbles_the_name(tmp_path, lookups):
    """Without the console's code page (cp437 default off Windows), the name sent to ipconfig is wrong:
    the decoding is what makes the Chinese name right."""
    lookups[0].answer = ZH_CT[0]
    done, calls = run_win(tmp_path, 'zh', ['ct', 'y', 'n'], lookups)
    assert calls[1] == renew(ZH_NAME.encode('cp936').decode('cp437'))
    assert calls[1] != renew(ZH_NAME)
    assert calls[3:6] == [delete(14, a) for a in ZH_CM + ZH_CU]   # addresses are ASCII either way


@pytest.mark.parametrize('recordings,code,index,deleted', [
    ('en-table,en', 'ct', 12, EN_CU[:2]),
    ('zh-table,zh', 'cm', 14, ['240e:3b4:38e1:7210:8d3c:2f1e:77a1:4c10', '240e:3b4:38e1:7210:1a:2b:3c:4d']),
])
def test_table_layout_only_the_interfaces_own_addresses(tmp_path, lookups, recordings, code, index, deleted):
    """The all-interfaces table (`Interface 12: ...` / `接口 14: ...` headings): other interfaces'
    addresses, even of another operator, are left alone."""
    lookups[0].answer = EN_CT[0] if code == 'ct' else ZH_CM[0]
    done, calls = run_win(tmp_path, recordings, [code, 'n', 'n'], lookups, codepage='936')
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls == [LIST_IF, list_addresses(index)] + [delete(index, a) for a in deleted] + [tracert()]
    assert '1 of the deleted addresses were temporary' in done.stdout


# --- step 4: the lookups and the re-check ----------------------------------------------------------
def test_recheck_asks_the_next_service_on_mismatch(tmp_path, lookups):
    lookups[0].answer, lookups[1].answer = EN_CU[0], EN_CT[0]
    done, calls = run_win(tmp_path, 'en', ['ct', 'n', 'y'], lookups)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Not yet: this host leaves with %s, not a ct (240e:) address' % EN_CU[0] in done.stdout
    assert 'Checking again with %s' % lookups[1].url in done.stdout
    assert 'Success: this host leaves with %s' % EN_CT[0] in done.stdout
    assert lookups[0].calls() == ['lookup'] and lookups[1].calls() == ['lookup']
    assert calls[-1] == tracert()


def test_no_recheck_reports_the_mismatch_traces_and_exits_1(tmp_path, lookups):
    lookups[0].answer, lookups[1].answer = EN_CU[0], EN_CT[0]
    done, calls = run_win(tmp_path, 'en', ['ct', 'n', 'n'], lookups)
    assert done.returncode == 1
    assert 'Not yet' in done.stdout and 'Success' not in done.stdout and 'Checking again' not in done.stdout
    assert lookups[1].calls() == []
    assert calls[-1] == tracert()


def test_recheck_still_another_operator_exits_1(tmp_path, lookups):
    lookups[0].answer = lookups[1].answer = EN_CU[0]
    done, calls = run_win(tmp_path, 'en', ['ct', 'n', 'y'], lookups)
    assert done.returncode == 1
    assert done.stdout.count('Not yet') == 2 and calls[-1] == tracert()


def test_a_silent_first_service_falls_back_to_the_second(tmp_path, lookups):
    lookups[0].fail('status', status=503)
    lookups[1].answer = EN_CT[0]
    done, calls = run_win(tmp_path, 'en', ['ct', 'n', 'n'], lookups)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Success: this host leaves with %s, a ct address (%s' % (EN_CT[0], lookups[1].url) in done.stdout
    assert lookups[0].calls() == ['lookup'] and lookups[1].calls() == ['lookup']


def test_no_answer_from_either_service_exits_before_the_trace(tmp_path, lookups):
    lookups[0].fail('status', status=500)
    lookups[1].fail('html')
    done, calls = run_win(tmp_path, 'en', ['ct', 'n', 'y'], lookups)
    assert done.returncode == 1
    assert ('look up the effective IPv6: no answer from %s nor %s; check the IPv6 connectivity'
            % (lookups[0].url, lookups[1].url)) in done.stderr
    assert 'Traceback' not in done.stderr
    assert calls == [LIST_IF, list_addresses(12)] + [delete(12, a) for a in EN_CU]   # no tracert


# --- nothing to do, nothing to take --------------------------------------------------------------
def test_no_address_of_the_operator_deletes_nothing(tmp_path, lookups):
    done, calls = run_win(tmp_path, 'en', ['cm', 'y', 'n'], lookups)
    assert done.returncode == 1
    assert 'egress6_win: no 2409: address on Ethernet 2' in done.stderr and 'nothing deleted' in done.stderr
    assert calls == [LIST_IF, renew('Ethernet 2'), list_addresses(12)]
    assert lookups[0].calls() == []


def test_no_connected_interface(tmp_path, lookups):
    done, calls = run_win(tmp_path, 'en-down,en', ['ct', 'n', 'n'], lookups)
    assert done.returncode == 1
    assert 'list interfaces: no connected interface besides loopback among the 3 listed' in done.stderr
    assert calls == [LIST_IF]


# --- questions on stdin -------------------------------------------------------------------------
def test_all_questions_answered_on_stdin(tmp_path, lookups):
    lookups[0].answer = EN_CT[0]
    done, calls = run_win(tmp_path, 'en', [], lookups, input=' CT \nn\nn\n')
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(PROMPT_OP + ' CT \n' + PROMPT_RENEW + 'n\n' + PROMPT_RECHECK + 'n\n')
    assert calls == [LIST_IF, list_addresses(12)] + [delete(12, a) for a in EN_CU] + [tracert()]


def test_only_the_missing_answers_are_asked(tmp_path, lookups):
    lookups[0].answer = EN_CT[0]
    done, calls = run_win(tmp_path, 'en', ['ct'], lookups, input='y\nn\n')
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(PROMPT_RENEW + 'y\n' + PROMPT_RECHECK + 'n\n')
    assert 'Operator:' not in done.stdout and calls[1] == renew('Ethernet 2')


@pytest.mark.parametrize('args,input,message', [
    ([], '', 'no answer for operator: give all three arguments (e.g. egress6_win.py ct y y)'),
    (['ct', 'y'], '', 'no answer for re-check'),
    ([], 'xx\nct\n', "'xx' is not an answer for operator: use ct or cm or cu"),
    (['cu'], 'yes\n', "'yes' is not an answer for renew: use y or n"),
])
def test_no_terminal_a_missing_or_wrong_answer_is_bad_input(tmp_path, lookups, args, input, message):
    done, calls = run_win(tmp_path, 'en', args, lookups, input=input)
    assert done.returncode == 2
    assert message in done.stderr and 'Traceback' not in done.stderr
    assert calls == [] and lookups[0].calls() == []


def test_on_a_terminal_a_wrong_answer_is_asked_again(tmp_path, lookups):
    pty = pytest.importorskip('pty')
    lookups[0].answer = EN_CT[0]
    master, slave = pty.openpty()
    try:
        os.write(master, b'xx\nct\nmaybe\nn\nn\n')
        done, calls = run_win(tmp_path, 'en', [], lookups, stdin=slave)
    finally:
        os.close(slave)
        os.close(master)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(PROMPT_OP + 'Please answer ct or cm or cu.\n' + PROMPT_OP + PROMPT_RENEW
                                  + 'Please answer y or n.\n' + PROMPT_RENEW + PROMPT_RECHECK)
    assert calls == [LIST_IF, list_addresses(12)] + [delete(12, a) for a in EN_CU] + [tracert()]


# --- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize('args,message', [
    (['cx', 'n', 'n'], "argument 1 (operator) must be ct or cm or cu, not 'cx'"),
    (['ct', 'maybe', 'n'], "argument 2 (renew) must be y or n, not 'maybe'"),
    (['ct', 'n', 'n', 'n'], 'at most three arguments'),
    (['ct', '--frobnicate'], 'unknown option --frobnicate'),
    (['ct', '--lookup-url'], 'option --lookup-url needs a value'),
    (['ct', '--lookup-url', 'ftp://example.net/'], 'bad value for --lookup-url: must be an http:// or https://'),
    (['ct', '--trace-host=-w'], 'bad value for --trace-host'),
    (['ct', '--trace-host', 'a b'], 'bad value for --trace-host'),
])
def test_bad_arguments_exit_2_before_anything_runs(tmp_path, args, message):
    done, calls = run_win(tmp_path, 'en', args)
    assert done.returncode == 2
    assert message in done.stderr and 'Traceback' not in done.stderr
    assert calls == [] and done.stdout == ''


def test_unknown_code_page_is_bad_input(tmp_path):
    done, calls = run_win(tmp_path, 'en', ['ct', 'n', 'n'], codepage='99999')
    assert done.returncode == 2 and "unknown code page '99999'" in done.stderr and calls == []


def test_help(tmp_path):
    done, calls = run_win(tmp_path, 'en', ['--help'])
    assert done.returncode == 0 and calls == []
    assert done.stdout.startswith('usage: egress6_win.py [ct|cu|cm] [y|n] [y|n] [options]')
    for flag in ('--lookup-url URL', '--trace-host HOST', '--persistent', '--dry-run', 'DDNS_CODEPAGE'):
        assert flag in done.stdout


# --- pieces that only Windows exercises -----------------------------------------------------------
@pytest.fixture(scope='module')
def tool():
    spec = importlib.util.spec_from_file_location('egress6_win', os.path.join(ROOT, 'bin', 'egress6_win.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_administrator_check_on_windows(tool, capsys):
    from ddkit import Failure
    with pytest.raises(Failure, match='administrator rights are needed.*egress6_win.cmd'):
        tool.check_admin(False, platform='nt', is_admin=lambda: False)
    tool.check_admin(True, platform='nt', is_admin=lambda: False)      # a dry run changes nothing
    tool.check_admin(False, platform='nt', is_admin=lambda: True)
    assert capsys.readouterr().err == ''
    tool.check_admin(False, platform='posix')
    assert 'warning: this is not Windows' in capsys.readouterr().err


def test_headings_with_a_full_width_colon(tool):
    text = ('接口 14：以太网 2\n\n地址类型  DAD 状态\n---------  ---------\n临时  首选项  1d  1h  2409::5\n\n'
            '接口 21：vEthernet\n\n公用  首选项  1d  1h  2409::6\n')
    found = tool.parse_addresses(text, '14')
    assert [(a.text, a.temporary) for a in found] == [('2409::5', True)]


def test_default_lookups_and_trace_host(tool):
    from ddkit import egress
    opts = tool.parse_command_line(['ct'])
    assert opts.lookup_urls == list(egress.LOOKUP_URLS) and opts.trace_host == 'ipv6.lookup.test-ipv6.com'
    assert tool.url_host('http://[::1]:8080/ip?x=1') == '::1'
    assert tool.parse_command_line(['--lookup-url', 'http://[::1]:9/', '--trace-host', 'a.cn']).trace_host == 'a.cn'


def test_netsh_missing_is_a_clear_failure(tmp_path):
    log = tmp_path / 'calls.jsonl'
    done = run_tool('egress6_win', ['ct', 'n', 'n'], env={'PATH': str(tmp_path), 'WIN_CALL_LOG': str(log)})
    assert done.returncode == 1 and 'Traceback' not in done.stderr
    assert 'egress6_win: cannot run netsh: ' in done.stderr and not log.exists()


def test_launcher_elevates_and_keeps_crlf():
    with open(os.path.join(ROOT, 'windows', 'egress6_win.cmd'), 'rb') as f:
        data = f.read()
    assert data.count(b'\r\n') == data.count(b'\n')     # cmd.exe misreads labels in LF-only files
    assert b'-Verb RunAs' in data and b'egress6_win.py' in data
