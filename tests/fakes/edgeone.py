"""Fake Tencent Cloud EdgeOne (TEO API 3.0, version 2022-09-01): sites (zones) and their DNS records
(full name, type, Location, TTL, weight, priority, status), every action a POST to '/' named by
X-TC-Action, each request's TC3-HMAC-SHA256 signature checked by the official SDK's own signing code
(tencentcloud-sdk-python-common) and its fields, nested ones too, against the SDK's request models
(tencentcloud-sdk-python-teo); answers in the API's shapes: {"Response": {..., "RequestId"}}, errors
{"Response": {"Error": {"Code", "Message"}, "RequestId"}} with HTTP 200, as the API sends them.

The SDK is the only oracle (no copy of the algorithm here): without it every request is refused, and
the tests that need this fake say so (tests/needs.py). Where the reference leaves a reading open, the
fake takes the strict one: ModifyDnsRecords resets what it is not sent (TTL 300, weight -1, priority
0, Location Default); a site the account does not have is ResourceNotFound.ZoneNotFound; a record id
it does not have, ResourceNotFound."""

import io
import ipaddress
import itertools
import json
import re
import time
import uuid

from fakes.base import FakeServer, RecordStore
from fakes.tc3 import Gateway, answer, error, sdk_signature

TYPES = ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'CAA', 'SRV')
DEFAULTS = {'TTL': 300, 'Weight': -1, 'Priority': 0, 'Location': 'Default'}
# resolution lines the fake knows (the standard plan's own codes are not confirmed: these stand for them)
LOCATIONS = ('Default', 'Overseas', 'Mainland')
# the actions the tool calls -> the routes named after the loop's steps (DescribeDnsRecords by one id
# is the read of a record, any other listing the lookup by name)
ROUTES = {'DescribeZones': 'list_zones', 'CreateDnsRecord': 'create_record', 'ModifyDnsRecords': 'update_record',
          'DeleteDnsRecords': 'delete_record'}
# what the reference marks required (the models do not say)
REQUIRED = {'DescribeZones': (), 'DescribeDnsRecords': ('ZoneId',), 'CreateDnsRecord': ('ZoneId', 'Name', 'Type',
            'Content'), 'ModifyDnsRecords': ('ZoneId', 'DnsRecords'), 'DeleteDnsRecords': ('ZoneId', 'RecordIds')}
ZONE_GONE = ('ResourceNotFound.ZoneNotFound', 'The site does not exist or does not belong to this account.')
_ids = itertools.count(1)




def sdk():
    """The SDK's signing code, client and models, or None when it is not installed."""
    try:
        from tencentcloud.common.abstract_client import AbstractClient
        from tencentcloud.common.http.request import RequestInternal
        from tencentcloud.teo.v20220901 import models, teo_client
    except ImportError:
        return None
    return AbstractClient, RequestInternal, teo_client.TeoClient, models



def model_fields(models, name):
    """{field: its :rtype: text} of an SDK model class ('int', 'list of AdvancedFilter', ...)."""
    cls = getattr(models, name)
    types = {}
    for attribute in vars(cls()):
        if attribute == '_headers':
            continue
        doc = getattr(cls, attribute[1:]).__doc__ or ''
        found = re.search(r':rtype: (.+)', doc)
        types[attribute[1:]] = found.group(1).strip() if found else 'str'
    return types


def model_problem(models, name, value, where=''):
    """Why value does not fit the SDK model name (a field it lacks, a wrong type), as (code, message),
    or None."""
    if not isinstance(value, dict):
        return 'InvalidParameter', 'The value type of parameter `%s` is not valid.' % (where.rstrip('.') or name)
    fields = model_fields(models, name)
    for key, item in value.items():
        if key not in fields:
            return 'UnknownParameter', 'The parameter `%s%s` is not recognized.' % (where, key)
        problem = type_problem(models, fields[key], item, '%s%s' % (where, key))
        if problem:
            return problem
    return None


