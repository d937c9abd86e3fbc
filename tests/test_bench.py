"""The cheap paths stay cheap: which modules a cron run that finds nothing to do loads (a behaviour,
not a timing: speed itself is measured by `make bench`), and the bench harness itself, in one quick
smoke round so that it cannot rot."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, run_tool
from providers import TOOLS  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, 'tools'))
import bench  # noqa: E402
import standalone  # noqa: E402
import needs  # noqa: E402

# never on a path that makes no request (the rule for the iface path), nor their usual
# companions; a plain-http lookup needs no ssl either
# a run that sends no request loads no HTTP code of ours either (a provider imports ddkit.http when it
# calls; the URL settings are checked with ddkit.urls): ~120 KiB of a router's peak memory
NO_REQUEST_FORBIDDEN = {'ssl', '_ssl', 'http', 'http.client', 'urllib', 'urllib.parse', 'email', 'json',
                        'socket', 'ipaddress', 're', 'argparse', 'logging', 'subprocess', 'ddkit.wire',
                        'ddkit.http', 'struct', '_struct'}
HTTP_LOOKUP_FORBIDDEN = {'ssl', '_ssl', 'http.client', 'urllib', 'email', 'json', 'socket', 'ipaddress',
                         're', 'argparse', 'logging', 'subprocess', 'ddkit.check'}
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


def single_file(tool, tmp_path):
    """dist/<tool>.py built now by tools/standalone.py (the file a router runs)."""
    out = str(tmp_path / (tool + '.py'))
    subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'standalone.py'),
                    os.path.join(ROOT, 'bin', tool + '.py'), out], check=True)
    return out


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
def test_unchanged_iface_path_loads_no_http_json_or_ipaddress(netns, box, tmp_path, tool, rtype, address,
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


def tree_with_single_files(tmp_path):
    """A copy of the checkout with dist/<tool>.py of the updaters built in it, as `make bench` builds
    them first: the bench runs the single files of its own tree's dist/, and a test run leaves no
    dist/ in the checkout (nor measures a stale one)."""
    tree = tmp_path / 'tree'
    shutil.copytree(ROOT, str(tree), ignore=shutil.ignore_patterns(
        '.git', '.venv*', 'dist', 'build', '__pycache__', '.pytest_cache'))
    for tool in UPDATERS:
        single_file(tool, tree / 'dist')
    return tree


def test_bench_smoke_round_measures_every_built_path(tmp_path):
    for need in (bench.PY, bench.GNU_TIME):
        if not os.path.exists(need):
            needs.missing('%s is missing (apt-get install %s)' % (need, 'time' if need == bench.GNU_TIME
                                                                  else 'python3'))
    tree = tree_with_single_files(tmp_path)
    out = tmp_path / 'bench.json'
    done = subprocess.run([sys.executable, str(tree / 'tools' / 'bench.py'), '--smoke', '--json', str(out)],
                          capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert '| path | wall ms |' in done.stdout
    rows = {r['name']: r for r in json.loads(out.read_text())}
    assert rows['floor: /usr/bin/python3 -c pass']['wall'] > 0
    for name, row in rows.items():
        if row['missing']:   # everything it runs is built: only a reference or the iface paths may be skipped
            assert row['missing'].startswith('skipped:'), (name, row['missing'])
            continue
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
        if 'HTTPS' in name:   # one TCP+TLS connection per host the run talked to
            assert row['cpu'] > 0 and all(c == h for c, h in row['connections']), (name, row['connections'])
            assert row['connections'][-1][1] == (1 if 'unchanged' in name else 3), (name, row['connections'])
    assert not rows['%s unchanged, url' % bench.PROVIDERS[0].provider]['missing']
    https = [name for name in rows if 'HTTPS' in name]
    # each seed tool: 3 cases x 2 CA layouts; the first one's unchanged rows again with the public modules
    assert len([n for n in https if 'DDKIT_PUBLIC_ONLY=1' in n]) == 2
    assert len(https) == 12 + 2 and (not shutil.which('openssl') or not any(rows[n]['missing'] for n in https))


@pytest.mark.parametrize('tool', ['ddkit', 'updater_a', 'updater_b', 'egress6', 'egress6_win'])
def test_single_file_fits_the_flash_budget(tmp_path, tool):
    size = os.path.getsize(single_file(tool, tmp_path))
    assert size <= bench.SINGLE_BUDGET, '%s single file is %d bytes (budget %d, BENCHMARKS.md)' % (
        tool, size, bench.SINGLE_BUDGET)
    assert standalone.BUDGET == bench.SINGLE_BUDGET


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
