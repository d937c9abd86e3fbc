"""Fake deSEC (API v1): tokens with scoping policies, domains with their minimum TTL, RRsets.

As the reference (desec-stack docs/dns/*.rst, auth/tokens.rst, rate-limits.rst) gives them: every
path ends with "/"; GET /api/v1/domains/ (list_zones; ?owns_qname=), GET /domains/<name>/
(get_zone: minimum_ttl), GET /domains/<name>/rrsets/ (list_records), POST and bulk PATCH of a list
on rrsets/ (create_record: the provider creates with the bulk PATCH, which makes or changes each
RRset), GET, PATCH, PUT and DELETE of /domains/<name>/rrsets/<subname or @>/<type>/ (get_record,
update_record, put_record, delete_record). A PATCH changes only the fields it sends; records []
deletes (204); DELETE of an RRset that is not there is 204 too. Values are kept canonical (IPv6
compressed); a TTL below the domain's minimum_ttl or above 604800 is 400 with the field's message.
The token is `Authorization: Token <token>`: an unknown one 401 {"detail": "Invalid token."}; a
write its policies do not allow, 403. Throttling (429 with Retry-After) is FakeServer.fail's
'status' fault. A domain the account does not own, or an RRset that is not there: 404 {"detail":
"Not found."}.
"""

import ipaddress
import time

from fakes.base import FakeServer, Reply

API = '/api/v1'
DOMAIN = API + r'/domains/([^/]+)/'
RRSETS = DOMAIN + 'rrsets/'
RRSET = RRSETS + r'([^/]+)/([^/]+)/'
MAX_TTL = 604800
NOT_FOUND = {'detail': 'Not found.'}


def stamp():
    return time.strftime('%Y-%m-%dT%H:%M:%S.000000Z', time.gmtime())


