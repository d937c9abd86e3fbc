"""Fake Baidu AI Cloud DNS (API v1): zones by name, records by id (rr, type, value, line, ttl,
description, priority, status), access keys with an optional policy, clientTokens.

Routes: list_zones (GET /v1/dns/zone), list_records (GET /v1/dns/zone/{zone}/record), get_record (the
same listing by a record's id: ?id=), create_record (POST), update_record (PUT .../record/{id}),
delete_record (DELETE .../record/{id}). Each request's
Authorization is checked against the one the official SDK's own signer (bce-python-sdk's
bce_v1_signer.sign) makes for the same method, path, query and signed headers at the same time, and
a request is refused as the BCE gateway refuses it: AccessDenied (no Authorization, or a policy
without the call), InvalidHTTPAuthHeader, InvalidAccessKeyId, RequestExpired, SignatureDoesNotMatch,
QualifyNotPass; errors {"code", "message", "requestId"} with their HTTP status. Bodies' fields are
those of the official Go SDK's request models (bce-sdk-go services/dns model.go; the Python SDK takes
plain dicts); as the API documents, a field it does not know is ignored (the fake notes it in
unknown_fields).

What the references leave open is played the strict way: the rr filter of a listing matches loosely
(a substring), a create answers no id, an update sets a ttl or description it is not sent to the
defaults (ttl 300, no description), and a record that is gone or already there is refused with codes
the tool must not rely on (NoSuchObject, HTTP 404, the reference's own example; DuplicateRecord,
HTTP 400, a stand-in). A write with a clientToken seen before changes nothing and is answered as the
first one was. Without the SDK installed the fake signs with its own copy of the algorithm;
tests/test_baiducloud.py checks both against the SDK."""

import calendar
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

API = '/v1/dns'
SKEW = 15 * 60         # how far ahead of the server's clock a signing time may be
LINES = ('default', 'ct', 'cnc', 'cmnet', 'edu', 'search')   # the basic and discount editions' lines
TYPES = ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV')
DEFAULT_TTL = 300      # the basic edition's
# the request models' fields (bce-sdk-go services/dns model.go: CreateRecordRequest, UpdateRecordRequest)
FIELDS = {'create_record': ('rr', 'type', 'value', 'ttl', 'line', 'description', 'priority'),
          'update_record': ('rr', 'type', 'value', 'ttl', 'description', 'priority')}
REQUIRED = ('rr', 'type', 'value')
AUTHORIZATION = re.compile(r'bce-auth-v1/([^/]+)/(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/(\d{1,9})/'
                           r'([a-z0-9;-]*)/([0-9a-f]{64})$')
ERRORS = {'AccessDenied': (403, 'Access denied.'),
          'InvalidHTTPAuthHeader': (400, 'The HTTP authorization header is invalid. Consult the service '
                                         'documentation for details.'),
          'InvalidAccessKeyId': (403, 'The Access Key ID you provided does not exist in our records.'),
          'RequestExpired': (400, 'Request has expired.'),
          'SignatureDoesNotMatch': (400, 'The request signature we calculated does not match the signature you '
                                         'provided.'),
          'QualifyNotPass': (403, 'The account has not passed real-name verification.'),
          'InappropriateJSON': (400, 'The JSON you provided was well-formed and valid, but not appropriate for '
                                     'this operation.'),
          'InvalidHTTPRequest': (400, 'There was an error in the body of your HTTP request.'),
          'NoSuchObject': (404, 'The specified object does not exist.'),
          'DuplicateRecord': (400, 'The record already exists.')}
BY_ID = '/@id'         # what the route of a listing by id adds to its path (no request's path has it)
_ids = itertools.count(1)


def error(code, message=None):
    status, text = ERRORS[code]
    return Reply(status, {'code': code, 'message': message or text, 'requestId': str(uuid.uuid4())})


def sdk():
    """The SDK's signer, or None when it is not installed."""
    try:
        from baidubce.auth import bce_v1_signer
        from baidubce.auth.bce_credentials import BceCredentials
    except ImportError:
        return None
    return bce_v1_signer, BceCredentials


