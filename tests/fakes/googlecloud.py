"""Fake Google Cloud DNS (API v1) and its OAuth token endpoint: a service account with RSA keys (its
JSON key file written mode 600), access tokens, a project's managed zones (public or private) and
their RRsets.

Routes: get_token (POST /token: the JWT-bearer grant, its assertion checked by google-auth's
jwt.decode, RS256 through its crypt module, against the public key of the kid it names: iss, aud (this
endpoint or Google's own, as google-auth sends), scope, iat and exp within an hour of the server's
clock; errors {"error", "error_description"}: invalid_grant "Invalid JWT Signature." or "Invalid JWT:
Token must be a short-lived token ...", unsupported_grant_type), list_zones (GET
/dns/v1/projects/<p>/managedZones, ?dnsName=, paged by pageToken), get_record (GET
.../managedZones/<z>/rrsets?name=&type=), create_record (POST .../rrsets: 409 alreadyExists),
update_record (PATCH .../rrsets/<name>/<type>), delete_record (DELETE ...). API errors {"error": {"code",
"message", "errors": [{"message", "domain", "reason"}], "status"}}: 401 UNAUTHENTICATED (no or an
unknown token), 403 forbidden (another project, or a service account without the permission), 404
notFound, 409 alreadyExists, 400 invalid.
"""

import itertools
import json
import os
import secrets
import tempfile
import time

from fakes.base import FakeServer, Reply

API = '/dns/v1/projects/([^/]+)/managedZones'
GOOGLE_TOKEN = 'https://oauth2.googleapis.com/token'
SCOPES = ('https://www.googleapis.com/auth/ndev.clouddns.readwrite', 'https://www.googleapis.com/auth/cloud-platform')
STATUS = {400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND',
          409: 'ALREADY_EXISTS', 412: 'FAILED_PRECONDITION'}
_ids = itertools.count(1)
KEYS = []   # RSA keys made for the fakes, one a fake: 2048 bits take a while to make


