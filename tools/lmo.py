#!/usr/bin/env python3
"""LuCI's compiled translation catalog (.lmo) from a gettext .po file: the bytes LuCI's own po2lmo
writes, for a luci-i18n-* package's /usr/lib/lua/luci/i18n/<name>.<lang>.lmo, built without the
OpenWrt SDK or LuCI's host tools.

A catalog is each translation in the order of the .po file, padded with NULs to 4 bytes; then an
index of 16-byte rows (key hash, value id, offset, length; big-endian) sorted by key hash, which
LuCI binary-searches; then the index's offset (4 bytes). A key is the msgid, "msgctxt\\1msgid"
with a context, and for each form of a plural the singular msgid followed by "\\2" and the form's
number. Its hash is Paul Hsieh's SuperFastHash seeded with the length (the browser uses the same,
keyed by its 8 hex digits). The header's Plural-Forms formula is stored under key 0.

po2lmo's ways, kept because its output is the reference:
- only \\" and \\\\ are unescaped: \\n and \\t stay a backslash and a letter, in keys and texts;
- every comment line is skipped whole, flags too: a fuzzy entry is written like any other, an
  obsolete one (#~) is not;
- an empty string counts as none: an entry with an empty msgstr (msgstr[0] of a plural) writes
  nothing, a plural's empty form is left out, an empty msgctxt is no context;
- a translation whose hash is its key's hash (a msgstr copying its msgid) is left out;
- an index row's value id is 1 + the n of its entry's last msgstr[n] line (a msgstr line's n is
  0, the header's id is 0); LuCI never reads it;
- a key is cut at 4095 bytes; rows of equal hash keep their order (glibc's qsort is stable);
- nothing to write, no file: the command removes OUT.
Where po2lmo's output is undefined or it fails (a string with no closing quote, or none within
the 4095 bytes it reads of a line; more than 10 plural forms; an empty Plural-Forms value)
PoError says so.

Checked byte for byte against po2lmo, by hand, not in the tests: po2lmo built with gcc from LuCI's
source as LuCI's makefile builds it, run on every .po file of LuCI (over 3,400: each application's,
luci-base's own with its contexts and plurals, the Simplified Chinese ones) and on made-up ones
with fuzzy and obsolete entries, escapes, CRLF lines, duplicate and copied entries, long keys and
headers of every shape; the two outputs were identical, and both failed on the same inputs.

usage: lmo.py IN.po OUT.lmo
"""

import collections
import os
import re
import struct
import sys

LINE = 4096            # po2lmo's line and key buffers: it reads at most LINE - 1 bytes at a time
FORMS = 10             # po2lmo keeps msgstr[0] to msgstr[9]
SPACE = b' \t\n\v\f\r'  # C's isspace(), which LuCI's lookup folds

# po2lmo treats an empty string as absent, so these are None when empty or missing. msgstr holds
# one item per form up to the last msgstr line of the entry; the header is the entry with msgid
# None. Texts are as po2lmo reads them (only \" and \\ unescaped), bytes that are not UTF-8 kept
# as surrogates (encode with 'surrogateescape' to get them back).
Entry = collections.namedtuple('Entry', 'msgctxt msgid msgid_plural msgstr')


class PoError(ValueError):
    """A .po file po2lmo fails on or reads in no defined way."""


def po_entries(text):
    """The entries of a .po file (str or bytes) as po2lmo reads them, in file order."""
    data = text.encode('utf-8', 'surrogateescape') if isinstance(text, str) else bytes(text)
    entries, fields, cur, last = [], {}, None, -1     # last: the n of the last msgstr[n] line
    for number, line in list(_lines(data)) + [(0, None)]:
        eof = line is None
        line = b'' if eof else line
        # a msgctxt or msgid line ends the entry before it, if that has a msgid or a msgstr
        if line.startswith(b'msgctxt "') or eof or line.startswith(b'msgid "'):
            name = 'ctxt' if line.startswith(b'msgctxt "') else 'id'
            if fields.get('id') or fields.get(0):
                entries.append(_entry(fields, last))
                fields, last = {}, -1
            fields.pop(name, None)
            cur = name
        elif line.startswith(b'msgid_plural "'):
            fields.pop('id_plural', None)
            cur = 'id_plural'
        elif line.startswith(b'msgstr "') or line.startswith(b'msgstr['):
            last = _form(line, number) if line[6:7] == b'[' else 0
            fields.pop(last, None)
            cur = last
        if eof:
            break
        string = _string(line, number) if cur is not None else None
        if string:
            fields[cur] = fields.get(cur, b'') + string
    return entries


