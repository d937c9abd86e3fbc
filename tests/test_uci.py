"""`--uci SECTION`: settings read from /etc/config/<tool> by ddkit.uci (no `uci` binary), with the
same names as everywhere else, below flags and environment, above --config and the defaults."""

import json
import os
import re
import sys

import pytest

from conftest import RECORD, ROOT, in_process
from openwrt_env import quoted

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import UsageError, settings, uci, updater  # noqa: E402

SAMPLE = '''# comment line
package updater_a

config updater_a 'home'
	option enabled '1'
	option interface wan
	option zone_name "example.com"   # trailing comment
	option record_name 'home.example.com'
	option record_type AAAA
	option log_file "/tmp/it's \\"here\\".log"

config updater_a
	option zone_name 'second.example'
	list interface 'wan'
	list interface 'wan6'

config other 'x'
	option a 'b'
'''


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / 'updater_a'
    path.write_text(SAMPLE)
    return str(path)


CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'uci')


def cases(name):
    with open(os.path.join(CASES, name), encoding='utf-8') as f:
        return json.load(f)['cases']


SHARED_CASES = os.path.join(ROOT, os.pardir, 'shared', 'spec', 'uci-cases.json')


# the shared spec is the developers' sibling checkout, not part of this repository: a clean clone
# (CI) has only the copy, which this row compares where both are
@pytest.mark.skipif(not os.path.exists(SHARED_CASES), reason='no ../shared/spec beside this checkout')
def test_case_copy_matches_the_shared_spec():
    shared = SHARED_CASES
    with open(shared, 'rb') as a, open(os.path.join(CASES, 'uci-cases.json'), 'rb') as b:
        assert a.read() == b.read()


ALL_CASES = [('shared', i, c) for i, c in enumerate(cases('uci-cases.json'))] + \
            [('ours', i, c) for i, c in enumerate(cases('uci-cases-ours.json'))]


@pytest.mark.parametrize('case', [c for _, _, c in ALL_CASES],
                         ids=['%s-%d' % (f, i) for f, i, _ in ALL_CASES])
def test_reader_loads_what_libuci_loads(tmp_path, case):
    """Every case of the oracle (what `uci export` of OpenWrt loads) and of ours (uci-cases-ours.json
    says why each result is libuci's): the sections in order, options in order, lists, or refused."""
    path = tmp_path / 'config'
    path.write_bytes(case['file'].encode('utf-8'))
    if case['sections'] is None:
        with pytest.raises(UsageError, match=r'^UCI file %s line \d+: \S' % re.escape(str(path))):
            uci.read(str(path))
        return
    loaded = [{'type': t, 'name': n, 'options': list(o.items())} for t, n, o in uci.read(str(path))]
    assert loaded == [dict(s, options=list(s['options'].items())) for s in case['sections']]


@pytest.mark.parametrize('text, line, why', [
    ("config t a\n\toption x 'ok'\n\toption y 'open\n\toption z 'z'\n", 3, 'never closed'),
    ("config t a\n\toption x 'ok'\n\n\toption y a b\n", 4, 'too many words'),
    ("config t a\n\toption x 'two\nlines'\n\toption zone-name x\n", 4, "bad name 'zone-name'"),
    ("config t 'a b'\n", 1, "bad name 'a b'"),
    ("config t a\nconfig u a\n", 2, 'section a has type t above'),
    ("\toption x 1\nconfig t a\n", 1, 'option before the first config'),
    ("config t a\n\tbogus line here\n", 2, "expected config, option or list, got 'bogus'"),
    ("config t a\n\toption x '\0'\n", 2, "a ' quote is never closed"),   # as in C: a NUL ends the line
    ("config t a\nconfig", 2, 'config without a name'),
])
def test_a_refused_file_names_the_line_and_why(tmp_path, text, line, why):
    path = tmp_path / 'config'
    path.write_text(text)
    with pytest.raises(UsageError) as e:
        uci.read(str(path))
    message = str(e.value)
    assert message.startswith('UCI file %s line %d: ' % (path, line)) and why in message, message


def test_a_file_not_utf8_is_one_line(tmp_path):
    path = tmp_path / 'config'
    path.write_bytes(b"config t a\n\toption x 'ok'\n\toption y '\xe9'\n")
    with pytest.raises(UsageError, match="cannot read UCI file .*: 'utf-8' codec can't decode"):
        uci.read(str(path))


