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
