"""Fake Gcore DNS (API v2): permanent API tokens, zones, RRsets of resource records.

Paths and fields as the official SDK (gcore-python's dns resources and types) sends and reads them:
GET /dns/v2/zones (list_zones: {"zones", "total_amount"}, limit and offset), GET
/dns/v2/zones/<zone> (get_zone), GET|POST|PUT|DELETE /dns/v2/zones/<zone>/<name>/<type> (get_record,
create_record, update_record, delete_record; a PUT that makes the RRset is create_record, the request
log's path shows it under /create). An RRset is {"name", "type", "ttl", "resource_records": [{"id",
"content", "enabled", "meta"}], "meta", "pickers", "updated_at"}; a PUT replaces all of it: what it
does not send goes back to the defaults (meta {}, pickers [], TTL 300), which makes an update that
forgets them visible. The token is `Authorization: APIKey <token>` (the reference's scheme, any
case); errors are {"error": ...} as the official Go SDK reads them. How the API answers a wrong
token, and its words, are not published: here 401 for an unknown token, 403 for a token whose role
may not write (the provider handles both).
"""

import ipaddress
import itertools
import time
from urllib.parse import urlsplit

from fakes.base import FakeServer, Reply

API = '/dns/v2'
RRSET = API + r'/zones/([^/]+)/([^/]+)/([^/]+)'
CREATE = '/create'   # the path prefix a PUT that makes its RRset is logged under
KEYS = {'resource_records', 'meta', 'pickers', 'filters', 'ttl'}
PICKERS = {'geodns', 'asn', 'country', 'continent', 'region', 'ip', 'geodistance', 'weighted_shuffle', 'default',
           'first_n'}
_ids = itertools.count(1000)


def error(status, message):
    return Reply(status, {'error': message})


