#!/usr/bin/env python3
"""Build one self-contained file from bin/<tool>.py, for a router: the tool's code and the ddkit
modules it uses, served by a tiny importer so that `import ddkit.x` stays lazy in the single file.

- Comments, docstrings and blank lines are dropped (the code is kept line for line); the tool's
  code stays readable in _TOOL, the library (the same as lib/ddkit/) is zlib-compressed in _LIB so
  that the file fits a router's flash (40 KB budget, BENCHMARKS.md); when even so the file would be
  over the budget, the tool's code is compressed with the library (the docstring says so).
  `standalone.py --show FILE` prints what a single file holds.
- A cron run must not compile ~60 KB of Python each time (several ms and 1-2 MiB of peak memory on
  a router): the first run keeps the compiled code in $TMPDIR/ddkit-<uid>/ (RAM on OpenWrt, so no
  flash wear), in a directory only its owner can write, keyed by build and exact interpreter.
- `--installed DIR` writes the Python files of the OpenWrt packages instead (openwrt/Makefile,
  tools/feed.py): the library, each tool's code as a module, and /usr/bin/<tool> stubs that let
  Python cache the compiled code in $TMPDIR/ddkit-<uid>-pyc/ (the same ownership check).

usage: standalone.py [--plain] bin/<tool>.py dist/<tool>.py   (--plain: the library not compressed)
       standalone.py --show dist/<tool>.py
       standalone.py --installed DIR bin/<tool>.py ...   (the OpenWrt packages' files, under DIR)
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, os.pardir, 'lib', 'ddkit')
MARK = '# ddkit-path'
BUDGET = 40000   # bytes of a single file (BENCHMARKS.md): over it, the tool's code is compressed too

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

LOADER = '''\
# --- the loader of the single file, written by tools/standalone.py ---
import marshal  # noqa: E402


''' + PRIVATE + '''

def _ddkit_source(name, lib=[]):
    if name == '__main__' and _TOOL is not None:
        return _TOOL
    if not lib and _PACKED:  # unpacked once, and only when something must be compiled
        import base64
        import zlib
        lib.append(zlib.decompress(base64.b85decode(''.join(_LIB.split()))).decode('utf-8'))
    elif not lib:
        lib.append(_LIB)
    start, end = _MAIN if name == '__main__' else _DDKIT[name]
    return lib[0][start:end]


def _ddkit_compile(name):
    return compile(_ddkit_source(name), '<%s>' % (_NAME if name == '__main__' else 'ddkit:' + name),
                   'exec', dont_inherit=True)


def _ddkit_cached():
    """{module name: marshalled code}: from the cache when it holds this build for this interpreter,
    else compiled now and cached; {} where there is no private cache (then modules compile on import)."""
    tag = getattr(sys.implementation, 'cache_tag', None)
    if os.name != 'posix' or not tag:
        return {}
    folder = os.path.join(os.environ.get('TMPDIR') or '/tmp', 'ddkit-%d' % os.getuid())
    path = os.path.join(folder, '%s.%s' % (_NAME, tag))
    stamp = ('ddkit %s %s\\n' % (_BUILD, sys.version.replace('\\n', ' '))).encode('utf-8')
    if _ddkit_private(folder):
        try:
            with open(path, 'rb') as f:
                if f.readline() == stamp:
                    return marshal.load(f)
        except (OSError, EOFError, ValueError, TypeError):
            pass  # absent or torn: compile again
    if sys.dont_write_bytecode or not _ddkit_private(folder, create=True):
        return {}
    codes = {name: marshal.dumps(_ddkit_compile(name)) for name in ['__main__'] + list(_DDKIT)}
    tmp = '%s.%d' % (path, os.getpid())
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, 'wb') as f:
            f.write(stamp + marshal.dumps(codes))
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return codes


def _ddkit_code(name):
    # pop: the marshalled bytes are not needed once loaded (memory is the budget on a router)
    return marshal.loads(_CODES.pop(name)) if name in _CODES else _ddkit_compile(name)


class _Inlined:
    """Serve the inlined ddkit modules to `import`, loading each only when first imported."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name in _DDKIT:
            # the import system's own ModuleSpec: importlib.machinery would load more modules
            return sys.modules['_frozen_importlib'].ModuleSpec(name, cls, is_package=name == 'ddkit')

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        exec(_ddkit_code(module.__name__), module.__dict__)


