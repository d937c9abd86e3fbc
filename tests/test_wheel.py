"""The tools off the router: the wheel `make wheel` builds (pyproject.toml, setup.py) installed offline
in a fresh venv, each command on its PATH run from there against the fake servers; and the Docker
image (Dockerfile): what it holds, read always, and built and run where a container engine answers.

The wheel is built once a run, from a copy of the clone (the build writes build/ where it runs), by a
Python whose own setuptools builds it with nothing downloaded (pip's --no-build-isolation, PIP_NO_INDEX)."""

import email.parser
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import time
import zipfile

import pytest

import needs
from conftest import PROXY_VARIABLES, RECORD, ROOT
from openwrt_env import once_a_run
from providers import SEEDS

sys.path.insert(0, os.path.join(ROOT, 'lib'))
import ddkit  # noqa: E402

TOOLS = ['ddkit', 'updater_a', 'updater_b', 'egress6', 'egress6_win']
MARK = '# ddkit-path'
OLD, NEW, NEWER = '81.2.69.1', '81.2.69.10', '81.2.69.20'
# what the build never needs of the clone, nor should see of a run of the tests
NOT_COPIED = shutil.ignore_patterns('.git', '.venv*', 'dist', 'build', '__pycache__', '*.egg-info', '.pytest_cache')


def can_build():
    """The Makefile's test of a Python whose setuptools builds the wheel (61.2+, with the package wheel
    before 70.1), which picks --no-build-isolation."""
    with open(os.path.join(ROOT, 'Makefile')) as f:
        return re.search(r'^CAN_BUILD_WHEEL = (.*?[^\\])$', f.read().replace('\\\n', ''), re.M | re.S).group(1)


def builder():
    """A Python here that builds the wheel offline: its setuptools can, and it has pip."""
    seen = []
    for python in [sys.executable, shutil.which('python3'), '/usr/bin/python3']:
        if python and python not in seen and os.path.exists(python):
            seen.append(python)
            if subprocess.run([python, '-c', can_build() + '; import pip'], capture_output=True).returncode == 0:
                return python
    needs.missing('no Python here has setuptools 61.2+ that builds wheels offline (%s): apt-get install '
                  'python3-pip python3-setuptools python3-wheel' % ', '.join(seen))


