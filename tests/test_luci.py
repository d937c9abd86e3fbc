"""The LuCI page's data: `ddkit --providers --json` (what the page builds its form from) and the rpcd
plugin luci.ddkit (rpcd's executable-plugin protocol: list, call <method> with JSON on stdin) run
against the fakes over real HTTP, a section the page names refused before anything runs."""

import json
import os
import subprocess
import sys

import pytest

from conftest import RECORD, ROOT, run_tool
from openwrt_env import feed, signify_key  # noqa: F401  (fixtures: the feed as make feed builds it)
from providers import PROVIDERS

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import helptext, registry  # noqa: E402

APP = os.path.join(ROOT, 'luci-app-ddkit')
PLUGIN = os.path.join(APP, 'root', 'usr', 'libexec', 'rpcd', 'luci.ddkit')
SETTING_KEYS = ['name', 'label', 'help', 'secret', 'default', 'required', 'choices', 'list']
OLD, NEW = '81.2.69.1', '81.2.69.10'


def catalog():
    done = run_tool('ddkit', ['--providers', '--json'])
    assert done.returncode == 0 and done.stderr == '', done.stderr
    return json.loads(done.stdout)


def check_setting(setting):
    assert list(setting) == SETTING_KEYS
    assert isinstance(setting['name'], str) and setting['name'].isidentifier()
    assert isinstance(setting['label'], str) and setting['label'][:1].isupper() and '_' not in setting['label']
    assert isinstance(setting['help'], str) and setting['help']
    assert isinstance(setting['secret'], bool) and isinstance(setting['required'], bool)
    assert isinstance(setting['list'], bool)
    assert setting['default'] is None or isinstance(setting['default'], (str, list))
    assert setting['choices'] is None or (isinstance(setting['choices'], list) and setting['choices']
                                          and all(isinstance(c, str) for c in setting['choices']))


def test_providers_json_lists_every_registered_provider_with_its_settings():
    found = catalog()
    assert list(found) == ['providers', 'common', 'service']
    assert [p['name'] for p in found['providers']] == list(registry.PROVIDERS)
    for provider in found['providers']:
        module = registry.provider(provider['name'])
        assert list(provider) == ['name', 'summary', 'required', 'settings']
        assert provider['summary'] == module.SUMMARY
        assert [s['name'] for s in provider['settings']] == [s.name for s in module.SETTINGS]
        for setting, own in zip(provider['settings'], module.SETTINGS):
            check_setting(setting)
            assert setting['secret'] == bool(own.secret) and setting['help'] == own.help
            assert setting['label'] == (own.label or helptext.label(own))
            assert setting['required'] == (own.name in provider['required'])
        common = {s['name'] for s in found['common']}
        assert set(provider['required']) <= common | {s['name'] for s in provider['settings']}
        assert 'record_name' in provider['required']
    for setting in found['common'] + found['service']:
        check_setting(setting)
    common = {s['name']: s for s in found['common']}
    assert common['record_type']['choices'] == ['A', 'AAAA', 'A AAAA'] and common['record_type']['default'] == 'A'
    assert common['default_line']['choices'] == ['ct', 'cm', 'cu']
    assert common['line_gone']['choices'] == ['remove', 'keep']
    assert common['lines']['list'] and common['ip_lookup_url']['list']
    assert common['healthcheck_url']['secret']
    service = {s['name']: s for s in found['service']}
    assert list(service) == ['enabled', 'interface', 'interval']
    assert service['enabled']['default'] == '0' and service['interval']['default'] == '1800'


def test_a_provider_with_several_forms_of_credentials_requires_none_of_them():
    """A token, or e-mail and key: the form must save with either, so none is marked required; the
    required ones are the loop's own (ddkit.provider.required)."""
    from ddkit.provider import required
    several = 0
    for provider in catalog()['providers']:
        module = registry.provider(provider['name'])
        assert provider['required'] == list(required(module))
        if hasattr(module, 'missing_credentials'):
            several += 1
            assert not [s['name'] for s in provider['settings'] if s['secret'] and s['required']]
    assert several


