"""Real network namespaces for the egress6 tests.

A Lab is two namespaces: "host" (where the tool runs; veth interfaces with operator addresses) and
"server" (the other end of every veth; the lookup service of tests/fakes/lookup6.py listens there on
the documentation address 2001:db8::1, served by this process). Nothing touches the root namespace's firewall or links.
"""

import contextlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = '2001:db8::1'
GATEWAY = 'fe80::1'          # the server side of every veth, the host's next hop to SERVER
_count = itertools.count()


def unavailable():
    """Why namespaces cannot be built here (None when they can)."""
    if not sys.platform.startswith('linux'):
        return 'not Linux'
    if os.geteuid() != 0:
        return 'not root (ip netns needs root)'
    for program in ('ip', 'ip6tables', 'nft', 'setpriv'):
        if not shutil.which(program):
            return '%s not found (apt-get install iproute2 iptables nftables util-linux)' % program
    probe = 'e6probe-%d' % os.getpid()
    done = subprocess.run(['ip', 'netns', 'add', probe], capture_output=True, text=True)
    if done.returncode != 0:
        return 'ip netns add failed: %s' % done.stderr.strip()
    subprocess.run(['ip', 'netns', 'del', probe], capture_output=True)
    return None


def require():
    """Skip the calling test where namespaces cannot be built, printing why; under CI=true, fail."""
    reason = unavailable()
    if reason:
        import needs
        needs.missing(reason)


def sh(argv, check=True):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError('%s failed (%d): %s' % (' '.join(argv), done.returncode, done.stderr.strip()))
    return done


