"""Fake Amazon Route 53 (API 2013-04-01): access keys (a temporary one with its session token, each
with a policy of actions and hosted zones), hosted zones (public or private, several of one name
allowed), resource record sets (a zone's SOA and NS made with it; alias and weighted sets too).

Routes: list_zones (GET /2013-04-01/hostedzonesbyname: ListHostedZonesByName, zones in order of
their names with the labels reversed, starting at dnsname), account_zones (GET /2013-04-01/hostedzone:
ListHostedZones, paged by marker), get_record (GET .../hostedzone/<id>/rrset: ListResourceRecordSets,
which starts at name and type in Route 53's order and lists what follows, whatever its name), and
change_record (POST .../hostedzone/<id>/rrset/: ChangeResourceRecordSets, CREATE, UPSERT and DELETE,
all of a batch or none). Each request's Authorization is checked against the signature botocore's own
SigV4Auth makes for the same method, path, query, signed headers and body at the same X-Amz-Date;
its query names and its body's elements against botocore's model of the operation. Refusals as the
API gives them, XML ErrorResponse (Type, Code, Message) with its HTTP status: SignatureDoesNotMatch
(also a request dated more than 5 minutes off the server's clock), InvalidClientTokenId (no such key,
or a temporary key without its token), ExpiredToken, AccessDenied (a policy without the action or
the zone), NoSuchHostedZone, InvalidInput; InvalidChangeBatch as an element of its own holding its
Messages. Throttling (HTTP 400) is a 'reply' fault.
"""

import calendar
import itertools
import time
import uuid
import xml.etree.ElementTree as ET

from fakes.base import FakeServer, Reply

API = '/2013-04-01'
NS = 'https://route53.amazonaws.com/doc/2013-04-01/'
SKEW = 300
ACTIONS = {'list_zones': 'ListHostedZonesByName', 'account_zones': 'ListHostedZones',
           'get_record': 'ListResourceRecordSets', 'change_record': 'ChangeResourceRecordSets'}
_ids = itertools.count(1)


def model():
    """botocore's model of the Route 53 API (the fake's oracle of what a request may name)."""
    import botocore.session
    return botocore.session.get_session().get_service_model('route53')


def botocore_signature(req, url, key_id, secret, token, names, when):
    """The signature botocore's own SigV4Auth makes for this request as received, signing the headers
    named (their values as received) at the time when (X-Amz-Date)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    aws = AWSRequest(method=req.method, url=url + req.path, headers={n: req.headers.get(n, '') for n in names},
                     data=req.body or None, params=req.query)
    aws.context['timestamp'] = when
    auth = SigV4Auth(Credentials(key_id, secret, token), 'route53', 'us-east-1')
    return auth.signature(auth.string_to_sign(aws, auth.canonical_request(aws)), aws)


def order(name, rtype='', identifier=''):
    """Route 53's order of names and sets: the labels reversed, then the type."""
    return tuple(reversed(name.rstrip('.').split('.'))), rtype, identifier or ''


def xml_name(name):
    """A name as Route 53 writes it: lower-case, a trailing dot, * as \\052."""
    return name.lower().rstrip('.').replace('*', '\\052') + '.'


def tag(name, text):
    return '<%s>%s</%s>' % (name, text, name)


def error(status, code, message, kind='Sender'):
    return Reply(status, text='<?xml version="1.0"?>\n<ErrorResponse xmlns="%s"><Error><Type>%s</Type><Code>%s</Code>'
                              '<Message>%s</Message></Error><RequestId>%s</RequestId></ErrorResponse>' % (
                                  NS, kind, code, message.replace('&', '&amp;').replace('<', '&lt;'), uuid.uuid4()),
                 headers={'Content-Type': 'text/xml'})


def invalid_batch(*messages):
    return Reply(400, text='<?xml version="1.0"?>\n<InvalidChangeBatch xmlns="%s"><Messages>%s</Messages>'
                           '<RequestId>%s</RequestId></InvalidChangeBatch>' % (
                               NS, ''.join(tag('Message', m) for m in messages), uuid.uuid4()),
                 headers={'Content-Type': 'text/xml'})


