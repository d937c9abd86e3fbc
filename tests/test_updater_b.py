"""Updater B against the fake provider B (IAM + DNS) over real HTTP: the token table, the first run,
rules 1 to 3, the error table, the ping fallback, locking, TLS, dry run, secrets, the single file."""

import os
import subprocess
import sys
import threading
import time

import pytest

from conftest import HERE, RECORD, ROOT, ZONE, run_tool

STUBS = os.path.join(HERE, 'stubs')
IP_FILE = '.hw-wan_ip_%s.txt' % RECORD
IDS_FILE = '.hw-id_%s.txt' % RECORD
TOKEN_FILE = '.hw-token_%s.txt' % RECORD
LOG_FILE = 'updater_b_%s.log' % RECORD
OLD, NEW = '81.2.69.1', '81.2.69.10'
DAY = 86400


@pytest.fixture
def state(tmp_path):
    path = tmp_path / 'state'
    path.mkdir()
    return path


def run_b(box, state, *args, env=None, **kwargs):
    """Updater B with the sandbox's settings and the stand-in ping first on PATH (no real ping ever)."""
    full = box.env_b(str(state))
    full.update({'PATH': STUBS + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin'),
                 'PING_STUB_LOG': str(state.parent / 'ping.log')})
    full.update(env or {})
    return run_tool('updater_b', list(args), env=full, **kwargs)


def seed(box, state, ip=OLD, ids=True, token=True, records=(OLD,)):
    """The recordset holds `records`; the lookup says NEW; state files as a previous run left them."""
    rid = box.provider_b.add_record(box.zone_b, RECORD, 'A', list(records)) if records else None
    box.lookup.answer = NEW
    if ip:
        (state / IP_FILE).write_text(ip + '\n')
    if ids and rid:
        (state / IDS_FILE).write_text('%s\n%s\n' % (box.zone_b, rid))
    if token:
        (state / TOKEN_FILE).write_text('%d %s\n' % (time.time() + 3600, box.provider_b.issue_token()))
    return rid


def files(state):
    return sorted(os.listdir(str(state)))


def read(state, name):
    path = state / name
    return path.read_text() if path.exists() else None


def token_file(state):
    """(expiry, token) of the auth file, checking its shape and its mode."""
    path = state / TOKEN_FILE
    assert os.stat(str(path)).st_mode & 0o777 == 0o600
    text = path.read_text()
    assert text.endswith('\n') and text.count('\n') == 1
    expiry, token = text.split()
    return int(expiry), token


def out(done):
    return done.stdout + done.stderr


# --- the happy paths and rule 1 ------------------------------------------------------------------

def test_first_run_updates_the_existing_recordset(box, state):
    rid = box.provider_b.add_record(box.zone_b, RECORD, 'A', [OLD], ttl=300, description='mine')
    box.doh.names[(RECORD, 'A')] = [OLD]
    box.lookup.answer = NEW
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    assert 'IP has been updated to: %s' % NEW in done.stdout
    fake = box.provider_b
    assert fake.calls() == ['get_token', 'list_zones', 'list_records', 'update_record']
    assert box.doh.calls() == ['resolve'] and box.lookup.calls() == ['lookup']
    record = fake.recordsets[rid]
    assert (record['records'], record['ttl']) == ([NEW], 120)
    assert record['description'].startswith('updated by updater_b at ')
    token = fake.issued[-1]
    # the token request: service.md 4.2 and 5
    auth = fake.calls('get_token')[0]
    assert auth.headers['content-type'] == 'application/json;charset=utf8'
    assert 'x-auth-token' not in auth.headers
    assert auth.json == {'auth': {'identity': {'methods': ['password'], 'password': {'user': {
        'name': fake.username, 'password': fake.password, 'domain': {'name': fake.username}}}},
        'scope': {'project': {'name': fake.project}}}}
    for req in fake.requests[1:]:
        assert req.headers['x-auth-token'] == token
        assert req.headers['content-type'] == 'application/json'
    assert fake.calls('list_zones')[0].query == {'name': ZONE}
    assert fake.calls('list_records')[0].query == {'name': RECORD, 'type': 'A'}
    put = fake.calls('update_record')[0]
    assert put.path == '/v2/zones/%s/recordsets/%s' % (box.zone_b, rid)
    assert put.json['name'] == RECORD + '.' and put.json['type'] == 'A'
    assert set(put.json) == {'name', 'description', 'type', 'ttl', 'records'}
    # the state files
    assert files(state) == sorted([IP_FILE, IDS_FILE, TOKEN_FILE, LOG_FILE, '.updater_b_%s.lock' % RECORD,
                                   '.updater_b_%s.status' % RECORD])
    assert read(state, IP_FILE) == NEW + '\n'
    assert read(state, IDS_FILE) == '%s\n%s\n' % (box.zone_b, rid)
    assert token_file(state) == (fake.token_dates[token] + DAY, token)
    log = read(state, LOG_FILE)
    assert 'find zone: OK.' in log and 'IP has been updated to: %s' % NEW in log


