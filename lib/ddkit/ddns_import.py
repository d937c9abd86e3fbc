"""ddkit --import-ddns [FILE]: the services of OpenWrt's ddns-scripts (the `config service` sections of
/etc/config/ddns) as records of the ddkit command (`config ddkit` sections of its UCI file:
/etc/config/ddkit, or the one DDNS_UCI_FILE names), both read as UCI by ddkit.uci, and written here
(atomically, mode 0600: ddkit.state) so that ddkit.uci reads back what was planned.

Each section keeps its name and `enabled`; what ddns-scripts documents for it is carried where ddkit
has its meaning (docs/ddns-scripts.md): the service (an update-URL service of the list is the preset of
its name, a service that names an update script ddkit's provider for that API: ddkit.registry), a custom
update_url (a record of the update-URL protocol), the record's name as each service writes it, the
credentials as each update script reads them, the family, the IP source, the intervals, the CA, the
proxy. What cannot be carried is named per section with why, and that section is written disabled:
never half-configured. Every record written enabled has passed what the command checks when it loads
it (ddkit.choice, ddkit.settings, ddkit.updater.usable). A section the ddkit file has already is kept
unless --force; --dry-run prints what would be written, secrets masked, and writes nothing. Nothing
here runs unless the switch is given (bin/ddkit.py imports it then)."""

import sys

from ddkit import UsageError, decimal, registry, settings, uci
from ddkit.native import os

FLAG = '--import-ddns'
SERVICE = 'service'   # the type of ddns-scripts' sections
KIND = 'ddkit'        # the type of the ddkit command's
MARK = '# ddkit --import-ddns:'   # the comment lines written above a section (rewrite drops them with it)
STOP = '/etc/init.d/ddns stop; /etc/init.d/ddns disable'
# where ddns-scripts looks a service_name up: the user's own first, then the package's (a service newer
# than the registry's list is an update URL there too)
CUSTOM_DIR, DEFAULT_DIR = '/usr/share/ddns/custom', '/usr/share/ddns/default'
SECONDS = {'days': 86400, 'hours': 3600, 'minutes': 60}   # get_seconds: any other unit is seconds
CHECKIP = ('checkip.dyndns.com', 'checkip.dyndns.org', 'checkipv6.dyndns.com')   # answer a web page


# How each record name is written, by the update scripts: (record_name, zone_name or None).
def named_at(options):
    """domain: host@zone, @zone (the zone's own record) or a full name."""
    host, at, zone = options.get('domain', '').partition('@')
    if not at:
        return host or None, None
    return (host + '.' + zone if host else zone) or None, zone or None


def named_dot(options):
    """domain: host@zone, @.zone or @zone, or host.zone (the first label the host)."""
    domain = options.get('domain', '')
    domain = '@' + domain[2:] if domain.startswith('@.') else domain
    host, _, zone = (domain if '@' in domain else domain.replace('.', '@', 1)).partition('@')
    return (zone if host in ('', zone) else host + '.' + zone) or None, zone or None


def named_label(options):
    """username: the record's label in the zone domain (@: the zone's own record)."""
    label, zone = options.get('username', ''), options.get('domain', '')
    if not zone or not label:
        return None, zone or None
    return (zone if label == '@' else label + '.' + zone), zone


def named_in_zone(options):
    """username: the zone; domain: the record's full name."""
    return options.get('domain') or None, options.get('username') or None


def named_full(options):
    """domain: the record's full name."""
    return options.get('domain') or None, None


def named_lookup(options):
    """lookup_host: the record's full name (domain: the hosted zone's id, which ddkit finds by name)."""
    return options.get('lookup_host') or None, None


def key_of_google(value):
    """cloud.google.com-v1's password: the service account's JSON key pasted, or its file's path."""
    return [('key_json' if value.lstrip().startswith('{') else 'key_file', value)]


def project_of_google(value):
    """cloud.google.com-v1's param_enc: project=...&zone=... (ddkit finds the managed zone by name)."""
    return [('project_id', dict(pair.partition('=')[::2] for pair in value.split('&')).get('project'))]