_CODES = _ddkit_cached()
sys.meta_path.insert(0, _Inlined)
exec(_ddkit_code('__main__'))  # the tool itself, as this file's own code
'''


def used_modules(source, seen=None):
    """The ddkit submodules a source names, followed through the library itself."""
    seen = set() if seen is None else seen
    names = set(re.findall(r'\bddkit\.(\w+)', source))
    for group in re.findall(r'from ddkit import ([\w, ()]+)', source):
        names.update(n.strip('() ') for n in group.split(','))
    for name in sorted(names):
        path = os.path.join(LIB, name + '.py')
        if name not in seen and os.path.exists(path):
            seen.add(name)
            used_modules(read(path), seen)
    return seen


def strip(source):
    """The source without comments, docstrings and blank lines; every line of code kept as written."""
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
    with open(path, encoding='utf-8') as f:
        return f.read()


def raw(name, source):
    """source as a raw string literal, between triple quotes it does not hold."""
    for quote in ("\'\'\'", '"""'):
        if quote not in source and not source.rstrip('\n').endswith('\\') and not source.endswith(quote[0]):
            return 'r%s%s%s' % (quote, source, quote)
    sys.exit('standalone: %s holds both kinds of triple quotes: it cannot be inlined' % name)


def pack(source):
    """zlib, then base85 in lines of 100 characters (no quote or backslash among them)."""
    import base64
    import zlib
    text = base64.b85encode(zlib.compress(source.encode('utf-8'), 9)).decode('ascii')
    return ''.join(text[i:i + 100] + '\n' for i in range(0, len(text), 100))


def tool_code(tool_path):
    """(name, head, code): the tool's stripped code without its shebang and its `# ddkit-path` line."""
    tool = read(tool_path)
    lines = tool.splitlines(True)
    at = [i for i, line in enumerate(lines) if line.rstrip().endswith(MARK)]
    if len(at) != 1:
        sys.exit('standalone: %s needs exactly one line ending in %r' % (tool_path, MARK))
    name = os.path.splitext(os.path.basename(tool_path))[0]
    head, rest = ''.join(lines[:at[0]]), ''.join(lines[at[0] + 1:])
    code = strip(head).split('\n', 1)[-1] if head.startswith('#!') else strip(head)  # no shebang inside
    return name, head, code + strip(rest)


def build(tool_path, packed=True):
    import hashlib
    name, head, code = tool_code(tool_path)
    modules = ['ddkit'] + ['ddkit.' + m for m in sorted(used_modules(code))]
    sources = {m: strip(read(os.path.join(LIB, ('__init__' if m == 'ddkit' else m[6:]) + '.py')))
               for m in modules}
    digest = hashlib.sha256(repr((code, sorted(sources.items()))).encode('utf-8')).hexdigest()[:16]
    version = re.search(r"VERSION = '([^']+)'", sources['ddkit']).group(1)
    doc = re.match(r'(#![^\n]*\n)?\s*("""[\s\S]*?""")', head)
    text = assemble(name, version, digest, doc and doc.group(2), code, modules, sources, packed, False)
    if packed and len(text.encode('utf-8')) > BUDGET:
        text = assemble(name, version, digest, doc and doc.group(2), code, modules, sources, packed, True)
    return text


def assemble(name, version, digest, docstring, code, modules, sources, packed, tool_packed):
    """The single file's text; with tool_packed the tool's code is compressed with the library."""
    about = ('\n\nSingle file: bin/%s.py and ddkit %s (build %s), by tools/standalone.py.\n%s;\n'
             '`standalone.py --show` prints all.\n'
             % (name, version, digest, 'The tool and the library (lib/ddkit/) are in _LIB, compressed '
                '(plain, the file would\nbe over 40 KB)' if tool_packed else 'The tool is _TOOL; the '
                'library (lib/ddkit/) is _LIB' + (', compressed' if packed else '')))
    docstring = docstring[:-3].rstrip() + about + '"""' if docstring else '"""%s"""' % about.strip()
    parts = ([('__main__', code)] if tool_packed else []) + [(m, sources[m]) for m in modules]
    table, at, where = ['_DDKIT = {  # module: where its code is in _LIB'], 0, {}
    for m, source in parts:
        where[m] = (at, at + len(source))
        at += len(source)
        if m != '__main__':
            table.append('    %r: %r,' % (m, where[m]))
    lib = ''.join(source for _, source in parts)
    table += ['}', "_LIB = \'\'\'\n%s\'\'\'" % pack(lib) if packed else '_LIB = ' + raw('ddkit', lib)]
    return '\n'.join(['#!/usr/bin/env python3', docstring, '', 'import os', 'import sys', '',
                      '_NAME = %r' % name, '_BUILD = %r' % digest, '_PACKED = %r' % packed,
                      '_MAIN = %r' % (where.get('__main__'),),
                      '_TOOL = ' + ('None' if tool_packed else raw(name, code))]
                     + table) + '\n\n\n' + LOADER.split('\n', 1)[0] + '\n' + strip(LOADER)


# --- the installed layout of the OpenWrt packages (tools/feed.py, openwrt/Makefile) -------------
LIB_DIR = 'usr/lib/ddkit'   # the library as the package ddkit, the tools' code as modules beside it

# /usr/bin/<tool> of a tool package: the code lives in LIB_DIR as modules, so that Python keeps
# their compiled code, in a cache in RAM (never beside the code: /usr is flash on a router), in a
# directory of this user only; without one nothing is cached (rather than trust it).
STUB = '''\
#!/usr/bin/env python3
"""@NAME@: its code is /@LIB@/@NAME@.py, the library (package ddkit) /@LIB@/ddkit/.
Compiled code is cached in $TMPDIR/ddkit-<uid>-pyc/ (RAM on OpenWrt), when only its owner can use it."""

