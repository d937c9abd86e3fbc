#!/usr/bin/env python3
"""Build an opkg feed in dist/feed/: the shared library's .ipk (ddkit) and one per router tool,
Packages, Packages.gz and, given a usign/signify secret key, Packages.sig -- laid out as OpenWrt's
ipkg-build and ipkg-make-index.sh lay them out, and the same bytes every time for the same input
(see shared/spec/opkg.md).

The packages are those of openwrt/Makefile (the OpenWrt SDK recipe): names, versions, Depends,
descriptions, conffiles and maintainer scripts are read from it, so both builds agree. The files
they install come from bin/ and lib/ through tools/standalone.py (installed()), as in the SDK; a
library module that only one tool imports goes in that tool's package, not in ddkit (own_modules()),
and each DNS provider of the registry is a package of its own, ddkit-<provider> (provider_packages(),
made by the Makefile's ProviderPackage for each of its PROVIDERS, which tools/provider_packages.py
prints). tools/apkfeed.py builds the same packages for apk (OpenWrt 25.12 and later) from the same
Recipe.

usage: feed.py [--out DIR] [--key SECRET_KEY [--pub PUBLIC_KEY]] [--check] | feed.py --contents
"""

import gzip
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import provider_packages  # noqa: E402
import standalone  # noqa: E402

OPENWRT = os.path.join(ROOT, 'openwrt')
SOURCE = 'feeds/ddkit/openwrt'   # where the SDK sees openwrt/Makefile when the repository is a feed
LUCI_APP = 'luci-app-ddkit'      # the LuCI page, laid out as a LuCI application

# OpenWrt's generated maintainer scripts (include/package-pack.mk): they run the package's own
# postinst-pkg / prerm-pkg through default_postinst / default_prerm of /lib/functions.sh.
POSTINST = '''#!/bin/sh
[ "${IPKG_NO_SCRIPT}" = "1" ] && exit 0
[ -s ${IPKG_INSTROOT}/lib/functions.sh ] || exit 0
. ${IPKG_INSTROOT}/lib/functions.sh
default_postinst $0 $@
'''
PRERM = '''#!/bin/sh
[ -s ${IPKG_INSTROOT}/lib/functions.sh ] || exit 0
. ${IPKG_INSTROOT}/lib/functions.sh
default_prerm $0 $@
'''
# The same for apk (OpenWrt 25.12 and later): the package's own steps follow the defaults in one script.
APK_POST_INSTALL = '''#!/bin/sh
[ "${IPKG_NO_SCRIPT}" = "1" ] && exit 0
[ -s ${IPKG_INSTROOT}/lib/functions.sh ] || exit 0
. ${IPKG_INSTROOT}/lib/functions.sh
export root="${IPKG_INSTROOT}"
export pkgname="%s"
add_group_and_user
default_postinst
'''
APK_PRE_DEINSTALL = '''#!/bin/sh
[ -s ${IPKG_INSTROOT}/lib/functions.sh ] || exit 0
. ${IPKG_INSTROOT}/lib/functions.sh
export root="${IPKG_INSTROOT}"
export pkgname="%s"
default_prerm
'''


