#!/usr/bin/env python3
"""Build an apk v3 feed in dist/apk/ for OpenWrt 25.12 and later: one .apk per package of
openwrt/Makefile (the split, files, conffiles and scripts of the opkg feed, tools/feed.py) and the
index packages.adb, laid out as OpenWrt's package-pack.mk has `apk mkpkg` and `apk mkndx` lay them
out (see shared/spec/apk-v3.md and docs/apk.md). Given an EC P-256 private key (PEM), every package
and the index carry an apk v3 signature made by the openssl command; without one the feed is
unsigned and the same bytes every time for the same input.

usage: apkfeed.py [--out DIR] [--key EC_PRIVATE_KEY_PEM] [--check]
"""

import functools
import hashlib
import os
import re
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import feed  # noqa: E402

# The value tags of an ADB block (apk-tools src/adb.h): 4 bits of type, 28 of value or offset
NULL, INT, INT32, INT64, BLOB8, BLOB16, BLOB32, ARRAY, OBJECT = (
    0, 0x10000000, 0x20000000, 0x30000000, 0x80000000, 0x90000000, 0xa0000000, 0xd0000000, 0xe0000000)
BLOCK_ADB, BLOCK_SIG, BLOCK_DATA = 0, 1, 2
SHA512 = 4                                    # APK_DIGEST_SHA512, the hash a v0 signature names
EC_P256 = (bytes.fromhex('06072a8648ce3d0201'), bytes.fromhex('06082a8648ce3d030107'))   # OIDs

# The schemas (apk-tools src/apk_adb.c): each object's fields in slot order, with their kinds;
# a list is an array of that kind
SCHEMAS = {
    'package': [('info', 'info'), ('paths', ['dir']), ('scripts', 'scripts'), ('triggers', ['blob']),
                ('replaces-priority', 'int')],
    'info': [('name', 'blob'), ('version', 'blob'), ('hashes', 'blob'), ('description', 'blob'),
             ('arch', 'blob'), ('license', 'blob'), ('origin', 'blob'), ('maintainer', 'blob'),
             ('url', 'blob'), ('repo-commit', 'blob'), ('build-time', 'int'), ('installed-size', 'int'),
             ('file-size', 'int'), ('provider-priority', 'int'), ('depends', ['dependency']),
             ('provides', ['dependency']), ('replaces', ['dependency']), ('install-if', ['dependency']),
             ('recommends', ['dependency']), ('layer', 'int'), ('tags', ['blob'])],
    'dependency': [('name', 'blob'), ('version', 'blob'), ('match', 'int')],
    'dir': [('name', 'blob'), ('acl', 'acl'), ('files', ['file'])],
    'file': [('name', 'blob'), ('acl', 'acl'), ('size', 'int'), ('mtime', 'int'), ('hash', 'blob'),
             ('target', 'blob')],
    'acl': [('mode', 'int'), ('user', 'blob'), ('group', 'blob'), ('xattrs', ['blob'])],
    'scripts': [('trigger', 'blob'), ('pre-install', 'blob'), ('post-install', 'blob'),
                ('pre-deinstall', 'blob'), ('post-deinstall', 'blob'), ('pre-upgrade', 'blob'),
                ('post-upgrade', 'blob')],
    'index': [('description', 'blob'), ('packages', ['info']), ('pkgname-spec', 'blob')],
}
MATCH = {'=': None, '<': 2, '>': 4, '<=': 3, '>=': 5, '~': 9}   # APK_VERSION_* bits; = is the default


class Tag(int):
    """A value already written into the block (put() takes it as it is)."""


