"""A record's operator lines (setting `lines`): a home with several upstream lines publishes each
line's address under the one name, on that operator's resolution line where the provider has them
(its LINES), and one of them on its default line; at a provider that holds several records of a name
(SEVERAL) each address is a record of its own. The loop runs one Job per line (docs/lines.md)."""

from ddkit import UsageError
from ddkit.ipcheck import OPERATOR_NAMES, OPERATORS


class Line:
    """One line of a record: its code ('ct', 'cm', 'cu', or 'default', the provider's default line),
    where its address comes from (source: an ip_source; operator: the first group its IPv6 address
    must have, for a bare code), and the suffix of its state files' names ('' for the record's own)."""

    def __init__(self, code, source=None, operator=None, suffix=''):
        self.code, self.source, self.operator, self.suffix = code, source, operator, suffix
        self.candidates = []   # the default line: the lines whose address it takes, the first that has one

    def __repr__(self):
        return 'Line(%r)' % self.code


def parsed(items):
    """[(code, source or None)] of the items of `lines`, as settings.check_line left them."""
    return [(item.partition('=')[0], item.partition('=')[2] or None) for item in items]


def refused(provider, cfg, family, with_lines=None):
    """Why this record's lines cannot be run (a UsageError: bad input, nothing sent), else None.
    with_lines: a function giving the names of the providers with operator lines, from their
    declarations (the ddkit command's ddkit.choice.with_lines: only it may load every provider), asked
    only to say them in a refusal; None: docs/lines.md is named instead."""
    if not cfg.lines:
        if cfg.default_line:
            return UsageError('default_line %s needs lines' % cfg.default_line)
        return None
    if not (getattr(provider, 'LINES', None) or getattr(provider, 'SEVERAL', False)):
        names = with_lines() if with_lines else None
        fix = 'remove lines, or use a provider with operator lines (%s)' % (
            '%s: docs/lines.md' % ', '.join(names) if names else 'docs/lines.md lists them')
        why = 'lines: provider %s holds one address per name, so the lines cannot be published there' % provider.NAME
        return UsageError('%s; fix: %s' % (why, fix), why=why, fix=fix, setting='lines')
    problem = getattr(provider, 'lines_problem', lambda cfg: None)(cfg)
    if problem:
        return UsageError(problem)
    codes = [code for code, _ in parsed(cfg.lines)]
    twice = sorted(set(code for code in codes if codes.count(code) > 1))
    if twice:
        return UsageError('lines: %s given twice: one address a line' % ', '.join(twice))
    if cfg.default_line and cfg.default_line not in codes:
        return UsageError('default_line %s is not one of lines (%s)' % (cfg.default_line, ', '.join(codes)))
    for code, source in parsed(cfg.lines):
        if source is None and family != 'AAAA':
            return bare_code_on_a(cfg, code)
        if source is None and cfg.ip_source == 'url':
            return UsageError('lines: %s alone is picked from the addresses of ip_source, and url gives one '
                              'address; fix: ip_source iface:<wan interface> (or prefix:, eui64:, neigh: for a '
                              'LAN host), or %s=iface:<interface>' % (code, code))
        if source is not None and source.partition(':')[0] in ('prefix', 'eui64', 'neigh') and family != 'AAAA':
            return UsageError('lines: %s=%s gives an IPv6 address: it needs record_type AAAA' % (code, source))
    return None


def bare_code_on_a(cfg, code):
    """The refusal of a bare code (an operator's IPv6 prefix) on an A record: with record_type left at
    its default, record_type AAAA is the likely fix, said first; set to A, the line's IPv4 source."""
    why = 'lines: %s alone is the IPv6 address of %s (%s::/16)' % (code, OPERATOR_NAMES[code], OPERATORS[code])
    four = 'for an A record give its IPv4 source: %s=iface:<interface>' % code
    if cfg.sources.get('record_type', 'default') == 'default':
        fix = 'set record_type AAAA (unset, it is A); or, %s' % four
    else:
        fix = '%s; or set record_type AAAA' % four
    return UsageError('%s; fix: %s' % (why, fix), why=why, fix=fix, setting='record_type')


def without_lines(provider, whose='this line\'s'):
    """What becomes of a line's record (whose: "this line's", "each line's") at a provider that has
    no operator lines (SEVERAL, no LINES), said plainly; None where the provider puts it on its line."""
    if getattr(provider, 'LINES', None) or not getattr(provider, 'SEVERAL', False):
        return None
    return ('provider %s has no operator lines: %s %s is one of the name\'s %ss, and every visitor gets '
            'every line\'s address, not its own operator\'s (docs/lines.md names the providers with operator '
            'lines)' % (provider.NAME, whose, provider.NOUN, provider.NOUN))


def of_record(provider, cfg):
    """The Lines of a record with `lines`: each line in the order given, then, at a provider with
    resolution lines, the default line's record, whose address is default_line's, or the next
    line's that has one. At a provider of several records the default line's record is the
    record's own (its state files, from before it had lines)."""
    items = parsed(cfg.lines)
    default = cfg.default_line or items[0][0]
    has_lines = bool(getattr(provider, 'LINES', None))
    found = [Line(code, source or cfg.ip_source, None if source else OPERATORS[code],
                  '' if code == default and not has_lines else '@' + code) for code, source in items]
    if has_lines:
        record = Line('default')
        record.candidates = sorted(found, key=lambda line: line.code != default)
        found.append(record)
    return found


def current_ip(job):
    """(address, source, why not, the Line it is of) of the job's line: its own, or for the default
    line's record default_line's, else the next line's that has one (why: the first line's)."""
    line = job.line_plan
    first = None
    for candidate in line.candidates or [line]:
        found = address_of(job, candidate)
        if found[0]:
            return found + (candidate,)
        first = first or found
    return first + (line.candidates[0] if line.candidates else line,)


def address_of(job, line):
    """(address, source, why not) of one line, found once a run (the records of a run share it)."""
    from ddkit import lookup
    cfg = job.cfg
    if line.source != cfg.ip_source:   # a line of its own source: CODE=SOURCE
        cfg = cfg.copy()
        cfg.ip_source = line.source
    return job.run.shared(('current ip', cfg.ip_source, cfg.record_type, None, line.operator),
                          lambda: lookup.current_ip(cfg, line.operator))
