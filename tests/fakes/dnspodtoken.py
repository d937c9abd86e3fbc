"""Fake DNSPod token API (dnsapi.cn, and api.dnspod.com with international=True): DNSPod Tokens of the
main account (ID and token), its domains and their records on lines.

Every call is a POST of a form to /<Action> (Domain.List, Record.List, Record.Create, Record.Modify,
Record.Remove: named routes list_zones, list_records, create_record, update_record, delete_record),
carrying login_token=<ID>,<Token> and format=json; anything but POST is answered code 2, and a call
without format=json gets XML (the API's default). Answers are {"status": {"code", "message",
"created_at"}, ...} with the code a string, "1" success, in UTF-8, the message in English unless
lang=cn. The codes are the documented ones: -1 login failed, -8 the login locked (more than 30 failed
logins in 5 minutes lock it for an hour, as the documents say; a right token is refused then too), 2
POST only, 6 a domain (or its id) not the account's, 8 no such record id, 10 a listing of nothing, 26
a bad line, 27 a bad type, 32 a TTL out of range, 34 a bad value, 104 an identical record (the code
is the fake's reading). The China API names its lines in Chinese (默认, 电信, 联通, 移动, ...: a
record_line of `default` is refused there); the international one lists the default line as
`Default`, takes `default` and country codes. Where the documents are silent the fake takes the
strictest reading: a Record.Modify without ttl resets it to 600, and one without record_line is
refused.
"""

import ipaddress
import itertools
import json
import time
from urllib.parse import parse_qs

from fakes.base import FakeServer, RecordStore, Reply

ACTIONS = {'Domain.List': 'list_zones', 'Record.List': 'list_records', 'Record.Create': 'create_record',
           'Record.Modify': 'update_record', 'Record.Remove': 'delete_record'}
# the China API's lines by name, and their ids (record_line_id, which wins when both are sent)
LINES = {'默认': '0', '电信': '10=0', '联通': '10=1', '教育网': '10=2', '移动': '10=3', '境外': '3=0'}
COUNTRIES = ('AD', 'AE', 'CN', 'DE', 'JP', 'US')   # some of the international API's lines beside default
MESSAGES = {  # code -> (English, Chinese)
    '1': ('Action completed successful', '操作已经成功完成'),
    '-1': ('Login failed', '登录失败'),
    '-8': ('Too many failed logins, the account is locked for a while',
           '登录失败次数过多，帐号被暂时封禁'),
    '2': ('Only POST method is accepted', '只允许POST方法'),
    '6': ('Invalid domain id', '域名ID错误'),
    '8': ('Invalid record id', '记录ID错误'),
    '10': ('Empty result', '记录列表为空'),
    '26': ('Invalid record line', '记录线路错误'),
    '27': ('Invalid record type', '记录类型错误'),
    '32': ('TTL out of range', '记录的TTL值超出了限制'),
    '34': ('Invalid record value', '记录值非法'),
    '104': ('Record already exists', '记录已经存在'),
}
LOCK_AFTER, LOCK_WINDOW, LOCK_FOR = 30, 300, 3600   # failed logins, in seconds; the lock's length
_ids = itertools.count(1)


