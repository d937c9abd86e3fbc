"""The provider registry is the one list of providers: each registered provider brings what the
contract asks (docs/design.md, "Adding a provider"), and no other file of the code names one, so that
a new provider is its module, its fake, its test table, its docs section and one registry line."""

import os
import re
import subprocess

import pytest

from conftest import ROOT
from providers import PROVIDERS

import sys
sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import registry  # noqa: E402

CONTRACT = ('NAME', 'STEM', 'SUMMARY', 'SETTINGS', 'REQUIRED', 'FILES', 'URLS', 'NOUN', 'FIXES')
# a provider whose records are read: its zone and record calls; one that is only told the IP: send_ip
READ = ('account', 'login', 'list_zones', 'choose_zone', 'find_record', 'read_record', 'create_record',
        'update_record')
TOLD = ('send_ip',)
# the files that may name a provider: its own (module, fake, test adapter, the seed tool fixed to it
# and that tool's tests) and the registry; each other entry says why it must
ALLOWED = {
    'lib/ddkit/registry.py': 'the registry',
    'tests/test_registry.py': 'this check',
    'tests/providers.py': 'the test adapters: one row a provider (its test table)',
    'tools/bench_peers.py': "the peers' own names of the Cloudflare protocol (ddclient's protocol=, NewFuture's "
                            "dns), in the peer comparison",
    'openwrt/Makefile': 'the seed tools\' packages depend on the provider each is fixed to (tools/feed.py '
                        'checks those lines against their imports; nothing else there names one)',
    'tests/fakes/cloudflare-dns-openapi-subset.json': "provider A's published schema",
    'tests/test_fakes.py': "the name of provider A's published schema in the shared spec",
    'tests/requirements.txt': "the providers' official SDKs, test-only: their fakes check each signature "
                              "with the SDK's own signer",
}


def own_files(name):
    module = registry.provider(name)
    files = {'lib/ddkit/providers/%s.py' % name, 'bin/%s.py' % module.STEM}
    files.update(path for path in tracked()
                 if re.match(r'tests/(test_(%s|%s)\w*|fakes/\w+)\.py$' % (module.STEM, name), path)
                 or path.startswith('tests/fakes/'))
    return files


def tracked():
    found = subprocess.run(['git', '-C', ROOT, 'ls-files', 'lib', 'bin', 'tools', 'openwrt', 'tests', '.ci',
                            'Makefile'], capture_output=True, text=True).stdout.split()
    # and the files not committed yet: what a change is about to add
    found += subprocess.run(['git', '-C', ROOT, 'ls-files', '--others', '--exclude-standard', 'lib', 'bin',
                             'tools', 'openwrt', 'tests'], capture_output=True, text=True).stdout.split()
    return sorted(set(p for p in found if os.path.isfile(os.path.join(ROOT, p))))


@pytest.mark.parametrize('name', registry.PROVIDERS)
def test_a_registered_provider_supplies_the_contract(name):
    module = registry.provider(name)
    assert module.NAME == name
    assert [item for item in CONTRACT if not hasattr(module, item)] == []
    from ddkit.provider import told
    if told(module):   # nothing to read: none of the calls that read, no ids
        assert [item for item in READ if hasattr(module, item) and item != 'login'] == []
        assert 'ip_file' in module.FILES and 'ids_file' not in module.FILES
    else:
        assert [item for item in READ if not hasattr(module, item)] == []
        assert {'ip_file', 'ids_file'} <= set(module.FILES)
    lines = getattr(module, 'LINES', None)
    if lines is not None:   # a provider with resolution lines names the default one and each operator's
        assert sorted(lines) == ['cm', 'ct', 'cu', 'default'] and all(isinstance(v, str) and v for v in lines.values())
    if (lines or getattr(module, 'SEVERAL', False)) and not told(module):   # a line's record can go
        assert hasattr(module, 'delete_record'), name
    # its docstring cites the provider's API reference, so a reader checks a request in one click
    assert re.search(r'https://\S+', module.__doc__ or ''), name
    with open(os.path.join(ROOT, 'docs', 'providers.md'), encoding='utf-8') as f:
        assert re.search(r'^## .*`%s`' % name, f.read(), re.M), 'docs/providers.md has no section for ' + name


def test_every_registered_provider_has_a_test_adapter_and_only_those():
    assert sorted(p.provider for p in PROVIDERS) == sorted(registry.PROVIDERS)


def test_no_other_file_names_a_provider():
    named = {}
    for path in tracked():
        try:
            with open(os.path.join(ROOT, path), encoding='utf-8') as f:
                text = f.read()
        except UnicodeDecodeError:
            continue
        for name in registry.PROVIDERS:
            if re.search(r'\b%s\b' % name, text) and path not in own_files(name) and path not in ALLOWED:
                named.setdefault(path, []).append(name)
    assert named == {}, 'these files name a provider; derive what they need from ddkit.registry: %s' % named


def test_the_check_itself_finds_a_name(tmp_path):
    """The word match the check uses finds a provider named in code and in a comment alike."""
    for text in ("if provider == '%s':", '# %s only'):
        assert all(re.search(r'\b%s\b' % name, text % name) for name in registry.PROVIDERS)


def test_every_registered_provider_has_a_fake_the_sandbox_starts():
    from sandbox import fake_classes
    found = fake_classes()
    assert list(found) == list(registry.PROVIDERS)
    assert all(callable(getattr(cls, 'settings', None)) for cls in found.values())
