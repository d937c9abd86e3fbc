"""`make feed` for apk (OpenWrt 25.12 and later): dist/apk/ holds one .apk per package of the opkg
feed and packages.adb. Checked with the independent reader apk_reader.py (from the format's
specification) and the installer apk_root.py: every file parses, each package holds the .ipk's
files, conffiles and scripts, signatures verify and a changed byte is refused, the unsigned feed is
the same bytes on every build and Python, each tool installs into an offline root with python3-*
from another repository, runs, and leaves nothing behind when removed. When the APK environment
variable names a real apk 3 client, the same checks run with it too."""

import hashlib
import os
import shutil
import subprocess
import sys
import zlib

import pytest

import needs
from apk_reader import Adb, Refused, key_id, read_index, read_package
from apk_root import Router, tree
from conftest import RECORD, ROOT, ZONE, full_only, run_tool, sampled
from openwrt_env import (COMMAND, COMMAND_PACKAGE, DDNS_LIBRARY, EPOCH, LIBRARY, OPTIONAL_PACKAGES,  # noqa: F401
                         PACKAGES, REGISTERED, SAMPLED_PACKAGES, SERVICES, feed, feed_unsigned, ipk_path, libraries, members,
                         once_a_run, package_of,
                         quoted, records,
                         signify_key, standins)
from providers import PROVIDERS as ADAPTERS
from test_packaging import bench, files_of, gunzip, stanzas, tar_entries

sys.path.insert(0, os.path.join(ROOT, 'tools'))
import apkfeed  # noqa: E402  (only to make the stand-in python3-* repository)
import feed as feed_tool  # noqa: E402

VERSION = feed_tool.Recipe().version
SYSTEM = ('python3-light', 'python3-openssl')
APK = os.environ.get('APK')
CONFFILE = {package_of(tool): '/etc/config/' + tool for tool in SERVICES}   # the packages with a UCI file


def build_apk(out, key=None, python=sys.executable):
    """`make feed` (APK_KEY=key when given) for apk, at a fixed SOURCE_DATE_EPOCH."""
    command = [python, os.path.join(ROOT, 'tools', 'apkfeed.py'), '--out', str(out)]
    done = subprocess.run(command + (['--key', key] if key else []), capture_output=True, text=True,
                          env=dict(os.environ, SOURCE_DATE_EPOCH=EPOCH))
    assert done.returncode == 0, done.stdout + done.stderr
    return str(out), done.stdout


@pytest.fixture(scope='session')
def apk_key(tmp_path_factory):
    """An EC P-256 key as OpenWrt's (usign-less) apk signing uses, its public half alone in keys/;
    made once a run (once_a_run: the test workers share it, as they share the feeds signed with it)."""
    def make(home):
        subprocess.run(['openssl', 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out',
                        os.path.join(home, 'key.pem')], check=True)
        os.mkdir(os.path.join(home, 'keys'))
        subprocess.run(['openssl', 'pkey', '-in', os.path.join(home, 'key.pem'), '-pubout', '-out',
                        os.path.join(home, 'keys', 'ddkit.pem')], check=True)
        return os.path.join(home, 'key.pem'), os.path.join(home, 'keys')
    return tuple(once_a_run(tmp_path_factory, 'apk-key', make))


@pytest.fixture(scope='session')
def apk_feed(tmp_path_factory, apk_key):
    """The apk feed signed with apk_key, built once a run: only read."""
    return once_a_run(tmp_path_factory, 'apk-signed',
                      lambda home: build_apk(os.path.join(home, 'signed'), key=apk_key[0])[0])


@pytest.fixture(scope='session')
def apk_unsigned(tmp_path_factory):
    """The apk feed without a key, once a run: (its folder, what the build printed)."""
    return tuple(once_a_run(tmp_path_factory, 'apk-unsigned', lambda home: build_apk(os.path.join(home, 'unsigned'))))


