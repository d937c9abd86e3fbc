"""--help of every tool: at most 80 columns (a Chinese character takes two), option texts aligned,
the operators named in the same order by both selectors, and the name the user typed in the usage
line; the ddkit command's first screen short, each provider's own settings behind --provider NAME
--help; what only the command line needs (a secret's argv, -h) said by --help, not by the settings'
help; the settings' labels."""

import os
import re
import sys
import unicodedata

import pytest

from conftest import ROOT, run_tool, sampled, tool_path

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import helptext, registry, updater  # noqa: E402
from ddkit.settings import Setting  # noqa: E402

TOOLS = ['updater_a', 'updater_b', 'egress6', 'egress6_win', 'ddkit']
HELPS = [(tool, ['--help']) for tool in TOOLS] + [('ddkit', ['--provider', name, '--help'])
                                                   for name in registry.PROVIDERS]


def columns(line):
    """The columns a terminal gives line: two for an East Asian wide or fullwidth character."""
    return sum(2 if unicodedata.east_asian_width(c) in 'WF' else 1 for c in line)


@pytest.fixture
def shown(call_tool, monkeypatch, capsys):
    """shown(tool, args): what the tool prints, exit 0 and nothing on stderr. A tool's own --help comes
    from a process, as a user sees it; a provider's (ddkit --provider NAME --help, a hundred of them)
    from ddkit's main in this process, which prints the same text without the start of a process."""
    def show(tool, args):
        if '--provider' in args:
            return ddkit_help(call_tool, monkeypatch, capsys, *args)
        done = run_tool(tool, args)
        assert done.returncode == 0 and done.stderr == '', done.stderr
        return done.stdout
    return show


@pytest.mark.parametrize('tool, args', HELPS, ids=[' '.join([t] + a) for t, a in HELPS])
def test_help_fits_80_columns_with_aligned_option_texts(shown, tool, args):
    lines = shown(tool, args).splitlines()
    assert [line for line in lines if columns(line) > 80] == []
    options = [line for line in lines if re.match(r'  -', line)]
    assert options
    for line in options:  # an option's text starts at column 24, or on the next line when the flag is long
        alone = '  ' not in line.strip()  # a long flag on a line of its own, its text below
        assert alone or line[23] == ' ' and line[24] != ' ', line


def test_the_first_screen_of_ddkit_is_short_and_says_where_each_providers_settings_are(shown):
    text = shown('ddkit', ['--help'])
    lines = text.splitlines()
    assert len(lines) < 100, len(lines)
    assert lines[1].split() == ['ddkit.py', '--provider', 'NAME', '--help']
    assert '\nproviders (ddkit --provider NAME --help shows the settings of one):\n' in text
    # the usual settings in full, every other one named
    for setting in updater.COMMON:
        assert setting.flag in text, setting.name
    assert '-z, --zone-name' in text and '-h, --record-name' in text and '--ip-source' in text
    assert '--doh-url VALUE' not in text and '--notify URL' not in text


def test_each_provider_is_one_line_of_the_first_screen(shown):
    """A provider's summary fits its line beside its name: within 80 columns less the names' column."""
    listed = shown('ddkit', ['--help']).split('\nproviders (', 1)[1].split('\n\n')[0].splitlines()[1:]
    names = [line.split()[0] for line in listed if not line.startswith('   ')]
    # ddns-scripts' update URLs in one row, the first of them naming it (ddkit --providers lists each)
    services = registry.services()
    assert names == [name for name in registry.PROVIDERS if name not in services] + [services[0]]
    room = 80 - (4 + max(len(name) for name in names))
    widths = {name: columns(registry.provider(name).SUMMARY) for name in names}
    assert {name: width for name, width in widths.items() if width > room} == {}, 'longer than %d columns' % room
    assert len(listed) == len(names)


@pytest.mark.parametrize('name', [name for name in registry.PROVIDERS if name not in registry.services()] +
                         sampled(registry.services()))
