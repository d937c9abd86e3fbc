#!/usr/bin/env python3
"""The sandbox: the fake providers and helper services on 127.0.0.1, no account needed.

usage: python3 tests/sandbox.py [demo|serve|--help]
  demo    (the default) run the updaters and ddkit against it (update, then unchanged) and show the log
  serve   keep it running and print the settings to point a tool at it (Ctrl-C stops it)
"""

import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from fakes.helpers import DoH, IpLookup  # noqa: E402

ROOT = os.path.dirname(HERE)
ZONE, RECORD = 'example.com', 'home.example.com'


class Started(dict):
    """A dict whose missing key is made by make(key) (which stores it): the fakes started on demand."""

    def __init__(self, make):
        dict.__init__(self)
        self.make = make

    def __missing__(self, key):
        self.make(key)
        return dict.__getitem__(self, key)


def fake_classes():
    """{provider: the fake that plays it}: every class of tests/fakes/ that names its PROVIDER, one
    for each provider of the registry (a provider without a fake is a missing part, said here)."""
    import importlib
    sys.path.insert(0, os.path.join(ROOT, 'lib'))
    from ddkit import registry
    found = {}
    for name in sorted(os.listdir(os.path.join(HERE, 'fakes'))):
        if name.endswith('.py') and not name.startswith('_'):
            module = importlib.import_module('fakes.' + name[:-3])
            found.update((cls.PROVIDER, cls) for cls in vars(module).values()
                         if isinstance(cls, type) and isinstance(getattr(cls, 'PROVIDER', None), str))
    missing = [name for name in registry.PROVIDERS if name not in found]
    if missing:
        raise RuntimeError('no fake in tests/fakes/ plays the provider %s (its class sets PROVIDER)'
                           % ', '.join(missing))
    return {name: found[name] for name in registry.PROVIDERS}


class Sandbox:
    """Every fake service, with one account and one zone: the lookup, DoH, and a fake of each provider
    of the registry (fakes[provider], zones[provider]; also provider_<letter>, zone_<letter> and
    env_<letter>, the letter its fake names). A provider's fake starts when it is first asked for:
    a test pays for the fakes it uses, not for every provider of the registry. every: all of them at
    once (one started inside a network namespace serves there; the bench counts every server's
    requests from the start)."""

    def __init__(self, tls_cert=None, every=False):
        self.tls_cert = tls_cert
        self.lookup = IpLookup('81.2.69.10', tls_cert).start()
        self.doh = DoH(tls_cert).start()
        self.classes = fake_classes()
        self.fakes, self.zones = Started(self.start), Started(self.start)
        for name in self.classes if every else ():
            self.start(name)

    def start(self, name):
        """Start the fake of a provider, with the zone; the fake."""
        if name not in self.classes:
            raise KeyError(name)
        fake = self.classes[name](tls_cert=self.tls_cert).start()
        dict.__setitem__(self.fakes, name, fake)
        dict.__setitem__(self.zones, name, fake.add_zone(ZONE))
        return fake

    @property
    def servers(self):
        """The servers started: the lookup, DoH and the fakes asked for so far."""
        return [self.lookup, self.doh] + list(self.fakes.values())

    def __getattr__(self, attribute):
        # provider_a, zone_a, env_a: by the letter a provider's fake names
        kind, _, letter = attribute.rpartition('_')
        names = [n for n, cls in self.__dict__.get('classes', {}).items() if cls.LETTER == letter]
        if kind not in ('provider', 'zone', 'env') or not names:
            raise AttributeError(attribute)
        name = names[0]
        if kind == 'env':
            return lambda state_dir: self.env_of(name, state_dir)
        return (self.fakes if kind == 'provider' else self.zones)[name]

    def env_of(self, provider, state_dir):
        """The DDNS_* environment that points a tool of this provider at the sandbox."""
        return dict(self.fakes[provider].settings(), DDNS_ZONE_NAME=ZONE, DDNS_RECORD_NAME=RECORD,
                    DDNS_DOH_URL=self.doh.url, DDNS_IP_LOOKUP_URL=self.lookup.url, DDNS_STATE_DIR=state_dir)

    def stop(self):
        """Stop every server started, together: each waits for its serving loop's next turn."""
        import threading
        stopping = [threading.Thread(target=server.stop) for server in self.servers]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()


