"""The powerdns provider against a real PowerDNS Authoritative server (pdns_server over a scratch
sqlite database, its API on 127.0.0.1, started here; the zone's records read back over the API and
with dig over DNS), and against its fake for what the real server will not do on cue (refusals,
broken answers, a Recursor's API). The outcome table of every provider (test_provider_tables) covers
the common rows with the fake; here: what is PowerDNS's own (X-API-Key; the zone found by name; the
RRset read with the zone and REPLACEd whole, its TTL, comments and disabled flags kept, the name's
other records untouched), --check, the server's zones, and a record's operator lines."""

import functools
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from conftest import RECORD, ZONE
from provider_harness import Harness, failed, kept_nothing, ok, shown

OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
CT, CM, PLAIN = '240e:1:2:3::10', '2409:8a00:1:2::10', '2001:db8::1'
SCHEMA = '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql'
KEY = 'test-pdns-api-key-0123456789'


POWERDNS = Harness('powerdns', NEW)
fake, state = POWERDNS.fixtures()
env_of, run, status, module, _job = POWERDNS.bound()
job_of = functools.partial(POWERDNS.job, DDNS_RECORD_TYPE='AAAA')   # in-process, an AAAA record by default


def rrset(fake, name=RECORD, rtype='A'):
    return fake.find(name, rtype)[0]


# --- a real pdns_server ---------------------------------------------------------------------------

def free_port():
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


