#!/usr/bin/env python3
"""Build one self-contained file from bin/<tool>.py: the ddkit modules it uses are inlined verbatim
as source text and served by a tiny importer, so `import ddkit.x` stays lazy in the single file.

usage: standalone.py bin/<tool>.py dist/<tool>.py
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, os.pardir, 'lib', 'ddkit')
MARK = '# ddkit-path'

LOADER = '''\
# --- ddkit, the shared library, inlined by tools/standalone.py (source below is verbatim) ---
class _Inlined:
    """Serve the inlined ddkit modules to `import`, loading each only when first imported."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name in _DDKIT:
            from importlib.machinery import ModuleSpec
            return ModuleSpec(name, cls, is_package=name == 'ddkit')

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        exec(compile(_DDKIT[module.__name__], '<ddkit:%s>' % module.__name__, 'exec'), module.__dict__)


sys.meta_path.insert(0, _Inlined)
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


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def inline(name, source):
    if "'''" in source or source.rstrip('\n').endswith('\\'):
        sys.exit('standalone: %s cannot be inlined as a raw string' % name)
    return "    %r: r'''%s'''," % (name, source)


def build(tool_path):
    tool = read(tool_path)
    lines = tool.splitlines(True)
    at = [i for i, line in enumerate(lines) if line.rstrip().endswith(MARK)]
    if len(at) != 1:
        sys.exit('standalone: %s needs exactly one line ending in %r' % (tool_path, MARK))
    modules = ['ddkit'] + ['ddkit.' + m for m in sorted(used_modules(tool))]
    table = ['_DDKIT = {']
    for name in modules:
        file = '__init__' if name == 'ddkit' else name.split('.', 1)[1]
        table.append(inline(name, read(os.path.join(LIB, file + '.py'))))
    table.append('}\n')
    block = '\n'.join(table) + '\n\n' + LOADER + '# --- end of ddkit ---\n'
    return ''.join(lines[:at[0]]) + block + ''.join(lines[at[0] + 1:])


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    text = build(argv[1])
    os.makedirs(os.path.dirname(os.path.abspath(argv[2])), exist_ok=True)
    tmp = argv[2] + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(text)
    os.chmod(tmp, 0o755)
    os.replace(tmp, argv[2])


if __name__ == '__main__':
    main(sys.argv)
