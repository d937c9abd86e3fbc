"""Fake webhook: an HTTP endpoint that is told a host's IP, as a self-hosted DNS hook is.
`/hook/<name>` (or `/hook/<key>/<name>` when it has a key, a credential in the path as Slack's and
Discord's are) takes GET, POST, PUT and PATCH; the IP and type come from the query, a JSON body or a
form body (its Content-Type says which), the name from the path unless a body names it. It asks for
a bearer token, keeps the last IP told for each name and type (the store: records), refuses names it
does not hold (404) unless it is open, and records what each request told it (`told`)."""

import ipaddress
import json
from urllib.parse import parse_qs, unquote

from fakes.base import FakeServer, NameStore, Reply

JSON_TYPE, FORM_TYPE = 'application/json', 'application/x-www-form-urlencoded'


class Webhook(NameStore, FakeServer):
    PROVIDER, LETTER = 'webhook', 'webhook'   # the registry's provider it plays

    def __init__(self, token='wh-bearer-token-secret', tls_cert=None):
        super().__init__(tls_cert)
        self.token = token         # None: no credentials asked
        self.records = {}          # '<name> <type>' -> {'name', 'type', 'content'}: the store
        self.told = []             # {'method', 'name', 'ip', 'type', 'from'} of each request taken
        self.open = False          # True: any name is taken (a webhook that keeps no list of names)
        self.key = None            # set: the path is /hook/<key>/<name>, the key a credential (as Slack's)
        for method in ('GET', 'POST', 'PUT', 'PATCH'):
            self.route('update', method, r'/hook/(?:([^/]+)/)?([^/]+)', self.update, guard=self._auth)

    # --- state ---------------------------------------------------------------------------------
    def settings(self):
        """The DDNS_* settings of the provider's own that point a tool at this fake."""
        return {'DDNS_URL': self.url + '/hook/{name}?ip={ip}&type={type}', 'DDNS_BEARER_TOKEN': self.token}

    # --- the endpoint --------------------------------------------------------------------------
    def _auth(self, req, key, name):
        if key != self.key:
            return Reply(404, {'error': 'no such webhook'})
        if self.token is None:
            return None
        kind, _, token = req.headers.get('authorization', '').partition(' ')
        if kind != 'Bearer' or not token:
            return Reply(401, {'error': 'unauthorized: a bearer token is required'})
        if token != self.token:
            return Reply(403, {'error': 'forbidden: the token is not valid'})
        return None

    def update(self, req, key, quoted_name):
        fields, source = dict(req.query), 'query'
        kind = req.headers.get('content-type', '')
        if req.body:
            try:
                if kind == JSON_TYPE:
                    body = json.loads(req.body.decode('utf-8'))
                    if not isinstance(body, dict):
                        return Reply(400, {'error': 'the JSON body must be an object'})
                elif kind == FORM_TYPE:
                    body = {k: v[0] for k, v in parse_qs(req.body.decode('ascii'), keep_blank_values=True,
                                                         strict_parsing=True).items()}
                else:
                    return Reply(415, {'error': 'unsupported media type %s' % kind})
            except ValueError as e:
                return Reply(400, {'error': 'the body is not %s: %s' % (kind, e)})
            fields.update(body)
            source = 'json' if kind == JSON_TYPE else 'form'
        name = fields.get('name', unquote(quoted_name))
        ip, rtype = fields.get('ip', ''), fields.get('type', '')
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            return Reply(400, {'error': 'ip %r is not an address' % ip})
        if rtype != ('AAAA' if address.version == 6 else 'A'):
            return Reply(422, {'error': 'type %r does not fit ip %s' % (rtype, ip)})
        if not self.open and not self.find(name, 'A') + self.find(name, 'AAAA'):
            return Reply(404, {'error': 'no such host: %s' % name})
        self.told.append({'method': req.method, 'name': name, 'ip': ip, 'type': rtype, 'from': source})
        self.add_record(None, name, rtype, ip)
        return Reply(200, {'ok': True})
