"""The LuCI page's form as it is built, in English and in Simplified Chinese: its view run by Node
over a stand-in of the LuCI modules it requires (form, uci, rpc, ...: each records what the view
asks of it), fed the real catalog (`ddkit --providers --json`) and the real translation (the .po's
entries, looked up as LuCI's _() looks them up). Every field is titled with its setting's label and
described by its help, both translated; the records table's column heads too."""

import html
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import needs
from conftest import ROOT, run_tool

sys.path.insert(0, os.path.join(ROOT, 'tools'))
import lmo  # noqa: E402

VIEW = os.path.join(ROOT, 'luci-app-ddkit', 'htdocs', 'luci-static', 'resources', 'view', 'ddkit', 'overview.js')
PO = os.path.join(ROOT, 'luci-app-ddkit', 'po', 'zh_Hans', 'ddkit.po')

# The LuCI modules the view requires, as far as it uses them: each call is recorded (an option:
# its section, UCI name, widget, title, description and, for a summary, the text it shows).
# _() is LuCI's lookup: the string's translation, else the string itself.
HARNESS = r'''
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const options = [];
String.prototype.format = function(...args) {
	let i = 0;
	return this.replace(/%(0?)(\d*)([hsd%])/g, (all, zero, width, kind) => {
		if (kind == '%') return '%';
		let v = args[i++];
		if (kind == 'h') v = String(v).replace(/&/g, '&#38;').replace(/"/g, '&#34;').replace(/'/g, '&#39;')
			.replace(/</g, '&#60;').replace(/>/g, '&#62;');
		else v = String(v);
		return (width && v.length < +width) ? (zero ? '0' : ' ').repeat(+width - v.length) + v : v;
	});
};
const E = (tag, attrs, children) => ({ tag, attrs, children: children || [],
	appendChild(child) { this.children.push(child); } });
const _ = (s) => Object.prototype.hasOwnProperty.call(input.translations, s) ? input.translations[s] : s;
class Option {
	constructor(section, name, title, description) {
		Object.assign(this, { section, name, title, description, values: [] });
		options.push(this);
	}
	value(key, label) { this.values.push(key); }
	depends() {}
}
const widget = kind => { const C = class extends Option {}; C.kind = kind; C.prototype.load = () => null;
	C.prototype.remove = () => null; return C; };
class Section {
	constructor(map, type, title, description) { Object.assign(this, { type, title, description, children: [] }); }
	tab() {}
	option(C, name, title, description) {
		const o = new C(this.type, name, title, description);
		o.kind = C.kind;
		this.children.push(o);
		return o;
	}
	taboption(tab, C, name, title, description) { return this.option(C, name, title, description); }
}
const form = {
	Map: class { constructor(config) { this.config = config; }
		section(C, type, title, description) { return new C(this, type, title, description); }
		render() { return Promise.resolve(E('div')); } },
	GridSection: class extends Section { renderRowActions() { return E('td'); } },
	TypedSection: class extends Section {},
	Flag: widget('Flag'), Value: widget('Value'), ListValue: widget('ListValue'),
	DynamicList: widget('DynamicList'), DummyValue: widget('DummyValue')
};
const uci = {
	load: () => Promise.resolve(),
	changes: () => Promise.resolve({}),
	sections: (config, type) => input.sections.filter(s => type == null || s['.type'] == type),
	get: (config, sid, option) => (input.sections.find(s => s['.name'] == sid) || {})[option]
};
const L = { resolveDefault: (p, d) => Promise.resolve(p).catch(() => d), hasViewPermission: () => true,
	toArray: v => Array.isArray(v) ? v : (v == null ? [] : String(v).split(/\s+/)) };
const stand = {
	view: { extend: o => o }, form, uci, L, E, _,
	ui: { createHandlerFn: () => () => null, showModal() {}, hideModal() {} },
	rpc: { declare: () => () => Promise.resolve({}) },
	poll: { add() {} }, dom: { content() {} }
};
const names = Object.keys(stand);
const page = new Function(...names, input.source)(...names.map(n => stand[n]));
page.render([ null, input.catalog, { records: [], problems: [] }, {} ]).then(() => {
	console.log(JSON.stringify(options.map(o => ({
		section: o.section, name: o.name, kind: o.kind, title: o.title, description: o.description,
		grid: o.modalonly !== true, shown: (o.kind == 'DummyValue') ? o.cfgvalue() : null,
		values: o.values, placeholder: o.placeholder }))));
});
'''


@pytest.fixture(scope='module')
def catalog():
    done = run_tool('ddkit', ['--providers', '--json'])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope='module')
