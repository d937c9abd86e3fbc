"""Fake DNS.LA API v2: API IDs with their secrets, domains (by id and name) and their records on lines.

As jeessy2/ddns-go's dns/dnsla.go and acme.sh's dnsapi/dns_la.sh use it, in the lower camel case of
the documents' own spelling: every call carries `Authorization: Basic base64(APIID:APISecret)`; GET
/api/domain?domain=<name> (get_zone: {"id", "domain"}), GET /api/recordList?domainId=&host=&type=
&pageIndex=&pageSize= (list_records: {"total", "results": [{"id", "domainId", "host", "type", "data",
"ttl", "lineId", ...}]}), POST /api/record (create_record: {domainId or domain, host, type, data,
ttl?} -> {"id"}), PUT /api/record (update_record: {id, host, type, data, ttl?}). A record's type is a
number (A 1, AAAA 28), its id a string, its line a lineId ('' the default). Answers are {"code",
"msg", "data"} in UTF-8, code 200 success. The error codes are not published: the fake says 401 with
HTTP 401 for a key it does not know, and with HTTP 200 400 for a bad request or a conflict ("与已有记录
冲突"), 404 for a domain or record not found. Where the documents are silent the fake takes the
strictest reading: a PUT replaces the record, so what it does not send (the TTL, the line, the weight)
goes back to the default.
"""

import base64
import ipaddress
import itertools
import json

from fakes.base import FakeServer, RecordStore, Reply

TYPES = {1: 'A', 28: 'AAAA', 5: 'CNAME', 15: 'MX', 16: 'TXT', 2: 'NS'}
NUMBERS = {name: number for number, name in TYPES.items()}
FIELDS = {'create_record': {'domainId', 'domain', 'host', 'type', 'data', 'ttl', 'lineId', 'weight'},
          'update_record': {'id', 'host', 'type', 'data', 'ttl', 'lineId', 'weight'}}
_ids = itertools.count(1)


def answer(code=200, data=None, msg='', status=200):
    return Reply(status, text=json.dumps({'code': code, 'msg': msg, 'data': data}, ensure_ascii=False).encode('utf-8'),
                 headers={'Content-Type': 'application/json; charset=utf-8'})


