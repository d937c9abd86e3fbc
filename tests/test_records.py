"""Several records in one run (ddkit.records) against the fake providers over real HTTP: --all over
the UCI sections (credentials once, in `config defaults`) or the [records] of a --config file,
record_type "A AAAA", mixed outcomes, and the requests a run makes (one zone lookup per zone, one
listing per name, one IP lookup per (source, family), one token for B)."""

import os
import shutil

import pytest

from conftest import RECORD, run_tool
from fakes.base import FakeServer, Reply
from openwrt_env import quoted
from providers import TOOLS, of  # noqa: E402
import needs  # noqa: E402

NAS = 'nas.example.com'
OLD4, NEW4, OLD6, NEW6 = '81.2.69.1', '81.2.69.10', '240e:1::1', '240e:1::10'


class DualLookup(FakeServer):
    """One IP lookup for both families on localhost: it answers the address of the family asked over."""

    def __init__(self):
        super().__init__(host='::')
        self.v4, self.v6 = NEW4, NEW6
        self.route('lookup', 'GET', '/', lambda req: Reply(
            200, text=(self.v4 if req.client.startswith('::ffff:') else self.v6) + '\n'))

    @property
    def url(self):
        return 'http://localhost:%d' % self.port


@pytest.fixture
def dual(tmp_path_factory):
    """The lookup, and `dual.prefix` for run_tool: a private mount namespace whose /etc/hosts gives
    localhost both families (this machine's names it over IPv4 only)."""
    if os.geteuid() != 0 or not shutil.which('unshare'):
        needs.missing('needs root and unshare for a private /etc/hosts')
    hosts = tmp_path_factory.mktemp('hosts') / 'hosts'
    hosts.write_text('127.0.0.1 localhost\n::1 localhost\n')
    server = DualLookup().start()
    server.prefix = ['unshare', '-m', 'sh', '-c', 'mount --bind "$0" /etc/hosts && exec "$@"', str(hosts)]
    yield server
    server.stop()


def run(tool, dual, args=(), env=None):
    """The tool, where localhost has both families."""
    return run_tool(tool, args, env=env, prefix=dual.prefix)


def uci_file(path, defaults, sections, tool='updater_a'):
    """/etc/config/<tool>: one `config defaults` section, then the record sections [(name, options)]."""
    text = 'config defaults\n' + ''.join('\toption %s %s\n' % (k, quoted(v)) for k, v in defaults.items())
    for name, options in sections:
        text += '\nconfig %s%s\n' % (tool, " '%s'" % name if name else '')
        for key, value in options.items():
            for one in value if isinstance(value, list) else [value]:
                text += '\t%s %s %s\n' % ('list' if isinstance(value, list) else 'option', key, quoted(one))
    path.write_text(text)
    return str(path)


def defaults_a(box, state, dual):
    env = box.env_a(str(state))
    return {'auth_email': env['DDNS_AUTH_EMAIL'], 'auth_key': env['DDNS_AUTH_KEY'],
            'base_url': env['DDNS_BASE_URL'], 'doh_url': env['DDNS_DOH_URL'], 'ip_lookup_url': dual.url,
            'state_dir': str(state), 'zone_name': 'example.com'}


def previous(box, name, a=None, aaaa=None):
    """What DoH says the name holds now (the previous IP of a first run)."""
    if a:
        box.doh.names[(name, 'A')] = [a]
    if aaaa:
        box.doh.names[(name, 'AAAA')] = [aaaa]


