"""Fake cloud provider B (Huawei Cloud shape): IAM password tokens (expiry, revocation), or requests
signed SDK-HMAC-SHA256 with an access key (each signature recomputed by huaweicloudsdkcore's own
signer), and DNS v2 zones and recordsets (trailing dots, loose name matching, total_count), with the
real error shapes: DNS {code, message}, API gateway {error_code, error_msg}, IAM {error: {code,
message, title}}. Each recordset is on a resolution line: the v2.1 API sets and shows it (v2 makes
recordsets on the default line, and its answers have no line). The query parameters and body attributes it takes are
those of huaweicloudsdkdns's request models (tests/test_huaweicloud_aksk.py and
tests/test_huaweicloud_lines.py hold them to the SDK)."""

import calendar
import itertools
import json
import re
import secrets
import time
from email.utils import formatdate
from urllib.parse import parse_qsl

from fakes.base import FakeServer, Reply

_ids = itertools.count(1)
PROJECT_ID = '0a1b2c3d4e5f60718293a4b5c6d7e8f9'
TYPES = ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'CAA')
# what each call takes, as huaweicloudsdkdns 3.1.219's request models name it: ListPublicZonesRequest,
# ListRecordSetsByZoneRequest (their query parameters), CreateRecordSetRequestBody, UpdateRecordSetReq
ZONES_QUERY = {'type', 'limit', 'marker', 'offset', 'tags', 'name', 'id', 'status', 'search_mode', 'sort_key',
               'sort_dir', 'enterprise_project_id'}
RECORDSETS_QUERY = {'search_mode', 'marker', 'limit', 'offset', 'tags', 'status', 'type', 'name', 'id', 'sort_key',
                    'sort_dir'}
CREATE_ATTRIBUTES = {'name', 'description', 'type', 'status', 'ttl', 'records', 'tags'}
UPDATE_ATTRIBUTES = {'name', 'description', 'type', 'ttl', 'records'}
# v2.1, the recordsets of a resolution line: ShowRecordSetByZoneRequest (its query parameters),
# CreateRecordSetWithLineRequestBody, UpdateRecordSetsReq
LINE_RECORDSETS_QUERY = {'marker', 'limit', 'offset', 'line_id', 'tags', 'status', 'type', 'name', 'id',
                         'sort_key', 'sort_dir', 'search_mode'}
LINE_CREATE_ATTRIBUTES = {'name', 'description', 'type', 'status', 'ttl', 'records', 'line', 'tags', 'weight',
                          'alias_target'}
LINE_UPDATE_ATTRIBUTES = {'name', 'description', 'type', 'ttl', 'records', 'weight'}
# the line IDs it knows: the default line and the ISP lines of the DNS API reference's "resolution
# line types" (region lines extend them); another is refused DNS.1601 "Invalid line ID."
DEFAULT_LINE = 'default_view'
LINES = (DEFAULT_LINE, 'Dianxin', 'Liantong', 'Yidong')
GONE = 'The record set does not exist.'   # DNS.0313, HTTP 404 (the API reference's error codes)
SIGNATURE = re.compile(r'SDK-HMAC-SHA256 Access=([^,]*), SignedHeaders=([^,]*), Signature=([0-9a-f]*)$')
SKEW = 15 * 60   # the API gateway refuses an X-Sdk-Date further than this from its clock
# the API gateway's answers to a refused signature, as Huawei's signing guide quotes them
BAD_SIGNATURE = 'Incorrect IAM authentication information: verify aksk signature fail'
NO_SUCH_KEY = 'Incorrect IAM authentication information: Get secretKey failed,ak:******,err:ak not exist'


def new_id():
    return 'ff8080827%023x' % next(_ids)


def dns_error(status, code, message):
    return Reply(status, {'code': code, 'message': message})


def gateway_error(status, code, message):
    return Reply(status, {'error_msg': message, 'error_code': code, 'request_id': secrets.token_hex(16)})


def iam_error(status, message, title):
    return Reply(status, {'error': {'code': status, 'message': message, 'title': title}})