def test_every_default_the_catalog_shows_is_the_one_a_record_without_the_option_gets():
    """LuCI writes nothing for a value equal to its default: an option left out must mean the default
    the page shows. A run of a record with none of the options set reads these values."""
    from ddkit import settings, updater
    found = catalog()
    for provider in found['providers']:
        module = registry.provider(provider['name'])
        table = module.SETTINGS + updater.COMMON
        cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES, environ={})
        for setting in provider['settings'] + found['common']:
            value = getattr(cfg, setting['name'])
            if setting['default'] is None:
                assert value in (None, [], ''), (provider['name'], setting['name'], value)
            else:
                assert settings.checked(next(s for s in table if s.name == setting['name']), setting['default'],
                                        'default', '', None, {}) == value


def test_a_provider_not_installed_is_left_out(tmp_path):
    """The installed layout (the packages' files) without one provider's package."""
    sys.path.insert(0, os.path.join(ROOT, 'tools'))
    import standalone
    for path, mode, data in standalone.installed([os.path.join(ROOT, 'bin', 'ddkit.py')]):
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        target.chmod(mode)
    gone = registry.PROVIDERS[1]
    (tmp_path / standalone.LIB_DIR / 'ddkit' / 'providers' / (gone + '.py')).unlink()
    done = subprocess.run([sys.executable, str(tmp_path / 'usr' / 'bin' / 'ddkit'), '--providers', '--json'],
                          capture_output=True, text=True, env={'TMPDIR': str(tmp_path)})
    assert done.returncode == 0, done.stderr
    names = [p['name'] for p in json.loads(done.stdout)['providers']]
    assert names == [n for n in registry.PROVIDERS if n != gone]
    plain = subprocess.run([sys.executable, str(tmp_path / 'usr' / 'bin' / 'ddkit'), '--providers'],
                           capture_output=True, text=True, env={'TMPDIR': str(tmp_path)})
    assert 'not installed: %s' % gone in plain.stdout


# --- the rpcd plugin -----------------------------------------------------------------------------

def plugin(args, request=None, env=None, raw=None):
    """Run the plugin as rpcd does: (exit status, the JSON object it printed)."""
    data = raw if raw is not None else json.dumps(request if request is not None else {}).encode()
    base = {k: v for k, v in os.environ.items() if not k.startswith('DDNS_')}
    done = subprocess.run([sys.executable, PLUGIN] + args, input=data, capture_output=True,
                          env=dict(base, **(env or {})), timeout=60)
    assert done.stderr == b'', done.stderr
    answer = json.loads(done.stdout)
    assert isinstance(answer, dict)   # ubus answers are objects
    return done.returncode, answer


def uci_file(tmp_path, box, adapter, extra=''):
    """/etc/config/ddkit of two records of one provider: a named one and an anonymous one."""
    env = adapter.env(box, tmp_path / 'state')
    options = dict({k[5:].lower(): v for k, v in env.items() if k not in ('DDNS_RECORD_NAME',)},
                   provider=adapter.provider)
    text = 'config defaults\n' + ''.join("\toption %s '%s'\n" % item for item in options.items())
    text += "\nconfig ddkit 'home'\n\toption enabled '1'\n\toption record_name '%s'\n" % RECORD
    text += "\nconfig ddkit\n\toption enabled '1'\n\toption record_name 'nas.example.com'\n" + extra
    path = tmp_path / 'ddkit'
    path.write_text(text)
    path.chmod(0o600)
    return {'DDNS_UCI_FILE': str(path)}


def test_list_names_the_five_methods_and_their_arguments():
    assert plugin(['list']) == (0, {'providers': {}, 'status': {}, 'check': {'section': 'str'},
                                    'update': {'section': 'str'}, 'import': {'dry_run': True, 'force': True}})


def test_providers_is_what_the_command_prints():
    assert plugin(['call', 'providers'])[1] == catalog()


