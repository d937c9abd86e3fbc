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
