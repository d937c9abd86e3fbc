"""Fake helper services of service.md 4.3: a public-IP lookup and a DNS-over-HTTPS resolver."""

from fakes.base import FakeServer, Reply

TYPES = {'A': 1, 'AAAA': 28}


class IpLookup(FakeServer):
    """Answers GET / with `answer` as plain text (the public IP it pretends to see)."""

    def __init__(self, answer='198.51.100.7', tls_cert=None, host='127.0.0.1'):
        super().__init__(tls_cert, host)
        self.answer = answer
        self.route('lookup', 'GET', '/', lambda req: Reply(200, text=self.answer + '\n'))


class DoH(FakeServer):
    """Answers GET /resolve?name=&type= in the application/dns-json shape from `names`."""

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.names = {}       # (name, 'A'|'AAAA') -> [address, ...]
        self.status = 0       # DNS RCODE to answer with (3 = NXDOMAIN)
        self.route('resolve', 'GET', '/resolve', self.resolve)

    def resolve(self, req):
        name, rtype = req.query.get('name', ''), req.query.get('type', 'A')
        found = self.names.get((name, rtype), [])
        answer = {'Status': self.status if found or self.status else 3, 'TC': False, 'RD': True,
                  'RA': True, 'AD': False, 'CD': False,
                  'Question': [{'name': name + '.', 'type': TYPES.get(rtype, 1)}]}
        if found and self.status == 0:
            answer['Answer'] = [{'name': name + '.', 'type': TYPES[rtype], 'TTL': 300, 'data': ip}
                                for ip in found]
        return Reply(200, answer, headers={'Content-Type': 'application/dns-json'})
