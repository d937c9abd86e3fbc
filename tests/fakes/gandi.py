"""Fake Gandi LiveDNS (API v5): personal access tokens restricted to domains, the domains at LiveDNS,
their RRsets.

As api.gandi.net/docs/livedns and /docs/authentication give them: every call carries `Authorization:
Bearer <personal access token>` (the deprecated `Apikey <key>` is refused here: ddkit sends the
token), else 401 HTTPUnauthorized; a token restricted to other domains, or without the right to
manage the technical configuration, is 403 on a write. GET /v5/livedns/domains (list_zones: [{fqdn,
domain_href, domain_records_href, ...}]), GET /v5/livedns/domains/<fqdn> (get_zone), GET, PUT, POST
and DELETE of /v5/livedns/domains/<fqdn>/records/<name>/<type> (get_record: {rrset_name, rrset_type,
rrset_ttl, rrset_values, rrset_href}; put_record: {rrset_values, rrset_ttl?} makes or replaces the
RRset, 201 "DNS Record Created", its TTL 10800 when not sent; create_record: the same, 409 when it
exists; delete_record). Names are relative, `@` the apex; a TTL is 300 to 2592000. Errors are {code,
message, object, cause} (and errors [{location, name, description}] for a body refused, HTTP 400).
"""

import ipaddress

from fakes.base import FakeServer, Reply

API = '/v5/livedns'
DOMAIN = API + r'/domains/([^/]+)'
RRSET = DOMAIN + r'/records/([^/]+)/([^/]+)'
FAMILIES = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}
DEFAULT_TTL = 10800


def error(status, message, cause, obj='HTTPError', **more):
    return Reply(status, dict({'code': status, 'message': message, 'object': obj, 'cause': cause}, **more))