def test_first_run_without_recordset_creates_it_and_writes_both_ids(box, state):
    box.lookup.answer = NEW
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    fake = box.provider_b
    assert fake.calls() == ['get_token', 'list_zones', 'list_records', 'create_record']
    created = fake.find(RECORD)
    assert len(created) == 1
    record = created[0]
    assert (record['name'], record['records'], record['ttl']) == (RECORD + '.', [NEW], 120)
    assert record['description'].startswith('created by updater_b at ')
    post = fake.calls('create_record')[0]
    assert set(post.json) == {'name', 'description', 'type', 'ttl', 'records'}
    assert post.path == '/v2/zones/%s/recordsets' % box.zone_b
    assert read(state, IDS_FILE) == '%s\n%s\n' % (box.zone_b, record['id'])
    assert read(state, IP_FILE) == NEW + '\n'
    assert "find record: Doesn't exist." in done.stdout     # the listing said total_count 0


@pytest.mark.parametrize('kind, options, logged', [
    ('reply', {'body': {'recordsets': [], 'total_count': 0}}, "Doesn't exist."),
    ('reply', {'body': {'links': {}, 'recordsets': [], 'metadata': {'total_count': 0}}}, "Doesn't exist."),
    ('empty', {}, 'no data received, check connectivity'),
    ('reply', {'status': 400, 'body': {'code': 'DNS.0303', 'message': 'Invalid name filter.'}},
     'Invalid name filter.'),
    ('reply', {'status': 400, 'body': {'error_code': 'DNS.0001', 'error_msg': 'Internal lookup error.'}},
     'Internal lookup error.'),
], ids=['top-level-total-0', 'metadata-total-0', 'empty', 'code-message', 'error_code-error_msg'])
def test_failed_record_lookup_is_tolerated_and_leads_to_creation(box, state, kind, options, logged):
    seed(box, state, ids=False, records=())
    box.provider_b.fail(kind, route='list_records', **options)
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    assert 'find record: %s' % logged in done.stdout
    assert box.provider_b.calls() == ['list_zones', 'list_records', 'create_record']
    record = box.provider_b.find(RECORD)[0]
    assert read(state, IDS_FILE) == '%s\n%s\n' % (box.zone_b, record['id'])
    assert read(state, IP_FILE) == NEW + '\n'


def test_loose_record_listing_takes_the_exact_name_and_type(box, state):
    fake = box.provider_b
    fake.add_record(box.zone_b, 'www.' + RECORD, 'A', [OLD])   # also matches the loose name filter
    fake.add_record(box.zone_b, RECORD, 'AAAA', ['240e:1::5'])
    rid = seed(box, state, ids=False)
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    assert fake.calls() == ['list_zones', 'list_records', 'update_record']
    assert fake.calls('update_record')[0].path.endswith('/' + rid)
    assert fake.find('www.' + RECORD)[0]['records'] == [OLD]