def test_status_check_and_update_of_a_section(box, tmp_path):
    adapter = PROVIDERS[0]
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    env = uci_file(tmp_path, box, adapter)
    code, shown = plugin(['call', 'status'], env=env)
    records = shown['records']
    # the anonymous section by the id LuCI gives it: libuci's for the third section of the file
    from ddkit import uci
    anonymous = uci.anonymous_id(3, 'ddkit')
    assert shown['problems'] == []
    assert [(r['section'], r['name'], r['outcome']) for r in records] == [
        ('home', RECORD, 'never'), (anonymous, 'nas.example.com', 'never')]

    calls = len(adapter.fake(box).calls())
    code, checked = plugin(['call', 'check'], {'section': 'home'}, env=env)
    assert checked['exit_status'] == 0 and any(line.startswith('ok') for line in checked['lines'])
    assert adapter.held(box, RECORD) == adapter.content(OLD)   # a check changes nothing

    code, updated = plugin(['call', 'update'], {'section': 'home'}, env=env)
    assert updated['exit_status'] == 0 and updated['outcome'] == 'updated', updated
    assert any('IP has been updated to: %s' % NEW in line for line in updated['lines'])
    assert adapter.held(box, RECORD) == adapter.content(NEW)
    assert len(adapter.fake(box).calls()) > calls

    code, updated = plugin(['call', 'update'], {'section': anonymous}, env=env)
    assert updated['exit_status'] == 0 and updated['outcome'] == 'created', updated
    records = plugin(['call', 'status'], env=env)[1]['records']
    assert [(r['section'], r['outcome'], r['ip']) for r in records] == [
        ('home', 'updated', NEW), (anonymous, 'created', NEW)]


@pytest.mark.parametrize('request_, said', [
    ({'section': 'nope'}, 'no ddkit section nope'),
    ({'section': 'home --config /etc/shadow'}, 'section must be the name'),
    ({'section': '--all'}, 'section must be the name'),
    ({'section': '../home'}, 'section must be the name'),
    ({'section': ''}, 'section must be the name'),
    ({'section': ['home']}, 'section must be the name'),
    ({}, 'section must be the name'),
    ({'section': 'cfg99abcd'}, 'no ddkit section cfg99abcd'),
    ({'section': 'settings'}, 'no ddkit section settings'),
], ids=['unknown', 'with arguments', 'a flag', 'a path', 'empty', 'a list', 'none', 'an unknown id',
        'another type'])
@pytest.mark.parametrize('method', ['check', 'update'])
def test_a_section_that_is_no_ddkit_section_is_refused_before_anything_runs(box, tmp_path, request_, said,
                                                                             method):
    adapter = PROVIDERS[0]
    env = uci_file(tmp_path, box, adapter, extra="\nconfig other 'settings'\n\toption x '1'\n")
    code, answer = plugin(['call', method], request_, env=env)
    assert code == 0 and list(answer) == ['error'] and said in answer['error'], answer
    assert [s.calls() for s in box.servers] == [[] for _ in box.servers]
    assert not (tmp_path / 'state').exists()


@pytest.mark.parametrize('raw, said', [
    (b'not json', 'not a JSON object'), (b'[1]', 'not a JSON object'), (b'\xff\xfe', 'not a JSON object'),
    (b'{"section": "' + b'a' * 5000 + b'"}', 'larger than'),
], ids=['text', 'an array', 'not utf-8', 'too large'])
def test_a_request_that_is_no_json_object_is_refused(raw, said, tmp_path):
    code, answer = plugin(['call', 'check'], raw=raw, env={'DDNS_UCI_FILE': str(tmp_path / 'none')})
    assert answer == {'error': answer['error']} and said in answer['error']


def test_an_unknown_method_or_usage_is_refused():
    assert 'usage' in plugin(['call', 'shell'])[1]['error']
    assert 'usage' in plugin([])[1]['error']
# --- the page: its view, menu entry, ACL and translation -----------------------------------------

