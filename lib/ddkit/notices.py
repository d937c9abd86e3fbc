"""The notification services `notify` names, and the delivery of a run's notices to them.

One entry of KINDS per service: its body (a template whose slots the message fills), how its request
is routed and signed, how long a message may be, and how its answer is judged (several answer an
error with HTTP 200 and a code in the body). Which hosts are whose is ddkit.urls.NOTIFY_HOSTS: every
run checks its settings with it, and only a run that sends or keeps a notice imports this module
(ddkit.reconcile.tell_notices: not ddkit.notify, which egress6 uses too). A notice that cannot be delivered is logged and kept in the state directory
(NOTICES_FILE, bounded, mode 0600), and sent again by the next run. The URLs are secrets (a token, a
key or a topic is in them): a message names a URL by its kind and host only. Each service's request
and answer: docs/notify.md, and the documents each entry cites.
"""

import time

from ddkit import NOTICES_FILE, Failure
from ddkit.native import os

STEP = 'notify'
TIMEOUT = 10          # seconds at most per request (the record's timeout when shorter)
QUEUE_MAX = 50        # notices kept for the next run: the newest
PART_MAX = 600        # characters of one notice (a record's line) kept or sent
QUEUE_AGE = 7 * 86400   # a notice kept longer than a week is no news: dropped
ANSWER_MAX = 64 * 1024  # of a service's answer: theirs are a few hundred bytes
WHATS = ('updated', 'created', 'removed', 'failed', 'recovered', 'test')   # what a notice tells


class Slot:
    """A place in a body template: the message's title, its text, or both (FULL: a service with no
    title of its own)."""

    def __init__(self, name):
        self.name = name


TITLE, TEXT, FULL = Slot('title'), Slot('text'), Slot('full')
PRESENT = Slot('present')   # an answer's field that only has to be there


class Kind:
    """How one service is told: body (a dict template of Slots), fields (the URL's query parameters go
    into the body, where they may replace a constant of the template), form (a form, not JSON), route
    (the URL, query, headers and fields of the request, from the URL the user gave), sign (how a robot
    with a secret= in its query signs), limit (of a message, UTF-8 bytes), title_max (characters), ok
    (the answer that is delivery: None any 2xx, 'ok' that text, (field, value) a JSON field holding
    it), code and said (the fields of an error's code and words), markdown (the text is Markdown: a
    blank line between its lines)."""

    def __init__(self, body, ok=None, code=None, said=None, limit=4000, title_max=100, fields=False, form=False,
                 route=None, sign=None, markdown=False):
        self.body, self.ok, self.code, self.said, self.fields = body, ok, code, said, fields
        self.limit, self.title_max, self.form, self.route, self.sign = limit, title_max, form, route, sign
        self.markdown = markdown


def route_ntfy(base, query):
    """ntfy: a JSON message is POSTed to the server's root, the topic (the URL's last segment) in it;
    JSON sent to /<topic> would be shown as text (https://docs.ntfy.sh/publish/#publish-as-json)."""
    root, _, topic = base.rpartition('/')
    return root + '/', query, {}, {'topic': unquote(topic)}


def route_gotify(base, query):
    """Gotify: POST <server>/message; the application token from the query goes in X-Gotify-Key,
    out of the URL and so out of the server's access log (https://gotify.net/docs/pushmsg)."""
    token = [value for name, value in query if name == 'token']   # as given: printable ASCII (settings)
    base = base if base.endswith('/message') else base.rstrip('/') + '/message'
    return base, [(n, v) for n, v in query if n != 'token'], {'X-Gotify-Key': token[0]} if token else {}, {}


def sign_dingtalk(secret, now):
    """DingTalk's signing (加签): HMAC-SHA256 keyed with the secret over "<ms>\\n<secret>", Base64,
    URL-encoded, in the URL beside the timestamp in milliseconds
    (https://open.dingtalk.com/document/robots/customize-robot-security-settings)."""
    from ddkit.urls import quote
    stamp = '%d' % int(now * 1000)
    return [('timestamp', stamp), ('sign', quote(hmac_base64(secret, stamp + '\n' + secret)))], {}


def sign_feishu(secret, now):
    """Feishu's and Lark's signing (签名校验): HMAC-SHA256 keyed with "<seconds>\\n<secret>" over an
    empty message, Base64, in the JSON body beside the timestamp in seconds
    (https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot)."""
    stamp = '%d' % int(now)
    return [], {'timestamp': stamp, 'sign': hmac_base64(stamp + '\n' + secret, '')}


