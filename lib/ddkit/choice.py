"""The ddkit command's choice of provider: each record names its own (the setting provider: a flag,
DDNS_PROVIDER, provider= in a config file, option provider in a UCI section), and is loaded with that
provider's settings alone. Only the ddkit command imports this module: a tool fixed to one provider
(updater_a) carries no other provider's code."""

from ddkit import UsageError, registry, settings
from ddkit.settings import Setting, Switch

SUMMARY = 'Keep DNS records (A, AAAA) at any DNS provider equal to this host\'s public IP.'


def check_provider(value):
    """A registered provider's name (ddkit.registry), installed here (else a UsageError naming its
    package); a ddns-scripts service that names an update script, the provider that runs it."""
    name = registry.canonical(value)
    if name not in registry.PROVIDERS:
        raise ValueError('not a known provider%s; known: %s' % (registry.did_you_mean(value), registry.known()))
    registry.provider(name)
    return name


def owners(name):
    """The installed providers that have a setting of this name (what explains a name the record's
    provider does not know: PROVIDER.decides). Imports every installed provider: only on that error."""
    found = []
    for each in registry.PROVIDERS:
        try:
            if name in [s.name for s in registry.provider(each).SETTINGS]:
                found.append(each)
        except UsageError:   # not installed here
            continue
    return found


PROVIDER = Setting('provider', help='the record\'s DNS provider: one ddkit --help lists',
                   check=check_provider, decides=owners, choices=registry.PROVIDERS, metavar='NAME')
# the ddkit command's own switch: what this router can run, for a person or (with --json) a form
SWITCHES = [Switch('providers', help='list installed providers; --json: with their settings'),
            # bin/ddkit.py runs ddkit.ddns_import when it is given, before any of this is read
            Switch('import_ddns', help='[FILE]: the services of /etc/config/ddns as records'),
            Switch('sample', help='with --provider NAME: its section for /etc/config/ddkit'),
            # bin/ddkit.py runs ddkit.service for these, before any of this is read
            Switch('install_service', help='run --all as a service (--install-service --help)'),
            Switch('uninstall_service', help='remove it; the state and the config file stay')]
# the options of a UCI section that the service reads, not the record (ddkit.uci.SERVICE_OPTIONS); the
# defaults are those of the init script: a section without enabled does not run
SERVICE = [
    Setting('enabled', '0', help='the service runs this record', choices=('0', '1')),
    Setting('interface', help='a logical interface (e.g. wan): the record runs at once when it comes up or '
            'changes address (hotplug)'),
    Setting('interval', '1800', help='seconds between runs; the service runs every enabled record at the '
            'shortest interval of them (at least 60)'),
]


def every_table(common, names=None):
    """The command line's settings: provider, the own settings of every installed provider, or of
    those named (each setting once, its help marked with its provider when several are named; a name
    several providers use shows each one's help, the default of the first), the common ones."""
    table, seen, own = [PROVIDER], {s.name for s in common}, {}
    names = registry.PROVIDERS if names is None else names
    marked = len(names) > 1
    for name in names:
        try:
            provider = registry.provider(name)
        except UsageError:   # not installed here: a record naming it says so when it loads
            continue
        for s in provider.SETTINGS:
            if s.name in own:
                own[s.name].help += '; (%s) %s' % (name, s.help)
                own[s.name].secret = own[s.name].secret or s.secret   # a secret to any, masked for all
            elif s.name not in seen:
                own[s.name] = Setting(s.name, s.default, '(%s) %s' % (name, s.help) if marked else s.help,
                                      s.secret, s.short, s.check, s.repeat, s.metavar, choices=s.choices,
                                      commas=s.commas, label=s.label)
                table.append(own[s.name])
    return table + common


def named(argv, environ, tool):
    """The registered providers a run names before its settings are read (--provider, DDNS_PROVIDER,
    the provider= lines of its --config file, the provider options of its UCI file), so that it loads
    only their modules; None when it names none, or an unregistered one (then every provider's
    settings are known, to say what is wrong). A name read here decides nothing: each record's own
    value does, when it loads."""
    found = [environ.get('DDNS_PROVIDER', '')]
    config = uci = None
    for i, word in enumerate(argv):
        value = argv[i + 1] if i + 1 < len(argv) else ''
        if word.startswith('--provider='):
            found.append(word.partition('=')[2])
        elif word == '--provider':
            found.append(value)
        elif word == '--config':
            config = value
        elif word.startswith('--config='):
            config = word.partition('=')[2]
        elif word in ('--uci', '--all') or word.startswith('--uci='):
            uci = True
        elif word == '--version':
            return None
    if config:
        found += config_providers(config)
    elif uci:
        found += uci_providers(settings.uci_path(tool, environ))
    found = [registry.canonical(name) for name in found if name]
    if not found or [name for name in found if name not in registry.PROVIDERS]:
        return None
    return sorted(set(found), key=registry.PROVIDERS.index)