VIEWS = os.path.join(APP, 'htdocs', 'luci-static', 'resources', 'view', 'ddkit')
MENU = os.path.join(APP, 'root', 'usr', 'share', 'luci', 'menu.d', 'luci-app-ddkit.json')
ACL = os.path.join(APP, 'root', 'usr', 'share', 'rpcd', 'acl.d', 'luci-app-ddkit.json')
PO = os.path.join(APP, 'po', 'zh_Hans', 'ddkit.po')
POT = os.path.join(APP, 'po', 'templates', 'ddkit.pot')


def views():
    """{name: source} of the page's views."""
    found = {}
    for name in sorted(os.listdir(VIEWS)):
        if name.endswith('.js'):
            with open(os.path.join(VIEWS, name), encoding='utf-8') as f:
                found[name] = f.read()
    assert found
    return found


def declared_calls():
    """{(object, method)} the views declare with rpc.declare."""
    import re
    calls = set()
    for source in views().values():
        for body in re.findall(r'rpc\.declare\(\{(.*?)\}\)', source, re.S):
            obj = re.search(r'object:\s*([\'"])(.+?)\1', body)
            method = re.search(r'method:\s*([\'"])(.+?)\1', body)
            assert obj and method, body
            calls.add((obj.group(2), method.group(2)))
    return calls


def translated_strings():
    """Every string the views pass to _(): the literal first argument of each call."""
    import re
    found = set()
    for source in views().values():
        for quote, text in re.findall(r'(?<![\w.$])_\(\s*([\'"])((?:\\.|(?!\1).)*)\1', source):
            found.add(text.encode('utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')
                      if '\\' in text else text)
        # every _( call has a literal (a string built at run time could not be translated), but the
        # one that translates the catalog's labels, helps and summaries, which the po holds too
        others = re.findall(r'(?<![\w.$])_\((?!\s*[\'"])[^)]*\)', source)
        assert others in ([], ['_(text)']), others
        if others:
            assert re.search(r'function translated\(text\) \{\n\treturn [^\n]*_\(text\)', source)
    return found


def catalog_strings():
    """Every text of the catalog the page shows: each provider's summary, each setting's label and
    help (the common and the service's settings, and every provider's own)."""
    found = catalog()
    settings = found['common'] + found['service'] + [s for p in found['providers'] for s in p['settings']]
    return {p['summary'] for p in found['providers']} | {s[key] for s in settings for key in ('label', 'help')}


def test_the_acl_grants_exactly_what_the_views_call():
    with open(ACL, encoding='utf-8') as f:
        acl = json.load(f)
    assert list(acl) == ['luci-app-ddkit']
    grant = acl['luci-app-ddkit']
    assert set(grant) <= {'description', 'read', 'write'} and grant['description']
    assert set(grant['read']) == {'ubus', 'uci'} and set(grant['write']) == {'ubus', 'uci'}   # no file, no cgi-io
    assert grant['read']['uci'] == ['ddkit'] and grant['write']['uci'] == ['ddkit']
    assert list(grant['read']['ubus']) == ['luci.ddkit'] and list(grant['write']['ubus']) == ['luci.ddkit']
    assert sorted(grant['read']['ubus']['luci.ddkit']) == ['providers', 'status']
    assert sorted(grant['write']['ubus']['luci.ddkit']) == ['check', 'import', 'update']
    granted = {('luci.ddkit', m) for part in ('read', 'write') for m in grant[part]['ubus']['luci.ddkit']}
    assert declared_calls() == granted
    assert {m for _, m in granted} == set(plugin(['list'])[1])   # and the plugin serves each


def test_the_menu_entry_opens_the_view_under_services():
    with open(MENU, encoding='utf-8') as f:
        menu = json.load(f)
    assert list(menu) == ['admin/services/ddkit']
    entry = menu['admin/services/ddkit']
    assert entry['action'] == {'type': 'view', 'path': 'ddkit/overview'} and entry['title']
    assert entry['depends'] == {'acl': ['luci-app-ddkit'], 'uci': {'ddkit': True}}
    assert os.path.isfile(os.path.join(VIEWS, 'overview.js'))


