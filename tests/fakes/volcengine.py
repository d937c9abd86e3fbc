"""Fake Volcengine TrafficRoute DNS (OpenAPI 2018-08-01): zones (ZID), records by RecordID (host,
type, line, value, TTL, weight, remark, enable), access keys with an optional policy.

Every action goes to '/', named by the Action and Version of the query: each action is a named route
here (list_zones, list_records, get_record, create_record, update_record, delete_record; the request
log's path shows the action). Parameters come as a JSON body (the official SDK POSTs every action so)
or, for a GET, in the query. Each request's Authorization is checked against the one the official
SDK's own signer (volcenginesdk-core's SignerV4.sign, its clock set to the request's X-Date) makes
for the same method, path, query, signed headers and body, and a request is refused as the gateway
refuses it: MissingAuthenticationToken, InvalidActionOrVersion, InvalidTimestamp, InvalidAccessKey,
SignatureDoesNotMatch, AccessDenied; the fields of each action's body against the SDK's request model
(volcenginesdk-dns), refused as ErrParamInvalid. Answers {"ResponseMetadata": {...}, "Result": {...}}
and errors {"ResponseMetadata": {..., "Error": {"CodeN", "Code", "Message"}}} with their HTTP status.

UpdateRecord sets what it is not sent to the API's defaults (TTL 600, weight 1, no remark), the
older of the two readings of its reference, so that a client that does not send them back is seen.
Without the SDK installed (a developer's machine) the fake signs with its own copy of the algorithm
and knows the fields from FIELDS; tests/test_volcengine.py checks both against the SDK."""

import datetime
import hashlib
import hmac
import ipaddress
import itertools
import json
import re
import threading
import time
import uuid
from urllib.parse import parse_qs, quote, urlsplit

from fakes.base import FakeServer, RecordStore, Reply

VERSION, SERVICE = '2018-08-01', 'dns'
SKEW = 900            # seconds a request's X-Date may be off the server's clock (X-Expires' default)
DEFAULT_TTL, DEFAULT_WEIGHT = 600, 1
LINES = ('default',)  # the line values the fake takes: the one the reference documents
TYPES = ('A', 'AAAA', 'CNAME', 'NS', 'MX', 'SRV', 'TXT', 'CAA')
ROUTES = {'ListZones': 'list_zones', 'ListRecords': 'list_records', 'QueryRecord': 'get_record',
          'CreateRecord': 'create_record', 'UpdateRecord': 'update_record', 'DeleteRecord': 'delete_record'}
# each action's request fields and their types, as the SDK's request models (5.0.54) have them: the
# copy used when the SDK is not installed (test_volcengine checks it against the models)
FIELDS = {
    'ListZones': {'Key': str, 'OrderKey': str, 'PageNumber': int, 'PageSize': int, 'ProjectName': str,
                  'SearchMode': str, 'SearchOrder': str, 'Stage': str, 'TagFilters': list, 'TradeCode': str},
    'ListRecords': {'Host': str, 'Line': str, 'PageNumber': int, 'PageSize': int, 'SearchMode': str,
                    'SearchOrder': str, 'Type': str, 'Value': str, 'ZID': int},
    'QueryRecord': {'FQDN': str, 'Line': str, 'PQDN': str, 'ProjectName': str, 'RecordID': str, 'Type': str,
                    'Value': str},
    'CreateRecord': {'Host': str, 'Line': str, 'Remark': str, 'TTL': int, 'Type': str, 'Value': str, 'Weight': int,
                     'ZID': int},
    'UpdateRecord': {'Host': str, 'Line': str, 'ProjectName': str, 'RecordID': str, 'Remark': str, 'TTL': int,
                     'Type': str, 'Value': str, 'Weight': int},
    'DeleteRecord': {'ProjectName': str, 'RecordID': str},
}
# what the SDK's models refuse to be None (their setters' client-side validation)
REQUIRED = {'ListZones': (), 'ListRecords': ('ZID',), 'QueryRecord': (),
            'CreateRecord': ('Host', 'Type', 'Value', 'ZID'),
            'UpdateRecord': ('Host', 'Line', 'RecordID'), 'DeleteRecord': ('RecordID',)}
