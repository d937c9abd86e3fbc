"""Fake Dynadot API3 (api3.json, JSON answers): API keys (each with the IPs it may be used from),
domains (each with its name server setting and one TTL), and each domain's DNS set.

Every command is a GET of /api3.json?key=<API key>&command=<command>&..., a named route here by its
command (list_zones list_domain, get_dns get_dns, set_dns set_dns2; the request log's path shows
the command). Answers are {"<Command>Response": {"ResponseCode": "0", "Status": "success", ...}} at
HTTP 200, a refusal {"ResponseCode": "-1", "Status": "error", "Error": "..."} at HTTP 200 too: a
key that is not one (or not allowed from the caller's IP), a domain not the account's, a set_dns2
that is no valid set. The API serves one request of an account at a time: one that arrives while
another is processed is refused (`overlapped` counts them). get_dns gives NameServerSettings: its
Type ("Dynadot DNS" when Dynadot serves the DNS), MainDomains (RecordType, Value, Value2),
SubDomains (Subhost, RecordType, Value, Value2) and the domain's TTL, every value a string.
set_dns2 takes main_record_type0..19, main_record0..19, main_recordx0..19, subdomain0..99,
sub_record_type0..99, sub_record0..99, sub_recordx0..99 (types in lower case) and ttl: the set sent
REPLACES the domain's records (a ttl not sent resets the domain's TTL to DEFAULT_TTL, and switches
the domain to Dynadot DNS), unless add_dns_to_current_setting=1, which adds the records sent beside
the ones there.
"""

import ipaddress
import itertools
import re
import threading
from urllib.parse import parse_qs, quote, urlsplit

from fakes.base import FakeServer, RecordStore, Reply

COMMANDS = {'list_domain': ('list_zones', 'ListDomainInfoResponse'), 'get_dns': ('get_dns', 'GetDnsResponse'),
            'set_dns2': ('set_dns', 'SetDns2Response')}
DEFAULT_TTL = '300'
HOSTED = 'Dynadot DNS'
TYPES = ('a', 'aaaa', 'cname', 'forward', 'txt', 'mx', 'stealth', 'email')
_ids = itertools.count(1)


