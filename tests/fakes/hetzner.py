"""Fake Hetzner DNS (the Hetzner Cloud API's zones and RRsets, /v1): projects' tokens, zones by id or
name, RRsets of a name and type, and their actions.

As the reference (docs.hetzner.cloud/reference/cloud: #zones, #zone-rrsets, #zone-rrset-actions) and
the SDK hcloud 2.27.0 (hcloud/zones/client.py) give them: GET /v1/zones (list_zones: ?name=, page,
per_page up to 50, meta.pagination), GET /v1/zones/{id_or_name} (get_zone: {"zone"}), GET, POST and
DELETE of /v1/zones/{id_or_name}/rrsets[/{name}/{type}] (get_record, create_record, delete_record:
{"rrset"}, 201 {"rrset", "action"}, 201 {"action"}), POST .../rrsets/{name}/{type}/actions/set_records
(update_record: the records replaced, the TTL kept: 201 {"action"}). An RRset's name is relative and
lower case, "@" the apex; its ttl null is the zone's; each record {"value", "comment"}. The token is
`Authorization: Bearer <token>` of the project: unknown 401 `unauthorized`, read-only 403 `forbidden`
on a write, and 403 `protected` a change of an RRset protected against it; a zone or RRset not there
404 `not_found`; a create of one that is 409 `uniqueness_error`; a body refused 400 `invalid_input`; a
write to a secondary zone 422 `incorrect_zone_mode`; every error {"error": {"code", "message",
"details"}}.
"""

import ipaddress
import itertools

from fakes.base import FakeServer, Reply

API = '/v1'
ZONE = API + r'/zones/([^/]+)'
RRSET = ZONE + r'/rrsets/([^/]+)/([^/]+)'
_ids = itertools.count(1)


def error(status, code, message):
    return Reply(status, {'error': {'code': code, 'message': message, 'details': {}}})


def action(command):
    return {'action': {'id': next(_ids) + 1000, 'command': command, 'status': 'running', 'progress': 0,
                       'started': '2025-11-01T10:00:00Z', 'finished': None, 'resources': [], 'error': None}}


