"""Fake Hurricane Electric dynamic DNS (dyn.dns.he.net, for zones at dns.he.net): the dyndns2
protocol (fakes.dyndns2 plays it) with Hurricane Electric's credentials: no account login, but a key
per record that has dynamic DNS switched on; the user name is the host name itself and the password
that record's key, as HTTP Basic auth or hostname and password in the query or a form body. myip
takes an IPv4 or an IPv6 address. Its answers are not published: what clients handle (ddclient's
list) is good, nochg, badauth (a wrong key, or a user that is not the host), nohost (no such record),
badsys and abuse, each with HTTP 200 ("always returns 200", a peer client's note)."""

import base64
from urllib.parse import parse_qs

from fakes.dyndns2 import STOP_CODES, Dyndns2


class He(Dyndns2):
    PROVIDER = LETTER = 'he'   # the registry's provider it plays
    STOPS = STOP_CODES + ('badsys',)

    def __init__(self, password='he-ddns-key-secret', tls_cert=None):
        super().__init__(None, password, tls_cert)
        self.keys = {}   # host name -> its dynamic DNS key (a host without one cannot be updated)
        self.route('update', 'POST', r'/nic/update', self.update)

    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake: the key alone (the
        user name is the host name, which the tool sends when username is not set)."""
        return {'DDNS_PASSWORD': self.password, 'DDNS_SERVER': self.url}

    def add_record(self, zone_id, name, rtype, content):
        """A record with dynamic DNS switched on: its key is the fake's password unless set in keys."""
        self.keys.setdefault(name, self.password)
        return super().add_record(zone_id, name, rtype, content)

    def _answer(self, req):
        given = dict(req.query)
        if req.method == 'POST':
            given.update({k: v[0] for k, v in parse_qs(req.body.decode()).items()})
        name = given.get('hostname', '')
        user, key = name, given.get('password')
        kind, _, encoded = req.headers.get('authorization', '').partition(' ')
        if kind == 'Basic':
            try:
                user, _, key = base64.b64decode(encoded).decode('utf-8').partition(':')
            except ValueError:
                return 'badauth'
        if name not in self.keys:
            return 'nohost'
        if user != name or key != self.keys[name]:
            return 'badauth'
        if self.answer:
            return self.answer
        ip = given.get('myip') or req.client
        rtype = 'AAAA' if ':' in ip else 'A'
        found = self.find(name, rtype)
        if found and found[0]['content'] == ip:
            return 'nochg %s' % ip
        super().add_record(None, name, rtype, ip)
        return 'good %s' % ip
