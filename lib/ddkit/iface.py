"""Interfaces and their addresses, read from the kernel (never from localized tool output)."""

from ddkit.native import os

# /proc/net/if_inet6 flag bits (include/uapi/linux/if_addr.h)
TEMPORARY, NODAD, OPTIMISTIC, DADFAILED, DEPRECATED, TENTATIVE, PERMANENT = (
    0x01, 0x02, 0x04, 0x08, 0x20, 0x40, 0x80)
SCOPE_GLOBAL, SCOPE_LINK, SCOPE_HOST = 0x00, 0x20, 0x10
IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x1, 0x8, 0x40
SIOCGIFFLAGS, SIOCGIFADDR = 0x8913, 0x8915


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
    import fcntl
    from ddkit import native
    sockets = native.sockets()   # _socket, or socket
    name = ifname.encode()[:15]
    ifreq = bytearray(size)
    ifreq[:len(name)] = name
    s = sockets.socket(sockets.AF_INET, sockets.SOCK_DGRAM)
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
