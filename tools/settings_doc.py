#!/usr/bin/env python3
"""The table of every provider's own settings in docs/settings.md, made from the providers' SETTINGS
(ddkit.registry): a new provider's settings reach the docs without an edit there; and the options
only the OpenWrt service reads (ddkit.choice.SERVICE), with the UCI files that hold them. And the
LuCI page's translation template: the strings its views pass to _(), and every label, help and
summary of ddkit's catalog (`ddkit --providers --json`, which the page shows through _()); each
translation's .po gets the template's entries, keeping the translations it has (a new string's
empty, for a translator to fill).

usage: python3 tools/settings_doc.py          print the table
       python3 tools/settings_doc.py --write  put it into docs/settings.md, between its markers, and
                                              write the page's template and .po files
"""

import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'lib'))
sys.path.insert(0, os.path.join(ROOT, 'tools'))
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


# --- the LuCI page's translation ------------------------------------------------------------------

APP = 'luci-app-ddkit'
VIEWS = os.path.join(APP, 'htdocs', 'luci-static', 'resources', 'view', 'ddkit')
MENU = os.path.join(APP, 'root', 'usr', 'share', 'luci', 'menu.d', 'luci-app-ddkit.json')
ACL = os.path.join(APP, 'root', 'usr', 'share', 'rpcd', 'acl.d', 'luci-app-ddkit.json')
PO = os.path.join(ROOT, APP, 'po')
POT = os.path.join(PO, 'templates', 'ddkit.pot')
HEADER = 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8"\n'
# a _() call of a view with a literal string (the key the page looks up)
CALL = re.compile(r'(?<![\w.$])_\(\s*([\'"])((?:\\.|(?!\1).)*)\1')


def page_strings():
    """{msgid: [where]} of the strings the page's files translate: each _() of a view (the file and
    line, as LuCI's own scan writes them), the menu entries' titles, the ACL's descriptions."""
    import json
    found = {}
    for name in sorted(os.listdir(os.path.join(ROOT, VIEWS))):
        if name.endswith('.js'):
            with open(os.path.join(ROOT, VIEWS, name), encoding='utf-8') as f:
                for number, line in enumerate(f, 1):
                    for _, text in CALL.findall(line):
                        where = found.setdefault(js_string(text), [])
                        if '%s:%d' % (os.path.join(VIEWS, name), number) not in where:
                            where.append('%s:%d' % (os.path.join(VIEWS, name), number))
    for path, key in ((MENU, 'title'), (ACL, 'description')):
        with open(os.path.join(ROOT, path), encoding='utf-8') as f:
            lines = f.read().split('\n')
        for entry in json.loads('\n'.join(lines)).values():
            number = next(i for i, line in enumerate(lines, 1) if '"%s":' % key in line)
            found.setdefault(entry[key], []).append('%s:%d' % (path, number))
    return found


def js_string(text):
    """The value of a JavaScript string literal's body (its escapes: \\' and \\uXXXX)."""
    return text.encode('utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8') if '\\' in text else text


def catalog_strings():
    """{msgid: {what: [the providers whose]}} of the catalog's texts the page shows: each provider's
    summary, each setting's label and help (every registered provider's, the common and the service's
    settings)."""
    from ddkit import choice, updater
    catalog = choice.catalog(updater.COMMON)
    found = {}
    for provider in catalog['providers']:
        found.setdefault(provider['summary'], {}).setdefault('the summary', []).append(provider['name'])
        for setting in provider['settings']:
            for key in ('label', 'help'):
                what = found.setdefault(setting[key], {}).setdefault('%s of %s' % (key, setting['name']), [])
                what.append(provider['name'])
    for part in ('common', 'service'):
        for setting in catalog[part]:
            for key in ('label', 'help'):
                found.setdefault(setting[key], {}).setdefault('%s of %s' % (key, setting['name']), [])
    return found


def quoted(keyword, text):
    """A .po keyword and its string: on one line when it fits, else broken after blanks as gettext
    writes it."""
    if '\\' in text or '\n' in text:
        raise ValueError('%r: a backslash or a line break would be read back otherwise (po2lmo)' % text)
    text = text.replace('"', '\\"')
    if len(keyword) + len(text) + 3 <= 80:
        return '%s "%s"\n' % (keyword, text)
    parts, line = [], ''
    for word in re.findall(r'\S*\s*', text):
        if line and len(line) + len(word) > 77:
            parts.append(line)
            line = ''
        line += word
    return '%s ""\n' % keyword + ''.join('"%s"\n' % part for part in parts + [line] if part)


def template():
    """The text of the page's translation template: the page's own strings (sorted, as LuCI's scan
    sorts them), then the catalog's others in its order."""
    page, catalog = page_strings(), catalog_strings()
    entries = [(['#: ' + where for where in page[msgid]], msgid) for msgid in sorted(page)]
    for msgid in catalog:
        if msgid not in page:
            said = 'ddkit --providers --json: ' + '; '.join('%s (%s)' % (what, ', '.join(names)) if names else what
                                                             for what, names in catalog[msgid].items())
            entries.append((['#. ' + line for line in textwrap.wrap(said, 77)], msgid))
    return HEADER + ''.join('\n' + ''.join(line + '\n' for line in notes) + quoted('msgid', msgid) + 'msgstr ""\n'
                            for notes, msgid in entries)


def translation(po_text, pot_text):
    """A translation's .po made current: its header, then the template's entries, each with the
    translation the .po has for it (else empty); what the template no longer has is dropped."""
    import lmo
    known = {e.msgid: e.msgstr[0] for e in lmo.po_entries(po_text) if e.msgid and e.msgstr and e.msgstr[0]}
    header, _, _ = po_text.partition('\n\n')
    blocks = pot_text.split('\n\n')[1:]
    made = []
    for block in blocks:
        (entry,) = [e for e in lmo.po_entries(block) if e.msgid]
        made.append(block[:block.rindex('msgstr ""')] + quoted('msgstr', known.get(entry.msgid, '')))
    return header + '\n\n' + '\n'.join(made)


def translations():
    """[(path, its current text)] of the template and each translation's .po."""
    made = [(POT, template())]
    for language in sorted(os.listdir(PO)):
        path = os.path.join(PO, language, 'ddkit.po')
        if language != 'templates' and os.path.isfile(path):
            with open(path, encoding='utf-8') as f:
                made.append((path, translation(f.read(), made[0][1])))
    return made


def write(path, text):
    with open(path, encoding='utf-8') as f:
        if f.read() == text:
            return
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


def main(argv):
    if argv == ['--write']:
        with open(DOC, encoding='utf-8') as f:
            write(DOC, current(f.read()))
        for path, text in translations():
            write(path, text)
        return 0
    if argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sys.stdout.write(table())
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
