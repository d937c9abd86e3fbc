"""Fake Spaceship (the DNS records API, v1): the domains of one account with Spaceship DNS, their
records known by type, name and address, an API key and its secret with their permissions.

The shapes are those the official Go SDK (namecheap/go-spaceship-sdk) reads and sends: GET
/api/v1/dns/records/{domain}?take=&skip= (both required) answers {items: [{type, name (relative,
'@' for the apex), address, ttl, group: {type: custom|product|personalNS}}], total}; PUT with
{force?, items} saves records (an identical one is kept, its TTL set; a new one joins the custom
group; one that cannot live beside a record of the name, a CNAME, is refused 422), answered 204;
DELETE with [{type, name, address}] removes them, 204, or 404 when none is there; GET
/api/v1/domains?take=&skip= lists the account's domains {items: [{name, ...}], total}. Errors are
{detail} or, for a refused field, {detail, data: [{field, details}]}, with a spaceship-error-code
header: 401 for a key or secret refused, 403 for a permission the key lacks, 404 "SOA record for
domain <d> not found." for a domain without Spaceship DNS, 400 for a bad parameter. The routes:
list_domains, list_records, save_records, delete_records.
"""

import ipaddress
import itertools
import json

from fakes.base import FakeServer, RecordStore, Reply

API = '/api/v1'
PERMISSIONS = ('dnsrecords:read', 'dnsrecords:write', 'domains:read')
_ids = itertools.count(1)


def error(status, detail, code=None, data=None):
    body = {'detail': detail}
    if data is not None:
        body['data'] = data
    return Reply(status, body, headers={'spaceship-error-code': code} if code else None)


def invalid(field, details):
    return error(400, 'Validation failed.', 'validation', [{'field': field, 'details': details}])


def address_id(address):
    """What the tool keeps as a record's id: its address, ':' written '-'."""
    return address.replace(':', '-')


