"""CPython's private interfaces, in one place, each behind its public module.

The cheap paths use the C extensions under the standard modules directly (_socket, _ssl, _json):
the public modules' Python layers cost a router's cron run more than the work (docs/benchmarks.md).
Nothing promises those interfaces stay: a Python release may rename or change one, and a router's
python3 is upgraded with OpenWrt, not with us. So each is taken here only when it is there and
behaves as expected, else the public module is (socket, ssl, json): a changed interpreter still
updates the record, only slower. DDKIT_PUBLIC_ONLY=1 in the environment takes every public module
(the tests run the providers and TLS both ways).

`os` too: the library takes it from here (`from ddkit.native import os`). Importing the os module
costs a quiet run a tenth of its CPU (os and collections.abc's classes: docs/benchmarks.md), while
what the library uses of it is posix's, the C module under it, and a few path functions. So a
process that has not imported os yet (the tools start with python3 -I -S) gets PosixOs: posix's
functions and constants, os's environ, and posixpath's functions the library calls, written as
posixpath writes them; anything else (os.walk, a bytes path) comes from os itself, imported then.
A process that has os already (python3 without -S, the tests), DDKIT_PUBLIC_ONLY=1, or a system
without posix (Windows) gets the os module.
"""

import sys


class PosixPath:
    """The functions of os.path that a quiet run calls, as posixpath (Python 3.11) has them, for the
    str paths the library passes; the others (realpath...) are posixpath's, imported when asked for."""

    def __init__(self, posix, environ):
        self._posix, self._environ = posix, environ

    def __getattr__(self, name):
        import posixpath
        return getattr(posixpath, name)

    @staticmethod
    def join(a, *p):
        for b in p:
            if b.startswith('/'):
                a = b
            elif not a or a.endswith('/'):
                a += b
            else:
                a += '/' + b
        return a

    @staticmethod
    def split(p):
        i = p.rfind('/') + 1
        head, tail = p[:i], p[i:]
        if head and head != '/' * len(head):
            head = head.rstrip('/')
        return head, tail

    def dirname(self, p):
        return self.split(p)[0]

    @staticmethod
    def basename(p):
        return p[p.rfind('/') + 1:]

    @staticmethod
    def isabs(s):
        return s.startswith('/')

    @staticmethod
    def normpath(path):
        if not path:
            return '.'
        slashes = 2 if path.startswith('//') and not path.startswith('///') else 1 if path.startswith('/') else 0
        parts = []
        for part in path.split('/'):
            if part in ('', '.'):
                continue
            if part != '..' or (not slashes and not parts) or (parts and parts[-1] == '..'):
                parts.append(part)
            elif parts:
                parts.pop()
        return '/' * slashes + '/'.join(parts) or '.'

    def abspath(self, path):
        return self.normpath(path if path.startswith('/') else self.join(self._posix.getcwd(), path))

    def expanduser(self, path):
        if not path.startswith('~'):
            return path
        if path[:2] not in ('~', '~/') or 'HOME' not in self._environ:   # ~user, or no HOME: pwd's answer
            return self.__getattr__('expanduser')(path)
        return self._environ['HOME'].rstrip('/') + path[1:] or '/'

    def _type(self, path, follow=True):
        # the file type bits of its stat (lstat), or None where posixpath's tests say False
        try:
            return (self._posix.stat if follow else self._posix.lstat)(path).st_mode & 0o170000
        except (OSError, ValueError):
            return None

    def exists(self, path):
        return self._type(path) is not None

    def isfile(self, path):
        return self._type(path) == 0o100000

    def isdir(self, s):
        return self._type(s) == 0o040000

    def islink(self, path):   # state.open_file asks it of every file a run finds missing
        return self._type(path, follow=False) == 0o120000


class PosixOs:
    """What the library uses of os: posix's functions and constants (open, lstat, O_NOFOLLOW...), os's
    environ (decoded as os decodes it), its constants, fdopen, and PosixPath as path; the rest of os
    (os.walk...) is os's own, imported when first asked for."""

    name, pardir, pathsep, defpath, devnull = 'posix', '..', ':', '/bin:/usr/bin', '/dev/null'
    SEEK_SET, SEEK_CUR, SEEK_END = 0, 1, 2

    def __init__(self, posix):
        self.__dict__.update((k, v) for k, v in posix.__dict__.items() if not k.startswith('__'))
        encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
        self.environ = {key.decode(encoding, errors): value.decode(encoding, errors)
                        for key, value in posix.environ.items()}
        self.path = PosixPath(posix, self.environ)

    def __getattr__(self, name):
        if name.isupper() and not name.startswith('P_'):   # a constant posix lacks (O_BINARY): so does os
            raise AttributeError(name)
        import os
        return getattr(os, name)

    @staticmethod
    def fdopen(fd, *args, **kwargs):   # os.fdopen: io.open of a descriptor (the library gives no other)
        import io
        return io.open(fd, *args, **kwargs)