def key_of_nsupdate(value):
    """bind-nsupdate's username, as nsupdate's key statement reads it: [algorithm:]name, hmac-md5 when
    it names none (BIND's nsupdate)."""
    algorithm, _, name = value.rpartition(':')
    return [('tsig_key_name', name), ('tsig_algorithm', algorithm.lower() or 'hmac-md5')]


# The services of ddns-scripts' list that name an update script (ddkit.registry.SCRIPT_SERVICES: the
# provider that runs each), as each script reads its options (its header, /usr/lib/ddns/update_*.sh):
# how it names the record, the options it reads that name it, and the setting of ddkit's provider each
# other option is (several: the first the provider has; a function: [(setting, value)] of the
# option's value); a fourth item: the settings when username is that word instead (Cloudflare:
# Bearer, password an API token).
SCRIPTS = {
    'cloudflare.com-v4': (named_at, ('domain',), {'username': 'auth_email', 'password': 'auth_key'},
                          {'Bearer': {'password': 'api_token'}}),
    'aliyun.com': (named_at, ('domain',), {'username': 'access_key_id', 'password': 'access_key_secret'}),
    'dnspod.cn-v3': (named_at, ('domain',), {'username': 'secret_id', 'password': 'secret_key'}),
    'dnspod.cn': (named_dot, ('domain',), {'username': 'token_id', 'password': 'token'}),
    'huaweicloud.com': (named_dot, ('domain',), {'username': 'access_key', 'password': 'secret_key'}),
    'porkbun.com-v3': (named_full, ('domain',), {'username': 'api_key', 'password': 'secret_api_key'}),
    'namesilo.com-v1': (named_label, ('username', 'domain'), {'password': 'api_key'}),
    'no-ip.com': (named_full, ('domain',), {'username': 'username', 'password': 'password'}),
    'route53-v1': (named_lookup, ('lookup_host',), {'username': 'access_key_id', 'password': 'secret_access_key'}),
    'digitalocean.com-v2': (named_label, ('username', 'domain'), {'password': 'api_token'}),
    'hetzner.cloud': (named_label, ('username', 'domain'), {'password': 'api_token'}),
    'pdns': (named_label, ('username', 'domain'), {'password': 'api_key', 'param_opt': 'base_url'}),
    'godaddy.com-v1': (named_at, ('domain',), {'username': 'api_key', 'password': 'api_secret'}),
    'gandi.net': (named_label, ('username', 'domain'), {'password': 'api_token api_key'}),
    'luadns.com-v1': (named_full, ('domain',), {'username': 'email', 'password': 'api_key'}),
    'netcup.com': (named_full, ('domain',), {'username': 'customer_number', 'password': 'api_password',
                                             'param_enc': 'api_key', 'param_opt': 'zone_name'}),
    'ns1.com': (named_in_zone, ('username', 'domain'), {'password': 'api_key'}),
    'scaleway.com': (named_in_zone, ('username', 'domain'), {'password': 'secret_key api_token'}),
    'cloud.google.com-v1': (named_full, ('domain',), {'password': key_of_google, 'param_enc': project_of_google}),
    'bind-nsupdate': (named_full, ('domain',), {'username': key_of_nsupdate, 'password': 'tsig_secret',
                                                'dns_server': 'server'}),
}
# what ddkit does instead of an option it does not carry, said once per section that sets it
INSTEAD = {
    'dns_server': 'ddkit reads a record\'s previous address over DNS-over-HTTPS (doh_url), for its log only',
    'bind_network': 'ddkit sends each request the way the routing table says',
    'force_ipversion': 'ddkit reaches the provider over either family, and reads the address of the record\'s '
                       'own (a service told no [IP] is reached over it)',
    'use_syslog': 'ddkit\'s lines go to the system log on OpenWrt (logread -e ddkit) and to its log file',
    'use_logfile': 'ddkit keeps a log file per record (log_file)',
    'retry_max_count': 'ddkit retries a request itself and runs again at the next interval',
    'retry_interval': 'ddkit retries a request itself and runs again at the next interval',
    'user_agent': 'ddkit asks its lookup services with its own user agent',
    'upd_privateip': 'ddkit never sends a private address',
}
# the options nothing is carried for, at their default or as ddkit does it anyway
QUIET = {'enabled', 'service_name', 'update_url', 'update_script', 'domain', 'lookup_host', 'username',
         'password', 'param_enc', 'param_opt', 'use_ipv6', 'ip_source', 'ip_network', 'ip_interface', 'ip_url',
         'ip_script', 'interface', 'check_interval', 'check_unit', 'check_interval_min', 'force_interval',
         'force_unit', 'use_https', 'cacert', 'proxy', 'force_dnstcp', 'is_glue', 'retry_unit', 'use_api_check'}


