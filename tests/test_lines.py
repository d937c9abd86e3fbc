"""One name, every line: a home whose router holds an address of each operator's delegated prefix
(China Telecom 240e, China Mobile 2409, China Unicom 2408) publishes each on that operator's
resolution line, and one on the default line, at the providers with lines; as several records of the
name at a provider without them. Run in a network namespace whose interface holds the three prefixes (and a LAN
host behind it), against the fakes started inside that namespace; after each run the test checks what
each fake holds, line by line, and the requests the run made."""

import json
import os
import re

import pytest

from conftest import run_tool, sampled
from providers import PROVIDERS

RECORD = 'home.example.com'
CT, CM, CU = '240e:1:2:3::10', '2409:8a00:1:2::10', '2408:8000:1:2::10'
CT2 = '240e:1:2:99::10'   # China Telecom renumbered the prefix
LOOKUP = False   # the lab fixture (conftest.py) starts no lookup server
ADAPTERS = {adapter.provider: adapter for adapter in PROVIDERS}


def lines_of(provider):
    """The provider's names of its lines (its LINES), or None."""
    return getattr(ADAPTERS[provider].module(), 'LINES', None)


def several(provider):
    return getattr(ADAPTERS[provider].module(), 'SEVERAL', False)


# the providers that publish lines and can be read back: with resolution lines, or several records
LINED = [a.provider for a in PROVIDERS if not a.told and (lines_of(a.provider) or several(a.provider))]
# one that holds each line as a record of the name (no lines), read back: the tests of the loop's part
SEVERAL = [p for p in LINED if not lines_of(p)][:1]
WITH_LINES = [p for p in LINED if lines_of(p)][:1]   # one with resolution lines, where a test needs one
ONE_ADDRESS = [a.provider for a in PROVIDERS if not lines_of(a.provider) and not several(a.provider)]
TEMPLATED = [a.provider for a in PROVIDERS if hasattr(a.module(), 'lines_problem')]


def expected(provider, held, default='ct'):
    """What the fake should hold: {line name: [address]} ({None: every address} at a provider without
    lines); held: {code: address} of the lines that have one."""
    names = lines_of(provider)
    if not names:
        return {None: sorted(held.values())} if held else {}
    found = {names[code]: [ip] for code, ip in held.items()}
    order = [default] + [code for code in ('ct', 'cm', 'cu') if code != default]
    for code in order:
        if code in held:
            found[names['default']] = [held[code]]
            break
    return found


def tidy(by_line):
    """A fake's by_line without the lines that hold nothing."""
    return {line: values for line, values in by_line.items() if values}


class Home:
    """The lab's router namespace with wan0 holding one address of each operator's prefix, the fakes
    started inside it, and a state directory."""

    def __init__(self, lab, tmp_path, provider, addresses=(CT, CM, CU)):
        import netns
        from sandbox import Sandbox
        self.lab, self.provider = lab, provider
        lab.link('wan0', list(addresses))
        with netns.inside(lab.host):
            self.box = Sandbox(every=True)
        self.adapter = ADAPTERS[provider]
        self.adapter.needs()
        self.fake = self.box.fakes[provider]
        self.state = tmp_path / 'state'
        self.state.mkdir(mode=0o700)
        self.env = dict(self.adapter.env(self.box, self.state), DDNS_PROVIDER=provider, DDNS_RECORD_TYPE='AAAA',
                        DDNS_IP_SOURCE='iface:wan0', DDNS_LINES='ct cm cu')

    def run(self, *args, **env):
        before = len(self.fake.requests)
        done = run_tool('ddkit', list(args), env=dict(self.env, **env), prefix=self.lab.prefix())
        assert 'Traceback' not in done.stdout + done.stderr, done.stdout + done.stderr
        self.requests = len(self.fake.requests) - before
        return done

    def held(self):
        return tidy(self.fake.by_line(RECORD, 'AAAA'))

    def drop(self, address):
        import netns
        netns.sh(['ip', '-n', self.lab.host, 'addr', 'del', address + '/64', 'dev', 'wan0'])

    def add(self, address):
        self.lab.add_address('wan0', address)

    def stop(self):
        self.box.stop()


@pytest.fixture
def home(lab, tmp_path, request):
    built = Home(lab, tmp_path, request.param)
    yield built
    built.stop()


def ok(done):
    assert done.returncode == 0, done.stdout + done.stderr
    return done


