"""Fake PowerDNS Authoritative HTTP API (v1), as 4.7 answers: the server, its zones, their RRsets.

For the refusals and the shared tables without the real server (tests/test_powerdns.py runs the
provider against a real pdns_server too). Paths and answers as the server gives them: GET
/api/v1/servers/localhost (login: the server object), GET .../zones (list_zones: [{id, name, kind,
serial, url}], narrowed by zone=<name.>), GET .../zones/<zone id> (get_record: the zone with its
rrsets, narrowed by rrset_name and rrset_type; rrsets=false leaves them out), PATCH .../zones/<zone
id> (update_record: {"rrsets": [{name, type, ttl, changetype REPLACE|DELETE, records}]}, 204; a
REPLACE without ttl, a name out of the zone, an address that is none are 422 {"error": ...}). A
zone id is its name with the root's dot (the dot may be left out). The key is X-API-Key; a wrong or
missing one is 401 with the text "Unauthorized", a zone the server lacks 404 "Not Found", a body
that is no JSON 400 "Bad Request", as the real server words them. An RRset's comments stay when a
PATCH does not send them.
"""

import ipaddress
import json
import time

from fakes.base import FakeServer, Reply

SERVER = '/api/v1/servers/localhost'
FAMILY = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}


def error(status, message):
    return Reply(status, {'error': message})


def text(status, words):
    return Reply(status, text=words)


class PowerDNS(FakeServer):
    PROVIDER, LETTER = 'powerdns', 'powerdns'   # the registry's provider it plays; the sandbox's provider_powerdns

    def __init__(self, key='example-pdns-api-key', tls_cert=None):
        super().__init__(tls_cert)
        self.key = key
        self.daemon_type = 'authoritative'
        self.zones = {}                 # zone name -> serial
        self.rrsets = {}                # '<name>/<type>' -> RRset ('zone', 'name', 'type', 'ttl', 'records', ...)
        self.route('login', 'GET', SERVER, self.server, guard=self._auth)
        self.route('list_zones', 'GET', SERVER + '/zones', self.list_zones, guard=self._auth)
        self.route('get_record', 'GET', SERVER + '/zones/([^/]+)', self.get_zone, guard=self._zone)
        self.route('update_record', 'PATCH', SERVER + '/zones/([^/]+)', self.patch_zone, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_KEY': self.key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        self.zones[name] = int(time.strftime('%Y%m%d01'))
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=3600, disabled=(), comments=()):
        """An RRset of these addresses (content: one, or a list); its id in the tool's ids file is its name."""
        addresses = list(content) if isinstance(content, (list, tuple)) else [content]
        self.rrsets['%s/%s' % (name, rtype)] = {'zone': zone_id, 'name': name, 'type': rtype, 'ttl': ttl,
                                                 'records': addresses, 'disabled': set(disabled),
                                                 'comments': list(comments)}
        return name

    def find(self, name, rtype='A'):
        """The RRsets named so (what a test asserts on)."""
        found = self.rrsets.get('%s/%s' % (name.rstrip('.'), rtype))
        return [found] if found else []

    def by_line(self, name, rtype='A'):
        """{None: sorted addresses}: no lines, every address is a record of the RRset."""
        return {None: sorted(a for r in self.find(name, rtype) for a in r['records'])}

    # --- the API's answers ---------------------------------------------------------------------
    def _auth(self, req, *groups):
        return None if req.headers.get('x-api-key') == self.key else text(401, 'Unauthorized')

    def _zone(self, req, zone_id):
        return self._auth(req) or (None if zone_id.rstrip('.') in self.zones else text(404, 'Not Found'))

    def _zone_object(self, name):
        return {'id': name + '.', 'name': name + '.', 'kind': 'Native', 'serial': self.zones[name],
                'url': '%s/zones/%s.' % (SERVER, name), 'dnssec': False, 'account': ''}

    @staticmethod
    def _public(rrset):
        return {'name': rrset['name'] + '.', 'type': rrset['type'], 'ttl': rrset['ttl'],
                'records': [{'content': a, 'disabled': a in rrset['disabled']} for a in rrset['records']],
                'comments': rrset['comments']}

    def server(self, req):
        return Reply(200, {'type': 'Server', 'id': 'localhost', 'daemon_type': self.daemon_type, 'version': '4.7.3',
                           'url': SERVER, 'config_url': SERVER + '/config{/config_setting}',
                           'zones_url': SERVER + '/zones{/zone}'})

    def list_zones(self, req):
        named = req.query.get('zone')
        names = [n for n in sorted(self.zones) if named is None or n + '.' == named]
        return Reply(200, [self._zone_object(n) for n in names])

    def get_zone(self, req, zone_id):
        zone = zone_id.rstrip('.')
        found = dict(self._zone_object(zone))
        if req.query.get('rrsets') != 'false':
            name, rtype = req.query.get('rrset_name'), req.query.get('rrset_type')
            found['rrsets'] = [self._public(r) for r in self.rrsets.values() if r['zone'] == zone
                               and name in (None, r['name'] + '.') and rtype in (None, r['type'])]
        return Reply(200, found)

    def patch_zone(self, req, zone_id):
        """Each RRset REPLACEd (made when missing; its comments kept unless sent) or DELETEd, all or none."""
        zone = zone_id.rstrip('.')
        try:
            body = json.loads(req.body)
        except ValueError:
            return text(400, 'Bad Request')
        changes = body.get('rrsets') if isinstance(body, dict) else None
        if not isinstance(changes, list):
            return error(422, 'No rrsets given in patch request')
        todo = []
        for change in changes:
            refused = self._refused(change, zone)
            if refused:
                return refused
            todo.append(change)
        for change in todo:
            name, rtype = change['name'].rstrip('.').lower(), change['type']
            key = '%s/%s' % (name, rtype)
            if change['changetype'] == 'DELETE':
                self.rrsets.pop(key, None)
                continue
            old = self.rrsets.get(key, {'comments': []})
            records = change['records']
            self.rrsets[key] = {'zone': zone, 'name': name, 'type': rtype, 'ttl': change['ttl'],
                                'records': [r['content'] for r in records],
                                'disabled': {r['content'] for r in records if r.get('disabled')},
                                'comments': change.get('comments', old['comments'])}
        if todo:
            self.zones[zone] += 1
        return Reply(204, text='')

    @staticmethod
    def _refused(change, zone):
        """The 422 of a change the server would not take, else None."""
        if not isinstance(change, dict) or not isinstance(change.get('name'), str) or not change['name'].endswith('.'):
            return error(422, 'Key \'name\' not present or not a String')
        name = change['name'].rstrip('.').lower()
        where = 'RRset %s IN %s' % (change['name'], change.get('type'))
        if name != zone and not name.endswith('.' + zone):
            return error(422, '%s: Name is out of zone' % where)
        if change.get('changetype') not in ('REPLACE', 'DELETE'):
            return error(422, 'Changetype not understood')
        if change['changetype'] == 'DELETE':
            return None
        if not isinstance(change.get('ttl'), int) or isinstance(change['ttl'], bool):
            return error(422, 'Key \'ttl\' not an Integer or not present')
        records = change.get('records')
        if not isinstance(records, list) or not all(isinstance(r, dict) and set(r) <= {'content', 'disabled'}
                                                    for r in records):
            return error(422, 'Key \'records\' not present or not an Array')
        for record in records:
            try:
                FAMILY[change['type']](record.get('content'))
            except (KeyError, TypeError, ValueError):
                return error(422, 'Record %s/%s \'%s\': Parsing record content (try \'pdnsutil check-zone\')'
                             % (change['name'], change.get('type'), record.get('content')))
        return None
