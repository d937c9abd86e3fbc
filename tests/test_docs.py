"""README.md and the other documents: every repository file and section they link exists, every flag
they name is one a tool takes, the reference tables cover what the tools do, and no document cites
a file outside the repository or a tracker number."""

import ast
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

DOCS = ['README.md'] + [os.path.join('docs', f) for f in sorted(os.listdir(os.path.join(ROOT, 'docs')))
                        if f.endswith('.md')]
ALL = DOCS + ['BENCHMARKS.md', os.path.join('windows', 'README.md')]
TOP = ('bin/', 'lib/', 'tests/', 'tools/', 'docs/', 'openwrt/', 'windows/', '.ci/')
TOOLS = ('ddkit', 'updater_a', 'updater_b', 'egress6', 'egress6_win')
# flags of other programs the documents show (apk, ip6tables, winget) and of the build tools
# flags of the other programs the documents show (apk, ip6tables, winget, pip, docker)
OTHER_FLAGS = {'--allow-untrusted', '--keys-dir', '--to-source', '--line-number', '--id',
               '--no-build-isolation', '--init', '--name', '--network', '--restart', '--rm', '--user'}


def read(name):
    with open(os.path.join(ROOT, name), encoding='utf-8') as f:
        return f.read()


def prose(text):
    """The text without its fenced code blocks (a `#` line there is a shell comment, not a heading)."""
    return re.sub(r'^```.*?^```', '', text, flags=re.S | re.M)


def anchors(name):
    """The anchors GitHub makes for the headings of a document."""
    found = set()
    for heading in re.findall(r'^#{1,6} +(.+?) *$', prose(read(name)), re.M):
        slug = re.sub(r'[^\w\- ]', '', heading.lower().replace('`', '')).replace(' ', '-')
        n = 0
        while (slug if not n else '%s-%d' % (slug, n)) in found:
            n += 1
        found.add(slug if not n else '%s-%d' % (slug, n))
    return found


def links(name):
    """[(target file relative to ROOT, anchor or '')] of the relative links in a document."""
    here = os.path.dirname(name)
    out = []
    for target in re.findall(r'\]\(([^)\s]+)\)', read(name)):
        if re.match(r'[a-z]+:', target):
            continue
        path, _, anchor = target.partition('#')
        out.append((os.path.normpath(os.path.join(here, path)) if path else name, anchor))
    return out


@pytest.mark.parametrize('name', ALL)
def test_named_repository_files_exist(name):
    text = read(name)
    paths = [p.rstrip('/.,') for p in re.findall(r'`([^` ]+)`', text)
             if p.startswith(TOP) and '<' not in p and '*' not in p]
    missing = [p for p, _ in links(name) if not os.path.exists(os.path.join(ROOT, p))]
    missing += [p for p in paths if not os.path.exists(os.path.join(ROOT, p))]
    assert missing == [], missing


@pytest.mark.parametrize('name', ALL)
def test_every_relative_link_reaches_its_section(name):
    broken = ['%s#%s' % (path, anchor) for path, anchor in links(name)
              if anchor and path.endswith('.md') and os.path.exists(os.path.join(ROOT, path))
              and anchor not in anchors(path)]
    assert broken == [], broken


@pytest.mark.parametrize('name', ALL)
def test_no_citation_of_files_outside_the_repository(name):
    text = read(name)
    assert 'service.md' not in text and 'interface.md' not in text and 'shared/spec' not in text
    assert not re.search(r'\bthe spec\b', text, re.I)
    # the numbered rules and procedures of the documents the project was built from
    assert not re.search(r'\b(rule|procedure|step) \d+\.\d+|\b(Rule|Procedure) \d', text), name
    assert not re.search(r'\bthe issue\b', text, re.I), name


@pytest.mark.parametrize('name', ALL)
def test_no_tracker_numbers_in_the_documents(name):
    assert not re.search(r'\bissues? \d+|#\d{1,4}\b(?!\])', prose(read(name)), re.I), name