# every provider with lines under make test-full; make test four spread over them (each provider's own
# test file runs its lines in-process)
@pytest.mark.parametrize('home', sampled(LINED, 4), indirect=True)
def test_each_line_on_its_own_record_through_a_line_going_and_coming_back(home):
    provider = home.provider
    ok(home.run())
    assert home.held() == expected(provider, {'ct': CT, 'cm': CM, 'cu': CU})
    # unchanged: no request at all
    ok(home.run())
    assert home.requests == 0
    # China Mobile's line goes down: its record goes, the others stay untouched
    home.drop(CM)
    done = ok(home.run())
    assert home.held() == expected(provider, {'ct': CT, 'cu': CU})
    assert home.requests <= 2, home.requests   # the stored ids' read (where it is one) and the delete
    assert 'line cm' in done.stdout and 'Removed' in done.stdout
    ok(home.run())
    assert home.requests == 0   # a line already removed costs nothing
    # it comes back: created again
    home.add(CM)
    ok(home.run())
    assert home.held() == expected(provider, {'ct': CT, 'cm': CM, 'cu': CU})
    assert home.requests <= 3, home.requests
    # China Telecom renumbers: its record and the default line's change, nothing else
    home.drop(CT)
    home.add(CT2)
    ok(home.run())
    assert home.held() == expected(provider, {'ct': CT2, 'cm': CM, 'cu': CU})
    # without lines: what healing a drift costs there (a read, the write; Spaceship deletes, then saves)
    assert home.requests <= (4 if lines_of(provider) else len(home.adapter.calls['drift healed'])), home.requests
    # China Telecom goes: the default line takes the next line's address, never left empty
    home.drop(CT2)
    done = ok(home.run())
    assert home.held() == expected(provider, {'cm': CM, 'cu': CU})
    if lines_of(provider):
        assert 'the default line takes line cm' in done.stdout


@pytest.mark.parametrize('home', sampled(LINED, 3), indirect=True)
def test_a_line_gone_after_the_state_was_lost_has_its_record_removed(home, tmp_path):
    """The state directory emptied (a reboot with state_dir in RAM) while the provider holds every
    line's record, then China Telecom's prefix withdrawn: the first run finds the telecom record and
    removes it; later runs while the line stays down make no request."""
    ok(home.run())
    assert home.held() == expected(home.provider, {'ct': CT, 'cm': CM, 'cu': CU})
    rebooted = tmp_path / 'rebooted'
    rebooted.mkdir(mode=0o700)
    home.drop(CT)
    done = ok(home.run(DDNS_STATE_DIR=str(rebooted)))
    assert home.held() == expected(home.provider, {'cm': CM, 'cu': CU}), done.stdout
    assert 'line ct' in done.stdout and 'Removed' in done.stdout and CT in done.stdout
    ok(home.run(DDNS_STATE_DIR=str(rebooted)))
    assert home.requests == 0
    # a line never seen up, the state lost again: looked for once, found absent, then nothing sent
    for path in rebooted.iterdir():
        path.unlink()
    done = ok(home.run(DDNS_STATE_DIR=str(rebooted)))
    assert 'holds no' in done.stdout and 'line ct' in done.stdout
    assert json.loads(ok(home.run('--status', '--json', DDNS_STATE_DIR=str(rebooted))).stdout)[0]['outcome'] == 'no-ip'
    ok(home.run(DDNS_STATE_DIR=str(rebooted)))
    assert home.requests == 0
    home.add(CT)
    ok(home.run(DDNS_STATE_DIR=str(rebooted)))
    assert home.held() == expected(home.provider, {'ct': CT, 'cm': CM, 'cu': CU})


@pytest.mark.parametrize('home', SEVERAL, indirect=True)
def test_line_gone_keep_leaves_the_record(home):
    ok(home.run())
    home.drop(CU)
    done = ok(home.run(DDNS_LINE_GONE='keep'))
    assert home.held() == expected(home.provider, {'ct': CT, 'cm': CM, 'cu': CU})
    assert home.requests == 0 and 'Line cu has no address' in done.stdout


@pytest.mark.parametrize('home', SEVERAL, indirect=True)
def test_default_line_chooses_the_default_lines_address(home):
    # at a provider without lines the default line is the record of the line whose files are the record's own
    ok(home.run(DDNS_DEFAULT_LINE='cu'))
    assert home.held() == expected(home.provider, {'ct': CT, 'cm': CM, 'cu': CU})
    ip_file = home.adapter.files['ip_file']
    names = sorted(os.listdir(str(home.state)))
    assert ip_file % (RECORD + '_AAAA') in names and ip_file % (RECORD + '_AAAA@ct') in names
    assert (home.state / (ip_file % (RECORD + '_AAAA'))).read_text() == CU + '\n'


