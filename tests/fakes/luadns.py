"""Fake LuaDNS (REST API v1): an account's API keys (global, or restricted to one zone), its zones and
their records by id.

As the reference (luadns.com/api.html) and the peer luadns/luadns-ruby give them: HTTP Basic with the
account's e-mail and an API key, every request asking `Accept: application/json` (else 406); API
access off until enabled in the account settings (401 then). GET /v1/zones (list_zones: [{"id",
"name", ...}]), GET /v1/zones/{id}/records (list_records: [{"id", "name" absolute with the root's
dot, "type", "content", "ttl", "zone_id", ...}]), POST of a record there (create_record), GET, PUT and
DELETE of /v1/zones/{id}/records/{record_id} (get_record; update_record: the whole record, a TTL not
sent reset to 3600; delete_record: the record deleted, answered). Lists answer x-total-count. Errors
{"status", "request_id", "message"}: 401 bad credentials, 403 a key restricted to another zone, 404
a zone or record that is not there, 400 a record refused.
"""

import base64
import ipaddress
import itertools

from fakes.base import FakeServer, RecordStore, Reply

API = '/v1'
ZONE = API + r'/zones/([^/]+)'
_ids = itertools.count(1)


def error(status, message):
    return Reply(status, {'status': {401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 406: 'Not Acceptable',
                                     400: 'Bad Request'}.get(status, 'Error'),
                          'request_id': 'f1e2d3c4b5a6', 'message': message})


class LuaDNS(RecordStore, FakeServer):
    PROVIDER, LETTER = 'luadns', 'luadns'   # the registry's provider it plays; the sandbox's provider_luadns

    def __init__(self, email='owner@example.com', key='86c0bd3e7a9f4e2c81a4d5b6c7e8f901', tls_cert=None):
        super().__init__(tls_cert)
        self.email, self.key = email, key
        self.keys = {key: None}     # API key -> the zone id it is restricted to (None: global)
        self.api_enabled = True
        self.zones = {}             # id (text) -> zone object
        self.records = {}           # id (text) -> record ('name': full, no dot; 'zone': the zone's id)
        self.route('list_zones', 'GET', API + '/zones', self.list_zones, guard=self._auth)
        self.route('list_records', 'GET', ZONE + '/records', self.list_records, guard=self._zone)
        self.route('create_record', 'POST', ZONE + '/records', self.create_record, guard=self._zone)
        self.route('get_record', 'GET', ZONE + r'/records/([^/]+)', self.get_record, guard=self._zone)
        self.route('update_record', 'PUT', ZONE + r'/records/([^/]+)', self.update_record, guard=self._zone)
        self.route('delete_record', 'DELETE', ZONE + r'/records/([^/]+)', self.delete_record, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_EMAIL': self.email, 'DDNS_API_KEY': self.key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A zone of the account; its id (what the tool's ids file holds)."""
        zid = str(next(_ids) + 100)
        self.zones[zid] = {'id': int(zid), 'name': name, 'repository': '', 'created_at': '2024-01-02T03:04:05Z',
                           'updated_at': '2024-01-02T03:04:05Z'}
        return zid

    def add_record(self, zone_id, name, rtype, content, ttl=3600):
        rid = str(next(_ids) + 5000)
        self.records[rid] = {'id': int(rid), 'zone': zone_id, 'name': name.rstrip('.'), 'type': rtype,
                             'content': content, 'ttl': ttl}
        return rid

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        if req.headers.get('accept') != 'application/json':
            return error(406, 'Not Acceptable: the API answers application/json only')
        sent = req.headers.get('authorization', '')
        try:
            user, _, key = base64.b64decode(sent[6:], validate=True).decode().partition(':') \
                if sent.startswith('Basic ') else ('', '', '')
        except ValueError:
            user = key = ''
        if user != self.email or key not in self.keys or not self.api_enabled:
            return error(401, 'Invalid credentials')
        req.allowed = self.keys[key]
        return None

    def _zone(self, req, zone_id, *rest):
        refused = self._auth(req)
        if refused:
            return refused
        if zone_id not in self.zones:
            return error(404, 'Zone not found')
        if req.allowed not in (None, zone_id):
            return error(403, 'Forbidden: the API key is restricted to another zone')
        return None

    # --- handlers ------------------------------------------------------------------------------
    def list_zones(self, req):
        shown = [z for zid, z in sorted(self.zones.items()) if req.allowed in (None, zid)]
        return Reply(200, shown, headers={'X-Total-Count': str(len(shown)), 'X-Page': '1', 'X-Total-Pages': '1'})

    def _public(self, record):
        return {'id': record['id'], 'name': record['name'] + '.', 'type': record['type'],
                'content': record['content'], 'ttl': record['ttl'], 'zone_id': int(record['zone']),
                'created_at': '2024-01-02T03:04:05Z', 'updated_at': '2024-01-02T03:04:05Z'}

    def list_records(self, req, zone_id):
        shown = [self._public(r) for _, r in sorted(self.records.items(), key=lambda i: int(i[0]))
                 if r['zone'] == zone_id]
        return Reply(200, shown, headers={'X-Total-Count': str(len(shown)), 'X-Page': '1', 'X-Total-Pages': '1'})

    def _record(self, zone_id, record_id):
        record = self.records.get(record_id)
        return record if record is not None and record['zone'] == zone_id else None

    def _body(self, req, zone_id):
        """(name, type, content, ttl) of a record's body, or the answer refusing it."""
        body = req.json if isinstance(req.json, dict) else {}
        name, rtype, content, ttl = (body.get(k) for k in ('name', 'type', 'content', 'ttl'))
        zone = self.zones[zone_id]['name']
        if not isinstance(name, str) or not name.endswith('.') or not (
                name[:-1] == zone or name[:-1].endswith('.' + zone)):
            return error(400, 'Invalid record name: it must be absolute and in the zone')
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        try:
            if family is None or not isinstance(content, str):
                raise ValueError
            content = str(family(content))
        except ValueError:
            return error(400, 'Invalid record content')
        if ttl is None:
            ttl = 3600
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 60:
            return error(400, 'Invalid TTL')
        return name[:-1], rtype, content, ttl

    def get_record(self, req, zone_id, record_id):
        record = self._record(zone_id, record_id)
        return Reply(200, self._public(record)) if record else error(404, 'Record not found')

    def create_record(self, req, zone_id):
        made = self._body(req, zone_id)
        if isinstance(made, Reply):
            return made
        rid = self.add_record(zone_id, *made)
        return Reply(200, self._public(self.records[rid]))

    def update_record(self, req, zone_id, record_id):
        record = self._record(zone_id, record_id)
        if record is None:
            return error(404, 'Record not found')
        made = self._body(req, zone_id)
        if isinstance(made, Reply):
            return made
        record.update(zip(('name', 'type', 'content', 'ttl'), made))   # the whole record: what is not sent resets
        return Reply(200, self._public(record))

    def delete_record(self, req, zone_id, record_id):
        record = self._record(zone_id, record_id)
        if record is None:
            return error(404, 'Record not found')
        del self.records[record_id]
        return Reply(200, self._public(record))