def _lines(data):
    """(line number, text) of the input as po2lmo's fgets() hands it over (through a newline, at
    most LINE - 1 bytes), each cut at a NUL, where C's string functions stop."""
    start, number = 0, 1
    while start < len(data):
        end = data.find(b'\n', start, start + LINE - 1)
        end = min(len(data), start + LINE - 1 if end < 0 else end + 1)
        yield number, data[start:end].split(b'\0', 1)[0]
        number += data[end - 1:end] == b'\n'
        start = end


def _string(line, number):
    """The string in a line, from its first quote to the next unescaped one; None for a comment."""
    start = line.find(b'"')
    if line.startswith(b'#') or start < 0:
        return None
    out, escaped = bytearray(), False
    for c in line[start + 1:]:
        if escaped and c in b'"\\':
            out[-1] = c                     # only these two replace their backslash
        elif not escaped and c == ord('"'):
            return bytes(out)
        else:
            out.append(c)
        escaped = not escaped and c == ord('\\')
    # po2lmo then reads past its buffer: no output to match
    raise PoError('line %d: a string with no closing quote%s' % (
        number, ' within 4095 bytes' if len(line) >= LINE - 1 else ''))


def _form(line, number):
    """The n of msgstr[n], read as strtoul() reads it."""
    sign, digits = re.match(rb'[ \t\n\v\f\r]*([+-]?)([0-9]*)', line[7:]).groups()
    form = int(digits or b'0')
    if form >= FORMS or (sign == b'-' and form):
        raise PoError('line %d: msgstr[%s]: po2lmo takes msgstr[0] to msgstr[%d] only'
                      % (number, (sign + digits).decode(), FORMS - 1))
    return form


def _entry(fields, last):
    text = {k: v.decode('utf-8', 'surrogateescape') for k, v in fields.items()}
    return Entry(text.get('ctxt'), text.get('id'), text.get('id_plural'),
                 tuple(text.get(i) for i in range(last + 1)))


def lmo(entries):
    """The catalog po2lmo writes for these entries; b'' when it writes none."""
    data, index = bytearray(), []
    for msgctxt, msgid, msgid_plural, msgstr in entries:
        if not msgstr or not msgstr[0]:
            continue
        if not msgid:
            formula = _plural_forms(msgstr[0])
            if formula is not None:
                index.append((0, 0, len(data), len(formula)))
                data += _padded(formula)
            continue
        for n, text in enumerate(msgstr):
            if not text:
                continue
            key = (msgctxt + '\1' if msgctxt else '') + msgid + ('\2%d' % n if msgid_plural else '')
            key = _bytes(key)[:LINE - 1]
            value = _bytes(text)
            if sfh_hash(key) != sfh_hash(value):
                index.append((sfh_hash(key), len(msgstr), len(data), len(value)))
                data += _padded(value)
    if not data:
        return b''                          # po2lmo removes its output then, even with rows
    index.sort(key=lambda row: row[0])      # stable: rows of one key keep their order
    return bytes(data) + b''.join(struct.pack('>4I', *row) for row in index) + struct.pack('>I', len(data))


def _plural_forms(header):
    """The Plural-Forms value of a header as po2lmo finds it (bytes), or None."""
    header, start, escaped = _bytes(header), 0, False
    for i, c in enumerate(header):
        if escaped and c == ord('n'):
            field = header[start:i - 1]
            if field[:14].lower() == b'plural-forms: ':
                if len(field) == 14:
                    raise PoError('an empty Plural-Forms value (po2lmo fails writing it)')
                return field[14:]
            start = i + 1
        escaped = not escaped and c == ord('\\')
    return None


def _bytes(text):
    return text.encode('utf-8', 'surrogateescape') if isinstance(text, str) else text


def _padded(data):
    return bytes(data) + b'\0' * (-len(data) % 4)