@pytest.mark.parametrize('home', SEVERAL, indirect=True)
def test_a_records_old_files_are_taken_over_by_its_default_line(home):
    """A record kept before it had lines: its ids and one-line ip file name the record the default
    line's job takes, so no second record of that address is made."""
    zone = home.box.zones[home.provider]
    rid = home.fake.add_record(zone, RECORD, 'AAAA', CT)
    (home.state / (home.adapter.files['ids_file'] % (RECORD + '_AAAA'))).write_text('%s\n%s\n' % (zone, rid))
    (home.state / (home.adapter.files['ip_file'] % (RECORD + '_AAAA'))).write_text(CT + '\n')
    ok(home.run())
    assert home.held() == expected(home.provider, {'ct': CT, 'cm': CM, 'cu': CU})
    assert rid in home.fake.records   # the old record is line ct's now
    assert [c for c in home.fake.calls() if c.startswith('create')] == ['create_record'] * 2


@pytest.mark.parametrize('home', SEVERAL, indirect=True)
def test_status_json_check_and_hooks_name_each_line(home, tmp_path):
    hook = tmp_path / 'hook.sh'
    seen = tmp_path / 'seen'
    hook.write_text('#!/bin/sh\necho "$DDNS_HOOK_LINE $DDNS_HOOK_OUTCOME $DDNS_HOOK_NEW_IP" >> %s\n' % seen)
    os.chmod(str(hook), 0o755)
    ok(home.run(DDNS_ON_CHANGE=str(hook)))
    assert sorted(seen.read_text().split('\n')[:-1]) == sorted(
        ['ct created %s' % CT, 'cm created %s' % CM, 'cu created %s' % CU])
    for path in home.state.glob('.*.status'):   # decided a minute ago: the next run is a later one
        path.write_text(''.join('%s=%s\n' % (k, int(v) - 60 if k in ('checked', 'changed') else v)
                                for k, v in (line.split('=', 1) for line in path.read_text().splitlines())))
    home.drop(CM)
    ok(home.run(DDNS_ON_CHANGE=str(hook)))
    assert seen.read_text().split('\n')[-2] == 'cm removed '
    removed = json.loads(ok(home.run('--status', '--json')).stdout)[1]['changed']
    ok(home.run(DDNS_ON_CHANGE=str(hook)))   # the line still down: nothing sent, nothing told
    assert home.requests == 0 and seen.read_text().split('\n')[-2] == 'cm removed '
    shown = json.loads(ok(home.run('--status', '--json')).stdout)
    # ct and cu: found in place by the later run (nothing written), cm's record removed (and still so)
    assert [(s['line'], s['outcome'], s['ip'], s['changed']) for s in shown[1:2]] == [('cm', 'removed', None, removed)]
    assert [(s['line'], s['outcome'], s['ip']) for s in shown] == [
        ('ct', 'unchanged', CT), ('cm', 'removed', None), ('cu', 'unchanged', CU)]
    assert 'line cm: removed, ip unknown' in ok(home.run('--status')).stdout
    checked = home.run('--check')
    assert checked.returncode == 0, checked.stdout + checked.stderr
    out = checked.stdout
    assert 'current IP of line ct %s (from interface wan0)' % CT in out
    assert 'line cm is down: no address from interface wan0' in out
    assert 'AAAA record %s line cm does not exist: the line has no address, so none is created' % RECORD in out
    assert 'AAAA record %s line cu found' % RECORD in out


def parts(out):
    """{line code: its lines of a --check run of a record with lines} (the default line's: 'default')."""
    found, code = {}, None
    for text in out.splitlines():
        if text.startswith('Record '):
            code = text.rstrip(':').rpartition(' line ')[2] if ' line ' in text else 'default'
        elif code:
            found.setdefault(code, []).append(text)
    return found


