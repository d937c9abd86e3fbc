"""The webhook provider: its placeholders filled and escaped for where each stands (URL path and query,
JSON body, form body, headers), its settings refused at load time (exit 2, nothing sent), its answers
(2xx, 4xx refused, 5xx and no answer transient; POST and PATCH never sent twice in a run), and its
secrets (the URL's path and query, bearer_token, header_secret) in no log line, status or --check
output. Over real HTTP against tests/fakes/webhook.py, and in-process for the escaping itself."""

import json
import os
import sys
import time
import types
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from conftest import RECORD, ROOT, in_process
from providers import PROVIDERS

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit.providers import webhook  # noqa: E402

ADAPTER = {p.provider: p for p in PROVIDERS}['webhook']   # its row in tests/providers.py
OLD, NEW, NEW6 = '81.2.69.1', '81.2.69.10', '240e:1::2'
HOSTILE = 'a"b\\c\n\t\u2028</x>{ip}&=?#%é'   # no record_name or address holds these: the escaping alone


def config(**given):
    """A record's settings, as ddkit.settings.load leaves them."""
    values = dict(url='http://hooks.example.com/hook/{name}?ip={ip}&type={type}', method=None, body=None,
                  headers=[], bearer_token=None, header_secret=None, record_name=RECORD, record_type='A')
    values.update(given)
    return types.SimpleNamespace(**values)


def env_of(box, tmp_path, **extra):
    return dict(ADAPTER.env(box, tmp_path / 'state'), **extra)


def status_of(box, tmp_path, env):
    return json.loads(in_process('ddkit', ['--status', '--json'], env=env).stdout)[0]


@pytest.fixture
def fake(box):
    hook = box.fakes['webhook']
    hook.add_record(None, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    return hook


# --- the escaping, in-process --------------------------------------------------------------------

def test_url_values_are_percent_encoded_in_the_path_and_the_query():
    cfg = config(url='https://h.example/hook/{name}/{type}?ip={ip}&t={type}', record_name='*.example.com',
                 record_type='AAAA')
    method, url, headers, body = webhook.request_of(cfg, NEW6)
    assert (method, body) == ('GET', None)
    assert url == 'https://h.example/hook/%2A.example.com/AAAA?ip=240e%3A1%3A%3A2&t=AAAA'
    split = urlsplit(url)
    assert unquote(split.path) == '/hook/*.example.com/AAAA'
    assert parse_qs(split.query, strict_parsing=True) == {'ip': [NEW6], 't': ['AAAA']}


def test_any_value_survives_percent_encoding_and_json():
    assert unquote(webhook.percent(HOSTILE), errors='strict') == HOSTILE
    assert set(webhook.percent(HOSTILE)) <= set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
                                                '0123456789-._~%')
    values = {'ip': HOSTILE, 'name': HOSTILE, 'type': 'A'}
    filled = webhook.fill('{"inside": "<{ip}>", "alone": {name}, "list": [{ip}, "{type}"]}', values, 'body',
                          webhook.as_json)
    assert json.loads(filled) == {'inside': '<%s>' % HOSTILE, 'alone': HOSTILE, 'list': [HOSTILE, 'A']}


def test_a_json_body_fills_placeholders_inside_strings_and_alone():
    body = ('{"host": "{name}", "ip": {ip}, "note": "was \\"{ip}\\" ({type})", "{name}": [{type}], '
            '"empty": {}, "nested": {"a": {"b": []}}}')
    cfg = config(body=body, record_type='AAAA')
    method, url, headers, sent = webhook.request_of(cfg, NEW6)
    assert method == 'POST' and headers['Content-Type'] == 'application/json'
    assert json.loads(sent.decode('utf-8')) == {
        'host': RECORD, 'ip': NEW6, 'note': 'was "%s" (AAAA)' % NEW6, RECORD: ['AAAA'], 'empty': {},
        'nested': {'a': {'b': []}}}


def test_a_form_body_percent_encodes_each_value():
    cfg = config(body='host={name}&myip={ip}&kind={type}&fixed=a%20b', method='put', record_type='AAAA')
    cfg.method = webhook.check_method(cfg.method)
    method, url, headers, sent = webhook.request_of(cfg, NEW6)
    assert method == 'PUT' and headers['Content-Type'] == 'application/x-www-form-urlencoded'
    assert sent == b'host=home.example.com&myip=240e%3A1%3A%3A2&kind=AAAA&fixed=a%20b'
    assert parse_qs(sent.decode('ascii'), strict_parsing=True) == {
        'host': [RECORD], 'myip': [NEW6], 'kind': ['AAAA'], 'fixed': ['a b']}