def test_all_updates_every_enabled_record_and_names_the_one_that_failed(box, dual, tmp_path):
    fake = box.provider_a
    home4 = fake.add_record(box.zone_a, RECORD, 'A', OLD4)
    home6 = fake.add_record(box.zone_a, RECORD, 'AAAA', OLD6)
    nas = fake.add_record(box.zone_a, NAS, 'AAAA', OLD6)
    fake.add_record(box.zone_a, NAS, 'TXT', 'not an address')
    previous(box, RECORD, OLD4, OLD6)
    previous(box, NAS, aaaa=OLD6)
    state = tmp_path / 'state'
    config = uci_file(tmp_path / 'updater_a', defaults_a(box, state, dual), [
        ('home', {'enabled': '1', 'record_name': RECORD, 'record_type': 'A AAAA'}),
        ('broken', {'enabled': '1', 'record_name': 'x.wrong.example', 'zone_name': 'wrong.example'}),
        (None, {'enabled': '1', 'record_name': NAS, 'record_type': 'AAAA'}),
        ('off', {'enabled': '0', 'record_name': 'off.example.com'})])
    done = run('updater_a', dual, ['--all'], env={'DDNS_UCI_FILE': config})
    assert done.returncode == 1, done.stdout + done.stderr
    assert [fake.records[r]['content'] for r in (home4, home6, nas)] == [NEW4, NEW6, NEW6]
    assert done.stdout.count('IP has been updated to:') == 3
    assert '1 of 4 records failed: broken: A x.wrong.example (exit 1)' in done.stdout
    assert 'Record @updater_a[2]: AAAA %s:' % NAS in done.stdout and 'off.example.com' not in done.stdout
    # one zone lookup per zone, one listing of the zone for every name and family, one IP lookup per family
    assert sorted(fake.calls()) == ['list_records'] + ['list_zones'] * 2 + ['update_record'] * 3
    assert 'name' not in fake.calls('list_records')[0].query
    assert [c.query['name'] for c in fake.calls('list_zones')] == ['example.com', 'wrong.example']
    assert len(dual.calls()) == 2
    files = sorted(os.listdir(str(state)))
    for name in (RECORD, RECORD + '_AAAA', NAS + '_AAAA'):
        assert '.cf-wan_ip_%s.txt' % name in files and 'updater_a_%s.log' % name in files
    assert 'find zone: no zone named wrong.example' in (state / 'updater_a_x.wrong.example.log').read_text()
    assert '.cf-wan_ip_x.wrong.example.txt' not in files