class Recipe:
    """What openwrt/Makefile says: top-level variables, define blocks and the packages built, those a
    $(foreach) makes with a template (ProviderPackage) included."""

    def __init__(self, path=os.path.join(OPENWRT, 'Makefile')):
        self.variables, self.blocks, self.packages = {}, {}, []
        self.made = {}   # {package: (the list variable, its item)} of the packages a $(foreach) makes
        self._used = {}
        with open(path, encoding='utf-8') as f:
            self.parse(f.read().splitlines())

    def parse(self, lines, made_of=None):
        """Read make lines: a define block (a define inside it is its text), a variable, a BuildPackage,
        or a $(foreach) that evals a template for each item of a list variable."""
        block, depth = None, 0
        for line in lines:
            word = line.strip()
            if block is not None:
                depth += word.startswith('define ') - (word == 'endef')
                if depth == 0:
                    block = None
                else:
                    self.blocks[block].append(line)
            elif word.startswith('define '):
                block, depth = word[7:].strip(), 1
                self.blocks[block] = []
            elif re.match(r'^\w+:=', word):
                name, _, value = word.partition(':=')
                self.variables[name] = self.value(value.strip())
            elif word.startswith('$(foreach '):
                each = re.match(r'^\$\(foreach (\w+),\$\((\w+)\),\$\(eval \$\(call ([\w/.+-]+),\$\(\1\)\)\)\)$', word)
                if not each:
                    sys.exit('feed: openwrt/Makefile: a $(foreach) this reader does not follow: %s' % word)
                for item in self.variables.get(each.group(2), '').split():
                    self.parse(called(self.blocks[each.group(3)], item), (each.group(2), item))
            else:
                built = re.match(r'^\$\(eval \$\(call BuildPackage,([\w.+-]+)\)\)', word)
                if built:
                    self.packages.append(built.group(1))
                    if made_of:
                        self.made[built.group(1)] = made_of

    @staticmethod
    def value(text):
        """A variable's value as make sets it: $(CURDIR) is openwrt/, a $(shell ...) runs there (its
        python3 the Python running this) and gives its output, blanks made one space."""
        text = text.replace('$(CURDIR)', OPENWRT)
        shell = re.match(r'^\$\(shell (.*)\)$', text)
        if not shell:
            return text
        path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get('PATH', '')])
        done = subprocess.run(['sh', '-c', shell.group(1)], cwd=OPENWRT, capture_output=True, text=True,
                              env=dict(os.environ, PATH=path))
        if done.returncode != 0:
            sys.exit('feed: openwrt/Makefile: $(shell %s) failed: %s' % (shell.group(1), done.stderr.strip()))
        return ' '.join(done.stdout.split())

    def fields(self, name):
        """KEY:=value lines of Package/<name>, with the $(call ...) defaults it pulls in."""
        fields = {}
        for line in self.blocks.get('Package/' + name, []):
            call = re.match(r'^\s*\$\(call (Package/[\w/.+-]+)\)', line)
            if call:
                fields.update(self.fields(call.group(1)[len('Package/'):]))
            elif ':=' in line:
                key, _, value = line.strip().partition(':=')
                fields[key] = value.strip()
        return fields

    def text(self, block):
        """A define block as the shell sees it ($$ is make's escape for $), or None."""
        lines = self.blocks.get(block)
        return None if lines is None else '\n'.join(lines).replace('$$', '$') + '\n'

    def depends(self, name):
        """The Depends field of a package: EXTRA_DEPENDS as written ($(VERSION) filled in), then the
        `+pkg` conditions of DEPENDS it does not name already, comma separated."""
        fields = self.fields(name)
        extra = [d.strip().replace('$(VERSION)', self.version)
                 for d in fields.get('EXTRA_DEPENDS', '').split(',') if d.strip()]
        named = {d.split()[0] for d in extra}
        return ', '.join(extra + [d.lstrip('+') for d in fields.get('DEPENDS', '').split()
                                  if not d.startswith('@') and d.lstrip('+') not in named])

    def system_depends(self, name):
        """The packages outside this feed that name needs, through the feed's own packages."""
        out = []
        for d in self.depends(name).split(', '):
            d = d.split()[0] if d else d
            for p in (self.system_depends(d) if d in self.packages else [d] if d else []):
                if p not in out:
                    out.append(p)
        return out

    @property
    def version(self):
        return '%s-r%s' % (self.variables['PKG_VERSION'], self.variables['PKG_RELEASE'])

    def tool(self, name):
        """(tool, template) of a tool package (its install block calls install-tool), else None."""
        install = '\n'.join(self.blocks.get('Package/%s/install' % name, []))
        found = re.search(r'install-tool,\$\(1\),([\w.+-]+),([\w.+-]+)\)', install)
        return found.groups() if found else None

    def tool_paths(self):
        """{tool: bin/<tool>.py} of the tool packages."""
        tools = sorted(self.tool(p)[0] for p in self.packages if self.tool(p))
        return {tool: os.path.join(ROOT, 'bin', tool + '.py') for tool in tools}

    def installed(self):
        """{path: (mode, bytes)}: the library and the tools' code and stubs (standalone.installed);
        the library holds every provider, as the ddkit command imports the registry."""
        return {path: (mode, data) for path, mode, data in standalone.installed(list(self.tool_paths().values()))}

    def contents(self):
        """The SHA-256 of what the packages hold but their version: fields, dependencies, scripts and
        every file with its mode. openwrt/Makefile records it as PKG_CONTENTS beside PKG_RELEASE."""
        installed, own = self.installed(), self.own_modules()
        digest = hashlib.sha256()
        for template in (POSTINST, PRERM, APK_POST_INSTALL, APK_PRE_DEINSTALL):
            digest.update(template.encode() + b'\0')
        for name in sorted(self.packages):
            fields = sorted(self.fields(name).items()) + [
                ('Depends', self.depends(name).replace(self.version, '$(VERSION)'))] + [
                (block, self.text('Package/%s/%s' % (name, block)) or '')
                for block in ('description', 'conffiles', 'postinst', 'prerm')]
            files = sorted((path, mode, hashlib.sha256(data).hexdigest() if data is not None else '')
                           for path, mode, data in self.files(name, installed, own))
            digest.update(repr((name, fields, files)).encode() + b'\0')
        return digest.hexdigest()

    def used(self, optional=False):
        """{tool: the library modules it imports, itself or through the providers it runs (the ddkit
        command: every one), but the providers (each ships in its own package) and the optional ones
        (each a package of its own, optional_modules()); optional: those too}."""
        if optional not in self._used:   # the same sources all along: a feed asks for every package
            left_out = set() if optional else set().union(*self.optional().values())
            left_out |= {standalone.PROVIDERS + name for name in standalone.registered()}
            left_out |= self.off_router()
            self._used[optional] = {tool: standalone.used_modules(standalone.tool_code(path)[2]) - left_out
                                    for tool, path in self.tool_paths().items()}
        return {tool: set(modules) for tool, modules in self._used[optional].items()}

    def off_router(self):
        """The library modules no package ships (OFF_ROUTER_MODULES): what a PC needs alone, such as
        the installer of a system's own service (ddkit.service; a router's service is its package's)."""
        return set(self.variables.get('OFF_ROUTER_MODULES', '').split())

    def optional(self):
        """{package: [modules]} of the optional library packages as openwrt/Makefile states them
        (OPTIONAL_MODULES_<package>, its - written _); optional_modules() checks them."""
        prefix, out = 'OPTIONAL_MODULES_', {}
        for name in self.packages:
            variable = prefix + name.replace('-', '_')
            if variable in self.variables:
                out[name] = sorted(self.variables[variable].split())
        stray = sorted(v for v in self.variables if v.startswith(prefix)
                       and v not in [prefix + name.replace('-', '_') for name in out])
        if stray:
            sys.exit('feed: openwrt/Makefile: %s names no package it builds' % ', '.join(stray))
        return out

    def optional_modules(self):
        """{package: [modules]}: the library modules that are packages of their own, which only the
        routers using them install (OPTIONAL_MODULES_<package>), left out of the packages the imports
        would put them in (used()). Stops unless the library's ddkit.OPTIONAL names the same (a run
        says which package to install), the tools import each module, each package depends on those
        holding the modules that import it (DEPENDS and EXTRA_DEPENDS, the version pinned) and, through
        them, on those holding what it imports, the library's install block leaves its modules out,
        and no package depends on it (a router without it runs)."""
        stated, declared = self.optional(), {}
        for module, package in library_optional().items():
            declared.setdefault(package, []).append(module)
        declared = {package: sorted(modules) for package, modules in declared.items()}
        if stated != declared:
            sys.exit('feed: openwrt/Makefile disagrees with the library: its optional packages are %s '
                     '(OPTIONAL_MODULES_<package>:=), lib/ddkit/__init__.py OPTIONAL says %s' % (stated, declared))
        imported = set().union(*self.used(optional=True).values())
        shipped = self.module_packages()
        first = '\n'.join(self.blocks.get('Package/%s/install' % self.library(), []))
        for name, modules in sorted(stated.items()):
            variable = 'OPTIONAL_MODULES_' + name.replace('-', '_')
            own = '\n'.join(self.blocks.get('Package/%s/install' % name, []))
            if not set(modules) <= imported or '$(%s)' % variable not in first or variable not in own:
                sys.exit('feed: openwrt/Makefile: the modules of %s (%s) must be modules the tools import, '
                         'left out by Package/%s/install ($(%s)) and installed by Package/%s/install'
                         % (name, ', '.join(modules), self.library(), variable, name))
            importers = {self.package_of(tool) for tool, path in self.tool_paths().items()
                         if set(modules) & standalone.names_in(standalone.tool_code(path)[2])}
            importers |= {package for other, package in shipped.items() if set(modules) & standalone.names_in(
                standalone.strip(standalone.read(standalone.module_file(other))))}
            wanted = sorted(p for p in importers if not any(p in self.needs(q) for q in importers))
            fields = self.fields(name)
            selected = sorted(d.lstrip('+') for d in fields.get('DEPENDS', '').split())
            pinned = sorted(d.split()[0] for d in fields.get('EXTRA_DEPENDS', '').split(',')
                            if d.strip() and d.split()[1:] == ['(=$(VERSION))'])
            if not selected == pinned == wanted:
                sys.exit('feed: openwrt/Makefile disagrees with the imports: Package/%s must depend on %s '
                         '(DEPENDS:=+<package>, EXTRA_DEPENDS:=<package> (=$(VERSION))): the packages of the '
                         'modules that import %s' % (name, wanted, ', '.join(modules)))
            needs = set().union(*[standalone.used_modules(standalone.strip(standalone.read(standalone.module_file(m))),
                                                          providers=False) for m in modules])
            needs -= set().union(*stated.values())   # another optional one: loaded only when asked for, as anywhere
            unmet = sorted(m for m in needs if shipped.get(m) not in self.needs(name))
            if unmet:
                sys.exit('feed: %s imports %s, which no package %s depends on ships' % (name, unmet, name))
            users = [p for p in self.packages if name in self.needs(p)]
            if users:
                sys.exit('feed: openwrt/Makefile: %s depend%s on the optional package %s: nothing may (a router '
                         'installs it for its feature alone)' % (', '.join(users), 's' * (len(users) == 1), name))
        return stated

    def module_packages(self):
        """{library module: the package that ships it}, but the providers and the optional modules."""
        own, shared = self.own_modules(), self.shared_modules()
        out = {m: self.library() for modules in self.used().values() for m in modules}
        out.update({m: name for name, modules in shared.items() for m in modules})
        out.update({m: self.package_of(tool) for tool, modules in own.items() for m in modules})
        return out

    def own_modules(self):
        """{tool: [library modules that no other tool imports]}: they ship in the tool's package. Stops
        when openwrt/Makefile states another split (OWN_MODULES_<tool>, which its install blocks use)."""
        used, shared = self.used(), self.provider_needs()
        own = {tool: sorted(modules.difference(shared, *[used[other] for other in used if other != tool]))
               for tool, modules in used.items()}
        stated = {tool: sorted(self.variables.get('OWN_MODULES_' + tool, '').split()) for tool in used}
        library = '\n'.join(self.blocks.get('Package/%s/install' % self.library(), []))
        unnamed = [tool for tool in used if own[tool] and '$(OWN_MODULES_%s)' % tool not in library]
        if stated != own or unnamed:
            sys.exit('feed: openwrt/Makefile disagrees with the imports: the modules only one tool imports '
                     'are %s (say so in OWN_MODULES_<tool>:=), and Package/%s/install must name the '
                     '$(OWN_MODULES_<tool>) of every tool that has some' % (own, self.library()))
        return own

    def provider_packages(self):
        """{package: provider}: one package ddkit-<provider> for each provider of the registry, made by
        the template openwrt/Makefile evals for each of its PROVIDERS. Stops when the Makefile's
        providers are not the registry's, when a package is not named as the registry tells users to
        install it (the library's install block copies ddkit/*.py: the providers' folder is theirs)."""
        registered = list(standalone.registered())
        made = {package: item for package, (variable, item) in self.made.items() if variable == 'PROVIDERS'}
        if self.variables.get('PROVIDERS', '').split() != registered or sorted(made.values()) != sorted(registered):
            sys.exit('feed: openwrt/Makefile disagrees with the registry: its PROVIDERS are %r, its provider '
                     'packages %s; lib/ddkit/registry.py registers %s'
                     % (self.variables.get('PROVIDERS', ''), sorted(made), registered))
        misnamed = sorted(package for package, provider in made.items() if package != 'ddkit-' + provider)
        if misnamed:
            sys.exit('feed: openwrt/Makefile: a provider is the package ddkit-<provider> (registry.provider '
                     'tells users to install that; not %s)' % misnamed)
        return made

    def provider_depends(self):
        """{tool: [the provider packages its package depends on]}: those of the providers it imports by
        name (a seed tool: the package of the provider it is fixed to), none for the ddkit command (it
        imports the registry: a router carries only the providers it uses). Stops when openwrt/Makefile states other Depends, or when a
        provider imports a library module that no package its package depends on ships (its package holds its module
        alone)."""
        packages = self.provider_packages()
        of_provider = {provider: package for package, provider in packages.items()}
        used = self.used()
        out = {}
        for tool, path in self.tool_paths().items():
            code = standalone.tool_code(path)[2]
            sources = [code] + [standalone.strip(standalone.read(os.path.join(standalone.LIB, m + '.py')))
                                for m in used[tool]]
            named = {standalone.provider_of(n) for n in set().union(*[standalone.names_in(source) for source in sources])}
            named &= set(of_provider)
            out[tool] = sorted(of_provider[provider] for provider in named)
            # DEPENDS selects a package in the SDK, EXTRA_DEPENDS pins its version: both must name it
            fields = self.fields(self.package_of(tool))
            selected = sorted(d.lstrip('+') for d in fields.get('DEPENDS', '').split() if d.lstrip('+') in packages)
            pinned = sorted(d.split()[0] for d in fields.get('EXTRA_DEPENDS', '').split(',')
                            if d.strip() and d.split()[0] in packages)
            stated = selected if selected == pinned else selected + ['(EXTRA_DEPENDS: %s)' % ', '.join(pinned)]
            if stated != out[tool]:
                sys.exit('feed: openwrt/Makefile disagrees with the imports: Package/%s must depend on the '
                         'provider packages %s (the providers bin/%s.py imports), not %s'
                         % (self.package_of(tool), out[tool], tool, stated))
        shipped = self.module_packages()
        for package, provider in sorted(packages.items()):
            needs = standalone.used_modules(standalone.strip(standalone.read(
                standalone.module_file(standalone.PROVIDERS + provider))), providers=False)
            unmet = sorted(m for m in needs if shipped.get(m) not in self.needs(package))
            if unmet:
                sys.exit('feed: the provider %s imports %s, which no package %s depends on ships: the package '
                         'holds the provider\'s module alone' % (provider, unmet, package))
        return out

    def provider_needs(self):
        """The library modules a provider imports (but the optional ones): never a tool's own, they ship
        in the package the tools running providers share (ddkit-ddns), which every provider package
        depends on, even where only the ddkit command's providers import one (ddkit.rrset)."""
        if not hasattr(self, '_needs'):
            optional = set().union(*self.optional().values())
            self._needs = set().union(*[standalone.used_modules(standalone.strip(standalone.read(
                standalone.module_file(standalone.PROVIDERS + provider))), providers=False)
                for provider in standalone.registered()]) - optional
        return set(self._needs)

    def shared_modules(self):
        """{library package but the first: [modules]}: the modules more than one tool imports, or a
        provider does (provider_needs), all of them tools that depend on that package (ddkit-ddns:
        the updaters' loop). Stops when
        openwrt/Makefile states another split (MODULES_<package>, which the install blocks use)."""
        used, found, needs = self.used(), {}, self.provider_needs()
        for name in self.libraries()[1:]:
            served = {tool for tool in used if name in self.needs(self.package_of(tool))}
            modules = set().union(*[used[t] for t in served]) if served else set()
            found[name] = sorted(m for m in modules if (sum(m in used[t] for t in served) > 1 or m in needs)
                                 and not any(m in used[t] for t in used if t not in served))
            variable = 'MODULES_' + name.replace('-', '_')
            first = '\n'.join(self.blocks.get('Package/%s/install' % self.library(), []))
            if sorted(self.variables.get(variable, '').split()) != found[name] or '$(%s)' % variable not in first:
                sys.exit('feed: openwrt/Makefile disagrees with the imports: the modules that only the tools '
                         'depending on %s share are %s (say so in %s:=, and leave them out of Package/%s/install)'
                         % (name, found[name], variable, self.library()))
        return found

    def library(self):
        """The package of the library every tool needs: the first that is no tool."""
        return self.libraries()[0]

    def libraries(self):
        """The library packages, in the order of openwrt/Makefile: every package that is no tool, no
        provider, no optional package and none of the LuCI page."""
        luci, optional = self.luci_packages(), self.optional()
        return [p for p in self.packages if not self.tool(p) and p not in self.made and p not in luci
                and p not in optional]

    def needs(self, name):
        """The packages of this feed that name depends on, directly or through another."""
        found = []
        for d in self.depends(name).split(', '):
            d = d.split()[0] if d else d
            if d in self.packages and d not in found:
                found += [d] + [p for p in self.needs(d) if p not in found]
        return found

    def package_of(self, tool):
        (name,) = [p for p in self.packages if self.tool(p) and self.tool(p)[0] == tool]
        return name

    def files(self, name, installed, own):
        """The data of a package as [(path, mode, bytes or None for a directory)], from its
        install block: the library (LIB_DIR/ddkit/ but the tools' own modules, the providers' and
        those of the other library packages), another library package (its MODULES_), an optional one
        (its OPTIONAL_MODULES_), a provider's (its module), or install-tool (the tool's code, own
        modules and stub, its UCI file, init and hotplug)."""
        install = '\n'.join(self.blocks.get('Package/%s/install' % name, []))
        shared, providers = self.shared_modules(), self.provider_packages()
        optional = self.optional_modules()
        if name in self.luci_packages():
            return self.installed_by_steps(name)
        if name in providers:
            self.provider_depends()
            module = module_path(standalone.PROVIDERS + providers[name])
            wanted = [(module,) + installed[module]]
        elif self.tool(name):
            self.provider_depends()
            wanted = self.tool_files(*self.tool(name), installed=installed, own=own)
        elif name in shared or name in optional:
            modules = shared[name] if name in shared else optional[name]
            wanted = [(module_path(m),) + installed[module_path(m)] for m in modules]
        elif '/%s/ddkit' % standalone.LIB_DIR in install:
            elsewhere = {module_path(m) for modules in list(own.values()) + list(shared.values())
                         + list(optional.values()) + [list(providers.values())] + [self.off_router()]
                         for m in modules}
            # LIB_DIR/ddkit/*.py: the providers' folder is theirs
            top = standalone.LIB_DIR + '/ddkit/'
            wanted = [(path, mode, data) for path, (mode, data) in sorted(installed.items())
                      if path.startswith(top) and '/' not in path[len(top):] and path not in elsewhere]
        else:
            sys.exit('feed: Package/%s/install in openwrt/Makefile installs neither the library nor a tool' % name)
        entries, dirs = [], set()
        for path, mode, data in wanted:
            parts = path.split('/')
            for depth in range(1, len(parts)):
                dirs.add('/'.join(parts[:depth]))
            entries.append(('./' + path, mode, data))
        return [('.', 0o755, None)] + [('./' + d, 0o755, None) for d in dirs] + entries

    def luci_packages(self):
        """The packages of the LuCI page: those whose install block takes files from luci-app-ddkit/."""
        return [p for p in self.packages
                if '/%s/' % LUCI_APP in '\n'.join(self.blocks.get('Package/%s/install' % p, []))]

    def installed_by_steps(self, name):
        """A LuCI package's files, its install block run step by step as the SDK runs it: $(INSTALL_DIR)
        (directories 0755), $(INSTALL_DATA) and $(INSTALL_BIN) (files 0644 and 0755, into a directory),
        echo "TEXT" > FILE (0644), and python3 tools/lmo.py PO LMO (a catalog, none when it holds no
        translation, as po2lmo). Any other step stops the build: it would be skipped silently."""
        import glob
        import shlex
        sys.path.insert(0, os.path.join(ROOT, 'tools'))
        import lmo
        dirs, entries = set(), []

        def source(word):
            return word.replace('$(PKG_BUILD_DIR)', ROOT)

        def target(word):
            if not word.startswith('$(1)/'):
                sys.exit('feed: Package/%s/install: %s is not under $(1)' % (name, word))
            return word[len('$(1)/'):].rstrip('/')

        for line in self.blocks.get('Package/%s/install' % name, []):
            words = shlex.split(line.strip())
            if not words:
                continue
            if words[0] == '$(INSTALL_DIR)':
                dirs.update(target(w) for w in words[1:])
            elif words[0] in ('$(INSTALL_DATA)', '$(INSTALL_BIN)'):
                mode = 0o755 if words[0] == '$(INSTALL_BIN)' else 0o644
                into = target(words[-1])
                for pattern in words[1:-1]:
                    found = sorted(glob.glob(source(pattern)))
                    if not found:
                        sys.exit('feed: Package/%s/install: no file %s' % (name, pattern))
                    entries += [('%s/%s' % (into, os.path.basename(path)), mode, read(path)) for path in found]
            elif words[0] == 'echo' and len(words) == 4 and words[2] == '>':
                entries.append((target(words[3]), 0o644, (words[1] + '\n').encode('utf-8')))
            elif words[:2] == ['python3', '$(PKG_BUILD_DIR)/tools/lmo.py'] and len(words) == 4:
                catalog = lmo.lmo(lmo.po_entries(read(source(words[2]))))
                if catalog:
                    entries.append((target(words[3]), 0o644, catalog))
            else:
                sys.exit('feed: Package/%s/install: a step this builder does not follow: %s' % (name, line.strip()))
        for path, _, _ in entries:
            parts = path.split('/')
            dirs.update('/'.join(parts[:depth]) for depth in range(1, len(parts)))
        for folder in list(dirs):
            parts = folder.split('/')
            dirs.update('/'.join(parts[:depth]) for depth in range(1, len(parts)))
        return [('.', 0o755, None)] + [('./' + d, 0o755, None) for d in sorted(dirs)] + \
            [('./' + path, mode, data) for path, mode, data in entries]

    def tool_files(self, tool, template, installed, own):
        """A tool package's files: its stub, code and own modules, UCI file, init and hotplug scripts.
        The ddkit command's UCI file is written from the registry (tools/provider_packages.py), as
        the SDK's Build/Compile writes it; the others' are openwrt/files/<tool>.config."""
        files = os.path.join(OPENWRT, 'files')
        module = standalone.module_name(tool)
        if self.variables.get('CODE_MODULE_' + tool, tool) != module:
            sys.exit('feed: openwrt/Makefile: the code of %s is the module %s (tools/standalone.py module_name): '
                     'say so in CODE_MODULE_%s:=%s' % (tool, module, tool, module))
        code = '%s/%s.py' % (standalone.LIB_DIR, module)
        config = provider_packages.uci_file().encode('utf-8') if tool == provider_packages.COMMAND else \
            read(os.path.join(files, tool + '.config'))
        return [('usr/bin/' + tool,) + installed['usr/bin/' + tool], (code,) + installed[code]] + [
                (module_path(m),) + installed[module_path(m)] for m in own.get(tool, [])] + [
                ('etc/config/' + tool, 0o600, config),
                ('etc/init.d/' + tool, 0o755, named(read(os.path.join(files, template + '.init')), tool)),
                ('etc/hotplug.d/iface/95-' + tool, 0o644, named(read(os.path.join(files, template + '.hotplug')), tool))]


