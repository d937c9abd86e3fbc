"""`make feed`: the .ipk files, Packages, Packages.gz and Packages.sig, checked with the system's
tar, gzip and signify as opkg would see them; reproducibility; the packages installed into a
temporary root and run from there; Depends exactly what the tools import; which package ships
which library module (the one tool that imports it, else ddkit; each provider of the registry its
own package ddkit-<provider>), the same in an SDK build."""

import base64
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

import needs
from conftest import (FULL, GUARD_DIR, GUARD_MARK, RECORD, ROOT, ZONE, full_only, import_guard, package_depends,
                      run_tool, sampled)
from openwrt_env import (COMMAND, COMMAND_PACKAGE, DDNS_LIBRARY, EPOCH, LIBRARY, LUCI_PACKAGES,  # noqa: F401
                         OPTIONAL_MODULES, OPTIONAL_PACKAGES, PACKAGES, SAMPLED_PACKAGES, SAMPLED_PROVIDER_PACKAGES,
                         PROVIDER_PACKAGES, REGISTERED, ROUTER_TOOLS, SERVICES, build_feed, feed, feed_unsigned, install,
                         install_all, ipk_path, libraries, members, package_of, quoted, signed_feed, signify_key,
                         tar_entries)
from providers import PROVIDERS as ADAPTERS, TOOLS, of, registry  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, 'tools'))
import bench  # noqa: E402
import feed as feed_tool  # noqa: E402
import standalone  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import uci, updater  # noqa: E402

# ddkit.wire speaks HTTP on a bare socket (no http.client, hence no email and urllib packages);
# HTTPS needs _ssl (ddkit.wire sends an ASCII host name as it is: no idna codec); an internationalized
# name needs python3-codecs (the idna codec: stringprep -> unicodedata), which only its users install
HTTPS_DEPENDS = ['python3-light', 'python3-openssl']
FIELDS = ['Package', 'Version', 'Depends', 'Source', 'SourceName', 'License', 'Section', 'SourceDateEpoch',
          'Maintainer', 'Architecture', 'Installed-Size', 'Description']
VERSION = feed_tool.Recipe().version


def stanzas(text):
    """Control stanzas as [[(field, value)]], continuation lines folded into their field."""
    out = []
    for block in text.strip('\n').split('\n\n'):
        fields = []
        for line in block.splitlines():
            if line.startswith(' '):
                fields[-1] = (fields[-1][0], fields[-1][1] + '\n' + line)
            else:
                key, _, value = line.partition(': ')
                fields.append((key, value))
        out.append(fields)
    return out


def gunzip(data):
    return subprocess.run(['gzip', '-dc'], input=data, capture_output=True, check=True).stdout


def gzip_header_is_bare(data):
    """gzip -n: no FNAME flag and a zero MTIME in the header."""
    return data[:3] == b'\x1f\x8b\x08' and not data[3] & 0x08 and data[4:8] == b'\0\0\0\0'


def test_feed_holds_one_package_per_router_tool_and_the_index(feed):
    names = sorted(os.listdir(feed))
    version = '%s-r%s' % (feed_tool.Recipe().variables['PKG_VERSION'], feed_tool.Recipe().variables['PKG_RELEASE'])
    assert names == sorted(['%s_%s_all.ipk' % (name, version) for name in PACKAGES]
                           + ['Packages', 'Packages.gz', 'Packages.sig', 'ddkit.pub'])
    assert re.match(r'^\d+\.\d+\.\d+-r\d+$', version)


def test_recipe_matches_the_library_version_and_the_sdk_shape():
    with open(os.path.join(ROOT, 'openwrt', 'Makefile')) as f:
        makefile = f.read()
    assert 'include $(TOPDIR)/rules.mk' in makefile and 'include $(INCLUDE_DIR)/package.mk' in makefile
    recipe = feed_tool.Recipe()
    sys.path.insert(0, os.path.join(ROOT, 'lib'))
    import ddkit
    assert recipe.variables['PKG_VERSION'] == ddkit.VERSION
    assert sorted(recipe.packages) == sorted(PACKAGES)
    for name in PACKAGES:
        assert name in PROVIDER_PACKAGES or '$(eval $(call BuildPackage,%s))' % name in makefile
        assert recipe.fields(name)['PKGARCH'] == 'all'
    for tool in SERVICES:
        package = package_of(tool)
        assert recipe.text('Package/%s/conffiles' % package).split() == ['/etc/config/' + tool]
        # the SDK's own way to an exact version: DEPENDS selects the library, EXTRA_DEPENDS pins it;
        # the updaters need their provider, which needs the update loop (ddkit-ddns), which needs ddkit
        library = libraries(tool)[-1]
        assert recipe.fields(package)['DEPENDS'] == '+' + library
        assert recipe.fields(package)['EXTRA_DEPENDS'] == '%s (=$(VERSION))' % library
        assert recipe.needs(package)[-1] == LIBRARY
    assert recipe.fields(DDNS_LIBRARY)['EXTRA_DEPENDS'] == 'ddkit (=$(VERSION))'
    for name in PROVIDER_PACKAGES:
        assert recipe.fields(name)['EXTRA_DEPENDS'] == 'ddkit-ddns (=$(VERSION))'
        assert recipe.text('Package/%s/conffiles' % name) is None
    assert recipe.text('Package/ddkit/conffiles') is None and recipe.text('Package/ddkit-ddns/conffiles') is None
    # the SDK builds what tools/feed.py builds: the same command writes the installed files
    assert 'tools/standalone.py --installed $(PKG_BUILD_DIR)/installed' in makefile


def test_every_ipk_fits_the_flash_budget(feed):
    """Every package, under make test too: a budget is the largest's to meet, and a size is cheap."""
    over = {name: size for name, size in ((name, os.path.getsize(ipk_path(feed, name))) for name in PACKAGES)
            if size > bench.IPK_BUDGET}
    assert over == {}, '.ipk files over the budget of %d bytes (BENCHMARKS.md): %s' % (bench.IPK_BUDGET, over)


@pytest.mark.parametrize('tool', SAMPLED_PACKAGES)
def test_ipk_is_a_gzipped_tar_of_three_members(feed, tool):
    ipk = ipk_path(feed, tool)
    with open(ipk, 'rb') as f:
        raw = f.read()
    assert gzip_header_is_bare(raw)
    listing = subprocess.run(['tar', '-tzf', ipk], capture_output=True, text=True, check=True).stdout
    assert listing.split() == ['./debian-binary', './data.tar.gz', './control.tar.gz']
    verbose = subprocess.run(['tar', '--numeric-owner', '-tvzf', ipk], capture_output=True, text=True,
                             check=True).stdout
    assert all(' 0/0 ' in line for line in verbose.splitlines())
    parts = members(ipk)
    assert parts['./debian-binary'] == b'2.0\n'
    assert gzip_header_is_bare(parts['./data.tar.gz']) and gzip_header_is_bare(parts['./control.tar.gz'])
    assert raw[:8] != b'!<arch>\n'  # not a Debian-style ar archive: opkg calls that malformed


@pytest.mark.parametrize('tool', SAMPLED_PACKAGES)
def test_layers_are_what_gnu_tar_makes_as_ipkg_build_runs_it(feed, tool, tmp_path):
    """Unpack each layer and pack it again with GNU tar --format=gnu --numeric-owner --sort=name
    --mtime=@SOURCE_DATE_EPOCH: the bytes are the same."""
    ipk = ipk_path(feed, tool)
    parts = members(ipk)
    gnu = ['tar', '--format=gnu', '--numeric-owner', '--owner=0', '--group=0', '--sort=name',
           '--mtime=@' + EPOCH]
    for layer in ('./data.tar.gz', './control.tar.gz'):
        tree = tmp_path / layer[2:-7]
        tree.mkdir()
        raw = gunzip(parts[layer])
        subprocess.run(['tar', '-xpf', '-', '-C', str(tree)], input=raw, check=True)
        again = subprocess.run(gnu + ['-cpf', '-', '-C', str(tree), '.'], capture_output=True, check=True).stdout
        assert again == raw, layer
        entries = tar_entries(raw)
        assert {(uid, gid, uname, gname, mtime) for _, _, uid, gid, uname, gname, mtime, _ in entries} == {
            (0, 0, '', '', int(EPOCH))}
    outer = tmp_path / 'outer'
    outer.mkdir()
    subprocess.run(['tar', '-xzpf', ipk, '-C', str(outer)], check=True)
    again = subprocess.run(gnu + ['-cf', '-', './debian-binary', './data.tar.gz', './control.tar.gz'],
                           cwd=str(outer), capture_output=True, check=True).stdout
    assert again == gunzip(open(ipk, 'rb').read())


MODULES = {name: standalone.PROVIDERS + name for name in REGISTERED}   # each provider's module, under ddkit


def importers():
    """{library module: the router tools that import it}, from the tools' sources; but the providers
    and the optional modules, each of which is a package of its own."""
    # but what no package ships (OFF_ROUTER_MODULES: a PC's service installer)
    out, apart = {}, set(MODULES.values()) | set(OPTIONAL_MODULES.values()) | feed_tool.Recipe().off_router()
    for tool in SERVICES:
        with open(os.path.join(ROOT, 'bin', tool + '.py')) as f:
            for module in standalone.used_modules(f.read()) - apart:
                out.setdefault(module, set()).add(tool)
    # what a provider imports is every DNS updater's (each may run it: ddkit-ddns ships it), though
    # only the command's providers import it (ddkit.rrset)
    for module in MODULES.values():
        with open(standalone.module_file(module)) as f:
            for needed in standalone.used_modules(standalone.strip(f.read()), providers=False) - apart:
                out.setdefault(needed, set()).update(UPDATERS)
    return out


