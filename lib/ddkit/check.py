"""--check: read-only diagnostics of an updater's set-up, one line per check: ok or FAIL, with the fix;
run through the provider contract, as the update loop (ddkit.reconcile) is.

Writes nothing: no request that changes anything at the provider, no state, lock or log file, no
syslog line (the report goes to stdout only; the state directory is judged with os.access, which
writes nothing to a router's flash). Exit status: 0 when an update would succeed, 1 when it would
not, 2 when settings are missing (reported as FAIL lines, then the checks that can still run).
"""

import sys

import ddkit
from ddkit import Failure
from ddkit.log import Log
from ddkit.native import os
from ddkit.provider import caused_by, told

OK, FAIL, SKIP, NOTE = 'ok', 'FAIL', 'skip', 'note'
CA_PACKAGE = 'opkg install ca-bundle (or ca-certificates)'


class Collect(Log):
    """The log handed to provider steps in --check: keeps their error lines for the FAIL line."""

    def __init__(self, secrets):
        super().__init__(None, quiet=True, secrets=secrets)
        self.errors = []

    def _emit(self, message, error):
        if error:
            self.errors.append(self.clean(message))


def run(job):
    """--check of one record: each step of an update, read-only, one ok/FAIL line each; the exit status."""
    provider, cfg = job.provider, job.cfg
    report = Report(job)
    job.log = report.log   # the provider's error lines go into the FAIL line of their step
    report.settings_complete(job.missing())
    report.state_dir_writable()
    urls = remote_urls(provider, cfg)
    report.proxy_reached(urls)
    report.tls_working(urls + (cfg.ip_lookup_url if cfg.ip_source == 'url' else []), notify_origins(cfg))
    current = report.current_ip()
    report.doh()
    if told(provider):   # nothing to read there: what can be checked without sending the IP
        if hasattr(provider, 'login'):
            report.step('credentials accepted', lambda: provider.login(job), lambda said: 'credentials accepted' + said)
        else:
            report.unchecked('credentials accepted', 'the credentials, which the first update checks',
                             'the provider is only told the IP, and has no '
                             'request that checks them without sending it: the first update checks them')
        report.hold()
        if not report.blocked:
            report.ok('the provider is only told the IP, never read: the next update sends it when the ip '
                      'file does not claim it')
        report.notify_targets()
        return report.finish()
    report.step('credentials accepted', lambda: logged_in(job), lambda said: 'credentials accepted' + said)
    zone = report.step('zone found', lambda: find_zone(job), describe_zone)
    record = report.step('record found', lambda: provider.find_record(job, zone.id, strict=True), report.record_found)
    report.lines_plainly()
    report.compare(record is not None, ', '.join(map(str, record.content or ())) if record else None, current)
    report.verification()
    report.notify_targets()
    return report.finish()


def notify_origins(cfg):
    """The origins (scheme://host[:port]) the notify URLs send to: never their path or query, which
    may hold a key; none when the notify package is not installed (a run refuses notify then)."""
    if not cfg.notify or ddkit.not_installed('notices'):
        return []
    from ddkit.urls import notify_target, origin
    return [origin(notify_target(url)[1]) for url in cfg.notify]


def remote_urls(provider, cfg):
    """The URLs a record's requests go to: its provider's URL settings, or, where those hold a
    template (an update URL with [USERNAME]@ before its host), the origins the provider fills them to
    (check_urls)."""
    if hasattr(provider, 'check_urls'):
        return provider.check_urls(cfg)
    return [getattr(cfg, name) for name in provider.URLS]


def logged_in(job):
    """The provider's login (what it says of the credentials), once the record's zone_name is known:
    a login of some providers reads the zone, found first when not given (ddkit.update.zone_of). A
    listing of the account's zones that was answered took the credentials: a name in none of them is
    the next step's failure (zone found), not theirs."""
    from ddkit import update
    try:
        update.zone_of(job)
    except Failure:
        if not update.zones_listed(job):
            raise
        return ' (the account\'s zones were listed)'
    return job.provider.login(job)