def library_optional():
    """ddkit.OPTIONAL of lib/ddkit/__init__.py ({module: package}), read without importing the library."""
    import ast
    tree = ast.parse(read(os.path.join(standalone.LIB, '__init__.py')).decode('utf-8'))
    (value,) = [node.value for node in tree.body if isinstance(node, ast.Assign)
                and [getattr(t, 'id', None) for t in node.targets] == ['OPTIONAL']]
    return ast.literal_eval(value)


def called(template, item):
    """The lines of $(call template,item): $(1) is the item, $$ a $ (make's escape)."""
    return [re.sub(r'\$\$|\$\(1\)', lambda m: '$' if m.group() == '$$' else item, line) for line in template]


def module_path(module):
    """Where a library module is installed (the library's directory, whichever package ships it)."""
    return '%s/ddkit/%s.py' % (standalone.LIB_DIR, module.replace('.', '/'))


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def named(template, tool):
    return template.replace(b'@NAME@', tool.encode())


def sort_key(entry):
    # GNU tar --sort=name: depth first, each directory's names in byte order
    return [p for p in entry[0].encode().split(b'/') if p not in (b'', b'.')]


class Member(tarfile.TarInfo):
    """A tar header as GNU tar writes it for a file or directory: no device numbers (Python 3.8
    writes zeros there, later versions leave the fields empty, as GNU tar does)."""

    def tobuf(self, *args, **kwargs):
        buf = bytearray(super().tobuf(*args, **kwargs))
        head = len(buf) - tarfile.BLOCKSIZE   # the member's own header comes after any long-name one
        buf[head + 329:head + 345] = bytes(16)
        buf[head + 148:head + 156] = b' ' * 8
        buf[head + 148:head + 156] = b'%06o\0 ' % sum(buf[head:head + tarfile.BLOCKSIZE])
        return bytes(buf)