def answer(root, inner):
    return Reply(200, text='<?xml version="1.0"?>\n<%s xmlns="%s">%s</%s>' % (root, NS, inner, root),
                 headers={'Content-Type': 'text/xml'})


class Route53(FakeServer):
    PROVIDER = LETTER = 'route53'   # the registry's provider it plays; the sandbox's provider_route53

    def __init__(self, key_id='AKIAIOSFODNN7EXAMPLE', secret='wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
                 tls_cert=None):
        super().__init__(tls_cert)
        self.key_id, self.secret = key_id, secret
        # key id -> its secret, its session token (a temporary key's), expired, its policy: the actions
        # (ListHostedZones, ...) and zone ids it allows (None: all)
        self.keys = {key_id: {'secret': secret, 'token': None, 'expired': False, 'actions': None, 'zones': None}}
        self.zones = {}        # hosted zone id -> {'name': 'example.com.', 'private': bool}
        self.rrsets = {}       # (zone id, name, type, set identifier or '') -> the set ('name' as Route 53 writes it)
        self.model = model()
        self.bad_elements = []   # (operation, path) of each query name or body element the model does not know
        self.route('list_zones', 'GET', API + '/hostedzonesbyname', self.list_zones, guard=self._auth)
        self.route('account_zones', 'GET', API + '/hostedzone', self.account_zones, guard=self._auth)
        self.route('get_record', 'GET', API + '/hostedzone/([^/]+)/rrset', self.get_record, guard=self._zone)
        self.route('change_record', 'POST', API + '/hostedzone/([^/]+)/rrset/', self.change_record, guard=self._zone)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_ACCESS_KEY_ID': self.key_id, 'DDNS_SECRET_ACCESS_KEY': self.secret, 'DDNS_BASE_URL': self.url}

    def add_zone(self, name, private=False):
        """A hosted zone with its SOA and NS sets; its id."""
        zone_id = 'Z%019d' % next(_ids)
        self.zones[zone_id] = {'name': xml_name(name), 'private': private}
        self._store(zone_id, name, 'SOA', 900, ['ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 '
                                                '1209600 86400'])
        self._store(zone_id, name, 'NS', 172800, ['ns-1.awsdns-01.org.', 'ns-2.awsdns-02.co.uk.'])
        return zone_id

    def add_record(self, zone_id, name, rtype, content, ttl=300, **more):
        """A set of these values (one, or a list); more: its other elements (SetIdentifier, Weight,
        AliasTarget: {'HostedZoneId', 'DNSName', 'EvaluateTargetHealth'}, HealthCheckId). Its id in the
        tool's ids file is its name."""
        values = list(content) if isinstance(content, (list, tuple)) else [content]
        self._store(zone_id, name, rtype, ttl, values, **more)
        return name

    def add_key(self, key_id, secret, token=None, expired=False, actions=None, zones=None):
        self.keys[key_id] = {'secret': secret, 'token': token, 'expired': expired, 'actions': actions, 'zones': zones}

    def find(self, name, rtype='A'):
        """The sets of this name and type (what a test asserts on)."""
        return [r for r in self.rrsets.values() if r['name'] == xml_name(name) and r['type'] == rtype]

    def by_line(self, name, rtype='A'):
        """{None: sorted values}: no lines, every value is a record of the set."""
        return {None: sorted(v for r in self.find(name, rtype) for v in r['records'])}

    def _store(self, zone_id, name, rtype, ttl, values, **more):
        rrset = dict({'zone': zone_id, 'name': xml_name(name), 'type': rtype, 'ttl': ttl, 'records': values}, **more)
        self.rrsets[(zone_id, rrset['name'], rtype, more.get('SetIdentifier', ''))] = rrset
        return rrset

    # --- checks --------------------------------------------------------------------------------
    def _auth(self, req, *groups):
        """The signature, by botocore's signer, the key and its token, the request's time; then what the
        model of the operation says the query may name."""
        auth = req.headers.get('authorization', '')
        when = req.headers.get('x-amz-date', '')
        if not auth.startswith('AWS4-HMAC-SHA256 '):
            return error(403, 'MissingAuthenticationToken', 'Missing Authentication Token')
        fields = dict(part.strip().partition('=')[::2] for part in auth[17:].split(','))
        credential = fields.get('Credential', '').split('/')
        names = fields.get('SignedHeaders', '').split(';')
        if len(credential) != 5 or credential[2:] != ['us-east-1', 'route53', 'aws4_request'] \
                or credential[1] != when[:8] or 'host' not in names or 'x-amz-date' not in names:
            return error(400, 'IncompleteSignature', 'Authorization header requires existence of either a '
                                                     '\'X-Amz-Date\' or a \'Date\' header.')
        key = self.keys.get(credential[0])
        if key is None or key['token'] is not None and req.headers.get('x-amz-security-token') != key['token']:
            return error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.')
        if key['token'] is not None and 'x-amz-security-token' not in names:
            return error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the '
                                                       'signature you provided.')
        if key['expired']:
            return error(403, 'ExpiredToken', 'The security token included in the request is expired')
        try:
            signed = calendar.timegm(time.strptime(when, '%Y%m%dT%H%M%SZ'))
        except ValueError:
            return error(400, 'IncompleteSignature', 'Date must be in ISO-8601 \'basic format\'.')
        if abs(signed - (time.time() + self.clock_offset)) > SKEW:
            return error(403, 'SignatureDoesNotMatch', 'Signature expired: %s is now earlier than %s (%s - 5 min.)'
                         % (when, time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(time.time() + self.clock_offset - SKEW)),
                            time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(time.time() + self.clock_offset))))
        if fields.get('Signature') != botocore_signature(req, self.url, credential[0], key['secret'], key['token'],
                                                         names, when):
            return error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the '
                                                       'signature you provided. Check your AWS Secret Access Key and '
                                                       'signing method. Consult the service documentation for details.')
        operation = self.model.operation_model(ACTIONS[req.route])
        known = {shape.serialization.get('name') for shape in operation.input_shape.members.values()
                 if shape.serialization.get('location') == 'querystring'}
        self.bad_elements += [(operation.name, name) for name in req.query if name not in known]
        req.key = key
        return None

    def _allowed(self, req, zone_id=None):
        """AccessDenied when the key's policy lacks the request's action (or its hosted zone)."""
        action, key = ACTIONS[req.route], req.key
        if key['actions'] is not None and action not in key['actions'] or \
                zone_id and key['zones'] is not None and zone_id not in key['zones']:
            resource = 'arn:aws:route53:::hostedzone/%s' % zone_id if zone_id else '*'
            return error(403, 'AccessDenied', 'User: arn:aws:iam::123456789012:user/ddkit is not authorized to '
                                              'perform: route53:%s on resource: %s because no identity-based policy '
                                              'allows the route53:%s action' % (action, resource, action))
        return None

    def _zone(self, req, zone_id):
        refused = self._auth(req) or self._allowed(req, zone_id)
        if refused:
            return refused
        if zone_id not in self.zones:
            return error(404, 'NoSuchHostedZone', 'No hosted zone found with ID: %s' % zone_id)
        return None

    def _max_items(self, req, most):
        text = req.query.get('maxitems', str(most))
        return min(int(text), most) if text.isdigit() and int(text) > 0 else None

    def _listing(self, req, most):
        """(a refusal or None, the items a page of a zone listing holds): the key's policy, maxitems."""
        most = self._max_items(req, most)
        refused = self._allowed(req) or (None if most else error(400, 'InvalidInput', 'Invalid XML ; maxitems '
                                                                                     'must be a positive number'))
        return refused, most

    # --- answers -------------------------------------------------------------------------------
    def _zone_xml(self, zone_id):
        zone = self.zones[zone_id]
        count = len([r for r in self.rrsets.values() if r['zone'] == zone_id])
        return tag('HostedZone', tag('Id', '/hostedzone/' + zone_id) + tag('Name', zone['name']) +
                   tag('CallerReference', 'ddkit-test-%s' % zone_id) +
                   tag('Config', tag('PrivateZone', 'true' if zone['private'] else 'false')) +
                   tag('ResourceRecordSetCount', count))

    def _set_xml(self, rrset):
        inner = tag('Name', rrset['name']) + tag('Type', rrset['type'])
        for key in ('SetIdentifier', 'Weight'):
            if key in rrset:
                inner += tag(key, rrset[key])
        if 'AliasTarget' in rrset:
            inner += tag('AliasTarget', ''.join(tag(k, v) for k, v in rrset['AliasTarget'].items()))
        else:
            inner += tag('TTL', rrset['ttl']) + tag('ResourceRecords', ''.join(
                tag('ResourceRecord', tag('Value', v.replace('&', '&amp;'))) for v in rrset['records']))
        if 'HealthCheckId' in rrset:
            inner += tag('HealthCheckId', rrset['HealthCheckId'])
        return tag('ResourceRecordSet', inner)

    def list_zones(self, req):
        refused, most = self._listing(req, 100)
        if refused:
            return refused
        start = order(req.query.get('dnsname', ''))
        ids = sorted((z for z in self.zones if order(self.zones[z]['name']) >= start),
                     key=lambda z: (order(self.zones[z]['name']), z))
        more = ids[most:most + 1]
        inner = tag('HostedZones', ''.join(self._zone_xml(z) for z in ids[:most]))
        if 'dnsname' in req.query:
            inner += tag('DNSName', xml_name(req.query['dnsname']))
        inner += tag('IsTruncated', 'true' if more else 'false') + tag('MaxItems', most)
        if more:
            inner += tag('NextDNSName', self.zones[more[0]]['name']) + tag('NextHostedZoneId', more[0])
        return answer('ListHostedZonesByNameResponse', inner)

    def account_zones(self, req):
        refused, most = self._listing(req, 100)
        if refused:
            return refused
        ids = sorted(self.zones)
        marker = req.query.get('marker')
        if marker is not None:
            if marker not in ids:
                return error(400, 'InvalidInput', 'Invalid marker')
            ids = ids[ids.index(marker):]
        inner = tag('HostedZones', ''.join(self._zone_xml(z) for z in ids[:most]))
        inner += tag('IsTruncated', 'true' if len(ids) > most else 'false') + tag('MaxItems', most)
        if len(ids) > most:
            inner += tag('NextMarker', ids[most])
        return answer('ListHostedZonesResponse', inner + (tag('Marker', marker) if marker else ''))

    def get_record(self, req, zone_id):
        most = self._max_items(req, 300)
        name, rtype = req.query.get('name'), req.query.get('type')
        if most is None or rtype and not name:
            return error(400, 'InvalidInput', 'The input is not valid')
        start = order(xml_name(name), rtype or '') if name else ()
        found = sorted((r for r in self.rrsets.values() if r['zone'] == zone_id
                        and order(r['name'], r['type'], r.get('SetIdentifier')) >= start),
                       key=lambda r: order(r['name'], r['type'], r.get('SetIdentifier')))
        inner = tag('ResourceRecordSets', ''.join(self._set_xml(r) for r in found[:most]))
        inner += tag('IsTruncated', 'true' if len(found) > most else 'false') + tag('MaxItems', most)
        if len(found) > most:
            inner += tag('NextRecordName', found[most]['name']) + tag('NextRecordType', found[most]['type'])
        return answer('ListResourceRecordSetsResponse', inner)

    def _check_body(self, shape, node, path):
        """Each element the operation's input shape names, each required one there; else noted."""
        kind = shape.type_name
        if kind == 'structure':
            members = {m.serialization.get('name', n): (n, m) for n, m in shape.members.items()
                       if m.serialization.get('location') is None}
            names = [child.tag.split('}')[-1] for child in node]
            self.bad_elements += [('ChangeResourceRecordSets', path + '/' + n) for n in names if n not in members]
            self.bad_elements += [('ChangeResourceRecordSets', path + '/' + r + ' (required)')
                                  for r in shape.required_members if shape.members[r].serialization.get('name', r)
                                  not in names and shape.members[r].serialization.get('location') is None]
            for child in node:
                name = child.tag.split('}')[-1]
                if name in members:
                    self._check_body(members[name][1], child, path + '/' + name)
        elif kind == 'list':
            member = shape.member.serialization.get('name', 'member')
            for child in node:
                if child.tag.split('}')[-1] != member:
                    self.bad_elements.append(('ChangeResourceRecordSets', path + '/' + child.tag))
                else:
                    self._check_body(shape.member, child, path + '/' + member)

    def change_record(self, req, zone_id):
        try:
            root = ET.fromstring(req.body)
        except ET.ParseError as e:
            return error(400, 'InvalidInput', 'Invalid XML ; %s' % e)
        if root.tag != '{%s}ChangeResourceRecordSetsRequest' % NS:
            return error(400, 'InvalidInput', 'Invalid XML ; unexpected element %s' % root.tag)
        self._check_body(self.model.operation_model('ChangeResourceRecordSets').input_shape, root, '')
        zone = self.zones[zone_id]
        kept, messages = dict(self.rrsets), []
        for change in root.iter('{%s}Change' % NS):
            action = change.findtext('{%s}Action' % NS)
            rrset = change.find('{%s}ResourceRecordSet' % NS)
            name, rtype = xml_name(rrset.findtext('{%s}Name' % NS) or ''), rrset.findtext('{%s}Type' % NS)
            ttl = rrset.findtext('{%s}TTL' % NS)
            values = [v.text or '' for v in rrset.iter('{%s}Value' % NS)]
            key = (zone_id, name, rtype, rrset.findtext('{%s}SetIdentifier' % NS) or '')
            what = '[name=\'%s\', type=\'%s\']' % (name, rtype)
            held = self.rrsets.get(key)
            if name != zone['name'] and not name.endswith('.' + zone['name']):
                messages.append('RRSet with DNS name %s is not permitted in zone %s' % (name, zone['name']))
            elif action not in ('CREATE', 'UPSERT', 'DELETE'):
                messages.append('Invalid action %s' % action)
            elif action == 'DELETE':
                if held is None:
                    messages.append('Tried to delete resource record set %s but it was not found' % what)
                elif str(held['ttl']) != ttl or sorted(held['records']) != sorted(values):
                    messages.append('Tried to delete resource record set %s but the values provided do not match '
                                    'the current values' % what)
                else:
                    del self.rrsets[key]
            elif action == 'CREATE' and held is not None:
                messages.append('Tried to create resource record set %s but it already exists' % what)
            else:
                problem = self._invalid(zone_id, name, rtype, ttl, values, key)
                if problem:
                    messages.append(problem)
                    continue
                more = {'HealthCheckId': rrset.findtext('{%s}HealthCheckId' % NS)} \
                    if rrset.findtext('{%s}HealthCheckId' % NS) else {}
                self._store(zone_id, name, rtype, int(ttl), values, **more)
        if messages:
            self.rrsets = kept
            return invalid_batch(*messages)
        info = tag('Id', '/change/C%019d' % next(_ids)) + tag('Status', 'PENDING') + \
            tag('SubmittedAt', time.strftime('%Y-%m-%dT%H:%M:%S.000Z', time.gmtime()))
        return answer('ChangeResourceRecordSetsResponse', tag('ChangeInfo', info))

    def _invalid(self, zone_id, name, rtype, ttl, values, key):
        """Why Route 53 refuses an UPSERT or CREATE of this set, or None."""
        import ipaddress
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(rtype)
        if ttl is None or not ttl.isdigit() or int(ttl) > 2147483647:
            return 'Invalid Resource Record: FATAL problem: TTL is missing or invalid'
        if not values:
            return 'Invalid Resource Record: FATAL problem: at least one ResourceRecord is required'
        for v in values:
            try:
                family and family(v)
            except ValueError:
                return 'Invalid Resource Record: FATAL problem: %sRDATAIllegalIP%sAddress (Value is not a valid ' \
                       'IPv%s address) encountered with \'%s\'' % (rtype, 'v4' if rtype == 'A' else 'v6',
                                                                     '4' if rtype == 'A' else '6', v)
        others = [r for k, r in self.rrsets.items() if k[:2] == key[:2] and k != key]
        if any(r['type'] == 'CNAME' for r in others) and rtype != 'CNAME':
            return 'RRSet of type %s with DNS name %s is not permitted because a conflicting RRSet of type CNAME ' \
                   'with the same DNS name already exists in zone %s' % (rtype, name, self.zones[zone_id]['name'])
        if any(r['type'] == rtype and k[3] != key[3] for k, r in self.rrsets.items() if k[:2] == key[:2]):
            return 'RRSet with DNS name %s, type %s cannot be created as a non-weighted set exists with the same ' \
                   'name and type.' % (name, rtype)
        return None
