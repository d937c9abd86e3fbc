"""JSON for the provider answers and request bodies, without importing the json package.

`import json` loads re, enum, collections and functools: 9 ms on a machine whose interpreter starts
in 15 (BENCHMARKS.md). CPython's own C accelerator `_json`, which json itself uses, does the work here
(taken through ddkit.native, which checks it first); where it is missing or behaves otherwise, or
DDKIT_PUBLIC_ONLY=1, the json package is used.
"""

from ddkit import native

_SCANNER = []   # the scanner of this run, made once: _json's, or None (json reads)


MAX_DEPTH = 32     # our answers nest 5 levels at most
MAX_DIGITS = 40


class _Options:
    """What _json's scanner reads from json.JSONDecoder: strict JSON, numbers bounded (a hostile
    1e999, NaN or 60000-digit integer is a ValueError here, not an inf, nan or huge int further on)."""

    strict = True
    object_hook = object_pairs_hook = memo = None

    @staticmethod
    def parse_int(text):
        if len(text) > MAX_DIGITS:
            raise ValueError('a number of %d digits' % len(text))
        return int(text)

    @staticmethod
    def parse_float(text):
        if float(text) - float(text) != 0:  # inf; not math.isfinite: libm
            raise ValueError('%s is out of range' % text[:20])
        return float(text)

    @staticmethod
    def parse_constant(name):
        raise ValueError('%s is not a JSON number' % name)


def loads(text):
    """Like json.loads(text): a ValueError (json.JSONDecodeError) when text is not one JSON value, or
    holds NaN, Infinity or a number out of range, or nests deeper than MAX_DEPTH."""
    if not _SCANNER:
        _SCANNER.append(native.json_scanner(_Options))
    scan = _SCANNER[0]
    stripped, end = text.strip(' \t\n\r'), -1
    try:
        if scan is not None:
            try:
                value, end = scan(stripped, 0)
            except StopIteration:
                pass
            except SystemError:   # CPython 3.11's scanner reports some errors (a trailing comma in an
                pass              # object, an unterminated string) through json.decoder, which it finds
                # only when imported: else it fails with no exception set; json, below, says why
        if end != len(stripped):
            import json  # not one JSON value (json says exactly why), or no _json
            value = json.loads(text, parse_float=_Options.parse_float, parse_int=_Options.parse_int,
                               parse_constant=_Options.parse_constant)
        stack = [(value, 1)] if text.count('[') + text.count('{') > MAX_DEPTH else []
        while stack:  # the depth, walked without recursion
            item, depth = stack.pop()
            if isinstance(item, (dict, list)):
                if depth > MAX_DEPTH:
                    raise RecursionError
                stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    except RecursionError:  # or deeper than Python goes
        raise ValueError('JSON nested deeper than %d levels' % MAX_DEPTH)
    return value


def dumps(value):
    """Like json.dumps(value) for dicts, lists, strings, numbers, booleans and None."""
    return written(value, native.json_string())


def written(value, text):
    """dumps() of value, its strings written by text (native.json_string(), chosen once a call: the
    catalog of every provider holds some 7,600 strings)."""
    if value is None:
        return 'null'
    if value is True or value is False:
        return 'true' if value else 'false'
    if isinstance(value, str):
        return text(value)
    if isinstance(value, (int, float)):
        if value != value or value in (float('inf'), float('-inf')):
            raise ValueError('%r is not JSON' % value)
        return int.__repr__(value) if isinstance(value, int) else float.__repr__(value)
    if isinstance(value, (list, tuple)):
        return '[' + ', '.join(written(v, text) for v in value) + ']'
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return '{' + ', '.join('%s: %s' % (text(k), written(v, text)) for k, v in value.items()) + '}'
    raise TypeError('%s is not JSON serializable' % type(value).__name__)