def test_record_already_holding_the_ip_gets_no_write(box, state):
    rid = seed(box, state, ids=False, records=(NEW,))
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    assert box.provider_b.calls() == ['list_zones', 'list_records']
    assert read(state, IDS_FILE) == '%s\n%s\n' % (box.zone_b, rid)
    # one truthful line: nothing was sent, so no "IP has been updated to"
    assert 'already holds %s; nothing sent.' % NEW in done.stdout and 'has been updated' not in done.stdout
    assert read(state, IP_FILE) == NEW + '\n'


def test_unchanged_makes_only_the_lookup_and_no_token_request(box, state):
    seed(box, state, ip=NEW, token=False)
    done = run_b(box, state)
    assert done.returncode == 0
    assert 'IP has not changed: %s' % NEW in done.stdout
    assert box.provider_b.calls() == [] and box.doh.calls() == []
    assert TOKEN_FILE not in files(state)


def test_force_updates_an_unchanged_ip(box, state):
    rid = seed(box, state, ip=NEW, records=(NEW,))
    done = run_b(box, state, '--force')
    assert done.returncode == 0, out(done)
    assert box.provider_b.calls() == ['update_record']
    assert box.provider_b.recordsets[rid]['ttl'] == 120


def test_record_name_with_trailing_dot_is_kept_without_it(box, state):
    rid = seed(box, state, ids=False)
    done = run_b(box, state, env={'DDNS_RECORD_NAME': RECORD + '.', 'DDNS_ZONE_NAME': ZONE + '.'})
    assert done.returncode == 0, out(done)
    assert IP_FILE in files(state) and IDS_FILE in files(state)     # names without the dot
    assert box.provider_b.calls('list_records')[0].query['name'] == RECORD
    assert box.provider_b.calls('update_record')[0].json['name'] == RECORD + '.'
    assert box.provider_b.recordsets[rid]['records'] == [NEW]


# --- zone choice -----------------------------------------------------------------------------------

def test_zone_listing_matches_loosely_the_exact_zone_is_taken(box, state):
    fake = box.provider_b
    decoys = [fake.add_zone('my' + ZONE), fake.add_zone(ZONE + '.cn')]
    fake.zones[box.zone_b] = fake.zones.pop(box.zone_b)          # the real zone comes last
    seed(box, state, ids=False)
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    listed = [z['id'] for z in fake.zones.values()]
    assert listed[:2] == decoys
    assert read(state, IDS_FILE).split('\n')[0] == box.zone_b
    assert fake.calls('list_records')[0].path == '/v2/zones/%s/recordsets' % box.zone_b


def test_no_exact_zone_is_exit_1_with_the_names_found(box, state):
    fake = box.provider_b
    del fake.zones[box.zone_b]
    fake.add_zone('my' + ZONE)
    seed(box, state, ids=False, records=())
    done = run_b(box, state)
    assert done.returncode == 1
    assert 'no zone named %s' % ZONE in done.stdout and 'my%s.' % ZONE in done.stdout
    assert fake.calls() == ['list_zones']
    assert read(state, IP_FILE) == OLD + '\n' and IDS_FILE not in files(state)


# --- the token cache (service.md 3), every row ------------------------------------------------------

@pytest.mark.parametrize('row', ['no auth file', 'auth file without token', 'empty auth file',
                                 'expired', 'unreadable expiry', 'valid'])
def test_token_table(box, state, row):
    fake = box.provider_b
    seed(box, state, token=False)
    cached = fake.issue_token()          # the fake would still accept it: only the file decides
    now = int(time.time())
    content = {'no auth file': None, 'auth file without token': '%d\n' % (now + 3600),
               'empty auth file': '', 'expired': '%d %s\n' % (now - 5, cached),
               'unreadable expiry': 'soon %s\n' % cached, 'valid': '%d %s\n' % (now + 3600, cached)}[row]
    if content is not None:
        (state / TOKEN_FILE).write_text(content)
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    if row == 'valid':
        assert fake.calls() == ['update_record']
        assert fake.calls('update_record')[0].headers['x-auth-token'] == cached
        assert read(state, TOKEN_FILE) == content                 # reused, not rewritten
    else:
        assert fake.calls() == ['get_token', 'update_record']
        new = fake.issued[-1]
        assert new != cached
        assert fake.calls('update_record')[0].headers['x-auth-token'] == new
        assert token_file(state) == (fake.token_dates[new] + DAY, new)