def test_a_providers_help_tells_its_own_settings_and_every_records(shown, name):
    text = shown('ddkit', ['--provider', name, '--help'])
    own, common = text.split('\nsettings of provider %s:\n' % name)[1].split('\nsettings of every record:\n')
    for setting in registry.provider(name).SETTINGS:
        assert re.search(r'^  (-\w, )?%s( |$)' % setting.flag, own, re.M), setting.name
    for setting in updater.COMMON:
        assert re.search(r'^  (-\w, )?%s( |$)' % setting.flag, common, re.M), setting.name


def option_of(text, flag):
    """The words of one option of --help: its flag's line and the lines of its text below."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r'  (-\w, )?%s( |$)' % flag, line))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith(' ' * 24))
    return ' '.join(' '.join(lines[start:end]).split())


@pytest.mark.parametrize('name', registry.PROVIDERS)
def test_help_says_a_secrets_flag_is_seen_by_other_users(shown, name):
    """For every secret setting, whatever its help says: the note is --help's own."""
    text = shown('ddkit', ['--provider', name, '--help'])
    table = registry.provider(name).SETTINGS + updater.COMMON
    for setting in table:
        said = option_of(text, setting.flag)
        note = 'any user of the host may read a flag (argv): prefer %s or --config' % setting.env
        assert (note in said) == bool(setting.secret), said
        assert 'argv' not in setting.help   # the catalog's help (the LuCI page's) says none of it


def test_help_of_the_command_line_alone(shown):
    """record_name's -h, and how a flag gives several values, are said by --help alone."""
    text = shown('updater_a', ['--help'])
    assert '-h is this setting, as in the original script: help is --help' in option_of(text, '--record-name')
    assert option_of(text, '--ip-lookup-url').endswith('; several: repeat the flag')
    assert option_of(text, '--lines').endswith('; several: repeat the flag, or commas or blanks between them')
    for setting in updater.COMMON:
        assert '-h ' not in setting.help and 'the flag' not in setting.help, setting.name


def test_wrapped_text_keeps_within_its_columns():
    wide = 'Keep one record at West.cn 西部数码西部数码西部数码 (API v2) equal to this host\'s public IP.'
    for width in (20, 40, 56):
        lines = helptext.wrap(wide, width)
        assert ''.join(lines).replace(' ', '') == wide.replace(' ', '')   # no word lost, one cut at 20
        assert max(columns(line) for line in lines) <= width, lines
    # a word longer than a line is cut, never over the edge
    url = 'https://' + 'x' * 90 + '.example'
    lines = helptext.option_lines('--ip-lookup-url URL', 'services: %s, then more' % url)
    assert max(columns(line) for line in lines) <= 80 and url in ''.join(line.strip() for line in lines), lines
    assert all(columns(line) <= 80 for line in helptext.option_lines('--x', '西部数码' * 40))


def test_a_setting_is_labelled_by_its_own_label_or_its_name_in_words():
    assert [helptext.label(Setting(name)) for name in (
        'api_token', 'ip_lookup_url', 'doh_url', 'secret_id', 'ipv6_prefix', 'record_ttl', 'dns_url', 'ca_file',
        'zone_name', 'timeout')] == [
        'API token', 'IP lookup URL', 'DoH URL', 'Secret ID', 'IPv6 prefix', 'Record TTL', 'DNS URL', 'CA file',
        'Zone name', 'Timeout']
    assert helptext.label(Setting('state_dir', label='State directory')) == 'State directory'


@pytest.mark.parametrize('tool', ['egress6', 'egress6_win'])
def test_selectors_name_the_operators_in_one_order(tool):
    text = ' '.join(run_tool(tool, ['--help']).stdout.split())
    assert 'ct = China Telecom (240e), cm = China Mobile (2409), cu = China Unicom (2408)' in text


