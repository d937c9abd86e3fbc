"""Fake Todaynic DNS API, as Eranet (www.eranet.com) and Now.cn 时代互联 (api.now.cn) serve it: one API at
two hosts, so one fake, played under both names (Eranet, NowCn). Access instances (an
AccessInstanceID and its API key), domains and their records by id.

Every call is a GET of /api/Dns/<action>, a named route here (list_records DescribeRecordIndex,
create_record AddDomainRecord, update_record UpdateDomainRecord), its parameters in the query with
AccessInstanceID, SignatureMethod=HMAC-SHA1, SignatureNonce, Timestamp (UTC, YYYY-MM-DDThh:mm:ssZ) and
Signature: Alibaba Cloud's RPC signature, which each request's is checked against as
aliyun-python-sdk-core's own signer makes it (fakes.alidns.sdk_signature: the same algorithm).
Answers as the peers' clients read them: DescribeRecordIndex {"RequestId", "Data": [{"id", "Domain",
"Host", "Type", "Value", "State", "Ttl"}]} (Ttl left out with ttl_listed False: whether the API
lists it is not known), AddDomainRecord {"RequestId", "Id"}, UpdateDomainRecord {"RequestId"}. A
refusal is {"RequestId", "error": "<words>"}, in Chinese: the words are the fake's own (the API's are
not documented where checked), the body in UTF-8 or, with encoding 'gbk', GBK. What the fake refuses:
a parameter missing, a Timestamp more than 15 minutes off, an unknown AccessInstanceID, a signature
that does not match, a nonce used before, a domain not the account's, a record id not the domain's,
a duplicate record, a value that is no address of its type. An update without Ttl sets 600.
"""

import calendar
import ipaddress
import itertools
import json
import time
import uuid

from fakes.alidns import sdk_signature
from fakes.base import FakeServer, RecordStore, Reply

ACTIONS = {'DescribeRecordIndex': 'list_records', 'AddDomainRecord': 'create_record',
           'UpdateDomainRecord': 'update_record'}
SKEW = 15 * 60
DEFAULT_TTL = 600
_ids = itertools.count(52000001)


