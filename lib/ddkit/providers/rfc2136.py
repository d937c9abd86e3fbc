"""DNS UPDATE (RFC 2136) signed with TSIG (RFC 8945): keep one A or AAAA record equal to this host's
public IP at any DNS server that takes updates (BIND, Knot, PowerDNS).

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and messages, registered as `rfc2136`. It speaks DNS itself, the wire
format written here (RFC 1035 section 4): a message goes over UDP to the zone's primary server, and
over TCP when the answer comes truncated or the message is over 512 bytes. Reads are plain queries
to that server (its answers are authoritative: the TTL read is the record's own); an UPDATE is
signed with the TSIG key, and the server's answer to it is verified with the request's MAC. The zone
is zone_name (its SOA read at the server proves the server holds it), or, without it, the zone the
server's SOA answer for record_name names. The record is the RRset of its name and type; a change is
one UPDATE message that deletes the RRset and adds the new one with the TTL it had (a new one gets
NEW_TTL): atomic at the server, and harmless when sent twice. A record without lines is the RRset
holding one address; with `lines` each line's address is one record of the RRset (SEVERAL).
References: https://www.rfc-editor.org/rfc/rfc2136 (UPDATE), https://www.rfc-editor.org/rfc/rfc8945
(TSIG), https://www.rfc-editor.org/rfc/rfc1035 (messages), https://www.rfc-editor.org/rfc/rfc4635
(the HMAC-SHA algorithms)
"""

from ddkit import Failure, rrset
from ddkit.provider import ProviderSession, Zone, declaration, secret_setting
from ddkit.settings import Setting

NAME = 'rfc2136'
SUMMARY = 'Keep an A or AAAA record by DNS UPDATE with TSIG (RFC 2136)'
# the TSIG algorithms (RFC 8945 section 6): their names in a message, and their hashes
ALGORITHMS = {'hmac-md5': ('hmac-md5.sig-alg.reg.int', 'md5'), 'hmac-sha1': ('hmac-sha1', 'sha1'),
              'hmac-sha224': ('hmac-sha224', 'sha224'), 'hmac-sha256': ('hmac-sha256', 'sha256'),
              'hmac-sha384': ('hmac-sha384', 'sha384'), 'hmac-sha512': ('hmac-sha512', 'sha512')}
NAME_CHARS = frozenset('abcdefghijklmnopqrstuvwxyz0123456789-_.')


def check_server(value):
    """server: a host name or address, and :port (an IPv6 address in brackets then)."""
    host, port = split_server(value)
    if not host or port is None or not set(host.lower()) <= NAME_CHARS | set(':') or len(host) > 253:
        raise ValueError('must be the server\'s host name or address, and :port when it is not 53 (ns.example.com, '
                         '192.0.2.53, [2001:db8::53]:5353)')
    return value


def split_server(value):
    """(host, port) of a server setting; port None when it is no port."""
    from ddkit import decimal
    host, port = value, '53'
    if value.startswith('['):
        host, _, port = value[1:].partition(']')
        port = port[1:] if port.startswith(':') else port or '53'
    elif value.count(':') == 1:
        host, _, port = value.partition(':')
    port = decimal(port)
    return host, port if port and 0 < port < 65536 else None


def check_key_name(value):
    """tsig_key_name: a DNS name, as the server's key statement writes it (lower case, no root dot)."""
    name = value.lower().rstrip('.')
    if not name or not set(name) <= NAME_CHARS or '' in name.split('.') or len(name) > 253 \
            or max(len(label) for label in name.split('.')) > 63:
        raise ValueError('must be the key\'s name as the server\'s key statement writes it (letters, digits, -, _ '
                         'and dots, e.g. ddkit-home)')
    return name


def check_secret(value):
    """tsig_secret: base64, as tsig-keygen prints it."""
    import base64
    import binascii
    try:
        if base64.b64decode(value.encode('ascii'), validate=True):
            return value
    except (binascii.Error, UnicodeError):
        pass
    raise ValueError('must be the key\'s secret in base64, as tsig-keygen prints it')