ORDER = ('provider', 'zone_name', 'record_name', 'record_type', 'ip_source', 'ip_lookup_url', 'interface', 'interval')


class Record:
    """One ddns-scripts section as a record of the ddkit command: its options in the order written,
    the ddns-scripts options it used, what was not carried (notes), why it is written disabled."""

    def __init__(self, name, label):
        self.name, self.label = name, label
        self.values, self.used, self.notes, self.blocked = {}, set(), [], []
        self.provider = self.module = None   # its registered name, its module (when installed)
        self.enabled = False
        self.kept = False   # the ddkit file has a section of its name, which stays

    def set(self, option, value):
        if value not in (None, ''):
            self.values[option] = value

    def options(self):
        """Its options as written: the usual first, in ORDER."""
        ordered = sorted(self.values, key=lambda key: ORDER.index(key) if key in ORDER else len(ORDER))
        return dict([('enabled', '1' if self.enabled else '0')] + [(key, self.values[key]) for key in ordered])

    def lines(self, shown=None):
        """The comment lines and the section written for it; shown(option, value): a value as shown."""
        head = ['from ddns-scripts: ' + self.label] + ['not enabled: ' + why for why in self.blocked] + self.notes
        options = self.options()
        if shown:
            options = {key: shown(key, value) for key, value in options.items()}
        return [' '.join((MARK + ' ' + line).split()) for line in head] + block(KIND, self.name, options)


def main(argv, tool='ddkit', environ=None):
    """ddkit --import-ddns [FILE] [--dry-run] [--force]: the exit status (2: bad input, nothing written)."""
    from ddkit.log import say
    environ = os.environ if environ is None else environ
    try:
        target = settings.uci_path(tool, environ)
        source, dry_run, force = arguments(argv, os.path.join(os.path.dirname(target), 'ddns'))
        records, text = plan(source, target, force)
    except UsageError as e:
        print('%s: %s' % (tool, e), file=sys.stderr)
        return e.exit_status
    if not records:
        say('%s has no service section of ddns-scripts: nothing to import.' % source)
        return 0
    say('%s %s into %s:' % ('Dry run: would import' if dry_run else 'Importing', source, target))
    for record in records:
        say(summary(record))
        for line in [] if record.kept else ['not enabled: ' + why for why in record.blocked] + record.notes:
            say('  - ' + line)
    written = [r for r in records if not r.kept]
    if dry_run:
        say('Dry run: nothing written; the sections would be (secrets masked):')
        for record in written:
            say('\n'.join(masked(record)) + '\n')
        return 0
    try:
        changed = text is not None and write(target, text)
    except OSError as e:
        print('%s: cannot write %s: %s; nothing was changed' % (tool, target, e.strerror or e), file=sys.stderr)
        return 1
    kept = sum(r.kept for r in records)
    if changed:
        say('Wrote %d section%s (%d enabled) to %s%s.' % (len(written), '' if len(written) == 1 else 's',
                                                          sum(r.enabled for r in written), target,
                                                          '; kept %d (--force replaces them)' % kept if kept else ''))
    else:
        say('Nothing written: %s holds %s already%s.' % (target, 'every section' if written else 'a section of '
                                                         'each name', '' if written else ' (--force replaces them)'))
    if changed and any(r.enabled for r in written):
        say('The service runs the records enabled now once it reloads: /etc/init.d/%s reload' % tool)
    say('ddns-scripts updates the same records: once these run (ddkit --uci <section> --check), stop it: %s'
        % STOP)
    return 0


