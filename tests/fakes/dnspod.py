"""Fake DNSPod (Tencent Cloud API 3.0, version 2021-03-23): domains and their records (host, type,
resolution line, TTL, status, weight, remark), every action a POST to '/' named by X-TC-Action, each
request's TC3-HMAC-SHA256 signature checked by the official SDK's own signing code
(tencentcloud-sdk-python-common) and its fields against the SDK's request models
(tencentcloud-sdk-python-dnspod), answers in the API's shapes: {"Response": {..., "RequestId"}}, and
errors {"Response": {"Error": {"Code", "Message"}, "RequestId"}} with HTTP 200, as the API sends them.

Without the SDK installed (a developer's machine) the fake signs with its own copy of the algorithm
and knows the fields from FIELDS; tests/test_dnspod.py checks both copies against the SDK."""

import hmac
import ipaddress
import itertools
import json
import re
import time

from fakes.base import FakeServer, RecordStore, Reply
from fakes.tc3 import Gateway, answer, error, sdk_signature

VERSION, SERVICE = '2021-03-23', 'dnspod'
# the resolution lines a free plan offers, by name (RecordLine) and id (RecordLineId)
LINES = {'默认': '0', '电信': '10=0', '联通': '10=1', '移动': '10=3', '境内': '7=0', '境外': '3=0'}
TYPES = ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA')
DOMAIN_TTL = 600     # what a record gets when a create or ModifyDynamicDNS sends no TTL
TTL_MIN = 600        # a free plan's shortest TTL
# the actions the tool calls -> the routes named after the loop's steps
ROUTES = {'DescribeRecordList': 'list_records', 'CreateRecord': 'create_record',
          'ModifyDynamicDNS': 'update_record', 'DescribeRecord': 'get_record', 'DeleteRecord': 'delete_record',
          'DescribeDomainList': 'list_domains'}
# each action's request fields and their types, as the SDK's request models (3.1.130) have them: the
# copy used when the SDK is not installed (test_dnspod checks it against the models)
FIELDS = {
    'DescribeRecordList': {'Domain': str, 'DomainId': int, 'Subdomain': str, 'RecordType': str, 'RecordLine': str,
                           'RecordLineId': str, 'GroupId': int, 'Keyword': str, 'SortField': str, 'SortType': str,
                           'Offset': int, 'Limit': int, 'ErrorOnEmpty': str, 'SubDomain': str},
    'CreateRecord': {'Domain': str, 'RecordType': str, 'RecordLine': str, 'Value': str, 'DomainId': int,
                     'SubDomain': str, 'RecordLineId': str, 'MX': int, 'TTL': int, 'Weight': int, 'Status': str,
                     'Remark': str, 'DnssecConflictMode': str, 'GroupId': int},
    'ModifyDynamicDNS': {'Domain': str, 'RecordId': int, 'RecordLine': str, 'DomainId': int, 'SubDomain': str,
                         'RecordLineId': str, 'Value': str, 'Ttl': int, 'TTL': int},
    'DescribeRecord': {'Domain': str, 'RecordId': int, 'DomainId': int},
    'DeleteRecord': {'Domain': str, 'RecordId': int, 'DomainId': int},
    'DescribeDomainList': {'Type': str, 'Offset': int, 'Limit': int, 'GroupId': int, 'Keyword': str, 'Tags': list},
}
# what the API reference marks required (the models do not say)
REQUIRED = {'DescribeRecordList': ('Domain',), 'CreateRecord': ('Domain', 'RecordType', 'RecordLine', 'Value'),
            'ModifyDynamicDNS': ('Domain', 'RecordId', 'RecordLine', 'Value'),
            'DescribeRecord': ('Domain', 'RecordId'), 'DeleteRecord': ('Domain', 'RecordId'), 'DescribeDomainList': ()}
_ids = itertools.count(1)




def sdk():
    """The SDK's signing code and request models, or None when it is not installed."""
    try:
        from tencentcloud.common.abstract_client import AbstractClient
        from tencentcloud.common.http.request import RequestInternal
        from tencentcloud.dnspod.v20210323 import dnspod_client, models
    except ImportError:
        return None
    return AbstractClient, RequestInternal, dnspod_client.DnspodClient, models


