"""ddkit.ipcheck decides what a public address is without the ipaddress module (start-up cost): the
same verdicts as Python's ipaddress for every IPv4 and 2000::/3 address, stricter outside it."""

import ipaddress
import os
import random
import sys

import pytest

from conftest import FULL, ROOT

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import ipcheck  # noqa: E402


def reference(text, record_type):
    """The verdict the tools gave with ipaddress (Debian's 3.11 registry, the current one)."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if ip.version != (6 if record_type == 'AAAA' else 4) or ip.version == 6 and ip.ipv4_mapped:
        return None
    return str(ip) if ip.is_global and not ip.is_multicast else None


def sample(share=1 if FULL else 4):
    """Random addresses: IPv4 ones anywhere, IPv6 ones about the registry's blocks (make test takes a
    quarter of these: each block is still met hundreds of times)."""
    rnd = random.Random(9)
    for _ in range(20000):
        yield str(ipaddress.IPv4Address(rnd.getrandbits(32)))
    for first in (0x2000, 0x2001, 0x2002, 0x2400, 0x2408, 0x2409, 0x240e, 0x2606, 0x3fff):
        for _ in range(2000 // share):
            second = rnd.choice([0, 1, 2, 3, 4, 0x10, 0x20, 0x30, 0xdb8, rnd.getrandbits(16)])
            number = first << 112 | second << 96 | rnd.getrandbits(rnd.choice([8, 40, 96]))
            yield str(ipaddress.IPv6Address(number))
            yield ipaddress.IPv6Address(number).exploded


# where Python versions disagree (the registry was revised in 3.11.10, 3.12.4 and 3.13; 3fff::/20, the
# documentation prefix of RFC 9637, in 3.14): pinned below
REVISED = [ipaddress.ip_network(n) for n in ('2001::/23', '2002::/16', '64:ff9b:1::/48', '192.0.0.0/24',
                                             '3fff::/20')]


def test_same_verdict_as_ipaddress_for_ipv4_and_global_unicast():
    texts = [t for t in sample() if not any(ipaddress.ip_address(t) in n for n in REVISED
                                            if n.version == ipaddress.ip_address(t).version)]
    wrong = [(t, reference(t, rt), ipcheck.valid_ip(t, rt)) for t in texts
             for rt in (('AAAA',) if ':' in t else ('A',)) if reference(t, rt) != ipcheck.valid_ip(t, rt)[0]]
    assert wrong == []


@pytest.mark.parametrize('text, record_type, why', [
    ('192.168.1.20', 'A', 'not a public address (private)'),
    ('100.64.3.4', 'A', 'not a public address (carrier-grade NAT)'),
    ('127.0.0.1', 'A', 'not a public address (loopback)'),
    ('169.254.1.1', 'A', 'not a public address (link-local)'),
    ('224.0.0.1', 'A', 'not a public address (multicast)'),
    ('fe80::1', 'AAAA', 'not a public address (link-local)'),
    ('fd00::1', 'AAAA', 'not a public address (private)'),
    ('::1', 'AAAA', 'not a public address (loopback)'),
    ('ff02::1', 'AAAA', 'not a public address (multicast)'),
    ('fec0::1', 'AAAA', 'not a public address (reserved)'),     # ipaddress calls these global
    ('2001:db8::1', 'AAAA', 'not a public address (private)'),
    ('3fff:234::1', 'AAAA', 'not a public address (private)'),   # documentation, RFC 9637 (3fff::/20)
    ('3fff:0fff:ffff::1', 'AAAA', 'not a public address (private)'),
    ('2001:2::1', 'AAAA', 'not a public address (private)'),     # the revised registry's verdicts
    ('2002:5102:450a::1', 'AAAA', 'not a public address (private)'),
    ('64:ff9b:1::1', 'AAAA', 'not a public address (private)'),
    ('192.0.0.8', 'A', 'not a public address (private)'),
    ('::ffff:81.2.69.10', 'AAAA', 'IPv4-mapped'),
    ('2606:4700::1111', 'A', 'is an IPv6 address, the A record needs IPv4'),
    ('81.2.69.10', 'AAAA', 'is an IPv4 address, the AAAA record needs IPv6'),
    ('081.2.69.10', 'A', 'not an address'),                       # leading zero: ambiguous
    ('81.2.69', 'A', 'not an address'),
    ('fe80::1%eth0', 'AAAA', 'not an address'),
    ('<html>', 'A', 'not an address'),
    ('', 'A', 'was empty'),
])
def test_rejections_say_why(text, record_type, why):
    ip, reason = ipcheck.valid_ip(text, record_type)
    assert ip is None and why in reason


@pytest.mark.parametrize('text, canonical', [
    ('2409:8A00:0000:0000:0001:0000:0000:0001', '2409:8a00::1:0:0:1'),   # first longest run
    ('240e:0:0:0:0:0:0:2', '240e::2'), ('2409:8a00:1:0:2:0:3:4', '2409:8a00:1:0:2:0:3:4'),
    ('2408::', '2408::'), (' 81.2.69.10\n', '81.2.69.10'),
])
def test_canonical_text(text, canonical):
    record_type = 'AAAA' if ':' in text else 'A'
    assert ipcheck.valid_ip(text, record_type) == (canonical, None)
    assert canonical == (str(ipaddress.ip_address(text.strip())))


@pytest.mark.parametrize('text', ['2001:3::1', '2001:1::1', '2001:20::1', '2001:4:112::1', '192.0.0.9',
                                  '2606:4700::1111', '240e:3a1:4c:1::2', '81.2.69.10'])
def test_global_addresses_pass(text):
    assert ipcheck.valid_ip(text, 'AAAA' if ':' in text else 'A') == (text, None)


def test_same_ip_compares_addresses_not_spellings():
    assert ipcheck.same_ip('240e::2', '240e:0:0::0002')
    assert not ipcheck.same_ip('240e::2', '240e::3')
    assert not ipcheck.same_ip('240e::2', None) and not ipcheck.same_ip('x:y', 'x:y:z')
    assert ipcheck.same_ip('81.2.69.10', '81.2.69.10') and not ipcheck.same_ip('81.2.69.10', '81.2.69.1')


@pytest.mark.parametrize('text, canonical', [('2409:8A00::1', '2409:8a00::1'), (' fe80::1 ', 'fe80::1'),
                                             ('81.2.69.10', None), ('2409::g', None), ('', None)])
def test_ipv6_canonical_text_of_any_scope(text, canonical):
    assert ipcheck.ipv6(text) == canonical


def test_parses_exactly_what_inet_pton_accepts():
    """ipcheck parses addresses itself (the socket module costs a cheap run memory): it must accept
    and read exactly what inet_pton does, on well-formed, near-miss and random texts."""
    import socket

    def pton(text):
        family = socket.AF_INET6 if ':' in text else socket.AF_INET
        try:
            packed = socket.inet_pton(family, text)
        except (OSError, ValueError):
            return None, None
        if family == socket.AF_INET and socket.inet_ntop(family, packed) != text:
            return None, None  # a leading zero: refused on purpose (ambiguous)
        return (6 if ':' in text else 4), int.from_bytes(packed, 'big')

    rnd = random.Random(5)
    alphabet = '0123456789abcdefABCDEFg:.:.::% x'
    texts = ['::', '1::', '::1', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8::', '1.2.3.4::',
             '::1.2.3.4', '::1.2.3.04', '::256.1.1.1', '00.0.0.0', '1:2:3:4:5:6:1.2.3.4', '12345::', ':',
             '1:2:3:4:5:6:7:1.2.3.4', '1.2.3', '1.2.3.4.5', '\u0661.2.3.4', '1:2::3::4', ':::', '']
    texts += [''.join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 20))) for _ in range(30000)]
    for _ in range(10000):
        number = rnd.getrandbits(128) & rnd.choice([(1 << 128) - 1, ((1 << 128) - 1) ^ ((1 << 64) - 1),
                                                     (1 << 32) - 1, 0xffff << 32 | 0xffffffff])
        text = list(rnd.choice([str(ipaddress.IPv6Address(number)), ipaddress.IPv6Address(number).exploded]))
        for _ in range(rnd.choice([0, 1, 2])):  # near misses: a character dropped, added or changed
            at = rnd.randrange(len(text))
            text[at:at + rnd.choice([0, 1])] = rnd.choice(['', rnd.choice(alphabet)])
        quad = str(ipaddress.IPv4Address(rnd.getrandbits(32)))
        texts += [''.join(text), quad, rnd.choice(['::', '::ffff:', '1:2:3:4:5:6:', '1::']) + quad]
    wrong = [(t, pton(t), ipcheck._parse(t)) for t in texts if pton(t) != ipcheck._parse(t)]
    assert wrong == [] and sum(pton(t)[0] is not None for t in texts) > 20000


@pytest.mark.parametrize('text, value', [('0', 0), ('7', 7), ('255', 255), ('0065535', 65535),
                                         ('12345678901234567890', 12345678901234567890), ('', None),
                                         ('-1', None), ('+1', None), (' 1', None), ('1 ', None), ('1_0', None),
                                         ('\u0661', None), ('\u00b2', None), ('0x10', None), ('1.0', None)])
def test_decimal_reads_ascii_digits_only(text, value):
    """ddkit.decimal parses the numbers of a cheap run (octets, ports, HTTP status and length) in
    place of int(), whose first base-10 use maps libm: it must agree with int() on plain digits and
    refuse what int() would take but a protocol field must not hold (signs, spaces, other digits)."""
    from ddkit import decimal
    assert decimal(text) == value
    if value is not None:
        assert value == int(text)