class Gcore(FakeServer):
    PROVIDER, LETTER = 'gcore', 'gcore'   # the registry's provider it plays; the sandbox's provider_gcore

    def __init__(self, token='29841$c767EXAMPLEexampleEXAMPLE0123456789', tls_cert=None):
        super().__init__(tls_cert)
        self.token = token
        self.tokens = {token: {'write': True}}
        self.zones = {}                 # zone name -> zone object
        self.rrsets = {}                # '<name>/<type>' -> RRset ('name', 'records': the addresses)
        self.route('list_zones', 'GET', API + '/zones', self.list_zones, guard=self._auth)
        self.route('get_zone', 'GET', API + '/zones/([^/]+)', self.get_zone, guard=self._auth)
        self.route('list_records', 'GET', API + '/zones/([^/]+)/rrsets', self.list_records, guard=self._zone)
        self.route('get_record', 'GET', RRSET, self.get_record, guard=self._zone)
        self.route('create_record', 'POST', RRSET, self.create_record, guard=self._zone)
        self.route('create_record', 'PUT', CREATE + RRSET, self.put_record, guard=self._zone)
        self.route('update_record', 'PUT', RRSET, self.put_record, guard=self._zone)
        self.route('delete_record', 'DELETE', RRSET, self.delete_record, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        self.zones[name] = {'name': name, 'contact': 'support@example.com', 'enabled': True, 'expiry': 604800,
                            'meta': {}, 'nx_ttl': 300, 'primary_server': 'ns1.gcorelabs.net', 'refresh': 3600,
                            'retry': 3600, 'serial': int(time.time()), 'status': 'active'}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=300, meta=None, pickers=(), rr_meta=None):
        """An RRset of these addresses (content: one, or a list); its id in the tool's ids file is its name."""
        addresses = list(content) if isinstance(content, (list, tuple)) else [content]
        self.rrsets['%s/%s' % (name, rtype)] = {
            'zone': zone_id, 'name': name, 'type': rtype, 'ttl': ttl, 'records': addresses,
            'rr': {a: {'id': next(_ids), 'enabled': True, 'meta': dict((rr_meta or {}).get(a, {}))} for a in addresses},
            'meta': dict(meta or {}), 'pickers': list(pickers), 'updated_at': int(time.time())}
        return name

    def find(self, name, rtype='A'):
        """The RRsets named so (what a test asserts on)."""
        found = self.rrsets.get('%s/%s' % (name, rtype))
        return [found] if found else []

    def by_line(self, name, rtype='A'):
        """{None: sorted addresses}: no lines, every address is a resource record of the RRset."""
        return {None: sorted(a for r in self.find(name, rtype) for a in r['records'])}

    # --- serving -------------------------------------------------------------------------------
    def _dispatch(self, h):
        # PUT creates or replaces: one that makes its RRset is logged as create_record
        split = urlsplit(h.path)
        parts = split.path.split('/')
        if h.command == 'PUT' and len(parts) == 7 and split.path.startswith(API + '/zones/') \
                and '%s/%s' % (parts[5], parts[6]) not in self.rrsets:
            h.path = CREATE + h.path
        return super()._dispatch(h)

    def _auth(self, req, *groups):
        scheme, _, token = req.headers.get('authorization', '').partition(' ')
        if scheme.lower() != 'apikey' or token not in self.tokens:
            return error(401, 'token is invalid or expired')
        if req.method != 'GET' and not self.tokens[token]['write']:
            return error(403, 'forbidden: the role of this token may not change DNS')
        return None

    def _zone(self, req, zone, *rest):
        return self._auth(req) or (None if zone in self.zones else error(404, 'zone is not found'))

    def _public(self, rrset):
        for address in rrset['records']:
            rrset['rr'].setdefault(address, {'id': next(_ids), 'enabled': True, 'meta': {}})
        return {'name': rrset['name'], 'type': rrset['type'], 'ttl': rrset['ttl'], 'meta': rrset['meta'],
                'pickers': rrset['pickers'], 'updated_at': rrset['updated_at'], 'filter_set_id': None,
                'resource_records': [dict(rrset['rr'][a], content=[a]) for a in rrset['records']]}

    # --- handlers ------------------------------------------------------------------------------
    def list_zones(self, req):
        limit, offset = int(req.query.get('limit', 100)), int(req.query.get('offset', 0))
        names = sorted(self.zones)
        return Reply(200, {'zones': [self.zones[n] for n in names[offset:offset + limit]], 'total_amount': len(names)})

    def get_zone(self, req, zone):
        if zone not in self.zones:
            return error(404, 'zone is not found')
        records = [{'name': r['name'], 'type': r['type'], 'ttl': r['ttl'], 'short_answers': list(r['records'])}
                   for r in self.rrsets.values() if r['zone'] == zone]
        return Reply(200, dict(self.zones[zone], records=records))

    def list_records(self, req, zone):
        found = [self._public(r) for r in self.rrsets.values() if r['zone'] == zone]
        return Reply(200, {'rrsets': found, 'total_amount': len(found)})

    def get_record(self, req, zone, name, rtype):
        rrset = self.rrsets.get('%s/%s' % (name.rstrip('.'), rtype))
        if rrset is None or rrset['zone'] != zone:
            return error(404, 'rrset is not found')
        return Reply(200, self._public(rrset))

    def create_record(self, req, zone, name, rtype):
        if '%s/%s' % (name.rstrip('.'), rtype) in self.rrsets:
            return error(409, 'rrset already exists')
        return self.put_record(req, zone, name, rtype)

    def put_record(self, req, zone, name, rtype):
        """Create or replace the RRset: every field not sent goes back to its default."""
        name = name.rstrip('.')
        body = req.json
        refused = self._invalid(body, zone, name, rtype)
        if refused:
            return refused
        old = self.rrsets.get('%s/%s' % (name, rtype), {'rr': {}})
        records, rr = [], {}
        for record in body['resource_records']:
            address = record['content'][0]
            records.append(address)
            rr[address] = {'id': old['rr'].get(address, {}).get('id') or next(_ids),
                           'enabled': record.get('enabled', True), 'meta': dict(record.get('meta') or {})}
        self.rrsets['%s/%s' % (name, rtype)] = {
            'zone': zone, 'name': name, 'type': rtype, 'ttl': body.get('ttl', 300), 'records': records, 'rr': rr,
            'meta': dict(body.get('meta') or {}), 'pickers': list(body.get('pickers') or []),
            'updated_at': int(time.time())}
        return Reply(200, self._public(self.rrsets['%s/%s' % (name, rtype)]))

    def delete_record(self, req, zone, name, rtype):
        if self.rrsets.pop('%s/%s' % (name.rstrip('.'), rtype), None) is None:
            return error(404, 'rrset is not found')
        return Reply(200, {})

    @staticmethod
    def _invalid(body, zone, name, rtype):
        """An answer refusing a body the API would not take, else None."""
        if not isinstance(body, dict) or set(body) - KEYS:
            return error(400, 'invalid body: unknown fields %s' % sorted(set(body or {}) - KEYS))
        if name != zone and not name.endswith('.' + zone):
            return error(400, 'rrset name is out of zone')
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        records = body.get('resource_records')
        if not isinstance(records, list) or not records:
            return error(400, 'resource_records is required')
        for record in records:
            content = record.get('content') if isinstance(record, dict) else None
            if not isinstance(content, list) or len(content) != 1 or set(record) - {'content', 'enabled', 'meta'}:
                return error(400, 'invalid resource record %r' % (record,))
            try:
                family(content[0])
            except (TypeError, ValueError):
                return error(400, 'invalid content %r for %s' % (content[0], rtype))
        if 'ttl' in body and (not isinstance(body['ttl'], int) or body['ttl'] < 0):
            return error(400, 'invalid ttl')
        if not all(isinstance(p, dict) and p.get('type') in PICKERS for p in body.get('pickers') or []):
            return error(400, 'invalid pickers')
        return None
