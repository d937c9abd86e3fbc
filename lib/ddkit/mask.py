"""The forms a server may echo a secret in, which ddkit.log masks in every line: as sent, JSON-escaped,
URL-encoded. Imported only for a line that may show one (ddkit.log.Log.masks): a cron run's lines
show none, and computing the forms uses interpreter code nothing else in such a run does."""

from ddkit import UNRESERVED

JSON_SHORT = {'"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f'}


def secret_forms(secret):
    """The forms a server may echo a secret in: as sent; JSON-escaped and URL-encoded as common
    encoders do it; each with its blanks collapsed (an excerpt). Those of 3 characters or more."""
    forms, chars = {secret}, set(secret)
    for digits in () if chars <= UNRESERVED else ('0123456789abcdef', '0123456789ABCDEF'):
        for slash, ascii_only in (('/', 0), ('/', 1), ('\\/', 0), ('\\/', 1)):
            forms.add(secret.translate({ord(c): _json(c, slash, ascii_only, digits) for c in chars}))
        # Python's quote() keeps "/", JavaScript's encodeURIComponent "!'()*"; a form sends " " as "+"
        for safe, blank in (('', '%20'), ('/', '%20'), ("!'()*", '%20'), ('', '+')):
            forms.add(secret.translate({ord(c): c if c in UNRESERVED or c in safe else blank if c == ' '
                                        else _hex(c.encode('utf-8', 'surrogatepass'), digits, '%', 1)
                                        for c in chars}))
    forms.update([' '.join(form.split()) for form in forms])
    return [form for form in forms if len(form) >= 3]


def _json(c, slash, ascii_only, digits):
    if c in JSON_SHORT or c == '/':
        return JSON_SHORT.get(c, slash)
    if ord(c) < 32 or ascii_only and ord(c) > 126:
        return _hex(c.encode('utf-16-be', 'surrogatepass'), digits, '\\u', 2)
    return c


def _hex(data, digits, mark, size):
    """%XX or \\uXXXX: `size` bytes of data after each mark (not '%02x': code cheap runs never load)."""
    return ''.join(mark + ''.join(digits[b >> 4] + digits[b & 15] for b in data[i:i + size])
                   for i in range(0, len(data), size))
