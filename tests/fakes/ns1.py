"""Fake NS1 (IBM NS1 Connect, API v1): API keys and their DNS permissions, zones, records of a name and
type with their answers.

As the API reference and the SDK ns1-python (ns1/rest/records.py, zones.py) give them: every call
carries `X-NSONE-Key: <key>`, else 401 {"message": "Authentication required"}; a key without the
permission (view_zones for a read, manage_records for a write) 403 {"message": "insufficient
permissions"}. GET /v1/zones (list_zones: [{zone, id, ttl, ...}]), GET /v1/zones/<zone> (get_zone: the
zone with its records' summaries {domain, type, short_answers, ttl}), and at /v1/zones/<zone>/<domain>/
<type>, the domain the FULL name: GET (get_record: {zone, domain, type, ttl, answers: [{answer: [...],
id, meta}], filters, meta, use_client_subnet, ...}), PUT (create_record: {zone, domain, type, answers};
400 "record already exists"), POST (update_record: what it sends changes, the TTL and the rest stay),
DELETE (delete_record). A TTL not given is the zone's. A zone or record the account lacks is 404
"zone not found" / "record not found"; a bad answer 400.
"""

import ipaddress
import itertools

from fakes.base import FakeServer, Reply

API = '/v1'
RECORD = API + r'/zones/([^/]+)/([^/]+)/([^/]+)'
FAMILIES = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}
WRITES = ('PUT', 'POST', 'DELETE')
_ids = itertools.count(1)


def error(status, message):
    return Reply(status, {'message': message})