def _os():
    """The os module, or PosixOs where it is not imported yet (see the module's help)."""
    found = sys.modules.get('os')
    if found is None:
        try:
            import posix
        except ImportError:   # not POSIX: os, whose path is another module anyway
            posix = None
        if posix is not None and posix.environ.get(b'DDKIT_PUBLIC_ONLY') != b'1':
            return PosixOs(posix)
        import os as found
    return found


os = _os()


def public_only():
    """True when DDKIT_PUBLIC_ONLY=1 asks for the public modules alone."""
    return os.environ.get('DDKIT_PUBLIC_ONLY') == '1'


def sockets():
    """_socket, else socket: both have socket, getaddrinfo and the AF_/SOCK_ constants used here (socket
    adds only a Python layer: selectors, enum, and more)."""
    if not public_only():
        try:
            import _socket
            if all(hasattr(_socket, name) for name in ('socket', 'getaddrinfo', 'AF_INET6', 'SOCK_STREAM')):
                return _socket
        except ImportError:
            pass
    import socket
    return socket


def tls():
    """_ssl, else ssl: both have SSLError, SSLCertVerificationError, the SSL_ERROR_ codes,
    CERT_REQUIRED and PROTOCOL_TLS_CLIENT. An ImportError of either: this Python has no TLS."""
    if not public_only():
        try:
            import _ssl
            if hasattr(_ssl, '_SSLContext') and hasattr(_ssl._SSLContext, '_wrap_socket'):
                return _ssl
        except ImportError:
            pass
    import ssl
    return ssl


def client_context():
    """A TLS client context that verifies certificates and host names: _ssl's own, else ssl's."""
    module = tls()
    if module.__name__ == '_ssl':
        try:
            return module._SSLContext(module.PROTOCOL_TLS_CLIENT)
        except (AttributeError, TypeError):   # the private constructor changed: the public one
            pass
    import ssl
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def wrap(context, sock, name):
    """The TLS connection over a connected socket for server name (the handshake not yet done), with
    read(), write() and do_handshake(); and whether it owns the socket (ssl's SSLSocket takes it over,
    so its timeout and close are the connection's)."""
    if getattr(context, 'sslsocket_class', None) is None:   # _ssl's context: its private wrapper
        try:
            return context._wrap_socket(sock, False, name), False
        except (AttributeError, TypeError):
            raise OSError('this Python\'s TLS context cannot wrap a socket: set DDKIT_PUBLIC_ONLY=1')
    # the name as bytes: ssl encodes a str with the idna codec (unicodedata: python3-codecs on
    # OpenWrt); a URL's host is ASCII already (settings.check_url)
    return context.wrap_socket(sock, server_side=False, do_handshake_on_connect=False,
                               server_hostname=name.encode('ascii')), True


def default_verify_paths():
    """(bundle variable, bundle, directory variable, directory): where OpenSSL looks for CA
    certificates, and the environment variables that move them."""
    module = tls()
    if module.__name__ == '_ssl':
        try:
            found = module.get_default_verify_paths()
            if isinstance(found, tuple) and len(found) == 4:
                return found
        except (AttributeError, TypeError):
            pass
    import ssl
    paths = ssl.get_default_verify_paths()
    return paths.openssl_cafile_env, paths.openssl_cafile, paths.openssl_capath_env, paths.openssl_capath


def verified_chain(conn):
    """The DER certificates of the chain a finished handshake verified, the server's first and the CA
    it ended at last, or None when this Python does not say (before 3.10; public in ssl from 3.13)."""
    for owner in (conn, getattr(conn, '_sslobj', None)):   # _ssl's connection, or ssl's and the one inside it
        try:
            chain = owner.get_verified_chain()
        except (AttributeError, TypeError, ValueError):
            continue
        try:
            found = [item if isinstance(item, bytes) else item.public_bytes(2)   # 2: ENCODING_DER
                     for item in chain]
        except (AttributeError, TypeError, ValueError):
            return None
        # DER of a certificate is a SEQUENCE: anything else is not what this asked for
        return found if found and all(item[:1] == b'\x30' for item in found) else None
    return None


def json_scanner(options):
    """A scanner of JSON text (scan(text, index) -> (value, end)) made from options (strict,
    object_hook, parse_float, ... as json.JSONDecoder has them), or None: json then reads it. _json's
    C scanner is taken only when it reads a sample right."""
    if public_only():
        return None
    try:
        from _json import make_scanner
        scan = make_scanner(options)
        if scan('[1, "a"]', 0) == ([1, 'a'], 8):
            return scan
    except (ImportError, AttributeError, TypeError, ValueError, SystemError, StopIteration):
        pass
    return None


def json_string():
    """A function giving text as a JSON string, non-ASCII escaped (with its quotes)."""
    if not public_only():
        try:
            from _json import encode_basestring_ascii
            if encode_basestring_ascii('a\u00e9"') == '"a\\u00e9\\""':
                return encode_basestring_ascii
        except (ImportError, TypeError):
            pass
    import json
    return json.dumps   # ensure_ascii, the default: the same text
