"""A router on disk for the packaging tests: the feed built as `make feed` builds it, packages
unpacked into a temporary root the way opkg does, and stand-ins for what OpenWrt provides
(/lib/functions.sh, /etc/rc.common with procd, logger) that record what the scripts ask of them.
Like OpenWrt's own, default_postinst and default_prerm serve both package managers: opkg names the
package in $1 and lists its files in /usr/lib/opkg/info/, apk exports $pkgname and lists them in
/lib/apk/packages/."""

import functools
import os
import shutil
import subprocess
import sys
import tarfile

import pytest
import needs  # noqa: E402
from conftest import once_a_run, sampled  # noqa: F401  (once_a_run: for the test modules)
from providers import BY_TOOL

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import standalone  # noqa: E402

ROUTER_TOOLS = ('updater_a', 'updater_b', 'egress6')   # each the package of its name
COMMAND = 'ddkit'                      # the ddkit command, any provider: its package is COMMAND_PACKAGE
COMMAND_PACKAGE = 'ddkit-command'
SERVICES = ROUTER_TOOLS + (COMMAND,)   # the tools with a UCI file, a service and a hotplug script
LIBRARY = 'ddkit'                      # the package of the shared library, which every tool needs
DDNS_LIBRARY = 'ddkit-ddns'            # the updaters' loop, which only they need
REGISTERED = standalone.registered()   # each provider of the registry is the package ddkit-<provider>
PROVIDER_PACKAGES = tuple('ddkit-' + name for name in REGISTERED)
LUCI_PACKAGES = ('luci-app-ddkit', 'luci-i18n-ddkit-zh-cn')   # the LuCI page and its translation
# the optional parts of the update loop, each its module alone, which nothing depends on: a router
# installs one to use its feature ({package: module})
OPTIONAL_MODULES = {'ddkit-notify': 'notices', 'ddkit-proxy': 'proxy', 'ddkit-import': 'ddns_import'}
OPTIONAL_PACKAGES = tuple(OPTIONAL_MODULES)
PACKAGES = (LIBRARY, DDNS_LIBRARY) + OPTIONAL_PACKAGES + ROUTER_TOOLS + (COMMAND_PACKAGE,) + PROVIDER_PACKAGES \
    + LUCI_PACKAGES
# the packages a table of every package runs through: all of them under make test-full, and under
# make test every package but three of the providers' (alike: a module each), spread over the registry
SAMPLED_PACKAGES = tuple(p for p in PACKAGES if p not in PROVIDER_PACKAGES or p in sampled(PROVIDER_PACKAGES, 3))
SAMPLED_PROVIDER_PACKAGES = tuple(sampled(PROVIDER_PACKAGES, 3))


def package_of(tool):
    """The package that ships a tool."""
    return COMMAND_PACKAGE if tool == COMMAND else tool


def libraries(tool):
    """The packages of this feed a tool's package pulls in, the first one first: the library, the
    updaters' loop and an updater's provider (none for the ddkit command: a router carries the
    providers it uses)."""
    if tool == 'egress6':
        return (LIBRARY,)
    return (LIBRARY, DDNS_LIBRARY) + (('ddkit-' + BY_TOOL[tool].provider,) if tool in BY_TOOL else ())


EPOCH = '1700000000'