# the tools start as the project starts them: isolated, site-less Python (python3 -I -S)
ISOLATED = [sys.executable, '-I', '-S']


def demo():
    box = Sandbox()
    box.provider_a.add_record(box.zone_a, RECORD, 'A', '81.2.69.1', ttl=300, proxied=True)
    box.doh.names[(RECORD, 'A')] = ['81.2.69.1']
    try:
        with tempfile.TemporaryDirectory() as state:
            env = dict(os.environ, **box.env_a(state))
            tool = os.path.join(ROOT, 'bin', 'updater_a.py')
            print('\n== updater A --check: is it set up right? (read-only) ==', flush=True)
            status = subprocess.call(ISOLATED + [tool, '--check'], env=env)
            print('(exit status %d)' % status)
            box.provider_a.reset_log()
            for title in ('first run: the record holds 81.2.69.1, the lookup says 81.2.69.10',
                          'second run: nothing changed'):
                print('\n== updater A, %s ==' % title, flush=True)
                status = subprocess.call(ISOLATED + [tool], env=env)
                print('(exit status %d)' % status)
            record = box.provider_a.find(RECORD)[0]
            print('\nThe record at the fake provider A now: %s %s ttl=%s proxied=%s'
                  % (record['name'], record['content'], record['ttl'], record['proxied']))
            print('Requests it received: %s' % ', '.join(box.provider_a.calls()))
            for name in sorted(os.listdir(state)):
                if name.endswith('.log'):
                    print('\n== the log file %s ==' % name)
                    with open(os.path.join(state, name)) as f:
                        print(f.read().rstrip())
        demo_b(box)
        demo_ddkit(box)
    finally:
        box.stop()


def demo_b(box):
    """Updater B twice against the fake provider B: a token and an update, then nothing to do."""
    box.provider_b.add_record(box.zone_b, RECORD, 'A', ['81.2.69.1'], ttl=300)
    with tempfile.TemporaryDirectory() as state:
        env = dict(os.environ, **box.env_b(state))
        tool = os.path.join(ROOT, 'bin', 'updater_b.py')
        for title in ('first run: no token yet, the recordset holds 81.2.69.1, the lookup says 81.2.69.10',
                      'second run: nothing changed'):
            print('\n== updater B, %s ==' % title, flush=True)
            status = subprocess.call(ISOLATED + [tool], env=env)
            print('(exit status %d)' % status)
        record = box.provider_b.find(RECORD)[0]
        print('\nThe recordset at the fake provider B now: %s %s %s ttl=%s (%s)'
              % (record['name'], record['type'], record['records'], record['ttl'], record['description']))
        print('Requests it received: %s' % ', '.join(box.provider_b.calls()))
        for name in sorted(os.listdir(state)):
            if not name.endswith(('.txt', '.log')):
                continue
            with open(os.path.join(state, name)) as f:
                text = f.read().rstrip()
            if name.startswith('.hw-token'):
                expiry, _, token = text.partition(' ')
                text = '%s <a %d-character token> (mode %o)' % (expiry, len(token),
                                                                 os.stat(os.path.join(state, name)).st_mode & 0o777)
            print('\n== %s ==\n%s' % (name, text))