def arguments(argv, default):
    """(FILE, dry run, force) of a command line with --import-ddns [FILE] (default: ddns-scripts' file
    beside the UCI file, /etc/config/ddns), --dry-run and --force; anything else is a UsageError."""
    source, dry_run, force, rest = None, False, False, list(argv)
    while rest:
        word = rest.pop(0)
        if word == FLAG or word.startswith(FLAG + '='):
            if source is not None:
                raise UsageError('%s is given once' % FLAG)
            source = word.partition('=')[2] if '=' in word else \
                rest.pop(0) if rest and not rest[0].startswith('-') else ''
        elif word == '--dry-run':
            dry_run = True
        elif word in ('--force', '-f'):
            force = True
        else:
            raise UsageError('%s [FILE] goes with --dry-run and --force only, not %s; see --help' % (FLAG, word[:60]))
    return source or default, dry_run, force


def plan(source, target, force):
    """([Record] of the service sections of source, the text the target file is to hold, or None when
    nothing is written); a UsageError on bad input (either file not UCI, a service not known)."""
    sections = uci.read(source)
    flat = [(kind, name, {key: ' '.join(value) if isinstance(value, list) else value for key, value in options.items()})
            for kind, name, options in sections]   # a list option reads as its items, as config_get gives it
    shared = {}
    for kind, _, options in flat:   # `config ddns 'global'`: what every service section shares
        if kind == 'ddns':
            shared.update(options)
    services = [(name or 'ddns_%d' % number, options)
                for number, (name, options) in enumerate((n, o) for k, n, o in flat if k == SERVICE)]
    old, text = [], ''
    if os.path.islink(target):
        raise UsageError('%s is a symbolic link, which is never followed: nothing was changed' % target)
    if os.path.lexists(target):   # else the file is made
        old = uci.read(target)
        with open(target, encoding='utf-8', newline='') as f:
            text = f.read()
    names = {name for _, name, _ in old if name is not None}
    records = [convert(name, options, shared) for name, options in services]
    for record in records:
        record.kept = record.name in names and not force
    written = [r for r in records if not r.kept]
    if not written:
        return records, None
    for record in written:   # each as the file would hold it, the others beside it
        check(record, expected_sections(old, written), target)
    expected = expected_sections(old, written)
    for candidate in (rewrite(text, {r.name: r.lines() for r in written}, MARK), export(expected)):
        if candidate is not None and loaded(candidate) == expected:
            return records, candidate
    raise UsageError('cannot write %s so that it reads back as planned: nothing was changed' % target)


def loaded(text):
    """The sections uci loads from text, or None when it refuses it."""
    try:
        return uci.Parser(text).parse()
    except uci.Refused:
        return None


def expected_sections(old, written):
    """What the ddkit file holds once the records are written: each replacing the section of its name
    where it stands, the others after the file's own."""
    mine = {r.name: (KIND, r.name, r.options()) for r in written}
    found = [mine.pop(name) if name in mine else (kind, name, options) for kind, name, options in old]
    return found + [mine[r.name] for r in written if r.name in mine]


def check(record, sections, path):
    """The record run through what the ddkit command checks when it loads it: what it refuses keeps
    an enabled record disabled, and is said of a disabled one."""
    if record.module is None or record.blocked:
        return
    problem = refusal(record.name, sections, path)
    if problem and record.enabled:
        record.blocked.append(problem)
        record.enabled = False
    elif problem:
        record.notes.append('disabled in ddns-scripts; to enable it here: %s' % problem)


def refusal(ref, sections, path):
    """What the ddkit command says when it loads the record of section ref (ddkit.choice, the settings'
    checks, ddkit.updater.usable), or None when it would run it."""
    from ddkit import choice, updater
    args = settings.Args()
    args.uci = [ref]
    try:
        options = uci.section(path, ref, sections)
        names = [registry.canonical(options.get(choice.PROVIDER.name, ''))]
        known = {s.name: s for s in choice.every_table(updater.COMMON, names)}
        own = {'uci_values': settings.uci_settings(path, ref, uci.record(path, ref, sections), known, options)}
        provider = choice.chosen(args, own, {}, False, updater.COMMON)
        cfg = settings.load(args, choice.table_of(provider, updater.COMMON), updater.SWITCHES, environ={}, **own)
        updater.usable(provider, cfg, ref)
    except UsageError as e:
        return str(e)
    return None


