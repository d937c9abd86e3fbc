"""IP checks: is this text one global address of the record's family?

Parsed here, as strictly as inet_pton, and checked against IANA's special-purpose registries below,
not with ipaddress: that module alone costs a router more start-up time and memory than the rest of
a run that finds nothing to do, and even the socket module's inet_pton adds a visible share of the
peak memory of such a run (BENCHMARKS.md).
"""

from ddkit import Reason, decimal

# the operators whose lines a home has, by code, and the first group of the IPv6 addresses of their
# delegated prefixes: egress6 picks a line by it, the DNS updaters' `lines` publish each line's address
OPERATORS = {'ct': '240e', 'cm': '2409', 'cu': '2408'}
OPERATOR_NAMES = {'ct': 'China Telecom', 'cm': 'China Mobile', 'cu': 'China Unicom'}

HEX_DIGITS = frozenset('0123456789abcdefABCDEF')
HEX = '0123456789abcdef'

# (network, prefix length, kind): not globally reachable (IANA special-purpose registries, as
# Python's ipaddress lists them); the first match names the kind
SPECIAL4 = [('127.0.0.0', 8, 'loopback'), ('169.254.0.0', 16, 'link-local'),
            ('0.0.0.0', 8, 'private'), ('10.0.0.0', 8, 'private'), ('172.16.0.0', 12, 'private'),
            ('192.0.0.9', 32, None), ('192.0.0.10', 32, None),   # global exceptions inside 192.0.0.0/24
            ('192.0.0.0', 24, 'private'), ('192.0.2.0', 24, 'private'),
            ('192.168.0.0', 16, 'private'), ('198.18.0.0', 15, 'private'), ('198.51.100.0', 24, 'private'),
            ('203.0.113.0', 24, 'private'), ('240.0.0.0', 4, 'private'), ('224.0.0.0', 4, 'multicast'),
            ('100.64.0.0', 10, 'carrier-grade NAT')]
SPECIAL6 = [('::1', 128, 'loopback'), ('fe80::', 10, 'link-local'), ('::', 128, 'private'),
            ('64:ff9b:1::', 48, 'private'), ('100::', 64, 'private'),
            ('2001:1::1', 128, None), ('2001:1::2', 128, None), ('2001:3::', 32, None),
            ('2001:4:112::', 48, None), ('2001:20::', 28, None), ('2001:30::', 28, None),
            ('2001::', 23, 'private'), ('2001:db8::', 32, 'private'), ('2002::', 16, 'private'),
            ('3fff::', 20, 'private'),   # documentation (RFC 9637), as 2001:db8::/32; Python 3.14 agrees
            ('fc00::', 7, 'private'), ('ff00::', 8, 'multicast'),
            ('2000::', 3, None), ('::', 0, 'reserved')]   # only 2000::/3 is global unicast


def first_group(address):
    """The first group of an IPv6 address, lower-case hex ('' when it is not IPv6-looking)."""
    head = (address or '').strip().lower().split(':', 1)
    return head[0] if len(head) == 2 else ''


def of_operator(address, operator):
    """True when the IPv6 address is in the operator's prefix (operator: a first group), or no
    operator is asked for."""
    return operator is None or first_group(address) == operator


def in_operator_prefix(operator):
    """' in <first group>::/16', an operator's prefix in a message ('' for none)."""
    return ' in %s::/16' % operator if operator else ''


def valid_ip(text, record_type):
    """Return (address, None) for a global address of the family of record_type ('A' or 'AAAA'),
    else (None, why), why a ddkit.Reason: HTML pages, empty answers, private, loopback, link-local,
    CGNAT, wrong family."""
    text = (text or '').strip()
    if not text:
        return None, Reason('the answer was empty', 'empty')
    if len(text) > 45 or '<' in text or ' ' in text:
        return None, Reason('the answer is not an address: %r' % text[:40], 'not an address')
    version, number = _parse(text)
    if version is None:
        return None, Reason('the answer is not an address: %r' % text, 'not an address')
    return judged(version, number, record_type)


