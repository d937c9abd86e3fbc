"""Fake Dynu IP update server: the dyndns2 protocol (fakes.dyndns2 plays it) as Dynu's IP Update
Protocol documents it (https://www.dynu.com/DynamicDNS/IP-Update-Protocol): GET only; the credentials
as HTTP Basic auth or as username and password in the query, the password plain or as its MD5 or
SHA-256 hex; the IPv4 address in myip and the IPv6 one in myipv6, "no" leaving that family as it is,
and a family left out taken from the request's own address (so a client that sends one family alone
may change the other: the fake counts what it took from the connection)."""

import base64
import hashlib

from fakes.base import Reply
from fakes.dyndns2 import Dyndns2


class Dynu(Dyndns2):
    PROVIDER = LETTER = 'dynu'   # the registry's provider it plays

    def __init__(self, username='dynu-user', password='dynu-pass-secret', tls_cert=None):
        super().__init__(username, password, tls_cert)
        self.guessed = []   # (host, type, address) set from the request's own address: no field sent
        for method in ('POST', 'PUT'):   # Dynu takes GET only
            self.route('refused', method, r'/nic/update', lambda req: Reply(405, text='method not allowed\n'))

    def _answer(self, req):
        if not req.headers.get('user-agent'):
            return 'badagent'
        user, password = req.query.get('username'), req.query.get('password')
        kind, _, encoded = req.headers.get('authorization', '').partition(' ')
        if kind == 'Basic':
            try:
                user, _, password = base64.b64decode(encoded).decode('utf-8').partition(':')
            except ValueError:
                return 'badauth'
        hashed = {self.password, hashlib.md5(self.password.encode()).hexdigest(),
                  hashlib.sha256(self.password.encode()).hexdigest()}
        if user != self.username or password not in hashed:
            return 'badauth'
        if self.answer:
            return self.answer
        name = req.query.get('hostname', '')
        if '.' not in name:
            return 'notfqdn'
        if not self.find(name, 'A') + self.find(name, 'AAAA'):
            return 'nohost'
        told = []
        for field, rtype in (('myip', 'A'), ('myipv6', 'AAAA')):
            value = req.query.get(field)
            if value == 'no':
                continue
            if value is None:   # left out: the request's own address, when it is of this family
                if (':' in req.client) != (rtype == 'AAAA'):
                    continue
                value = req.client
                self.guessed.append((name, rtype, value))
            told.append((rtype, value))
        changed = False
        for rtype, value in told:
            found = self.find(name, rtype)
            if not found or found[0]['content'] != value:
                self.add_record(None, name, rtype, value)
                changed = True
        shown = ','.join(value for _, value in told)
        return ('good %s' if changed else 'nochg %s') % shown
