"""Fake DigitalOcean (API v2, Domains and Domain Records): personal access tokens with their scopes,
domains, their records by id.

As the API reference gives them (pydo 0.44.0 builds the same paths and bounds): GET /v2/domains
(list_zones: {"domains": [{name, ttl, zone_file}], "links": {"pages": {"next"...}}, "meta": {"total"}},
paged by page and per_page, 20 by default, 1 to 200), GET /v2/domains/<name>/records (list_records:
{"domain_records": [...], "links", "meta"}, filtered by type and by name, the FULL name), POST on it
(create_record: {type, name, data, ttl?} -> 201 {"domain_record"}), GET, PATCH, PUT and DELETE of
/v2/domains/<name>/records/<id> (get_record, update_record, put_record, delete_record). A record is
{id, type, name (relative, @ the apex), data, priority, port, ttl, weight, flags, tag}; a PATCH
changes what it sends (the TTL stays), a new record's TTL is 1800 (at least 30). Errors are {"id",
"message"}: 401 unauthorized (no or an unknown token), 403 forbidden (a custom-scoped token without
the scope: domain:read for a GET, domain:create for a POST, domain:update for a PATCH or PUT,
domain:delete for a DELETE), 404 not_found (a domain or record the account lacks), 422
unprocessable_entity (a bad address or TTL), 400 bad_request (a page out of bounds).
"""

import ipaddress
import itertools

from fakes.base import FakeServer, RecordStore, Reply

API = '/v2'
DOMAIN = API + r'/domains/([^/]+)'
SCOPES = {'GET': 'domain:read', 'POST': 'domain:create', 'PATCH': 'domain:update', 'PUT': 'domain:update',
          'DELETE': 'domain:delete'}
FAMILIES = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}
_ids = itertools.count(3352892)


def error(status, code, message):
    return Reply(status, {'id': code, 'message': message})


