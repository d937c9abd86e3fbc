"""What a router pays for HTTPS, as behaviour: one connection per host a run talks to (counted at the
fakes), kept while the server keeps it, a request the server's idle close broke sent once more when
that is safe and never a create; Connection: close and HTTP/1.0 answers honoured; a bad certificate
fails its own host's request only; the IP lookup falls back to the next service, one reached at an IP
address when the resolver is broken."""

import os

import pytest

from conftest import RECORD, run_tool
from fakes.helpers import DoH, IpLookup
from providers import TOOLS, of  # noqa: E402

NEW = '81.2.69.10'


def env_of(box, tool, state, **extra):
    env = of(tool).env(box, state)
    env.update(extra)
    return env


def fake_of(box, tool):
    return of(tool).fake(box)


@pytest.mark.parametrize('tool', TOOLS)
def test_a_first_run_opens_one_connection_per_host(tls_box, tmp_path, tool):
    done = run_tool(tool, [], env=env_of(tls_box, tool, tmp_path, DDNS_CA_FILE=tls_box.ca_file))
    assert done.returncode == 0, done.stdout + done.stderr
    fake = fake_of(tls_box, tool)
    assert len(fake.requests) >= 3   # zone, listing, create (B: and its token)
    assert (fake.connections, tls_box.lookup.connections, tls_box.doh.connections) == (1, 1, 1)


