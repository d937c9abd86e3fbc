"""Fake dynv6 (the REST API, v2, OpenAPI 0.2.0 of github.com/dynv6/api-spec): the zones of one
account, their records by id, HTTP tokens (Authorization: Bearer), each for every zone or one.

A zone {id, name, ipv4address, ipv6prefix, createdAt, updatedAt}: its own A and AAAA are those two
fields (PATCH /zones/{id} sets what it is sent). A record {id, zoneID, name (relative to the zone),
type, data} has no TTL; POST needs name, type (A, AAAA, CAA, CNAME, MX, SPF, SRV, TXT) and data;
PATCH changes what it is sent. Errors {"error": {"name", "message"}}, a refused field adding
"fields": [{"name", "message"}] (HTTP 422, ValidationError): 401 for a token refused, 403 for a
token of another zone, 404 for a zone or record the account does not have, 400 for a body that is
no JSON. A field the reference does not name (a ttl) is refused as a ValidationError. The routes:
list_zones, zone_by_name, get_zone, update_zone, list_records, create_record, get_record,
update_record, delete_record.
"""

import ipaddress
import itertools
import json
import time

from fakes.base import FakeServer, RecordStore, Reply

API = '/api/v2'
TYPES = ('A', 'AAAA', 'CAA', 'CNAME', 'MX', 'SPF', 'SRV', 'TXT')
RECORD_FIELDS = ('name', 'type', 'data', 'priority', 'port', 'weight', 'flags', 'tag', 'id', 'zoneID', 'expandedData')
ZONE_FIELDS = ('ipv4address', 'ipv6prefix', 'id', 'name', 'createdAt', 'updatedAt')
_ids = itertools.count(1)


def error(status, name, message, fields=None):
    body = {'name': name, 'message': message}
    if fields is not None:
        body['fields'] = [{'name': n, 'message': m} for n, m in fields]
    return Reply(status, {'error': body})


def invalid(*fields):
    return error(422, 'ValidationError', 'Validation failed', fields)


def now():
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())


