"""Fake OVHcloud API (1.0, /domain/zone): applications (key and secret), consumer keys (validated or
not, each with its access rules), DNS zones whose records are published only by a refresh, and the
API's own clock.

Routes: auth_time (GET /1.0/auth/time: the server's Unix time, unsigned), list_zones (GET
/1.0/domain/zone), list_records (GET .../zone/<zone>/record?fieldType=&subDomain=: the ids),
get_record, create_record (POST .../record), update_record (PUT .../record/<id>: the fields sent
change, the answer null), delete_record, refresh (POST .../zone/<zone>/refresh: what the zone's
servers publish). Each signed request's X-Ovh-Signature is checked against the one python-ovh's own
Client.raw_call makes for the same method, URL, body and timestamp (the body as it serializes it:
compact JSON), and its timestamp against the server's clock. Refusals as the API gives them: 403
{"errorCode", "httpCode", "message"} INVALID_KEY, INVALID_CREDENTIAL (unknown or not validated),
NOT_GRANTED_CALL (no access rule of the consumer key allows the method and path); 400
INVALID_SIGNATURE, QUERY_TIME_OUT; 404 {"class": "Client::NotFound", "message"} for a zone or record
the account lacks; 400 Client::BadRequest for a bad value.
"""

import ipaddress
import itertools
import json
import time

from fakes.base import FakeServer, RecordStore, Reply

API = '/1.0'
ZONE = API + r'/domain/zone/([^/]+)'
SKEW = 180          # seconds a signed timestamp may be off the server's clock
_ids = itertools.count(5088400001)


def auth_error(status, code, message):
    return Reply(status, {'errorCode': code, 'httpCode': '%d %s' % (status, 'Forbidden' if status == 403 else
                                                                  'Bad Request'), 'message': message})


def client_error(status, kind, message):
    return Reply(status, {'class': 'Client::%s' % kind, 'message': message})


def sdk_signature(url, application_key, secret, consumer_key, req):
    """(X-Ovh-Signature, the body) python-ovh's Client.raw_call sends for this request: the same method,
    path and query, the body's JSON as the SDK serializes it, the request's timestamp."""
    import ovh
    client = ovh.Client(endpoint='ovh-eu', application_key=application_key, application_secret=secret,
                        consumer_key=consumer_key)
    client._endpoint = url + API
    sent = {}

    class Capture:
        def request(self, method, target, headers=None, data=None, timeout=None):
            sent.update(headers=headers, data=data)
    client._session = Capture()
    path = req.path[len(API):] + ('?' + req.raw_query if req.raw_query else '')
    for _ in range(3):   # its timestamp is time.time() + the delta: again when a second passed meanwhile
        client._time_delta = int(req.headers.get('x-ovh-timestamp', '0')) - int(time.time())
        client.raw_call(req.method, path, data=json.loads(req.body) if req.body else None)
        if sent['headers'].get('X-Ovh-Timestamp') == req.headers.get('x-ovh-timestamp'):
            break
    return sent['headers'].get('X-Ovh-Signature'), sent['data']


