"""URLs taken apart: the one place, for the settings that check them and the requests that use them.
Apart from ddkit.http, so that a run that sends no request loads no HTTP code to check its URLs."""

from ddkit import decimal


def split_url(url):
    """(scheme, host, port, path without its leading /) of a URL; ValueError for a port that is not
    1-65535. The one place URLs are taken apart: settings.check_url checks with it too."""
    scheme, _, rest = url.partition('://')
    hostport, _, path = rest.partition('/')
    if hostport.startswith('['):
        host, _, port = hostport[1:].partition(']')
        port = port[1:] if port.startswith(':') else port
    else:
        host, _, port = hostport.partition(':')
    number = decimal(port) if port else 443 if scheme == 'https' else 80
    if not number or number > 65535:
        raise ValueError('bad port %r' % port)
    return scheme, host, number, path


def quote(text):
    """text percent-encoded for a URL's query or path: RFC 3986's unreserved characters stay, every
    other byte of its UTF-8 is %XX (urllib.parse would load re: start-up cost)."""
    from ddkit import UNRESERVED
    return ''.join(chr(b) if chr(b) in UNRESERVED else '%%%02X' % b for b in text.encode('utf-8'))


def authority(rest):
    """The host part of a URL after its scheme://: up to the first /, ? or #."""
    cut = [rest.index(c) for c in '/?#' if c in rest]
    return rest[:min(cut)] if cut else rest


def origin(url):
    """scheme://host[:port] of a URL: all of it a message may show, where its path or query may hold
    a key (a webhook's, an update URL's)."""
    scheme, _, rest = url.partition('://')
    return '%s://%s' % (scheme, authority(rest))


PROXY_SCHEMES = ('http', 'socks5', 'socks5h')


def split_proxy(url):
    """(scheme, user, password, host, port) of a proxy URL, scheme://[user[:password]@]host[:port][/]:
    no scheme is http, as curl reads a proxy variable; no port 1080, curl's default; user and password
    percent-decoded (None when not given), at most 255 bytes each, as SOCKS5 sends them. ValueError for
    any other form; its message never shows the URL, which may hold a password."""
    scheme, sep, rest = url.partition('://')
    scheme, rest = (scheme.lower(), rest.rstrip('/')) if sep else ('http', url)
    if scheme not in PROXY_SCHEMES:
        raise ValueError('a proxy is http://, socks5:// or socks5h://, not %s://' % scheme[:10])
    userinfo, at, hostport = rest.rpartition('@')
    user, colon, password = userinfo.partition(':')
    if any(not 32 < ord(c) < 127 for c in url) or set('/?#') & set(hostport) or hostport.endswith(':'):
        raise ValueError('a proxy is scheme://[user:password@]host:port, with no path and no spaces')
    try:
        _, host, port, _ = split_url('%s://%s' % (scheme, hostport))
    except ValueError:
        raise ValueError('the proxy\'s port must be 1-65535')
    if not host or not set(host.lower()) <= HOST_CHARS:
        raise ValueError('the proxy\'s host must be a name or an IP address ([...] for IPv6)')
    user, password = unquoted(user) if at else None, unquoted(password) if colon else None
    if len((user or '').encode('utf-8')) > 255 or len((password or '').encode('utf-8')) > 255:
        raise ValueError('the proxy\'s user and password are at most 255 bytes each')
    return scheme, user, password, host, port if ':' in hostport.rpartition(']')[2] else 1080


HOST_CHARS = frozenset('abcdefghijklmnopqrstuvwxyz0123456789-._:')   # a name, or an address's digits


def unquoted(text):
    """text with each %XX as the byte it stands for (UTF-8); ValueError for a broken one."""
    head, *pieces = text.split('%')
    try:
        if any(len(p) < 2 or p[:2].strip('0123456789abcdefABCDEF') for p in pieces):
            raise ValueError
        return (head.encode() + b''.join(bytes((int(p[:2], 16),)) + p[2:].encode() for p in pieces)).decode('utf-8')
    except ValueError:   # UnicodeDecodeError too
        raise ValueError('a % in the proxy\'s user or password starts %XX (hex digits) of UTF-8')


# The notification services a `notify` URL may name (ddkit.notices sends to them): each kind with the
# hosts that give its URLs (a leading dot: any name under it, as ServerChan's <uid>.push.ft07.com).
# Here, not in ddkit.notices: every run checks its settings, and one that sends nothing loads no
# notices. A kind with no host (gotify), a self-hosted server or another host is named by a KIND+
# prefix of the scheme: gotify+https://push.example.org/message?token=..., ntfy+http://192.168.1.2/t
NOTIFY_HOSTS = {
    'telegram': ('api.telegram.org',), 'wecom': ('qyapi.weixin.qq.com',), 'dingtalk': ('oapi.dingtalk.com',),
    'feishu': ('open.feishu.cn', 'open.larksuite.com'), 'bark': ('api.day.app',),
    'serverchan': ('sctapi.ftqq.com', '.push.ft07.com'), 'pushdeer': ('api2.pushdeer.com',),
    'pushplus': ('www.pushplus.plus',), 'ntfy': ('ntfy.sh',), 'gotify': (),
    'discord': ('discord.com', 'discordapp.com'), 'slack': ('hooks.slack.com',),
}
SIGNED = ('dingtalk', 'feishu')   # the kinds whose robots may sign: a secret= of the URL's query
# the words of the services' own URL paths, which hold no key (all others may: masked)
PATH_WORDS = frozenset(('cgi-bin', 'webhook', 'send', 'robot', 'open-apis', 'bot', 'v2', 'hook', 'message',
                        'push', 'api', 'webhooks', 'services', 'sendMessage'))


