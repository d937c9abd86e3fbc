"""The cheap paths stay cheap: which modules a cron run that finds nothing to do loads (a behaviour,
not a timing: speed itself is measured by `make bench`), and the bench harness itself, in one quick
smoke round so that it cannot rot."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import FULL, ROOT, built_single_file, full_only, run_tool, sampled
from openwrt_env import feed_unsigned  # noqa: F401  (the fixture: the run's feed, for the installed rows)
from providers import TOOLS  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, 'tools'))
import bench  # noqa: E402
import bench_peers  # noqa: E402
import standalone  # noqa: E402
import needs  # noqa: E402

# never on a path that makes no request (the rule for the iface path), nor their usual
# companions; a plain-http lookup needs no ssl either
# a run that sends no request loads no HTTP code of ours either (a provider imports ddkit.http when it
# calls; the URL settings are checked with ddkit.urls): ~120 KiB of a router's peak memory
NO_REQUEST_FORBIDDEN = {'ssl', '_ssl', 'http', 'http.client', 'urllib', 'urllib.parse', 'email', 'json',
                        'socket', 'ipaddress', 're', 'argparse', 'logging', 'subprocess', 'ddkit.wire',
                        'ddkit.http', 'struct', '_struct', 'ddkit.proxy'}
HTTP_LOOKUP_FORBIDDEN = {'ssl', '_ssl', 'http.client', 'urllib', 'email', 'json', 'socket', 'ipaddress',
                         're', 'argparse', 'logging', 'subprocess', 'ddkit.check', 'ddkit.proxy'}
UPDATERS = tuple(TOOLS) + ('ddkit',)   # the seed tools, and the command that runs every provider


def imported(done):
    """The modules -X importtime saw loaded, in order."""
    return [line.rsplit('|', 1)[-1].strip() for line in done.stderr.splitlines()
            if line.startswith('import time:') and not line.endswith('imported package')]


@pytest.fixture(scope='module')
def netns():
    why = bench.Netns.possible()
    if why:
        needs.missing('the iface path needs a network namespace: %s' % why)
    with bench.Netns('ddkt%d' % os.getpid()) as ns:
        yield ns


@pytest.fixture
def single_file(tmp_path_factory):
    """build(tool, folder, *flags): dist/<tool>.py as tools/standalone.py builds it (the file a router
    runs; flags: its own, --providers NAME), built once a run (conftest.built_single_file), copied into
    folder."""
    def build(tool, folder, *flags):
        os.makedirs(str(folder), exist_ok=True)
        return shutil.copy(built_single_file(tmp_path_factory, tool, *flags), os.path.join(str(folder), tool + '.py'))
    return build


def adapter(tool):
    """The test adapter a tool runs: a seed tool's provider; ddkit runs the first provider's records
    (what its choice of provider adds to a run is what these tests measure)."""
    import providers
    return providers.PROVIDERS[0] if tool == 'ddkit' else providers.of(tool)


def ip_file(tool, state, record, record_type):
    """The tool's ip file, from its provider's FILES table and ddkit.updater's naming (the README's)."""
    files = adapter(tool).module().FILES
    return os.path.join(str(state), files['ip_file'] % (record + ('_AAAA' if record_type == 'AAAA' else '')))


def env_for(box, tool, state, **settings):
    env = adapter(tool).env(box, str(state))
    if tool == 'ddkit':
        env['DDNS_PROVIDER'] = adapter(tool).provider
    env.update(settings)
    return env


@pytest.mark.parametrize('variant', ['bin', 'single file'])
@pytest.mark.parametrize('rtype, address', [('A', bench.IFACE_V4), ('AAAA', bench.IFACE_V6)])
@pytest.mark.parametrize('tool', UPDATERS)
@pytest.mark.usefixtures('native_interfaces')
def test_unchanged_iface_path_loads_no_http_json_or_ipaddress(netns, box, tmp_path, single_file, tool, rtype, address,
                                                               variant):
    path = tool if variant == 'bin' else single_file(tool, tmp_path)
    # as on a router: the single file may keep its compiled code (PYTHONDONTWRITEBYTECODE empty = unset)
    env = env_for(box, tool, tmp_path / 'state', DDNS_RECORD_TYPE=rtype, DDNS_IP_SOURCE='iface:' + bench.IFACE,
                  TMPDIR=str(tmp_path), PYTHONDONTWRITEBYTECODE='')
    os.makedirs(env['DDNS_STATE_DIR'])
    with open(ip_file(tool, env['DDNS_STATE_DIR'], env['DDNS_RECORD_NAME'], rtype), 'w') as f:
        f.write(address + '\n')
    first = run_tool(path, env=env, prefix=netns.wrap([]))  # (single file: fills its code cache)
    assert 'IP has not changed: %s' % address in first.stdout, first.stdout + first.stderr
    done = run_tool(path, env=env, prefix=netns.wrap([]), flags=['-X', 'importtime'])
    assert done.returncode == 0 and 'IP has not changed: %s' % address in done.stdout, done.stdout + done.stderr
    modules = imported(done)
    assert 'ddkit.iface' in modules  # the path under test was taken
    assert not NO_REQUEST_FORBIDDEN & set(modules), sorted(NO_REQUEST_FORBIDDEN & set(modules))
    # the IPv6 address comes from /proc alone; the IPv4 one needs a socket for its ioctl, nothing more
    assert '_socket' not in modules if rtype == 'AAAA' else {'_socket', 'fcntl'} <= set(modules)
    assert [s.calls() for s in box.servers] == [[] for _ in box.servers]  # and no request at all


@pytest.mark.parametrize('source, address', [('prefix:%s/%s' % (bench.IFACE, bench.LAN_ID), bench.LAN_V6),
                                             ('neigh:%s/%s' % (bench.IFACE, bench.LAN_MAC), bench.NEIGH_V6)])
@pytest.mark.parametrize('tool', UPDATERS)
@pytest.mark.usefixtures('native_interfaces')
def test_unchanged_lan_host_path_loads_no_http_json_or_ipaddress(netns, box, tmp_path, tool, source, address):
    env = env_for(box, tool, tmp_path / 'state', DDNS_RECORD_TYPE='AAAA', DDNS_IP_SOURCE=source)
    os.makedirs(env['DDNS_STATE_DIR'])
    with open(ip_file(tool, env['DDNS_STATE_DIR'], env['DDNS_RECORD_NAME'], 'AAAA'), 'w') as f:
        f.write(address + '\n')
    done = run_tool(tool, env=env, prefix=netns.wrap([]), flags=['-X', 'importtime'])
    assert done.returncode == 0 and 'IP has not changed: %s' % address in done.stdout, done.stdout + done.stderr
    modules = imported(done)
    assert 'ddkit.lan' in modules  # the path under test was taken
    assert not NO_REQUEST_FORBIDDEN & set(modules), sorted(NO_REQUEST_FORBIDDEN & set(modules))
    # the prefix comes from /proc alone; the neighbour table over a netlink socket, nothing more;
    # an unchanged record takes no lock (fcntl)
    assert '_socket' not in modules if source.startswith('prefix') else '_socket' in modules
    assert 'ddkit.lock' not in modules and 'fcntl' not in modules
    assert [s.calls() for s in box.servers] == [[] for _ in box.servers]


@pytest.mark.parametrize('tool', UPDATERS)
@pytest.mark.usefixtures('native_interfaces')
def test_unchanged_records_of_an_all_run_load_what_one_record_loads(netns, box, tmp_path, tool):
    """--all over the UCI sections (issue 14): the same cheap path, plus the UCI and records modules."""
    state = tmp_path / 'state'
    state.mkdir()
    env = env_for(box, tool, state, DDNS_IP_SOURCE='iface:' + bench.IFACE)
    text = 'config defaults\n' + ''.join("\toption %s '%s'\n" % (k[5:].lower(), v.replace("'", "'\\''"))
                                          for k, v in env.items() if k != 'DDNS_RECORD_NAME')
    for n in range(3):
        record = 'r%d.%s' % (n, env['DDNS_ZONE_NAME'])
        text += "config %s\n\toption enabled '1'\n\toption record_name %s\n\tlist record_type A\n" \
                "\tlist record_type AAAA\n" % (tool, record)
        if tool == 'ddkit':
            text += "\toption provider '%s'\n" % env['DDNS_PROVIDER']
        for rtype, address in (('A', bench.IFACE_V4), ('AAAA', bench.IFACE_V6)):
            with open(ip_file(tool, state, record, rtype), 'w') as f:
                f.write(address + '\n')
    (tmp_path / tool).write_text(text)
    done = run_tool(tool, ['--all'], env={'DDNS_UCI_FILE': str(tmp_path / tool)}, prefix=netns.wrap([]),
                    flags=['-X', 'importtime'])
    assert done.returncode == 0 and done.stdout.count('IP has not changed') == 6, done.stdout + done.stderr
    modules = imported(done)
    assert {'ddkit.iface', 'ddkit.records', 'ddkit.uci'} <= set(modules)
    assert not NO_REQUEST_FORBIDDEN & set(modules), sorted(NO_REQUEST_FORBIDDEN & set(modules))
    assert [s.calls() for s in box.servers] == [[] for _ in box.servers]


@pytest.mark.parametrize('tool', UPDATERS)
@pytest.mark.usefixtures('native_interfaces')
def test_unchanged_plain_http_lookup_loads_no_ssl_http_client_or_json(box, tmp_path, tool):
    env = env_for(box, tool, tmp_path / 'state', TMPDIR=str(tmp_path))
    box.doh.names[(env['DDNS_RECORD_NAME'], 'A')] = [box.lookup.answer]
    first = run_tool(tool, env=env)   # reads (or makes) the record at the provider: the ip file follows
    assert first.returncode == 0, first.stdout + first.stderr
    box.lookup.reset_log()
    done = run_tool(tool, env=env, flags=['-X', 'importtime'])
    assert 'IP has not changed' in done.stdout, done.stdout + done.stderr
    modules = imported(done)
    assert 'ddkit.wire' in modules
    assert not HTTP_LOOKUP_FORBIDDEN & set(modules), sorted(HTTP_LOOKUP_FORBIDDEN & set(modules))
    assert box.lookup.calls() == ['lookup']


# HTTPS through the _ssl extension alone: the ssl module's Python layer and its companions stay out
HTTPS_LOOKUP_FORBIDDEN = (HTTP_LOOKUP_FORBIDDEN - {'_ssl'}) | {'enum', 'base64', 'selectors', 'warnings'}


@pytest.mark.parametrize('tool', UPDATERS)
@pytest.mark.usefixtures('native_interfaces')
def test_unchanged_https_lookup_loads_the_tls_extension_alone(tls_box, tmp_path, tool):
    env = env_for(tls_box, tool, tmp_path / 'state', TMPDIR=str(tmp_path), DDNS_CA_FILE=tls_box.ca_file)
    tls_box.doh.names[(env['DDNS_RECORD_NAME'], 'A')] = [tls_box.lookup.answer]
    first = run_tool(tool, env=env)   # reads (or makes) the record at the provider: the ip file follows
    assert first.returncode == 0, first.stdout + first.stderr
    tls_box.lookup.reset_log()
    before = tls_box.lookup.connections
    done = run_tool(tool, env=env, flags=['-X', 'importtime'])
    assert 'IP has not changed' in done.stdout, done.stdout + done.stderr
    modules = imported(done)
    assert env['DDNS_IP_LOOKUP_URL'].startswith('https://') and '_ssl' in modules
    assert not HTTPS_LOOKUP_FORBIDDEN & set(modules), sorted(HTTPS_LOOKUP_FORBIDDEN & set(modules))
    assert tls_box.lookup.calls() == ['lookup'] and tls_box.lookup.connections == before + 1


def tree_with_single_files(tmp_path, single_file):
    """A copy of the checkout with dist/<tool>.py of the updaters built in it, as `make bench` builds
    them first: the bench runs the single files of its own tree's dist/, and a test run leaves no
    dist/ in the checkout (nor measures a stale one)."""
    tree = tmp_path / 'tree'
    shutil.copytree(ROOT, str(tree), ignore=shutil.ignore_patterns(
        '.git', '.venv*', 'dist', 'build', '__pycache__', '.pytest_cache'))
    for tool in UPDATERS:
        single_file(tool, tree / 'dist')
    return tree


# make test's sample of the round: the floors and SAMPLE other rows spread evenly over the seeds' round
# (conftest.sampled: the same ones each run, whatever rows the bench gains), measured by bench's own
# parts as bench.py --smoke measures every row, inside its network namespace; make test-full runs the
# whole round of every provider
SAMPLE = 6
SAMPLE_DRIVER = """
import json, sys
sys.path.insert(0, sys.argv[1])
import bench
from conftest import sampled
out, keep, why = sys.argv[2], int(sys.argv[3]), sys.argv[4] or None
smoke = bench.Bench(1, True, why is None, why)
smoke.providers = {bench.PROVIDERS[0].provider}
smoke.feed_built = sys.argv[5]   # the run's feed, which other tests build and check
try:
    smoke.build()
    rows = [p for p in smoke.active() if p not in (smoke.floor, smoke.floor_isolated)]
    chosen = sampled(rows, keep)
    for path in rows:
        if path not in chosen:
            path.missing = 'skipped: not in the sample of make test'
    smoke.warm_up()
    smoke.measure()
    print(bench.report(smoke, smoke.lookup_rtt(), 0.0))
    with open(out, 'w') as f:
        json.dump([{'name': p.name, 'table': 'peers' if p.peer else 'https' if p.https else 'main',
                    'budget': list(p.budget) if p.budget else None, 'outcomes': [list(o) for o in p.outcomes],
                    'missing': p.missing, 'wall': p.wall, 'rss': p.peak, 'cpu': bench.bench_https.cpu(p),
                    'connections': [list(c) for c in p.connections], 'requests': [list(c) for c in p.requests],
                    'errors': p.errors} for p in smoke.paths], f)