def demo_ddkit(box):
    """The ddkit command: one config file with a record at each provider of the registry, run with
    --all twice (updates, then nothing to do), then --status."""
    name = 'ddkit.' + ZONE
    box.doh.names[(name, 'A')] = ['81.2.69.1']   # a previous IP without a ping of a real host
    with tempfile.TemporaryDirectory() as state:
        config = os.path.join(state, 'ddkit.conf')
        for provider, why in seeded(box, name, state, config):
            if why:   # it would refuse every request of the run: said, and left out
                print('(%s left out of the demo: %s; or run the demo in make test\'s venv: %s)'
                      % (provider, why, VENV))
        tool = os.path.join(ROOT, 'bin', 'ddkit.py')
        env = dict(os.environ)
        for title, args in (('a record at each provider, in one config file: first run', ['--all']),
                            ('second run: nothing changed', ['--all']),
                            ('--status: what each record\'s last run decided', ['--all', '--status'])):
            print('\n== ddkit, %s ==' % title, flush=True)
            status = subprocess.call(ISOLATED + [tool, '--config', config] + args, env=env)
            print('(exit status %d)' % status)


class Missing(Exception):
    """A test-only package a fake checks its requests with is not installed (tests/needs.py says so
    to a test by pytest's skip: the sandbox, which runs in any Python, hears it so instead)."""


def lacking(adapter):
    """Why adapter's fake cannot play its provider in this Python, and the command that installs
    what it lacks; or None. The demo and serve run outside the venv, perhaps without pytest: what
    needs.missing would skip a test with is caught here, before it imports pytest."""
    import needs
    skip = needs.missing

    def missing(reason):
        raise Missing(reason)
    needs.missing = missing
    try:
        adapter.needs()
        return None
    except Missing as e:
        why = str(e).split(' (')[0]   # the packages; how the tests say to get them follows
    finally:
        needs.missing = skip
    # the packages it names, as tests/requirements.txt pins them for this Python
    packages = [pin for name, pin in pinned() if re.search(r'(^|[\s,])%s(?![\w.-])' % re.escape(name), why)]
    return '%s; install: %s -m pip install %s' % (
        why, python(), ' '.join(packages) or '-r ' + os.path.relpath(REQUIREMENTS))


# what make test's venv is run as: it holds every package of tests/requirements.txt
VENV = '.venv/bin/python tests/sandbox.py'


REQUIREMENTS = os.path.join(HERE, 'requirements.txt')


def pinned():
    """[(package, its pin as pip takes it)] of tests/requirements.txt for this Python: a line's
    python_version marker (the one kind it has) decides whether it is this Python's."""
    found = []
    with open(REQUIREMENTS) as f:
        for line in f:
            line, _, marker = line.split('#')[0].strip().partition(';')
            if not line:
                continue
            wanted = re.match(r'\s*python_version\s*(>=|<|==|<=|>)\s*"(\d+)\.(\d+)"\s*$', marker)
            if marker.strip() and not wanted:
                continue   # a marker of another kind: not this file's today
            if wanted:
                version, bound = sys.version_info[:2], (int(wanted.group(2)), int(wanted.group(3)))
                if not {'>=': version >= bound, '<': version < bound, '==': version == bound,
                        '<=': version <= bound, '>': version > bound}[wanted.group(1)]:
                    continue
            found.append((re.split(r'[=<>!~ ]', line)[0], line.replace(' ', '')))
    return found


def python():
    """How the user names this Python: python3 when that is the one on PATH, else its path."""
    import shutil
    here = shutil.which('python3')
    return 'python3' if here and os.path.realpath(here) == os.path.realpath(sys.executable) else sys.executable


