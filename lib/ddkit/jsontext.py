"""JSON for the provider answers and request bodies, without importing the json package.

`import json` loads re, enum, collections and functools: 9 ms on a machine whose interpreter starts
in 15 (BENCHMARKS.md). CPython's own C accelerator `_json`, which json itself uses, does the work here;
where it is missing the json package is used.
"""


class _Options:
    """What _json's scanner reads from json.JSONDecoder: plain JSON, strict strings."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    memo = None

    @staticmethod
    def parse_constant(name):
        return {'-Infinity': float('-inf'), 'Infinity': float('inf'), 'NaN': float('nan')}[name]


def loads(text):
    """Like json.loads(text): a ValueError (json.JSONDecodeError) when text is not one JSON value."""
    try:
        from _json import make_scanner
    except ImportError:
        make_scanner = None
    if make_scanner is None:
        import json
        return json.loads(text)
    stripped = text.strip(' \t\n\r')
    try:
        value, end = make_scanner(_Options)(stripped, 0)
    except StopIteration:
        end = -1
    if end != len(stripped):
        import json
        return json.loads(text)  # not one JSON value: json says exactly why
    return value


def dumps(value):
    """Like json.dumps(value) for dicts, lists, strings, numbers, booleans and None."""
    try:
        from _json import encode_basestring_ascii as text
    except ImportError:
        import json
        return json.dumps(value)
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
        return '[' + ', '.join(dumps(v) for v in value) + ']'
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return '{' + ', '.join('%s: %s' % (text(k), dumps(v)) for k, v in value.items()) + '}'
    raise TypeError('%s is not JSON serializable' % type(value).__name__)
