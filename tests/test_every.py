"""ddkit --all --every SECONDS: run, wait, run again in one process (ddkit.updater.every), against the
fake provider A over real HTTP. The signals a container's stop sends, as a process gets them; the
loop's runs in this process, its pause replaced (updater.wait), to count hundreds of runs in a second
or two: what the runs keep must not grow, nor outlive the run that read it."""

import ast
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT, ZONE, run_tool, tool_path

sys.path.insert(0, os.path.join(ROOT, 'lib'))
from ddkit import registry, updater  # noqa: E402

PROVIDER = registry.PROVIDERS[0]   # provider A

NAMES = ('a.example.com', 'b.example.com')
OLD, NEW, NEWER = '81.2.69.1', '81.2.69.10', '81.2.69.20'


def config(box, state, tmp_path, *more):
    """A config file of two records at provider A's fake (mode 600): its path."""
    fake = box.fakes[PROVIDER]
    for name in NAMES:
        fake.add_record(box.zones[PROVIDER], name, 'A', OLD)
        box.doh.names[(name, 'A')] = [OLD]
    lines = ['provider=%s' % PROVIDER, 'zone_name=%s' % ZONE, 'ip_lookup_url=%s' % box.lookup.url,
             'doh_url=%s' % box.doh.url, 'state_dir=%s' % state] + list(more)
    lines += ['%s=%s' % (k[5:].lower(), v) for k, v in fake.settings().items()]
    for name in NAMES:
        lines += ['[%s]' % name.split('.')[0], 'record_name=%s' % name]
    path = tmp_path / 'ddkit.conf'
    path.write_text('\n'.join(lines) + '\n')
    path.chmod(0o600)
    return str(path)


def held(box):
    return [box.fakes[PROVIDER].find(name)[0]['content'] for name in NAMES]


class Runs:
    """updater.wait replaced: each pause counts a run and calls then(count); after `stop` runs, a
    SIGTERM to this process (its handler, the loop's, ends the loop between runs)."""

    def __init__(self, monkeypatch, stop, then=None):
        self.count, self.stop, self.then = 0, stop, then
        monkeypatch.setattr(updater, 'wait', self.wait)

    def wait(self, seconds):
        assert seconds == 60
        self.count += 1
        if self.then:
            self.then(self.count)
        if self.count >= self.stop:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)   # the handler raises before this ends


def test_runs_again_after_each_pause_and_sigterm_between_runs_exits_0(box, tmp_path, monkeypatch, capsys, call_tool):
    conf = config(box, tmp_path, tmp_path)
    answers = iter([NEWER])
    runs = Runs(monkeypatch, 2, then=lambda n: setattr(box.lookup, 'answer', next(answers, NEWER)))
    before = signal.getsignal(signal.SIGTERM)
    status, out, err = call_tool('ddkit', ['--all', '--config', conf, '--every', '60'], {}, monkeypatch, capsys)
    assert status == 0 and runs.count == 2, out + err
    assert held(box) == [NEWER, NEWER]
    # each run prints what a run of its own prints: its records' headings and its closing line
    assert out.count('All 2 records done.') == 2 and out.count('Record a: A a.example.com:') == 2
    assert 'IP has been updated to: %s' % NEW in out and 'IP has been updated to: %s' % NEWER in out
    assert signal.getsignal(signal.SIGTERM) == before   # the loop's handlers go with it


def test_a_failed_run_does_not_end_the_loop(box, tmp_path, monkeypatch, capsys, call_tool):
    conf = config(box, tmp_path, tmp_path)
    box.fakes[PROVIDER].fail('status', route='list_zones', times=10, status=500)
    runs = Runs(monkeypatch, 2, then=lambda n: box.fakes[PROVIDER].faults.clear())
    status, out, err = call_tool('ddkit', ['--all', '--config', conf, '--every', '60'], {}, monkeypatch, capsys)
    assert status == 0 and runs.count == 2
    assert '2 of 2 records failed' in out + err   # the first run
    assert out.count('All 2 records done.') == 1   # the second
    assert held(box) == [NEW, NEW]


def test_a_run_that_raises_is_said_and_the_next_one_runs(box, tmp_path, monkeypatch, capsys, call_tool):
    conf = config(box, tmp_path, tmp_path)
    from ddkit import reconcile
    real = reconcile.run
    calls = []

    def broken_once(job):
        calls.append(job.cfg.record_name)
        if len(calls) == 1:
            raise RuntimeError('a bug in the first run')
        return real(job)
    monkeypatch.setattr(reconcile, 'run', broken_once)
    Runs(monkeypatch, 2)
    status, out, err = call_tool('ddkit', ['--all', '--config', conf, '--every', '60'], {}, monkeypatch, capsys)
    assert status == 0
    assert 'RuntimeError: a bug in the first run' in err and 'Traceback' in err
    assert out.count('All 2 records done.') == 1 and held(box) == [NEW, NEW]


