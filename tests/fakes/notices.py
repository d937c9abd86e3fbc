"""Fakes of the notification services `notify` sends to, one class each, in the request and answer
shapes their documents give (each class cites them): a delivered message is kept in `messages`; a
wrong key, token or topic is refused as the service refuses it (several with HTTP 200 and an error
code in the body); a body in the wrong shape is refused as the service refuses it; DingTalk's and
Feishu's signatures are checked (each in its own scheme), and their secret must never arrive.

Each fake's `notify_url` is the URL a user gives, its credentials in place, named by its KIND+ prefix
(the real hosts are not these). `key` is what the fake accepts: set it to another value and the
URL's credential is wrong."""

import base64
import hashlib
import hmac
import json
import time
from urllib.parse import parse_qs

from fakes.base import FakeServer, Reply

JSON_TYPE, FORM_TYPE = 'application/json', 'application/x-www-form-urlencoded'


class Service(FakeServer):
    """What every fake service shares: its kind, the key it accepts, what it took."""

    KIND = None
    KEY = None   # the credential of notify_url

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.key = self.KEY
        self.messages = []   # {'title', 'text'} of each message taken
        self.sent = []       # every decoded request body (what a test checks of the shapes)

    @property
    def notify_url(self):
        return '%s+%s%s' % (self.KIND, self.url, self.path(self.KEY))

    def path(self, key):
        raise NotImplementedError

    def took(self, text, title=None):
        self.messages.append({'title': title, 'text': text, 'at': time.time()})

    def in_the_last_minute(self):
        """The messages taken in the last 60 seconds (a robot's limit counts them)."""
        return len([m for m in self.messages if m['at'] > time.time() - 60])

    def fields(self, req):
        """The request's parameters: its query, then its body as its Content-Type says (a JSON body that
        is said to be something else is not read, as PushPlus's documents warn)."""
        found = dict(req.query)
        kind = req.headers.get('content-type', '').split(';')[0].strip()
        if kind == JSON_TYPE and req.body:
            body = json.loads(req.body)
            if not isinstance(body, dict):
                raise ValueError('a JSON body is an object')
            found.update(body)
        elif kind == FORM_TYPE and req.body:
            found.update({k: v[0] for k, v in parse_qs(req.body.decode('utf-8'), keep_blank_values=True).items()})
        self.sent.append(found)
        return found


class Telegram(Service):
    """https://core.telegram.org/bots/api#sendmessage: POST /bot<token>/sendMessage (the method's name in
    any case), chat_id and text from the query, a form or JSON; {"ok": true, "result": <Message>}, or
    {"ok": false, "error_code", "description"} with the error's HTTP status."""

    KIND = 'telegram'
    KEY = '123456789:AAFb-Test_token0123456789abcdefghij'
    CHAT = '-1001234567890'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.chat = self.CHAT
        self.route('send', 'POST', r'/bot([^/]+)/(?i:sendmessage)', self.send)

    def path(self, key):
        return '/bot%s/sendMessage?chat_id=%s' % (key, self.CHAT)

    def send(self, req, token):
        if token != self.key:
            return Reply(401, {'ok': False, 'error_code': 401, 'description': 'Unauthorized'})
        found = self.fields(req)
        if str(found.get('chat_id')) != self.chat:
            return Reply(400, {'ok': False, 'error_code': 400, 'description': 'Bad Request: chat not found'})
        text = found.get('text')
        if not isinstance(text, str) or not text.strip():
            return Reply(400, {'ok': False, 'error_code': 400, 'description': 'Bad Request: message text is empty'})
        if len(text) > 4096:
            return Reply(400, {'ok': False, 'error_code': 400, 'description': 'Bad Request: message is too long'})
        self.took(text)
        return Reply(200, {'ok': True, 'result': {'message_id': len(self.messages), 'date': int(time.time()),
                                                  'chat': {'id': int(self.chat), 'type': 'supergroup'},
                                                  'text': text}})


