"""Fake Porkbun (API v3): API keys with their secrets, domains (each opted in to API access or not) and
their records (several of a name allowed, each with its TTL, priority and notes).

Every call is a POST under /api/json/v3 with the key and the secret in its JSON body (apikey,
secretapikey; the X-API-Key and X-Secret-API-Key headers are taken too, as the current documentation
allows), a named route here: ping, list_zones (/domain/listAll, chunks of 1000 from `start`),
list_records (/dns/retrieve/{domain} and /dns/retrieveByNameType/{domain}/{type}[/{subdomain}]),
get_record (/dns/retrieve/{domain}/{id}), create_record, update_record (/dns/edit/{domain}/{id}) and
delete_record. Answers are {"status": "SUCCESS", ...}, or {"status": "ERROR", "message"} at HTTP 400
with the messages clients have met: "Invalid API key. (001)" (the key), "(002)" (the secret), "All
API requests require an API key.", "Invalid domain.", "Domain is not opted in to API access.", "Edit
error: We were unable to edit the DNS record.". A listing gives values as strings and names in
full; create and edit take the subdomain alone. An edit replaces the record: what it leaves out
becomes the default (TTL 600, priority 0, no notes), and a name left out moves it to the apex, as a
Terraform provider's bug report shows. A read of an id that does not exist lists no record; a delete
of one is refused ("Delete error: Invalid record id.", the fake's own words: the API's are not known).
"""

import ipaddress
import itertools

from fakes.base import FakeServer, RecordStore, Reply

BASE = '/api/json/v3'
TTL_MIN = 600
CHUNK = 1000
_ids = itertools.count(1)


def error(message, status=400):
    return Reply(status, {'status': 'ERROR', 'message': message})