class Pdns:
    """pdns_server on 127.0.0.1 (DNS on one port, its webserver and API on another) over a sqlite
    database of its own in a scratch directory; no root needed."""

    def __init__(self, where):
        self.dns_port, self.web_port = free_port(), free_port()
        self.url = 'http://127.0.0.1:%d' % self.web_port
        database = str(where / 'pdns.sqlite3')
        with open(SCHEMA) as f, sqlite3.connect(database) as db:
            db.executescript(f.read())
        (where / 'pdns.conf').write_text('\n'.join([
            'launch=gsqlite3', 'gsqlite3-database=%s' % database, 'guardian=no', 'daemon=no',
            'local-address=127.0.0.1', 'local-port=%d' % self.dns_port, 'socket-dir=%s' % where,
            'api=yes', 'api-key=%s' % KEY, 'webserver=yes', 'webserver-address=127.0.0.1',
            'webserver-port=%d' % self.web_port, 'webserver-allow-from=127.0.0.0/8',
            'security-poll-suffix=', 'cache-ttl=0', 'negquery-cache-ttl=0', 'query-cache-ttl=0',
            'distributor-threads=1', 'receiver-threads=1', 'loglevel=4', '']))
        self.log = open(str(where / 'pdns.log'), 'w')
        self.process = subprocess.Popen(['pdns_server', '--config-dir=%s' % where], stdout=self.log,
                                        stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                if self.api('GET', '')[0] == 200:
                    return
            except OSError:
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise RuntimeError('pdns_server did not start: %s' % (where / 'pdns.log').read_text()[-2000:])

    def api(self, method, path, body=None, key=KEY):
        """(status, JSON answer or None) of one API call to the server's path."""
        request = urllib.request.Request(self.url + '/api/v1/servers/localhost' + path, method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={'X-API-Key': key})
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                data = answer.read()
                return answer.status, json.loads(data) if data else None
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def zone(self, name, *rrsets):
        """A new zone of these RRsets ({name, type, ttl, records[, comments]})."""
        status, _ = self.api('POST', '/zones', {'name': name + '.', 'kind': 'Native',
                                                'nameservers': ['ns.%s.' % name]})
        assert status == 201, status
        if rrsets:
            self.patch(name, *rrsets)

    def patch(self, zone, *rrsets):
        status, said = self.api('PATCH', '/zones/%s.' % zone, {'rrsets': [
            dict(r, changetype='REPLACE', records=[{'content': c, 'disabled': False} if isinstance(c, str) else c
                                                   for c in r['records']]) for r in rrsets]})
        assert status == 204, said

    def rrset(self, name, rtype, zone=ZONE):
        """The RRset as the API reads it, or None."""
        _, data = self.api('GET', '/zones/%s.?rrset_name=%s.&rrset_type=%s' % (zone, name, rtype))
        found = [r for r in data['rrsets'] if r['name'] == name + '.' and r['type'] == rtype]
        return found[0] if found else None

    def dig(self, name, rtype):
        """[(TTL, value)] of the answer the server gives over DNS."""
        done = subprocess.run(['dig', '+noall', '+answer', '+norecurse', '@127.0.0.1', '-p', str(self.dns_port),
                               name, rtype], capture_output=True, text=True, timeout=10)
        return [(int(f[1]), f[4]) for f in (line.split(None, 4) for line in done.stdout.splitlines()) if f]

    def clear(self):
        """No zone left."""
        for zone in self.api('GET', '/zones')[1]:
            assert self.api('DELETE', '/zones/%s' % zone['id'])[0] == 204

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture(scope='module')
def server(tmp_path_factory):
    missing = [p for p in ('pdns_server', 'dig') if not shutil.which(p)]
    if missing or not os.path.exists(SCHEMA):
        import needs
        needs.missing('%s not found (apt-get install pdns-server pdns-backend-sqlite3 bind9-dnsutils): the provider '
                      'is tested against a real PowerDNS server' % (', '.join(missing) or SCHEMA))
    started = Pdns(tmp_path_factory.mktemp('pdns'))
    yield started
    started.stop()


@pytest.fixture
def pdns(server):
    server.clear()
    server.zone(ZONE)
    return server


def real(box, state, pdns, *args, **more):
    """A run of ddkit against the real server."""
    return run(box, state, *args, **dict(dict(DDNS_BASE_URL=pdns.url, DDNS_API_KEY=KEY), **more))


def test_a_record_is_created_then_updated_in_place_then_left_alone(box, state, pdns):
    done = real(box, state, pdns, ip=OLD)
    ok(done)
    assert pdns.dig(RECORD, 'A') == [(300, OLD)] and 'Created A record' in done.stdout
    ok(real(box, state, pdns, ip=NEW))
    assert pdns.dig(RECORD, 'A') == [(300, NEW)]
    again = real(box, state, pdns, ip=NEW)
    ok(again)
    assert 'IP has not changed' in again.stdout and pdns.dig(RECORD, 'A') == [(300, NEW)]
    assert KEY not in shown(again, state)


def test_an_update_keeps_the_ttl_and_comments_and_the_names_other_records(box, state, pdns):
    comment = {'content': 'the home router', 'account': 'ops'}
    pdns.patch(ZONE, {'name': RECORD + '.', 'type': 'A', 'ttl': 120, 'records': [OLD], 'comments': [comment]},
               {'name': RECORD + '.', 'type': 'AAAA', 'ttl': 600, 'records': [PLAIN]},
               {'name': RECORD + '.', 'type': 'TXT', 'ttl': 900, 'records': ['"keep me"']})
    ok(real(box, state, pdns))
    assert pdns.dig(RECORD, 'A') == [(120, NEW)]
    assert [(c['content'], c['account']) for c in pdns.rrset(RECORD, 'A')['comments']] == [('the home router', 'ops')]
    assert pdns.dig(RECORD, 'AAAA') == [(600, PLAIN)] and pdns.dig(RECORD, 'TXT') == [(900, '"keep me"')]


def test_the_record_found_with_stored_ids_is_read_then_replaced(box, state, pdns):
    pdns.patch(ZONE, {'name': RECORD + '.', 'type': 'A', 'ttl': 60, 'records': [OLD]})
    ok(real(box, state, pdns, ip=OTHER))
    assert (state / ('.powerdns-id_%s.txt' % RECORD)).read_text() == '%s\n%s\n' % (ZONE, RECORD)
    ok(real(box, state, pdns))
    assert pdns.dig(RECORD, 'A') == [(60, NEW)]


def test_the_zone_is_found_among_the_servers_zones_without_zone_name(box, state, pdns):
    pdns.zone('lab.' + ZONE)
    name = 'home.lab.' + ZONE
    done = real(box, state, pdns, DDNS_ZONE_NAME='', DDNS_RECORD_NAME=name)
    ok(done)
    assert pdns.dig(name, 'A') == [(300, NEW)] and pdns.rrset(name, 'A', zone='lab.' + ZONE)
    assert (state / ('.powerdns-id_%s.txt' % name)).read_text().split() == ['lab.' + ZONE, name, 'lab.' + ZONE]


def test_a_wrong_key_fails_saying_so_and_never_shows_it(box, state, pdns):
    pdns.patch(ZONE, {'name': RECORD + '.', 'type': 'A', 'ttl': 120, 'records': [OLD]})
    done = real(box, state, pdns, DDNS_API_KEY='not-the-key-0123')
    failed(done)
    said = status(box, state, DDNS_BASE_URL=pdns.url, DDNS_API_KEY='not-the-key-0123')
    assert (said['step'], said['kind'], said['http_status']) == ('find zone', 'refused', 401)
    assert 'api-key of this PowerDNS server' in said['fix'] and 'Unauthorized' in done.stdout
    assert 'not-the-key-0123' not in shown(done, state) + json.dumps(said)
    assert pdns.dig(RECORD, 'A') == [(120, OLD)]


def test_a_zone_the_server_lacks_fails_at_find_zone(box, state, pdns):
    more = dict(DDNS_ZONE_NAME='example.org', DDNS_RECORD_NAME='home.example.org')
    failed(real(box, state, pdns, **more))
    said = status(box, state, DDNS_BASE_URL=pdns.url, DDNS_API_KEY=KEY, **more)
    assert (said['step'], said['kind']) == ('find zone', 'not found') and 'pdnsutil list-all-zones' in said['fix']


def test_a_name_out_of_the_zone_is_the_servers_422(box, state, pdns):
    """What the server refuses is said in its words: a zone_name the name is not in, given anyway."""
    pdns.zone('example.net')
    job = POWERDNS.job(box, state, DDNS_BASE_URL=pdns.url, DDNS_API_KEY=KEY)
    from ddkit import Failure
    with pytest.raises(Failure) as refused:
        module().create_record(job, 'example.net', NEW)
    assert refused.value.status == 422 and 'Name is out of zone' in refused.value.provider_message
    assert 'record_name must be a name inside zone_name' in refused.value.fix


def test_check_against_the_server_reads_and_writes_nothing(box, state, pdns):
    pdns.patch(ZONE, {'name': RECORD + '.', 'type': 'A', 'ttl': 120, 'records': [OLD]})
    done = real(box, state, pdns, '--check')
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'credentials accepted (API key; PowerDNS Authoritative 4.' in done.stdout
    assert 'zone %s found' % ZONE in done.stdout and 'A record %s found' % RECORD in done.stdout
    assert kept_nothing(state) and pdns.dig(RECORD, 'A') == [(120, OLD)]


def test_lines_are_addresses_of_the_rrset_at_the_server(box, state, pdns):
    """Line ct's address added beside another line's and one of no line, changed, taken out alone."""
    pdns.patch(ZONE, {'name': RECORD + '.', 'type': 'AAAA', 'ttl': 600, 'records': [CM, PLAIN]})
    powerdns = module()
    job = job_of(box, state, 'ct', DDNS_BASE_URL=pdns.url, DDNS_API_KEY=KEY)
    assert powerdns.find_record(job, ZONE) is None
    rid = powerdns.create_record(job, ZONE, CT)
    moved = CT.replace('::10', '::20')
    powerdns.update_record(job, ZONE, powerdns.read_record(job, ZONE, rid), moved)
    assert sorted(a for _, a in pdns.dig(RECORD, 'AAAA')) == sorted([CM, PLAIN, moved])
    assert {ttl for ttl, _ in pdns.dig(RECORD, 'AAAA')} == {600}
    from ddkit.provider import address_id
    powerdns.delete_record(job, ZONE, powerdns.read_record(job, ZONE, address_id(moved)))
    assert sorted(a for _, a in pdns.dig(RECORD, 'AAAA')) == sorted([CM, PLAIN])


# --- against the fake: what is PowerDNS's own --------------------------------------------------------

def test_every_call_carries_the_key_and_nothing_shows_it(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_zones', 'get_record', 'update_record']
    assert all(r.headers['x-api-key'] == fake.key for r in fake.requests)
    assert [(r.path, r.raw_query) for r in fake.requests] == [
        ('/api/v1/servers/localhost/zones', 'zone=%s.' % ZONE),
        ('/api/v1/servers/localhost/zones/%s.' % ZONE, 'rrset_name=%s.&rrset_type=A' % RECORD),
        ('/api/v1/servers/localhost/zones/%s.' % ZONE, '')]
    assert fake.key not in shown(done, state) + json.dumps(status(box, state))


def test_a_base_url_written_with_the_api_path_is_taken(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    ok(run(box, state, DDNS_BASE_URL=fake.url + '/api/v1'))
    assert rrset(fake)['records'] == [NEW]


def test_an_update_replaces_the_rrset_with_its_own_ttl_and_disabled_flag(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD, ttl=120, disabled=[OLD], comments=[{'content': 'mine', 'account': ''}])
    ok(run(box, state))
    assert fake.calls('update_record')[0].json == {'rrsets': [{
        'name': RECORD + '.', 'type': 'A', 'changetype': 'REPLACE', 'ttl': 120,
        'records': [{'content': NEW, 'disabled': True}]}]}
    held = rrset(fake)
    assert (held['records'], held['ttl'], held['comments']) == ([NEW], 120, [{'content': 'mine', 'account': ''}])


def test_a_new_rrset_is_a_replace_with_ttl_300(box, fake, state):
    ok(run(box, state))
    assert fake.calls() == ['list_zones', 'get_record', 'update_record']
    assert fake.calls('update_record')[0].json['rrsets'][0]['ttl'] == 300
    assert (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], 300)


def test_stored_ids_of_a_deleted_rrset_make_it_again(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    (state / ('.powerdns-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, RECORD))
    (state / ('.powerdns-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    fake.rrsets.clear()
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['get_record', 'list_zones', 'get_record', 'update_record']
    assert 'Stored ids are stale' in done.stdout and rrset(fake)['records'] == [NEW]


def test_a_zone_deleted_under_stored_ids_fails_at_find_zone(box, fake, state):
    (state / ('.powerdns-id_%s.txt' % RECORD)).write_text('%s\n%s\n' % (ZONE, RECORD))
    (state / ('.powerdns-ip_%s.txt' % RECORD)).write_text(OLD + '\n')
    fake.zones.clear()
    failed(run(box, state))
    said = status(box, state)
    assert (said['step'], said['kind']) == ('find zone', 'not found') and fake.calls() == ['get_record', 'list_zones']


@pytest.mark.parametrize('answer, step, words, fix', [
    ({'status': 401, 'text': 'Unauthorized'}, 'update record', 'HTTP 401: Unauthorized', 'api-key of this PowerDNS'),
    ({'status': 403, 'text': 'Forbidden'}, 'update record', 'HTTP 403: Forbidden', 'webserver-allow-from'),
    ({'status': 422, 'body': {'error': 'RRset home.example.com. IN A: Conflicts with pre-existing RRset'}},
     'update record', 'Conflicts with pre-existing RRset', 'no CNAME may be at that name'),
    ({'status': 400, 'text': 'Bad Request'}, 'update record', 'HTTP 400: Bad Request', 'report it'),
], ids=['key', 'allow-from', 'refused rrset', 'bad request'])
def test_a_refused_patch_says_why_in_the_servers_words(box, fake, state, answer, step, words, fix):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='update_record', **answer)
    done, said = POWERDNS.failure(box, state)
    assert (said['step'], said['kind'], said['http_status']) == (step, 'refused', answer['status'])
    assert words in done.stdout and fix in said['fix'] and rrset(fake)['records'] == [OLD]


def test_a_server_error_is_retried_then_fails_saying_the_next_run_tries_again(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('status', route='update_record', status=500, text='Internal Server Error', times=5)
    done = run(box, state)
    failed(done)
    assert status(box, state)['kind'] == 'server error' and 'the next run tries again' in done.stdout


@pytest.mark.parametrize('answer', [
    {'body': [1, 2]},
    {'body': {'name': ZONE + '.', 'rrsets': 'none'}},
    {'body': {'name': ZONE + '.', 'rrsets': [{'name': RECORD + '.', 'type': 'A', 'ttl': 60, 'records': 'x'}]}},
    {'text': '<html>busy</html>'},
], ids=['not an object', 'rrsets not a list', 'records not a list', 'html'])
def test_an_unusable_answer_is_a_failure_not_a_traceback(box, fake, state, answer):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    fake.fail('reply', route='get_record', **answer)
    failed(run(box, state))
    assert fake.calls('update_record') == [] and rrset(fake)['records'] == [OLD]


def test_an_rrset_of_another_name_in_a_whole_zones_answer_is_not_taken(box, fake, state):
    """A server that does not narrow its answer to rrset_name gives the whole zone: the record's RRset
    is picked from it, and another name's is none of it."""
    fake.add_record(ZONE, 'www.' + ZONE, 'A', OLD, ttl=60)
    fake.add_record(ZONE, RECORD, 'AAAA', PLAIN)
    whole = {'name': ZONE + '.', 'rrsets': [fake._public(r) for r in fake.rrsets.values()]}
    fake.fail('reply', route='get_record', body=whole)
    ok(run(box, state))
    assert (rrset(fake)['records'], rrset(fake)['ttl']) == ([NEW], 300)   # made new, not www's changed
    assert rrset(fake, 'www.' + ZONE)['records'] == [OLD]
    assert rrset(fake, rtype='AAAA')['records'] == [PLAIN]


# --- --check --------------------------------------------------------------------------------------

def test_check_reads_the_server_zone_and_record_and_writes_nothing(box, fake, state):
    fake.add_record(ZONE, RECORD, 'A', OLD)
    done = POWERDNS.check(box, state)
    assert 'credentials accepted (API key; PowerDNS Authoritative 4.7.3)' in done.stdout
    assert fake.calls() == ['login', 'list_zones', 'get_record'] and kept_nothing(state)


def test_check_refuses_a_recursors_api(box, fake, state):
    fake.daemon_type = 'recursor'
    done = run(box, state, '--check')
    assert done.returncode == 1
    assert 'FAIL  credentials accepted: login: the server at base_url is no PowerDNS Authoritative server ' \
           '(daemon_type recursor)' in done.stdout and 'not a Recursor\'s' in done.stdout


# --- in-process: the server's zones, a record's lines ---------------------------------------------

def test_account_zones_lists_the_servers_zones(box, fake, state):
    fake.add_zone('example.net')
    assert sorted((z.id, z.name) for z in module().account_zones(job_of(box, state))) == [
        ('example.com', 'example.com'), ('example.net', 'example.net')]


def test_the_last_lines_address_deletes_the_rrset(box, fake, state):
    powerdns = module()
    fake.add_record(ZONE, RECORD, 'AAAA', [CM], ttl=600)
    job = job_of(box, state, 'cm')
    assert powerdns.delete_record(job, ZONE, powerdns.find_record(job, ZONE)) is None
    assert fake.find(RECORD, 'AAAA') == [] and fake.calls() == ['get_record', 'update_record']
    assert fake.calls('update_record')[0].json == {'rrsets': [{'name': RECORD + '.', 'type': 'AAAA',
                                                               'changetype': 'DELETE'}]}


def test_each_lines_job_reads_the_rrset_afresh(box, fake, state):
    from ddkit.provider import Run
    powerdns = module()
    several = Run(several=True)
    for line, address in (('ct', CT), ('cm', CM)):
        job = job_of(box, state, line, several)
        assert powerdns.find_record(job, ZONE) is None
        powerdns.create_record(job, ZONE, address)
    assert rrset(fake, rtype='AAAA')['records'] == [CT, CM]
    assert fake.calls() == ['get_record', 'update_record', 'get_record', 'update_record']