class ProviderB(FakeServer):
    """IAM and DNS on one server (point auth_url and dns_url at `url`); routes get_token, list_zones,
    list_records, get_record, create_record, update_record, delete_record (v2), and the v2.1 routes of
    recordsets on a line: list_line_records, get_line_record, create_line_record, update_line_record,
    delete_line_record."""

    PROVIDER, LETTER = 'huaweicloud', 'b'   # the registry's provider it plays; the sandbox's provider_b

    def __init__(self, username='hw-user', password='Pa55:w0rd"x\'9', project='cn-north-4',
                 tls_cert=None, token_ttl=86400, access_key='HPUAFAKE7QK2ZV0D3XW1',
                 secret_key='rC4x/9Qe+Wm2Lk0aZ7pT8vYb3sN6hJ1gF5dE2cB0'):
        super().__init__(tls_cert)
        self.username, self.password, self.project = username, password, project
        self.access_keys = {access_key: secret_key}   # access key ID -> its secret key
        self.access_key = access_key
        self.signed = []            # (access key, X-Sdk-Date) of each request whose signature held
        self.token_ttl = token_ttl
        self.clock_offset = 0.0     # seconds the provider's clock (Date, expiry) is ahead of ours
        self.tokens = {}            # token -> {'expires': epoch, 'revoked': bool}
        self.issued = []            # tokens in the order they were issued
        self.token_dates = {}       # token -> the epoch second its answer's Date header said
        self.zones = {}             # zone id -> zone object (name with a trailing dot)
        self.recordsets = {}        # recordset id -> recordset object
        self.delay = {}             # route -> seconds to wait before answering
        self.echo_token = False     # a careless provider: DNS errors quote the token they were sent
        self.route('get_token', 'POST', '/v3/auth/tokens', self.get_token)
        self.route('list_zones', 'GET', '/v2/zones',
                   self.list_zones, guard=self._auth)
        self.route('list_records', 'GET', r'/v2/zones/([^/]+)/recordsets',
                   self.list_records, guard=self._zone)
        self.route('create_record', 'POST', r'/v2/zones/([^/]+)/recordsets',
                   self.create_record, guard=self._zone)
        self.route('get_record', 'GET', r'/v2/zones/([^/]+)/recordsets/([^/]+)',
                   self.get_record, guard=self._zone)
        self.route('update_record', 'PUT', r'/v2/zones/([^/]+)/recordsets/([^/]+)',
                   self.update_record, guard=self._zone)
        self.route('delete_record', 'DELETE', r'/v2/zones/([^/]+)/recordsets/([^/]+)',
                   self.delete_record, guard=self._zone)
        self.route('list_line_records', 'GET', r'/v2\.1/zones/([^/]+)/recordsets',
                   self.list_line_records, guard=self._zone)
        self.route('create_line_record', 'POST', r'/v2\.1/zones/([^/]+)/recordsets',
                   self.create_line_record, guard=self._zone)
        self.route('get_line_record', 'GET', r'/v2\.1/zones/([^/]+)/recordsets/([^/]+)',
                   self.get_line_record, guard=self._zone)
        self.route('update_line_record', 'PUT', r'/v2\.1/zones/([^/]+)/recordsets/([^/]+)',
                   self.update_line_record, guard=self._zone)
        self.route('delete_line_record', 'DELETE', r'/v2\.1/zones/([^/]+)/recordsets/([^/]+)',
                   self.delete_line_record, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def now(self):
        return time.time() + self.clock_offset

    def issue_token(self, ttl=None):
        """A valid token, as a previous run would have cached it."""
        token = 'MIIZ' + secrets.token_urlsafe(4500)  # real ones are several KiB of base64
        self.tokens[token] = {'expires': self.now() + (self.token_ttl if ttl is None else ttl),
                              'revoked': False}
        self.issued.append(token)
        return token

    def revoke(self, token=None):
        """Revoke one token, or every token issued so far."""
        for t in [token] if token else list(self.tokens):
            self.tokens[t]['revoked'] = True

    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake (IAM and DNS on one)."""
        return {'DDNS_USERNAME': self.username, 'DDNS_PASSWORD': self.password, 'DDNS_PROJECT_NAME': self.project,
                'DDNS_AUTH_URL': self.url, 'DDNS_DNS_URL': self.url}

    def signed_settings(self):
        """settings() in the access key's form: AK/SK, the password form's settings emptied."""
        return dict(self.settings(), DDNS_USERNAME='', DDNS_PASSWORD='', DDNS_PROJECT_NAME='',
                    DDNS_ACCESS_KEY=self.access_key, DDNS_SECRET_KEY=self.access_keys[self.access_key])

    def add_zone(self, name):
        zid = new_id()
        stamp = _stamp(self.now())
        self.zones[zid] = {'id': zid, 'name': name.rstrip('.') + '.', 'description': None,
                           'email': 'hostmaster@example.com', 'ttl': 300, 'serial': 1, 'masters': [],
                           'status': 'ACTIVE', 'pool_id': new_id(), 'project_id': PROJECT_ID,
                           'zone_type': 'public', 'created_at': stamp, 'updated_at': stamp,
                           'record_num': 2, 'links': {'self': '%s/v2/zones/%s' % (self.url, zid)}}
        # every new zone starts with its SOA and NS recordsets, as at the real provider
        self.add_record(zid, name, 'SOA', ['ns1.example.net. hostmaster.example.com. 1 7200 900 1209600 300'],
                        ttl=300, default=True)
        self.add_record(zid, name, 'NS', ['ns1.example.net.', 'ns2.example.net.'], ttl=172800, default=True)
        return zid

    def add_record(self, zone_id, name, rtype, records, ttl=300, description=None, default=False,
                   line=DEFAULT_LINE):
        rid = new_id()
        stamp = _stamp(self.now())
        zone = self.zones[zone_id]
        self.recordsets[rid] = {'id': rid, 'name': name.rstrip('.') + '.', 'description': description,
                                'zone_id': zone_id, 'zone_name': zone['name'], 'type': rtype, 'ttl': ttl,
                                'records': list(records), 'create_at': stamp, 'update_at': stamp,
                                'status': 'ACTIVE', 'default': default, 'project_id': PROJECT_ID,
                                'links': {'self': '%s/v2/zones/%s/recordsets/%s' % (self.url, zone_id, rid)},
                                'line': line}
        return rid

    def find(self, name, rtype='A'):
        """The recordsets named so, with or without the trailing dot (what a test asserts on)."""
        return [r for r in self.recordsets.values()
                if r['name'] == name.rstrip('.') + '.' and r['type'] == rtype]

    def by_line(self, name, rtype='A'):
        """{line ID: the sorted values its recordsets of this name and type hold} (what a test asserts on)."""
        held = {}
        for record in self.find(name, rtype):
            held.setdefault(record['line'], []).extend(record['records'])
        return {line: sorted(values) for line, values in held.items()}

    def v2(self, record, **changed):
        """A recordset as the v2 API shows it: no line."""
        return dict({k: v for k, v in record.items() if k != 'line'}, **changed)

    def v21(self, record, **changed):
        """A recordset as the v2.1 API shows it (ShowRecordSetByZoneResp): its line, weight and
        health check, created_at and updated_at for v2's create_at and update_at."""
        shown = {k: v for k, v in record.items() if k not in ('create_at', 'update_at')}
        shown.update(created_at=record['create_at'], updated_at=record['update_at'], weight=None,
                     health_check_id=None, links={'self': '%s/v2.1/zones/%s/recordsets/%s' % (
                         self.url, record['zone_id'], record['id'])})
        return dict(shown, **changed)

    # --- serving -------------------------------------------------------------------------------
    def _send(self, h, reply, length=None):
        # every answer's Date header comes from the provider's clock, as the client computes expiry from it
        date = reply.headers.pop('Date', None) or formatdate(self.now(), usegmt=True)
        h.date_time_string = lambda timestamp=None: date
        super()._send(h, reply, length)

    def _dispatch(self, h):
        route = self._route_of(h)
        if self.delay.get(route):
            time.sleep(self.delay[route])
        super()._dispatch(h)

    def _route_of(self, h):
        path = h.path.split('?', 1)[0]
        for name, method, pattern, *_ in self.routes:
            if method == h.command and pattern.match(path):
                return name
        return None

    # --- IAM -----------------------------------------------------------------------------------
    def get_token(self, req):
        if not req.headers.get('content-type', '').startswith('application/json'):
            return iam_error(400, 'The request body is not JSON.', 'Bad Request')
        try:
            auth = json.loads(req.body)['auth']
            identity, scope = auth['identity'], auth['scope']
            user = identity['password']['user']
            ok_shape = identity['methods'] == ['password'] and isinstance(user['name'], str) \
                and isinstance(user['password'], str) and isinstance(user['domain']['name'], str) \
                and isinstance(scope['project']['name'], str)
        except (ValueError, KeyError, TypeError):
            ok_shape = False
        if not ok_shape:
            return iam_error(400, 'Request body is invalid.', 'Bad Request')
        if user['domain']['name'] != self.username or user['name'] != self.username \
                or user['password'] != self.password:
            return iam_error(401, 'The username or password is wrong.', 'Unauthorized')
        if scope['project']['name'] != self.project:
            return Reply(400, {'error_msg': 'Project %s not found.' % scope['project']['name'],
                               'error_code': 'IAM.0072'})
        token = self.issue_token()
        now = int(self.now())
        self.token_dates[token] = now
        body = {'token': {'expires_at': _stamp(self.tokens[token]['expires']), 'issued_at': _stamp(now),
                          'methods': ['password'],
                          'project': {'id': PROJECT_ID, 'name': self.project,
                                      'domain': {'id': 'd' * 32, 'name': self.username}},
                          'user': {'id': 'u' * 32, 'name': self.username,
                                   'domain': {'id': 'd' * 32, 'name': self.username},
                                   'password_expires_at': ''},
                          'roles': [{'id': '0', 'name': 'op_gated_dns'}]}}
        return Reply(201, body, headers={'X-Subject-Token': token, 'Date': formatdate(now, usegmt=True)})

    def _auth(self, req):
        """The API gateway in front of DNS checks the token, or the access key's signature."""
        if req.headers.get('authorization', '').startswith('SDK-HMAC-SHA256 '):
            return self._signature(req)
        token = req.headers.get('x-auth-token')
        if not token:
            return gateway_error(401, 'APIGW.0301', 'Incorrect IAM authentication information: '
                                                    'x-auth-token not found')
        known = self.tokens.get(token)
        if known is None or known['revoked']:
            return gateway_error(401, 'APIGW.0301', 'Incorrect IAM authentication information: '
                                                    'verify token failed')
        if self.now() > known['expires']:
            return gateway_error(401, 'APIGW.0307', 'The token must be updated.')
        return None

    def _signature(self, req):
        """The API gateway's check of an AK/SK request: a known access key, an X-Sdk-Date within 15
        minutes, and the signature huaweicloudsdkcore's own signer makes of the request as it came:
        its method, path, query, the headers it names as signed, and its body."""
        from huaweicloudsdkcore.auth.credentials import BasicCredentials
        from huaweicloudsdkcore.sdk_request import SdkRequest
        from huaweicloudsdkcore.signer.signer import Signer
        parts = SIGNATURE.match(req.headers['authorization'])
        if not parts:
            return gateway_error(401, 'APIGW.0301', BAD_SIGNATURE)
        access_key, names, signature = parts.groups()
        if access_key not in self.access_keys:
            return gateway_error(401, 'APIGW.0301', NO_SUCH_KEY)
        date = req.headers.get('x-sdk-date', '')
        try:
            sent = calendar.timegm(time.strptime(date, '%Y%m%dT%H%M%SZ'))
        except ValueError:
            return gateway_error(401, 'APIGW.0301', BAD_SIGNATURE)
        names = names.split(';')
        if abs(self.now() - sent) > SKEW or any(name not in req.headers for name in names):
            return gateway_error(401, 'APIGW.0301', BAD_SIGNATURE)
        remade = SdkRequest(method=req.method, schema='https' if self.tls_cert else 'http',
                            host=req.headers['host'], resource_path=req.path,
                            query_params=parse_qsl(req.raw_query, keep_blank_values=True),
                            header_params={name: req.headers[name] for name in names}, body=req.body)
        Signer(BasicCredentials(access_key, self.access_keys[access_key])).sign(remade)
        if remade.header_params['Authorization'] != req.headers['authorization']:
            return gateway_error(401, 'APIGW.0301', BAD_SIGNATURE)
        with self.lock:
            self.signed.append((access_key, date))
        return None

    # --- DNS -----------------------------------------------------------------------------------
    def _zone(self, req, zone_id, record_id=None):
        """The guard of a zone's routes: the credentials, then the zone."""
        denied = self._auth(req)
        if denied:
            return denied
        if self.echo_token:
            return dns_error(400, 'DNS.0001', 'Request refused (X-Auth-Token: %s).'
                             % req.headers.get('x-auth-token', req.headers.get('authorization')))
        if zone_id not in self.zones:
            return dns_error(404, 'DNS.0302', 'This zone does not exist.')
        return None

    def list_zones(self, req):
        unknown = self._unknown_query(req, ZONES_QUERY)
        if unknown:
            return unknown
        # the name filter matches loosely: "example.com" finds "myexample.com." and "example.com.cn."
        name = req.query.get('name', '').rstrip('.')
        zones = [z for z in self.zones.values() if name in z['name']]
        # pages as the API makes them: limit 0 to 500 (default 500), offset from 0
        limit, offset = int(req.query.get('limit', 500)), int(req.query.get('offset', 0))
        if not 0 <= limit <= 500 or offset < 0:
            return dns_error(400, 'DNS.0001', 'Invalid parameter: limit must be 0 to 500, offset 0 or more.')
        return Reply(200, {'links': {'self': '%s/v2/zones?name=%s' % (self.url, name)},
                           'zones': zones[offset:offset + limit], 'metadata': {'total_count': len(zones)}})

    def list_records(self, req, zone_id):
        unknown = self._unknown_query(req, RECORDSETS_QUERY)
        if unknown:
            return unknown
        name, rtype = req.query.get('name', '').rstrip('.'), req.query.get('type')
        found = [r for r in self.recordsets.values() if r['zone_id'] == zone_id and name in r['name']
                 and rtype in (None, r['type'])]
        return self._page(req, zone_id, found, '/v2', self.v2)

    def _page(self, req, zone_id, found, api, shape):
        # pages as the API makes them: limit 0 to 500 (default 500), offset from 0
        limit, offset = int(req.query.get('limit', 500)), int(req.query.get('offset', 0))
        if not 0 <= limit <= 500 or offset < 0:
            return dns_error(400, 'DNS.0204', 'The limit or offset is invalid.')
        shown = [shape(r) for r in found[offset:offset + limit]]
        links = {'self': '%s%s/zones/%s/recordsets' % (self.url, api, zone_id)}
        if offset + limit < len(found):
            links['next'] = '%s?limit=%d&offset=%d' % (links['self'], limit, offset + limit)
        return Reply(200, {'links': links, 'recordsets': shown, 'metadata': {'total_count': len(found)}})

    def _held(self, zone_id, record_id):
        record = self.recordsets.get(record_id)
        return record if record and record['zone_id'] == zone_id else None

    def get_record(self, req, zone_id, record_id):
        record = self._held(zone_id, record_id)
        if not record:
            return dns_error(404, 'DNS.0313', GONE)
        return Reply(200, self.v2(record))

    def create_record(self, req, zone_id):
        denied = self._invalid(req, zone_id, create=True)   # the zone: the route's guard
        if denied:
            return denied
        return self._create(req, zone_id, DEFAULT_LINE, self.v2)

    def _create(self, req, zone_id, line, shape):
        body = req.json
        # a recordset of a name and type on each line: another line's is no conflict
        if any(r['line'] == line for r in self.find(body['name'], body['type'])):
            return dns_error(400, 'DNS.0312', 'Attribute name conflicts with an existing record set.')
        rid = self.add_record(zone_id, body['name'], body['type'], body['records'], body.get('ttl', 300),
                              body.get('description'), line=line)
        return Reply(202, shape(self.recordsets[rid], status='PENDING_CREATE'))

    def update_record(self, req, zone_id, record_id):
        denied = self._invalid(req, zone_id, create=False)
        return denied or self._update(req, zone_id, record_id, self.v2)

    def _update(self, req, zone_id, record_id, shape):
        record = self._held(zone_id, record_id)
        if not record:
            return dns_error(404, 'DNS.0313', GONE)
        body = req.json
        if any(body.get(key, record[key]) != record[key] for key in ('name', 'type')):
            return dns_error(400, 'DNS.0304', 'The name or type of a record set cannot be changed.')
        for key in ('description', 'ttl', 'records'):
            if key in body:
                record[key] = body[key]
        record['update_at'] = _stamp(self.now())
        return Reply(202, shape(record, status='PENDING_UPDATE'))

    def delete_record(self, req, zone_id, record_id, shape=None):
        record = self._held(zone_id, record_id)
        if not record:
            return dns_error(404, 'DNS.0313', GONE)
        if record['default']:   # the zone's own SOA and NS
            return dns_error(400, 'DNS.0317', 'This record set is a default one and cannot be deleted.')
        del self.recordsets[record_id]
        return Reply(202, (shape or self.v2)(record, status='PENDING_DELETE'))

    # --- DNS v2.1: recordsets on a resolution line -------------------------------------------------
    def list_line_records(self, req, zone_id):
        unknown = self._unknown_query(req, LINE_RECORDSETS_QUERY)
        if unknown:
            return unknown
        # line_id matches loosely, as name does (the API reference: "fuzzy search by default");
        # without it, every line's
        name, rtype, line = req.query.get('name', '').rstrip('.'), req.query.get('type'), req.query.get('line_id', '')
        found = [r for r in self.recordsets.values() if r['zone_id'] == zone_id and name in r['name']
                 and rtype in (None, r['type']) and line in r['line']]
        return self._page(req, zone_id, found, '/v2.1', self.v21)

    def get_line_record(self, req, zone_id, record_id):
        record = self._held(zone_id, record_id)
        if not record:
            return dns_error(404, 'DNS.0313', GONE)
        return Reply(200, self.v21(record))

    def create_line_record(self, req, zone_id):
        denied = self._invalid(req, zone_id, create=True, allowed=LINE_CREATE_ATTRIBUTES)
        line = (req.json or {}).get('line', DEFAULT_LINE) if not denied else None
        denied = denied or self._unknown_line(line)
        return denied or self._create(req, zone_id, line, self.v21)

    def update_line_record(self, req, zone_id, record_id):
        denied = self._invalid(req, zone_id, create=False, allowed=LINE_UPDATE_ATTRIBUTES)
        return denied or self._update(req, zone_id, record_id, self.v21)

    def delete_line_record(self, req, zone_id, record_id):
        return self.delete_record(req, zone_id, record_id, self.v21)

    def _unknown_line(self, line):
        if line is not None and line not in LINES:
            return dns_error(400, 'DNS.1601', 'Invalid line ID.')
        return None

    def _invalid(self, req, zone_id, create, allowed=None):
        if not req.headers.get('content-type', '').startswith('application/json'):
            return dns_error(400, 'DNS.0001', 'Content-Type must be application/json.')
        try:
            body = json.loads(req.body)
        except ValueError:
            return dns_error(400, 'DNS.0001', 'Invalid JSON in the request body.')
        if not isinstance(body, dict):
            return dns_error(400, 'DNS.0001', 'The request body must be an object.')
        required = ('name', 'type', 'records') if create else ()
        missing = [k for k in required if k not in body]
        if missing:
            return dns_error(400, 'DNS.0303', 'Missing attribute %s.' % missing[0])
        zone = self.zones[zone_id]['name']
        name = body.get('name', zone)
        if not isinstance(name, str) or not name.endswith('.') \
                or not (name == zone or name.endswith('.' + zone)):
            return dns_error(400, 'DNS.0304', 'Invalid record set name %r: a name in the zone, with the '
                                              'trailing dot.' % name)
        if body.get('type', 'A') not in TYPES:
            return dns_error(400, 'DNS.0307', 'Invalid record set type.')
        ttl = body.get('ttl', 300)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or not 1 <= ttl <= 2147483647:
            return dns_error(400, 'DNS.0303', 'Invalid ttl.')
        records = body.get('records', ['x'])
        if not isinstance(records, list) or not records or not all(isinstance(r, str) and r for r in records):
            return dns_error(400, 'DNS.0308', 'Invalid record set value.')
        description = body.get('description')
        if description is not None and (not isinstance(description, str) or len(description) > 255):
            return dns_error(400, 'DNS.0309', 'Invalid description.')
        extra = set(body) - (allowed or (CREATE_ATTRIBUTES if create else UPDATE_ATTRIBUTES))
        if extra:
            return dns_error(400, 'DNS.0001', 'Unknown attribute %s.' % sorted(extra)[0])
        return None

    def _unknown_query(self, req, known):
        extra = set(req.query) - known
        return dns_error(400, 'DNS.0001', 'Unknown query parameter %s.' % sorted(extra)[0]) if extra else None


def _stamp(epoch):
    return time.strftime('%Y-%m-%dT%H:%M:%S.000', time.gmtime(epoch))
