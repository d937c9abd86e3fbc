"""Fake DNS provider A (API v4 shape): zones, records with ttl/proxied/comment/tags, auth by
e-mail + key or bearer token, answers in the shapes of ../shared/spec/cloudflare-dns-openapi-subset.json
and request bodies validated against that schema (when openapi-schema-validator is installed)."""

import copy
import itertools
import json
import os
import time

from fakes.base import FakeServer, RecordStore, Reply

# provider A's published schema for the endpoints we call: a copy of ../shared/spec's, so a clone
# of this repository alone can run the tests (test_fakes checks the copy is current)
SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cloudflare-dns-openapi-subset.json')
_ids = itertools.count(1)


def new_id():
    return '%032x' % (0x1d2c3b4a5f6e7d8c << 64 | next(_ids))


def envelope(result, status=200):
    return Reply(status, {'success': True, 'errors': [], 'messages': [], 'result': result})


def failure(status, *errors):
    return Reply(status, {'success': False, 'errors': [{'code': c, 'message': m} for c, m in errors],
                          'messages': [], 'result': None})


class ProviderA(RecordStore, FakeServer):
    PROVIDER, LETTER = 'cloudflare', 'a'   # the registry's provider it plays; the sandbox's provider_a

    def __init__(self, email='user@example.com', key='k' * 37, token=None, tls_cert=None):
        super().__init__(tls_cert)
        self.email, self.key, self.token = email, key, token
        self.zones = {}             # zone id -> zone object
        self.records = {}           # record id -> record object (with zone_id)
        self.schema_errors = []     # request bodies that did not validate against the OpenAPI schema
        self.validator = _validator()
        base = '/client/v4'
        self.route('list_zones', 'GET', base + '/zones/?',   # the API takes a trailing slash (ddclient's)
                   self.list_zones, guard=self._auth)
        self.route('list_records', 'GET', base + r'/zones/([^/]+)/dns_records',
                   self.list_records, guard=self._zone)
        self.route('create_record', 'POST', base + r'/zones/([^/]+)/dns_records',
                   self.create_record, guard=self._zone)
        self.route('get_record', 'GET', base + r'/zones/([^/]+)/dns_records/([^/]+)',
                   self.get_record, guard=self._zone)
        self.route('update_record', 'PUT', base + r'/zones/([^/]+)/dns_records/([^/]+)',
                   self.update_record, guard=self._zone)
        self.route('delete_record', 'DELETE', base + r'/zones/([^/]+)/dns_records/([^/]+)',
                   self.delete_record, guard=self._zone)
        self.route('patch_record', 'PATCH', base + r'/zones/([^/]+)/dns_records/([^/]+)',
                   self.patch_record, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_AUTH_EMAIL': self.email, 'DDNS_AUTH_KEY': self.key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        zid = new_id()
        self.zones[zid] = {'id': zid, 'name': name, 'status': 'active', 'paused': False,
                           'type': 'full', 'name_servers': ['a.ns.example', 'b.ns.example']}
        return zid

    def add_record(self, zone_id, name, rtype, content, ttl=1, proxied=False, comment=None, tags=()):
        rid = new_id()
        now = _now()
        self.records[rid] = {'id': rid, 'zone_id': zone_id, 'zone_name': self.zones[zone_id]['name'],
                             'name': name, 'type': rtype, 'content': content, 'proxiable': True,
                             'proxied': proxied, 'ttl': ttl, 'comment': comment, 'tags': list(tags),
                             'meta': {'auto_added': False, 'source': 'primary'},
                             'created_on': now, 'modified_on': now}
        return rid

    # --- handlers ------------------------------------------------------------------------------
    def _auth(self, req):
        if self.token and req.headers.get('authorization') == 'Bearer ' + self.token:
            return None
        if 'authorization' in req.headers:
            return failure(403, (10000, 'Authentication error'))
        if not req.headers.get('x-auth-email') or not req.headers.get('x-auth-key'):
            return failure(400, (9106, 'Missing X-Auth-Email header'), (9107, 'Missing X-Auth-Key header'))
        if req.headers['x-auth-email'] != self.email or req.headers['x-auth-key'] != self.key:
            return failure(403, (9103, 'Unknown X-Auth-Key or X-Auth-Email'))
        return None

    def _zone(self, req, zone_id, record_id=None):
        """The guard of a zone's routes: the credentials, then the zone."""
        denied = self._auth(req)
        if denied:
            return denied
        if zone_id not in self.zones:
            return failure(400, (7003, 'Could not route to /zones/%s/dns_records, perhaps your object '
                                       'identifier is invalid?' % zone_id), (7000, 'No route for that URI'))
        return None

    def list_zones(self, req):
        name = req.query.get('name', req.query.get('name.exact'))
        found = [z for z in self.zones.values() if name is None or z['name'] == name]
        # pages as the API makes them: per_page 5 to 50 (default 20), page from 1
        per_page, page = int(req.query.get('per_page', 20)), int(req.query.get('page', 1))
        if not 5 <= per_page <= 50 or page < 1:
            return failure(400, (1001, 'Invalid request: per_page must be between 5 and 50'))
        shown = found[(page - 1) * per_page:page * per_page]
        return Reply(200, {'success': True, 'errors': [], 'messages': [], 'result': shown, 'result_info': {
            'page': page, 'per_page': per_page, 'count': len(shown), 'total_count': len(found),
            'total_pages': -(-len(found) // per_page)}})

    def list_records(self, req, zone_id):
        q = req.query
        name = q.get('name', q.get('name.exact', None))   # name.exact: the filter's explicit form
        found = [_public(r) for r in self.records.values() if r['zone_id'] == zone_id
                 and (name is None or name == r['name']) and q.get('type', r['type']) == r['type']]
        # pages as the API makes them: per_page 1 to 5,000,000 (default 100), page from 1
        per_page, page = int(q.get('per_page', 100)), int(q.get('page', 1))
        if not 1 <= per_page <= 5000000 or page < 1:
            return failure(400, (1004, 'DNS Validation Error'))
        shown = found[(page - 1) * per_page:page * per_page]
        return Reply(200, {'success': True, 'errors': [], 'messages': [], 'result': shown, 'result_info': {
            'page': page, 'per_page': per_page, 'count': len(shown), 'total_count': len(found)}})

    def get_record(self, req, zone_id, record_id):
        record = self.records.get(record_id)
        if not record or record['zone_id'] != zone_id:
            return failure(404, (81044, 'Record does not exist.'))
        return envelope(_public(record))

    def create_record(self, req, zone_id):
        denied = self._invalid(req)   # the zone: the route's guard
        if denied:
            return denied
        body = req.json
        rid = self.add_record(zone_id, body['name'], body['type'], body['content'], body.get('ttl', 1),
                              body.get('proxied', False), body.get('comment'), body.get('tags', ()))
        return envelope(_public(self.records[rid]))

    def update_record(self, req, zone_id, record_id):
        denied = self._invalid(req)   # the zone: the route's guard
        if denied:
            return denied
        record = self.records.get(record_id)
        if not record or record['zone_id'] != zone_id:
            return failure(404, (81044, 'Record does not exist.'))
        body = req.json
        # PUT overwrites: fields not sent go back to their defaults, as the real API does
        record.update({'name': body['name'], 'type': body['type'], 'content': body['content'],
                       'ttl': body.get('ttl', 1), 'proxied': body.get('proxied', False),
                       'comment': body.get('comment'), 'tags': list(body.get('tags', [])),
                       'modified_on': _now()})
        return envelope(_public(record))

    def patch_record(self, req, zone_id, record_id):
        """PATCH edits a record: only the fields sent change (ddclient's update)."""
        record = self.records.get(record_id)
        if not record or record['zone_id'] != zone_id:
            return failure(404, (81044, 'Record does not exist.'))
        body = req.json or {}
        record.update({k: body[k] for k in ('name', 'type', 'content', 'ttl', 'proxied', 'comment', 'tags')
                       if k in body})
        record['modified_on'] = _now()
        return envelope(_public(record))

    def delete_record(self, req, zone_id, record_id):
        record = self.records.get(record_id)
        if not record or record['zone_id'] != zone_id:
            return failure(404, (81044, 'Record does not exist.'))
        del self.records[record_id]
        return envelope({'id': record_id})

    def _invalid(self, req):
        try:
            body = json.loads(req.body)
        except ValueError:
            return failure(400, (6007, 'Malformed JSON in request body'))
        if self.validator is not None:
            errors = [e.message for e in self.validator.iter_errors(body)]
            if errors:
                self.schema_errors.append((req.method, req.path, body, errors))
                return failure(400, (9005, 'Request body does not match the schema: %s' % errors[0][:200]))
        elif not isinstance(body, dict) or not {'type', 'name', 'content'} <= set(body):
            return failure(400, (9005, 'Content for record is invalid'))
        return None


def _public(record):
    return {k: v for k, v in record.items()}


def _now():
    return time.strftime('%Y-%m-%dT%H:%M:%S.000000Z', time.gmtime())


def _validator():
    """The request validator for record bodies: readOnly properties are not required in requests."""
    try:
        from openapi_schema_validator import OAS30WriteValidator, oas30_format_checker
    except ImportError:
        return None
    with open(SPEC) as f:
        components = copy.deepcopy(json.load(f)['components'])
    read_only = {'proxiable', 'created_on', 'modified_on', 'meta'}
    for schema in components['schemas'].values():
        if 'required' in schema:
            schema['required'] = [r for r in schema['required'] if r not in read_only]
    root = {'$ref': '#/components/schemas/dns-records_dns-record', 'components': components}
    return OAS30WriteValidator(root, format_checker=oas30_format_checker)