@pytest.fixture(scope='session')
def system_repo(tmp_path_factory, apk_key):
    """Another repository, as OpenWrt's packages feed: python3-light, -openssl, -codecs, each a
    marker file, signed with the test key (written with the project's writer: a stand-in, not under test)."""
    out = tmp_path_factory.mktemp('system')
    entries = []
    for name in SYSTEM:
        adb = apkfeed.Adb()
        acl = {'mode': 0o755, 'user': 'root', 'group': 'root'}
        body = ('%s stand-in\n' % name).encode()
        info = {'name': name, 'version': '3.13.7-r1', 'arch': 'noarch', 'installed-size': len(body)}
        paths = [{'name': '', 'acl': acl}, {'name': 'usr', 'acl': acl}, {'name': 'usr/share', 'acl': acl},
                 {'name': 'usr/share/' + name, 'acl': acl, 'files': [
                     {'name': 'marker', 'acl': dict(acl, mode=0o644), 'size': len(body), 'mtime': 1,
                      'hash': hashlib.sha256(body).digest()}]}]
        block = adb.root(adb.put('package', {'info': info, 'paths': paths}))
        data = [b'\x04\x00\x00\x00\x01\x00\x00\x00' + body]
        apk = apkfeed.container(b'pckg', block, [apkfeed.signature(apk_key[0], b'pckg', block)], data)
        (out / ('%s-3.13.7-r1.apk' % name)).write_bytes(apk)
        entries.append(dict(info, **{'file-size': len(apk), 'hashes': hashlib.sha256(block).digest()}))
    adb = apkfeed.Adb()
    block = adb.root(adb.put('index', {'packages': entries}))
    signed = [apkfeed.signature(apk_key[0], b'indx', block)]
    (out / 'packages.adb').write_bytes(apkfeed.container(b'indx', block, signed))
    return str(out / 'packages.adb')


def apk_path(folder, name):
    return os.path.join(folder, '%s-%s.apk' % (name, VERSION))


def raw_adb(path):
    with open(path, 'rb') as f:
        return Adb(f.read())


# --- the feed and its files ---------------------------------------------------------------------

def test_make_feed_writes_both_feeds_and_signs_the_apk_one_with_apk_key():
    dry = subprocess.run(['make', '-n', '-B', 'feed', 'APK_KEY=k.pem'], cwd=ROOT, capture_output=True,
                         text=True)
    assert dry.returncode == 0, dry.stderr
    assert 'tools/feed.py --out dist/feed' in dry.stdout
    assert 'tools/apkfeed.py --out dist/apk --key k.pem' in dry.stdout
    dry = subprocess.run(['make', '-n', '-B', 'feed'], cwd=ROOT, capture_output=True, text=True)
    assert 'tools/apkfeed.py --out dist/apk \n' in dry.stdout and '--key' not in dry.stdout


def test_apk_feed_holds_the_packages_of_the_opkg_feed_at_the_same_version(feed, apk_feed, apk_unsigned):
    assert sorted(os.listdir(apk_feed)) == sorted(['%s-%s.apk' % (n, VERSION) for n in PACKAGES]
                                                  + ['packages.adb', 'ddkit-apk.pem'])
    assert sorted(os.listdir(apk_unsigned[0])) == sorted(['%s-%s.apk' % (n, VERSION) for n in PACKAGES]
                                                         + ['packages.adb'])
    for name in PACKAGES:
        assert os.path.basename(ipk_path(feed, name)) == '%s_%s_all.ipk' % (name, VERSION)
        assert read_package(apk_path(apk_feed, name), allow_untrusted=True)[0]['version'] == VERSION


@pytest.mark.parametrize('name', SAMPLED_PACKAGES)
def test_every_apk_fits_the_flash_budget_of_the_ipk(apk_feed, name):
    size = os.path.getsize(apk_path(apk_feed, name))
    assert size <= bench.IPK_BUDGET, '%s .apk is %d bytes (budget %d, BENCHMARKS.md)' % (
        name, size, bench.IPK_BUDGET)


def test_unsigned_build_says_so(apk_unsigned, apk_feed):
    assert 'UNSIGNED' in apk_unsigned[1] and '--allow-untrusted' in apk_unsigned[1]
    for name in os.listdir(apk_unsigned[0]):
        assert raw_adb(os.path.join(apk_unsigned[0], name)).signatures == [], name


@pytest.mark.parametrize('name', SAMPLED_PACKAGES)
def test_every_file_is_deflated_adb_blocks_in_order(apk_feed, apk_unsigned, name):
    for folder in (apk_feed, apk_unsigned[0]):
        with open(apk_path(folder, name), 'rb') as f:
            raw = f.read()
        assert raw[:4] == b'ADBd' and zlib.decompress(raw[4:], -15)[:8] == b'ADB.pckg'
        adb = Adb(raw)
        assert adb.schema == 'pckg' and len(adb.signatures) == (folder == apk_feed)
    with open(os.path.join(apk_feed, 'packages.adb'), 'rb') as f:
        assert Adb(f.read()).schema == 'indx'


def ipk_data(feed, name):
    """{path: (mode, bytes or None)} of the .ipk's data (directories without the leading ./)."""
    raw = gunzip(members(ipk_path(feed, name))['./data.tar.gz'])
    files = files_of(raw)
    return {entry[0][2:] if entry[0] != '.' else '': (entry[1], files.get(entry[0]))
            for entry in tar_entries(raw)}


