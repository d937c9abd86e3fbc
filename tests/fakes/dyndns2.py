"""Fake dyndns2 service (the update protocol of DynDNS, No-IP, Dynu): host names of one account, each
holding an A and an AAAA address; `GET /nic/update?hostname=&myip=` with HTTP Basic auth, answered in
plain text with the protocol's return codes (https://help.dyn.com/remote-access-api/return-codes/).
It also counts what a client must not do: a request sent again after a stop code."""

import base64

from fakes.base import FakeServer, Reply

STOP_CODES = ('badauth', 'nohost', 'notfqdn', 'numhost', 'abuse', 'badagent', '!donator', '!yours')


class Dyndns2(FakeServer):
    PROVIDER, LETTER = 'dyndns2', 'dyndns2'   # the registry's provider it plays
    STOPS = STOP_CODES   # the answers after which a client must not send again (a service's own list)

    def __init__(self, username='user', password='pass-secret', tls_cert=None):
        super().__init__(tls_cert)
        self.username, self.password = username, password
        self.hosts = {}            # host id (its name) -> {'name', 'type', 'content'}: the store
        self.answer = None         # a code to answer every update with (a test sets '911', 'abuse', ...)
        self.after_stop = 0        # requests that came after a stop code was answered: a client the
        self.stopped = False       # real service would block
        self.route('update', 'GET', r'/nic/update', self.update)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_USERNAME': self.username, 'DDNS_PASSWORD': self.password, 'DDNS_SERVER': self.url}

    def add_zone(self, name):
        """dyndns2 has no zones: the domain stands for the host names under it."""
        return name

    def add_record(self, zone_id, name, rtype, content):
        key = '%s %s' % (name, rtype)
        self.hosts[key] = {'name': name, 'type': rtype, 'content': content}
        return key

    def find(self, name, rtype='A'):
        return [h for h in self.hosts.values() if h['name'] == name and h['type'] == rtype]

    # --- the protocol --------------------------------------------------------------------------
    def update(self, req):
        if self.stopped:
            self.after_stop += 1
        code = self._answer(req)
        if code.split()[0] in self.STOPS:
            self.stopped = True
        return Reply(200, text=code + '\n')

    def _answer(self, req):
        if not req.headers.get('user-agent'):
            return 'badagent'
        kind, _, encoded = req.headers.get('authorization', '').partition(' ')
        try:
            user, _, password = base64.b64decode(encoded).decode('utf-8').partition(':')
        except ValueError:
            return 'badauth'
        if kind != 'Basic' or (user, password) != (self.username, self.password):
            return 'badauth'
        if self.answer:
            return self.answer
        names = req.query.get('hostname', '').split(',')
        if len(names) > 20:
            return 'numhost'
        name, ip = names[0], req.query.get('myip', '')
        if '.' not in name:
            return 'notfqdn'
        rtype = 'AAAA' if ':' in ip else 'A'
        hosts = self.find(name, 'A') + self.find(name, 'AAAA')
        if not hosts:
            return 'nohost'
        found = self.find(name, rtype)
        if found and found[0]['content'] == ip:
            return 'nochg %s' % ip
        self.add_record(None, name, rtype, ip)
        return 'good %s' % ip