def check_algorithm(value):
    """tsig_algorithm: one of ALGORITHMS (hmac-md5 also by its long name)."""
    value = value.lower().rstrip('.')
    value = 'hmac-md5' if value == ALGORITHMS['hmac-md5'][0] else value
    if value not in ALGORITHMS:
        raise ValueError('must be one of %s' % ', '.join(ALGORITHMS))
    return value


SETTINGS = [Setting('server', help='the zone\'s primary DNS server, which takes the updates: its host name or '
                    'address, and :port when it is not 53 (ns.example.com, 192.0.2.53, [2001:db8::53]:5353)',
                    check=check_server),
            Setting('tsig_key_name', help='the name of the TSIG key the server allows to update the record (its key '
                    'statement\'s name)', check=check_key_name, label='TSIG key name'),
            secret_setting('tsig_secret', 'that key\'s secret, base64 (the secret of its key statement)',
                           check=check_secret, label='TSIG secret'),
            Setting('tsig_algorithm', 'hmac-sha256', help='that key\'s algorithm: %s' % ', '.join(ALGORITHMS),
                    check=check_algorithm, choices=tuple(ALGORITHMS), label='TSIG algorithm')]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, urls=())
SEVERAL = True    # no resolution lines; an RRset holds several addresses: each line's is one of them
NEW_TTL = 300     # a new RRset's TTL; a change keeps the RRset's own
MAX_TTL = 2 ** 31 - 1
FUDGE = 300       # seconds the server may find our clock off (RFC 8945 section 10)
TYPES = {'A': 1, 'AAAA': 28}
SOA, CNAME, TSIG, ANY, IN = 6, 5, 250, 255, 1
QUERY, UPDATE = 0, 5
RCODES = {0: 'NOERROR', 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED', 6: 'YXDOMAIN',
          7: 'YXRRSET', 8: 'NXRRSET', 9: 'NOTAUTH', 10: 'NOTZONE'}
TSIG_ERRORS = {16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 22: 'BADTRUNC'}
KEY_FIX = 'tsig_secret must be the secret of the key tsig_key_name at the server (base64, copied whole), and ' \
          'tsig_algorithm its algorithm'
HOLDER_FIX = 'server must be the primary server of zone_name (the one that takes updates), and zone_name a zone it ' \
             'holds'
FIXES = {   # what to do about the server's answers (docs/providers.md), by RCODE and TSIG error
    'REFUSED': 'the server does not let this key update the record: allow it in the zone (BIND: update-policy { '
               'grant <key> name <record_name>. A AAAA; };), or set server to the zone\'s primary',
    'NOTAUTH': HOLDER_FIX,
    'NOTZONE': 'record_name must be inside zone_name',
    'NOTIMP': 'the server takes no updates (a secondary, or a server without UPDATE): set server to the zone\'s '
              'primary',
    'FORMERR': 'the server could not read the message: report it to the ddkit project',
    'BADSIG': KEY_FIX,
    'BADKEY': 'the server knows no key named tsig_key_name with tsig_algorithm: copy both from the key statement '
              'the server has',
    'BADTIME': 'this host\'s clock is more than %d seconds off the server\'s: set it right (NTP; OpenWrt: System > '
               'System > Time Synchronization)' % FUDGE,
}


class Session(ProviderSession):
    """The RRset this record's run read last (a line's create adds its address to it), whether one
    was read (None: the RRset does not exist), and the zone whose SOA this run read at the server."""

    def __init__(self):
        self.read, self.rrset, self.zone = False, None, None


def account(cfg):
    """What a lookup sees: the server and the key; and the name, since the zone found is the name's
    own (the protocol lists no zones)."""
    return cfg.server, cfg.tsig_key_name, cfg.record_name


def login(job):
    """--check: the key is accepted when the server answers a query signed with it (the SOA of the
    zone) with an answer signed with it; no UPDATE is sent."""
    cfg = job.cfg
    ask(job, cfg.zone_name, SOA, 'login', signed=True)
    return ' (TSIG key %s, %s)' % (cfg.tsig_key_name, cfg.tsig_algorithm)


