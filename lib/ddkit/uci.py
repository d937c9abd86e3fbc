"""Read OpenWrt UCI files (/etc/config/<name>) directly, exactly as libuci loads them (no `uci` binary)."""

from ddkit import UsageError, decimal

# Options the init and hotplug scripts read; a tool ignores them in its section.
SERVICE_OPTIONS = frozenset(('enabled', 'interface', 'interval'))

SPACE = ' \t\n\v\f\r'   # C's isspace()
WORD = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_')
COMMANDS = {'p': 'package', 'c': 'config', 'o': 'option', 'l': 'list'}


class Refused(Exception):
    """A statement libuci refuses, so it refuses the whole file (uci runs strict)."""


def valid(text, name, package=False):
    """uci_validate_str: names are letters, digits and _ (- too in a package name); types visible ASCII."""
    for c in text:
        if not (c in WORD or c == '-' and package) and (name or not '!' <= c <= '~'):
            return False
    return text != ''


def anonymous_id(count, kind):
    """The name libuci gives the count-th section when it has none (list.c uci_fixup_section)."""
    h = 5381
    for c in kind:
        h = (h * 33 + ord(c)) & 0xFFFFFFFF
    return 'cfg%02x%04x' % (count, (h & 0x7FFFFFFF) % 65536)


class Parser:
    """libuci's parser (file.c), step for step: one buffer per statement, where words are unquoted in
    place, lines are appended for quotes and backslashes that run on, and a word cut short by `;` or
    `#` leaves what it leaves in the C code. Close to the C on purpose: its quirks are what a file means."""

    def __init__(self, text):
        parts = text.split('\n')
        self.lines = [p + '\n' for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        self.read = self.line = self.pos = self.out = self.filled = 0
        self.buf = []
        self.sections, self.names, self.options = [], {}, None

    def getln(self, offset):
        """The next line of the file into the buffer at offset (uci_getln); at the end, nothing."""
        line = self.lines[self.read] if self.read < len(self.lines) else ''
        self.read += line != ''
        del self.buf[offset:]
        self.buf.extend(line)
        self.buf.append('\0')
        if line:
            self.filled = offset + len(line)

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
            raise Refused('%r is not a valid name (letters, digits and _ only)' % text)
        return text

    def end(self):
        """Nothing more in the statement (uci runs strict)."""
        self.skip_space()
        if self.next_arg(False):
            raise Refused("too many words (a value with spaces needs quotes: option name 'a b')")

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
            if not command or command[0] == '#':
                return
            self.buf[stop] = '\0'
            full = COMMANDS.get(command[0])
            if not full or command not in (command[0], full):
                raise Refused('expected config, option, list or package, got %r' % command)
            if full in ('option', 'list') and self.options is None:
                raise Refused('%s before the first config line' % full)
            if stop + 1 > self.filled:
                raise Refused('%s without a name' % full)
            self.pos = stop + 1
            getattr(self, full)()

    def package(self):
        self.next_arg(True, True, True)
        self.end()

    def config(self):
        kind = self.next_arg(True)
        if not valid(kind, False):
            raise Refused('%r is not a valid section type' % kind)
        name = self.next_arg(False, True)
        self.end()
        section = self.names.get(name)
        if section and section[0] != kind:
            raise Refused('section %s was given type %s before, not %s' % (name, section[0], kind))
        if not section:
            section = (kind, name or None, {})
            self.sections.append(section)
            self.names[name or anonymous_id(len(self.sections), kind)] = section
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

    def list(self):
        self.option(True)

    def parse(self):
        """[(type, name or None, {option: value or [values]})]; Refused names the line."""
        while self.read < len(self.lines):
            self.pos = 0
            self.getln(0)
            first = self.read
            try:
                self.statement()
            except Refused as e:
                raise Refused('line %d: %s' % (first, e))
        return self.sections


def read(path):
    """The sections of a UCI file, in order: [(type, name or None, {option: value or [values]})].

    What libuci loads from it (`uci export`); a file uci refuses is a UsageError naming the line."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
        text = data.decode('utf-8')
    except OSError as e:
        raise UsageError('cannot read UCI file %s: %s' % (path, e.strerror))
    except UnicodeDecodeError as e:
        raise UsageError('UCI file %s line %d: not UTF-8 text' % (path, data.count(b'\n', 0, e.start) + 1))
    if '\0' in text:
        line = text.count('\n', 0, text.index('\0')) + 1
        raise UsageError('UCI file %s line %d: a NUL byte' % (path, line))
    try:
        return Parser(text).parse()
    except Refused as e:
        raise UsageError('UCI file %s %s' % (path, e))


def section(path, ref):
    """One section's options, by name, cfgXXXXXX id or `@type[n]` (n from 0, negative from the end)."""
    sections = read(path)
    if ref.startswith('@') and ref.endswith(']') and '[' in ref:
        kind, _, index = ref[1:-1].partition('[')
        same = [s for s in sections if s[0] == kind]
        sign = -1 if index[:1] == '-' else 1
        n = decimal(index[1:] if sign < 0 else index)
        if n is not None and -len(same) <= sign * n < len(same):
            return same[sign * n][2]
    else:   # a name, or the id `uci -X show` gives an anonymous section (sections are never removed)
        for count, (kind, name, options) in enumerate(sections, 1):
            if ref == (name or anonymous_id(count, kind)):
                return options
    hint = '; give an anonymous section as @<type>[<n>]' if ref.startswith('cfg') else ''
    raise UsageError('no section %s in UCI file %s%s' % (ref, path, hint))