@pytest.mark.parametrize('name', SAMPLED_PACKAGES)
def test_package_holds_the_ipk_files_and_openwrts_apk_lists(feed, apk_feed, name):
    """The same directories and files with the same modes and bytes as the .ipk, owned by root, at
    SOURCE_DATE_EPOCH; besides them /lib/apk/packages/<name>.list (and conffiles) as OpenWrt adds."""
    info, dirs, files, _ = read_package(apk_path(apk_feed, name), allow_untrusted=True)
    ipk = ipk_data(feed, name)
    meta = 'lib/apk/packages/' + name
    expected_dirs = {p: mode for p, (mode, data) in ipk.items() if data is None}
    expected_dirs.update({'lib': 0o755, 'lib/apk': 0o755, 'lib/apk/packages': 0o755})
    assert {d: acl['mode'] for d, acl in dirs} == expected_dirs
    got = {p: (acl['mode'], data) for p, acl, data in files}
    listed = sorted('/' + p for p, (_, data) in ipk.items() if data is not None)
    expected = {p: (mode, data) for p, (mode, data) in ipk.items() if data is not None}
    expected[meta + '.list'] = (0o644, ''.join(p + '\n' for p in listed).encode())
    if name in CONFFILE:
        config = CONFFILE[name]
        expected[meta + '.conffiles'] = (0o644, (config + '\n').encode())
        expected[meta + '.conffiles_static'] = (0o644, ('%s %s\n' % (config, hashlib.sha256(
            ipk[config[1:]][1]).hexdigest())).encode())
    assert got == expected
    acls = [acl for _, acl in dirs] + [acl for _, acl, _ in files]
    owners = {(acl['user'], acl['group']) for acl in acls}
    assert owners == {('root', 'root')}
    paths = raw_adb(apk_path(apk_feed, name)).root['paths']
    entries = [e for folder in paths for e in folder.get('files', [])]
    assert {e['mtime'] for e in entries} == {int(EPOCH)}
    assert info['installed-size'] == sum(len(data) for _, _, data in files)


@pytest.mark.parametrize('name', SAMPLED_PACKAGES)
def test_info_says_what_the_ipk_control_says(feed, apk_feed, name):
    control = gunzip(members(ipk_path(feed, name))['./control.tar.gz'])
    fields = dict(stanzas(files_of(control)['./control'].decode())[0])
    info = read_package(apk_path(apk_feed, name), allow_untrusted=True)[0]
    assert info['name'] == fields['Package'] and info['version'] == fields['Version']
    assert info['arch'] == 'noarch' and fields['Architecture'] == 'all'
    assert info['license'] == fields['License'] and info['maintainer'] == fields['Maintainer']
    assert info['origin'] == fields['Source']
    assert info['description'] == ' '.join(fields['Description'].split())
    depends = ['%s%s' % (d['name'], '=' + d['version'] if 'version' in d else '') for d in info['depends']]
    assert 'match' not in str(info['depends'])   # "=" is apk's default match
    assert sorted(depends) == sorted(d.replace(' ', '').replace('(', '').replace(')', '')
                                     for d in fields['Depends'].split(', '))
    assert len(info['hashes']) == 20


@pytest.mark.parametrize('name', SAMPLED_PACKAGES)
def test_scripts_are_openwrts_with_the_package_steps_inline(apk_feed, name):
    scripts = read_package(apk_path(apk_feed, name), allow_untrusted=True)[3]
    assert sorted(scripts) == ['post-install', 'post-upgrade', 'pre-deinstall']
    assert 'export pkgname="%s"\nadd_group_and_user\ndefault_postinst\n' % name in scripts['post-install']
    assert 'export pkgname="%s"\ndefault_prerm\n' % name in scripts['pre-deinstall']
    assert scripts['post-upgrade'].startswith('#!/bin/sh\nexport PKG_UPGRADE=1\n')
    assert scripts['post-upgrade'].split('\n', 2)[2] == scripts['post-install'].split('\n', 1)[1]
    if name in CONFFILE:
        tool = CONFFILE[name].rsplit('/', 1)[1]
        assert 'chmod 0600 "${IPKG_INSTROOT}/etc/config/%s"' % tool in scripts['post-install']
        assert '/etc/init.d/%s stop' % tool in scripts['pre-deinstall']
    elif name == 'luci-app-ddkit':   # as LuCI's own apps: caches gone, rpcd told of the plugin and ACL
        assert scripts['post-install'].startswith(feed_tool.APK_POST_INSTALL % name)
        assert '/etc/init.d/rpcd reload' in scripts['post-install']
        assert 'rm -rf /tmp/luci-modulecache/' in scripts['post-install']
    else:   # a library, a provider or a translation: no script of its own
        assert scripts['post-install'] == feed_tool.APK_POST_INSTALL % name
    for script in scripts.values():
        assert script.count('#!') == 1 and subprocess.run(['sh', '-n', '-c', script]).returncode == 0


