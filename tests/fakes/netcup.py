"""Fake netcup CCP DNS API (JSON): a customer's API key and API password, sessions, domains' zones and
their records by id.

As the function list of ccp.netcup.net/run/webservice/servers/endpoint.php, the netcup wiki (DNS API)
and the peer acme.sh (dnsapi/dns_netcup.sh) give them: every call a POST of {"action", "param"} to
/run/webservice/servers/endpoint.php?JSON, answered HTTP 200 {"serverrequestid", "clientrequestid",
"action", "status": "success" or "error", "statuscode", "shortmessage", "longmessage",
"responsedata"}. Routes by action: login (customernumber, apikey, apipassword ->
responsedata.apisessionid), infoDnsZone, infoDnsRecords ({"dnsrecords": [{"id", "hostname", "type",
"priority", "destination", "deleterecord", "state"}]}), updateDnsRecords (dnsrecordset.dnsrecords:
with an id changed whole, without made, deleterecord true deleted; answered with the zone's records),
logout. Every call but login carries customernumber, apikey and apisessionid. Codes: 2000 success;
4013 a refused login or a request refused (validation); 4001 a session that is unknown or ended;
5028 a zone that is not the customer's.
"""

import io
import ipaddress
import itertools
import json
import uuid

from fakes.base import FakeServer, RecordStore, Reply

PATH = '/run/webservice/servers/endpoint.php'
ACTIONS = ('login', 'logout', 'infoDnsZone', 'infoDnsRecords', 'updateDnsRecords')
_ids = itertools.count(1)


def answer(action, code, short, data=''):
    return Reply(200, {'serverrequestid': uuid.uuid4().hex[:20], 'clientrequestid': '', 'action': action,
                       'status': 'success' if code < 4000 else 'error', 'statuscode': code, 'shortmessage': short,
                       'longmessage': '', 'responsedata': data})


class Netcup(RecordStore, FakeServer):
    PROVIDER, LETTER = 'netcup', 'netcup'   # the registry's provider it plays; the sandbox's provider_netcup

    def __init__(self, customer='123456', key='nKeyAbCdEf0123456789', password='api-password-secret', tls_cert=None):
        super().__init__(tls_cert)
        self.customer, self.key, self.password = customer, key, password
        self.sessions = set()
        self.zones = {}       # domain -> zone info
        self.records = {}     # id (text) -> record ('name': the full name, 'content': its destination, 'zone')
        for action in ACTIONS:
            self.route(action, 'POST', PATH, getattr(self, action), header=('X-Fake-Action', action))

    def _dispatch(self, h):
        """The action is in the body: named in a header of the request (X-Fake-Action) for the routes."""
        length = int(h.headers.get('Content-Length') or 0)
        body = h.rfile.read(length) if length else b''
        try:
            action = json.loads(body).get('action')
        except (ValueError, AttributeError):
            action = None
        h.headers['X-Fake-Action'] = str(action)
        kept, h.rfile = h.rfile, io.BytesIO(body)   # the body read again; the connection's next request after
        try:
            super()._dispatch(h)
        finally:
            h.rfile = kept

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_CUSTOMER_NUMBER': self.customer, 'DDNS_API_KEY': self.key, 'DDNS_API_PASSWORD': self.password,
                'DDNS_BASE_URL': self.url}

    def add_zone(self, name, ttl='86400'):
        self.zones[name] = {'name': name, 'ttl': ttl, 'serial': '2025010101', 'refresh': '28800', 'retry': '7200',
                            'expire': '1209600', 'dnssecstatus': False}
        return name

    def add_record(self, zone, name, rtype, content, priority='0'):
        rid = str(next(_ids) + 40000000)
        self.records[rid] = {'id': rid, 'zone': zone, 'name': name, 'type': rtype, 'content': content,
                             'priority': priority}
        return rid

    # --- checks --------------------------------------------------------------------------------
    def _param(self, req, session=True):
        """(the call's param, None), or (None, the answer refusing it)."""
        body = req.json if isinstance(req.json, dict) else {}
        param = body.get('param') if isinstance(body.get('param'), dict) else {}
        action = body.get('action')
        if 'apipassword' in param and action != 'login':
            return None, answer(action, 4013, 'Validation Error.')   # the password goes to login alone
        if session and (param.get('customernumber'), param.get('apikey')) != (self.customer, self.key):
            return None, answer(action, 4013, 'Validation Error.')
        if session and param.get('apisessionid') not in self.sessions:
            return None, answer(action, 4001, 'The session id is not in a valid format or the session is expired.')
        return param, None

    def _zone(self, req):
        param, refused = self._param(req)
        if refused:
            return None, refused
        if param.get('domainname') not in self.zones:
            return None, answer(req.json['action'], 5028, 'Can not get DNS records for zone. Domain not found.')
        return param, None

    def _public(self, record):
        zone = record['zone']
        return {'id': record['id'], 'hostname': '@' if record['name'] == zone else record['name'][:-len(zone) - 1],
                'type': record['type'], 'priority': record['priority'], 'destination': record['content'],
                'deleterecord': False, 'state': 'yes'}

    def _listed(self, zone):
        return {'dnsrecords': [self._public(r) for _, r in sorted(self.records.items()) if r['zone'] == zone]}

    # --- actions ---------------------------------------------------------------------------------
    def login(self, req):
        param, _ = self._param(req, session=False)
        if (param.get('customernumber'), param.get('apikey'), param.get('apipassword')) != (
                self.customer, self.key, self.password):
            return answer('login', 4013, 'Validation Error.')
        session = uuid.uuid4().hex
        self.sessions.add(session)
        return answer('login', 2000, 'Login successful', {'apisessionid': session})

    def logout(self, req):
        param, refused = self._param(req)
        if refused:
            return refused
        self.sessions.discard(param['apisessionid'])
        return answer('logout', 2000, 'Logout successful')

    def infoDnsZone(self, req):
        param, refused = self._zone(req)
        return refused or answer('infoDnsZone', 2000, 'DNS zone found', self.zones[param['domainname']])

    def infoDnsRecords(self, req):
        param, refused = self._zone(req)
        return refused or answer('infoDnsRecords', 2000, 'DNS records found', self._listed(param['domainname']))

    def updateDnsRecords(self, req):
        param, refused = self._zone(req)
        if refused:
            return refused
        zone = param['domainname']
        wanted = (param.get('dnsrecordset') or {}).get('dnsrecords') if isinstance(param.get('dnsrecordset'),
                                                                                    dict) else None
        if not isinstance(wanted, list):
            return answer('updateDnsRecords', 4013, 'Validation Error.')
        for one in wanted:
            family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(one.get('type'))
            host = one.get('hostname')
            if one.get('id') and self.records.get(one['id'], {}).get('zone') != zone:
                return answer('updateDnsRecords', 5029, 'Can not update record. Record not found.')
            if one.get('deleterecord') is True:
                del self.records[one['id']]
                continue
            try:
                destination = str(family(one.get('destination')))
            except (TypeError, ValueError):
                return answer('updateDnsRecords', 4013, 'Validation Error.')
            if not isinstance(host, str) or not host:
                return answer('updateDnsRecords', 4013, 'Validation Error.')
            name = zone if host == '@' else '%s.%s' % (host.lower(), zone)
            if one.get('id'):   # the whole record: what is not sent is reset
                self.records[one['id']].update(name=name, type=one['type'], content=destination,
                                               priority=one.get('priority', '0'))
            else:
                self.add_record(zone, name, one['type'], destination, one.get('priority', '0'))
        return answer('updateDnsRecords', 2000, 'DNS records successful updated', self._listed(zone))
