"""The words a person reads and a cron run never needs: the --help text, built from the settings
tables, the settings' labels (--help's and the LuCI page's), and the did-you-mean of a misspelt
name. Imported only for --help, the catalog (--providers --json) and on those errors."""

WIDTH = 80    # columns of every line of --help
GUTTER = 24   # the column an option's text starts at

# words of a setting's name that people write otherwise than as a capitalised word
WORDS = {'api': 'API', 'url': 'URL', 'ip': 'IP', 'ipv4': 'IPv4', 'ipv6': 'IPv6', 'ttl': 'TTL', 'id': 'ID',
         'dns': 'DNS', 'doh': 'DoH', 'ca': 'CA', 'http': 'HTTP', 'https': 'HTTPS'}

# the characters a terminal shows two columns wide (East Asian Wide and Fullwidth): a table of our
# own, as the unicodedata module is a package of its own on OpenWrt
WIDE = ((0x1100, 0x115F), (0x2E80, 0x303E), (0x3041, 0x33FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
        (0xA000, 0xA4CF), (0xAC00, 0xD7A3), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFF60),
        (0xFFE0, 0xFFE6), (0x1F300, 0x1F64F), (0x1F900, 0x1F9FF), (0x20000, 0x3FFFD))


def label(setting):
    """A setting's label: its own (Setting.label), else its name in words ('api_token': 'API token')."""
    if getattr(setting, 'label', None):
        return setting.label
    words = [WORDS.get(word, word) for word in setting.name.split('_')]
    return ' '.join([words[0][:1].upper() + words[0][1:]] + words[1:])


def columns(text):
    """The columns text takes in a terminal (a Chinese character takes two)."""
    if text.isascii():   # nearly every word of --help: a column a character, without the table
        return len(text)
    return sum(2 if any(low <= ord(c) <= high for low, high in WIDE) else 1 for c in text)


def wrap(text, width):
    """The words of text in lines of at most width columns; a word longer than a line (a URL) is cut."""
    lines, line = [], ''
    for word in text.split():
        while columns(word) > width:
            if line:
                lines.append(line)
                line = ''
            cut = 1
            while columns(word[:cut + 1]) <= width:
                cut += 1
            lines.append(word[:cut])
            word = word[cut:]
        if line and columns(line) + 1 + columns(word) > width:
            lines.append(line)
            line = word
        elif word:
            line = line + ' ' + word if line else word
    return lines + [line] if line else lines


def option_lines(flag, text, gutter=GUTTER):
    """One option of --help: the flag indented by two, its text wrapped beside it from column gutter
    (below it, when the flag is too long for that)."""
    lines = wrap(text, WIDTH - gutter) or ['']
    if columns(flag) > gutter - 3:
        return ['  ' + flag] + [' ' * gutter + line for line in lines]
    return ['  ' + flag + ' ' * (gutter - 2 - columns(flag)) + lines[0]] + [' ' * gutter + line for line in lines[1:]]


def option_text(item, files):
    """What --help says of a setting or switch: its help (the meaning, what the LuCI page shows too),
    its default, and what only the command line needs to say: a repeated setting's flag is repeated,
    -h is record_name's, and a secret's flag is seen by every user of the host (files: the tool takes
    --config)."""
    text = item.help
    default = getattr(item, 'default', None)
    if default not in (None, '', []):
        text += ' (default: %s)' % (' '.join(default) if isinstance(default, list) else default)
    if getattr(item, 'repeat', False):
        text += '; several: repeat the flag%s' % (', or commas or blanks between them' if item.commas else '')
    if item.short == '-h' and not getattr(item, 'terse', False):   # terse: the overview's one screen
        text += '; -h is this setting, as in the original script: help is --help'
    if getattr(item, 'secret', False):
        text += '; secret: any user of the host may read a flag (argv): prefer %s%s' % (
            item.env, ' or --config' if files else '')
    return text


