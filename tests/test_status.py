"""Status as data: each record's last outcome kept in its state directory and read by --status (a
line per record) and --status --json (the keys of docs/status.md), for every provider, against the
fakes over real HTTP. An unchanged run after a good one writes nothing (flash): its time is read from
the log line it appended."""

import json
import os
import time

import pytest

from conftest import RECORD, in_process, sampled
from providers import PROVIDERS, SEEDS

OLD, NEW = '81.2.69.1', '81.2.69.10'
KEYS = ['name', 'type', 'provider', 'ip', 'outcome', 'checked', 'changed', 'step', 'message', 'fix', 'code',
        'http_status', 'url', 'kind', 'line', 'section']
# every provider under make test-full; make test samples three (the status is the shared loop's)
EACH = pytest.mark.parametrize('adapter', sampled(PROVIDERS, 3), ids=[p.provider for p in sampled(PROVIDERS, 3)])


def status(adapter, box, state, command=None, args=()):
    """(exit status, the JSON --status --json printed)."""
    env = dict(adapter.env(box, state), DDNS_PROVIDER=adapter.provider)
    done = in_process(command or adapter.tool, ['--status', '--json'] + list(args), env=env)
    assert 'Traceback' not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def update(adapter, box, state, **env):
    done = in_process(adapter.tool, env=dict(adapter.env(box, state), **env))
    assert 'Traceback' not in done.stderr, done.stderr
    return done


def status_file(adapter, state):
    return state / ('.%s_%s.status' % (adapter.stem, RECORD))


@EACH
def test_a_record_never_run_then_updated_then_unchanged(box, tmp_path, adapter):
    code, shown = status(adapter, box, tmp_path)
    assert code == 0 and len(shown) == 1 and list(shown[0]) == KEYS
    assert shown[0]['outcome'] == 'never' and shown[0]['provider'] == adapter.provider
    assert shown[0]['name'] == RECORD and shown[0]['type'] == 'A' and shown[0]['ip'] is None
    assert os.listdir(str(tmp_path)) == []   # --status writes nothing

    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    before = time.time()
    assert update(adapter, box, tmp_path).returncode == 0
    code, (values,) = status(adapter, box, tmp_path)
    assert code == 0 and values['outcome'] == 'updated' and values['ip'] == NEW
    assert before - 1 <= values['changed'] <= time.time() and values['checked'] == values['changed']
    assert values['step'] is None and values['message'] is None

    # an unchanged run without a request writes no status: its time comes from its log line
    path = status_file(adapter, tmp_path)
    text = path.read_text().replace('checked=%d' % values['checked'], 'checked=%d' % (values['checked'] - 1000))
    path.write_text(text)
    os.utime(str(path), (values['checked'] - 1000,) * 2)
    calls = len(adapter.fake(box).calls())
    again = update(adapter, box, tmp_path)
    assert again.returncode == 0 and 'IP has not changed' in again.stdout
    assert len(adapter.fake(box).calls()) == calls and path.read_text() == text
    changed = values['changed']
    code, (values,) = status(adapter, box, tmp_path)
    # the change was found in place: unchanged, at the later run's time, the change's time kept
    assert values['outcome'] == 'unchanged' and values['checked'] >= time.time() - 60
    assert values['changed'] == changed and values['ip'] == NEW