class Ovh(RecordStore, FakeServer):
    PROVIDER = LETTER = 'ovh'   # the registry's provider it plays; the sandbox's provider_ovh
    TYPE = 'fieldType'

    def __init__(self, application_key='7kbG7Bk7S9Nt7ZSV', secret='EXEgWIz07P0HYwtQDs7cNIqCiQaWSuHF',
                 consumer_key='MtSwSrPpNjqfVSmJhLbPyr2i45lSwPU1', tls_cert=None):
        super().__init__(tls_cert)
        self.application_key, self.secret, self.consumer_key = application_key, secret, consumer_key
        self.applications = {application_key: secret}
        # consumer key -> its application, validated, its access rules [(method, path with a trailing *)]
        self.consumers = {consumer_key: {'application': application_key, 'validated': True,
                                         'rules': [(m, '/*') for m in ('GET', 'POST', 'PUT', 'DELETE')]}}
        self.zones = {}          # name -> {'published': [records as the zone's servers hold them]}
        self.records = {}        # id -> record ('name' and 'content': what the tests read and set)
        self.route('auth_time', 'GET', API + '/auth/time', self.auth_time)
        self.route('list_zones', 'GET', API + '/domain/zone', self.list_zones, guard=self._auth)
        self.route('list_records', 'GET', ZONE + '/record', self.list_records, guard=self._zone)
        self.route('get_record', 'GET', ZONE + r'/record/([^/]+)', self.get_record, guard=self._zone)
        self.route('create_record', 'POST', ZONE + '/record', self.create_record, guard=self._zone)
        self.route('update_record', 'PUT', ZONE + r'/record/([^/]+)', self.update_record, guard=self._zone)
        self.route('delete_record', 'DELETE', ZONE + r'/record/([^/]+)', self.delete_record, guard=self._zone)
        self.route('refresh', 'POST', ZONE + '/refresh', self.refresh, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_APPLICATION_KEY': self.application_key, 'DDNS_APPLICATION_SECRET': self.secret,
                'DDNS_CONSUMER_KEY': self.consumer_key, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name):
        self.zones[name] = {'published': []}
        return name

    def add_record(self, zone, name, rtype, content, ttl=0):
        """A record of one value (a list: one record each), published; the id of the first, as the tool
        keeps it."""
        ids = [self._add(zone, name, rtype, value, ttl) for value in
               (content if isinstance(content, (list, tuple)) else [content])]
        self.zones[zone]['published'] = self._zone_records(zone)
        return str(ids[0])

    def _add(self, zone, name, rtype, value, ttl):
        rid = next(_ids)
        self.records[rid] = {'id': rid, 'zone': zone, 'name': name, 'fieldType': rtype, 'content': value,
                             'ttl': ttl, 'subDomain': '' if name == zone else name[:-len(zone) - 1]}
        return rid

    def published(self, zone, name, rtype='A'):
        """The values of the name the zone's servers publish (as of its last refresh)."""
        return sorted(r['content'] for r in self.zones[zone]['published'] if r['name'] == name
                      and r['fieldType'] == rtype)

    def _zone_records(self, zone):
        return [dict(r) for r in self.records.values() if r['zone'] == zone]

    def _public(self, record):
        return {'id': record['id'], 'zone': record['zone'], 'subDomain': record['subDomain'],
                'fieldType': record['fieldType'], 'target': record['content'], 'ttl': record['ttl']}

    # --- checks --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        application = req.headers.get('x-ovh-application', '')
        if application not in self.applications:
            return auth_error(403, 'INVALID_KEY', 'Invalid application key')
        consumer = self.consumers.get(req.headers.get('x-ovh-consumer', ''))
        if consumer is None or consumer['application'] != application or not consumer['validated']:
            return auth_error(403, 'INVALID_CREDENTIAL', 'This credential does not exist' if consumer is None else
                              'This credential is not valid')
        stamp = req.headers.get('x-ovh-timestamp', '')
        if not stamp.isdigit() or abs(int(stamp) - (time.time() + self.clock_offset)) > SKEW:
            return auth_error(400, 'QUERY_TIME_OUT', 'Query out of time')
        wanted, body = sdk_signature(self.url, application, self.applications[application],
                                     req.headers['x-ovh-consumer'], req)
        if req.headers.get('x-ovh-signature') != wanted or req.body.decode() != body:
            return auth_error(400, 'INVALID_SIGNATURE', 'Invalid signature')
        path = req.path[len(API):]
        if not any(method == req.method and (rule == path or rule.endswith('*') and path.startswith(rule[:-1]))
                   for method, rule in consumer['rules']):
            return auth_error(403, 'NOT_GRANTED_CALL', 'This call has not been granted')
        return None

    def _zone(self, req, zone, *rest):
        return self._auth(req) or (None if zone in self.zones else client_error(404, 'NotFound',
                                                                                 'This service does not exist'))

    def _record(self, zone, rid):
        record = self.records.get(int(rid)) if rid.isdigit() else None
        return record if record and record['zone'] == zone else None

    # --- handlers ------------------------------------------------------------------------------
    def auth_time(self, req):
        return Reply(200, int(time.time() + self.clock_offset))

    def list_zones(self, req):
        return Reply(200, sorted(self.zones))

    def list_records(self, req, zone):
        kind, sub = req.query.get('fieldType'), req.query.get('subDomain')
        return Reply(200, [r['id'] for r in self.records.values() if r['zone'] == zone
                           and kind in (None, r['fieldType']) and sub in (None, r['subDomain'])])

    def get_record(self, req, zone, rid):
        record = self._record(zone, rid)
        return Reply(200, self._public(record)) if record else client_error(404, 'NotFound', 'The requested object '
                                                                            '(id = %s) does not exist' % rid)

    def _valid(self, rtype, target):
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        try:
            family and family(target)
        except ValueError:
            return client_error(400, 'BadRequest', 'Invalid target for %s record: %s' % (rtype, target))
        return None

    def create_record(self, req, zone):
        body = req.json if isinstance(req.json, dict) else {}
        rtype, sub, target = body.get('fieldType'), body.get('subDomain', ''), body.get('target')
        if rtype not in ('A', 'AAAA', 'CNAME', 'TXT', 'MX') or not isinstance(target, str):
            return client_error(400, 'BadRequest', 'Invalid body')
        refused = self._valid(rtype, target)
        if refused:
            return refused
        rid = self._add(zone, '%s.%s' % (sub, zone) if sub else zone, rtype, target, body.get('ttl', 0))
        return Reply(200, self._public(self.records[rid]))

    def update_record(self, req, zone, rid):
        record = self._record(zone, rid)
        if record is None:
            return client_error(404, 'NotFound', 'The requested object (id = %s) does not exist' % rid)
        body = req.json if isinstance(req.json, dict) else {}
        if set(body) - {'subDomain', 'target', 'ttl'}:
            return client_error(400, 'BadRequest', 'Invalid body: unknown field')
        refused = self._valid(record['fieldType'], body.get('target', record['content']))
        if refused:
            return refused
        record.update(content=body.get('target', record['content']), ttl=body.get('ttl', record['ttl']))
        return Reply(200, None)

    def delete_record(self, req, zone, rid):
        record = self._record(zone, rid)
        if record is None:
            return client_error(404, 'NotFound', 'The requested object (id = %s) does not exist' % rid)
        del self.records[record['id']]
        return Reply(200, None)

    def refresh(self, req, zone):
        self.zones[zone]['published'] = self._zone_records(zone)
        return Reply(200, None)