def convert(name, options, shared):
    """The Record of one ddns-scripts service section."""
    service = options.get('service_name') or '-'   # LuCI's "-- custom --"
    url, script = options.get('update_url'), options.get('update_script')
    record = Record(name, 'service %s' % service if service != '-' else 'custom update_url' if url else
                    'custom update_script' if script else 'no service')
    record.enabled = options.get('enabled') == '1'
    family = 'AAAA' if options.get('use_ipv6') == '1' else 'A'
    mapping = None
    if service != '-':
        found = service_file(CUSTOM_DIR, service, family)
        if found is None and service in registry.services():
            record.provider, url = service, None
        elif found is None and service in registry.SCRIPT_SERVICES:
            mapping, url = SCRIPTS.get(service), None
            record.provider = registry.canonical(service)
            if record.provider not in registry.PROVIDERS:
                record.provider = None
                record.blocked.append('ddkit has no provider for the service %s (its update script) yet' % service)
            elif mapping is None:   # a provider newer than this table: its settings are the user's to set
                record.blocked.append('the import does not know how the %s script reads its options: set provider '
                                      '%s\'s settings by hand' % (service, record.provider))
        else:
            found = found or service_file(DEFAULT_DIR, service, family)
            if found is None:
                raise UsageError('%s section %s: service_name %s is not a service of ddns-scripts\' list (nor of '
                                 '%s); fix its service_name, or set update_url' % (SERVICE, name, service, CUSTOM_DIR))
            url = found[0]
            if url is None:
                record.blocked.append('the service %s runs an update script, and ddkit has no provider for its API'
                                      % service)
            else:
                record.provider = registry.URL_PROTOCOL
                record.notes.append('the service %s is the update URL of %s' % (service, found[2]))
                record.set('answer', found[1])
        if options.get('update_url'):
            record.notes.append('update_url not carried: service_name decides, as in ddns-scripts')
    elif url:
        record.provider = registry.URL_PROTOCOL
    elif script:
        record.blocked.append('ddkit runs no update script (update_script %s); a webhook record can send what '
                              'it sent' % script)
    else:
        record.blocked.append('neither service_name nor update_url says where to send the address')
    if record.provider:
        try:
            record.module = registry.provider(record.provider)
        except UsageError as e:
            record.blocked.append('%s; then run ddkit %s again with --force' % (e, FLAG))
    record.set('provider', record.provider)
    if mapping:
        credentials(record, service, options, mapping)
    else:
        url_service(record, options, url, family)
    record.set('record_type', family)
    source(record, options, family)
    service_options(record, options, mapping is not None)
    unusual(record, options, shared)
    record.enabled = record.enabled and not record.blocked
    return record


def url_service(record, options, url, family):
    """An update URL's record: [DOMAIN] is the record's name, the other placeholders' options as they
    are; use_https: the URL's scheme https."""
    record.set('record_name', options.get('domain') or options.get('lookup_host'))
    if url:
        record.set('update_url', https(url) if options.get('use_https') == '1' else url)
    elif options.get('use_https') == '1' and record.module:
        record.set('base_url', https_origin(record.module, family))
    if record.module and registry.module_name(record.provider) == registry.URL_PROTOCOL:
        for option in ('username', 'password', 'param_enc', 'param_opt'):
            record.set(option, options.get(option))
    looked = options.get('lookup_host')
    if looked and options.get('domain') and looked != options['domain']:
        record.notes.append('lookup_host %s not carried: ddkit looks up record_name %s (for its log only)'
                            % (looked, options['domain']))


def service_file(directory, service, family):
    """(update URL or None for a script, answer, path) of ddns-scripts' JSON file of a service, as
    get_service_data reads it; None when there is none (or it cannot be read)."""
    from ddkit import jsontext, state
    if '/' in service or service.startswith('.'):
        return None
    path = os.path.join(directory, service + '.json')
    lines = state.read_lines(path, limit=65536)
    try:
        entry = jsontext.loads('\n'.join(lines)).get('ipv6' if family == 'AAAA' else 'ipv4')
        url, answer = entry.get('url'), entry.get('answer')
    except (ValueError, AttributeError):
        return None
    if not isinstance(url, str) or not url:
        return None
    return (url if url.startswith('http') else None), (answer if isinstance(answer, str) else None), path