class WeCom(Service):
    """https://developer.work.weixin.qq.com/document/path/91770: POST /cgi-bin/webhook/send?key=<key>,
    JSON {"msgtype": "text", "text": {"content"}} (at most 2048 bytes); HTTP 200 always, errcode 0 when
    taken; 20 messages a minute."""

    KIND = 'wecom'
    KEY = '693a91f6-7c1e-4bc4-97a0-0ec2f1fa5aaa'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.route('send', 'POST', r'/cgi-bin/webhook/send', self.send)

    def path(self, key):
        return '/cgi-bin/webhook/send?key=%s' % key

    def send(self, req):
        if req.query.get('key') != self.key:
            return Reply(200, {'errcode': 93000, 'errmsg': 'invalid webhook url, hint: [1700000000_1a2b], '
                                                           'from ip: 127.0.0.1'})
        found = self.fields(req)
        content = (found.get('text') or {}).get('content') if found.get('msgtype') == 'text' else None
        if not isinstance(content, str) or not content:
            return Reply(200, {'errcode': 40008, 'errmsg': 'invalid message type'})
        if len(content.encode('utf-8')) > 2048:
            return Reply(200, {'errcode': 40058, 'errmsg': 'content exceed max length 2048'})
        if self.in_the_last_minute() >= 20:
            return Reply(200, {'errcode': 45009, 'errmsg': 'api freq out of limit'})
        self.took(content)
        return Reply(200, {'errcode': 0, 'errmsg': 'ok'})


class DingTalk(Service):
    """https://open.dingtalk.com/document/orgapp/custom-robot-access and .../customize-robot-security-
    settings: POST /robot/send?access_token=<token>[&timestamp=<ms>&sign=<sign>], JSON {"msgtype":
    "text", "text": {"content"}}; signing: HMAC-SHA256 keyed with the secret over "<ms>\\n<secret>",
    Base64, within an hour; HTTP 200 always, errcode 0 when taken (310000 for a signature that does
    not match); 20 messages a minute, then 130101."""

    KIND = 'dingtalk'
    KEY = 'a3f5e8d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4'
    SECRET = 'SECb1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2'

    def __init__(self, tls_cert=None, secret=SECRET):
        super().__init__(tls_cert)
        self.secret = secret   # None: a robot without signing
        self.route('send', 'POST', r'/robot/send', self.send)

    @property
    def notify_url(self):
        return super().notify_url + ('&secret=%s' % self.SECRET if self.secret else '')

    def path(self, key):
        return '/robot/send?access_token=%s' % key

    def send(self, req):
        if req.query.get('access_token') != self.key:
            return Reply(200, {'errcode': 300001, 'errmsg': 'token is not exist'})
        if self.secret:
            stamp, sign = req.query.get('timestamp', ''), req.query.get('sign', '')
            wanted = base64.b64encode(hmac.new(self.secret.encode(), ('%s\n%s' % (stamp, self.secret)).encode(),
                                               hashlib.sha256).digest()).decode()
            if not stamp.isdigit() or abs(int(stamp) - time.time() * 1000) > 3600 * 1000 or sign != wanted:
                return Reply(200, {'errcode': 310000, 'errmsg': 'sign not match, more: [https://ding-doc.'
                                                                'dingtalk.com/doc#/serverapi2/qf2nxq]'})
        found = self.fields(req)
        content = (found.get('text') or {}).get('content') if found.get('msgtype') == 'text' else None
        if not isinstance(content, str) or not content:
            return Reply(200, {'errcode': 40035, 'errmsg': 'missing parameter'})
        if self.in_the_last_minute() >= 20:
            return Reply(200, {'errcode': 130101, 'errmsg': 'send too fast, exceed 20 times per minute'})
        self.took(content)
        return Reply(200, {'errcode': 0, 'errmsg': 'ok'})