class Eranet(RecordStore, FakeServer):
    PROVIDER = LETTER = 'eranet'   # the registry's provider it plays; the sandbox's provider_eranet

    def __init__(self, instance_id='ERA20240001', api_key='eranet-api-key-0123456789abcdef', tls_cert=None):
        super().__init__(tls_cert)
        self.instance_id, self.api_key = instance_id, api_key
        self.instances = {instance_id: api_key}
        self.domains = set()
        self.records = {}          # id -> record ('name' the full name, 'content': what the tests read and set)
        self.nonces = set()        # every SignatureNonce taken
        self.encoding = 'utf-8'    # how an answer is encoded: 'utf-8', or 'gbk'
        self.ttl_listed = True     # whether DescribeRecordIndex shows each record's Ttl
        for action, name in ACTIONS.items():
            self.route(name, 'GET', '/api/Dns/' + action, getattr(self, name), guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_ACCESS_INSTANCE_ID': self.instance_id, 'DDNS_API_KEY': self.api_key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A domain of the account; its id in the calls is its name."""
        self.domains.add(name)
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=DEFAULT_TTL):
        rid = next(_ids)
        self.records[rid] = {'id': rid, 'domain': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'ttl': ttl}
        return str(rid)

    # --- answers -------------------------------------------------------------------------------
    def answer(self, **fields):
        body = dict({'RequestId': str(uuid.uuid4())}, **fields)
        return Reply(200, text=json.dumps(body, ensure_ascii=False).encode(self.encoding),
                     headers={'Content-Type': 'application/json; charset=%s' % self.encoding})

    def refuse(self, words):
        return self.answer(error=words)

    def _auth(self, req):
        """The API's checks, in this order: the parameters, the time, the instance, the signature, the nonce."""
        q = req.query
        for name in ('AccessInstanceID', 'SignatureMethod', 'SignatureNonce', 'Timestamp', 'Signature'):
            if not q.get(name):
                return self.refuse('缺少参数 %s' % name)
        if q['SignatureMethod'] != 'HMAC-SHA1':
            return self.refuse('签名方式错误')
        try:
            sent = calendar.timegm(time.strptime(q['Timestamp'], '%Y-%m-%dT%H:%M:%SZ'))
        except ValueError:
            return self.refuse('时间戳格式错误')
        if abs(sent - (time.time() + self.clock_offset)) > SKEW:
            return self.refuse('时间戳已过期')
        secret = self.instances.get(q['AccessInstanceID'])
        if secret is None:
            return self.refuse('AccessInstanceID 不存在')
        expected, _ = sdk_signature(secret, req.method, {k: v for k, v in q.items() if k != 'Signature'})
        if q['Signature'] != expected:
            return self.refuse('签名错误')
        with self.lock:
            if q['SignatureNonce'] in self.nonces:
                return self.refuse('SignatureNonce 已使用')
            self.nonces.add(q['SignatureNonce'])
        if q.get('Domain', '').lower() not in self.domains:
            return self.refuse('域名不存在或不属于该账户')
        return None

    # --- actions -------------------------------------------------------------------------------
    def list_records(self, req):
        q = req.query
        domain = q['Domain'].lower()
        found = [r for r in self.records.values() if r['domain'] == domain
                 and (not q.get('Host') or self._host(r) == q['Host'].lower())
                 and (not q.get('Type') or r['type'] == q['Type'].upper())]
        return self.answer(Data=[self._public(r) for r in found])

    def create_record(self, req):
        q = req.query
        for name in ('Host', 'Type', 'Value'):
            if not q.get(name):
                return self.refuse('缺少参数 %s' % name)
        domain, rtype = q['Domain'].lower(), q['Type'].upper()
        name = domain if q['Host'] == '@' else '%s.%s' % (q['Host'].lower(), domain)
        problem = self._invalid(rtype, q['Value'], q.get('Ttl', str(DEFAULT_TTL)))
        if problem:
            return self.refuse(problem)
        if any(r['domain'] == domain and r['name'] == name and r['type'] == rtype and r['content'] == q['Value']
               for r in self.records.values()):
            return self.refuse('记录已存在')
        return self.answer(Id=int(self.add_record(domain, name, rtype, q['Value'], int(q.get('Ttl', DEFAULT_TTL)))))

    def update_record(self, req):
        q = req.query
        try:
            held = self.records.get(int(q.get('Id', '')))
        except ValueError:
            held = None
        domain = q['Domain'].lower()
        if held is None or held['domain'] != domain:
            return self.refuse('记录不存在')
        rtype = q.get('Type', '').upper()
        problem = self._invalid(rtype, q.get('Value', ''), q.get('Ttl', str(DEFAULT_TTL)))
        if problem:
            return self.refuse(problem)
        host = q.get('Host', '@')
        held.update(name=domain if host == '@' else '%s.%s' % (host.lower(), domain), type=rtype, content=q['Value'],
                    ttl=int(q.get('Ttl', DEFAULT_TTL)))   # what is not sent goes back to the default
        return self.answer()

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _invalid(rtype, value, ttl):
        """Why a record's fields are refused, or None."""
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        try:
            if family is None:
                raise ValueError(rtype)
            family(value)
        except ValueError:
            return '记录值或类型错误'
        return None if ttl.isdigit() and 1 <= int(ttl) <= 86400 else 'TTL 错误'

    @staticmethod
    def _host(record):
        return '@' if record['name'] == record['domain'] else record['name'][:-len(record['domain']) - 1]

    def _public(self, record):
        shown = {'id': record['id'], 'Domain': record['domain'], 'Host': self._host(record), 'Type': record['type'],
                 'Value': record['content'], 'State': 1}
        if self.ttl_listed:
            shown['Ttl'] = record['ttl']
        return shown


class NowCn(Eranet):
    """The same API at Now.cn's host: the preset nowcn."""
    PROVIDER = LETTER = 'nowcn'

    def __init__(self, instance_id='NOW20240001', api_key='nowcn-api-key-0123456789abcdef', tls_cert=None):
        super().__init__(instance_id, api_key, tls_cert)