class Ns1(FakeServer):
    PROVIDER, LETTER = 'ns1', 'ns1'   # the registry's provider it plays

    def __init__(self, key='qACMD09OJXBxT7XOuRs8', tls_cert=None):
        super().__init__(tls_cert)
        self.key = key
        self.keys = {key: {'view_zones', 'manage_records'}}   # key -> its DNS permissions
        self.zones = {}      # name -> zone object
        self.rrsets = {}     # (zone, domain, type) -> record ('name': the domain, 'records': its addresses,
        #                      'metas': each answer's id and meta, in the same order)
        self.route('list_zones', 'GET', API + '/zones', self.list_zones, guard=self._auth)
        self.route('get_zone', 'GET', API + r'/zones/([^/]+)', self.get_zone, guard=self._zone)
        self.route('get_record', 'GET', RECORD, self.get_record, guard=self._zone)
        self.route('create_record', 'PUT', RECORD, self.create_record, guard=self._zone)
        self.route('update_record', 'POST', RECORD, self.update_record, guard=self._zone)
        self.route('delete_record', 'DELETE', RECORD, self.delete_record, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_KEY': self.key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, ttl=3600):
        self.zones[name] = {'zone': name, 'id': '%024x' % next(_ids), 'ttl': ttl, 'nx_ttl': 3600, 'retry': 7200,
                            'refresh': 43200, 'expiry': 1209600, 'dns_servers': ['dns1.p01.nsone.net']}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=None, meta=None):
        """A record of these addresses (content: one, or a list); its id in the tool's ids file is its name."""
        records = list(content) if isinstance(content, (list, tuple)) else [content]
        self.rrsets[(zone_id, name, rtype)] = {
            'zone': zone_id, 'name': name, 'type': rtype, 'ttl': self.zones[zone_id]['ttl'] if ttl is None else ttl,
            'records': records, 'metas': [{'id': '%024x' % next(_ids), 'meta': dict(meta or {})} for _ in records],
            'id': '%024x' % next(_ids), 'filters': [], 'meta': {}, 'use_client_subnet': True, 'tier': 1}
        return name

    def find(self, name, rtype='A'):
        """The records named so (what a test asserts on)."""
        return [r for r in self.rrsets.values() if r['name'] == name.rstrip('.') and r['type'] == rtype]

    def by_line(self, name, rtype='A'):
        """{None: sorted addresses}: no lines, every address is an answer of the record."""
        return {None: sorted(a for r in self.find(name, rtype) for a in r['records'])}

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        key = req.headers.get('x-nsone-key')
        if key not in self.keys:
            return error(401, 'Authentication required')
        if ('manage_records' if req.method in WRITES else 'view_zones') not in self.keys[key]:
            return error(403, 'insufficient permissions')
        return None

    def _zone(self, req, zone, *rest):
        return self._auth(req) or (None if zone in self.zones else error(404, 'zone not found'))

    # --- handlers ------------------------------------------------------------------------------
    def list_zones(self, req):
        return Reply(200, [dict(self.zones[n]) for n in sorted(self.zones)])

    def get_zone(self, req, zone):
        summaries = [{'domain': r['name'], 'type': r['type'], 'ttl': r['ttl'], 'short_answers': list(r['records']),
                      'id': r['id']} for (z, _, _), r in sorted(self.rrsets.items()) if z == zone]
        return Reply(200, dict(self.zones[zone], records=summaries))

    def get_record(self, req, zone, domain, rtype):
        found = self.rrsets.get((zone, domain, rtype))
        return Reply(200, self._public(found)) if found else error(404, 'record not found')

    def create_record(self, req, zone, domain, rtype):
        body = req.json if isinstance(req.json, dict) else {}
        if (body.get('zone'), body.get('domain'), body.get('type')) != (zone, domain, rtype):
            return error(400, 'zone, domain and type must match the path')
        if domain != zone and not domain.endswith('.' + zone):
            return error(400, 'record name is not in the zone')
        if (zone, domain, rtype) in self.rrsets:
            return error(400, 'record already exists')
        addresses, refused = self._answers(rtype, body.get('answers'))
        if refused:
            return refused
        self.add_record(zone, domain, rtype, addresses, body.get('ttl'))
        record = self.rrsets[(zone, domain, rtype)]
        record['metas'] = [{'id': m['id'], 'meta': a.get('meta', {})} for m, a in zip(record['metas'], body['answers'])]
        return Reply(200, self._public(record))

    def update_record(self, req, zone, domain, rtype):
        """POST: the fields sent change (answers, ttl, ...), the others stay."""
        record = self.rrsets.get((zone, domain, rtype))
        if record is None:
            return error(404, 'record not found')
        body = req.json if isinstance(req.json, dict) else {}
        if 'answers' in body:
            addresses, refused = self._answers(rtype, body['answers'])
            if refused:
                return refused
            record['records'] = addresses
            record['metas'] = [{'id': '%024x' % next(_ids), 'meta': a.get('meta', {})} for a in body['answers']]
        if 'ttl' in body:
            if not isinstance(body['ttl'], int) or isinstance(body['ttl'], bool) or body['ttl'] < 0:
                return error(400, 'ttl must be a non-negative integer')
            record['ttl'] = body['ttl']
        return Reply(200, self._public(record))

    def delete_record(self, req, zone, domain, rtype):
        if self.rrsets.pop((zone, domain, rtype), None) is None:
            return error(404, 'record not found')
        return Reply(200, {})

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _answers(rtype, answers):
        """(the addresses of answers, None), or (None, the 400 refusing them)."""
        if not isinstance(answers, list) or not answers:
            return None, error(400, 'answers must be a non-empty list')
        found = []
        for answer in answers:
            fields = answer.get('answer') if isinstance(answer, dict) else None
            if not isinstance(fields, list) or len(fields) != 1:
                return None, error(400, 'each answer must be {"answer": [rdata]}')
            try:
                found.append(str(FAMILIES[rtype](fields[0])) if rtype in FAMILIES else fields[0])
            except (TypeError, ValueError):
                return None, error(400, 'invalid %s answer %r' % (rtype, fields[0]))
        return found, None

    @staticmethod
    def _public(record):
        answers = [{'answer': [a], 'id': m['id'], 'meta': m['meta']}
                   for a, m in zip(record['records'], record['metas'])]
        answers += [{'answer': [a], 'id': '%024x' % next(_ids), 'meta': {}} for a in record['records'][len(answers):]]
        return {'zone': record['zone'], 'domain': record['name'], 'type': record['type'], 'ttl': record['ttl'],
                'answers': answers, 'filters': record['filters'], 'meta': record['meta'], 'id': record['id'],
                'use_client_subnet': record['use_client_subnet'], 'tier': record['tier'], 'networks': [0],
                'link': None, 'regions': {}}