def test_expiry_is_the_answer_date_plus_one_day_not_our_clock(box, state):
    fake = box.provider_b
    fake.clock_offset = -3 * 3600        # the provider's clock is 3 hours behind ours
    seed(box, state, token=False)
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    expiry, token = token_file(state)
    assert expiry == fake.token_dates[token] + DAY
    assert fake.token_dates[token] < time.time() - 2 * 3600


@pytest.mark.parametrize('how', ['revoked', 'expired at the provider'])
def test_refused_cached_token_is_replaced_once_and_the_call_retried(box, state, how):
    fake = box.provider_b
    rid = seed(box, state, token=False)
    cached = fake.issue_token(ttl=-60 if how != 'revoked' else None)
    if how == 'revoked':
        fake.revoke(cached)
    (state / TOKEN_FILE).write_text('%d %s\n' % (time.time() + 3600, cached))
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    assert fake.calls() == ['update_record', 'get_token', 'update_record']
    assert 'refused the cached token' in done.stdout
    new = fake.issued[-1]
    assert token_file(state) == (fake.token_dates[new] + DAY, new)
    assert fake.recordsets[rid]['records'] == [NEW]


@pytest.mark.parametrize('status, refused', [
    (401, {'error_code': 'APIGW.0301', 'error_msg': 'Incorrect IAM authentication information: '
                                                    'verify token failed'}),
    (403, {'code': 'DNS.0040', 'message': 'Permission denied.'}),                 # by the status alone
    (400, {'error_code': 'APIGW.0307', 'error_msg': 'The token must be updated.'}),  # by the code alone
], ids=['401-apigw', '403', 'apigw-code'])
def test_refused_token_is_never_fetched_twice(box, state, status, refused):
    fake = box.provider_b
    rid = seed(box, state)
    fake.fail('reply', route='update_record', times=5, status=status, body=refused)
    done = run_b(box, state)
    assert done.returncode == 1
    assert fake.calls() == ['update_record', 'get_token', 'update_record']
    assert 'refused a new token' in done.stdout
    # the ip file went before the update was sent: the next run reads what the provider holds
    assert fake.recordsets[rid]['records'] == [OLD] and read(state, IP_FILE) is None


def test_refused_new_token_is_not_retried(box, state):
    fake = box.provider_b
    seed(box, state, token=False)
    fake.fail('reply', route='update_record', times=5, status=403,
              body={'error_code': 'APIGW.0302', 'error_msg': 'The IAM user is forbidden in the project.'})
    done = run_b(box, state)
    assert done.returncode == 1
    assert fake.calls() == ['get_token', 'update_record']
    assert 'forbidden in the project' in done.stdout


@pytest.mark.parametrize('setup, shown', [
    (lambda f: setattr(f, 'password', 'another'), 'The username or password is wrong.'),
    (lambda f: setattr(f, 'project', 'ap-southeast-1'), 'Project cn-north-4 not found.'),
    (lambda f: f.fail('empty', route='get_token'), 'no data received, check connectivity'),
    (lambda f: f.fail('reply', route='get_token', status=201, body={'token': {}}), 'without a token'),
], ids=['wrong-password', 'wrong-project', 'empty', 'no-subject-token'])
def test_token_request_failures_are_exit_1(box, state, setup, shown):
    fake = box.provider_b
    seed(box, state, token=False)
    password = fake.password
    setup(fake)
    done = run_b(box, state, env={'DDNS_PASSWORD': password, 'DDNS_PROJECT_NAME': 'cn-north-4'})
    assert done.returncode == 1
    assert 'get token: ' in done.stdout and shown in done.stdout
    assert shown in read(state, LOG_FILE)
    assert fake.calls() == ['get_token']
    # the ip file went before the update was attempted: it claims nothing the provider may not hold
    assert TOKEN_FILE not in files(state) and read(state, IP_FILE) is None


