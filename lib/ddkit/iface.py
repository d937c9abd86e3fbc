"""Interfaces and their addresses, read from the kernel (never from localized tool output)."""

import os

# /proc/net/if_inet6 flag bits (include/uapi/linux/if_addr.h)
TEMPORARY, NODAD, OPTIMISTIC, DADFAILED, DEPRECATED, TENTATIVE, PERMANENT = (
    0x01, 0x02, 0x04, 0x08, 0x20, 0x40, 0x80)
SCOPE_GLOBAL, SCOPE_LINK, SCOPE_HOST = 0x00, 0x20, 0x10
IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x1, 0x8, 0x40
SIOCGIFFLAGS, SIOCGIFADDR = 0x8913, 0x8915
# neighbour states (include/uapi/linux/neighbour.h) with a known link-layer address: reachable,
# stale, delay, probe, permanent (set by the administrator); stale: not confirmed lately
NUD_KNOWN, NUD_STALE = 0x9e, 0x04


class Addr6:
    """One line of /proc/net/if_inet6."""

    def __init__(self, address, ifname, prefixlen, scope, flags):
        self.address, self.ifname, self.prefixlen, self.scope, self.flags = (
            address, ifname, prefixlen, scope, flags)

    @property
    def stable(self):
        """Usable as a long-lived source: not temporary, deprecated, tentative or DAD-failed."""
        return not self.flags & (TEMPORARY | DEPRECATED | TENTATIVE | DADFAILED)

    @property
    def usable(self):
        """Can be a source address now: DAD has not failed and is over (or the address is optimistic)."""
        return not self.flags & DADFAILED and (not self.flags & TENTATIVE or bool(self.flags & OPTIMISTIC))

    def describe(self):
        words = [w for bit, w in ((TEMPORARY, 'temporary'), (DEPRECATED, 'deprecated'),
                                  (TENTATIVE, 'tentative'), (DADFAILED, 'DAD failed'),
                                  (PERMANENT, 'permanent')) if self.flags & bit]
        return ', '.join(words) or 'dynamic'


def ipv6_addresses(path='/proc/net/if_inet6'):
    """Every IPv6 address of this network namespace, in the kernel's order."""
    from ddkit.ipcheck import address_text
    found = []
    try:
        with open(path) as f:
            lines = f.read().split('\n')
    except OSError:
        return found
    for line in lines:
        parts = line.split()
        if len(parts) != 6 or len(parts[0]) != 32:
            continue
        address = address_text(6, int(parts[0], 16))
        found.append(Addr6(address, parts[5], int(parts[2], 16), int(parts[3], 16), int(parts[4], 16)))
    return found


def global_ipv6(ifname):
    """The interface's stable global unicast addresses (no ULA, link-local or temporary), best first."""
    found = [a for a in ipv6_addresses() if a.ifname == ifname and a.scope == SCOPE_GLOBAL
             and a.stable and not a.address.lower().startswith(('fc', 'fd', 'fe8', 'fe9', 'fea', 'feb'))]
    return sorted(found, key=lambda a: not a.flags & PERMANENT)


def best_first(addresses):
    """Usable addresses, stable first (then temporary, then deprecated), permanent before dynamic.

    A temporary address is replaced within a day and a deprecated one is on its way out, so a rule
    or record bound to either breaks soon; otherwise the kernel's order is kept."""
    return sorted((a for a in addresses if a.usable), key=lambda a: (
        bool(a.flags & DEPRECATED), bool(a.flags & TEMPORARY), not a.flags & PERMANENT))


def interfaces():
    """Interface names in the kernel's order."""
    try:
        with open('/proc/net/dev') as f:
            return [line.split(':', 1)[0].strip() for line in f.read().splitlines()[2:] if ':' in line]
    except OSError:
        return sorted(os.listdir('/sys/class/net')) if os.path.isdir('/sys/class/net') else []


def _ifreq(ifname, request, size=40):
    """One SIOCGIF* ioctl: struct ifreq is the name in 16 bytes, then the answer. Built by hand in a
    mutable buffer: struct, or an immutable buffer copied back, loads code no other step needs."""
    import _socket
    import fcntl
    name = ifname.encode()[:15]
    ifreq = bytearray(size)
    ifreq[:len(name)] = name
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        fcntl.ioctl(s.fileno(), request, ifreq, True)   # the answer is written into ifreq
    finally:
        s.close()
    return bytes(ifreq)


def flags(ifname):
    """The interface flags as `ip link` shows them (RUNNING included); None if there is no such device."""
    import sys
    try:
        return int.from_bytes(_ifreq(ifname, SIOCGIFFLAGS)[16:18], sys.byteorder)
    except OSError:
        return None


