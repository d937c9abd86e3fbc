"""Import guard, loaded by every tool run_tool starts (tests/conftest.py puts this directory on
PYTHONPATH): a module that OpenWrt ships in a package the tool's Depends does not declare is
missing here too, as it would be on the router (shared/spec/openwrt-python3.md)."""

import os
import sys

# OpenWrt package -> the standard-library modules it holds (everything else is python3-light)
PACKAGES = {
    'python3-email': ('email',),
    'python3-urllib': ('urllib',),
    'python3-openssl': ('_ssl', '_hashlib'),
    'python3-codecs': ('unicodedata', '_codecs_cn', '_codecs_hk', '_codecs_iso2022', '_codecs_jp',
                       '_codecs_kr', '_codecs_tw'),
    'python3-logging': ('logging',),
    'python3-asyncio': ('asyncio', '_asyncio'),
    'python3-ctypes': ('ctypes', '_ctypes'),
    'python3-dbm': ('dbm', '_dbm', '_gdbm'),
    'python3-decimal': ('decimal', '_decimal', '_pydecimal'),
    'python3-lzma': ('lzma', '_lzma'),
    'python3-multiprocessing': ('multiprocessing', '_multiprocessing', '_posixshmem'),
    'python3-ncurses': ('curses', '_curses', '_curses_panel'),
    'python3-pydoc': ('pydoc', 'pydoc_data'),
    'python3-readline': ('readline',),
    'python3-sqlite3': ('sqlite3', '_sqlite3'),
    'python3-unittest': ('unittest',),
    'python3-uuid': ('uuid', '_uuid'),
    'python3-venv': ('venv', 'ensurepip'),
    'python3-xml': ('xml', 'xmlrpc', 'pyexpat', '_elementtree'),
}
# what installing a package pulls in with it (23.05 and 24.10)
PULLS = {'python3-urllib': ('python3-email',)}
MODULE_PACKAGE = {module: package for package, modules in PACKAGES.items() for module in modules}
# imports the standard library makes in `try: ... except ImportError`, working on without them
OPTIONAL = {'shutil': ('bz2', 'lzma'), 'hashlib': ('_hashlib',)}
MARK = '[import guard]'


class Guard:
    """Refuse, as a router without the package would, the modules of undeclared packages."""

    def __init__(self, tool, declared, used_log):
        self.tool, self.allowed, self.used_log = tool, set(declared), used_log
        for package in declared:
            self.allowed.update(PULLS.get(package, ()))

    def find_spec(self, name, path=None, target=None):
        package = MODULE_PACKAGE.get(name.partition('.')[0])
        if package is None:
            return None
        if package in self.allowed:
            if self.used_log:
                with open(self.used_log, 'a') as f:
                    f.write('%s %s\n' % (self.tool, package))
            return None
        why = '%s %s is in the OpenWrt package %s, which the Depends of %s does not declare' % (
            MARK, name, package, self.tool)
        if name not in OPTIONAL.get(importer(), ()):
            # said on stderr too: some importers swallow the error (the codec search turns it into
            # "LookupError: unknown encoding: idna", as on a router without python3-codecs)
            os.write(2, (why + '\n').encode())
        raise ModuleNotFoundError('No module named %r %s' % (name, why), name=name)


def importer():
    """The module whose `import` statement is running (the first frame outside importlib)."""
    frame = sys._getframe(2)
    while frame and frame.f_code.co_filename.startswith('<frozen importlib'):
        frame = frame.f_back
    return frame.f_globals.get('__name__') if frame else None


if os.environ.get('DDKIT_GUARD_TOOL'):
    sys.meta_path.insert(0, Guard(os.environ['DDKIT_GUARD_TOOL'],
                                  [p for p in os.environ.get('DDKIT_GUARD_DEPENDS', '').split(',') if p],
                                  os.environ.get('DDKIT_GUARD_LOG')))
