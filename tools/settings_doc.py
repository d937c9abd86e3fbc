#!/usr/bin/env python3
"""The table of every provider's own settings in docs/settings.md, made from the providers' SETTINGS
(ddkit.registry): a new provider's settings reach the docs without an edit there.

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


def current(text):
    """text with its marked part replaced by the table made now; ValueError when a marker is missing."""
    head, begin, rest = text.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError('%s lacks the markers of the providers\' settings' % DOC)
    return head + BEGIN + '\n' + table() + END + tail


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
