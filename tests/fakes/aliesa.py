"""Fake Alibaba Cloud ESA (API 2024-09-10, RPC style): sites, their DNS records (the one address type
A/AAAA, Data, Ttl, Proxied, BizName, Comment) and AccessKey pairs.

Every request is one URL, '/', its operation named by the x-acs-action header, its parameters in the
query; each operation is a named route here (list_zones, list_records, get_record, create_record,
update_record, delete_record). Each request's ACS3-HMAC-SHA256 Authorization is checked against the
one the official SDK's own signer makes (alibabacloud-tea-openapi's Utils.get_authorization) for the
headers it names, which must be host and every x-acs- header sent; its parameters against the request
models of alibabacloud-esa20240910 (the SDK is the only oracle: without it every request is refused,
and the tests that need this fake say so). A request is refused as the API gateway refuses one:
SignatureDoesNotMatch, IncompleteSignature, InvalidAccessKeyId.NotFound, InvalidAccessKeyId.Inactive,
InvalidTimeStamp.Expired, SignatureNonceUsed, Forbidden.RAM; errors in the documented shape
({RequestId, HostId, Code, Message, Recommend}) with their HTTP status.

Where the reference leaves a reading open, the fake takes the strict one, with codes of its own
choosing (the service's are not documented): Type A or AAAA is refused (only A/AAAA is documented);
UpdateRecord resets what it is not sent (Ttl to automatic, Proxied off, BizName and Comment gone); a
site connected by CNAME takes proxied records only; an unknown site is Site.NotFound, an unknown
record Record.NotFound, a duplicate Record.Duplicate, a clash with a CNAME Record.Conflict."""

import calendar
import hashlib
import ipaddress
import itertools
import json
import time
import types
import uuid

from fakes.base import FakeServer, Reply

HOST_ID = 'esa.cn-hangzhou.aliyuncs.com'
VERSION = '2024-09-10'
SKEW = 15 * 60          # how far a request's x-acs-date may be from the server's clock
# each operation: the method the SDK sends it with, its route
ACTIONS = {'ListSites': ('GET', 'list_zones'), 'ListRecords': ('GET', 'list_records'),
           'GetRecord': ('GET', 'get_record'), 'CreateRecord': ('POST', 'create_record'),
           'UpdateRecord': ('POST', 'update_record'), 'DeleteRecord': ('POST', 'delete_record')}
REQUIRED = {'ListSites': (), 'ListRecords': ('SiteId',), 'GetRecord': ('RecordId',),
            'CreateRecord': ('SiteId', 'RecordName', 'Type', 'Data', 'Ttl'), 'UpdateRecord': ('RecordId', 'Data'),
            'DeleteRecord': ('RecordId',)}
