"""IP checks: is this text one global address of the record's family?"""


def valid_ip(text, record_type):
    """Return (address, None) for a global address of the family of record_type ('A' or 'AAAA'),
    else (None, why): HTML pages, empty answers, private, loopback, link-local, CGNAT, wrong family."""
    import ipaddress
    text = (text or '').strip()
    if not text:
        return None, 'the answer was empty'
    if len(text) > 45 or '<' in text or ' ' in text:
        return None, 'the answer is not an address: %r' % text[:40]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None, 'the answer is not an address: %r' % text
    want = 6 if record_type == 'AAAA' else 4
    if ip.version != want:
        return None, '%s is an IPv%d address, the %s record needs IPv%d' % (ip, ip.version, record_type, want)
    if ip.version == 6 and ip.ipv4_mapped:
        return None, '%s is an IPv4-mapped address' % ip
    if not ip.is_global or ip.is_multicast:
        return None, '%s is not a public address (%s)' % (ip, _kind(ip))
    return str(ip), None


def _kind(ip):
    for attr in ('is_loopback', 'is_link_local', 'is_private', 'is_reserved', 'is_multicast'):
        if getattr(ip, attr):
            return attr[3:].replace('_', '-')
    if ip.version == 4 and ip in __import__('ipaddress').ip_network('100.64.0.0/10'):
        return 'carrier-grade NAT'
    return 'not global'


def same_ip(a, b):
    """True when two address texts name the same address (IPv6 may be written differently)."""
    if a == b:
        return True
    if not a or not b or ':' not in a or ':' not in b:
        return False
    import ipaddress
    try:
        return ipaddress.ip_address(a) == ipaddress.ip_address(b)
    except ValueError:
        return False