def config_providers(path):
    """The provider= values of a --config file, each line taken apart as settings.read_config does
    (which reads the file for real, with every check, afterwards)."""
    from ddkit import state
    found = []
    for line in state.read_lines(path, limit=256 * 1024):
        name, eq, value = line.partition('=')
        value = value.strip()
        if eq and name.strip() == PROVIDER.name:
            found.append(value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'' else value)
    return found


def uci_providers(path):
    """The provider options of a UCI file's sections, as ddkit.uci reads them; none when it cannot be
    read (the run's own reading says why)."""
    from ddkit import uci
    try:
        sections = uci.read(path)
    except UsageError:
        return []
    return [options.get(PROVIDER.name) for _, _, options in sections
            if isinstance(options.get(PROVIDER.name), str)]


# the settings every record sets: told in full by the overview, the others named (ip_source, which
# the LuCI page's General tab holds too, among them: the overview is one screen)
USUAL = ('zone_name', 'record_name', 'record_type')


def overview(common):
    """(summary, sections) of --help of the ddkit command naming no provider, one screen: the usual
    settings, the others' flags, and the providers a line each (ddkit --provider NAME --help shows
    one's own settings, and every setting in full)."""
    rows, services = [], registry.services()
    for name in registry.PROVIDERS:
        if name in services:   # a row for all: ddkit --providers lists each
            continue
        try:
            rows.append((name, registry.provider(name).SUMMARY))
        except UsageError:
            rows.append((name, 'not installed here: install the package ddkit-%s' % registry.module_name(name)))
    rows.append((services[0], 'and %d more update URLs of ddns-scripts: ddkit --providers' % (len(services) - 1)))
    more = ', '.join(s.flag for s in common if s.name not in USUAL)
    usual = [relabeled(s, s.help) for s in common if s.name in USUAL]
    for s in usual:   # -h alone is refused saying that help is --help: the screen need not say it too
        s.terse = True
    return SUMMARY, [('settings of a record:', [PROVIDER] + usual),
                     ('more settings of every record (ddkit --provider NAME --help tells each):', more),
                     ('providers (ddkit --provider NAME --help shows the settings of one):', rows)]


def provider_help(names, table, common):
    """(summary, sections) of --help of the ddkit command naming providers: what a record of each
    requires and where its section of docs/providers.md is (what the account needs first), their own
    settings (table: every_table's), each marked with its provider and whether it is required, then
    every record's."""
    from ddkit.provider import required
    own = [s for s in table if s is not PROVIDER and s not in common]
    missing = [name for name in names if not _installed(name)]
    installed = [name for name in names if name not in missing]
    needs = {name: required(registry.provider(name)) for name in installed}
    summary = SUMMARY
    if len(names) == 1 and not missing:
        summary = registry.provider(names[0]).SUMMARY
        # one provider: its own settings marked here (every_table marks them only among several)
        own = [relabeled(s, '(%s%s) %s' % (names[0], ', required' if s.name in needs[names[0]] else '', s.help))
               for s in own]
    summary += ''.join('\n\n' + before_first_run(name, needs[name]) for name in installed)
    sections = [('settings of provider%s %s:' % ('s' if len(names) > 1 else '', ', '.join(names)), own)] if own else []
    if missing:
        sections.append(('not installed here:', 'provider %s: install the package%s %s' % (
            ', '.join(missing), 's' if len(missing) > 1 else '',
            ', '.join(sorted({'ddkit-' + registry.module_name(name) for name in missing})))))
    everyone = set(name for name in USUAL if all(name in needs[each] for each in installed)) if installed else ()
    return summary, sections + [('settings of every record:', [PROVIDER] + [
        relabeled(s, '(required) ' + s.help) if s.name in everyone else s for s in common])]


def before_first_run(name, needs):
    """What --provider NAME --help says first of a provider: the settings a record of it requires,
    and its section of docs/providers.md, where what the account needs first is (an API access to
    turn on, the least privilege, the site mode) and what its error codes mean."""
    if name in registry.services():   # ddns-scripts' update URLs: a row each of one table
        where = 'the row `%s` of the update URLs of ddns-scripts' % name
    else:
        where = 'the section headed `%s`' % name
    # credentials in several forms (missing_credentials says which is missing), or what a URL sends
    credentials = '' if not hasattr(registry.provider(name), 'missing_credentials') else \
        ', and the credentials its update URL sends' if registry.module_name(name) == registry.URL_PROTOCOL else \
        ', and credentials in one of the forms below'
    return 'Provider %s requires %s%s. Before the first run read docs/providers.md, %s: what the account ' \
           'needs first, the least privilege and what its error codes mean.' % (name, ', '.join(needs), credentials,
                                                                              where)