def hmac_base64(key, message):
    import binascii
    import hmac
    digest = hmac.new(key.encode('utf-8'), message.encode('utf-8'), 'sha256').digest()
    return binascii.b2a_base64(digest, newline=False).decode('ascii')


KINDS = {
    # https://core.telegram.org/bots/api#sendmessage: chat_id (and any other parameter) from the query
    'telegram': Kind({'text': FULL}, ok=('ok', True), code='error_code', said='description', limit=4096,
                     fields=True),
    # https://developer.work.weixin.qq.com/document/path/91770: content at most 2048 bytes
    'wecom': Kind({'msgtype': 'text', 'text': {'content': FULL}}, ok=('errcode', 0), code='errcode',
                  said='errmsg', limit=2048),
    # https://open.dingtalk.com/document/orgapp/custom-robot-access
    'dingtalk': Kind({'msgtype': 'text', 'text': {'content': FULL}}, ok=('errcode', 0), code='errcode',
                     said='errmsg', sign=sign_dingtalk),
    # https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot: a body of at most 20 KB
    'feishu': Kind({'msg_type': 'text', 'content': {'text': FULL}}, ok=('code', 0), code='code', said='msg',
                   sign=sign_feishu),
    # https://github.com/Finb/bark-server/blob/master/docs/API_V2.md: group, sound, level, ... from the query
    'bark': Kind({'title': TITLE, 'body': TEXT, 'group': 'ddkit'}, ok=('code', 200), code='code',
                 said='message', fields=True),
    # https://sct.ftqq.com/sendkey: title at most 32 characters, desp Markdown
    'serverchan': Kind({'title': TITLE, 'desp': TEXT}, ok=('code', 0), code='code', said='message', title_max=32,
                       markdown=True),
    # https://github.com/easychen/pushdeer: a form; pushkey from the query; plain text (markdown is
    # its default)
    'pushdeer': Kind({'text': FULL, 'type': 'text'}, ok=('code', 0), code='code', said='error', fields=True,
                     form=True),
    # https://www.pushplus.plus/doc/guide/api.html: token from the query (or the path); plain text
    'pushplus': Kind({'title': TITLE, 'content': TEXT, 'template': 'txt'}, ok=('code', 200),
                     code='code', said='msg', fields=True),
    # https://docs.ntfy.sh/publish/: over 4096 bytes a message would become an attachment
    'ntfy': Kind({'title': TITLE, 'message': TEXT}, ok=('id', PRESENT), code='code', said='error', limit=4096,
                 route=route_ntfy),
    # https://gotify.net/docs/pushmsg
    'gotify': Kind({'title': TITLE, 'message': TEXT}, ok=('id', PRESENT), code='errorCode',
                   said='errorDescription', route=route_gotify),
    # https://discord.com/developers/docs/resources/webhook#execute-webhook: 204, content at most 2000
    # characters; no @everyone from a record's name
    'discord': Kind({'content': FULL, 'allowed_mentions': {'parse': []}}, code='code', said='message', limit=2000),
    # https://api.slack.com/messaging/webhooks: the answer is the word ok, an error another word
    'slack': Kind({'text': FULL}, ok='ok'),
}


def tell(job, outcome, since, told):
    """After a record's run (ddkit.reconcile.tell_notices): its notice when told (what notify_on asks
    of it), to each notify URL, with the notices kept from earlier runs; sent at once in a run of one
    record, at the end of a run of several (send_notices, from ddkit.updater), so that each URL gets
    one message for all of them."""
    import ddkit
    cfg = job.cfg   # the record's proxy too (ddkit.PROXY): its notices go the way its requests went
    job.run.notices.append((cfg.notify, about(job, outcome, since) if told else None, cfg.ca_file, cfg.timeout,
                            ddkit.PROXY[0]))
    if not job.run.several:
        send_notices(job.log, job.run)


def about(job, outcome, since):
    """(what, its line) of a record's run: the record, type, line and provider, then the old and the
    new address, or the failure and its fix; since: when its failures began (a recovery), or None. Its
    secrets masked (the record's log)."""
    from ddkit import CREATED, FAILED, REMOVED, UPDATED, decimal
    cfg, failure = job.cfg, job.failure
    subject = '%s %s%s (%s)' % (cfg.record_name, cfg.record_type, ' line %s' % job.line if job.line else '',
                                job.provider.NAME)
    what = {UPDATED: 'updated', CREATED: 'created', REMOVED: 'removed', FAILED: 'failed'}.get(outcome)
    if outcome == UPDATED:
        said = '%s -> %s' % (job.old_ip or 'unknown', job.new_ip)
    elif outcome == REMOVED:
        said = 'it held %s; the line has no address' % (job.old_ip or 'unknown')
    elif outcome == FAILED:
        fix = failure.fix if failure.fix and failure.fix not in str(failure) else None   # said once
        said = '%s%s' % (failure, '; fix: %s' % fix if fix else '')
    else:
        said = job.new_ip if outcome == CREATED else 'holds %s' % job.new_ip
    header = what
    if since is not None and outcome != FAILED:
        began = decimal(since) if len(since) <= 12 else None   # the status file's epoch seconds
        stamp = time.strftime('%Y-%m-%d %H:%M', time.localtime(began)) if began else 'an earlier run'
        what, header, said = 'recovered', 'recovered, %s' % what if what else 'recovered', \
            '%s (failing since %s)' % (said, stamp)
    return what, cut(job.log.clean('%s %s: %s' % (subject, header, said)), PART_MAX)