class Feishu(Service):
    """https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot: POST /open-apis/bot/v2/hook/
    <id>, JSON {"msg_type": "text", "content": {"text"}} of at most 20 KB; signing: "timestamp" (seconds,
    within an hour) and "sign" in the body, HMAC-SHA256 keyed with "<timestamp>\\n<secret>" over an
    empty message, Base64; HTTP 200 always, code 0 when taken (19021 for a bad signature)."""

    KIND = 'feishu'
    KEY = '2f9c4b1e-8d7a-4c3b-9e2f-1a0b9c8d7e6f'
    SECRET = 'qW3eR5tY7uI9oP1aS3dF5g'

    def __init__(self, tls_cert=None, secret=SECRET):
        super().__init__(tls_cert)
        self.secret = secret
        self.route('send', 'POST', r'/open-apis/bot/v2/hook/([^/]+)', self.send)

    @property
    def notify_url(self):
        return super().notify_url + ('?secret=%s' % self.SECRET if self.secret else '')

    def path(self, key):
        return '/open-apis/bot/v2/hook/%s' % key

    def send(self, req, hook):
        if hook != self.key:
            return Reply(200, {'code': 19001, 'msg': 'param invalid: incoming webhook access token invalid',
                               'data': {}})
        if len(req.body) > 20 * 1024:
            return Reply(200, {'code': 9499, 'msg': 'Bad Request', 'data': {}})
        found = self.fields(req)
        if self.secret:
            stamp = str(found.get('timestamp', ''))
            wanted = base64.b64encode(hmac.new(('%s\n%s' % (stamp, self.secret)).encode(), b'',
                                               hashlib.sha256).digest()).decode()
            if not stamp.isdigit() or abs(int(stamp) - time.time()) > 3600 or found.get('sign') != wanted:
                return Reply(200, {'code': 19021, 'msg': 'sign match fail or timestamp is not within one hour '
                                                         'from current time', 'data': {}})
        text = (found.get('content') or {}).get('text') if found.get('msg_type') == 'text' else None
        if not isinstance(text, str) or not text:
            return Reply(200, {'code': 9499, 'msg': 'Bad Request', 'data': {}})
        self.took(text)
        return Reply(200, {'StatusCode': 0, 'StatusMessage': 'success', 'code': 0, 'data': {}, 'msg': 'success'})


class Bark(Service):
    """https://github.com/Finb/bark-server/blob/master/docs/API_V2.md: POST /<key> with JSON or a form
    (title, subtitle, body, group, sound, ...); {"code": 200, "message": "success", "timestamp"}; an
    unknown key HTTP 400 {"code": 400, "message": ...}."""

    KIND = 'bark'
    KEY = 'xR4mFq9ZbTk2LwYp8sVn3C'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.route('push', 'POST', r'/([^/]+)', self.push)

    def path(self, key):
        return '/%s' % key

    def push(self, req, key):
        if key != self.key:
            return Reply(400, {'code': 400, 'message': 'failed to get device token: failed to get [%s] device '
                                                       'token from database' % key, 'timestamp': int(time.time())})
        found = self.fields(req)
        if not found.get('body'):
            return Reply(400, {'code': 400, 'message': 'request bind failed: body is empty',
                               'timestamp': int(time.time())})
        self.took(found['body'], found.get('title'))
        return Reply(200, {'code': 200, 'message': 'success', 'timestamp': int(time.time())})


class ServerChan(Service):
    """https://sct.ftqq.com/sendkey (Turbo: POST /<SENDKEY>.send) and ServerChan3 (POST
    /send/<SENDKEY>.send); title required, at most 32 characters (Turbo), desp Markdown; {"code": 0,
    "message", "data"} when taken, another code when not."""

    KIND = 'serverchan'
    KEY = 'SCT214159TpQrStUvWxYz0123456789ab'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.route('send', 'POST', r'/(?:send/)?([^/]+)\.send', self.send)

    def path(self, key):
        return '/%s.send' % key

    def send(self, req, key):
        if key != self.key:
            return Reply(200, {'code': 40001, 'message': 'bad pushtoken', 'data': None})
        found = self.fields(req)
        title = found.get('title')
        if not title or len(title) > 32:
            return Reply(200, {'code': 40002, 'message': 'title is required, at most 32 characters', 'data': None})
        self.took(found.get('desp', ''), title)
        return Reply(200, {'code': 0, 'message': '', 'data': {'pushid': str(len(self.messages)), 'readkey': 'rk',
                                                            'error': 'SUCCESS', 'errno': 0}})