def find_zone(job):
    """The record's zone, as a run finds it: zone_name, or the longest of the account's zones that
    record_name is in (ddkit.update.zone_of)."""
    from ddkit.update import zone_of
    zone_of(job)
    zone = job.provider.choose_zone(job, job.provider.list_zones(job))
    zone.found = job.zone_found
    return zone


def describe_zone(zone):
    """The ok line of the zone check: which zone was taken (and that it was found in the account's
    zones, zone_name not given), and which loose matches were not."""
    return 'zone %s found (id %s)%s%s' % (
        zone.name, zone.id, ' among the account\'s zones: the longest one record_name is in (zone_name not set)'
        if getattr(zone, 'found', False) else '',
        '; also listed (a loose match, not taken): %s' % ', '.join(zone.others) if zone.others else '')


class Report:
    """The lines of one --check run and its exit status; steps after a failed one are skipped."""

    def __init__(self, job):
        self.job = job
        self.cfg = cfg = job.cfg
        self.log = Collect(cfg.secrets)
        self.status = 0
        self.problems = 0
        self.blocked = None       # the failed check the remote checks depend on
        self.line_without_ip = False   # the record's line has no address now (line_ip)
        self.tls_failed = set()
        self.notice_problems = 0  # the FAIL lines of notify alone: a notice never changes an update
        self.not_checked = []     # what no check could judge (the credentials of a provider only told the IP)

    # --- output ------------------------------------------------------------------------------
    def line(self, mark, text, fix=None):
        """Print one line: mark, text and, for a FAIL, the fix."""
        if fix:
            text = '%s -- fix: %s' % (text, fix)
        try:
            print('%-4s  %s' % (mark, self.log.clean(text)), flush=True)
        except BrokenPipeError:  # `--check | head`: the reader has gone, so stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            sys.exit(self.status or 1)

    def ok(self, text):
        self.line(OK, text)

    def fail(self, text, fix=None, status=1, setting=(), notice=False):
        """A FAIL line; setting: the names of the settings that caused it, each said with where its
        value came from (settings.origin); notice: a problem of notify alone, which no update depends on."""
        from ddkit.settings import origin
        said = [found for found in (origin(self.cfg, name) for name in setting) if found]
        self.line(FAIL, text + (' (%s)' % ', '.join(said) if said else ''), fix)
        self.problems += 1
        self.notice_problems += notice
        self.status = max(self.status, status)

    def unchecked(self, name, what, why):
        """A skip line for a check that cannot be made (why), and what the closing line says was not
        checked."""
        self.line(SKIP, '%s: not checked: %s' % (name, why))
        self.not_checked.append(what)

    def step(self, name, run, describe):
        """A remote check: describe(run()) on an ok line, or the Failure (with the provider's own
        words) on a FAIL line, after which the following steps are skipped. Returns run()'s result."""
        if self.blocked:
            self.line(SKIP, '%s: not checked (needs: %s)' % (name, self.blocked))
            return None
        del self.log.errors[:]
        try:
            result = run()
        except Failure as e:
            from ddkit import http
            if isinstance(e, http.NoAnswer):   # nothing was judged: named for what failed
                name = 'API reachable'
            said = ' [%s]' % '; '.join(self.log.errors) if self.log.errors else ''
            own = e.fix if e.fix and e.fix not in str(e) else None   # said once
            self.fail('%s: %s%s%s' % (name, e, caused_by(self.job, e), said), self.url_fix(e) or own)
            self.blocked = name
            return None
        self.ok(describe(result))
        return result

    def url_fix(self, failure):
        """The fix when a remote step got no answer, or no answer of its API, from a URL setting
        (ddkit.provider.cause)."""
        from ddkit import http
        from ddkit.provider import cause, unserved
        name = cause(self.job, failure)
        if name not in self.job.provider.URLS:
            return None
        if isinstance(failure, http.NoAnswer):
            return 'check %s (%s) and that this host reaches it' % (name, getattr(self.cfg, name))
        if isinstance(failure, http.NotJson) or unserved(failure):
            default = [s.default for s in self.job.provider.SETTINGS if s.name == name][0]
            # a server of the user's own (PowerDNS) has no default to show: its scheme and host
            return ('check %s: the service\'s base URL alone (the tool adds the API path), %s'
                    % (name, 'e.g. %s' % default if default else 'its scheme, host and port'))
        return None

    def finish(self):
        """The closing line; returns the exit status."""
        from ddkit.uci import TRUE   # what the service counts as on, as uci.enabled does
        uci = getattr(self.cfg, 'uci', {})
        if uci and uci.get('enabled') not in TRUE:
            # config_get_bool in the init script: anything else, or no option at all, is off
            print("note  UCI section %s is disabled: the service will not run it; set option enabled '1', "
                  'then /etc/init.d/%s reload' % (uci['section'], self.job.tool))
        # what the update needs and no check could judge: not "an update would succeed"
        unknown = '; not checked: %s' % ', '.join(self.not_checked) if self.not_checked else ''
        problems = '%d problem%s' % (self.problems, '' if self.problems == 1 else 's')
        if self.status == 0:
            print('check: all ok%s.' % (unknown or '; an update would succeed'))
        elif self.problems == self.notice_problems:
            print('check: %s, of notify alone: the notices would not arrive; a notice never changes an update%s.'
                  % (problems, unknown or ', so an update would succeed'))
        else:
            print('check: %s; an update would not succeed until %s fixed%s.'
                  % (problems, 'it is' if self.problems == 1 else 'they are', unknown))
        return self.status

    # --- the checks both updaters share ---------------------------------------------------------
    def settings_complete(self, missing):
        """Every required setting present (one FAIL line per missing one: [(name, fix or None)]) and
        the record inside its zone."""
        from ddkit.settings import outside_zone
        cfg = self.cfg
        uci = 'uci section' in cfg.sources.values()
        for name, fix in missing:
            self.fail('settings complete: %s is missing' % name, fix or (
                "add option %s '...' to the UCI section" % name if uci else
                'give --%s, DDNS_%s or %s= in a --config file' % (name.replace('_', '-'), name.upper(), name)),
                status=2)
        if missing:
            self.blocked = 'settings complete'
            return
        problem = outside_zone(cfg.record_name, cfg.zone_name)
        if problem:
            self.fail('settings complete: %s' % problem[0], problem[1], status=2,
                      setting=('record_name', 'zone_name'))
            self.blocked = 'settings complete'
            return
        sources = sorted(set(v for k, v in cfg.sources.items()
                             if v != 'default' and getattr(cfg, k, None) not in (None, '')))
        where = ', '.join('config file %s' % cfg.config_file if s == 'config file' and cfg.config_file else s
                          for s in sources)
        self.ok('settings complete: %s record %s%s (from %s)' % (
            cfg.record_type, self.job.name, ' in zone %s' % cfg.zone_name if cfg.zone_name else '', where))

    def state_dir_writable(self):
        """The state directory (or the nearest existing parent it would be created in) is writable,
        and no other user can change it (the verdict a run gives, Job.untrusted_dirs)."""
        path = os.path.abspath(self.cfg.state_dir)
        problem = self.job.untrusted_dirs()
        if problem:
            return self.fail(*problem)
        probe = path
        while not os.path.exists(probe) and os.path.dirname(probe) != probe:
            probe = os.path.dirname(probe)
        fix = 'set state_dir to a directory this user can write'
        if not os.path.isdir(probe):
            return self.fail('state directory %s: %s is not a directory' % (path, probe), fix)
        if not os.access(probe, os.W_OK | os.X_OK):
            return self.fail('state directory %s is not writable by this user (or the file system is '
                             'read-only)' % probe, fix + ', or run as its owner')
        if hasattr(os, 'statvfs'):
            fs = os.statvfs(probe)
            if fs.f_bavail == 0:
                return self.fail('state directory %s: the file system is full' % probe,
                                 'free some space (old logs, packages) or set state_dir elsewhere')
        if probe != path:
            return self.ok('state directory %s does not exist yet; the first update creates it in %s'
                           % (path, probe))
        self.ok('state directory %s is writable' % path)

    def proxy_reached(self, urls):
        """Which proxy the provider's requests go through (from the proxy setting or the environment),
        and a connection through it to the first URL's host; a line saying why none is used when one is
        named (proxy off, no_proxy); none when none is named. Without the package ddkit-proxy: a FAIL
        when one is named, as a run refuses the setting (exit 2) and fails on a variable's."""
        from ddkit import http, wire
        from ddkit.urls import ProxyError, proxy_uninstalled
        cfg, url = self.cfg, next((u for u in urls if u), None)
        if url is None:
            return None
        scheme, host, port, _ = http.split_url(url)
        problem = cfg.proxy not in (None, '', 'off') and ddkit.needs_package('proxy', 'proxy')
        if problem:
            self.blocked = self.blocked or 'proxy reached'
            return self.fail(problem.why, problem.fix, status=2, setting=('proxy',))
        try:
            if ddkit.not_installed('proxy'):
                problem = proxy_uninstalled(cfg.proxy, scheme, os.environ)
                if problem:
                    raise problem
                return None
            from ddkit import proxy
            via, note = proxy.route(cfg.proxy, scheme, host)
            if via is None:
                return note and self.ok('proxy: none for %s (%s)' % (host, note))
            (via.reach(wire.connect, cfg.timeout) if via.absolute and scheme == 'http' else
             via.tunnel(wire.connect, host, port, cfg.timeout)).close()
        except OSError as e:   # a ProxyError, or the host's name (socks5: resolved here)
            self.blocked = self.blocked or 'proxy reached'
            return self.fail(str(e) if isinstance(e, ProxyError) else 'proxy: %s: %s' % (host, e),
                             getattr(e, 'fix', None))
        self.ok('proxy %s (from %s) connected to %s; the IP lookups and DoH go %s' % (
            via.label, via.origin, 'it' if via.absolute and scheme == 'http' else '%s:%d' % (host, port),
            'through it too (proxy_lookup)' if cfg.proxy_lookup else 'direct'))

    def tls_working(self, urls, notify=()):
        """A verified TLS handshake (no request) with each https:// host the update talks to, and each
        the notices go to (notify: their origins; a failure there is notify's alone)."""
        seen, https = set(), []
        for url in list(urls) + list(notify):
            if url and url.startswith('https://') and url not in seen:
                seen.add(url)
                https.append(url)
        if not https:
            return self.ok('TLS: not used (every URL is plain http://)')
        from ddkit import native
        try:
            tls = native.tls()   # _ssl, or ssl
        except ImportError:
            self.tls_failed.update(https)
            return self.fail('TLS: this Python has no ssl module', 'opkg install python3-openssl')
        store, missing = ca_store(self.cfg.ca_file)
        for url in https:
            lookup = url in self.cfg.ip_lookup_url
            notice = url in notify and url not in urls
            if self.blocked == 'proxy reached' and not (lookup and not self.cfg.proxy_lookup):
                self.line(SKIP, 'TLS with %s: not checked (needs: proxy reached)' % _host(url))
                continue
            problem, fix, kind = handshake(url, self.cfg, tls, lookup)
            if problem is None:
                self.ok('TLS with %s verified (CA: %s)%s' % (_host(url), store, ' for notify' if notice else ''))
                continue
            self.tls_failed.add(url)
            if missing and kind == 'untrusted':
                problem, fix = 'certificate not trusted: %s' % missing, CA_PACKAGE + ', or set ca_file'
            built_in = kind == 'name' and self.built_in(url)
            if built_in:   # a host the user never set: what answers in its place is the problem
                fix = ('%s is a built-in default, not a URL you set: something between here and it answers in its '
                       'place (no internet yet, a captive portal, a firewall that intercepts TLS); check '
                       'connectivity, or set %s' % (_host(url), built_in))
            self.fail('TLS with %s%s: %s' % (_host(url), ' (notify)' if notice else '', problem), fix, notice=notice)
        if self.tls_failed - set(self.cfg.ip_lookup_url) - (set(notify) - set(urls)):
            self.blocked = self.blocked or 'TLS working'

    def built_in(self, url):
        """The URL setting whose default value (none given: settings.origin) holds url, else None."""
        from ddkit.settings import origin
        for name in ('ip_lookup_url', 'doh_url') + tuple(self.job.provider.URLS):
            value = getattr(self.cfg, name, None)
            values = value if isinstance(value, (list, tuple)) else [value]
            if any(isinstance(v, str) and v.startswith(url) for v in values) and origin(self.cfg, name) is None:
                return name
        return None

    def hold(self):
        """A hold on sends a provider only told the IP keeps after an answer (its held_back(job), which
        raises while one stands: the update protocol's stop codes such as badauth, until a setting
        changes; 911, for half an hour): a FAIL naming the answer, when it came, and what lifts it.
        Nothing is removed: a --check job is a dry run."""
        held_back = getattr(self.job.provider, 'held_back', None)
        if held_back is None:
            return
        try:
            held_back(self.job)
            return
        except Failure as e:
            held = e
        from ddkit import state
        from ddkit.log import stamp
        path = self.job.files.get('hold_file')
        when = state.read_dated(path, private=True)[1] if path else None
        since = 'at %s' % stamp(when) if when else 'to an earlier run'
        self.blocked = self.blocked or 'sends held back'
        if held.kind == 'refused':   # a stop code: the same settings are never sent again
            return self.fail('sends held back: the service answered %s %s, and a run never sends the same '
                             'settings again (the protocol\'s rule: the service blocks a client that repeats '
                             'them)' % (held.code, since),
                             '%s (a changed setting lifts the hold); or, to send the same settings once more, '
                             'remove %s' % (held.fix, path))
        self.fail('sends %s' % held.why, '%s; or, to send before then, remove %s' % (held.fix, path))

    def doh(self):
        """The DoH resolvers a run without an ip file asks what the record holds (the previous IP, for
        its log alone), in order (ddkit.lookup.asked): the first that answers and what it says, and those
        before it that did not. None answering is no failure (a run logs it and updates all the same):
        a note line with the fix. A line's record: a run asks none (the name holds every line's)."""
        from ddkit import lookup
        cfg = self.cfg
        if self.job.line is not None:
            return
        if self.blocked == 'proxy reached' and cfg.proxy_lookup:
            return self.line(SKIP, 'DoH: not asked (needs: proxy reached)')
        tried = lookup.asked(cfg, cfg.record_name, lookup.unanswered_of(self.job.run))
        ip, why, url, answered = tried[-1]
        silent = '; '.join('%s: %s' % (u, w) for _, w, u, _ in tried[:-1 if answered else None])
        if not answered:
            return self.line(NOTE, 'DoH: no resolver answered (%s): a run without an ip file logs no previous IP, '
                             'and updates all the same' % silent,
                             'set doh_url to a DNS-over-HTTPS resolver this host reaches')
        self.ok('DoH %s: %s%s' % (
            url, '%s holds %s (a run without an ip file logs it as the previous IP)' % (cfg.record_name, ip)
            if ip else 'answered, %s; a run without an ip file logs no previous IP' % why,
            '; before it, no answer from %s' % silent if silent else ''))

    def lines_plainly(self):
        """At a provider without operator lines, what becomes of the lines' records (said once a
        record, at its first line: ddkit.lines.without_lines)."""
        from ddkit import lines
        job = self.job
        if job.line is None or job.line != lines.parsed(self.cfg.lines)[0][0]:
            return
        plain = lines.without_lines(job.provider, 'each line\'s')
        if plain:
            self.line(NOTE, 'lines: %s' % plain)

    def notify_targets(self):
        """Each notify URL by its kind and host, nothing sent; with --notify-test, one test message to
        each (once a run), its answer on an ok or FAIL line. Then the notices kept for the next run."""
        cfg, job = self.cfg, self.job
        from ddkit.urls import notify_target
        problem = cfg.notify and ddkit.needs_package('notify', 'notices')
        if problem:   # a run refuses notify (exit 2): nothing could be sent
            return self.fail(problem.why, problem.fix, status=2, setting=('notify',))
        for url in dict.fromkeys(cfg.notify or ()):
            kind, _, host = notify_target(url)
            if not cfg.notify_test:
                self.ok('notify %s %s: told on %s (nothing sent; --notify-test sends a test message)'
                        % (kind, host, ', '.join(cfg.notify_on)))
                continue
            from ddkit import notices
            about = 'record %s %s (%s)' % (cfg.record_name, cfg.record_type, job.provider.NAME)
            failure = job.run.shared(('notify test', url), lambda: notices.test(
                self.log, url, cfg.ca_file, cfg.timeout, about))
            if failure is None:
                self.ok('notify %s %s: the test message was delivered' % (kind, host))
            else:
                self.fail('notify %s %s: %s' % (kind, host, failure.why or failure), failure.fix, notice=True)
        if cfg.notify:
            from ddkit import NOTICES_FILE, state
            kept = state.read_lines(os.path.join(cfg.state_dir, NOTICES_FILE), limit=65536)
            if kept:
                self.ok('notify: %d notice%s kept from earlier runs, sent again by the next run'
                        % (len(kept), '' if len(kept) == 1 else 's'))

    def current_ip(self):
        """The current IP and where it came from; a FAIL says why it was rejected. Returns it or None."""
        from ddkit import lookup
        cfg = self.cfg
        if self.job.line_plan is not None:
            return self.line_ip()
        if cfg.ip_source == 'url' and set(cfg.ip_lookup_url) <= self.tls_failed:
            self.line(SKIP, 'current IP: not asked (TLS with %s failed)' % ', '.join(map(_host, cfg.ip_lookup_url)))
            return None
        try:
            ip, source, why = lookup.current_ip(cfg)
        except Failure as e:
            self.fail('current IP: %s' % e, 'check connectivity, or set ip_lookup_url to another service '
                      '(or ip_source=iface:<wan interface>)', setting=('ip_lookup_url',))
            return None
        if ip is None:
            self.fail('current IP: no valid %s address from %s: %s' % (
                'IPv6' if cfg.record_type == 'AAAA' else 'IPv4', source, why), lookup.fix(cfg, why),
                setting=('ip_lookup_url',) if cfg.ip_source == 'url' else ('ip_source',))
            return None
        self.ok('current IP %s (from %s)' % (ip, source))
        return ip

    def line_ip(self):
        """The current IP of the record's line (ddkit.lines). A line whose source cannot give one (no
        such interface, a private address) is a FAIL; a line that has none now is down, no failure: a
        run removes or keeps its record (line_gone, said by the record's check), and the default
        line takes the next line's."""
        from ddkit import lines, lookup
        line = self.job.line_plan
        ip, source, why, taken = lines.current_ip(self.job)
        self.line_without_ip = ip is None and not line.candidates
        if ip is None and line.candidates:
            self.fail('current IP of the default line: no line has an address (%s: %s)' % (source, why),
                      'check the lines\' interfaces and sources; the default line\'s %s is kept as it is'
                      % self.job.provider.NOUN)
        elif ip is None and not lookup.down(why):
            own = line.source != self.cfg.ip_source   # CODE=SOURCE: the line's own source
            cfg = self.cfg.copy()
            cfg.ip_source = line.source
            self.fail('current IP of line %s: none from %s: %s' % (line.code, source, why), lookup.fix(cfg, why),
                      setting=('lines',) if own else ('ip_source',))
        elif ip is None:
            self.ok('line %s is down: no address from %s: %s%s' % (
                line.code, source, why, '; a run keeps its %s' % self.job.provider.NOUN
                if told(self.job.provider) else ''))   # else the record's check says what a run does
        elif line.candidates:
            self.ok('current IP of the default line %s (line %s\'s, from %s)' % (ip, taken.code, source))
        else:
            self.ok('current IP of line %s %s (from %s)' % (line.code, ip, source))
        return ip

    def record_found(self, record):
        """The ok line of the record check: found or not, and what the next update does with it (of a
        line without an address: its record removed or kept, line_gone; none created)."""
        what = '%s %s %s' % (self.cfg.record_type, self.job.provider.NOUN, self.job.name)
        if not self.line_without_ip:
            return '%s found (id %s)' % (what, record.id) if record else \
                '%s does not exist yet: it will be created on the first update' % what
        if record is None:
            return '%s does not exist: the line has no address, so none is created until it has one' % what
        return '%s found (id %s): the line has no address, so a run %s' % (
            what, record.id, 'keeps it as it is' if self.cfg.line_gone == 'keep' else 'removes it')

    def compare(self, exists, held, current):
        """What the record holds now against the current IP, and whether a normal run would act."""
        from ddkit import ipcheck, state
        if self.blocked or current is None:
            self.line(SKIP, 'record vs current IP: not compared (needs: %s)'
                      % (self.blocked or 'current IP'))
            return
        if not exists:
            return self.ok('record vs current IP: the first update creates the record with %s' % current)
        if ipcheck.same_ip(held, current):
            return self.ok('record holds %s, the current IP: nothing to update' % current)
        previous = state.read_lines(self.job.ip_file)
        if previous and ipcheck.same_ip(previous[0], current) and not self.cfg.force:
            return self.fail('record holds %s but the current IP is %s, and the ip file %s already says '
                             '%s, so a normal run will not update it until it reads the record'
                             % (held, current, self.job.ip_file, current),
                             'run once with --force (or delete the ip file)')
        self.ok('record holds %s, the current IP is %s: the next run updates it' % (held, current))

    def verification(self):
        """What the ip file claims, when the provider last confirmed it and when a run with the IP
        unchanged next reads the record there (verify_interval)."""
        import time
        from ddkit import state
        lines, verified = state.read_dated(self.job.ip_file)
        interval, job = self.cfg.verify_interval, self.job
        if not lines or job.verify_due(verified):
            when = 'the next run'
        else:
            when = 'never (verify_interval off)' if interval is None else \
                time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(verified + interval))
        self.ok('ip file %s: %s; next read of the record at the provider: %s' % (
            job.ip_file, 'says %s, %s' % (lines[0][:64], job.last_verified(verified)) if lines else 'none yet', when))