@pytest.mark.parametrize('home', SEVERAL + WITH_LINES, indirect=True)
@pytest.mark.parametrize('source', ['iface:nope0', 'prefix:nope0/::1', 'neigh:nope0/00:16:3e:44:55:66'])
def test_check_fails_a_line_whose_source_cannot_give_an_address(home, source):
    """No such interface is a FAIL of each line it is the source of (a run would remove their
    records); the lines of a working source are ok beside it, and the run's exit status says it."""
    done = home.run('--check', DDNS_IP_SOURCE=source)
    assert done.returncode == 1, done.stdout
    for code in ('ct', 'cm', 'cu'):
        failed = [text for text in parts(done.stdout)[code] if text.startswith('FAIL')]
        assert len(failed) == 1 and 'current IP of line %s' % code in failed[0], done.stdout
        assert 'nope0' in failed[0] and '(ip_source from DDNS_IP_SOURCE)' in failed[0]
        assert 'fix: name an interface this host has' in failed[0]
    done = home.run('--check', DDNS_LINES='ct cm=iface:nope0 cu')
    assert done.returncode == 1, done.stdout
    failed = {code: [text for text in said if text.startswith('FAIL')] for code, said in parts(done.stdout).items()}
    assert failed['ct'] == failed['cu'] == [] and len(failed['cm']) == 1, done.stdout
    assert 'interface nope0 does not exist (lines from DDNS_LINES)' in failed['cm'][0]


@pytest.mark.parametrize('home', SEVERAL + WITH_LINES, indirect=True)
def test_check_says_one_thing_of_a_line_that_is_down(home):
    """A line whose interface holds no address of its prefix is down, no FAIL: its record, while
    there, is what a run removes; once removed, none is created until the line has an address."""
    ok(home.run())
    home.drop(CM)
    for then in ('removes it', 'none is created until it has one'):
        done = ok(home.run('--check'))
        said = parts(done.stdout)['cm']
        assert [text for text in said if text.startswith('ok    line cm is down: no address from interface wan0')]
        record = [text for text in said if text.startswith(('ok    AAAA record %s line cm' % RECORD,
                                                             'ok    AAAA recordset %s line cm' % RECORD))]
        assert len(record) == 1 and record[0].endswith(then), done.stdout
        assert 'created on the first update' not in ' '.join(said) and not [t for t in said if 'FAIL' in t]
        ok(home.run())   # the line's record removed


@pytest.mark.parametrize('provider', SEVERAL)
def test_a_lan_host_gets_one_address_per_delegated_prefix(lab, tmp_path, provider):
    """prefix: with lines: the host's address in each operator's prefix of the interface."""
    home = Home(lab, tmp_path, provider, addresses=())
    try:
        for address in (CT, CM, CU):
            lab.add_address('wan0', address)
        done = ok(home.run(DDNS_IP_SOURCE='prefix:wan0/::1a2b:3c4d:5e6f:7890'))
        assert home.held() == expected(home.provider, {
            'ct': '240e:1:2:3:1a2b:3c4d:5e6f:7890', 'cm': '2409:8a00:1:2:1a2b:3c4d:5e6f:7890',
            'cu': '2408:8000:1:2:1a2b:3c4d:5e6f:7890'}), done.stdout
    finally:
        home.stop()


@pytest.mark.parametrize('provider', SEVERAL)
def test_a_line_of_its_own_source_any_family(lab, tmp_path, provider):
    """ct=iface:ppp-ct: an A record per PPPoE line, each address from its own interface."""
    import netns
    home = Home(lab, tmp_path, provider, addresses=())
    try:
        for name, address in (('ppp-ct', '81.2.69.10/32'), ('ppp-cm', '81.2.69.20/32')):
            netns.sh(['ip', '-n', lab.host, 'link', 'add', name, 'type', 'veth', 'peer', 'name', name + '-peer'])
            netns.sh(['ip', '-n', lab.host, 'addr', 'add', address, 'dev', name])
            for end in (name, name + '-peer'):
                netns.sh(['ip', '-n', lab.host, 'link', 'set', end, 'up'])
        ok(home.run(DDNS_RECORD_TYPE='A', DDNS_LINES='ct=iface:ppp-ct cm=iface:ppp-cm'))
        assert tidy(home.fake.by_line(RECORD, 'A')) == {None: ['81.2.69.10', '81.2.69.20']}
    finally:
        home.stop()


