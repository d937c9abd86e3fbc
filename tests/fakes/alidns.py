"""Fake Alibaba Cloud DNS (Alidns API 2015-01-09, RPC style): domains, records by id, AccessKey pairs.

Every request is one URL, '/', its operation named by the Action parameter: each operation is a
named route here (list_records, create_record, update_record, get_record, delete_record; the request
log's path shows the action). Records are held per resolution line (the primary line codes of the
"Resolution line enumeration" page); a line not among them is refused as an invalid parameter.
Each request's Signature is checked against the one the official SDK's own signer
(aliyun-python-sdk-core's RPC signature composer) makes for the same method and parameters, and a
request is refused as the API refuses it: SignatureDoesNotMatch, InvalidAccessKeyId.NotFound,
InvalidAccessKeyId.Inactive, InvalidTimeStamp.Expired, SignatureNonceUsed, Forbidden.RAM. Answers and
errors ({Code, Message, RequestId, HostId, Recommend}) in the documented JSON shapes; the
operations' parameter names are those of aliyun-python-sdk-alidns's request classes.
"""

import calendar
import ipaddress
import itertools
import time
import uuid
from urllib.parse import parse_qs, quote, urlsplit

from fakes.base import FakeServer, RecordStore, Reply

try:   # the oracle: a test-only dependency (tests/requirements.txt)
    from aliyunsdkcore.auth.composer import rpc_signature_composer as _composer
except ImportError:
    _composer = None

ORACLE = 'aliyunsdkcore' if _composer else 'the fake\'s own copy of the algorithm'
HOST_ID = 'alidns.aliyuncs.com'
VERSION = '2015-01-09'
SKEW = 15 * 60          # how far a request's Timestamp may be from the server's clock
ACTIONS = {'DescribeSubDomainRecords': 'list_records', 'AddDomainRecord': 'create_record',
           'UpdateDomainRecord': 'update_record', 'DescribeDomainRecordInfo': 'get_record',
           'DeleteDomainRecord': 'delete_record', 'DescribeDomains': 'list_domains'}
# the primary resolution lines (https://www.alibabacloud.com/help/en/dns/pubz-resolve-line-enumeration)
LINES = ('default', 'telecom', 'unicom', 'mobile', 'edu', 'drpeng', 'btvn', 'cstnet', 'wexchange', 'founder',
         'topway_video', 'wasu', 'ocn', 'cnix', 'bgctv', 'aliyun', 'search', 'oversea', 'internal')
_ids = itertools.count(1)


def new_record_id():
    return str(1900000000000000000 + next(_ids))   # record ids are decimal strings of ~19 digits