def type_problem(models, rtype, value, where):
    """Why value is not of the model's type rtype, as (code, message), or None."""
    bad = ('InvalidParameter', 'The value type of parameter `%s` is not valid.' % where)
    simple = {'int': int, 'str': str, 'bool': bool, 'float': (int, float)}
    if rtype in simple:
        wrong_bool = isinstance(value, bool) and rtype != 'bool'
        return bad if wrong_bool or not isinstance(value, simple[rtype]) else None
    if rtype.startswith('list of '):
        if not isinstance(value, list):
            return bad
        for n, item in enumerate(value):
            problem = type_problem(models, rtype[len('list of '):], item, '%s.%d' % (where, n))
            if problem:
                return problem
        return None
    name = rtype.split('.')[-1].rstrip('`') if rtype.startswith(':class:') else rtype
    if not isinstance(value, dict):
        return bad
    return model_problem(models, name, value, where + '.')


def matches(record, flt):
    """True when a record meets one of DescribeDnsRecords' filters (id, name, content: fuzzy when
    asked; type, ttl: exact)."""
    key = {'id': 'RecordId', 'name': 'name', 'content': 'content', 'type': 'Type', 'ttl': 'TTL'}.get(flt.get('Name'))
    if key is None:
        return False
    held = str(record[key])
    values = [str(v) for v in flt.get('Values', [])]
    if flt.get('Fuzzy') and flt['Name'] in ('id', 'name', 'content'):
        return any(v in held for v in values)
    return held in values