# /lib/functions.sh: the UCI helpers the scripts use. A UCI file is shell (that is how OpenWrt's
# config_load works: `uci export` output is evaluated), so config_load sources it.
FUNCTIONS_SH = r'''
CONFIG_SECTIONS=
config() { CONFIG_SECTION="$2"; CONFIG_SECTIONS="$CONFIG_SECTIONS $2"; eval "CONFIG_${2}_TYPE=\$1"; }
option() { eval "CONFIG_${CONFIG_SECTION}_$1=\$2"; }
list() {
	local n; eval "n=\${CONFIG_${CONFIG_SECTION}_$1_LENGTH:-0}"; n=$((n + 1))
	eval "CONFIG_${CONFIG_SECTION}_$1_LENGTH=$n; CONFIG_${CONFIG_SECTION}_$1_ITEM$n=\$2"
	eval "CONFIG_${CONFIG_SECTION}_$1=\"\${CONFIG_${CONFIG_SECTION}_$1:+\$CONFIG_${CONFIG_SECTION}_$1 }\$2\""
}
package() { :; }
config_load() { CONFIG_SECTIONS=; . "$IPKG_INSTROOT/etc/config/$1"; }
config_get() { eval "$1=\${CONFIG_${2}_$3:-\$4}"; }
config_get_bool() {
	local v; config_get v "$2" "$3" "$4"
	case "$v" in 1|on|true|yes|enabled) v=1 ;; 0|off|false|no|disabled) v=0 ;; *) v="$4" ;; esac
	eval "$1=\$v"
}
config_foreach() {
	local f="$1" t="$2" s k; shift 2
	for s in $CONFIG_SECTIONS; do eval "k=\$CONFIG_${s}_TYPE"; [ "$k" = "$t" ] && "$f" "$s" "$@"; done
	return 0
}
config_list_foreach() {
	local s="$1" o="$2" f="$3" n i=1 v; eval "n=\${CONFIG_${s}_${o}_LENGTH:-0}"
	while [ "$i" -le "$n" ]; do eval "v=\$CONFIG_${s}_${o}_ITEM$i"; "$f" "$v"; i=$((i + 1)); done
}
list_contains() { local v; eval "v=\" \$$1 \""; case "$v" in *" $2 "*) return 0 ;; esac; return 1; }
record() { printf '%s' "$1" >> "$STANDIN_LOG"; shift; for a; do printf '\037%s' "$a" >> "$STANDIN_LOG"; done; printf '\036' >> "$STANDIN_LOG"; }
filelist() {
	if [ -f "$IPKG_INSTROOT/lib/apk/packages/$1.list" ]; then echo "$IPKG_INSTROOT/lib/apk/packages/$1.list"
	else echo "$IPKG_INSTROOT/usr/lib/opkg/info/$1.list"; fi
}
add_group_and_user() { :; }
default_postinst() {
	local pkg="${pkgname:-$(basename "${1%.*}")}"; record default_postinst "$pkg"
	[ -f "$IPKG_INSTROOT/usr/lib/opkg/info/$pkg.postinst-pkg" ] && ( . "$IPKG_INSTROOT/usr/lib/opkg/info/$pkg.postinst-pkg" )
	for i in $(grep '^/etc/init.d/' "$(filelist "$pkg")"); do
		sh "$IPKG_INSTROOT/etc/rc.common" "$IPKG_INSTROOT$i" enable
	done
}
default_prerm() {
	local pkg="${pkgname:-$(basename "${1%.*}")}"; record default_prerm "$pkg"
	[ -f "$IPKG_INSTROOT/usr/lib/opkg/info/$pkg.prerm-pkg" ] && ( . "$IPKG_INSTROOT/usr/lib/opkg/info/$pkg.prerm-pkg" )
	for i in $(grep '^/etc/init.d/' "$(filelist "$pkg")"); do
		sh "$IPKG_INSTROOT/etc/rc.common" "$IPKG_INSTROOT$i" disable
	done
}
'''

# /etc/rc.common with procd: every procd_* call is recorded, fields split by \037, calls by \036.
RC_COMMON = r'''
. "$IPKG_INSTROOT/lib/functions.sh"
initscript="$1"; action="$2"; shift 2
name="$(basename "$initscript")"
procd_open_instance() { record open_instance "$@"; }
procd_set_param() { record set_param "$@"; }
procd_append_param() { record append_param "$@"; }
procd_close_instance() { record close_instance; }
procd_add_reload_trigger() { record reload_trigger "$@"; }
start_service() { :; }
service_triggers() { :; }
. "$initscript"
case "$action" in
	start|reload|restart) record "$action" "$name"; start_service; service_triggers ;;
	stop) record stop "$name" ;;
	enable) ln -sf "../init.d/$name" "$IPKG_INSTROOT/etc/rc.d/S$START$name" ;;
	disable) rm -f "$IPKG_INSTROOT/etc/rc.d/S$START$name" ;;
	enabled) [ -e "$IPKG_INSTROOT/etc/rc.d/S$START$name" ] ;;
esac
'''

LOGGER = '#!/bin/sh\nrecord() { printf "%s" "$1" >> "$STANDIN_LOG"; shift; for a; do printf "\\037%s" "$a" >> ' \
         '"$STANDIN_LOG"; done; printf "\\036" >> "$STANDIN_LOG"; }\nrecord logger "$@"\n'


def quoted(value):
    """A UCI value in single quotes, a quote inside written '\\'' as `uci export` writes it."""
    return "'%s'" % value.replace("'", "'\\''")


def build_feed(out, key=None):
    """`make feed` (with KEY=key when given) into out, at a fixed SOURCE_DATE_EPOCH: what it printed."""
    command = [sys.executable, os.path.join(ROOT, 'tools', 'feed.py'), '--out', out]
    done = subprocess.run(command + (['--key', key] if key else []), capture_output=True, text=True,
                          env=dict(os.environ, SOURCE_DATE_EPOCH=EPOCH))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def ipk_path(feed, name):
    found = [f for f in os.listdir(feed) if f.startswith(name + '_') and f.endswith('.ipk')]
    assert len(found) == 1, (name, os.listdir(feed))
    return os.path.join(feed, found[0])


MEMBERS = {}   # {sha256 of an .ipk: its members}


def members(ipk):
    """{member name: bytes} of the outer tar of an .ipk, read with the system's tar (once a process
    for the same bytes)."""
    import hashlib
    with open(ipk, 'rb') as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest not in MEMBERS:
        MEMBERS[digest] = {name: subprocess.run(['tar', '-xzOf', ipk, name], capture_output=True, check=True).stdout
                           for name in ('./debian-binary', './data.tar.gz', './control.tar.gz')}
    return dict(MEMBERS[digest])