def tar(entries, epoch, sort=True):
    """An uncompressed GNU tar as ipkg-build writes it: owner 0:0 by number, one mtime."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode='w', format=tarfile.GNU_FORMAT) as out:
        for name, mode, data in (sorted(entries, key=sort_key) if sort else entries):
            info = Member(name)
            info.mode, info.mtime, info.uid, info.gid, info.uname, info.gname = mode, epoch, 0, 0, '', ''
            if data is None:
                info.type = tarfile.DIRTYPE
                out.addfile(info)
            else:
                info.size = len(data)
                out.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def gzip_n(data):
    """gzip -n: no file name, no time stamp (so the bytes depend on the content only), and OS 3
    (Unix) in the header as gzip writes it, which Python writes only in some versions."""
    packed = bytearray(gzip.compress(data, compresslevel=9, mtime=0))
    packed[9] = 3
    return bytes(packed)


def control(recipe, name, installed_size, epoch):
    """The control file, fields in the order OpenWrt's package-pack.mk writes them."""
    fields = recipe.fields(name)
    variables = recipe.variables
    lines = ['Package: ' + name, 'Version: ' + recipe.version]
    for key, value in (('Depends', recipe.depends(name)), ('Source', SOURCE),
                       ('SourceName', variables.get('PKG_NAME')), ('License', variables.get('PKG_LICENSE')),
                       ('Section', fields.get('SECTION')), ('SourceDateEpoch', str(epoch)),
                       ('Maintainer', variables.get('PKG_MAINTAINER')),
                       ('Architecture', fields.get('PKGARCH', 'all')),
                       ('Installed-Size', str(installed_size))):
        if value:
            lines.append('%s: %s' % (key, value))
    description = recipe.text('Package/%s/description' % name) or fields.get('TITLE', name) + '\n'
    # package-pack.mk: each line's leading blanks become one space, after "Description: "
    lines.append('Description: ' + '\n'.join(' ' + line.lstrip() for line in description.splitlines()))
    return '\n'.join(lines) + '\n'