def test_an_anonymous_section_answers_to_the_id_uci_gives_it(tmp_path):
    """`uci -X show` and LuCI name anonymous sections cfg<counter><hash of the type> (list.c
    uci_fixup_section); system.cfg01e48a is the first section of every OpenWrt's /etc/config/system."""
    assert uci.anonymous_id(1, 'system') == 'cfg01e48a'
    path = tmp_path / 'updater_a'
    path.write_text("config updater_a\n\toption n '0'\nconfig updater_a 'x'\n"
                    "config updater_a\n\toption n '2'\n")
    assert uci.section(str(path), uci.anonymous_id(3, 'updater_a')) == {'n': '2'}
    assert uci.section(str(path), uci.anonymous_id(1, 'updater_a')) == {'n': '0'}
    with pytest.raises(UsageError, match='@<type>'):   # the second section is named x
        uci.section(str(path), uci.anonymous_id(2, 'updater_a'))


def test_the_counter_of_an_id_goes_past_ff(tmp_path):
    """%02x is two digits at least: the 257th section is cfg101<hash>, as `uci -X show` prints it."""
    path = tmp_path / 'updater_a'
    path.write_text("config t\n\toption n '%d'\n" * 257 % tuple(range(257))
                    + "config t cfg101b619\n\toption m 'x'\n")
    assert uci.anonymous_id(257, 't') == 'cfg101b619'
    assert uci.section(str(path), 'cfg101b619') == {'n': '256', 'm': 'x'}
    assert len(uci.read(str(path))) == 257


@pytest.mark.parametrize('ref', ['cfg1e13a', 'cfg001e13a', 'cfg0x1e13a', 'cfg 1e13a', 'cfg01E13A',
                                 'CFG01e13a', 'cfg00e13a', 'cfg05e13a', 'cfg01e13', 'cfg', 'cfg01b619'])
def test_an_id_libuci_would_not_make_is_no_section(tmp_path, ref):
    path = tmp_path / 'updater_a'
    path.write_text(INDEXED)
    with pytest.raises(UsageError, match='no section'):
        uci.section(str(path), ref)


def test_a_run_without_a_cfg_id_hashes_nothing(sample, monkeypatch):
    """The ids cost nothing unless a name looks like one: the counter in it picks the one section to hash."""
    def never(count, kind):
        raise AssertionError('hashed %s' % kind)
    monkeypatch.setattr(uci, 'anonymous_id', never)
    assert uci.section(sample, 'home')['record_type'] == 'AAAA'
    assert uci.section(sample, '@updater_a[1]')['zone_name'] == 'second.example'
    assert [ref for ref, _ in uci.enabled(sample, 'updater_a')] == ['home']
    # a name that looks like an id hashes only when its counter points at an anonymous section
    assert uci.anonymous(uci.read(sample), 'cfg09e13a') is None and uci.anonymous([], 'cfg01e13a') is None
    assert uci.anonymous(uci.read(sample), 'cfg01e13a') is None   # the first section is named home
    with open(sample, 'a') as f:
        f.write("config updater_a 'cfg0ae13a'\nconfig updater_a cfgwxyz\n")
    assert [name for _, name, _ in uci.read(sample)][-2:] == ['cfg0ae13a', 'cfgwxyz']


def test_read_sections_options_and_lists(sample):
    sections = uci.read(sample)
    assert [(kind, name) for kind, name, _ in sections] == [('updater_a', 'home'), ('updater_a', None),
                                                            ('other', 'x')]
    home = sections[0][2]
    assert home['zone_name'] == 'example.com' and home['record_type'] == 'AAAA'
    assert home['log_file'] == '/tmp/it\'s "here".log'
    assert sections[1][2]['interface'] == ['wan', 'wan6']


def test_section_by_name_or_anonymous_index(sample):
    assert uci.section(sample, 'home')['record_name'] == 'home.example.com'
    assert uci.section(sample, '@updater_a[1]')['zone_name'] == 'second.example'
    assert uci.section(sample, '@updater_a[-1]')['zone_name'] == 'second.example'
    for missing in ('nope', '@updater_a[2]', '@updater_a[x]'):
        with pytest.raises(UsageError):
            uci.section(sample, missing)


INDEXED = """config updater_a
	option n '0'
config updater_a 'named'
	option n '1'
config other
	option n 'other'
config updater_a ''
	option n '2'
"""


@pytest.mark.parametrize('ref, n', [('@updater_a[0]', '0'), ('@updater_a[1]', '1'), ('@updater_a[2]', '2'),
                                    ('@updater_a[-1]', '2'), ('@updater_a[-3]', '0'), ('@updater_a[-0]', '0'),
                                    ('@other[0]', 'other'), ('named', '1')])