def sdk_fields(models, action):
    """{field: type} of an action's request model: its attributes, typed by their docstrings
    (a deprecated field's docstring is missing: it takes the type of its normative spelling)."""
    cls = getattr(models, action + 'Request')
    names = [k[1:] for k in vars(cls()) if k != '_headers']
    types = {}
    for name in names:
        doc = getattr(cls, name).__doc__ or ''
        found = re.search(r':rtype: (\w+)', doc)
        types[name] = {'int': int, 'str': str, 'list': list}.get(found.group(1)) if found else None
    for name in names:
        if types[name] is None:
            types[name] = [types[n] for n in names if n.lower() == name.lower() and types[n]][0]
    return types



def own_signature(host, content_type, timestamp, payload, date, secret_key):
    """The same, by the algorithm of the API reference (the copy used without the SDK)."""
    import hashlib
    canonical = 'POST\n/\n\ncontent-type:%s\nhost:%s\n\ncontent-type;host\n%s' % (
        content_type, host, hashlib.sha256(payload).hexdigest())
    to_sign = 'TC3-HMAC-SHA256\n%s\n%s/%s/tc3_request\n%s' % (
        timestamp, date, SERVICE, hashlib.sha256(canonical.encode()).hexdigest())
    key = ('TC3' + secret_key).encode()
    for part in (date, SERVICE, 'tc3_request'):
        key = hmac.new(key, part.encode(), 'sha256').digest()
    return hmac.new(key, to_sign.encode(), 'sha256').hexdigest()