def build_package(recipe, name, installed, own, epoch):
    """One .ipk: (file name, bytes, control text)."""
    data = tar(recipe.files(name, installed, own), epoch)
    text = control(recipe, name, len(data), epoch)
    entries = [('.', 0o755, None), ('./control', 0o644, text.encode()),
               ('./postinst', 0o755, POSTINST.encode()), ('./prerm', 0o755, PRERM.encode())]
    conffiles = recipe.text('Package/%s/conffiles' % name)
    if conffiles:
        entries.append(('./conffiles', 0o644, ''.join(
            line.strip() + '\n' for line in sorted(conffiles.splitlines()) if line.strip()).encode()))
    for script, suffix in (('postinst', '-pkg'), ('prerm', '-pkg')):
        body = recipe.text('Package/%s/%s' % (name, script))
        if body:
            entries.append(('./' + script + suffix, 0o755, body.encode()))
    outer = [('./debian-binary', 0o644, b'2.0\n'), ('./data.tar.gz', 0o644, gzip_n(data)),
             ('./control.tar.gz', 0o644, gzip_n(tar(entries, epoch)))]
    filename = '%s_%s_%s.ipk' % (name, recipe.version, recipe.fields(name).get('PKGARCH', 'all'))
    return filename, gzip_n(tar(outer, epoch, sort=False)), text