def own_modules(tool):
    """The library modules only this tool imports: its package ships them, not ddkit."""
    return sorted(m for m, tools in importers().items() if tools == {tool})


def data_entries(feed, name):
    raw = gunzip(members(ipk_path(feed, name))['./data.tar.gz'])
    return {entry[0]: (entry[1], entry[7]) for entry in tar_entries(raw)}, raw


@pytest.mark.parametrize('tool', SERVICES)
def test_data_holds_the_stub_the_code_config_init_and_hotplug_with_directories(feed, tool):
    entries, raw = data_entries(feed, package_of(tool))
    code_module = 'ddkit_command' if tool == COMMAND else tool   # a ddkit.py would never be imported
    directories = ['./', './etc', './etc/config', './etc/hotplug.d', './etc/hotplug.d/iface', './etc/init.d',
                   './usr', './usr/bin', './usr/lib', './usr/lib/ddkit']
    directories += ['./usr/lib/ddkit/ddkit'] if own_modules(tool) else []   # shared with ddkit
    for d in directories:
        assert entries[d.rstrip('/') if d != './' else '.'] == (0o755, b'5'), d
    assert entries['./usr/bin/' + tool] == (0o755, b'0')
    assert entries['./usr/lib/ddkit/%s.py' % code_module] == (0o644, b'0')
    assert entries['./etc/config/' + tool] == (0o600, b'0')   # holds credentials
    assert entries['./etc/init.d/' + tool] == (0o755, b'0')
    assert entries['./etc/hotplug.d/iface/95-' + tool] == (0o644, b'0')
    for module in own_modules(tool):
        assert entries['./usr/lib/ddkit/ddkit/%s.py' % module] == (0o644, b'0')
    assert len(entries) == len(directories) + 5 + len(own_modules(tool))
    files = files_of(raw)
    stub = files['./usr/bin/' + tool].decode()
    assert stub.startswith('#!/usr/bin/python3 -IS\n') and 'from %s import main' % code_module in stub
    # a stub: the code is the module (2,000 bytes until its trust check of TMPDIR resolved links itself,
    # with posix: ddkit.native)
    assert 'sys.pycache_prefix' in stub and len(stub) < 3100 and 'gc.set_threshold(10000)' in stub
    code = files['./usr/lib/ddkit/%s.py' % code_module].decode()
    compile(code, tool, 'exec')
    assert '# ddkit-path' not in code and not re.search(r'^\s*#', code, re.M)   # comments stripped
    assert 'def main(' in code


UPDATERS = {'updater_a', 'updater_b', COMMAND}   # the DNS updaters: ddkit-ddns is theirs


@pytest.mark.parametrize('name', [LIBRARY, DDNS_LIBRARY])
def test_library_packages_hold_the_stripped_modules_several_tools_use(feed, name):
    """ddkit: what several tools use, egress6 among them; ddkit-ddns: what only the DNS updaters share
    (the ddkit command one of them)."""
    entries, raw = data_entries(feed, name)
    lib = os.path.join(ROOT, 'lib', 'ddkit')
    shared = {m: tools for m, tools in importers().items() if len(tools) > 1}
    if name == LIBRARY:
        modules = sorted(['__init__'] + [m for m, tools in shared.items() if not tools <= UPDATERS])
        assert 'settings' in modules and 'wire' in modules and 'egress' not in modules and 'reconcile' not in modules
    else:
        modules = sorted(m for m, tools in shared.items() if tools <= UPDATERS)
        assert 'reconcile' in modules and 'check' in modules and 'settings' not in modules
    expected = {'./usr/lib/ddkit/ddkit/%s.py' % m: (0o644, b'0') for m in modules}
    directories = {d: (0o755, b'5') for d in ('.', './usr', './usr/lib', './usr/lib/ddkit', './usr/lib/ddkit/ddkit')}
    assert entries == dict(expected, **directories)
    files = files_of(raw)
    for m in modules:
        code = files['./usr/lib/ddkit/ddkit/%s.py' % m].decode()
        assert code == standalone.strip(open(os.path.join(lib, m + '.py')).read()), m
        assert '"""' not in code.split('\n', 1)[0]   # no module docstring
    assert len(b''.join(files.values())) < sum(os.path.getsize(os.path.join(lib, m + '.py')) for m in modules)


def modules_of(feed, name):
    """{module: stripped code} of the library modules a package ships (in /usr/lib/ddkit/ddkit/), by
    their names under ddkit ('state', 'providers.<provider>')."""
    folder = './usr/lib/ddkit/ddkit/'
    return {path[len(folder):-3].replace('/', '.'): data for path, data in files_of(data_entries(feed, name)[1]).items()
            if path.startswith(folder)}


def test_modules_only_one_tool_imports_ship_in_its_package(feed):
    """egress.py is egress6's alone: a router with only an updater does not carry it (proc.py is
    shared: the updaters' on_change hook runs with it); the ddkit command's choice of provider is
    its own. Each provider of the registry is a package holding its module alone, which no other
    package ships. Every library module is in exactly one package, and each tool finds every module
    it imports in its own package or in those its package depends on."""
    shipped = {name: modules_of(feed, name) for name in PACKAGES}
    assert 'egress' not in shipped[LIBRARY] and 'proc' in shipped[LIBRARY]
    assert 'reconcile' not in shipped[LIBRARY] and 'reconcile' in shipped[DDNS_LIBRARY]
    assert sorted(shipped['egress6']) == ['egress'] == own_modules('egress6')
    assert sorted(shipped[COMMAND_PACKAGE]) == ['choice', 'registry'] == own_modules(COMMAND)
    # a provider's module is its package's alone: a router with one updater has no other provider's code
    assert {name: sorted(shipped['ddkit-' + name]) for name in REGISTERED} == {name: [MODULES[name]] for name in REGISTERED}
    for tool in ('updater_a', 'updater_b'):
        assert shipped[tool] == {} and own_modules(tool) == [] and of(tool).provider in REGISTERED
    everywhere = [m for name in PACKAGES for m in shipped[name]]
    assert sorted(everywhere) == sorted(set(everywhere)) == sorted(['__init__'] + list(importers())
                                                                   + list(MODULES.values())
                                                                   + list(OPTIONAL_MODULES.values()))
    # an optional package holds its module alone, which no other package ships
    assert {name: sorted(shipped[name]) for name in OPTIONAL_PACKAGES} == {
        name: [module] for name, module in OPTIONAL_MODULES.items()}
    for tool in ROUTER_TOOLS:   # but the optional modules, which a router installs to use them
        with open(os.path.join(ROOT, 'bin', tool + '.py')) as f:
            used = standalone.used_modules(f.read())
        reached = set().union(*[shipped[name] for name in libraries(tool) + (tool,)])
        assert used - reached == (set(OPTIONAL_MODULES.values()) & used if tool in UPDATERS else set()), tool
    # the command: everything but the providers, which a router installs one by one, and the optional ones
    with open(os.path.join(ROOT, 'bin', COMMAND + '.py')) as f:
        used = standalone.used_modules(f.read())
    reached = set().union(*[shipped[name] for name in libraries(COMMAND) + (COMMAND_PACKAGE,)])
    assert used - reached == set(MODULES.values()) | set(OPTIONAL_MODULES.values()) | feed_tool.Recipe().off_router()
    for module, code in shipped['egress6'].items():
        with open(os.path.join(ROOT, 'lib', 'ddkit', module + '.py')) as f:
            assert code.decode() == standalone.strip(f.read()), module


@pytest.mark.parametrize('change', ['another split', 'library keeps them'])
def test_feed_stops_when_the_recipe_states_another_split(tmp_path, change):
    """openwrt/Makefile states the split for the SDK (OWN_MODULES_<tool>); tools/feed.py derives it
    from the imports and refuses a recipe that says otherwise, so both builds ship the same files."""
    with open(os.path.join(ROOT, 'openwrt', 'Makefile')) as f:
        makefile = f.read()
    assert feed_tool.Recipe().own_modules() == {tool: own_modules(tool) for tool in SERVICES}
    if change == 'another split':
        changed = makefile.replace('OWN_MODULES_egress6:=egress', 'OWN_MODULES_egress6:=egress proc')
    else:
        changed = makefile.replace(' $(OWN_MODULES_egress6) ', ' ')
    assert changed != makefile
    (tmp_path / 'Makefile').write_text(changed)
    with pytest.raises(SystemExit) as stopped:
        feed_tool.Recipe(str(tmp_path / 'Makefile')).own_modules()
    assert 'OWN_MODULES_<tool>' in str(stopped.value) and "'egress6': ['egress']" in str(stopped.value)


def test_the_recipe_names_no_provider_but_in_the_depends_of_an_updater_fixed_to_one():
    """A provider added to the registry needs no line of openwrt/Makefile: its package is made for each
    of PROVIDERS, which a tools/ script prints from the registry. Only updater_a and updater_b, each
    the provider it imports fixed, name theirs: in their Depends (which tools/feed.py checks)."""
    with open(os.path.join(ROOT, 'openwrt', 'Makefile')) as f:
        lines = f.read().splitlines()
    naming = [line.strip() for line in lines if any(re.search(r'\b%s\b' % name, line) for name in REGISTERED)]
    assert naming == [field % of(tool).provider for tool in TOOLS
                      for field in ('DEPENDS:=+ddkit-%s', 'EXTRA_DEPENDS:=ddkit-%s (=$(VERSION))')]
    recipe = feed_tool.Recipe()
    assert recipe.variables['PROVIDERS'].split() == list(REGISTERED)
    assert recipe.provider_packages() == {'ddkit-' + name: name for name in REGISTERED}
    from ddkit import registry   # a preset is no package: its protocol's brings it
    assert set(REGISTERED) == set(registry.modules()) < set(registry.PROVIDERS)
    assert recipe.provider_depends() == {tool: ['ddkit-' + of(tool).provider] if tool in TOOLS else []
                                         for tool in SERVICES}


