"""The mistakes a new user makes, and what the tools say of them (issue 41, round three): a failure a
setting caused names where its value came from; a base_url with a path is refused up front; the
settings of another provider are named as such; a misspelt provider or DDNS_ variable gets a
did-you-mean; lines and record types listed with commas are taken."""

import os

import pytest

from conftest import RECORD, in_process, sampled
from providers import PROVIDERS, READ, registry


def write(path, text):
    path.write_text(text)
    os.chmod(str(path), 0o600)
    return str(path)


def values_of(adapter, box, tmp_path, **changed):
    """The settings of one record of this provider at the sandbox, as a config file holds them."""
    env = adapter.env(box, str(tmp_path / 'state'))
    return dict({k[5:].lower(): v for k, v in env.items()}, provider=adapter.provider, **changed)


# the providers read at a base_url, but those whose API answers a zone it does not hold with a bare
# HTTP 404 (its FIXES[404]): that answer and a path the host does not serve look alike
BASE_URL = [a for a in READ if 'base_url' in a.module().URLS and 404 not in getattr(a.module(), 'FIXES', {})]


# --- a failure a setting caused says where its value came from -------------------------------------

@pytest.mark.parametrize('adapter', sampled(BASE_URL), ids=lambda a: a.label)
@pytest.mark.parametrize('given', ['environment', 'flag', 'config file', 'uci'])
def test_a_failure_of_a_wrong_base_url_names_where_it_came_from(box, tmp_path, adapter, given):
    """base_url of another provider's API (it serves none of this one's paths: HTTP 404), as the
    sandbox's exported settings of another provider give it: the environment's beats the config
    file's unseen, so the FAIL line and the run's ERROR line say where it came from."""
    other = [a for a in PROVIDERS if a.provider != adapter.provider][0]
    wrong = other.fake(box).url
    values = values_of(adapter, box, tmp_path, base_url=wrong if given in ('config file', 'uci') else
                       adapter.fake(box).url)
    conf = write(tmp_path / 'two.conf', ''.join('%s=%s\n' % item for item in values.items()))
    args, env = ['--config', conf], {}
    if given == 'environment':
        env, where = {'DDNS_BASE_URL': wrong}, 'DDNS_BASE_URL'
    elif given == 'flag':
        args, where = args + ['--base-url', wrong], '--base-url'
    elif given == 'config file':
        where = 'config file %s line %d' % (conf, list(values).index('base_url') + 1)
    else:
        env = {'DDNS_UCI_FILE': write(tmp_path / 'ddkit', "config ddkit 'home'\n" + ''.join(
            "\toption %s '%s'\n" % item for item in values.items()))}
        args, where = ['--uci', 'home'], 'UCI option base_url of section home'
    done = in_process('ddkit', args + ['--check'], env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = [line for line in done.stdout.splitlines() if line.startswith('FAIL')]
    assert len(failed) == 1 and '(base_url from %s)' % where in failed[0], done.stdout
    assert 'fix: check base_url' in failed[0]
    # the fix shows the default to write, or (a server of the user's own: none) what it holds
    default = [s.default for s in adapter.module().SETTINGS if s.name == 'base_url'][0]
    assert ('e.g. %s' % default if default else 'its scheme, host and port') in failed[0], failed[0]
    done = in_process('ddkit', args, env=env)
    assert done.returncode == 1
    errors = [line for line in (done.stdout + done.stderr).splitlines() if 'ERROR: ' in line]
    assert errors and all('(base_url from %s)' % where in line for line in errors), done.stdout + done.stderr


@pytest.mark.parametrize('adapter', sampled(BASE_URL), ids=lambda a: a.label)
def test_a_failure_no_setting_caused_names_none(box, tmp_path, adapter):
    """The provider's own refusal (no such zone in the account) is no URL's fault: nothing is added."""
    values = values_of(adapter, box, tmp_path, zone_name='example.org', record_name='home.example.org')
    conf = write(tmp_path / 'two.conf', ''.join('%s=%s\n' % item for item in values.items()))
    done = in_process('ddkit', ['--config', conf], env={'DDNS_BASE_URL': adapter.fake(box).url})
    errors = [line for line in (done.stdout + done.stderr).splitlines() if 'ERROR: ' in line]
    assert done.returncode == 1 and errors and 'example.org' in errors[-1], done.stdout + done.stderr
    assert ' from ' not in errors[-1]


def test_a_current_ip_refused_names_where_ip_source_came_from(box, tmp_path):
    values = values_of(READ[0], box, tmp_path, ip_source='iface:nope0')
    conf = write(tmp_path / 'two.conf', ''.join('%s=%s\n' % item for item in values.items()))
    done = in_process('ddkit', ['--config', conf, '--check'])
    failed = [line for line in done.stdout.splitlines() if line.startswith('FAIL')]
    line = list(values).index('ip_source') + 1
    assert failed == [text for text in failed if 'interface nope0 does not exist' in text
                      and '(ip_source from config file %s line %d)' % (conf, line) in text] != [], done.stdout


# --- commas between the values of a repeated setting ------------------------------------------------

def headings(out):
    return [line for line in out.splitlines() if line.startswith('Record ')]


@pytest.mark.parametrize('form', ['flag', 'environment', 'config file', 'uci list', 'uci option'])
def test_lines_are_taken_with_commas_between_them(box, tmp_path, form):
    """ct,cm,cu as a user types it (the way record_type takes AAAA,A), in every form."""
    adapter = [a for a in READ if getattr(a.module(), 'SEVERAL', False) or getattr(a.module(), 'LINES', None)][0]
    env = dict(adapter.env(box, str(tmp_path / 'state')), DDNS_PROVIDER=adapter.provider,
               DDNS_RECORD_TYPE='AAAA', DDNS_IP_SOURCE='iface:lo')
    args = []
    if form == 'flag':
        args = ['--lines', 'ct,cm', '--lines', 'cu']
    elif form == 'environment':
        env['DDNS_LINES'] = 'ct,cm, cu'
    elif form == 'config file':
        args = ['--config', write(tmp_path / 'one.conf', 'lines=ct,cm,cu\n')]
    else:
        text = "\tlist lines 'ct,cm'\n\tlist lines 'cu'\n" if form == 'uci list' else "\toption lines 'ct,cm,cu'\n"
        env['DDNS_UCI_FILE'] = write(tmp_path / 'ddkit', "config ddkit 'home'\n" + text)
        args = ['--uci', 'home']
    done = in_process('ddkit', args + ['--check'], env=env)
    named = 'home: ' if form.startswith('uci') else ''   # a section's lines are headed by its name
    assert headings(done.stdout) == ['Record %sAAAA %s line %s:' % (named, RECORD, code) for code in ('ct', 'cm', 'cu')], \
        done.stdout + done.stderr
    assert 'bad value' not in done.stderr


# the providers told the IP by a request whose headers the user writes
HEADERS = [a for a in PROVIDERS if 'headers' in [s.name for s in a.module().SETTINGS]]


@pytest.mark.parametrize('adapter', HEADERS, ids=lambda a: a.label)
@pytest.mark.parametrize('form', ['flag', 'environment'])
def test_a_header_keeps_its_comma(box, tmp_path, adapter, form):
    """A header's value may hold a comma: headers are not split at commas."""
    fake = adapter.fake(box)
    fake.open = True
    env = dict(adapter.env(box, str(tmp_path / 'state')), DDNS_PROVIDER=adapter.provider)
    if form == 'environment':
        env['DDNS_HEADERS'] = 'X-Note:a,b'
    done = in_process('ddkit', ['--headers', 'X-Note:a,b'] if form == 'flag' else [], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r.headers.get('x-note') for r in fake.requests] == ['a,b']


# --- a base URL with a path --------------------------------------------------------------------------

# every provider's base URL settings: its URL settings that have a default, the service's own (not a
# URL the user's own endpoint is, which has none and is the whole request's)
BASE_URLS = [(a, s) for a in PROVIDERS for s in a.module().SETTINGS if s.name in a.module().URLS and s.default]


@pytest.mark.parametrize('adapter, setting', BASE_URLS, ids=lambda x: getattr(x, 'label', getattr(x, 'name', '')))
def test_a_base_url_with_a_path_is_refused_before_anything_is_sent(box, tmp_path, adapter, setting, call_tool,
                                                                   monkeypatch, capsys):
    """A path the API does not serve ('.../client/v4/zones', an API call's URL copied whole) would get
    an HTTP 404 from every request: refused up front, saying what to write (ddkit's main in this
    process)."""
    env = dict(adapter.env(box, str(tmp_path / 'state')), DDNS_PROVIDER=adapter.provider)
    given = adapter.fake(box).url
    status, out, err = call_tool('ddkit', ['--check', setting.flag, given + '/v1/zones/example.com'], env,
                                 monkeypatch, capsys)
    assert status == 2, out + err
    assert 'bad value for %s (%s)' % (setting.name, setting.flag) in err
    assert 'write %s;' % given in err and out == ''
    assert adapter.fake(box).requests == [] and box.lookup.calls() == []
    status, out, err = call_tool('ddkit', ['--check', setting.flag, given + '/'], env, monkeypatch, capsys)
    assert 'bad value' not in err, err   # a trailing / is no path


# --- a setting of another provider --------------------------------------------------------------------

def names_of(adapter):
    return [s.name for s in adapter.module().SETTINGS]


def foreign_setting(adapter):
    """(a setting of another provider that this one lacks, 'of provider(s) ...' naming every provider
    that has it, in the registry's order)."""
    name = [n for a in PROVIDERS if a is not adapter for n in names_of(a) if n not in names_of(adapter)][0]
    known = registry()
    owners = [p for p in known.PROVIDERS if name in [s.name for s in known.provider(p).SETTINGS]]
    return name, '%s is a setting of provider%s %s, not of %s' % (
        name, 's' if len(owners) > 1 else '', ', '.join(owners), adapter.provider)


def test_a_setting_of_another_provider_in_a_config_file_is_named_so(box, tmp_path):
    """A file of one record: the setting is refused as the flag form refuses it, named for what it is."""
    adapter = READ[0]
    name, says = foreign_setting(adapter)
    values = values_of(adapter, box, tmp_path, **{name: 'foo'})
    conf = write(tmp_path / 'one.conf', ''.join('%s=%s\n' % item for item in values.items()))
    done = in_process('ddkit', ['--config', conf, '--check'])
    assert done.returncode == 2 and done.stdout == '', done.stdout + done.stderr
    assert 'config file %s line %d: %s' % (conf, len(values), says) in done.stderr, done.stderr
    assert adapter.fake(box).requests == []


def test_a_setting_of_another_provider_in_a_record_block_fails_that_record(box, tmp_path):
    """--all: a [block]'s own setting of another provider fails its record (exit 2), as in a file of
    one record; the same setting in the shared lines serves the records of its provider, and is left
    alone by the others."""
    adapter = READ[0]
    name, says = foreign_setting(adapter)
    values = values_of(adapter, box, tmp_path)
    shared = ''.join('%s=%s\n' % item for item in values.items() if item[0] != 'record_name')
    conf = write(tmp_path / 'all.conf', '%s=foo\n%s[good]\nrecord_name=%s\n[bad]\nrecord_name=nas.example.com\n%s=foo\n'
                 % (name, shared, RECORD, name))
    done = in_process('ddkit', ['--config', conf, '--all'])
    assert done.returncode == 2, done.stdout + done.stderr
    line = len(values) + 5   # the name, the shared lines, [good], its record_name, [bad], its record_name
    assert 'record bad: config file %s line %d: %s' % (conf, line, says) in done.stderr, done.stderr
    assert '1 of 2 records failed: bad (exit 2)' in done.stdout + done.stderr
    assert adapter.fake(box).calls(), 'the good record ran'


def test_a_setting_of_another_provider_in_a_uci_section_fails_that_record(box, tmp_path):
    adapter = READ[0]
    name, says = foreign_setting(adapter)
    values = values_of(adapter, box, tmp_path)
    options = ''.join("\toption %s '%s'\n" % item for item in values.items() if item[0] != 'record_name')
    uci = write(tmp_path / 'ddkit', "config defaults\n\toption %s 'foo'\n%s\nconfig ddkit 'good'\n\toption enabled '1'\n"
                "\toption record_name '%s'\n\nconfig ddkit 'bad'\n\toption enabled '1'\n\toption record_name "
                "'nas.example.com'\n\toption %s 'foo'\n" % (name, options, RECORD, name))
    done = in_process('ddkit', ['--all'], env={'DDNS_UCI_FILE': uci})
    assert done.returncode == 2, done.stdout + done.stderr
    assert 'record bad: UCI section bad: %s' % says in done.stderr, done.stderr
    assert '1 of 2 records failed: bad (exit 2)' in done.stdout + done.stderr
    assert adapter.fake(box).calls(), 'the good record ran'


# --- a provider misspelt, or called by another name ----------------------------------------------------

def typed(name):
    """How a user mistypes a provider's name: in capitals after the first letter, a letter dropped."""
    return name[0] + name[1:].upper() if len(name) < 6 else name[:3] + name[4:]


@pytest.mark.parametrize('form', ['flag', 'environment', 'config file', 'uci'])
def test_a_misspelt_provider_gets_a_did_you_mean_in_every_form(tmp_path, form):
    names = [n for n in registry().PROVIDERS if len(n) >= 6][:1] + [n for n in registry().PROVIDERS if len(n) < 6][:1]
    alias, meant = sorted(registry().ALIASES.items())[0]
    for given, expected in [(typed(n), n) for n in names] + [(alias, meant), (alias.upper(), meant)]:
        args, env = ['--check'], {}
        if form == 'flag':
            args += ['--provider', given]
        elif form == 'environment':
            env['DDNS_PROVIDER'] = given
        elif form == 'config file':
            args += ['--config', write(tmp_path / 'one.conf', 'provider=%s\n' % given)]
        else:
            env['DDNS_UCI_FILE'] = write(tmp_path / 'ddkit', "config ddkit 'home'\n\toption provider '%s'\n" % given)
            args += ['--uci', 'home']
        done = in_process('ddkit', args, env=env)
        assert done.returncode == 2 and 'not a known provider; did you mean %s?' % expected in done.stderr, \
            (given, done.stderr)


def test_every_alias_names_a_registered_provider_and_none_is_one():
    aliases = registry().ALIASES
    assert set(aliases.values()) <= set(registry().PROVIDERS)
    assert not {alias.lower() for alias in aliases} & {name.lower() for name in registry().PROVIDERS}


# --- a DDNS_ variable misspelt --------------------------------------------------------------------------

def test_a_misspelt_ddns_variable_is_warned_of_and_the_run_goes_on(box, tmp_path):
    adapter = READ[0]
    env = dict(adapter.env(box, str(tmp_path / 'state')), DDNS_PROVIDER=adapter.provider)
    env['DDNS_ZONE_NAM'] = env.pop('DDNS_ZONE_NAME')   # zone_name may be left out: the run still works
    done = in_process('ddkit', [], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines() == ['ddkit: warning: DDNS_ZONE_NAM is not a setting of ddkit, so it is ignored; '
                                        'did you mean DDNS_ZONE_NAME?'], done.stderr
    if adapter.seed:   # the tool fixed to this provider says the same
        done = in_process(adapter.tool, ['--check'], env=env)
        assert 'warning: DDNS_ZONE_NAM is not a setting of %s' % adapter.tool in done.stderr, done.stderr


@pytest.mark.parametrize('adapter', PROVIDERS, ids=lambda a: a.label)
def test_the_variables_of_the_tools_and_of_every_provider_are_no_mistake(tmp_path, adapter, call_tool, monkeypatch,
                                                                        capsys):
    """The hooks' environment, the UCI file, egress6_win's code page, and every provider's settings (an
    environment shared by the records of several providers, some of whose names are near this
    provider's): nothing is said of them."""
    known = registry()
    env = {s.env: 'x' for name in known.PROVIDERS for s in known.provider(name).SETTINGS}
    env.update(DDNS_PROVIDER=adapter.provider, DDNS_RECORD_NAME=RECORD, DDNS_STATE_DIR=str(tmp_path),
               DDNS_HOOK_OUTCOME='x', DDNS_HOOK_ANYTHING='x', DDNS_CODEPAGE='936', DDNS_UCI_FILE=str(tmp_path / 'none'))
    _, _, err = call_tool('ddkit', ['--status'], env, monkeypatch, capsys)   # reads the record's files alone
    assert 'warning' not in err, err