def chinese():
    with open(PO, encoding='utf-8') as f:
        return {e.msgid: e.msgstr[0] for e in lmo.po_entries(f.read()) if e.msgid and e.msgstr and e.msgstr[0]}


def built(catalog, translations, **home):
    """The options the view declares: one dict each (see HARNESS); home: options of the record's
    section beside its provider."""
    node = shutil.which('node') or shutil.which('nodejs')
    if not node:
        needs.missing('node is not installed (.ci/run installs nodejs)')
    with open(VIEW, encoding='utf-8') as f:
        source = f.read()
    sections = [dict({'.type': 'ddkit', '.name': 'home', 'provider': catalog['providers'][0]['name']}, **home),
                {'.type': 'defaults', '.name': 'cfg01'}]
    done = subprocess.run([node, '-e', HARNESS], capture_output=True, text=True, timeout=60, input=json.dumps(
        {'source': source, 'catalog': catalog, 'translations': translations, 'sections': sections}))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def fields(catalog):
    """{(section type, option name): the catalog's setting}: what the page makes a field of."""
    found = {}
    for st in catalog['service'] + catalog['common']:
        found[('ddkit', st['name'])] = st
    for st in catalog['common']:
        found[('defaults', st['name'])] = st
    for provider in catalog['providers']:
        for st in provider['settings']:
            found[('ddkit', '%s__%s' % (provider['name'], st['name']))] = st
    return found


@pytest.mark.parametrize('language', ['en', 'zh_Hans'])
def test_every_field_is_titled_by_its_label_and_described_by_its_help(catalog, chinese, language):
    words = chinese if language == 'zh_Hans' else {}
    tr = lambda text: words.get(text, text)  # noqa: E731
    made = {(o['section'], o['name']): o for o in built(catalog, words)}
    wanted = fields(catalog)
    assert set(wanted) <= set(made)
    for key, st in wanted.items():
        option = made[key]
        assert html.unescape(option['title']) == tr(st['label']), (key, option['title'])
        assert html.unescape(option['description']).startswith(tr(st['help'])), (key, option['description'])
        assert '<code>%s</code>' % st['name'] in option['description'], key   # the name ddkit's messages use
        assert '<' not in option['description'].replace('<code>%s</code>' % st['name'], '').replace(
            '<br />', ''), key   # escaped
    assert html.unescape(made[('ddkit', 'provider')]['title']) == tr('Provider')
    for provider in catalog['providers']:   # the summary above a provider's fields
        assert made[('ddkit', '_summary_' + provider['name'])]['shown'] == tr(provider['summary'])


def test_the_chinese_page_shows_no_setting_name_as_a_title_and_no_english_help(catalog, chinese):
    made = built(catalog, chinese)
    heads = [html.unescape(o['title']) for o in made if o['section'] == 'ddkit' and o['grid']]
    # the records table's column heads; 'Enabled' as luci-base's own catalog has it (LuCI reads both)
    assert heads == ['已启用', '服务商', '记录名称', '记录类型']
    for option in made:
        if option['kind'] == 'DummyValue':
            continue
        title = html.unescape(option['title'])
        assert re.search('[\u4e00-\u9fff]', title), (option['name'], title)
        help_text = html.unescape(re.sub(r'<code>.*?</code>', '', option['description'] or ''))
        assert re.search('[\u4e00-\u9fff]', help_text), (option['name'], help_text)


def test_a_list_with_choices_offers_only_its_choices_and_shows_its_default_as_a_placeholder(catalog, chinese):
    """notify_on is a list of choices (a DynamicList): an empty choice, as a ListValue has for its
    default, would be added to the list as an item named "default (...)"; the default is the
    placeholder of its dropdown instead."""
    made = {(o['section'], o['name']): o for o in built(catalog, chinese)}
    lists = [st for st in catalog['common'] if st['list'] and st['choices'] and not st['secret']]
    assert lists
    for st in lists:
        for section in ('ddkit', 'defaults'):
            option = made[(section, st['name'])]
            assert option['kind'] == 'DynamicList'
            assert option['values'] == st['choices'], (section, st['name'])
            default = ' '.join(st['default']) if isinstance(st['default'], list) else st['default']
            assert option['placeholder'] == (None if default is None else chinese['default (%s)'].replace('%s', default))


@pytest.mark.parametrize('language', ['en', 'zh_Hans'])
def test_the_note_after_a_help_is_a_sentence_of_its_own(catalog, chinese, language):
    """A secret list's note (several values, blanks between them) follows its help on a line of its
    own: the helps end with no full stop, so a note run on after one reads as part of it."""
    words = chinese if language == 'zh_Hans' else {}
    tr = lambda text: words.get(text, text)  # noqa: E731
    made = {(o['section'], o['name']): o for o in built(catalog, words)}
    secret_lists = [st for st in catalog['common'] if st['list'] and st['secret']]
    assert secret_lists
    for st in secret_lists:
        description = html.unescape(made[('ddkit', st['name'])]['description'])
        assert '%s<br />%s' % (tr(st['help']), tr('Several: blanks between them.')) in description, description