def sdk_authorization(oracle, method, path, headers, params, key_id, secret, timestamp, expires, signed):
    """The Authorization the SDK's own bce_v1_signer.sign makes: headers {name: value} of the request,
    signed the names given ([]: the SDK's default set)."""
    signer, credentials = oracle
    made = signer.sign(credentials(key_id, secret), method.encode(), path.encode(),
                       {k.encode(): v.encode() for k, v in headers.items()}, params, timestamp, expires,
                       [name.encode() for name in signed] or None)
    return made.decode()


def own_authorization(method, path, headers, params, key_id, secret, timestamp, expires, signed):
    """The same, by the algorithm of the signing document (the copy used without the SDK)."""
    def enc(text):
        return quote(text, safe='-_.~')
    when = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(timestamp))
    prefix = 'bce-auth-v1/%s/%s/%d' % (key_id, when, expires)
    key = hmac.new(secret.encode(), prefix.encode(), hashlib.sha256).hexdigest()
    wanted = set(signed) or {'host', 'content-md5', 'content-length', 'content-type'}
    canonical_headers = sorted('%s:%s' % (enc(k.lower()), enc(v.strip())) for k, v in headers.items()
                               if v.strip() and (k.lower() in wanted or k.lower().startswith('x-bce-')))
    query = sorted('%s=%s' % (enc(k), enc(v)) for k, v in params.items())
    text = '\n'.join([method, path, '&'.join(query), '\n'.join(canonical_headers)])
    signature = hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()
    return '%s/%s/%s' % (prefix, ';'.join(signed), signature)