def test_index_lists_every_package_with_its_size_and_identity(apk_feed, apk_key):
    packages = read_index(os.path.join(apk_feed, 'packages.adb'), keys_dir=apk_key[1])['packages']
    assert [p['name'] for p in packages] == sorted(PACKAGES)
    for entry in packages:
        path = apk_path(apk_feed, entry['name'])
        assert entry['file-size'] == os.path.getsize(path)
        assert entry['hashes'] == hashlib.sha256(raw_adb(path).adb).digest()
        info = read_package(path, allow_untrusted=True)[0]
        assert {k: v for k, v in entry.items() if k not in ('file-size', 'hashes')} == \
            {k: v for k, v in info.items() if k != 'hashes'}


def test_reader_follows_tags_and_refuses_a_cut_or_misordered_file():
    """The reader is the judge of the writer, so it is checked on its own: a package block written
    by hand (a blob, an object pointing at it, the root object) reads back, a cut one does not."""
    def le(*words):
        return b''.join(w.to_bytes(4, 'little') for w in words)
    # header and root tag; at 8 the blob "abc"; at 12 info {name}; at 20 the package {info}
    adb = bytes(4) + le(0xe0000014) + b'\x03abc' + le(2, 0x80000008) + le(2, 0xe000000c)
    block = (len(adb) + 4).to_bytes(4, 'little') + adb + bytes(-(len(adb) + 4) % 8)
    assert Adb(b'ADB.pckg' + block).root == {'info': {'name': 'abc'}}
    with pytest.raises(Refused):
        Adb(b'ADB.pckg' + block[:-1])
    with pytest.raises(Refused):
        Adb(b'ADB.pckg' + (0x40000008).to_bytes(4, 'little') + bytes(4) + block)   # SIG before ADB
    with pytest.raises(Refused):
        Adb(b'ADB.pckg' + block.replace(b'\x14\x00\x00\xe0', b'\x15\x00\x00\xe0', 1))   # misaligned


# --- reproducible and signed ----------------------------------------------------------------------

def pythons():
    """The Python 3.8 to 3.13 interpreters this machine has (pyenv's, or on PATH)."""
    found = []
    for minor in range(8, 14):
        pyenv = sorted(p for p in os.listdir('/root/.pyenv/versions') if p.startswith('3.%d.' % minor)) \
            if os.path.isdir('/root/.pyenv/versions') else []
        path = ('/root/.pyenv/versions/%s/bin/python3' % pyenv[-1]) if pyenv else \
            shutil.which('python3.%d' % minor)
        if path and os.path.exists(path):
            found.append(path)
    return found


def same_files(a, b):
    assert sorted(os.listdir(a)) == sorted(os.listdir(b))
    for name in os.listdir(a):
        with open(os.path.join(a, name), 'rb') as f, open(os.path.join(b, name), 'rb') as g:
            assert f.read() == g.read(), name


@full_only
def test_unsigned_feed_is_the_same_bytes_on_a_second_build(apk_unsigned, tmp_path):
    same_files(apk_unsigned[0], build_apk(tmp_path / 'again')[0])


def build_ipk(out, python=sys.executable):
    """`make feed` for opkg, unsigned, at a fixed SOURCE_DATE_EPOCH."""
    done = subprocess.run([python, os.path.join(ROOT, 'tools', 'feed.py'), '--out', str(out)],
                          env=dict(os.environ, SOURCE_DATE_EPOCH=EPOCH), capture_output=True)
    assert done.returncode == 0, done.stderr
    return str(out)


@pytest.fixture(scope='session')
def ipk_unsigned(feed_unsigned):
    return feed_unsigned[0]


# make test-full: every one (the oldest differed in both ways)
@full_only
@pytest.mark.parametrize('python', sampled(pythons(), 1) or ['none'])
def test_both_feeds_are_the_same_bytes_under_every_python(apk_unsigned, ipk_unsigned, tmp_path, python):
    """Python 3.8 to 3.13 build the same unsigned .apk files and the same .ipk files (3.8 used to
    write device numbers into the tar headers, 3.8-3.10 and 3.13 another OS byte into gzip's)."""
    if python == 'none':
        needs.missing('no other Python 3.8-3.13 on this machine (pyenv install one, or put python3.8 ... '
                      'python3.13 on PATH)')
    same_files(apk_unsigned[0], build_apk(tmp_path / 'apk', python=python)[0])
    same_files(ipk_unsigned, build_ipk(tmp_path / 'ipk', python=python))


