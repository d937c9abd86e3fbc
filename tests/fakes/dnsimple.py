"""Fake DNSimple (API v2): account and user access tokens, accounts, their zones and zone records.

As the reference (developer.dnsimple.com/v2: identity, accounts, zones, zones/records, rate limiting)
and the SDK dnsimple 2.15.0 (dnsimple/service/identity.py, zones.py, response.py) give them: GET
/v2/whoami (whoami: {"data": {"user", "account"}}, an account token's account, a user token's user),
GET /v2/accounts (list_accounts), GET /v2/{account}/zones (list_zones: page, per_page up to 100,
{"data", "pagination"}), GET /v2/{account}/zones/{zone} (get_zone), and the zone's records: GET
.../records (list_records: name exact, "" the apex; type), POST (create_record: 201, TTL 3600 unless
sent), GET, PATCH and DELETE of .../records/{id} (get_record, update_record: only what is sent
changes; delete_record: 204). Every answer carries X-RateLimit-Limit, -Remaining and -Reset, as the
SDK reads them from each. The token is `Authorization: Bearer <token>`: an unknown one 401
{"message": "Authentication failed"}; an account of another token 401 too; a zone the account does
not have 404 {"message": "Zone `x` not found"}; a record 404 {"message": "Record `n` not found"};
content no address of its type 400 {"message": "Validation failed", "errors": {"content": [...]}}.
"""

import ipaddress
import itertools
import time

from fakes.base import FakeServer, RecordStore, Reply

API = '/v2'
ZONE = API + r'/(\d+)/zones/([^/]+)'
_ids = itertools.count(1)


def stamp():
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())