def ipv4_address(ifname):
    """The interface's primary IPv4 address, or None."""
    from ddkit.ipcheck import address_text
    try:
        return address_text(4, int.from_bytes(_ifreq(ifname, SIOCGIFADDR)[20:24], 'big'))
    except OSError:
        return None


def neighbours(ifname):
    """The IPv6 neighbour table of ifname: [(address, MAC bytes, state)], from the kernel over netlink.

    Netlink, not `ip -6 neigh`: no program to start (a router may have none, or busybox's), no text
    format to trust, and what `ip` itself asks. OSError when the interface or the table is not there."""
    import _socket
    import sys
    order = sys.byteorder
    # nlmsghdr: length, RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP, sequence and port 0; ndmsg: AF_INET6
    request = (28).to_bytes(4, order) + (30).to_bytes(2, order) + (0x301).to_bytes(2, order) + bytes(8) \
        + b'\n' + bytes(11)
    # non-blocking: the kernel queues each part of a dump before the call that asks for it returns,
    # so an empty queue is an error, never a wait (and settimeout() would load the clock's code)
    s = _socket.socket(_socket.AF_NETLINK, _socket.SOCK_RAW | _socket.SOCK_NONBLOCK, 0)
    try:
        # connected to the kernel (port 0), the socket takes messages from it alone: the kernel refuses
        # any other sender's; send and recv then carry no address (sendto/recvfrom, which do, load
        # 128 KiB of interpreter code that nothing else in the run uses)
        s.connect((0, 0))
        index = _link_index(s, ifname, order)
        s.send(request)
        found = []
        for _ in range(4096):   # a table is bounded (gc_thresh3): so is the reading of it
            data = s.recv(32768)   # the most the kernel puts in one answer of a dump
            at = 0
            while at + 20 <= len(data):
                length, kind = int.from_bytes(data[at:at + 4], order), data[at + 4:at + 6]
                if kind == (3).to_bytes(2, order):   # NLMSG_DONE
                    return found
                if kind == (2).to_bytes(2, order):   # NLMSG_ERROR: a negative errno
                    code = -int.from_bytes(data[at + 16:at + 20], order, signed=True)
                    raise OSError(code, os.strerror(code))
                if length < 28 or at + length > len(data):   # 16 + the 12 bytes of an ndmsg
                    raise OSError('a malformed netlink answer')
                # an RTM_NEWNEIGH (28) of AF_INET6 (10) on ifname, with an address
                if kind == (28).to_bytes(2, order) and data[at + 16] == 10 and data[at + 20:at + 24] == index:
                    entry = _neighbour(data[at + 16:at + length], order)
                    found += [entry] if entry[0] else []
                at += (length + 3) & ~3
        raise OSError('the neighbour table did not end')
    finally:
        s.close()


def _link_index(s, ifname, order):
    """ifname's index (4 bytes), asked of the kernel on the netlink socket s: namespace-right, unlike
    /sys, and without if_nametoindex(), which maps 64 KiB of the C library nothing else here uses."""
    name = ifname.encode() + b'\0'
    attribute = (4 + len(name)).to_bytes(2, order) + (3).to_bytes(2, order) + name   # IFLA_IFNAME
    attribute += bytes(-len(attribute) % 4)
    # nlmsghdr: length, RTM_GETLINK, NLM_F_REQUEST, sequence and port 0; ifinfomsg: all 0; the name
    s.send((32 + len(attribute)).to_bytes(4, order) + (18).to_bytes(2, order) + (1).to_bytes(2, order)
           + bytes(24) + attribute)
    data = s.recv(32768)   # answered before send() returned
    if len(data) >= 20 and data[4:6] == (2).to_bytes(2, order):   # NLMSG_ERROR: a negative errno
        code = -int.from_bytes(data[16:20], order, signed=True)
        raise OSError(code, 'no interface with this name' if code == 19 else os.strerror(code))  # ENODEV
    if len(data) < 24 or data[4:6] != (16).to_bytes(2, order):   # RTM_NEWLINK
        raise OSError('a malformed netlink answer')
    return data[20:24]


def _neighbour(message, order):
    """(address, MAC, state) of one ndmsg and its attributes NDA_DST (1) and NDA_LLADDR (2)."""
    from ddkit.ipcheck import address_text
    address, lladdr, at = None, None, 12
    while at + 4 <= len(message):
        length = int.from_bytes(message[at:at + 2], order)
        kind = int.from_bytes(message[at + 2:at + 4], order) & 0x3fff   # without the nested/byte-order bits
        if length < 4:
            break
        if kind == 1 and length == 20:
            address = address_text(6, int.from_bytes(message[at + 4:at + 20], 'big'))
        elif kind == 2:
            lladdr = message[at + 4:at + length]
        at += (length + 3) & ~3
    return address, lladdr, int.from_bytes(message[8:10], order)
