"""tools/lmo.py, the .lmo catalogs of the LuCI app's translations: what a .po file's entries become
(contexts, plurals, escapes, continued strings, fuzzy, untranslated, copied and obsolete entries),
read back as LuCI reads a catalog; the layout of the bytes; the hash LuCI's lookups compute, here
and (with node) in the browser's own JavaScript; what it refuses; the command."""

import json
import os
import shutil
import struct
import subprocess
import sys

import pytest

import needs
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, 'tools'))
import lmo  # noqa: E402

TOOL = os.path.join(ROOT, 'tools', 'lmo.py')

# a translation as the app's po/zh_Hans/ddkit.po has them, and every kind of entry po2lmo treats
# in its own way
PO = r'''# Simplified Chinese for a made-up app
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Language: zh_Hans\n"
"Plural-Forms: nplurals=1; plural=0;\n"

#: htdocs/view/ddkit/records.js:10
msgid "Save"
msgstr "保存"

msgctxt "verb"
msgid "Open"
msgstr "打开"

msgctxt "adjective"
msgid "Open"
msgstr "开放"

msgid "%d record"
msgid_plural "%d records"
msgstr[0] "%d 条记录"

msgid "Say \"hi\" to C:\\temp"
msgstr "向 C:\\temp 说\"你好\""

msgid "First line\nSecond line"
msgstr "第一行\n第二行"

msgid ""
"A long help text "
"on two lines."
msgstr ""
"一段很长的"
"帮助文字。"

#, fuzzy
msgid "Fuzzy"
msgstr "模糊"

msgid "Untranslated"
msgstr ""

msgid "Same"
msgstr "Same"

#~ msgid "Obsolete"
#~ msgstr "过时"
'''


def catalog(text):
    return lmo.read_lmo(lmo.lmo(lmo.po_entries(text)))


def rows(data):
    """The index of a catalog as (key, value id, offset, length), read here without lmo.py."""
    start = struct.unpack('>I', data[-4:])[0]
    return [struct.unpack('>4I', data[at:at + 16]) for at in range(start, len(data) - 4, 16)]


def test_round_trip_finds_each_translation_by_the_key_luci_looks_up():
    assert catalog(PO) == {
        0: 'nplurals=1; plural=0;',                     # the header keeps only its plural formula
        lmo.key_hash('Save'): '保存',
        lmo.key_hash('Open', 'verb'): '打开',
        lmo.key_hash('Open', 'adjective'): '开放',
        lmo.key_hash('%d record', plural=0): '%d 条记录',
        # \" and \\ are unescaped; \n stays a backslash and an n, in the key and in the text
        lmo.key_hash('Say "hi" to C:\\temp'): '向 C:\\temp 说"你好"',
        lmo.key_hash('First line\\nSecond line'): '第一行\\n第二行',
        lmo.key_hash('A long help text on two lines.'): '一段很长的帮助文字。',
        # po2lmo skips every comment line, the fuzzy flag too: the entry is written
        lmo.key_hash('Fuzzy'): '模糊',
    }   # and no Untranslated (empty msgstr), Same (a copy of its msgid) or Obsolete (#~)


def test_entries_are_the_strings_po2lmo_reads():
    entries = lmo.po_entries(PO)
    assert entries[0].msgid is None and entries[0].msgstr[0].endswith('plural=0;\\n')
    assert entries[1] == lmo.Entry(None, 'Save', None, ('保存',))
    assert entries[2] == lmo.Entry('verb', 'Open', None, ('打开',))
    assert entries[4] == lmo.Entry(None, '%d record', '%d records', ('%d 条记录',))
    assert lmo.Entry(None, 'Untranslated', None, (None,)) in entries
    assert [e.msgid for e in entries[-3:]] == ['Fuzzy', 'Untranslated', 'Same']


def test_each_plural_form_has_its_own_key():
    text = '\n'.join([
        'msgid ""', 'msgstr "Plural-Forms: nplurals=3; plural=(n%10==1 ? 0 : n%10>=2 ? 1 : 2);\\n"', '',
        'msgctxt "status"', 'msgid "%d error"', 'msgid_plural "%d errors"',
        'msgstr[0] "one"', 'msgstr[1] ""', 'msgstr[2] "many"', '',
        'msgid "%d line"', 'msgid_plural "%d lines"', 'msgstr[0] ""', 'msgstr[1] "lines"', ''])
    data = lmo.lmo(lmo.po_entries(text))
    assert lmo.read_lmo(data) == {
        0: 'nplurals=3; plural=(n%10==1 ? 0 : n%10>=2 ? 1 : 2);',
        lmo.key_hash('%d error', 'status', plural=0): 'one',
        lmo.key_hash('%d error', 'status', plural=2): 'many',
    }   # an empty form is left out; with msgstr[0] empty the whole entry is
    # the value id is the number of forms the entry has (LuCI never reads it)
    assert sorted(row[1] for row in rows(data)) == [0, 3, 3]


