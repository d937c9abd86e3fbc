"""Fake Namecheap Dynamic DNS (dynamicdns.park-your-domain.com): the domains of an account, each with
its own Dynamic DNS password and its hosts' IPv4 addresses; `GET /update?host=&domain=&password=[&ip=]`
(host @ for the domain itself; without ip, the request's own address), answered in the XML
<interface-response> Namecheap sends, HTTP 200 whatever it says: ErrCount 0 and the IP on success,
else ErrCount, errors/Err1 and responses/response/ResponseNumber and ResponseString, as clients have
recorded them ("Passwords do not match" and "Invalid IP": 304156; "Domain name not found": 316153).
Its declaration names utf-16 on a UTF-8 body, as Namecheap's has been seen to: a client must not
trust it."""

import ipaddress

from fakes.base import FakeServer, RecordStore, Reply

HEAD = '<?xml version="1.0" encoding="utf-16"?>\r\n<interface-response>\r\n  <Command>SETDNSHOST</Command>\r\n' \
       '  <Language>eng</Language>\r\n'
TAIL = '  <Done>true</Done>\r\n  <debug><![CDATA[]]></debug>\r\n</interface-response>\r\n'
ERRORS = {'password': ('Passwords do not match', '304156', 'Validation error; invalid ; password'),
          'ip': ('Invalid IP', '304156', 'Validation error; invalid ; IP Address'),
          'domain': ('Domain name not found', '316153', 'Validation error; not found; domain name(s)')}


class Namecheap(RecordStore, FakeServer):
    PROVIDER = LETTER = 'namecheap'   # the registry's provider it plays

    def __init__(self, password='0123456789abcdef0123456789abcdef', tls_cert=None):
        super().__init__(tls_cert)
        self.password = password   # the Dynamic DNS password of each domain add_zone makes
        self.domains = {}          # domain -> its Dynamic DNS password
        self.records = {}          # '<name> A' -> {'name', 'type', 'content'}: the store
        self.answer = None         # an error of ERRORS to answer every update with (a test sets it)
        self.route('update', 'GET', r'/update', self.update)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_PASSWORD': self.password, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A domain of the account with Dynamic DNS on, under the fake's password."""
        self.domains[name] = self.password
        return name

    def add_record(self, zone_id, name, rtype, content):
        key = '%s %s' % (name, rtype)
        self.records[key] = {'name': name, 'type': rtype, 'content': content}
        return key

    # --- the update URL ------------------------------------------------------------------------
    def update(self, req):
        query = req.query
        domain, host = query.get('domain', '').lower(), query.get('host', '')
        ip = query.get('ip') or req.client
        if self.answer:
            return self._error(self.answer)
        if domain not in self.domains:
            return self._error('domain')
        if query.get('password') != self.domains[domain]:
            return self._error('password')
        try:
            if ipaddress.ip_address(ip).version != 4:
                return self._error('ip')
        except ValueError:
            return self._error('ip')
        name = domain if host == '@' else '%s.%s' % (host.lower(), domain)
        self.add_record(None, name, 'A', ip)
        return Reply(200, text=HEAD + '  <IP>%s</IP>\r\n  <ErrCount>0</ErrCount>\r\n  <errors />\r\n'
                     '  <ResponseCount>0</ResponseCount>\r\n  <responses />\r\n' % ip + TAIL,
                     headers={'Content-Type': 'text/xml; charset=utf-8'})

    @staticmethod
    def _error(kind):
        said, number, text = ERRORS[kind]
        return Reply(200, text=HEAD + '  <ErrCount>1</ErrCount>\r\n  <errors>\r\n    <Err1>%s</Err1>\r\n  </errors>\r\n'
                     '  <ResponseCount>1</ResponseCount>\r\n  <responses>\r\n    <response>\r\n'
                     '      <Description>%s</Description>\r\n      <ResponseNumber>%s</ResponseNumber>\r\n'
                     '      <ResponseString>%s</ResponseString>\r\n    </response>\r\n  </responses>\r\n'
                     % (said, said, number, text) + TAIL, headers={'Content-Type': 'text/xml; charset=utf-8'})