def index_entry(filename, ipk, text):
    """ipkg-make-index.sh: Filename, Size and SHA256sum go just before Description."""
    extra = 'Filename: %s\nSize: %d\nSHA256sum: %s\n' % (filename, len(ipk), hashlib.sha256(ipk).hexdigest())
    at = text.index('Description:')
    return text[:at] + extra + text[at:] + '\n'


def padded(packages):
    """OpenWrt's padding of Packages: two more newlines when (64 + size) % 128 is 110 or 111,
    sizes at which old usign builds (a SHA-512 bug) reject a good signature."""
    return packages + b'\n\n' if (64 + len(packages)) % 128 in (110, 111) else packages


def source_date_epoch():
    """SOURCE_DATE_EPOCH, else the last commit's time, so a rebuild gives the same bytes."""
    if os.environ.get('SOURCE_DATE_EPOCH', '').isdigit():
        return int(os.environ['SOURCE_DATE_EPOCH'])
    try:
        out = subprocess.run(['git', '-C', ROOT, 'log', '-1', '--format=%ct'], capture_output=True,
                             text=True, check=True).stdout.strip()
        return int(out)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return 0


def check_key(key, pub):
    """Stop before anything is written unless key is a usign secret key signify can sign with."""
    import tempfile
    signify = shutil.which('signify-openbsd') or shutil.which('signify')
    if not signify:
        sys.exit('feed: signify-openbsd is needed to sign (apt-get install signify-openbsd); nothing was written')
    if not os.path.isfile(key) or not os.access(key, os.R_OK):
        sys.exit('feed: no readable key file %s; nothing was written (make one with '
                 '"signify-openbsd -G -n -p ddkit.pub -s ddkit.sec")' % key)
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, 'probe')
        write(probe, b'probe\n')
        if subprocess.run([signify, '-S', '-s', key, '-m', probe, '-x', probe + '.sig'],
                          stdin=subprocess.DEVNULL, capture_output=True).returncode != 0:
            sys.exit('feed: %s is not a secret key signify can sign with (it must be unencrypted: '
                     '"signify-openbsd -G -n"); nothing was written' % key)