def sfh_hash(data):
    """SuperFastHash of bytes seeded with their length, as LuCI computes it; 0 for none."""
    mask, h, body = 0xffffffff, len(data), len(data) & ~3
    if not data:
        return 0

    def u16(i):
        return data[i] | data[i + 1] << 8

    def s8(i):                              # C's (signed char): a byte over 0x7f counts negative
        return data[i] - 256 if data[i] > 0x7f else data[i]

    for i in range(0, body, 4):
        h = (h + u16(i)) & mask
        h = ((h << 16) ^ (u16(i + 2) << 11) ^ h) & mask
        h = (h + (h >> 11)) & mask
    rest = len(data) & 3
    if rest == 3:
        h = (h + u16(body)) & mask
        h ^= (h << 16) & mask
        h ^= (s8(body + 2) << 18) & mask
        h = (h + (h >> 11)) & mask
    elif rest == 2:
        h = (h + u16(body)) & mask
        h ^= (h << 11) & mask
        h = (h + (h >> 17)) & mask
    elif rest == 1:
        h = (h + s8(body)) & mask
        h ^= (h << 10) & mask
        h = (h + (h >> 1)) & mask
    for left, right in ((3, 5), (4, 17), (25, 6)):
        h ^= (h << left) & mask
        h = (h + (h >> right)) & mask
    return h


def key_hash(msgid, msgctxt=None, plural=None):
    """The hash LuCI looks a translation up by (form `plural` of a plural); 0 for one it never finds.

    LuCI folds each run of whitespace in the context and the msgid into one space and drops it at
    either end before hashing (po2lmo does not: such a key is written but never found); the
    browser folds only spaces, tabs and newlines, so the two agree on keys with no other."""
    key = bytearray()
    if msgctxt is not None:
        if not _fold(_bytes(msgctxt), key) or len(key) >= LINE:
            return 0
        key.append(1)
    if not _fold(_bytes(msgid), key):
        return 0
    if plural is not None:
        if not 0 <= plural < FORMS:
            raise ValueError('plural form %r: a catalog holds forms 0 to %d' % (plural, FORMS - 1))
        if len(key) + 3 >= LINE:
            return 0
        key += b'\2%d' % plural
    return sfh_hash(bytes(key))


def _fold(text, key):
    """Append text to key with its whitespace folded; False where LuCI's 4 KiB buffer overflows."""
    before = ord(' ')
    for c in text:
        if len(key) >= LINE:
            return False
        if c not in SPACE:
            key.append(c)
        elif before not in SPACE:
            key.append(ord(' '))
        before = c
    if key and key[-1] in SPACE:
        del key[-1]
    return True


def read_lmo(data):
    """{key hash: text} of a catalog, read as LuCI reads one; PoError when LuCI could not."""
    if len(data) < 4:
        raise PoError('not a catalog: %d bytes' % len(data))
    start = struct.unpack('>I', data[-4:])[0]
    if start >= len(data) or (len(data) - 4 - start) % 16:
        raise PoError('not a catalog: index at %d of %d bytes' % (start, len(data)))
    rows = [struct.unpack_from('>4I', data, at) for at in range(start, len(data) - 4, 16)]
    if [row[0] for row in rows] != sorted(row[0] for row in rows):
        raise PoError('index not sorted: LuCI would miss entries')
    found = {}
    for key, _, offset, length in rows:
        if offset + length > start:
            raise PoError('entry %08x runs past the texts' % key)
        found.setdefault(key, data[offset:offset + length].decode('utf-8', 'surrogateescape'))
    return found


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().split('usage: ')[-1])
    source, target = argv[1:]
    try:
        with open(source, 'rb') as f:
            catalog = lmo(po_entries(f.read()))
    except (OSError, PoError) as e:
        sys.exit('lmo: %s: %s' % (source, e.strerror if isinstance(e, OSError) else e))
    if not catalog:
        # as po2lmo: a package then simply ships no catalog for this language
        if os.path.lexists(target):
            os.remove(target)
        print('lmo: %s has no translation: %s not written' % (source, target), file=sys.stderr)
        return
    with open(target + '.tmp', 'wb') as f:
        f.write(catalog)
    os.chmod(target + '.tmp', 0o644)   # what a package ships, whatever the umask of the build
    os.replace(target + '.tmp', target)


if __name__ == '__main__':
    main(sys.argv)
