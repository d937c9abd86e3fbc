"""A run with a CA bundle loads only the bundle's certificates earlier runs' chains ended at
(ddkit.http.Anchors, ddkit.wire.secure), never one the bundle does not hold now, and still refuses
what the whole bundle refuses. Each run is a fresh interpreter, as a tool's run is; both ways
(CPython's private interfaces and DDKIT_PUBLIC_ONLY=1)."""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, RECORD, run_tool
from fakes.helpers import IpLookup
from providers import of

trustme = pytest.importorskip('trustme')

LIB = os.path.join(ROOT, 'lib')
OTHERS = 12   # the bundle's other CAs: what a run no longer parses
FILE = 'ddkit-ca-anchors.pem'

# one request through ddkit.http as a run makes it; prints the outcome and, for each TLS context the
# run made, whether it was the narrowed one and how many CA certificates it loaded
CLIENT = '''
import json, sys
sys.path.insert(0, %r)
import ddkit
from ddkit import Failure, http, wire
ddkit.KEEP_DIR[0] = sys.argv[3] if sys.argv[3] != '-' else None
if sys.argv[4:] == ['no-chain']:   # a Python that does not say which chain it verified (3.8, 3.9)
    from ddkit import native
    native.verified_chain = lambda conn: None
try:
    answer = http.request('GET', sys.argv[1], 'get current IP', ca_file=sys.argv[2], retries=0)
    outcome = answer.text.strip()
except Failure as e:
    outcome = 'refused %%s %%s' %% (e.kind, e.verify_code)
print(json.dumps({'outcome': outcome, 'contexts': sorted(
    [key[1] is not None, context.cert_store_stats()['x509_ca']] for key, context in wire.CONTEXTS.items())}))
''' % LIB


@pytest.fixture(params=['native', 'public'])
def interfaces(request):
    return request.param