# --- rules 2 and 3: the update answering without an id ---------------------------------------------

@pytest.mark.parametrize('answer', ['state', 'code', 'error_code', 'no id'])
def test_update_without_id_creates_and_rewrites_line_2(box, state, answer):
    fake = box.provider_b
    rid = seed(box, state)
    del fake.recordsets[rid]                         # deleted by hand at the provider
    if answer == 'code':
        fake.fail('reply', route='update_record', status=404,
                  body={'code': 'DNS.0313', 'message': 'The record set does not exist.'})
    elif answer == 'error_code':
        fake.fail('reply', route='update_record', status=404,
                  body={'error_code': 'DNS.0313', 'error_msg': 'The record set does not exist.'})
    elif answer == 'no id':
        fake.fail('reply', route='update_record', status=202, body={'status': 'PENDING_UPDATE'})
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    assert fake.calls() == ['update_record', 'create_record']
    new = fake.find(RECORD)[0]
    assert new['id'] != rid and new['records'] == [NEW]
    assert read(state, IDS_FILE) == '%s\n%s\n' % (box.zone_b, new['id'])
    assert read(state, IP_FILE) == NEW + '\n'
    if answer != 'no id':
        assert 'update record: The record set does not exist.' in done.stdout


def test_stale_zone_id_is_looked_up_again_once(box, state):
    fake = box.provider_b
    seed(box, state, records=())
    (state / IDS_FILE).write_text('%s\n%s\n' % ('ff' * 16, 'ee' * 16))
    done = run_b(box, state)
    assert done.returncode == 0, out(done)
    assert fake.calls() == ['update_record', 'create_record', 'list_zones', 'list_records', 'create_record']
    new = fake.find(RECORD)[0]
    assert read(state, IDS_FILE) == '%s\n%s\n' % (box.zone_b, new['id'])


# --- the error table (service.md 7) on a step that is not tolerated -----------------------------------

@pytest.mark.parametrize('kind, options, shown', [
    ('reply', {'status': 400, 'body': {'code': 'DNS.0016', 'message': 'Invalid zone name filter.'}},
     'find zone: Invalid zone name filter.'),
    ('reply', {'status': 500, 'body': {'error_code': 'DNS.0021', 'error_msg': 'Could not acquire the lock.'}},
     'find zone: Could not acquire the lock.'),
    ('reply', {'status': 400, 'body': {'errorCode': 'DNS.0016', 'errorMsg': 'Invalid zone name filter.'}},
     'find zone: Invalid zone name filter.'),
    ('reply', {'body': {'links': {}, 'zones': [], 'metadata': {'total_count': 0}}},
     'find zone: no zone named %s in project cn-north-4 (found: none); check zone_name (the root domain) '
     'and project_name' % ZONE),
    ('empty', {}, 'find zone: no data received, check connectivity'),
    ('html', {}, 'find zone: '),
], ids=['code-message', 'error_code-error_msg', 'errorCode-errorMsg', 'total_count-0', 'empty', 'html'])
def test_error_rows_on_the_zone_lookup_are_exit_1(box, state, kind, options, shown):
    fake = box.provider_b
    seed(box, state, ids=False)
    fake.fail(kind, route='list_zones', times=3, **options)     # 3: a 500 is retried twice
    done = run_b(box, state)
    assert done.returncode == 1
    assert shown in done.stdout and shown in read(state, LOG_FILE)
    assert 'Traceback' not in out(done)
    assert fake.calls('update_record') == [] and fake.calls('create_record') == []
    assert read(state, IP_FILE) == OLD + '\n' and IDS_FILE not in files(state)


def test_failed_creation_is_exit_1_and_records_nothing(box, state):
    fake = box.provider_b
    seed(box, state, ids=False, records=())
    fake.fail('reply', route='create_record', status=400,
              body={'code': 'DNS.0308', 'message': 'Invalid record set value.'})
    done = run_b(box, state)
    assert done.returncode == 1
    assert 'create record: Invalid record set value.' in done.stdout
    assert fake.find(RECORD) == [] and read(state, IP_FILE) is None and IDS_FILE not in files(state)


