"""Fake ClouDNS (HTTP API): API users and sub-users (by id or by name, with their delegated zones),
zones, records by id.

Every method is <group>/<method>.json, taking its parameters from the query or a form body (GET or
POST, as the reference's examples say), credentials among them; each is a named route (login,
list_zones, list_records, get_record, create_record, update_record, delete_record). Answers come at
HTTP 200 in the shapes the API sends (recorded answers of a client's test suite): a record listing is
an object keyed by record id ("[]" when empty), values mostly strings; an error is {"status":
"Failed", "statusDescription"}, in the reference's words where it gives them (credentials, a
missing domain-name, the list-zones parameters, an invalid record-id), else in the fake's own.
get-record (not in the reference; clients use it) answers the record itself.
"""

import ipaddress
import itertools
from urllib.parse import parse_qs

from fakes.base import FakeServer, RecordStore, Reply

AUTH = 'Invalid authentication, incorrect auth-id or auth-password.'
SUB_AUTH = 'Invalid authentication, incorrect sub-auth-id, sub-auth-user or auth-password.'
NO_ZONE = 'Missing domain-name'
RECORD_GONE = 'Invalid record-id param.'
TTLS = (60, 300, 900, 1800, 3600, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000)
ROWS = (10, 20, 30, 50, 100)
_ids = itertools.count(273120521)


def failed(description):
    return Reply(200, {'status': 'Failed', 'statusDescription': description})


def success(description, **more):
    return Reply(200, dict({'status': 'Success', 'statusDescription': description}, **more))


