"""The words a person reads and a cron run never needs: the --help text, built from the settings
tables, and the did-you-mean of a misspelt name. Imported only for --help and on those errors."""


def option_lines(flag, text, width=80):
    """One option of --help: the flag in a column of 24, its text wrapped to width beside it."""
    import textwrap  # each of these loads more modules: only where it is used
    lines = textwrap.wrap(text, width - 24, break_on_hyphens=False)
    if len(flag) > 21:
        return ['  ' + flag] + [' ' * 24 + line for line in lines]
    return ['  %-21s %s' % (flag, lines[0])] + [' ' * 24 + line for line in lines[1:]]


def usage(prog, summary, settings, switches, uci_name=None, words='[options]', arguments=(),
          epilog=None, listed=None):
    """The --help text, built from the settings table so it never disagrees with the code.

    summary: paragraphs (blank-line separated; one with line breaks of its own is kept as written);
    arguments: (name, help) of the bare words; listed: (heading, [(name, text)]) after the options
    (the ddkit command's providers); epilog: the closing paragraph (by default, where settings come
    from and the exit statuses)."""
    import textwrap
    lines = ['usage: %s %s' % (prog, words), '']
    for paragraph in summary.split('\n\n'):
        lines += (paragraph.split('\n') if '\n' in paragraph else textwrap.wrap(paragraph, 80)) + ['']
    if arguments:
        lines.append('arguments:')
        for name, text in arguments:
            lines += option_lines(name, text)
        lines.append('')
    lines.append('options:')
    lines += option_lines('--help', 'show this help and exit')
    lines += option_lines('--version', 'show the version and exit')
    if uci_name:
        lines += option_lines('--config FILE', 'read setting_name=value lines from FILE')
        text = 'read the options of SECTION (a name or @%s[0]) of /etc/config/%s (or of the UCI file ' \
               'DDNS_UCI_FILE names); repeat it to run several records at once' % (uci_name, uci_name)
        lines += option_lines('--uci SECTION', text)
    for item in list(switches) + list(settings):
        flag = item.flag + (' ' + item.metavar if item.takes_value else '')
        if item.short:
            flag = '%s, %s' % (item.short, flag)
        default = getattr(item, 'default', None)
        default = ' '.join(default) if isinstance(default, list) else default   # a repeated setting's
        extra = ' (default: %s)' % default if default not in (None, '') else ''
        lines += option_lines(flag, item.help + extra)
    if listed:
        lines += ['', listed[0]]
        for name, text in listed[1]:
            lines += option_lines(name, text)
    if epilog is None:
        epilog = ('Every setting can also come from the environment as DDNS_<NAME> (e.g. DDNS_ZONE_NAME), '
                  'from a UCI section (--uci) or from the --config file as name=value; a flag wins over '
                  'the environment, which wins over the UCI section, which wins over the file. Exit status: '
                  '0 updated or nothing to do, 1 failure, 2 bad input.')
    lines += [''] + textwrap.wrap(epilog, 80)
    return '\n'.join(lines)


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