@EACH
def test_a_failure_is_kept_as_fields_and_the_next_good_run_replaces_it(box, tmp_path, adapter):
    adapter.add(box, RECORD, 'A', OLD)
    (tmp_path / adapter.ip_file(RECORD)).write_text(OLD + '\n')
    box.lookup.answer = NEW
    env = adapter.env(box, tmp_path)
    # a setting secret as a whole (a URL's secret is its key alone: tests/test_webhook.py); none given
    # by the environment where a file holds it (a service account's key file)
    secret = ([env[s.env] for s in adapter.module().SETTINGS if s.secret is True and s.env in env] + [None])[0]
    adapter.fake(box).fail('status', times=10, status=500, text='upstream down, key %s' % secret)
    assert update(adapter, box, tmp_path).returncode == 1
    code, (values,) = status(adapter, box, tmp_path)
    # a DNS server's SERVFAIL (DNS UPDATE's provider) is no HTTP status
    http = adapter.fake(box).url.startswith('http')
    assert code == 1 and values['outcome'] == 'failed' and values['http_status'] == (500 if http else None)
    # the first request of its run: a told provider's is the update itself
    first = ('update record',) if adapter.told else ('find zone', 'get token')
    assert values['step'] in first and values['kind'] == 'server error'
    assert values['url'].startswith(adapter.fake(box).url) and '?' not in values['url'] if http else \
        values['url'] is None
    # the service's words where it has some (a DNS answer has an RCODE alone)
    assert values['message'].startswith(values['step'] + ': ') and ('upstream down' in values['message'] or not http)
    assert secret is None or secret not in status_file(adapter, tmp_path).read_text()
    line = in_process(adapter.tool, ['--status'], env=adapter.env(box, tmp_path))
    assert line.returncode == 1 and ': failed, ' in line.stdout and \
        'failed at %s: ' % values['step'] in line.stdout, line.stdout

    del adapter.fake(box).faults[:]   # the provider is back
    assert update(adapter, box, tmp_path).returncode == 0
    code, (values,) = status(adapter, box, tmp_path)
    assert code == 0 and values['outcome'] == 'updated' and values['ip'] == NEW and values['step'] is None


@EACH
def test_no_valid_ip_is_kept_and_the_ip_the_provider_holds_stays(box, tmp_path, adapter):
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = OLD
    assert update(adapter, box, tmp_path).returncode == 0
    box.lookup.answer = '10.0.0.1'   # a private address: no valid IP
    assert update(adapter, box, tmp_path).returncode == 0
    code, (values,) = status(adapter, box, tmp_path)
    assert code == 0 and values['outcome'] == 'no-ip' and values['ip'] == OLD


@pytest.mark.parametrize('adapter', SEEDS, ids=[p.provider for p in SEEDS])
def test_ddkit_reads_the_status_the_seed_tool_kept(box, tmp_path, adapter):
    box.lookup.answer = NEW
    assert update(adapter, box, tmp_path).returncode == 0
    code, (values,) = status(adapter, box, tmp_path, command='ddkit')
    assert code == 0 and values['outcome'] == 'created' and values['provider'] == adapter.provider


def test_all_lists_every_record_never_for_one_not_run(box, tmp_path):
    a = PROVIDERS[0]
    box.lookup.answer = NEW
    assert update(a, box, tmp_path).returncode == 0
    env = a.env(box, tmp_path)
    config = tmp_path / 'records.conf'
    shared = ''.join('%s=%s\n' % (k[5:].lower(), v) for k, v in env.items() if k != 'DDNS_RECORD_NAME')
    config.write_text(shared + '[home]\nrecord_name=%s\n[nas]\nrecord_name=nas.example.com\n' % RECORD)
    config.chmod(0o600)
    requests = [len(s.calls()) for s in box.servers]
    done = in_process(a.tool, ['--config', str(config), '--all', '--status', '--json'])
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert [(v['name'], v['outcome']) for v in shown] == [(RECORD, 'created'), ('nas.example.com', 'never')]
    plain = in_process(a.tool, ['--config', str(config), '--all', '--status'])
    assert plain.stdout.splitlines()[1] == '%s A nas.example.com: never (no run has decided yet)' % a.provider
    assert [len(s.calls()) for s in box.servers] == requests   # nothing asked of anyone


def test_json_without_status_is_refused(box, tmp_path):
    done = in_process('updater_a', ['--json'], env=PROVIDERS[0].env(box, tmp_path))
    assert done.returncode == 2 and '--json goes with --status' in done.stderr