class Lab:
    """A host namespace and a server namespace joined by veth pairs."""

    def __init__(self):
        tag = '%d-%d' % (os.getpid(), next(_count))
        self.host, self.server = 'e6h-' + tag, 'e6s-' + tag
        self.links = {}            # host interface -> server peer
        self.lookup = None
        self.tmp = tempfile.mkdtemp(prefix='egress6-')
        self.log = os.path.join(self.tmp, 'requests.jsonl')
        for ns in (self.host, self.server):
            sh(['ip', 'netns', 'add', ns])
            sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up'])
        sh(['ip', '-n', self.server, 'addr', 'add', SERVER + '/128', 'dev', 'lo', 'nodad'])

    # --- building ----------------------------------------------------------------------------
    def link(self, name, addresses=(), route=False, keep_addr_on_down=False, dad=False, extra=(),
             peer_addresses=()):
        """A veth `name` in the host namespace with these /64 addresses; `route`: the way to SERVER."""
        peer = 'up%d' % len(self.links)
        sh(['ip', '-n', self.host, 'link', 'add', name, 'type', 'veth', 'peer', 'name', peer,
            'netns', self.server])
        self.links[name] = peer
        for address in peer_addresses:
            sh(['ip', '-n', self.server, 'addr', 'add', address + '/64', 'dev', peer, 'nodad'])
        if keep_addr_on_down:
            self.sysctl('net.ipv6.conf.%s.keep_addr_on_down' % name, '1')
        for address in addresses:
            self.add_address(name, address, dad=dad, extra=extra, way_back=False)
        sh(['ip', '-n', self.server, 'addr', 'add', GATEWAY + '/64', 'dev', peer, 'nodad'])
        sh(['ip', '-n', self.server, 'link', 'set', peer, 'up'])
        sh(['ip', '-n', self.host, 'link', 'set', name, 'up'])
        self.wait_state(name, running=True)
        for address in addresses:
            self.way_back(name, address)
        if route:
            sh(['ip', '-n', self.host, '-6', 'route', 'replace', '2001:db8::/32', 'via', GATEWAY,
                'dev', name])
        return name

    def add_address(self, name, address, dad=False, extra=(), way_back=True):
        sh(['ip', '-n', self.host, 'addr', 'add', address + '/64', 'dev', name] + list(extra)
           + ([] if dad else ['nodad']))
        if way_back:
            self.way_back(name, address)

    def way_back(self, name, address):
        """The server's route to a host address: on-link through that veth."""
        sh(['ip', '-n', self.server, '-6', 'route', 'replace', address + '/128', 'dev', self.links[name]])

    def advertise(self, name, prefix, temporary=True):
        """Send a router advertisement for prefix::/64 down `name`: the host's kernel makes a SLAAC
        address (and, with use_tempaddr=2, a temporary one), as on a real LAN."""
        for key, value in (('accept_ra', '2'), ('use_tempaddr', '2' if temporary else '0'),
                           ('dad_transmits', '0')):
            self.sysctl('net.ipv6.conf.%s.%s' % (name, key), value)
        sh(['ip', '-n', self.server, '-6', 'route', 'replace', prefix + '/64', 'dev', self.links[name]])
        sh(['ip', 'netns', 'exec', self.server, sys.executable, os.path.abspath(__file__), 'ra',
            self.links[name], prefix])

    def wait_addresses(self, name, prefix, count, limit=10.0):
        """Wait until `name` holds `count` addresses whose first group is `prefix`'s."""
        group = prefix.split(':', 1)[0].zfill(4)
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            lines = [line.split() for line in self.read('/proc/net/if_inet6').splitlines()]
            found = [p for p in lines if p[5] == name and p[0].startswith(group) and not int(p[4], 16) & 0x40]
            if len(found) >= count:
                return found
            time.sleep(0.1)
        raise RuntimeError('%s never got %d addresses under %s' % (name, count, prefix))

    def sysctl(self, key, value):
        sh(['ip', 'netns', 'exec', self.host, 'sysctl', '-q', '-w', '%s=%s' % (key, value)])

    def read(self, path):
        return sh(['ip', 'netns', 'exec', self.host, 'cat', path]).stdout

    def cut(self, name):
        """Take the server end down: the host interface stays UP but loses its carrier (not RUNNING)."""
        sh(['ip', '-n', self.server, 'link', 'set', self.links[name], 'down'])
        self.wait_state(name, running=False)

    def wait_state(self, name, running, limit=10.0):
        """New veths need a moment to become RUNNING (operstate UP), and a cut one to stop."""
        deadline = time.monotonic() + limit
        while True:
            out = sh(['ip', '-n', self.host, '-o', 'link', 'show', 'dev', name]).stdout
            if (' state UP ' in out) == running:
                return
            if time.monotonic() > deadline:
                raise RuntimeError('%s did not become %s: %s' % (name, 'RUNNING' if running else 'down', out))
            time.sleep(0.05)

    def wait_flag(self, address, flag, limit=10.0):
        """Wait until /proc/net/if_inet6 shows `flag` on the address (e.g. 0x08 DAD failed)."""
        import ipaddress
        want = ipaddress.IPv6Address(address).exploded.replace(':', '')
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            for line in self.read('/proc/net/if_inet6').splitlines():
                parts = line.split()
                if parts[0] == want and int(parts[4], 16) & flag:
                    return
            time.sleep(0.1)
        raise RuntimeError('%s never got flag %#x' % (address, flag))

    # --- the lookup service ------------------------------------------------------------------
    def start_lookup(self):
        """Start tests/fakes/lookup6.py's server in the server namespace (its socket made there, served
        by threads of this process); returns its base URL."""
        from fakes.lookup6 import Lookup6
        with inside(self.server):
            self.lookup = Lookup6(SERVER, self.log).start()
        self.port = self.lookup.port
        return self.url('')

    def url(self, route):
        return 'http://[%s]:%d%s' % (SERVER, self.port, route)

    def requests(self):
        """What the lookup service saw, in order: [{'route', 'path', 'client'}]."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]

    # --- what the kernel shows -----------------------------------------------------------------
    def ip6tables_rules(self):
        out = sh(['ip', 'netns', 'exec', self.host, 'ip6tables', '-t', 'nat', '-S', 'POSTROUTING']).stdout
        return [line for line in out.splitlines() if line.startswith('-A ')]

    def nft_rules(self):
        """Rule lines of our table (handles dropped); [] when the table does not exist."""
        done = sh(['ip', 'netns', 'exec', self.host, 'nft', 'list', 'chain', 'ip6', 'egress6', 'postrouting'],
                  check=False)
        return [line.strip() for line in done.stdout.splitlines()
                if line.strip() and not line.strip().startswith(('table', 'chain', 'type', '}'))]

    def nft_ruleset(self):
        return sh(['ip', 'netns', 'exec', self.host, 'nft', 'list', 'ruleset']).stdout

    def in_host(self, argv, check=True):
        return sh(['ip', 'netns', 'exec', self.host] + list(argv), check=check)

    def prefix(self, user=None):
        """The command prefix that runs the tool in the host namespace (as `user` when given)."""
        argv = ['ip', 'netns', 'exec', self.host]
        if user:
            interpreter_runs_as(user)
            argv += ['setpriv', '--reuid=%s' % user, '--regid=%s' % user_group(user), '--clear-groups']
        return argv

    def close(self):
        if self.lookup:
            self.lookup.stop()
        for ns in (self.host, self.server):
            sh(['ip', 'netns', 'del', ns], check=False)   # takes its veths and rules with it
        shutil.rmtree(self.tmp, ignore_errors=True)


CLONE_NEWNET = 0x40000000


@contextlib.contextmanager
def inside(namespace):
    """This thread in a named network namespace meanwhile: the sockets it makes live there, so servers
    started inside it (the provider fakes) are reached at 127.0.0.1 by a tool run in that namespace,
    with no link to the root namespace."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    own = os.open('/proc/thread-self/ns/net', os.O_RDONLY)
    target = os.open('/run/netns/' + namespace, os.O_RDONLY)
    try:
        if libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), 'setns into %s' % namespace)
        try:
            yield
        finally:
            if libc.setns(own, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), 'setns back')
    finally:
        os.close(own)
        os.close(target)