def fingerprint(pub):
    """usign's name for a public key on the router (/etc/opkg/keys/<fingerprint>): the 8-byte key
    number after the algorithm, in hex."""
    import base64
    with open(pub, encoding='ascii', errors='replace') as f:
        lines = [line for line in f.read().splitlines() if line and not line.startswith('untrusted comment')]
    try:
        return base64.b64decode(lines[0])[2:10].hex()
    except (IndexError, ValueError):
        return None


def sign(out, key, pub):
    """Packages.sig with signify-openbsd: usign on the router accepts its signatures."""
    signify = shutil.which('signify-openbsd') or shutil.which('signify')
    if not signify:
        sys.exit('feed: signify-openbsd is needed to sign (apt-get install signify-openbsd)')
    if subprocess.run([signify, '-S', '-s', key, '-m', os.path.join(out, 'Packages'),
                       '-x', os.path.join(out, 'Packages.sig')]).returncode != 0:
        sys.exit('feed: signing with %s failed (see above); KEY must be a secret key made with '
                 '"signify-openbsd -G -n"' % key)
    if pub and os.path.exists(pub):
        shutil.copyfile(pub, os.path.join(out, 'ddkit.pub'))


def build(out, key=None, pub=None):
    """Write the feed into out; returns the .ipk file names."""
    recipe = Recipe()
    installed, own = recipe.installed(), recipe.own_modules()
    epoch = source_date_epoch()
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        if old.endswith('.ipk') or old.startswith('Packages') or old == 'ddkit.pub':
            os.remove(os.path.join(out, old))
    index, names = [], []
    for name in sorted(recipe.packages):
        filename, ipk, text = build_package(recipe, name, installed, own, epoch)
        write(os.path.join(out, filename), ipk)
        index.append(index_entry(filename, ipk, text))
        names.append(filename)
    packages = padded(''.join(index).encode())
    write(os.path.join(out, 'Packages'), packages)
    write(os.path.join(out, 'Packages.gz'), gzip_n(packages))
    if key:
        sign(out, key, pub)
    return names