@EACH
def test_the_first_unchanged_run_after_no_valid_ip_says_so(box, tmp_path, adapter):
    """A line back after an outage: the IP as the ip file claims, no request, and the status no
    longer says no-ip (the one write of such a run)."""
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    assert update(adapter, box, tmp_path).returncode == 0
    box.lookup.answer = '10.0.0.1'
    assert update(adapter, box, tmp_path).returncode == 0
    assert status(adapter, box, tmp_path)[1][0]['outcome'] == 'no-ip'
    box.lookup.answer = NEW
    calls = len(adapter.fake(box).calls())
    again = update(adapter, box, tmp_path)
    assert again.returncode == 0 and 'IP has not changed' in again.stdout
    assert len(adapter.fake(box).calls()) == calls
    code, (values,) = status(adapter, box, tmp_path)
    assert values['outcome'] == 'unchanged' and values['ip'] == NEW


def test_a_damaged_status_or_ip_file_is_shown_bounded_and_escaped_never_a_traceback(box, tmp_path):
    a = PROVIDERS[0]
    status_file(a, tmp_path).write_text('outcome=failed\nchecked=%s\nchanged=1e9\nstatus=123456789\n'
                                        'step=find zone\x1b[2J\nmessage=forged\x07\n' % ('9' * 60))
    (tmp_path / a.ip_file(RECORD)).write_text('not an address\n')
    code, (values,) = status(a, box, tmp_path)
    assert code == 1 and values['outcome'] == 'failed' and values['ip'] is None
    assert values['checked'] is None and values['changed'] is None and values['http_status'] is None
    assert values['step'] == 'find zone\\x1b[2J' and values['message'] == 'forged\\x07'
    plain = in_process(a.tool, ['--status'], env=a.env(box, tmp_path))
    assert plain.returncode == 1 and 'Traceback' not in plain.stderr, plain.stderr
    assert '\x1b' not in plain.stdout and 'checked never' in plain.stdout, plain.stdout


def aged(text, seconds):
    """A log's text with every line's time moved back by seconds (as if written then)."""
    out = []
    for line in text.splitlines():
        stamp, sep, rest = line.partition('] - ')
        then = time.mktime(time.strptime(stamp[1:], '%Y-%m-%d %H:%M:%S')) - seconds
        out.append('[%s] - %s' % (time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(then)), rest))
    return '\n'.join(out) + '\n'


def shared_log_records(a, box, tmp_path, log, home='home'):
    """write(nas_enabled): a UCI file of two records, home (an anonymous section when home is None) and
    nas, of provider a, that write one log_file; written at once with nas enabled."""
    options = {k[5:].lower(): v for k, v in a.env(box, tmp_path).items() if k not in ('DDNS_RECORD_NAME', 'DDNS_PROVIDER')}
    defaults = ''.join('\toption %s \'%s\'\n' % (k, v) for k, v in options.items())
    uci = tmp_path / 'ddkit.uci'

    def write(nas_enabled):
        uci.write_text("config defaults\n%s\toption log_file '%s'\n\toption provider '%s'\n\n"
                       "config ddkit%s\n\toption enabled '1'\n\toption record_name '%s'\n\n"
                       "config ddkit 'nas'\n\toption enabled '%d'\n\toption record_name 'nas.example.com'\n"
                       % (defaults, log, a.provider, " '%s'" % home if home else '', RECORD, nas_enabled))
        uci.chmod(0o600)
    write(1)
    return write