@pytest.mark.parametrize('written, added', [
    ('change failure', []), (['change', 'failure'], []), ('change bogus', ['bogus']), (['bogus'], ['bogus'])])
def test_a_list_value_the_choices_do_not_know_is_offered_item_by_item(catalog, written, added):
    """A list of choices written as words in one option or as a UCI list is the same list of items:
    what is offered beside the choices is an item they do not know, never the words joined."""
    made = {(o['section'], o['name']): o for o in built(catalog, {}, notify_on=written)}
    assert made[('ddkit', 'notify_on')]['values'] == ['change', 'failure', 'recovery'] + added


def test_the_pages_own_words_call_a_setting_by_its_label_not_its_uci_name(catalog):
    """The page titles each field with its label; its own sentences do the same (a UCI name such as
    record_type is said only in the field's <code>, with the name ddkit's messages use)."""
    with open(VIEW, encoding='utf-8') as f:
        own = re.findall(r"_\('((?:[^'\\]|\\.)*)'\)", f.read())
    settings = catalog['service'] + catalog['common'] + [st for p in catalog['providers'] for st in p['settings']]
    names = {st['name'] for st in settings if '_' in st['name']}   # the others are words: provider, lines
    assert len(own) > 40
    assert [(text, word) for text in own for word in re.findall(r'\w+', text) if word in names] == []


# The status table and the Add record box, rendered by the view over stand-ins of the DOM it builds:
# E() makes a node (a Node, as the view tests `instanceof Node`), its text what a user reads.
STATUS_HARNESS = HARNESS.split('const E = ')[0] + r'''
class Node {}
const E = (tag, attrs, children) => {
	const n = Object.assign(new Node(), { tag, attrs: attrs || {},
		children: Array.isArray(children) ? children : (children == null ? [] : [ children ]) });
	n.appendChild = c => n.children.push(c);
	n.querySelector = sel => (n.attrs['class'] || '').split(' ').includes(sel.slice(1)) ? n :
		n.children.map(c => (c instanceof Node) ? c.querySelector(sel) : null).find(c => c) || null;
	return n;
};
const _ = (s) => Object.prototype.hasOwnProperty.call(input.translations, s) ? input.translations[s] : s;
const text = n => (n instanceof Node) ? (n.tag == 'br' ? ' ' : n.children.map(text).join('')) : String(n ?? '');
const sections = [];
class Section {
	constructor(map, type) { Object.assign(this, { type, children: [] }); sections.push(this); }
	tab() {}
	option(C, name) { const o = new C(); o.values = []; o.value = () => null; o.depends = () => null;
		this.children.push(o); return o; }
	taboption(tab, C, name) { return this.option(C, name); }
}
const widget = () => class { load() { return null; } remove() { return null; } };
const form = {
	Map: class { section(C, type) { return new C(this, type); } render() { return Promise.resolve(E('div')); } },
	GridSection: class extends Section {
		renderRowActions() { return E('td'); }
		renderSectionAdd() { return E('div', { 'class': 'cbi-section-create' }, [
			E('div', {}, [ E('input', { 'type': 'text', 'class': 'cbi-section-create-name' }) ]),
			E('button', { 'class': 'cbi-button cbi-button-add' }) ]); }
	},
	TypedSection: class extends Section {},
	Flag: widget(), Value: widget(), ListValue: widget(), DynamicList: widget(), DummyValue: widget()
};
const uci = { load: () => Promise.resolve(), changes: () => Promise.resolve({}), sections: () => [], get: () => null };
const L = { resolveDefault: (p, d) => Promise.resolve(p).catch(() => d), hasViewPermission: () => true,
	toArray: v => Array.isArray(v) ? v : [] };
const stand = { view: { extend: o => o }, form, uci, L, E, _,
	ui: { createHandlerFn: () => () => null, showModal() {}, hideModal() {} },
	rpc: { declare: () => () => Promise.resolve({}) }, poll: { add() {} }, dom: { content() {} } };
const names = Object.keys(stand);
const page = new Function(...names, input.source)(...names.map(n => stand[n]));
const rows = page.renderStatus({ records: input.records, problems: [] }).slice(-1)[0].children
	.map(tr => tr.children.map(text));
page.render([ null, input.catalog, { records: [], problems: [] }, {} ]).then(() => {
	const added = sections.find(s => s.type == 'ddkit').renderSectionAdd();
	const box = added.querySelector('.cbi-section-create-name');
	console.log(JSON.stringify({ rows, placeholder: box.placeholder || null, title: box.title || null }));
});
'''