def test_index_counts_the_sections_of_the_type_in_file_order(tmp_path, ref, n):
    """What the init and hotplug scripts pass for an anonymous section (`config <type> ''` is one too)."""
    path = tmp_path / 'updater_a'
    path.write_text(INDEXED)
    assert uci.section(str(path), ref) == {'n': n}


@pytest.mark.parametrize('ref', ['@updater_a[3]', '@updater_a[-4]', '@updater_a[--1]', '@updater_a[1.0]',
                                 '@updater_a[x]', '@nope[0]', '@updater_a[0'])
def test_index_out_of_range_or_malformed_is_no_section(tmp_path, ref):
    path = tmp_path / 'updater_a'
    path.write_text(INDEXED)
    with pytest.raises(UsageError, match='no section'):
        uci.section(str(path), ref)


def test_uci_id_of_an_anonymous_section_reads_it_or_says_how_to_name_it(tmp_path):
    """`uci -X show` prints an anonymous section as cfgXXXXXX, an id libuci makes up as it loads the file;
    an id from another version of the file names the ids of this one and their @type[n] forms."""
    path = tmp_path / 'updater_a'
    path.write_text(INDEXED)
    assert uci.section(str(path), 'cfg01e13a') == {'n': '0'}
    assert uci.section(str(path), uci.anonymous_id(3, 'other')) == {'n': 'other'}
    assert uci.section(str(path), 'cfg04e13a') == {'n': '2'}   # `config updater_a ''` is anonymous too
    with pytest.raises(UsageError) as e:
        uci.section(str(path), 'cfg09e13a')
    assert re.search(r'no section cfg09e13a in UCI file \S+; anonymous sections: '
                     r'cfg01e13a = @updater_a\[0\], %s = @other\[0\], cfg04e13a = @updater_a\[2\] '
                     r'\(.*@<type>\[<n>\]' % uci.anonymous_id(3, 'other'), str(e.value)), str(e.value)
    path.write_text("config updater_a 'home'\n")
    with pytest.raises(UsageError, match=r'no section cfg01e13a .*; it has no anonymous section \(.*@<type>'):
        uci.section(str(path), 'cfg01e13a')


def test_a_name_given_again_adds_to_that_section_in_its_first_place(tmp_path):
    """As libuci's parser (file.c uci_parse_config looks the name up and sets into that section), so
    that @type[n] counts what uci counts."""
    path = tmp_path / 'updater_a'
    path.write_text("config updater_a 'home'\n\toption a '1'\nconfig updater_a\n\toption b '2'\n"
                    "config updater_a 'home'\n\toption a '3'\n\toption c '4'\n")
    assert uci.read(str(path)) == [('updater_a', 'home', {'a': '3', 'c': '4'}), ('updater_a', None, {'b': '2'})]
    assert uci.section(str(path), '@updater_a[1]') == {'b': '2'}


def test_bad_lines_name_the_file_and_line(tmp_path):
    path = tmp_path / 'bad'
    path.write_text("config a 'b'\n\tbogus line here\n")
    with pytest.raises(UsageError, match='line 2'):
        uci.read(str(path))


def load(argv, environ):
    """The settings of one record as the updaters read them (flag, environment, UCI, file, default)."""
    args = settings.parse_args(argv, updater.COMMON, updater.SWITCHES, files=True)
    return settings.load(args, updater.COMMON, updater.SWITCHES, environ=environ,
                         **settings.named_section(args, 'updater_a', updater.COMMON, environ))


def test_precedence_flag_then_environment_then_uci_then_config_then_default(sample, tmp_path):
    config = tmp_path / 'conf'
    config.write_text('zone_name=config.example\ndoh_url=https://config.example\n')
    os.chmod(str(config), 0o600)
    cfg = load(['--uci', 'home', '--config', str(config), '--record-name', 'flag.example.com'],
               {'DDNS_UCI_FILE': sample, 'DDNS_RECORD_TYPE': 'A'})
    assert (cfg.record_name, cfg.sources['record_name']) == ('flag.example.com', 'flag')
    assert (cfg.record_type, cfg.sources['record_type']) == ('A', 'environment')
    assert (cfg.zone_name, cfg.sources['zone_name']) == ('example.com', 'uci section')
    assert (cfg.doh_url, cfg.sources['doh_url']) == (['https://config.example'], 'config file')
    assert (cfg.timeout, cfg.sources['timeout']) == (10.0, 'default')