def usage(prog, summary, settings, switches, uci_name=None, words='[options]', arguments=(),
          epilog=None, sections=(), usages=()):
    """The --help text, built from the settings table so it never disagrees with the code.

    summary: paragraphs (blank-line separated; one with line breaks of its own is kept as written);
    arguments: (name, help) of the bare words; settings: shown with the switches under "options:";
    sections: (heading, body) after them, body a list of settings, a list of (name, text) shown in a
    column as wide as the longest name (the ddkit command's providers), or a paragraph; usages: more
    lines of usage; epilog: the closing paragraph (by default, where settings come from and the exit
    statuses)."""
    files = uci_name is not None
    lines = ['usage: %s %s' % (prog, words)] + ['       %s %s' % (prog, more) for more in usages] + ['']
    for paragraph in summary.split('\n\n'):
        lines += (paragraph.split('\n') if '\n' in paragraph else wrap(paragraph, WIDTH)) + ['']
    if arguments:
        lines.append('arguments:')
        for name, text in arguments:
            lines += option_lines(name, text)
        lines.append('')
    lines.append('options:')
    lines += option_lines('--help, --version', 'show this help, or the version, and exit')
    if files:
        lines += option_lines('--config FILE', 'read setting_name=value lines from FILE')
        text = 'read SECTION (a name or @%s[0]) of /etc/config/%s or of DDNS_UCI_FILE; repeat it for ' \
               'several records' % (uci_name, uci_name)
        lines += option_lines('--uci SECTION', text)
    lines += settings_lines(list(switches) + list(settings), files)
    for heading, body in sections:
        lines += ['', heading]
        if isinstance(body, str):
            lines += ['  ' + line for line in wrap(body, WIDTH - 2)]
        elif body and isinstance(body[0], tuple):
            gutter = 4 + max(columns(name) for name, _ in body)
            for name, text in body:
                lines += option_lines(name, text, gutter)
        else:
            lines += settings_lines(body, files)
    if epilog is None:
        epilog = ('A setting may also be a DDNS_<NAME> variable, a UCI option (--uci) or a line name=value of '
                  '--config, winning in that order after a flag. Exit status: 0 updated or nothing to do, '
                  '1 failure, 2 bad input.')
    lines += [''] + wrap(epilog, WIDTH)
    return '\n'.join(lines)


def settings_lines(items, files):
    """The lines of settings and switches in --help: each flag (its short one, its value) and text."""
    lines = []
    for item in items:
        flag = item.flag + (' ' + item.metavar if item.takes_value else '')
        if item.short:
            flag = '%s, %s' % (item.short, flag)
        lines += option_lines(flag, option_text(item, files))
    return lines


# the words of ddclient's configuration (ddclient.conf) a user coming from it brings, and the
# setting each stands for here: the did-you-mean of a config file's or UCI section's unknown name
# (password is the same word here)
DDCLIENT = {'login': 'username', 'protocol': 'provider', 'server': 'provider', 'use': 'ip_source',
            'usev4': 'ip_source', 'usev6': 'ip_source', 'if': 'ip_source', 'ifv4': 'ip_source',
            'ifv6': 'ip_source', 'web': 'ip_lookup_url', 'webv4': 'ip_lookup_url', 'webv6': 'ip_lookup_url',
            'cache': 'state_dir', 'postscript': 'on_change', 'zone': 'zone_name'}


def did_you_mean(name, known, aliases=None, cutoff=0.6):
    """'; did you mean x?' for a misspelt setting, flag or provider name (case, "-" and "_" aside), or
    (aliases: {what users call it: its name}) a name users call one by, else ''; cutoff: how alike
    (0-1, difflib's ratio) a name must be."""
    import difflib
    forms = {_plain(alias): candidate for alias, candidate in (aliases or {}).items()}
    for candidate in known:
        forms.setdefault(_plain(candidate), candidate)
    close = difflib.get_close_matches(_plain(name), list(forms), 1, cutoff)
    return '; did you mean %s?' % forms[close[0]] if close else ''


def _plain(name):
    return name.lower().replace('-', '').replace('_', '')
