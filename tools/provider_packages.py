#!/usr/bin/env python3
"""The DNS providers of the registry (lib/ddkit/registry.py: PROVIDERS) as the packages see them:
one package ddkit-<name> for each provider module (a preset is no package: its protocol's brings it),
and the ddkit command's /etc/config/ddkit: its defaults and the first provider's sample section
(ddkit --provider NAME --sample prints each provider's). openwrt/Makefile gets its
PROVIDERS from --names and writes the UCI file with --uci in the SDK; tools/feed.py and
tools/apkfeed.py call the same functions, so a provider added to the registry is a package in both
builds with nothing else changed.

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
# Below, a sample section (one provider's: what each setting means); every provider's own, for the
# provider you use, is printed by
#   ddkit --provider NAME --sample >> /etc/config/ddkit
# Fill in its settings, set enabled to 1, then `uci commit ddkit` (or /etc/init.d/ddkit reload):
# the service runs every enabled section in one run (`ddkit --all`).
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


def uci_file():
    """/etc/config/ddkit as the package ddkit-command installs it: the defaults section, then the
    sample section of the registry's first provider (each setting under its help, as ddkit --provider
    NAME --sample prints any provider's: the file stays the same size however many providers the
    registry has), then where the update-URL services are."""
    providers()   # finds the library
    from ddkit import choice, registry
    services = registry.services()   # ddns-scripts' update URLs: one paragraph for all
    lines = [HEAD.rstrip('\n'), ''] + choice.sample(registry.PROVIDERS[0])
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
