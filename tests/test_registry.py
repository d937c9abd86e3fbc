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
    'tests/url_services.py': 'what each update-URL service of ddns-scripts\' list is sent, by its name',
    'lib/ddkit/providers/updateurl.py': 'the update URLs of ddns-scripts\' services by their names (SERVICES: '
                                        'dynv6.com, ovh.com, ...), which the registry names alone',
    'lib/ddkit/ddns_import.py': 'ddns-scripts\' update-script services by their names (cloudflare.com-v4, ...) and '
                                'how each script reads its options (the provider is registry.SCRIPT_SERVICES\')',
    'tests/test_import_ddns.py': 'ddns-scripts\' services by their names, and the records the import makes of them',
    'lib/ddkit/providers/dnspodtoken.py': "DNSPod's own API, whose hosts and documents are at the domain the "
                                          "dnspod provider (Tencent Cloud's API for DNSPod) is named after",
    'tests/test_help.py': "the providers whose help issue 52 named (Porkbun's per-domain API access, EdgeOne's "
                          "NS-mode sites, deSEC, the No-IP preset) and what --help calls Cloudflare and Huawei Cloud",
    'tests/test_new_user_four_b.py': "a ddclient config as its users write it (protocol=noip), and the presets "
                                     "and protocol they move to",
    'tests/requirements.txt': "the providers' official SDKs, test-only: their fakes check each signature "
                              "with the SDK's own signer",
    # the word of the notification services' own URLs (WeCom's /cgi-bin/webhook/send), no provider
    'lib/ddkit/urls.py': 'the words of the notification services\' URL paths, which hold no key',
    'lib/ddkit/notices.py': 'the notification services\' documents and answers',
    'tests/test_notices.py': 'the notification services\' URLs and answers',
}


# the names searched for: not those of ddns-scripts' update-URL services, which are the services' own
# domain names (a module that reaches dyn.com names it as a host)
WORDS = [name for name in registry.PROVIDERS if name not in registry.services()]


def own_files(name):
    """A provider's own files; a preset's are its protocol's too (the module it runs)."""
    module = registry.provider(name)
    files = {'lib/ddkit/providers/%s.py' % name, 'bin/%s.py' % module.STEM}
    files.update(path for path in tracked()
                 if re.match(r'tests/(test_(%s|%s)\w*|fakes/\w+)\.py$' % (module.STEM, name), path)
                 or path.startswith('tests/fakes/'))
    protocol = registry.module_name(name)
    return files | own_files(protocol) if protocol != name else files


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
        text = f.read()
    if name in registry.services():   # a row of the table of ddns-scripts' services
        assert re.search(r'^\| `%s` \|' % re.escape(name), text, re.M), 'docs/providers.md has no row for ' + name
    else:
        assert re.search(r'^## .*`%s`' % name, text, re.M), 'docs/providers.md has no section for ' + name


PRESETS = [name for name in registry.PROVIDERS if isinstance(name, registry.Preset)]


@pytest.mark.parametrize('name', PRESETS)
def test_a_preset_is_its_protocols_module_with_the_changes_it_names(name):
    """A preset (noip is dyndns2 at No-IP's server) is one registry entry, not a copied module: its
    provider is the protocol's module under the preset's name and summary, each setting default and
    constant it names changed and all else the module's; its state files are its own."""
    entry = registry.PROVIDERS[registry.PROVIDERS.index(name)]
    preset, module = registry.provider(name), registry.provider(entry.protocol)
    assert entry.protocol in registry.modules() and name not in registry.modules()
    assert not os.path.exists(os.path.join(ROOT, 'lib', 'ddkit', 'providers', name + '.py'))
    assert registry.provider(name) is preset   # one object a name: what records share is keyed by it
    summary, changes = entry.made(module)   # its own, or its protocol module's row (updateurl.SERVICES)
    assert (preset.NAME, preset.SUMMARY) == (name, summary) and preset.SUMMARY != module.SUMMARY
    calls = [call for call in TOLD + READ if hasattr(module, call)]   # a protocol's, or a REST API's
    assert calls and all(getattr(preset, call) is getattr(module, call) for call in calls) and \
        preset.__doc__ == module.__doc__
    settings = {s.name: s for s in preset.SETTINGS}
    assert [s.name for s in preset.SETTINGS] == [s.name for s in module.SETTINGS]
    for key, value in changes.items():
        if key.isupper():   # a constant of the module: a mapping laid over the module's
            mine = getattr(module, key)
            assert getattr(preset, key) == (dict(mine, **value) if isinstance(mine, dict) else value)
        else:               # a setting's default, the rest of the setting the module's
            assert key in settings and settings[key].default == value
            assert settings[key].help == [s for s in module.SETTINGS if s.name == key][0].help
    assert [s.default for s in module.SETTINGS if s.name not in changes] == \
        [s.default for s in preset.SETTINGS if s.name not in changes]
    # its lock, log, status and state files are named after it, none the protocol's
    assert preset.STEM != module.STEM and set(preset.FILES) == set(module.FILES)
    assert not set(preset.FILES.values()) & set(module.FILES.values())


def test_the_tools_read_the_modules_of_the_registry_without_importing_it():
    """tools/standalone.py reads PROVIDERS with ast (the packages and the feeds need no library):
    the provider modules, each a package, and none of the presets, which have none."""
    sys.path.insert(0, os.path.join(ROOT, 'tools'))
    import standalone
    assert standalone.registered() == registry.modules()
    assert [name for name, protocol in standalone.entries()] == list(registry.PROVIDERS)
    assert {name: protocol for name, protocol in standalone.entries() if protocol} == {
        name: registry.module_name(name) for name in PRESETS}


def test_no_two_providers_share_a_state_file():
    """Each registered provider's files (STEM, FILES) are its own: a record of one provider never
    reads what another was told, presets included."""
    stems = [registry.provider(name).STEM for name in registry.PROVIDERS]
    patterns = [p for name in registry.PROVIDERS for p in registry.provider(name).FILES.values()]
    assert len(set(stems)) == len(stems) and len(set(patterns)) == len(patterns)


def test_every_registered_provider_has_a_test_adapter_and_only_those():
    from providers import URL_SERVICES   # the update-URL services beyond the tables' sample
    adapters = PROVIDERS + [p for p in URL_SERVICES if p not in PROVIDERS]
    assert sorted(p.provider for p in adapters) == sorted(registry.PROVIDERS)


def test_no_other_file_names_a_provider():
    named = {}
    for path in tracked():
        try:
            with open(os.path.join(ROOT, path), encoding='utf-8') as f:
                text = f.read()
        except UnicodeDecodeError:
            continue
        for name in WORDS:   # the word search only where the name stands at all
            if name in text and re.search(r'\b%s\b' % name, text) and path not in own_files(name) \
                    and path not in ALLOWED:
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
