"""tests/sandbox.py as a newcomer runs it: --help prints help (it does not run the demo), and serve
mode is seeded so that updater B finds the previous IP over DoH instead of pinging a real host."""

import os
import re
import shlex
import subprocess
import sys

from conftest import HERE, run_tool

SANDBOX = os.path.join(HERE, 'sandbox.py')


def test_help_prints_usage_and_runs_nothing():
    done = subprocess.run([sys.executable, SANDBOX, '--help'], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and 'usage: python3 tests/sandbox.py [demo|serve|--help]' in done.stdout
    assert '== updater' not in done.stdout


def test_unknown_argument_is_bad_input():
    done = subprocess.run([sys.executable, SANDBOX, 'bogus'], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stdout == '' and "unknown argument 'bogus'" in done.stderr


def test_serve_mode_lets_updater_b_run_without_a_ping(tmp_path):
    server = subprocess.Popen([sys.executable, SANDBOX, 'serve'], stdout=subprocess.PIPE, text=True)
    try:
        env, seen_b = {}, False
        for line in server.stdout:
            seen_b = seen_b or line.startswith('and updater B')
            if line.startswith('export ') and seen_b:
                key, _, value = line[7:].strip().partition('=')
                env[key] = shlex.split(value)[0]
                if key == 'DDNS_STATE_DIR':
                    break
        env['DDNS_STATE_DIR'] = str(tmp_path)
        env['PATH'] = os.path.join(HERE, 'stubs') + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin')
        env['PING_STUB_LOG'] = str(tmp_path / 'ping.log')
        done = run_tool('updater_b', env=env)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP changed from 81.2.69.1 to 81.2.69.10' in done.stdout
    assert not (tmp_path / 'ping.log').exists()


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
    assert ddkit.count('All %d records done.' % len(registry.PROVIDERS)) == 2, ddkit
    status = ddkit.split('--status', 1)[1]
    for name in registry.PROVIDERS:
        # changed by the first run; the second, unchanged, is said when its log line is of a later second
        assert re.search(r'^%s A ddkit\.example\.com: (updated|unchanged), ip 81\.2\.69\.10, checked [^,]+, changed '
                         % name, status, re.M), status
    assert not (tmp_path / 'ping.log').exists()
