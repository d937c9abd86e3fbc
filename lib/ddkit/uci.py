"""Read OpenWrt UCI files (/etc/config/<name>) directly, so no `uci` binary is needed."""

import os

from ddkit import UsageError, decimal

# Options the init and hotplug scripts read; a tool ignores them in its section.
SERVICE_OPTIONS = frozenset(('enabled', 'interface', 'interval'))
DEFAULTS = 'defaults'   # `config defaults`: options every record section inherits (credentials once)
TRUE = ('1', 'on', 'true', 'yes', 'enabled')   # as config_get_bool reads a boolean


def tokens(line):
    """The words of one line: quotes as the uci tool reads them, `#` starts a comment."""
    words, word, quote, escape, started = [], [], None, False, False
    for c in line:
        if escape:
            word.append(c)
            escape = False
        elif quote == "'":
            if c == "'":
                quote = None
            else:
                word.append(c)
        elif c == '\\':
            escape, started = True, True
        elif quote == '"':
            if c == '"':
                quote = None
            else:
                word.append(c)
        elif c in '"\'':
            quote, started = c, True
        elif c in ' \t\r\n':
            if started:
                words.append(''.join(word))
                word, started = [], False
        elif c == '#' and not started:
            break
        else:
            word.append(c)
            started = True
    if quote or escape:
        raise ValueError('unterminated quote')
    if started:
        words.append(''.join(word))
    return words


def read(path):
    """The sections of a UCI file, in order: [(type, name or None, {option: value or [values]})].

    As libuci loads it: a name given again adds to the section of that name, in its first place."""
    try:
        with open(path, encoding='utf-8') as f:
            st = os.fstat(f.fileno())
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError('cannot read UCI file %s: %s' % (path, getattr(e, 'strerror', None) or e))
    from ddkit.settings import refuse_foreign
    refuse_foreign('UCI file', path, st)
    sections = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            words = tokens(line)
        except ValueError as e:
            raise UsageError('UCI file %s line %d: %s' % (path, number, e))
        if not words or words[0] == 'package':
            continue
        if words[0] == 'config' and len(words) in (2, 3):
            name = words[2] if len(words) == 3 and words[2] else None
            at = next((i for i, s in enumerate(sections) if name and s[1] == name), len(sections))
            options = sections[at][2] if at < len(sections) else {}
            sections[at:at + 1] = [(words[1], name, options)]
        elif words[0] in ('option', 'list') and len(words) == 3 and sections:
            if words[0] == 'list':
                options.setdefault(words[1], [])
                if isinstance(options[words[1]], list):
                    options[words[1]].append(words[2])
            else:
                options[words[1]] = words[2]
        else:
            raise UsageError('UCI file %s line %d: expected config, option or list, got %r'
                             % (path, number, line.strip()))
    return sections


def record(path, ref, sections=None):
    """The options of one record section over those of the file's `config defaults` sections."""
    sections = read(path) if sections is None else sections
    options = {}
    for kind, _, given in sections:
        if kind == DEFAULTS:
            options.update(given)
    options.update(section(path, ref, sections))
    return options


def enabled(path, kind):
    """[(ref, options)] of the enabled sections of a type, in file order, defaults applied: ref is the
    name, or @kind[n] for an anonymous one (as the init and hotplug scripts pass it)."""
    sections = read(path)
    same = [(name, options) for k, name, options in sections if k == kind]
    return [(name or '@%s[%d]' % (kind, n), record(path, name or '@%s[%d]' % (kind, n), sections))
            for n, (name, options) in enumerate(same) if options.get('enabled') in TRUE]


def section(path, ref, sections=None):
    """The options of one section, named or `@type[n]` (n from 0, negative from the end)."""
    sections = read(path) if sections is None else sections
    if ref.startswith('@') and ref.endswith(']') and '[' in ref:
        kind, _, index = ref[1:-1].partition('[')
        same = [s for s in sections if s[0] == kind]
        sign = -1 if index[:1] == '-' else 1
        n = decimal(index[1:] if sign < 0 else index)
        if n is not None and -len(same) <= sign * n < len(same):
            return same[sign * n][2]
    else:
        for kind, name, options in sections:
            if name == ref:
                return options
    # `uci show` names an anonymous section by an id it makes up (cfgXXXXXX), not in the file
    hint = '; give an anonymous section as @<type>[<n>]' if ref.startswith('cfg') else ''
    raise UsageError('no section %s in UCI file %s%s' % (ref, path, hint))
