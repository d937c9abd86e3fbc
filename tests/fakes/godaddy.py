"""Fake GoDaddy (Domains API v1): API keys and their secrets, the account's domains, their records.

As developer.godaddy.com documents them (and the peers ddns-go and acme.sh send them): every call
carries `Authorization: sso-key <key>:<secret>`, else 401 UNABLE_TO_AUTHENTICATE; an account under
GoDaddy's threshold (small) is answered 403 ACCESS_DENIED on every call. GET /v1/domains (list_zones:
[{domain, domainId, status, ...}], limit and marker: the domains after it), GET /v1/domains/<domain>/
records (list_records), PATCH of it (add_records: [{type, name, data, ttl}]), GET, PUT and DELETE of
/v1/domains/<domain>/records/<type>/<name> (get_records: [{data, name, ttl, type}], [] when none;
put_records: [{data, ttl}] REPLACES every record of the name and type, the TTL at least 600 and
3600 when not sent; delete_records). Names are relative, `@` the apex. A domain the account lacks
is 404 UNKNOWN_DOMAIN; a body refused 422 INVALID_BODY with its fields ({code, message, path}); the
throttle 429 TOO_MANY_REQUESTS with retryAfterSec (FakeServer.fail's 'reply').
"""

import ipaddress
import itertools

from fakes.base import FakeServer, RecordStore, Reply

API = '/v1'
RECORDS = API + r'/domains/([^/]+)/records'
BY_NAME = RECORDS + r'/([^/]+)/([^/]+)'
FAMILIES = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}
_ids = itertools.count(1)


def error(status, code, message, fields=None):
    body = {'code': code, 'message': message}
    if fields:
        body['fields'] = fields
    return Reply(status, body)


