"""Fake Name.com (the core API, v1): domains of one account, their records by id, HTTP Basic
authentication with the account's user name and an API token.

The shapes are those of name.com's Core API 1.7.0 OpenAPI document: a record {id, domainName, host,
fqdn, type, answer, ttl} with fields at their defaults left out (an apex record has no host),
listings {records, totalCount, from, to, nextPage, lastPage} page by page (perPage, page),
ListDomains {domains: [{domainName, ...}], ...}, Hello {motd, serverName, serverTime, username}, and
every error {message, details}: 401 for credentials refused, 404 for a domain or record the account
does not have, 400 for an invalid argument (a TTL under 300), 415 for a POST or PUT that is not
application/json. UpdateRecord is a full overwrite: a field not sent is not kept (the TTL goes back
to 300). The routes: hello, list_domains, list_records, create_record, get_record, update_record,
delete_record.
"""

import base64
import itertools
import json
import time

from fakes.base import FakeServer, RecordStore, Reply

API = '/core/v1'
TYPES = ('A', 'AAAA', 'ANAME', 'CNAME', 'MX', 'NS', 'SRV', 'TXT')
_ids = itertools.count(1)


def error(status, message, details=None):
    body = {'message': message}
    if details is not None:
        body['details'] = details
    return Reply(status, body)


