#!/usr/bin/env python3
"""The DNS providers of the registry (lib/ddkit/registry.py: PROVIDERS) as the packages see them:
one package ddkit-<name> for each provider module (a preset is no package: its protocol's brings it),
and the ddkit command's /etc/config/ddkit with one sample section per provider, presets included,
written from that provider's own settings and help texts. openwrt/Makefile gets its
PROVIDERS from --names and writes the UCI file with --uci in the SDK; tools/feed.py and
tools/apkfeed.py call the same functions, so a provider added to the registry is a package and a
sample section in both builds with nothing else changed.

usage: provider_packages.py --names | provider_packages.py --uci FILE
"""

import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standalone  # noqa: E402

COMMAND = 'ddkit'   # the command that runs any provider: its UCI file is the one written here
WIDTH = 100         # of a comment line, as in the hand-written UCI files of openwrt/files/

HEAD = '''\
# ddkit: keep DNS records at any provider of the registry equal to this router's address, and those
# of the hosts behind it. One section per record (record_type 'A AAAA' or a list: both families of
# the name), each naming its provider; the defaults section holds what the records share, a record
# section may override it (a provider's settings in the defaults section are left alone by the
# records of other providers). A record runs only when its provider's package is installed:
#   opkg install ddkit-<provider>     (OpenWrt 25.12 and later: apk add ddkit-<provider>)
# Below, one sample section per provider (the first says what each setting means, the others where
# theirs are said): fill in its settings, set enabled to 1, then `uci commit ddkit` (or
# /etc/init.d/ddkit reload): the service runs every enabled section in one run (`ddkit --all`).
# Options other than enabled, interface and interval are the settings under the same names as
# `ddkit --help` shows; check them with
#   ddkit --all --check
# This file holds credentials: keep it mode 0600.

config defaults
	# state and log in RAM: no flash wear; lost on reboot, then asked again once
	option state_dir '/var/run/ddkit'
	# read the record at the provider every so many seconds while the IP is unchanged, so that a
	# record changed there is corrected (0: every run; off: never)
	#option verify_interval '86400'
	# run a command (no shell) after the record changed or an update failed, details in its
	# environment: DDNS_HOOK_OUTCOME (updated, created, failed, removed), _RECORD_NAME, _RECORD_TYPE,
	# _LINE, _OLD_IP, _NEW_IP, _MESSAGE, _TOOL; never a setting or a secret (README: notifications)
	#option on_change '/etc/ddns-notify.sh'
	# pinged after every run: GET <url>, or <url>/fail after a failure (e.g. Healthchecks.io)
	#option healthcheck_url 'https://hc-ping.com/<uuid>'
	# tell a chat or a phone of a change, a failure and the recovery: each service's own URL (WeCom,
	# DingTalk, Feishu, Telegram, Bark, ntfy, ...; README: notifications); a secret, as the keys are
	#list notify 'https://api.day.app/<key>'
	# a home with several upstream lines: each line's address under the one name, on its operator's
	# resolution line where the provider has them, one on the default line (README: several lines);
	# in an AAAA record's section whose ip_source reads the kernel (iface:, prefix:, eui64:, neigh:):
	#list lines 'ct'
	#list lines 'cm'
	#list lines 'cu'
	#option default_line 'ct'
'''

# the record's own options, after the provider's settings; the comments once, in the first section
SERVICE = [('run at once when this logical interface comes up or changes address (hotplug)', 'interface', 'wan'),
           ('and every interval seconds (the service runs all sections at the shortest; a provider\'s '
            'lookup: at most every 30 minutes)', 'interval', '1800')]
RECORD = [(None, 'zone_name', 'example.com'), (None, 'record_name', 'home.example.com'),
          (None, 'record_type', 'A'),
          ('\'url\' asks ip_lookup_url; \'iface:<device>\' (e.g. iface:pppoe-wan) reads it locally', 'ip_source',
           'url')]


def names():
    """The provider modules of the registry, in its order: one package each."""
    return standalone.registered()


def providers():
    """[(name, the package that brings it, the provider: its SETTINGS and SUMMARY)] of every provider
    of the registry beside these tools, presets included, in its order."""
    lib = os.path.dirname(os.path.abspath(standalone.LIB))
    if lib not in sys.path:
        sys.path.insert(0, lib)
    from ddkit import registry
    return [(str(name), 'ddkit-' + registry.module_name(name), registry.provider(name)) for name in registry.PROVIDERS]


def quoted(value):
    """A UCI value in single quotes, a quote inside written '\\'' as `uci export` writes it."""
    return "'%s'" % str(value).replace("'", "'\\''")


def comment(text):
    return ['\t# ' + line for line in textwrap.wrap(text, WIDTH - 10, break_on_hyphens=False)]


def uci_file():
    """/etc/config/ddkit as the package ddkit-command installs it: the defaults section, then one
    disabled sample section per provider: its settings (those without a default as empty options to
    fill in, the others commented out at their default), each under its own help text in the first
    section; the others say where their help is (it would be most of the file, on every router,
    whichever provider it runs)."""
    lines, every = [HEAD.rstrip('\n')], providers()
    from ddkit import registry   # importable once providers() has found the library
    services = registry.services()   # ddns-scripts' update URLs: one paragraph for all, no sample each
    for at, (name, package, provider) in enumerate(p for p in every if p[0] not in services):
        first = at == 0
        about = 'provider %s (package %s): %s' % (name, package, provider.SUMMARY)
        lines += [''] + ['# ' + line for line in textwrap.wrap(about, WIDTH - 2, break_on_hyphens=False)]
        if not first:
            lines.append('# its settings, what each means: ddkit --provider %s --help' % name)
        lines += ["config %s '%s'" % (COMMAND, name), "\toption enabled '0'",
                  '\toption provider %s' % quoted(name)]
        for about, name, value in SERVICE:
            lines += (comment(about) if first else []) + ['\toption %s %s' % (name, quoted(value))]
        for setting in provider.SETTINGS:
            kind = 'list' if setting.repeat else 'option'
            defaults = setting.default if isinstance(setting.default, (list, tuple)) else [setting.default]
            lines += comment(setting.help) if first else []
            lines += ['\t#%s %s %s' % (kind, setting.name, quoted(value)) for value in defaults] \
                if setting.default not in (None, '', [], ()) else ["\t%s %s ''" % (kind, setting.name)]
        for about, name, value in RECORD:
            lines += (comment(about) if first and about else []) + ['\toption %s %s' % (name, quoted(value))]
    about = ('the %d services of OpenWrt\'s ddns-scripts that are an update URL (%s, ...; ddkit --providers lists '
             'them) come with the package ddkit-%s: a section of one names it as provider, with the settings its '
             'URL sends (username, password), e.g. provider \'%s\'. Coming from ddns-scripts, ddkit --import-ddns '
             'writes these sections from /etc/config/ddns.' % (len(services), ', '.join(services[:3]),
                                                             registry.URL_PROTOCOL, services[0]))
    lines += [''] + ['# ' + line for line in textwrap.wrap(about, WIDTH - 2, break_on_hyphens=False)]
    return '\n'.join(lines) + '\n'


def main(argv):
    if argv[1:] == ['--names']:
        print(' '.join(names()))
    elif len(argv) == 3 and argv[1] == '--uci':
        standalone.write(argv[2], uci_file().encode('utf-8'), 0o644)
    else:
        sys.exit(__doc__.strip().split('usage: ')[-1])


if __name__ == '__main__':
    main(sys.argv)