def test_each_run_reads_again_what_the_last_run_kept(box, tmp_path, monkeypatch, capsys, call_tool):
    """A checked value (a CA bundle that is there) is the run's, not the process's: the bundle gone,
    the next run says so, as a run of its own would."""
    bundle = tmp_path / 'ca.pem'
    bundle.write_text('not needed over http\n')
    conf = config(box, tmp_path, tmp_path, 'ca_file=%s' % bundle)
    Runs(monkeypatch, 2, then=lambda n: bundle.unlink(missing_ok=True))
    status, out, err = call_tool('ddkit', ['--all', '--config', conf, '--every', '60'], {}, monkeypatch, capsys)
    assert status == 0
    assert out.count('All 2 records done.') == 1
    assert 'bad value for ca_file' in err and 'is not a readable file or directory' in err


def test_every_module_cache_is_cleared_between_runs_or_said_to_hold_only_code():
    """A module-level dict or list in lib/ddkit is a cache: those a run fills for its records are
    updater.PER_RUN; the others hold what the code or the host's kind decides (or bound themselves)."""
    kept = {('ddkit', 'KEEP_DIR'), ('ddkit', 'PROXY'),   # reset by updater.fresh
            ('ddkit.wire', 'POOL'),                     # closed at each run's end (close_all)
            ('ddkit.choice', '_MINE'), ('ddkit.registry', '_PRESETS'), ('ddkit.provider', 'TOLD'),
            ('ddkit.jsontext', '_SCANNER'), ('ddkit.ipcheck', '_NETWORKS'), ('ddkit.updater', '_OPENWRT'),
            ('ddkit.log', '_STAMPS'), ('ddkit.ipcheck', '_PREFIXES')}   # the last two: bounded (STAMPS_KEPT, PREFIXES_KEPT)
    found = set()
    lib = os.path.join(ROOT, 'lib', 'ddkit')
    for name in os.listdir(lib):
        if not name.endswith('.py'):
            continue
        with open(os.path.join(lib, name), encoding='utf-8') as f:
            tree = ast.parse(f.read())
        module = 'ddkit' if name == '__init__.py' else 'ddkit.' + name[:-3]
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Dict, ast.List)) and \
                    not (node.value.keys if isinstance(node.value, ast.Dict) else
                         [e for e in node.value.elts if not (isinstance(e, ast.Constant) and e.value is None)]):
                found.update((module, t.id) for t in node.targets if isinstance(t, ast.Name))
    assert found - kept - set(updater.PER_RUN) == set()
    assert set(updater.PER_RUN) <= found


# The loop of bin/ddkit.py --every, its pause replaced, in a process of its own (the fakes serve from
# the test's): at pauses 100 and LAST, after a garbage collection and with the bounded cache of log
# time stamps emptied (log.STAMPS_KEPT: it may hold 64 entries either time), the memory blocks the
# interpreter holds; every tenth pause a new IP is asked for, from the test (its answer file).
DRIVER = r"""
import gc, importlib.util, os, signal, sys, time
tool, answer, last = sys.argv[1], sys.argv[2], int(sys.argv[3])
spec = importlib.util.spec_from_file_location('ddkit_command', tool)
command = importlib.util.module_from_spec(spec)
spec.loader.exec_module(command)
from ddkit import log, updater
count, held = [0], {}

def wait(seconds):
    count[0] += 1
    if count[0] % 10 == 0:
        with open(answer, 'w') as f:
            f.write(str(count[0]))
    if count[0] in (100, last):
        log._STAMPS.clear()
        gc.collect()
        held[count[0]] = sys.getallocatedblocks()
    if count[0] == last:
        print('blocks', held[100], held[last], file=sys.stderr)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)

updater.wait = wait
sys.exit(command.main(sys.argv[4:]))
"""