class Adb:
    """An ADB block being written as apk-tools writes one: an 8-byte header (format version 0 and the
    root's tag), then values, children before the objects that point at them, each indirect value
    aligned to the size of its first field; equal values are written once."""

    def __init__(self):
        self.data, self.seen = bytearray(8), {}

    def raw(self, data, align, shared=True):
        """The offset of data, written (aligned) unless the same bytes are there already."""
        if shared and data in self.seen and self.seen[data] % align == 0:
            return self.seen[data]
        self.data += bytes(-len(self.data) % align)
        offset = len(self.data)
        if offset > 0x0fffffff:
            stop('the metadata of a package outgrew the ADB format (256 MB)')
        self.data += data
        if shared:
            self.seen.setdefault(bytes(data), offset)
        return offset

    def blob(self, value, shared=True):
        value = value.encode() if isinstance(value, str) else bytes(value)
        if not value:
            return NULL
        for kind, size, fmt in ((BLOB8, 1, '<B'), (BLOB16, 2, '<H'), (BLOB32, 4, '<I')):
            if len(value) < 1 << (8 * size):
                return kind | self.raw(struct.pack(fmt, len(value)) + value, size, shared)
        raise ValueError('blob too large')

    def int(self, value):
        if value < 0x10000000:
            return INT | value
        if value < 1 << 32:
            return INT32 | self.raw(struct.pack('<I', value), 4)
        return INT64 | self.raw(struct.pack('<Q', value), 4)

    def slots(self, kind, tags):
        """An array or object: slot 0 the number of slots, trailing empty slots dropped."""
        tags = list(tags)
        while tags and tags[-1] == NULL:
            tags.pop()
        if not tags:
            return NULL
        return kind | self.raw(struct.pack('<%dI' % (len(tags) + 1), len(tags) + 1, *tags), 4)

    def put(self, kind, value):
        """value (str/bytes, int, list or dict of field names) written as the schema's kind says."""
        if isinstance(value, Tag):
            return value
        if kind == 'blob':
            return self.blob(value)
        if kind == 'int':
            return self.int(value)
        if isinstance(kind, list):
            return self.slots(ARRAY, [self.put(kind[0], item) for item in value])
        unknown = set(value) - {name for name, _ in SCHEMAS[kind]}
        assert not unknown, (kind, unknown)
        return self.slots(OBJECT, [self.put(sub, value[name]) if name in value else NULL
                                   for name, sub in SCHEMAS[kind]])

    def root(self, tag):
        self.data[4:8] = struct.pack('<I', tag)
        return bytes(self.data)


def block(kind, payload):
    """A block: type and size in one little-endian word, the payload, zeros to 8 bytes."""
    size = 4 + len(payload)
    return struct.pack('<I', kind << 30 | size) + payload + bytes(-size % 8)


def container(schema, adb, signatures=(), data=()):
    """The file: ADB header and schema, the ADB block, SIG blocks, DATA blocks, all deflated
    (raw deflate, level 9) behind "ADBd" as apk mkpkg and mkndx write them."""
    raw = b'ADB.' + schema + block(BLOCK_ADB, adb) + b''.join(block(BLOCK_SIG, s) for s in signatures) + \
        b''.join(block(BLOCK_DATA, d) for d in data)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 8)
    return b'ADBd' + packer.compress(raw) + packer.flush()


def dependency(text):
    """An apk dependency object from OpenWrt's Depends item (`ddkit (=1.0.0-r1)` -> ddkit=1.0.0-r1)."""
    found = re.match(r'^([A-Za-z0-9][\w.+-]*)(?:(>=|<=|=|<|>|~)([\w.+~-]+))?$', re.sub(r'[\s()]', '', text))
    if not found:
        stop('a dependency in openwrt/Makefile apk cannot express: %r' % text)
    name, op, version = found.groups()
    out = {'name': name}
    if op:
        out['version'] = version
        if MATCH[op]:
            out['match'] = MATCH[op]
    return out


def contents(recipe, name, installed, own):
    """{directory: {file name: (mode, bytes)}} of a package: the .ipk's data, plus the files
    package-pack.mk adds for apk in /lib/apk/packages/ (the file list, conffiles with checksums)."""
    entries = [(path[2:] if path != '.' else '', mode, data) for path, mode, data in
               recipe.files(name, installed, own)]
    listed = sorted('/' + path for path, _, data in entries if data is not None)
    meta = 'lib/apk/packages/' + name
    extra = [('lib', 0o755, None), ('lib/apk', 0o755, None), ('lib/apk/packages', 0o755, None),
             (meta + '.list', 0o644, ''.join(p + '\n' for p in listed).encode())]
    conffiles = [line.strip() for line in (recipe.text('Package/%s/conffiles' % name) or '').splitlines()
                 if line.strip()]
    if conffiles:
        files = {'/' + path: data for path, _, data in entries if data is not None}
        static = ''.join('%s %s\n' % (c, hashlib.sha256(files[c]).hexdigest())
                         for c in conffiles if c in files)
        extra += [(meta + '.conffiles', 0o644, ''.join(c + '\n' for c in conffiles).encode()),
                  (meta + '.conffiles_static', 0o644, static.encode())]
    tree = {}
    for path, mode, data in entries + extra:
        if data is None:
            tree.setdefault(path, (mode, {}))
        else:
            folder, _, base = path.rpartition('/')
            tree[folder][1][base] = (mode, data)
    return tree