@pytest.mark.parametrize('change, said', [
    ('the updater without its provider', 'must depend on the provider packages'),
    ('the command with a provider', 'must depend on the provider packages'),
    ('a list of providers written out', 'disagrees with the registry'),
])
def test_feed_stops_when_the_recipe_states_other_provider_packages(tmp_path, change, said):
    """The provider packages and who depends on them are the registry's and the imports': an updater
    depends on the package of the provider it imports, the ddkit command on none, PROVIDERS is what
    the registry holds (the library ships no provider: it installs ddkit/*.py, they are in
    ddkit/providers/, which the SDK build compares)."""
    with open(os.path.join(ROOT, 'openwrt', 'Makefile')) as f:
        makefile = f.read()
    first = REGISTERED[0]
    old, new = {
        'the updater without its provider': ('DEPENDS:=+ddkit-%s\n' % first, 'DEPENDS:=+ddkit-ddns\n'),
        'the command with a provider': ('TITLE:=The ddkit command: DDNS at any provider, one service for all\n'
                                        '  DEPENDS:=+ddkit-ddns\n',
                                        'TITLE:=The ddkit command: DDNS at any provider, one service for all\n'
                                        '  DEPENDS:=+ddkit-ddns +ddkit-%s\n' % first),
        'a list of providers written out': ('PROVIDERS:=$(shell python3 $(CURDIR)/../tools/provider_packages.py '
                                            '--names)', 'PROVIDERS:=%s' % first),
    }[change]
    assert makefile.count(old) == 1, old
    (tmp_path / 'Makefile').write_text(makefile.replace(old, new))
    with pytest.raises(SystemExit) as stopped:
        feed_tool.Recipe(str(tmp_path / 'Makefile')).provider_depends()
    assert said in str(stopped.value), stopped.value


# what an optional package depends on, where it is not ddkit-ddns: the package of what imports it
OPTIONAL_NEEDS = {'ddkit-import': COMMAND_PACKAGE}   # bin/ddkit.py


def test_optional_packages_hold_their_module_alone_and_nothing_depends_on_them(feed):
    """ddkit-notify is ddkit/notices.py, ddkit-proxy ddkit/proxy.py, ddkit-import ddkit/ddns_import.py,
    each alone and stripped, and no other package ships them; each depends on the package of what
    imports it (ddkit-ddns, the command's for the import) of the very same build (the SDK's DEPENDS
    selects it, EXTRA_DEPENDS pins it); no package depends on any: a router installs one for its
    feature."""
    recipe = feed_tool.Recipe()
    for name, module in OPTIONAL_MODULES.items():
        shipped = modules_of(feed, name)
        with open(os.path.join(ROOT, 'lib', 'ddkit', module + '.py')) as f:
            assert shipped == {module: standalone.strip(f.read()).encode()}, name
        assert [other for other in PACKAGES if module in modules_of(feed, other)] == [name]
        (fields,) = stanzas(control_files(feed, name)[1]['control'])
        needed = OPTIONAL_NEEDS.get(name, DDNS_LIBRARY)
        assert dict(fields)['Depends'] == '%s (=%s)' % (needed, VERSION)
        assert recipe.fields(name)['DEPENDS'] == '+' + needed
        assert recipe.fields(name)['EXTRA_DEPENDS'] == '%s (=$(VERSION))' % needed
    with open(os.path.join(feed, 'Packages')) as f:
        depends = {dict(e)['Package']: dict(e).get('Depends', '') for e in stanzas(f.read())}
    assert sorted(depends) == sorted(PACKAGES)
    assert [name for name, said in depends.items()
            if set(said.replace(',', ' ').split()) & set(OPTIONAL_PACKAGES)] == []


@pytest.mark.parametrize('change, said', [
    ('another module', 'disagrees with the library'),
    ('on the library alone', "must depend on ['ddkit-ddns']"),
    ('not pinned', "must depend on ['ddkit-ddns']"),
    ('the command depends on it', 'nothing may'),
    ('the library keeps it', 'left out by Package/ddkit/install'),
])
def test_feed_stops_when_the_recipe_states_another_optional_package(tmp_path, change, said):
    """What openwrt/Makefile says of the optional packages (OPTIONAL_MODULES_<package>, their Depends, the
    library's install block) must be what the library says (ddkit.OPTIONAL: the package a run names) and
    the imports: each depends, pinned, on ddkit-ddns, whose modules import it, and nothing depends on it."""
    with open(os.path.join(ROOT, 'openwrt', 'Makefile')) as f:
        makefile = f.read()
    assert feed_tool.Recipe().optional_modules() == {name: [module] for name, module in OPTIONAL_MODULES.items()}
    notify_title = 'TITLE:=Notifications of the DDNS updaters (notify: Telegram, WeCom, DingTalk, ntfy and more)\n'
    proxy_title = 'TITLE:=Proxy of the DDNS updaters (HTTP CONNECT, SOCKS5)\n'
    command_title = 'TITLE:=The ddkit command: DDNS at any provider, one service for all\n'
    old, new = {
        'another module': ('OPTIONAL_MODULES_ddkit_proxy:=proxy\n', 'OPTIONAL_MODULES_ddkit_proxy:=proxy lookup\n'),
        'on the library alone': (notify_title + '  DEPENDS:=+ddkit-ddns\n  EXTRA_DEPENDS:=ddkit-ddns (=$(VERSION))\n',
                                 notify_title + '  DEPENDS:=+ddkit\n  EXTRA_DEPENDS:=ddkit (=$(VERSION))\n'),
        'not pinned': (proxy_title + '  DEPENDS:=+ddkit-ddns\n  EXTRA_DEPENDS:=ddkit-ddns (=$(VERSION))\n',
                       proxy_title + '  DEPENDS:=+ddkit-ddns\n'),
        'the command depends on it': (command_title + '  DEPENDS:=+ddkit-ddns\n',
                                      command_title + '  DEPENDS:=+ddkit-ddns +ddkit-notify\n'),
        'the library keeps it': (' $(OPTIONAL_MODULES_ddkit_notify) ', ' '),
    }[change]
    assert makefile.count(old) == 1, old
    (tmp_path / 'Makefile').write_text(makefile.replace(old, new))
    with pytest.raises(SystemExit) as stopped:
        feed_tool.Recipe(str(tmp_path / 'Makefile')).optional_modules()
    assert said in str(stopped.value), stopped.value


def commands_uci_file(text):
    """{section name: (its options as ddkit.uci reads them, its lines)} of /etc/config/ddkit."""
    import tempfile
    with tempfile.NamedTemporaryFile('w', suffix='.uci', delete=False) as f:
        f.write(text)
    try:
        sections = uci.read(f.name)
    finally:
        os.remove(f.name)
    blocks = {}
    for block in text.split('\nconfig ')[1:]:
        head = block.split('\n', 1)[0].split()
        blocks[head[1].strip("'") if len(head) > 1 else head[0]] = block.split('\n')
    return [(kind, name, options, blocks[name or kind]) for kind, name, options in sections]


def comment_above(lines, line):
    """The comment lines just above a line of a section, as one text."""
    at, words = lines.index(line), []
    while at > 0 and lines[at - 1].startswith('\t# '):
        at -= 1
        words.insert(0, lines[at][3:])
    return ' '.join(words)


def test_the_commands_uci_file_has_its_defaults_and_one_sample_section(feed):
    """/etc/config/ddkit is written from the registry: `config defaults`, then the first provider's
    disabled sample section (as ddkit --provider NAME --sample prints it), then a paragraph naming the
    update-URL services; the same size however many providers the registry has. It parses with the
    tools' UCI reader (ddkit.uci, which loads what libuci loads); the same file in the SDK build
    (test_sdk_build_installs_what_the_feed_ships)."""
    text = files_of(data_entries(feed, COMMAND_PACKAGE)[1])['./etc/config/ddkit'].decode()
    sections = commands_uci_file(text)
    from ddkit import choice, registry
    first = registry.PROVIDERS[0]
    assert [(kind, name) for kind, name, _, _ in sections] == [('defaults', None), ('ddkit', first)]
    assert sections[0][2] == {'state_dir': '/var/run/ddkit'}
    assert '\n'.join(choice.sample(first)) + '\n' in text
    assert 'ddkit --provider NAME --sample >> /etc/config/ddkit' in text
    assert '\n# the %d services of OpenWrt\'s ddns-scripts' % len(registry.services()) in text
    assert len(text) < 6000, len(text)


