#!/usr/bin/env python3
"""Build one self-contained file from bin/<tool>.py, for a router: the tool's code and the ddkit
modules it uses, served by a tiny importer so that `import ddkit.x` stays lazy in the single file.

- Comments, docstrings and blank lines are dropped (the code is kept line for line); the tool's
  code is never compressed, so a user can read what they copy to a router; the library (the same
  as lib/ddkit/, `--show` prints it) is zlib-compressed so that the file fits a router's flash
  (160 KB budget, BENCHMARKS.md: over it the build warns). Both are comment lines at the end of the
  file, which Python does not compile: each run compiles a few lines (BOOT).
  `standalone.py --show FILE` prints what a single file holds.
- The ddkit command reaches every provider of the registry, so its single file holds them all (a
  larger budget, ALL_PROVIDERS_BUDGET); `--providers NAME[,NAME...]` (the registry's names, a preset's
  bringing its protocol's module) packs only those, as a router needs (the 160 KB budget): the others
  are missing as a provider whose package is not installed is.
- A cron run must not compile ~60 KB of Python each time (several ms and 1-2 MiB of peak memory on
  a router): the first run unpacks the tool and the library as modules into
  $TMPDIR/ddkit-<uid>/<tool>-<build>/ (RAM on OpenWrt, so no flash wear), a folder only its owner
  can use, where Python keeps their compiled code; later runs import them from there.
- `--installed DIR` writes the Python files of the OpenWrt packages instead (openwrt/Makefile,
  tools/feed.py): the library, each tool's code as a module, and /usr/bin/<tool> stubs that let
  Python cache the compiled code in $TMPDIR/ddkit-<uid>-pyc/ (the same ownership check).

usage: standalone.py [--plain] [--providers NAME[,NAME...]] bin/<tool>.py dist/<tool>.py
                     (--plain: the library not compressed; --providers: the ddkit command's providers)
       standalone.py --show dist/<tool>.py
       standalone.py --installed DIR bin/<tool>.py ...   (the OpenWrt packages' files, under DIR)
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, os.pardir, 'lib', 'ddkit')
MARK = '# ddkit-path'
WIDTH = 96       # characters of a line of compressed data: a line an editor or a terminal shows whole
BUDGET = 160000  # bytes of a single file (BENCHMARKS.md): over it the build warns; nothing more is packed
# bytes of the ddkit command's single file holding every provider of the registry (BUDGET: of one)
ALL_PROVIDERS_BUDGET = 256000
# The first line of a single file and of an installed stub: isolated (-I: no PYTHON* variables, no user
# site) and site-less (-S: no site-packages scan, no .pth files) Python: nothing in the environment puts
# a module before the standard library, and a quarter less start-up. The kernel passes one argument
# after the interpreter: -IS as one word.
SHEBANG = '#!/usr/bin/python3 -IS'

# The one check of a code cache directory, for the single file's cache and the installed stubs'
# sys.pycache_prefix: a directory (not a link) of this user that nobody else can read or write.
PRIVATE = '''\
def _ddkit_private(folder, create=False):
    """True when folder is a directory that only this user can read and write (the code cache)."""
    if create:
        try:
            os.mkdir(folder, 0o700)
        except OSError:
            pass
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return st.st_mode & 0o170777 == 0o040700 and st.st_uid == os.getuid()
'''

# What the single file's start and the stubs both run, posix bound to the name os (each run compiles
# it): TMPDIR as os would give it (the environment decoded as os decodes it), and the cyclic
# collector's first threshold raised (a run makes few cycles).
TMPDIR_OF = "(os.environ.get(b'TMPDIR') or b'/tmp').decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())"
FEW_CYCLES = "gc.set_threshold(10000)  # few cycles: the collector's passes cost a run 2% of its CPU\n"

# The loader, compiled from the comment lines at the end only when a run finds no unpacked copy:
# it unpacks the tool and the library as modules into a private folder, where Python keeps their
# compiled code; where it cannot (no such folder), it serves them to `import` from this file itself.
LOADER = '''\
import os  # the os module (the start bound posix's C half to the name): a first run, or one from this file

''' + PRIVATE + '''

_DATA = {}


def _ddkit_data():
    \"\"\"The tool's code, the library and where each module is in it, from the comment lines at the
    end of this file: read once, and only when there is no unpacked copy to run.\"\"\"
    if not _DATA:
        with open(__file__, encoding='utf-8') as f:
            lines = f.read().split('\\n')
        for key, mark in (('tool', '#|'), ('lib', '#:')):
            _DATA[key] = ''.join(line[3:] + '\\n' for line in lines if line.startswith(mark))
        table = ' '.join(line[3:] for line in lines if line.startswith('#%')).split()
        _DATA['where'] = {table[i]: (int(table[i + 1]), int(table[i + 2])) for i in range(0, len(table), 3)}
        packed = ''.join(line[3:] for line in lines if line.startswith('#='))
        try:
            if packed:   # the packed modules first, then the plain ones (#:), as the table counts them
                import base64
                import zlib
                _DATA['lib'] = zlib.decompress(base64.b85decode(packed)).decode('utf-8') + _DATA['lib']
            if not _DATA['lib'] or 'ddkit' not in _DATA['where']:
                raise ValueError('no library')
        except Exception:  # b85, zlib or UTF-8 errors: a copy cut short or altered
            sys.exit('%s: this single file is incomplete or damaged: copy it again' % __file__)
    return _DATA


def _ddkit_source(name):
    data = _ddkit_data()
    if name == '__main__':
        return data['tool']
    start, end = data['where'][name]
    return data['lib'][start:end]


def _ddkit_modules():
    return list(_ddkit_data()['where'])


def _ddkit_unpack():
    \"\"\"The tool and the library as modules in this build's folder of this user's private folder
    (other builds of the tool there removed); None where no such folder can be kept.\"\"\"
    if not _DIR or sys.dont_write_bytecode or not _ddkit_private(_HOME, create=True):
        return None
    import shutil
    for old in os.listdir(_HOME):
        path = os.path.join(_HOME, old)
        if old.startswith((_NAME + '-', _NAME + '.')) and path != _DIR:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
    files = [(os.path.join(*(name.split('.') if name != 'ddkit' else ['ddkit', '__init__'])) + '.py', name)
             for name in _ddkit_modules()]
    files.append((_MODULE + '.py', '__main__'))  # last: the mark of a complete folder (BOOT)
    try:
        folders = sorted({os.path.dirname(os.path.join(_DIR, path)) for path, _ in files})
        for folder in folders:   # _DIR, its ddkit/, and ddkit/providers/ (a namespace package)
            if not os.path.isdir(folder):
                os.mkdir(folder, 0o700)
        for path, name in files:
            tmp = os.path.join(_DIR, '%s.%d.tmp' % (path, os.getpid()))
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'w',
                           encoding='utf-8') as f:
                f.write(_ddkit_source(name))
            os.replace(tmp, os.path.join(_DIR, path))
    except OSError:
        return None
    return _DIR if _ddkit_private(_DIR) else None


class _Inlined:
    \"\"\"Serve the ddkit modules to `import` from this file, compiling each when first imported.\"\"\"

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        modules = _ddkit_modules()
        if name in modules or any(m.startswith(name + '.') for m in modules):   # a module, or its package
            # the import system's own ModuleSpec (importlib.machinery would load more modules): the
            # loader's one private interface, as it runs before the library's ddkit.native can
            spec = getattr(sys.modules.get('_frozen_importlib'), 'ModuleSpec', None)
            if spec is None or os.environ.get('DDKIT_PUBLIC_ONLY') == '1':
                import importlib.machinery
                spec = importlib.machinery.ModuleSpec
            return spec(name, cls, is_package=name not in modules or name == 'ddkit')

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        if module.__name__ in _ddkit_modules():   # ddkit.providers has no code of its own
            exec(compile(_ddkit_source(module.__name__), '<ddkit:%s>' % module.__name__, 'exec',
                         dont_inherit=True), module.__dict__)


def _ddkit_run():
    \"\"\"Without an unpacked copy: the tool as this file's own code, its modules from _Inlined.\"\"\"
    sys.meta_path.insert(0, _Inlined)
    exec(compile(_ddkit_source('__main__'), '<%s>' % _NAME, 'exec', dont_inherit=True), globals())
'''

# What the loader does when a run finds no unpacked copy (the single file's data holds it after LOADER):
# unpack one, else run the tool from this file.
FIRST_RUN = '''\
_DIR = _ddkit_unpack()
if not _DIR:
    _ddkit_run()  # nowhere to unpack: the modules from this file, compiled on every run
    sys.exit()
'''

# What every run compiles and runs. The tool and the library are unpacked as modules into this
# user's private folder ($TMPDIR/ddkit-<uid>/<tool>-<build>/, RAM on OpenWrt) by the first run, so
# that Python keeps their compiled code there, as for the installed packages; later runs import
# them from there. The code Python compiles on each run is this and a few constants: the tool, the
# loader and the library are comments at the end, read only when there is no unpacked copy. Its
# check of the private folder is _ddkit_private()'s, inline; the one of the directories above it is
# ddkit.state.foreign_dir, copied (the library is not importable before this runs).
BOOT = '''\
# --- the start of the single file, written by tools/standalone.py ---
import gc
import sys
''' + FEW_CYCLES + '''try:  # os's C half, all this start needs: importing os costs a quiet run a tenth of its CPU (ddkit.native)
    import posix as os
    _TMP = ''' + TMPDIR_OF + '''
    _HOME = _TMP.rstrip('/') + '/ddkit-%d' % os.getuid()
except ImportError:  # not POSIX (Windows): no private copy, the tool runs from this file
    import os
    _HOME = None
@UNTRUSTED@
if _HOME and _ddkit_untrusted(_TMP):
    _HOME = None  # a TMPDIR another user could change could swap the copy: run from this file
_DIR = _HOME and _HOME + '/%s-%s' % (_NAME, _BUILD)
try:
    _st = os.lstat(_HOME)
    if _st.st_mode & 0o170777 != 0o040700 or _st.st_uid != os.getuid():
        raise OSError('not a private folder')
    os.stat(_DIR + '/' + _MODULE + '.py')  # unpacked in full by an earlier run
except (OSError, TypeError):  # none: the loader (the #> lines below) unpacks one, or runs from this file
    with open(__file__, encoding='utf-8') as _f:
        _code = _f.read()
    if not _code.endswith('\\n# --- the end of the single file ---\\n'):
        sys.exit('%s: this single file is incomplete (its end is missing): copy it again' % __file__)
    _boot = _code.split('\\n#> ', 1)[1].split('\\n# ', 1)[0]   # the #> lines, to the next part's title
    exec(compile(_boot.replace('\\n#> ', '\\n'), '<ddkit:loader>', 'exec', dont_inherit=True))
sys.path.insert(0, _DIR)
__import__('ddkit').exit_quickly(__import__(_MODULE).main())  # sys.exit(), without the tear-down
'''
DATA = '# --- the data of the single file: comments, which Python does not compile ---'
END = '# --- the end of the single file ---'   # BOOT checks it: a copy cut short says so


def used_modules(source, seen=None, providers=True):
    """The ddkit submodules a source names, followed through the library itself; the registry
    imports its providers by name, so a source that uses it uses every provider. providers=False:
    the providers are neither counted nor followed (what the code needs beside them: the packages
    ship each provider apart, tools/feed.py); a list of provider modules: those are what the
    registry reaches (--providers), and a module the code names itself is still followed."""
    seen = set() if seen is None else seen
    names = names_in(source)
    every = {PROVIDERS + name for name in registered()}
    if providers is True:
        names |= every if 'registry' in names else set()
    elif providers:
        names |= {PROVIDERS + name for name in providers} if 'registry' in names else set()
    else:
        names -= every
    for name in sorted(names):
        path = module_file(name)
        if name not in seen and os.path.exists(path):
            seen.add(name)
            used_modules(strip(read(path)), seen, providers)  # not what a comment names
    return seen


# the providers' package: a namespace package (no __init__.py), each provider's package installs its
# module there; a module's name below is relative to ddkit ('state', 'providers.<provider>')
PROVIDERS = 'providers.'


def module_file(name):
    """The source file of a library module, by its name relative to ddkit ('' or 'ddkit': __init__)."""
    parts = name.split('.') if name not in ('', 'ddkit') else ['__init__']
    return os.path.join(LIB, *parts) + '.py'


def provider_of(module):
    """The provider a module is ('ddkit.providers.<provider>' or 'providers.<provider>'), else None."""
    name = module[len('ddkit.'):] if module.startswith('ddkit.') else module
    return name[len(PROVIDERS):] if name.startswith(PROVIDERS) else None


def registered():
    """The provider modules of ddkit.registry (the names of its PROVIDERS that are a module, each a
    package ddkit-<name>; not its presets, which run their protocol's module), read without importing
    the library."""
    return tuple(name for name, protocol in entries() if protocol is None)


def entries():
    """[(name, None for a module or the protocol of a preset)] of ddkit.registry's PROVIDERS, in its
    order: a string is a module's name, a Preset(name, protocol, ...) call a preset; then the presets
    PROVIDERS makes of a table of names (tuple(Preset(name, protocol, ...) for name in TABLE))."""
    import ast
    source = read(os.path.join(LIB, 'registry.py'))
    if source not in _REGISTERED:   # a feed asks for every module it follows
        tree = ast.parse(source)
        assigned = {node.targets[0].id: node.value for node in tree.body
                    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)}
        value, made = assigned['PROVIDERS'], []
        if isinstance(value, ast.BinOp):   # the literal entries + those made from a table
            generator = value.right.args[0]
            names = ast.literal_eval(assigned[generator.generators[0].iter.id])
            protocol = generator.elt.args[1]   # a string, or the name of one
            protocol = ast.literal_eval(assigned[protocol.id] if isinstance(protocol, ast.Name) else protocol)
            made = [(name, protocol) for name in names]
            value = value.left
        _REGISTERED[source] = tuple((ast.literal_eval(item), None) if isinstance(item, ast.Constant) else
                                    (ast.literal_eval(item.args[0]), ast.literal_eval(item.args[1]))
                                    for item in value.elts) + tuple(made)
    return _REGISTERED[source]


_REGISTERED = {}


def provider_modules(names):
    """The provider modules that registry names run (a preset's: its protocol's), in registry order;
    an unknown name or none exits with status 2, before anything is written."""
    module = {name: protocol or name for name, protocol in entries()}
    unknown = [name for name in names if name not in module]
    if unknown or not names:
        print('standalone: --providers: %s: give names of ddkit.registry\'s PROVIDERS, as `ddkit --providers` '
              'lists them, separated by commas' % ('unknown provider%s %s' % (
                  's' if len(unknown) > 1 else '', ', '.join(map(repr, unknown))) if unknown else 'no provider named'),
              file=sys.stderr)
        sys.exit(2)
    order = registered()
    return sorted({module[name] for name in names}, key=order.index)


def import_order(sources):
    """The modules, each after those it imports (ties by name): code alike then sits within zlib's
    32 KiB window, which makes the packed library about 1.5% smaller than in name order."""
    order = []

    def visit(module):
        if module not in order:
            for other in sorted(names_in(sources[module])):
                if 'ddkit.' + other in sources and 'ddkit.' + other != module:
                    visit('ddkit.' + other)
            order.append(module)
    for module in sorted(sources):
        visit(module)
    return order


def names_in(source):
    """The ddkit submodule names a source mentions (some may be other names of ddkit)."""
    if source not in _NAMES:   # a feed follows each module's imports once for every module using it
        _NAMES[source] = frozenset(_names_in(source))
    return set(_NAMES[source])


_NAMES = {}


def _names_in(source):
    names = set(re.findall(r'\bddkit\.(\w+)', source))
    names.update(PROVIDERS + n for n in re.findall(r'\bddkit\.providers\.(\w+)', source))
    for group in re.findall(r'from ddkit import ([\w, ()]+)', source):
        names.update(n.strip('() ') for n in group.split(','))
    for group in re.findall(r'from ddkit\.providers import ([\w, ()]+)', source):
        names.update(PROVIDERS + n.strip('() ') for n in group.split(','))
    return names


def strip(source):
    """The source without comments, docstrings and blank lines; every line of code kept as written."""
    if source not in _STRIPPED:   # a feed strips each module once for every tool that imports it
        _STRIPPED[source] = _strip(source)
    return _STRIPPED[source]


_STRIPPED = {}


def _strip(source):
    import ast
    import io
    import tokenize
    lines = source.splitlines(True)
    drop, replace, cut, inside = set(), {}, {}, set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, 'body', None)
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) or not body:
            continue
        doc = body[0]
        if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
                and isinstance(doc.value.value, str)):
            continue
        if lines[doc.lineno - 1][:doc.col_offset].strip() or lines[doc.end_lineno - 1][doc.end_col_offset:].strip():
            continue  # shares its line with other code: keep it
        drop.update(range(doc.lineno, doc.end_lineno + 1))
        if len(body) == 1:
            replace[doc.lineno] = ' ' * doc.col_offset + 'pass\n'
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            cut[tok.start[0]] = tok.start[1]
        elif tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
            inside.update(range(tok.start[0] + 1, tok.end[0] + 1))  # text of a multi-line string
    out = []
    for number, line in enumerate(lines, 1):
        if number in replace:
            out.append(replace[number])
        elif number in drop:
            continue
        elif number in inside:
            out.append(line)
        elif number == 1 and line.startswith('#!'):
            out.append(line)
        else:
            line = line[:cut[number]].rstrip() + '\n' if number in cut else line
            if line.strip():
                out.append(line)
    text = ''.join(out)
    compile(text, '<stripped>', 'exec')  # the same code must still compile
    return text


def read(path):
    """A source file's text, read again only when it changed: a feed follows each module's imports
    for every module that uses it."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _READ:
        with open(path, encoding='utf-8') as f:
            _READ[key] = f.read()
    return _READ[key]


_READ = {}


def pack(source):
    """zlib, then base85 in lines of WIDTH characters (no quote or backslash among them)."""
    import base64
    import zlib
    text = base64.b85encode(zlib.compress(source.encode('utf-8'), 9)).decode('ascii')
    return ''.join(text[i:i + WIDTH] + '\n' for i in range(0, len(text), WIDTH))


def tool_code(tool_path):
    """(name, head, code): the tool's stripped code without its shebang and its `# ddkit-path` line."""
    tool = read(tool_path)
    lines = tool.splitlines(True)
    at = [i for i, line in enumerate(lines) if line.rstrip().endswith(MARK)]
    if len(at) != 1:
        sys.exit('standalone: %s needs exactly one line ending in %r' % (tool_path, MARK))
    name = os.path.splitext(os.path.basename(tool_path))[0]
    head, rest = ''.join(lines[:at[0]]), ''.join(lines[at[0] + 1:])
    if not re.search(r'\bos\.', rest):   # os was for the ddkit-path line alone: a run must not load it
        head = head.replace('\nimport os\n', '\n', 1)   # (ddkit.native: a tenth of a quiet run's CPU)
    code = strip(head).split('\n', 1)[-1] if head.startswith('#!') else strip(head)  # no shebang inside
    return name, head, code + strip(rest)


def build(tool_path, packed=True, providers=None):
    """The single file's text; providers: the provider modules the registry reaches in it
    (provider_modules), None: every one."""
    import hashlib
    name, head, code = tool_code(tool_path)
    every = 'registry' in used_modules(code, providers=False)   # the tool runs any provider
    if providers is not None and not every:
        print('standalone: --providers chooses the providers of a tool that runs any of them (bin/ddkit.py); '
              '%s runs its own' % tool_path, file=sys.stderr)
        sys.exit(2)
    used = used_modules(code, providers=True if providers is None else providers)
    sources = {m: strip(read(module_file(m[6:]))) for m in ['ddkit'] + ['ddkit.' + m for m in sorted(used)]}
    modules = import_order(sources)
    digest = hashlib.sha256(repr((code, sorted(sources.items()))).encode('utf-8')).hexdigest()[:16]
    version = re.search(r"VERSION = '([^']+)'", sources['ddkit']).group(1)
    doc = re.match(r'(#![^\n]*\n)?\s*("""[\s\S]*?""")', head)
    text = assemble(name, version, digest, doc and doc.group(2), code, modules, sources, packed, providers)
    size = len(text.encode('utf-8'))
    budget, whose = (ALL_PROVIDERS_BUDGET, ' holding every provider') if every and providers is None else (BUDGET, '')
    if size > budget:
        print('standalone: warning: %s is %d bytes, over the %d-byte budget of a single file%s'
              % (name, size, budget, whose), file=sys.stderr)
    return text


def assemble(name, version, digest, docstring, code, modules, sources, packed, providers=None):
    """The single file's text: the tool's code as plain comment lines, the library packed or not."""
    about = ('\n\nSingle file: bin/%s.py and ddkit %s (build %s), by tools/standalone.py.\n'
             'The tool\'s code (#|), and the library (lib/ddkit/)%s, in comments at the end;\n'
             '`standalone.py --show` prints all.\n'
             % (name, version, digest, ', compressed' if packed else ''))
    if providers is not None:   # what a user copying it must know: the others do not run from it
        about += ('Its provider modules: %s (a preset runs its protocol\'s); the registry\'s others are\n'
                  'not in it: `make standalone PROVIDERS=<name>,...` builds one with them.\n' % ', '.join(providers))
    docstring = docstring[:-3].rstrip() + about + '"""' if docstring else '"""%s"""' % about.strip()
    # the provider a tool is fixed to (updater_a's) is what it does: plain text a user reads, never
    # packed; the providers the ddkit command reaches through the registry are packed with the library
    fixed = {'ddkit.' + n for n in names_in(code) if provider_of(n)}
    plain = [m for m in modules if packed and m in fixed]
    modules = [m for m in modules if m not in plain] + plain
    table, at = [], 0
    for m in modules:
        table.append('%s %d %d' % (m, at, at + len(sources[m])))
        at += len(sources[m])
    lib = ''.join(sources[m] for m in modules if m not in plain)
    # read by a first run only, which unpacks the library as well; plain: BOOT's line that reads it
    # is code compiled on every run, and decompressing it there was more (0.1 MiB of peak memory)
    data = [DATA, '# the loader (#>):'] + comments('#>', strip(LOADER + '\n\n' + FIRST_RUN))
    data += ['# the tool, bin/%s.py without comments and docstrings (#|):' % name] + comments('#|', code)
    data += ['# where each module is in the library: name, start, end (#%):'] + ['#% ' + t for t in table]
    data += ['# the library, lib/ddkit/ without comments and docstrings%s:'
             % (', zlib and base85 (#=)' if packed else ' (#:)')]
    data += ['#= ' + line for line in pack(lib).splitlines()] if packed else comments('#:', lib)
    if plain:
        data += ['# the provider%s, without comments and docstrings (#:): %s' % (
            's' if len(plain) > 1 else '', ', '.join('lib/ddkit/%s.py' % m[6:].replace('.', '/') for m in plain))]
        data += comments('#:', ''.join(sources[m] for m in plain))
    # what Python compiles on every run: as few tokens as can be (each costs a router memory)
    return '\n'.join([SHEBANG, docstring, '', '_NAME = %r' % name, '_MODULE = %r' % module_name(name),
                      '_BUILD = %r' % digest,
                      '', '', BOOT.replace('@UNTRUSTED@', untrusted_source())] + data + [END]) + '\n'


def module_name(tool):
    """The tool's code as a module: its name, but for the ddkit command, whose name is the library's
    (a module ddkit.py beside the package ddkit/ would never be imported)."""
    return 'ddkit_command' if tool == 'ddkit' else tool


def untrusted_source():
    """ddkit.state.foreign_dir as _ddkit_untrusted, stripped: the one trust check of a directory, for
    the code that runs before the library can be imported (BOOT, STUB); without the texts of
    ddkit.state.untrusted, which that code does not show and would compile on every run."""
    import ast
    source = read(os.path.join(LIB, 'state.py'))
    node = next(n for n in ast.parse(source).body
                if isinstance(n, ast.FunctionDef) and n.name == 'foreign_dir')
    code = strip(ast.get_source_segment(source, node))
    return code.replace('foreign_dir(', '_ddkit_untrusted(').rstrip('\n')   # its calls of itself too


def comments(mark, source):
    """source as comment lines: mark, a space, the line (the loader reads them back on a cache miss)."""
    return [mark + ' ' + line for line in source.split('\n')[:-1 if source.endswith('\n') else None]]


# --- the installed layout of the OpenWrt packages (tools/feed.py, openwrt/Makefile) -------------
LIB_DIR = 'usr/lib/ddkit'   # the library as the package ddkit, the tools' code as modules beside it

# /usr/bin/<tool> of a tool package: the code lives in LIB_DIR as modules, so that Python keeps
# their compiled code, in a cache in RAM (never beside the code: /usr is flash on a router), in a
# directory of this user only, in a TMPDIR no other user can change; without one nothing is cached
# (rather than trust it). The LuCI page's rpcd plugin runs the ddkit command's stub but its main (not
# as __main__): the same cache, its one check, and the same compiled library.
STUB = SHEBANG + '''
"""@NAME@: its code is /@LIB@/@MODULE@.py, the library (package ddkit) /@LIB@/ddkit/.
Compiled code is cached in $TMPDIR/ddkit-<uid>-pyc/ (RAM on OpenWrt), when only its owner can use it."""

import gc
import sys

import posix as os  # os's C half: the os module would cost a quiet run a tenth of its CPU

''' + FEW_CYCLES + '''

''' + PRIVATE + '''

@UNTRUSTED@


_tmp = ''' + TMPDIR_OF + '''
_cache = _tmp.rstrip('/') + '/ddkit-%d-pyc' % os.getuid()
if hasattr(sys, 'pycache_prefix') and not _ddkit_untrusted(_tmp) \\
        and _ddkit_private(_cache, create=not sys.dont_write_bytecode):
    sys.pycache_prefix = _cache + '/@BUILD@'  # per build: an upgrade never meets old code
else:
    sys.dont_write_bytecode = True  # never beside the code (flash), nor where others could write
_path = []  # this stub's directory, as os.path.abspath and dirname give it
for _name in (('' if __file__.startswith('/') else os.getcwd() + '/') + __file__).split('/')[:-1]:
    if _name == '..':
        _path[-1:] = []
    elif _name not in ('', '.'):
        _path.append(_name)
_code = '/'.join([''] + _path[:-1] + [@SUBDIR@])  # beside the directory above it
try:
    os.stat(_code + '/ddkit/__init__.py')
except OSError:
    sys.exit('@NAME@: the library is not installed: install the package ddkit')
sys.path.insert(0, _code)
if __name__ == '__main__':
    from @MODULE@ import main
    sys.exit(main())
'''


def installed(tool_paths):
    """[(path under /, mode, bytes)] of the installed layout: LIB_DIR/ddkit/*.py (the modules the
    tools use) and LIB_DIR/<tool>.py (each tool's code, module_name), stripped; usr/bin/<tool> (its stub)."""
    import hashlib
    tools = [tool_code(path) for path in tool_paths]
    used = set()
    for _, _, code in tools:
        used |= used_modules(code)
    library = [('ddkit/%s.py' % m.replace('.', '/'), strip(read(module_file(m)))) for m in ['__init__'] + sorted(used)]
    build = hashlib.sha256(repr(library).encode('utf-8')).hexdigest()[:16]
    files = [(LIB_DIR + '/' + path, 0o644, text.encode('utf-8')) for path, text in library]
    for name, _, code in tools:
        digest = hashlib.sha256((build + code).encode('utf-8')).hexdigest()[:16]
        subdir = ', '.join(repr(part) for part in LIB_DIR.split('/')[1:])
        stub = STUB.replace('@NAME@', name).replace('@MODULE@', module_name(name)).replace('@LIB@', LIB_DIR) \
            .replace('@BUILD@', digest) \
            .replace('@UNTRUSTED@', untrusted_source())
        files += [(LIB_DIR + '/%s.py' % module_name(name), 0o644, code.encode('utf-8')),
                  ('usr/bin/' + name, 0o755, stub.replace('@SUBDIR@', subdir).encode('utf-8'))]
    return files


def show(path):
    """Print the code a single file holds: the tool, then each ddkit module (read by the loader's
    own _ddkit_data, so --show reads the file as a run does)."""
    scope = {'__file__': path, 'os': os, 'sys': sys}
    exec(compile(LOADER, '<ddkit:loader>', 'exec'), scope)
    data = scope['_ddkit_data']()
    name = next(line.split("'")[1] for line in read(path).split('\n') if line.startswith('_NAME = '))
    print('# ===== %s (the tool) =====\n%s' % (name, scope['_ddkit_source']('__main__')))
    for module in data['where']:
        print('# ===== %s =====\n%s' % (module, scope['_ddkit_source'](module)))


def main(argv):
    if len(argv) == 3 and argv[1] == '--show':
        return show(argv[2])
    if len(argv) > 3 and argv[1] == '--installed':
        for path, mode, data in installed(argv[3:]):
            write(os.path.join(argv[2], path), data, mode)
        return None
    plain = '--plain' in argv
    argv = [a for a in argv if a != '--plain']
    names = None
    for i, arg in enumerate(argv):
        if arg == '--providers' or arg.startswith('--providers='):
            value = arg.partition('=')[2] if '=' in arg else (argv[i + 1] if i + 1 < len(argv) else '')
            del argv[i:i + (1 if '=' in arg else 2)]
            names = [n.strip() for n in value.split(',') if n.strip()]
            break
    if len(argv) != 3:
        sys.exit(__doc__.strip().split('usage: ')[-1])
    providers = None if names is None else provider_modules(names)
    write(argv[2], build(argv[1], packed=not plain, providers=providers).encode('utf-8'), 0o755)


def write(path, data, mode):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


if __name__ == '__main__':
    main(sys.argv)