def list_zones(job):
    """[zone_name], once the server answers its SOA with authority (it holds the zone)."""
    cfg = job.cfg
    if job.session.zone != cfg.zone_name:
        found = soa_zone(job, cfg.zone_name)
        if found != cfg.zone_name:
            fix = 'set zone_name to %s' % found if found else HOLDER_FIX
            raise Failure.at('find zone', 'the server holds no zone %s%s; %s' % (
                cfg.zone_name, ' (the name is in its zone %s)' % found if found else '', fix), kind='not found',
                fix=fix, setting='zone_name' if found else None)
    return [cfg.zone_name]


def choose_zone(job, zones):
    """The zone: its name is its id."""
    return Zone(zones[0], zones[0])


def account_zones(job):
    """[the zone of record_name], as the server's SOA answer for the name says it; [] when it holds none."""
    zone = soa_zone(job, job.cfg.record_name)
    return [Zone(zone, zone)] if zone else []


def soa_zone(job, name):
    """The zone the server holds name in (the owner of the SOA of its authoritative answer), or None."""
    answer = ask(job, name, SOA, 'find zone', judged=False)
    if answer.rcode == 'SERVFAIL':   # the server failing says nothing of its zones: a server error
        refused(job, 'find zone', answer.rcode, True)
    if answer.rcode not in ('NOERROR', 'NXDOMAIN') or not answer.authoritative:
        job.log.info('find zone: the server answers the SOA of %s with %s%s.' % (
            name, answer.rcode, '' if answer.authoritative else ', not as its authority'))
        return None
    zones = [owner for owner, rtype, _, _ in answer.records + answer.authority if rtype == SOA
             and (name == owner or name.endswith('.' + owner))]
    job.session.zone = zones[0] if zones else None
    return job.session.zone


# The record is an RRset (ddkit.rest): its entries are its addresses, written back whole by one
# UPDATE (the RRset deleted and added again, with its TTL).

def get_rrset(job, zone_id, step):
    """The RRset of the record's name and type ({"ttl", "addresses"}), or None; a CNAME at the name
    is a Failure (no address record may be beside it)."""
    cfg = job.cfg
    answer = ask(job, cfg.record_name, TYPES[cfg.record_type], step)
    if not answer.authoritative:
        raise Failure.at(step, 'the server does not answer for %s as its authority; %s' % (cfg.record_name, HOLDER_FIX),
                         kind='not found', fix=HOLDER_FIX, setting='server')
    if answer.rcode == 'NXDOMAIN':
        return None
    mine = [(rtype, ttl, data) for owner, rtype, ttl, data in answer.records if owner == cfg.record_name]
    if any(rtype == CNAME for rtype, _, _ in mine):
        raise Failure.at(step, '%s is a CNAME at the server, and no address record can be beside it' % cfg.record_name,
                         kind='refused', fix='remove the CNAME of record_name, or update the name it points to')
    found = [(ttl, data) for rtype, ttl, data in mine if rtype == TYPES[cfg.record_type]]
    if not found:
        return None
    return {'type': cfg.record_type, 'ttl': min(ttl for ttl, _ in found), 'addresses': [data for _, data in found]}


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and rrset.get('type') == cfg.record_type


def entries(rrset, step):
    return list((rrset or {}).get('addresses', []))


def address(held):
    return held


def entry(ip, like=None):
    return ip


def write_rrset(job, zone_id, found, addresses, step):
    """One UPDATE of the zone: the RRset of the name and type deleted, and these addresses added with
    its TTL (a new one: NEW_TTL); none: it is deleted alone. https://www.rfc-editor.org/rfc/rfc2136#section-2.5"""
    from ddkit import native
    sockets = native.sockets()
    cfg = job.cfg
    rtype = TYPES[cfg.record_type]
    ttl = found['ttl'] if found and isinstance(found.get('ttl'), int) else NEW_TTL
    owner = wire_name(cfg.record_name)
    changes = [owner + pack(rtype, ANY, 0) + b'\0\0']   # delete the RRset: class ANY, TTL 0, no data
    family = sockets.AF_INET if rtype == 1 else sockets.AF_INET6
    for ip in addresses:
        data = sockets.inet_pton(family, ip)
        changes.append(owner + pack(rtype, IN, ttl) + len(data).to_bytes(2, 'big') + data)
    zone = wire_name(zone_id) + pack(SOA, IN)
    ask(job, zone_id, SOA, step, signed=True, opcode=UPDATE, body=(zone, b''.join(changes), len(changes)))


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records()


