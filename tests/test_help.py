"""--help of the four tools: at most 80 columns, option texts aligned, the operators named in the
same order by both selectors, and the name the user typed in the usage line."""

import os
import re

import pytest

from conftest import run_tool, tool_path

TOOLS = ['updater_a', 'updater_b', 'egress6', 'egress6_win']


@pytest.mark.parametrize('tool', TOOLS)
def test_help_fits_80_columns_with_aligned_option_texts(tool):
    done = run_tool(tool, ['--help'])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, [line for line in lines if len(line) > 80]
    options = [line for line in lines if re.match(r'  -', line)]
    assert options
    for line in options:  # an option's text starts at column 24, or on the next line when the flag is long
        alone = '  ' not in line.strip()  # a long flag on a line of its own, its text below
        assert alone or line[23] == ' ' and line[24] != ' ', line


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