def judged(version, number, record_type):
    """valid_ip's verdict on an address already parsed (version, integer)."""
    ip = address_text(version, number)
    want = 6 if record_type == 'AAAA' else 4
    if version != want:
        return None, Reason('%s is an IPv%d address, the %s record needs IPv%d' % (ip, version, record_type, want),
                            'wrong family')
    if version == 6 and number >> 32 == 0xffff:
        return None, Reason('%s is an IPv4-mapped address' % ip, 'mapped')
    kind = _special(version, number)
    if kind:
        return None, Reason('%s is not a public address (%s)' % (ip, kind), 'not public')
    return ip, None


def same_ip(a, b):
    """True when two address texts name the same address (IPv6 may be written differently)."""
    if a == b:
        return True
    if not a or not b or ':' not in a or ':' not in b:
        return False
    first, second = _parse(a.strip()), _parse(b.strip())
    return first[0] is not None and first == second


def ipv6(text):
    """The canonical text of an IPv6 address (any scope), or None when text is not one."""
    version, number = _parse(text.strip()) if ':' in text else (None, None)
    return address_text(6, number) if version == 6 else None


def interface_id(text):
    """A LAN host's interface identifier written as an IPv6 address (::1a2b:3c4d:5e6f:7890), as an
    integer; None unless it is one, not zero, and fits the host part of a /48 (a site's shortest)."""
    if text not in _IIDS:   # a prefix: source's is read when its setting is checked, and by the run
        version, number = _parse(text.strip()) if ':' in text else (None, None)
        _IIDS[text] = number if version == 6 and 0 < number < 1 << 80 else None
    return _IIDS[text]


_IIDS = {}   # text -> interface_id(text), for the records of a run


def mac(text):
    """A device's MAC address (six hex pairs split by ':' or '-') as 6 bytes; None for anything else,
    a group (multicast) address included."""
    parts = text.replace('-', ':').split(':')
    if len(parts) != 6 or any(len(p) != 2 or not HEX_DIGITS.issuperset(p) for p in parts):
        return None
    found = bytes(int(p, 16) for p in parts)
    return found if not found[0] & 1 else None


def mac_text(found):
    """The lower-case colon form of a MAC address (6 bytes)."""
    return ':'.join(HEX[b >> 4] + HEX[b & 15] for b in found)


def eui64(found):
    """The modified EUI-64 interface identifier of a MAC (RFC 4291 appendix A): ff:fe in the middle,
    the universal/local bit inverted; what SLAAC makes of it. The bit is flipped in the number: bytes
    from a list load 64 KiB of interpreter code that the neigh: run uses nowhere else."""
    return int.from_bytes(found[:3] + b'\xff\xfe' + found[3:], 'big') ^ 1 << 57


def join(address, prefixlen, iid):
    """The address of the first prefixlen bits of address followed by interface identifier iid, or
    None when iid does not fit in the host part (the prefix length is the address's own)."""
    number = joined(address, prefixlen, iid)
    return None if number is None else address_text(6, number)


def joined(address, prefixlen, iid):
    """join's address as an integer, or None."""
    if not 0 <= prefixlen <= 128 or iid >> (128 - prefixlen):
        return None
    number = _PREFIXES.get(address)
    if number is None:   # the records of a run join their few interfaces' addresses: parsed once
        if len(_PREFIXES) >= PREFIXES_KEPT:
            _PREFIXES.clear()
        number = _PREFIXES[address] = _parse6(address)
    return number >> (128 - prefixlen) << (128 - prefixlen) | iid


_PREFIXES = {}   # an interface address's text (as ddkit.iface gives it) -> the address as an integer
PREFIXES_KEPT = 64


def parse(text):
    """(4 or 6, the address as an integer), or (None, None) when text is not one address."""
    return _parse(text)


def _parse(text):
    """(4 or 6, the address as an integer), or (None, None) when text is not one address."""
    number = _parse6(text) if ':' in text else _parse4(text)
    return (None, None) if number is None else (6 if ':' in text else 4, number)


