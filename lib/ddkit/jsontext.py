"""JSON for the provider answers and request bodies, without importing the json package.

`import json` loads re, enum, collections and functools: 9 ms on a machine whose interpreter starts
in 15 (BENCHMARKS.md). CPython's own C accelerator `_json`, which json itself uses, does the work here;
where it is missing the json package is used.
"""


# Every number and every nesting read from outside is bounded here, once, for every caller: a
# hostile answer's 1e999, NaN or 60000-digit integer, or "[[[[...", is a ValueError, never an inf,
# a nan or a huge int further on (a sleep, an int(), a str() or a RecursionError there).
MAX_DEPTH = 32     # the answers we read nest 5 levels at most
MAX_DIGITS = 40    # counts, codes, ttls and types are far shorter; any longer is no number of ours


def _int(text):
    if len(text) > MAX_DIGITS:
        raise ValueError('a number of %d digits is out of range' % len(text))
    return int(text)


def _float(text):
    value = float(text)
    if value - value != 0:  # inf (1e999); no libm: math.isfinite would load it
        raise ValueError('the number %s is out of range' % text[:20])
    return value


def _constant(name):
    raise ValueError('%s is not a JSON number' % name)


class _Options:
    """What _json's scanner reads from json.JSONDecoder: plain JSON, strict strings, bounded numbers."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int, parse_constant = staticmethod(_float), staticmethod(_int), staticmethod(_constant)
    memo = None


def loads(text):
    """Like json.loads(text), bounded: a ValueError (json.JSONDecodeError) when text is not one JSON
    value, holds a number out of range or NaN/Infinity, or nests deeper than MAX_DEPTH."""
    try:
        value = _scan(text)
    except RecursionError:  # nested deeper than Python goes
        raise ValueError('JSON nested deeper than %d levels' % MAX_DEPTH)
    if text.count('[') + text.count('{') > MAX_DEPTH:
        _check_depth(value)
    return value


def _scan(text):
    try:
        from _json import make_scanner
    except ImportError:
        make_scanner = None
    if make_scanner is not None:
        stripped = text.strip(' \t\n\r')
        try:
            value, end = make_scanner(_Options)(stripped, 0)
        except StopIteration:
            end = -1
        if end == len(stripped):
            return value
    import json  # not one JSON value (json says exactly why), or no _json
    return json.loads(text, parse_float=_float, parse_int=_int, parse_constant=_constant)


def _check_depth(value):
    """ValueError when value nests lists and objects deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                raise ValueError('JSON nested deeper than %d levels' % MAX_DEPTH)
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))


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
