"""Fake 51DNS (formerly DNS.COM) API: API keys with their secrets, domains (by id and name) and their
records on views (lines).

Every call is a POST of a form to /api/<group>/<action>/ (domain/getsingle, record/list, record/create,
record/modify: named routes get_zone, list_records, create_record, update_record) carrying apiKey,
timestamp and hash = md5 of every other parameter sorted by name, joined name=value with '&', the
secret appended, as the signature document describes. Whether the service hashes a value raw or
percent-encoded is not documented: the fake takes both readings at once, so a value whose two forms
differ (a client that encodes one) is refused, and a timestamp more than ten minutes off too (the
limit is not documented either). Answers are {"code", "message", "data"} in UTF-8, code 0 success;
the codes are NewFuture's table: 1 a bad parameter, 2 authentication failed, 3 no permission, 4 no
such record, 5 no such domain. Views: 0 or 1 the default (a listing shows either), 2 China Telecom, 3
China Unicom, 4 China Mobile, 5 abroad, 6 education. Where the documents are silent the fake takes the
strictest reading: a record/modify without newTTL resets the TTL to 600.
"""

import hashlib
import ipaddress
import itertools
import json
import time
from urllib.parse import parse_qsl, unquote_plus

from fakes.base import FakeServer, RecordStore, Reply

ACTIONS = {'domain/getsingle': 'get_zone', 'record/list': 'list_records', 'record/create': 'create_record',
           'record/modify': 'update_record'}
MESSAGES = {0: 'success', 1: '参数错误', 2: '认证失败', 3: '没有权限', 4: '记录不存在', 5: '域名不存在'}
STAMP_LIFE = 600
_ids = itertools.count(1)


def hash_of(pairs, secret):
    """The signature of these (name, value) pairs, hash left out."""
    text = '&'.join('%s=%s' % pair for pair in sorted(p for p in pairs if p[0] != 'hash'))
    return hashlib.md5((text + secret).encode('utf-8')).hexdigest()


class Dnscom(RecordStore, FakeServer):
    PROVIDER, LETTER = 'dnscom', 'dnscom'   # the registry's provider it plays

    def __init__(self, api_key='51dnsExampleKey0001', api_secret='51dns-example-secret-0123456789',
                 tls_cert=None):
        super().__init__(tls_cert)
        self.api_key, self.api_secret = api_key, api_secret
        self.keys = {api_key: api_secret}
        self.domains = {}         # id -> domain object
        self.records = {}         # id -> record ('name' and 'content': what the tests read and set)
        self.hashes = []          # (action, hash sent, hash expected) of every call checked
        for action, name in ACTIONS.items():
            self.route(name, 'POST', '/api/%s/' % action, getattr(self, name), guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_API_KEY': self.api_key, 'DDNS_API_SECRET': self.api_secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A domain of the account; its id is what the record calls name it by."""
        zid = str(next(_ids) + 3000)
        self.domains[zid] = {'domainID': int(zid), 'domains': name, 'state': 1, 'userGroupID': 1}
        return zid

    def add_record(self, zone_id, name, rtype, content, ttl=600, view=1):
        rid = str(next(_ids) + 7000000)
        self.records[rid] = {'id': rid, 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl, 'view': view, 'remark': ''}
        return rid

    def zone_name(self, zid):
        return self.domains[zid]['domains']

    # --- answers -------------------------------------------------------------------------------
    @staticmethod
    def pairs(req):
        """The form's (name, value) pairs as sent (raw) and as decoded."""
        raw = [tuple(part.split('=', 1)) for part in req.body.decode('utf-8').split('&') if '=' in part]
        return raw, [(k, v) for k, v in parse_qsl(req.body.decode('utf-8'), keep_blank_values=True)]

    def params(self, req):
        return dict(self.pairs(req)[1])

    @staticmethod
    def answer(code=0, data=None, message=None):
        body = {'code': code, 'message': message or MESSAGES.get(code, '错误'), 'data': data}
        return Reply(200, text=json.dumps(body, ensure_ascii=False).encode('utf-8'),
                     headers={'Content-Type': 'application/json; charset=utf-8'})

    def _auth(self, req):
        raw, decoded = self.pairs(req)
        p = dict(decoded)
        secret = self.keys.get(p.get('apiKey', ''))
        if secret is None:
            return self.answer(2)
        expected = hash_of(decoded, secret)
        with self.lock:
            self.hashes.append((req.path, p.get('hash'), expected))
        both = hash_of([(unquote_plus(k), v) for k, v in raw], secret) == expected
        try:
            fresh = abs(int(p.get('timestamp', '')) - (time.time() + self.clock_offset)) <= STAMP_LIFE
        except ValueError:
            fresh = False
        if p.get('hash') != expected or not both or not fresh:
            return self.answer(2)
        return None

    def _domain(self, p):
        """The domain id a call names (domainID: its id, or for getsingle its name too), or None."""
        given = p.get('domainID', '')
        if given in self.domains:
            return given
        return None

    # --- actions -------------------------------------------------------------------------------
    def get_zone(self, req):
        given = self.params(req).get('domainID', '').lower()
        found = [zid for zid, d in self.domains.items() if given in (zid, d['domains'])]
        if not found:
            return self.answer(5)
        return self.answer(data=dict(self.domains[found[0]]))

    def list_records(self, req):
        p = self.params(req)
        zid = self._domain(p)
        if zid is None:
            return self.answer(5)
        size = int(p.get('pageSize') or 20)
        found = [self._public(r) for r in self.records.values() if r['domain'] == zid
                 and p.get('host', '').lower() in ('', self._host(r))]
        return self.answer(data={'pageSize': size, 'page': 1, 'pageCount': max(1, -(-len(found) // size)),
                                 'total': len(found), 'data': found[:size]})

    def create_record(self, req):
        p = self.params(req)
        zid = self._domain(p)
        if zid is None:
            return self.answer(5)
        rtype, value = p.get('type', '').upper(), p.get('value', '')
        if not self._valid(rtype, value):
            return self.answer(1)
        try:
            ttl, view = int(p.get('TTL', 600)), int(p.get('viewID', 1))
        except ValueError:
            return self.answer(1)
        sub = (p.get('host') or '@').lower()
        name = self.zone_name(zid) if sub == '@' else '%s.%s' % (sub, self.zone_name(zid))
        rid = self.add_record(zid, name, rtype, value, ttl, view)
        return self.answer(data={'recordID': int(rid), 'record': sub, 'type': rtype, 'value': value})

    def update_record(self, req):
        p = self.params(req)
        zid = self._domain(p)
        if zid is None:
            return self.answer(5)
        held = self.records.get(p.get('recordID', ''))
        if held is None or held['domain'] != zid:
            return self.answer(4)
        if not self._valid(held['type'], p.get('newvalue', '')):
            return self.answer(1)
        try:
            ttl = int(p.get('newTTL', 600))   # not sent: reset, the strictest reading
        except ValueError:
            return self.answer(1)
        held.update(content=p['newvalue'], ttl=ttl)
        return self.answer(data={'recordID': int(held['id'])})

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _valid(rtype, value):
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        try:
            return family is not None and bool(family(value))
        except ValueError:
            return False

    def _host(self, record):
        name, domain = record['name'], self.zone_name(record['domain'])
        return '@' if name == domain else name[:-len(domain) - 1]

    def _public(self, record):
        """A record as record/list shows it."""
        return {'recordID': int(record['id']), 'record': self._host(record), 'type': record['type'],
                'value': record['content'], 'TTL': record['ttl'], 'viewID': record['view'], 'state': 1,
                'remark': record['remark'], 'mx': 0}