@pytest.fixture(scope='module')
def helps():
    """{tool: its --help text}."""
    return {tool: subprocess.run([sys.executable, os.path.join(ROOT, 'bin', tool + '.py'), '--help'],
                                 capture_output=True, text=True, check=True).stdout for tool in TOOLS}


def long_flags(text):
    return set(re.findall(r'(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]', text))


def test_every_flag_the_documents_name_exists(helps):
    """A flag in a document is one a tool takes (--help), one of the build tools in tools/, or one of
    the few other programs shown (apk, ip6tables, winget)."""
    known = set().union(*(long_flags(h) for h in helps.values())) | OTHER_FLAGS
    for script in os.listdir(os.path.join(ROOT, 'tools')):
        if script.endswith('.py'):
            known |= long_flags(read(os.path.join('tools', script)))
    unknown = {name: sorted(long_flags(read(name)) - known) for name in ALL}
    assert {k: v for k, v in unknown.items() if v} == {}


def test_the_settings_page_lists_every_option_of_every_tool(helps):
    text = read(os.path.join('docs', 'settings.md'))
    for tool, help_text in helps.items():
        options = {re.match(r'  (-\w, )?(--[\w-]+)', line).group(2) for line in help_text.split('\n')
                   if re.match(r'  (-\w, )?--\w', line)}
        # a flag by itself, or the setting of that name (the page says a setting's flag is its name)
        missing = [o for o in options if o not in long_flags(text) and '`%s`' % o[2:].replace('-', '_') not in text]
        assert options and missing == [], (tool, missing)
    for tool in ('updater_a', 'updater_b'):   # and every setting under its own name
        for flag in long_flags(helps[tool]):
            setting = flag[2:].replace('-', '_')
            if flag not in ('--help', '--version', '--config', '--uci', '--force', '--dry-run', '--quiet',
                            '--check', '--all', '--status', '--json', '--notify-test', '--every'):
                assert '`%s`' % setting in text, setting


def test_the_providers_settings_table_is_made_from_their_modules():
    """docs/settings.md shows each provider's own settings as the modules declare them: `make docs`
    writes the table, so a new provider, or a changed help text, reaches the page."""
    sys.path.insert(0, os.path.join(ROOT, 'tools'))
    import settings_doc
    text = read(os.path.join('docs', 'settings.md'))
    assert settings_doc.current(text) == text, 'docs/settings.md is out of date: run make docs'
    from ddkit import registry
    for name in registry.PROVIDERS:   # every setting of every provider, with its provider
        for setting in registry.provider(name).SETTINGS:
            assert '| `%s`' % setting.name in text and '| `%s` |' % name in text, (name, setting.name)


def fixes(tool):
    """The error codes a provider module has a fix for: the keys of its FIXES table."""
    import providers
    return list(providers.of(tool).module().FIXES)


@pytest.mark.parametrize('tool', ['updater_a', 'updater_b'])
def test_the_providers_page_explains_every_error_code_the_tool_has_a_fix_for(tool):
    rows = [line.split('|')[1] for line in read(os.path.join('docs', 'providers.md')).split('\n')
            if line.startswith('| ')]
    codes = fixes(tool)
    missing = [code for code in codes if not any(re.search(r'\b%s\b' % re.escape(str(code)), row)
                                                 for row in rows)]
    assert codes and missing == [], missing


@pytest.mark.parametrize('name', ['updater_a', 'updater_b', 'egress6'])
def test_an_installed_uci_file_is_printed_once_and_as_shipped(name):
    """The file as the package installs it, in one document only, line for line."""
    with open(os.path.join(ROOT, 'openwrt', 'files', name + '.config'), encoding='utf-8') as f:
        shipped = f.read().rstrip('\n').split('\n')
    block = '\n'.join('    ' + line if line else '' for line in shipped)
    holding = [doc for doc in ALL if block in read(doc)]
    showing = [doc for doc in ALL if re.search('^    %s$' % re.escape(shipped[0]), read(doc), re.M)]
    if name == 'updater_b':   # its file is updater_a's with B's credentials: said, not printed
        assert holding == [], holding
        return
    assert holding == [os.path.join('docs', 'uci.md')], holding
    assert showing == holding, showing