class Hetzner(FakeServer):
    PROVIDER, LETTER = 'hetzner', 'hetzner'   # the registry's provider it plays; the sandbox's provider_hetzner

    def __init__(self, token='hcloud-token-0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdef', tls_cert=None):
        super().__init__(tls_cert)
        self.token = token
        self.tokens = {token: 'read_write'}   # token -> its permission: 'read' or 'read_write'
        self.zones = {}      # name -> zone object
        self.rrsets = {}     # '<zone>/<name>/<type>' -> RRset ('name': the full name, for the tests)
        self.route('list_zones', 'GET', API + '/zones', self.list_zones, guard=self._auth)
        self.route('get_zone', 'GET', ZONE, self.get_zone, guard=self._zone)
        self.route('create_record', 'POST', ZONE + '/rrsets', self.create_record, guard=self._write)
        self.route('get_record', 'GET', RRSET, self.get_record, guard=self._zone)
        self.route('update_record', 'POST', RRSET + '/actions/set_records', self.set_records, guard=self._write)
        self.route('delete_record', 'DELETE', RRSET, self.delete_record, guard=self._write)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, ttl=3600, mode='primary'):
        """A zone of the project; the tool names it by its name."""
        self.zones[name] = {'id': next(_ids), 'name': name, 'created': '2025-10-07T10:00:00Z', 'ttl': ttl,
                            'mode': mode, 'primary_nameservers': [], 'labels': {},
                            'protection': {'delete': False}, 'status': 'ok', 'record_count': 0,
                            'authoritative_nameservers': {'assigned': ['hydrogen.ns.hetzner.com.'],
                                                          'delegated': [], 'delegation_status': 'valid'},
                            'registrar': 'other'}
        return name

    def add_record(self, zone, name, rtype, content, ttl=None, comment=''):
        """An RRset of these addresses (content: one, or a list of them or of records); its id in the
        tool's ids file is its full name."""
        rel = '@' if name == zone else name[:-len(zone) - 1]
        values = content if isinstance(content, list) else [content]
        self._store(zone, rel, rtype, ttl, [v if isinstance(v, dict) else {'value': v, 'comment': comment}
                                            for v in values])
        return name

    def find(self, name, rtype='A'):
        """The RRsets named so (what a test asserts on)."""
        return [r for r in self.rrsets.values() if r['name'] == name.rstrip('.') and r['type'] == rtype]

    def by_line(self, name, rtype='A'):
        """{None: sorted addresses}: no lines, every address is a record of the RRset."""
        return {None: sorted(v['value'] for r in self.find(name, rtype) for v in r['records'])}

    def _store(self, zone, rel, rtype, ttl, records):
        key = '%s/%s/%s' % (zone, rel, rtype)
        old = self.rrsets.get(key, {})
        self.rrsets[key] = {'id': '%s/%s' % (rel, rtype), 'name': zone if rel == '@' else '%s.%s' % (rel, zone),
                            'rel': rel, 'type': rtype, 'ttl': ttl, 'records': records,
                            'labels': old.get('labels', {}), 'protection': old.get('protection', {'change': False}),
                            'zone': self.zones[zone]['id']}
        return self.rrsets[key]

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        scheme, _, token = req.headers.get('authorization', '').partition(' ')
        if scheme != 'Bearer' or token not in self.tokens:
            return error(401, 'unauthorized', 'unable to authenticate')
        req.permission = self.tokens[token]
        return None

    def _zone_name(self, id_or_name):
        """The zone's name, by its name or its id; None when the project has none."""
        if id_or_name in self.zones:
            return id_or_name
        return next((n for n, z in self.zones.items() if str(z['id']) == id_or_name), None)

    def _zone(self, req, zone, *rest):
        refused = self._auth(req)
        if refused:
            return refused
        req.zone = self._zone_name(zone)
        return None if req.zone else error(404, 'not_found', 'zone not found')

    def _write(self, req, zone, *rest):
        refused = self._zone(req, zone)
        if refused:
            return refused
        if req.permission != 'read_write':
            return error(403, 'forbidden', 'insufficient permissions for this request')
        if self.zones[req.zone]['mode'] != 'primary':
            return error(422, 'incorrect_zone_mode', 'zone is in secondary mode')
        return None

    # --- handlers ------------------------------------------------------------------------------
    def list_zones(self, req):
        names = sorted(n for n in self.zones if req.query.get('name', n) == n)
        try:
            page, per = int(req.query.get('page') or 1), int(req.query.get('per_page') or 25)
        except ValueError:
            return error(400, 'invalid_input', 'invalid input in fields page, per_page')
        if not 1 <= per <= 50 or page < 1:
            return error(400, 'invalid_input', 'invalid input in field per_page')
        last = max(1, -(-len(names) // per))
        shown = [self.zones[n] for n in names[(page - 1) * per:page * per]]
        return Reply(200, {'zones': shown, 'meta': {'pagination': {
            'page': page, 'per_page': per, 'previous_page': page - 1 or None,
            'next_page': page + 1 if page < last else None, 'last_page': last, 'total_entries': len(names)}}})

    def get_zone(self, req, zone):
        return Reply(200, {'zone': self.zones[req.zone]})

    def _public(self, rrset):
        return {k if k != 'rel' else 'name': rrset[k] for k in ('id', 'rel', 'type', 'ttl', 'records', 'labels',
                                                                 'protection', 'zone')}

    def get_record(self, req, zone, rel, rtype):
        rrset = self.rrsets.get('%s/%s/%s' % (req.zone, rel, rtype))
        return Reply(200, {'rrset': self._public(rrset)}) if rrset else error(404, 'not_found', 'rrset not found')

    def _records(self, rtype, records):
        """The records made canonical, or the answer refusing them."""
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        if not isinstance(records, list) or not records or not all(
                isinstance(r, dict) and isinstance(r.get('value'), str) and set(r) <= {'value', 'comment'}
                for r in records):
            return None, error(400, 'invalid_input', 'invalid input in field records')
        try:
            return [{'value': str(family(r['value'])) if family else r['value'], 'comment': r.get('comment') or ''}
                    for r in records], None
        except ValueError:
            return None, error(400, 'invalid_input', 'invalid input in field records.value')

    def create_record(self, req, zone):
        body = req.json if isinstance(req.json, dict) else {}
        rel, rtype, ttl = body.get('name'), body.get('type'), body.get('ttl')
        if not isinstance(rel, str) or rel != rel.lower() or not rel or rel.endswith('.') or rtype not in (
                'A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'CAA', 'SRV', 'PTR', 'TLSA', 'DS', 'HINFO', 'RP'):
            return error(400, 'invalid_input', 'invalid input in fields name, type')
        if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or not 60 <= ttl <= 2147483647):
            return error(400, 'invalid_input', 'invalid input in field ttl')
        if set(body) - {'name', 'type', 'ttl', 'records', 'labels'}:
            return error(400, 'invalid_input', 'unknown field')
        if '%s/%s/%s' % (req.zone, rel, rtype) in self.rrsets:
            return error(409, 'uniqueness_error', 'rrset with the same name and type already exists')
        records, refused = self._records(rtype, body.get('records'))
        if refused:
            return refused
        stored = self._store(req.zone, rel, rtype, ttl, records)
        return Reply(201, dict(action('create_rrset'), rrset=self._public(stored)))

    def set_records(self, req, zone, rel, rtype):
        key = '%s/%s/%s' % (req.zone, rel, rtype)
        if key not in self.rrsets:
            return error(404, 'not_found', 'rrset not found')
        body = req.json if isinstance(req.json, dict) else {}
        if set(body) != {'records'}:
            return error(400, 'invalid_input', 'invalid input in field records')
        records, refused = self._records(rtype, body['records'])
        if refused:
            return refused
        if self.rrsets[key]['protection'].get('change'):
            return error(403, 'protected', 'rrset is change protected')
        self.rrsets[key]['records'] = records   # the TTL, labels and protection stay
        return Reply(201, action('set_rrset_records'))

    def delete_record(self, req, zone, rel, rtype):
        if self.rrsets.pop('%s/%s/%s' % (req.zone, rel, rtype), None) is None:
            return error(404, 'not_found', 'rrset not found')
        return Reply(201, action('delete_rrset'))