def test_update_and_creation_both_failing_is_exit_1(box, state):
    fake = box.provider_b
    rid = seed(box, state)
    fake.fail('reply', route='update_record', status=400, times=2,
              body={'code': 'DNS.0308', 'message': 'Invalid record set value.'})
    done = run_b(box, state)
    assert done.returncode == 1
    # the update is tolerated; the create meets the existing recordset, which is found and updated
    # once more (the stored id may have been stale): that failing too is the end
    assert fake.calls() == ['update_record', 'create_record', 'list_records', 'update_record']
    assert 'create record: Attribute name conflicts' in done.stdout
    assert 'exists but cannot be found or updated' in done.stdout
    # the ip file went before the update was sent: the next run reads what the provider holds
    assert fake.recordsets[rid]['records'] == [OLD] and read(state, IP_FILE) is None


# --- the previous IP: DoH, then one ping ---------------------------------------------------------------

IPUTILS = ('PING %s (%s) 56(84) bytes of data.\n64 bytes from %s: icmp_seq=1 ttl=52 time=11.2 ms\n\n'
           '--- %s ping statistics ---\n1 packets transmitted, 1 received, 0%% packet loss, time 0ms')
BUSYBOX = ('PING %s (%s): 56 data bytes\n\n--- %s ping statistics ---\n'
           '1 packets transmitted, 0 packets received')
WINDOWS = ('Pinging %s [%s] with 32 bytes of data:\r\nRequest timed out.\r\n\r\nPing statistics for %s:\r\n'
           '    Packets: Sent = 1, Received = 0, Lost = 1 (100%% loss),')


@pytest.mark.parametrize('output, status', [
    (IPUTILS % (RECORD, NEW, NEW, RECORD), 0),
    (BUSYBOX % (RECORD, NEW, RECORD), 1),                  # no reply: the name still resolved
    (WINDOWS % (RECORD, NEW, NEW), 1),
    ('64 bytes from %s: icmp_seq=1 ttl=52 time=11.2 ms' % NEW, 0),
], ids=['iputils', 'busybox-no-reply', 'windows-format', 'reply-line-only'])
def test_previous_ip_from_one_ping_when_doh_has_nothing(box, state, output, status):
    seed(box, state, ip=None, ids=False, token=False)
    box.doh.status = 2                                      # SERVFAIL: Status is not 0
    done = run_b(box, state, env={'PING_STUB_OUTPUT': output, 'PING_STUB_STATUS': str(status)})
    assert done.returncode == 0, out(done)
    assert (state.parent / 'ping.log').read_text() == '-c 1 %s\n' % RECORD
    # what the name resolves to is no word of the provider's: the recordset is read, then updated
    assert 'IP changed from %s to %s' % (OLD, NEW) in done.stdout
    assert box.doh.calls() == ['resolve'] and box.provider_b.calls() == [
        'get_token', 'list_zones', 'list_records', 'update_record']
    assert read(state, IP_FILE) == NEW + '\n'


def test_ping_of_an_unknown_name_gives_no_previous_ip_and_the_update_goes_on(box, state):
    seed(box, state, ip=None, ids=False)
    done = run_b(box, state)                                # the stand-in says: unknown host
    assert done.returncode == 0, out(done)
    assert 'No previous IP from ping' in done.stdout
    assert (state.parent / 'ping.log').read_text() == '-c 1 %s\n' % RECORD
    assert box.provider_b.calls() == ['list_zones', 'list_records', 'update_record']
    assert read(state, IP_FILE) == NEW + '\n'


def test_doh_status_0_means_no_ping(box, state):
    seed(box, state, ip=None, ids=False)
    box.doh.names[(RECORD, 'A')] = [OLD]
    done = run_b(box, state, env={'PING_STUB_OUTPUT': IPUTILS % (RECORD, NEW, NEW, RECORD)})
    assert done.returncode == 0, out(done)
    assert not (state.parent / 'ping.log').exists()
    assert 'IP has been updated to: %s' % NEW in done.stdout


