"""Read OpenWrt UCI files (/etc/config/<name>) directly, exactly as libuci loads them (no `uci` binary)."""

from ddkit import UsageError, decimal
from ddkit.native import os

# Options the init and hotplug scripts read; a tool ignores them in its section.
SERVICE_OPTIONS = frozenset(('enabled', 'interface', 'interval'))
DEFAULTS = 'defaults'   # `config defaults`: options every record section inherits (credentials once)
TRUE = ('1', 'on', 'true', 'yes', 'enabled')   # as config_get_bool reads a boolean

SPACE = ' \t\n\v\f\r'   # C's isspace()


class Refused(Exception):
    """A statement libuci refuses, so it refuses the whole file (uci runs strict)."""


def valid(text, name, package=False):
    """uci_validate_str: names are letters, digits and _ (- too in a package name); types visible ASCII."""
    for c in text:
        word = c.isascii() and c.isalnum() or c == '_' or c == '-' and package
        if not word and (name or not '!' <= c <= '~'):
            return False
    return text != ''


def anonymous_id(count, kind):
    """The id libuci makes up for the count-th section of a file (from 1) when it has no name: cfg,
    the counter as %02x, djbhash of the type as %04x (list.c uci_add_section -> uci_fixup_section,
    called before the section has options, so only the type is hashed)."""
    h = 5381
    for c in kind:   # a type is visible ASCII: C's signed or unsigned char adds the same
        h = (h * 33 + ord(c)) & 0xFFFFFFFF
    return 'cfg%02x%04x' % (count, (h & 0x7FFFFFFF) % 65536)


def anonymous(sections, ref):
    """The anonymous section libuci calls ref (cfgXXXXXX), or None. The counter in the id picks the one
    section it can be, so a lookup hashes one type at most."""
    try:
        count = int(ref[3:-4], 16) if ref[:3] == 'cfg' else 0
    except ValueError:   # int() takes more than %02x makes ('0x1', ' 1'): the comparison below drops those
        return None
    found = sections[count - 1] if 1 <= count <= len(sections) else None
    return found if found and found[1] is None and anonymous_id(count, found[0]) == ref else None