REFUSED = [(p, {}, 'provider %s holds one address per name' % p) for p in ONE_ADDRESS] + [
    (p, {}, 'put {line} in the url, body or a header') for p in TEMPLATED] + [
    (p, env, says) for p in SEVERAL for env, says in [
        ({'DDNS_RECORD_TYPE': 'A'}, 'for an A record give its IPv4 source'),
        ({'DDNS_IP_SOURCE': 'url'}, 'url gives one address'),
        ({'DDNS_LINES': 'ct ct'}, 'ct given twice'),
        ({'DDNS_DEFAULT_LINE': 'cu', 'DDNS_LINES': 'ct cm'}, 'default_line cu is not one of lines'),
        ({'DDNS_LINES': 'ct xx'}, 'a line is ct, cm, cu'),
        ({'DDNS_LINES': 'ct=url'}, 'not url'),
        ({'DDNS_LINES': 'ct=prefix:wan0/::1', 'DDNS_RECORD_TYPE': 'A'}, 'needs record_type AAAA')]]


@pytest.mark.parametrize('provider, env, says', REFUSED)
@pytest.mark.parametrize('check', [False, True], ids=['run', 'check'])
def test_lines_that_cannot_be_run_are_refused_before_anything_is_sent(box, tmp_path, monkeypatch, capsys, call_tool,
                                                                       provider, env, says, check):
    """Refused as the settings are read: ddkit's main called in this process."""
    adapter = ADAPTERS[provider]
    base = dict(adapter.env(box, tmp_path), DDNS_PROVIDER=provider, DDNS_RECORD_TYPE='AAAA',
                DDNS_IP_SOURCE='iface:lo', DDNS_LINES='ct cm cu')
    status, out, err = call_tool('ddkit', ['--check'] if check else [], dict(base, **env), monkeypatch, capsys)
    assert status == 2, out + err
    assert says in err, err
    assert not box.fakes[provider].requests and not os.listdir(str(tmp_path))


@pytest.mark.parametrize('home', SEVERAL, indirect=True)
def test_all_runs_the_lines_of_each_record(home, tmp_path):
    """--all: a record with lines beside one without, from one config file."""
    conf = tmp_path / 'records.conf'
    conf.write_text('[home]\nrecord_name=%s\nlines=ct cm cu\n[nas]\nrecord_name=nas.example.com\n' % RECORD)
    os.chmod(str(conf), 0o600)
    env = dict(home.env, DDNS_LINES='', DDNS_RECORD_NAME='')
    done = ok(home.run('--all', '--config', str(conf), **env))
    assert 'All 1 record and 3 lines of 1 other record done.' in done.stdout
    assert home.held() == expected(home.provider, {'ct': CT, 'cm': CM, 'cu': CU})
    assert [r['content'] for r in home.fake.find('nas.example.com', 'AAAA')] in ([CT], [CM], [CU])
    ok(home.run('--all', '--config', str(conf), **env))
    assert home.requests == 0


@pytest.mark.parametrize('home', WITH_LINES, indirect=True)
def test_a_run_counts_the_lines_of_a_record_as_lines(home):
    """A record with lines runs each line on its own (and the default line): the run's last line counts
    them as lines of one record, not as records."""
    routes = home.fake.route_names()
    home.fake.fail('status', route='create_line_record' if 'create_line_record' in routes else 'create_record',
                   status=403, text='refused by the test')
    done = home.run()
    assert done.returncode == 1, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert re.search(r'1 of 4 lines of 1 record failed: AAAA %s line (ct|cm|cu|default) \(exit 1\)$' % RECORD,
                     said, re.M), said
    assert 'All 4 lines of 1 record done.' in ok(home.run()).stdout


@pytest.mark.parametrize('failing, says', [
    ('cm', '1 of 5 failed (2 records and 3 lines of 1 other record): nas: AAAA nas.example.cn line cm (exit 1)'),
    ('A', '1 of 5 failed (2 records and 3 lines of 1 other record): home: A home.example.cn (exit 1)')])
def test_a_failed_run_of_records_and_lines_counts_them_all_first(capsys, failing, says):
    """Records beside a record's lines: the count of all comes first, then what they were; never
    '1 of 2 records and 3 lines of 1 other record failed', which reads as two counts. --check says the
    line as the run logs it."""
    from ddkit import updater
    from ddkit.provider import Run
    args = type('Args', (), {'on': {'check'}})()
    outcomes = [('home: %s home.example.cn' % family, 1 if family == failing else 0, None) for family in ('A', 'AAAA')]
    outcomes += [('nas: AAAA nas.example.cn line %s' % code, 1 if code == failing else 0,
                  ('nas', 'AAAA', 'nas.example.cn')) for code in ('ct', 'cm', 'default')]
    assert updater.finish('ddkit', args, outcomes, Run(True)) == 1
    assert capsys.readouterr().out.splitlines()[-1] == says