class Spaceship(RecordStore, FakeServer):
    PROVIDER, LETTER = 'spaceship', 'spaceship'   # the registry's provider it plays; the sandbox's provider_spaceship

    def __init__(self, key='SpKey0123456789abcdef', secret='SpSecret0123456789abcdef0123456789', tls_cert=None):
        super().__init__(tls_cert)
        self.key, self.secret = key, secret
        self.permissions = set(PERMISSIONS)
        self.domains = {}     # domain name -> domain object
        self.records = {}     # internal key -> record ('name' full, 'content': what the tests read and set)
        self.route('list_domains', 'GET', API + '/domains', self.list_domains, guard=self._auth('domains:read'))
        self.route('list_records', 'GET', API + r'/dns/records/([^/]+)', self.list_records,
                   guard=self._zone('dnsrecords:read'))
        self.route('save_records', 'PUT', API + r'/dns/records/([^/]+)', self.save_records,
                   guard=self._zone('dnsrecords:write'))
        self.route('delete_records', 'DELETE', API + r'/dns/records/([^/]+)', self.delete_records,
                   guard=self._zone('dnsrecords:write'))

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_KEY': self.key, 'DDNS_API_SECRET': self.secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A domain of the account with Spaceship DNS; its id in the API's paths is its name."""
        self.domains[name] = {'name': name, 'unicodeName': name, 'isPremium': False, 'autoRenew': True,
                              'lifecycleStatus': 'registered', 'verificationStatus': 'success',
                              'nameservers': {'provider': 'basic', 'hosts': ['launch1.spaceship.net',
                                                                              'launch2.spaceship.net']}}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=3600, group='custom'):
        """A record of the domain; returns what the tool keeps as its id (its address)."""
        self.records[next(_ids)] = {'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                                    'ttl': ttl, 'group': group}
        return address_id(content)

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, permission):
        def guard(req, *groups):
            if (req.headers.get('x-api-key'), req.headers.get('x-api-secret')) != (self.key, self.secret):
                return error(401, 'Unauthorized.', 'unauthorized')
            if permission not in self.permissions:
                return error(403, 'The API key does not have the %s permission.' % permission, 'forbidden')
            return None
        return guard

    def _zone(self, permission):
        auth = self._auth(permission)

        def guard(req, domain):
            return auth(req) or (None if domain in self.domains else
                                 error(404, 'SOA record for domain %s not found.' % domain, 'not_found'))
        return guard

    # --- operations ----------------------------------------------------------------------------
    def list_domains(self, req):
        page = self._page(req, 100)
        if isinstance(page, Reply):
            return page
        items = sorted(self.domains.values(), key=lambda d: d['name'])
        return Reply(200, {'items': items[page[1]:page[1] + page[0]], 'total': len(items)})

    def list_records(self, req, domain):
        page = self._page(req, 500)
        if isinstance(page, Reply):
            return page
        items = [self._public(r) for _, r in sorted(self.records.items()) if r['domain'] == domain]
        return Reply(200, {'items': items[page[1]:page[1] + page[0]], 'total': len(items)})

    def save_records(self, req, domain):
        try:
            body = json.loads(req.body)
        except ValueError:
            return error(400, 'The request body is not valid JSON.', 'bad_request')
        if not isinstance(body, dict) or not isinstance(body.get('items'), list) or not body['items']:
            return invalid('items', 'items is required')
        if not isinstance(body.get('force', False), bool):
            return invalid('force', 'force must be a boolean')
        for n, item in enumerate(body['items']):
            refused = self._item(item, 'items[%d]' % n, ttl=True)
            if refused:
                return refused
        for item in body['items']:
            name = self._name(domain, item['name'])
            held = self._held(domain, item)
            if held is not None:   # the same record: kept, its TTL set
                held['ttl'] = item.get('ttl', held['ttl'])
                continue
            clash = [k for k, r in self.records.items() if r['domain'] == domain and r['name'] == name
                     and 'CNAME' in (r['type'], item['type']) and r['type'] != item['type']]
            if clash and not body.get('force'):
                return error(422, 'The record conflicts with an existing record of %s.' % name, 'conflict')
            for key in clash:
                del self.records[key]
            self.add_record(domain, name, item['type'], item['address'], item.get('ttl', 3600))
        return Reply(204, text='')

    def delete_records(self, req, domain):
        try:
            body = json.loads(req.body)
        except ValueError:
            return error(400, 'The request body is not valid JSON.', 'bad_request')
        if not isinstance(body, list) or not body:
            return invalid('', 'a list of records is required')
        for n, item in enumerate(body):
            refused = self._item(item, '[%d]' % n)
            if refused:
                return refused
        found = [key for key, r in self.records.items() for item in body
                 if r['domain'] == domain and r is self._held(domain, item)]
        if not found:
            return error(404, 'Record not found.', 'not_found')
        for key in set(found):
            del self.records[key]
        return Reply(204, text='')

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _page(req, largest):
        """(take, skip), or the answer refusing them: both required, take 1..largest."""
        for name in ('take', 'skip'):
            if name not in req.query:
                return invalid(name, '%s is required' % name)
        try:
            take, skip = int(req.query['take']), int(req.query['skip'])
        except ValueError:
            return invalid('take', 'take and skip must be numbers')
        if not 1 <= take <= largest or skip < 0:
            return invalid('take', 'take must be between 1 and %d' % largest)
        return take, skip

    @staticmethod
    def _item(item, where, ttl=False):
        """The answer refusing one record of a request, else None."""
        if not isinstance(item, dict):
            return invalid(where, 'a record is an object')
        for name in ('type', 'name', 'address'):
            if not isinstance(item.get(name), str) or not item[name]:
                return invalid('%s.%s' % (where, name), '%s is required' % name)
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(item['type'])
        if family is None:
            return invalid('%s.type' % where, 'unsupported type for this fake: %s' % item['type'])
        try:
            family(item['address'])
        except ValueError:
            return invalid('%s.address' % where, 'not an address of the type')
        if ttl and 'ttl' in item and (not isinstance(item['ttl'], int) or isinstance(item['ttl'], bool)
                                      or not 60 <= item['ttl'] <= 3600):
            return invalid('%s.ttl' % where, 'ttl must be between 60 and 3600')
        return None

    @staticmethod
    def _name(domain, name):
        name = name.rstrip('.').lower()
        return domain if name in ('@', domain) else name if name.endswith('.' + domain) else '%s.%s' % (name, domain)

    def _held(self, domain, item):
        """The record a request's item names (type, name, address), or None."""
        name = self._name(domain, item['name'])
        for r in self.records.values():
            if r['domain'] == domain and r['name'] == name and r['type'] == item['type'] \
                    and ipaddress.ip_address(r['content']) == ipaddress.ip_address(item['address']):
                return r
        return None

    @staticmethod
    def _public(record):
        """A record as the API lists it: its name relative to the domain, '@' for the apex."""
        domain, name = record['domain'], record['name']
        return {'type': record['type'], 'name': '@' if name == domain else name[:-len(domain) - 1],
                'address': record['content'], 'ttl': record['ttl'], 'group': {'type': record['group']}}