def write(path, data):
    with open(path + '.tmp', 'wb') as f:
        f.write(data)
    os.chmod(path + '.tmp', 0o644)
    os.replace(path + '.tmp', path)


def main(argv):
    if argv[1:] == ['--contents']:
        print('PKG_CONTENTS:=%s' % Recipe().contents())
        return
    opts = {'--out': os.path.join(ROOT, 'dist', 'feed'), '--key': None, '--pub': None, '--check': None}
    args = list(argv[1:])
    while args:
        name = args.pop(0)
        if name == '--check':   # only check the key: make feed checks both feeds' keys first
            opts[name] = True
            continue
        if name not in opts or not args:
            sys.exit(__doc__.strip().splitlines()[-1])
        opts[name] = args.pop(0)
    key = opts['--key'] or None
    pub = opts['--pub'] or (key[:-4] + '.pub' if key and key.endswith('.sec') else None)
    if key:
        check_key(key, pub)
    if opts['--check']:
        return
    for filename in build(opts['--out'], key, pub):
        print('feed: %s' % os.path.join(opts['--out'], filename))
    if key and pub and os.path.isfile(pub):
        print('feed: signed; trust it on the router: copy %s to /etc/opkg/keys/%s (or opkg-key add it)'
              % (os.path.join(opts['--out'], 'ddkit.pub'), fingerprint(pub) or '<fingerprint>'))
    elif key:
        print('feed: signed; trust it on the router: copy the public key of %s to /etc/opkg/keys/<its '
              'fingerprint> (or opkg-key add it)' % key)
    else:
        print('feed: UNSIGNED (opkg update drops an unsigned list unless the router has '
              '"option check_signature" off; make feed KEY=ddkit.sec signs it)')


if __name__ == '__main__':
    main(sys.argv)