def new_key(n):
    """(PEM of a PKCS#8 private key, PEM of its public key): the n-th of this process's keys."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    while len(KEYS) <= n:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        KEYS.append((key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()).decode(),
                     key.public_key().public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo).decode()))
    return KEYS[n]


def api_error(status, reason, message):
    return Reply(status, {'error': {'code': status, 'message': message, 'errors': [
        {'message': message, 'domain': 'global', 'reason': reason}], 'status': STATUS.get(status, 'UNKNOWN')}})


class GoogleCloud(FakeServer):
    PROVIDER = LETTER = 'googlecloud'   # the registry's provider it plays; the sandbox's provider_googlecloud

    def __init__(self, project='ddkit-test', tls_cert=None):
        super().__init__(tls_cert)
        self.project = project
        self.email = 'ddkit@%s.iam.gserviceaccount.com' % project
        self.public = {}          # private_key_id -> (public key PEM, the service account's e-mail)
        self.tokens = {}          # access token -> the service account's e-mail
        # e-mail -> whether its role may change the zones (read only: False; a disabled account: absent)
        self.allowed = {self.email: True}
        self.zones = {}           # zone name (id in paths) -> {'dnsName', 'visibility', 'id'}
        self.rrsets = {}          # (zone, name with its dot, type) -> RRset ('records': what the tests read and set)
        self.key_dir = tempfile.mkdtemp(prefix='ddkit-gcloud-')
        self.route('get_token', 'POST', '/token', self.get_token)
        self.route('list_zones', 'GET', API, self.list_zones, guard=self._auth)
        self.route('get_record', 'GET', API + '/([^/]+)/rrsets', self.get_record, guard=self._zone)
        self.route('create_record', 'POST', API + '/([^/]+)/rrsets', self.create_record, guard=self._zone)
        self.route('update_record', 'PATCH', API + '/([^/]+)/rrsets/([^/]+)/([^/]+)', self.update_record,
                   guard=self._zone)
        self.route('delete_record', 'DELETE', API + '/([^/]+)/rrsets/([^/]+)/([^/]+)', self.delete_record,
                   guard=self._zone)

    def start(self):
        FakeServer.start(self)
        self.key, self.key_file = self.new_service_key()
        return self

    def stop(self):
        import shutil
        FakeServer.stop(self)
        shutil.rmtree(self.key_dir, ignore_errors=True)

    # --- state ---------------------------------------------------------------------------------
    def new_service_key(self, email=None, n=0, **changes):
        """(a service account's JSON key, as Google Cloud gives it, for email with this process's n-th
        RSA key, its token_uri this fake; the path of its file, mode 600)."""
        private, public = new_key(n)
        kid = secrets.token_hex(20)
        self.public[kid] = (public, email or self.email)
        key = dict({'type': 'service_account', 'project_id': self.project, 'private_key_id': kid,
                    'private_key': private, 'client_email': email or self.email, 'client_id': '1%020d' % next(_ids),
                    'auth_uri': 'https://accounts.google.com/o/oauth2/auth', 'token_uri': self.url + '/token',
                    'auth_provider_x509_cert_url': 'https://www.googleapis.com/oauth2/v1/certs',
                    'universe_domain': 'googleapis.com'}, **changes)
        path = os.path.join(self.key_dir, '%s.json' % kid)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), 'w') as f:
            json.dump(key, f, indent=2)
        return key, path

    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_KEY_FILE': self.key_file, 'DDNS_BASE_URL': self.url}

    def issue_token(self, email=None):
        token = 'ya29.%s' % secrets.token_urlsafe(40)
        self.tokens[token] = email or self.email
        return token

    def add_zone(self, name, visibility='public', zone_id=None):
        """A managed zone of the project; its name (what the paths name it by)."""
        zone_id = zone_id or name.replace('.', '-') + ('-private' if visibility == 'private' else '')
        self.zones[zone_id] = {'kind': 'dns#managedZone', 'name': zone_id, 'dnsName': name + '.',
                               'visibility': visibility, 'id': str(next(_ids) * 7919)}
        return zone_id

    def add_record(self, zone, name, rtype, content, ttl=300, **more):
        """An RRset of these addresses (one, or a list); its id in the tool's ids file is its name."""
        records = list(content) if isinstance(content, (list, tuple)) else [content]
        self.rrsets[(zone, name + '.', rtype)] = dict({'name': name + '.', 'type': rtype, 'ttl': ttl,
                                                       'records': records}, **more)
        return name

    def find(self, name, rtype='A'):
        """The RRsets named so (what a test asserts on)."""
        return [r for r in self.rrsets.values() if r['name'] == name.rstrip('.') + '.' and r['type'] == rtype]

    def by_line(self, name, rtype='A'):
        """{None: sorted addresses}: no lines, every address is a record of the RRset."""
        return {None: sorted(a for r in self.find(name, rtype) for a in r['records'])}

    def _public(self, rrset):
        shown = {'kind': 'dns#resourceRecordSet', 'name': rrset['name'], 'type': rrset['type'], 'ttl': rrset['ttl']}
        if 'routingPolicy' in rrset:
            shown['routingPolicy'] = rrset['routingPolicy']
        else:
            shown['rrdatas'] = rrset['records']
        return shown

    # --- the token endpoint --------------------------------------------------------------------
    def get_token(self, req):
        from urllib.parse import parse_qs
        from google.auth import exceptions, jwt
        form = {k: v[0] for k, v in parse_qs(req.body.decode(), keep_blank_values=True).items()}
        if form.get('grant_type') != 'urn:ietf:params:oauth:grant-type:jwt-bearer':
            return Reply(400, {'error': 'unsupported_grant_type', 'error_description': 'Invalid grant_type: %s'
                               % form.get('grant_type', '')})
        assertion = form.get('assertion', '')
        try:
            header = jwt.decode_header(assertion)
        except (ValueError, exceptions.GoogleAuthError):
            return Reply(400, {'error': 'invalid_request', 'error_description': 'Invalid JWT.'})
        known = self.public.get(header.get('kid'))
        try:
            if known is None:
                raise ValueError('unknown key')
            # google-auth's own check: the RS256 signature (its crypt module), the audience, iat and exp
            # against this machine's clock; the server's clock (clock_offset) is checked below
            claims = jwt.decode(assertion, certs={header['kid']: known[0]}, audience=[self.url + '/token',
                                                                                      GOOGLE_TOKEN],
                                clock_skew_in_seconds=abs(self.clock_offset) + 300)
        except (ValueError, exceptions.GoogleAuthError):
            return Reply(400, {'error': 'invalid_grant', 'error_description': 'Invalid JWT Signature.'})
        now = time.time() + self.clock_offset
        if header.get('alg') != 'RS256' or claims.get('iss') != known[1] or claims.get('scope') not in SCOPES:
            return Reply(400, {'error': 'invalid_grant', 'error_description': 'Invalid JWT Signature.'})
        if not (abs(claims['iat'] - now) <= 300 and 0 < claims['exp'] - claims['iat'] <= 3600):
            return Reply(400, {'error': 'invalid_grant', 'error_description': 'Invalid JWT: Token must be a '
                               'short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and '
                               'exp values in the JWT claim.'})
        if self.allowed.get(known[1]) is None:
            return Reply(401, {'error': 'invalid_client', 'error_description': 'The OAuth client was disabled.'})
        return Reply(200, {'access_token': self.issue_token(known[1]), 'expires_in': 3599, 'token_type': 'Bearer'})

    # --- the DNS API ---------------------------------------------------------------------------
    def _auth(self, req, project, *rest):
        scheme, _, token = req.headers.get('authorization', '').partition(' ')
        if scheme != 'Bearer' or token not in self.tokens:
            return api_error(401, 'authError', 'Request had invalid authentication credentials. Expected OAuth 2 '
                                               'access token, login cookie or other valid authentication credential.')
        if project != self.project:
            return api_error(403, 'forbidden', 'The caller does not have permission')
        if req.method != 'GET' and not self.allowed.get(self.tokens[token]):
            return api_error(403, 'forbidden', 'Forbidden')
        return None

    def _zone(self, req, project, zone, *rest):
        return self._auth(req, project) or (None if zone in self.zones else api_error(
            404, 'notFound', 'The \'parameters.managedZone\' resource named \'%s\' does not exist.' % zone))

    def list_zones(self, req, project):
        names = sorted(self.zones)
        if 'dnsName' in req.query:
            names = [n for n in names if self.zones[n]['dnsName'] == req.query['dnsName']]
        start = int(req.query.get('pageToken') or 0)
        size = int(req.query.get('maxResults') or 2)   # small pages: the client must follow nextPageToken
        answer = {'kind': 'dns#managedZonesListResponse',
                  'managedZones': [self.zones[n] for n in names[start:start + size]]}
        if start + size < len(names):
            answer['nextPageToken'] = str(start + size)
        return Reply(200, answer)

    def get_record(self, req, project, zone):
        name, rtype = req.query.get('name'), req.query.get('type')
        if rtype and not name:
            return api_error(400, 'invalid', 'Invalid value for \'type\': a name is needed')
        found = [self._public(r) for (z, n, t), r in sorted(self.rrsets.items())
                 if z == zone and name in (None, n) and rtype in (None, t)]
        return Reply(200, {'kind': 'dns#resourceRecordSetsListResponse', 'rrsets': found})

    def _valid(self, zone, body):
        """The RRset of a write's body, or the refusal of it."""
        import ipaddress
        family = {'A': ipaddress.IPv4Address, 'AAAA': ipaddress.IPv6Address}.get(body.get('type'))
        name, ttl, rrdatas = body.get('name'), body.get('ttl'), body.get('rrdatas')
        if not isinstance(name, str) or not name.endswith('.') or not (
                name == self.zones[zone]['dnsName'] or name.endswith('.' + self.zones[zone]['dnsName'])):
            return api_error(400, 'invalid', 'Invalid value for \'entity.change.additions[0].name\': \'%s\'' % name)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0 or not isinstance(rrdatas, list) or not rrdatas:
            return api_error(400, 'invalid', 'Invalid value for \'entity.change.additions[0].ttl\'')
        for value in rrdatas:
            try:
                family and family(value)
            except (TypeError, ValueError):
                return api_error(400, 'invalid', 'Invalid value for \'entity.change.additions[0].rrdata[0]\': '
                                                 '\'%s\'' % value)
        return {'name': name, 'type': body['type'], 'ttl': ttl, 'records': list(rrdatas)}

    def create_record(self, req, project, zone):
        made = self._valid(zone, req.json if isinstance(req.json, dict) else {})
        if isinstance(made, Reply):
            return made
        key = (zone, made['name'], made['type'])
        if key in self.rrsets:
            return api_error(409, 'alreadyExists', 'The resource \'entity.change.additions[0]\' named \'%s (%s)\' '
                                                   'already exists' % key[1:])
        self.rrsets[key] = made
        return Reply(200, self._public(made))

    def update_record(self, req, project, zone, name, rtype):
        key = (zone, name, rtype)
        if key not in self.rrsets:
            return api_error(404, 'notFound', 'The \'parameters.name\' resource named \'%s\' does not exist.' % name)
        made = self._valid(zone, dict(self._public(self.rrsets[key]), **(req.json if isinstance(req.json, dict)
                                                                         else {})))
        if isinstance(made, Reply):
            return made
        if (made['name'], made['type']) != (name, rtype):
            return api_error(400, 'invalid', 'The name and type of the body must be the path\'s')
        self.rrsets[key] = made
        return Reply(200, self._public(made))

    def delete_record(self, req, project, zone, name, rtype):
        if self.rrsets.pop((zone, name, rtype), None) is None:
            return api_error(404, 'notFound', 'The \'parameters.name\' resource named \'%s\' does not exist.' % name)
        return Reply(200, {})
