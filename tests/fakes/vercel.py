"""Fake Vercel (the REST API's domains and DNS records): tokens scoped to an account or teams, the
domains of each scope, their records by id.

As Vercel's REST API reference gives them: every call carries `Authorization: Bearer <token>`, and a
team's calls `?teamId=<team id>` (a domain is seen only in the scope that owns it: the personal
account without teamId). GET /v5/domains (list_zones: {"domains": [{name, ...}], "pagination":
{count, next, prev}}), GET /v5/domains/<domain>/records (list_records: {"records": [{id, slug, name,
type, value, ttl, comment, createdAt, updatedAt, ...}], "pagination"}: 20 a page unless limit=, the
next page until=<pagination.next>, newest first), POST /v2/domains/<domain>/records (create_record:
{name, type, value, ttl?, comment?} -> {"uid", "updated"}), PATCH /v1/domains/records/<id>
(update_record: the fields sent change, null ones stay -> the record), DELETE
/v2/domains/<domain>/records/<id> (delete_record). Names are relative, "" the apex; a TTL is at
least 60, 60 when not sent. Errors are {"error": {code, message}}: an unknown token 403 forbidden
with invalidToken true (not 401), a team the token may not use 403 forbidden, a domain or record
the scope lacks 404 not_found, a bad value 400 invalid_value.
"""

import ipaddress
import itertools

from fakes.base import FakeServer, RecordStore, Reply