def test_a_and_aaaa_of_one_name_one_zone_lookup_one_listing_two_updates(box, dual, tmp_path):
    fake = box.provider_a
    ids = [fake.add_record(box.zone_a, RECORD, t, ip) for t, ip in (('A', OLD4), ('AAAA', OLD6))]
    previous(box, RECORD, OLD4, OLD6)
    env = dict(box.env_a(str(tmp_path)), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    done = run('updater_a', dual, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert fake.calls() == ['list_zones', 'list_records', 'update_record', 'update_record']
    assert [fake.records[r]['content'] for r in ids] == [NEW4, NEW6]
    assert 'All 2 records done.' in done.stdout
    # the next change: the ids are cached, so no zone lookup and no listing at all
    dual.v4, dual.v6 = '81.2.69.11', '240e:1::11'
    fake.reset_log()
    done = run('updater_a', dual, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert fake.calls() == ['get_record', 'update_record', 'get_record', 'update_record']
    assert [fake.records[r]['content'] for r in ids] == ['81.2.69.11', '240e:1::11']


def test_record_type_as_a_uci_list_and_several_uci_sections_in_one_run(box, dual, tmp_path):
    fake = box.provider_a
    ids = [fake.add_record(box.zone_a, name, t, ip) for name, t, ip in (
        (RECORD, 'A', OLD4), (RECORD, 'AAAA', OLD6), (NAS, 'AAAA', OLD6))]
    previous(box, RECORD, OLD4, OLD6)
    previous(box, NAS, aaaa=OLD6)
    state = tmp_path / 'state'
    config = uci_file(tmp_path / 'updater_a', defaults_a(box, state, dual), [
        ('home', {'record_name': RECORD, 'record_type': ['A', 'AAAA']}),
        ('nas', {'record_name': NAS, 'record_type': 'AAAA'}), ('other', {'record_name': 'o.example.com'})])
    done = run('updater_a', dual, ['--uci', 'nas'], env={'DDNS_UCI_FILE': config})   # one section: as ever,
    assert done.returncode == 0, done.stdout + done.stderr                            # defaults inherited
    assert fake.records[ids[2]]['content'] == NEW6 and 'Record' not in done.stdout
    fake.records[ids[2]]['content'] = OLD6
    (state / ('.cf-wan_ip_%s_AAAA.txt' % NAS)).write_text(OLD6 + '\n')
    fake.reset_log()
    done = run('updater_a', dual, ['--uci', 'home', '--uci=nas', '--quiet'], env={'DDNS_UCI_FILE': config})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ''
    assert [fake.records[r]['content'] for r in ids] == [NEW4, NEW6, NEW6]
    assert fake.calls().count('list_zones') == 1


def test_config_file_lists_records_in_blocks_after_the_shared_settings(box, dual, tmp_path):
    fake = box.provider_a
    ids = [fake.add_record(box.zone_a, name, 'AAAA', OLD6) for name in (RECORD, NAS)]
    previous(box, RECORD, aaaa=OLD6)
    previous(box, NAS, aaaa=OLD6)
    shared = defaults_a(box, tmp_path, dual)
    path = tmp_path / 'ddns.conf'
    path.write_text('# shared by every record\n' + ''.join('%s=%s\n' % kv for kv in shared.items())
                    + '\n[router]\nrecord_name=%s\nrecord_type=AAAA\n\n[nas]\nrecord_name="%s"\n'
                    'record_type=AAAA\n' % (RECORD, NAS))
    path.chmod(0o600)
    done = run('updater_a', dual, ['--config', str(path)])
    assert done.returncode == 2 and done.stdout == ''
    assert '[router] starts one of several records: run with --all' in done.stderr
    assert fake.calls() == []
    done = run('updater_a', dual, ['--all', '--config', str(path)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert [fake.records[r]['content'] for r in ids] == [NEW6, NEW6]
    assert 'Record router: AAAA %s:' % RECORD in done.stdout and 'Record nas: AAAA %s:' % NAS in done.stdout


def test_a_bad_section_fails_alone_with_exit_2(box, dual, tmp_path):
    rid = box.provider_a.add_record(box.zone_a, NAS, 'AAAA', OLD6)
    previous(box, NAS, aaaa=OLD6)
    config = uci_file(tmp_path / 'updater_a', defaults_a(box, tmp_path, dual), [
        ('typo', {'enabled': '1', 'record_name': RECORD, 'recordtype': 'A'}),
        ('nas', {'enabled': '1', 'record_name': NAS, 'record_type': 'AAAA'})])
    done = run('updater_a', dual, ['--all'], env={'DDNS_UCI_FILE': config})
    assert done.returncode == 2
    assert done.stderr.startswith("updater_a: record typo: UCI section typo in %s: 'recordtype'" % config)
    assert box.provider_a.records[rid]['content'] == NEW6


def test_a_lan_source_on_an_a_record_fails_its_section_alone_with_exit_2(box, dual, tmp_path):
    """prefix:, eui64: and neigh: give IPv6 only: an A record of such a section is bad input there."""
    rid = box.provider_a.add_record(box.zone_a, NAS, 'AAAA', OLD6)
    previous(box, NAS, aaaa=OLD6)
    config = uci_file(tmp_path / 'updater_a', defaults_a(box, tmp_path, dual), [
        ('lan', {'enabled': '1', 'record_name': RECORD, 'record_type': 'A AAAA',
                 'ip_source': 'prefix:lo/::1'}),
        ('nas', {'enabled': '1', 'record_name': NAS, 'record_type': 'AAAA'})])
    done = run('updater_a', dual, ['--all'], env={'DDNS_UCI_FILE': config})
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith('updater_a: record lan: ip_source prefix:lo/::1 gives an IPv6 address')
    assert box.provider_a.records[rid]['content'] == NEW6


@pytest.mark.parametrize('args, says', [
    (['--all', '--uci', 'home'], 'give --all (every enabled record) or --uci SECTION, not both'),
    (['--all'], 'no enabled updater_a section in'),
])
def test_bad_all_runs_are_one_line_exit_2(box, dual, tmp_path, args, says):
    config = uci_file(tmp_path / 'updater_a', defaults_a(box, tmp_path, dual),
                      [('home', {'enabled': '0', 'record_name': RECORD})])
    done = run('updater_a', dual, args, env={'DDNS_UCI_FILE': config})
    assert done.returncode == 2 and done.stdout == ''
    assert says in done.stderr and len(done.stderr.splitlines()) == 1


def test_check_reports_every_record(box, dual, tmp_path):
    box.provider_a.add_record(box.zone_a, RECORD, 'A', NEW4)
    config = uci_file(tmp_path / 'updater_a', defaults_a(box, tmp_path, dual), [
        ('home', {'enabled': '1', 'record_name': RECORD}),
        ('broken', {'enabled': '1', 'record_name': 'x.wrong.example', 'zone_name': 'wrong.example'})])
    done = run('updater_a', dual, ['--all', '--check'], env={'DDNS_UCI_FILE': config})
    assert done.returncode == 1, done.stdout + done.stderr
    home, broken = done.stdout.split('Record broken: A x.wrong.example:')
    assert 'Record home: A %s:' % RECORD in home and 'check: all ok' in home
    assert 'FAIL' in broken and 'wrong.example' in broken
    assert '1 of 2 records failed: broken: A x.wrong.example (exit 1)' in broken
    assert box.provider_a.calls('update_record') == [] and os.listdir(str(tmp_path)) == ['updater_a']


def test_dry_run_says_per_record_what_would_change(box, dual, tmp_path):
    fake = box.provider_a
    fake.add_record(box.zone_a, RECORD, 'A', OLD4)
    previous(box, RECORD, OLD4, OLD6)
    env = dict(box.env_a(str(tmp_path)), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url)
    done = run('updater_a', dual, ['--dry-run'], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    a, aaaa = done.stdout.split('Record AAAA %s:' % RECORD)
    assert 'Dry run: would update record %s from %s to %s.' % (RECORD, OLD4, NEW4) in a
    assert 'Dry run: would create AAAA record %s with %s.' % (RECORD, NEW6) in aaaa
    assert fake.calls('update_record') == [] and fake.calls('create_record') == []
    assert os.listdir(str(tmp_path)) == []


def test_a_record_whose_log_directory_others_can_change_writes_nothing_there(box, dual, tmp_path):
    """In a run of several, a record's heading waits for its first line: a record stopped by the
    trust check has put nothing in its log directory; the heading still shows, on stdout, before
    the reason. The other record's log file gets its heading and its lines."""
    fake = box.provider_a
    ids = [fake.add_record(box.zone_a, name, 'AAAA', OLD6) for name in (RECORD, NAS)]
    previous(box, NAS, aaaa=OLD6)
    shared = defaults_a(box, tmp_path / 'state', dual)
    shared_logs = tmp_path / 'shared-logs'
    shared_logs.mkdir()
    shared_logs.chmod(0o777)
    path = tmp_path / 'ddns.conf'
    path.write_text(''.join('%s=%s\n' % kv for kv in shared.items()) + 'record_type=AAAA\n'
                    '[home]\nrecord_name=%s\nlog_file=%s/home.log\n[nas]\nrecord_name=%s\n'
                    % (RECORD, shared_logs, NAS))
    path.chmod(0o600)
    for quiet in ([], ['--quiet']):
        done = run('updater_a', dual, ['--all', '--config', str(path)] + quiet)
        assert done.returncode == 1, done.stdout + done.stderr
        assert os.listdir(str(shared_logs)) == []
        assert 'directory %s cannot be trusted' % shared_logs in done.stderr
        heading = 'Record home: AAAA %s:' % RECORD
        assert (heading in done.stdout) == (not quiet), done.stdout
        assert '1 of 2 records failed: home: AAAA %s (exit 1)' % RECORD in done.stdout
    assert [fake.records[r]['content'] for r in ids] == [OLD6, NEW6]
    lines = (tmp_path / 'state' / ('updater_a_%s_AAAA.log' % NAS)).read_text().splitlines()
    assert lines[0].endswith('] - Record nas: AAAA %s:' % NAS) and 'IP changed from' in lines[1], lines



def test_each_record_has_its_own_lock(box, dual, tmp_path):
    """A run still holding one record's lock makes that record fail; the other is updated."""
    import fcntl
    ids = [box.provider_a.add_record(box.zone_a, RECORD, t, ip) for t, ip in (('A', OLD4), ('AAAA', OLD6))]
    previous(box, RECORD, OLD4, OLD6)
    env = dict(box.env_a(str(tmp_path)), DDNS_RECORD_TYPE='A AAAA', DDNS_IP_LOOKUP_URL=dual.url,
               DDKIT_TEST_LOCK_WAIT='0.5')   # it gives up as after a router's 5 s, sooner
    with open(str(tmp_path / ('.updater_a_%s.lock' % RECORD)), 'w') as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        done = run('updater_a', dual, env=env)
    assert done.returncode == 1
    assert '1 of 2 records failed: A %s (exit 1)' % RECORD in done.stdout
    assert 'another run for this record is still going' in done.stdout
    assert [box.provider_a.records[r]['content'] for r in ids] == [OLD4, NEW6]


# --- provider B: one token for the run ----------------------------------------------------------

def test_b_all_gets_one_token_and_one_zone_lookup_and_survives_a_wrong_zone(box, dual, tmp_path):
    fake = box.provider_b
    ids = [fake.add_record(box.zone_b, name, t, [ip]) for name, t, ip in (
        (RECORD, 'A', OLD4), (RECORD, 'AAAA', OLD6), (NAS, 'AAAA', OLD6))]
    previous(box, RECORD, OLD4, OLD6)
    previous(box, NAS, aaaa=OLD6)
    env = box.env_b(str(tmp_path))
    defaults = {'username': env['DDNS_USERNAME'], 'password': env['DDNS_PASSWORD'],
                'project_name': env['DDNS_PROJECT_NAME'], 'auth_url': env['DDNS_AUTH_URL'],
                'dns_url': env['DDNS_DNS_URL'], 'doh_url': env['DDNS_DOH_URL'], 'ip_lookup_url': dual.url,
                'state_dir': str(tmp_path / 'state'), 'zone_name': 'example.com'}
    config = uci_file(tmp_path / 'updater_b', defaults, [
        ('home', {'enabled': '1', 'record_name': RECORD, 'record_type': 'A AAAA'}),
        ('broken', {'enabled': '1', 'record_name': 'x.wrong.example', 'zone_name': 'wrong.example'}),
        ('nas', {'enabled': '1', 'record_name': NAS, 'record_type': 'AAAA'})], tool='updater_b')
    done = run('updater_b', dual, ['--all'], env={'DDNS_UCI_FILE': config})
    assert done.returncode == 1, done.stdout + done.stderr
    assert [fake.recordsets[r]['records'] for r in ids] == [[NEW4], [NEW6], [NEW6]]
    assert '1 of 4 records failed: broken: A x.wrong.example (exit 1)' in done.stdout
    assert fake.calls('get_token') and len(fake.calls('get_token')) == 1
    # one listing of the zone for every name of the run
    assert len(fake.calls('list_zones')) == 2 and len(fake.calls('list_records')) == 1
    assert fake.calls('list_records')[0].query.get('limit') == '500'
    assert len(fake.calls('update_record')) == 3
    assert fake.password not in done.stdout + done.stderr
    assert all(token not in done.stdout for token in fake.issued)


def test_all_pings_each_healthcheck_url_once_fail_when_a_record_failed(box, dual, tmp_path):
    """Issue 18 in a run of several records: one ping per run, /fail when any record naming it failed."""
    from fakes.healthcheck import HealthCheck
    hc = HealthCheck().start()
    try:
        fake = box.provider_a
        fake.add_record(box.zone_a, RECORD, 'A', OLD4)
        fake.add_record(box.zone_a, RECORD, 'AAAA', OLD6)
        previous(box, RECORD, OLD4, OLD6)
        defaults = dict(defaults_a(box, tmp_path / 'state', dual), healthcheck_url=hc.check_url)
        config = uci_file(tmp_path / 'updater_a', defaults, [
            ('home', {'enabled': '1', 'record_name': RECORD, 'record_type': 'A AAAA'}),
            ('broken', {'enabled': '1', 'record_name': 'x.wrong.example', 'zone_name': 'wrong.example'})])
        done = run('updater_a', dual, ['--all'], env={'DDNS_UCI_FILE': config})
        assert done.returncode == 1, done.stdout + done.stderr
        assert hc.pings == ['fail'], done.stdout
        hc.pings.clear()
        os.remove(config)
        config = uci_file(tmp_path / 'updater_a', defaults, [
            ('home', {'enabled': '1', 'record_name': RECORD, 'record_type': 'A AAAA'})])
        done = run('updater_a', dual, ['--all'], env={'DDNS_UCI_FILE': config})
        assert done.returncode == 0 and hc.pings == ['success'], done.stdout + done.stderr
    finally:
        hc.stop()


# --- one listing of the zone for the names of a run ----------------------------------------------

@pytest.mark.parametrize('tool', TOOLS)
@pytest.mark.parametrize('others, listings', [
    (0, 1),        # a small zone: one page for every name
    (700, 2),      # more than one page (500 records a page): each page once, whatever the names
    (2100, 1 + 20),  # more than 4 pages: the first page, then each name on its own
], ids=['one-page', 'two-pages', 'large-zone'])
def test_a_first_run_of_many_names_lists_the_zone_once(box, tmp_path, tool, others, listings):
    fake = of(tool).fake(box)
    for i in range(others):   # the zone's other records, listed before ours
        of(tool).add(box, 'other%d.example.com' % i, 'TXT', '"x"')
    names = ['host%d.example.com' % i for i in range(20)]
    for name in names:
        box.doh.names[(name, 'A')] = [OLD4]
    conf = tmp_path / 'records.conf'
    conf.write_text(''.join('[r%d]\nrecord_name=%s\n' % (i, name) for i, name in enumerate(names)))
    os.chmod(str(conf), 0o600)
    env = of(tool).env(box, tmp_path / 'state')
    del env['DDNS_RECORD_NAME']
    done = run_tool(tool, ['--all', '--config', str(conf)], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(fake.calls('list_records')) == listings
    assert len(fake.calls('create_record')) == 20 and done.stdout.count('IP has been updated to: %s' % NEW4) == 20
    assert len(fake.calls('list_zones')) == 1


# --- what every record shares is resolved once a run ----------------------------------------------

def whole_and_based(args, env, tool='updater_a'):
    """Each planned record's settings loaded whole and from the run's shared base: [(whole, based)],
    either a Config's values or the UsageError's text."""
    import sys
    from conftest import ROOT
    sys.path.insert(0, os.path.join(ROOT, 'lib'))
    from ddkit import UsageError, records, settings, updater
    import providers
    provider = providers.of(tool).module()
    table = provider.SETTINGS + updater.COMMON
    parsed = settings.parse_args(args, table, updater.SWITCHES, files=True)
    planned, shared = records.plan(parsed, tool, table)
    base = settings.load(parsed, table, updater.SWITCHES, environ=env, **shared())

    def load(values, base):
        try:
            cfg = settings.load(parsed, table, updater.SWITCHES, environ=env, base=base, **values())
        except UsageError as e:
            return str(e)
        return {k: v for k, v in vars(cfg).items() if k != 'given'}
    return base, [(load(values, None), load(values, base)) for _, values in planned]


@pytest.mark.parametrize('form', ['config', 'uci'])
def test_a_record_loaded_from_the_shared_base_gets_what_a_whole_load_gives(tmp_path, monkeypatch, form):
    """Flags and the environment still win over a record's own values; a record's own value wins
    over the shared one; secrets, names as written, list values and errors are the record's own."""
    shared = {'zone_name': 'example.com', 'auth_email': 'me@example.com', 'auth_key': 'shared-key-123',
              'timeout': '7', 'ip_lookup_url': 'https://a.example https://b.example', 'record_type': 'A',
              'state_dir': str(tmp_path), 'base_url': 'https://api.example',
              'record_name': 'dåtå.example.com'}   # every record names its own: the written form is its own too
    own = [('plain', {'record_name': 'a.example.com'}),
           ('own_key', {'record_name': 'b.example.com', 'auth_key': 'own-key-4567', 'timeout': '9'}),
           ('idn', {'record_name': 'bücher.example.com', 'record_type': 'AAAA'}),
           ('zone', {'record_name': 'c.example.org', 'zone_name': 'example.org', 'ip_lookup_url': 'https://c.example'}),
           ('env_wins', {'record_name': 'd.example.com', 'base_url': 'https://own.example'}),
           ('bad_own', {'record_name': 'e.example.com', 'timeout': 'soon'}),
           ('same', {'record_name': 'f.example.com', 'zone_name': 'example.com'})]
    env = {'DDNS_BASE_URL': 'https://env.example', 'DDNS_DOH_URL': 'https://doh.example'}
    if form == 'config':
        path = tmp_path / 'ddns.conf'
        path.write_text(''.join('%s=%s\n' % kv for kv in shared.items()) + ''.join(
            '[%s]\n' % label + ''.join('%s=%s\n' % kv for kv in values.items()) for label, values in own))
        path.chmod(0o600)
        args = ['--all', '--config', str(path)]
    else:
        path = uci_file(tmp_path / 'updater_a', shared, [(label, dict(values, enabled='1')) for label, values in own])
        monkeypatch.setenv('DDNS_UCI_FILE', path)   # the UCI file's path is read from the process's own
        args = ['--all']
    base, loaded = whole_and_based(args + ['--timeout', '11'] * (form == 'uci'), env)
    assert base is not None and len(loaded) == len(own)
    for (label, _), (whole, based) in zip(own, loaded):
        assert based == whole, label
    plain, own_key, idn, zone, env_wins, bad_own, same = [whole for whole, _ in loaded]
    assert plain['base_url'] == env_wins['base_url'] == 'https://env.example'
    assert own_key['secrets'] == ['own-key-4567'] and plain['secrets'] == ['shared-key-123']
    assert idn['record_name'] == 'xn--bcher-kva.example.com' and idn['names'] == {'record_name': 'bücher.example.com'}
    assert plain['names'] == {} and zone['ip_lookup_url'] == ['https://c.example']
    assert zone['zone_name'] == 'example.org' and plain['ip_lookup_url'] == ['https://a.example', 'https://b.example']
    if form == 'uci':   # the flag beats every section's own timeout, the bad one too
        assert own_key['timeout'] == bad_own['timeout'] == 11.0
    else:
        assert own_key['timeout'] == 9.0 and plain['timeout'] == 7.0
        assert bad_own.startswith('bad value for timeout (config file %s line' % path)


def test_a_bad_shared_value_fails_only_the_records_that_keep_it(box, dual, tmp_path):
    """The shared values are resolved once a run; one of them bad, each record is loaded whole: the
    record that gives its own value runs, the one that keeps the bad value fails alone, exit 2."""
    fake = box.provider_a
    ids = [fake.add_record(box.zone_a, name, 'AAAA', OLD6) for name in (RECORD, NAS)]
    previous(box, NAS, aaaa=OLD6)
    path = tmp_path / 'ddns.conf'
    path.write_text(''.join('%s=%s\n' % kv for kv in defaults_a(box, tmp_path, dual).items())
                    + 'record_type=AAAA\ntimeout=soon\n[kept]\nrecord_name=%s\n[mended]\nrecord_name=%s\n'
                    'timeout=5\n' % (RECORD, NAS))
    path.chmod(0o600)
    done = run('updater_a', dual, ['--all', '--config', str(path)])
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == "updater_a: record kept: bad value for timeout (config file %s line 9): must be a " \
                          "number of seconds, more than 0 and at most 300; got 'soon'\n" % path
    assert [fake.records[r]['content'] for r in ids] == [OLD6, NEW6]
    assert '1 of 2 records failed: kept (exit 2)' in done.stdout