def test_layout_texts_padded_then_the_sorted_index_then_its_offset():
    data = lmo.lmo(lmo.po_entries(PO))
    index = rows(data)
    start = struct.unpack('>I', data[-4:])[0]
    assert len(data) == start + 16 * len(index) + 4
    assert [row[0] for row in index] == sorted(row[0] for row in index)
    # the texts in the order of the file, each starting on 4 bytes, NULs between
    by_offset = sorted(index, key=lambda row: row[2])
    assert by_offset[0][2] == 0 and all(row[2] % 4 == 0 for row in index)
    for row, after in zip(by_offset, by_offset[1:] + [(0, 0, start, 0)]):
        assert data[row[2] + row[3]:after[2]] == b'\0' * (-row[3] % 4)
    assert data[by_offset[1][2]:][:6] == '保存'.encode()
    assert {row[1] for row in index} == {0, 1}                 # the header's row 0, the others 1


def test_bytes_as_po2lmo_wrote_them():
    # po2lmo, built from LuCI's source, wrote these bytes for this input (checked by hand; the
    # module's docstring says how the whole tool was compared). The two CJK msgids end the hash
    # on a byte over 0x7f, with 1 and 3 bytes left over
    text = '\n'.join([
        'msgid ""', 'msgstr ""', '"Language: zh_Hans\\n"', '"Plural-Forms: nplurals=1; plural=0;\\n"', '',
        'msgid "Save"', 'msgstr "保存"', '', 'msgctxt "verb"', 'msgid "Open"', 'msgstr "打开"', '',
        'msgid "%d record"', 'msgid_plural "%d records"', 'msgstr[0] "%d 条记录"', '',
        'msgid "IPv6 地址"', 'msgstr "IPv6 地址（公网）"', '', 'msgid "IP 记录"', 'msgstr "IP 记录项"', '',
        'msgid "Say \\"hi\\""', 'msgstr "说\\"你好\\"\\n"', ''])
    assert lmo.lmo(lmo.po_entries(text)).hex() == (
        '6e706c7572616c733d313b20706c7572616c3d303b000000e4bf9de5ad980000e68993e5bc800000256420e6'
        '9da1e8aeb0e5bd954950763620e59cb0e59d80efbc88e585ace7bd91efbc8900495020e8aeb0e5bd95e9a1b9'
        'e8afb422e4bda0e5a5bd225c6e00000000000000000000000000000000000015219966c70000000100000018'
        '000000062299752400000001000000280000000c28a76b90000000010000004c0000000c5010890500000001'
        '0000003400000017745fa40000000001000000580000000dc8b129e700000001000000200000000600000068')


def test_a_key_is_cut_at_4095_bytes():
    # po2lmo builds a key in a 4 KiB buffer: two msgids alike in their first 4095 bytes share one
    long = ''.join('"%s"\n' % ('%04d' % i * 20) for i in range(60))     # 4800 bytes in 60 lines
    text = 'msgid ""\n%smsgstr "one"\n\nmsgid ""\n%s"more"\nmsgstr "two"\n' % (long, long)
    assert list(catalog(text).values()) == ['one']
    assert len(rows(lmo.lmo(lmo.po_entries(text)))) == 2
    assert lmo.key_hash(''.join('%04d' % i * 20 for i in range(60))) == 0     # LuCI never looks it up


def test_crlf_lines_and_a_missing_last_newline_change_nothing():
    assert lmo.lmo(lmo.po_entries(PO.replace('\n', '\r\n').rstrip())) == lmo.lmo(lmo.po_entries(PO))


def test_entries_of_one_key_keep_their_order_in_the_index():
    text = ''.join('msgid "k%d"\nmsgstr "v%d"\n\n' % (i % 3, i) for i in range(9))
    index = rows(lmo.lmo(lmo.po_entries(text)))
    for key in {row[0] for row in index}:
        offsets = [row[2] for row in index if row[0] == key]
        assert len(offsets) == 3 and offsets == sorted(offsets)