import os
import sys


''' + PRIVATE + '''

_cache = os.path.join(os.environ.get('TMPDIR') or '/tmp', 'ddkit-%d-pyc' % os.getuid())
if hasattr(sys, 'pycache_prefix') and _ddkit_private(_cache, create=not sys.dont_write_bytecode):
    sys.pycache_prefix = os.path.join(_cache, '@BUILD@')  # per build: an upgrade never meets old code
else:
    sys.dont_write_bytecode = True  # never beside the code (flash), nor in a cache others could write
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), @SUBDIR@))
from @NAME@ import main  # noqa: E402

sys.exit(main())
'''


def installed(tool_paths):
    """[(path under /, mode, bytes)] of the installed layout: LIB_DIR/ddkit/*.py (the modules the
    tools use) and LIB_DIR/<tool>.py (each tool's code), stripped; usr/bin/<tool> (its stub)."""
    import hashlib
    tools = [tool_code(path) for path in tool_paths]
    used = set()
    for _, _, code in tools:
        used |= used_modules(code)
    library = [('ddkit/%s.py' % m, strip(read(os.path.join(LIB, m + '.py')))) for m in ['__init__'] + sorted(used)]
    build = hashlib.sha256(repr(library).encode('utf-8')).hexdigest()[:16]
    files = [(LIB_DIR + '/' + path, 0o644, text.encode('utf-8')) for path, text in library]
    for name, _, code in tools:
        digest = hashlib.sha256((build + code).encode('utf-8')).hexdigest()[:16]
        subdir = ', '.join(repr(part) for part in LIB_DIR.split('/')[1:])
        stub = STUB.replace('@NAME@', name).replace('@LIB@', LIB_DIR).replace('@BUILD@', digest)
        files += [(LIB_DIR + '/%s.py' % name, 0o644, code.encode('utf-8')),
                  ('usr/bin/' + name, 0o755, stub.replace('@SUBDIR@', subdir).encode('utf-8'))]
    return files


def show(path):
    """Print the code a single file holds: the tool, then each ddkit module."""
    import base64
    import zlib
    scope = {}
    text = read(path)
    top = text[:text.index('# --- the loader of the single file')]
    exec(compile(top, path, 'exec'), scope)  # only assignments of literals
    lib = scope['_LIB']
    if scope['_PACKED']:
        lib = zlib.decompress(base64.b85decode(''.join(lib.split()))).decode('utf-8')
    tool = scope['_TOOL'] if scope['_TOOL'] is not None else lib[scope['_MAIN'][0]:scope['_MAIN'][1]]
    print('# ===== %s (the tool) =====\n%s' % (scope['_NAME'], tool))
    for name, (start, end) in scope['_DDKIT'].items():
        print('# ===== %s =====\n%s' % (name, lib[start:end]))


def main(argv):
    if len(argv) == 3 and argv[1] == '--show':
        return show(argv[2])
    if len(argv) > 3 and argv[1] == '--installed':
        for path, mode, data in installed(argv[3:]):
            write(os.path.join(argv[2], path), data, mode)
        return None
    plain = '--plain' in argv
    argv = [a for a in argv if a != '--plain']
    if len(argv) != 3:
        sys.exit(__doc__.strip().split('usage: ')[-1])
    write(argv[2], build(argv[1], packed=not plain).encode('utf-8'), 0o755)


def write(path, data, mode):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


if __name__ == '__main__':
    main(sys.argv)