def test_signature_names_the_key_and_verifies(apk_feed, apk_key, tmp_path):
    for name in os.listdir(apk_feed):
        if name.endswith('.pem'):
            continue
        adb = raw_adb(os.path.join(apk_feed, name))
        (sig,) = adb.signatures
        assert sig[:2] == b'\x00\x04' and sig[2:18] == key_id(os.path.join(apk_key[1], 'ddkit.pem')), name
    with open(os.path.join(apk_feed, 'ddkit-apk.pem'), 'rb') as f, \
            open(os.path.join(apk_key[1], 'ddkit.pem'), 'rb') as g:
        assert f.read() == g.read()
    other = tmp_path / 'other'
    other.mkdir()
    private = str(tmp_path / 'o.pem')
    subprocess.run(['openssl', 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', private],
                   check=True)
    subprocess.run(['openssl', 'pkey', '-in', private, '-pubout', '-out', str(other / 'o.pem')], check=True)
    index = os.path.join(apk_feed, 'packages.adb')
    assert read_index(index, keys_dir=apk_key[1])
    for keys in (None, str(other)):
        with pytest.raises(Refused, match='UNTRUSTED'):
            read_index(index, keys_dir=keys)
        with pytest.raises(Refused, match='UNTRUSTED'):
            read_package(apk_path(apk_feed, 'updater_a'), keys_dir=keys)


def changed(path, out, where):
    """A copy of a package with one byte changed: in the file as it is, in its metadata (ADB block)
    or in a file's content (a DATA block), the latter two deflated again as the writer does."""
    with open(path, 'rb') as f:
        raw = f.read()
    if where == 'file':
        at = len(raw) // 2
        raw = raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1:]
    else:
        plain = bytearray(zlib.decompress(raw[4:], -15))
        adb = Adb(b'ADB.' + bytes(plain[4:]))
        at = plain.index(adb.adb) + len(adb.adb) // 2 if where == 'metadata' else \
            plain.rindex(adb.data[-1]) + len(adb.data[-1]) - 2
        plain[at] ^= 1
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        raw = b'ADBd' + packer.compress(bytes(plain)) + packer.flush()
    with open(out, 'wb') as f:
        f.write(raw)
    return str(out)


@pytest.mark.parametrize('where', ['file', 'metadata', 'content'])
def test_a_package_with_one_byte_changed_is_refused(apk_feed, apk_key, tmp_path, where):
    path = apk_path(apk_feed, 'updater_a')
    assert read_package(path, keys_dir=apk_key[1])
    bad = changed(path, tmp_path / os.path.basename(path), where)
    with pytest.raises(Refused):
        read_package(bad, keys_dir=apk_key[1])
    with pytest.raises(Refused):   # nor through the signed index
        identity = {p['name']: p['hashes'] for p in read_index(os.path.join(apk_feed, 'packages.adb'),
                                                               keys_dir=apk_key[1])['packages']}
        read_package(bad, keys_dir=apk_key[1], identity=identity['updater_a'])


def test_a_bad_key_stops_the_build_with_one_line(tmp_path):
    subprocess.run(['openssl', 'genrsa', '-out', str(tmp_path / 'rsa.pem'), '2048'], check=True,
                   capture_output=True)
    (tmp_path / 'junk.pem').write_text('not a key\n')
    plain = subprocess.run(['openssl', 'ecparam', '-name', 'prime256v1', '-genkey', '-noout'], check=True,
                           capture_output=True).stdout
    subprocess.run(['openssl', 'ec', '-aes256', '-passout', 'pass:secret', '-out', str(tmp_path / 'locked.pem')],
                   input=plain, check=True, capture_output=True)
    for key, said in (('rsa.pem', 'is not an EC P-256 key'), ('junk.pem', 'could not read the private key'),
                      ('locked.pem', 'an unencrypted PEM key'), ('missing.pem', 'no key file')):
        done = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'apkfeed.py'), '--out',
                               str(tmp_path / 'out'), '--key', str(tmp_path / key)],
                              capture_output=True, text=True)
        assert done.returncode == 2 and said in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert not os.path.exists(str(tmp_path / 'out' / 'packages.adb'))


# --- installed into an offline root, run, removed --------------------------------------------------

