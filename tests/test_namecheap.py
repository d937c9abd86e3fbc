"""The namecheap provider against tests/fakes/namecheap.py over real HTTP: the update URL Namecheap
documents (host, domain, the domain's Dynamic DNS password, the IPv4 address), the host as Namecheap
names it (@ for the domain itself), IPv4 only (an AAAA record refused before anything is sent), its
XML answers read without an XML parser and without trusting their declared encoding, each error with
its fix, and the password, which travels in the query string, in no URL, log line, status or --check
output."""

import json
import os
import sys

import pytest

from conftest import RECORD, ROOT, ZONE, run_tool
from provider_harness import Harness, shown
from providers import NAMECHEAP as P

OLD, NEW = '81.2.69.1', '81.2.69.10'

HARNESS = Harness('namecheap')   # a run's lookup answers what the test set
env_of, run, status = HARNESS.env_of, HARNESS.run, HARNESS.status


def module():
    sys.path.insert(0, os.path.join(ROOT, 'lib'))
    from ddkit.providers import namecheap
    return namecheap


def test_updated_with_the_documented_url(box, tmp_path):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    done = run(box, tmp_path)
    assert done.returncode == 0 and 'IP has been updated to: %s' % NEW in done.stdout, done.stdout
    (request,) = fake.calls('update')
    assert request.method == 'GET' and request.path == '/update'
    assert request.query == {'host': RECORD[:-len(ZONE) - 1], 'domain': ZONE, 'password': fake.password, 'ip': NEW}
    assert P.held(box, RECORD) == NEW and (tmp_path / P.ip_file(RECORD)).read_text() == NEW + '\n'
    assert fake.password not in shown(done, tmp_path)
    again = run(box, tmp_path)
    assert again.returncode == 0 and 'IP has not changed' in again.stdout and len(fake.calls('update')) == 1


@pytest.mark.parametrize('name, host', [(ZONE, '@'), ('*.' + ZONE, '*'), ('a.b.' + ZONE, 'a.b')])
def test_updated_the_host_as_namecheap_names_it(box, tmp_path, name, host):
    box.lookup.answer = NEW
    done = run(box, tmp_path, DDNS_RECORD_NAME=name)
    assert done.returncode == 0, done.stdout + done.stderr
    (request,) = P.fake(box).calls('update')
    assert (request.query['host'], request.query['domain']) == (host, ZONE)


@pytest.mark.parametrize('family', ['AAAA', 'A AAAA'])
@pytest.mark.parametrize('check', [False, True], ids=['run', 'check'])
def test_an_aaaa_record_is_refused_before_anything_is_sent(box, tmp_path, family, check):
    done = run(box, tmp_path, *(['--check'] if check else []), DDNS_RECORD_TYPE=family)
    assert done.returncode == 2 and 'provider namecheap holds A records only' in done.stderr, done.stderr
    assert 'set record_type A' in done.stderr and P.fake(box).calls() == [] and not os.listdir(str(tmp_path))


def test_zone_name_is_needed_to_tell_the_domain_from_the_host(box, tmp_path):
    env = {k: v for k, v in env_of(box, tmp_path).items() if k != 'DDNS_ZONE_NAME'}
    done = run_tool('ddkit', env=env)
    assert done.returncode == 2 and 'missing setting zone_name' in done.stderr, done.stderr
    assert P.fake(box).calls() == []


@pytest.mark.parametrize('kind, code, said, fix', [
    ('password', '304156', 'Passwords do not match', 'check password, the domain\'s Dynamic DNS password'),
    ('domain', '316153', 'Domain name not found', 'check zone_name'),
])
def test_failed_each_error_with_its_fix_and_the_password_never_shown(box, tmp_path, kind, code, said, fix):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.answer = kind
    done = run(box, tmp_path)
    assert done.returncode == 1 and 'Namecheap refused the update: %s (%s)' % (said, code) in done.stdout, done.stdout
    assert fix in done.stdout
    kept = status(box, tmp_path)
    assert (kept['outcome'], kept['code'], kept['kind'], kept['step']) == ('failed', code, 'refused', 'update record')
    assert kept['url'] == fake.url + '/update' and fix in kept['fix']
    assert fake.password not in shown(done, tmp_path) + json.dumps(kept)
    fake.answer = None   # no hold: Namecheap asks none, so the next run sends again
    assert run(box, tmp_path).returncode == 0 and P.held(box, RECORD) == NEW


def test_failed_a_wrong_password_is_refused_as_namecheap_does(box, tmp_path):
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    wrong = 'not-the-dynamic-dns-password'
    done = run(box, tmp_path, DDNS_PASSWORD=wrong)
    assert done.returncode == 1 and 'Passwords do not match (304156)' in done.stdout, done.stdout
    assert wrong not in shown(done, tmp_path) and P.held(box, RECORD) == OLD


def test_updated_whatever_encoding_the_answer_declares(box, tmp_path):
    """The body in UTF-16 (with its byte order mark) is read as such; a UTF-8 body declaring utf-16
    (every answer of the fake) as UTF-8."""
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    body = '<?xml version="1.0" encoding="utf-16"?><interface-response><IP>%s</IP><ErrCount>0</ErrCount>' \
           '<Done>true</Done></interface-response>' % NEW
    fake.fail('reply', route='update', text=body.encode('utf-16'), headers={'Content-Type': 'text/xml'})
    assert run(box, tmp_path).returncode == 0


def test_failed_a_server_error_is_tried_again_next_run(box, tmp_path):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.fail('status', route='update', times=3, status=502, text='bad gateway')
    done = run(box, tmp_path)
    assert done.returncode == 1 and 'HTTP 502' in done.stdout and status(box, tmp_path)['kind'] == 'server error'
    assert run(box, tmp_path).returncode == 0 and P.held(box, RECORD) == NEW


def test_failed_an_answer_that_is_not_namecheaps_names_base_url(box, tmp_path):
    fake = P.fake(box)
    P.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    fake.fail('html', route='update')
    done = run(box, tmp_path)
    assert done.returncode == 1 and 'unexpected answer' in done.stdout and 'check base_url' in done.stdout, done.stdout


def test_a_field_is_read_within_its_bound_and_its_entities_undone():
    namecheap = module()
    assert namecheap.field('<Err1> a &amp; b &lt;c&gt; </Err1>', 'Err1') == 'a & b <c>'
    assert namecheap.field('<Err1>' + 'x' * (namecheap.FIELD_MAX + 1) + '</Err1>', 'Err1') == ''
    assert namecheap.field('<Err1>never closed', 'Err1') == '' and namecheap.field('', 'Err1') == ''


def test_lines_are_refused_and_nothing_is_sent(box, tmp_path):
    box.lookup.answer = NEW
    done = run(box, tmp_path, '--lines', 'ct=iface:lo')
    assert done.returncode == 2 and 'provider namecheap holds one address per name' in done.stderr, done.stderr
    assert P.fake(box).calls() == []


def test_check_sends_nothing_and_shows_no_password(box, tmp_path):
    box.lookup.answer = NEW
    done = run(box, tmp_path, '--check')
    assert done.returncode == 0 and 'only told the IP' in done.stdout, done.stdout
    assert P.fake(box).calls() == [] and P.fake(box).password not in done.stdout + done.stderr