def send_notices(log, run):
    """Send the run's notices (Run.notices) and those kept from earlier runs; never fails the run. Kept
    in the directory where a run keeps what is no record's own (the state directory of its first
    record: ddkit.KEEP_DIR, set by every run that writes state)."""
    import ddkit
    notes, run.notices = run.notices, []
    if notes and ddkit.KEEP_DIR[0] is not None:
        deliver(log, notes, ddkit.KEEP_DIR[0])


class Target:
    """One notify URL of the run: its kind and host (all that is ever shown of it), the notices it
    gets (new ones and those kept for it), and how its requests go."""

    def __init__(self, url, ca_file, timeout, route=None):
        from ddkit.urls import notify_target
        self.url, self.ca_file, self.timeout = url, ca_file, min(timeout or TIMEOUT, TIMEOUT)
        self.route = route   # the proxy of the records naming it (ddkit.PROXY), None: direct
        self.kind, self.bare, self.host = notify_target(url)
        self.name = '%s %s' % (self.kind, self.host)
        self.digest = digest(url)
        self.parts = []   # (kept line or None, epoch, what, text)


def digest(url):
    """What the queue file says of a URL: 16 hex digits of its SHA-256, never the URL."""
    import hashlib
    return hashlib.sha256(url.encode('utf-8')).hexdigest()[:16]


def deliver(log, notes, directory):
    """Send each notify URL its notices: notes, [(urls, (what, text) or None, ca_file, timeout, proxy
    route)] of
    the run's records, after those kept for it by earlier runs; one message per URL (more when they
    outgrow the service's limit). Keep what could not be delivered. Never raises: a notice never
    changes a run's outcome."""
    now = int(time.time())
    path = os.path.join(directory, NOTICES_FILE)
    targets = {}
    for urls, _, ca_file, timeout, route in notes:
        for url in urls:
            if url not in targets:
                targets[url] = Target(url, ca_file, timeout, route)
    by_digest = {target.digest: target for target in targets.values()}
    for line, (at, what, text, to) in queued(path):   # the oldest first
        if to in by_digest:
            by_digest[to].parts.append((line, at, what, text))
    for urls, part, _, _, _ in notes:
        for url in dict.fromkeys(urls) if part else ():
            targets[url].parts.append((None, now, part[0], part[1]))
    delivered, undelivered = set(), []
    from ddkit.urls import notify_secrets
    for target in targets.values():
        if not target.parts:
            continue
        for secret in notify_secrets([target.url]):   # a service's answer may echo them
            log.add_secret(secret)
        done = send(log, target, now)
        delivered.update(part[0] for part in done if part[0])
        undelivered += [queue_line(target.digest, at, what, text) for line, at, what, text in target.parts
                        if line is None and (line, at, what, text) not in done]
    if delivered or undelivered:
        keep(log, path, delivered, undelivered, now)


def send(log, target, now):
    """Send the target's parts, in as few messages as its kind's limit allows; the parts delivered.
    The first message that fails stops the rest (the service is down or refuses the URL)."""
    import ddkit
    kind = KINDS[target.kind]
    done = []
    ddkit.PROXY[0] = target.route   # a run of several sends after its last record: each URL its own way
    for parts in packed(kind, target.parts, now):
        failure = post(target, kind, parts, now)
        if failure is not None:
            log.info('notify: %s: %s; %s kept for the next run' % (
                target.name, failure.why or failure, 'the notice' if len(parts) == 1 else '%d notices' % len(parts)))
            break
        log.info('notify: %s told (%s)' % (target.name, ', '.join(part[2] for part in parts)))
        done += parts
    return done