def _parse4(text):
    """A dotted quad as an integer, or None; a leading zero is refused (ambiguous, as ipaddress says)."""
    parts = text.split('.')
    if len(parts) != 4:
        return None
    number = 0
    for part in parts:
        value = decimal(part)
        if value is None or value > 255 or part[0] == '0' and len(part) > 1:
            return None
        number = number << 8 | value
    return number


def _parse6(text):
    """An IPv6 address (RFC 4291 text: one "::" at most, a dotted quad last) as an integer, or None."""
    head, gap, tail = text.partition('::')
    groups = []
    for side in (head, tail) if gap else (text,):
        groups.append(side.split(':') if side else [])
    if '.' in text:   # the last 32 bits as a dotted quad: only as the last group
        quad = _parse4(groups[-1].pop()) if groups[-1] else None
        if quad is None:
            return None
        groups[-1] += [_hex(quad >> 16), _hex(quad & 0xffff)]
    count = sum(len(g) for g in groups)
    if count > 7 if gap else count != 8:   # "::" stands for one zero group or more
        return None
    number = 0
    for i, side in enumerate(groups):
        for group in side:
            if not 0 < len(group) < 5 or not HEX_DIGITS.issuperset(group):
                return None
            number = number << 16 | int(group, 16)
        if gap and i == 0:
            number <<= 16 * (8 - count)
    return number


def address_text(version, number):
    """The canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run as ::)."""
    if version == 4:
        return '.'.join(str(number >> shift & 255) for shift in (24, 16, 8, 0))
    # the bytes' own hex (no number formatting code) in groups between colons, each group's leading
    # zeros dropped (three at most: a zero group stays '0'), each step one call for all eight groups
    text = (':%s:' % number.to_bytes(16, 'big').hex(':', 2)).replace(':0', ':').replace(':0', ':').replace(':0', ':')
    for run in ZERO_RUNS:   # the longest run of two zero groups or more, the first of those as long: '::'
        at = text.find(run)
        if at >= 0:
            return text[1:at] + '::' + text[at + len(run):-1]
    return text[1:-1]


ZERO_RUNS = tuple(':' + '0:' * count for count in range(8, 1, -1))   # ':0:0:...:0:', longest first


def _hex(value):
    """A 16-bit group in lower-case hex, no leading zeros; by table: the interpreter's own number
    formatting ('%x') is code no other step of a cheap run loads (BENCHMARKS.md)."""
    digits = HEX[value >> 12] + HEX[value >> 8 & 15] + HEX[value >> 4 & 15] + HEX[value & 15]
    return digits.lstrip('0') or '0'


_NETWORKS = {}   # version -> the special networks by their first byte or group (_networks): parsed once a run


def _special(version, number):
    """The kind of a non-global address ('private', 'loopback', ...), or None when it is global."""
    if version not in _NETWORKS:   # a run of many records checks many addresses: parse the table once
        _NETWORKS[version] = _networks(version)
    by_first, wider, shift = _NETWORKS[version]
    for top, bits, kind in by_first.get(number >> shift, wider):
        if number >> bits == top:
            return kind
    return None


def _networks(version):
    """SPECIAL4 or SPECIAL6 as (by_first, wider, shift): each network as (its top bits, how many bits
    to shift an address to compare it with them, kind), in the table's order; `by_first`, for each
    first byte (IPv4) or group (IPv6) a network of a prefix that long or longer is in, the networks
    an address there may be in: those, and the ones of a shorter prefix (`wider`), which alone are
    the networks of an address of any other first byte or group; shift: an address's bits after its
    first byte or group. The first match is the table's, and an address is held against two to five
    networks instead of twenty."""
    bits, head = (32, 8) if version == 4 else (128, 16)
    by_first, wider = {}, []
    for network, length, kind in SPECIAL4 if version == 4 else SPECIAL6:
        top = _parse(network)[1] >> (bits - length)
        if length < head:   # in the list of every first byte or group, the ones to come too
            wider.append((top, bits - length, kind))
            for listed in by_first.values():
                listed.append(wider[-1])
        else:
            by_first.setdefault(top >> (length - head), list(wider)).append((top, bits - length, kind))
    return by_first, wider, bits - head