class Dynadot(RecordStore, FakeServer):
    PROVIDER, LETTER = 'dynadot', 'dynadot'   # the registry's provider it plays; the sandbox's provider_dynadot

    def __init__(self, api_key='0a1B2c3D4e5F6g7H8i9J0k1L2m3N', tls_cert=None):
        super().__init__(tls_cert)
        self.api_key = api_key
        self.keys = {api_key: None}   # key -> the IPs it may be used from (None: any)
        self.domains = {}             # name -> {'type': name server setting, 'ttl': the domain's TTL}
        # id -> record, in the domain's order ('name' the full name, 'content' the value: what the tests
        # read and set; 'main': a record of the domain itself)
        self.records = {}
        self.busy = threading.Lock()  # one request of the account at a time
        self.overlapped = 0
        self.sets = []                # (domain, every parameter) of each set_dns2 taken
        for command, (name, _) in COMMANDS.items():
            self.route(name, 'GET', '/api3.json/' + command, getattr(self, name), guard=self._auth)
        self.route('unknown_command', 'GET', '/api3.json/[^/]*', self.unknown, guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_KEY': self.api_key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, kind=HOSTED, ttl=DEFAULT_TTL):
        """A domain of the account, served by Dynadot DNS unless kind says otherwise; its id is its name."""
        self.domains[name] = {'type': kind, 'ttl': ttl}
        return name

    def add_record(self, zone_id, name, rtype, content, value2=''):
        """A record of the domain's set, after the others; its id in the tool's ids file is its name."""
        self.records[next(_ids)] = {'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                                    'value2': value2, 'main': name == zone_id}
        return name

    def of_domain(self, domain):
        """The domain's records, in its order."""
        return [r for r in self.records.values() if r['domain'] == domain]

    # --- routing -------------------------------------------------------------------------------
    def _dispatch(self, h):
        # one path for every command: the command parameter names the route (the log shows it as the path)
        split = urlsplit(h.path)
        command = parse_qs(split.query).get('command', [''])[0]
        if split.path == '/api3.json':
            h.path = '/api3.json/%s?%s' % (quote(command, safe=''), split.query)
        if not self.busy.acquire(blocking=False):
            with self.lock:
                self.overlapped += 1
            return self._send(h, self.answer(command, -1, Error='only one request can be processed at a time'))
        try:
            return super()._dispatch(h)
        finally:
            self.busy.release()

    @staticmethod
    def answer(command, code=0, **fields):
        name = COMMANDS.get(command, (None, 'Response'))[1]
        status = {'ResponseCode': str(code), 'Status': 'success' if code == 0 else 'error'}
        return Reply(200, {name: dict(status, **fields)})

    def _auth(self, req):
        ips = self.keys.get(req.query.get('key', ''), ())
        if ips == ():
            return self.answer(req.query.get('command'), -1, Error='invalid key')
        if ips is not None and req.client not in ips:
            return self.answer(req.query.get('command'), -1, Error='ip address not allowed: %s' % req.client)
        return None

    def _domain(self, req):
        """(domain, None), or (None, the answer refusing it)."""
        domain = req.query.get('domain', '').lower()
        if domain not in self.domains:
            return None, self.answer(req.query['command'], -1, Error='could not find domain %s in your account'
                                     % domain)
        return domain, None

    # --- commands ------------------------------------------------------------------------------
    def unknown(self, req):
        return self.answer(req.query.get('command'), -1, Error='invalid command')

    def list_zones(self, req):
        return self.answer('list_domain', MainDomains=[
            {'Name': name, 'Expiration': '1893456000000', 'NameServerSettings': {'Type': d['type']}, 'Locked': 'yes'}
            for name, d in sorted(self.domains.items())])

    def get_dns(self, req):
        domain, refused = self._domain(req)
        if refused:
            return refused
        held = self.of_domain(domain)
        settings = {'Type': self.domains[domain]['type'], 'TTL': self.domains[domain]['ttl'],
                    'MainDomains': [{'RecordType': r['type'], 'Value': r['content'], 'Value2': r['value2']}
                                    for r in held if r['main']],
                    'SubDomains': [{'Subhost': r['name'][:-len(domain) - 1], 'RecordType': r['type'],
                                    'Value': r['content'], 'Value2': r['value2']} for r in held if not r['main']]}
        return self.answer('get_dns', GetDns={'NameServerSettings': settings})

    def set_dns(self, req):
        domain, refused = self._domain(req)
        if refused:
            return refused
        q = req.query
        made, problem = [], None
        for kind, most, keys in (('main', 20, ('main_record_type', 'main_record', 'main_recordx')),
                                 ('sub', 100, ('sub_record_type', 'sub_record', 'sub_recordx'))):
            numbers = sorted({int(m.group(1)) for k in q for m in [re.fullmatch(r'%s(\d+)' % keys[0], k)] if m})
            for n in numbers:
                rtype, value = q.get('%s%d' % (keys[0], n), ''), q.get('%s%d' % (keys[1], n), '')
                name = domain if kind == 'main' else '%s.%s' % (q.get('subdomain%d' % n, ''), domain)
                no_host = kind == 'sub' and not q.get('subdomain%d' % n)
                problem = problem or self._invalid(n, most, rtype, value, no_host)
                made.append({'domain': domain, 'name': name, 'type': rtype.upper(), 'content': value,
                             'value2': q.get('%s%d' % (keys[2], n), ''), 'main': kind == 'main'})
        if problem:
            return self.answer('set_dns2', -1, Error=problem)
        if q.get('add_dns_to_current_setting') != '1':
            for rid in [rid for rid, r in self.records.items() if r['domain'] == domain]:
                del self.records[rid]
            self.domains[domain] = {'type': HOSTED, 'ttl': q.get('ttl', DEFAULT_TTL)}
        for record in made:
            self.records[next(_ids)] = record
        self.sets.append((domain, dict(q)))
        return self.answer('set_dns2')

    @staticmethod
    def _invalid(n, most, rtype, value, no_host):
        """Why one entry of a set_dns2 is refused, or None."""
        if n >= most:
            return 'too many records'
        if rtype not in TYPES:
            return 'invalid record type %r' % rtype
        if no_host:
            return 'subdomain%d is missing' % n
        try:
            {'a': ipaddress.IPv4Address, 'aaaa': ipaddress.IPv6Address}.get(rtype, str)(value)
        except ValueError:
            return 'invalid ip address %r' % value
        return None if value else 'record value is missing'