def test_memory_does_not_grow_run_to_run(box, tmp_path):
    """400 runs in one process, every tenth updating both records (the IP alternates), the others
    finding them settled: the interpreter holds no more memory blocks after the 400th than after the
    100th (a few dozen either way: what a run's last objects leave in the allocator)."""
    conf = config(box, tmp_path, tmp_path)
    answer, last = tmp_path / 'asked', 400
    asked = threading.Event()

    def answers():   # the fake lookup's answer follows what the driver asks for
        while not asked.wait(0.01):
            if answer.exists():
                box.lookup.answer = (NEW, NEWER)[int(answer.read_text() or 0) // 10 % 2]
    watcher = threading.Thread(target=answers)
    watcher.start()
    try:
        done = subprocess.run([sys.executable, '-c', DRIVER, tool_path('ddkit'), str(answer), str(last),
                               '--all', '--config', conf, '--every', '60', '--quiet'],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        asked.set()
        watcher.join()
    assert done.returncode == 0, done.stderr
    before, after = map(int, re.search(r'blocks (\d+) (\d+)', done.stderr).groups())
    print('memory blocks held after run 100: %d, after run %d: %d' % (before, last, after))
    assert box.fakes[PROVIDER].calls().count('update_record') >= 2 * 30   # updates all along
    assert after - before < 100, 'ddkit holds %d more memory blocks after %d more runs' % (after - before, last - 100)


@pytest.mark.parametrize('args', [['--every', '60'], ['--all', '--every', '59'], ['--all', '--every', '604801'],
                                  ['--all', '--every', '９０'], ['--all', '--every', '9' * 5000],
                                  ['--all', '--every', '60', '--status'], ['--all', '--every', '60', '--check']],
                         ids=['without --all', '59', 'a week and a second', 'fullwidth digits', '5000 digits',
                              '--status', '--check'])
def test_bad_every_exits_2_before_any_run(box, tmp_path, monkeypatch, capsys, call_tool, args):
    conf = config(box, tmp_path, tmp_path)
    monkeypatch.setattr(updater, 'wait', lambda seconds: pytest.fail('no run was to start'))
    status, out, err = call_tool('ddkit', ['--config', conf] + args, {}, monkeypatch, capsys)
    assert status == 2 and err == ('ddkit: --every takes whole seconds from 60 to 604800, and goes with --all, not '
                                   'with --check or --status; see --help\n'), err
    assert box.fakes[PROVIDER].calls() == [] and out == ''


def started(conf, tmp_path):
    """bin/ddkit.py --every 60 as a process of its own (as a container runs it)."""
    return subprocess.Popen([sys.executable, tool_path('ddkit'), '--all', '--config', conf, '--every', '60'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp_path))


def first_run(process):
    """The lines of the process's first run (read until its closing line)."""
    lines = []
    while not lines or 'records done.' not in lines[-1] and 'failed:' not in lines[-1]:
        line = process.stdout.readline()
        assert line, process.stderr.read()
        lines.append(line)
    return lines


@pytest.mark.parametrize('sent', [signal.SIGTERM, signal.SIGINT], ids=['SIGTERM', 'SIGINT'])
def test_a_signal_between_runs_ends_the_process_with_exit_0(box, tmp_path, sent):
    conf = config(box, tmp_path, tmp_path)
    process = started(conf, tmp_path)
    try:
        first_run(process)
        time.sleep(0.5)   # its closing line printed, it is waiting for the next run
        process.send_signal(sent)
        assert process.wait(10) == 0, process.stderr.read()
        assert process.stderr.read() == ''
    finally:
        process.kill()
        process.wait()
    assert held(box) == [NEW, NEW]


def test_sigterm_during_a_run_ends_it_as_a_kill_does_nothing_half_written(box, tmp_path):
    conf = config(box, tmp_path, tmp_path)
    fake = box.fakes[PROVIDER]
    hanging = threading.Event()
    fake.fail('hang', route='update_record', until=hanging, seconds=20)
    process = started(conf, tmp_path)
    try:
        deadline = time.monotonic() + 20
        while 'update_record' not in fake.calls():
            assert time.monotonic() < deadline and process.poll() is None, process.stderr.read()
            time.sleep(0.02)
        process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 128 + signal.SIGTERM
        err = process.stderr.read()
        assert err == 'ddkit: stopped by signal 15 during a run\n', err
    finally:
        hanging.set()
        process.kill()
        process.wait()
    made = sorted(os.listdir(str(tmp_path)))
    assert not [name for name in made if '.tmp' in name], made   # no temporary file left
    for name in made:
        if name.endswith('.log'):
            assert (tmp_path / name).read_text().endswith('\n')   # whole lines only
    # the ip file claims only what the provider took: a run of its own finishes the work, unhindered
    done = run_tool('ddkit', ['--all', '--config', conf])
    assert done.returncode == 0, done.stdout + done.stderr
    assert held(box) == [NEW, NEW]
    assert 'another run for this record is still going' not in done.stdout + done.stderr
    assert re.search(r'IP changed from %s to %s; updating A a\.example\.com' % (OLD, NEW), done.stdout) or \
        re.search(r'IP has been updated to: %s' % NEW, done.stdout), done.stdout
