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


PROXY_SCHEMES = ('http', 'socks5', 'socks5h')
PROXY_PORT = 1080   # of a proxy URL without one: curl's default, for an HTTP proxy too


def split_proxy(url):
    """(scheme, user, password, host, port) of a proxy URL, scheme://[user[:password]@]host[:port][/],
    scheme lower-cased (none: http, as curl reads a proxy variable), user and password percent-decoded
    (None when not given). ValueError for any other form; its message never shows the URL, which may
    hold a password."""
    scheme, sep, rest = url.partition('://')
    if not sep:
        scheme, rest = 'http', url
    scheme = scheme.lower()
    rest = rest[:-1] if rest.endswith('/') else rest
    userinfo, at, hostport = rest.rpartition('@')
    if scheme not in PROXY_SCHEMES:
        raise ValueError('a proxy is http://, socks5:// or socks5h://, not %s://' % scheme[:10])
    if any(not 32 < ord(c) < 127 for c in url) or '/' in hostport or '?' in hostport or '#' in hostport:
        raise ValueError('a proxy is scheme://[user:password@]host:port, with no path and no spaces')
    user, colon, password = userinfo.partition(':')
    try:
        _, host, port, _ = split_url('%s://%s' % (scheme, hostport))
    except ValueError:
        raise ValueError('the proxy\'s port must be 1-65535')
    if not host or not set(host.lower()) <= HOST_CHARS:
        raise ValueError('the proxy\'s host must be a name or an IP address ([...] for IPv6)')
    if hostport.endswith(':'):
        raise ValueError('the proxy\'s port must be 1-65535')
    if ':' not in hostport.rpartition(']')[2]:
        port = PROXY_PORT
    return scheme, unquoted(user) if at else None, unquoted(password) if colon else None, host, port


HOST_CHARS = frozenset('abcdefghijklmnopqrstuvwxyz0123456789-._:')   # a name, or an address's digits


def unquoted(text):
    """text with each %XX as the byte it stands for (UTF-8); ValueError for a broken one."""
    if '%' not in text:
        return text
    head, *pieces = text.split('%')
    found = bytearray(head.encode('ascii'))
    for piece in pieces:
        digits = piece[:2]
        if len(digits) < 2 or digits.strip('0123456789abcdefABCDEF'):
            raise ValueError('a %% in a proxy\'s user or password must start %%XX (hex digits)')
        found.append(int(digits, 16))
        found += piece[2:].encode('ascii')
    try:
        return found.decode('utf-8')
    except UnicodeDecodeError:
        raise ValueError('the proxy\'s user or password is not UTF-8 once its %XX are decoded')