def test_several_records_share_the_connections(box, tmp_path):
    conf = tmp_path / 'records.conf'
    conf.write_text(''.join('[r%d]\nrecord_name=h%d.example.com\n' % (i, i) for i in range(4)))
    os.chmod(str(conf), 0o600)
    env = env_of(box, 'updater_a', tmp_path / 'state')
    del env['DDNS_RECORD_NAME']
    done = run_tool('updater_a', ['--all', '--config', str(conf)], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(box.provider_a.calls('create_record')) == 4 and box.provider_a.connections == 1
    assert box.doh.connections == 1 and len(box.doh.requests) == 4


def test_a_server_that_closes_idle_connections(box, tmp_path):
    """Each request after the first meets a connection the server closed: the reads go out once
    more on a new connection and succeed; the create is not sent twice (that run fails, the next
    one creates the record)."""
    box.provider_a.close_quietly = True
    done = run_tool('updater_a', [], env=env_of(box, 'updater_a', tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert box.provider_a.calls() == ['list_zones', 'list_records']   # each read seen once
    assert 'create record: no answer from' in done.stdout + done.stderr
    assert box.provider_a.connections == 2    # the second read on a new connection; no create sent
    box.provider_a.close_quietly = False
    done = run_tool('updater_a', [], env=env_of(box, 'updater_a', tmp_path))
    assert done.returncode == 0 and len(box.provider_a.calls('create_record')) == 1, done.stdout + done.stderr


def test_an_update_on_a_closed_connection_is_sent_again(box, tmp_path):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1')
    box.provider_a.close_quietly = True
    done = run_tool('updater_a', [], env=env_of(box, 'updater_a', tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert box.provider_a.calls() == ['list_zones', 'list_records', 'update_record']
    assert box.provider_a.find(RECORD)[0]['content'] == NEW


@pytest.mark.parametrize('answer', ['Connection: close', 'HTTP/1.0'])
def test_an_answer_that_closes_is_not_used_again(box, tmp_path, answer):
    zones = [{'id': box.zone_a, 'name': 'example.com'}]
    if answer == 'Connection: close':
        box.provider_a.fail('reply', route='list_zones', body={'success': True, 'errors': [], 'messages': [],
                                                               'result': zones}, headers={'Connection': 'close'})
    else:
        import json
        body = json.dumps({'success': True, 'errors': [], 'messages': [], 'result': zones}).encode()
        box.provider_a.fail('verbatim', route='list_zones', status_line='HTTP/1.0 200 OK', body=body,
                            head=['Content-Type: application/json', 'Content-Length: %d' % len(body)])
    done = run_tool('updater_a', [], env=env_of(box, 'updater_a', tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert box.provider_a.calls() == ['list_zones', 'list_records', 'create_record']   # nothing sent twice
    assert box.provider_a.connections == 2


@pytest.mark.usefixtures('both_interfaces')
def test_a_bad_certificate_on_one_host_fails_that_request_only(ca, tls_box, tmp_path):
    """The DoH resolver's certificate names another host: the previous IP is unknown (a DoH failure
    is tolerated), and the update at the provider, over its own verified TLS, still happens."""
    doh = DoH(tls_cert=ca.issue_cert('dns.example.net')).start()
    try:
        env = env_of(tls_box, 'updater_a', tmp_path, DDNS_CA_FILE=tls_box.ca_file, DDNS_DOH_URL=doh.url)
        done = run_tool('updater_a', [], env=env)
    finally:
        doh.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'No previous IP from DoH' in done.stdout and 'certificate' in done.stdout
    assert doh.requests == [] and len(tls_box.provider_a.calls('create_record')) == 1


# --- the IP lookup: fallbacks --------------------------------------------------------------------

@pytest.fixture
def html():
    server = IpLookup(answer='<html><body>Service unavailable</body></html>').start()
    yield server
    server.stop()


@pytest.mark.parametrize('first', ['refused', 'timing out', 'html', 'wrong family'])
def test_the_lookup_falls_back_to_the_next_service(box, tmp_path, html, first):
    second = box.lookup
    url = {'refused': 'http://127.0.0.1:1', 'html': html.url, 'wrong family': html.url,
           'timing out': html.url}[first]
    if first == 'timing out':
        html.fail('hang', seconds=5)
    if first == 'wrong family':
        html.answer = '2001:4860::8888'   # an IPv6 address for an A record
    env = env_of(box, 'updater_a', tmp_path, DDNS_IP_LOOKUP_URL='%s %s' % (url, second.url), DDNS_TIMEOUT='2')
    done = run_tool('updater_a', [], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Current IP %s from %s: the lookup services before it gave none.' % (NEW, second.url) in done.stdout
    assert 'IP has been updated to: %s' % NEW in done.stdout
    assert len(second.requests) == 1


def test_no_service_with_an_address_is_no_valid_ip_with_each_reason(box, tmp_path, html):
    env = env_of(box, 'updater_a', tmp_path, DDNS_IP_LOOKUP_URL='http://127.0.0.1:1 %s' % html.url)
    done = run_tool('updater_a', [], env=env)
    assert done.returncode == 0 and box.provider_a.calls() == [], done.stdout + done.stderr
    line = [ln for ln in done.stdout.splitlines() if 'No valid IP' in ln][0]
    assert 'http://127.0.0.1:1: no answer from' in line and '%s: the answer is not an address' % html.url in line


def test_the_lookup_list_as_a_uci_list(box, tmp_path, html):
    uci = tmp_path / 'updater_a'
    env = env_of(box, 'updater_a', tmp_path / 'state')
    uci.write_text("config updater_a 'home'\n" + ''.join(
        "\toption %s '%s'\n" % (k[5:].lower(), v) for k, v in sorted(env.items()) if k != 'DDNS_IP_LOOKUP_URL')
        + "\tlist ip_lookup_url '%s'\n\tlist ip_lookup_url '%s'\n" % (html.url, box.lookup.url))
    os.chmod(str(uci), 0o600)
    done = run_tool('updater_a', ['--uci', 'home'], env={'DDNS_UCI_FILE': str(uci)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: %s' % NEW in done.stdout and len(html.requests) == 1


def test_the_dns_free_fallback_works_without_a_resolver(ca, box, tmp_path):
    """The first service's name does not resolve; the second is reached at an IP address over HTTPS,
    its certificate verified for that address (as Cloudflare's trace page at 1.1.1.1), answering in
    the trace page's key=value lines."""
    trace = IpLookup(tls_cert=ca.issue_cert('127.0.0.1')).start()
    trace.answer = 'fl=1\nh=127.0.0.1\nip=%s\nts=1.5\nvisit_scheme=https\ncolo=AMS' % NEW
    ca_file = str(tmp_path / 'ca.pem')
    ca.cert_pem.write_to_path(ca_file)
    try:
        env = env_of(box, 'updater_a', tmp_path / 'state', DDNS_CA_FILE=ca_file,
                     DDNS_IP_LOOKUP_URL='https://lookup.invalid %s' % trace.url)
        done = run_tool('updater_a', [], env=env)
    finally:
        trace.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'IP has been updated to: %s' % NEW in done.stdout


@pytest.mark.usefixtures('both_interfaces')
def test_the_wrong_ip_in_a_certificate_is_refused(ca, box, tmp_path):
    trace = IpLookup(tls_cert=ca.issue_cert('127.0.0.2')).start()   # names another address
    ca_file = str(tmp_path / 'ca.pem')
    ca.cert_pem.write_to_path(ca_file)
    try:
        env = env_of(box, 'updater_a', tmp_path / 'state', DDNS_CA_FILE=ca_file, DDNS_IP_LOOKUP_URL=trace.url)
        done = run_tool('updater_a', [], env=env)
    finally:
        trace.stop()
    assert done.returncode == 1 and trace.requests == [], done.stdout + done.stderr
    assert 'certificate' in done.stdout + done.stderr