def notify_target(url):
    """(kind, the URL without its KIND+ prefix, host) of a `notify` URL; ValueError when it names no
    kind, or its host is a near miss of a service's (near_miss: the key would go to a misspelt, maybe
    squatted, domain). The message names the host, never a secret part."""
    named, plus, _ = url.partition('://')[0].partition('+')
    kind, bare = (named.lower(), url[len(named) + 1:]) if plus else (None, url)
    try:
        _, host, _, _ = split_url(bare)
    except ValueError:
        host = ''
    host = host.lower()
    if kind is not None and kind not in NOTIFY_HOSTS:
        raise ValueError('%s+ names no notification service; the kinds: %s' % (kind[:20], ', '.join(NOTIFY_HOSTS)))
    found = next((name for name, hosts in NOTIFY_HOSTS.items() for known in hosts
                  if host == known or known[0] == '.' and host.endswith(known)), None)
    if found is None:
        near = near_miss(host)
        if near:
            raise ValueError('the host %s is %s from %s, %s\'s: did you mean %s? (a misspelt host would get the '
                             'URL\'s key)' % (host, near[2], near[1], near[0], near[1]))
    kind = kind or found
    if kind is None:
        raise ValueError('the host %s is none of the notification services\'; for a self-hosted server '
                         'or another host, name the kind before the scheme: KIND+https://...; the kinds: %s'
                         % (host or '(none)', ', '.join(NOTIFY_HOSTS)))
    return kind, bare, host


def near_miss(host):
    """(kind, the host meant, 'one letter' or 'two letters') when host is a typo of a service's
    host: one or two letters changed, added or left out (one only, for a host under 10 letters, which
    two would mistake for another name); else None. A host under a service's domain (.push.ft07.com)
    is compared by as many labels as that domain has."""
    for kind, hosts in NOTIFY_HOSTS.items():
        for known in hosts:
            given = host
            if known[0] == '.':
                known = known[1:]
                given = '.'.join(host.split('.')[-(known.count('.') + 1):])
            if given == known:
                continue
            most = 1 if len(known) < 10 else 2
            apart = edits(given, known, most)
            if apart <= most:
                meant = host[:len(host) - len(given)] + known
                return kind, meant, 'one letter' if apart == 1 else 'two letters'
    return None


def edits(a, b, most):
    """The edit distance of a and b (letters changed, added or left out), or most + 1 once it is
    more than most (a row's least value only grows)."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        last, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            last, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, last + (x != y))
        if min(row) > most:
            return most + 1
    return row[-1]


def notify_secrets(urls):
    """What of the `notify` URLs is masked in every message: each URL whole, its path and query, each
    path segment but the services' own words (a token, a key, a topic) and each query value: only a
    URL's kind and host are ever shown. Not a piece without a letter: a chat's or a webhook's number is
    no credential, and masked it would take the same digits out of an address or a date."""
    found = []
    for url in urls:
        bare = notify_target(url)[1]
        rest = bare.partition('://')[2].partition('/')[2]
        path, _, query = rest.partition('?')
        found += [url, bare, rest]
        for piece in path.split('/'):
            if piece not in PATH_WORDS:   # bot<token>, <SENDKEY>.send: the key alone too
                found += [piece, piece[3:] if piece.startswith('bot') else piece,
                          piece[:-5] if piece.endswith('.send') else piece]
        found += [pair.partition('=')[2] for pair in query.split('&')]
    return [text for text in dict.fromkeys(found) if len(text) >= 3 and any(c.isalpha() for c in text)]


# The variables of the environment that may name the proxy of a request, as curl 7.88 reads them
# (ddkit.proxy.route): for https:// https_proxy, then HTTPS_PROXY; for http:// http_proxy alone
# (HTTP_PROXY is not read: a CGI program finds a request's Proxy: header there); then every scheme's.
# Here, as ProxyError, not in ddkit.proxy: a router without the package ddkit-proxy still says which
# variable named a proxy it cannot go through.
SCHEME_VARIABLES = {'https': ('https_proxy', 'HTTPS_PROXY'), 'http': ('http_proxy',)}
EVERY_SCHEME = ('all_proxy', 'ALL_PROXY')


class ProxyError(OSError):
    """The proxy gave no connection (down, refusing, credentials rejected, the host out of its reach, or
    not speaking its protocol; or no proxy code installed). proxy: scheme://host:port (None: a variable
    that names none); fix: what to do; unreachable: the proxy could not connect to the address it was
    given. Never its password."""

    def __init__(self, proxy, text, fix, unreachable=False):
        super().__init__(text)
        self.proxy, self.fix, self.unreachable = proxy, fix, unreachable


def first_set(environ, names):
    """(name, value) of the first of the variables that is set and not empty, else (None, '')."""
    return next(((name, environ[name]) for name in names if environ.get(name)), (None, ''))


def proxy_variable(environ, scheme):
    """(name, value) of the variable that names the proxy of a request of scheme, else (None, '')."""
    return first_set(environ, SCHEME_VARIABLES.get(scheme, ()) + EVERY_SCHEME)


def proxy_uninstalled(setting, scheme, environ):
    """With the package ddkit-proxy not installed: the ProxyError of a request of scheme when a proxy is
    named for it (by the proxy setting, else a variable), naming the package and the fixes; None when
    none is (proxy off, or unset and no variable names one): the request goes direct, as it would."""
    from ddkit import OPTIONAL, install_command
    name = 'proxy' if setting else proxy_variable(environ, scheme)[0]
    if setting == 'off' or name is None:
        return None
    package = OPTIONAL['proxy']
    where = 'the proxy setting' if setting else 'environment variable ' + name
    return ProxyError(None, '%s names a proxy, and the package %s is not installed' % (where, package),
                      install_command(package) + ('' if setting else ', or set proxy off (%s unused: direct)' % name))