class ClouDns(RecordStore, FakeServer):
    PROVIDER, LETTER = 'cloudns', 'cloudns'   # the registry's provider it plays; the sandbox's provider_cloudns

    def __init__(self, auth_id='8625', password='cl0udns-Pa55word', tls_cert=None):
        super().__init__(tls_cert)
        self.auth_id, self.password = auth_id, password
        self.users = {auth_id: password}    # API users: auth-id -> password
        self.subusers = []                  # {'id', 'name', 'password', 'zones'}
        self.zones = {}                     # zone name -> zone object
        self.records = {}                   # record id -> record ('name', 'content': what the tests read)
        for name, path in (('login', '/login/login.json'), ('list_zones', '/dns/list-zones.json'),
                           ('list_records', '/dns/records.json'), ('get_record', '/dns/get-record.json'),
                           ('create_record', '/dns/add-record.json'), ('update_record', '/dns/mod-record.json'),
                           ('delete_record', '/dns/delete-record.json')):
            for method in ('GET', 'POST'):
                self.route(name, method, path, getattr(self, name), guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_AUTH_ID': self.auth_id, 'DDNS_AUTH_PASSWORD': self.password, 'DDNS_BASE_URL': self.url}

    def add_subuser(self, sub_id, name, password, zones=()):
        self.subusers.append({'id': str(sub_id), 'name': name, 'password': password, 'zones': set(zones)})

    def add_zone(self, name):
        """A master zone of the account; its id in the API's calls is its name."""
        self.zones[name] = {'name': name, 'type': 'master', 'zone': 'domain', 'status': '1', 'group': 'None',
                            'hasBulk': False, 'isUpdated': 1, 'serial': '2024010101'}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=3600):
        rid = str(next(_ids))
        self.records[rid] = {'id': rid, 'zone': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'status': 1}
        return rid

    # --- requests ------------------------------------------------------------------------------
    @staticmethod
    def params(req):
        """The request's parameters: its query and a form body's."""
        found = dict(req.query)
        if req.headers.get('content-type', '').startswith('application/x-www-form-urlencoded'):
            found.update({k: v[0] for k, v in parse_qs(req.body.decode(), keep_blank_values=True).items()})
        return found

    def _auth(self, req):
        """The credentials (auth-id, else sub-auth-id, else sub-auth-user, with auth-password), then the
        zone a call names: one the user does not have (a sub-user: not delegated) is missing."""
        p = self.params(req)
        if 'auth-id' in p:
            if self.users.get(p['auth-id']) != p.get('auth-password') or not p.get('auth-password'):
                return failed(AUTH)
            req.zones = None   # an API user sees every zone
        else:
            key, value = ('id', p['sub-auth-id']) if 'sub-auth-id' in p else ('name', p.get('sub-auth-user'))
            users = [u for u in self.subusers if u[key] == value and u['password'] == p.get('auth-password')]
            if not users or value is None:
                return failed(SUB_AUTH)
            req.zones = users[0]['zones']
        if req.path.startswith('/dns/') and req.route not in ('list_zones',):
            zone = p.get('domain-name', '').lower()
            if zone not in self.zones or req.zones is not None and zone not in req.zones:
                return failed(NO_ZONE)
        return None

    def _host(self, record):
        zone = record['zone']
        return '' if record['name'] == zone else record['name'][:-len(zone) - 1]

    def _public(self, record):
        """A record as the API shows it: values mostly strings, the host lower-case."""
        return {'id': record['id'], 'type': record['type'], 'host': self._host(record), 'record': record['content'],
                'dynamicurl_status': 0, 'failover': '0', 'ttl': str(record['ttl']), 'status': record['status']}

    # --- methods -------------------------------------------------------------------------------
    def login(self, req):
        return success('Success login.')

    def list_zones(self, req):
        p = self.params(req)
        if not p.get('page', '').isdigit() or int(p['page']) < 1:
            return failed("Missing required parameter 'page'.")
        if not p.get('rows-per-page', '').isdigit() or int(p['rows-per-page']) not in ROWS:
            return failed("Wrong or missing required parameter 'rows-per-page'.")
        page, rows = int(p['page']), int(p['rows-per-page'])
        zones = [z for name, z in sorted(self.zones.items()) if req.zones is None or name in req.zones]
        return Reply(200, zones[(page - 1) * rows:page * rows])

    def list_records(self, req):
        p = self.params(req)
        zone = p['domain-name'].lower()
        found = {rid: self._public(r) for rid, r in self.records.items() if r['zone'] == zone
                 and ('host' not in p or self._host(r) == p['host'].lower())
                 and p.get('type', r['type']).upper() == r['type']}
        return Reply(200, found or [])   # none: an empty array, not an object

    def _record(self, p):
        """(the record record-id names in the zone, None), or (None, the answer refusing it)."""
        record = self.records.get(p.get('record-id', ''))
        if record is None or record['zone'] != p['domain-name'].lower():
            return None, failed(RECORD_GONE)
        return record, None

    def get_record(self, req):
        record, refused = self._record(self.params(req))
        return refused or Reply(200, self._public(record))

    def create_record(self, req):
        p = self.params(req)
        for name in ('record-type', 'host', 'record', 'ttl'):
            if name not in p:
                return failed('Missing %s' % name)
        refused = self._value(p['record-type'].upper(), p['record']) or self._ttl(p['ttl'])
        if refused:
            return refused
        zone = p['domain-name'].lower()
        host = p['host'].lower()
        name = zone if host in ('', '@') else '%s.%s' % (host, zone)
        rid = self.add_record(zone, name, p['record-type'].upper(), p['record'], int(p['ttl']))
        return success('The record was added successfully.', data={'id': int(rid)})

    def update_record(self, req):
        p = self.params(req)
        record, refused = self._record(p)
        if refused:
            return refused
        for name in ('host', 'record', 'ttl'):   # every one required: what is not sent is not kept
            if name not in p:
                return failed('Missing %s' % name)
        refused = self._value(record['type'], p['record']) or self._ttl(p['ttl'])
        if refused:
            return refused
        host = p['host'].lower()
        record.update({'name': record['zone'] if host in ('', '@') else '%s.%s' % (host, record['zone']),
                       'content': p['record'], 'ttl': int(p['ttl'])})
        return success('The record was modified successfully.')

    def delete_record(self, req):
        p = self.params(req)
        record, refused = self._record(p)
        if refused:
            return refused
        del self.records[record['id']]
        return success('The record was deleted successfully.')

    @staticmethod
    def _value(rtype, value):
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        try:
            if family:
                family(value)
        except ValueError:
            return failed('Invalid record.')
        return None

    @staticmethod
    def _ttl(value):
        return None if value.isdigit() and int(value) in TTLS else failed('Invalid TTL.')
