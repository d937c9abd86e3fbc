"""How bin/ becomes the package ddkit_cli of the wheel (the metadata is pyproject.toml's).

bin/<tool>.py stays the script a clone runs (`python3 bin/ddkit.py`) and the source of the routers'
files (tools/standalone.py, tools/feed.py); installed, the same code is the module ddkit_cli.<tool>
whose main() each command calls. Two things differ from the clone's file:
- its `# ddkit-path` line, which puts the clone's lib/ first on sys.path, becomes INSTALLED_PATH_LINE:
  installed, the library is on sys.path already, but a tool run as a file (`python .../ddkit_cli/
  updater_a.py`, as a service may) would find ddkit_cli/ddkit.py, its folder's, as `ddkit`; so that
  folder leaves sys.path. Imported (the commands, `python -m ddkit_cli.ddkit`) it is not there.
- the package gets an __init__.py, which bin/ has not (a regular package: no search of every sys.path
  entry for a namespace package's parts).
"""

import os

import setuptools
from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info

MARK = '# ddkit-path'
INSTALLED_PATH_LINE = ("sys.path[:] = [p for p in sys.path if os.path.realpath(p or '.') != "
                       "os.path.dirname(os.path.realpath(__file__))]  %s (installed)\n" % MARK)
TOOLS = 'ddkit_cli'
INIT = '"""The ddkit tools (bin/<tool>.py of the source): each command runs ddkit_cli.<tool>.main()."""\n'


class BuildTools(build_py):
    def check_package(self, package, package_dir):
        if package == TOOLS:   # its __init__.py is written by run(): bin/ has none
            return None
        return super().check_package(package, package_dir)

    def run(self):
        super().run()
        if getattr(self, 'editable_mode', False):
            return   # `pip install -e .`: bin/ is used in place, its own line finding lib/
        out = os.path.join(self.build_lib, TOOLS)
        with open(os.path.join(out, '__init__.py'), 'w', encoding='utf-8') as f:
            f.write(INIT)
        for name in sorted(os.listdir(out)):
            if name.endswith('.py') and name != '__init__.py':
                path = os.path.join(out, name)
                with open(path, encoding='utf-8') as f:
                    lines = f.read().splitlines(True)
                # (or the installed line already: build/lib kept from an earlier build, not copied again)
                at = [i for i, line in enumerate(lines) if line.rstrip().endswith(MARK) or line == INSTALLED_PATH_LINE]
                if len(at) != 1:   # one: tools/standalone.py asks the same
                    raise SystemExit('setup.py: bin/%s needs exactly one line ending in %r' % (name, MARK))
                lines[at[0]] = INSTALLED_PATH_LINE   # the same line number: a traceback's lines are bin/'s
                with open(path, 'w', encoding='utf-8') as f:
                    f.writelines(lines)


class MetadataInBuild(egg_info):
    """ddkit.egg-info under build/, not at the top of the clone, where git would list it."""

    def finalize_options(self):
        if self.egg_base is None:
            os.makedirs('build', exist_ok=True)
            self.egg_base = 'build'
        super().finalize_options()


# MIT: setuptools 77 and later write it as PEP 639's License-Expression, and deprecate (then will refuse)
# pyproject.toml's older {text = ...} form and the licence classifier, which is all the ones before
# 77 read (Debian 12 has 66): so the licence is dynamic, given here in the form this setuptools takes
LICENSE = ({'license_expression': 'MIT'} if int(setuptools.__version__.split('.')[0]) >= 77
           else {'license': 'MIT'})

setup(cmdclass={'build_py': BuildTools, 'egg_info': MetadataInBuild}, **LICENSE)