@pytest.mark.parametrize('home', SEVERAL, indirect=True)
def test_one_ping_a_run_whatever_its_lines(home):
    """The lines of a record are pinged for once, at the end: success after a run that created them
    and after one that removed a line's record; none while a kept line has no address (nothing judged)."""
    import netns
    from fakes.healthcheck import HealthCheck
    with netns.inside(home.lab.host):
        check = HealthCheck().start()
    try:
        ok(home.run(DDNS_HEALTHCHECK_URL=check.check_url))
        assert check.pings == ['success']
        home.drop(CM)
        ok(home.run(DDNS_HEALTHCHECK_URL=check.check_url))
        assert check.pings == ['success'] * 2
        home.drop(CU)
        ok(home.run(DDNS_HEALTHCHECK_URL=check.check_url, DDNS_LINE_GONE='keep'))
        assert check.pings == ['success'] * 2
    finally:
        check.stop()


@pytest.mark.parametrize('provider', TEMPLATED)
def test_a_webhook_is_told_each_lines_address_once(lab, tmp_path, provider):
    """{line} in the URL: one request a line, none when unchanged, none for a line gone (nothing can
    be removed there)."""
    home = Home(lab, tmp_path, provider)
    try:
        home.fake.open = True   # takes any name: the line's in the path
        url = home.fake.url + '/hook/{line}.{name}?ip={ip}&type={type}'
        ok(home.run(DDNS_URL=url))
        assert {r['name']: r['content'] for r in home.fake.records.values()} == {
            'ct.' + RECORD: CT, 'cm.' + RECORD: CM, 'cu.' + RECORD: CU}
        assert home.requests == 3
        ok(home.run(DDNS_URL=url))
        assert home.requests == 0
        home.drop(CM)
        done = ok(home.run(DDNS_URL=url))
        assert home.requests == 0 and 'Line cm has no address' in done.stdout
    finally:
        home.stop()


@pytest.mark.parametrize('provider', WITH_LINES + SEVERAL)
def test_a_nas_behind_the_router_gets_a_record_per_line_from_the_neighbour_table(lab, tmp_path, provider):
    """neigh: with lines: a host on br-lan (in a namespace of its own) holding an address in each
    delegated prefix, learnt from the router's IPv6 neighbour table, one per line."""
    import netns
    mac, nas = '00:16:3e:44:55:66', {'ct': '240e:1:2:3::5', 'cm': '2409:8a00:1:2::5', 'cu': '2408:8000:1:2::5'}
    home = Home(lab, tmp_path, provider, addresses=())
    try:
        netns.sh(['ip', '-n', lab.host, 'link', 'add', 'br-lan', 'type', 'veth', 'peer', 'name', 'nas0',
                  'address', mac, 'netns', lab.server])
        for router, host in zip((CT, CM, CU), nas.values()):
            netns.sh(['ip', '-n', lab.host, 'addr', 'add', router + '/64', 'dev', 'br-lan', 'nodad'])
            netns.sh(['ip', '-n', lab.server, 'addr', 'add', host + '/64', 'dev', 'nas0', 'nodad'])
        for ns, name in ((lab.server, 'nas0'), (lab.host, 'br-lan')):
            netns.sh(['ip', '-n', ns, 'link', 'set', name, 'up'])
        lab.wait_state('br-lan', running=True)
        for router, host in zip((CT, CM, CU), nas.values()):   # the router learns each address of the NAS
            netns.sh(['ip', 'netns', 'exec', lab.server, 'ping', '-6', '-c', '1', '-W', '5', '-I', host, router])
        done = ok(home.run(DDNS_IP_SOURCE='neigh:br-lan/' + mac))
        assert home.held() == expected(provider, nas), done.stdout
        ok(home.run(DDNS_IP_SOURCE='neigh:br-lan/' + mac))
        assert home.requests == 0
    finally:
        home.stop()


# --- where the lines go, said plainly (issue 52 item 3) ---------------------------------------------

def providers_with_lines():
    """The registered providers with operator lines, from their declarations (LINES), in registry order."""
    from providers import registry
    known = registry()
    return [str(name) for name in known.PROVIDERS
            if not isinstance(name, known.Preset) and getattr(known.provider(name), 'LINES', None)]