def test_readme_is_for_users_and_links_the_moved_material():
    text = read('README.md')
    for heading in ('## Install on a router', '### opkg', '### apk', '## Updater A', '## Updater B',
                    '## The config file', '## Running it on a schedule', '## Troubleshooting', '## Security'):
        assert heading in text, heading
    for doc in ('docs/fault-matrix.md', 'docs/benchmarks.md', 'docs/design.md'):
        assert '](%s)' % doc in text
    assert '### Network and provider' not in text   # the fault matrix lives in docs/ now


def test_readme_is_a_front_page():
    lines = read('README.md').splitlines()
    assert len(lines) <= 400, len(lines)
    text = '\n'.join(lines)
    assert "Cloudflare's API" in text and 'Huawei Cloud' in text   # what providers A and B are
    for doc in ('docs/install.md', 'docs/config.md', 'docs/settings.md', 'docs/uci.md', 'docs/providers.md',
                'docs/troubleshooting.md', 'docs/security.md', 'docs/check.md', 'docs/schedule.md',
                'docs/egress6.md'):
        assert '](%s)' % doc in text, doc
    for command in ('make demo', 'make test', 'make test-full', '--check', '--version'):
        assert command in text, command
    assert '.venv/bin/python -m pytest -q tests/test_updater_a.py' in text   # one file


def test_every_document_is_reachable_from_the_readme():
    seen, todo = set(), ['README.md']
    while todo:
        name = todo.pop()
        if name in seen or not name.endswith('.md') or not os.path.exists(os.path.join(ROOT, name)):
            continue
        seen.add(name)
        todo += [path for path, _ in links(name)]
    assert sorted(set(ALL) - seen) == []


def test_benchmarks_keeps_the_markers_the_bench_rewrites():
    """tools/bench.py --write replaces what stands between its two markers: both must stay, once each."""
    begin, end = re.search(r"^BEGIN, END = '([^']+)', '([^']+)'$", read(os.path.join('tools', 'bench.py')),
                           re.M).groups()
    text = read('BENCHMARKS.md')
    assert text.count(begin) == 1 and text.count(end) == 1 and text.index(begin) < text.index(end)
    assert '](docs/benchmarks.md)' in text and '](../BENCHMARKS.md)' in read(os.path.join('docs', 'benchmarks.md'))


# the documents a user reads first for any provider: written for ddkit and every provider, the older
# commands (each fixed to a provider) named beside it
FOR_EVERY_PROVIDER = [os.path.join('docs', name) for name in ('troubleshooting.md', 'check.md', 'settings.md')]


def test_the_docs_speak_of_ddkit_and_every_provider():
    """No document speaks as if there were two providers; in those of FOR_EVERY_PROVIDER a paragraph
    or table row naming updater_a or updater_b names ddkit too; the system log is read by ddkit's tag."""
    for name in DOCS:
        for found in re.finditer(r'providers A and B|provider A \([^)]*\) and provider B', read(name)):
            pytest.fail('%s speaks of two providers: %r' % (name, found.group(0)))
    for name in FOR_EVERY_PROVIDER:
        for part in re.split(r'\n\s*\n|\n(?=\|)', prose(read(name))):
            if re.search(r'\bupdater_[ab]\b', part):
                assert re.search(r'\bddkit\b', part), '%s names only the older commands:\n%s' % (name, part)
    assert 'logread -e ddkit' in read(os.path.join('docs', 'troubleshooting.md'))
    credentials = re.search(r'^\| credentials accepted \|(.*)$', read(os.path.join('docs', 'check.md')), re.M).group(1)
    assert 'only told the IP' in credentials and ' A: ' not in credentials and ' B: ' not in credentials