def scripts(recipe, name):
    """post-install, post-upgrade and pre-deinstall as package-pack.mk writes them for apk."""
    def own(script):
        body = recipe.text('Package/%s/%s' % (name, script)) or ''
        return ''.join(line + '\n' for line in body.splitlines() if not re.match(r'^\s*#!', line))
    post_install = feed.APK_POST_INSTALL % name + own('postinst')
    return {'post-install': post_install,
            'post-upgrade': '#!/bin/sh\nexport PKG_UPGRADE=1\n' + post_install.split('\n', 1)[1],
            'pre-deinstall': feed.APK_PRE_DEINSTALL % name + own('prerm')}


def info(recipe, name, installed_size):
    """The package's info object, from the fields package-pack.mk passes to apk mkpkg."""
    fields, variables = recipe.fields(name), recipe.variables
    description = recipe.text('Package/%s/description' % name) or fields.get('TITLE', name)
    out = {'name': name, 'version': recipe.version, 'description': ' '.join(description.split()),
           'arch': 'noarch' if fields.get('PKGARCH', 'all') == 'all' else fields['PKGARCH'],
           'license': variables.get('PKG_LICENSE', ''), 'origin': feed.SOURCE,
           'maintainer': variables.get('PKG_MAINTAINER', ''), 'installed-size': max(installed_size, 1),
           'depends': sorted((dependency(d) for d in recipe.depends(name).split(',') if d.strip()),
                             key=lambda d: d['name'].encode())}
    return {k: v for k, v in out.items() if v != ''}


def build_package(recipe, name, installed, own, epoch, key=None):
    """One .apk: (file name, bytes, its ADB block, its info but the unique id)."""
    tree = contents(recipe, name, installed, own)
    acl = {'mode': 0o755, 'user': 'root', 'group': 'root'}
    paths, data, size = [], [], 0
    for p, folder in enumerate(sorted(tree, key=str.encode), 1):
        mode, files = tree[folder]
        listed = []
        for f, base in enumerate(sorted(files, key=str.encode), 1):
            fmode, body = files[base]
            listed.append({'name': base, 'acl': dict(acl, mode=fmode), 'size': len(body), 'mtime': epoch,
                           'hash': hashlib.sha256(body).digest()})
            size += len(body)
            if body:
                data.append(struct.pack('<II', p, f) + body)
        paths.append({'name': folder, 'acl': dict(acl, mode=mode), 'files': listed})
    adb = Adb()
    # the unique id: the first 20 bytes of the SHA-256 of the block written with zeros in its place
    uid = Tag(adb.blob(bytes(20), shared=False))
    about = info(recipe, name, size)
    package = {'info': dict(about, hashes=uid), 'paths': paths,
               'scripts': scripts(recipe, name)}
    metadata = bytearray(adb.root(adb.put('package', package)))
    at = (uid & 0x0fffffff) + 1
    metadata[at:at + 20] = hashlib.sha256(metadata).digest()[:20]
    metadata = bytes(metadata)
    signatures = [signature(key, b'pckg', metadata)] if key else []
    apk = container(b'pckg', metadata, signatures, data)
    return '%s-%s.apk' % (name, recipe.version), apk, metadata, about


def index(packages, key=None):
    """packages.adb: each package's info, its file size and the SHA-256 of its ADB block (how apk
    trusts a package the signed index lists), sorted by name as apk mkndx sorts them."""
    adb = Adb()
    entries = []
    for about, file_size, metadata in sorted(packages, key=lambda p: p[0]['name'].encode()):
        entries.append(dict(about, **{'file-size': file_size, 'hashes': hashlib.sha256(metadata).digest()}))
    metadata = adb.root(adb.put('index', {'description': 'ddkit router tools', 'packages': entries}))
    return container(b'indx', metadata, [signature(key, b'indx', metadata)] if key else [])


