"""Fake West.cn 西部数码 (API v2, domain DNS): an account (user name, API password, IP whitelist), its
domains and their records on resolution lines.

Every call is one path, /api/v2/domain/, its action named by the `act` parameter (in the query, or
in the form): each action is a named route here (list_zones getdomains, list_records getdnsrecord,
create_record adddnsrecord, update_record moddnsrecord, delete_record deldnsrecord; the request log's
path shows the action). Each call must carry username, time (milliseconds) and token =
md5(username + api_password + time), the time within ten minutes of the server's clock, as the API
documents; answers are {"result", "clientid", "data", "msg", "errcode"} encoded in GBK (a test reading
them as UTF-8 would fail on the Chinese messages). The error codes are those the clients cite from the
documentation: 10000/10001 authentication, 10002 caller IP not allowed, 20001 domain not in the
account, 20118 record exists, 20120 record not found. Where the documentation is silent the fake takes
the strictest reading: a moddnsrecord that leaves out ttl, level or line resets them (600, 10, the
default line), so a client that does not send them back is caught.
"""

import hashlib
import io
import ipaddress
import itertools
import json
import time
import uuid
from urllib.parse import parse_qs, quote, urlsplit

from fakes.base import FakeServer, Reply

PATH = '/api/v2/domain/'
ACTS = {'getdomains': 'list_zones', 'getdnsrecord': 'list_records', 'adddnsrecord': 'create_record',
        'moddnsrecord': 'update_record', 'deldnsrecord': 'delete_record'}
TOKEN_LIFE = 600            # seconds a token (its time) is good for
# the resolution line codes: '' is the default line
LINES = ('', 'LTEL', 'LCNC', 'LMOB', 'LEDU', 'LSEO', 'LFOR')
LINE_NAMES = {'': 'default'}   # by_line's name of a code: the provider's LINES name ('default' for '')
MESSAGES = {10000: '身份验证失败，用户名不存在', 10001: '身份验证失败，token错误或已过期', 10002: 'IP地址未授权访问API',
            20001: '域名不存在或不属于您', 20118: '解析记录已存在', 20120: '解析记录不存在', 20000: '参数错误'}
_ids = itertools.count(1)


def token(username, password, millis):
    return hashlib.md5((username + password + str(millis)).encode('utf-8')).hexdigest()


