"""Fake Scaleway Domains and DNS (API v2beta1): API keys' secret keys and what their policies allow,
DNS zones (a subdomain of a domain), their records by id.

As the reference (scaleway.com/en/developers/api/domains-and-dns) and the SDK scaleway 2.12.0
(scaleway/domain/v2beta1/api.py, marshalling.py) give them: GET /domain/v2beta1/dns-zones
(list_zones: domain, which the SDK always sends, "" for any; dns_zone; page, page_size; {"dns_zones":
[{"domain", "subdomain", "ns", "status", "project_id", ...}], "total_count"}), GET
/domain/v2beta1/dns-zones/{zone}/records (list_records: name, "" the zone itself, type, id, page,
page_size; {"records": [{"id", "data", "name", "priority", "ttl", "type", "comment"}],
"total_count"}) and PATCH of it (patch_records: {"changes": [...], "return_all_records",
"disallow_new_zone_creation"}, each change one of add {"records"}, set {"id" or "id_fields", "records"},
delete {"id" or "id_fields"}; answered {"records": the records changed}). The secret key is the
`X-Auth-Token` header: unknown 401 {"message": "authentication is denied", "type":
"denied_authentication"}; a key without the permission 403 `permissions_denied`; a zone or a record
id that is not there 404 `not_found` (resource dns_zone or dns_record); a change refused 400
`invalid_arguments`. A set replaces the record of its id by the records it sends, each with an id of
its own.
"""

import ipaddress
import uuid

from fakes.base import FakeServer, RecordStore, Reply

API = '/domain/v2beta1'


def error(status, kind, message, **more):
    return Reply(status, dict({'message': message, 'type': kind}, **more))


class Scaleway(RecordStore, FakeServer):
    PROVIDER, LETTER = 'scaleway', 'scaleway'   # the registry's provider it plays; the sandbox's provider_scaleway

    def __init__(self, secret='0f2a6c1e-7d3b-4e5f-9a8b-1c2d3e4f5a6b', tls_cert=None):
        super().__init__(tls_cert)
        self.secret = secret
        self.keys = {secret: 'full'}   # secret key -> 'full' (DomainsDNSFullAccess) or 'read' (DomainsDNSReadOnly)
        self.zones = {}                # name -> DNS zone object
        self.records = {}              # id -> record ('name': the full name, 'content': its data, 'zone')
        self.route('list_zones', 'GET', API + '/dns-zones', self.list_zones, guard=self._auth)
        self.route('list_records', 'GET', API + '/dns-zones/([^/]+)/records', self.list_records, guard=self._zone)
        self.route('patch_records', 'PATCH', API + '/dns-zones/([^/]+)/records', self.patch_records,
                   guard=self._write)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_SECRET_KEY': self.secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A DNS zone (a domain of two labels, or a subdomain of one); the tool names it by its name."""
        labels = name.split('.')
        self.zones[name] = {'domain': '.'.join(labels[-2:]), 'subdomain': '.'.join(labels[:-2]),
                            'ns': ['ns0.dom.scw.cloud', 'ns1.dom.scw.cloud'], 'ns_default': [], 'ns_master': [],
                            'status': 'active', 'message': None, 'updated_at': '2025-01-02T03:04:05Z',
                            'project_id': '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d', 'linked_products': []}
        return name

    def add_record(self, zone, name, rtype, content, ttl=3600, priority=0, comment=None):
        rid = str(uuid.uuid4())
        self.records[rid] = {'id': rid, 'zone': zone, 'name': name, 'type': rtype, 'content': content, 'ttl': ttl,
                             'priority': priority, 'comment': comment}
        return rid

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        key = req.headers.get('x-auth-token')
        if key not in self.keys:
            return error(401, 'denied_authentication', 'authentication is denied', method='api_key',
                         reason='not_found')
        req.grant = self.keys[key]
        return None

    def _zone(self, req, zone):
        return self._auth(req) or (None if zone in self.zones else
                                   error(404, 'not_found', 'resource is not found', resource='dns_zone',
                                         resource_id=zone))

    def _write(self, req, zone):
        refused = self._zone(req, zone)
        if refused:
            return refused
        if req.grant != 'full':
            return error(403, 'permissions_denied', 'insufficient permissions',
                         details=[{'resource': 'dns_zone', 'action': 'write'}])
        return None

    # --- handlers ------------------------------------------------------------------------------
    def _page(self, req, items, key):
        try:
            page, size = int(req.query.get('page') or 1), int(req.query.get('page_size') or 20)
        except ValueError:
            return error(400, 'invalid_arguments', 'invalid argument(s)')
        size = max(1, min(size, 1000))
        return Reply(200, {key: items[(page - 1) * size:page * size], 'total_count': len(items)})

    def list_zones(self, req):
        if 'domain' not in req.query:   # the SDK always sends it
            return error(400, 'invalid_arguments', 'invalid argument(s)', fields={'domain': ['is required']})
        names = [n for n in sorted(self.zones) if req.query['domain'] in ('', self.zones[n]['domain'])
                 and req.query.get('dns_zone', n) == n]
        return self._page(req, [self.zones[n] for n in names], 'dns_zones')

    def _public(self, record):
        zone = record['zone']
        return {'id': record['id'], 'data': record['content'], 'type': record['type'], 'ttl': record['ttl'],
                'priority': record['priority'], 'comment': record['comment'],
                'name': '' if record['name'] == zone else record['name'][:-len(zone) - 1]}

    def list_records(self, req, zone):
        shown = [self._public(r) for r in self.records.values() if r['zone'] == zone]
        shown = [r for r in shown if (not req.query.get('name') or r['name'] == req.query['name'])
                 and req.query.get('type', r['type']) == r['type'] and req.query.get('id', r['id']) == r['id']]
        return self._page(req, shown, 'records')

    def _valid(self, zone, record):
        """The record as stored (its full name and canonical data), or None when refused."""
        if not isinstance(record, dict) or not isinstance(record.get('name'), str):
            return None
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(record.get('type'))
        ttl = record.get('ttl', 3600)
        try:
            data = str(family(record.get('data')))
        except (TypeError, ValueError):
            return None
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 60:
            return None
        name = zone if record['name'] in ('', '@') else '%s.%s' % (record['name'], zone)
        return name, record['type'], data, ttl, record.get('priority', 0), record.get('comment')

    def patch_records(self, req, zone):
        body = req.json if isinstance(req.json, dict) else {}
        changes = body.get('changes')
        if not isinstance(changes, list) or 'disallow_new_zone_creation' not in body:
            return error(400, 'invalid_arguments', 'invalid argument(s)', fields={'changes': ['is required']})
        done = []
        for one in changes:
            (kind, what), = one.items() if isinstance(one, dict) and len(one) == 1 else [(None, None)]
            if kind not in ('add', 'set', 'delete') or not isinstance(what, dict):
                return error(400, 'invalid_arguments', 'invalid argument(s)', fields={'changes': ['is invalid']})
            if kind in ('set', 'delete') and self.records.get(what.get('id'), {}).get('zone') != zone:
                return error(404, 'not_found', 'resource is not found', resource='dns_record',
                             resource_id=str(what.get('id')))
            if kind == 'delete':
                del self.records[what['id']]
                continue
            made = [self._valid(zone, r) for r in what.get('records') or []]
            if not made or None in made:
                return error(400, 'invalid_arguments', 'invalid argument(s)', fields={'records': ['is invalid']})
            if kind == 'set':
                del self.records[what['id']]   # replaced by what is sent
            done += [self._public(self.records[self.add_record(zone, *m)]) for m in made]
        return Reply(200, {'records': done})
