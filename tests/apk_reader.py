"""A reader of apk v3 files (packages and packages.adb), written for the tests from the format's
description (apk-v3(5), apk-package(5) and the layout in apk-tools' adb.h), independent of
tools/apkfeed.py: it shares no code with the writer, checks every size, offset and alignment it
reads, verifies signatures with the openssl command and file contents with their SHA-256, and
refuses what a real apk 3 client refuses (an unsigned or changed package, data before trust)."""

import hashlib
import os
import struct
import subprocess
import tempfile
import zlib

# field names in slot order (slot 0 holds the count), as `apk adbdump` prints them
KINDS = {
    'pckg': ('info', 'paths', 'scripts', 'triggers', 'replaces-priority'),
    'indx': ('description', 'packages', 'pkgname-spec'),
    'info': ('name', 'version', 'hashes', 'description', 'arch', 'license', 'origin', 'maintainer', 'url',
             'repo-commit', 'build-time', 'installed-size', 'file-size', 'provider-priority', 'depends',
             'provides', 'replaces', 'install-if', 'recommends', 'layer', 'tags'),
    'dep': ('name', 'version', 'match'),
    'dir': ('name', 'acl', 'files'),
    'file': ('name', 'acl', 'size', 'mtime', 'hash', 'target'),
    'acl': ('mode', 'user', 'group', 'xattrs'),
    'scripts': ('trigger', 'pre-install', 'post-install', 'pre-deinstall', 'post-deinstall', 'pre-upgrade',
                'post-upgrade'),
}
# what each field holds: another kind, [kind] for an array of it, else a scalar
NESTED = {'info': 'info', 'paths': ['dir'], 'scripts': 'scripts', 'triggers': ['str'], 'packages': ['info'],
          'depends': ['dep'], 'provides': ['dep'], 'replaces': ['dep'], 'install-if': ['dep'],
          'recommends': ['dep'], 'tags': ['str'], 'acl': 'acl', 'files': ['file'], 'xattrs': ['str']}
NUMBERS = {'build-time', 'installed-size', 'file-size', 'provider-priority', 'layer', 'replaces-priority',
           'size', 'mtime', 'mode', 'match'}


class Refused(Exception):
    """The file is malformed, changed or untrusted: a real client would not use it."""


class Adb:
    """One decoded file: schema ('pckg' or 'indx'), the ADB block, signatures, data blocks, root."""

    def __init__(self, raw):
        if raw[:4] == b'ADBd':
            try:
                unpack = zlib.decompressobj(-15)
                raw = unpack.decompress(raw[4:]) + unpack.flush()
            except zlib.error as e:
                raise Refused('deflate: %s' % e)
            if not unpack.eof or unpack.unused_data:
                raise Refused('deflate stream cut short or followed by junk')
        if raw[:4] != b'ADB.' or len(raw) < 8:
            raise Refused('no ADB header')
        self.schema = raw[4:8].decode('ascii', 'replace')
        self.adb, self.signatures, self.data = None, [], []
        at = 8
        while at < len(raw):
            if at + 4 > len(raw):
                raise Refused('truncated block header')
            word = struct.unpack_from('<I', raw, at)[0]
            kind, size = word >> 30, word & 0x3fffffff
            padded = size + (-size % 8)
            if size < 4 or at + padded > len(raw) or any(raw[at + size:at + padded]):
                raise Refused('bad block size or padding at %d' % at)
            payload = raw[at + 4:at + size]
            if kind == 0 and self.adb is None and not self.signatures and not self.data:
                self.adb = payload
            elif kind == 1 and self.adb is not None and not self.data:
                self.signatures.append(payload)
            elif kind == 2 and self.adb is not None:
                self.data.append(payload)
            else:
                raise Refused('block of type %d out of order' % kind)
            at += padded
        if self.adb is None or len(self.adb) < 8 or self.adb[0] != 0:
            raise Refused('no ADB block of format version 0')
        self.root = self.obj(struct.unpack_from('<I', self.adb, 4)[0], self.schema)

    def tag(self, tag, kind):
        """A value by its tag: kind a name of KINDS, [kind] for arrays, 'str', 'bytes' or 'int'."""
        kind_bits, value = tag >> 28, tag & 0x0fffffff
        if tag == 0:
            return None
        if kind == 'int':
            if kind_bits == 1:
                return value
            size = {2: 4, 3: 8}.get(kind_bits)
            if not size or value % 4 or value + size > len(self.adb):
                raise Refused('bad integer tag %08x' % tag)
            return int.from_bytes(self.adb[value:value + size], 'little')
        if kind in ('str', 'bytes'):
            size = {8: 1, 9: 2, 10: 4}.get(kind_bits)
            if not size or value % size or value + size > len(self.adb):
                raise Refused('bad blob tag %08x' % tag)
            length = int.from_bytes(self.adb[value:value + size], 'little')
            if value + size + length > len(self.adb):
                raise Refused('blob past the end of the block')
            blob = self.adb[value + size:value + size + length]
            return blob.decode() if kind == 'str' else blob
        return self.obj(tag, kind)

    def slots(self, tag):
        # apk reads arrays and objects alike (and apk mkpkg writes its path lists with the object type)
        if tag >> 28 not in (13, 14):
            raise Refused('expected an array or object, found tag %08x' % tag)
        at = tag & 0x0fffffff
        if at % 4 or at + 4 > len(self.adb):
            raise Refused('bad offset %d' % at)
        count = struct.unpack_from('<I', self.adb, at)[0]
        if count < 1 or at + 4 * count > len(self.adb):
            raise Refused('bad slot count %d' % count)
        return struct.unpack_from('<%dI' % count, self.adb, at)[1:]

    def obj(self, tag, kind):
        if isinstance(kind, list):
            return [] if tag == 0 else [self.tag(t, kind[0]) for t in self.slots(tag)]
        if tag == 0:
            return {}
        names = KINDS[kind]
        slots = self.slots(tag)
        if len(slots) > len(names):
            raise Refused('%s object with %d fields' % (kind, len(slots)))
        out = {}
        for name, t in zip(names, slots):
            if t:
                scalar = 'int' if name in NUMBERS else 'bytes' if name in ('hashes', 'hash', 'target',
                                                                            'repo-commit') else 'str'
                out[name] = self.tag(t, NESTED.get(name, scalar))
        return out


