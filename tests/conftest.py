"""Shared fixtures: the fake servers on 127.0.0.1 and one way to run a tool as a real subprocess."""

import functools
import importlib.util
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

# the fakes fail on cue, and nothing clears while a retry waits: a tool's first retry waits 0.05 s
# here, not a router's second (ddkit.http.BACKOFF), in this process and the tools it starts
os.environ.setdefault('DDKIT_TEST_BACKOFF', '0.05')

from sandbox import RECORD, ZONE, Sandbox  # noqa: E402


# `make test-full` (CI) runs every row of the slow tables; `make test` a sample of each (sampled)
FULL = os.environ.get('DDKIT_TESTS') == 'full'


# a test of the build as a whole that make test-full runs (CI) and make test leaves to it: each costs
# half a minute of CPU on 2 cores, repeating what a test of the same part in make test shows at the
# scale of one build (issue 47: the default tier fast by design)
full_only = pytest.mark.skipif(not FULL, reason='a whole build again: make test-full runs it (DDKIT_TESTS=full)')


# the fixtures of the builds made once a run and shared by the test workers (once_a_run)
BUILDS = ('feed', 'feed_unsigned', 'apk_feed', 'apk_unsigned', 'installed')


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (make test) the tests reading a shared build run late, but one for each build,
    which run first: the builds are made at once on as many workers while the others run on, and later
    tests find them made. In file order the tests of one build came together on every worker, each of
    which then waited on its lock while the first made it: a core left idle for the whole build."""
    if not os.environ.get('PYTEST_XDIST_WORKER'):
        return
    reading = [item for item in items if set(getattr(item, 'fixturenames', ())) & set(BUILDS)]
    first = []
    for build in BUILDS:   # a test reading this build alone, else any reading it
        readers = [item for item in reading if build in item.fixturenames and item not in first]
        alone = [item for item in readers if len(set(item.fixturenames) & set(BUILDS)) == 1]
        first += (alone or readers)[:1]
    late = [item for item in reading if item not in first]
    shared = set(reading)
    others = [item for item in items if item not in shared]
    start = len(others) * 2 // 5
    items[:] = first + others[:start] + late + others[start:]


def sampled(rows, keep=2):
    """The rows of a slow table: all of them under `make test-full`; else `keep` of them spread
    evenly, the first and the last among them (the same ones every run; keep 1: the first)."""
    rows = list(rows)
    if FULL or len(rows) <= keep:
        return rows
    step = (len(rows) - 1) / max(keep - 1, 1)
    return [rows[round(i * step)] for i in range(keep)]


MADE = {}   # {name: the answer of once_a_run} in this process


def once_a_run(tmp_path_factory, name, make):
    """make(folder)'s answer (made of lists, strings and numbers), made once a run: the test workers
    (pytest-xdist) share the folder of the first to get there, the others wait for it; what it holds
    is only read."""
    if name in MADE:
        return MADE[name]
    if not os.environ.get('PYTEST_XDIST_WORKER'):
        MADE[name] = make(str(tmp_path_factory.mktemp(name)))
        return MADE[name]
    import fcntl
    import json
    top = tmp_path_factory.getbasetemp().parent   # the run's, which each worker's is in
    folder, answer = top / name, top / (name + '.json')
    with open(str(top / (name + '.lock')), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not answer.exists():
            import shutil
            shutil.rmtree(str(folder), ignore_errors=True)   # a worker that failed to make it
            folder.mkdir()
            answer.write_text(json.dumps(make(str(folder))))
        MADE[name] = json.loads(answer.read_text())
    return MADE[name]


def built_single_file(tmp_path_factory, tool, *flags):
    """dist/<tool>.py as tools/standalone.py builds it (flags: its own, --providers NAME), built once a
    run (once_a_run) for every test reading it: only read (a test that changes it changes a copy)."""
    def make(folder):
        out = os.path.join(folder, tool + '.py')
        subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py')] + list(flags) +
                       [tool_path(tool), out], check=True, stdout=subprocess.DEVNULL)
        return out
    return once_a_run(tmp_path_factory, 'single-%s%s' % (tool, ''.join('-' + flag.strip('-') for flag in flags)), make)


def tool_path(name):
    return os.path.join(ROOT, 'bin', name + '.py')


def run_tool(tool, args=(), env=None, input=None, timeout=60, cwd=None, python=None, prefix=(), flags=(),
             stdin=None, stdout=None):
    """Run bin/<tool>.py (or a path) as a subprocess with only the given DDNS_* environment;
    `prefix` goes before the interpreter (e.g. `ip netns exec <ns>`), `flags` after it (e.g. `-I`);
    `stdin` (a file descriptor, e.g. a pty, instead of `input`) for tools that ask questions;
    `stdout` (a file descriptor) instead of capturing it."""
    # nor a proxy of the machine running the tests: the fakes are reached direct unless a test names one
    base = {k: v for k, v in os.environ.items() if not k.startswith('DDNS_') and k.lower() not in PROXY_VARIABLES}
    base.update(import_guard(tool))
    base.update(env or {})
    path = tool if os.path.sep in tool else tool_path(tool)
    if 'setpriv' in [os.path.basename(word) for word in prefix] and in_checkout(path):
        pytest.fail('%s run as another user from the checkout, which that user cannot open when it lies in a '
                    'directory closed to others (mode 0700: /root, a mktemp -d folder): run its copy '
                    '(the for_others fixture)' % path)
    done = subprocess.run(list(prefix) + [python or sys.executable] + list(flags) + [path] + list(args),
                          env=base, input=input, **({} if stdin is None else {'stdin': stdin}),
                          stdout=subprocess.PIPE if stdout is None else stdout, stderr=subprocess.PIPE,
                          text=True, timeout=timeout, cwd=cwd)
    if GUARD_MARK in (done.stdout or '') + (done.stderr or ''):
        pytest.fail('%s imported a module its OpenWrt Depends does not provide:\n%s%s'
                    % (tool, done.stdout, done.stderr))
    return done


LOADED = {}   # {tool: bin/<tool>.py loaded as a module}: what the calls in this process call


def loaded_tool(tool):
    """bin/<tool>.py as a module of this process, loaded once."""
    if tool not in LOADED:
        spec = importlib.util.spec_from_file_location('called_' + tool, tool_path(tool))
        LOADED[tool] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(LOADED[tool])
    return LOADED[tool]


def in_process(tool, args=(), env=None):
    """run_tool's answer (returncode, stdout, stderr) from bin/<tool>.py's main called in this process,
    with only the given DDNS_* environment (the process's own restored after): a run against the fakes
    without a process's start (some 20 ms of CPU), for tests that need no fixture of pytest's."""
    import contextlib
    import io
    import ddkit
    main = loaded_tool(tool).main
    saved = dict(os.environ)
    kept = list(ddkit.KEEP_DIR)
    out, err = io.StringIO(), io.StringIO()
    try:
        for name in [n for n in os.environ if n.startswith('DDNS_') or n.lower() in PROXY_VARIABLES]:
            del os.environ[name]
        os.environ.update(env or {})
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(args))
    finally:
        os.environ.clear()
        os.environ.update(saved)
        ddkit.KEEP_DIR[:] = kept   # the directory a run keeps its state in: not the next call's
    return subprocess.CompletedProcess([tool] + list(args), status, out.getvalue(), err.getvalue())


@pytest.fixture(scope='session')
def call_tool():
    """call(tool, args, env, monkeypatch, capsys): (exit status, stdout, stderr) of bin/<tool>.py's
    main called in this process (in_process), for what a call shows as a process would (a refusal
    before anything is sent, the status a run kept)."""
    def call(tool, args, env, monkeypatch, capsys):
        done = in_process(tool, args, env)
        return done.returncode, done.stdout, done.stderr
    return call


PROXY_VARIABLES = ('https_proxy', 'http_proxy', 'all_proxy', 'no_proxy')   # in any letter case
GUARD_DIR = os.path.join(HERE, 'importguard')
GUARD_MARK = '[import guard]'


def in_checkout(path):
    """True when path lies in this checkout."""
    return os.path.realpath(path).startswith(os.path.realpath(ROOT) + os.sep)


def copy_for_others(base):
    """Copy the tools, the library and the import guard into base (a directory under /tmp: its sticky
    bit makes it trusted), everything in it readable by all (whatever the umask the checkout was made
    with); copy(tool): (the copy of bin/<tool>.py, the environment of its import guard)."""
    import shutil
    shutil.copytree(os.path.join(ROOT, 'bin'), os.path.join(base, 'bin'))
    shutil.copytree(os.path.join(ROOT, 'lib'), os.path.join(base, 'lib'), ignore=shutil.ignore_patterns('__pycache__'))
    shutil.copytree(GUARD_DIR, os.path.join(base, 'importguard'), ignore=shutil.ignore_patterns('__pycache__'))
    for top, dirs, files in os.walk(base):
        os.chmod(top, 0o755)
        for name in files:
            os.chmod(os.path.join(top, name), 0o644)

    def copy(tool):
        guard = import_guard(tool)
        if guard:
            guard['PYTHONPATH'] = guard['PYTHONPATH'].replace(GUARD_DIR, os.path.join(base, 'importguard'), 1)
        return os.path.join(base, 'bin', tool + '.py'), guard
    return copy


@pytest.fixture(scope='session')
def for_others():
    """copy(tool): (bin/<tool>.py as a copy another user can open, the environment of its import
    guard), for a test that runs a tool as nobody: the checkout may lie in a directory closed to other
    users (mode 0700: root's home, a mktemp -d folder). Copied once a session into a 0755 directory
    under /tmp, removed at the end."""
    import shutil
    import tempfile
    base = tempfile.mkdtemp(prefix='ddkit-for-others-', dir='/tmp')
    try:
        yield copy_for_others(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@functools.lru_cache()
def package_depends(of_tools=False):
    """{package: [OpenWrt packages its Depends bring, through the feed's ddkit]}, read from
    openwrt/Makefile by tools/feed.py; of_tools: {tool: the package that ships it} instead (the ddkit
    command is the package ddkit-command, whose name is not the tool's)."""
    spec = importlib.util.spec_from_file_location('ddkit_feed', os.path.join(ROOT, 'tools', 'feed.py'))
    feed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(feed)
    recipe = feed.Recipe()
    if of_tools:
        return {tool: recipe.package_of(tool) for tool in recipe.tool_paths()}
    return {name: recipe.system_depends(name) for name in recipe.packages}


def import_guard(tool):
    """Environment that loads tests/importguard into a packaged tool: like a router with only
    python3-light and the Depends of the tool's package installed, any other package's module is missing."""
    name = os.path.basename(tool)
    name = name[:-3] if name.endswith('.py') else name
    package = package_depends(of_tools=True).get(name)
    if package is None:
        return {}
    return {'PYTHONPATH': os.pathsep.join([GUARD_DIR] + [p for p in [os.environ.get('PYTHONPATH')] if p]),
            'DDKIT_GUARD_TOOL': package, 'DDKIT_GUARD_DEPENDS': ','.join(package_depends()[package])}


@pytest.fixture(params=['native', 'public'])
def both_interfaces(request, monkeypatch):
    """The test twice: with CPython's private interfaces where ddkit.native takes them, and with
    DDKIT_PUBLIC_ONLY=1 (socket, ssl, json): the tools a test runs inherit the setting."""
    monkeypatch.setenv('DDKIT_PUBLIC_ONLY', '1' if request.param == 'public' else '')
    return request.param


@pytest.fixture
def native_interfaces(monkeypatch):
    """CPython's private interfaces, as a router's run takes them: what the import and cost tests
    measure, whatever DDKIT_PUBLIC_ONLY the suite runs with."""
    monkeypatch.setenv('DDKIT_PUBLIC_ONLY', '')


@pytest.fixture
def box():
    """The sandbox over plain HTTP: provider A with zone example.com, an IP lookup and a DoH resolver."""
    sandbox = Sandbox()
    yield sandbox
    sandbox.stop()


@pytest.fixture(scope='session')
def ca():
    trustme = pytest.importorskip('trustme')
    return trustme.CA()


@pytest.fixture
def tls_box(ca, tmp_path):
    """The sandbox over HTTPS with a test CA; `tls_box.ca_file` is the CA to trust."""
    sandbox = Sandbox(tls_cert=ca.issue_cert('127.0.0.1', 'localhost'))
    sandbox.ca_file = str(tmp_path / 'ca.pem')
    ca.cert_pem.write_to_path(sandbox.ca_file)
    yield sandbox
    sandbox.stop()


@pytest.fixture
def lab(request):
    """A host and a server network namespace (tests/netns.py), with the IPv6 lookup server started
    unless the test module sets LOOKUP = False."""
    import netns
    netns.require()
    built = netns.Lab()
    try:
        if getattr(request.module, 'LOOKUP', True):
            built.start_lookup()
        yield built
    finally:
        built.close()


@pytest.fixture(scope='session')
def single(tmp_path_factory):
    """dist/updater_a.py as `make standalone` builds it, once a run (built_single_file): only read."""
    return built_single_file(tmp_path_factory, 'updater_a')


@pytest.fixture
def lookups():
    """Two IPv6 lookup services on ::1, in the order the tool is told to try them."""
    from fakes.helpers import IpLookup
    servers = [IpLookup(answer='', host='::1').start(), IpLookup(answer='', host='::1').start()]
    yield servers
    for server in servers:
        server.stop()