@pytest.fixture
def offline(tmp_path):
    """An offline root with OpenWrt's stand-ins, the environment its scripts run in, and its tree."""
    root = tmp_path / 'root'
    root.mkdir()
    standins(str(root))
    env = dict(os.environ, STANDIN_LOG=str(tmp_path / 'standin.log'),
               PATH=str(root / 'bin') + os.pathsep + os.environ['PATH'])
    return root, env, tree(root)


@pytest.mark.parametrize('tool', SERVICES)
def test_tool_installs_from_the_signed_feed_runs_and_leaves_nothing(apk_feed, apk_key, system_repo, offline,
                                                                    tool, tmp_path):
    root, env, before = offline
    router = Router(root, [system_repo, os.path.join(apk_feed, 'packages.adb')], keys_dir=apk_key[1], env=env)
    package = package_of(tool)
    assert router.order([package]) == sorted(SYSTEM) + list(libraries(tool)) + [package]
    router.add(package)
    for name in SYSTEM:
        assert (root / 'usr' / 'share' / name / 'marker').exists()
    assert os.stat(str(root / 'etc' / 'config' / tool)).st_mode & 0o777 == 0o600
    assert os.access(str(root / 'usr' / 'bin' / tool), os.X_OK)
    log = records(env['STANDIN_LOG'])
    assert ['default_postinst', LIBRARY] in log and ['default_postinst', package] in log
    (link,) = os.listdir(str(root / 'etc' / 'rc.d'))
    assert os.readlink(str(root / 'etc' / 'rc.d' / link)) == '../init.d/' + tool
    done = run_tool(str(root / 'usr' / 'bin' / tool), ['--help'], env={'TMPDIR': str(tmp_path)})
    assert done.returncode == 0 and done.stdout.startswith('usage: %s ' % tool), done.stderr
    for library in libraries(tool):
        with pytest.raises(Refused, match='still needed'):
            router.delete(library)
    router.delete(package)
    assert ['default_prerm', package] in records(env['STANDIN_LOG'])
    assert os.listdir(str(root / 'etc' / 'rc.d')) == []
    router.delete(*libraries(tool)[::-1] + SYSTEM)
    assert tree(root) == before


def test_installed_updater_updates_a_record_and_is_removed_with_its_state_kept_out(apk_feed, apk_key, system_repo,
                                                                                   offline, box, tmp_path):
    """updater_a from the apk feed, every setting in its UCI section, updates the record at the fake
    provider, says nothing changed on the next run, writes nothing under the root, and goes away."""
    root, env, before = offline
    router = Router(root, [system_repo, os.path.join(apk_feed, 'packages.adb')], keys_dir=apk_key[1], env=env)
    router.add('updater_a')
    settings = box.env_a(str(tmp_path / 'state'))
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    config = root / 'etc' / 'config' / 'updater_a'
    config.write_text("config updater_a 'home'\n\toption enabled '1'\n" + ''.join(
        "\toption %s %s\n" % (name[5:].lower(), quoted(value)) for name, value in sorted(settings.items())))
    installed = tree(root)
    for said in ('IP has been updated to: 81.2.69.10', 'IP has not changed'):
        done = run_tool(str(root / 'usr' / 'bin' / 'updater_a'), ['--uci', 'home'],
                        env={'DDNS_UCI_FILE': str(config), 'TMPDIR': str(tmp_path)})
        assert done.returncode == 0 and said in done.stdout, done.stdout + done.stderr
    assert box.provider_a.find(RECORD)[0]['content'] == '81.2.69.10'
    assert tree(root) == installed
    router.delete('updater_a', *libraries('updater_a')[::-1] + SYSTEM)
    assert tree(root) == dict(before, **{'etc/config': installed['etc/config'],
                                         'etc/config/updater_a': installed['etc/config/updater_a']})