TYPES = ('A/AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'CAA', 'SRV', 'URI')
BIZ_NAMES = ('image_video', 'api', 'web')
_ids = itertools.count(1)


def sdk():
    """The SDK's signer and request models, or None when it is not installed."""
    try:
        from alibabacloud_esa20240910 import models
        from alibabacloud_tea_openapi.utils import Utils
    except ImportError:
        return None
    return Utils, models


def sdk_fields(models, action):
    """The parameter names the SDK sends for an action: its request model's (the shrink model's where
    the SDK sends an object as JSON text)."""
    import inspect
    cls = getattr(models, action + 'ShrinkRequest', None) or getattr(models, action + 'Request')
    names = [name for name in inspect.signature(cls.__init__).parameters if name != 'self']
    return set(cls(**{name: 'x' for name in names}).to_map())


def error(status, code, message):
    request_id = str(uuid.uuid4()).upper()
    return Reply(status, {'RequestId': request_id, 'HostId': HOST_ID, 'Code': code, 'Message': message,
                          'Recommend': 'https://api.aliyun.com/troubleshoot?q=%s&product=ESA&requestId=%s'
                                       % (code, request_id)})


def answer(body):
    return Reply(200, dict(body, RequestId=str(uuid.uuid4()).upper()))


def missing(name):
    return error(400, 'MissingParameter', 'The input parameter "%s" that is mandatory for processing this request '
                                          'is not supplied.' % name)


def invalid(name):
    return error(400, 'InvalidParameter', 'Specified parameter %s is not valid.' % name)


def boolean(text):
    """A query's boolean (the SDK writes str(True), others 'true'), or None for anything else."""
    return {'true': True, 'false': False}.get(str(text).lower())


def number(text, low, high):
    """A query's integer within [low, high], or None."""
    try:
        value = int(text)
    except (TypeError, ValueError):
        return None
    return value if low <= value <= high else None


def name_matches(name, wanted, how):
    return {'exact': name == wanted, 'prefix': name.startswith(wanted), 'suffix': name.endswith(wanted),
            'fuzzy': wanted in name}.get(how, False)


class AliEsa(FakeServer):
    PROVIDER, LETTER = 'aliesa', 'aliesa'   # the registry's provider it plays; the sandbox's provider_aliesa

    def __init__(self, key_id='LTAI5tESAfakeAccessKey01', secret='eSaSeCrEt0123456789abcdefGHIJ', tls_cert=None):
        super().__init__(tls_cert)
        self.key_id, self.secret = key_id, secret
        self.keys = {key_id: {'secret': secret, 'active': True, 'actions': None}}  # actions: RAM (None: all)
        self.sites = {}          # SiteId -> site
        self.records = {}        # RecordId -> record ('name' and 'content': what the tests read and set)
        self.nonces = set()      # every x-acs-signature-nonce the API took
        self.signed = []         # (action, the Authorization sent, the SDK's) of every signed request checked
        self.oracle = sdk()
        for action, (_, route) in ACTIONS.items():
            for method in ('GET', 'POST'):   # the API takes both; the signature names the method
                self.route(route, method, '/', getattr(self, route), guard=self._auth, header=('x-acs-action', action))
        for method in ('GET', 'POST'):
            self.route('unknown_action', method, '/', self.unknown, guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_ACCESS_KEY_ID': self.key_id, 'DDNS_ACCESS_KEY_SECRET': self.secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, access='NS'):
        """A site of the account (connected by NS, or by CNAME); its SiteId, what the tool keeps."""
        site_id = 7000000000000 + next(_ids)
        self.sites[site_id] = {'SiteId': site_id, 'SiteName': name, 'AccessType': access, 'Status': 'active',
                               'Coverage': 'domestic', 'PlanName': 'basic', 'CreateTime': _now()}
        return site_id

    def add_record(self, zone_id, name, rtype, content, ttl=1, proxied=False, biz_name=None, comment=None):
        """A record of the site zone_id, as a user made it: an address (rtype A or AAAA) is an A/AAAA
        record."""
        rid = 5000000000000 + next(_ids)
        self.records[rid] = {'RecordId': rid, 'SiteId': zone_id, 'name': name,
                             'RecordType': 'A/AAAA' if rtype in ('A', 'AAAA') else rtype, 'content': content,
                             'Ttl': ttl, 'Proxied': proxied, 'BizName': biz_name, 'Comment': comment,
                             'CreateTime': _now(), 'UpdateTime': _now()}
        return rid

    def find(self, name, rtype='A'):
        """The records named so holding an address of rtype's family (what a test asserts on)."""
        return [r for r in self.records.values() if r['name'] == name and r['RecordType'] == 'A/AAAA'
                and _family(r['content']) == rtype]

    def by_line(self, name, rtype='A'):
        """{None: sorted values}: ESA has no lines (what a test asserts on)."""
        found = sorted(r['content'] for r in self.find(name, rtype))
        return {None: found} if found else {}

    # --- the API gateway: headers, time, key, signature, nonce, RAM, parameters ------------------
    def _auth(self, req):
        if self.oracle is None:
            return error(500, 'InternalError', 'the fake checks each signature with alibabacloud-tea-openapi and '
                                               'alibabacloud-esa20240910: not installed')
        utils, models = self.oracle
        h = req.headers
        action = h.get('x-acs-action', '')
        for name in ('authorization', 'x-acs-action', 'x-acs-version', 'x-acs-date', 'x-acs-signature-nonce',
                     'x-acs-content-sha256'):
            if not h.get(name):
                return error(400, 'MissingParameter' if name != 'authorization' else 'IncompleteSignature',
                             'The request header %s is missing.' % name)
        if action not in ACTIONS:
            return error(404, 'InvalidAction.NotFound', 'Specified api is not found, please check your url and '
                                                        'method.')
        if h['x-acs-version'] != VERSION:
            return error(400, 'InvalidVersion', 'Specified parameter Version is not valid.')
        try:
            sent = calendar.timegm(time.strptime(h['x-acs-date'], '%Y-%m-%dT%H:%M:%SZ'))
        except ValueError:
            return error(400, 'InvalidTimeStamp.Format', 'Specified time stamp or date value is not well formatted.')
        if abs(sent - (time.time() + self.clock_offset)) > SKEW:
            return error(400, 'InvalidTimeStamp.Expired', 'Specified time stamp or date value is expired.')
        algorithm, _, rest = h['authorization'].partition(' ')
        parts = dict(part.partition('=')[::2] for part in rest.split(','))
        names = parts.get('SignedHeaders', '').split(';')
        if algorithm != 'ACS3-HMAC-SHA256' or not parts.get('Credential') or not parts.get('Signature') \
                or 'host' not in names or not {n for n in h if n.startswith('x-acs-')} <= set(names) \
                or any(n not in h for n in names):
            return error(400, 'IncompleteSignature', 'The request signature does not conform to Aliyun standards.')
        if hashlib.sha256(req.body).hexdigest() != h['x-acs-content-sha256']:
            return error(400, 'IncompleteSignature', 'The x-acs-content-sha256 is not the hash of the body.')
        key = self.keys.get(parts['Credential'])
        if key is None:
            return error(404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.')
        if not key['active']:
            return error(400, 'InvalidAccessKeyId.Inactive', 'Specified access key is disabled.')
        remade = types.SimpleNamespace(pathname=req.path, method=req.method, query=dict(req.query),
                                       headers={name: h[name] for name in names})
        expected = utils.get_authorization(remade, 'ACS3-HMAC-SHA256', h['x-acs-content-sha256'], parts['Credential'],
                                           key['secret'])
        with self.lock:
            self.signed.append((action, h['authorization'], expected))
        if h['authorization'] != expected:
            return error(400, 'SignatureDoesNotMatch', 'Specified signature is not matched with our calculation.')
        with self.lock:
            if h['x-acs-signature-nonce'] in self.nonces:
                return error(400, 'SignatureNonceUsed', 'Specified signature nonce was used already.')
            self.nonces.add(h['x-acs-signature-nonce'])
        if key['actions'] is not None and action not in key['actions']:
            return error(403, 'Forbidden.RAM', 'User not authorized to operate on the specified resource, or this '
                                               'API doesn\'t support RAM.')
        unknown = sorted(set(req.query) - sdk_fields(models, action))
        if unknown:
            return invalid(unknown[0])
        for name in REQUIRED[action]:
            if not req.query.get(name):
                return missing(name)
        req.params = req.query
        return None

    # --- operations ----------------------------------------------------------------------------
    def unknown(self, req):
        return error(404, 'InvalidAction.NotFound', 'Specified api is not found, please check your url and method.')

    def list_zones(self, req):
        """ListSites: SiteName with SiteSearchType (exact by default), PageNumber, PageSize."""
        p = req.params
        page, size = number(p.get('PageNumber', 1), 1, 10 ** 6), number(p.get('PageSize', 500), 1, 500)
        if page is None or size is None:
            return invalid('PageSize')
        found = [s for s in self.sites.values() if 'SiteName' not in p
                 or name_matches(s['SiteName'], p['SiteName'], p.get('SiteSearchType', 'exact'))]
        shown = found[(page - 1) * size:page * size]
        return answer({'TotalCount': len(found), 'PageNumber': page, 'PageSize': size,
                       'Sites': [dict(s) for s in shown]})

    def list_records(self, req):
        """ListRecords: the site's records by RecordName and RecordMatchType (exact by default), Type;
        an empty result is an empty list."""
        p = req.params
        site = self._site(p['SiteId'])
        if site is None:
            return error(404, 'Site.NotFound', 'The site does not exist.')
        page, size = number(p.get('PageNumber', 1), 1, 10 ** 6), number(p.get('PageSize', 500), 1, 500)
        if page is None or size is None:
            return invalid('PageSize')
        found = [r for r in self.records.values() if r['SiteId'] == site['SiteId']
                 and ('RecordName' not in p or name_matches(r['name'], p['RecordName'], p.get('RecordMatchType', 'exact')))
                 and p.get('Type', r['RecordType']) == r['RecordType']]
        shown = found[(page - 1) * size:page * size]
        return answer({'TotalCount': len(found), 'PageNumber': page, 'PageSize': size,
                       'Records': [self._public(r) for r in shown]})

    def get_record(self, req):
        held = self._record(req.params['RecordId'])
        if held is None:
            return error(404, 'Record.NotFound', 'The record does not exist.')
        return answer({'RecordModel': self._public(held)})

    def create_record(self, req):
        p = req.params
        site = self._site(p['SiteId'])
        if site is None:
            return error(404, 'Site.NotFound', 'The site does not exist.')
        record = {'name': p['RecordName'].lower().rstrip('.'), 'RecordType': p['Type']}
        refused = self._checked(site, record, p)
        if refused:
            return refused
        rid = self.add_record(site['SiteId'], record['name'], record['RecordType'], record['content'],
                              ttl=record['Ttl'], proxied=record['Proxied'], biz_name=record['BizName'],
                              comment=record['Comment'])
        return answer({'RecordId': rid})

    def update_record(self, req):
        """UpdateRecord: Data as sent; Type kept when not sent; Ttl, Proxied, BizName and Comment as
        sent, else back to automatic, off, none."""
        p = req.params
        held = self._record(p['RecordId'])
        if held is None:
            return error(404, 'Record.NotFound', 'The record does not exist.')
        record = {'name': held['name'], 'RecordType': p.get('Type', held['RecordType'])}
        refused = self._checked(self.sites[held['SiteId']], record, dict({'Ttl': '1'}, **p), ignore=held)
        if refused:
            return refused
        held.update(record, UpdateTime=_now())
        return answer({})

    def delete_record(self, req):
        held = self._record(req.params['RecordId'])
        if held is None:
            return error(404, 'Record.NotFound', 'The record does not exist.')
        del self.records[held['RecordId']]
        return answer({})

    # --- helpers -------------------------------------------------------------------------------
    def _site(self, text):
        site_id = number(text, 0, 2 ** 63)
        return self.sites.get(site_id)

    def _record(self, text):
        return self.records.get(number(text, 0, 2 ** 63))

    def _checked(self, site, record, p, ignore=None):
        """Fill record from the parameters p (Data, Ttl, Proxied, BizName, Comment), or the answer
        refusing it (the site's names, the type, the value, the TTL, proxying, a clash)."""
        if not (record['name'] == site['SiteName'] or record['name'].endswith('.' + site['SiteName'])):
            return invalid('RecordName')
        if record['RecordType'] not in TYPES:
            return invalid('Type')
        try:
            data = json.loads(p['Data'])
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get('Value'), str):
            return invalid('Data')
        if record['RecordType'] == 'A/AAAA':
            try:
                ipaddress.ip_address(data['Value'])
            except ValueError:
                return invalid('Data.Value')
        ttl = number(p['Ttl'], 1, 86400)
        if ttl is None or 1 < ttl < 30:
            return invalid('Ttl')
        proxied = boolean(p.get('Proxied', 'false'))
        biz = p.get('BizName')
        if proxied is None or biz is not None and biz not in BIZ_NAMES or proxied and biz is None:
            return invalid('Proxied' if proxied is None else 'BizName')
        if site['AccessType'] == 'CNAME' and not proxied:
            return error(400, 'Record.ProxyRequired', 'A site connected by CNAME takes proxied records only.')
        record.update(content=data['Value'], data=data, Ttl=ttl, Proxied=proxied, BizName=biz if proxied else None,
                      Comment=p.get('Comment'))
        for other in self.records.values():
            if other is ignore or other['SiteId'] != site['SiteId'] or other['name'] != record['name']:
                continue
            if other['RecordType'] == record['RecordType'] and other['content'] == record['content']:
                return error(400, 'Record.Duplicate', 'The record already exists.')
            if 'CNAME' in (other['RecordType'], record['RecordType']) and other['RecordType'] != record['RecordType']:
                return error(400, 'Record.Conflict', 'The record conflicts with a CNAME record of the name.')
        return None

    def _public(self, r):
        """A record as the API shows it (ListRecords' Records, GetRecord's RecordModel)."""
        shown = {'RecordId': r['RecordId'], 'RecordName': r['name'], 'RecordType': r['RecordType'],
                 'Data': dict(r.get('data') or {}, Value=r['content']), 'Ttl': r['Ttl'], 'Proxied': r['Proxied'],
                 'SiteId': r['SiteId'], 'SiteName': self.sites[r['SiteId']]['SiteName'],
                 'RecordCname': '%s.cdn.example-esa.net' % r['name'] if r['Proxied'] else None,
                 'CreateTime': r['CreateTime'], 'UpdateTime': r['UpdateTime'], 'BizName': r['BizName'],
                 'Comment': r['Comment']}
        return {k: v for k, v in shown.items() if v is not None}


def _family(value):
    try:
        return 'AAAA' if ipaddress.ip_address(value).version == 6 else 'A'
    except ValueError:
        return None


def _now():
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
