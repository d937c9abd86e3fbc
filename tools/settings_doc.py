#!/usr/bin/env python3
"""The table of every provider's own settings in docs/settings.md, made from the providers' SETTINGS
(ddkit.registry): a new provider's settings reach the docs without an edit there; and the options
only the OpenWrt service reads (ddkit.choice.SERVICE), with the UCI files that hold them.

usage: python3 tools/settings_doc.py          print the table
       python3 tools/settings_doc.py --write  put it into docs/settings.md, between its markers
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'lib'))
DOC = os.path.join(ROOT, 'docs', 'settings.md')
BEGIN = '<!-- the providers\' settings: made by tools/settings_doc.py --write, from each provider\'s SETTINGS -->'
END = '<!-- end of the providers\' settings -->'
SERVICE_BEGIN = '<!-- the options only the service reads: made by tools/settings_doc.py --write, from ddkit.choice.SERVICE -->'
SERVICE_END = '<!-- end of the options only the service reads -->'


def table():
    """The markdown table: one row per setting of each registered provider, in registry order."""
    from ddkit import registry
    rows = ['| setting | provider | default | meaning |', '|---|---|---|---|']
    for name in registry.PROVIDERS:
        module = registry.provider(name)
        required = set(getattr(module, 'REQUIRED', ()))
        for setting in module.SETTINGS:
            flag = ' (`%s`)' % setting.short if setting.short else ''
            default = '`%s`' % setting.default if setting.default not in (None, '') else 'none'
            meaning = setting.help + ('; required' if setting.name in required else '') + \
                ('; a secret: never shown in a log or --check' if setting.secret else '')
            rows.append('| `%s`%s | `%s` | %s | %s |' % (setting.name, flag, name, default, meaning.replace('|', '\\|')))
    return '\n'.join(rows) + '\n'


def service():
    """The options of a UCI section only the service reads: which files hold them (ddkit's, and the
    seed commands', each fixed to a provider whose files keep its name), and their table."""
    from ddkit import choice, registry
    seeds = [registry.provider(name).STEM for name in registry.PROVIDERS]
    seeds = ['`/etc/config/%s`' % stem for stem in seeds if not stem.startswith('ddkit_')]
    rows = ['A section of `/etc/config/ddkit` may also hold these, as may one of %s (the files of the older '
            'commands, each fixed to a provider); the tool skips them, the init and hotplug scripts read them '
            '([schedule.md](schedule.md)). Set in `config defaults`, they hold for every section that does not '
            'set its own (`enabled` excepted: each section sets its own).' % ' or '.join(seeds), '',
            '| option | default | meaning |', '|---|---|---|']
    for setting in choice.SERVICE:
        default = '`%s`' % setting.default if setting.default not in (None, '') else 'none'
        rows.append('| `%s` | %s | %s |' % (setting.name, default, setting.help.replace('|', '\\|')))
    return '\n'.join(rows) + '\n'


def current(text):
    """text with its marked parts replaced by what is made now; ValueError when a marker is missing."""
    for begin_mark, end_mark, made in ((BEGIN, END, table), (SERVICE_BEGIN, SERVICE_END, service)):
        head, begin, rest = text.partition(begin_mark)
        _, end, tail = rest.partition(end_mark)
        if not begin or not end:
            raise ValueError('%s lacks the markers %s' % (DOC, begin_mark))
        text = head + begin_mark + '\n' + made() + end_mark + tail
    return text


def main(argv):
    if argv == ['--write']:
        with open(DOC, encoding='utf-8') as f:
            text = f.read()
        made = current(text)
        if made != text:
            with open(DOC + '.tmp', 'w', encoding='utf-8') as f:
                f.write(made)
            os.replace(DOC + '.tmp', DOC)
        return 0
    if argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sys.stdout.write(table())
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
