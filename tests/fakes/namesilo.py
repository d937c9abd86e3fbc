"""Fake NameSilo (API version 1): API keys (each with its account, an IP restriction, a sub-account
flag), domains and their records.

Every operation is a GET of /api/<operation>?version=1&type=json&key=<API key>&..., a named route here
(list_zones listDomains, list_records dnsListRecords, create_record dnsAddRecord, update_record
dnsUpdateRecord, delete_record dnsDeleteRecord). Answers are {"request": {"operation", "ip"}, "reply":
{"code", "detail", ...}} at HTTP 200, the code a number or, as the API also sends it, a string
(code_as); with type=xml the same under <namesilo>. Reply codes of the reference: 300 success, 110
invalid API key, 112 API not available to sub-accounts, 113 API account cannot be accessed from
this IP, 200 domain not active or not this user's, 280 DNS modification error. The records' `host` is
the full name; dnsAddRecord and dnsUpdateRecord take rrhost without the domain ('' for the apex) and
a TTL of 3600 or more (7207 when none is sent, as the API does: a client that does not send the
record's own TTL back resets it), and every successful update gives the record a new record_id.
"""

import ipaddress
import itertools

from fakes.base import FakeServer, RecordStore, Reply

OPERATIONS = {'listDomains': 'list_zones', 'dnsListRecords': 'list_records', 'dnsAddRecord': 'create_record',
              'dnsUpdateRecord': 'update_record', 'dnsDeleteRecord': 'delete_record'}
DEFAULT_TTL = 7207
DETAILS = {300: 'success', 110: 'Invalid API Key', 112: 'API not available to Sub-Accounts',
           113: 'API account cannot be accessed from your IP', 200: 'Domain is not active, or does not belong to '
           'this user', 210: 'General error (details in response)', 280: 'DNS modification error'}
_ids = itertools.count(1)


def new_record_id():
    return '%032x' % (0x5eed0000 << 64 | next(_ids))   # NameSilo's ids: 32 hex digits