def test_headers_are_filled_and_the_credentials_added():
    cfg = config(headers=['X-Record:{name}', '', 'X-Note: two words'], header_secret='X-Api-Key: k-123 456',
                 bearer_token='tok')
    _, _, headers, _ = webhook.request_of(cfg, NEW)
    assert headers == {'X-Record': RECORD, 'X-Note': 'two words', 'X-Api-Key': 'k-123 456',
                       'Authorization': 'Bearer tok'}


@pytest.mark.parametrize('check, value, words', [
    (webhook.check_webhook_url, 'https://h.example/u?ip={addr}', '{addr} in url is not a placeholder'),
    (webhook.check_webhook_url, 'https://h.example/{IP}', '{IP} in url is not a placeholder'),
    (webhook.check_webhook_url, 'https://{name}.example/u', 'placeholders go in the path or the query'),
    (webhook.check_webhook_url, 'https://h.example?ip={ip}', 'a / before any path or query'),
    (webhook.check_webhook_url, 'https://h.example/u#{ip}', 'fragment'),
    (webhook.check_webhook_url, 'ftp://h.example/u', 'http:// or https://'),
    (webhook.check_body, '{"ip": "{address}"}', '{address} in body is not a placeholder'),
    (webhook.check_body, 'ip={address}', '{address} in body is not a placeholder'),
    (webhook.check_body, '{"ip": "{ip}",}', 'no JSON once its placeholders are filled'),
    (webhook.check_body, '{"ip": {ip}{name}}', 'no JSON once its placeholders are filled'),
    (webhook.check_body, '[{ip}', 'no JSON'),
    (webhook.check_body, 'host={name} ip={ip}', 'sent as a form'),
    (webhook.check_body, 'the ip is {ip}', 'sent as a form'),
    (webhook.check_body, 'a=1&&b=2', 'sent as a form'),
    (webhook.check_body, '"{ip}"', 'sent as a form'),
    (webhook.check_headers, 'X-Name: {nom}', '{nom} in header X-Name is not a placeholder'),
    (webhook.check_headers, 'Authorization:Bearer', 'holds a credential: give it as header_secret'),
    (webhook.check_headers, 'cookie: a=b', 'holds a credential'),
    (webhook.check_headers, 'Content-Type:text/plain', 'set by the tool'),
    (webhook.check_headers, 'Host:x', 'set by the tool'),
    (webhook.check_headers, 'X-Empty:', 'not a header written Name: value'),
    (webhook.check_headers, 'Bearer', 'not a header written Name: value'),
    (webhook.check_headers, 'Bad Name: x', 'not a header written Name: value'),
    (webhook.check_header_secret, 'X-Key: {secret}', '{secret} in header_secret is not a placeholder'),
    (webhook.check_header_secret, 'Content-Length: 3', 'set by the tool'),
    (webhook.check_header_secret, 'no-colon', 'one header written Name: value'),
    (webhook.check_method, 'DELETE', 'GET, POST, PUT, PATCH'),
])
def test_a_bad_setting_is_refused_saying_why(check, value, words):
    with pytest.raises(ValueError) as refused:
        check(value)
    assert words in str(refused.value)


@pytest.mark.parametrize('check, value', [
    (webhook.check_webhook_url, 'https://h.example:8443/a/{name}/{type}?ip={ip}&x=%7Bip%7D'),
    (webhook.check_body, '{}'),
    (webhook.check_body, '  [{"ip": {ip}}, {"a": {"b": {}}}]'),
    (webhook.check_body, '{"text": "literal {braces} are written \\u007bthus}", "ip": "{ip}"}'.replace(
        '{braces}', '\\u007bbraces}')),
    (webhook.check_body, 'ip={ip}&note=%7Bname%7D&empty='),
    (webhook.check_headers, 'X-Record:{name}'),
    (webhook.check_headers, ''),   # none: the sample UCI section's list headers ''
    (webhook.check_header_secret, 'Authorization: Basic dXNlcjpwYXNz'),
])
def test_a_good_setting_passes_as_it_is(check, value):
    assert check(value) == value