class Dnsla(RecordStore, FakeServer):
    PROVIDER, LETTER = 'dnsla', 'dnsla'   # the registry's provider it plays

    def __init__(self, api_id='dnslaExampleId0001', api_secret='dnsla-example-secret-0123456789', tls_cert=None):
        super().__init__(tls_cert)
        self.api_id, self.api_secret = api_id, api_secret
        self.keys = {api_id: api_secret}
        self.domains = {}         # id -> domain object
        self.records = {}         # id -> record ('name' and 'content': what the tests read and set)
        self.route('get_zone', 'GET', '/api/domain', self.get_zone, guard=self._auth)
        self.route('list_records', 'GET', '/api/recordList', self.list_records, guard=self._auth)
        self.route('create_record', 'POST', '/api/record', self.create_record, guard=self._auth)
        self.route('update_record', 'PUT', '/api/record', self.update_record, guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_ID': self.api_id, 'DDNS_API_SECRET': self.api_secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        zid = '%d' % (next(_ids) + 8841000000000)
        self.domains[zid] = {'id': zid, 'domain': name, 'state': 1, 'groupId': ''}
        return zid

    def add_record(self, zone_id, name, rtype, content, ttl=600, line='', weight=1):
        rid = '%d' % (next(_ids) + 49226900000000000)
        self.records[rid] = {'id': rid, 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'line': line, 'weight': weight}
        return rid

    # --- guard ---------------------------------------------------------------------------------
    def _auth(self, req):
        scheme, _, token = req.headers.get('authorization', '').partition(' ')
        try:
            api_id, _, secret = base64.b64decode(token, validate=True).decode('utf-8').partition(':')
        except ValueError:
            api_id = secret = None
        if scheme != 'Basic' or api_id not in self.keys or self.keys[api_id] != secret:
            return answer(401, msg='认证失败', status=401)
        return None

    # --- calls ---------------------------------------------------------------------------------
    def get_zone(self, req):
        name = req.query.get('domain', '').lower().rstrip('.')
        found = [d for d in self.domains.values() if d['domain'] == name]
        return answer(data=dict(found[0])) if found else answer(404, msg='域名不存在')

    def list_records(self, req):
        q = req.query
        zid = q.get('domainId') or self._by_name(q.get('domain', ''))
        if zid not in self.domains:
            return answer(404, msg='域名不存在')
        try:
            index, size = int(q['pageIndex']), int(q['pageSize'])
            rtype = TYPES[int(q['type'])] if q.get('type') else None
        except (KeyError, ValueError):
            return answer(400, msg='参数错误')
        if index < 1 or not 1 <= size <= 999:
            return answer(400, msg='参数错误')
        held = [self._public(r) for r in self.records.values() if r['domain'] == zid
                and q.get('host', '').lower() in ('', self._host(r)) and rtype in (None, r['type'])]
        return answer(data={'total': len(held), 'results': held[(index - 1) * size:index * size]})

    def create_record(self, req):
        body = req.json if isinstance(req.json, dict) else {}
        refused = self._refused(body, 'create_record')
        if refused:
            return refused
        zid = body.get('domainId') or self._by_name(body.get('domain', ''))
        if zid not in self.domains:
            return answer(404, msg='域名不存在')
        sub, rtype = (body.get('host') or '@').lower(), TYPES[body['type']]
        name = self.domains[zid]['domain'] if sub == '@' else '%s.%s' % (sub, self.domains[zid]['domain'])
        line = str(body.get('lineId') or '')
        if any(r['name'] == name and r['type'] == rtype and r['content'] == body['data'] and r['line'] == line
               for r in self.records.values()):
            return answer(400, msg='与已有记录冲突')
        rid = self.add_record(zid, name, rtype, body['data'], body.get('ttl', 600), line, body.get('weight', 1))
        return answer(data={'id': rid})

    def update_record(self, req):
        """A PUT replaces the record: a field it does not send goes back to its default."""
        body = req.json if isinstance(req.json, dict) else {}
        refused = self._refused(body, 'update_record')
        if refused:
            return refused
        held = self.records.get(str(body.get('id')))
        if held is None:
            return answer(404, msg='记录不存在')
        if TYPES[body['type']] != held['type']:
            return answer(400, msg='参数错误')
        sub = (body.get('host') or '@').lower()
        domain = self.domains[held['domain']]['domain']
        held.update(name=domain if sub == '@' else '%s.%s' % (sub, domain), content=body['data'],
                    ttl=body.get('ttl', 600), line=str(body.get('lineId') or ''), weight=body.get('weight', 1))
        return answer()

    # --- helpers -------------------------------------------------------------------------------
    def _refused(self, body, call):
        """The answer refusing a create's or an update's body (keys of other case, a type that is no
        number, an address of the wrong family, a bad TTL), or None."""
        if set(body) - FIELDS[call] or not isinstance(body.get('type'), int) or body['type'] not in TYPES:
            return answer(400, msg='参数错误')
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(TYPES[body['type']])
        try:
            if family:
                family(body.get('data'))
        except (TypeError, ValueError):
            return answer(400, msg='记录值不合法')
        ttl = body.get('ttl', 600)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or not 1 <= ttl <= 86400:
            return answer(400, msg='TTL不合法')
        return None

    def _by_name(self, name):
        found = [zid for zid, d in self.domains.items() if d['domain'] == name.lower().rstrip('.')]
        return found[0] if found else None

    def _host(self, record):
        name, domain = record['name'], self.domains[record['domain']]['domain']
        return '@' if name == domain else name[:-len(domain) - 1]

    def _public(self, record):
        """A record as recordList shows it."""
        return {'id': record['id'], 'domainId': record['domain'], 'host': self._host(record),
                'type': NUMBERS[record['type']], 'data': record['content'], 'ttl': record['ttl'],
                'lineId': record['line'], 'weight': record['weight'], 'preference': 0, 'disable': False}