class Dynv6(RecordStore, FakeServer):
    PROVIDER, LETTER = 'dynv6', 'dynv6'   # the registry's provider it plays; the sandbox's provider_dynv6

    def __init__(self, token='dynv6-http-token-0123456789abcdef', tls_cert=None):
        super().__init__(tls_cert)
        self.token = token
        self.tokens = {token: None}   # token -> the one zone name it is restricted to, or None: every zone
        self.zones = {}               # id (text) -> zone object
        self.records = {}             # id (text) -> record ('name' full, 'content': what the tests read and set)
        zone, record = API + r'/zones/([^/]+)', API + r'/zones/([^/]+)/records/([^/]+)'
        self.route('list_zones', 'GET', API + '/zones', self.list_zones, guard=self._auth)
        self.route('zone_by_name', 'GET', API + r'/zones/by-name/([^/]+)', self.zone_by_name, guard=self._auth)
        self.route('list_records', 'GET', API + r'/zones/([^/]+)/records', self.list_records, guard=self._zone)
        self.route('create_record', 'POST', API + r'/zones/([^/]+)/records', self.create_record, guard=self._zone)
        self.route('get_zone', 'GET', zone, self.get_zone, guard=self._zone)
        self.route('update_zone', 'PATCH', zone, self.update_zone, guard=self._zone)
        self.route('get_record', 'GET', record, self.get_record, guard=self._zone)
        self.route('update_record', 'PATCH', record, self.update_record, guard=self._zone)
        self.route('delete_record', 'DELETE', record, self.delete_record, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, ipv4address='', ipv6prefix=''):
        """A zone of the account; returns its id (what the tool keeps in the ids file)."""
        zid = str(next(_ids) + 9000)
        self.zones[zid] = {'id': int(zid), 'name': name, 'ipv4address': ipv4address, 'ipv6prefix': ipv6prefix,
                           'createdAt': now(), 'updatedAt': now()}
        return zid

    def zone_named(self, name):
        return [z for z in self.zones.values() if z['name'] == name][0]

    def add_record(self, zone_id, name, rtype, content):
        rid = str(next(_ids) + 500000)
        self.records[rid] = {'id': int(rid), 'zoneID': int(zone_id), 'name': name, 'type': rtype, 'content': content}
        return rid

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        sent = req.headers.get('authorization', '')
        if not sent.startswith('Bearer ') or sent[7:] not in self.tokens:
            return error(401, 'UnauthorizedError', 'invalid or missing token')
        return None

    def _zone(self, req, zone_id, record_id=None):
        refused = self._auth(req)
        if refused:
            return refused
        zone = self.zones.get(zone_id)
        if zone is None:
            return error(404, 'NotFoundError', 'zone not found')
        only = self.tokens[req.headers['authorization'][7:]]
        if only is not None and only != zone['name']:
            return error(403, 'ForbiddenError', 'the token is restricted to another zone')
        return None

    # --- zones ---------------------------------------------------------------------------------
    def list_zones(self, req):
        only = self.tokens[req.headers['authorization'][7:]]
        return Reply(200, [dict(z) for z in self.zones.values() if only in (None, z['name'])])

    def zone_by_name(self, req, name):
        found = [z for z in self.zones.values() if z['name'] == name]
        if not found:
            return error(404, 'NotFoundError', 'zone not found')
        only = self.tokens[req.headers['authorization'][7:]]
        if only is not None and only != name:
            return error(403, 'ForbiddenError', 'the token is restricted to another zone')
        return Reply(200, dict(found[0]))

    def get_zone(self, req, zone_id):
        return Reply(200, dict(self.zones[zone_id]))

    def update_zone(self, req, zone_id):
        body, refused = self._body(req, ZONE_FIELDS)
        if refused:
            return refused
        zone = self.zones[zone_id]
        for field, family in (('ipv4address', ipaddress.IPv4Address), ('ipv6prefix', ipaddress.IPv6Network)):
            if field in body:
                try:
                    family(body[field], strict=False) if family is ipaddress.IPv6Network else family(body[field])
                except ValueError:
                    return invalid((field, 'is invalid'))
        zone.update({k: body[k] for k in ('ipv4address', 'ipv6prefix') if k in body}, updatedAt=now())
        return Reply(200, dict(zone))

    # --- records -------------------------------------------------------------------------------
    def list_records(self, req, zone_id):
        return Reply(200, [self._public(r) for r in sorted(self.records.values(), key=lambda r: r['id'])
                           if str(r['zoneID']) == zone_id])

    def get_record(self, req, zone_id, record_id):
        record = self._record(zone_id, record_id)
        return error(404, 'NotFoundError', 'record not found') if record is None else Reply(200, self._public(record))

    def create_record(self, req, zone_id):
        body, refused = self._body(req, RECORD_FIELDS)
        if refused:
            return refused
        missing = [(n, 'is required') for n in ('name', 'type', 'data') if not isinstance(body.get(n), str)
                   or (n != 'name' and not body[n])]
        refused = invalid(*missing) if missing else self._value(body['type'], body['data'])
        if refused:
            return refused
        zone = self.zones[zone_id]
        name = '%s.%s' % (body['name'], zone['name']) if body['name'] else zone['name']
        rid = self.add_record(zone_id, name, body['type'], body['data'])
        return Reply(200, self._public(self.records[rid]))

    def update_record(self, req, zone_id, record_id):
        record = self._record(zone_id, record_id)
        if record is None:
            return error(404, 'NotFoundError', 'record not found')
        body, refused = self._body(req, RECORD_FIELDS)
        if refused:
            return refused
        rtype = body.get('type', record['type'])
        refused = self._value(rtype, body.get('data', record['content']))
        if refused:
            return refused
        zone = self.zones[zone_id]
        if 'name' in body:
            record['name'] = '%s.%s' % (body['name'], zone['name']) if body['name'] else zone['name']
        record.update(type=rtype, content=body.get('data', record['content']))
        return Reply(200, self._public(record))

    def delete_record(self, req, zone_id, record_id):
        if self._record(zone_id, record_id) is None:
            return error(404, 'NotFoundError', 'record not found')
        del self.records[record_id]
        return Reply(204, text='')

    # --- helpers -------------------------------------------------------------------------------
    def _record(self, zone_id, record_id):
        record = self.records.get(record_id)
        return record if record is not None and str(record['zoneID']) == zone_id else None

    @staticmethod
    def _body(req, known):
        """(the JSON object, None), or (None, the answer refusing it: 400 for no JSON, 422 for a field
        the reference does not name)."""
        try:
            body = json.loads(req.body)
        except ValueError:
            return None, error(400, 'BadRequestError', 'malformed JSON')
        if not isinstance(body, dict):
            return None, error(400, 'BadRequestError', 'malformed JSON')
        unknown = sorted(set(body) - set(known))
        return (None, invalid(*[(n, 'is not a known field') for n in unknown])) if unknown else (body, None)

    @staticmethod
    def _value(rtype, data):
        if rtype not in TYPES:
            return invalid(('type', 'is not one of %s' % ', '.join(TYPES)))
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        try:
            if family:
                family(data)
        except ValueError:
            return invalid(('data', 'is not a valid address'))
        return None

    def _public(self, record):
        """A record as the API shows it: its name relative to its zone."""
        zone = self.zones[str(record['zoneID'])]
        name = record['name']
        return {'id': record['id'], 'zoneID': record['zoneID'], 'type': record['type'], 'data': record['content'],
                'name': '' if name == zone['name'] else name[:-len(zone['name']) - 1], 'priority': 0,
                'port': 0, 'weight': 0, 'flags': 0, 'tag': ''}