def user_env(**more):
    """A user's environment: none of the tests' DDNS_* settings, proxies or PYTHON* variables (nothing
    may reach the clone's lib/), nor pip's configuration of this machine (PIP_FIND_LINKS...)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('DDNS_', 'PYTHON', 'PIP_')) and k.lower() not in PROXY_VARIABLES}
    env.update(more)
    return env


def build_and_install(folder):
    """`make wheel` in a copy of the clone, offline; the wheel installed by pip into a fresh venv with no
    index. (wheel, venv, seconds the build took, the build's output)."""
    if not shutil.which('make'):
        needs.missing('GNU make is not installed (apt-get install make)')
    python = builder()
    src, venv = os.path.join(folder, 'src'), os.path.join(folder, 'venv')
    shutil.copytree(ROOT, src, ignore=NOT_COPIED)
    env = user_env(PIP_NO_INDEX='1')   # offline: pip may fetch nothing for the build
    env = {k: v for k, v in env.items() if k not in ('MAKEFLAGS', 'MAKELEVEL', 'MFLAGS')}
    started = time.monotonic()
    made = subprocess.run(['make', 'wheel', 'PYTHON=' + python], cwd=src, env=env, capture_output=True, text=True,
                          timeout=300)
    seconds = time.monotonic() - started
    assert made.returncode == 0, made.stdout + made.stderr
    assert "with %s's setuptools" % python in made.stdout   # pip's --no-build-isolation
    wheels = [name for name in os.listdir(os.path.join(src, 'dist')) if name.endswith('.whl')]
    assert wheels == ['ddkit-%s-py3-none-any.whl' % ddkit.VERSION], wheels
    wheel = os.path.join(src, 'dist', wheels[0])
    # a fresh venv; pip from the tests' Python puts the wheel in (pip 22.3+: --python), else its own
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip', venv], check=True)
    vpy = os.path.join(venv, 'bin', 'python')
    install = ['install', '--quiet', '--isolated', '--disable-pip-version-check', '--no-index', wheel]
    done = subprocess.run([sys.executable, '-m', 'pip', '--python', vpy] + install, capture_output=True, text=True,
                          env=user_env())
    if done.returncode != 0 and 'no such option: --python' in done.stderr:
        subprocess.run([vpy, '-m', 'ensurepip', '--default-pip'], check=True, capture_output=True)
        done = subprocess.run([vpy, '-m', 'pip'] + install, capture_output=True, text=True, env=user_env())
    # --no-index and no --no-deps: a dependency at run time would fail the install here
    assert done.returncode == 0, done.stdout + done.stderr
    return wheel, venv, seconds, made.stdout + made.stderr


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    wheel, venv, seconds, output = once_a_run(tmp_path_factory, 'wheel', build_and_install)
    print('make wheel: %.1f s, %d bytes' % (seconds, os.path.getsize(wheel)))
    return wheel, venv


def command(venv, tool, args=(), env=None, cwd=None):
    """An installed command as a user runs it: by its path in the venv's bin/, from outside the clone."""
    return subprocess.run([os.path.join(venv, 'bin', tool)] + list(args), capture_output=True, text=True,
                          env=user_env(**(env or {})), cwd=cwd, timeout=60)


def test_wheel_holds_the_library_every_provider_and_the_tools_and_nothing_else(installed):
    wheel, _ = installed
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = 'ddkit-%s.dist-info/' % ddkit.VERSION
        metadata = email.parser.Parser().parsestr(z.read(info + 'METADATA').decode('utf-8'))
        entry_points = z.read(info + 'entry_points.txt').decode('utf-8')
        tools = {name: z.read('ddkit_cli/%s.py' % name).decode('utf-8') for name in TOOLS}
    code = sorted(n for n in names if not n.startswith(info))

    def modules(folder):
        return sorted(name for name in os.listdir(os.path.join(ROOT, folder)) if name.endswith('.py'))
    assert sorted(n[len('ddkit/providers/'):] for n in code if n.startswith('ddkit/providers/')) == \
        modules('lib/ddkit/providers')
    assert sorted(n[len('ddkit/'):] for n in code if n.count('/') == 1 and n.startswith('ddkit/')) == \
        modules('lib/ddkit')
    assert sorted(n for n in code if n.startswith('ddkit_cli/')) == \
        sorted(['ddkit_cli/__init__.py'] + ['ddkit_cli/%s.py' % t for t in TOOLS])
    # nothing of tests/, tools/, the OpenWrt or LuCI files, no compiled code
    assert [n for n in code if not n.startswith(('ddkit/', 'ddkit_cli/')) or not n.endswith('.py')] == []
    # each tool is bin/<tool>.py but for the line that puts the clone's lib/ on sys.path, at its place
    for name, text in tools.items():
        with open(os.path.join(ROOT, 'bin', name + '.py'), encoding='utf-8') as f:
            source = f.read().splitlines(True)
        lines = text.splitlines(True)
        at = [i for i, line in enumerate(source) if line.rstrip().endswith(MARK)]
        assert len(lines) == len(source) and len(at) == 1, name
        assert lines[:at[0]] + lines[at[0] + 1:] == source[:at[0]] + source[at[0] + 1:], name
        assert lines[at[0]].startswith('sys.path[:] = ') and lines[at[0]].rstrip().endswith(MARK + ' (installed)')

    # what an index shows; the version is the library's, which the OpenWrt packages' must equal
    assert metadata['Name'] == 'ddkit' and metadata['Version'] == ddkit.VERSION
    with open(os.path.join(ROOT, 'openwrt', 'Makefile')) as f:
        assert 'PKG_VERSION:=%s\n' % ddkit.VERSION in f.read()
    assert metadata['Requires-Python'] == '>=3.8'
    assert metadata.get_all('Requires-Dist') is None     # the standard library alone
    assert 'MIT' in (metadata['License-Expression'], metadata['License'])
    assert metadata['Description-Content-Type'] == 'text/markdown'
    with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as f:
        assert metadata.get_payload().strip() == f.read().strip()
    classifiers = metadata.get_all('Classifier')
    assert 'Programming Language :: Python :: 3.8' in classifiers and 'Environment :: Console' in classifiers
    assert sorted(re.findall(r'^(\w+) = ddkit_cli\.(\w+):main$', entry_points, re.M)) == \
        sorted((tool, tool) for tool in TOOLS)


def test_each_command_is_on_the_venvs_path_and_runs_from_it(installed, tmp_path):
    _, venv = installed
    for tool in TOOLS:
        done = command(venv, tool, ['--version'], cwd=str(tmp_path))
        assert (done.returncode, done.stdout, done.stderr) == (0, '%s %s\n' % (tool, ddkit.VERSION), ''), tool
    # the library the commands import is the venv's, not the clone's
    where = subprocess.run([os.path.join(venv, 'bin', 'python'), '-c',
                            'import ddkit, ddkit_cli.ddkit, sys; print(ddkit.__file__); '
                            'print(ddkit_cli.ddkit.__file__); print(len([p for p in sys.path if p.endswith("lib")]))'],
                           capture_output=True, text=True, env=user_env(), cwd=str(tmp_path))
    library, tool_file, lib_on_path = where.stdout.split()
    assert library.startswith(venv + os.sep) and tool_file.startswith(venv + os.sep), where.stdout + where.stderr
    assert lib_on_path == '0'
    # and each tool's file run by the venv's Python, as a service may run it: the ddkit.py beside the
    # others in ddkit_cli/ is not taken for the library
    for tool in TOOLS:
        path = os.path.join(os.path.dirname(tool_file), tool + '.py')
        done = subprocess.run([os.path.join(venv, 'bin', 'python'), path, '--version'], capture_output=True, text=True,
                              env=user_env(), cwd=str(tmp_path))
        assert (done.returncode, done.stdout) == (0, '%s %s\n' % (tool, ddkit.VERSION)), done.stderr


def test_installed_ddkit_lists_the_providers_the_clone_does(installed, tmp_path):
    _, venv = installed
    listed = command(venv, 'ddkit', ['--providers'], cwd=str(tmp_path))
    clone = subprocess.run([sys.executable, os.path.join(ROOT, 'bin', 'ddkit.py'), '--providers'],
                           capture_output=True, text=True, env=user_env())
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == clone.stdout
    from ddkit import registry
    unlisted = [name for name in registry.PROVIDERS if not re.search(r'^ *%s\b' % re.escape(name), listed.stdout, re.M)]
    assert unlisted == []


def config_of(env):
    """A --config file from a record's DDNS_* settings: the shared lines, then the record [home] (--all
    runs each [record])."""
    lines = {name[len('DDNS_'):].lower(): value for name, value in env.items()}
    record = lines.pop('record_name')
    return ''.join('%s=%s\n' % item for item in sorted(lines.items())) + '[home]\nrecord_name=%s\n' % record


def test_installed_ddkit_updates_a_record_at_the_fake_provider_from_a_config_file(installed, box, tmp_path):
    _, venv = installed
    adapter = SEEDS[0]   # updater_a's provider
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    state = tmp_path / 'state'
    state.mkdir(mode=0o700)
    config = tmp_path / 'ddkit.conf'
    config.write_text(config_of(dict(adapter.env(box, state), DDNS_PROVIDER=adapter.provider)))
    config.chmod(stat.S_IRUSR | stat.S_IWUSR)
    # as a service runs it (the Docker image, a systemd timer): every record of the file
    done = command(venv, 'ddkit', ['--config', str(config), '--all'], cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert adapter.held(box, RECORD) == adapter.content(NEW)
    assert (state / adapter.ip_file(RECORD)).read_text() == NEW + '\n'
    # the Docker image's HEALTHCHECK: the last run of each record, nothing sent
    calls = len(adapter.fake(box).calls())
    status = command(venv, 'ddkit', ['--config', str(config), '--status', '--all'], cwd=str(tmp_path))
    assert status.returncode == 0 and RECORD in status.stdout, status.stdout + status.stderr
    assert len(adapter.fake(box).calls()) == calls


# --- the Docker image ------------------------------------------------------------------------------


def dockerfile():
    """The Dockerfile's instructions: [(INSTRUCTION, arguments)], continuation lines joined."""
    with open(os.path.join(ROOT, 'Dockerfile'), encoding='utf-8') as f:
        text = f.read()
    out, pending = [], ''
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith('#')):
            continue
        pending += line.rstrip()
        if pending.endswith('\\'):
            pending = pending[:-1] + ' '
            continue
        word, _, rest = pending.strip().partition(' ')
        out.append((word.upper(), rest.strip()))
        pending = ''
    return out


def exec_form(arguments):
    """CMD, ENTRYPOINT or HEALTHCHECK's command as a list: JSON exec form, else a shell's words."""
    import json
    return json.loads(arguments) if arguments.startswith('[') else shlex.split(arguments)


def final_stage():
    steps = dockerfile()
    last = max(i for i, (word, _) in enumerate(steps) if word == 'FROM')
    return steps[last:]


def image_command(steps):
    """What the container runs: ENTRYPOINT's words, then CMD's."""
    found = {word: exec_form(args) for word, args in steps if word in ('CMD', 'ENTRYPOINT')}
    return found.get('ENTRYPOINT', []) + found.get('CMD', [])


def healthcheck(steps):
    args = [args for word, args in steps if word == 'HEALTHCHECK'][-1]
    return exec_form(args.split(' CMD ', 1)[1].strip())


SECRET_WORDS = re.compile(r'token|secret|passw|api_?key|auth|credential|private', re.I)


def test_dockerfile_runs_every_record_as_a_user_keeping_state_in_a_volume_and_no_secret(monkeypatch):
    steps = final_stage()
    bases = [args for word, args in dockerfile() if word == 'FROM']
    assert bases and all(re.match(r'python:\S+-(slim|alpine)\S*( AS \w+)?$', b, re.I) for b in bases), bases
    users = [args for word, args in steps if word == 'USER']
    assert users, 'the image runs as root'
    user = users[-1].split(':')[0]
    assert user not in ('0', 'root')
    # the user is made in the image with that id, and owns the volume that is its home and state_dir
    runs = ' '.join(args for word, args in steps if word == 'RUN')
    assert re.search(r'adduser .*-u %s\b' % user, runs) or re.search(r'useradd .*(-u|--uid) %s\b' % user, runs)
    volumes = [v for word, args in steps if word == 'VOLUME' for v in exec_form(args)]
    assert volumes == ['/state']
    env = dict(pair.split('=', 1) for word, args in steps if word == 'ENV' for pair in shlex.split(args))
    # a record without state_dir keeps its state in the volume, whichever command runs it
    from ddkit.settings import default_state_dir
    monkeypatch.setenv('HOME', env.get('HOME', '/root'))
    for tool in ('ddkit', 'updater_a'):
        assert (default_state_dir(tool, environ=env) + '/').startswith('/state/'), tool
    assert re.search(r'chown \S+ /state', runs)

    command = image_command(steps)
    assert command[0] == 'ddkit' and command[-3:] == ['--all', '--every', '300'], command
    check = healthcheck(steps)
    assert check[0] == 'ddkit' and '--status' in check and '--all' in check
    # both read the one config file, which is mounted, not in the image
    assert command[command.index('--config') + 1] == check[check.index('--config') + 1] == '/config/ddkit.conf'
    assert not [args for word, args in dockerfile() if word in ('COPY', 'ADD') and re.search(r'\.conf|config', args)]

    # no secret in what `docker inspect` or ps shows: ENV, ARG, LABEL, the commands
    shown = [args for word, args in dockerfile() if word in ('ENV', 'ARG', 'LABEL')] + command + check
    assert not [s for s in shown if SECRET_WORDS.search(s)], shown
    assert not [name for name in env if name.startswith('DDNS_')]


def test_dockerignore_sends_the_build_only_what_it_copies():
    with open(os.path.join(ROOT, '.dockerignore')) as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith('#')]
    assert lines[0] == '*'   # everything else stays out: a config file left in the clone, state, tests
    kept = {line[1:].rstrip('/') for line in lines if line.startswith('!')}
    copied = set()
    for word, args in dockerfile():
        if word == 'COPY' and not args.startswith('--from'):
            copied.update(p.rstrip('/') for p in args.split()[:-1])
    assert copied and copied <= kept, copied - kept
    assert kept <= copied | {'pyproject.toml', 'setup.py', 'README.md', 'LICENSE'}, kept - copied


