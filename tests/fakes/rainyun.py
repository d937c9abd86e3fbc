"""Fake Rainyun 雨云 API v2 (products: domains and their DNS records): API keys, domains by numeric id,
their records on lines.

As jeessy2/ddns-go's dns/rainyun.go uses it: every call carries `x-api-key`; GET /product/domain/
(list_zones: the account's domains, paged by the `options` JSON's page and perPage: {"TotalRecords",
"Records": [{"id", "domain", ...}]}), GET /product/domain/<id>/dns/?limit=&page_no= (list_records:
{"TotalRecords", "Records": [{"record_id", "host", "type", "value", "line", "ttl", "level"}]}), POST
/product/domain/<id>/dns (create_record: host, line, level, ttl, type, value, record_id 0), PATCH of it
(update_record: the same with the record's record_id). Answers are {"code", "message", "data"} in
UTF-8, code 200 success. The error codes are not published: the fake answers a key it does not know
with HTTP 401 and code 401, a bad request with 400, a domain or record not found with 404 (HTTP 200).
Where the documents are silent the fake takes the strictest reading: a create's answer carries no id,
and a PATCH replaces the record, so what it does not send (the TTL, the line, the level) goes back to
the default.
"""

import ipaddress
import itertools
import json

from fakes.base import FakeServer, RecordStore, Reply

FIELDS = {'host', 'line', 'level', 'ttl', 'type', 'value', 'record_id'}
LINES = ('DEFAULT', 'LTEL', 'LCNC', 'LMOB', 'LEDU', 'LSEO', 'LFOR')
_ids = itertools.count(1)


def answer(code=200, data=None, message='OK', status=200):
    body = {'code': code, 'message': message}
    if data is not None:
        body['data'] = data
    return Reply(status, text=json.dumps(body, ensure_ascii=False).encode('utf-8'),
                 headers={'Content-Type': 'application/json; charset=utf-8'})


class Rainyun(RecordStore, FakeServer):
    PROVIDER, LETTER = 'rainyun', 'rainyun'   # the registry's provider it plays
    LINE = 'line'

    def __init__(self, api_key='Xk29example0api0key0123456789ab', tls_cert=None):
        super().__init__(tls_cert)
        self.api_key = api_key
        self.keys = {api_key}
        self.domains = {}         # id (text) -> domain object
        self.records = {}         # id (text) -> record ('name' and 'content': what the tests read and set)
        self.route('list_zones', 'GET', '/product/domain/', self.list_zones, guard=self._auth)
        self.route('list_records', 'GET', r'/product/domain/([^/]+)/dns/', self.list_records, guard=self._domain)
        self.route('create_record', 'POST', r'/product/domain/([^/]+)/dns', self.create_record, guard=self._domain)
        self.route('update_record', 'PATCH', r'/product/domain/([^/]+)/dns', self.update_record, guard=self._domain)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_KEY': self.api_key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        zid = str(next(_ids) + 21000)
        self.domains[zid] = {'id': int(zid), 'domain': name, 'status': 'active', 'exp_date': 1798761600}
        return zid

    def add_record(self, zone_id, name, rtype, content, ttl=600, line='DEFAULT', level=10):
        rid = str(next(_ids) + 3150000)
        self.records[rid] = {'id': rid, 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'line': line, 'level': level}
        return rid

    # --- guards --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        if req.headers.get('x-api-key') not in self.keys:
            return answer(401, message='API 密钥无效', status=401)
        return None

    def _domain(self, req, zid):
        return self._auth(req) or (None if zid in self.domains else answer(404, message='域名不存在'))

    # --- calls ---------------------------------------------------------------------------------
    def list_zones(self, req):
        try:
            options = json.loads(req.query.get('options', '{}'))
            page, per = int(options.get('page', 1)), int(options.get('perPage', 20))
        except (ValueError, TypeError, AttributeError):
            return answer(400, message='参数错误')
        if page < 1 or not 1 <= per <= 100:
            return answer(400, message='参数错误')
        held = [dict(d) for zid, d in sorted(self.domains.items())]
        return answer(data={'TotalRecords': len(held), 'Records': held[(page - 1) * per:page * per]})

    def list_records(self, req, zid):
        try:
            limit, page = int(req.query['limit']), int(req.query['page_no'])
        except (KeyError, ValueError):
            return answer(400, message='参数错误')
        if page < 1 or not 1 <= limit <= 500:
            return answer(400, message='参数错误')
        held = [self._public(r) for rid, r in sorted(self.records.items()) if r['domain'] == zid]
        return answer(data={'TotalRecords': len(held), 'Records': held[(page - 1) * limit:page * limit]})

    def create_record(self, req, zid):
        body = req.json if isinstance(req.json, dict) else {}
        refused = self._refused(body)
        if refused:
            return refused
        if body.get('record_id') not in (0, None):
            return answer(400, message='参数错误')
        name = self._name(zid, body['host'])
        self.add_record(zid, name, body['type'], body['value'], body.get('ttl', 600), body.get('line', 'DEFAULT'),
                        body.get('level', 10))
        return answer()

    def update_record(self, req, zid):
        """A PATCH replaces the record: a field it does not send goes back to its default."""
        body = req.json if isinstance(req.json, dict) else {}
        refused = self._refused(body)
        if refused:
            return refused
        held = self.records.get(str(body.get('record_id')))
        if held is None or held['domain'] != zid or not isinstance(body.get('record_id'), int):
            return answer(404, message='记录不存在')
        held.update(name=self._name(zid, body['host']), type=body['type'], content=body['value'],
                    ttl=body.get('ttl', 600), line=body.get('line', 'DEFAULT'), level=body.get('level', 10))
        return answer()

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _refused(body):
        """The answer refusing a create's or an update's body, or None."""
        if set(body) - FIELDS or not isinstance(body.get('host'), str) or body.get('type') not in ('A', 'AAAA', 'TXT') \
                or body.get('line', 'DEFAULT') not in LINES:
            return answer(400, message='参数错误')
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(body['type'])
        try:
            if family:
                family(body.get('value'))
        except (TypeError, ValueError):
            return answer(400, message='解析值不合法')
        for key, low, high in (('ttl', 60, 86400), ('level', 1, 100)):
            value = body.get(key, low)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                return answer(400, message='%s 不合法' % key)
        return None

    def _name(self, zid, host):
        domain = self.domains[zid]['domain']
        return domain if host.lower() in ('@', '') else '%s.%s' % (host.lower(), domain)

    def _public(self, record):
        """A record as the listing shows it: its host relative to the domain, '@' the apex."""
        domain = self.domains[record['domain']]['domain']
        host = '@' if record['name'] == domain else record['name'][:-len(domain) - 1]
        return {'record_id': int(record['id']), 'host': host, 'type': record['type'], 'value': record['content'],
                'line': record['line'], 'ttl': record['ttl'], 'level': record['level']}