class PushDeer(Service):
    """https://github.com/easychen/pushdeer: POST /message/push, a form (or the query): pushkey, text
    (required), desp, type (text, markdown, image); {"code": 0, "content": {"result": [...]}}, an error
    another code and "error"."""

    KIND = 'pushdeer'
    KEY = 'PDU1234TAbCdEfGhIjKlMnOpQrStUvWxYz012345'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.route('push', 'POST', r'/message/push', self.push)

    def path(self, key):
        return '/message/push?pushkey=%s' % key

    def push(self, req):
        found = self.fields(req)
        if found.get('pushkey') != self.key:
            return Reply(200, {'code': 80501, 'error': 'pushkey does not exist or has no device'})
        if not found.get('text') or found.get('type', 'markdown') not in ('text', 'markdown', 'image'):
            return Reply(200, {'code': 80001, 'error': 'text is required'})
        self.took(found['text'])
        return Reply(200, {'code': 0, 'content': {'result': [json.dumps({'counts': 1, 'logs': [],
                                                                         'success': 'ok'})]}})


class PushPlus(Service):
    """https://www.pushplus.plus/doc/guide/api.html: POST /send, JSON with Content-Type
    application/json (else the body is not read): token, title, content, template; {"code": 200,
    "msg": "请求成功", "data": <serial>}, any other code (HTTP 200 all the same) when not taken."""

    KIND = 'pushplus'
    KEY = '0a1b2c3d4e5f60718293a4b5c6d7e8f9'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.route('send', 'POST', r'/send(?:/([^/]+))?', self.send)

    def path(self, key):
        return '/send?token=%s' % key

    def send(self, req, in_path):
        found = self.fields(req)
        token = in_path or found.get('token')
        if not token:
            return Reply(200, {'code': 400, 'msg': '请求参数token不能为空', 'data': None})
        if token != self.key:
            return Reply(200, {'code': 903, 'msg': '无效的用户token', 'data': None})
        if not found.get('content'):
            return Reply(200, {'code': 400, 'msg': '请求参数content不能为空', 'data': None})
        self.took(found['content'], found.get('title'))
        return Reply(200, {'code': 200, 'msg': '请求成功', 'data': 'a1b2c3d4e5%d' % len(self.messages)})


class Ntfy(Service):
    """https://docs.ntfy.sh/publish/: a JSON message POSTed to the root ({"topic", "message", "title"}),
    or the text POSTed to /<topic> (X-Title); the message as JSON when taken; errors {"code", "http",
    "error"} (a topic this fake does not serve answers as a protected one: 403)."""

    KIND = 'ntfy'
    KEY = 'router-alerts-7f3a9c'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.topics = set()   # the topics it serves beside its key's
        self.route('json', 'POST', r'/', self.publish_json)
        self.route('topic', 'POST', r'/([^/]+)', self.publish)

    def path(self, key):
        return '/%s' % key

    def refused(self):
        return Reply(403, {'code': 40301, 'http': 403, 'error': 'forbidden',
                           'link': 'https://ntfy.sh/docs/publish/#authentication'})

    def answer(self, topic, message, title):
        self.took(message, title)
        found = {'id': 'hwQ2YpKdmg%02d' % len(self.messages), 'time': int(time.time()),
                 'expires': int(time.time()) + 43200, 'event': 'message', 'topic': topic, 'message': message}
        return Reply(200, dict(found, title=title) if title else found)

    def publish_json(self, req):
        found = self.fields(req)
        if found.get('topic') != self.key and found.get('topic') not in self.topics:
            return self.refused()
        if not found.get('message'):
            return Reply(400, {'code': 40011, 'http': 400, 'error': 'invalid request: message is empty'})
        return self.answer(found['topic'], found['message'], found.get('title'))

    def publish(self, req, topic):
        if topic != self.key and topic not in self.topics:
            return self.refused()
        return self.answer(topic, req.body.decode('utf-8'), req.headers.get('x-title') or req.headers.get('title'))