def test_key_hash_folds_whitespace_as_luci_does_po2lmo_does_not():
    assert lmo.key_hash('  Save\n\tnow ') == lmo.key_hash('Save now') != lmo.key_hash('Savenow')
    assert lmo.key_hash('Open', ' verb ') == lmo.key_hash('Open', 'verb')
    assert lmo.key_hash('') == 0 and lmo.key_hash('x' * 5000) == 0       # never looked up
    # po2lmo hashes the msgid as written: a translation of one with a double space is never found
    assert lmo.key_hash('Save  now') not in catalog('msgid "Save  now"\nmsgstr "x"\n')


def test_hash_of_every_tail_length_matches_the_catalog_key():
    # the key po2lmo writes (the plain hash) and the key LuCI looks up (folded) for keys with
    # nothing to fold: 1-9 bytes cover each tail of the hash; CJK's bytes over 0x7f its signed case
    for msgid in ['a', 'ab', 'abc', 'abcd', 'abcde', '保', 'a保', 'ab保', '保存', '😀', 'x😀', 'é']:
        assert lmo.key_hash(msgid) == lmo.sfh_hash(msgid.encode())
        assert catalog('msgid "%s"\nmsgstr "译"\n' % msgid) == {lmo.key_hash(msgid): '译'}


# the lookup of LuCI's web pages, in their own words: the hash, the key of _() and of N_()
JS = r'''
function s8(bytes, off) { const n = bytes[off]; return (n > 0x7F) ? (n - 256) >>> 0 : n; }
function u16(bytes, off) { return ((bytes[off + 1] << 8) + bytes[off]) >>> 0; }
function sfh(s) {
	if (s === null || s.length === 0) return null;
	const bytes = [];
	for (let i = 0; i < s.length; i++) {
		let ch = s.charCodeAt(i);
		if (ch >= 0xD800 && ch <= 0xDBFF && i + 1 < s.length) {
			const next = s.charCodeAt(i + 1);
			if (next >= 0xDC00 && next <= 0xDFFF) { ch = 0x10000 + ((ch - 0xD800) << 10) + (next - 0xDC00); i++; }
		}
		if (ch <= 0x7F) bytes.push(ch);
		else if (ch <= 0x7FF) bytes.push(((ch >>> 6) & 0x1F) | 0xC0, (ch & 0x3F) | 0x80);
		else if (ch <= 0xFFFF) bytes.push(((ch >>> 12) & 0x0F) | 0xE0, ((ch >>> 6) & 0x3F) | 0x80, (ch & 0x3F) | 0x80);
		else if (ch <= 0x10FFFF) bytes.push(((ch >>> 18) & 0x07) | 0xF0, ((ch >>> 12) & 0x3F) | 0x80,
		                                    ((ch >> 6) & 0x3F) | 0x80, (ch & 0x3F) | 0x80);
	}
	if (!bytes.length) return null;
	let hash = (bytes.length >>> 0), len = (bytes.length >>> 2), off = 0, tmp;
	while (len--) {
		hash += u16(bytes, off);
		tmp = ((u16(bytes, off + 2) << 11) ^ hash) >>> 0;
		hash = ((hash << 16) ^ tmp) >>> 0;
		hash += hash >>> 11;
		off += 4;
	}
	switch ((bytes.length & 3) >>> 0) {
	case 3:
		hash += u16(bytes, off); hash = (hash ^ (hash << 16)) >>> 0;
		hash = (hash ^ (s8(bytes, off + 2) << 18)) >>> 0; hash += hash >>> 11; break;
	case 2:
		hash += u16(bytes, off); hash = (hash ^ (hash << 11)) >>> 0; hash += hash >>> 17; break;
	case 1:
		hash += s8(bytes, off); hash = (hash ^ (hash << 10)) >>> 0; hash += hash >>> 1; break;
	}
	hash = (hash ^ (hash << 3)) >>> 0; hash += hash >>> 5;
	hash = (hash ^ (hash << 4)) >>> 0; hash += hash >>> 17;
	hash = (hash ^ (hash << 25)) >>> 0; hash += hash >>> 6;
	return (0x100000000 + hash).toString(16).slice(1);
}
function trimws(s) { return String(s).trim().replace(/[ \t\n]+/g, ' '); }
function key(s, c, i) {
	return (c != null ? trimws(c) + '\u0001' : '') + trimws(s) + (i != null ? '\u0002' + i.toString() : '');
}
let input = '';
process.stdin.on('data', d => input += d);
process.stdin.on('end', () => console.log(JSON.stringify(JSON.parse(input).map(([s, c, i]) => sfh(key(s, c, i))))));
'''