def test_building_a_request_costs_well_under_a_millisecond():
    cfg = config(body='{"name": "{name}", "ip": "{ip}", "type": "{type}"}', headers=['X-A:{name}'],
                 bearer_token='t' * 40)
    start, rounds = time.perf_counter(), 2000
    for _ in range(rounds):
        webhook.request_of(cfg, NEW6)
    assert (time.perf_counter() - start) / rounds < 0.001


# --- over HTTP ------------------------------------------------------------------------------------

def test_a_get_tells_name_ip_and_type_once_then_nothing(box, fake, tmp_path):
    env = env_of(box, tmp_path)
    done = in_process('ddkit', env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert fake.told == [{'method': 'GET', 'name': RECORD, 'ip': NEW, 'type': 'A', 'from': 'query'}]
    assert fake.requests[0].headers['authorization'] == 'Bearer ' + fake.token
    assert fake.requests[0].body == b'' and 'content-type' not in fake.requests[0].headers
    assert (tmp_path / 'state' / ADAPTER.ip_file(RECORD)).read_text() == NEW + '\n'
    again = in_process('ddkit', env=env)
    assert again.returncode == 0 and len(fake.requests) == 1 and 'IP has not changed' in again.stdout
    # the quiet run wrote no status: a change found in place by a later run reads unchanged, though
    # both ran within one second (the status's log end orders them)
    shown = status_of(box, tmp_path, env)
    assert shown['outcome'] == 'unchanged', shown   # the later run's, however soon it came


def test_an_ipv6_address_and_a_wildcard_name_reach_the_webhook_as_they_are(box, fake, tmp_path):
    from fakes.helpers import IpLookup
    fake.open = True
    six = IpLookup(NEW6, host='::1').start()
    try:
        env = env_of(box, tmp_path, DDNS_RECORD_TYPE='AAAA', DDNS_RECORD_NAME='*.example.com',
                     DDNS_IP_LOOKUP_URL=six.url)
        done = in_process('ddkit', env=env)
    finally:
        six.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    assert fake.told == [{'method': 'GET', 'name': '*.example.com', 'ip': NEW6, 'type': 'AAAA', 'from': 'query'}]
    assert fake.requests[0].path == '/hook/%2A.example.com'


@pytest.mark.parametrize('method, body, source', [
    (None, '{"name": "{name}", "ip": "{ip}", "type": {type}}', 'json'),
    ('PUT', '{"name": "{name}", "ip": "{ip}", "type": {type}}', 'json'),
    ('patch', 'ip={ip}&type={type}', 'form'),
    (None, 'ip={ip}&type={type}', 'form'),
])
def test_a_body_is_sent_in_its_form(box, fake, tmp_path, method, body, source):
    env = env_of(box, tmp_path, DDNS_URL=fake.url + '/hook/{name}', DDNS_BODY=body, **(
        {'DDNS_METHOD': method} if method else {}))
    done = in_process('ddkit', env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert fake.told == [{'method': (method or 'POST').upper(), 'name': RECORD, 'ip': NEW, 'type': 'A',
                          'from': source}]


def test_headers_from_the_environment_and_the_flag(box, fake, tmp_path):
    env = env_of(box, tmp_path, DDNS_HEADERS='X-Record:{name} X-Static:yes')
    assert in_process('ddkit', env=env).returncode == 0
    sent = fake.requests[-1].headers
    assert (sent['x-record'], sent['x-static']) == (RECORD, 'yes')
    flags = ['--force', '--headers', 'X-Note: two words', '--headers', 'X-Type: {type}']
    assert in_process('ddkit', flags, env=dict(env, DDNS_HEADERS='')).returncode == 0
    sent = fake.requests[-1].headers
    assert (sent['x-note'], sent['x-type']) == ('two words', 'A') and 'x-static' not in sent


@pytest.mark.parametrize('setting, value, words', [
    ('DDNS_URL', 'http://127.0.0.1:9/hook/{name}?ip={addr}', '{addr} in url is not a placeholder: the '
                                                             'placeholders are {ip}, {name}, {type}'),
    ('DDNS_BODY', '{"ip": "{IP}"}', '{IP} in body is not a placeholder'),
    ('DDNS_HEADERS', 'X-A:{a}', '{a} in header X-A is not a placeholder'),
    ('DDNS_HEADER_SECRET', 'X-Key: {key}', '{key} in header_secret is not a placeholder'),
    ('DDNS_BODY', '{"ip": {ip}, }', 'no JSON once its placeholders are filled'),
    ('DDNS_METHOD', 'DELETE', 'must be GET, POST, PUT, PATCH'),
    ('DDNS_RECORD_NAME', 'a&b.example.com', 'must be a domain name'),
    ('DDNS_RECORD_NAME', 'a"b.example.com', 'must be a domain name'),
    ('DDNS_RECORD_NAME', 'a/b.example.com', 'must be a domain name'),
])
def test_a_bad_setting_exits_2_before_any_request(box, fake, tmp_path, setting, value, words):
    for args in ([], ['--check'], ['--dry-run']):
        done = in_process('ddkit', args, env=env_of(box, tmp_path, **{setting: value}))
        assert done.returncode == 2 and words in done.stderr, done.stdout + done.stderr
        assert 'Traceback' not in done.stderr
    assert fake.requests == []


def test_the_same_header_from_two_settings_exits_2_and_sends_nothing(box, fake, tmp_path):
    env = env_of(box, tmp_path, DDNS_HEADER_SECRET='Authorization: Basic dXNlcjpwYXNz')
    done = in_process('ddkit', env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert 'header Authorization is given twice' in done.stdout and fake.requests == []
    assert 'dXNlcjpwYXNz' not in done.stdout + done.stderr


def test_a_missing_url_is_named(box, fake, tmp_path):
    done = in_process('ddkit', env=env_of(box, tmp_path, DDNS_URL=''))
    assert done.returncode == 2 and 'missing setting url' in done.stderr, done.stderr
    checked = in_process('ddkit', ['--check'], env=env_of(box, tmp_path, DDNS_URL=''))
    assert checked.returncode == 2 and 'settings complete: url is missing' in checked.stdout


@pytest.mark.parametrize('change, status, fix', [
    ({'DDNS_RECORD_NAME': 'other.example.com'}, 404, 'check url'),
    ({'DDNS_BEARER_TOKEN': 'wrong-token-value'}, 403, 'check bearer_token or header_secret'),
    ({'DDNS_BEARER_TOKEN': ''}, 401, 'set bearer_token or header_secret'),
])
def test_a_4xx_is_refused_with_its_status_and_fix(box, fake, tmp_path, change, status, fix):
    env = env_of(box, tmp_path, **change)
    done = in_process('ddkit', env=env)
    assert done.returncode == 1 and 'Traceback' not in done.stderr
    assert 'update record: the webhook refused the request (HTTP %d)' % status in done.stdout
    assert len(fake.requests) == 1   # a refusal is not tried again within the run
    kept = status_of(box, tmp_path, env)
    assert (kept['step'], kept['kind'], kept['http_status']) == ('update record', 'refused', status)
    assert fix in kept['fix'] and kept['url'] == fake.url


@pytest.mark.parametrize('method', ['POST', 'PATCH'])
def test_a_server_error_to_a_post_is_not_sent_twice_and_the_next_run_sends_it(box, fake, tmp_path, method):
    env = env_of(box, tmp_path, DDNS_METHOD=method, DDNS_URL=fake.url + '/hook/{name}',
                 DDNS_BODY='{"ip": "{ip}", "type": "{type}"}')
    fake.fail('status', status=503, text='try later', times=3)
    done = in_process('ddkit', env=env)
    assert done.returncode == 1 and 'the webhook failed (HTTP 503): try later' in done.stdout
    assert fake.calls() == ['update'] and fake.told == []
    kept = status_of(box, tmp_path, env)
    assert (kept['kind'], kept['http_status']) == ('server error', 503)
    assert not (tmp_path / 'state' / ADAPTER.ip_file(RECORD)).exists()
    del fake.faults[:]
    assert in_process('ddkit', env=env).returncode == 0   # the ip file claims nothing: sent again
    assert fake.calls() == ['update', 'update'] and fake.records['%s A' % RECORD]['content'] == NEW


@pytest.mark.parametrize('method', ['POST', 'PATCH'])
def test_a_post_whose_answer_is_lost_is_not_sent_again_in_the_run(box, fake, tmp_path, method):
    env = env_of(box, tmp_path, DDNS_METHOD=method, DDNS_URL=fake.url + '/hook/{name}',
                 DDNS_BODY='ip={ip}&type={type}')
    fake.fail('lost')   # taken, its answer never leaves
    done = in_process('ddkit', env=env)
    assert done.returncode == 1 and 'no answer from %s/***' % fake.url in done.stdout, done.stdout
    assert len(fake.told) == 1 and fake.calls() == ['update']
    assert status_of(box, tmp_path, env)['url'] == fake.url


@pytest.mark.parametrize('path', ['/update', '/nic/update?key=s3cret&ip={ip}', '/hook/Zq7v2Lk9XwP4/{name}'])
def test_only_the_urls_secret_parts_are_masked_never_the_words_around_them(box, tmp_path, path):
    origin = 'http://127.0.0.1:9'   # nothing listens there
    done = in_process('ddkit', env=env_of(box, tmp_path, DDNS_URL=origin + path))
    assert done.returncode == 1, done.stdout + done.stderr
    # the step's word and the origin as they are, the path masked
    assert 'ERROR: update record: no answer from %s/***: Connection refused' % origin in done.stdout, done.stdout
    assert 'updating A %s.' % RECORD in done.stdout, done.stdout
    assert 's3cret' not in done.stdout + done.stderr and 'Zq7v2Lk9XwP4' not in done.stdout + done.stderr


def test_a_get_is_tried_again_after_a_server_error(box, fake, tmp_path):
    fake.fail('status', status=502)
    done = in_process('ddkit', env=env_of(box, tmp_path))
    assert done.returncode == 0, done.stdout
    assert fake.calls() == ['update', 'update'] and len(fake.told) == 1


def test_a_redirect_is_refused(box, fake, tmp_path):
    fake.fail('redirect', location='http://elsewhere.example/x?token=abc')
    done = in_process('ddkit', env=env_of(box, tmp_path))
    assert done.returncode == 1 and 'answered with a redirect (HTTP 302' in done.stdout


def test_dry_run_sends_nothing(box, fake, tmp_path):
    done = in_process('ddkit', ['--dry-run'], env=env_of(box, tmp_path))
    assert done.returncode == 0 and 'Dry run: would send A %s' % NEW in done.stdout
    assert fake.requests == [] and not (tmp_path / 'state').exists()


# --- secrets --------------------------------------------------------------------------------------

KEY, QUERY_KEY = 'K3yInThePath0123456789', 'QuerySecretValue42'
HEADER_VALUE = 'HeaderSecretValue77'


def secret_env(box, fake, tmp_path):
    fake.key = KEY
    url = '%s/hook/%s/{name}?key=%s&ip={ip}&type={type}' % (fake.url, KEY, QUERY_KEY)
    return env_of(box, tmp_path, DDNS_URL=url, DDNS_HEADER_SECRET='X-Api-Key: ' + HEADER_VALUE)


def secrets_of(fake):
    return [KEY, QUERY_KEY, HEADER_VALUE, fake.token]


def everything_written(tmp_path):
    state = tmp_path / 'state'
    return ''.join(p.read_text(errors='replace') for p in state.iterdir()) if state.exists() else ''


def test_no_secret_reaches_a_log_line_the_status_or_check(box, fake, tmp_path):
    env = secret_env(box, fake, tmp_path)
    outputs = []
    for args in (['--check'], [], ['--status'], ['--status', '--json']):
        done = in_process('ddkit', args, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        outputs.append(done.stdout + done.stderr)
    assert len(fake.told) == 1 and 'all ok' in outputs[0]
    # an answer that echoes every secret, alone and in the URL it was sent to
    echo = 'echo %s %s %s %s %s' % (tuple(secrets_of(fake)) + (fake.requests[0].path,))
    for status in (500, 400):
        fake.fail('status', status=status, text=echo, times=3)
        done = in_process('ddkit', ['--force'], env=env)
        assert done.returncode == 1 and 'HTTP %d): echo ***' % status in done.stdout, done.stdout
        outputs += [done.stdout + done.stderr, in_process('ddkit', ['--status', '--json'], env=env).stdout]
    origin = fake.url
    fake.stop()
    done = in_process('ddkit', ['--force'], env=env)
    assert done.returncode == 1 and 'no answer from %s/***' % origin in done.stdout, done.stdout
    outputs += [done.stdout + done.stderr, in_process('ddkit', ['--status', '--json'], env=env).stdout,
                everything_written(tmp_path)]
    text = '\n'.join(outputs)
    leaked = [secret for secret in secrets_of(fake) if secret in text]
    assert leaked == [] and 'update record' in text


def test_a_bad_url_is_not_shown_in_its_refusal(box, fake, tmp_path):
    env = env_of(box, tmp_path, DDNS_URL='http://127.0.0.1:99999/hook/%s/{name}' % KEY)
    done = in_process('ddkit', env=env)
    assert done.returncode == 2 and 'bad value for url' in done.stderr and KEY not in done.stderr


def test_check_verifies_tls_with_the_hosts_of_a_url_with_placeholders_and_sends_nothing(tls_box, tmp_path):
    fake = tls_box.fakes['webhook']
    fake.add_record(None, RECORD, 'A', OLD)
    env = dict(ADAPTER.env(tls_box, tmp_path / 'state'), DDNS_CA_FILE=tls_box.ca_file)
    assert '{name}' in env['DDNS_URL'] and env['DDNS_URL'].startswith('https://')
    checked = in_process('ddkit', ['--check'], env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert 'ok    TLS with 127.0.0.1:%d verified' % fake.port in checked.stdout
    assert fake.requests == [] and fake.token not in checked.stdout
    done = in_process('ddkit', env=env)
    assert done.returncode == 0 and fake.told[0]['ip'] == NEW, done.stdout


def test_check_fails_on_a_certificate_it_does_not_trust(tls_box, tmp_path):
    env = ADAPTER.env(tls_box, tmp_path / 'state')   # no ca_file: the test CA is not trusted
    checked = in_process('ddkit', ['--check'], env=env)
    port = tls_box.fakes['webhook'].port
    assert checked.returncode == 1 and 'FAIL  TLS with 127.0.0.1:%d' % port in checked.stdout, checked.stdout


def test_a_config_file_and_a_uci_list_give_a_body_and_headers(box, fake, tmp_path):
    conf = tmp_path / 'webhook.conf'
    conf.write_text('url=%s/hook/{name}\nbody=\'{"ip": "{ip}", "type": "{type}"}\'\nheaders=X-A:1 X-B:{type}\n'
                    % fake.url)
    conf.chmod(0o600)
    env = dict(env_of(box, tmp_path), DDNS_URL='')
    done = in_process('ddkit', ['--config', str(conf)], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    sent = fake.requests[-1]
    assert fake.told[-1]['from'] == 'json' and (sent.headers['x-a'], sent.headers['x-b']) == ('1', 'A')
    uci = tmp_path / 'ddkit'
    uci.write_text("config ddkit 'home'\n\toption enabled '1'\n\toption provider 'webhook'\n"
                   "\toption record_name '%s'\n\toption url '%s/hook/{name}?ip={ip}&type={type}'\n"
                   "\tlist headers 'X-Note: two words'\n\tlist headers 'X-Type: {type}'\n" % (RECORD, fake.url))
    env = dict(env, DDNS_UCI_FILE=str(uci), DDNS_RECORD_NAME='', DDNS_PROVIDER='')
    done = in_process('ddkit', ['--uci', 'home', '--force'], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    sent = fake.requests[-1]
    assert fake.told[-1]['from'] == 'query'
    assert (sent.headers['x-note'], sent.headers['x-type']) == ('two words', 'A')


@pytest.mark.parametrize('source', ['flag', 'environment'])
def test_a_credential_refused_in_headers_is_never_shown(box, tmp_path, source):
    """A credential put in the plain headers is refused (exit 2, nothing sent) without echoing it."""
    header = 'Authorization: Bearer s3cr3t-token-value'
    env = env_of(box, tmp_path)
    args = []
    if source == 'flag':
        args = ['--headers', header]
    else:
        env['DDNS_HEADERS'] = header
    done = in_process('ddkit', args, env=env)
    assert done.returncode == 2 and 'holds a credential' in done.stderr, done.stderr
    assert 's3cr3t' not in done.stdout + done.stderr
    assert box.fakes['webhook'].requests == []