class DNSimple(RecordStore, FakeServer):
    PROVIDER, LETTER = 'dnsimple', 'dnsimple'   # the registry's provider it plays; the sandbox's provider_dnsimple

    def __init__(self, token='dnsimpletest_a_0123456789abcdefghijklmnopqrstuv', tls_cert=None):
        super().__init__(tls_cert)
        self.token, self.account = token, 1385
        self.accounts = {1385: 'owner@example.com'}
        # token -> ('account', its account) or ('user', the accounts its user may act for)
        self.tokens = {token: ('account', 1385)}
        self.zones = {}       # name -> zone object (of self.account)
        self.records = {}     # id (text) -> record ('name': the full name, 'content')
        self.remaining = 2400
        self.route('whoami', 'GET', API + '/whoami', self.whoami, guard=self._auth)
        self.route('list_accounts', 'GET', API + '/accounts', self.list_accounts, guard=self._auth)
        self.route('list_zones', 'GET', API + r'/(\d+)/zones', self.list_zones, guard=self._account)
        self.route('get_zone', 'GET', ZONE, self.get_zone, guard=self._zone)
        self.route('list_records', 'GET', ZONE + '/records', self.list_records, guard=self._zone)
        self.route('create_record', 'POST', ZONE + '/records', self.create_record, guard=self._zone)
        self.route('get_record', 'GET', ZONE + r'/records/([^/]+)', self.get_record, guard=self._zone)
        self.route('update_record', 'PATCH', ZONE + r'/records/([^/]+)', self.update_record, guard=self._zone)
        self.route('delete_record', 'DELETE', ZONE + r'/records/([^/]+)', self.delete_record, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A zone of the account; its id in the tool's ids file: the account's id and its name."""
        self.zones[name] = {'id': next(_ids), 'account_id': self.account, 'name': name, 'reverse': False,
                            'secondary': False, 'last_transferred_at': None, 'active': True,
                            'created_at': stamp(), 'updated_at': stamp()}
        return '%d-%s' % (self.account, name)

    def add_record(self, zone, name, rtype, content, ttl=3600, priority=None, regions=('global',)):
        """A record of the zone (named as add_zone gives it, or by its name)."""
        zone = zone.split('-', 1)[1] if zone.split('-', 1)[0].isdigit() else zone
        rid = str(next(_ids) + 5000)
        self.records[rid] = {'id': int(rid), 'zone': zone, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'priority': priority, 'regions': list(regions)}
        return rid

    # --- guards --------------------------------------------------------------------------------
    def _send(self, h, reply, length=None):
        self.remaining = max(0, self.remaining - 1)
        reply.headers.update({'X-RateLimit-Limit': '2400', 'X-RateLimit-Remaining': str(self.remaining),
                              'X-RateLimit-Reset': str(int(time.time()) + 3600)})
        super()._send(h, reply, length)

    def _auth(self, req, *groups):
        scheme, _, token = req.headers.get('authorization', '').partition(' ')
        if scheme != 'Bearer' or token not in self.tokens:
            return Reply(401, {'message': 'Authentication failed'})
        req.grant = self.tokens[token]
        return None

    def _account(self, req, account, *rest):
        refused = self._auth(req)
        if refused:
            return refused
        kind, allowed = req.grant
        if int(account) not in ([allowed] if kind == 'account' else allowed):
            return Reply(401, {'message': 'Authentication failed'})
        return None if int(account) == self.account else Reply(404, {'message': 'Account `%s` not found' % account})

    def _zone(self, req, account, zone, *rest):
        return self._account(req, account) or (
            None if zone in self.zones else Reply(404, {'message': 'Zone `%s` not found' % zone}))

    # --- handlers ------------------------------------------------------------------------------
    def whoami(self, req):
        kind, allowed = req.grant
        account = {'id': allowed, 'email': self.accounts.get(allowed, 'x@example.com'),
                   'plan_identifier': 'teams-v1-monthly', 'created_at': stamp(), 'updated_at': stamp()} \
            if kind == 'account' else None
        user = {'id': 7, 'email': 'user@example.com', 'created_at': stamp(), 'updated_at': stamp()} \
            if kind == 'user' else None
        return Reply(200, {'data': {'user': user, 'account': account}})

    def list_accounts(self, req):
        kind, allowed = req.grant
        ids = [allowed] if kind == 'account' else allowed
        return Reply(200, {'data': [{'id': i, 'email': 'a%d@example.com' % i, 'plan_identifier': 'solo'} for i in ids]})

    def _page(self, req, items):
        try:
            page, per = int(req.query.get('page') or 1), int(req.query.get('per_page') or 30)
        except ValueError:
            return None, Reply(400, {'message': 'Validation failed'})
        per = max(1, min(per, 100))
        pages = max(1, -(-len(items) // per))
        return Reply(200, {'data': items[(page - 1) * per:page * per], 'pagination': {
            'current_page': page, 'per_page': per, 'total_entries': len(items), 'total_pages': pages}}), None

    def list_zones(self, req, account):
        reply, refused = self._page(req, [self.zones[n] for n in sorted(self.zones)])
        return reply or refused

    def get_zone(self, req, account, zone):
        return Reply(200, {'data': self.zones[zone]})

    def _public(self, record):
        zone = record['zone']
        return {'id': record['id'], 'zone_id': zone, 'parent_id': None, 'type': record['type'],
                'name': '' if record['name'] == zone else record['name'][:-len(zone) - 1],
                'content': record['content'], 'ttl': record['ttl'], 'priority': record['priority'],
                'regions': record['regions'], 'system_record': False, 'created_at': stamp(), 'updated_at': stamp()}

    def list_records(self, req, account, zone):
        found = [self._public(r) for _, r in sorted(self.records.items(), key=lambda i: int(i[0]))
                 if r['zone'] == zone]
        found = [r for r in found if req.query.get('name', r['name']) == r['name']
                 and req.query.get('type', r['type']) == r['type']]
        reply, refused = self._page(req, found)
        return reply or refused

    def _record(self, zone, record_id):
        record = self.records.get(record_id)
        return record if record is not None and record['zone'] == zone else None

    def _valid(self, rtype, content, ttl):
        errors = {}
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        try:
            if family and not isinstance(content, str):
                raise ValueError
            if family:
                family(content)
        except ValueError:
            errors['content'] = ['is not a valid %s address' % ('IPv4' if rtype == 'A' else 'IPv6')]
        if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 60):
            errors['ttl'] = ['must be greater than or equal to 60']
        return Reply(400, {'message': 'Validation failed', 'errors': errors}) if errors else None

    def get_record(self, req, account, zone, record_id):
        record = self._record(zone, record_id)
        return Reply(200, {'data': self._public(record)}) if record else \
            Reply(404, {'message': 'Record `%s` not found' % record_id})

    def create_record(self, req, account, zone):
        body = req.json if isinstance(req.json, dict) else {}
        if not isinstance(body.get('name'), str) or body.get('type') not in ('A', 'AAAA', 'CNAME', 'TXT', 'MX'):
            return Reply(400, {'message': 'Validation failed', 'errors': {'type': ['is not included in the list']}})
        refused = self._valid(body['type'], body.get('content'), body.get('ttl'))
        if refused:
            return refused
        name = zone if body['name'] == '' else '%s.%s' % (body['name'].lower(), zone)
        rid = self.add_record(zone, name, body['type'], body['content'], body.get('ttl', 3600))
        return Reply(201, {'data': self._public(self.records[rid])})

    def update_record(self, req, account, zone, record_id):
        record = self._record(zone, record_id)
        if record is None:
            return Reply(404, {'message': 'Record `%s` not found' % record_id})
        body = req.json if isinstance(req.json, dict) else {}
        refused = self._valid(record['type'], body.get('content', record['content']), body.get('ttl'))
        if refused:
            return refused
        for key in ('content', 'ttl', 'priority', 'regions'):   # only what is sent changes
            if key in body:
                record[key] = body[key]
        if 'name' in body:
            record['name'] = zone if body['name'] == '' else '%s.%s' % (body['name'], zone)
        return Reply(200, {'data': self._public(record)})

    def delete_record(self, req, account, zone, record_id):
        if self._record(zone, record_id) is None:
            return Reply(404, {'message': 'Record `%s` not found' % record_id})
        del self.records[record_id]
        return Reply(204, text='')
