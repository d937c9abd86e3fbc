"""The address of a LAN host behind the router (ip_source prefix:, eui64:, neigh:), from the router's
kernel: its interface's prefix, or its IPv6 neighbour table. Imported only by runs with such a source."""

from ddkit import Reason, ipcheck
from ddkit.native import os

# neighbour states (include/uapi/linux/neighbour.h) with a known link-layer address: reachable,
# stale, delay, probe, permanent (set by the administrator); stale: not confirmed lately
NUD_KNOWN, NUD_STALE = 0x9e, 0x04
# the neighbour tables of this run (a run is one process): {interface: entries or the OSError}, so
# ten neigh: records on one LAN cost one dump of its table, not ten
DUMPS = {}
PREFIXES = {}   # {interface: its stable global addresses}: read once a run for all its prefix: records


def from_prefix(cfg, spec, operator=None):
    """(address, source, why not): a LAN host's global address (checked as valid_ip does), made of
    the interface's global prefix (the first it fits in; of the operator's, a first group, when
    given), then a fixed interface id (prefix:) or the EUI-64 of the host's MAC (eui64:, the SLAAC
    address)."""
    name, _, arg = spec.partition('/')
    fixed = cfg.ip_source.startswith('prefix:')
    iid = ipcheck.interface_id(arg) if fixed else ipcheck.eui64(ipcheck.mac(arg))
    source = 'prefix of interface %s + %s %s' % (name, 'interface id' if fixed else 'EUI-64 of', arg)
    if name not in PREFIXES:
        from ddkit import iface  # the interface's prefixes; a neigh: run needs none of it
        PREFIXES[name] = iface.global_ipv6(name)
    found = [a for a in PREFIXES[name] if ipcheck.of_operator(a.address, operator)]
    for address in found:
        number = ipcheck.joined(address.address, address.prefixlen, iid)
        if number is not None:   # checked as made: not parsed again from its text
            ip, why = ipcheck.judged(6, number, 'AAAA')
            return ip, source, why
    if not PREFIXES[name]:
        from ddkit import iface
        if iface.flags(name) is None:
            return '', source, Reason('interface %s does not exist' % name, 'no interface')
    # found but no room: e.g. only a /128 (DHCPv6 IA_NA), no host part to put the identifier in
    held = ' the interface id fits in (%s)' % ', '.join('%s/%d' % (a.address, a.prefixlen) for a in found)
    return '', source, Reason('interface %s has no stable global IPv6 prefix%s%s' % (
        name, ipcheck.in_operator_prefix(operator), held if found else ''), 'no address')


def from_neighbour(cfg, spec, operator=None):
    """(address, source, why not): a LAN host's own address, from the router's IPv6 neighbour table:
    a global one of that MAC (of the operator's prefix, a first group, when given), its SLAAC
    (EUI-64) address first, then one the kernel confirmed lately, then stale ones."""
    name, _, text = spec.partition('/')
    mac = ipcheck.mac(text)
    source = 'neighbour %s on interface %s' % (text, name)
    try:
        own = [(address, state) for address, _, state in neighbours(name, mac) if state & NUD_KNOWN]
    except OSError as e:
        return '', source, Reason('cannot read the IPv6 neighbour table of %s: %s' % (name, e.strerror or e),
                                  'no interface' if e.errno == 19 else 'unreadable')   # ENODEV
    slaac = ipcheck.eui64(mac)
    ranked = sorted((ipcheck.join(address, 64, slaac) != address, bool(state & NUD_STALE), address)
                    for address, state in own
                    if ipcheck.valid_ip(address, 'AAAA')[0] and ipcheck.of_operator(address, operator))
    if ranked:
        return ranked[0][2], source, None
    return '', source, Reason('the IPv6 neighbour table of %s has no global address of %s%s%s' % (
        name, text, ipcheck.in_operator_prefix(operator),
        ' (only %s)' % ', '.join(sorted(a for a, _ in own)) if own else ''), 'no address')