class EdgeOne(Gateway, RecordStore, FakeServer):
    """Routes list_zones, list_records, get_record (DescribeDnsRecords by one id), create_record,
    update_record, delete_record (and other_action: any other X-TC-Action), all POST /."""
    TYPE = 'Type'
    LINE = 'Location'

    PROVIDER = LETTER = 'edgeone'   # the registry's provider it plays; the sandbox's provider_edgeone

    def __init__(self, secret_id='AKIDeo8krbsJ5yKBZQpn74WFkmLPx3gnPhE1', secret_key='Eo5t9xGARNpq86cd98joQYCN3Cozk1qB',
                 tls_cert=None):
        super().__init__(tls_cert)
        self.keys = {secret_id: secret_key}   # SecretId -> SecretKey
        self.secret_id, self.secret_key = secret_id, secret_key
        self.zones = {}         # ZoneId -> site
        self.records = {}       # RecordId -> record ('name' and 'content': what the tests read and set)
        self.skew = 0           # seconds the provider's clock is ahead of ours
        self.allowed = None     # the CAM actions the key may call (None: every one)
        self.oracle = sdk()     # the SDK's code, or None: every request is refused
        self.signatures = []    # (action, the signature the SDK computed): each request checked
        for route in ('list_zones', 'list_records', 'get_record', 'create_record', 'update_record', 'delete_record',
                      'other_action'):
            self.route(route, 'POST', '/', getattr(self, route), guard=self._auth, header=('X-Fake-Route', route))

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_SECRET_ID': self.secret_id, 'DDNS_SECRET_KEY': self.secret_key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, kind='full'):
        """A site connected in NS mode (kind 'full'); its ZoneId, what the tool keeps."""
        zone_id = 'zone-%s' % uuid.uuid4().hex[:12]
        self.zones[zone_id] = {'ZoneId': zone_id, 'ZoneName': name, 'Type': kind, 'Status': 'active',
                               'Area': 'mainland', 'ActiveStatus': 'active', 'Paused': False}
        return zone_id

    def add_record(self, zone_id, name, rtype, content, ttl=300, location='Default', weight=-1, priority=0,
                   status='enable'):
        """A record of the site zone_id named name (the full name), as a user made it."""
        rid = 'record-%012x' % next(_ids)
        self.records[rid] = {'RecordId': rid, 'ZoneId': zone_id, 'name': name, 'Type': rtype, 'content': content,
                             'Location': location, 'TTL': ttl, 'Weight': weight, 'Priority': priority,
                             'Status': status, 'CreatedOn': _now(), 'ModifiedOn': _now()}
        return rid

    # --- routing: the action, and for a listing whether it reads one record by its id -------------
    def _dispatch(self, h):
        length = int(h.headers.get('Content-Length') or 0)
        body = h.rfile.read(length) if length else b''
        real, h.rfile = h.rfile, io.BytesIO(body)
        try:
            del h.headers['X-Fake-Route']   # a client's own is not taken
            h.headers['X-Fake-Route'] = self._route_of(h.headers.get('X-TC-Action', ''), body)
            return super()._dispatch(h)
        finally:
            h.rfile = real

    @staticmethod
    def _route_of(action, body):
        if action != 'DescribeDnsRecords':
            return ROUTES.get(action, 'other_action')
        try:
            filters = json.loads(body or b'{}').get('Filters') or []
            by_id = len(filters) == 1 and filters[0].get('Name') == 'id'
        except (ValueError, AttributeError, TypeError):
            by_id = False
        return 'get_record' if by_id else 'list_records'

    # --- the API gateway: version, timestamp, credentials, signature, CAM, fields ----------------
    def _auth(self, req):
        if self.oracle is None:
            return error('InternalError', 'the fake checks each signature with tencentcloud-sdk-python-common and '
                                          'tencentcloud-sdk-python-teo: not installed')
        _, _, client, models = self.oracle
        refused = self.refusal(req, client._apiVersion, client._service,
                               lambda *request: sdk_signature(self.oracle, *request[:-1], client._service, request[-1]))
        if refused:
            return refused
        if req.action not in REQUIRED:
            return None   # other_action answers
        if self.allowed is not None and req.action not in self.allowed:
            return error('AuthFailure.UnauthorizedOperation', 'The request is not authorized: the CAM policy '
                                                              'does not allow teo:%s.' % req.action)
        return self._fields(req, models)

    def _fields(self, req, models):
        """The body against the action's request model, nested models too: unknown fields, types,
        required ones; then the site the request names."""
        try:
            body = json.loads(req.body or b'{}')
        except ValueError:
            return error('InvalidParameter', 'The request body is not JSON.')
        if not isinstance(body, dict):
            return error('InvalidParameter', 'The request body must be a JSON object.')
        problem = model_problem(models, req.action + 'Request', body)
        if problem:
            return error(*problem)
        missing = [name for name in REQUIRED[req.action] if name not in body]
        if missing:
            return error('MissingParameter', 'The request is missing a required parameter `%s`.' % missing[0])
        req.params = body
        if 'ZoneId' in body and body['ZoneId'] not in self.zones:
            return error(*ZONE_GONE)
        return None

    def now(self):
        return time.time() + self.skew

    # --- actions -------------------------------------------------------------------------------
    def other_action(self, req):
        return error('InvalidAction', 'The action %s does not exist.' % req.action)

    def list_zones(self, req):
        """DescribeZones: zone-name (exact, or fuzzy) and zone-id filters, Offset and Limit."""
        p = req.params
        offset, limit = p.get('Offset', 0), p.get('Limit', 20)
        if not 0 < limit <= 100 or offset < 0:
            return error('InvalidParameter', 'Limit must be 1 to 100 and Offset not negative.')
        found = list(self.zones.values())
        for flt in p.get('Filters', []):
            key = {'zone-name': 'ZoneName', 'zone-id': 'ZoneId', 'zone-type': 'Type', 'status': 'Status'}.get(
                flt.get('Name'))
            if key is None:
                return error('InvalidParameter', 'Filters.Name %s is not supported.' % flt.get('Name'))
            values = flt.get('Values', [])
            found = [z for z in found if (any(v in z[key] for v in values) if flt.get('Fuzzy') else z[key] in values)]
        return answer(TotalCount=len(found), Zones=[dict(z) for z in found[offset:offset + limit]])

    def list_records(self, req):
        """DescribeDnsRecords: the site's records meeting all (Match all) or any of the filters; an
        empty result is an empty list."""
        p = req.params
        offset, limit = p.get('Offset', 0), p.get('Limit', 20)
        if not 0 < limit <= 1000 or offset < 0:
            return error('InvalidParameter', 'Limit must be 1 to 1000 and Offset not negative.')
        filters = p.get('Filters', [])
        combine = any if p.get('Match', 'all') == 'any' else all
        found = [r for r in self.records.values() if r['ZoneId'] == p['ZoneId']
                 and (not filters or combine(matches(r, flt) for flt in filters))]
        return answer(TotalCount=len(found), DnsRecords=[_public(r) for r in found[offset:offset + limit]])

    get_record = list_records

    def create_record(self, req):
        p = req.params
        record = dict(DEFAULTS, **{k: v for k, v in p.items() if k in DEFAULTS})
        record.update(name=p['Name'].lower().rstrip('.'), Type=p['Type'], content=p['Content'])
        refused = self._checked(p['ZoneId'], record)
        if refused:
            return refused
        rid = self.add_record(p['ZoneId'], record['name'], record['Type'], record['content'], ttl=record['TTL'],
                              location=record['Location'], weight=record['Weight'], priority=record['Priority'])
        return answer(RecordId=rid)

    def update_record(self, req):
        """ModifyDnsRecords: each record's name, type and content as sent (kept when not sent), and its
        TTL, weight, priority and Location as sent, else back to their defaults; all or none."""
        p = req.params
        if not 0 < len(p['DnsRecords']) <= 100:
            return error('InvalidParameter', 'DnsRecords must hold 1 to 100 records.')
        changes = []
        for sent in p['DnsRecords']:
            held = self.records.get(sent.get('RecordId'))
            if held is None or held['ZoneId'] != p['ZoneId']:
                return error('ResourceNotFound', 'The DNS record does not exist.')
            record = dict(DEFAULTS, **{k: v for k, v in sent.items() if k in DEFAULTS})
            record.update(name=str(sent.get('Name', held['name'])).lower().rstrip('.'),
                          Type=sent.get('Type', held['Type']), content=sent.get('Content', held['content']))
            refused = self._checked(p['ZoneId'], record, ignore=held)
            if refused:
                return refused
            changes.append((held, record))
        for held, record in changes:
            held.update(record, ModifiedOn=_now())
        return answer()

    def delete_record(self, req):
        p = req.params
        ids = p['RecordIds']
        if any(self.records.get(rid, {}).get('ZoneId') != p['ZoneId'] for rid in ids):
            return error('ResourceNotFound', 'The DNS record does not exist.')
        for rid in ids:
            del self.records[rid]
        return answer()

    def _checked(self, zone_id, record, ignore=None):
        """The answer refusing a record the API refuses (name, type, content, line, TTL, weight, a
        clash with another record), else None."""
        zone = self.zones[zone_id]['ZoneName']
        name = record['name']
        if not (name == zone or name.endswith('.' + zone)) or not re.match(r'^[a-z0-9_*.-]+$', name):
            return error('InvalidParameterValue.InvalidDNSName', 'DNS record name is invalid.')
        if record['Type'] not in TYPES:
            return error('InvalidParameter', 'Type %s is not supported.' % record['Type'])
        if record['Type'] in ('A', 'AAAA'):
            try:
                family = ipaddress.ip_address(record['content']).version
            except ValueError:
                family = None
            if family != (4 if record['Type'] == 'A' else 6):
                return error('InvalidParameterValue.InvalidDNSContent', 'DNS record content is invalid.')
        if record['Location'] not in LOCATIONS:
            return error('InvalidParameterValue', 'Location %s is not supported.' % record['Location'])
        if not 60 <= record['TTL'] <= 86400 or not -1 <= record['Weight'] <= 100 or not 0 <= record['Priority'] <= 50:
            return error('InvalidParameterValue', 'TTL, Weight or Priority is out of range.')
        for other in self.records.values():
            if other is ignore or other['ZoneId'] != zone_id or other['name'] != name:
                continue
            same = other['Type'] == record['Type'] and other['content'] == record['content'] \
                and other['Location'] == record['Location']
            if same or 'CNAME' in (other['Type'], record['Type']) and other['Type'] != record['Type']:
                return error('InvalidParameterValue.ConflictRecord', 'The record conflicts with an existing one.')
        return None


def _public(r):
    """A record as DescribeDnsRecords lists it (DnsRecord)."""
    return {'ZoneId': r['ZoneId'], 'RecordId': r['RecordId'], 'Name': r['name'], 'Type': r['Type'],
            'Location': r['Location'], 'Content': r['content'], 'TTL': r['TTL'], 'Weight': r['Weight'],
            'Priority': r['Priority'], 'Status': r['Status'], 'CreatedOn': r['CreatedOn'],
            'ModifiedOn': r['ModifiedOn']}


def _now():
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