def interpreter_runs_as(user):
    """Skip the calling test when this Python cannot start as user at all: a build whose shared
    library is under a directory only root can enter (pyenv's under /root); under CI=true, fail."""
    import sys
    done = subprocess.run(['setpriv', '--reuid=%s' % user, '--regid=%s' % user_group(user), '--clear-groups',
                           sys.executable, '-c', 'pass'], capture_output=True, text=True)
    if done.returncode != 0:
        import needs
        needs.missing('%s cannot start as %s: %s' % (sys.executable, user, done.stderr.strip()[:200]))


def user_group(user):
    import grp
    import pwd
    return grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name


def hide(argv):
    """`netns.py hide PROGRAM -- COMMAND...`: in a private mount namespace (run under `unshare -m`),
    cover PROGRAM with an empty, non-executable file, then run COMMAND: a host without it."""
    at = argv.index('--')
    for program in argv[:at]:
        target = os.path.realpath(shutil.which(program) or program)
        fd, empty = tempfile.mkstemp(prefix='hidden-')
        os.close(fd)
        subprocess.run(['mount', '--bind', empty, target], check=True)
        os.unlink(empty)   # the mount keeps the file alive for this namespace only
    os.execvp(argv[at + 1], argv[at + 1:])


def router_advertisement(ifname, prefix):
    """`netns.py ra IFNAME PREFIX`: one RA (RFC 4861) from fe80::1 to all nodes, prefix PREFIX/64
    on-link and autonomous; router lifetime 0, so no default route changes."""
    import socket
    import struct
    ra = struct.pack('!BBHBBHII', 134, 0, 0, 64, 0, 0, 0, 0)
    info = struct.pack('!BBBBIII', 3, 4, 64, 0xC0, 86400, 14400, 0)   # prefix info: on-link, autonomous
    info += socket.inet_pton(socket.AF_INET6, prefix)
    sock = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)  # kernel sums it
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_LOOP, 0)   # not for the sender
    index = socket.if_nametoindex(ifname)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, index)
    sock.bind((GATEWAY, 0, 0, index))
    sock.sendto(ra + info, ('ff02::1', 0, 0, index))
    sock.close()


if __name__ == '__main__':
    if sys.argv[1:2] == ['hide']:
        hide(sys.argv[2:])
    elif sys.argv[1:2] == ['ra']:
        router_advertisement(*sys.argv[2:4])