AUTHORIZATION = re.compile(r'HMAC-SHA256 Credential=([^/, ]+)/(\d{8})/([a-z0-9-]+)/([a-z_]+)/request, '
                           r'SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$')
# the gateway's and the DNS API's errors: code -> (CodeN, HTTP status)
ERRORS = {'MissingAuthenticationToken': (100003, 401), 'InvalidTimestamp': (100006, 400),
          'InvalidActionOrVersion': (100008, 404), 'InvalidAccessKey': (100009, 401),
          'SignatureDoesNotMatch': (100010, 401), 'AccessDenied': (100013, 403),
          'ErrParamInvalid': (400102, 400), 'ErrDBDuplicated': (400103, 409), 'ErrDBNotFound': (400104, 400),
          'ErrZoneNotFound': (400105, 400), 'ErrHostCanNotBeEmpty': (400130, 400), 'ErrPageSizeNotValid': (400132, 400)}
_ids = itertools.count(1)
_SIGNING = threading.Lock()   # the SDK's signer reads its module's clock: one request at a time


def sdk():
    """The SDK's signer and request models, or None when it is not installed."""
    try:
        from volcenginesdkcore import signv4
        from volcenginesdkdns import models
    except ImportError:
        return None
    return signv4, models


def sdk_fields(models, action):
    """{field: type} of an action's request model, from its swagger_types."""
    cls = getattr(models, action + 'Request')
    kinds = {'int': int, 'str': str, 'bool': bool}
    return {cls.attribute_map[name]: kinds.get(kind, list if kind.startswith('list[') else dict)
            for name, kind in cls.swagger_types.items()}