class GoDaddy(RecordStore, FakeServer):
    PROVIDER, LETTER = 'godaddy', 'godaddy'   # the registry's provider it plays

    def __init__(self, key='e4Xampl3K3y_9Qh2jWbLvR8sTg', secret='S3cr3tExampl3xYz', tls_cert=None):
        super().__init__(tls_cert)
        self.key, self.secret = key, secret
        self.small = False    # True: an account GoDaddy no longer serves the Domains API (403)
        self.domains = {}     # name -> domain object
        self.records = {}     # internal id -> record ('name' full, 'content': what the tests read and set)
        self.route('list_zones', 'GET', API + '/domains', self.list_zones, guard=self._auth)
        self.route('list_records', 'GET', RECORDS, self.list_records, guard=self._domain)
        self.route('add_records', 'PATCH', RECORDS, self.add_records, guard=self._domain)
        self.route('get_records', 'GET', BY_NAME, self.get_records, guard=self._domain)
        self.route('put_records', 'PUT', BY_NAME, self.put_records, guard=self._domain)
        self.route('delete_records', 'DELETE', BY_NAME, self.delete_records, guard=self._domain)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_KEY': self.key, 'DDNS_API_SECRET': self.secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        self.domains[name] = {'domain': name, 'domainId': 1000 + len(self.domains), 'status': 'ACTIVE',
                              'expires': '2030-01-02T03:04:05.000Z', 'renewAuto': True, 'privacy': False}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=3600):
        """A record; its id in the tool's ids file is its name (the API knows records by name and type)."""
        self.records[next(_ids)] = {'domain': zone_id, 'name': name, 'type': rtype, 'content': content, 'ttl': ttl}
        return name

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        if req.headers.get('authorization') != 'sso-key %s:%s' % (self.key, self.secret):
            return error(401, 'UNABLE_TO_AUTHENTICATE', 'Unauthorized : Could not authenticate API key/secret')
        if self.small:
            return error(403, 'ACCESS_DENIED', 'Authenticated user is not allowed access')
        return None

    def _domain(self, req, domain, *rest):
        return self._auth(req) or (None if domain in self.domains else
                                   error(404, 'UNKNOWN_DOMAIN', 'The given domain is not registered, or does not '
                                         'have a zone file'))

    # --- handlers ------------------------------------------------------------------------------
    def list_zones(self, req):
        names = sorted(n for n in self.domains if n > req.query.get('marker', ''))
        limit = int(req.query.get('limit') or 1000)
        return Reply(200, [self.domains[n] for n in names[:limit]])

    def list_records(self, req, domain):
        return Reply(200, [self._public(r) for r in self._of(domain)])

    def get_records(self, req, domain, rtype, name):
        return Reply(200, [self._public(r) for r in self._of(domain, rtype, name)])

    def put_records(self, req, domain, rtype, name):
        """Every record of the name and type replaced by those sent."""
        body = req.json
        if not isinstance(body, list) or not body:
            return error(422, 'INVALID_BODY', 'Request body doesn\'t fulfill schema, see details in `fields`',
                         [{'code': 'UNEXPECTED_TYPE', 'message': 'is not a non-empty array', 'path': 'records'}])
        refused = self._invalid(rtype, body, named=False)
        if refused:
            return refused
        for rid in [rid for rid, r in self.records.items() if r in self._of(domain, rtype, name)]:
            del self.records[rid]
        for item in body:
            self.add_record(domain, self._full(domain, name), rtype, item['data'], item.get('ttl', 3600))
        return Reply(200, text='')

    def add_records(self, req, domain):
        body = req.json
        if not isinstance(body, list):
            return error(422, 'INVALID_BODY', 'Request body doesn\'t fulfill schema, see details in `fields`')
        refused = self._invalid(None, body, named=True)
        if refused:
            return refused
        for item in body:
            self.add_record(domain, self._full(domain, item['name']), item['type'], item['data'],
                            item.get('ttl', 3600))
        return Reply(200, text='')

    def delete_records(self, req, domain, rtype, name):
        gone = [rid for rid, r in self.records.items() if r in self._of(domain, rtype, name)]
        if not gone:
            return error(404, 'NOT_FOUND', 'The given domain has no record of this type and name')
        for rid in gone:
            del self.records[rid]
        return Reply(204, text='')

    # --- helpers -------------------------------------------------------------------------------
    def _of(self, domain, rtype=None, name=None):
        full = None if name is None else self._full(domain, name)
        return [r for r in self.records.values() if r['domain'] == domain and rtype in (None, r['type'])
                and full in (None, r['name'])]

    @staticmethod
    def _full(domain, name):
        return domain if name == '@' else '%s.%s' % (name.lower(), domain)

    @staticmethod
    def _invalid(rtype, body, named):
        """The 422 of a body's records that the API refuses (an address not of the type, a TTL under
        600, a field missing), or None."""
        fields = []
        for n, item in enumerate(body):
            item = item if isinstance(item, dict) else {}
            kind = item.get('type') if named else rtype
            required = ('data', 'name', 'type') if named else ('data',)
            fields += [{'code': 'MISSING_PROPERTY', 'message': 'is required', 'path': 'records[%d].%s' % (n, k)}
                       for k in required if k not in item]
            ttl = item.get('ttl', 3600)
            if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 600:
                fields.append({'code': 'UNEXPECTED_VALUE', 'message': 'must be at least 600',
                               'path': 'records[%d].ttl' % n})
            try:
                if kind in FAMILIES and 'data' in item:
                    FAMILIES[kind](item['data'])
            except (TypeError, ValueError):
                fields.append({'code': 'INVALID_VALUE', 'message': 'is not a valid %s address' % kind,
                               'path': 'records[%d].data' % n})
        return error(422, 'INVALID_BODY', 'Request body doesn\'t fulfill schema, see details in `fields`',
                     fields) if fields else None

    @staticmethod
    def _public(record):
        """A record as the API shows it: its name relative to the domain, @ the apex."""
        domain, name = record['domain'], record['name']
        return {'data': record['content'], 'name': '@' if name == domain else name[:-len(domain) - 1],
                'ttl': record['ttl'], 'type': record['type']}