def credentials(record, service, options, mapping):
    """The record's name, zone and credentials as the service's update script reads its options."""
    from ddkit import updater
    naming, used, settings_of = mapping[0], mapping[1], mapping[2]
    if len(mapping) > 3 and options.get('username') in mapping[3]:
        settings_of = mapping[3][options['username']]
        record.used.add('username')
    name, zone = naming(options)
    record.set('record_name', name or options.get('lookup_host'))
    if 'zone_name' not in settings_of.values():
        record.set('zone_name', zone)
    if naming is named_lookup and options.get('domain'):
        record.notes.append('domain (the hosted zone\'s id) not carried: ddkit finds the zone from record_name')
    record.used.update(used)
    known = {s.name for s in (record.module.SETTINGS if record.module else []) + updater.COMMON}
    for option in sorted(set(options) - set(used)):
        if option in settings_of:
            record.used.add(option)
            how = settings_of[option]
            for names, value in how(options[option]) if callable(how) else [(how, options[option])]:
                chosen = [setting for setting in names.split() if setting in known]
                if chosen:
                    record.set(chosen[0], value)
                elif record.module:
                    record.blocked.append('provider %s has no setting for %s (the %s script\'s %s): set it by hand'
                                          % (record.provider, option, service, names))
        elif option in ('param_enc', 'param_opt'):
            record.notes.append('%s not carried: ddkit finds the zone and record by name and keeps the record\'s TTL'
                                % option)


def https(url):
    """The URL with http: made https:, as ddns-scripts does for use_https."""
    return 'https:' + url[5:] if url.lower().startswith('http:') else url


def https_origin(module, family):
    """https:// and the host of a preset's update URL of the family (its base_url, for use_https)."""
    defaults = {s.name: s.default for s in module.SETTINGS}
    rest = ((defaults.get('update_url6') if family == 'AAAA' else None) or defaults.get('update_url') or '')
    rest = rest.partition('://')[2]
    if '@' in rest.split('/', 1)[0]:   # user:password@host; once user:password@http://host (domopoli.de)
        rest = rest.partition('@')[2]
        rest = rest.partition('://')[2] if rest.lower().startswith(('http://', 'https://')) else rest
    host = rest.split('/', 1)[0].split('?', 1)[0]
    return 'https://' + host if host else None


def source(record, options, family):
    """ip_source: network (its device, as netifd names it now), interface (the device), web (a lookup
    service; ddns-scripts' default there answers a web page, so ddkit's own instead); script blocks."""
    kind = options.get('ip_source') or 'network'
    if kind == 'network':
        network = options.get('ip_network') or ('wan6' if family == 'AAAA' else 'wan')
        device = network_device(network)
        if device:
            record.set('ip_source', 'iface:' + device)
            record.notes.append('ip_source network %s: its device %s, read here (iface:%s)' % (network, device, device))
        else:
            record.set('ip_source', 'url')
            record.notes.append('ip_source network %s: netifd names no device of it here, so ip_source url (the '
                                'address the lookup services see); or ip_source iface:<its l3_device, ifstatus %s>'
                                % (network, network))
    elif kind == 'interface':
        device = options.get('ip_interface') or 'eth1'
        device = network_device(device[1:]) if device.startswith('@') else device
        if device:
            record.set('ip_source', 'iface:' + device)
        else:
            record.blocked.append('ip_interface %s: netifd names no device of it here' % options['ip_interface'])
    elif kind == 'web':
        record.set('ip_source', 'url')
        url = options.get('ip_url', '')
        if url and url.partition('://')[2].split('/')[0].lower() not in CHECKIP:
            record.set('ip_lookup_url', url)
            record.notes.append('ip_url %s: ddkit takes an answer that is the address alone (or a /cdn-cgi/trace '
                                'page); --check tries it' % url)
        else:
            record.notes.append('ip_url %s not carried: it answers a web page; ddkit asks its own lookup services'
                                % (url or 'http://checkip.dyndns.com (the default)'))
    else:
        record.blocked.append('ip_source %s%s: ddkit runs no script to learn the address; set ip_source (url, or '
                              'iface:<device>)' % (kind, ' (ip_script %s)' % options['ip_script']
                                                   if options.get('ip_script') else ''))