def test_a_shared_log_file_gives_each_record_its_own_last_run(box, tmp_path):
    """Two records of one UCI file write one log_file: an unchanged run of one of them is that one's
    later run alone (the other keeps its own time and outcome), and the change it found in place
    shows as unchanged, with no status written."""
    a, log = PROVIDERS[0], tmp_path / 'shared.log'
    box.lookup.answer = NEW
    write = shared_log_records(a, box, tmp_path, log)
    run = dict(DDNS_UCI_FILE=str(tmp_path / 'ddkit.uci'))
    assert in_process('ddkit', ['--all'], env=run).returncode == 0
    # both made an hour ago: their status files and the log say so
    for name in (RECORD, 'nas.example.com'):
        path = tmp_path / ('.%s_%s.status' % (a.stem, name))
        kept = dict(line.split('=', 1) for line in path.read_text().splitlines())
        assert kept['outcome'] == 'created'
        kept['checked'] = kept['changed'] = str(int(kept['checked']) - 3600)
        path.write_text(''.join('%s=%s\n' % item for item in kept.items()))
    log.write_text(aged(log.read_text(), 3600))
    write(0)   # only home runs now, and finds its record in place
    statuses = sorted(tmp_path.glob('.*.status'))
    before = [p.read_text() for p in statuses]
    calls = len(a.fake(box).calls())
    done = in_process('ddkit', ['--all'], env=run)
    assert done.returncode == 0 and len(a.fake(box).calls()) == calls
    assert [p.read_text() for p in statuses] == before   # nothing written but the log line
    write(1)
    done = in_process('ddkit', ['--all', '--status', '--json'], env=run)
    assert done.returncode == 0, done.stderr
    home, nas = json.loads(done.stdout)
    assert (home['name'], home['section'], nas['section']) == (RECORD, 'home', 'nas')
    assert home['outcome'] == 'unchanged' and home['checked'] >= time.time() - 60
    assert home['changed'] <= time.time() - 3500
    assert nas['outcome'] == 'created' and nas['checked'] <= time.time() - 3500


def kept_values(path):
    return dict(line.split('=', 1) for line in path.read_text().splitlines())


def write_kept(path, kept):
    path.write_text(''.join('%s=%s\n' % item for item in kept.items()))


@EACH
def test_a_second_run_in_the_same_second_is_the_one_status_shows(box, tmp_path, adapter):
    """Order, not the clock: an unchanged run right after an update (a user trying it by hand) is what
    --status shows, though both ran within one second, and though the clock went back between them
    (a router's first NTP step). Its time is taken as the kept `checked`, so the two are one second
    whatever the machine's speed."""
    adapter.add(box, RECORD, 'A', OLD)
    box.lookup.answer = NEW
    assert update(adapter, box, tmp_path).returncode == 0
    path = status_file(adapter, tmp_path)
    written = path.read_text()
    assert kept_values(path)['outcome'] == 'updated'
    again = update(adapter, box, tmp_path)
    assert again.returncode == 0 and 'IP has not changed' in again.stdout and path.read_text() == written
    log = tmp_path / ('%s_%s.log' % (adapter.stem, RECORD))
    second = int(log.stat().st_mtime)
    for kept_second in (second, second + 3600):   # the same second; a clock an hour ahead of the later run's
        kept = kept_values(path)
        kept['checked'] = kept['changed'] = str(kept_second)
        write_kept(path, kept)
        code, (values,) = status(adapter, box, tmp_path)
        assert code == 0 and values['outcome'] == 'unchanged' and values['checked'] == second, values
        assert values['changed'] == kept_second and values['ip'] == NEW
    # no run after it: the status's own outcome and time, whatever the log's time says
    forced = in_process(adapter.tool, ['--force'], env=adapter.env(box, tmp_path))
    assert forced.returncode == 0, forced.stderr
    kept = kept_values(path)
    assert kept['log'].split(':')[:2] == ['%d' % log.stat().st_ino, '%d' % log.stat().st_size]
    os.utime(str(log), (time.time() + 7200,) * 2)
    code, (values,) = status(adapter, box, tmp_path)
    assert values['outcome'] == kept['outcome'] and values['checked'] == int(kept['checked'])


def test_a_run_whose_own_log_was_cut_since_is_a_later_run(box, tmp_path):
    """A record's own log made anew (cut past its bound: a new file) was written by a later run of the
    record, even in the status's second."""
    a = PROVIDERS[0]
    box.lookup.answer = NEW
    assert update(a, box, tmp_path).returncode == 0
    path, log = status_file(a, tmp_path), tmp_path / ('%s_%s.log' % (a.stem, RECORD))
    assert kept_values(path)['outcome'] == 'created'
    lines = log.read_text().splitlines(True)
    log.unlink()   # its inode free: the file the next cut makes may get it back, never its first line
    log.write_text(''.join(lines[1:]))
    log.chmod(0o600)
    kept = kept_values(path)
    kept['checked'] = str(int(log.stat().st_mtime))
    write_kept(path, kept)
    code, (values,) = status(a, box, tmp_path)
    assert values['outcome'] == 'unchanged' and values['checked'] == int(log.stat().st_mtime)