class NameSilo(RecordStore, FakeServer):
    PROVIDER, LETTER = 'namesilo', 'namesilo'   # the registry's provider it plays; the sandbox's provider_namesilo

    def __init__(self, api_key='a1b2c3d4e5f6a7b8c9d0e1f2', tls_cert=None):
        super().__init__(tls_cert)
        self.api_key = api_key
        self.keys = {api_key: {'sub': False, 'ips': None}}   # ips: the IP restriction (None: any)
        self.domains = {}         # domain name -> domain object
        self.records = {}         # record_id -> record ('name' and 'content': what the tests read and set)
        self.code_as = int        # how a reply's code is sent: int, or str as the API also does
        for operation, name in OPERATIONS.items():
            self.route(name, 'GET', '/api/' + operation, getattr(self, name), guard=self._auth)
        self.route('unknown_operation', 'GET', '/api/[^/]*', self.unknown, guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_KEY': self.api_key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A domain of the account; its id in the API's calls is its name."""
        self.domains[name] = {'domain': name, 'created': '2024-01-02', 'expires': '2027-01-02'}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=DEFAULT_TTL, distance=0):
        rid = new_record_id()
        self.records[rid] = {'record_id': rid, 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'distance': distance}
        return rid

    # --- answers -------------------------------------------------------------------------------
    def reply(self, req, code, **fields):
        operation = req.path.rsplit('/', 1)[-1]
        body = {'request': {'operation': operation, 'ip': req.client},
                'reply': dict({'code': self.code_as(code), 'detail': fields.pop('detail', DETAILS.get(code, ''))},
                              **fields)}
        if req.query.get('type') == 'xml':
            inner = ''.join('<%s>%s</%s>' % (k, v, k) for k, v in body['reply'].items() if not isinstance(v, list))
            return Reply(200, text='<?xml version="1.0"?><namesilo><request><operation>%s</operation><ip>%s</ip>'
                         '</request><reply>%s</reply></namesilo>' % (operation, req.client, inner),
                         headers={'Content-Type': 'text/xml'})
        return Reply(200, body)

    def _auth(self, req):
        """The API's checks, in order: the version, the key, the sub-account, the caller's IP."""
        if req.query.get('version') != '1' or req.query.get('type') not in ('json', 'xml'):
            return self.reply(req, 210, detail='Invalid version or type')
        key = self.keys.get(req.query.get('key', ''))
        if key is None:
            return self.reply(req, 110)
        if key['sub']:
            return self.reply(req, 112)
        if key['ips'] is not None and req.client not in key['ips']:
            return self.reply(req, 113)
        return None

    def _domain(self, req):
        """(domain, None), or (None, the answer refusing it)."""
        domain = req.query.get('domain', '').lower()
        if domain not in self.domains:
            return None, self.reply(req, 200)
        return domain, None

    # --- operations ----------------------------------------------------------------------------
    def unknown(self, req):
        return self.reply(req, 210, detail='Invalid operation')

    def list_zones(self, req):
        try:
            page, size = int(req.query.get('page', 1)), int(req.query.get('pageSize', 100))
        except ValueError:
            return self.reply(req, 210, detail='Invalid page')
        names = sorted(self.domains)
        shown = names[(page - 1) * size:page * size]
        return self.reply(req, 300, domains=[dict(self.domains[n]) for n in shown],
                          pager={'total': len(names), 'pageSize': size, 'page': page})

    def list_records(self, req):
        domain, refused = self._domain(req)
        if refused:
            return refused
        return self.reply(req, 300, resource_record=[self._public(r) for r in self.records.values()
                                                     if r['domain'] == domain])

    def create_record(self, req):
        domain, refused = self._domain(req)
        if refused:
            return refused
        q = req.query
        rtype, ttl = q.get('rrtype', '').upper(), self._ttl(q)
        refused = self._invalid(req, rtype, q.get('rrvalue', ''), ttl)
        if refused:
            return refused
        name = '%s.%s' % (q['rrhost'].lower(), domain) if q.get('rrhost') else domain
        return self.reply(req, 300, record_id=self.add_record(domain, name, rtype, q['rrvalue'], ttl))

    def update_record(self, req):
        domain, refused = self._domain(req)
        if refused:
            return refused
        q = req.query
        held = self.records.get(q.get('rrid', ''))
        if held is None or held['domain'] != domain:
            return self.reply(req, 280, detail='Invalid record ID')
        ttl = self._ttl(q)
        refused = self._invalid(req, held['type'], q.get('rrvalue', ''), ttl)
        if refused:
            return refused
        # a new id for every successful update; what is not sent goes back to the API's defaults
        del self.records[held['record_id']]
        rid = new_record_id()
        name = '%s.%s' % (q['rrhost'].lower(), domain) if q.get('rrhost') else domain
        held.update(record_id=rid, name=name, content=q['rrvalue'], ttl=ttl)
        self.records[rid] = held
        return self.reply(req, 300, record_id=rid)

    def delete_record(self, req):
        domain, refused = self._domain(req)
        if refused:
            return refused
        held = self.records.get(req.query.get('rrid', ''))
        if held is None or held['domain'] != domain:
            return self.reply(req, 280, detail='Invalid record ID')
        del self.records[held['record_id']]
        return self.reply(req, 300)

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _ttl(q):
        try:
            return int(q.get('rrttl', DEFAULT_TTL))
        except ValueError:
            return None

    def _invalid(self, req, rtype, value, ttl):
        """An answer refusing a value that is no address of its family or a TTL below 3600, else None."""
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        try:
            if family:
                family(value)
            elif rtype not in ('CNAME', 'MX', 'TXT'):
                raise ValueError(rtype)
        except ValueError:
            return self.reply(req, 280, detail='Invalid record value or type')
        if ttl is None or not 3600 <= ttl <= 2592000:
            return self.reply(req, 280, detail='TTL must be at least 3600 seconds')
        return None

    @staticmethod
    def _public(record):
        """A record as dnsListRecords shows it (values as strings, as the XML-born JSON has them)."""
        return {'record_id': record['record_id'], 'type': record['type'], 'host': record['name'],
                'value': record['content'], 'ttl': str(record['ttl']), 'distance': str(record['distance'])}