def page_strings():
    """What LuCI translates of the page: the views' _() strings, the menu entries' titles and the
    ACL's description (the strings LuCI's own scan puts in a template)."""
    with open(MENU, encoding='utf-8') as f:
        titles = {entry['title'] for entry in json.load(f).values()}
    with open(ACL, encoding='utf-8') as f:
        descriptions = {grant['description'] for grant in json.load(f).values()}
    return translated_strings() | titles | descriptions


def test_every_string_the_page_shows_has_a_chinese_translation_the_catalog_finds():
    """The views' own strings, and the labels, helps and summaries of ddkit's catalog (every
    provider's, every setting's), which the page passes to _(): each in the template, each with a
    translation in Chinese in the .po, each found by the key LuCI looks it up by."""
    sys.path.insert(0, os.path.join(ROOT, 'tools'))
    import lmo
    strings = page_strings() | catalog_strings()
    assert len(strings) > 150
    with open(PO, encoding='utf-8') as f:
        entries = [e for e in lmo.po_entries(f.read()) if e.msgid]
    with open(POT, encoding='utf-8') as f:
        template = {e.msgid for e in lmo.po_entries(f.read()) if e.msgid}
    translated = {e.msgid: e.msgstr[0] for e in entries if e.msgstr and e.msgstr[0]}
    assert sorted(strings - set(translated)) == [], 'untranslated: run make docs, then translate them in %s' % PO
    assert sorted(strings - template) == [] and sorted(template - strings) == [], 'run make docs'
    for msgid, text in translated.items():   # Chinese, not the English copied
        assert any('\u4e00' <= c <= '\u9fff' for c in text) or not any(c.isalpha() for c in msgid), msgid
    catalog = lmo.read_lmo(lmo.lmo(entries))   # what the router's LuCI looks each string up in
    assert [text for text in strings if lmo.key_hash(text) not in catalog] == []


def test_the_template_and_the_translation_hold_what_make_docs_writes():
    """tools/settings_doc.py (make docs) writes the template from the views and the catalog, and each
    .po with the template's entries: both are current."""
    sys.path.insert(0, os.path.join(ROOT, 'tools'))
    import settings_doc
    for path, text in settings_doc.translations():
        with open(path, encoding='utf-8') as f:
            assert f.read() == text, '%s is out of date: run make docs' % path


def test_the_catalog_says_what_a_setting_means_not_how_the_command_line_gives_it():
    """A page user has no flags, no environment and no argv: the catalog's helps hold none of them
    (--help adds what only the command line needs)."""
    import re
    found = catalog()
    settings = found['common'] + found['service'] + [s for p in found['providers'] for s in p['settings']]
    variables = {'DDNS_' + s['name'].upper() for s in settings}
    for setting in settings:
        text = setting['help']
        # a long flag, a short one (-h: one letter; a name's suffix such as -test is none), a variable
        said = [word for word in re.findall(r'(?<![\w-])--[a-z][\w-]*|(?<![\w-])-[a-zA-Z]\b|\bDDNS_\w+|\bargv\b|\bthe flag\b',
                                            text)
                if word in variables or not word.startswith('DDNS_')]
        assert said == [], (setting['name'], text)


def test_the_views_are_javascript_that_parses():
    """LuCI loads a view as the body of a function (its `return view.extend(...)`): checked so by Node."""
    import shutil
    import needs
    node = shutil.which('node') or shutil.which('nodejs')
    if not node:
        needs.missing('node is not installed (.ci/run installs nodejs)')
    import tempfile
    for name, source in views().items():
        assert source.startswith("'use strict';") and 'view.extend(' in source
        with tempfile.NamedTemporaryFile('w', suffix='.js', delete=False) as f:
            f.write('(function() {\n%s\n});\n' % source)
        try:
            done = subprocess.run([node, '--check', f.name], capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        assert done.returncode == 0, (name, done.stderr)


# --- the page as packaged: luci-app-ddkit and its translation, for opkg and apk -------------------

def unpacked(feed_dir, name):
    """{path: (mode, bytes)} of a package's files, as its .ipk holds them."""
    import io
    import tarfile
    from openwrt_env import ipk_path, members
    import gzip
    data = gzip.decompress(members(ipk_path(feed_dir, name))['./data.tar.gz'])
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name[2:]: (m.mode, tar.extractfile(m).read()) for m in tar.getmembers() if m.isfile()}


