"""tests/sandbox.py as a newcomer runs it: --help prints help (it does not run the demo), and serve
mode is seeded so that updater B finds the previous IP over DoH instead of pinging a real host."""

import os
import re
import shlex
import subprocess
import sys

from conftest import HERE, run_tool, sampled
from providers import PROVIDERS

SANDBOX = os.path.join(HERE, 'sandbox.py')


def test_help_prints_usage_and_runs_nothing():
    done = subprocess.run([sys.executable, SANDBOX, '--help'], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and 'usage: python3 tests/sandbox.py [demo|serve|--help]' in done.stdout
    assert '== updater' not in done.stdout


def test_unknown_argument_is_bad_input():
    done = subprocess.run([sys.executable, SANDBOX, 'bogus'], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stdout == '' and "unknown argument 'bogus'" in done.stderr


def served(tmp_path):
    """Start `sandbox.py serve`; (the process, {'': the settings every record shares, provider: its
    own}, the ddkit command line of its config file), from the exports it prints."""
    import threading
    server = subprocess.Popen([sys.executable, SANDBOX, 'serve'], stdout=subprocess.PIPE, text=True)
    stuck = threading.Timer(60, server.kill)   # a serve that never prints its last line: its output ends
    stuck.start()
    blocks, block, command = {'': {}}, '', None
    for line in server.stdout:
        if line.startswith('# provider '):
            block = line.split()[2]
            blocks[block] = {}
        elif line.startswith('export '):
            key, _, value = line[7:].strip().partition('=')
            blocks[block][key] = shlex.split(value)[0]
        elif '--config' in line:
            command = shlex.split(line)
            break
    stuck.cancel()
    return server, blocks, command


def stubbed(tmp_path):
    """The environment of a tool run: ping replaced by a stub that logs (no real host is pinged)."""
    return {'PATH': os.path.join(HERE, 'stubs') + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin'),
            'PING_STUB_LOG': str(tmp_path / 'ping.log')}


# the seed commands' providers, and others spread over the registry (all of them under make test-full)
POINTED = [a for a in PROVIDERS if a.seed] + sampled([a for a in PROVIDERS if not a.seed], 6)


def test_serve_prints_the_settings_of_every_provider_and_they_work(tmp_path):
    """serve starts every provider's fake, holding the record at 81.2.69.1: each provider's exports,
    over the shared ones, make a real `ddkit --check` pass (the record found holding that address), as
    does its config file of a record at every provider; updater_b runs with its provider's, no ping."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'lib'))
    from ddkit import registry
    server, blocks, command = served(tmp_path)
    try:
        shared = blocks.pop('')
        # ddns-scripts' update URLs are served as their protocol itself (tests/test_updateurl.py runs each)
        assert sorted(blocks) == sorted(set(registry.PROVIDERS) - set(registry.services())), blocks
        assert all(blocks.values()), blocks   # the venv has every fake's test-only package: all served
        assert set(shared) == {'DDNS_ZONE_NAME', 'DDNS_RECORD_NAME', 'DDNS_DOH_URL', 'DDNS_IP_LOOKUP_URL',
                               'DDNS_STATE_DIR'}, shared
        checks = {}
        for adapter in POINTED:
            env = dict(shared, **blocks[adapter.provider], **stubbed(tmp_path))
            assert env['DDNS_PROVIDER'] == adapter.provider
            checks[adapter] = run_tool('ddkit', ['--check'], env=env)
        every = run_tool(command[1], command[2:], env=stubbed(tmp_path))
        seed = [a for a in PROVIDERS if a.seed][-1]   # updater_b: the one that would ping a real host
        updated = run_tool(seed.tool, env=dict(shared, **blocks[seed.provider], **stubbed(tmp_path)))
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert any(adapter.told for adapter in checks) and not all(adapter.told for adapter in checks)
    for adapter, done in checks.items():
        # a service only told the IP says what it could not check (the credentials: the first update)
        assert done.returncode == 0 and done.stdout.rstrip().splitlines()[-1].startswith('check: all ok'), \
            (adapter, done.stdout + done.stderr)
        told = 'only told the IP' in done.stdout
        assert told == adapter.told, (adapter, done.stdout)
        assert told or 'record holds 81.2.69.1, the current IP is 81.2.69.10: the next run updates it' in \
            done.stdout, (adapter, done.stdout)
    assert every.returncode == 0, every.stdout + every.stderr
    assert every.stdout.count('check: all ok') == len(blocks), every.stdout   # a record at each provider served
    assert updated.returncode == 0 and 'IP changed from 81.2.69.1 to 81.2.69.10' in updated.stdout, \
        updated.stdout + updated.stderr
    assert not (tmp_path / 'ping.log').exists()
    assert not os.path.exists(shared['DDNS_STATE_DIR'])   # stopped: its state directory is gone


def test_the_demo_runs_every_provider_through_ddkit(tmp_path):
    """make demo: the seed tools, then ddkit with a record at each provider of the registry in one
    config file: updated, then nothing to do, then --status of each (and nothing pinged)."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'lib'))
    from ddkit import registry
    env = dict(os.environ, PATH=os.path.join(HERE, 'stubs') + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin'),
               PING_STUB_LOG=str(tmp_path / 'ping.log'))
    done = subprocess.run([sys.executable, SANDBOX, 'demo'], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and 'Traceback' not in done.stderr, done.stdout + done.stderr
    ddkit = done.stdout.split('== ddkit, ', 1)[1]
    # every provider but ddns-scripts' update URLs, which their protocol stands for (tests/test_updateurl.py)
    names = [name for name in registry.PROVIDERS if name not in registry.services()]
    assert ddkit.count('All %d records done.' % len(names)) == 2, ddkit
    status = ddkit.split('--status', 1)[1]
    for name in names:   # the second run found the change in place: unchanged, though it
        # ran within the second of the change (the status's log end orders the runs)
        found = re.search(r'^%s A ddkit.example.com: (\w+), ip 81.2.69.10, checked (.+), changed (.+)$' % name,
                          status, re.M)
        assert found and found.group(1) == 'unchanged', status
    assert not (tmp_path / 'ping.log').exists()


def test_the_demo_without_the_test_only_packages_says_how_to_install_them(tmp_path):
    """A Python without site-packages (no SDK, no pytest: a newcomer's make demo) leaves out the
    providers whose fakes check requests with a test-only package, each with the pip line of the
    packages it needs as tests/requirements.txt pins them, and never reaches pytest."""
    with open(os.path.join(HERE, 'requirements.txt')) as f:
        pins = [line.split(';')[0].strip() for line in f if '==' in line and not line.startswith('#')]
    env = dict(os.environ, PATH=os.path.join(HERE, 'stubs') + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin'),
               PING_STUB_LOG=str(tmp_path / 'ping.log'))
    done = subprocess.run([sys.executable, '-I', '-S', SANDBOX, 'demo'], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0 and 'Traceback' not in done.stderr, done.stdout + done.stderr
    left = re.findall(r'^\((\S+) left out of the demo: (.*)\)$', done.stdout, re.M)
    # the providers whose fakes need a test-only package (an adapter's own needs)
    assert {a.provider for a in PROVIDERS if 'needs' in vars(a)} <= {name for name, _ in left}, done.stdout
    for name, why in left:
        assert 'pytest' not in why, why
        command = re.search(r'; install: \S+ -m pip install ([^;]+);', why)
        assert command, why
        wanted = command.group(1).split()
        assert wanted and set(wanted) <= set(pins), (name, wanted)   # pinned as the tests pin them
        assert all(pin.split('==')[0] in why.split(';')[0] for pin in wanted), why   # the ones it lacks