def sdk_signature(secret, method, params):
    """(signature, string to sign) as aliyunsdkcore makes them; its own copy of the algorithm when the
    SDK is not installed (test_alidns requires the SDK under CI)."""
    if _composer is not None:
        # module-private names of the composer (getattr: no name mangling inside this module's classes)
        to_sign = getattr(_composer, '__compose_string_to_sign')(method, params)
        return getattr(_composer, '__get_signature')(to_sign, secret), to_sign
    import base64
    import hashlib
    import hmac
    query = '&'.join('%s=%s' % (quote(k, safe='~'), quote(v, safe='~')) for k, v in sorted(params.items()))
    to_sign = '%s&%%2F&%s' % (method, quote(query, safe='~'))
    digest = hmac.new((secret + '&').encode(), to_sign.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode(), to_sign


def error(status, code, message):
    request_id = str(uuid.uuid4()).upper()
    return Reply(status, {'RequestId': request_id, 'HostId': HOST_ID, 'Code': code, 'Message': message,
                          'Recommend': 'https://api.aliyun.com/troubleshoot?q=%s&product=Alidns&requestId=%s'
                                       % (code, request_id)})


def answer(body):
    return Reply(200, dict(body, RequestId=str(uuid.uuid4()).upper()))


def missing(name):
    return error(400, 'MissingParameter', 'The input parameter "%s" that is mandatory for processing this '
                                          'request is not supplied.' % name)


def invalid(name):
    return error(400, 'InvalidParameter', 'Specified parameter %s is not valid.' % name)


NOT_MINE = (400, 'IncorrectDomainUser', 'The domain name does not belong to this user.')
NO_RECORD = (400, 'DomainRecordNotBelongToUser', 'The DNS record does not exist in your account.')
DUPLICATE = (400, 'DomainRecordDuplicate', 'The DNS record already exists.')
CONFLICT = (400, 'DomainRecordConflict', 'The DNS record conflicts with other records.')
LOCKED = (400, 'DomainRecordLocked', 'The DNS record is locked and cannot be modified.')


class AliDns(RecordStore, FakeServer):
    PROVIDER, LETTER = 'alidns', 'alidns'   # the registry's provider it plays; the sandbox's provider_alidns
    TYPE = 'Type'
    LINE = 'Line'

    def __init__(self, key_id='LTAI5tFAKEaccessKeyId01', secret='fAkEsEcReT0123456789abcdefGHIJ', tls_cert=None):
        super().__init__(tls_cert)
        self.key_id, self.secret = key_id, secret
        self.keys = {key_id: {'secret': secret, 'active': True, 'actions': None}}  # actions: RAM (None: all)
        self.domains = {}        # domain name -> domain object
        self.records = {}        # RecordId -> record ('name' and 'content': what the tests read and set)
        self.nonces = set()      # every SignatureNonce the API took
        self.signed = []         # (action, the signature sent, the SDK's) of every signed request checked
        for action, name in ACTIONS.items():
            for method in ('GET', 'POST'):   # the API takes both; the signature names the method
                self.route(name, method, '/' + action, getattr(self, name), guard=self._auth)
        for method in ('GET', 'POST'):
            self.route('unknown_action', method, '/[^/]*', self.unknown, guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_ACCESS_KEY_ID': self.key_id, 'DDNS_ACCESS_KEY_SECRET': self.secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A domain of the account; its id in the API's calls is its name."""
        self.domains[name] = {'DomainId': str(uuid.uuid4()), 'DomainName': name, 'PunyCode': name}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=600, line='default', locked=False):
        rid = new_record_id()
        self.records[rid] = {'RecordId': rid, 'DomainName': zone_id, 'name': name, 'Type': rtype,
                             'content': content, 'TTL': ttl, 'Line': line, 'Status': 'ENABLE', 'Locked': locked,
                             'Weight': 1}
        return rid

    # --- routing -------------------------------------------------------------------------------
    def _dispatch(self, h):
        # one path for every operation: the Action parameter names the route (the log shows it as the path)
        split = urlsplit(h.path)
        action = parse_qs(split.query).get('Action', [''])[0]
        if split.path == '/':
            h.path = '/%s?%s' % (quote(action, safe=''), split.query)
        return super()._dispatch(h)

    @staticmethod
    def params(req):
        """The request's parameters: its query and a form body's (the API reads both)."""
        found = dict(req.query)
        if req.headers.get('content-type', '').startswith('application/x-www-form-urlencoded'):
            found.update({k: v[0] for k, v in parse_qs(req.body.decode(), keep_blank_values=True).items()})
        return found

    def _auth(self, req):
        """The gateway's checks, in its order: parameters, the API, the time, the key, the signature, the
        nonce, RAM."""
        p = self.params(req)
        for name in ('AccessKeyId', 'Signature', 'Timestamp', 'SignatureNonce', 'Action', 'Version'):
            if not p.get(name):
                return missing(name)
        if p['Action'] not in ACTIONS:
            return error(404, 'InvalidAction.NotFound', 'Specified api is not found, please check your url and method.')
        if p['Version'] != VERSION:
            return error(400, 'InvalidVersion', 'Specified parameter Version is not valid.')
        if p.get('SignatureMethod') != 'HMAC-SHA1' or p.get('SignatureVersion') != '1.0':
            return error(400, 'IncompleteSignature', 'The request signature does not conform to Aliyun standards.')
        try:
            sent = calendar.timegm(time.strptime(p['Timestamp'], '%Y-%m-%dT%H:%M:%SZ'))
        except ValueError:
            return error(400, 'InvalidTimeStamp.Format', 'Specified time stamp or date value is not well formatted.')
        if abs(sent - (time.time() + self.clock_offset)) > SKEW:
            return error(400, 'InvalidTimeStamp.Expired', 'Specified time stamp or date value is expired.')
        key = self.keys.get(p['AccessKeyId'])
        if key is None:
            return error(404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.')
        if not key['active']:
            return error(400, 'InvalidAccessKeyId.Inactive', 'Specified access key is disabled.')
        expected, to_sign = sdk_signature(key['secret'], req.method,
                                          {k: v for k, v in p.items() if k != 'Signature'})
        with self.lock:
            self.signed.append((p['Action'], p['Signature'], expected))
        if p['Signature'] != expected:
            return error(400, 'SignatureDoesNotMatch', 'Specified signature is not matched with our calculation. '
                                                       'server string to sign is:%s' % to_sign)
        with self.lock:
            if p['SignatureNonce'] in self.nonces:
                return error(400, 'SignatureNonceUsed', 'Specified signature nonce was used already.')
            self.nonces.add(p['SignatureNonce'])
        if key['actions'] is not None and p['Action'] not in key['actions']:
            return error(403, 'Forbidden.RAM', 'User not authorized to operate on the specified resource, or this '
                                               'API doesn\'t support RAM.')
        if p.get('Format', 'XML').upper() != 'JSON':   # the API's default format is XML
            return Reply(200, text='<?xml version="1.0" encoding="UTF-8"?><%sResponse><RequestId>%s</RequestId>'
                         '</%sResponse>' % (p['Action'], uuid.uuid4(), p['Action']),
                         headers={'Content-Type': 'text/xml;charset=utf-8'})
        return None

    # --- operations ----------------------------------------------------------------------------
    def unknown(self, req):
        return error(404, 'InvalidAction.NotFound', 'Specified api is not found, please check your url and method.')

    def list_records(self, req):
        p = self.params(req)
        sub = p.get('SubDomain', '').lower().rstrip('.')
        if not sub:
            return missing('SubDomain')
        # no DomainName: the API takes the last two labels as the domain
        domain = p.get('DomainName', '.'.join(sub.split('.')[-2:])).lower().rstrip('.')
        if sub != domain and not sub.endswith('.' + domain):
            return error(400, 'SubDomainInvalid.Value', 'The DNS record is invalid or in the wrong format.')
        if domain not in self.domains:
            return error(*NOT_MINE)
        try:
            page, size = int(p.get('PageNumber', 1)), int(p.get('PageSize', 20))
        except ValueError:
            return invalid('PageSize')
        if not 1 <= size <= 500 or page < 1:
            return invalid('PageSize')
        if p.get('Line', 'default') not in LINES:
            return invalid('Line')
        rr = '@' if sub == domain else sub[:-len(domain) - 1]
        found = [self._public(r) for r in self.records.values() if r['DomainName'] == domain
                 and self._rr(r) == rr and p.get('Type', r['Type']).upper() == r['Type']
                 and p.get('Line', r['Line']) == r['Line']]
        shown = found[(page - 1) * size:page * size]
        return answer({'TotalCount': len(found), 'PageNumber': page, 'PageSize': len(shown),
                       'DomainRecords': {'Record': shown}})

    def create_record(self, req):
        p = self.params(req)
        for name in ('DomainName', 'RR', 'Type', 'Value'):
            if not p.get(name):
                return missing(name)
        domain = p['DomainName'].lower()
        if domain not in self.domains:
            return error(*NOT_MINE)
        ttl = self._ttl(p)
        if ttl is None:
            return invalid('TTL')
        record = {'RR': p['RR'].lower(), 'Type': p['Type'].upper(), 'Value': p['Value'],
                  'Line': p.get('Line') or 'default'}
        refused = self._value(record) or self._line(record) or self._clash(domain, record)
        if refused:
            return refused
        name = domain if record['RR'] == '@' else '%s.%s' % (record['RR'], domain)
        rid = self.add_record(domain, name, record['Type'], record['Value'], ttl, record['Line'])
        return answer({'RecordId': rid})

    def update_record(self, req):
        p = self.params(req)
        for name in ('RecordId', 'RR', 'Type', 'Value'):
            if not p.get(name):
                return missing(name)
        held = self.records.get(p['RecordId'])
        if held is None:
            return error(*NO_RECORD)
        if held['Locked']:
            return error(*LOCKED)
        ttl = self._ttl(p)
        if ttl is None:
            return invalid('TTL')
        # what is not sent goes back to the API's defaults: the line 'default', the ttl 600
        record = {'RR': p['RR'].lower(), 'Type': p['Type'].upper(), 'Value': p['Value'],
                  'Line': p.get('Line') or 'default'}
        refused = self._value(record) or self._line(record) or self._clash(held['DomainName'], record, ignore=held)
        if refused:
            return refused
        domain = held['DomainName']
        held.update({'name': domain if record['RR'] == '@' else '%s.%s' % (record['RR'], domain),
                     'Type': record['Type'], 'content': record['Value'], 'Line': record['Line'], 'TTL': ttl})
        return answer({'RecordId': held['RecordId']})

    def named_record(self, p):
        """(the record RecordId names, None), or (None, the answer refusing it: missing or unknown)."""
        if not p.get('RecordId'):
            return None, missing('RecordId')
        held = self.records.get(p['RecordId'])
        return (held, None) if held is not None else (None, error(*NO_RECORD))

    def delete_record(self, req):
        """DeleteDomainRecord: the record of RecordId gone; a locked one stays."""
        p = self.params(req)
        held, refused = self.named_record(p)
        if refused:
            return refused
        if held['Locked']:
            return error(*LOCKED)
        del self.records[p['RecordId']]
        return answer({'RecordId': p['RecordId']})

    def list_domains(self, req):
        """DescribeDomains: the account's domains, PageNumber from 1, PageSize 1 to 100 (default 20)."""
        p = self.params(req)
        try:
            page, size = int(p.get('PageNumber', 1)), int(p.get('PageSize', 20))
        except ValueError:
            return invalid('PageSize')
        if not 1 <= size <= 100 or page < 1:
            return invalid('PageSize')
        names = sorted(self.domains)
        shown = [dict(self.domains[n], RecordCount=sum(r['DomainName'] == n for r in self.records.values()))
                 for n in names[(page - 1) * size:page * size]]
        return answer({'TotalCount': len(names), 'PageNumber': page, 'PageSize': size, 'Domains': {'Domain': shown}})

    def get_record(self, req):
        held, refused = self.named_record(self.params(req))
        if refused:
            return refused
        domain = self.domains.get(held['DomainName'], {})
        return answer(dict(self._public(held), DomainId=domain.get('DomainId', ''), PunyCode=held['DomainName'],
                           GroupId='', GroupName=''))

    # --- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _rr(record):
        name, domain = record['name'].rstrip('.'), record['DomainName']
        return '@' if name == domain else name[:-len(domain) - 1]

    def _public(self, record):
        """A record as the API shows it."""
        return {'DomainName': record['DomainName'], 'RecordId': record['RecordId'], 'RR': self._rr(record),
                'Type': record['Type'], 'Value': record['content'], 'TTL': record['TTL'], 'Line': record['Line'],
                'Status': record['Status'], 'Locked': record['Locked'], 'Weight': record['Weight']}

    @staticmethod
    def _ttl(p):
        """The ttl sent (600 when none), or None when it is not one the API takes."""
        try:
            ttl = int(p.get('TTL', 600))
        except ValueError:
            return None
        return ttl if 1 <= ttl <= 86400 else None

    @staticmethod
    def _value(record):
        """An answer refusing a value that is no address of the record's family, else None."""
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(record['Type'])
        try:
            if family:
                family(record['Value'])
        except ValueError:
            return invalid('Value')
        return None

    @staticmethod
    def _line(record):
        """An answer refusing a line the API does not know, else None."""
        return None if record['Line'] in LINES else invalid('Line')

    def _clash(self, domain, record, ignore=None):
        """An answer refusing a record that another of the domain duplicates or conflicts with, else None."""
        for other in self.records.values():
            if other['DomainName'] != domain or self._rr(other) != record['RR'] or other['Line'] != record['Line']:
                continue
            if other['Type'] == record['Type'] and other['content'] == record['Value']:
                return error(*DUPLICATE)   # this one too: an update to the value it holds
            if 'CNAME' in (other['Type'], record['Type']) and other['Type'] != record['Type'] \
                    and other is not ignore:
                return error(*CONFLICT)
        return None