def key_id(public_pem):
    """How apk names a key: the SHA-512 of the public EC point (uncompressed), first 16 bytes."""
    text = subprocess.run(['openssl', 'ec', '-pubin', '-in', public_pem, '-noout', '-text', '-conv_form',
                           'uncompressed'], capture_output=True, text=True, check=True).stdout
    lines = text.split('pub:', 1)[1].split('ASN1 OID')[0]
    point = bytes.fromhex(''.join(c for c in lines if c in '0123456789abcdef'))
    assert len(point) == 65 and point[0] == 4, text
    return hashlib.sha512(point).digest()[:16]


def signed_by(adb, keys_dir):
    """The key file (in keys_dir) whose valid signature the file carries, else None."""
    if not keys_dir:
        return None
    paths = [os.path.join(keys_dir, k) for k in sorted(os.listdir(keys_dir))]
    keys = {key_id(path): path for path in paths}
    digest = hashlib.sha512(adb.adb).digest()
    for sig in adb.signatures:
        if len(sig) < 18 or sig[0] != 0 or sig[1] != 4 or sig[2:18] not in keys:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, 'sig'), 'wb') as f:
                f.write(sig[18:])
            check = subprocess.run(['openssl', 'dgst', '-sha512', '-verify', keys[sig[2:18]], '-signature',
                                    os.path.join(tmp, 'sig')], input=adb.schema.encode() + sig[:18] + digest,
                                   capture_output=True)
        if check.returncode == 0:
            return keys[sig[2:18]]
    return None


def trusted(adb, keys_dir=None, allow_untrusted=False, identity=None):
    """Raise Refused unless the file is signed by a key of keys_dir, its ADB block has the SHA-256 a
    trusted index gave (identity), or untrusted files are allowed."""
    if identity is not None and hashlib.sha256(adb.adb).digest() == identity:
        return 'index'
    if signed_by(adb, keys_dir):
        return 'signature'
    if allow_untrusted:
        return 'allowed'
    raise Refused('UNTRUSTED signature')


def read_index(path, keys_dir=None, allow_untrusted=False):
    with open(path, 'rb') as f:
        adb = Adb(f.read())
    if adb.schema != 'indx':
        raise Refused('%s is no index' % path)
    trusted(adb, keys_dir, allow_untrusted)
    return adb.root


def read_package(path, keys_dir=None, allow_untrusted=False, identity=None):
    """(info, [(directory path, acl)], [(file path, acl, bytes)], scripts) of a trusted package whose
    every file matches its size and hash."""
    with open(path, 'rb') as f:
        adb = Adb(f.read())
    if adb.schema != 'pckg':
        raise Refused('%s is no package' % path)
    trusted(adb, keys_dir, allow_untrusted, identity)
    dirs, files, wanted = [], [], []
    for p, folder in enumerate(adb.root.get('paths', []), 1):
        name = folder.get('name', '')
        dirs.append((name, folder.get('acl', {})))
        for f, entry in enumerate(folder.get('files', []), 1):
            path_ = (name + '/' if name else '') + entry['name']
            if entry.get('target') is not None:
                raise Refused('links and devices are not expected in these packages')
            files.append([path_, entry.get('acl', {}), b'', entry])
            if entry.get('size', 0):
                wanted.append((p, f, len(files) - 1))
    if len(wanted) != len(adb.data):
        raise Refused('%d data blocks for %d files' % (len(adb.data), len(wanted)))
    for (p, f, at), block in zip(wanted, adb.data):
        if struct.unpack_from('<II', block) != (p, f):
            raise Refused('data block for another file')
        files[at][2] = block[8:]
    for path_, _, data, entry in files:
        if len(data) != entry.get('size', 0) or hashlib.sha256(data).digest() != entry.get('hash'):
            raise Refused('%s does not match its size and hash' % path_)
    return adb.root['info'], dirs, [(p, a, d) for p, a, d, _ in files], adb.root.get('scripts', {})