# --- DNS messages: written and read here ----------------------------------------------------------

def pack(*fields):
    """The type and class (two bytes each) and the TTL (four) of a record, as far as given."""
    sizes = (2, 2, 4)
    return b''.join(value.to_bytes(size, 'big') for value, size in zip(fields, sizes))


def wire_name(name):
    """A name in wire format, uncompressed, lower case (TSIG's canonical form)."""
    labels = [label.encode('ascii') for label in name.lower().rstrip('.').split('.') if label]
    return b''.join(bytes([len(label)]) + label for label in labels) + b'\0'


class Answer:
    """A server's answer: its RCODE's name, whether it is authoritative, and its answer and authority
    records, each (owner, type, TTL, value: an address, or None)."""

    def __init__(self, rcode, authoritative, records, authority):
        self.rcode, self.authoritative, self.records, self.authority = rcode, authoritative, records, authority


def ask(job, name, rtype, step, signed=False, opcode=QUERY, body=None, judged=True):
    """One message to the server and its Answer: a query of name and rtype, or (opcode UPDATE) body:
    (its zone section, its update section, how many records that holds); signed with the TSIG key,
    whose signature on the answer is verified. judged: an RCODE other than NOERROR (and NXDOMAIN for
    a query) is a Failure, with the fix for it."""
    from ddkit.native import os
    cfg = job.cfg
    ident = int.from_bytes(os.urandom(2), 'big')
    head = ident.to_bytes(2, 'big') + (opcode << 11).to_bytes(2, 'big')
    if body is None:
        body = (wire_name(name) + pack(rtype, IN), b'', 0)
    message = head + bytes([0, 1, 0, 0]) + body[2].to_bytes(2, 'big') + b'\0\0' + body[0] + body[1]
    mac = None
    if signed:
        message, mac = sign(cfg, message)
    answer = read_answer(cfg, step, exchange(cfg, message, ident, step), ident, opcode, mac)
    if judged and answer.rcode not in ('NOERROR', 'NXDOMAIN' if opcode == QUERY else 'NOERROR'):
        refused(job, step, answer.rcode, opcode == QUERY)
    return answer


def refused(job, step, code, query=False):
    """The Failure of an answer with an error RCODE, its fix the provider's (a query refused: the server
    does not serve the zone)."""
    fix = HOLDER_FIX if query and code in ('REFUSED', 'NOTAUTH') else FIXES.get(code)
    if code == 'SERVFAIL':
        raise Failure.at(step, 'the server failed (SERVFAIL); the next run tries again', kind='server error',
                         code=code)
    job.log.error('%s: the server answered %s' % (step, code))
    raise Failure.at(step, 'the server refused the request (%s)%s' % (code, '; ' + fix if fix else ''),
                     kind='refused', code=code, fix=fix)


def tsig_variables(cfg, time_signed, error=0, other=b''):
    """What the MAC covers after the message (RFC 8945 section 4.3.3): the key's name, class ANY, TTL
    0, the algorithm's name, the time signed, the fudge, the error and the other data."""
    key, algorithm = wire_name(cfg.tsig_key_name), wire_name(ALGORITHMS[cfg.tsig_algorithm][0])
    return key + ANY.to_bytes(2, 'big') + bytes(4) + algorithm + time_signed.to_bytes(6, 'big') + \
        pack(FUDGE, error) + len(other).to_bytes(2, 'big') + other


def mac_of(cfg, data):
    import base64
    import hmac
    return hmac.new(base64.b64decode(cfg.tsig_secret), data, ALGORITHMS[cfg.tsig_algorithm][1]).digest()