def relabeled(setting, text):
    """A copy of setting whose help is text: what --help shows of it, the setting itself unchanged."""
    copy = Setting.__new__(Setting)
    copy.__dict__.update(setting.__dict__)
    copy.help = text
    return copy


def _installed(name):
    try:
        registry.provider(name)
    except UsageError:
        return False
    return True


def table_of(provider, common):
    """The settings a record of this provider is loaded with."""
    return provider.SETTINGS + common + [PROVIDER]


def chosen(args, own, environ, several, common):
    """The provider module a record names; a UsageError when it names none or an unknown one, or
    (a run of one record) when the command line gives a setting of another provider. Another
    provider's values in a config or UCI file are left alone: records of several providers share it."""
    cfg = settings.load(args, [PROVIDER], [], environ=environ, **own)
    if not cfg.provider:
        raise UsageError('missing setting provider: give it as --provider, DDNS_PROVIDER or provider= in a '
                         '--config file (UCI: option provider \'...\'); known providers: %s'
                         % registry.known())
    provider = registry.provider(cfg.provider)
    if provider not in _MINE:   # asked for each record of a run of several
        _MINE[provider] = frozenset(s.name for s in table_of(provider, common))
    mine = _MINE[provider]
    if not several:   # the flags of a run of several are shared by records of several providers
        foreign = sorted(name for name in args.values if name not in mine)
        if foreign:
            raise UsageError('%s %s not a setting of provider %s; see --help' % (
                ', '.join('--' + name.replace('_', '-') for name in foreign),
                'is' if len(foreign) == 1 else 'are', cfg.provider))
    stray_setting(own, mine, cfg.provider, several, args.config)
    return provider


_MINE = {}   # provider -> the names of its settings and the common ones


def stray_setting(own, mine, provider, several, path):
    """A UsageError when the record's own values (a config file of one record, a [record] block, a
    UCI section's own options: settings.OWN) give a setting of another provider, which this one would
    leave unused; the shared ones (lines before the first block, `config defaults`, a config file
    beside --uci) serve records of several providers."""
    found = own.get('file_values')
    if found is not None:
        given = found.get(settings.OWN, None if several else [k for k in found if not k.startswith('line:')])
    else:
        found = own.get('uci_values') or {}
        given = found.get(settings.OWN)
    for name in [name for name in given or () if name not in mine]:
        stray = settings.strayed(name, {PROVIDER.name: PROVIDER}, provider)
        if stray:
            line = found.get('line:' + name)
            raise UsageError('%s: %s (see --help)' % ('config file %s line %s' % (path, line) if line else
                                                       'UCI section %s' % found.get('uci:section'), stray))


def catalog(common):
    """What `ddkit --providers --json` prints: the installed providers of the registry, each with its
    name, summary, the settings a record of it needs and its own settings; the common settings and
    the service's. A setting: name, label, help (what it means: a form shows it as the setting's
    label and help), secret, default, required, choices, list (a repeated one)."""
    from ddkit.provider import required
    installed = []
    for name in registry.PROVIDERS:
        try:
            provider = registry.provider(name)
        except UsageError:   # not installed here: the page offers only what the router can run
            continue
        needs = required(provider)
        installed.append({'name': str(name), 'summary': provider.SUMMARY, 'required': list(needs),
                          'settings': [described(s, needs) for s in provider.SETTINGS]})
    return {'providers': installed, 'common': [described(s, ()) for s in common],
            'service': [described(s, ()) for s in SERVICE]}


def described(setting, needs):
    """One setting as the catalog shows it."""
    from ddkit.helptext import label
    return {'name': setting.name, 'label': label(setting), 'help': setting.help, 'secret': bool(setting.secret),
            'default': list(setting.default) if isinstance(setting.default, (list, tuple)) else setting.default,
            'required': setting.name in needs,
            'choices': list(setting.choices) if setting.choices is not None else None,
            'list': bool(setting.repeat)}