def test_aaaa_ping_asks_for_ipv6_and_reads_the_ipv6_address(box, state):
    from fakes.helpers import IpLookup
    lookup6 = IpLookup('240e:1::10', host='::1').start()
    try:
        output = ('PING %s(%s (240e:1::10)) 56 data bytes\n64 bytes from 240e:1::10: icmp_seq=1'
                  % (RECORD, RECORD))
        done = run_b(box, state, env={'DDNS_RECORD_TYPE': 'AAAA', 'DDNS_IP_LOOKUP_URL': lookup6.url,
                                      'PING_STUB_OUTPUT': output})
    finally:
        lookup6.stop()
    assert done.returncode == 0, out(done)
    assert (state.parent / 'ping.log').read_text() == '-6 -c 1 %s\n' % RECORD
    # what the name resolves to is no word of the provider's, which has no AAAA recordset yet
    assert 'IP changed from unknown to 240e:1::10; updating AAAA' in done.stdout
    assert box.provider_b.find(RECORD, 'AAAA')[0]['records'] == ['240e:1::10']


# --- two runs, TLS, dry run, secrets, bad input, the single file ---------------------------------------

def test_two_runs_at_once_make_exactly_one_update(box, state):
    fake = box.provider_b
    rid = seed(box, state)
    fake.delay['update_record'] = 1.0          # the first run holds the lock while the second starts
    results = []
    runs = [threading.Thread(target=lambda: results.append(run_b(box, state))) for _ in range(2)]
    for t in runs:
        t.start()
    for t in runs:
        t.join()
    assert [r.returncode for r in results] == [0, 0], [out(r) for r in results]
    assert len(fake.calls('update_record')) == 1 and fake.calls('create_record') == []
    said = sorted('updated' if 'IP has been updated' in r.stdout else 'unchanged' for r in results)
    assert said == ['unchanged', 'updated']
    assert fake.recordsets[rid]['records'] == [NEW]


def test_tls_verified_and_a_wrong_ca_refused_with_nothing_changed(tls_box, state, ca):
    trustme = pytest.importorskip('trustme')
    from fakes.helpers import IpLookup
    lookup = IpLookup(NEW).start()             # plain: the failure must come from provider B's TLS
    wrong = state.parent / 'wrong-ca.pem'
    trustme.CA().cert_pem.write_to_path(str(wrong))
    try:
        rid = seed(tls_box, state, token=False, ids=False)
        env = {'DDNS_IP_LOOKUP_URL': lookup.url, 'DDNS_CA_FILE': str(wrong)}
        done = run_b(tls_box, state, env=env)
        assert done.returncode == 1
        assert 'get token' in done.stdout and 'TLS certificate not trusted' in done.stdout
        assert tls_box.provider_b.requests == []
        assert files(state) == sorted([IP_FILE, LOG_FILE, '.updater_b_%s.lock' % RECORD, '.updater_b_%s.status' % RECORD])
        assert read(state, IP_FILE) == OLD + '\n' and tls_box.provider_b.recordsets[rid]['records'] == [OLD]
        env['DDNS_CA_FILE'] = tls_box.ca_file
        done = run_b(tls_box, state, env=env)
        assert done.returncode == 0, out(done)
        assert tls_box.provider_b.calls() == ['get_token', 'list_zones', 'list_records', 'update_record']
        assert tls_box.provider_b.url.startswith('https://')
    finally:
        lookup.stop()


@pytest.mark.parametrize('ids', [False, True])
def test_dry_run_changes_nothing(box, state, ids):
    fake = box.provider_b
    rid = seed(box, state, ip=None, ids=ids, token=False)
    before = {name: read(state, name) for name in files(state)}
    done = run_b(box, state, '--dry-run')
    assert done.returncode == 0, out(done)
    # no ip file: the recordset is read first, by its stored ids or found by name
    assert 'Dry run: would update recordset %s from %s to %s.' % (RECORD, OLD, NEW) in done.stdout
    assert {name: read(state, name) for name in files(state)} == before      # no file written at all
    assert fake.calls('update_record') == [] and fake.calls('create_record') == []
    assert fake.recordsets[rid]['records'] == [OLD]