def test_a_shared_log_tells_each_record_its_last_run_by_order(box, tmp_path):
    """Two records of one UCI file write one log_file, and run again within their second: the one
    that ran again shows that run (unchanged), the other its own (created), by where their lines
    stand in the log against where it ended when each status was written."""
    a, log = PROVIDERS[0], tmp_path / 'shared.log'
    box.lookup.answer = NEW
    write = shared_log_records(a, box, tmp_path, log)
    run = dict(DDNS_UCI_FILE=str(tmp_path / 'ddkit.uci'))
    assert in_process('ddkit', ['--all'], env=run).returncode == 0
    write(0)   # only home runs now, and finds its record in place
    assert in_process('ddkit', ['--all'], env=run).returncode == 0
    last = log.read_text().splitlines()[-2]   # home's heading of the second run
    assert last.endswith('- Record home: A %s:' % RECORD), log.read_text()
    second = int(time.mktime(time.strptime(last[1:20], '%Y-%m-%d %H:%M:%S')))
    for name in (RECORD, 'nas.example.com'):   # both statuses written in that very second
        path = tmp_path / ('.%s_%s.status' % (a.stem, name))
        kept = kept_values(path)
        assert kept['outcome'] == 'created'
        kept['checked'] = kept['changed'] = str(second)
        write_kept(path, kept)
    write(1)
    done = in_process('ddkit', ['--all', '--status', '--json'], env=run)
    home, nas = json.loads(done.stdout)
    assert home['outcome'] == 'unchanged' and home['checked'] == second
    assert nas['outcome'] == 'created' and nas['checked'] == second


@pytest.mark.parametrize('home, ref, heading', [('home', 'home', 'home'), (None, 'cfg023d95', '@ddkit[0]')],
                         ids=['named', 'anonymous, by its id'])
def test_a_section_run_alone_is_the_last_run_status_shows(box, tmp_path, home, ref, heading):
    """The page's Update now runs one section (--uci home; an anonymous one by the cfgXXXXXX id LuCI
    gives it) where the service runs them all (--all, which names an anonymous one @ddkit[n]): in a log
    the records share, the run alone is headed as the service's are, so --status --all shows it
    (unchanged, its time), the other record its own."""
    from ddkit import uci
    assert ref == ('home' if home else uci.anonymous_id(2, 'ddkit'))   # the second section of the file
    a, log = PROVIDERS[0], tmp_path / 'shared.log'
    box.lookup.answer = NEW
    shared_log_records(a, box, tmp_path, log, home)
    run = dict(DDNS_UCI_FILE=str(tmp_path / 'ddkit.uci'))
    assert in_process('ddkit', ['--all'], env=run).returncode == 0
    for name in (RECORD, 'nas.example.com'):   # both made an hour ago
        path = tmp_path / ('.%s_%s.status' % (a.stem, name))
        kept = kept_values(path)
        kept['checked'] = kept['changed'] = str(int(kept['checked']) - 3600)
        write_kept(path, kept)
    log.write_text(aged(log.read_text(), 3600))
    done = in_process('ddkit', ['--uci', ref], env=run)
    assert done.returncode == 0 and 'IP has not changed' in done.stdout, done.stdout + done.stderr
    assert log.read_text().splitlines()[-2].endswith('- Record %s: A %s:' % (heading, RECORD)), log.read_text()
    home, nas = json.loads(in_process('ddkit', ['--all', '--status', '--json'], env=run).stdout)
    assert home['outcome'] == 'unchanged' and home['checked'] >= time.time() - 60
    assert nas['outcome'] == 'created' and nas['checked'] <= time.time() - 3500