@pytest.mark.parametrize('name', sampled(list(registry().PROVIDERS), 6))
def test_every_provider_prints_a_disabled_sample_section_of_its_settings(tmp_path, name):
    """ddkit --provider NAME --sample: a disabled section naming the provider, with its settings (to
    fill in, or commented out at their default) each under its own help text, and nothing the command
    would refuse; it parses with ddkit.uci (a preset's name, dy.fi, is no section name: dy_fi)."""
    done = subprocess.run([sys.executable, os.path.join(ROOT, 'bin', 'ddkit.py'), '--provider', name, '--sample'],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == '', done.stderr
    ((kind, section, options, lines),) = commands_uci_file(done.stdout)
    from ddkit import registry
    provider = registry.provider(name)
    assert kind == 'ddkit' and section == re.sub(r'[^A-Za-z0-9_]', '_', name)
    assert options['provider'] == name and options['enabled'] == '0', options
    common = {s.name for s in updater.COMMON} | uci.SERVICE_OPTIONS | {'provider'}
    assert set(options) <= common | {s.name for s in provider.SETTINGS}, options
    assert done.stdout.startswith('# provider %s (package ddkit-%s): ' % (name, registry.module_name(name)))
    for setting in provider.SETTINGS:
        # a setting of several values is a UCI list (headers, ip_lookup_url)
        line = "\t%s %s ''" % ('list' if setting.repeat else 'option', setting.name) if setting.default is None \
            else '\t#option %s %s' % (setting.name, quoted(setting.default))
        assert line in lines and comment_above(lines, line) == setting.help, (name, setting.name)


def test_sample_names_a_provider_or_says_how(tmp_path):
    """--sample without a provider, or with one that is not known: exit 2, what to do, no section."""
    first = registry().PROVIDERS[0]
    for argv, said in ((['--sample'], 'ddkit --provider %s --sample' % first),
                       (['--provider', first[:-1], '--sample'], 'did you mean %s?' % first)):
        done = subprocess.run([sys.executable, os.path.join(ROOT, 'bin', 'ddkit.py')] + argv,
                              capture_output=True, text=True)
        assert done.returncode == 2 and said in done.stderr and done.stdout == '', done.stderr


def test_the_excerpt_of_the_commands_uci_file_in_docs_is_as_installed(feed):
    """docs/uci.md shows the first sample section of /etc/config/ddkit, with `...` for lines left out:
    every line it shows is there, in that order (the file is written from the providers' help texts)."""
    installed = files_of(data_entries(feed, COMMAND_PACKAGE)[1])['./etc/config/ddkit'].decode().split('\n')
    with open(os.path.join(ROOT, 'docs', 'uci.md'), encoding='utf-8') as f:
        text = f.read()
    start = text.index('\n    # provider %s (package ddkit-%s)' % (REGISTERED[0], REGISTERED[0]))
    shown = []
    for line in text[start + 1:].split('\n'):
        if not line.startswith('    '):
            break
        shown.append(line[4:])
    at = 0
    for line in shown:
        if line.strip() != '...':
            assert line in installed[at:], line
            at = installed.index(line, at) + 1
    assert len(shown) > 10


# Stand-ins for the SDK's include/ files: its install macros, and a BuildPackage that runs the
# recipe's Build steps once, then the package's install block into OUT/<package>.
SDK_RULES = '''\
INSTALL_DIR:=install -d -m0755
INSTALL_BIN:=install -m0755
INSTALL_DATA:=install -m0644
INSTALL_CONF:=install -m0600
CP:=cp -fpR
'''
SDK_PACKAGE = '''\
PKG_BUILD_DIR:=$(BUILD_DIR)/$(PKG_NAME)-$(PKG_VERSION)
all:
compile:
\t$(call Build/Prepare)
\t$(call Build/Configure)
\t$(call Build/Compile)
define BuildPackage
all: $(1)
$(1): compile
\tmkdir -p $(OUT)/$(1)
\t$$(call Package/$(1)/install,$(OUT)/$(1))
endef
'''


def sdk_build(openwrt, tmp_path):
    """GNU make on openwrt/Makefile with the stand-ins for the SDK: the folder of the packages' trees."""
    sdk = tmp_path / 'sdk'
    sdk.mkdir()
    (sdk / 'rules.mk').write_text(SDK_RULES)
    (sdk / 'package.mk').write_text(SDK_PACKAGE)
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ['PATH'])
    done = subprocess.run(['make', '-C', str(openwrt), 'TOPDIR=%s' % sdk, 'INCLUDE_DIR=%s' % sdk,
                           'BUILD_DIR=%s' % (tmp_path / 'build'), 'OUT=%s' % (tmp_path / 'out')],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp_path / 'out'


def tree_files(top):
    """({./path: (mode, bytes)} of the files, {./path} of the directories) under top."""
    files, folders = {}, set()
    for folder, dirs, names in os.walk(top):
        folders.update('./' + os.path.relpath(os.path.join(folder, d), top) for d in dirs)
        for name in names:
            path = os.path.join(folder, name)
            with open(path, 'rb') as f:
                files['./' + os.path.relpath(path, top)] = (stat.S_IMODE(os.stat(path).st_mode), f.read())
    return files, folders


def test_sdk_build_installs_what_the_feed_ships(feed, tmp_path):
    """openwrt/Makefile's Build steps and install blocks, run by GNU make with stand-ins for the SDK,
    put into each package the very files of its .ipk (same bytes, same modes, same directories)."""
    if not shutil.which('make'):
        needs.missing('GNU make is not installed (.ci/run installs it)')
    out = sdk_build(os.path.join(ROOT, 'openwrt'), tmp_path)
    for name in PACKAGES:
        built, folders = tree_files(str(out / name))
        entries, raw = data_entries(feed, name)
        assert built == {path: (entries[path][0], data) for path, data in files_of(raw).items()}, name
        assert folders == {path for path, (_, kind) in entries.items() if kind == b'5' and path != '.'}, name


def files_of(raw):
    """{name: bytes} of the regular files of an uncompressed tar."""
    import io
    import tarfile
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def control_files(feed, name):
    parts = members(ipk_path(feed, name))
    control = gunzip(parts['./control.tar.gz'])
    names = [entry[0] for entry in tar_entries(control)]
    return names, {n[2:]: data.decode() for n, data in files_of(control).items()}, parts


@pytest.mark.parametrize('tool', SERVICES)
def test_control_fields_conffiles_and_maintainer_scripts(feed, tool):
    names, files, parts = control_files(feed, package_of(tool))
    assert names == ['.', './conffiles', './control', './postinst', './postinst-pkg', './prerm', './prerm-pkg']
    (fields,) = stanzas(files['control'])
    assert [k for k, _ in fields] == FIELDS
    values = dict(fields)
    assert values['Package'] == package_of(tool) and values['Architecture'] == 'all'
    assert values['Depends'] == '%s (=%s)' % (libraries(tool)[-1], VERSION)   # the library of the very same build
    assert values['SourceDateEpoch'] == EPOCH and values['SourceName'] == 'ddkit'
    assert int(values['Installed-Size']) == len(gunzip(parts['./data.tar.gz']))
    assert values['Description'].startswith(' ') and len(values['Description']) > 40
    assert files['conffiles'] == '/etc/config/%s\n' % tool
    assert 'chmod 0600 "${IPKG_INSTROOT}/etc/config/%s"' % tool in files['postinst-pkg']
    assert '/etc/init.d/%s stop' % tool in files['prerm-pkg']
    assert 'default_postinst $0 $@' in files['postinst'] and '/lib/functions.sh' in files['postinst']
    assert 'default_prerm $0 $@' in files['prerm']
    assert files['postinst-pkg'].startswith('#!/bin/sh') and files['prerm-pkg'].startswith('#!/bin/sh')
    for script in ('postinst', 'prerm', 'postinst-pkg', 'prerm-pkg'):
        assert subprocess.run(['sh', '-n', '-c', files[script]]).returncode == 0, script


def test_license_file_packages_and_readme_say_mit(feed):
    with open(os.path.join(ROOT, 'LICENSE')) as f:
        text = f.read()
    assert text.startswith('MIT License\n') and 'Copyright (c) 2026 ddkit contributors' in text
    for name in PACKAGES:
        (fields,) = stanzas(control_files(feed, name)[1]['control'])
        assert dict(fields)['License'] == 'MIT', name
    with open(os.path.join(ROOT, 'README.md')) as f:
        assert 'MIT' in f.read().split('## License', 1)[1]


def test_library_control_declares_the_python_packages(feed):
    names, files, parts = control_files(feed, LIBRARY)
    assert names == ['.', './control', './postinst', './prerm']
    (fields,) = stanzas(files['control'])
    assert [k for k, _ in fields] == FIELDS
    values = dict(fields)
    assert values['Package'] == LIBRARY and values['Version'] == VERSION
    assert values['Depends'].split(', ') == HTTPS_DEPENDS
    assert int(values['Installed-Size']) == len(gunzip(parts['./data.tar.gz']))
    assert 'default_postinst $0 $@' in files['postinst'] and 'default_prerm $0 $@' in files['prerm']


def test_packages_index_sizes_and_checksums_match(feed):
    with open(os.path.join(feed, 'Packages'), 'rb') as f:
        packages = f.read()
    assert (64 + len(packages)) % 128 not in (110, 111)
    entries = stanzas(packages.decode())
    assert sorted(dict(e)['Package'] for e in entries) == sorted(PACKAGES)
    for entry in entries:
        keys = [k for k, _ in entry]
        assert keys[-4:] == ['Filename', 'Size', 'SHA256sum', 'Description']
        values = dict(entry)
        with open(os.path.join(feed, values['Filename']), 'rb') as f:
            ipk = f.read()
        assert int(values['Size']) == len(ipk)
        assert values['SHA256sum'] == hashlib.sha256(ipk).hexdigest()
        control = subprocess.run(['tar', '-xzOf', '-', './control'], capture_output=True, check=True,
                                 input=members(os.path.join(feed, values['Filename']))['./control.tar.gz']).stdout
        expected = [(k, v) for k, v in entry if k not in ('Filename', 'Size', 'SHA256sum')]
        assert stanzas(control.decode())[0] == expected
    with open(os.path.join(feed, 'Packages.gz'), 'rb') as f:
        packed = f.read()
    assert gzip_header_is_bare(packed) and packed[8] == 2   # XFL 2: maximum compression (-9)
    assert gunzip(packed) == packages


def test_padding_rule_of_openwrt():
    for size in range(300, 600):
        padded = feed_tool.padded(b'x' * size)
        assert (64 + len(padded)) % 128 not in (110, 111)
        assert padded == b'x' * size + (b'\n\n' if (64 + size) % 128 in (110, 111) else b'')


def test_signature_verifies_and_fails_on_a_changed_index(feed, signify_key, tmp_path):
    signify, _, pub = signify_key
    index = os.path.join(feed, 'Packages')
    check = [signify, '-V', '-q', '-p', pub, '-m', index, '-x', index + '.sig']
    assert subprocess.run(check).returncode == 0
    with open(os.path.join(feed, 'ddkit.pub')) as f, open(pub) as g:
        assert f.read() == g.read()
    changed = tmp_path / 'Packages'
    changed.write_bytes(open(index, 'rb').read().replace(b'Size: ', b'Size: 1', 1))
    check[6] = str(changed)
    assert subprocess.run(check, capture_output=True).returncode != 0


def test_feed_is_byte_for_byte_reproducible(feed, feed_unsigned, signify_key, tmp_path):
    """Built again without a key, every file is the same bytes and the signed feed has the signature
    and its public key besides; make test-full builds it signed again too: every file the same."""
    again = feed_unsigned[0]
    assert sorted(os.listdir(again) + ['Packages.sig', 'ddkit.pub']) == sorted(os.listdir(feed))
    if FULL:
        again = str(tmp_path / 'again')
        build_feed(again, key=signify_key[1])
        assert sorted(os.listdir(again)) == sorted(os.listdir(feed))
    for name in os.listdir(again):
        with open(os.path.join(feed, name), 'rb') as a, open(os.path.join(again, name), 'rb') as b:
            assert a.read() == b.read(), name


def test_make_feed_target_builds_the_router_tools_only():
    dry = subprocess.run(['make', '-n', '-B', 'feed', 'KEY=x.sec'], cwd=ROOT, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert 'tools/feed.py --out dist/feed --key x.sec' in dry.stdout
    assert 'egress6_win' not in dry.stdout


# --- installed into a temporary root, run from there ------------------------------------------

@pytest.fixture
def router(feed, tmp_path):
    install_all(feed, str(tmp_path / 'root'))
    return tmp_path / 'root'


def tree(root):
    """{path: (mode, size, mtime)} of everything under root (the flash of a router)."""
    out = {}
    for folder, dirs, files in os.walk(str(root)):
        for name in dirs + files:
            st = os.lstat(os.path.join(folder, name))
            out[os.path.relpath(os.path.join(folder, name), str(root))] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def run_installed(router, tool, args, tmp, env=None):
    """/usr/bin/<tool> of the temporary root as cron runs it on a router: nothing keeps Python from
    writing compiled code (PYTHONDONTWRITEBYTECODE empty is unset), TMPDIR is tmp."""
    full = {'TMPDIR': str(tmp), 'PYTHONDONTWRITEBYTECODE': ''}
    full.update(env or {})
    return run_tool(str(router / 'usr' / 'bin' / tool), args, env=full)


def cache_dir(tmp):
    return tmp / ('ddkit-%d-pyc' % os.getuid())


def compiled(folder):
    return sorted(os.path.join(d, f) for d, _, names in os.walk(str(folder)) for f in names)


@pytest.mark.parametrize('tool', SERVICES)
def test_installed_tool_runs_from_usr_bin(router, tool, tmp_path):
    path = str(router / 'usr' / 'bin' / tool)
    assert os.access(path, os.X_OK)
    before = tree(router)
    done = run_installed(router, tool, ['--help'], tmp_path)
    # the name the user typed: `updater_a`, not the module file's name
    assert done.returncode == 0 and done.stdout.startswith('usage: %s ' % tool), done.stderr
    assert tree(router) == before   # nothing written beside the code (flash)


def test_tool_without_its_library_package_fails(feed, tmp_path):
    root = tmp_path / 'root'
    root.mkdir()
    install(ipk_path(feed, 'updater_a'), str(root))
    done = run_installed(root, 'updater_a', ['--help'], tmp_path)
    assert done.returncode == 1 and 'updater_a: the library is not installed' in done.stderr \
        and 'install the package ddkit' in done.stderr and 'Traceback' not in done.stderr, done.stderr


@pytest.mark.parametrize('tool', SERVICES)
def test_compiled_code_is_cached_in_a_private_directory_and_read_again(router, tmp_path, tool):
    """The first run leaves the compiled code in $TMPDIR/ddkit-<uid>-pyc/ (RAM on a router), a
    directory 0700 of this user; the second run reads it; nothing is written under the root."""
    tmp = tmp_path / 'tmp'
    tmp.mkdir()
    before = tree(router)
    first = run_installed(router, tool, ['--help'], tmp)
    assert first.returncode == 0 and first.stdout.startswith('usage: %s ' % tool), first.stderr
    folder = cache_dir(tmp)
    st = os.lstat(str(folder))
    assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.getuid()
    assert os.listdir(str(tmp)) == [folder.name]
    files = compiled(folder)
    code = os.path.join(str(router).lstrip(os.sep), 'usr', 'lib', 'ddkit')
    tag = sys.implementation.cache_tag
    for module in (standalone.module_name(tool), os.path.join('ddkit', '__init__'), os.path.join('ddkit', 'settings')):
        assert [f for f in files if f.endswith(os.path.join(code, '%s.%s.pyc' % (module, tag)))], module
    for folder_, dirs, names in os.walk(str(folder)):
        for path in [folder_] + [os.path.join(folder_, n) for n in names]:
            st = os.lstat(path)
            assert st.st_uid == os.getuid() and not st.st_mode & 0o022, path
    for f in files:
        os.utime(f, (1, 1))
    again = run_installed(router, tool, ['--help'], tmp)
    assert again.stdout == first.stdout
    assert compiled(folder) == files and all(os.stat(f).st_mtime == 1 for f in files)   # read, not rewritten
    assert tree(router) == before


@pytest.mark.parametrize('case', ['world-writable', 'group-writable', 'symlink', 'foreign-owned'])
def test_cache_directory_others_could_write_is_not_used(router, tmp_path, case):
    """Then nothing is cached at all (neither there nor beside the code), and the tool still runs."""
    tmp, elsewhere = tmp_path / 'tmp', tmp_path / 'elsewhere'
    tmp.mkdir()
    folder = cache_dir(tmp)
    if case == 'symlink':
        elsewhere.mkdir()
        os.chmod(str(elsewhere), 0o700)
        folder.symlink_to(elsewhere)
    else:
        folder.mkdir()
        os.chmod(str(folder), {'world-writable': 0o777, 'group-writable': 0o770}.get(case, 0o700))
        if case == 'foreign-owned':
            if os.geteuid() != 0:
                needs.missing('needs root to give the directory to another user')
            os.chown(str(folder), 65534, 65534)
    before = tree(router)
    done = run_installed(router, 'updater_a', ['--help'], tmp)
    assert done.returncode == 0 and done.stdout.startswith('usage: updater_a '), done.stderr
    assert compiled(elsewhere if case == 'symlink' else folder) == []
    assert os.listdir(str(tmp)) == [folder.name]
    assert tree(router) == before


@pytest.mark.parametrize('tool', TOOLS)
def test_installed_updater_updates_from_a_uci_section(feed, box, tmp_path, tool):
    """Every setting in the UCI section (option names = setting names), nothing in the environment;
    only the libraries, the updater's provider and the updater's package installed, so no egress code
    and no other provider's code on the router."""
    router = tmp_path / 'root'
    install_all(feed, str(router), libraries(tool) + (tool,))
    assert 'egress.py' not in os.listdir(str(router / 'usr' / 'lib' / 'ddkit' / 'ddkit'))
    assert provider_modules(router) == ['usr/lib/ddkit/ddkit/providers/%s.py' % of(tool).provider]
    env = of(tool).env(box, tmp_path / 'state')
    of(tool).add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    config = router / 'etc' / 'config' / tool
    config.write_text("config %s 'home'\n\toption enabled '1'\n\toption interface 'wan'\n" % tool + ''.join(
        "\toption %s %s\n" % (name[5:].lower(), quoted(value)) for name, value in sorted(env.items())))
    before = tree(router)
    done = run_installed(router, tool, ['--uci', 'home'], tmp_path, env={'DDNS_UCI_FILE': str(config)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: 81.2.69.10' in done.stdout
    assert of(tool).held(box, RECORD) == of(tool).content('81.2.69.10')
    assert compiled(cache_dir(tmp_path))   # the cron run after it starts from compiled code
    again = run_installed(router, tool, ['--uci', 'home'], tmp_path, env={'DDNS_UCI_FILE': str(config)})
    assert again.returncode == 0 and 'IP has not changed' in again.stdout, again.stdout + again.stderr
    assert tree(router) == before


@pytest.mark.parametrize('tool', TOOLS)
def test_shipped_sample_section_is_valid_and_the_environment_wins(router, box, tmp_path, tool):
    """The sample /etc/config file parses; its disabled section runs once given credentials and
    URLs by environment (which wins over the UCI section), like a user filling it in."""
    env = of(tool).env(box, tmp_path / 'state')
    env.update({'DDNS_UCI_FILE': str(router / 'etc' / 'config' / tool)})
    of(tool).add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    done = run_tool(str(router / 'usr' / 'bin' / tool), ['--uci', 'home_v4'], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: 81.2.69.10' in done.stdout
    assert of(tool).held(box, RECORD) == of(tool).content('81.2.69.10')


def provider_modules(router):
    """The providers' modules anywhere under the root."""
    return sorted(os.path.relpath(os.path.join(folder, name), str(router)) for folder, _, names in os.walk(str(router))
                  for name in names if name.endswith('.py') and name[:-3] in REGISTERED)


def calls_of(box):
    return [len(server.calls()) for server in box.servers]


@pytest.mark.parametrize('adapter', sampled(ADAPTERS, 4), ids=[a.provider for a in sampled(ADAPTERS, 4)])
def test_the_command_and_one_provider_package_run_it_and_carry_no_other(feed, box, tmp_path, adapter):
    """ddkit, ddkit-ddns, ddkit-command and one provider's package (installing the command and one
    provider must not install the others' code): /usr/bin/ddkit --provider <it> updates the record at
    its fake; no other provider's module is anywhere under the root; a record of another provider is
    refused before any request (exit 2) naming the package that brings it; --help lists the others
    as not installed."""
    router = tmp_path / 'root'
    install_all(feed, str(router), libraries(COMMAND) + (COMMAND_PACKAGE, adapter.package))
    # a preset has no module of its own: its protocol's package brings it
    assert provider_modules(router) == ['usr/lib/ddkit/ddkit/providers/%s.py' % adapter.module_name]
    adapter.add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    env = adapter.env(box, tmp_path / 'state')
    before = tree(router)
    done = run_installed(router, COMMAND, ['--provider', adapter.provider], tmp_path, env=env)
    assert done.returncode == 0 and 'IP has been updated to: 81.2.69.10' in done.stdout, done.stdout + done.stderr
    assert adapter.held(box, RECORD) == adapter.content('81.2.69.10')
    assert tree(router) == before
    requests = calls_of(box)
    from ddkit import registry
    names = [str(name) for name in registry.PROVIDERS]
    brought = {name for name in names if registry.module_name(name) == adapter.module_name}   # presets too
    # each other provider under make test-full; make test three spread over the registry (--help below
    # lists every one as not installed)
    for other in sampled([name for name in names if name not in brought], 3):
        refused = run_installed(router, COMMAND, ['--provider', other, '--zone-name', ZONE, '--record-name', RECORD],
                                tmp_path, env={'DDNS_STATE_DIR': str(tmp_path / 'state'),
                                               'DDNS_IP_LOOKUP_URL': box.lookup.url})
        assert refused.returncode == 2 and 'ddkit: provider %s is not installed: install the package ddkit-%s' % (
            other, registry.module_name(other)) in refused.stderr and 'Traceback' not in refused.stderr, refused.stderr
    assert calls_of(box) == requests
    shown = run_installed(router, COMMAND, ['--help'], tmp_path)   # the others listed as not installed
    missing = set(re.findall(r'^  (\w+) +not installed here', shown.stdout, re.M))
    services = set(registry.services())   # one row for all of them
    assert shown.returncode == 0 and missing == set(names) - brought - services, shown.stdout


def command_router(feed, root, *optional):
    """A router with the command, provider A's package (ADAPTERS[0]) and the optional packages named."""
    install_all(feed, str(root), libraries(COMMAND) + (COMMAND_PACKAGE, ADAPTERS[0].package) + optional)
    return root


def changing(box):
    """Provider A's record holds an old address, the lookup another: a run updates it."""
    ADAPTERS[0].add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']


def command_env(box, state):
    """The command's settings of provider A's record, pointed at the sandbox."""
    return dict(ADAPTERS[0].env(box, state), DDNS_PROVIDER=ADAPTERS[0].provider)


def without(package):
    """What a run says of a setting whose optional package is not installed."""
    return '%s needs the package %s: opkg install %s (apk add %s on OpenWrt 25.12)' % (
        {'ddkit-notify': 'notify', 'ddkit-proxy': 'proxy', 'ddkit-import': '--import-ddns'}[package], package, package,
        package)


@pytest.fixture
def telegram():
    from fakes.notices import Telegram
    service = Telegram().start()
    yield service
    service.stop()


def test_without_ddkit_notify_notify_is_refused_and_with_it_the_notice_is_sent(feed, box, telegram, tmp_path):
    """The command and a provider without ddkit-notify: a record that sets notify is refused before any
    request, one line naming the package (exit 2); --check (--notify-test too) says it on a FAIL line
    and sends nothing. With ddkit-notify installed the same run updates the record and tells it."""
    router = command_router(feed, tmp_path / 'root')
    assert not {'notices.py', 'proxy.py'} & set(os.listdir(str(router / 'usr' / 'lib' / 'ddkit' / 'ddkit')))
    # the settings are offered all the same (--providers --json, the LuCI page's form): the package is
    # what a router admin installs to use them
    shown = run_installed(router, COMMAND, ['--providers', '--json'], tmp_path)
    assert {'notify', 'notify_on', 'proxy', 'proxy_lookup'} <= {s['name'] for s in json.loads(shown.stdout)['common']}
    changing(box)
    env = dict(command_env(box, tmp_path / 'state'), DDNS_NOTIFY=telegram.notify_url)
    refused = run_installed(router, COMMAND, [], tmp_path, env=env)
    assert refused.returncode == 2 and refused.stderr == 'ddkit: %s\n' % without('ddkit-notify'), refused.stderr
    assert calls_of(box) == [0] * len(box.servers) and refused.stdout == ''
    for args in (['--check'], ['--check', '--notify-test']):
        checked = run_installed(router, COMMAND, args, tmp_path, env=env)
        assert checked.returncode == 2 and 'Traceback' not in checked.stderr, checked.stdout + checked.stderr
        assert 'FAIL  notify needs the package ddkit-notify (notify from DDNS_NOTIFY) -- fix: opkg install ' \
            'ddkit-notify (apk add ddkit-notify on OpenWrt 25.12)\n' in checked.stdout, checked.stdout
        assert 'ok    record holds 81.2.69.1, the current IP is 81.2.69.10' in checked.stdout   # the rest checked
    assert telegram.requests == []
    install(ipk_path(feed, 'ddkit-notify'), str(router))
    done = run_installed(router, COMMAND, [], tmp_path, env=env)
    assert done.returncode == 0 and 'IP has been updated to: 81.2.69.10' in done.stdout, done.stdout + done.stderr
    assert len(telegram.messages) == 1 and '81.2.69.10' in telegram.messages[0]['text']


def test_without_ddkit_import_the_import_is_refused_and_with_it_the_sections_are_written(feed, tmp_path):
    """The command without ddkit-import: --import-ddns is refused, one line naming the package (exit 2),
    and nothing is written; the records' own runs and --help do not need it. With ddkit-import
    installed the same command carries ddns-scripts' sample sections into the UCI file."""
    router = command_router(feed, tmp_path / 'root')
    assert 'ddns_import.py' not in os.listdir(str(router / 'usr' / 'lib' / 'ddkit' / 'ddkit'))
    config = tmp_path / 'ddkit'
    config.write_text("config defaults\n\toption state_dir '%s'\n" % (tmp_path / 'state'))
    config.chmod(0o600)
    source = tmp_path / 'ddns'
    shutil.copy(os.path.join(ROOT, 'tests', 'ddns', 'ddns-sample'), str(source))
    source.chmod(0o600)
    before = config.read_text()
    env = {'DDNS_UCI_FILE': str(config)}
    refused = run_installed(router, COMMAND, ['--import-ddns', str(source)], tmp_path, env=env)
    assert refused.returncode == 2 and refused.stderr == 'ddkit: %s\n' % without('ddkit-import'), refused.stderr
    assert refused.stdout == '' and config.read_text() == before
    helped = run_installed(router, COMMAND, ['--help'], tmp_path, env=env)
    assert helped.returncode == 0 and '--import-ddns' in helped.stdout, helped.stderr
    install(ipk_path(feed, 'ddkit-import'), str(router))
    done = run_installed(router, COMMAND, ['--import-ddns', str(source)], tmp_path, env=env)
    assert done.returncode == 0 and 'Traceback' not in done.stderr, done.stdout + done.stderr
    assert config.read_text() != before and "config ddkit 'myddns_ipv4'" in config.read_text()


@pytest.fixture
def tinyproxy(tmp_path):
    from test_proxy import Tinyproxy
    started = Tinyproxy(str(tmp_path / 'tinyproxy'))
    yield started
    started.stop()


def test_without_ddkit_proxy_proxy_is_refused_an_environment_proxy_fails_and_with_it_both_go_through(
        feed, box, tinyproxy, tmp_path):
    """Without ddkit-proxy: a record that sets proxy is refused before any request (exit 2), and --check
    FAILs it; a proxy named by the environment alone fails the provider's first request (exit 1) naming
    the variable and both fixes, the lookup made direct as ever, nothing sent to the provider or the
    proxy; proxy off, one of the fixes, goes direct. With ddkit-proxy installed both go through the proxy."""
    router = command_router(feed, tmp_path / 'root')
    changing(box)
    env = command_env(box, tmp_path / 'state')
    refused = run_installed(router, COMMAND, [], tmp_path, env=dict(env, DDNS_PROXY=tinyproxy.url()))
    assert refused.returncode == 2 and refused.stderr == 'ddkit: %s\n' % without('ddkit-proxy'), refused.stderr
    assert calls_of(box) == [0] * len(box.servers)
    checked = run_installed(router, COMMAND, ['--check'], tmp_path, env=dict(env, DDNS_PROXY=tinyproxy.url()))
    assert checked.returncode == 2 and 'FAIL  proxy needs the package ddkit-proxy (proxy from DDNS_PROXY) -- fix: ' \
        'opkg install ddkit-proxy (apk add ddkit-proxy on OpenWrt 25.12)\n' in checked.stdout, checked.stdout
    assert 'skip  zone found: not checked (needs: proxy reached)' in checked.stdout
    looked = len(box.lookup.calls())
    failed = run_installed(router, COMMAND, [], tmp_path, env=dict(env, http_proxy=tinyproxy.url()))
    said = 'environment variable http_proxy names a proxy, and the package ddkit-proxy is not installed; fix: ' \
        'opkg install ddkit-proxy (apk add ddkit-proxy on OpenWrt 25.12), or set proxy off (http_proxy unused: direct)'
    assert failed.returncode == 1 and said in failed.stdout and 'Traceback' not in failed.stderr, \
        failed.stdout + failed.stderr
    assert len(box.lookup.calls()) == looked + 1 and ADAPTERS[0].fake(box).calls() == [] and tinyproxy.requests() == []
    direct = run_installed(router, COMMAND, [], tmp_path, env=dict(env, http_proxy=tinyproxy.url(), DDNS_PROXY='off'))
    assert direct.returncode == 0 and 'IP has been updated to: 81.2.69.10' in direct.stdout, direct.stderr
    assert tinyproxy.requests() == []
    install(ipk_path(feed, 'ddkit-proxy'), str(router))
    fake = ADAPTERS[0].fake(box)
    for more in ({'DDNS_PROXY': tinyproxy.url()}, {'http_proxy': tinyproxy.url()}):
        sent, asked = len(tinyproxy.requests()), len(fake.calls())
        done = run_installed(router, COMMAND, ['--force'], tmp_path, env=dict(env, **more))
        assert done.returncode == 0 and 'Traceback' not in done.stderr, done.stdout + done.stderr
        through = [line for line in tinyproxy.requests()[sent:] if line.split()[1].startswith(fake.url + '/')]
        assert through and len(through) == len(fake.calls()[asked:]), tinyproxy.requests()


SAMPLED = [a for a in ADAPTERS if a.provider not in registry().services()]   # a sample section each


@pytest.mark.parametrize('adapter', sampled(SAMPLED, 4), ids=[a.provider for a in sampled(SAMPLED, 4)])
def test_the_commands_sample_section_of_each_provider_runs(router, box, tmp_path, adapter):
    """The sample section the installed command prints for a provider (--sample), added to the
    installed /etc/config/ddkit as its comments say, is one the command runs: given credentials and
    URLs by environment, like a user filling it in."""
    env = adapter.env(box, tmp_path / 'state')
    sample = run_installed(router, COMMAND, ['--provider', adapter.provider, '--sample'], tmp_path, env=env)
    assert sample.returncode == 0, sample.stderr
    config = tmp_path / 'ddkit.uci'
    config.write_text((router / 'etc' / 'config' / COMMAND).read_text() + sample.stdout)
    config.chmod(0o600)
    env['DDNS_UCI_FILE'] = str(config)
    adapter.add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    done = run_installed(router, COMMAND, ['--uci', adapter.provider], tmp_path, env=env)
    assert done.returncode == 0 and 'IP has been updated to: 81.2.69.10' in done.stdout, done.stdout + done.stderr
    assert adapter.held(box, RECORD) == adapter.content('81.2.69.10')


@full_only
def test_a_provider_added_to_the_registry_is_a_package_with_the_recipe_unchanged(tmp_path):
    """A copy of the repository with a third provider registered (tests/memory_provider.py as
    lib/ddkit/providers/memory.py) and nothing else changed: both builds (tools/feed.py, and the SDK's
    make on openwrt/Makefile) make the package ddkit-memory holding memory.py alone, the command prints its
    sample section, and no other package ships it."""
    copy = tmp_path / 'repository'
    for part in ('bin', 'lib', 'tools', 'openwrt', 'luci-app-ddkit'):
        shutil.copytree(os.path.join(ROOT, part), str(copy / part), ignore=shutil.ignore_patterns('__pycache__'))
    shutil.copy(os.path.join(ROOT, 'tests', 'memory_provider.py'), str(copy / 'lib' / 'ddkit' / 'providers' / 'memory.py'))
    registry = copy / 'lib' / 'ddkit' / 'registry.py'
    text = registry.read_text()
    assert text.count('PROVIDERS = (\n') == 1
    registry.write_text(text.replace('PROVIDERS = (\n', "PROVIDERS = (\n    'memory',\n"))
    done = subprocess.run([sys.executable, str(copy / 'tools' / 'feed.py'), '--out', str(tmp_path / 'feed')],
                          capture_output=True, text=True, env=dict(os.environ, SOURCE_DATE_EPOCH=EPOCH))
    assert done.returncode == 0, done.stdout + done.stderr
    built = sorted(name.split('_1')[0] for name in os.listdir(str(tmp_path / 'feed')) if name.endswith('.ipk'))
    assert built == sorted(PACKAGES + ('ddkit-memory',))
    shipped = {name: modules_of(str(tmp_path / 'feed'), name) for name in built}
    assert sorted(shipped['ddkit-memory']) == ['providers.memory']
    assert [name for name in built if 'providers.memory' in shipped[name]] == ['ddkit-memory']
    (fields,) = stanzas(control_files(str(tmp_path / 'feed'), 'ddkit-memory')[1]['control'])
    assert dict(fields)['Depends'] == 'ddkit-ddns (=%s)' % VERSION
    sample = subprocess.run([sys.executable, str(copy / 'bin' / 'ddkit.py'), '--provider', 'memory', '--sample'],
                            capture_output=True, text=True)
    assert "config ddkit 'memory'" in sample.stdout and "\t# whose zones\n\toption account ''" in sample.stdout
    if not shutil.which('make'):
        needs.missing('GNU make is not installed (.ci/run installs it)')
    out = sdk_build(copy / 'openwrt', tmp_path)
    assert tree_files(str(out / 'ddkit-memory'))[0] == {
        './usr/lib/ddkit/ddkit/providers/memory.py': (0o644, shipped['ddkit-memory']['providers.memory'])}


def test_installed_egress6_answers_an_unsupported_code(router):
    done = run_tool(str(router / 'usr' / 'bin' / 'egress6'), ['xx'])
    assert done.returncode == 0 and 'Unsupported operator code' in done.stdout


def test_egress6_runs_its_own_modules_with_only_the_library_installed(feed, tmp_path):
    """ddkit and egress6 alone: the report imports egress (from the egress6 package) and proc (from
    ddkit) and runs nft through proc; a stand-in nft on PATH that only fails, so no firewall is touched."""
    if os.geteuid() != 0:
        needs.missing('egress6 stops before running nft unless it runs as root')
    router = tmp_path / 'root'
    install_all(feed, str(router), (LIBRARY, 'egress6'))
    standin = tmp_path / 'standin'
    standin.mkdir()
    (standin / 'nft').write_text('#!/bin/sh\necho "stand-in nft refused: $*" >&2\nexit 3\n')
    os.chmod(str(standin / 'nft'), 0o755)
    done = run_installed(router, 'egress6', ['--backend', 'nft'], tmp_path,
                         env={'PATH': str(standin) + os.pathsep + os.environ['PATH']})
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'failed (exit 3): stand-in nft refused: -a list chain ip6 egress6 postrouting' in done.stderr
    assert 'Traceback' not in done.stderr
    code = os.path.join(str(router).lstrip(os.sep), 'usr', 'lib', 'ddkit', 'ddkit')
    for module in ('egress', 'proc'):   # imported from the package's files, and compiled into the cache
        assert [f for f in compiled(cache_dir(tmp_path)) if os.path.join(code, module + '.') in f], module


# --- Depends: exactly what the tools import ----------------------------------------------------

def run_guarded(tool, depends, env, log):
    """The tool under the import guard with the given Depends (bypassing run_tool's own)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith('DDNS_')}
    full.update(env)
    full.update({'PYTHONPATH': GUARD_DIR, 'DDKIT_GUARD_TOOL': tool, 'DDKIT_GUARD_DEPENDS': ','.join(depends),
                 'DDKIT_GUARD_LOG': log})
    return subprocess.run([sys.executable, os.path.join(ROOT, 'bin', tool + '.py')], env=full,
                          capture_output=True, text=True, timeout=60)


def test_every_router_tool_declares_the_https_depends():
    """Through the library package: ddkit declares them, every tool depends on ddkit (the updaters
    through their provider and ddkit-ddns, the ddkit command through ddkit-ddns alone)."""
    # the LuCI page needs LuCI too; its plugin runs the command's code (the same HTTPS depends)
    assert package_depends() == {name: HTTPS_DEPENDS + (['luci-base'] if name in LUCI_PACKAGES else [])
                                 for name in PACKAGES}
    assert recipe_depends_of_the_page() == ('ddkit-command (=%s), luci-base' % VERSION,
                                            'luci-app-ddkit (=%s)' % VERSION)
    recipe = feed_tool.Recipe()
    assert {tool: recipe.depends(package_of(tool)) for tool in SERVICES} == {
        tool: '%s (=%s)' % (libraries(tool)[-1], VERSION) for tool in SERVICES}
    assert {name: recipe.depends(name) for name in PROVIDER_PACKAGES} == {
        name: 'ddkit-ddns (=%s)' % VERSION for name in PROVIDER_PACKAGES}
    assert recipe.depends(DDNS_LIBRARY) == 'ddkit (=%s)' % VERSION
    assert recipe.depends(LIBRARY) == ', '.join(HTTPS_DEPENDS)


def recipe_depends_of_the_page():
    recipe = feed_tool.Recipe()
    return tuple(recipe.depends(name) for name in LUCI_PACKAGES)


def test_the_ddkit_command_runs_under_the_depends_of_its_package(tls_box, tmp_path):
    """run_tool guards each tool with the Depends of the package that ships it: the ddkit command with
    those of ddkit-command (a package of another name than the tool's); over HTTPS it uses each of
    them, and without one it fails as a router without that package does."""
    assert package_depends(of_tools=True) == {tool: package_of(tool) for tool in SERVICES}
    guard = import_guard(os.path.join(ROOT, 'bin', COMMAND + '.py'))
    assert guard['DDKIT_GUARD_TOOL'] == COMMAND_PACKAGE
    assert guard['DDKIT_GUARD_DEPENDS'].split(',') == package_depends()[COMMAND_PACKAGE] == HTTPS_DEPENDS
    adapter = ADAPTERS[0]

    def env(state):
        return dict(adapter.env(tls_box, tmp_path / state), DDNS_CA_FILE=tls_box.ca_file,
                    DDNS_PROVIDER=adapter.provider)
    adapter.add(tls_box, RECORD, 'A', '81.2.69.1')
    tls_box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    log = str(tmp_path / 'used.log')
    done = run_guarded(COMMAND, guard['DDKIT_GUARD_DEPENDS'].split(','), env('full'), log)
    assert done.returncode == 0 and 'IP has been updated to: 81.2.69.10' in done.stdout, done.stdout + done.stderr
    with open(log) as f:
        assert {line.split()[1] for line in f} | {'python3-light'} == set(HTTPS_DEPENDS)
    done = run_guarded(COMMAND, ['python3-light'], env('without'), log)
    assert done.returncode != 0 and GUARD_MARK in done.stdout + done.stderr


@pytest.mark.parametrize('tool', TOOLS)
def test_https_run_needs_every_declared_package_and_no_other(tls_box, tmp_path, tool):
    """With its Depends the update over HTTPS works and uses each declared package; without any
    one of them it fails the way a router without that package fails."""
    def env(state):
        full = of(tool).env(tls_box, tmp_path / state)
        full['DDNS_CA_FILE'] = tls_box.ca_file
        return full
    tls_box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    log = str(tmp_path / 'used.log')
    done = run_guarded(tool, HTTPS_DEPENDS, env('full'), log)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: 81.2.69.10' in done.stdout
    with open(log) as f:
        used = {line.split()[1] for line in f}
    assert used | {'python3-light'} == set(HTTPS_DEPENDS)
    for missing in HTTPS_DEPENDS[1:]:
        fewer = [p for p in HTTPS_DEPENDS if p != missing]
        done = run_guarded(tool, fewer, env('without-' + missing), log)
        assert done.returncode != 0 and GUARD_MARK in done.stdout + done.stderr, missing


@pytest.mark.parametrize('tool', TOOLS)
def test_an_internationalized_name_without_python3_codecs_says_what_to_install(box, tmp_path, tool):
    """Not declared (most users never need it): a router without python3-codecs refuses an IDN
    record name before any request, naming the package and the xn-- form to give instead."""
    env = of(tool).env(box, tmp_path / 'state')
    env['DDNS_RECORD_NAME'] = 'büro.example.com'
    done = run_guarded(tool, HTTPS_DEPENDS, env, str(tmp_path / 'used.log'))
    assert done.returncode == 2, done.stdout + done.stderr
    assert 'opkg install python3-codecs' in done.stderr and 'xn--bro-hoa.example.com' in done.stderr, done.stderr
    assert 'Traceback' not in done.stderr and [s.calls() for s in box.servers] == [[] for _ in box.servers]


# --- PKG_RELEASE: a new one whenever the packages hold something new -------------------------------

def makefile_at(commit):
    """openwrt/Makefile's (PKG_RELEASE, PKG_CONTENTS) at a commit of this repository's history."""
    text = subprocess.run(['git', '-C', ROOT, 'show', '%s:openwrt/Makefile' % commit], capture_output=True,
                          text=True).stdout
    values = dict(re.findall(r'^(PKG_RELEASE|PKG_CONTENTS):=(\S*)', text, re.M))
    return values.get('PKG_RELEASE'), values.get('PKG_CONTENTS')


def test_pkg_release_moves_whenever_the_package_contents_do():
    """openwrt/Makefile records what the packages of PKG_RELEASE hold (PKG_CONTENTS); both feeds
    carry that one version. Changed contents need a new PKG_RELEASE: no release of the history
    recorded two contents. The history of main, its first parents: a branch's commits before their
    merge were never built for a router, and their release is the merge's to set."""
    recipe = feed_tool.Recipe()
    assert recipe.variables['PKG_CONTENTS'] == recipe.contents(), (
        'the packages hold something new: raise PKG_RELEASE in openwrt/Makefile and write '
        'PKG_CONTENTS:=%s beside it (tools/feed.py --contents prints it)' % recipe.contents())
    seen = {recipe.variables['PKG_RELEASE']: {recipe.variables['PKG_CONTENTS']}}
    commits = subprocess.run(['git', '-C', ROOT, 'log', '--first-parent', '--format=%H', '--', 'openwrt/Makefile'],
                             capture_output=True, text=True).stdout.split()
    for commit in commits:
        release, contents = makefile_at(commit)
        if contents:
            seen.setdefault(release, set()).add(contents)
    assert {release: len(kinds) for release, kinds in seen.items()} == {release: 1 for release in seen}


@full_only
def test_package_contents_change_with_a_file_or_a_field_but_not_with_the_release(tmp_path):
    """What PKG_CONTENTS hashes: a script, a field, a file's bytes; not the release itself. Each
    change is a hash of every package (0.7 s): make test tries the release and a file's bytes,
    make test-full every change."""
    with open(os.path.join(ROOT, 'openwrt', 'Makefile')) as f:
        makefile = f.read()
    recipe = feed_tool.Recipe()
    files = recipe.installed()   # from bin/ and lib/, the same for every variant of the Makefile
    recipe.installed = lambda: files
    contents = recipe.contents()
    path = 'usr/lib/ddkit/ddkit/wire.py'
    for change, moves in sampled([('PKG_RELEASE:=%s' % recipe.variables['PKG_RELEASE'], False),
                                  ('chmod 0600 "$${IPKG_INSTROOT}/etc/config/egress6"', True),
                                  ('TITLE:=DDNS updater for DNS provider A (API v4)', True),
                                  (path, True)]):
        if change == path:   # one byte more in one module
            other = feed_tool.Recipe()
            changed = dict(files, **{path: (files[path][0], files[path][1] + b'\n')})
        else:
            assert change in makefile, change
            variant = tmp_path / ('%d.mk' % len(os.listdir(str(tmp_path))))
            variant.write_text(makefile.replace(change, change.replace('0600', '0640').replace('(API v4)', 'v4')
                                                .replace('PKG_RELEASE:=', 'PKG_RELEASE:=9')))
            other, changed = feed_tool.Recipe(str(variant)), files
        other.installed = lambda: changed
        assert (other.contents() != contents) == moves, change


# --- make feed: what it says about signatures, and a bad key stops it before anything is written ----

def test_a_signed_feed_says_how_the_router_trusts_it(tmp_path_factory, signify_key):
    out, said = signed_feed(tmp_path_factory, signify_key)
    with open(signify_key[2]) as f:
        number = base64.b64decode(f.read().splitlines()[1])[2:10].hex()
    assert 'feed: signed; trust it on the router: copy %s to /etc/opkg/keys/%s' % (
        os.path.join(out, 'ddkit.pub'), number) in said
    assert os.path.exists(os.path.join(out, 'Packages.sig'))


def test_an_unsigned_feed_says_so(feed_unsigned):
    said = feed_unsigned[1]
    assert 'feed: UNSIGNED' in said and 'KEY=' in said


@pytest.mark.parametrize('tool, key', [('feed.py', 'missing.sec'), ('feed.py', 'not-a-key'),
                                       ('apkfeed.py', 'missing.pem'), ('apkfeed.py', 'not-a-key')])
def test_a_bad_key_stops_the_feed_before_anything_is_written(tmp_path, tool, key):
    if key == 'not-a-key':
        key = str(tmp_path / 'not-a-key')
        with open(key, 'w') as f:
            f.write('not a key\n')
    out = tmp_path / 'out'
    done = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', tool), '--out', str(out), '--key', key],
                          capture_output=True, text=True)
    assert done.returncode != 0 and ('nothing was written' in done.stderr or 'is not an EC P-256 key' in done.stderr
                                     or 'could not read the private key' in done.stderr), done.stderr
    assert not out.exists()


def test_make_feed_checks_both_keys_before_it_builds():
    done = subprocess.run(['make', '-s', '-n', '-C', ROOT, 'feed', 'KEY=k.sec', 'APK_KEY=k.pem'],
                          capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if 'feed.py' in line]
    assert [('--check' in line, 'apkfeed' in line) for line in lines] == [
        (True, False), (True, True), (False, False), (False, True)], done.stdout


def test_a_router_with_one_provider_installs_within_the_budget(feed):
    """What a router with the command and one provider installs, every package together, in bytes on
    its flash (the files as installed, before the file system compresses them): for every provider,
    under make test too (the largest's to meet)."""
    size = {name: sum(len(data) for data in files_of(data_entries(feed, name)[1]).values())
            for name in (LIBRARY, DDNS_LIBRARY, COMMAND_PACKAGE) + PROVIDER_PACKAGES}
    installed = {provider: size[LIBRARY] + size[DDNS_LIBRARY] + size[COMMAND_PACKAGE] + size[provider]
                 for provider in PROVIDER_PACKAGES}
    over = {provider: total for provider, total in installed.items() if total > bench.ROUTER_BUDGET}
    assert all(installed.values()) and over == {}, (
        'a provider and the command install more than the budget of %d bytes (BENCHMARKS.md): %s'
        % (bench.ROUTER_BUDGET, over))
