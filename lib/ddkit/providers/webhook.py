"""webhook: tell any HTTP endpoint this host's public IP, with one request the user describes.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md),
registered as `webhook`: a URL, a method, an optional body and headers, in which the placeholders
{ip}, {name}, {type} and {line} are filled in, each value escaped for where it stands (percent-encoded in the
URL and in a form body, a JSON string in a JSON body). A webhook is only told the IP, never read
(ddkit.provider.told): the ip file alone says what it was last told. Any 2xx answer is success.
The URL's path and query often hold the webhook's credential (Slack, Discord, Telegram, Home
Assistant put it there), so the URL is a secret: only its origin (scheme, host, port) is ever shown.
HTTP semantics (status codes, methods): https://www.rfc-editor.org/rfc/rfc9110; form bodies:
https://url.spec.whatwg.org/#application/x-www-form-urlencoded; JSON: https://www.rfc-editor.org/rfc/rfc8259
"""

from ddkit import Failure
from ddkit.provider import declaration, secret_setting
from ddkit.settings import Setting, Withheld, check_url
from ddkit.urls import origin

NAME = 'webhook'
SUMMARY = 'Tell any HTTP endpoint (a webhook) this host\'s public IP'
# the current IP, record_name (its xn-- form), A or AAAA, the operator line ('' for a record without lines)
PLACEHOLDERS = ('ip', 'name', 'type', 'line')
METHODS = ('GET', 'POST', 'PUT', 'PATCH')
# sent by the tool itself (or by the body's form): a header of these names would break the request
SET_BY_TOOL = ('host', 'content-length', 'transfer-encoding', 'connection', 'content-type')
# credentials: kept out of the plain headers, whose values are no secret (logs, --help, argv)
CREDENTIALS = ('authorization', 'proxy-authorization', 'cookie')
TOKEN_CHARS = frozenset('!#$%&\'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')
WORD_CHARS = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_')
SAMPLE = {'ip': '2001:db8::1', 'name': 'home.example.com', 'type': 'AAAA', 'line': 'ct'}   # a body's check at load
JSON_TYPE, FORM_TYPE = 'application/json', 'application/x-www-form-urlencoded'
FIXES = {   # what to do about the HTTP statuses a webhook refuses with (docs/providers.md)
    400: 'the webhook could not use the request: check body and the placeholders in url',
    401: 'the webhook wants credentials: set bearer_token or header_secret',
    403: 'the webhook refused the credentials: check bearer_token or header_secret, and url',
    404: 'check url (its path, the webhook\'s id or token in it) and record_name',
    405: 'the webhook takes another method: check method',
    410: 'the webhook was deleted: create it again and set url',
    413: 'the body is too large for the webhook: shorten body',
    415: 'the webhook takes another body: a body starting with { or [ is sent as JSON, any other as a form',
    422: 'the webhook refused the body\'s fields: check body',
    429: 'too many requests: run less often (the next run sends it again)',
}


def placeholders(text, where):
    """The placeholders of a template, checked: a ValueError naming an unknown one."""
    return [name for _, name, _ in parts(text, where)]


def parts(template, where, json=False):
    """The template as (literal text, placeholder or None, inside a JSON string) triples; `{word}` is
    a placeholder (JSON's own braces are never followed by a word and a }); json: which placeholders
    stand inside a JSON string is tracked. A ValueError names an unknown placeholder."""
    found, start, i, quoted, size = [], 0, 0, False, len(template)
    while i < size:
        c = template[i]
        if json and quoted and c == '\\':
            i += 2   # an escaped character: \" does not end the string
            continue
        if json and c == '"':
            quoted = not quoted
        elif c == '{':
            end = i + 1
            while end < size and template[end] in WORD_CHARS:
                end += 1
            if end > i + 1 and end < size and template[end] == '}':
                word = template[i + 1:end]
                if word not in PLACEHOLDERS:
                    raise ValueError('{%s} in %s is not a placeholder: the placeholders are %s' % (
                        word, where, ', '.join('{%s}' % p for p in PLACEHOLDERS)))
                found.append((template[start:i], word, quoted))
                start = i = end + 1
                continue
        i += 1
    found.append((template[start:], None, quoted))
    return found


def fill(template, values, where, escape):
    """The template with each placeholder replaced by escape(its value, inside a JSON string)."""
    return ''.join(text + (escape(values[name], quoted) if name else '')
                   for text, name, quoted in parts(template, where, json=escape is as_json))


def as_json(value, quoted):
    """A JSON string: its content inside a string ("ip": "{ip}"), else quoted ("ip": {ip})."""
    from ddkit import jsontext
    text = jsontext.dumps(value)
    return text[1:-1] if quoted else text


def percent(value, quoted=False):
    """Percent-encoded (RFC 3986's unreserved characters stay): a URL's path or query, a form value."""
    from ddkit.urls import quote
    return quote(value)