def engine():
    """(docker or podman, why not): the first whose engine answers."""
    why = []
    for name in ('docker', 'podman'):
        path = shutil.which(name)
        if not path:
            why.append('no %s' % name)
            continue
        try:
            done = subprocess.run([path, 'info'], capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            why.append('%s info timed out' % name)
            continue
        if done.returncode == 0:
            return path, None
        why.append('%s is only a client here: no engine answers (%s)' % (
            name, (done.stderr.strip().splitlines() or ['%s info failed' % name])[-1][:120]))
    return None, '; '.join(why)


def test_image_builds_and_runs_a_record_as_its_user(box, tmp_path):
    tool, why = engine()
    if tool is None:   # CI's machines have none either: a skip there too, not needs.missing's failure
        pytest.skip('no container engine to build the image with: %s' % why)
    tag = 'ddkit-test:%d' % os.getpid()
    volume = 'ddkit-test-state-%d' % os.getpid()
    built = subprocess.run([tool, 'build', '-t', tag, ROOT], capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    names = []
    try:
        uid = int(subprocess.run([tool, 'run', '--rm', '--entrypoint', 'id', tag, '-u'], capture_output=True,
                                 text=True, check=True).stdout)
        assert uid != 0
        adapter = SEEDS[0]   # updater_a's provider
        adapter.add(box, RECORD, 'A', OLD)
        box.lookup.answer = NEW
        settings = dict(adapter.env(box, '/state'), DDNS_PROVIDER=adapter.provider)
        del settings['DDNS_STATE_DIR']   # the image's default: its user's home, the volume
        config = tmp_path / 'ddkit.conf'
        config.write_text(config_of(settings))
        config.chmod(0o600)
        if os.geteuid() == 0:
            os.chown(str(config), uid, uid)   # as docs/docker.md says: the container's user owns it
            user, state = [], volume
        else:   # a docker group member: the image run as that user, the state in a folder of theirs
            user, state = ['--user', '%d:%d' % (os.getuid(), os.getgid())], str(tmp_path / 'state')
            os.mkdir(state, 0o700)
        mounts = ['--network', 'host', '-v', '%s:/config/ddkit.conf:ro' % config, '-v', '%s:/state' % state]

        once = subprocess.run([tool, 'run', '--rm'] + user + mounts + [tag, '--config', '/config/ddkit.conf', '--all'],
                              capture_output=True, text=True, timeout=120)
        assert once.returncode == 0, once.stdout + once.stderr
        assert adapter.held(box, RECORD) == adapter.content(NEW)
        check = healthcheck(final_stage())
        health = subprocess.run([tool, 'run', '--rm'] + user + mounts + ['--entrypoint', check[0], tag] + check[1:],
                                capture_output=True, text=True, timeout=120)
        assert health.returncode == 0 and RECORD in health.stdout, health.stdout + health.stderr

        helped = subprocess.run([sys.executable, os.path.join(ROOT, 'bin', 'ddkit.py'), '--help'],
                                capture_output=True, text=True)
        if '--every' not in helped.stdout:
            pytest.skip('built and ran once; ddkit has no --every yet: the image\'s own command is not run')
        # the image's own command: a run at once, then one every 300 s; docker stop ends it, exit 0
        box.lookup.answer = NEWER
        name = 'ddkit-test-%d' % os.getpid()
        names.append(name)
        subprocess.run([tool, 'run', '-d', '--init', '--name', name] + user + mounts + [tag], check=True,
                       capture_output=True, timeout=60)
        deadline = time.monotonic() + 30
        while adapter.held(box, RECORD) != adapter.content(NEWER) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert adapter.held(box, RECORD) == adapter.content(NEWER)
        subprocess.run([tool, 'stop', '-t', '20', name], check=True, capture_output=True, timeout=60)
        code = subprocess.run([tool, 'inspect', '-f', '{{.State.ExitCode}}', name], capture_output=True, text=True)
        assert code.stdout.strip() == '0', code.stdout + code.stderr
    finally:
        for name in names:
            subprocess.run([tool, 'rm', '-f', name], capture_output=True)
        subprocess.run([tool, 'volume', 'rm', '-f', volume], capture_output=True)
        subprocess.run([tool, 'rmi', '-f', tag], capture_output=True)