@pytest.mark.parametrize('tool', TOOLS)
def test_usage_names_the_command_as_typed(tool, tmp_path):
    # installed as /usr/bin/<tool> (no .py): usage says that name
    link = tmp_path / tool
    os.symlink(tool_path(tool), str(link))
    done = run_tool(str(link), ['--help'])
    assert done.returncode == 0 and done.stdout.startswith('usage: %s ' % tool), done.stdout + done.stderr
    assert run_tool(tool, ['--help']).stdout.startswith('usage: %s.py ' % tool)


# --- a provider's help alone: what it requires, its settings marked, where to read first -----------

def ddkit_help(call_tool, monkeypatch, capsys, *args):
    """What ddkit prints for these arguments (in this process: --help makes no request)."""
    status, out, err = call_tool('ddkit', list(args), {}, monkeypatch, capsys)
    assert status == 0 and err == '', err
    return out


@pytest.mark.parametrize('name', ['porkbun', 'desec', 'edgeone', 'noip', 'cloudflare'])
def test_a_providers_help_marks_its_settings_and_says_which_are_required(call_tool, monkeypatch, capsys, name):
    """Each of the provider's own settings says whose it is and whether a record of it needs it; the
    summary names the required settings; record_name (every provider's) is marked required."""
    from ddkit.provider import required
    needs = required(registry.provider(name))
    text = ddkit_help(call_tool, monkeypatch, capsys, '--provider', name, '--help')
    assert 'Provider %s requires %s' % (name, ', '.join(needs)) in ' '.join(text.split())
    for setting in registry.provider(name).SETTINGS:
        said = option_of(text, setting.flag)
        mark = '(%s, required) ' % name if setting.name in needs else '(%s) ' % name
        assert said.split(None, len(setting.flag.split()) + 1)[-1].startswith(mark) or mark in said, said
        assert said.count('(%s' % name) == 1, said
    assert '(required) the record to keep updated' in option_of(text, '--record-name')
    assert ('(required)' in option_of(text, '--zone-name')) == ('zone_name' in needs)


def pointed(text):
    """The place of docs/providers.md a provider's --help sends the reader to: ('section', name) or
    ('row', name)."""
    words = ' '.join(text.split())
    found = re.search(r'docs/providers\.md, the (section headed|row) `([^`]+)`', words)
    assert found, words
    return ('section' if found.group(1) == 'section headed' else 'row'), found.group(2)


@pytest.mark.parametrize('name', [name for name in registry.PROVIDERS if name not in registry.services()] +
                         sampled(registry.services(), 3))
def test_a_providers_help_points_to_its_section_of_the_providers_page(call_tool, monkeypatch, capsys, name):
    """What the account needs first (Porkbun's per-domain API access, EdgeOne's NS-mode site) is in
    the provider's section of docs/providers.md: the help names a heading or a table row that is there."""
    kind, named = pointed(ddkit_help(call_tool, monkeypatch, capsys, '--provider', name, '--help'))
    assert named == name
    with open(os.path.join(ROOT, 'docs', 'providers.md'), encoding='utf-8') as f:
        page = f.read()
    wanted = r'^## .*`%s`' % re.escape(name) if kind == 'section' else r'^\| `%s` \|' % re.escape(name)
    assert re.search(wanted, page, re.M), (kind, name)


def test_the_help_and_the_provider_list_call_the_two_first_providers_by_their_names(call_tool, monkeypatch,
                                                                                    capsys):
    """--help and --providers say Cloudflare and Huawei Cloud, not "DNS provider A" and "cloud provider
    B" (the original service's words, which a user of the help alone cannot look up)."""
    for args in (['--help'], ['--providers']):
        text = ddkit_help(call_tool, monkeypatch, capsys, *args)
        rows = {line.split()[0]: line for line in text.splitlines() if line.split()[:1] in (['cloudflare'],
                                                                                          ['huaweicloud'])}
        assert 'Cloudflare' in rows['cloudflare'] and 'Huawei Cloud' in rows['huaweicloud'], rows
        assert 'provider A' not in text and 'provider B' not in text