def as_is(value, quoted=False):
    """A header's value: the values are printable ASCII (an address, a host name, A or AAAA)."""
    return value


def check_webhook_url(value):
    """An http(s):// URL whose placeholders are known and stand in its path or query, never in its
    host (the one --check verifies TLS with, the one the request goes to)."""
    value = check_url(value)
    authority = value.partition('://')[2].partition('/')[0]
    if set(authority) & set('?#{}'):
        raise ValueError('the host must be written out, then a / before any path or query: '
                         'https://host/path?name={name}; placeholders go in the path or the query')
    if '#' in value:
        raise ValueError('a #fragment is never sent: remove it')
    placeholders(value, 'url')
    return value


def check_method(value):
    method = value.strip().upper()
    if method not in METHODS:
        raise ValueError('must be %s' % ', '.join(METHODS))
    return method


def body_type(body):
    """The Content-Type a body is sent with: JSON when it starts with { or [, else a form."""
    return JSON_TYPE if body.lstrip()[:1] in ('{', '[') else FORM_TYPE


def check_body(value):
    """A JSON body (it starts with { or [) that is JSON once filled, or a form body: name=value pairs
    joined by &, already percent-encoded (no blanks). Its placeholders are known."""
    json = body_type(value) == JSON_TYPE
    if not value.strip() or any(ord(c) < 32 and not (json and c in '\t\n\r') for c in value):
        raise ValueError('must be non-empty text (a JSON body may span lines)')
    placeholders(value, 'body')
    if json:
        from ddkit import jsontext
        try:
            jsontext.loads(fill(value, SAMPLE, 'body', as_json))
        except ValueError as e:
            raise ValueError('starts with { or [, so it is sent as JSON, and it is no JSON once its '
                             'placeholders are filled (%s): a placeholder stands inside a JSON string '
                             '("ip": "{ip}") or alone, in place of one ("ip": {ip})' % e)
        return value
    if ' ' in value or not all(pair.partition('=')[0] and pair.partition('=')[1] for pair in value.split('&')):
        raise ValueError('is sent as a form (it does not start with { or [): name=value pairs joined by &, '
                         'percent-encoded, no blanks (a space is + or %20), e.g. host={name}&ip={ip}')
    return value


def split_header(value, setting):
    """(name, value) of a 'Name: value' header, checked; a ValueError says what is wrong."""
    name, colon, text = value.partition(':')
    name, text = name.strip(), text.strip()
    if not colon or not name or not set(name) <= TOKEN_CHARS or not text:
        raise ValueError('%r is not a header written Name: value (in the environment or a config file blanks '
                         'separate headers: there write each one Name:value without a blank; a value with '
                         'blanks needs the flag once per header, or a UCI list)' % value[:40]
                         if setting == 'headers' else 'must be one header written Name: value')
    if any(not 32 <= ord(c) < 127 for c in text):
        raise ValueError('the value of header %s must be printable ASCII' % name)
    if name.lower() in SET_BY_TOOL:
        raise ValueError('header %s is set by the tool (Content-Type by the body: JSON when it starts with '
                         '{ or [, else a form)' % name)
    return name, text


def check_headers(value):
    """One header of headers: 'Name: value', no credential (those go in a secret setting); an empty
    one is none (the sample UCI section's `list headers ''`)."""
    if not value.strip():
        return ''
    named = value.partition(':')[0].strip()
    if named.lower() in CREDENTIALS:   # its value is a secret given in the wrong place: never shown
        raise Withheld('header %s holds a credential: give it as header_secret (or the token alone as '
                       'bearer_token), which are kept out of logs' % named)
    name, text = split_header(value, 'headers')
    placeholders(text, 'header %s' % name)
    return value


def check_header_secret(value):
    name, text = split_header(value, 'header_secret')
    placeholders(text, 'header_secret')
    return value


def url_secrets(url):
    """What of a webhook URL template is masked in every message: its path and query whole, and each
    literal path segment and query value, any of which may be the webhook's key or token, which an
    answer may echo alone. Never its origin, nor query names and placeholders, nor a path's short
    words of letters ('update', 'nic', 'hook'): names, no key, which masked would take the same word
    from the messages around them (the step 'update record')."""
    rest = url[len(origin(url)) + 1:]   # after the / that follows the host
    path, _, query = rest.partition('?')
    named = [piece for piece in [rest] + path.split('/') if len(piece) >= WORD or not piece.isalpha()]
    pieces = named + [pair.partition('=')[2] for pair in query.split('&')]
    return [text for piece in pieces for text, _, _ in parts(piece, 'url') if len(text) >= 3]


def shown_url(url):
    """A webhook URL as messages show it: its origin, and *** for any path and query."""
    return origin(url) + ('/***' if url[len(origin(url)):].strip('/') else '')