# the words of the page this round added, as they are to be translated (the .po's, when it has them,
# is what the page shows)
NEW_WORDS = {'China Telecom': '电信', 'China Mobile': '移动', 'China Unicom': '联通', 'default': '默认',
             'Section name, e.g. home': '名称，例如 home'}
TITLE = ('A name for the new record\'s section: letters, digits and _ (e.g. home or nas_v6). The DNS name goes '
         'in the form that opens next.')
FIX = 'the RAM user may not change DNS records: grant it AliyunDNSFullAccess'
# (line, outcome, message, fix, what the Failed: line shows): the fix ddkit's line ends with is taken
# out of it, however it is joined on ("; ", "; fix: ", " -- fix: "); a line without it stays whole
FAILURES = [
    ('ct', 'unchanged', None, None, None),
    ('cm', 'failed', 'update record: the provider refused the request (HTTP 403, code Forbidden.RAM); ' + FIX, FIX,
     'update record: the provider refused the request (HTTP 403, code Forbidden.RAM)'),
    ('cu', 'failed', 'find zone: no domain example.cn in this account (HTTP 404: gone); fix: set zone_name',
     'set zone_name', 'find zone: no domain example.cn in this account (HTTP 404: gone)'),
    ('default', 'failed', 'get current IP: no answer from https://ipv6.icanhazip.com -- fix: check connectivity',
     'check connectivity', 'get current IP: no answer from https://ipv6.icanhazip.com'),
    (None, 'failed', 'update record: HTTP 500; the next run tries again', 'wait',
     'update record: HTTP 500; the next run tries again')]
sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import registry  # noqa: E402

# a provider with operator lines, whose records the page shows line by line
LINED = next(name for name in registry.PROVIDERS if getattr(registry.provider(name), 'LINES', None))
RECORDS = [{'name': 'nas.example.cn', 'type': 'AAAA', 'provider': LINED, 'line': line, 'outcome': outcome,
            'ip': None, 'checked': None, 'changed': None, 'section': 'nas', 'message': message, 'fix': fix}
           for line, outcome, message, fix, _ in FAILURES]


def status_page(catalog, translations):
    node = shutil.which('node') or shutil.which('nodejs')
    if not node:
        needs.missing('node is not installed (.ci/run installs nodejs)')
    with open(VIEW, encoding='utf-8') as f:
        source = f.read()
    done = subprocess.run([node, '-e', STATUS_HARNESS], capture_output=True, text=True, timeout=60, input=json.dumps(
        {'source': source, 'catalog': catalog, 'translations': translations, 'records': RECORDS, 'sections': []}))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize('language', ['en', 'zh_Hans'])
def test_the_status_table_says_each_line_by_its_operator_and_a_failures_fix_once(catalog, chinese, language):
    words = dict(NEW_WORDS, **chinese) if language == 'zh_Hans' else {}
    tr = lambda text: words.get(text, text)  # noqa: E731
    page = status_page(catalog, words)
    rows = page['rows'][1:]   # after the column heads
    lines = [row[3] for row in rows if len(row) > 1]
    assert lines == [tr('China Telecom'), tr('China Mobile'), tr('China Unicom'), tr('default'), '']
    if language == 'zh_Hans':   # 电信, 移动, 联通, 默认: never ct, cm, cu, default
        assert all(re.search('[\u4e00-\u9fff]', line) for line in lines[:4]), lines
    failures = [row[0] for row in rows if len(row) == 1]
    wanted = [(fix, shown) for _, outcome, _, fix, shown in FAILURES if outcome == 'failed']
    assert len(failures) == len(wanted)
    for text, (fix, shown) in zip(failures, wanted):
        # a blank after each label, but for a full-width colon (失败：), which has its own
        gap = lambda label: '' if tr(label).endswith('\uff1a') else ' '  # noqa: E731
        assert text == '%s%s%s%s%s%s' % (tr('Failed:'), gap('Failed:'), shown, tr('Fix:'), gap('Fix:'), fix), text


@pytest.mark.parametrize('language', ['en', 'zh_Hans'])
def test_the_add_record_box_says_what_to_type_in_it(catalog, chinese, language):
    """The box beside Add record takes a section's name, not a DNS name: its hint says so."""
    words = dict(NEW_WORDS, **chinese) if language == 'zh_Hans' else {}
    page = status_page(catalog, words)
    assert page['placeholder'] == words.get('Section name, e.g. home', 'Section name, e.g. home')
    assert page['title'] == words.get(TITLE, TITLE) and 'letters, digits and _' in TITLE
