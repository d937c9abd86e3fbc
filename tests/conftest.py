"""Shared fixtures: the fake servers on 127.0.0.1 and one way to run a tool as a real subprocess."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from sandbox import RECORD, ZONE, Sandbox  # noqa: E402


def tool_path(name):
    return os.path.join(ROOT, 'bin', name + '.py')


def run_tool(tool, args=(), env=None, input=None, timeout=60, cwd=None, python=None):
    """Run bin/<tool>.py (or a path) as a subprocess with only the given DDNS_* environment."""
    base = {k: v for k, v in os.environ.items() if not k.startswith('DDNS_')}
    base.update(env or {})
    path = tool if os.path.sep in tool else tool_path(tool)
    return subprocess.run([python or sys.executable, path] + list(args), env=base, input=input,
                          capture_output=True, text=True, timeout=timeout, cwd=cwd)


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