class WestCn(FakeServer):
    PROVIDER, LETTER = 'westcn', 'westcn'   # the registry's provider it plays; the sandbox's provider_westcn

    def __init__(self, username='ddkituser', api_password='west-api-password-0123', tls_cert=None):
        super().__init__(tls_cert)
        self.username, self.api_password = username, api_password
        self.users = {username: api_password}
        self.whitelist = None     # the account's API IP whitelist (None: any caller)
        self.domains = {}         # domain name -> domain object
        self.records = {}         # id (text) -> record ('name' and 'content': what the tests read and set)
        self.empty_as_error = None   # an errcode (30001) a listing of nothing is answered with, as some versions do
        self.tokens = []          # (act, the token sent, the one expected) of every call checked
        for act, name in ACTS.items():
            self.route(name, 'POST', '/' + act, getattr(self, name), guard=self._auth)
            self.route(name, 'GET', '/' + act, getattr(self, name), guard=self._auth)
        for method in ('GET', 'POST'):
            self.route('unknown_act', method, '/[^/]*', self.unknown, guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_USERNAME': self.username, 'DDNS_API_PASSWORD': self.api_password, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A domain of the account; its id in the API's calls is its name."""
        self.domains[name] = {'domain': name, 'regdate': '2024-01-02', 'rexpiredate': '2027-01-02'}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=600, line='', level=10, pause=0):
        rid = str(next(_ids) + 86000000)
        self.records[rid] = {'id': rid, 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'line': line, 'level': level, 'pause': pause}
        return rid

    def find(self, name, rtype='A'):
        """The records named so (what a test asserts on)."""
        return [r for r in self.records.values() if r['name'] == name and r['type'] == rtype]

    def by_line(self, name, rtype='A'):
        """{line name: sorted values} of the records of this name and type, each line by the
        provider's name of it ('default' for the default line's empty code)."""
        held = {}
        for r in self.find(name, rtype):
            held.setdefault(LINE_NAMES.get(r['line'], r['line']), []).append(r['content'])
        return {line: sorted(values) for line, values in held.items()}

    # --- routing -------------------------------------------------------------------------------
    def _dispatch(self, h):
        # one path for every action: its act, in the query or the form, names the route (the log shows
        # it as the path)
        split = urlsplit(h.path)
        if split.path != PATH:
            return super()._dispatch(h)
        act = parse_qs(split.query).get('act', [''])[0]
        stream = h.rfile
        if not act:   # read the form here, and hand it on as if unread
            length = int(h.headers.get('Content-Length') or 0)
            body = stream.read(length) if length else b''
            h.rfile = io.BytesIO(body)
            act = parse_qs(body.decode('gbk', 'replace')).get('act', [''])[0]
        h.path = '/%s?%s' % (quote(act, safe=''), split.query)
        try:
            return super()._dispatch(h)
        finally:
            h.rfile = stream   # the connection's next request comes from it

    @staticmethod
    def params(req):
        """The request's parameters: its query and its form (the API reads both; a form as GBK)."""
        found = dict(req.query)
        if req.body:
            found.update({k: v[0] for k, v in parse_qs(req.body.decode('gbk'), keep_blank_values=True,
                                                       encoding='gbk').items()})
        return found

    def answer(self, data, result=200, errcode=0, msg=''):
        body = {'result': result, 'clientid': uuid.uuid4().hex[:16], 'data': data, 'msg': msg, 'errcode': errcode}
        return Reply(200, text=json.dumps(body, ensure_ascii=False).encode('gbk'),
                     headers={'Content-Type': 'application/json; charset=gbk'})

    def error(self, errcode, msg=None):
        return self.answer({}, 500, errcode, msg or MESSAGES.get(errcode, '操作失败'))

    def _auth(self, req):
        """The API's checks, in order: the user, the token and its time, the caller's IP."""
        p = self.params(req)
        password = self.users.get(p.get('username', ''))
        if password is None:
            return self.error(10000)
        try:
            millis = int(p.get('time', ''))
        except ValueError:
            return self.error(10001)
        expected = token(p['username'], password, millis)
        with self.lock:
            self.tokens.append((req.path.strip('/'), p.get('token'), expected))
        if p.get('token') != expected or abs(millis / 1000 - (time.time() + self.clock_offset)) > TOKEN_LIFE:
            return self.error(10001)
        if self.whitelist is not None and req.client not in self.whitelist:
            return self.error(10002)
        return None

    # --- actions -------------------------------------------------------------------------------
    def unknown(self, req):
        return self.error(20000, '未知的act')

    def list_zones(self, req):
        p = self.params(req)
        page, limit = self._int(p, 'page', 1), self._int(p, 'limit', 10)
        if page is None or limit is None or page < 1 or not 1 <= limit <= 1000:
            return self.error(20000)
        names = sorted(self.domains)
        shown = names[(page - 1) * limit:page * limit]
        return self.answer({'total': len(names), 'page': page, 'limit': limit,
                            'items': [dict(self.domains[n]) for n in shown]})

    def list_records(self, req):
        p = self.params(req)
        domain = p.get('domain', '').lower()
        if domain not in self.domains:
            return self.error(20001)
        page, limit = self._int(p, 'pageno', 1), self._int(p, 'limit', 10)
        if page is None or limit is None or page < 1 or not 1 <= limit <= 1000:
            return self.error(20000)
        found = [self._public(r) for r in self.records.values() if r['domain'] == domain
                 and p.get('host', '').lower() in ('', self._host(r)) and p.get('type', '').upper() in ('', r['type'])
                 and p.get('line', '') in ('', r['line']) and p.get('value', '') in ('', r['content'])]
        if not found and self.empty_as_error:
            return self.error(self.empty_as_error, '没有找到解析记录')
        shown = found[(page - 1) * limit:page * limit]
        return self.answer({'pageno': page, 'limit': limit, 'total': len(found),
                            'totalpages': max(1, -(-len(found) // limit)), 'items': shown})

    def create_record(self, req):
        p = self.params(req)
        domain = p.get('domain', '').lower()
        if domain not in self.domains:
            return self.error(20001)
        if not all(p.get(name) for name in ('host', 'type', 'value')):
            return self.error(20000)
        record = {'host': p['host'].lower(), 'type': p['type'].upper(), 'value': p['value'],
                  'ttl': self._int(p, 'ttl', 600), 'level': self._int(p, 'level', 10), 'line': p.get('line', '')}
        refused = self._invalid(record) or self._clash(domain, record)
        if refused:
            return refused
        name = domain if record['host'] == '@' else '%s.%s' % (record['host'], domain)
        rid = self.add_record(domain, name, record['type'], record['value'], record['ttl'], record['line'],
                              record['level'])
        return self.answer({'id': int(rid)})

    def update_record(self, req):
        p = self.params(req)
        held = self.records.get(p.get('id', ''))
        if held is None or held['domain'] != p.get('domain', '').lower():
            return self.error(20120)
        if not p.get('value'):
            return self.error(20000)
        # what is left out is reset: the strictest reading of "optional"
        record = {'host': self._host(held), 'type': p.get('type', held['type']).upper(), 'value': p['value'],
                  'ttl': self._int(p, 'ttl', 600), 'level': self._int(p, 'level', 10), 'line': p.get('line', '')}
        refused = self._invalid(record) or self._clash(held['domain'], record, ignore=held)
        if refused:
            return refused
        held.update(type=record['type'], content=record['value'], ttl=record['ttl'], level=record['level'],
                    line=record['line'])
        return self.answer({'id': int(held['id'])})

    def delete_record(self, req):
        p = self.params(req)
        held = self.records.get(p.get('id', ''))
        if held is None or held['domain'] != p.get('domain', '').lower():
            return self.error(20120)
        del self.records[held['id']]
        return self.answer({})

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _int(p, name, default):
        try:
            return int(p.get(name, default))
        except ValueError:
            return None

    @staticmethod
    def _host(record):
        name, domain = record['name'], record['domain']
        return '@' if name == domain else name[:-len(domain) - 1]

    def _public(self, record):
        """A record as getdnsrecord shows it."""
        return {'id': int(record['id']), 'item': self._host(record), 'value': record['content'],
                'type': record['type'], 'ttl': record['ttl'], 'line': record['line'], 'level': record['level'],
                'pause': record['pause']}

    def _invalid(self, record):
        """An answer refusing a value that is no address of its family, a TTL out of 60..86400 or an
        unknown line, else None."""
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(record['type'])
        try:
            if family:
                family(record['value'])
        except ValueError:
            return self.error(20000, '解析记录值错误')
        if record['ttl'] is None or not 60 <= record['ttl'] <= 86400 or record['level'] is None:
            return self.error(20000, 'TTL错误')
        if record['line'] not in LINES:
            return self.error(20000, '线路错误')
        return None

    def _clash(self, domain, record, ignore=None):
        """An answer refusing a record identical to another of the domain, else None."""
        for other in self.records.values():
            if other is not ignore and other['domain'] == domain and self._host(other) == record['host'] \
                    and other['type'] == record['type'] and other['line'] == record['line'] \
                    and other['content'] == record['value']:
                return self.error(20118)
        return None