@pytest.mark.parametrize('provider', sampled(ONE_ADDRESS))
def test_lines_refused_at_a_provider_of_one_address_name_the_providers_with_lines(provider):
    """The refusal names the providers with operator lines as its caller derives them from their
    declarations (the ddkit command, which alone may load every provider: ddkit.choice), else the
    document that lists them."""
    import types
    names = providers_with_lines()   # (the library on the path)
    from ddkit import lines
    cfg = types.SimpleNamespace(lines=['ct', 'cu'], default_line=None, ip_source='iface:lo',
                                sources={'record_type': 'environment'})
    module = ADAPTERS[provider].module()
    problem = lines.refused(module, cfg, 'AAAA', providers_with_lines)
    assert problem.exit_status == 2 and problem.setting == 'lines'
    assert 'use a provider with operator lines (%s: docs/lines.md)' % ', '.join(names) in problem.fix
    assert problem.fix in str(problem)
    assert 'docs/lines.md lists them' in lines.refused(module, cfg, 'AAAA').fix


@pytest.mark.parametrize('provider', sampled(ONE_ADDRESS))
def test_the_ddkit_command_refusing_lines_names_the_providers_with_lines(
        box, tmp_path, monkeypatch, capsys, call_tool, provider):
    env = dict(ADAPTERS[provider].env(box, tmp_path), DDNS_PROVIDER=provider, DDNS_RECORD_TYPE='AAAA',
               DDNS_IP_SOURCE='iface:lo', DDNS_LINES='ct cu')
    status, out, err = call_tool('ddkit', ['--check'], env, monkeypatch, capsys)
    assert status == 2, out + err
    assert 'use a provider with operator lines (%s: docs/lines.md)' % ', '.join(providers_with_lines()) in err, err


@pytest.mark.parametrize('home', SEVERAL + WITH_LINES, indirect=True)
def test_a_provider_without_operator_lines_says_where_the_lines_records_go(home):
    """No operator lines (several records of the name instead): --check says so once, on a note
    line, and a run's line creating each record; a provider with lines says nothing of the kind."""
    plainly = 'provider %s has no operator lines: ' % home.provider
    names = '(docs/lines.md names the providers with operator lines)'
    checked = ok(home.run('--check'))
    notes = [text for text in checked.stdout.splitlines() if text.startswith('note  lines: ')]
    created = [text for text in ok(home.run()).stdout.splitlines() if 'Created AAAA' in text]
    assert len(created) == (3 if several(home.provider) else 4), created
    if lines_of(home.provider):
        assert notes == [] and not [text for text in created if plainly in text]
        return
    assert len(notes) == 1 and notes[0].startswith('note  lines: ' + plainly + "each line's record is one of the "
                                                   "name's records") and notes[0].endswith(names), checked.stdout
    assert notes[0] in parts(checked.stdout)['ct']   # said once, at the record's first line
    assert all(plainly + "this line's record is one of the name's records" in text for text in created), created


def test_lines_md_lists_each_provider_with_lines_and_what_the_others_do():
    """docs/lines.md's table of the providers with operator lines holds each one's line values as its
    LINES declares them; each other provider module is named where its kind of provider is."""
    from providers import registry
    known = registry()
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'docs', 'lines.md'),
              encoding='utf-8') as f:
        text = f.read()
    section = text.split('## What each provider holds', 1)[1].split('\n## ', 1)[0]
    rows = {cells[0].strip('`'): [cell.strip('`') for cell in cells[1:]]
            for cells in ([cell.strip() for cell in row.strip().strip('|').split('|')]
                          for row in section.splitlines() if row.startswith('| `'))}
    declared = {name: [known.provider(name).LINES[code] for code in ('ct', 'cm', 'cu', 'default')]
                for name in providers_with_lines()}
    assert {name: cells[:4] for name, cells in rows.items()} == declared
    several_ = section.split('**Several records of a name**', 1)[1].split('\n\n', 1)[0]
    refused = section.split('**Refused**', 1)[1].split('\n\n', 1)[0]
    told = section.split("**Told each line's address:**", 1)[1].split('\n\n', 1)[0]
    for name in known.modules():
        module = known.provider(name)
        if getattr(module, 'LINES', None):
            continue
        where = refused if not getattr(module, 'SEVERAL', False) else told if hasattr(module, 'send_ip') else several_
        assert '`%s`' % name in where, 'docs/lines.md does not name %s where it belongs' % name