class Parser:
    """libuci's parser (file.c), step for step: one buffer per statement, where words are unquoted in
    place, lines are appended for quotes and backslashes that run on, and a word cut short by `;` or
    `#` leaves what it leaves in the C code. Close to the C on purpose: its quirks are what a file means."""

    def __init__(self, text):
        parts = text.split('\n')
        self.lines = [p + '\n' for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        self.read = self.pos = self.out = 0
        self.buf, self.sections, self.names, self.options = [], [], {}, None

    def getln(self, offset):
        """The next line of the file into the buffer at offset (uci_getln); at the end, nothing."""
        line = self.lines[self.read] if self.read < len(self.lines) else ''
        self.read += line != ''
        self.buf[offset:] = line + '\0'

    def cur(self):
        return self.buf[self.pos]

    def skip_space(self):
        while self.cur() in SPACE:
            self.pos += 1

    def addc(self):
        self.buf[self.out] = self.buf[self.pos]
        self.out += 1
        self.pos += 1

    def backslash(self):
        """Past a backslash: False when it ended the line, which then goes on with the next one."""
        self.pos += 1
        at = self.buf[self.pos:self.pos + 3]
        if at[0] in '\0\n' or at == ['\r', '\n', '\0']:
            self.getln(self.pos)
            return False
        return True

    def quoted(self, quote):
        """A quoted part of a word; inside double quotes a backslash takes the next character as is."""
        self.pos += 1
        while self.cur() != quote:
            if self.cur() == '\0':
                self.getln(self.pos)   # a quote runs on over the line's end
                if self.cur() == '\0':
                    raise Refused('a %s quote is never closed' % quote)
            elif self.cur() != '\\' or quote == "'" or self.backslash():
                self.addc()
        self.pos += 1

    def word(self):
        """One word, quotes and escapes resolved (parse_str); `#` ends the line, `;` the statement."""
        more = True
        while True:
            c = self.cur()
            if c in '\'"':
                self.quoted(c)
            elif c in '#\0;':
                more = c != ';'
                if c == '#':
                    self.buf[self.pos] = '\0'
                break
            elif c != '\\' or self.backslash():
                self.addc()
            if self.cur() in SPACE:   # at '\0' the next turn stops
                break
        if self.cur() != '\0' and more:
            self.pos += 1
        self.buf[self.out] = '\0'   # on a `;` right after an unquoted word, this ends the line

    def next_arg(self, required, name=False, package=False):
        """The next word of the statement: '' at its end; checked when it is a name."""
        self.skip_space()
        start = self.out = self.pos
        if self.cur() == ';':
            self.buf[self.pos] = '\0'
            self.pos += 1
        else:
            self.word()
        text = ''.join(self.buf[start:self.buf.index('\0', start)])
        if not text and required:
            raise Refused('a name is missing')
        if text and name and not valid(text, True, package):
            raise Refused('bad name %r (letters, digits and _ only)' % text)
        return text

    def end(self):
        """Nothing more in the statement (uci runs strict)."""
        self.skip_space()
        if self.next_arg(False):
            raise Refused("too many words (quote a value with spaces: 'a b')")

    def statement(self):
        """The statements of one line, `;` between them (uci_parse_line)."""
        self.skip_space()
        while True:
            start = self.pos   # strtok(" \t"): the command word, its end made the end of a string
            while self.buf[start] in ' \t':
                start += 1
            stop = start
            while self.buf[stop] not in ' \t\0':
                stop += 1
            command = ''.join(self.buf[start:stop])
            if command[:1] in ('', '#'):
                return
            full = {'p': 'package', 'c': 'config', 'o': 'option', 'l': 'list'}.get(command[0], '')
            if not full or command not in (command[0], full):
                raise Refused('expected config, option or list, got %r' % command)
            if full in ('option', 'list') and self.options is None:
                raise Refused(full + ' before the first config')
            if self.buf[stop] == '\0':   # at the end of the file: nothing can follow
                raise Refused(full + ' without a name')
            self.buf[stop] = '\0'
            self.pos = stop + 1
            if full == 'config':
                self.config()
            elif full == 'package':
                self.next_arg(True, True, True)
                self.end()
            else:
                self.option(full == 'list')

    def config(self):
        kind = self.next_arg(True)
        if not valid(kind, False):
            raise Refused('bad section type %r' % kind)
        name = self.next_arg(False, True)
        self.end()
        section = self.names.get(name)
        if not section and name[:3] == 'cfg':   # libuci looks the name up among the ids it made up too
            section = anonymous(self.sections, name)
        if section and section[0] != kind:
            raise Refused('section %s has type %s above' % (name, section[0]))
        if not section:
            section = self.names[name or len(self.sections)] = (kind, name or None, {})
            self.sections.append(section)
        self.options = section[2]

    def option(self, is_list=False):
        name = self.next_arg(True, True)
        value = self.next_arg(False)
        self.end()
        old = self.options.get(name)
        if is_list:   # an option before a list of the same name becomes its first item
            self.options[name] = (old if isinstance(old, list) else [old] if old else []) + [value]
        elif value:   # an empty value sets nothing (uci_set of '' on a file being loaded)
            self.options[name] = value

    def parse(self):
        """[(type, name or None, {option: value or [values]})]; Refused names the line."""
        while self.read < len(self.lines):
            self.pos = 0
            self.getln(0)
            self.first = self.read   # the line a statement starts on names it
            self.statement()
        return self.sections


def read(path):
    """The sections of a UCI file, in order: [(type, name or None, {option: value or [values]})].

    What libuci loads from it (`uci export`); a file uci refuses is a UsageError naming the line."""
    try:
        with open(path, encoding='utf-8', newline='') as f:   # newline='': a \r is a character
            st = os.fstat(f.fileno())
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError('cannot read UCI file %s: %s' % (path, getattr(e, 'strerror', None) or e))
    from ddkit.state import refuse_foreign
    refuse_foreign('UCI file', path, st)
    parser = Parser(text)
    try:
        return parser.parse()
    except Refused as e:
        raise UsageError('UCI file %s line %d: %s' % (path, parser.first, e))


def record(path, ref, sections=None):
    """The options of one record section over those of the file's `config defaults` sections."""
    sections = read(path) if sections is None else sections
    options = defaults(sections)
    options.update(section(path, ref, sections))
    return options


def defaults(sections):
    """The options of the `config defaults` sections: what every record section inherits."""
    options = {}
    for kind, _, given in sections:
        if kind == DEFAULTS:
            options.update(given)
    return options


def enabled(path, kind, sections=None):
    """[(ref, options)] of the enabled sections of a type, in file order, defaults applied: ref is the
    name, or @kind[n] for an anonymous one (as the init and hotplug scripts pass it)."""
    sections = read(path) if sections is None else sections
    same = [(name, options) for k, name, options in sections if k == kind]
    return [(name or '@%s[%d]' % (kind, n), record(path, name or '@%s[%d]' % (kind, n), sections))
            for n, (name, options) in enumerate(same) if options.get('enabled') in TRUE]


def found(sections, ref):
    """The section (type, name or None, options) ref names: by its name, `@type[n]` (n from 0, negative
    from the end) or, for an anonymous one, the cfgXXXXXX id `uci -X show` and LuCI give it; or None."""
    if ref.startswith('@') and ref.endswith(']') and '[' in ref:
        kind, _, index = ref[1:-1].partition('[')
        same = [s for s in sections if s[0] == kind]
        sign = -1 if index[:1] == '-' else 1
        n = decimal(index[1:] if sign < 0 else index)
        return same[sign * n] if n is not None and -len(same) <= sign * n < len(same) else None
    for one in sections:
        if one[1] == ref:   # a named section comes before any anonymous one with its name as id
            return one
    return anonymous(sections, ref)


def run_name(sections, ref):
    """What a run of several calls the section ref, as enabled() names it: its name, or @type[n] for an
    anonymous one however ref named it (a cfgXXXXXX id, a negative n); ref when it names none."""
    one = found(sections, ref)
    if one is None or one[1] is not None:
        return ref if one is None else one[1]
    same = [s for s in sections if s[0] == one[0]]
    return '@%s[%d]' % (one[0], next(n for n, s in enumerate(same) if s is one))   # is: equal ones differ


def section(path, ref, sections=None):
    """The options of one section (found: by name, `@type[n]` or cfgXXXXXX id), else a UsageError
    saying which anonymous sections the file has."""
    sections = read(path) if sections is None else sections
    one = found(sections, ref)
    if one is not None:
        return one[2]
    hint = ''
    if ref.startswith('cfg'):   # an id copied from another version of the file: its counter moved
        seen, ids = {}, []
        for count, (kind, name, _) in enumerate(sections, 1):
            seen[kind] = seen.get(kind, -1) + 1
            if name is None:
                ids.append('%s = @%s[%d]' % (anonymous_id(count, kind), kind, seen[kind]))
        hint = '; anonymous sections: %s' % ', '.join(ids) if ids else '; it has no anonymous section'
        hint += ' (an id moves when any section is added above it, @<type>[<n>] only for its own type)'
    raise UsageError('no section %s in UCI file %s%s' % (ref, path, hint))