def sign(cfg, message):
    """(the message with its TSIG record appended, its MAC). https://www.rfc-editor.org/rfc/rfc8945#section-4.3"""
    import time
    now = int(time.time())
    mac = mac_of(cfg, message + tsig_variables(cfg, now))
    data = wire_name(ALGORITHMS[cfg.tsig_algorithm][0]) + now.to_bytes(6, 'big') + pack(FUDGE, len(mac)) + mac + \
        message[:2] + b'\0\0\0\0'   # the original id, no error, no other data
    record = wire_name(cfg.tsig_key_name) + pack(TSIG, ANY, 0) + len(data).to_bytes(2, 'big') + data
    count = int.from_bytes(message[10:12], 'big') + 1
    return message[:10] + count.to_bytes(2, 'big') + message[12:] + record, mac


def exchange(cfg, message, ident, step):
    """The answer's bytes: over UDP (sent twice at most), then over TCP when it came truncated, or
    when the message is over 512 bytes."""
    from ddkit import native
    sockets = native.sockets()   # _socket, or socket
    host, port = split_server(cfg.server)
    try:   # bytes: the idna codec (and unicodedata) stays unloaded
        found = sockets.getaddrinfo(host.encode('ascii'), port, 0, sockets.SOCK_DGRAM)
    except (OSError, UnicodeError) as e:
        raise Failure.at(step, 'cannot resolve the server %s: %s' % (host, getattr(e, 'strerror', None) or e),
                         kind='resolve', setting='server', fix='check server')
    family, _, _, _, where = found[0]
    try:
        if len(message) <= 512:
            answer = over_udp(sockets, cfg, family, where, message, ident)
            if not answer[2] & 2:   # TC: truncated
                return answer
        return over_tcp(sockets, cfg, family, where, message)
    except sockets.timeout:
        raise Failure.at(step, 'the server %s did not answer within %s seconds' % (cfg.server, cfg.timeout),
                         kind='timeout', setting='server', fix='check server, and that this host reaches it (UDP '
                         'port %d)' % port)
    except OSError as e:
        raise Failure.at(step, 'cannot reach the server %s: %s' % (cfg.server, e.strerror or e), kind='unreachable',
                         setting='server', fix='check server, and that this host reaches it')


def over_udp(sockets, cfg, family, where, message, ident):
    import time
    sock = sockets.socket(family, sockets.SOCK_DGRAM)
    try:
        sock.connect(where)   # connected: only the server's datagrams come in
        for attempt in (1, 2):
            sock.send(message)
            deadline = time.monotonic() + float(cfg.timeout) / 2
            while True:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                try:
                    answer = sock.recv(65535)
                except sockets.timeout:
                    if attempt == 2:
                        raise
                    break
                if answer[:2] == ident.to_bytes(2, 'big') and len(answer) >= 12:   # else a late answer to a try
                    return answer
    finally:
        sock.close()


def over_tcp(sockets, cfg, family, where, message):
    sock = sockets.socket(family, sockets.SOCK_STREAM)
    try:
        sock.settimeout(float(cfg.timeout))
        sock.connect(where)
        sock.sendall(len(message).to_bytes(2, 'big') + message)
        return received(sock, int.from_bytes(received(sock, 2), 'big'))
    finally:
        sock.close()


def received(sock, size):
    data = b''
    while len(data) < size:
        more = sock.recv(size - len(data))
        if not more:
            raise ConnectionError('the server closed the connection in the middle of its answer')
        data += more
    return data