def install(ipk, root):
    """Install as opkg does into root: data unpacked, control files in /usr/lib/opkg/info. The
    system's tar unpacks each .ipk once a process (unpacked); a root gets a copy of that."""
    name = os.path.basename(ipk).rsplit('_', 2)[0]
    data, control, listing = unpacked(ipk)
    info = os.path.join(root, 'usr', 'lib', 'opkg', 'info')
    os.makedirs(info, exist_ok=True)
    # as tar -p does: files and directories with the archive's modes and times, directories the
    # root already has too
    shutil.copytree(data, root, symlinks=True, dirs_exist_ok=True)
    with open(os.path.join(info, name + '.list'), 'w') as f:
        f.write(listing)
    for item in os.listdir(control):
        shutil.copy2(os.path.join(control, item), os.path.join(info, '%s.%s' % (name, item)))
    return name


UNPACKED = {}   # {sha256 of an .ipk: (its data folder, its control folder, its file list)}


@functools.lru_cache()
def unpacked_top():
    """The folder of this process's unpacked packages, removed when it exits."""
    import atexit
    import tempfile
    top = tempfile.mkdtemp(prefix='ddkit-unpacked-')
    atexit.register(shutil.rmtree, top, True)
    return top


def unpacked(ipk):
    """An .ipk unpacked with the system's tar, once a process for the same bytes, into a folder no
    test is given (roots get copies): (the data's folder, the control files' folder, the lines of
    the .list opkg writes)."""
    import hashlib
    with open(ipk, 'rb') as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest in UNPACKED:
        return UNPACKED[digest]
    top = os.path.join(unpacked_top(), digest)
    data, control = os.path.join(top, 'data'), os.path.join(top, 'control')
    os.makedirs(data)
    os.makedirs(control)
    subprocess.run(['tar', '-xzf', ipk, '-C', top], check=True)   # debian-binary, data.tar.gz, control.tar.gz
    # -v lists what it unpacks, as -t would
    listing = subprocess.run(['tar', '-xzpvf', os.path.join(top, 'data.tar.gz'), '-C', data], capture_output=True,
                             text=True, check=True).stdout
    listing = ''.join(line[1:] + '\n' for line in listing.splitlines() if not line.endswith('/'))
    subprocess.run(['tar', '-xzpf', os.path.join(top, 'control.tar.gz'), '-C', control], check=True)
    UNPACKED[digest] = (data, control, listing)
    return UNPACKED[digest]


def install_all(feed, root, names=PACKAGES):
    """Install the named packages of the feed (all of them by default) into the router root."""
    os.makedirs(root, exist_ok=True)
    for name in names:
        install(ipk_path(feed, name), root)


def standins(root):
    """OpenWrt's /lib/functions.sh, /etc/rc.common (procd) and logger, as recording stand-ins."""
    for path, text, mode in (('lib/functions.sh', FUNCTIONS_SH, 0o644), ('etc/rc.common', RC_COMMON, 0o755),
                             ('bin/logger', LOGGER, 0o755)):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)
        os.chmod(full, mode)
    os.makedirs(os.path.join(root, 'etc', 'rc.d'), exist_ok=True)
    return os.path.join(root, 'bin')


def records(log):
    """The calls the stand-ins recorded: [[call, arg, ...]]."""
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return [entry.split('\x1f') for entry in f.read().split('\x1e') if entry]


@pytest.fixture(scope='session')
def signify_key(tmp_path_factory):
    """An unencrypted signify key pair (usign compatible), as `signify-openbsd -G -n` makes it."""
    signify = subprocess.run(['sh', '-c', 'command -v signify-openbsd || command -v signify'],
                             capture_output=True, text=True).stdout.strip()
    if not signify:
        needs.missing('signify-openbsd is not installed (apt-get install signify-openbsd)')

    def make(home):
        subprocess.run([signify, '-G', '-n', '-c', 'ddkit test feed', '-p', os.path.join(home, 'feed.pub'),
                        '-s', os.path.join(home, 'feed.sec')], check=True)
        return signify, os.path.join(home, 'feed.sec'), os.path.join(home, 'feed.pub')
    return tuple(once_a_run(tmp_path_factory, 'key', make))


def signed_feed(tmp_path_factory, signify_key):
    """The feed as `make feed KEY=<key>` builds it, once a run: (its folder, what the build printed)."""
    return once_a_run(tmp_path_factory, 'feed', lambda out: (out, build_feed(out, key=signify_key[1])))


@pytest.fixture(scope='session')
def feed_unsigned(tmp_path_factory):
    """The feed built without a key, as `make feed` runs it: (its folder, what it printed); once a
    run, only read."""
    return tuple(once_a_run(tmp_path_factory, 'feed-unsigned', lambda out: (out, build_feed(out))))


@pytest.fixture(scope='session')
def feed(tmp_path_factory, signify_key):
    """The signed feed's folder (signed_feed): only read."""
    return signed_feed(tmp_path_factory, signify_key)[0]


def tar_entries(data):
    """[(name, mode, uid, gid, uname, gname, mtime, type)] of an uncompressed tar."""
    import io
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return [(m.name, m.mode, m.uid, m.gid, m.uname, m.gname, m.mtime, m.type) for m in tar.getmembers()]