class Desec(FakeServer):
    PROVIDER, LETTER = 'desec', 'desec'   # the registry's provider it plays; the sandbox's provider_desec

    def __init__(self, token='4pnk7u-NHvrEkFzrhFDRTjGFyX_S', tls_cert=None):
        super().__init__(tls_cert)
        self.token = token
        # token -> its policies: None (unrestricted), else [(domain, subname, type, perm_write)], the
        # default policy being (None, None, None, perm_write)
        self.tokens = {token: None}
        self.domains = {}       # name -> domain object
        self.rrsets = {}        # '<domain>/<subname>/<type>' -> RRset ('name': full, with the dot)
        self.route('list_zones', 'GET', API + '/domains/', self.list_zones, guard=self._auth)
        self.route('get_zone', 'GET', DOMAIN, self.get_zone, guard=self._domain)
        self.route('list_records', 'GET', RRSETS, self.list_records, guard=self._domain)
        self.route('create_record', 'POST', RRSETS, self.post_rrsets, guard=self._domain)
        self.route('create_record', 'PATCH', RRSETS, self.bulk_patch, guard=self._domain)
        self.route('get_record', 'GET', RRSET, self.get_record, guard=self._domain)
        self.route('update_record', 'PATCH', RRSET, self.patch_record, guard=self._domain)
        self.route('put_record', 'PUT', RRSET, self.put_record, guard=self._domain)
        self.route('delete_record', 'DELETE', RRSET, self.delete_record, guard=self._domain)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, minimum_ttl=3600):
        self.domains[name] = {'created': stamp(), 'minimum_ttl': minimum_ttl, 'name': name, 'published': stamp(),
                              'touched': stamp(), 'keys': [{'dnskey': '257 3 13 WFRl60...', 'ds': ['6006 13 2 f34b75'],
                                                            'flags': 257, 'keytype': 'csk'}]}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=3600):
        """An RRset of these addresses (content: one, or a list); its id in the tool's ids file is its name."""
        sub = '' if name == zone_id else name[:-len(zone_id) - 1]
        self._store(zone_id, sub, rtype, ttl, list(content) if isinstance(content, (list, tuple)) else [content])
        return name

    def find(self, name, rtype='A'):
        """The RRsets named so (what a test asserts on)."""
        return [r for r in self.rrsets.values() if r['name'] == name.rstrip('.') + '.' and r['type'] == rtype]

    def by_line(self, name, rtype='A'):
        """{None: sorted addresses}: no lines, every address is a record of the RRset."""
        return {None: sorted(a for r in self.find(name, rtype) for a in r['records'])}

    def restrict(self, token, *policies):
        """Give a token policies: (domain, subname, type, perm_write), the first the default one."""
        self.tokens[token] = list(policies)

    # --- checks --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        scheme, _, token = req.headers.get('authorization', '').partition(' ')
        if not scheme:
            return Reply(401, {'detail': 'Authentication credentials were not provided.'})
        if scheme != 'Token' or token not in self.tokens:
            return Reply(401, {'detail': 'Invalid token.'})
        req.token = token
        return None

    def _domain(self, req, name, *rest):
        return self._auth(req) or (None if name in self.domains else Reply(404, NOT_FOUND))

    def _may_write(self, req, domain, sub, rtype):
        """The token's policy for this RRset (longest match of domain, subname, type) allows writing."""
        policies = self.tokens[req.token]
        if policies is None:
            return True
        best = None
        for d, s, t, write in policies:
            if d not in (None, domain) or s not in (None, sub) or t not in (None, rtype):
                continue
            rank = (d is not None, s is not None, t is not None)
            if best is None or rank > best[0]:
                best = (rank, write)
        return bool(best and best[1])

    def _forbidden(self):
        return Reply(403, {'detail': 'Insufficient token permissions.'})

    @staticmethod
    def _sub(part):
        return '' if part == '@' else part[:-3] if part.endswith('...') else part

    def _public(self, rrset):
        return {k: rrset[k] for k in ('created', 'domain', 'subname', 'name', 'type', 'records', 'ttl', 'touched')}

    def _store(self, domain, sub, rtype, ttl, records):
        key = '%s/%s/%s' % (domain, sub, rtype)
        old = self.rrsets.get(key)
        self.rrsets[key] = {'created': old['created'] if old else stamp(), 'domain': domain, 'subname': sub,
                            'name': '%s%s.' % (sub + '.' if sub else '', domain), 'type': rtype, 'records': records,
                            'ttl': ttl, 'touched': stamp()}
        return self.rrsets[key]

    def _valid(self, domain, rtype, ttl, records):
        """{field: [messages]} of what the API refuses in an RRset's fields ({} when none); the
        records made canonical."""
        errors = {}
        if rtype not in ('A', 'AAAA') and rtype != rtype.upper():
            errors['type'] = ['Type must be uppercase.']
        minimum = self.domains[domain]['minimum_ttl']
        if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < minimum):
            errors['ttl'] = ['Ensure this value is greater than or equal to %d.' % minimum]
        elif ttl is not None and ttl > MAX_TTL:
            errors['ttl'] = ['Ensure this value is less than or equal to %d.' % MAX_TTL]
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        if records is not None:
            if not isinstance(records, list):
                errors['records'] = ['Expected a list of items.']
            else:
                try:
                    records[:] = [str(family(r)) if family else r for r in records]
                except (TypeError, ValueError) as e:
                    errors['records'] = ['Record content malformed: %s' % e]
        return errors

    # --- handlers ------------------------------------------------------------------------------
    def list_zones(self, req):
        names = sorted(self.domains, key=lambda n: self.domains[n]['created'], reverse=True)
        qname = req.query.get('owns_qname')
        if qname is not None:
            owning = [n for n in names if qname.rstrip('.') == n or qname.rstrip('.').endswith('.' + n)]
            names = sorted(owning, key=len, reverse=True)[:1]
        return Reply(200, [{k: v for k, v in self.domains[n].items() if k != 'keys'} for n in names])

    def get_zone(self, req, name):
        return Reply(200, self.domains[name])

    def list_records(self, req, name):
        found = [self._public(r) for r in self.rrsets.values() if r['domain'] == name
                 and req.query.get('type', r['type']) == r['type']
                 and req.query.get('subname', r['subname']) == r['subname']]
        return Reply(200, found)

    def get_record(self, req, name, sub, rtype):
        rrset = self.rrsets.get('%s/%s/%s' % (name, self._sub(sub), rtype))
        return Reply(200, self._public(rrset)) if rrset else Reply(404, NOT_FOUND)

    def patch_record(self, req, name, sub, rtype):
        """PATCH: only the fields sent change (records and ttl); records [] deletes."""
        sub = self._sub(sub)
        rrset = self.rrsets.get('%s/%s/%s' % (name, sub, rtype))
        if rrset is None:
            return Reply(404, NOT_FOUND)
        if not self._may_write(req, name, sub, rtype):
            return self._forbidden()
        body = req.json if isinstance(req.json, dict) else {}
        unknown = set(body) - {'records', 'ttl', 'subname', 'type'}
        errors = self._valid(name, rtype, body.get('ttl'), body.get('records')) if not unknown else \
            {k: ['Unknown field.'] for k in unknown}
        if errors:
            return Reply(400, errors)
        if body.get('records') == []:
            del self.rrsets['%s/%s/%s' % (name, sub, rtype)]
            return Reply(204, text='')
        stored = self._store(name, sub, rtype, body.get('ttl', rrset['ttl']), body.get('records', rrset['records']))
        return Reply(200, self._public(stored))

    def put_record(self, req, name, sub, rtype):
        body = req.json if isinstance(req.json, dict) else {}
        if not {'ttl', 'records', 'type'} <= set(body):
            return Reply(400, {k: ['This field is required.'] for k in {'ttl', 'records', 'type'} - set(body)})
        return self.patch_record(req, name, sub, rtype)

    def delete_record(self, req, name, sub, rtype):
        sub = self._sub(sub)
        if not self._may_write(req, name, sub, rtype):
            return self._forbidden()
        self.rrsets.pop('%s/%s/%s' % (name, sub, rtype), None)
        return Reply(204, text='')   # also when it did not exist

    def post_rrsets(self, req, name):
        items = req.json if isinstance(req.json, list) else [req.json]
        return self._bulk(req, name, items, create_only=True)

    def bulk_patch(self, req, name):
        if not isinstance(req.json, list):
            return Reply(400, {'non_field_errors': ['Expected a list of items.']})
        return self._bulk(req, name, req.json)

    def _bulk(self, req, name, items, create_only=False):
        """Each RRset made or changed, all or none (the stage-1 errors a list, one object an item)."""
        errors, todo = [], []
        for item in items:
            item = item if isinstance(item, dict) else {}
            sub, rtype = item.get('subname', ''), item.get('type')
            key = '%s/%s/%s' % (name, sub, rtype)
            exists = key in self.rrsets
            error = self._valid(name, rtype or '', item.get('ttl'), item.get('records'))
            if not rtype:
                error['type'] = ['This field is required.']
            if create_only and exists:
                error['non_field_errors'] = ['Another RRset with the same subdomain and type exists for this domain.']
            if not exists and (item.get('ttl') is None or item.get('records') is None):
                error.update({k: ['This field is required.'] for k in ('ttl', 'records') if item.get(k) is None})
            if rtype and not self._may_write(req, name, sub, rtype):
                return self._forbidden()
            errors.append(error)
            todo.append((key, sub, rtype, item, exists))
        if any(errors):
            return Reply(400, errors if len(items) > 1 or not create_only else errors[0])
        done = []
        for key, sub, rtype, item, exists in todo:
            if item.get('records') == []:
                self.rrsets.pop(key, None)
                continue
            old = self.rrsets.get(key, {})
            done.append(self._public(self._store(name, sub, rtype, item.get('ttl', old.get('ttl')),
                                                 item.get('records', old.get('records')))))
        if create_only:
            return Reply(201, done if len(items) > 1 or isinstance(req.json, list) else done[0])
        return Reply(200, done)