def ca_store(ca_file):
    """(description, problem) of the CA certificates https will trust (ddkit.wire.ca_locations);
    problem None when found."""
    from ddkit import wire
    where = wire.ca_locations(ca_file)
    if ca_file:  # settings made sure it is a readable file or directory
        return 'ca_file %s' % ca_file, None
    if os.name == 'nt':
        return 'the Windows certificate store', None
    if where and (where[0] == 'capath' or os.path.exists(where[1])):
        return 'system store %s (%s)' % (where[1], 'hashed directory' if where[0] == 'capath' else 'bundle'), None
    from ddkit import native
    _, cafile, _, capath = native.default_verify_paths()   # OpenSSL's own, before the variables
    return 'system store', 'no CA bundle at %s or in %s' % (cafile, capath)


# OpenSSL's verify codes (x509_vfy.h) of a certificate refused for the time (not yet valid, expired)
# and for the name (host name, e-mail, IP address mismatch)
CLOCK_CODES = (9, 10)
NAME_CODES = (62, 63, 64)


def handshake(url, cfg, ssl, lookup=False):
    """(None, None, None) when a verified TLS handshake with url's host succeeds, else (problem, fix,
    kind): 'clock', 'name' or 'untrusted' (by OpenSSL's verify code), or 'connection'. Through the
    proxy a request to url takes (a lookup's: with proxy_lookup only)."""
    from ddkit import PROXY, http, wire
    _, host, port, _ = http.split_url(url)  # only https:// URLs come here
    try:
        via = None if lookup and not cfg.proxy_lookup or PROXY[0] is None else PROXY[0]('https', host)
        sock = wire.opened(host, port, cfg.timeout, via=via)
        try:
            sock = wire.tls(sock, host, cfg.timeout, cfg.ca_file)  # verifies, as every request does
        finally:
            sock.close()
    except ssl.SSLCertVerificationError as e:
        reason = getattr(e, 'verify_message', '') or str(e)
        code = getattr(e, 'verify_code', None)
        if code in CLOCK_CODES:
            return ('certificate %s' % reason, 'check the clock of this host (on a router: enable NTP), '
                    'a wrong date makes every certificate look invalid', 'clock')
        if code in NAME_CODES:
            return 'certificate is for another name (%s)' % reason, 'check the host in the URL', 'name'
        return ('certificate not trusted (%s)' % reason,
                'set ca_file to the CA that signed it, or install the CA bundle: ' + CA_PACKAGE, 'untrusted')
    except (OSError, ssl.SSLError) as e:
        return ('no TLS connection: %s' % (getattr(e, 'strerror', None) or e),
                'check connectivity and the URL', 'connection')
    return None, None, None


def _host(url):
    return url.partition('://')[2].partition('/')[0]