class NameCom(RecordStore, FakeServer):
    PROVIDER, LETTER = 'namecom', 'namecom'   # the registry's provider it plays; the sandbox's provider_namecom

    def __init__(self, username='ddkit-user', token='0123456789abcdef0123456789abcdef01234567', tls_cert=None):
        super().__init__(tls_cert)
        self.username, self.token = username, token
        self.domains = {}     # domain name -> domain object
        self.records = {}     # id (text) -> record ('name', 'content': what the tests read and set)
        self.route('hello', 'GET', API + '/hello', self.hello, guard=self._auth)
        self.route('list_domains', 'GET', API + '/domains', self.list_domains, guard=self._auth)
        self.route('list_records', 'GET', API + r'/domains/([^/]+)/records', self.list_records, guard=self._domain)
        self.route('create_record', 'POST', API + r'/domains/([^/]+)/records', self.create_record, guard=self._domain)
        self.route('get_record', 'GET', API + r'/domains/([^/]+)/records/([^/]+)', self.get_record, guard=self._domain)
        self.route('update_record', 'PUT', API + r'/domains/([^/]+)/records/([^/]+)', self.update_record,
                   guard=self._domain)
        self.route('delete_record', 'DELETE', API + r'/domains/([^/]+)/records/([^/]+)', self.delete_record,
                   guard=self._domain)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_USERNAME': self.username, 'DDNS_API_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, nameservers=('ns1.name.com', 'ns2.name.com')):
        """A domain of the account; its id in the API's paths is its name."""
        self.domains[name] = {'domainName': name, 'nameservers': list(nameservers), 'locked': True,
                              'autorenewEnabled': True, 'privacyEnabled': False,
                              'createDate': '2024-01-02T03:04:05Z', 'expireDate': '2030-01-02T03:04:05Z'}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=300):
        rid = str(next(_ids) + 100000)
        self.records[rid] = {'id': int(rid), 'domainName': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl}
        return rid

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        """HTTP Basic with the user name and the token, else 401; a POST or PUT must say its body is
        JSON, else 415."""
        sent = req.headers.get('authorization', '')
        try:
            user, _, token = base64.b64decode(sent[6:], validate=True).decode().partition(':') \
                if sent.startswith('Basic ') else ('', '', '')
        except ValueError:
            user = token = ''
        if (user, token) != (self.username, self.token):
            return error(401, 'Unauthenticated')
        if req.method in ('POST', 'PUT', 'PATCH') and \
                req.headers.get('content-type', '').split(';')[0].strip() != 'application/json':
            return error(415, 'The \'Content-Type\' header must be \'application/json\' for this request.')
        return None

    def _domain(self, req, domain, record_id=None):
        return self._auth(req) or (None if domain in self.domains else
                                   error(404, 'Not Found', 'The requested domain does not exist.'))

    # --- operations ----------------------------------------------------------------------------
    def hello(self, req):
        return Reply(200, {'motd': 'Welcome to the Name.com API (fake)', 'serverName': 'fake-api',
                           'serverTime': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
                           'username': self.username})

    def list_domains(self, req):
        shown, page = self._page(req, sorted(self.domains.values(), key=lambda d: d['domainName']))
        return Reply(200, dict(page, domains=shown))

    def list_records(self, req, domain):
        held = [self._public(r) for r in sorted(self.records.values(), key=lambda r: r['id'])
                if r['domainName'] == domain]
        shown, page = self._page(req, held)
        return Reply(200, dict(page, records=shown))

    def get_record(self, req, domain, record_id):
        record = self._record(domain, record_id)
        return error(404, 'Not Found', 'Record not found') if record is None else Reply(200, self._public(record))

    def create_record(self, req, domain):
        body, refused = self._body(req, ('type', 'host', 'answer'))
        if refused:
            return refused
        rid = self.add_record(domain, self._name(domain, body.get('host')), body['type'], body['answer'],
                              body.get('ttl', 300))
        return Reply(200, self._public(self.records[rid]))

    def update_record(self, req, domain, record_id):
        record = self._record(domain, record_id)
        if record is None:
            return error(404, 'Not Found', 'Record not found')
        body, refused = self._body(req, ('type', 'answer'))
        if refused:
            return refused
        if 'id' in body and str(body['id']) != record_id:
            return error(400, 'Invalid Argument', 'Record ID in body does not match the URI')
        # a full overwrite: what is not sent is not kept
        record.update({'name': self._name(domain, body.get('host')), 'type': body['type'],
                       'content': body['answer'], 'ttl': body.get('ttl', 300)})
        return Reply(200, self._public(record))

    def delete_record(self, req, domain, record_id):
        if self._record(domain, record_id) is None:
            return error(404, 'Not Found', 'Record not found')
        del self.records[record_id]
        return Reply(204, text='')

    # --- helpers -------------------------------------------------------------------------------
    def _record(self, domain, record_id):
        record = self.records.get(record_id)
        return record if record is not None and record['domainName'] == domain else None

    @staticmethod
    def _name(domain, host):
        host = (host or '').rstrip('.')
        return domain if host in ('', '@') else '%s.%s' % (host.lower(), domain)

    @staticmethod
    def _body(req, required):
        """(the JSON body, None), or (None, the answer refusing it)."""
        try:
            body = json.loads(req.body)
        except ValueError:
            return None, error(400, 'Invalid Argument', 'the request body is not valid JSON')
        if not isinstance(body, dict):
            return None, error(400, 'Invalid Argument', 'the request body is not an object')
        for name in required:
            if name not in body or (name != 'host' and not body[name]):
                return None, error(400, 'Invalid Argument', '\'%s\' cannot be null' % name)
        if body['type'] not in TYPES:
            return None, error(400, 'Invalid Argument', 'unsupported record type %s' % body['type'])
        ttl = body.get('ttl', 300)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 300:
            return None, error(400, 'Invalid Argument', 'TTL must be at least 300')
        return body, None

    @staticmethod
    def _page(req, items):
        """(the page's items, the listing's counters) as the API pages them: perPage (1000 by
        default), page from 1; nextPage and lastPage only when another page follows."""
        try:
            per, page = int(req.query.get('perPage') or 1000), int(req.query.get('page') or 1)
        except ValueError:
            per, page = 1000, 1
        per, page = max(1, min(per, 1000)), max(1, page)
        shown = items[(page - 1) * per:page * per]
        counters = {'totalCount': len(items), 'from': (page - 1) * per + 1 if shown else 0,
                    'to': (page - 1) * per + len(shown)}
        last = max(1, -(-len(items) // per))
        if page < last:
            counters.update(nextPage=page + 1, lastPage=last)
        return shown, counters

    @staticmethod
    def _public(record):
        """A record as the API shows it: the apex without a host, fields at their defaults left out."""
        domain, name = record['domainName'], record['name']
        shown = {'id': record['id'], 'domainName': domain, 'fqdn': name + '.', 'type': record['type'],
                 'answer': record['content'], 'ttl': record['ttl']}
        if name != domain:
            shown['host'] = name[:-len(domain) - 1]
        return shown
