"""DNS servers for the rfc2136 provider: a fake that speaks DNS (UDP and TCP on 127.0.0.1) for the
shared tables and the failures a real server will not make on cue, and Named, a real BIND 9 named
started on 127.0.0.1 with a zone and TSIG keys of a scratch directory.

The fake parses each message with dnspython and checks its TSIG with dnspython's own validation
(an unknown key, a wrong MAC, a time off: NOTAUTH with the TSIG error BADKEY, BADSIG, BADTIME, unsigned,
as RFC 8945 section 5.3.2 answers them); its answers are dnspython's, signed with the request's key
when the request was signed. It holds zones and their RRsets: a query is answered with authority
for a name in one of its zones (the SOA, the RRset, NXDOMAIN), REFUSED for any other; an UPDATE
(RFC 2136) of a zone it holds, signed with a key allowed to change the name and type (allowed:
None, any), deletes and adds RRsets all at once. Its request log names each message by what it
asks: login (a signed SOA query), find_zone (an SOA query), get_record (an A or AAAA query),
update (an UPDATE). FakeServer.fail's kinds: status (REFUSED, or SERVFAIL for a status of 500
and more), hang and close (no answer), lost (the message takes effect, its answer never leaves),
rewrite (it takes effect, its answer changed by options['answer']), malformed, empty, raw (bytes
that are no answer), truncated (TC set over UDP: the client asks again over TCP), reply (options:
rcode, or wire: the bytes).
"""

import base64
import os
import shutil
import socket
import subprocess
import threading
import time

from fakes.base import FakeServer, Request

KEY_NAME, SECRET = 'ddkit-key', base64.b64encode(b'the TSIG secret of the ddkit tests!').decode()


def dnspython():
    """The dns package with the modules the fake uses (imported on first use: the sandbox imports every
    fake, and runs without dnspython where the rfc2136 adapter is not asked for)."""
    import dns.flags
    import dns.message
    import dns.name
    import dns.opcode
    import dns.rcode
    import dns.rdataclass
    import dns.rdatatype
    import dns.rrset
    import dns.tsig
    import dns.update
    return dns


def tsig_errors(dns):
    """dnspython's exceptions of a TSIG it could not verify, and the TSIG error of each."""
    return {dns.tsig.PeerBadKey: 17, dns.tsig.PeerBadSignature: 16, dns.tsig.BadSignature: 16,
            dns.tsig.BadTime: 18, dns.message.UnknownTSIGKey: 17}