def test_the_command_with_one_provider_from_the_feed_runs_it_and_a_provider_removed_is_named(
        apk_feed, apk_key, system_repo, offline, box, tmp_path):
    """apk add ddkit-command ddkit-<provider>: that provider's package and no other's comes with the
    command, whose run updates the record at the provider's fake. Removed again, the provider's
    records are refused naming its package, and the command goes without leaving anything behind."""
    root, env, before = offline
    router = Router(root, [system_repo, os.path.join(apk_feed, 'packages.adb')], keys_dir=apk_key[1], env=env)
    adapter = ADAPTERS[0]
    provider = 'ddkit-' + adapter.provider
    assert router.order([COMMAND_PACKAGE, provider]) == sorted(SYSTEM) + [LIBRARY, DDNS_LIBRARY, COMMAND_PACKAGE,
                                                                          provider]
    router.add(COMMAND_PACKAGE, provider)
    modules = os.listdir(str(root / 'usr' / 'lib' / 'ddkit' / 'ddkit' / 'providers'))
    assert sorted(modules) == [adapter.provider + '.py']
    adapter.add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    done = run_tool(str(root / 'usr' / 'bin' / COMMAND), ['--provider', adapter.provider],
                    env=dict(adapter.env(box, tmp_path / 'state'), TMPDIR=str(tmp_path)))
    assert done.returncode == 0 and 'IP has been updated to: 81.2.69.10' in done.stdout, done.stdout + done.stderr
    router.delete(provider)
    done = run_tool(str(root / 'usr' / 'bin' / COMMAND), ['--provider', adapter.provider, '--zone-name', ZONE,
                                                         '--record-name', RECORD], env={'TMPDIR': str(tmp_path)})
    assert done.returncode == 2 and 'provider %s is not installed: install the package %s' % (
        adapter.provider, provider) in done.stderr, done.stderr
    router.delete(COMMAND_PACKAGE, DDNS_LIBRARY, LIBRARY, *SYSTEM)
    assert tree(root) == before


def test_the_optional_packages_come_only_when_added_and_bring_their_feature(apk_feed, apk_key, system_repo, offline,
                                                                            box, tmp_path):
    """apk add ddkit-command ddkit-<provider> brings neither ddkit-notify nor ddkit-proxy, each of which
    needs ddkit-ddns of its build alone; a record that sets notify is then refused, naming apk's command
    too. apk add ddkit-notify brings ddkit/notices.py and the record's notice is sent; apk del
    ddkit-notify takes it away, and the record is refused again."""
    from fakes.notices import Telegram
    root, env, before = offline
    router = Router(root, [system_repo, os.path.join(apk_feed, 'packages.adb')], keys_dir=apk_key[1], env=env)
    for name in OPTIONAL_PACKAGES:   # the import's needs the command's package
        assert router.order([name]) == sorted(SYSTEM) + [LIBRARY, DDNS_LIBRARY] + (
            [COMMAND_PACKAGE] if name == 'ddkit-import' else []) + [name]
    adapter = ADAPTERS[0]
    router.add(COMMAND_PACKAGE, 'ddkit-' + adapter.provider)
    library = root / 'usr' / 'lib' / 'ddkit' / 'ddkit'
    assert not {'notices.py', 'proxy.py'} & set(os.listdir(str(library)))
    assert not set(OPTIONAL_PACKAGES) & set(router.installed)
    adapter.add(box, RECORD, 'A', '81.2.69.1')
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    service = Telegram().start()
    try:
        settings = dict(adapter.env(box, tmp_path / 'state'), DDNS_PROVIDER=adapter.provider,
                        DDNS_NOTIFY=service.notify_url, TMPDIR=str(tmp_path))
        refused = 'ddkit: notify needs the package ddkit-notify: opkg install ddkit-notify (apk add ddkit-notify on ' \
            'OpenWrt 25.12)\n'
        done = run_tool(str(root / 'usr' / 'bin' / COMMAND), [], env=settings)
        assert done.returncode == 2 and done.stderr == refused, done.stderr
        router.add('ddkit-notify')
        assert (library / 'notices.py').exists()
        done = run_tool(str(root / 'usr' / 'bin' / COMMAND), [], env=settings)
        assert done.returncode == 0 and 'IP has been updated to: 81.2.69.10' in done.stdout, done.stdout + done.stderr
        assert len(service.messages) == 1
        router.delete('ddkit-notify')
        assert not (library / 'notices.py').exists()
        done = run_tool(str(root / 'usr' / 'bin' / COMMAND), ['--force'], env=settings)
        assert done.returncode == 2 and done.stderr == refused, done.stderr
    finally:
        service.stop()
    assert len(service.messages) == 1


def test_unsigned_feed_installs_only_when_allowed(apk_unsigned, apk_key, system_repo, offline):
    root, env, before = offline
    index = os.path.join(apk_unsigned[0], 'packages.adb')
    with pytest.raises(Refused, match='UNTRUSTED'):
        Router(root, [system_repo, index], keys_dir=apk_key[1], env=env)
    router = Router(root, [system_repo, index], keys_dir=apk_key[1], allow_untrusted=True, env=env)
    router.add('updater_b')
    assert (root / 'usr' / 'lib' / 'ddkit' / 'updater_b.py').exists()
    router.delete('updater_b', *libraries('updater_b')[::-1] + SYSTEM)
    assert tree(root) == before


def test_tool_without_its_python_packages_does_not_install(apk_feed, apk_key, offline):
    root, env, before = offline
    router = Router(root, [os.path.join(apk_feed, 'packages.adb')], keys_dir=apk_key[1], env=env)
    with pytest.raises(Refused, match='python3-'):
        router.add('updater_a')
    assert tree(root) == before