LOOKUPS = [('Save', None, None), ('Open', 'verb', None), ('Open', 'adjective', None), ('%d record', None, 0),
           ('Say "hi" to C:\\temp', None, None), (' A long help text\non  two lines. ', None, None),
           ('Fuzzy', None, None)]
OTHERS = [(s, None, None) for s in ['a', 'ab', 'abc', 'abcd', 'abcde', '保', 'a保', 'ab保', '😀', 'x😀', 'é',
                                    'x' * 1000 + '记录']] + [('\tRecords  of\nthe zone ', ' DNS\t', 1)]


def test_the_browser_computes_the_same_key():
    node = shutil.which('node') or shutil.which('nodejs')
    if not node:
        needs.missing('node is not installed (apt-get install nodejs): the browser side goes unchecked')
    done = subprocess.run([node, '-e', JS], input=json.dumps(LOOKUPS + OTHERS), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    browser = json.loads(done.stdout)
    assert browser == ['%08x' % lmo.key_hash(s, c, i) for s, c, i in LOOKUPS + OTHERS]
    # and each lookup of the page finds its translation in the catalog
    found = {'%08x' % key: text for key, text in catalog(PO).items()}
    assert [found.get(h) for h in browser[:len(LOOKUPS)]] == [
        '保存', '打开', '开放', '%d 条记录', '向 C:\\temp 说"你好"', '一段很长的帮助文字。', '模糊']


@pytest.mark.parametrize('text, says', [
    ('msgid "a\nmsgstr "b"\n', 'line 1: a string with no closing quote'),
    ('msgid "%s"\nmsgstr "b"\n' % ('a' * 5000), 'line 1: a string with no closing quote within 4095 bytes'),
    ('msgid "a"\nmsgid_plural "as"\nmsgstr[10] "b"\n', 'line 3: msgstr[10]: po2lmo takes msgstr[0] to msgstr[9]'),
    ('msgid ""\nmsgstr "Plural-Forms: \\n"\n', 'an empty Plural-Forms value'),
])
def test_refuses_what_po2lmo_fails_on_or_reads_in_no_defined_way(text, says):
    with pytest.raises(lmo.PoError, match=says.replace('[', r'\[').replace(']', r'\]')):
        lmo.lmo(lmo.po_entries(text))


def test_command_writes_the_catalog_and_no_file_when_nothing_is_translated(tmp_path):
    source, target = tmp_path / 'ddkit.po', tmp_path / 'ddkit.zh-cn.lmo'
    source.write_text(PO, encoding='utf-8')
    done = subprocess.run([sys.executable, TOOL, str(source), str(target)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert target.read_bytes() == lmo.lmo(lmo.po_entries(PO))
    assert sorted(os.listdir(tmp_path)) == ['ddkit.po', 'ddkit.zh-cn.lmo']
    # as po2lmo: a .po with no translation leaves no catalog, not even the one from before
    source.write_text('msgid ""\nmsgstr "Language: zh_Hans\\n"\n\nmsgid "Save"\nmsgstr ""\n', encoding='utf-8')
    done = subprocess.run([sys.executable, TOOL, str(source), str(target)], capture_output=True, text=True)
    assert done.returncode == 0 and 'has no translation' in done.stderr
    assert sorted(os.listdir(tmp_path)) == ['ddkit.po']


def test_command_says_what_is_wrong_in_one_line(tmp_path):
    source = tmp_path / 'bad.po'
    source.write_text('msgid "a"\nmsgstr "b\n', encoding='utf-8')
    done = subprocess.run([sys.executable, TOOL, str(source), str(tmp_path / 'bad.lmo')], capture_output=True,
                          text=True)
    assert done.returncode == 1
    assert done.stderr == 'lmo: %s: line 2: a string with no closing quote\n' % source
    assert not (tmp_path / 'bad.lmo').exists()
    done = subprocess.run([sys.executable, TOOL, str(source)], capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr.strip() == 'lmo.py IN.po OUT.lmo'