class DNSPod(Gateway, RecordStore, FakeServer):
    """Routes list_records, create_record, update_record, get_record, delete_record (and other_action:
    any other X-TC-Action), all POST /."""
    LINE = 'line'

    PROVIDER = LETTER = 'dnspod'   # the registry's provider it plays; the sandbox's provider_dnspod

    def __init__(self, secret_id='AKIDz8krbsJ5yKBZQpn74WFkmLPx3gnPhESA', secret_key='Gu5t9xGARNpq86cd98joQYCN3Cozk1qA',
                 tls_cert=None):
        super().__init__(tls_cert)
        self.keys = {secret_id: secret_key}   # SecretId -> SecretKey
        self.secret_id, self.secret_key = secret_id, secret_key
        self.domains = {}       # domain name -> domain object
        self.records = {}       # record id -> record object (with its domain and full name)
        self.skew = 0           # seconds the provider's clock is ahead of ours
        self.oracle = sdk()     # the SDK's code, or None: the fake's own copies
        self.signatures = []    # (action, the signature the SDK computed): each request checked
        for action, route in ROUTES.items():
            self.route(route, 'POST', '/', getattr(self, route), guard=self._auth, header=('X-TC-Action', action))
        self.route('other_action', 'POST', '/', self.other_action, guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_SECRET_ID': self.secret_id, 'DDNS_SECRET_KEY': self.secret_key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A domain, with the two NS records DNSPod makes at '@'; its id is its name (what the tool keeps)."""
        self.domains[name] = {'DomainId': 1000 + len(self.domains), 'Name': name, 'TTL': DOMAIN_TTL}
        for ns in ('f1g1ns1.dnspod.net.', 'f1g1ns2.dnspod.net.'):
            self.add_record(name, name, 'NS', ns, ttl=86400, default_ns=True)
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=DOMAIN_TTL, line='默认', status='ENABLE', weight=None,
                   mx=0, remark='', default_ns=False):
        """A record of the domain zone_id named name (the full name), as a user made it."""
        rid = 1600000000 + next(_ids)
        self.records[rid] = {'id': rid, 'domain': zone_id, 'name': name, 'sub': _host(name, zone_id), 'type': rtype,
                             'content': content, 'line': line, 'ttl': ttl, 'status': status, 'weight': weight,
                             'mx': mx, 'remark': remark, 'default_ns': default_ns, 'updated_on': _now()}
        return rid

    # --- the API gateway: version, timestamp, credentials, signature, fields ----------------------
    def _auth(self, req):
        return self.refusal(req, self._version(), self._service(), self._signature) or self._fields(req)

    def _signature(self, *request):
        """The request's signature as the SDK makes it, else by the fake's own copy of the algorithm."""
        return sdk_signature(self.oracle, *request[:-1], SERVICE, request[-1]) if self.oracle else own_signature(*request)

    def _fields(self, req):
        """The body against the action's request model: unknown fields, types, required ones."""
        fields = self._model(req.action)
        if fields is None:
            return None   # other_action answers
        try:
            body = json.loads(req.body or b'{}')
        except ValueError:
            return error('InvalidParameter', 'The request body is not JSON.')
        if not isinstance(body, dict):
            return error('InvalidParameter', 'The request body must be a JSON object.')
        for name, value in body.items():
            if name not in fields:
                return error('UnknownParameter', 'The parameter `%s` is not recognized.' % name)
            kind = fields[name]
            if not isinstance(value, kind) or isinstance(value, bool):
                return error('InvalidParameter', 'The value type of parameter `%s` is not valid.' % name)
        missing = [name for name in REQUIRED[req.action] if name not in body]
        if missing:
            return error('MissingParameter', 'The request is missing a required parameter `%s`.' % missing[0])
        req.params = body
        if 'Domain' in REQUIRED[req.action] and body['Domain'] not in self.domains:
            return error('InvalidParameterValue.DomainNotExists', 'The current domain is incorrect, please go '
                                                                  'back and try again.')
        return None

    def _model(self, action):
        if action not in ROUTES:
            return None
        return sdk_fields(self.oracle[3], action) if self.oracle else FIELDS[action]

    def _version(self):
        return self.oracle[2]._apiVersion if self.oracle else VERSION

    def _service(self):
        return self.oracle[2]._service if self.oracle else SERVICE

    def now(self):
        return time.time() + self.skew

    # --- actions -------------------------------------------------------------------------------
    def other_action(self, req):
        return error('InvalidAction', 'The action %s does not exist.' % req.action)

    def list_records(self, req):
        """DescribeRecordList: filters, Offset/Limit; an empty result is an error unless
        ErrorOnEmpty is 'no'."""
        p = req.params
        sub = p.get('SubDomain', p.get('Subdomain'))
        line_id = p.get('RecordLineId') or LINES.get(p.get('RecordLine'))
        if p.get('RecordLine') is not None and line_id is None:
            return error('InvalidParameter.RecordLineInvalid', 'The record line is incorrect.')
        offset, limit = p.get('Offset', 0), p.get('Limit', 100)
        if not 0 < limit <= 3000:
            return error('InvalidParameterValue.LimitInvalid', 'Limit must be 1 to 3000.')
        if offset < 0:
            return error('InvalidParameter', 'Offset must not be negative.')
        found = [r for r in self._domain_records(p['Domain'])
                 if (sub is None or r['sub'] == sub.lower()) and p.get('RecordType', r['type']) == r['type']
                 and (line_id is None or LINES.get(r['line']) == line_id)]
        if not found and p.get('ErrorOnEmpty', 'yes') != 'no':
            return error('ResourceNotFound.NoDataOfRecord', 'The record list is empty.')
        shown = found[offset:offset + limit]
        return answer(RecordCountInfo={'SubdomainCount': len({r['sub'] for r in found}), 'ListCount': len(shown),
                                       'TotalCount': len(found)},
                      RecordList=[_list_item(r) for r in shown])

    def list_domains(self, req):
        """DescribeDomainList: the account's domains, Offset from 0, Limit (default 3000)."""
        p = req.params
        offset, limit = p.get('Offset', 0), p.get('Limit', 3000)
        if offset < 0 or limit < 1:
            return error('InvalidParameter', 'Offset or Limit is not valid.')
        names = sorted(self.domains)
        shown = [{'DomainId': self.domains[n]['DomainId'], 'Name': n, 'Status': 'ENABLE', 'TTL': self.domains[n]['TTL'],
                  'RecordCount': len(self._domain_records(n))} for n in names[offset:offset + limit]]
        return answer(DomainCountInfo={'AllTotal': len(names), 'DomainTotal': len(names), 'MineTotal': len(names)},
                      DomainList=shown)

    def get_record(self, req):
        record = self._record(req.params)
        if record is None:
            return error('InvalidParameter.RecordIdInvalid', 'The record ID is incorrect.')
        return answer(RecordInfo=_info(record, self.domains[record['domain']]['DomainId']))

    def delete_record(self, req):
        """DeleteRecord: the record gone; an id the domain does not hold is RecordIdInvalid."""
        record = self._record(req.params)
        if record is None:
            return error('InvalidParameter.RecordIdInvalid', 'The record ID is incorrect.')
        del self.records[record['id']]
        return answer()

    def create_record(self, req):
        p = req.params
        checked = self._checked(p, p['RecordType'])
        if isinstance(checked, Reply):
            return checked
        sub, line = checked
        if any(r['sub'] == sub and r['type'] == p['RecordType'] and r['line'] == line and r['content'] == p['Value']
               for r in self._domain_records(p['Domain'])):
            return error('InvalidParameter.DomainRecordExist', 'The record already exists.')
        rid = self.add_record(p['Domain'], _name(sub, p['Domain']), p['RecordType'], p['Value'],
                              ttl=p.get('TTL', self.domains[p['Domain']]['TTL']), line=line,
                              status=p.get('Status', 'ENABLE'), weight=p.get('Weight'), mx=p.get('MX', 0),
                              remark=p.get('Remark', ''))
        return answer(RecordId=rid)

    def update_record(self, req):
        """ModifyDynamicDNS: the host (default '@'), line, value and TTL (default: the domain's);
        status, weight, MX and remark stay as they are."""
        p = req.params
        record = self._record(p)
        if record is None:
            return error('InvalidParameter.RecordIdInvalid', 'The record ID is incorrect.')
        checked = self._checked(p, record['type'])
        if isinstance(checked, Reply):
            return checked
        sub, line = checked
        record.update(sub=sub, name=_name(sub, p['Domain']), line=line, content=p['Value'],
                      ttl=p.get('TTL', p.get('Ttl', self.domains[p['Domain']]['TTL'])), updated_on=_now())
        return answer(RecordId=record['id'])

    def _domain_records(self, domain):
        return [r for r in self.records.values() if r['domain'] == domain]

    def _record(self, p):
        record = self.records.get(p['RecordId'])
        return record if record and record['domain'] == p['Domain'] else None

    def _checked(self, p, rtype):
        """(host, line name) of a create or an update, or the error Reply."""
        sub = p.get('SubDomain', '@').lower()
        if not re.match(r'(@|(\*\.)?[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*)$',
                        sub) and sub != '*':
            return error('InvalidParameter.SubdomainInvalid', 'The subdomain is incorrect.')
        if rtype not in TYPES:
            return error('InvalidParameter.RecordTypeInvalid', 'The record type is incorrect.')
        line = {v: k for k, v in LINES.items()}.get(p['RecordLineId']) if 'RecordLineId' in p else p['RecordLine']
        if line not in LINES:
            return error('InvalidParameter.RecordLineInvalid', 'The record line is incorrect.')
        if rtype in ('A', 'AAAA'):
            try:
                family = ipaddress.ip_address(p['Value']).version
            except ValueError:
                family = None
            if family != (4 if rtype == 'A' else 6):
                return error('InvalidParameter.RecordValueInvalid', 'The record value is incorrect.')
        ttl = p.get('TTL', p.get('Ttl'))
        if ttl is not None and not 1 <= ttl <= 604800:
            return error('InvalidParameter', 'TTL must be 1 to 604800.')
        if ttl is not None and ttl < TTL_MIN:
            return error('LimitExceeded.RecordTtlLimit', 'The TTL is below the limit of the domain\'s plan.')
        return sub, line


