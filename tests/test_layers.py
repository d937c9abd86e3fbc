"""The library in layers: every import of a lib/ddkit module (inside functions too) points to a lower
layer, so there is no import cycle; the table is the one in docs/design.md ("The library in layers")."""

import ast
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, 'lib', 'ddkit')
sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import registry  # noqa: E402


def layers():
    """{module: layer} from the table in docs/design.md."""
    with open(os.path.join(ROOT, 'docs', 'design.md'), encoding='utf-8') as f:
        text = f.read().split('### The library in layers', 1)[1].split('\n## ', 1)[0]
    found = {}
    for number, cells in re.findall(r'^\| (\d+) \| (.+) \|$', text, re.M):
        names = re.findall(r'`([a-z_]+)`', cells)
        for name in names:
            found['ddkit' if name == 'ddkit' else 'ddkit.' + name] = int(number)
        if 'every provider of the registry' in cells:   # not named one by one: the registry lists them
            found.update((registry.PACKAGE + name, int(number)) for name in registry.modules())
    return found


def imports(path):
    """[(line, module)] of the ddkit modules a file imports, wherever the import stands."""
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split('.')[0] == 'ddkit']
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split('.')[0] == 'ddkit':
            if node.module == 'ddkit.providers':   # a namespace package: the modules named are imported
                found += [(node.lineno, 'ddkit.providers.' + a.name) for a in node.names]
                continue
            if node.module != 'ddkit':
                found.append((node.lineno, node.module))
                continue
            for alias in node.names:   # from ddkit import x: the module x, or a name of ddkit itself
                module = 'ddkit.' + alias.name
                found.append((node.lineno, module if os.path.exists(module_file(module)) else 'ddkit'))
    return found


def module_file(module):
    return os.path.join(LIB, '__init__.py') if module == 'ddkit' else os.path.join(LIB, *module[6:].split('.')) + '.py'


def library():
    """Every module of lib/ddkit/, the providers of lib/ddkit/providers/ among them."""
    return sorted(['ddkit' if n == '__init__.py' else 'ddkit.' + n[:-3] for n in os.listdir(LIB) if n.endswith('.py')]
                  + [registry.PACKAGE + n[:-3] for n in os.listdir(os.path.join(LIB, 'providers')) if n.endswith('.py')])


def test_every_module_has_a_layer():
    assert sorted(layers()) == library()


@pytest.mark.parametrize('module', library())
def test_imports_point_only_downward(module):
    table = layers()
    wrong = ['line %d: %s (layer %d) imports %s (layer %s)' % (line, module, table[module], other, table.get(other))
             for line, other in imports(module_file(module)) if other != module and table.get(other, 99) >= table[module]]
    assert not wrong, '\n'.join(wrong)


def test_no_cycle_among_the_modules():
    graph = {m: {o for _, o in imports(module_file(m)) if o != m} for m in library()}
    state = {}

    def visit(node, path):
        if state.get(node) == 'open':
            raise AssertionError('import cycle: %s' % ' -> '.join(path + [node]))
        if state.get(node) != 'done':
            state[node] = 'open'
            for other in sorted(graph.get(node, ())):
                visit(other, path + [node])
            state[node] = 'done'
    for module in graph:
        visit(module, [])


def test_the_library_never_imports_a_tool():
    # the ddkit command is named as the library is: `import ddkit` in the library is the library
    tools = {n[:-3] for n in os.listdir(os.path.join(ROOT, 'bin')) if n.endswith('.py')} - {'ddkit'}
    for module in library():
        with open(module_file(module), encoding='utf-8') as f:
            tree = ast.parse(f.read())
        names = {a.name.split('.')[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                 for a in getattr(n, 'names', [])} | {n.module.split('.')[0] for n in ast.walk(tree)
                                                      if isinstance(n, ast.ImportFrom) and n.module}
        assert not names & tools, module


def test_an_upward_import_is_caught(tmp_path):
    """The check itself: a function-level import of a higher layer is reported."""
    path = tmp_path / 'state.py'
    path.write_text('def f():\n    from ddkit import updater\n    from ddkit.check import Report\n')
    table = layers()
    found = [(other, table[other]) for _, other in imports(str(path))]
    assert found == [('ddkit.updater', table['ddkit.updater']), ('ddkit.check', table['ddkit.check'])]
    assert all(layer > table['ddkit.state'] for _, layer in found)