def neighbours(ifname, mac=None):
    """The IPv6 neighbour table of ifname, or its entries of one MAC: [(address, MAC bytes, state)].
    Dumped once a run (DUMPS); the addresses are made only of the entries asked for. OSError when the
    interface or the table is not there."""
    import sys
    if ifname not in DUMPS:
        try:
            DUMPS[ifname] = dump(ifname)
        except OSError as e:
            DUMPS[ifname] = e
    if isinstance(DUMPS[ifname], OSError):
        raise DUMPS[ifname]
    return [(_address(message, sys.byteorder), lladdr, state) for lladdr, state, message in DUMPS[ifname]
            if mac is None or lladdr == mac]


def dump(ifname):
    """The raw table of ifname, from the kernel over netlink: [(MAC bytes, state, the ndmsg)] of the
    entries with an address and a MAC, nothing decoded further (most are other hosts').

    Netlink, not `ip -6 neigh`: no program to start (a router may have none, or busybox's), no text
    format to trust, and what `ip` itself asks."""
    import sys
    from ddkit import native
    sockets = native.sockets()   # _socket, or socket
    order = sys.byteorder
    # nlmsghdr: length, RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP, sequence and port 0; ndmsg: AF_INET6
    request = (28).to_bytes(4, order) + (30).to_bytes(2, order) + (0x301).to_bytes(2, order) + bytes(8) \
        + b'\n' + bytes(11)
    # non-blocking: the kernel queues each part of a dump before the call that asks for it returns,
    # so an empty queue is an error, never a wait (and settimeout() would load the clock's code)
    s = sockets.socket(sockets.AF_NETLINK, sockets.SOCK_RAW | sockets.SOCK_NONBLOCK, 0)
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
                if kind == (2).to_bytes(2, order):   # NLMSG_ERROR
                    raise _error(data, at, order)
                if length < 28 or at + length > len(data):   # 16 + the 12 bytes of an ndmsg
                    raise OSError('a malformed netlink answer')
                # an RTM_NEWNEIGH (28) of AF_INET6 (10) on ifname, with an address
                if kind == (28).to_bytes(2, order) and data[at + 16] == 10 and data[at + 20:at + 24] == index:
                    entry = _neighbour(data[at + 16:at + length], order)
                    found += [entry] if entry[2] is not None else []
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
    if len(data) >= 20 and data[4:6] == (2).to_bytes(2, order):   # NLMSG_ERROR
        raise _error(data, 0, order, {19: 'no interface with this name'})   # ENODEV
    if len(data) < 24 or data[4:6] != (16).to_bytes(2, order):   # RTM_NEWLINK
        raise OSError('a malformed netlink answer')
    return data[20:24]


def _error(data, at, order, texts=None):
    """The OSError of the NLMSG_ERROR message at `at`: its negative errno, in texts' words if there."""
    code = -int.from_bytes(data[at + 16:at + 20], order, signed=True)
    return OSError(code, (texts or {}).get(code) or os.strerror(code))


def _neighbour(message, order):
    """(MAC, state, message) of one ndmsg: its NDA_LLADDR (2) attribute found, the address (NDA_DST)
    left as bytes until asked for; the ndmsg is None when it carries no address."""
    lladdr, has_address, at = None, False, 12
    while at + 4 <= len(message):
        length = int.from_bytes(message[at:at + 2], order)
        kind = int.from_bytes(message[at + 2:at + 4], order) & 0x3fff   # without the nested/byte-order bits
        if length < 4:
            break
        if kind == 1 and length == 20:
            has_address = True
        elif kind == 2:
            lladdr = message[at + 4:at + length]
        at += (length + 3) & ~3
    return lladdr, int.from_bytes(message[8:10], order), message if has_address else None


def _address(message, order):
    """The text of an ndmsg's NDA_DST (1) address."""
    from ddkit.ipcheck import address_text
    at = 12
    while at + 4 <= len(message):
        length = int.from_bytes(message[at:at + 2], order)
        if length < 4:
            break
        if int.from_bytes(message[at + 2:at + 4], order) & 0x3fff == 1 and length == 20:
            return address_text(6, int.from_bytes(message[at + 4:at + 20], 'big'))
        at += (length + 3) & ~3
    return None
