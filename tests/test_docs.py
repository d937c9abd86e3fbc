"""README.md and docs/: every repository file they name exists, and no file outside the repository
(the spec documents the project was built from) is cited."""

import os
import re

import pytest

from conftest import ROOT

DOCS = ['README.md'] + [os.path.join('docs', f) for f in sorted(os.listdir(os.path.join(ROOT, 'docs')))]
TOP = ('bin/', 'lib/', 'tests/', 'tools/', 'docs/', 'openwrt/', 'windows/', '.ci/')


def read(name):
    with open(os.path.join(ROOT, name), encoding='utf-8') as f:
        return f.read()


@pytest.mark.parametrize('name', DOCS)
def test_named_repository_files_exist(name):
    text = read(name)
    here = os.path.dirname(os.path.join(ROOT, name))
    links = [os.path.normpath(os.path.join(here, target.split('#')[0]))
             for target in re.findall(r'\]\(([^)#:]+)(?:#[^)]*)?\)', text)]
    paths = [os.path.join(ROOT, p.rstrip('/.,')) for p in re.findall(r'`([^` ]+)`', text)
             if p.startswith(TOP) and '<' not in p and '*' not in p]
    missing = [p for p in links + paths if not os.path.exists(p)]
    assert missing == [], missing


@pytest.mark.parametrize('name', DOCS)
def test_no_citation_of_files_outside_the_repository(name):
    text = read(name)
    assert 'service.md' not in text and 'interface.md' not in text
    assert not re.search(r'\bthe spec\b', text, re.I)


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
    for doc in ('docs/install.md', 'docs/config.md', 'docs/troubleshooting.md', 'docs/security.md',
                'docs/check.md', 'docs/schedule.md', 'docs/egress6.md'):
        assert '](%s)' % doc in text, doc
    assert 'tests/test_updater_a.py' in text and 'make test-full' in text   # one file; the full tables


@pytest.mark.parametrize('name', DOCS + ['BENCHMARKS.md', os.path.join('windows', 'README.md')])
def test_no_tracker_numbers_in_the_documents(name):
    assert not re.search(r'\bissues? \d+', read(name), re.I), name