class BaiduCloud(RecordStore, FakeServer):
    PROVIDER = LETTER = 'baiducloud'   # the registry's provider it plays; the sandbox's provider_baiducloud
    LINE = 'line'

    def __init__(self, key_id='9c1b6a0f3e2d4c5b8a7f6e5d4c3b2a10', secret='0f1e2d3c4b5a69788796a5b4c3d2e1f0',
                 tls_cert=None):
        super().__init__(tls_cert)
        self.key_id, self.secret = key_id, secret
        # per key: its secret, its policy's routes (None: all), whether its account passed real-name checks
        self.keys = {key_id: {'secret': secret, 'routes': None, 'qualified': True}}
        self.zones = {}          # zone name -> zone object
        self.records = {}        # record id -> record ('name' and 'content': what the tests read and set)
        self.tokens = {}         # clientToken -> the Reply its first write got
        self.unknown_fields = []  # (route, field) of every body field no request model names
        self.oracle = sdk()
        self.sent_path = threading.local()   # the path as sent, of the request this thread serves
        self.signed = []         # (route, the Authorization sent, the SDK's) of every signed request checked
        self.route('list_zones', 'GET', API + '/zone', self.list_zones, guard=self._auth)
        # a listing by record id (GET .../record?id=) is the read of one record: named get_record
        self.route('get_record', 'GET', API + '/zone/([^/]+)/record' + BY_ID, self.list_records, guard=self._zone)
        self.route('list_records', 'GET', API + '/zone/([^/]+)/record', self.list_records, guard=self._zone)
        self.route('create_record', 'POST', API + '/zone/([^/]+)/record', self.create_record, guard=self._zone)
        self.route('update_record', 'PUT', API + '/zone/([^/]+)/record/([^/]+)', self.update_record, guard=self._zone)
        self.route('delete_record', 'DELETE', API + '/zone/([^/]+)/record/([^/]+)', self.delete_record,
                   guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_ACCESS_KEY_ID': self.key_id, 'DDNS_SECRET_ACCESS_KEY': self.secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        """A zone of the account; its id (what the tool keeps, what the paths carry) is its name."""
        self.zones[name] = {'id': 'zone-%08x' % (len(self.zones) + 1), 'name': name, 'status': 'running',
                            'productVersion': 'free', 'createTime': _now(), 'expireTime': '', 'tags': []}
        return name

    def add_record(self, zone_id, name, rtype, content, ttl=DEFAULT_TTL, line='default', description='',
                   priority=0):
        """A record of the zone zone_id (its name) named name (the full name)."""
        rid = str(2300000 + next(_ids))
        self.records[rid] = {'id': rid, 'zone': zone_id, 'name': name, 'type': rtype, 'content': content,
                             'line': line, 'ttl': ttl, 'description': description, 'priority': priority,
                             'status': 'running'}
        return rid

    # --- routing -------------------------------------------------------------------------------
    def _dispatch(self, h):
        split = urlsplit(h.path)
        self.sent_path.value = split.path
        if h.command == 'GET' and split.path.endswith('/record') and parse_qs(split.query).get('id', [''])[0]:
            h.path = '%s%s?%s' % (split.path, BY_ID, split.query)
        return super()._dispatch(h)

    # --- the gateway ---------------------------------------------------------------------------
    def _auth(self, req, *groups):
        given = req.headers.get('authorization')
        if not given:
            return error('AccessDenied')
        match = AUTHORIZATION.match(given)
        if not match:
            return error('InvalidHTTPAuthHeader')
        key_id, when, expires, signed, _ = match.groups()
        key = self.keys.get(key_id)
        if key is None:
            return error('InvalidAccessKeyId')
        stamp = calendar.timegm(time.strptime(when, '%Y-%m-%dT%H:%M:%SZ'))
        now = time.time() + self.clock_offset
        if now > stamp + int(expires) or stamp > now + SKEW:
            return error('RequestExpired')
        names = [n for n in signed.split(';') if n]
        expected = None
        if not names or 'host' in names:
            headers = {k: v for k, v in req.headers.items() if k in names or not names}
            make = (lambda *a: sdk_authorization(self.oracle, *a)) if self.oracle else own_authorization
            expected = make(req.method, self.sent_path.value, headers, req.query, key_id, key['secret'], stamp,
                            int(expires), names)
        with self.lock:
            self.signed.append((req.route, given, expected))
        if expected is None or not hmac.compare_digest(expected, given):
            return error('SignatureDoesNotMatch')
        if not key['qualified']:
            return error('QualifyNotPass')
        if key['routes'] is not None and req.route not in key['routes']:
            return error('AccessDenied')
        return self._body(req)

    def _zone(self, req, zone, *groups):
        """The guard of a zone's routes: the gateway, then the zone (the account's, by name)."""
        return self._auth(req) or (None if zone in self.zones else error('NoSuchObject', 'zone %s not found' % zone))

    def _body(self, req):
        """A write's JSON body against its request model: unknown fields noted and ignored."""
        req.params = {}
        if req.route not in FIELDS:
            return None
        try:
            body = json.loads(req.body or b'{}')
        except ValueError:
            return error('InvalidHTTPRequest')
        if not isinstance(body, dict):
            return error('InvalidHTTPRequest')
        for name in body:
            if name not in FIELDS[req.route]:
                with self.lock:
                    self.unknown_fields.append((req.route, name))
        missing = [name for name in REQUIRED if not isinstance(body.get(name), str) or not body[name]]
        if missing:
            return error('InappropriateJSON', 'the field %s is required' % missing[0])
        req.params = {k: v for k, v in body.items() if k in FIELDS[req.route]}
        return None

    def _idempotent(self, req, write):
        """A write under its clientToken: one seen before is answered as the first was, changing nothing."""
        token = req.query.get('clientToken')
        if token and token in self.tokens:
            return self.tokens[token]
        reply = write()
        if token:
            self.tokens[token] = reply
        return reply

    # --- actions -------------------------------------------------------------------------------
    def list_zones(self, req):
        """The account's zones, name matched loosely, pages by marker (default and at most 1000)."""
        name = (req.query.get('name') or '').lower()
        found = sorted((z for z in self.zones.values() if name in z['name']), key=lambda z: z['name'])
        return self._page(req, found, 'zones', lambda z: z['name'])

    def list_records(self, req, zone):
        """The zone's records, rr matched loosely, id exactly; no type or line filter; pages by marker."""
        q = {k: v for k, v in req.query.items() if v}   # an empty filter filters nothing (the SDK sends them)
        found = [self._public(r) for r in self._zone_records(zone)
                 if q.get('rr', '').lower() in self._rr(r) and q.get('id', r['id']) == r['id']]
        return self._page(req, found, 'records', lambda r: r['id'])

    def create_record(self, req, zone):
        def write():
            p = req.params
            made = self._checked(zone, p, p.get('line') or 'default')
            if isinstance(made, Reply):
                return made
            self.add_record(zone, _name(made['rr'], zone), made['type'], made['value'], ttl=made['ttl'],
                            line=made['line'], description=made['description'], priority=made['priority'])
            return Reply(200, text='', headers={'Content-Type': 'application/json'})
        return self._idempotent(req, write)

    def update_record(self, req, zone, rid):
        """rr, type and value as sent; the line kept; ttl and description not sent become the defaults."""
        def write():
            record = self.records.get(rid)
            if record is None or record['zone'] != zone:
                return error('NoSuchObject', 'record %s not found' % rid)
            made = self._checked(zone, req.params, record['line'], ignore=record)
            if isinstance(made, Reply):
                return made
            record.update(name=_name(made['rr'], zone), type=made['type'], content=made['value'], ttl=made['ttl'],
                          description=made['description'], priority=made['priority'])
            return Reply(200, text='', headers={'Content-Type': 'application/json'})
        if any(k in req.query for k in ('enable', 'disable')):
            return error('InvalidHTTPRequest', 'the fake plays no record status change')
        return self._idempotent(req, write)

    def delete_record(self, req, zone, rid):
        def write():
            record = self.records.get(rid)
            if record is None or record['zone'] != zone:
                return error('NoSuchObject', 'record %s not found' % rid)
            del self.records[rid]
            return Reply(200, text='', headers={'Content-Type': 'application/json'})
        return self._idempotent(req, write)

    # --- helpers -------------------------------------------------------------------------------
    def _page(self, req, found, key, marker_of):
        try:
            size = int(req.query.get('maxKeys', 1000))
        except ValueError:
            return error('InvalidHTTPRequest', 'maxKeys must be a number')
        if not 1 <= size <= 1000:
            return error('InvalidHTTPRequest', 'maxKeys must be 1 to 1000')
        marker = req.query.get('marker') or None
        start = [marker_of(item) for item in found].index(marker) if marker in map(marker_of, found) else 0
        shown = found[start:start + size]
        body = {'marker': marker or '', 'isTruncated': start + size < len(found), 'maxKeys': size, key: shown}
        if body['isTruncated']:
            body['nextMarker'] = marker_of(found[start + size])
        return Reply(200, body)

    def _zone_records(self, zone):
        return [r for r in self.records.values() if r['zone'] == zone]

    def _rr(self, record):
        return '@' if record['name'] == record['zone'] else record['name'][:-len(record['zone']) - 1]

    def _public(self, r):
        """A record as the listing shows it (the Go SDK's Record)."""
        return {'id': r['id'], 'rr': self._rr(r), 'status': r['status'], 'type': r['type'], 'value': r['content'],
                'ttl': r['ttl'], 'line': r['line'], 'description': r['description'], 'priority': r['priority']}

    def _checked(self, zone, p, line, ignore=None):
        """The record a create or an update makes (defaults filled in), or the error Reply."""
        made = {'rr': p['rr'].lower(), 'type': p['type'].upper(), 'value': p['value'], 'line': line,
                'ttl': p.get('ttl', DEFAULT_TTL), 'description': p.get('description', ''),
                'priority': p.get('priority', 0)}
        if made['type'] not in TYPES or made['line'] not in LINES or not isinstance(made['ttl'], int) \
                or not 1 <= made['ttl'] <= 86400 or not isinstance(made['description'], str):
            return error('InappropriateJSON')
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(made['type'])
        try:
            if family:
                family(made['value'])
        except ValueError:
            return error('InappropriateJSON', 'the value is not valid')
        for other in self._zone_records(zone):
            if other is not ignore and self._rr(other) == made['rr'] and other['type'] == made['type'] \
                    and other['line'] == made['line'] and other['content'] == made['value']:
                return error('DuplicateRecord')
        return made


def _name(rr, zone):
    return zone if rr == '@' else '%s.%s' % (rr, zone)


def _now():
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