def seeded(box, name, state, config):
    """The record `name` at each provider's fake, holding 81.2.69.1, and a ddkit config file (made
    with mode 600) with a [record] of it for each; [(provider, why its fake cannot play it in this
    Python, or None)], in registry order. A provider whose fake cannot play it is left out of the file."""
    from providers import PROVIDERS
    lines = ['ip_lookup_url=%s' % box.lookup.url, 'doh_url=%s' % box.doh.url, 'state_dir=%s' % state]
    found = []
    for adapter in PROVIDERS:
        why = lacking(adapter)
        found.append((adapter.provider, why))
        if why:
            continue
        adapter.add(box, name, 'A', '81.2.69.1')
        lines += ['', '[%s]' % adapter.provider, 'provider=%s' % adapter.provider, 'record_name=%s' % name,
                  'zone_name=%s' % ZONE]
        lines += ['%s=%s' % (k[5:].lower(), v) for k, v in box.fakes[adapter.provider].settings().items()]
    with open(os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return found


def serve():
    """Every fake provider, each holding the record at 81.2.69.1, until stopped (Ctrl-C, or SIGTERM);
    prints the settings that point a record of each at its fake: the ones every record shares, then
    each provider's own (as exports, and as one config file of them all)."""
    import shlex
    import shutil
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))   # stopped like Ctrl-C: the servers stop
    state = tempfile.mkdtemp(prefix='ddns-sandbox-')   # this user's own: a run trusts no other's
    box = Sandbox(every=True)
    try:
        box.doh.names[(RECORD, 'A')] = ['81.2.69.1']   # a first run finds the previous IP without a ping
        config = os.path.join(state, 'sandbox.conf')
        found = seeded(box, RECORD, state, config)
        print('Sandbox running: %s holds 81.2.69.1 at each provider below and in DoH; the lookup says '
              '81.2.69.10, so a run updates it.' % RECORD)
        from ddkit import registry
        # the older commands, each fixed to a provider: its files keep the command's name (its STEM)
        seeds = {name: registry.provider(name).STEM for name in registry.PROVIDERS
                 if not registry.provider(name).STEM.startswith('ddkit_')}
        print('Point a record at it: export the settings every record shares, then those of one provider, '
              'and run ddkit --check (then ddkit); %s.\n' % ', '.join(
                  '%s takes those of %s' % (tool, name) for name, tool in seeds.items()))
        print('# every record')
        shared = {'DDNS_ZONE_NAME': ZONE, 'DDNS_RECORD_NAME': RECORD, 'DDNS_DOH_URL': box.doh.url,
                  'DDNS_IP_LOOKUP_URL': box.lookup.url, 'DDNS_STATE_DIR': state}
        for key, value in shared.items():
            print('export %s=%s' % (key, shlex.quote(value)))
        owns = sorted(set(key for provider, why in found if not why
                          for key in box.fakes[provider].settings()))
        print('# one provider at a time: this clears the last one\'s settings (what it leaves may mislead the next)')
        print('unset DDNS_PROVIDER %s' % ' '.join(owns))
        for provider, why in found:
            print('# provider %s%s' % (provider, ' (or %s)' % seeds[provider] if provider in seeds else ''))
            if why:
                print('#   not served in this Python: %s; or serve in make test\'s venv: %s serve' % (why, VENV))
                continue
            own = dict(box.fakes[provider].settings(), DDNS_PROVIDER=provider)
            for key in ['DDNS_PROVIDER'] + sorted(k for k in own if k != 'DDNS_PROVIDER'):
                print('export %s=%s' % (key, shlex.quote(own[key])))
        print('\nOr a record at every provider in one file (in a shell without the exports above: the '
              'environment beats the file):\n  python3 %s --config %s --all --check'
              % (os.path.join(ROOT, 'bin', 'ddkit.py'), config))
        sys.stdout.flush()
        while True:
            time.sleep(3600)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        box.stop()
        shutil.rmtree(state, ignore_errors=True)


def main(argv):
    if argv[:1] in (['--help'], ['-h']):
        print(__doc__.strip())
        return 0
    if len(argv) > 1 or argv and argv[0] not in ('demo', 'serve'):
        print('sandbox.py: unknown argument %r; use demo, serve or --help' % ' '.join(argv), file=sys.stderr)
        return 2
    (serve if argv == ['serve'] else demo)()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