# --- the same with a real apk 3 client (APK=/path/to/apk) ----------------------------------------

needs_apk = pytest.mark.skipif(not APK, reason='set APK to a real apk 3 client to run these checks with it')


def apk(*args, root=None):
    command = [APK] + (['--root', str(root)] if root else []) + list(args)
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@needs_apk
def test_real_apk_parses_every_file(apk_feed, apk_unsigned, apk_key):
    for folder in (apk_feed, apk_unsigned[0]):
        for name in os.listdir(folder):
            if name.endswith('.pem'):
                continue
            done = apk('adbdump', '--keys-dir', apk_key[1], os.path.join(folder, name))
            assert done.returncode == 0, done.stdout + done.stderr
            assert ('sig v00 h04' in done.stdout and ': OK' in done.stdout) == (folder == apk_feed), name
            assert 'UNTRUSTED' not in done.stdout
            if name.endswith('.apk'):
                assert 'name: %s\n' % name.rsplit('-', 2)[0] in done.stdout


def shell_root(root):
    """/bin/sh in the offline root: apk runs the scripts chrooted there."""
    sh = os.path.realpath(shutil.which('sh'))
    libs = subprocess.run(['ldd', sh], capture_output=True, text=True).stdout.split()
    for path in [sh] + [p for p in libs if p.startswith('/')]:
        target = str(root) + (path if path != sh else '/bin/sh')
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(path, target)


@needs_apk
@pytest.mark.parametrize('tool', SERVICES)
def test_real_apk_installs_the_signed_feed_with_keys_only_runs_and_removes(apk_feed, apk_key, system_repo,
                                                                           tmp_path, tool):
    root = tmp_path / 'root'
    root.mkdir()
    shell_root(root)
    before = tree(root)
    repos = ['--repository', system_repo, '--repository', os.path.join(apk_feed, 'packages.adb')]
    done = apk('--initdb', '--no-network', '--no-cache', '--keys-dir', apk_key[1], *repos, 'add', package_of(tool),
               root=root)
    assert done.returncode == 0 and 'UNTRUSTED' not in done.stdout + done.stderr, done.stdout + done.stderr
    assert (root / 'usr' / 'share' / 'python3-light' / 'marker').exists()
    assert os.stat(str(root / 'etc' / 'config' / tool)).st_mode & 0o777 == 0o600
    ran = run_tool(str(root / 'usr' / 'bin' / tool), ['--help'], env={'TMPDIR': str(tmp_path)})
    assert ran.returncode == 0 and ran.stdout.startswith('usage: %s ' % tool), ran.stderr
    done = apk('--no-network', '--no-cache', '--keys-dir', apk_key[1], *repos, 'del', package_of(tool), root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    # apk's own state (database, world, script mounts) stays; of the packages (dependencies included:
    # nothing in world needs them any more) nothing does
    state = ('lib/apk/db', 'lib/apk/exec', 'etc/apk', 'var', 'dev', 'proc')
    assert {p for p in tree(root) if not p.startswith(state)} - {'lib/apk', 'etc'} == set(before) | {'lib'}


@needs_apk
def test_real_apk_refuses_unsigned_and_changed_packages(apk_feed, apk_unsigned, apk_key, system_repo,
                                                        tmp_path):
    """With the python3-* repository at hand, so only the package itself can be refused; the
    untouched signed package then installs, the same way."""
    root = tmp_path / 'root'
    root.mkdir()
    shell_root(root)
    add = ['--no-network', '--no-cache', '--keys-dir', apk_key[1], '--repository', system_repo, 'add']
    assert apk('--initdb', *add[:-1] + ['add', 'python3-light'], root=root).returncode == 0
    done = apk(*add + [apk_path(apk_unsigned[0], LIBRARY)], root=root)
    assert done.returncode != 0 and 'UNTRUSTED' in done.stdout + done.stderr, done.stdout + done.stderr
    for where in ('file', 'metadata', 'content'):
        bad = changed(apk_path(apk_feed, LIBRARY), tmp_path / ('%s-%s.apk' % (LIBRARY, VERSION)), where)
        done = apk(*add + [bad], root=root)
        assert done.returncode != 0, (where, done.stdout + done.stderr)
        assert not (root / 'usr' / 'lib' / 'ddkit').exists(), where
    done = apk(*add + [apk_path(apk_feed, LIBRARY)], root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / 'usr' / 'lib' / 'ddkit' / 'ddkit' / '__init__.py').exists()