class Gandi(FakeServer):
    PROVIDER, LETTER = 'gandi', 'gandi'   # the registry's provider it plays

    def __init__(self, token='0123456789abcdef0123456789abcdef01234567', tls_cert=None):
        super().__init__(tls_cert)
        self.token = token
        self.tokens = {token: (None, True)}   # token -> (the domains it is restricted to or None, may manage)
        self.domains = {}    # fqdn -> domain object
        self.rrsets = {}     # (fqdn, name, type) -> RRset ('name': full, 'records': its values)
        self.route('list_zones', 'GET', API + '/domains', self.list_zones, guard=self._auth)
        self.route('get_zone', 'GET', DOMAIN, self.get_zone, guard=self._domain)
        self.route('get_record', 'GET', RRSET, self.get_record, guard=self._domain)
        self.route('put_record', 'PUT', RRSET, self.put_record, guard=self._domain)
        self.route('create_record', 'POST', RRSET, self.post_record, guard=self._domain)
        self.route('delete_record', 'DELETE', RRSET, self.delete_record, guard=self._domain)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        self.domains[name] = {'fqdn': name, 'domain_href': 'https://api.gandi.net/v5/livedns/domains/' + name,
                              'domain_records_href': 'https://api.gandi.net/v5/livedns/domains/%s/records' % name,
                              'automatic_snapshots': True}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=DEFAULT_TTL):
        """An RRset of these values (content: one, or a list); its id in the tool's ids file is its name."""
        sub = '@' if name == zone_id else name[:-len(zone_id) - 1]
        self.rrsets[(zone_id, sub, rtype)] = {'domain': zone_id, 'sub': sub, 'name': name, 'type': rtype, 'ttl': ttl,
                                              'records': list(content) if isinstance(content, (list, tuple))
                                              else [content]}
        return name

    def find(self, name, rtype='A'):
        """The RRsets named so (what a test asserts on)."""
        return [r for r in self.rrsets.values() if r['name'] == name.rstrip('.') and r['type'] == rtype]

    def by_line(self, name, rtype='A'):
        """{None: sorted addresses}: no lines, every address is a value of the RRset."""
        return {None: sorted(a for r in self.find(name, rtype) for a in r['records'])}

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        scheme, _, token = req.headers.get('authorization', '').partition(' ')
        if scheme != 'Bearer' or token not in self.tokens:
            return error(401, 'The server could not verify that you authenticated successfully', 'Unauthorized',
                         'HTTPUnauthorized')
        req.token = token
        return None

    def _domain(self, req, fqdn, *rest):
        refused = self._auth(req)
        if refused:
            return refused
        restricted, manage = self.tokens[req.token]
        if fqdn not in self.domains or restricted is not None and fqdn not in restricted and req.method == 'GET':
            return error(404, 'Domain not found', 'Not Found', 'HTTPNotFound')
        if req.method != 'GET' and (not manage or restricted is not None and fqdn not in restricted):
            return error(403, 'Access was denied to this resource', 'Forbidden', 'HTTPForbidden')
        return None

    # --- handlers ------------------------------------------------------------------------------
    def list_zones(self, req):
        restricted = self.tokens[req.token][0]
        return Reply(200, [self.domains[n] for n in sorted(self.domains) if restricted is None or n in restricted])

    def get_zone(self, req, fqdn):
        return Reply(200, self.domains[fqdn])

    def get_record(self, req, fqdn, name, rtype):
        found = self.rrsets.get((fqdn, name, rtype))
        return Reply(200, self._public(found)) if found else self._missing(name)

    def put_record(self, req, fqdn, name, rtype):
        """The RRset made or replaced: its values and TTL those sent (10800 when none is)."""
        body = req.json if isinstance(req.json, dict) else {}
        refused = self._invalid(rtype, body)
        if refused:
            return refused
        full = fqdn if name == '@' else '%s.%s' % (name, fqdn)
        self.add_record(fqdn, full, rtype, body['rrset_values'], body.get('rrset_ttl', DEFAULT_TTL))
        return Reply(201, {'message': 'DNS Record Created'})

    def post_record(self, req, fqdn, name, rtype):
        if (fqdn, name, rtype) in self.rrsets:
            return error(409, 'A DNS record already exists with that name and type', 'Conflict', 'HTTPConflict')
        return self.put_record(req, fqdn, name, rtype)

    def delete_record(self, req, fqdn, name, rtype):
        if self.rrsets.pop((fqdn, name, rtype), None) is None:
            return self._missing(name)
        return Reply(204, text='')

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _missing(name):
        return error(404, 'Can\'t find the DNS record %s in the zone' % name, 'Not Found', 'dns-record')

    @staticmethod
    def _invalid(rtype, body):
        """The 400 of a body's values or TTL the API refuses, or None."""
        errors = []
        values = body.get('rrset_values')
        if not isinstance(values, list) or not values:
            errors.append({'location': 'body', 'name': 'rrset_values', 'description': 'must be a non-empty list'})
        else:
            for value in values:
                try:
                    if rtype in FAMILIES:
                        FAMILIES[rtype](value)
                except (TypeError, ValueError):
                    errors.append({'location': 'body', 'name': 'rrset_values',
                                   'description': '%r is not a valid %s value' % (value, rtype)})
        ttl = body.get('rrset_ttl', DEFAULT_TTL)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or not 300 <= ttl <= 2592000:
            errors.append({'location': 'body', 'name': 'rrset_ttl', 'description': 'must be between 300 and 2592000'})
        return error(400, 'Bad Request', 'Bad Request', 'HTTPBadRequest', errors=errors) if errors else None

    @staticmethod
    def _public(rrset):
        return {'rrset_name': rrset['sub'], 'rrset_type': rrset['type'], 'rrset_ttl': rrset['ttl'],
                'rrset_values': list(rrset['records']),
                'rrset_href': 'https://api.gandi.net/v5/livedns/domains/%s/records/%s/%s' % (
                    rrset['domain'], rrset['sub'], rrset['type'])}