def read_answer(cfg, step, data, ident, opcode, mac):
    """The Answer of the answer's bytes; one that is not the answer to our message, or whose TSIG does
    not verify, is a Failure. mac: our request's MAC (None: not signed)."""
    try:
        reader = Reader(data)
        flags = reader.number(2, 2)
        if reader.number(0, 2) != ident or not flags & 0x8000 or (flags >> 11) & 15 != opcode:
            raise ValueError('not the answer to the message sent')
        counts = [reader.number(4 + 2 * n, 2) for n in range(4)]
        reader.at = 12
        for _ in range(counts[0]):
            reader.name()
            reader.at += 4
        sections = [[reader.record() for _ in range(count)] for count in counts[1:]]
    except (ValueError, IndexError) as e:
        raise Failure.at(step, 'unexpected answer from the server: %s' % e, kind='unexpected')
    rcode, tsig = RCODES.get(flags & 15, str(flags & 15)), [r[3] for r in sections[2] if r[1] == TSIG]
    if mac is not None and (tsig or rcode == 'NOERROR'):   # an error may come unsigned: its RCODE says it
        if tsig and tsig[0][3]:
            error = TSIG_ERRORS.get(tsig[0][3], str(tsig[0][3]))
            raise Failure.at(step, 'the server refused the request (%s, TSIG error %s)%s' % (
                rcode, error, '; ' + FIXES[error] if error in FIXES else ''), kind='refused', code=error,
                fix=FIXES.get(error))
        if not tsig or not verified(cfg, data, mac, [r for r in sections[2] if r[1] == TSIG][0]):
            raise Failure.at(step, 'the server\'s answer is %s; %s' % (
                'not signed' if not tsig else 'not signed with the key', KEY_FIX), kind='refused', fix=KEY_FIX)
    return Answer(rcode, bool(flags & 0x400), sections[0], sections[1])


def verified(cfg, data, mac, tsig):
    """True when the answer's TSIG (owner, type, TTL, (algorithm, time, MAC, error, other, start)) is
    our key's, and its MAC the one of the answer after our request's MAC (RFC 8945 section 5.3)."""
    import hmac
    owner, _, _, (algorithm, when, their, error, other, start) = tsig
    if owner != cfg.tsig_key_name or algorithm != ALGORITHMS[cfg.tsig_algorithm][0]:
        return False
    count = int.from_bytes(data[10:12], 'big') - 1
    unsigned = data[:10] + count.to_bytes(2, 'big') + data[12:start]
    expected = mac_of(cfg, len(mac).to_bytes(2, 'big') + mac + unsigned + tsig_variables(cfg, when, error, other))
    return hmac.compare_digest(expected, their)


class Reader:
    """The fields of a message, read within its bytes (a pointer loop or a field past the end is a
    ValueError or an IndexError)."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def number(self, at, size):
        if at + size > len(self.data):
            raise ValueError('the answer ends early')
        return int.from_bytes(self.data[at:at + size], 'big')

    def name(self):
        """The name at self.at (compressed or not), lower case without the root's dot; self.at moves past it."""
        labels, at, jumps, end = [], self.at, 0, None
        while True:
            size = self.number(at, 1)
            if size >= 0xc0:
                jumps += 1
                if jumps > 32:
                    raise ValueError('a name whose pointers loop')
                end = at + 2 if end is None else end
                at = self.number(at, 2) & 0x3fff
            elif size > 63:
                raise ValueError('a label of unknown type')
            elif size == 0:
                break
            else:
                label = self.data[at + 1:at + 1 + size]
                if len(label) < size:
                    raise ValueError('the answer ends early')
                labels.append(label.decode('ascii', 'replace').lower())
                at += 1 + size
        self.at = at + 1 if end is None else end
        name = '.'.join(labels)
        if len(name) > 253:
            raise ValueError('a name too long')
        return name

    def record(self):
        """(owner, type, TTL, value) of the record at self.at: an address, a TSIG's fields, else None."""
        from ddkit import native
        sockets = native.sockets()
        start = self.at
        owner = self.name()
        rtype, ttl, size = self.number(self.at, 2), self.number(self.at + 4, 4), self.number(self.at + 8, 2)
        self.at += 10
        value, end = None, self.at + size
        if end > len(self.data):
            raise ValueError('the answer ends early')
        if rtype in (1, 28) and size == (4 if rtype == 1 else 16):
            value = sockets.inet_ntop(sockets.AF_INET if rtype == 1 else sockets.AF_INET6, self.data[self.at:end])
        elif rtype == TSIG:
            algorithm = self.name()
            when, size = self.number(self.at, 6), self.number(self.at + 8, 2)
            their = self.data[self.at + 10:self.at + 10 + size]
            self.at += 10 + size
            error, other = self.number(self.at + 2, 2), self.data[self.at + 6:end]
            value = (algorithm, when, their, error, other, start)
        self.at = end
        return owner, rtype, min(ttl, MAX_TTL), value