def source(path):
    with open(os.path.join(APP, path), 'rb') as f:
        return f.read()


def test_the_page_package_holds_the_view_menu_acl_and_plugin(feed):
    files = unpacked(feed, 'luci-app-ddkit')
    assert files == {
        'www/luci-static/resources/view/ddkit/overview.js': (0o644, source('htdocs/luci-static/resources/view/ddkit/overview.js')),
        'usr/share/luci/menu.d/luci-app-ddkit.json': (0o644, source('root/usr/share/luci/menu.d/luci-app-ddkit.json')),
        'usr/share/rpcd/acl.d/luci-app-ddkit.json': (0o644, source('root/usr/share/rpcd/acl.d/luci-app-ddkit.json')),
        'usr/libexec/rpcd/luci.ddkit': (0o755, source('root/usr/libexec/rpcd/luci.ddkit')),
        'usr/lib/ddkit/luci_ddkit.py': (0o644, source('root/usr/lib/ddkit/luci_ddkit.py')),
    }


def test_the_translation_package_holds_the_catalog_luci_loads_and_names_the_language(feed):
    sys.path.insert(0, os.path.join(ROOT, 'tools'))
    import lmo
    files = unpacked(feed, 'luci-i18n-ddkit-zh-cn')
    assert sorted(files) == ['etc/uci-defaults/luci-i18n-ddkit-zh-cn', 'usr/lib/lua/luci/i18n/ddkit.zh-cn.lmo']
    mode, catalog = files['usr/lib/lua/luci/i18n/ddkit.zh-cn.lmo']
    assert mode == 0o644 and catalog == lmo.lmo(lmo.po_entries(source('po/zh_Hans/ddkit.po')))
    found = lmo.read_lmo(catalog)
    assert all(lmo.key_hash(text) in found for text in page_strings())
    mode, script = files['etc/uci-defaults/luci-i18n-ddkit-zh-cn']
    assert script.decode('utf-8') == ("uci set luci.languages.zh_cn='简体中文 (Simplified Chinese)'; "
                                      "uci commit luci\n")


def test_the_installed_plugin_runs_the_installed_command(feed, tmp_path):
    """The packages unpacked as opkg does: /usr/libexec/rpcd/luci.ddkit finds the library in
    /usr/lib/ddkit and answers from it; without ddkit-command it says what to install."""
    from openwrt_env import install, ipk_path
    needed = ['ddkit', 'ddkit-ddns', 'luci-app-ddkit', 'ddkit-' + registry.PROVIDERS[0]]
    bare = tmp_path / 'bare'
    for name in needed:
        install(ipk_path(feed, name), str(bare))
    run = [sys.executable, '-I', '-S', str(bare / 'usr' / 'libexec' / 'rpcd' / 'luci.ddkit'), 'call', 'providers']
    done = subprocess.run(run, input=b'{}', capture_output=True, env={'TMPDIR': str(tmp_path)})
    assert 'error' in json.loads(done.stdout)   # no command: its modules are not there
    root = tmp_path / 'root'
    for name in needed + ['ddkit-command']:
        install(ipk_path(feed, name), str(root))
    run[3] = str(root / 'usr' / 'libexec' / 'rpcd' / 'luci.ddkit')
    done = subprocess.run(run, input=b'{}', capture_output=True, env={'TMPDIR': str(tmp_path)})
    assert done.returncode == 0 and done.stderr == b'', done.stderr
    assert [p['name'] for p in json.loads(done.stdout)['providers']] == [registry.PROVIDERS[0]]