finally:
    smoke.stop()
"""


def bench_round(tree, tmp_path, feed):
    """{row name: row} of bench.py --smoke in tree (make test-full: the whole round, building its own
    feed), or of the sample above (make test: its installed rows from feed, the run's); and what it
    printed."""
    out = tmp_path / 'bench.json'
    # waits for the round to end (a loaded machine takes minutes), bounded only against a hang
    if FULL:
        done = subprocess.run([sys.executable, str(tree / 'tools' / 'bench.py'), '--smoke', '--json', str(out)],
                              capture_output=True, text=True, timeout=900, cwd=str(tmp_path))
    else:
        why = bench.Netns.possible()
        command = [sys.executable, '-c', SAMPLE_DRIVER, str(tree / 'tools'), str(out), str(SAMPLE), why or '', feed]
        if why:
            done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=str(tmp_path))
        else:
            with bench.Netns('ddks%d' % os.getpid()) as ns:
                done = subprocess.run(ns.wrap(command), capture_output=True, text=True, timeout=900,
                                      cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert '| path | wall ms |' in done.stdout
    return {r['name']: r for r in json.loads(out.read_text())}, done.stdout


def test_bench_smoke_round_measures_every_built_path(tmp_path, feed_unsigned, single_file):
    for need in (bench.PY, bench.GNU_TIME):
        if not os.path.exists(need):
            needs.missing('%s is missing (apt-get install %s)' % (need, 'time' if need == bench.GNU_TIME
                                                                  else 'python3'))
    rows, printed = bench_round(tree_with_single_files(tmp_path, single_file), tmp_path, feed_unsigned[0])
    assert rows['floor: /usr/bin/python3 -c pass']['wall'] > 0
    for name, row in rows.items():
        check_row(name, row)
    measured = [name for name, row in rows.items() if not row['missing']]
    if not FULL:
        assert len(measured) == 2 + SAMPLE, measured
        return
    assert not rows['%s unchanged, url' % bench.PROVIDERS[0].provider]['missing']
    providers = {a.provider for a in bench.ALL}
    assert {a.provider for a in bench.ALL if '%s unchanged, url' % a.provider in rows} == providers
    # what the LuCI page asks on each load and refresh: measured in both forms a router runs, no request
    page = [name for name in rows if name.startswith(('ddkit --status --json --all', 'ddkit --providers --json'))]
    assert len(page) == 4 and all(not rows[n]['missing'] and set(map(tuple, rows[n]['requests'])) == {()}
                                  for n in page), {n: rows[n]['missing'] for n in page}
    https = [name for name, row in rows.items() if row['table'] == 'https']
    # each seed tool: 3 cases x 2 CA layouts; the first one's unchanged rows again with the public modules
    assert len([n for n in https if 'DDKIT_PUBLIC_ONLY=1' in n]) == 2
    assert len(https) == 12 + 2 and (not shutil.which('openssl') or not any(rows[n]['missing'] for n in https))
    peers = [name for name, row in rows.items() if row['table'] == 'peers']
    assert len(peers) == len(bench_peers.TOOLS) * len(bench_peers.CASES) * len(bench_peers.TRANSPORTS)
    assert '| row | updater_a CPU ms | NewFuture/DDNS CPU ms | ddclient CPU ms |' in printed


def check_row(name, row):
    """What one row of the round must show: measured right, or skipped saying why."""
    if row['table'] == 'peers':
        return check_peer_row(name, row)
    if row['missing']:   # everything it runs is built: only a reference or the iface paths may be skipped
        assert row['missing'].startswith('skipped:'), (name, row['missing'])
        return
    assert row['errors'] == [], (name, row['errors'])
    assert row['wall'] > 0 and row['rss'] > 0, name
    calls = set(tuple(c) for c in row['requests'])
    if any('unchanged, %s' % kind in name for kind in ('iface', 'prefix', 'neigh')) or 'records, iface' in name:
        assert calls == {()}, (name, calls)
    elif 'unchanged, url' in name or name.startswith(('ddclient', 'sh + curl')):
        assert calls == {('lookup',)}, (name, calls)
    elif 'on_change + healthcheck_url' in name:   # issue 18: one ping, the hook not run
        assert calls == {('lookup', 'ping')}, (name, calls)
    elif 'A and AAAA of one name' in name:
        assert calls == {('list_records', 'list_zones', 'update_record', 'update_record')}, (name, calls)
    elif ' changed, ids' in name:   # the provider's own row of a change with stored ids
        adapter = bench.adapter_of(name.split(' ', 1)[0])
        assert calls == {tuple(sorted(adapter.calls['updated with stored ids'] + ['lookup']))}, (name, calls)
    elif 'first run, ' in name and 'HTTPS' in name:   # no record, no state: found, then made
        count = 6 if '6 records' in name else 1
        want = ['create_record'] * count + ['list_records', 'list_zones', 'lookup'] + ['resolve'] * count \
            + (['get_token'] if 'auth_file' in bench.adapter_of(name.split(' ', 1)[0]).files else [])
        assert calls == {tuple(sorted(want))}, (name, calls)
    elif name.startswith(('ddkit --status --json --all', 'ddkit --providers --json')):   # the LuCI page's
        assert calls == {()}, (name, calls)
    if 'HTTPS' in name:   # one TCP+TLS connection per host the run talked to
        assert row['cpu'] > 0 and all(c == h for c, h in row['connections']), (name, row['connections'])
        assert row['connections'][-1][1] == (1 if 'unchanged' in name else 3), (name, row['connections'])


def check_peer_row(name, row):
    """A row beside ddclient and NewFuture/DDNS: the peer run or skipped with how to install it (a test
    never installs them), every run that ran sent what it must and left the record right; ours kept
    the record's TTL and comment."""
    _, case, transport, tool = row['budget']
    if row['missing']:
        assert row['missing'].startswith('skipped:'), (name, row['missing'])
        if row['missing'] == 'skipped: not in the sample of make test':
            return
        # updater_a always runs over HTTP; the HTTPS rows need the openssl command
        assert tool != 'updater_a' or (transport != 'http' and not shutil.which('openssl')), name
        if tool in ('ddns', 'ddclient') and not bench_peers.missing(tool):   # installed, yet skipped:
            assert (tool, case, transport) == ('ddclient', 'changed', 'http'), name   # its https:// only
        return
    assert row['errors'] == [], (name, row['errors'])
    assert row['wall'] > 0 and row['rss'] > 0 and row['cpu'] > 0, name
    assert set(tuple(c) for c in row['requests']) == {bench_peers.EXPECTED[case][tool]}, (name, row['requests'])
    assert row['outcomes'] and all(right for right, _, _ in row['outcomes']), (name, row['outcomes'])
    if tool == 'updater_a':
        assert all((ttl, comment) == (bench_peers.TTL, bench_peers.COMMENT)
                   for _, ttl, comment in row['outcomes']), (name, row['outcomes'])


def test_ddclient_config_names_usev4_and_quotes_the_password(tmp_path, box):
    """use=no beside usev4 (3.10 keeps use=ip as a default and updates every other run without it), the
    password quoted (unquoted, ddclient keeps the comma after it), the API's base as server=, the CA
    set by its own option; both files only their owner's (ddclient warns and chmods otherwise)."""
    conf, cache = tmp_path / 'ddclient.conf', tmp_path / 'ddclient.cache'
    bench_peers.ddclient_conf(str(conf), box.lookup.url, box.provider_a, 'example.com', 'h.example.com')
    lines = conf.read_text().splitlines()
    assert 'use=no, usev4=webv4, webv4=%s/' % box.lookup.url in lines and 'ssl=no' in lines
    assert "password='%s', server=%s/client/v4" % (box.provider_a.key, box.provider_a.url.split('://')[1]) in lines[-2]
    assert lines[-1] == 'h.example.com'
    bench_peers.ddclient_conf(str(conf), box.lookup.url, box.provider_a, 'example.com', 'h.example.com',
                              str(tmp_path))
    assert 'ssl_ca_dir=%s' % tmp_path in conf.read_text() and 'ssl=yes' in conf.read_text()
    bench_peers.ddclient_cache(str(cache), '3.10.0', 'h.example.com', '81.2.69.10', 1000)
    assert cache.read_text().splitlines() == [
        '## ddclient-3.10.0', 'atime=0,host=h.example.com,ipv4=81.2.69.10,mtime=1000,status=,status-ipv4=good,wtime=30 '
        'h.example.com']
    assert (conf.stat().st_mode & 0o777, cache.stat().st_mode & 0o777) == (0o600, 0o600)


def test_the_fake_answers_the_peers_calls_as_the_api_does(box):
    """ddclient's zones at /zones/ and its PATCH (only the fields sent change: TTL and comment stay),
    NewFuture's name.exact filter (one record, not the zone's every record)."""
    import urllib.request
    fake = box.provider_a
    bench_peers.prepare_fake(fake)
    bench_peers.prepare_fake(fake)   # twice: no second route
    assert fake.route_names().count('patch_record') == 1
    kept = fake.add_record(box.zone_a, 'h.example.com', 'A', '81.2.69.1', ttl=300, comment='home router')
    fake.add_record(box.zone_a, 'other.example.com', 'A', '81.2.69.5')
    headers = {'X-Auth-Email': fake.email, 'X-Auth-Key': fake.key, 'Content-Type': 'application/json'}

    def call(method, path, body=None):
        request = urllib.request.Request(fake.url + '/client/v4' + path, method=method, headers=headers,
                                         data=json.dumps(body).encode() if body else None)
        with urllib.request.urlopen(request) as answer:
            return json.loads(answer.read())['result']
    assert [z['id'] for z in call('GET', '/zones/?name=example.com')] == [box.zone_a]
    listed = call('GET', '/zones/%s/dns_records?name.exact=h.example.com&type=A&per_page=10000' % box.zone_a)
    assert [r['id'] for r in listed] == [kept]
    call('PATCH', '/zones/%s/dns_records/%s' % (box.zone_a, kept), {'content': '81.2.69.10'})
    assert {k: fake.records[kept][k] for k in ('content', 'ttl', 'comment')} == {
        'content': '81.2.69.10', 'ttl': 300, 'comment': 'home router'}
    assert fake.calls() == ['list_zones', 'list_records', 'patch_record']


def test_the_peer_budget_is_judged_against_the_cheaper_peer_that_came_out_right():
    """updater_a's CPU against the cheaper peer's on the same row; a peer whose run did not leave
    the record right, or is not installed, is not the yardstick."""
    class Bench:
        paths = []

    def row(case, tool, ms, right=True, missing=None):
        path = bench.Path('%s %s' % (case, tool), budget=('peer', case, 'http', tool))
        path.peer, path.missing = True, missing
        path.cpus = path.walls = [ms / 1000.0] if ms else []
        path.requests = [bench_peers.EXPECTED[case][tool]]
        path.outcomes = [(right, bench_peers.TTL, bench_peers.COMMENT)]
        Bench.paths.append(path)
        return path
    ours = row('unchanged', 'updater_a', 20)
    row('unchanged', 'ddns', 100)
    row('unchanged', 'ddclient', 60)
    fast = row('changed', 'updater_a', 20)
    row('changed', 'ddns', 70, right=False)   # the cheaper one, but its record did not end right
    row('changed', 'ddclient', None, missing='skipped: not installed')
    lines = {name: (ratio, result) for name, _, ratio, result in bench_peers.budgets(Bench)}
    assert lines['no change, HTTP'] == (('ddclient', pytest.approx(20 / 60.0)), 'MISSED')
    assert lines['change, HTTP'] == (None, 'not judged: no peer measured')
    assert bench_peers.verdict(ours, Bench)[1] == "MISSED: CPU 0.33x ddclient's"
    assert bench_peers.verdict(fast, Bench)[1] == 'not judged: no peer measured'
    Bench.paths[1].cpus = [0.08]   # NewFuture at 80 ms: still ddclient's 60 ms is the cheaper
    ours.cpus = [0.012]
    assert bench_peers.verdict(ours, Bench)[1] == "ok (0.20x ddclient's)"
    assert bench_peers.times(0.2504) == '0.250x' and bench_peers.times(0.2549) == '0.255x'


@pytest.mark.parametrize('tool', ['updater_a', 'updater_b', 'egress6', 'egress6_win'])
def test_single_file_fits_the_flash_budget(tmp_path, single_file, tool):
    size = os.path.getsize(single_file(tool, tmp_path))
    assert size <= bench.SINGLE_BUDGET, '%s single file is %d bytes (budget %d, BENCHMARKS.md)' % (
        tool, size, bench.SINGLE_BUDGET)
    assert standalone.BUDGET == bench.SINGLE_BUDGET


def held_providers(path):
    return ['ddkit.providers.' + name for name in bench.packed_providers(path)]


# what a router copies: the ddkit command with the one provider it uses (make standalone PROVIDERS=<name>);
# every provider module under make test-full, a few of them under make test (bench's size rows: the largest)
@pytest.mark.parametrize('provider', sampled(standalone.registered(), 3))
def test_the_ddkit_command_of_one_provider_fits_the_flash_budget(tmp_path, single_file, provider):
    path = single_file('ddkit', tmp_path, '--providers', provider)
    assert held_providers(path) == ['ddkit.providers.' + provider]
    size = os.path.getsize(path)
    assert size <= bench.SINGLE_BUDGET, 'ddkit single file of %s is %d bytes (budget %d, BENCHMARKS.md)' % (
        provider, size, bench.SINGLE_BUDGET)


def test_the_ddkit_command_of_every_provider_fits_its_own_budget(tmp_path, single_file):
    path = single_file('ddkit', tmp_path)
    assert sorted(held_providers(path)) == sorted('ddkit.providers.' + name for name in standalone.registered())
    size = os.path.getsize(path)
    assert size <= bench.ALL_PROVIDERS_BUDGET, 'ddkit single file is %d bytes (budget %d, BENCHMARKS.md)' % (
        size, bench.ALL_PROVIDERS_BUDGET)
    assert standalone.ALL_PROVIDERS_BUDGET == bench.ALL_PROVIDERS_BUDGET > bench.SINGLE_BUDGET


@full_only
def test_the_size_rows_hold_each_ddkit_command_to_its_budget(tmp_path, single_file):
    """bench's size rows: dist/ddkit.py of every provider against its budget, or of the providers it
    was built with against a single file's; and the file of the largest provider alone, as the build
    writes it."""
    single_file('ddkit', tmp_path)
    rows = {name: (size, budget, verdict) for name, size, budget, verdict in bench.sizes(str(tmp_path))}
    assert rows['dist/ddkit.py (every provider)'] == (os.path.getsize(str(tmp_path / 'ddkit.py')),
                                                      bench.ALL_PROVIDERS_BUDGET, 'ok')
    assert rows['dist/updater_a.py'] == (None, bench.SINGLE_BUDGET, 'not built yet (make standalone)')
    largest = [name for name in rows if name.startswith('ddkit.py of one provider, the largest')]
    assert len(largest) == 1, sorted(rows)
    provider = largest[0].split('PROVIDERS=')[1].rstrip(')')
    size = os.path.getsize(single_file('ddkit', tmp_path / 'one', '--providers', provider))
    assert rows[largest[0]] == (size, bench.SINGLE_BUDGET, 'ok')
    import providers
    chosen = (providers.PROVIDERS[0], providers.NOIP)   # a module, and a preset: its protocol's module
    single_file('ddkit', tmp_path, '--providers', ','.join(a.provider for a in chosen))
    rows = {name: (size, budget, verdict) for name, size, budget, verdict in bench.sizes(str(tmp_path))}
    assert rows['dist/ddkit.py (providers %s)' % ', '.join(a.module_name for a in chosen)] == (
        os.path.getsize(str(tmp_path / 'ddkit.py')), bench.SINGLE_BUDGET, 'ok')
    assert 'dist/ddkit.py (every provider)' not in rows


@pytest.mark.parametrize('tool', UPDATERS)
@pytest.mark.usefixtures('native_interfaces')
def test_changed_ip_path_loads_no_json_package_or_http_client(box, tmp_path, tool):
    env = env_for(box, tool, tmp_path / 'state', TMPDIR=str(tmp_path))
    first = run_tool(tool, env=env)  # zone, record, ids (and token) found and cached
    assert 'IP has been updated to' in first.stdout, first.stdout + first.stderr
    box.lookup.answer = '81.2.69.11'
    done = run_tool(tool, env=env, flags=['-X', 'importtime'])
    assert 'IP has been updated to: 81.2.69.11' in done.stdout, done.stdout + done.stderr
    modules = set(imported(done))
    assert 'ddkit.jsontext' in modules
    assert not HTTP_LOOKUP_FORBIDDEN & modules, sorted(HTTP_LOOKUP_FORBIDDEN & modules)
