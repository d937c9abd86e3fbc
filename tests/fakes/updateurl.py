"""Fake update-URL services: each service of ddns-scripts' list that is an update URL (what each must
be sent: tests/url_services.py, written out from that list apart from the registry's table), and the
`updateurl` provider's own, a dyndns2-like /nic/update. One server plays one service. It takes a GET only
when it is that service's request for a record it holds: the path and the query's pairs in order (as
a server decodes them), HTTP Basic authentication exactly where the service's URL carries
user:password@ (and none elsewhere), the address in the field the service reads (a service whose URL
has no [IP] takes the address the request comes from, so its family is the record's). It keeps what
each record was told (records: id -> {'name', 'type', 'content'}) and answers as these services do:
the first word of its answer and the address on success (a repeat: the answer's second word, where
it has one, as nochg), `badauth` with HTTP 200 for a wrong password, `nohost` for a name it does not
hold, `badrequest` for a request of another shape."""

import base64
from urllib.parse import parse_qsl, unquote

from fakes.base import FakeServer, NameStore, Reply
from url_services import PASSWORD, RECORD, SERVICES, USER

# the updateurl provider's own service: a dyndns2-like update URL with user:password@ (the settings say so)
OWN = ('updateurl', 'good|nochg', (USER, PASSWORD), ('/nic/update', [('hostname', RECORD), ('myip', '{ip}')]), 'same')
OWN_URL = '%s://[USERNAME]:[PASSWORD]@%s/nic/update?hostname=[DOMAIN]&myip=[IP]'


class UrlService(NameStore, FakeServer):
    PROVIDER = LETTER = 'updateurl'   # the registry's provider it plays
    SERVICE = OWN

    def __init__(self, tls_cert=None, host='127.0.0.1'):
        super().__init__(tls_cert, host)
        self.name, self.answer, self.auth, self.four, six = self.SERVICE
        self.six = self.four if six == 'same' else six
        self.password = PASSWORD
        self.records = {}      # the store: '<name> <type>' -> {'name', 'type', 'content'}
        self.route('update', 'GET', r'/.*', self.update)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake: a preset's
        base_url (its URL's scheme and host), the updateurl provider's whole update URL and answer."""
        found = {'DDNS_USERNAME': USER, 'DDNS_PASSWORD': self.password}
        if self.PROVIDER == 'updateurl':
            scheme, _, host = self.url.partition('://')
            return dict(found, DDNS_UPDATE_URL=OWN_URL % (scheme, host), DDNS_ANSWER=self.answer)
        return dict(found, DDNS_BASE_URL=self.url)

    def told(self, rtype='A', name=RECORD):
        """What the record of this name and type holds ('' when never told)."""
        return self.records.get('%s %s' % (name, rtype), {}).get('content', '')

    # --- the update URL ------------------------------------------------------------------------
    def update(self, req):
        pairs = parse_qsl(req.raw_query, keep_blank_values=True)
        path = unquote(req.path)
        # the record a request names: any the service holds (the sandbox's own record, a demo's), else
        # RECORD, the name the entries write, which it answers nohost for
        names = sorted({r['name'] for r in self.records.values()} | {RECORD})
        found = [(rtype, ip, known, name) for rtype, want in (('A', self.four), ('AAAA', self.six)) if want
                 for name in names for ip, known in [self.address(want, name, path, pairs, req.client)]
                 if ip is not None]
        if not found:
            return Reply(400, text='badrequest')
        given = req.headers.get('authorization')
        if self.auth is None:
            if given is not None:   # credentials sent where the service takes none
                return Reply(400, text='badrequest')
        elif given != 'Basic ' + base64.b64encode(('%s:%s' % (self.auth[0], self.password)).encode()).decode():
            return Reply(200, text='badauth')
        if not found[0][2]:   # a password of the query that is not the account's
            return Reply(200, text='badauth')
        words = (self.answer or 'ok|ok').split('|')
        for rtype, ip, _, name in found:
            if (':' in ip) != (rtype == 'AAAA'):
                continue
            if not self.find(name, rtype) and not self.find(name, 'A' if rtype == 'AAAA' else 'AAAA'):
                return Reply(200, text='nohost')
            same = self.told(rtype, name) == ip
            self.add_record(None, name, rtype, ip)
            return Reply(200, text='%s %s' % (words[1] if same and len(words) > 1 else words[0], ip))
        return Reply(400, text='badrequest')

    def address(self, want, name, path, pairs, client):
        """(the address a request of the service's shape for the record name tells: {ip}'s value, or
        the request's own address where the shape has none; whether the password it carries is the
        account's), else (None, False)."""
        expected_path, expected = want[0].replace(RECORD, name), [
            (key, value.replace(RECORD, name)) for key, value in want[1]]
        if path != expected_path or len(pairs) != len(expected):
            return None, False
        ip = None if any('{ip}' in value for _, value in expected) else client
        known = True
        for (name, value), (want_name, want_value) in zip(pairs, expected):
            if want_name == PASSWORD:   # the key as the query's name (afraid.org's)
                known = known and name == self.password
            elif name != want_name:
                return None, False
            if want_value == '{ip}':
                ip = value
            elif want_value == PASSWORD:
                known = known and value == self.password
            elif value != want_value:
                return None, False
        return ip or None, known


def preset(row):
    """The fake of one service of the list (a class: the sandbox starts one per provider)."""
    return type('Service_' + row[0].replace('.', '_').replace('-', '_'), (UrlService,),
                {'PROVIDER': row[0], 'LETTER': row[0], 'SERVICE': row})


SERVICE_FAKES = [preset(row) for row in SERVICES]
globals().update((cls.__name__, cls) for cls in SERVICE_FAKES)