class DnsFake(FakeServer):
    """A DNS server on 127.0.0.1 (UDP and TCP on one port) that holds zones and takes signed updates."""
    PROVIDER, LETTER = 'rfc2136', 'rfc2136'   # the registry's provider it plays; the sandbox's provider_rfc2136

    def __init__(self, tls_cert=None, key_name=KEY_NAME, secret=SECRET, algorithm='hmac-sha256'):
        super().__init__(None)
        self.key_name, self.secret, self.algorithm = key_name, secret, algorithm
        self.keys = {key_name: (secret, algorithm)}
        self.allowed = None             # None: a known key may change any name; else {(name, type)}
        self.zones = {}                 # zone name -> serial
        self.rrsets = {}                # '<name>/<type>' -> RRset ('zone', 'name', 'type', 'ttl', 'records')
        self.tcp_messages = 0           # messages that came over TCP
        self.crashed = []               # what made a handler of the fake fail (a test asserts none did)
        for name in ('login', 'find_zone', 'get_record', 'update'):
            self.route(name, name, name, None)
        self.udp = self.tcp = None

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_SERVER': '127.0.0.1:%d' % self.port, 'DDNS_TSIG_KEY_NAME': self.key_name,
                'DDNS_TSIG_SECRET': self.secret, 'DDNS_TSIG_ALGORITHM': self.algorithm}

    def add_zone(self, name):
        self.zones[name] = 1
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=3600):
        """An RRset of these values (content: one, or a list); its id in the tool's ids file is its name."""
        values = list(content) if isinstance(content, (list, tuple)) else [content]
        self.rrsets['%s/%s' % (name, rtype)] = {'zone': zone_id, 'name': name, 'type': rtype, 'ttl': ttl,
                                                'records': values}
        return name

    def find(self, name, rtype='A'):
        found = self.rrsets.get('%s/%s' % (name.rstrip('.'), rtype))
        return [found] if found else []

    def by_line(self, name, rtype='A'):
        return {None: sorted(a for r in self.find(name, rtype) for a in r['records'])}

    # --- serving -------------------------------------------------------------------------------
    def start(self):
        for _ in range(20):   # one port for both: a UDP one whose TCP twin is free
            self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.udp.bind(('127.0.0.1', 0))
            self.tcp = socket.socket()
            try:
                self.tcp.bind(('127.0.0.1', self.udp.getsockname()[1]))
                break
            except OSError:
                self.udp.close()
                self.tcp.close()
        self.tcp.listen(5)
        threading.Thread(target=self._serve_udp, daemon=True).start()
        threading.Thread(target=self._serve_tcp, daemon=True).start()
        return self

    def stop(self):
        for sock in (self.udp, self.tcp):
            if sock:
                sock.close()

    @property
    def port(self):
        return self.udp.getsockname()[1]

    @property
    def url(self):
        return 'dns://127.0.0.1:%d' % self.port

    def _serve_udp(self):
        while True:
            try:
                wire, client = self.udp.recvfrom(65535)
            except OSError:
                return
            answer = self.answer(wire, client[0], udp=True)
            if answer is not None:
                self.udp.sendto(answer, client)

    def _serve_tcp(self):
        while True:
            try:
                conn, client = self.tcp.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._serve_connection, args=(conn, client), daemon=True).start()

    def _serve_connection(self, conn, client):
        with conn:
            while True:
                head = conn.recv(2)
                if len(head) < 2:
                    return
                size, wire = int.from_bytes(head, 'big'), b''
                while len(wire) < size:
                    more = conn.recv(size - len(wire))
                    if not more:
                        return
                    wire += more
                with self.lock:
                    self.tcp_messages += 1
                answer = self.answer(wire, client[0], udp=False)
                if answer is None:
                    return
                conn.sendall(len(answer).to_bytes(2, 'big') + answer)

    def answer(self, wire, client, udp):
        """The bytes answering a message (None: no answer), its request logged and budgeted."""
        dns = dnspython()
        # dnspython names hmac-md5 by its long name; the other algorithms as the provider does
        keyring = {dns.name.from_text(k): dns.tsig.Key(k, s, dns.tsig.HMAC_MD5 if a == 'hmac-md5' else a)
                   for k, (s, a) in self.keys.items()}
        errors = tsig_errors(dns)
        try:
            query, error = dns.message.from_wire(wire, keyring=keyring), None
        except tuple(errors) as e:
            query, error = dns.message.from_wire(wire, keyring=False), errors[type(e)]
        except Exception:
            return None   # not a message: nothing to answer to
        name = self.route_of(query)
        req = Request(name, dns.opcode.to_text(query.opcode()), str(query.question[0].name if query.question
                                                                   else ''), {}, {}, wire, client)
        req.message, req.tsig_error = query, error
        with self.lock:
            self.requests.append(req)
            count = len([r for r in self.requests if r.route == name])
            fault = self._take_fault(name)
        if name in self.budgets and count > self.budgets[name]:
            self.over_budget.append(req)
            return self._error(query, dns.rcode.SERVFAIL)
        if fault and fault[0] not in ('rewrite', 'lost', 'truncated'):
            return self._faulty(query, *fault)
        if error:
            return self._tsig_error(query, error)
        try:
            response = self.update(query) if query.opcode() == dns.opcode.UPDATE else self.lookup(query)
        except Exception as e:   # a bug in the fake must show up in the test, not hang it
            self.crashed.append(repr(e))
            return self._error(query, dns.rcode.SERVFAIL)
        if fault and fault[0] == 'rewrite':   # the message takes effect, its answer is changed by options['answer']
            response = fault[1]['answer'](response)
        if fault and fault[0] == 'lost':
            return None
        if fault and fault[0] == 'truncated' and udp:
            response = dns.message.make_response(query)
            response.flags |= dns.flags.TC
        return response.to_wire()

    @staticmethod
    def route_of(query):
        dns = dnspython()
        if query.opcode() == dns.opcode.UPDATE:
            return 'update'
        rtype = query.question[0].rdtype if query.question else None
        if rtype == dns.rdatatype.SOA:
            return 'login' if query.had_tsig else 'find_zone'
        return 'get_record' if rtype in (dns.rdatatype.A, dns.rdatatype.AAAA) else 'unknown'

    def _error(self, query, rcode):
        dns = dnspython()
        response = dns.message.make_response(query)
        response.set_rcode(rcode)
        return response.to_wire()

    def _faulty(self, query, kind, options):
        dns = dnspython()
        if kind == 'status':
            return self._error(query, dns.rcode.SERVFAIL if options.get('status', 500) >= 500 else dns.rcode.REFUSED)
        if kind == 'hang':
            time.sleep(options.get('seconds', 0))
            return None
        if kind in ('close',):
            return None
        if kind == 'malformed':
            return query.to_wire()[:2] + b'\x84\x00\x00\x01\x00\x01\x00\x00\x00\x00\x04home'
        if kind == 'empty':
            return b''
        if kind == 'raw':
            return options.get('data', b'SSH-2.0-OpenSSH_9.2\r\n')
        if kind == 'reply':
            if 'wire' in options:
                wire = options['wire']
                return wire(query) if callable(wire) else wire
            return self._error(query, options.get('rcode', dns.rcode.REFUSED))
        raise ValueError('unknown fault %r' % kind)

    def _tsig_error(self, query, error):
        """NOTAUTH with the TSIG error, unsigned: a TSIG record of no MAC (RFC 8945 section 5.3.2)."""
        dns = dnspython()
        response = dns.message.make_response(query)
        response.set_rcode(dns.rcode.NOTAUTH)
        wire = bytearray(response.to_wire())
        tsig = query.tsig[0]
        rdata = tsig.replace(mac=b'', error=error, other=b'')
        record = query.keyname.to_wire() + dns.rdatatype.TSIG.to_bytes(2, 'big') + \
            dns.rdataclass.ANY.to_bytes(2, 'big') + b'\0\0\0\0'
        data = rdata.to_wire()
        wire[10:12] = (int.from_bytes(wire[10:12], 'big') + 1).to_bytes(2, 'big')
        return bytes(wire) + record + len(data).to_bytes(2, 'big') + data

    # --- what the server holds -----------------------------------------------------------------
    def zone_of(self, name):
        """The longest zone holding name, or None."""
        found = [z for z in self.zones if name == z or name.endswith('.' + z)]
        return max(found, key=len) if found else None

    def _rrset(self, name, rtype):
        dns = dnspython()
        held = self.rrsets['%s/%s' % (name, rtype)]
        return dns.rrset.from_text_list(name + '.', held['ttl'], 'IN', rtype, held['records'])

    def _soa(self, zone):
        dns = dnspython()
        return dns.rrset.from_text(zone + '.', 3600, 'IN', 'SOA', 'ns.%s. hostmaster.%s. %d 3600 600 86400 60'
                                   % (zone, zone, self.zones[zone]))

    def lookup(self, query):
        dns = dnspython()
        response = dns.message.make_response(query)
        question = query.question[0]
        name = str(question.name).lower().rstrip('.')
        zone = self.zone_of(name)
        if zone is None:
            response.set_rcode(dns.rcode.REFUSED)
            return response
        response.flags |= dns.flags.AA
        rtype = dns.rdatatype.to_text(question.rdtype)
        if rtype == 'SOA' and name == zone:
            response.answer.append(self._soa(zone))
        elif '%s/CNAME' % name in self.rrsets:
            response.answer.append(self._rrset(name, 'CNAME'))
        elif '%s/%s' % (name, rtype) in self.rrsets:
            response.answer.append(self._rrset(name, rtype))
        else:
            if name != zone and not any(r['name'] == name or r['name'].endswith('.' + name)
                                        for r in self.rrsets.values()):
                response.set_rcode(dns.rcode.NXDOMAIN)
            response.authority.append(self._soa(zone))
        return response

    def update(self, query):
        """RFC 2136 section 3: the zone, the key's right to each change, then every change at once."""
        dns = dnspython()
        response = dns.message.make_response(query)
        zone = str(query.zone[0].name).lower().rstrip('.') if query.zone else ''
        if zone not in self.zones:
            response.set_rcode(dns.rcode.NOTAUTH)
            return response
        if not query.had_tsig:
            response.set_rcode(dns.rcode.REFUSED)
            return response
        todo = []
        for rrset in query.update:
            name, rtype = str(rrset.name).lower().rstrip('.'), dns.rdatatype.to_text(rrset.rdtype)
            if name != zone and not name.endswith('.' + zone):
                response.set_rcode(dns.rcode.NOTZONE)
                return response
            if self.allowed is not None and (name, rtype) not in self.allowed:
                response.set_rcode(dns.rcode.REFUSED)
                return response
            todo.append((name, rtype, rrset))
        for name, rtype, rrset in todo:
            key = '%s/%s' % (name, rtype)
            if rrset.deleting == dns.rdataclass.ANY:
                self.rrsets.pop(key, None)
            elif rrset.deleting == dns.rdataclass.NONE:
                if key in self.rrsets:
                    gone = {r.to_text() for r in rrset}
                    self.rrsets[key]['records'] = [v for v in self.rrsets[key]['records'] if v not in gone]
            else:
                held = self.rrsets.setdefault(key, {'zone': zone, 'name': name, 'type': rtype, 'ttl': rrset.ttl,
                                                    'records': []})
                held['ttl'] = rrset.ttl
                held['records'] += [r.to_text() for r in rrset if r.to_text() not in held['records']]
        self.zones[zone] += 1
        return response