WORD = 8   # a path segment of letters shorter than this is a word, no key (and masks as such: ddkit.log)


SETTINGS = [
    Setting('url', help='the webhook\'s http(s):// URL; the placeholders {ip}, {name}, {type}, {line} in its path or '
            'query are filled in percent-encoded; its path and query may hold a key: only its scheme, host and '
            'port are ever shown', secret=url_secrets,
            check=check_webhook_url),
    Setting('method', help='GET, POST, PUT or PATCH (default: GET, or POST when a body is set); POST and PATCH '
            'are never sent twice by a retry', check=check_method, choices=METHODS),
    Setting('body', help='the request\'s body: JSON when it starts with { or [ (placeholders as JSON strings), '
            'else a form, name=value&... (placeholders percent-encoded)', check=check_body),
    Setting('headers', help='headers to send, "Name: value" each (where blanks separate values, write '
            'Name:value); no credential here', check=check_headers,
            repeat=True, metavar='HEADER'),
    secret_setting('bearer_token', 'sent as Authorization: Bearer <token>'),
    Setting('header_secret', help='one header holding a credential, "Name: value" (X-Api-Key: ..., '
            'Authorization: Basic ...): kept out of logs', secret=True, check=check_header_secret,
            label='Secret header'),
]
# url is the one URL setting: --check verifies TLS with its host (placeholders never stand there)
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, required=('url',), urls=('url',), ids=False)
SEVERAL = True    # with lines, told each line's address in a request of its own, {line} naming it


def lines_problem(cfg):
    """Why lines cannot be told with these templates (none holds {line}: each line's request would
    look alike but for its address), else None."""
    used = [text for text in [cfg.url, cfg.body, cfg.header_secret] + list(cfg.headers or ()) if text]
    if not any('{line}' in text for text in used):
        return ('lines: the webhook would be told each line\'s address alike; fix: put {line} in the url, '
                'body or a header')
    return None


def method_of(cfg):
    return cfg.method or ('POST' if cfg.body else 'GET')


def request_of(cfg, ip, line=None):
    """(method, URL, headers, body bytes or None) of the request that tells the webhook ip (of line);
    a UsageError when two settings give the same header (nothing is sent)."""
    values = {'ip': ip, 'name': cfg.record_name, 'type': cfg.record_type, 'line': line or ''}
    url = fill(cfg.url, values, 'url', percent)
    given = [split_header(h, 'headers') for h in cfg.headers or () if h]
    if cfg.header_secret:
        given.append(split_header(cfg.header_secret, 'header_secret'))
    if cfg.bearer_token:
        given.append(('Authorization', 'Bearer ' + cfg.bearer_token))
    headers = {}
    for name, text in given:
        if name.lower() in (n.lower() for n in headers):
            from ddkit import UsageError
            raise UsageError('header %s is given twice (by headers, header_secret or bearer_token): give it once; '
                             'nothing was sent' % name)
        headers[name] = fill(text, values, 'header %s' % name, as_is)
    body = None
    if cfg.body:
        kind = body_type(cfg.body)
        headers['Content-Type'] = kind
        body = fill(cfg.body, values, 'body', as_json if kind == JSON_TYPE else percent).encode('utf-8')
    return method_of(cfg), url, headers, body


def send_ip(job, ip):
    """Tell the webhook the IP: one request, success on any 2xx (never "already held": None). POST
    and PATCH are not idempotent, so never sent twice by a retry; GET and PUT are, and are retried on
    what http.request takes as transient (https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2)."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    method, url, headers, body = request_of(cfg, ip, job.line)
    shown = origin(url)
    if cfg.header_secret:   # a server may echo the value alone
        log.add_secret(split_header(cfg.header_secret, 'header_secret')[1])
    try:
        answer = http.request(method, url, 'update record', headers=headers, data=body, timeout=cfg.timeout,
                              ca_file=cfg.ca_file, repeatable=method in ('GET', 'PUT'), shown=shown_url(url))
    except Failure as e:   # its message is masked by the log; its url field is the origin alone
        if e.url:
            e.url = shown
        raise
    status = answer.status
    if 200 <= status < 300:
        return None
    said = http.snippet(answer.text)
    if 400 <= status < 500:
        fix = FIXES.get(status)
        raise Failure.at('update record', 'the webhook refused the request (HTTP %d)%s%s' % (
            status, ': ' + said if said else '', '; ' + fix if fix else ''), url=shown, status=status,
            kind='refused', provider_message=said[:200] or None, fix=fix)
    if status >= 500:
        raise Failure.at('update record', 'the webhook failed (HTTP %d)%s; the next run sends it again' % (
            status, ': ' + said if said else ''), url=shown, status=status, kind='server error',
            provider_message=said[:200] or None)
    raise Failure.at('update record', 'unexpected answer (HTTP %d): %s' % (status, said), url=shown,
                     status=status, kind='unexpected')