def _host(name, domain):
    return '@' if name == domain else name[:-len(domain) - 1]


def _name(sub, domain):
    return domain if sub == '@' else '%s.%s' % (sub, domain)


def _list_item(r):
    """A record as DescribeRecordList lists it (RecordListItem)."""
    return {'RecordId': r['id'], 'Value': r['content'], 'Status': r['status'], 'UpdatedOn': r['updated_on'],
            'Name': r['sub'], 'Line': r['line'], 'LineId': LINES[r['line']], 'Type': r['type'],
            'Weight': r['weight'], 'MonitorStatus': '', 'Remark': r['remark'], 'TTL': r['ttl'], 'MX': r['mx'],
            'DefaultNS': r['default_ns']}


def _info(r, domain_id):
    """A record as DescribeRecord answers it (RecordInfo)."""
    return {'Id': r['id'], 'SubDomain': r['sub'], 'RecordType': r['type'], 'RecordLine': r['line'],
            'RecordLineId': LINES[r['line']], 'Value': r['content'], 'Weight': r['weight'], 'MX': r['mx'],
            'TTL': r['ttl'], 'Enabled': 1 if r['status'] == 'ENABLE' else 0, 'MonitorStatus': '',
            'Remark': r['remark'], 'UpdatedOn': r['updated_on'], 'DomainId': domain_id}


def _now():
    return time.strftime('%Y-%m-%d %H:%M:%S', time.localtime())