class DigitalOcean(RecordStore, FakeServer):
    PROVIDER, LETTER = 'digitalocean', 'digitalocean'   # the registry's provider it plays

    def __init__(self, token='dop_v1_' + 'a1' * 32, tls_cert=None):
        super().__init__(tls_cert)
        self.token = token
        self.tokens = {token: None}   # token -> its scopes (None: full access)
        self.domains = {}             # name -> domain object
        self.records = {}             # id (text) -> record ('name' full, 'content': what the tests read and set)
        self.route('list_zones', 'GET', API + '/domains', self.list_zones, guard=self._auth)
        self.route('list_records', 'GET', DOMAIN + '/records', self.list_records, guard=self._domain)
        self.route('create_record', 'POST', DOMAIN + '/records', self.create_record, guard=self._domain)
        self.route('get_record', 'GET', DOMAIN + r'/records/([^/]+)', self.get_record, guard=self._domain)
        self.route('update_record', 'PATCH', DOMAIN + r'/records/([^/]+)', self.update_record, guard=self._domain)
        self.route('put_record', 'PUT', DOMAIN + r'/records/([^/]+)', self.update_record, guard=self._domain)
        self.route('delete_record', 'DELETE', DOMAIN + r'/records/([^/]+)', self.delete_record, guard=self._domain)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, ttl=1800):
        self.domains[name] = {'name': name, 'ttl': ttl, 'zone_file': '$ORIGIN %s.\n' % name}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=1800, **more):
        rid = str(next(_ids))
        self.records[rid] = dict({'id': int(rid), 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                                  'ttl': ttl, 'priority': None, 'port': None, 'weight': None, 'flags': None,
                                  'tag': None}, **more)
        return rid

    def scoped(self, token, *scopes):
        """A custom-scoped token of these scopes."""
        self.tokens[token] = set(scopes)

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        scheme, _, token = req.headers.get('authorization', '').partition(' ')
        if scheme != 'Bearer' or token not in self.tokens:
            return error(401, 'Unauthorized', 'Unable to authenticate you')
        scopes = self.tokens[token]
        if scopes is not None and SCOPES[req.method] not in scopes:
            return error(403, 'Forbidden', 'You are not authorized to perform this operation')
        for name, low, high in (('page', 1, 10 ** 6), ('per_page', 1, 200)):
            value = req.query.get(name, str(low))
            if not value.isdigit() or not low <= int(value) <= high:
                return error(400, 'bad_request', '%s must be between %d and %d' % (name, low, high))
        return None

    def _domain(self, req, domain, *rest):
        return self._auth(req) or (None if domain in self.domains else
                                   error(404, 'not_found', 'The resource you were accessing could not be found.'))

    # --- handlers ------------------------------------------------------------------------------
    def list_zones(self, req):
        shown, page = self._page(req, [self.domains[n] for n in sorted(self.domains)])
        return Reply(200, dict(page, domains=shown))

    def list_records(self, req, domain):
        rtype, name = req.query.get('type'), req.query.get('name')
        held = [self._public(r) for rid, r in sorted(self.records.items()) if r['domain'] == domain
                and rtype in (None, r['type']) and name in (None, r['name'])]
        shown, page = self._page(req, held)
        return Reply(200, dict(page, domain_records=shown))

    def get_record(self, req, domain, rid):
        record = self._record(domain, rid)
        return Reply(200, {'domain_record': self._public(record)}) if record else self._missing()

    def create_record(self, req, domain):
        body = req.json if isinstance(req.json, dict) else {}
        if not body.get('type') or body.get('name') is None:
            return error(422, 'unprocessable_entity', 'Type and name are required.')
        refused = self._valid(body['type'], body.get('data'), body.get('ttl', 1800))
        if refused:
            return refused
        name = domain if body['name'] == '@' else '%s.%s' % (body['name'], domain)
        more = {k: body[k] for k in ('priority', 'port', 'weight', 'flags', 'tag') if k in body}
        rid = self.add_record(domain, name.lower(), body['type'], body['data'], body.get('ttl', 1800), **more)
        return Reply(201, {'domain_record': self._public(self.records[rid])})

    def update_record(self, req, domain, rid):
        """PATCH (and PUT, as the API takes it): the fields sent change, the others stay."""
        record = self._record(domain, rid)
        if record is None:
            return self._missing()
        body = req.json if isinstance(req.json, dict) else {}
        refused = self._valid(body.get('type', record['type']), body.get('data', record['content']),
                              body.get('ttl', record['ttl']))
        if refused:
            return refused
        if body.get('type', record['type']) != record['type']:
            return error(422, 'unprocessable_entity', 'The type of a record cannot be changed.')
        if 'name' in body:
            record['name'] = domain if body['name'] == '@' else '%s.%s' % (body['name'], domain)
        record.update({k: body[k] for k in ('ttl', 'priority', 'port', 'weight', 'flags', 'tag') if k in body})
        record['content'] = body.get('data', record['content'])
        return Reply(200, {'domain_record': self._public(record)})

    def delete_record(self, req, domain, rid):
        if self._record(domain, rid) is None:
            return self._missing()
        del self.records[rid]
        return Reply(204, text='')

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _missing():
        return error(404, 'not_found', 'The resource you were accessing could not be found.')

    def _record(self, domain, rid):
        record = self.records.get(rid)
        return record if record is not None and record['domain'] == domain else None

    @staticmethod
    def _valid(rtype, data, ttl):
        """The answer refusing a record's type, data or TTL, or None."""
        family = FAMILIES.get(rtype)
        try:
            if family:
                family(data)
        except (TypeError, ValueError):
            return error(422, 'unprocessable_entity', 'Data needs to be a valid %s address.' % (
                'IPv4' if rtype == 'A' else 'IPv6'))
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 30:
            return error(422, 'unprocessable_entity', 'TTL must be an integer of at least 30.')
        return None

    @staticmethod
    def _page(req, items):
        """(the page's items, its links and meta): per_page (20 by default) from page 1; links.pages
        names next and last only when another page follows."""
        per, page = int(req.query.get('per_page', 20)), int(req.query.get('page', 1))
        shown = items[(page - 1) * per:page * per]
        pages = {}
        if page * per < len(items):
            pages = {'next': 'https://api.digitalocean.com/v2/...?page=%d&per_page=%d' % (page + 1, per),
                     'last': 'https://api.digitalocean.com/v2/...?page=%d&per_page=%d' % (-(-len(items) // per), per)}
        return shown, {'links': {'pages': pages} if pages else {}, 'meta': {'total': len(items)}}

    @staticmethod
    def _public(record):
        """A record as the API shows it: its name relative to the domain, @ the apex."""
        domain, name = record['domain'], record['name']
        shown = {k: record[k] for k in ('id', 'type', 'ttl', 'priority', 'port', 'weight', 'flags', 'tag')}
        return dict(shown, name='@' if name == domain else name[:-len(domain) - 1], data=record['content'])