def network_device(network):
    """The device of a logical interface as netifd says it now (ubus: its l3_device), or None."""
    if not uci.valid(network, True):
        return None
    from ddkit import jsontext, proc
    try:
        code, out, _ = proc.run(['ubus', 'call', 'network.interface.%s' % network, 'status'], timeout=5,
                                limit=65536)
        data = jsontext.loads(out) if code == 0 else {}
    except (OSError, TimeoutError, ValueError):
        return None
    device = (data.get('l3_device') or data.get('device')) if isinstance(data, dict) else None
    return device if isinstance(device, str) and 0 < len(device) < 16 and not set(device) & set('/: \t\n') \
        else None


def interval(options, name, unit, default, default_unit):
    """Seconds of an interval and its unit, as get_seconds reads them; None when not a number."""
    number = decimal(options.get(name) or default)
    return None if number is None else number * SECONDS.get(options.get(unit) or default_unit, 1)


def service_options(record, options, reads):
    """interface (ddns-scripts' hotplug default: wan), the check interval as the service's interval,
    force_interval as verify_interval where the provider is read (else named), use_https's cacert,
    proxy."""
    record.set('interface', options.get('interface') or 'wan')
    check = interval(options, 'check_interval', 'check_unit', '10', 'minutes')
    if check is not None and check < 300:   # ddns-scripts' minimum
        check = interval(options, 'check_interval_min', 'check_unit', '5', 'minutes')
    if check is None:
        record.notes.append('check_interval %s not carried: not a number' % options.get('check_interval'))
    record.set('interval', str(max(check, 60)) if check is not None else None)
    force = interval(options, 'force_interval', 'force_unit', '72', 'hours')
    if record.module is not None and hasattr(record.module, 'send_ip'):   # told, never read
        if force:
            record.notes.append('force_interval: ddkit tells the service when the address changes only (ddns-scripts '
                                'again every %s %s); a service that drops a name not refreshed: ddkit --uci %s '
                                '--force from cron' % (options.get('force_interval') or '72',
                                                       options.get('force_unit') or 'hours', record.name))
    elif 'force_interval' in options and force:
        record.set('verify_interval', str(min(max(force, check or 0), settings.VERIFY_MAX)))
    elif 'force_interval' in options:
        record.notes.append('force_interval %s not carried: ddkit\'s service runs the record every interval'
                            % options['force_interval'])
    cacert = options.get('cacert')
    if cacert and (options.get('use_https') == '1' or reads):
        if cacert == 'IGNORE':
            record.notes.append('cacert IGNORE not carried: ddkit always verifies the certificate')
        else:
            record.set('ca_file', cacert)
    proxy = options.get('proxy')
    if proxy:
        record.set('proxy', proxy if '://' in proxy else 'http://' + proxy)


def unusual(record, options, shared):
    """What ddkit does not do: force_dnstcp, is_glue (the section is written disabled, so that its
    owner decides), and the options ddkit has no setting for (named, with what it does instead)."""
    for option, why in (('force_dnstcp', 'ddkit asks no DNS server over UDP or TCP: it reads the record at the '
                                         'provider, and a previous address over DNS-over-HTTPS (doh_url)'),
                        ('is_glue', 'ddkit updates the record in its zone, not a glue record at the parent')):
        if options.get(option) == '1':
            record.blocked.append('%s 1: %s; check that this is what you need, then set enabled 1' % (option, why))
    given = {key for key, value in shared.items() if key == 'upd_privateip' and value == '1'}
    given.update(key for key in options if key not in QUIET and key not in record.used)
    for option in sorted(given):
        record.notes.append('%s not carried: %s' % (option, INSTEAD.get(option, 'ddkit has no such setting')))


def summary(record):
    """The line that says what became of a section."""
    if record.kept:
        return 'section %s: kept: the ddkit file has a section %s (--force replaces it)' % (record.name, record.name)
    return 'section %s (%s): %s%s %s, %s' % (
        record.name, record.label, 'provider %s, ' % record.provider if record.provider else '',
        record.values.get('record_type'), record.values.get('record_name', '(no record_name)'),
        'enabled' if record.enabled else 'written disabled' if record.blocked else 'disabled, as in ddns-scripts')