def post(target, kind, parts, now):
    """One message of parts to the target: None when its service took it, else the Failure saying
    why. Its title says what the message holds; a service without a title gets it as the first line
    of the text, unless the message is one notice (whose line says as much)."""
    from ddkit import http, jsontext
    base, _, query = target.bare.partition('?')
    pairs = [(name, value) for name, _, value in (p.partition('=') for p in query.split('&') if p)]
    secret = [unquote(value.replace('+', '%2B')) for name, value in pairs if name == 'secret']   # a + is its own
    pairs = [(name, value) for name, value in pairs if name != 'secret']   # never sent
    headers, extra, fields = {}, {}, {}
    if kind.route:
        base, pairs, headers, extra = kind.route(base, pairs)
    if kind.fields:
        fields = {unquote(name): unquote(value) for name, value in pairs}
        pairs = []
    if kind.sign and secret:
        added, signed = kind.sign(secret[0], now)
        pairs += added
        extra.update(signed)
    title = title_of(kind, parts)
    text = ('\n\n' if kind.markdown else '\n').join([text_of(part, now) for part in parts] + [footer()])
    body = fill(kind.body, {TITLE: title, TEXT: text, FULL: text if len(parts) == 1 else title + '\n' + text})
    body.update((k, v) for k, v in fields.items() if not isinstance(kind.body.get(k), Slot))
    body.update(extra)
    url = base + ('?' + '&'.join('%s=%s' % pair for pair in pairs) if pairs else '')
    shown = '%s://%s/***' % (base.partition('://')[0], base.partition('://')[2].partition('/')[0])
    sent = {'headers': headers, 'json_body': body}
    if kind.form:
        from ddkit.urls import quote
        sent = {'headers': dict(headers, **{'Content-Type': 'application/x-www-form-urlencoded'}),
                'data': '&'.join('%s=%s' % (quote(k), quote(str(v))) for k, v in body.items()).encode('ascii')}
    try:   # sent once: a message that may have arrived is never sent again in this run
        answer = http.request('POST', url, STEP, timeout=target.timeout, ca_file=target.ca_file, retries=1,
                              repeatable=False, max_body=ANSWER_MAX, shown=shown, **sent)
    except Failure as e:
        return e
    return judged(target, kind, answer, jsontext)


def judged(target, kind, answer, jsontext):
    """None when the answer is the service's "delivered", else a Failure with its code and words."""
    try:
        found = jsontext.loads(answer.body.decode('utf-8')) if answer.body[:1] in (b'{', b'[') else None
    except ValueError:   # (UnicodeDecodeError is one)
        found = None
    found = found if isinstance(found, dict) else {}
    if 200 <= answer.status < 300:
        if kind.ok is None or kind.ok == 'ok' and answer.text.strip() == 'ok':
            return None
        if isinstance(kind.ok, tuple):
            field, want = kind.ok
            if field in found and (want is PRESENT or found[field] == want and type(found[field]) is type(want)):
                return None
    from ddkit.http import snippet
    code = found.get(kind.code) if kind.code else None
    said = found.get(kind.said) if kind.said else None
    words = snippet(str(said) if said not in (None, '') else answer.text or '(no text)', 200)
    coded = ', code %s' % snippet(str(code), 20) if code not in (None, '') else ''
    what = 'answered HTTP %d%s: %s' % (answer.status, coded, words)
    return Failure.at(STEP, what, url=target.name, status=answer.status,
                      code=None if code is None else str(code)[:20], provider_message=words,
                      kind='server error' if answer.status >= 500 else 'refused',
                      fix='check the %s URL as the service gave it (--check --notify-test)' % target.kind)


def fill(template, values):
    """The template with each Slot replaced by its value."""
    if isinstance(template, dict):
        return {key: fill(value, values) for key, value in template.items()}
    return values.get(template, template) if isinstance(template, Slot) else template


def unquote(text):
    """A query value's %XX and + decoded (urllib.parse would load re: start-up cost)."""
    data, at = bytearray(), 0
    raw = text.replace('+', ' ').encode('utf-8')
    while at < len(raw):
        if raw[at:at + 1] == b'%' and len(raw[at + 1:at + 3]) == 2 and all(
                c in b'0123456789abcdefABCDEF' for c in raw[at + 1:at + 3]):
            data.append(int(raw[at + 1:at + 3], 16))
            at += 3
        else:
            data.append(raw[at])
            at += 1
    return data.decode('utf-8', 'replace')


def packed(kind, parts, now):
    """The parts in messages of at most the kind's limit (UTF-8 bytes, with the title and the footer;
    a part is at most PART_MAX characters: ddkit.notify)."""
    room = kind.limit - len(footer().encode('utf-8')) - kind.title_max * 4 - 4
    messages, size = [], room
    for part in parts:
        length = len(text_of(part, now).encode('utf-8')) + 2
        if size + length > room:
            messages.append([])
            size = 0
        messages[-1].append(part)
        size += length
    return messages


