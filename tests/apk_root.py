"""A small apk 3 installer for the tests, on top of apk_reader: `apk add` and `apk del` into an
offline root as apk-tools does them -- repositories are packages.adb files (each trusted by a key of
keys_dir or allowed untrusted), a package is trusted through the SHA-256 its trusted index gives, its
dependencies come first (from any repository, `=` pinned versions checked), every directory it lists
is made with its acl mode, every file is written whole then renamed into place, post-install runs
after the files; del runs pre-deinstall, removes exactly the files the package listed (but, as in
apk's default protected path /etc, one there that was changed since: a user's configuration) and
the directories it listed that no installed package still lists and nothing fills. Scripts run with
IPKG_INSTROOT set to the root, as in OpenWrt's image build."""

import hashlib
import os
import stat
import subprocess
import tempfile

from apk_reader import Refused, read_index, read_package


class Router:
    """An offline root and the repositories apk would be given (--repository FILE.adb)."""

    def __init__(self, root, repositories, keys_dir=None, allow_untrusted=False, env=None):
        self.root, self.keys_dir, self.allow_untrusted = str(root), keys_dir, allow_untrusted
        self.env, self.available, self.installed = dict(env or os.environ), {}, {}
        for index in repositories:
            for info in read_index(index, keys_dir, allow_untrusted)['packages']:
                path = os.path.join(os.path.dirname(index), '%s-%s.apk' % (info['name'], info['version']))
                self.available.setdefault(info['name'], (info, path))

    def order(self, names, out=None):
        """names and what they depend on, dependencies first; Refused if one cannot be met."""
        out = [] if out is None else out
        for name in names:
            if name in out or name in self.installed:
                continue
            if name not in self.available:
                raise Refused('%s (no such package)' % name)
            info = self.available[name][0]
            for dep in info.get('depends', []):
                have = self.available.get(dep['name'], ({}, None))[0]
                if 'version' in dep and (dep.get('match', 1) != 1 or have.get('version') != dep['version']):
                    raise Refused('%s needs %s=%s' % (name, dep['name'], dep.get('version')))
            self.order([dep['name'] for dep in info.get('depends', [])], out)
            out.append(name)
        return out

    def add(self, *names):
        for name in self.order(names):
            self.install(name)

    def install(self, name):
        info, path = self.available[name]
        got, dirs, files, scripts = read_package(path, self.keys_dir, self.allow_untrusted, info['hashes'])
        if (got['name'], got['version']) != (info['name'], info['version']):
            raise Refused('%s is not the package the index lists' % path)
        for folder, acl in dirs:
            full = os.path.join(self.root, folder)
            if not os.path.isdir(full):
                os.mkdir(full)
            os.chmod(full, acl.get('mode', 0o755))
        for file_path, acl, data in files:
            full = os.path.join(self.root, file_path)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(full), prefix='.apk.')
            with os.fdopen(fd, 'wb') as f:
                f.write(data)
            os.chmod(tmp, acl.get('mode', 0o644))
            os.replace(tmp, full)
        self.installed[name] = (info, [d for d, _ in dirs], [(f, hashlib.sha256(data).digest())
                                                              for f, _, data in files], scripts)
        self.run(name, scripts.get('post-install'))

    def delete(self, *names):
        for name in names:
            needed = [other for other, (info, _, _, _) in self.installed.items() if other not in names
                      and name in [dep['name'] for dep in info.get('depends', [])]]
            if needed:
                raise Refused('%s is still needed by %s' % (name, needed))
        for name in names:
            info, dirs, files, scripts = self.installed[name]
            self.run(name, scripts.get('pre-deinstall'))
            for file_path, digest in files:
                full = os.path.join(self.root, file_path)
                if not (file_path.startswith('etc/') and changed(full, digest)):
                    os.remove(full)
            del self.installed[name]
            others = {d for _, kept, _, _ in self.installed.values() for d in kept}
            for folder in sorted(dirs, key=lambda d: -d.count('/')):
                full = os.path.join(self.root, folder)
                if folder and folder not in others and os.path.isdir(full) and not os.listdir(full):
                    os.rmdir(full)
            self.run(name, scripts.get('post-deinstall'))

    def run(self, name, script):
        if not script:
            return
        with tempfile.NamedTemporaryFile('w', suffix='.' + name, delete=False) as f:
            f.write(script)
        try:
            done = subprocess.run(['sh', f.name], env=dict(self.env, IPKG_INSTROOT=self.root),
                                  capture_output=True, text=True, timeout=60)
        finally:
            os.remove(f.name)
        if done.returncode != 0:
            raise Refused('%s script failed: %s' % (name, done.stderr))


def changed(path, digest):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).digest() != digest


def walk(root, describe):
    """{path relative to root: describe(its full path, its lstat)} of everything under root."""
    out = {}
    for folder, dirs, files in os.walk(str(root)):
        for name in dirs + files:
            full = os.path.join(folder, name)
            out[os.path.relpath(full, str(root))] = describe(full, os.lstat(full))
    return out


def tree(root):
    """{path: (type, mode, bytes or None)} of everything under root."""
    def entry(full, st):
        data = None
        if stat.S_ISREG(st.st_mode):
            with open(full, 'rb') as f:
                data = f.read()
        return stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), data
    return walk(root, entry)