class Porkbun(RecordStore, FakeServer):
    PROVIDER, LETTER = 'porkbun', 'porkbun'   # the registry's provider it plays; the sandbox's provider_porkbun

    def __init__(self, api_key='pk1_' + '5e' * 32, secret_api_key='sk1_' + '7d' * 32, tls_cert=None):
        super().__init__(tls_cert)
        self.api_key, self.secret_api_key = api_key, secret_api_key
        self.keys = {api_key: secret_api_key}
        self.domains = {}         # domain name -> domain object ('opted_in': API access switched on)
        self.records = {}         # id -> record ('name' and 'content': what the tests read and set)
        self.foreign_ns = None    # nameservers of the domains that are not Porkbun's: writes warn
        routes = [('ping', r'/ping', self.ping, False),
                  ('list_zones', r'/domain/listAll', self.list_zones, False),
                  ('list_records', r'/dns/retrieve/([^/]+)', self.list_records, True),
                  ('list_records', r'/dns/retrieveByNameType/([^/]+)/([^/]+)(?:/([^/]*))?', self.by_name_type, True),
                  ('get_record', r'/dns/retrieve/([^/]+)/([^/]+)', self.get_record, True),
                  ('create_record', r'/dns/create/([^/]+)', self.create_record, True),
                  ('update_record', r'/dns/edit/([^/]+)/([^/]+)', self.update_record, True),
                  ('delete_record', r'/dns/delete/([^/]+)/([^/]+)', self.delete_record, True)]
        for name, pattern, handler, domain in routes:
            self.route(name, 'POST', BASE + pattern, handler, guard=self._domain if domain else self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_KEY': self.api_key, 'DDNS_SECRET_API_KEY': self.secret_api_key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, opted_in=True):
        """A domain of the account; its id in the API's calls is its name."""
        self.domains[name] = {'domain': name, 'status': 'ACTIVE', 'tld': name.rsplit('.', 1)[-1],
                              'createDate': '2024-01-02 03:04:05', 'expireDate': '2027-01-02 03:04:05',
                              'securityLock': '1', 'whoisPrivacy': '1', 'autoRenew': 1, 'notLocal': 0,
                              'opted_in': opted_in}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=600, prio=0, notes=''):
        rid = str(400000000 + next(_ids))
        self.records[rid] = {'id': rid, 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'prio': prio, 'notes': notes}
        return rid

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        """The key and the secret: in the body, else in the headers."""
        try:
            body = req.json or {}
        except ValueError:
            return error('Invalid JSON.')
        key = body.get('apikey', req.headers.get('x-api-key'))
        secret = body.get('secretapikey', req.headers.get('x-secret-api-key'))
        if not key or not secret:
            return error('All API requests require an API key.')
        if key not in self.keys:
            return error('Invalid API key. (001)')
        if self.keys[key] != secret:
            return error('Invalid API key. (002)')
        return None

    def _domain(self, req, domain, *groups):
        """The credentials, then the domain: this account's, and opted in to API access."""
        refused = self._auth(req)
        if refused:
            return refused
        found = self.domains.get(domain.lower())
        if found is None:
            return error('Invalid domain.')
        if not found['opted_in']:
            return error('Domain is not opted in to API access.')
        return None

    def success(self, write=False, **fields):
        body = dict({'status': 'SUCCESS'}, **fields)
        if write and self.foreign_ns:
            body['warnings'] = 'The nameservers of this domain are not ours (%s): this change does not ' \
                               'affect what resolves.' % ', '.join(self.foreign_ns)
        return Reply(200, body)

    # --- calls ---------------------------------------------------------------------------------
    def ping(self, req):
        return self.success(yourIp=req.client)

    def list_zones(self, req):
        try:
            start = int((req.json or {}).get('start', 0))
        except ValueError:
            return error('Invalid start.')
        names = sorted(self.domains)[start:start + CHUNK]
        return self.success(domains=[{k: v for k, v in self.domains[n].items() if k != 'opted_in'} for n in names])

    def list_records(self, req, domain):
        return self.success(records=[self._public(r) for r in self.records.values() if r['domain'] == domain.lower()])

    def by_name_type(self, req, domain, rtype, sub=None):
        name = '%s.%s' % (sub.lower(), domain.lower()) if sub else domain.lower()
        return self.success(records=[self._public(r) for r in self.records.values() if r['domain'] == domain.lower()
                                     and r['name'] == name and r['type'] == rtype.upper()])

    def get_record(self, req, domain, rid):
        held = self.records.get(rid)
        shown = [self._public(held)] if held is not None and held['domain'] == domain.lower() else []
        return self.success(records=shown)

    def create_record(self, req, domain):
        body = req.json
        record, refused = self._fields(body, 'Create')
        if refused:
            return refused
        rid = self.add_record(domain.lower(), self._name(body, domain), record['type'], record['content'],
                              record['ttl'], record['prio'], record['notes'])
        return self.success(write=True, id=int(rid))

    def update_record(self, req, domain, rid):
        held = self.records.get(rid)
        if held is None or held['domain'] != domain.lower():
            return error('Edit error: We were unable to edit the DNS record.')
        body = req.json
        record, refused = self._fields(body, 'Edit')
        if refused:
            return refused
        # the record is replaced: what is not sent is the default, a name not sent the apex
        held.update(name=self._name(body, domain), type=record['type'], content=record['content'], ttl=record['ttl'],
                    prio=record['prio'], notes=record['notes'])
        return self.success(write=True)

    def delete_record(self, req, domain, rid):
        held = self.records.get(rid)
        if held is None or held['domain'] != domain.lower():
            return error('Delete error: Invalid record id.')
        del self.records[rid]
        return self.success(write=True)

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _name(body, domain):
        sub = str(body.get('name') or '').lower()
        return '%s.%s' % (sub, domain.lower()) if sub else domain.lower()

    @staticmethod
    def _fields(body, verb):
        """({type, content, ttl, prio, notes}, None), or (None, the answer refusing them)."""
        rtype, content = str(body.get('type', '')).upper(), body.get('content')
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        try:
            if not content or family is None:
                raise ValueError(rtype)
            family(content)
            ttl, prio = int(body.get('ttl', TTL_MIN)), int(body.get('prio', 0))
        except (ValueError, TypeError):
            return None, error('%s error: Invalid record content, type, ttl or prio.' % verb)
        return {'type': rtype, 'content': content, 'ttl': max(ttl, TTL_MIN), 'prio': prio,
                'notes': str(body.get('notes') or '')}, None

    @staticmethod
    def _public(record):
        """A record as a listing shows it: the name in full, values as strings."""
        return {'id': record['id'], 'name': record['name'], 'type': record['type'], 'content': record['content'],
                'ttl': str(record['ttl']), 'prio': str(record['prio']), 'notes': record['notes'] or None}