def masked(record):
    """The record's lines with every secret masked (its provider's secret settings, the common ones')."""
    from ddkit import updater
    table = {s.name: s for s in (record.module.SETTINGS if record.module else []) + updater.COMMON}
    return record.lines(lambda key, value: hidden(table[key], value) if key in table and table[key].secret
                        else value)


def hidden(setting, value):
    """A secret setting's value as shown: its secret parts (a proxy's password) or all of it masked."""
    if callable(setting.secret):
        for part in sorted(setting.secret(value), key=len, reverse=True):
            value = value.replace(part, '***') if part else value
        return value
    return '***'


# --- UCI written (ddkit.uci reads it; a run of the records never writes it, so this code is here,
# loaded only for the import): a section as `uci commit` writes it, and a file's text with whole
# sections set anew, the rest of it (comments too) kept as written.

def quoted(value):
    """A value as libuci writes it (uci_export: in single quotes, a quote as '\\'')."""
    return "'%s'" % value.replace("'", "'\\''")


def block(kind, name, options):
    """The lines of one section as `uci commit` writes it: config, then each option and list item."""
    lines = ['config %s%s' % (kind, '' if name is None else ' ' + quoted(name))]
    for key, value in options.items():
        for item in value if isinstance(value, list) else [value]:
            lines.append('\t%s %s %s' % ('list' if isinstance(value, list) else 'option', key, quoted(item)))
    return lines


def export(sections):
    """The text `uci commit` writes for these sections, [(type, name or None, options)]: no comment."""
    return ''.join('\n'.join(block(*section)) + '\n\n' for section in sections)


class Layout(uci.Parser):
    """The parser, noting for each statement group (a line, or the lines a quote or a backslash runs
    on over) the lines it spans and the sections its statements are about: what a writer cuts out."""

    def config(self):
        super().config()
        self.touched.append(self.options)

    def option(self, is_list=False):
        super().option(is_list)
        self.touched.append(self.options)

    def parse(self):
        self.spans = []   # [(index of its first line, index past its last, [options of each statement])]
        while self.read < len(self.lines):
            self.pos, self.touched = 0, []
            self.getln(0)
            self.first = self.read
            self.statement()
            self.spans.append((self.first - 1, self.read, self.touched))
        return self.sections


def rewrite(text, blocks, marker):
    """The text of a UCI file with sections set anew: blocks, {name: [line, ...]}, each in place of the
    statements of the section of that name (with the comment lines starting with marker right above
    them: what the writer wrote there before), else appended. None when a line holds a statement of
    such a section and one of another (`;` between them): the caller then writes export()'s text.
    A file uci refuses raises Refused."""
    parser = Layout(text)
    named = {name: options for _, name, options in parser.parse() if name is not None}
    lines = parser.lines
    dropped, starts = set(), {}
    for first, end, touched in parser.spans:
        mine = [name for name in blocks if name in named and any(t is named[name] for t in touched)]
        if not mine:
            continue
        if len(mine) > 1 or any(t is not named[mine[0]] for t in touched):
            return None
        while first > 0 and first - 1 not in dropped and lines[first - 1].startswith(marker):
            first -= 1
        starts.setdefault(mine[0], first)
        dropped.update(range(first, end))
    out = []
    for number, line in enumerate(lines):
        out += [item + '\n' for name, start in starts.items() if start == number for item in blocks[name]]
        if number not in dropped:
            out.append(line)
    text = ''.join(out)
    for name in [name for name in blocks if name not in starts]:
        text += ('' if not text or text.endswith('\n\n') else '\n' if text.endswith('\n') else '\n\n')
        text += '\n'.join(blocks[name]) + '\n'
    return text


def write(path, text):
    """Write a UCI file whole, atomically (a new file beside it, fsync, rename), mode 0600 whatever
    the umask, never through a link (ddkit.state); False when it holds text already."""
    from ddkit import state
    return state.write_if_changed(path, text[:-1].split('\n') if text.endswith('\n') else text.split('\n'),
                                  private=True)