# --- a real BIND 9 ------------------------------------------------------------------------------------

def free_port():
    """A port free for both UDP and TCP on 127.0.0.1 (named listens on both)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, socket.socket() as tcp:
            udp.bind(('127.0.0.1', 0))
            try:
                tcp.bind(('127.0.0.1', udp.getsockname()[1]))
                return udp.getsockname()[1]
            except OSError:
                continue


def missing():
    """Why a real named cannot run here (None when it can)."""
    absent = [p for p in ('named', 'dig') if not shutil.which(p) and not os.path.exists('/usr/sbin/' + p)]
    return ('%s not found (apt-get install bind9 bind9-dnsutils): the provider is tested against a real BIND 9'
            % ', '.join(absent)) if absent else None


class Named:
    """BIND 9's named on 127.0.0.1 (no root needed), its zones' files and keys in a scratch directory:
    keys {name: (algorithm, secret)}; zones {zone: (records: zone file lines, its update-policy lines)}."""

    def __init__(self, where, keys, zones):
        self.where, self.port = where, free_port()
        named = shutil.which('named') or '/usr/sbin/named'
        lines = ['key "%s" { algorithm %s; secret "%s"; };' % (k, a, s) for k, (a, s) in keys.items()]
        lines.append('options { directory "%s"; listen-on port %d { 127.0.0.1; }; listen-on-v6 { none; }; '
                     'pid-file "%s/named.pid"; session-keyfile "%s/session.key"; recursion no; '
                     'dnssec-validation no; notify no; };' % (where, self.port, where, where))
        lines.append('controls { };')
        for zone, (records, policy) in zones.items():
            (where / ('%s.db' % zone)).write_text('\n'.join(
                ['$TTL 3600', '@ IN SOA ns.%s. hostmaster.%s. 1 3600 600 86400 60' % (zone, zone),
                 '@ IN NS ns.%s.' % zone, 'ns IN A 192.0.2.53'] + list(records)) + '\n')
            lines.append('zone "%s" { type primary; file "%s/%s.db"; update-policy { %s }; };' % (
                zone, where, zone, ' '.join(policy)))
        (where / 'named.conf').write_text('\n'.join(lines) + '\n')
        self.log = open(str(where / 'named.log'), 'w')
        self.process = subprocess.Popen([named, '-g', '-n', '1', '-c', str(where / 'named.conf')],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(100):
            if self.process.poll() is None and 'running' in (where / 'named.log').read_text():
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError('named did not start: %s' % (where / 'named.log').read_text()[-2000:])

    def dig(self, name, rtype):
        """[(TTL, value)] of the server's answer, as dig reads it."""
        done = subprocess.run(['dig', '+noall', '+answer', '+norecurse', '@127.0.0.1', '-p', str(self.port), name,
                               rtype], capture_output=True, text=True, timeout=10)
        return sorted((int(f[1]), f[4]) for f in (line.split(None, 4) for line in done.stdout.splitlines()) if f)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