def test_dry_run_of_a_missing_recordset_says_it_would_create(box, state):
    seed(box, state, ids=False, records=(), token=True)
    done = run_b(box, state, '--dry-run')
    assert done.returncode == 0, out(done)
    assert 'Dry run: would create A recordset %s with %s.' % (RECORD, NEW) in done.stdout
    assert box.provider_b.calls() == ['list_zones', 'list_records']
    assert box.provider_b.find(RECORD) == []


def test_no_secret_in_output_log_or_urls(box, state):
    fake = box.provider_b
    fake.password = 'S3cr3t-pw-' + 'k2Q' * 6
    seed(box, state, token=False, ids=False, ip=None)
    env = {'DDNS_PASSWORD': fake.password}
    first = run_b(box, state, env=env)                                # token obtained, update
    fake.revoke()
    box.lookup.answer = '81.2.69.20'
    second = run_b(box, state, env=env)                               # refused token, new one
    fake.password = 'changed'
    (state / TOKEN_FILE).unlink()
    box.lookup.answer = '81.2.69.30'
    third = run_b(box, state, env=env)                                # wrong password: an error
    assert [first.returncode, second.returncode, third.returncode] == [0, 0, 1]
    secrets = ['S3cr3t-pw-' + 'k2Q' * 6] + fake.issued
    assert len(fake.issued) == 2
    texts = [out(first), out(second), out(third), read(state, LOG_FILE)]
    texts += [req.path + repr(req.query) for server in box.servers for req in server.requests]
    texts += [(state.parent / 'ping.log').read_text()]
    for secret in secrets:
        for text in texts:
            assert secret not in text
        assert secret[:40] not in ''.join(texts)


@pytest.mark.parametrize('cached', [True, False])
def test_a_token_quoted_back_by_the_provider_is_masked(box, state, cached):
    fake = box.provider_b
    seed(box, state, token=cached)
    fake.echo_token = True
    done = run_b(box, state)
    assert done.returncode == 1
    assert 'Request refused (X-Auth-Token: ***)' in done.stdout
    token = fake.issued[-1]
    assert token not in out(done) and token not in read(state, LOG_FILE)


def test_help_and_missing_settings(box, state):
    done = run_tool('updater_b', ['--help'])
    assert done.returncode == 0
    for flag in ('--username', '--password', '--project-name', '--auth-url', '--dns-url', '--dry-run'):
        assert flag in done.stdout
    assert 'https://iam.myhuaweicloud.com' in done.stdout and 'https://dns.myhuaweicloud.com' in done.stdout
    env = box.env_b(str(state))
    del env['DDNS_PASSWORD']
    done = run_tool('updater_b', env=env)
    assert done.returncode == 2
    assert 'password' in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert files(state) == [] and box.provider_b.requests == [] and box.lookup.requests == []


def test_single_file_build_runs_alone(box, tmp_path, state):
    # built as `make standalone` builds it, but into tmp_path: a test run leaves no dist/ in the tree
    alone = tmp_path / 'alone'
    alone.mkdir()
    built = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'),
                            os.path.join(ROOT, 'bin', 'updater_b.py'), str(alone / 'updater_b.py')],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    rid = seed(box, state, ids=False, token=False)
    full = box.env_b(str(state))
    full['PATH'] = STUBS + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin')
    done = run_tool(str(alone / 'updater_b.py'), env=full, cwd=str(alone), python=sys.executable,
                    flags=['-I'])
    assert done.returncode == 0, out(done)
    assert box.provider_b.calls() == ['get_token', 'list_zones', 'list_records', 'update_record']
    assert box.provider_b.recordsets[rid]['records'] == [NEW]
    assert os.listdir(str(alone)) == ['updater_b.py']