FAMILIES = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}
TYPES = ('A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'HTTPS', 'MX', 'SRV', 'TXT', 'NS')
_ids = itertools.count(1)
_clock = itertools.count(1700000000000)


def error(status, code, message, **more):
    return Reply(status, {'error': dict({'code': code, 'message': message}, **more)})


class Vercel(RecordStore, FakeServer):
    PROVIDER, LETTER = 'vercel', 'vercel'   # the registry's provider it plays

    def __init__(self, token='vcp_' + 'Q3x9' * 6, tls_cert=None):
        super().__init__(tls_cert)
        self.token = token
        self.tokens = {token: {None}}   # token -> the scopes it may use (None: its personal account)
        self.domains = {}               # name -> domain object ('owner': None or a team id)
        self.records = {}               # id -> record ('name' full, 'content': what the tests read and set)
        self.route('list_zones', 'GET', '/v5/domains', self.list_zones, guard=self._auth)
        self.route('list_records', 'GET', r'/v5/domains/([^/]+)/records', self.list_records, guard=self._domain)
        self.route('create_record', 'POST', r'/v2/domains/([^/]+)/records', self.create_record, guard=self._domain)
        self.route('update_record', 'PATCH', r'/v1/domains/records/([^/]+)', self.update_record, guard=self._auth)
        self.route('delete_record', 'DELETE', r'/v2/domains/([^/]+)/records/([^/]+)', self.delete_record,
                   guard=self._domain)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, team=None):
        self.domains[name] = {'name': name, 'owner': team, 'serviceType': 'zeit.world', 'verified': True,
                              'createdAt': next(_clock)}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=60, comment=None):
        rid = 'rec_%024x' % next(_ids)
        now = next(_clock)
        self.records[rid] = {'id': rid, 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'comment': comment, 'createdAt': now, 'updatedAt': now}
        return rid

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        scheme, _, token = req.headers.get('authorization', '').partition(' ')
        if scheme != 'Bearer' or token not in self.tokens:
            return error(403, 'forbidden', 'Not authorized', invalidToken=True)
        req.scope = req.query.get('teamId') or None
        if req.scope not in self.tokens[token]:
            return error(403, 'forbidden', 'You don\'t have permission to access this team')
        return None

    def _domain(self, req, domain, *rest):
        refused = self._auth(req)
        if refused:
            return refused
        found = self.domains.get(domain)
        return None if found and found['owner'] == req.scope else error(404, 'not_found', 'Domain not found')

    # --- handlers ------------------------------------------------------------------------------
    def list_zones(self, req):
        held = sorted((d for d in self.domains.values() if d['owner'] == req.scope), key=lambda d: -d['createdAt'])
        shown, pagination = self._page(req, held)
        return Reply(200, {'domains': [{k: v for k, v in d.items() if k != 'owner'} for d in shown],
                           'pagination': pagination})

    def list_records(self, req, domain):
        held = sorted((r for r in self.records.values() if r['domain'] == domain), key=lambda r: -r['createdAt'])
        shown, pagination = self._page(req, held)
        return Reply(200, {'records': [self._public(r) for r in shown], 'pagination': pagination})

    def create_record(self, req, domain):
        body = req.json if isinstance(req.json, dict) else {}
        if not isinstance(body.get('name'), str) or body.get('type') not in TYPES:
            return error(400, 'bad_request', 'Invalid request: missing or invalid name or type')
        refused = self._invalid(body['type'], body)
        if refused:
            return refused
        name = domain if body['name'] == '' else '%s.%s' % (body['name'].lower(), domain)
        rid = self.add_record(domain, name, body['type'], body.get('value'), body.get('ttl') or 60,
                              body.get('comment'))
        return Reply(200, {'uid': rid, 'updated': self.records[rid]['updatedAt']})

    def update_record(self, req, rid):
        record = self.records.get(rid)
        if record is None or self.domains[record['domain']]['owner'] != req.scope:
            return error(404, 'not_found', 'The DNS record was not found')
        body = req.json if isinstance(req.json, dict) else {}
        unknown = set(body) - {'name', 'value', 'type', 'ttl', 'mxPriority', 'srv', 'https', 'comment'}
        if unknown:
            return error(400, 'bad_request', 'Invalid request: should NOT have additional property %s'
                         % sorted(unknown))
        sent = {k: v for k, v in body.items() if v is not None}
        merged = dict(record, value=record['content'])
        merged.update(sent)
        refused = self._invalid(merged['type'], merged)
        if refused:
            return refused
        if 'name' in sent:
            record['name'] = record['domain'] if sent['name'] == '' else '%s.%s' % (sent['name'], record['domain'])
        record.update({k: sent[k] for k in ('type', 'ttl', 'comment') if k in sent})
        record['content'] = sent.get('value', record['content'])
        record['updatedAt'] = next(_clock)
        return Reply(200, dict(self._public(record), domain=record['domain']))

    def delete_record(self, req, domain, rid):
        record = self.records.get(rid)
        if record is None or record['domain'] != domain:
            return error(404, 'not_found', 'The DNS record was not found')
        del self.records[rid]
        return Reply(200, {})

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _invalid(rtype, body):
        """The 400 of a value not of the type, a TTL under 60 or a comment too long; else None."""
        try:
            if rtype in FAMILIES:
                FAMILIES[rtype](body.get('value'))
        except (TypeError, ValueError):
            return error(400, 'invalid_value', 'Invalid value for %s record: %r' % (rtype, body.get('value')))
        ttl = body.get('ttl', 60)
        if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 60):
            return error(400, 'invalid_value', 'ttl should be >= 60')
        if len(body.get('comment') or '') > 500:
            return error(400, 'invalid_value', 'comment should NOT be longer than 500 characters')
        return None

    @staticmethod
    def _page(req, items):
        """(a page of items, newest first, and its pagination): limit (20 by default), from those
        created before until; next is the last one's createdAt when more follow."""
        limit = int(req.query.get('limit') or 20)
        until = req.query.get('until')
        if until:
            items = [i for i in items if i['createdAt'] < int(until)]
        shown = items[:limit]
        more = len(items) > limit
        return shown, {'count': len(shown), 'next': shown[-1]['createdAt'] if more else None,
                       'prev': shown[0]['createdAt'] if shown else None}

    @staticmethod
    def _public(record):
        """A record as the API lists it: its name relative to the domain, "" the apex."""
        domain, name = record['domain'], record['name']
        return {'id': record['id'], 'slug': '%s-%s' % (domain, record['type']), 'name': '' if name == domain else
                name[:-len(domain) - 1], 'type': record['type'], 'value': record['content'], 'ttl': record['ttl'],
                'comment': record['comment'], 'creator': 'ddkit-test', 'created': record['createdAt'],
                'createdAt': record['createdAt'], 'updatedAt': record['updatedAt']}