@functools.lru_cache()
def key_id(key):
    """The first 16 bytes of the SHA-512 of the public key as i2d_PublicKey writes it (the EC point):
    how apk finds the key of a signature, whatever its file is called. Stops unless the key is EC P-256."""
    spki = openssl(['pkey', '-in', key, '-passin', 'pass:', '-pubout', '-outform', 'DER'], b'',
                   'read the private key %s (an unencrypted PEM key)' % key)
    algorithm, point = der_items(der_items(spki)[0][1])
    if not all(oid in algorithm[1] for oid in EC_P256):
        stop('%s is not an EC P-256 key (OpenWrt signs apk feeds with one: '
             'openssl ecparam -name prime256v1 -genkey -noout -out KEY)' % key)
    return hashlib.sha512(point[1][1:]).digest()[:16]   # [1:]: the BIT STRING's count of unused bits


def der_items(data):
    """[(tag, contents)] of consecutive DER items (enough of DER for a public key's SPKI)."""
    items, at = [], 0
    while at < len(data):
        tag, length, at = data[at], data[at + 1], at + 2
        if length & 0x80:
            count = length & 0x7f
            length, at = int.from_bytes(data[at:at + count], 'big'), at + count
        items.append((tag, data[at:at + length]))
        at += length
    return items


def signature(key, schema, adb):
    """A v0 signature block's payload: version 0, hash SHA-512, the key id, then the ECDSA signature
    (made by openssl) of the schema, those 18 bytes and the SHA-512 of the ADB block."""
    head = bytes([0, SHA512]) + key_id(key)
    message = schema + head + hashlib.sha512(adb).digest()
    signed = openssl(['dgst', '-sha512', '-passin', 'pass:', '-sign', key], message, 'sign with %s' % key)
    return head + signed


def openssl(args, data, what):
    try:
        done = subprocess.run(['openssl'] + args, input=data, capture_output=True)
    except OSError:
        stop('the openssl command is needed to %s' % what)
    if done.returncode != 0:
        said = done.stderr.decode(errors='replace').strip().splitlines()
        stop('openssl could not %s%s' % (what, ': ' + said[0] if said else ''))
    return done.stdout


def stop(message):
    """Bad input (a key, a recipe): one line on stderr, exit 2."""
    print('apkfeed: ' + message, file=sys.stderr)
    sys.exit(2)


def build(out, key=None):
    """Write the feed into out; returns the .apk file names."""
    recipe = feed.Recipe()
    installed, own = recipe.installed(), recipe.own_modules()
    epoch = feed.source_date_epoch()
    if key:
        key_id(key)   # a bad key stops the build before anything is written
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        if old.endswith('.apk') or old in ('packages.adb', 'ddkit-apk.pem'):
            os.remove(os.path.join(out, old))
    names, packages = [], []
    for name in sorted(recipe.packages):
        filename, apk, metadata, about = build_package(recipe, name, installed, own, epoch, key)
        feed.write(os.path.join(out, filename), apk)
        packages.append((about, len(apk), metadata))
        names.append(filename)
    feed.write(os.path.join(out, 'packages.adb'), index(packages, key))
    if key:
        public = openssl(['pkey', '-in', key, '-passin', 'pass:', '-pubout'], b'', 'read ' + key)
        feed.write(os.path.join(out, 'ddkit-apk.pem'), public)
    return names


def main(argv):
    opts = {'--out': os.path.join(feed.ROOT, 'dist', 'apk'), '--key': None, '--check': None}
    args = list(argv[1:])
    while args:
        name = args.pop(0)
        if name == '--check':   # only check the key: make feed checks both feeds' keys first
            opts[name] = True
            continue
        if name not in opts or not args:
            print(__doc__.strip().splitlines()[-1], file=sys.stderr)
            return 2
        opts[name] = args.pop(0)
    key = opts['--key'] or None
    if key and not os.path.isfile(key):
        print('apkfeed: no key file %s; nothing was written' % key, file=sys.stderr)
        return 2
    if key:
        key_id(key)   # stops on a key that is not EC P-256, before anything is written
    if opts['--check']:
        return 0
    for filename in build(opts['--out'], key):
        print('apk feed: %s' % os.path.join(opts['--out'], filename))
    if key:
        print('apk feed: signed; trust it with %s in /etc/apk/keys/'
              % os.path.join(opts['--out'], 'ddkit-apk.pem'))
    else:
        print('apk feed: UNSIGNED (install with apk add --allow-untrusted; '
              'make feed APK_KEY=key.pem signs it)')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