def test_uci_values_are_checked_like_any_other(tmp_path):
    path = tmp_path / 'updater_a'
    path.write_text("config updater_a 'home'\n\toption record_type 'MX'\n")
    with pytest.raises(UsageError, match='record_type'):
        load(['--uci', 'home'], {'DDNS_UCI_FILE': str(path)})


@pytest.mark.parametrize('text, why', [
    ("config updater_a 'home'\n\toption zone_nmae 'x'\n", 'zone_nmae'),
    ("config updater_a 'home'\n\tlist zone_name 'x'\n", 'zone_name'),
])
def test_unknown_options_are_refused_service_options_ignored(tmp_path, text, why):
    path = tmp_path / 'updater_a'
    path.write_text(text)
    with pytest.raises(UsageError, match=why):
        load(['--uci', 'home'], {'DDNS_UCI_FILE': str(path)})
    path.write_text("config updater_a 'home'\n\toption enabled '1'\n\toption interval '60'\n"
                    "\tlist interface 'wan'\n\toption zone_name 'example.com'\n")
    assert load(['--uci', 'home'], {'DDNS_UCI_FILE': str(path)}).zone_name == 'example.com'


def test_an_empty_or_valueless_option_takes_the_default_and_a_list_is_refused(tmp_path):
    """`option x ''` and `option x` set nothing in libuci: the setting falls through to its default;
    an option followed by a list of its name is one list to uci, and a setting is one value."""
    path = tmp_path / 'updater_a'
    path.write_text("config updater_a 'home'\n\toption record_type ''\n\toption timeout\n"
                    "\toption zone_name example.com#the zone\n")
    cfg = load(['--uci', 'home'], {'DDNS_UCI_FILE': str(path)})
    assert (cfg.record_type, cfg.sources['record_type']) == ('A', 'default')
    assert (cfg.timeout, cfg.sources['timeout']) == (10.0, 'default')
    assert (cfg.zone_name, cfg.sources['zone_name']) == ('example.com', 'uci section')
    path.write_text("config updater_a 'home'\n\toption zone_name 'a.example'\n\tlist zone_name 'b.example'\n")
    with pytest.raises(UsageError, match="zone_name is a list; give it once as option zone_name"):
        load(['--uci', 'home'], {'DDNS_UCI_FILE': str(path)})


def test_a_cfg_id_takes_the_defaults_as_a_name_does(tmp_path):
    """`--uci cfgXXXXXX` is one more way to name a record section: `config defaults` still applies."""
    path = tmp_path / 'updater_a'
    path.write_text("config defaults\n\toption zone_name 'example.com'\n"
                    "config updater_a\n\toption record_name 'nas.example.com'\n")
    cfg = load(['--uci', uci.anonymous_id(2, 'updater_a')], {'DDNS_UCI_FILE': str(path)})
    assert (cfg.zone_name, cfg.record_name) == ('example.com', 'nas.example.com')


def test_default_file_is_etc_config_of_the_tool(tmp_path):
    with pytest.raises(UsageError, match='/etc/config/updater_a'):
        load(['--uci', 'home'], {})


@pytest.mark.parametrize('head, ref', [("config updater_a 'home'\n", '@updater_a[0]'),
                                       ("config other 'x'\nconfig updater_a\n", 'cfg02e13a')])
def test_updater_runs_from_a_uci_section_without_a_uci_binary(box, tmp_path, head, ref):
    """By index, or by the id `uci -X show` and LuCI give an anonymous section."""
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    env = box.env_a(str(tmp_path / 'state'))
    path = tmp_path / 'updater_a'
    path.write_text(head + ''.join("\toption %s %s\n" % (k[5:].lower(), quoted(v)) for k, v in env.items()))
    done = in_process('updater_a', ['--uci', ref],
                    env={'DDNS_UCI_FILE': str(path), 'PATH': '/nonexistent'})
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: 81.2.69.10' in done.stdout


@pytest.mark.parametrize('args, message', [
    (['--uci', 'nosuch'], 'no section nosuch'),
    (['--uci', 'cfg01e13a'], 'no section cfg01e13a'),
    (['--uci'], '--uci needs a section name'),
])
def test_bad_uci_use_is_one_line_and_exit_2(tmp_path, args, message):
    path = tmp_path / 'updater_a'
    path.write_text("config updater_a 'home'\n")
    done = in_process('updater_a', args, env={'DDNS_UCI_FILE': str(path)})
    assert done.returncode == 2 and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ''


def test_help_names_the_uci_option():
    done = in_process('updater_b', ['--help'])
    assert done.returncode == 0 and '--uci SECTION' in done.stdout and '/etc/config/updater_b' in done.stdout
