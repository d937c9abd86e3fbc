"""What the fakes of Tencent Cloud API 3.0 services (DNSPod, EdgeOne) share: the answer's envelope
and the gateway's checks of a request (version, timestamp, credentials, TC3-HMAC-SHA256 signature,
content type), in the codes and messages the API answers with."""

import hmac
import re
import time
import uuid

from fakes.base import Reply

SKEW = 300   # seconds a request's timestamp may be off the server's clock
AUTHORIZATION = re.compile(r'TC3-HMAC-SHA256 Credential=([^/, ]+)/(\d{4}-\d\d-\d\d)/([a-z]+)/tc3_request, '
                           r'SignedHeaders=([a-z;-]+), Signature=([0-9a-f]{64})$')


def answer(**fields):
    return Reply(200, {'Response': dict(fields, RequestId=str(uuid.uuid4()))})


def error(code, message):
    return answer(Error={'Code': code, 'Message': message})


def sdk_signature(oracle, host, content_type, timestamp, payload, date, service, secret_key):
    """The signature the SDK's own code makes for this request (AbstractClient._get_tc3_signature);
    oracle: (AbstractClient, RequestInternal, ...) of the SDK."""
    client, request = oracle[:2]
    req = request(host, 'POST', '/', header={'Content-Type': content_type, 'Host': host,
                                             'X-TC-Timestamp': timestamp}, data=payload)
    return client._get_tc3_signature(None, None, req, date, service, secret_key)


class Gateway:
    """The checks the API's gateway makes of every request before its action, for a fake with keys
    ({SecretId: SecretKey}), now(), lock and signatures (the (action, expected signature) of each
    request, what a test asserts on)."""

    def seen(self, req):
        req.action = req.headers.get('x-tc-action', '')

    def refusal(self, req, version, service, signature):
        """The error answer the gateway gives this request, or None when it passes; signature(host,
        content type, timestamp, body, date, secret key): what the service computes."""
        headers = req.headers
        if 'authorization' not in headers:
            return error('AuthFailure.InvalidAuthorization', 'Authorization header is missing.')
        if headers.get('x-tc-version') != version:
            return error('NoSuchVersion', 'The requested version %s of service %s does not exist.'
                         % (headers.get('x-tc-version'), service))
        stamp = headers.get('x-tc-timestamp', '')
        if not stamp.isdigit() or len(stamp) > 12:
            return error('InvalidParameter', 'X-TC-Timestamp must be epoch seconds.')
        if abs(int(stamp) - self.now()) > SKEW:
            return error('AuthFailure.SignatureExpire', 'Signature expired. Timestamp and server time differ by '
                                                        'more than five minutes.')
        match = AUTHORIZATION.match(headers['authorization'])
        if not match:
            return error('AuthFailure.InvalidAuthorization', 'Authorization header does not follow the '
                                                             'TC3-HMAC-SHA256 form.')
        secret_id, date, scope, signed, sent = match.groups()
        if secret_id not in self.keys:
            return error('AuthFailure.SecretIdNotFound', 'The SecretId is not found, please ensure that your '
                                                         'SecretId is correct.')
        # the date of the scope is the UTC date of the timestamp; the SDK's code signs these headers
        content_type = headers.get('content-type', '').strip().lower()
        expected = None
        if date == time.strftime('%Y-%m-%d', time.gmtime(int(stamp))) and scope == service \
                and signed == 'content-type;host':
            expected = signature(headers.get('host', ''), content_type, stamp, req.body, date, self.keys[secret_id])
        with self.lock:
            self.signatures.append((req.action, expected))
        if expected is None or not hmac.compare_digest(expected, sent):
            return error('AuthFailure.SignatureFailure', 'The provided credentials could not be validated. '
                                                         'Please check your signature is correct.')
        if content_type != 'application/json':
            return error('InvalidParameter', 'Content-Type must be application/json for a POST of JSON.')
        return None