def sdk_authorization(signv4, method, path, headers, body, query, key_id, secret, region, service, x_date):
    """The Authorization header the SDK's own SignerV4.sign makes for this request at X-Date."""
    stamp = datetime.datetime.strptime(x_date, '%Y%m%dT%H%M%SZ')

    class Clock(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return stamp

    class Module:   # what signv4 reads as its datetime module
        datetime = Clock

    with _SIGNING:
        saved, signv4.datetime = signv4.datetime, Module
        try:
            made = dict(headers)
            signv4.SignerV4.sign(path, method, made, body, [], dict(query), key_id, secret, region, service)
        finally:
            signv4.datetime = saved
    return made['Authorization']


def own_authorization(method, path, headers, body, query, key_id, secret, region, service, x_date):
    """The same, by the algorithm of the signature document (the copy used without the SDK)."""
    digest = hashlib.sha256(body.encode('utf-8')).hexdigest()
    signed = {k.lower(): v for k, v in headers.items()}
    signed.update({'x-date': x_date, 'x-content-sha256': digest})
    names = sorted(signed)
    canonical_query = '&'.join('%s=%s' % (quote(k, safe='-_.~'), quote(str(v), safe='-_.~'))
                               for k, v in sorted(query.items()))
    text = '\n'.join([method, path, canonical_query, ''.join('%s:%s\n' % (k, signed[k]) for k in names),
                      ';'.join(names), digest])
    scope = '%s/%s/%s/request' % (x_date[:8], region, service)
    to_sign = '\n'.join(['HMAC-SHA256', x_date, scope, hashlib.sha256(text.encode('utf-8')).hexdigest()])
    key = secret.encode('utf-8')
    for part in (x_date[:8], region, service, 'request'):
        key = hmac.new(key, part.encode('utf-8'), hashlib.sha256).digest()
    return 'HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s' % (
        key_id, scope, ';'.join(names), hmac.new(key, to_sign.encode('utf-8'), hashlib.sha256).hexdigest())


def metadata(action):
    return {'RequestId': time.strftime('%Y%m%d%H%M%S') + uuid.uuid4().hex[:20].upper(), 'Action': action,
            'Version': VERSION, 'Service': SERVICE, 'Region': 'cn-north-1'}


def answer(action, result):
    body = {'ResponseMetadata': metadata(action)}
    if result is not None:
        body['Result'] = result
    return Reply(200, body)


def error(action, code, message):
    number, status = ERRORS[code]
    return Reply(status, {'ResponseMetadata': dict(metadata(action), Error={'CodeN': number, 'Code': code,
                                                                            'Message': message})})


class Volcengine(RecordStore, FakeServer):
    """Routes list_zones, list_records, get_record, create_record, update_record, delete_record (and
    unknown_action), each GET or POST /, by the query's Action."""
    TYPE = 'Type'

    PROVIDER = LETTER = 'volcengine'   # the registry's provider it plays; the sandbox's provider_volcengine

    def __init__(self, key_id='AKLTZmFrZWFjY2Vzc2tleWlkMDE', secret='TmpZeFlXWmhhMlZ6WldOeVpYUnJaWGt3TVE==',
                 tls_cert=None):
        super().__init__(tls_cert)
        self.key_id, self.secret = key_id, secret
        self.keys = {key_id: {'secret': secret, 'actions': None}}   # actions: its policy's (None: all)
        self.zones = {}          # ZID -> zone object
        self.records = {}        # RecordID -> record ('name' and 'content': what the tests read and set)
        self.oracle = sdk()      # the SDK's code, or None: the fake's own copies
        self.signed = []         # (action, the Authorization sent, the SDK's) of every signed request checked
        for action, name in ROUTES.items():
            for method in ('GET', 'POST'):
                self.route(name, method, '/' + action, getattr(self, name), guard=self._auth)
        for method in ('GET', 'POST'):
            self.route('unknown_action', method, '/[^/]*', self.unknown, guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_ACCESS_KEY_ID': self.key_id, 'DDNS_SECRET_ACCESS_KEY': self.secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A zone of the account; its id (what the tool keeps) is its ZID as text."""
        zid = 10000 + len(self.zones) + 1
        self.zones[zid] = {'ZID': zid, 'ZoneName': name, 'RecordCount': 0, 'TradeCode': 'free_inner',
                           'InstanceID': '', 'IsSubDomain': False, 'ProjectName': 'default', 'Remark': '',
                           'CreatedAt': _now(), 'UpdatedAt': _now()}
        return str(zid)

    def add_record(self, zone_id, name, rtype, content, ttl=DEFAULT_TTL, line='default', weight=DEFAULT_WEIGHT,
                   remark='', enable=True):
        """A record of the zone zone_id (its ZID, as text or a number) named name (the full name)."""
        zid = int(zone_id)
        rid = str(3170534137670000000 + next(_ids))
        self.records[rid] = {'RecordID': rid, 'ZID': zid, 'name': name, 'Type': rtype, 'content': content,
                             'Line': line, 'TTL': ttl, 'Weight': weight, 'Remark': remark, 'Enable': enable,
                             'CreatedAt': _now(), 'UpdatedAt': _now()}
        return rid

    def by_line(self, name, rtype='A'):
        """{line: sorted values} of the records of this name and type, the default line's under None:
        the tool keeps every line's address as a record of the name on the default line (SEVERAL)."""
        held = {}
        for r in self.find(name, rtype):
            held.setdefault(None if r['Line'] == 'default' else r['Line'], []).append(r['content'])
        return {line: sorted(values) for line, values in held.items()}

    # --- routing -------------------------------------------------------------------------------
    def _dispatch(self, h):
        # one path for every action: the query's Action names the route (the log shows it as the path)
        split = urlsplit(h.path)
        action = parse_qs(split.query).get('Action', [''])[0]
        if split.path == '/':
            h.path = '/%s?%s' % (quote(action, safe=''), split.query)
        return super()._dispatch(h)

    def seen(self, req):
        req.action = req.query.get('Action', '')

    # --- the gateway: credentials, time, signature, policy; then the action's fields ---------------
    def _auth(self, req):
        action = req.query.get('Action', '')
        if 'authorization' not in req.headers:
            return error(action, 'MissingAuthenticationToken', 'Request is missing Authentication Token')
        if action not in ROUTES or req.query.get('Version') != VERSION:
            return error(action, 'InvalidActionOrVersion', 'Could not find operation %s for version %s'
                         % (action, req.query.get('Version')))
        x_date = req.headers.get('x-date', '')
        try:
            sent = datetime.datetime.strptime(x_date, '%Y%m%dT%H%M%SZ').replace(tzinfo=datetime.timezone.utc)
        except ValueError:
            return error(action, 'InvalidTimestamp', 'The request timestamp %r is not valid.' % x_date)
        if abs(sent.timestamp() - (time.time() + self.clock_offset)) > SKEW:
            return error(action, 'InvalidTimestamp', 'The request signature we calculated has expired.')
        match = AUTHORIZATION.match(req.headers['authorization'])
        if not match:
            return error(action, 'SignatureDoesNotMatch', 'The Authorization header is malformed.')
        key_id, date, region, service, signed, _ = match.groups()
        key = self.keys.get(key_id)
        if key is None:
            return error(action, 'InvalidAccessKey', 'The AccessKey ID %s is invalid.' % key_id)
        names = signed.split(';')
        expected = None
        if date == x_date[:8] and service == SERVICE and {'host', 'x-date'} <= set(names):
            expected = self._expected(req, names, key_id, key['secret'], region, x_date)
        with self.lock:
            self.signed.append((action, req.headers['authorization'], expected))
        if expected is None or not hmac.compare_digest(expected, req.headers['authorization']):
            return error(action, 'SignatureDoesNotMatch', 'The request signature we calculated does not match '
                                                          'the signature you provided.')
        if key['actions'] is not None and action not in key['actions']:
            return error(action, 'AccessDenied', 'User is not authorized to perform: dns:%s' % action)
        return self._fields(req, action)

    def _expected(self, req, names, key_id, secret, region, x_date):
        """The Authorization the signer makes for the headers the request signed, or None when it
        signed one the SDK never signs (the SDK signs Content-Type, Content-Md5, Host and X-*)."""
        spelled = {'host': 'Host', 'content-type': 'Content-Type', 'content-md5': 'Content-Md5'}
        headers = {}
        for name in names:
            if name in ('x-date', 'x-content-sha256'):
                continue   # the signer sets both itself
            if name not in spelled and not name.startswith('x-'):
                return None
            headers[spelled.get(name, 'X-' + name[2:])] = req.headers.get(name, '')
        body = req.body.decode('utf-8', 'replace')
        if self.oracle:
            return sdk_authorization(self.oracle[0], req.method, '/', headers, body, req.query, key_id, secret,
                                     region, SERVICE, x_date)
        return own_authorization(req.method, '/', headers, body, req.query, key_id, secret, region, SERVICE, x_date)

    def _fields(self, req, action):
        """The parameters against the action's request model: unknown fields, types, required ones."""
        fields = self.model(action)
        if req.method == 'POST' and req.body:
            try:
                params = json.loads(req.body)
            except ValueError:
                return error(action, 'ErrParamInvalid', 'The request body is not JSON.')
            if not isinstance(params, dict):
                return error(action, 'ErrParamInvalid', 'The request body must be a JSON object.')
        else:   # a GET: the query's parameters, numbers as text
            params = {}
            for name, value in req.query.items():
                if name in ('Action', 'Version'):
                    continue
                params[name] = int(value) if fields.get(name) is int and value.isdigit() else value
        for name, value in params.items():
            kind = fields.get(name)
            if kind is None:
                return error(action, 'ErrParamInvalid', 'The parameter %s is not recognized.' % name)
            if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
                return error(action, 'ErrParamInvalid', 'The value of parameter %s is not valid.' % name)
        missing = [name for name in REQUIRED[action] if params.get(name) is None]
        if missing:
            return error(action, 'ErrParamInvalid', 'The parameter %s is required.' % missing[0])
        req.params = params
        return None

    def model(self, action):
        return sdk_fields(self.oracle[1], action) if self.oracle else FIELDS[action]

    # --- actions -------------------------------------------------------------------------------
    def unknown(self, req):
        return error(req.action, 'InvalidActionOrVersion', 'Could not find operation %s' % req.action)

    def list_zones(self, req):
        """ListZones: Key matched loosely (like, the default) or exactly, pages of PageSize (10, at most 500)."""
        p = req.params
        page, size = p.get('PageNumber', 1), p.get('PageSize', 10)
        if not 1 <= size <= 500 or page < 1:
            return error('ListZones', 'ErrPageSizeNotValid', 'PageSize must be 1 to 500.')
        key, exact = p.get('Key', '').lower(), p.get('SearchMode', 'like') == 'exact'
        found = [z for z in self.zones.values() if not key or (z['ZoneName'] == key if exact else key in z['ZoneName'])]
        shown = found[(page - 1) * size:page * size]
        return answer('ListZones', {'Zones': [dict(z, RecordCount=len(self._zone_records(z['ZID'])))
                                              for z in shown], 'Total': len(found)})

    def list_records(self, req):
        """ListRecords: the zone's records, Host matched loosely (like, the default) or exactly, filtered by
        Type, Line and Value; pages of PageSize (10, at most 500)."""
        p = req.params
        if p['ZID'] not in self.zones:
            return error('ListRecords', 'ErrZoneNotFound', 'The zone is not found.')
        page, size = p.get('PageNumber', 1), p.get('PageSize', 10)
        if not 1 <= size <= 500 or page < 1:
            return error('ListRecords', 'ErrPageSizeNotValid', 'PageSize must be 1 to 500.')
        host, exact = p.get('Host'), p.get('SearchMode', 'like') == 'exact'
        found = [r for r in self._zone_records(p['ZID'])
                 if (host is None or (self._host(r) == host.lower() if exact else host.lower() in self._host(r)))
                 and p.get('Type', r['Type']) == r['Type'] and p.get('Line', r['Line']) == r['Line']
                 and p.get('Value', r['content']) == r['content']]
        if p.get('SearchOrder', 'asc') == 'desc':
            found.reverse()
        shown = found[(page - 1) * size:page * size]
        return answer('ListRecords', {'Records': [self._public(r) for r in shown], 'TotalCount': len(found),
                                      'PageNumber': page, 'PageSize': len(shown)})

    def get_record(self, req):
        record = self.records.get(req.params.get('RecordID'))
        if record is None:
            return error('QueryRecord', 'ErrDBNotFound', 'The record is not found.')
        return answer('QueryRecord', self._public(record))

    def create_record(self, req):
        p = req.params
        if p['ZID'] not in self.zones:
            return error('CreateRecord', 'ErrZoneNotFound', 'The zone is not found.')
        checked = self._checked('CreateRecord', p, p['ZID'])
        if isinstance(checked, Reply):
            return checked
        zone = self.zones[p['ZID']]['ZoneName']
        rid = self.add_record(p['ZID'], _name(checked['Host'], zone), checked['Type'], checked['Value'],
                              ttl=checked['TTL'], line=checked['Line'], weight=checked['Weight'],
                              remark=checked['Remark'])
        return answer('CreateRecord', self._public(self.records[rid]))

    def update_record(self, req):
        """UpdateRecord: Host and Line as sent, Type and Value kept when not sent; TTL, weight and remark
        not sent become the API's defaults."""
        p = req.params
        record = self.records.get(p['RecordID'])
        if record is None:
            return error('UpdateRecord', 'ErrDBNotFound', 'The record is not found.')
        checked = self._checked('UpdateRecord', dict({'Type': record['Type'], 'Value': record['content']}, **p),
                                record['ZID'], ignore=record)
        if isinstance(checked, Reply):
            return checked
        record.update(name=_name(checked['Host'], self.zones[record['ZID']]['ZoneName']), Type=checked['Type'],
                      content=checked['Value'], Line=checked['Line'], TTL=checked['TTL'], Weight=checked['Weight'],
                      Remark=checked['Remark'], UpdatedAt=_now())
        return answer('UpdateRecord', self._public(record))

    def delete_record(self, req):
        if self.records.pop(req.params['RecordID'], None) is None:
            return error('DeleteRecord', 'ErrDBNotFound', 'The record is not found.')
        return answer('DeleteRecord', None)

    # --- helpers -------------------------------------------------------------------------------
    def _zone_records(self, zid):
        return [r for r in self.records.values() if r['ZID'] == zid]

    def _host(self, record):
        return _host(record['name'], self.zones[record['ZID']]['ZoneName'])

    def _public(self, r):
        """A record as the API shows it (RecordForListRecordsOutput, QueryRecordResponse)."""
        return {'RecordID': r['RecordID'], 'Host': self._host(r), 'Type': r['Type'], 'Value': r['content'],
                'Line': r['Line'], 'TTL': r['TTL'], 'Weight': r['Weight'], 'Remark': r['Remark'],
                'Enable': r['Enable'], 'PQDN': r['name'], 'FQDN': r['name'], 'Operators': [], 'Tags': [],
                'RecordSetID': '%d|%s|%s|%s' % (r['ZID'], self._host(r), r['Type'], r['Line']),
                'CreatedAt': r['CreatedAt'], 'UpdatedAt': r['UpdatedAt']}

    def _checked(self, action, p, zid, ignore=None):
        """The record a create or an update makes (defaults filled in), or the error Reply."""
        made = {'Host': p['Host'].lower(), 'Type': p['Type'].upper(), 'Value': p['Value'],
                'Line': p.get('Line') or 'default', 'TTL': p.get('TTL', DEFAULT_TTL),
                'Weight': p.get('Weight', DEFAULT_WEIGHT), 'Remark': p.get('Remark', '')}
        if not made['Host']:
            return error(action, 'ErrHostCanNotBeEmpty', 'Host can not be empty: use @ for the zone itself.')
        if not re.match(r'(@|(\*\.)?[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*)$',
                        made['Host']) and made['Host'] != '*':
            return error(action, 'ErrParamInvalid', 'The parameter Host is not valid.')
        if made['Type'] not in TYPES or made['Line'] not in LINES:
            return error(action, 'ErrParamInvalid', 'The parameter %s is not valid.'
                         % ('Type' if made['Type'] not in TYPES else 'Line'))
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(made['Type'])
        try:
            if family:
                family(made['Value'])
        except ValueError:
            return error(action, 'ErrParamInvalid', 'The parameter Value is not valid.')
        if not 1 <= made['TTL'] <= 86400 or not 0 <= made['Weight'] <= 100 or len(made['Remark']) > 255:
            return error(action, 'ErrParamInvalid', 'The parameter TTL, Weight or Remark is not valid.')
        for other in self._zone_records(zid):
            if other is not ignore and self._host(other) == made['Host'] and other['Type'] == made['Type'] \
                    and other['Line'] == made['Line'] and other['content'] == made['Value']:
                return error(action, 'ErrDBDuplicated', 'The record already exists.')
        return made


def _host(name, zone):
    return '@' if name == zone else name[:-len(zone) - 1]


def _name(host, zone):
    return zone if host == '@' else '%s.%s' % (host, zone)


def _now():
    return time.strftime('%Y-%m-%d %H:%M:%S', time.localtime())