def show_providers(common, as_json):
    """Print the installed providers (a line each, or the catalog as JSON); exit status 0."""
    from ddkit.log import say
    found = catalog(common)
    if as_json:
        from ddkit import jsontext
        say(jsontext.dumps(found))
        return 0
    from ddkit.helptext import option_lines
    gutter = 4 + max([len(name) for name in registry.PROVIDERS])
    for provider in found['providers']:
        say('\n'.join(line[2:] for line in option_lines(provider['name'], provider['summary'], gutter)))
    missing = [name for name in registry.PROVIDERS if name not in {p['name'] for p in found['providers']}]
    if missing:
        presets = {}   # a preset comes with its protocol's package
        for name in missing:
            if registry.module_name(name) != name:
                presets.setdefault(registry.module_name(name), []).append(name)
        say('not installed: %s (install the package ddkit-<provider>%s)' % (', '.join(missing), ''.join(
            '; %s come%s with ddkit-%s' % (', '.join(names), 's' if len(names) == 1 else '', module)
            for module, names in presets.items())))
    return 0


# a sample section's own options beside the provider's settings: the service's (SERVICE), then the record's
SAMPLE_SERVICE = [('run at once when this logical interface comes up or changes address (hotplug)', 'interface',
                   'wan'),
                  ('and every interval seconds (the service runs all sections at the shortest; a provider\'s '
                   'lookup: at most every 30 minutes)', 'interval', '1800')]
SAMPLE_RECORD = [(None, 'zone_name', 'example.com'), (None, 'record_name', 'home.example.com'),
                 (None, 'record_type', 'A'),
                 ('\'url\' asks ip_lookup_url; \'iface:<device>\' (e.g. iface:pppoe-wan) reads it locally',
                  'ip_source', 'url')]
SAMPLE_WIDTH = 100   # of a comment line, as in the hand-written UCI files of the packages


def sample(name):
    """The lines of a disabled section of provider name for /etc/config/ddkit: its settings (those
    without a default as empty options to fill in, the others commented out at their default), each
    under its help, then the service's options and the record's. The section is named after the
    provider (a UCI section name holds letters, digits and _ only: dy.fi's is dy_fi)."""
    import re
    import textwrap

    def quoted(value):   # as `uci export` writes a value: a quote inside as '\''
        return "'%s'" % str(value).replace("'", "'\\''")

    def comment(text):
        return ['\t# ' + line for line in textwrap.wrap(text, SAMPLE_WIDTH - 10, break_on_hyphens=False)]

    provider = registry.provider(name)
    about = 'provider %s (package ddkit-%s): %s' % (name, registry.module_name(name), provider.SUMMARY)
    lines = ['# ' + line for line in textwrap.wrap(about, SAMPLE_WIDTH - 2, break_on_hyphens=False)]
    lines += ["config ddkit '%s'" % re.sub(r'[^A-Za-z0-9_]', '_', name), "\toption enabled '0'",
              '\toption provider %s' % quoted(name)]
    for help, option, value in SAMPLE_SERVICE:
        lines += comment(help) + ['\toption %s %s' % (option, quoted(value))]
    for setting in provider.SETTINGS:
        kind = 'list' if setting.repeat else 'option'
        values = setting.default if isinstance(setting.default, (list, tuple)) else [setting.default]
        lines += comment(setting.help)
        lines += ['\t#%s %s %s' % (kind, setting.name, quoted(value)) for value in values] \
            if setting.default not in (None, '', [], ()) else ["\t%s %s ''" % (kind, setting.name)]
    for help, option, value in SAMPLE_RECORD:
        lines += (comment(help) if help else []) + ['\toption %s %s' % (option, quoted(value))]
    return lines


def show_sample(names, tool, argv):
    """--sample: the sample section of each provider named (--provider), for the UCI file; exit 2
    without one, or for a name that is no provider installed here (what is wrong said as a record's
    provider setting says it)."""
    import sys
    from ddkit.log import say
    given = [word.partition('=')[2] for word in argv if word.startswith('--provider=')]
    given += [value for word, value in zip(argv, argv[1:]) if word == '--provider']
    for value in given:
        try:
            check_provider(value)
        except (ValueError, UsageError) as e:
            print('%s: --provider %s: %s' % (tool, value, e), file=sys.stderr)
            return 2
    if not names:
        print('%s: --sample prints the section of a provider: name it, e.g. %s --provider %s --sample'
              % (tool, tool, registry.PROVIDERS[0]), file=sys.stderr)
        return 2
    for at, name in enumerate(names):
        say('\n'.join(([''] if at else []) + sample(name)))
    return 0


def with_lines():
    """The registered providers with operator lines (their LINES), in registry order: those installed
    here. ddkit.lines names them when it refuses lines at a provider of one address a name."""
    found = []
    for name in registry.PROVIDERS:
        try:
            module = registry.provider(name)
        except UsageError:   # its package is not installed
            continue
        if getattr(module, 'LINES', None):
            found.append(str(name))
    return found