def cut(text, size):
    """text cut to at most size UTF-8 bytes, '...' at the end when cut."""
    data = text.encode('utf-8')
    return text if len(data) <= size else data[:max(size - 3, 0)].decode('utf-8', 'ignore') + '...'


def text_of(part, now):
    """A notice's line in a message: a kept one says since when it waited."""
    line, at, _, text = part
    if line is None or now - at < 60:
        return text
    return '[%s] %s' % (time.strftime('%m-%d %H:%M', time.localtime(at)), text)


def title_of(kind, parts):
    """The message's title: what its one notice is about, or how many of each it holds."""
    if len(parts) == 1:
        title = 'ddkit: %s' % parts[0][3].partition(': ')[0]
    else:
        counts = {}
        for part in parts:
            counts[part[2]] = counts.get(part[2], 0) + 1
        title = 'ddkit: %s' % ', '.join('%d %s' % (n, what) for what, n in counts.items())
    return title if len(title) <= kind.title_max else title[:kind.title_max - 3] + '...'


def footer():
    """The last line of a message: which host sent it."""
    node = os.uname().nodename if hasattr(os, 'uname') else os.environ.get('COMPUTERNAME', '')
    from ddkit.log import printable
    return '(ddkit on %s)' % printable(node[:64] or 'this host')


def queue_line(to, at, what, text):
    """A kept notice as its line of the queue file: the URL's digest, when, the text; what it tells
    too (before the text) only where the text does not say it as a record's notice does (after its
    subject: 'home.example.com A (cloudflare) created: ...'), so a line does not say it twice."""
    text = cut(' '.join(text.split()), PART_MAX)
    return '%s %d %s' % (to, at, text) if told_in(text) == what else '%s %d %s %s' % (to, at, what, text)


def told_in(text):
    """What a record's notice tells, as its text says it after its subject '(provider) ', or None."""
    import re
    found = re.search(r'\) (?:recovered, )?(%s)\b' % '|'.join(WHATS), text)
    if found is None:
        return None
    return 'recovered' if text[found.start() + 2:].startswith('recovered') else found.group(1)


def queued(path):
    """[(line, (epoch, what, text, URL digest))] of the queue file's well-formed lines."""
    from ddkit import decimal, state
    found = []
    for line in state.read_lines(path, limit=QUEUE_MAX * (PART_MAX * 4 + 64), private=True):
        to, at, text = (line.split(' ', 2) + ['', ''])[:3]
        what, _, rest = text.partition(' ')
        if what not in WHATS:   # the text alone, saying what it tells (queue_line); no word of WHATS is a name
            what, rest = told_in(text), text
        text = rest
        number = decimal(at) if len(at) <= 12 else None
        if len(to) == 16 and not to.strip('0123456789abcdef') and number is not None and what in WHATS and text:
            found.append((line, (number, what, text, to)))
    return found


def keep(log, path, delivered, undelivered, now):
    """The queue file again, under its lock (another run may be keeping its own): without the lines
    delivered, and those older than QUEUE_AGE; with the notices undelivered; the newest QUEUE_MAX of
    them, written whole (mode 0600), or the file removed when none is left."""
    from ddkit import state
    from ddkit.lock import Lock
    try:
        with Lock(path + '.lock'):
            lines = [line for line, (at, _, _, _) in queued(path)
                     if line not in delivered and now - at < QUEUE_AGE] + undelivered
            dropped = max(len(lines) - QUEUE_MAX, 0)
            lines = lines[dropped:]
            if lines:
                state.write_if_changed(path, lines, private=True)
            else:
                problem = state.remove(path)
                if problem:
                    raise OSError(problem)
    except (Failure, OSError) as e:
        log.info('notify: cannot keep the notices in %s: %s' % (path, getattr(e, 'strerror', None) or e))
        return
    if dropped:
        log.info('notify: %d older notices dropped: at most %d are kept' % (dropped, QUEUE_MAX))


def test(log, url, ca_file, timeout, about):
    """--check --notify-test: one test message to url; None when delivered, else the Failure."""
    from ddkit.urls import notify_secrets
    for secret in notify_secrets([url]):
        log.add_secret(secret)
    import ddkit
    target, now = Target(url, ca_file, timeout, ddkit.PROXY[0]), int(time.time())   # the record's proxy
    text = 'ddkit test message: %s is told here' % about
    return post(target, KINDS[target.kind], [(None, now, 'test', cut(text, PART_MAX))], now)