def client(url, bundle, keep, interfaces, *more):
    env = dict(os.environ, DDKIT_PUBLIC_ONLY='1' if interfaces == 'public' else '')
    done = subprocess.run([sys.executable, '-I', '-S', '-c', CLIENT, url, bundle, str(keep or '-')] + list(more),
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stdout + done.stderr
    return json.loads(done.stdout)


class World:
    """A server with a certificate of one CA, and a bundle of that CA among OTHERS others."""

    def __init__(self, tmp_path, name='127.0.0.1'):
        self.ca, self.others = trustme.CA(), [trustme.CA() for _ in range(OTHERS)]
        self.server = IpLookup('81.2.69.10', self.ca.issue_cert(name)).start()
        self.bundle = str(tmp_path / 'bundle.pem')
        self.write_bundle(self.others[:6] + [self.ca] + self.others[6:])
        self.keep = tmp_path / 'state'
        self.keep.mkdir(mode=0o700)

    def write_bundle(self, cas):
        with open(self.bundle, 'w') as f:
            f.write(''.join(ca.cert_pem.bytes().decode('ascii') for ca in cas))

    def kept(self):
        path = self.keep / FILE
        return path.read_text() if path.exists() else None

    def stop(self):
        self.server.stop()


@pytest.fixture
def world(tmp_path):
    built = World(tmp_path)
    yield built
    built.stop()


def pem(ca):
    return ca.cert_pem.bytes().decode('ascii')


def test_the_first_run_learns_the_anchor_and_the_next_loads_only_it(world, interfaces):
    first = client(world.server.url, world.bundle, world.keep, interfaces)
    assert first == {'outcome': '81.2.69.10', 'contexts': [[False, OTHERS + 1]]}
    assert world.kept() == pem(world.ca)   # the CA the chain ended at, nothing else
    assert os.stat(world.keep / FILE).st_mode & 0o777 == 0o600
    written = os.stat(world.keep / FILE)
    second = client(world.server.url, world.bundle, world.keep, interfaces)
    assert second == {'outcome': '81.2.69.10', 'contexts': [[True, 1]]}
    assert world.server.connections == 2   # one a run: the narrowed handshake succeeded at once
    again = os.stat(world.keep / FILE)
    assert (again.st_ino, again.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)   # not rewritten


def test_without_a_place_to_keep_them_the_whole_bundle_is_read(world, interfaces):
    for _ in range(2):
        assert client(world.server.url, world.bundle, None, interfaces) == {
            'outcome': '81.2.69.10', 'contexts': [[False, OTHERS + 1]]}


def test_a_python_that_does_not_say_its_chain_reads_the_whole_bundle_and_keeps_nothing(world, interfaces):
    for _ in range(2):
        assert client(world.server.url, world.bundle, world.keep, interfaces, 'no-chain') == {
            'outcome': '81.2.69.10', 'contexts': [[False, OTHERS + 1]]}
    assert world.kept() is None


def test_a_chain_interface_that_changed_gives_none(interfaces):
    """ddkit.native.verified_chain: a connection without the method, or one whose chain holds no
    certificates, gives None (the whole bundle then), never a traceback."""
    code = ('import sys; sys.path.insert(0, %r)\n'
            'from ddkit import native\n'
            'class Old: pass\n'
            'class Odd:\n'
            '    def get_verified_chain(self): return [object()]\n'
            'print(native.verified_chain(Old()), native.verified_chain(Odd()))' % LIB)
    env = dict(os.environ, DDKIT_PUBLIC_ONLY='1' if interfaces == 'public' else '')
    done = subprocess.run([sys.executable, '-I', '-S', '-c', code], env=env, capture_output=True, text=True)
    assert done.stdout.split() == ['None', 'None'], done.stderr


def test_a_kept_certificate_the_bundle_no_longer_holds_is_never_trusted(world, interfaces):
    client(world.server.url, world.bundle, world.keep, interfaces)
    world.write_bundle(world.others)   # the CA taken out of the bundle (an update distrusted it)
    done = client(world.server.url, world.bundle, world.keep, interfaces)
    assert done['outcome'].startswith('refused tls '), done
    assert done['contexts'] == [[False, OTHERS]]   # the kept file named it: not loaded
    assert world.kept() == pem(world.ca)


def test_a_planted_certificate_is_never_trusted(world, interfaces):
    """Whatever the file holds, only the bundle's certificates can be loaded."""
    stranger = trustme.CA()
    stranger_server = IpLookup('81.2.69.10', stranger.issue_cert('127.0.0.1')).start()
    try:
        (world.keep / FILE).write_text(pem(stranger) + pem(world.ca))
        os.chmod(str(world.keep / FILE), 0o600)
        done = client(stranger_server.url, world.bundle, world.keep, interfaces)
        assert done['outcome'].startswith('refused tls '), done
        assert [True, 1] in done['contexts']   # the bundle's CA alone, never the planted one
    finally:
        stranger_server.stop()


def test_a_host_with_another_anchor_is_verified_by_the_whole_bundle_and_learned(world, interfaces):
    other = world.others[3]
    (world.keep / FILE).write_text(pem(other))   # an earlier run's host ended at another CA
    os.chmod(str(world.keep / FILE), 0o600)
    done = client(world.server.url, world.bundle, world.keep, interfaces)
    assert done == {'outcome': '81.2.69.10', 'contexts': [[False, OTHERS + 1], [True, 1]]}
    assert world.kept() == pem(world.ca) + pem(other)   # the new one first, the old one kept
    assert client(world.server.url, world.bundle, world.keep, interfaces)['contexts'] == [[True, 2]]


def test_a_certificate_for_another_name_is_still_refused(tmp_path, interfaces):
    world = World(tmp_path, name='other.example')
    try:
        client(world.server.url.replace('127.0.0.1', 'localhost'), world.bundle, world.keep, interfaces)
        (world.keep / FILE).write_text(pem(world.ca))
        os.chmod(str(world.keep / FILE), 0o600)
        done = client(world.server.url, world.bundle, world.keep, interfaces)
        assert done['outcome'].startswith('refused tls '), done
        assert [True, 1] in done['contexts']   # refused with the anchor, then by the whole bundle
    finally:
        world.stop()


def test_a_kept_file_another_user_could_change_is_not_read(world, interfaces):
    client(world.server.url, world.bundle, world.keep, interfaces)
    os.chmod(str(world.keep / FILE), 0o666)   # read_lines(private) takes away what it should not have
    done = client(world.server.url, world.bundle, world.keep, interfaces)
    assert done['outcome'] == '81.2.69.10'
    assert os.stat(world.keep / FILE).st_mode & 0o777 == 0o600


def test_a_link_in_its_place_is_not_followed(world, interfaces, tmp_path):
    target = tmp_path / 'elsewhere.pem'
    target.write_text(pem(world.others[0]))
    os.symlink(str(target), str(world.keep / FILE))
    done = client(world.server.url, world.bundle, world.keep, interfaces)
    assert done == {'outcome': '81.2.69.10', 'contexts': [[False, OTHERS + 1]]}   # the link is no file of ours
    assert target.read_text() == pem(world.others[0])


def test_an_updater_run_keeps_its_anchors_in_its_state_directory(tls_box, tmp_path):
    """updater_a with a bundle: the first run learns the CA, the second (a change) loads it alone;
    the record ends right each time, one connection per host."""
    bundle = tmp_path / 'bundle.pem'
    bundle.write_text(''.join(pem(trustme.CA()) for _ in range(4)) + open(tls_box.ca_file).read())
    state = tmp_path / 'state'
    env = of('updater_a').env(tls_box, state)
    env['DDNS_CA_FILE'] = str(bundle)
    done = run_tool('updater_a', [], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (state / FILE).read_text() == open(tls_box.ca_file).read()
    tls_box.lookup.answer = '81.2.69.77'
    done = run_tool('updater_a', [], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert tls_box.provider_a.find(RECORD)[0]['content'] == '81.2.69.77'
    assert (tls_box.provider_a.connections, tls_box.lookup.connections) == (2, 2)   # no second try