class Gotify(Service):
    """https://gotify.net/docs/pushmsg: POST /message, the application token in the query, X-Gotify-Key
    or Authorization: Bearer; JSON or a form: message (required), title, priority; the message created
    as JSON; errors {"error", "errorCode", "errorDescription"}."""

    KIND = 'gotify'
    KEY = 'AbCdEfGhIjK.lMn'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.tokens_in_query = 0
        self.route('message', 'POST', r'/message', self.message)

    def path(self, key):
        return '/message?token=%s' % key

    def message(self, req):
        token = req.query.get('token') or req.headers.get('x-gotify-key') or \
            req.headers.get('authorization', '').partition('Bearer ')[2]
        self.tokens_in_query += 'token' in req.query
        if token != self.key:
            return Reply(401, {'error': 'Unauthorized', 'errorCode': 401, 'errorDescription': 'you need to provide a '
                               'valid access token or user credentials to access this api'})
        found = self.fields(req)
        if not found.get('message'):
            return Reply(400, {'error': 'Bad Request', 'errorCode': 400,
                               'errorDescription': "Field 'message' is required"})
        self.took(found['message'], found.get('title'))
        return Reply(200, {'id': len(self.messages), 'appid': 1, 'message': found['message'],
                           'title': found.get('title', ''), 'priority': 0, 'date': '2026-01-01T00:00:00Z'})


class Discord(Service):
    """https://discord.com/developers/docs/resources/webhook#execute-webhook: POST /api/webhooks/<id>/
    <token>, JSON content (at most 2000 characters); 204 No Content when taken; errors {"message",
    "code"} (401 Invalid Webhook Token, 400 Cannot send an empty message, 50035 Invalid Form Body)."""

    KIND = 'discord'
    KEY = 'kQ9wE8rT7yU6iO5pA4sD3fG2hJ1kL0zXcVbNm-_qWeRtYuIoPaSdFgHjKlZxCvBnM1234'
    WEBHOOK = '1234567890123456789'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.route('execute', 'POST', r'/api/webhooks/(\d+)/([^/]+)', self.execute)

    def path(self, key):
        return '/api/webhooks/%s/%s' % (self.WEBHOOK, key)

    def execute(self, req, webhook, token):
        if webhook != self.WEBHOOK or token != self.key:
            return Reply(401, {'message': 'Invalid Webhook Token', 'code': 50027})
        found = self.fields(req)
        content = found.get('content')
        if not content:
            return Reply(400, {'message': 'Cannot send an empty message', 'code': 50006})
        if len(content) > 2000:
            return Reply(400, {'message': 'Invalid Form Body', 'code': 50035, 'errors': {'content': {'_errors': [
                {'code': 'BASE_TYPE_MAX_LENGTH', 'message': 'Must be 2000 or fewer in length.'}]}}})
        self.took(content)
        return Reply(204, text='')


class Slack(Service):
    """https://api.slack.com/messaging/webhooks: POST /services/<T...>/<B...>/<secret>, JSON {"text"};
    200 "ok" (plain text) when taken; errors a plain-text word with the status (400 no_text, ...; a
    revoked or wrong URL: 403 invalid_token)."""

    KIND = 'slack'
    KEY = 'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX'

    def __init__(self, tls_cert=None):
        super().__init__(tls_cert)
        self.route('post', 'POST', r'/services/(T\w+/B\w+/\w+)', self.post)

    def path(self, key):
        return '/services/%s' % key

    def post(self, req, key):
        if key != self.key:
            return Reply(403, text='invalid_token')
        try:
            found = self.fields(req)
        except ValueError:
            return Reply(400, text='invalid_payload')
        if not found.get('text'):
            return Reply(400, text='no_text')
        self.took(found['text'])
        return Reply(200, text='ok')


SERVICES = [Telegram, WeCom, DingTalk, Feishu, Bark, ServerChan, PushDeer, PushPlus, Ntfy, Gotify, Discord, Slack]
