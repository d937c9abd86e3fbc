"""Fake DuckDNS (https://www.duckdns.org/spec.jsp): the domains of one account, each holding an IPv4
and an IPv6 address; `GET /update?domains=&token=[&ip=][&ipv6=][&verbose=true][&clear=true]`, answered
in plain text: OK or KO (a wrong token and a domain not in the account alike), with verbose the
addresses held and UPDATED or NOCHANGE. `ip` takes either family; left out or empty, and no ipv6
given, the IPv4 address the request comes from is taken (counted in `detected`: a client telling a
record's address must never leave that to DuckDNS). A domain is its sub-name or the full name: the
zone given to add_zone plays duckdns.org."""

import ipaddress

from fakes.base import FakeServer, Reply


class DuckDns(FakeServer):
    PROVIDER = LETTER = 'duckdns'   # the registry's provider it plays

    def __init__(self, token='9f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f', tls_cert=None):
        super().__init__(tls_cert)
        self.token = token
        self.suffix = 'duckdns.org'   # the service's domain (add_zone: the sandbox's zone plays it)
        self.records = {}             # '<name> <type>' -> {'name', 'type', 'content'}: the store
        self.detected = []            # (name, address) set from the request's own address
        self.route('update', 'GET', r'/update', self.update)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """The service's domain: the account's domains are names under it."""
        self.suffix = name
        return name

    def add_record(self, zone_id, name, rtype, content):
        key = '%s %s' % (name, rtype)
        self.records[key] = {'name': name, 'type': rtype, 'content': content}
        return key

    def find(self, name, rtype='A'):
        return [r for r in self.records.values() if r['name'] == name and r['type'] == rtype and r['content']]

    # --- the update URL ------------------------------------------------------------------------
    def update(self, req):
        query = req.query
        names = [self._full(d) for d in query.get('domains', '').split(',') if d]
        if query.get('token') != self.token or not names or \
                [n for n in names if not any(r['name'] == n for r in self.records.values())]:
            return Reply(200, text='KO')
        told = {}
        if query.get('clear') == 'true':
            told = {'A': '', 'AAAA': ''}
        else:
            ip, ipv6 = query.get('ip', ''), query.get('ipv6', '')
            if ip:
                told['AAAA' if ':' in ip else 'A'] = self._address(ip)
            elif not ipv6 and ':' not in req.client:
                told['A'] = req.client
                self.detected += [(name, req.client) for name in names]
            if ipv6:
                told['AAAA'] = self._address(ipv6)
            if None in told.values():
                return Reply(200, text='KO')
        changed = False
        for name in names:
            for rtype, value in told.items():
                held = self.records.get('%s %s' % (name, rtype), {}).get('content', '')
                if held != value:
                    self.add_record(None, name, rtype, value)
                    changed = True
        if query.get('verbose') != 'true':
            return Reply(200, text='OK')
        first = names[0]
        return Reply(200, text='OK\n%s\n%s\n%s' % (self.records.get(first + ' A', {}).get('content', ''),
                                                   self.records.get(first + ' AAAA', {}).get('content', ''),
                                                   'UPDATED' if changed else 'NOCHANGE'))

    def _full(self, domain):
        """A domain as the account's records name it: the sub-name, with the service's domain."""
        domain = domain.lower().rstrip('.')
        return domain if domain.endswith('.' + self.suffix) else domain + '.' + self.suffix

    @staticmethod
    def _address(text):
        try:
            return str(ipaddress.ip_address(text))
        except ValueError:
            return None