class DnspodToken(RecordStore, FakeServer):
    PROVIDER, LETTER = 'dnspodtoken', 'dnspodtoken'   # the registry's provider it plays
    LINE = 'line'

    def __init__(self, token_id='520001', token='4d3f0c2b1a09f8e7d6c5b4a392817060', tls_cert=None,
                 international=False):
        super().__init__(tls_cert)
        self.token_id, self.token = token_id, token
        self.tokens = {token_id: token}
        self.international = international
        self.domains = {}        # name -> domain object
        self.records = {}        # id (text) -> record ('name' and 'content': what the tests read and set)
        self.failures = []       # times of the failed logins
        self.locked_until = 0
        for action, name in ACTIONS.items():
            self.route(name, 'POST', '/' + action, getattr(self, name), guard=self._auth)
            self.route(name, 'GET', '/' + action, self._post_only)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_TOKEN_ID': self.token_id, 'DDNS_TOKEN': self.token, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A domain of the account; the record calls name it (domain) or give its id (domain_id)."""
        self.domains[name] = {'id': str(next(_ids) + 9000000), 'name': name, 'punycode': name, 'grade': 'DP_Free',
                              'status': 'enable', 'ttl': '600'}
        return name

    @property
    def default_line(self):
        return 'Default' if self.international else '默认'

    def add_record(self, zone_id, name, rtype, content, ttl=600, line=None, status='enable'):
        rid = str(next(_ids) + 16000000)
        self.records[rid] = {'id': rid, 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'line': line or self.default_line, 'status': status, 'remark': ''}
        return rid

    # --- answers -------------------------------------------------------------------------------
    @staticmethod
    def params(req):
        """The request's form (UTF-8, as the API takes it)."""
        return {k: v[0] for k, v in parse_qs(req.body.decode('utf-8'), keep_blank_values=True).items()}

    def answer(self, req, code='1', **fields):
        p = self.params(req) if req.body else {}
        english, chinese = MESSAGES.get(code, ('Unknown error', '未知错误'))
        status = {'code': code, 'message': chinese if p.get('lang') == 'cn' else english,
                  'created_at': time.strftime('%Y-%m-%d %H:%M:%S')}
        if p.get('format') != 'json':   # the API's default format
            return Reply(200, text='<?xml version="1.0" encoding="UTF-8"?><dnspod><status><code>%s</code>'
                         '</status></dnspod>' % code, headers={'Content-Type': 'text/xml; charset=utf-8'})
        body = json.dumps(dict({'status': status}, **fields), ensure_ascii=False).encode('utf-8')
        return Reply(200, text=body, headers={'Content-Type': 'application/json; charset=utf-8'})

    def _post_only(self, req):
        return self.answer(req, '2')

    def _auth(self, req):
        """The token (login_token=ID,Token), and the lock that too many failed logins set."""
        now = time.time()
        if now < self.locked_until:
            return self.answer(req, '-8')
        token_id, _, token = self.params(req).get('login_token', '').partition(',')
        if self.tokens.get(token_id) is None or self.tokens[token_id] != token:
            with self.lock:
                self.failures = [t for t in self.failures if now - t < LOCK_WINDOW] + [now]
                if len(self.failures) > LOCK_AFTER:
                    self.locked_until = now + LOCK_FOR
            return self.answer(req, '-1')
        return None

    def _domain(self, p):
        """The domain a call names (domain, or domain_id), or None."""
        if p.get('domain_id'):
            return next((n for n, d in self.domains.items() if d['id'] == p['domain_id']), None)
        name = p.get('domain', '').lower()
        return name if name in self.domains else None

    # --- actions -------------------------------------------------------------------------------
    def list_zones(self, req):
        p = self.params(req)
        offset, length = self._int(p, 'offset', 0), self._int(p, 'length', 20)
        names = sorted(self.domains)
        shown = [dict(self.domains[n]) for n in names[offset:offset + length]]
        info = {'domain_total': len(names), 'all_total': len(names), 'mine_total': len(names)}
        return self.answer(req, domains=shown, info=info)

    def list_records(self, req):
        p = self.params(req)
        domain = self._domain(p)
        if domain is None:
            return self.answer(req, '6')
        offset, length = self._int(p, 'offset', 0), min(self._int(p, 'length', 500), 3000)
        found = [self._public(r) for r in self.records.values() if r['domain'] == domain
                 and p.get('sub_domain', '').lower() in ('', self._host(r))
                 and p.get('record_type', '').upper() in ('', r['type'])
                 and p.get('record_line', '') in ('', r['line'])]
        if not found:
            return self.answer(req, '10')
        shown = found[offset:offset + length]
        info = {'sub_domains': str(len({r['name'] for r in found})), 'record_total': str(len(found)),
                'records_num': str(len(shown))}
        return self.answer(req, domain=self._public_domain(domain), info=info, records=shown)

    def create_record(self, req):
        p = self.params(req)
        domain = self._domain(p)
        if domain is None:
            return self.answer(req, '6')
        record, refused = self._fields(req, p)
        if refused:
            return refused
        if any(r['domain'] == domain and self._host(r) == record['host'] and r['type'] == record['type']
               and r['line'] == record['line'] and r['content'] == record['value'] for r in self.records.values()):
            return self.answer(req, '104')
        name = domain if record['host'] == '@' else '%s.%s' % (record['host'], domain)
        rid = self.add_record(domain, name, record['type'], record['value'], record['ttl'], record['line'])
        return self.answer(req, record={'id': rid, 'name': record['host'], 'status': 'enable'})

    def _held(self, req, p):
        """(the domain, the record a call names by record_id), or (None, the answer refusing it)."""
        domain = self._domain(p)
        if domain is None:
            return None, self.answer(req, '6')
        held = self.records.get(p.get('record_id', ''))
        if held is None or held['domain'] != domain:
            return None, self.answer(req, '8')
        return domain, held

    def update_record(self, req):
        p = self.params(req)
        domain, held = self._held(req, p)
        if domain is None:
            return held
        if not p.get('record_line') and not p.get('record_line_id'):
            return self.answer(req, '26')   # required
        record, refused = self._fields(req, p)
        if refused:
            return refused
        name = domain if record['host'] == '@' else '%s.%s' % (record['host'], domain)
        # what is left out is reset: the strictest reading of "optional"
        held.update(name=name, type=record['type'], content=record['value'], ttl=record['ttl'], line=record['line'])
        return self.answer(req, record={'id': int(held['id']), 'name': record['host'], 'value': record['value'],
                                        'status': held['status']})

    def delete_record(self, req):
        domain, held = self._held(req, self.params(req))
        if domain is None:
            return held
        del self.records[held['id']]
        return self.answer(req)

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _int(p, name, default):
        try:
            return max(0, int(p.get(name, default)))
        except ValueError:
            return default

    @staticmethod
    def _host(record):
        name, domain = record['name'], record['domain']
        return '@' if name == domain else name[:-len(domain) - 1]

    def _line(self, p):
        """The line a write names (record_line_id wins), as listings show it; None when unknown."""
        if p.get('record_line_id'):
            names = {v: k for k, v in LINES.items()} if not self.international else {}
            return names.get(p['record_line_id'])
        line = p.get('record_line', '')
        if self.international:
            return 'Default' if line.lower() == 'default' else line if line in COUNTRIES else None
        return line if line in LINES else None

    def _fields(self, req, p):
        """({host, type, value, ttl, line}, None), or (None, the answer refusing them)."""
        rtype = p.get('record_type', '').upper()
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        if family is None:
            return None, self.answer(req, '27')
        try:
            family(p.get('value', ''))
        except ValueError:
            return None, self.answer(req, '34')
        line = self._line(p)
        if line is None:
            return None, self.answer(req, '26')
        ttl = self._int(p, 'ttl', 600)
        if not 600 <= ttl <= 604800:   # the free plan's least TTL is 600
            return None, self.answer(req, '32')
        return {'host': (p.get('sub_domain') or '@').lower(), 'type': rtype, 'value': p['value'], 'ttl': ttl,
                'line': line}, None

    def _public_domain(self, domain):
        d = self.domains[domain]
        return {'id': d['id'], 'name': d['name'], 'punycode': d['punycode'], 'grade': d['grade']}

    def _public(self, record):
        """A record as Record.List shows it: every value a string."""
        line_id = LINES.get(record['line'], 'default' if record['line'] == 'Default' else record['line'])
        return {'id': record['id'], 'name': self._host(record), 'line': record['line'], 'line_id': line_id,
                'type': record['type'], 'ttl': str(record['ttl']), 'value': record['content'], 'mx': '0',
                'enabled': '1' if record['status'] == 'enable' else '0', 'status': record['status'],
                'monitor_status': '', 'remark': record['remark'], 'updated_on': '2026-01-02 03:04:05',
                'use_aqb': 'no'}
