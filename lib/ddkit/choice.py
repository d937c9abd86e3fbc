"""The ddkit command's choice of provider: each record names its own (the setting provider: a flag,
DDNS_PROVIDER, provider= in a config file, option provider in a UCI section), and is loaded with that
provider's settings alone. Only the ddkit command imports this module: a tool fixed to one provider
(updater_a) carries no other provider's code."""

from ddkit import UsageError, registry, settings
from ddkit.settings import Setting

SUMMARY = 'Keep DNS records (A or AAAA) at any registered DNS provider equal to this host\'s public IP.'


def check_provider(value):
    """A registered provider's name (ddkit.registry), installed here (else a UsageError naming its
    package)."""
    if value not in registry.PROVIDERS:
        raise ValueError('not a known provider; known: %s' % ', '.join(registry.PROVIDERS))
    registry.provider(value)
    return value


PROVIDER = Setting('provider', help='the DNS provider of the record: %s; its settings follow, marked with its '
                   'name' % ', '.join(registry.PROVIDERS), check=check_provider, decides=True)


def every_table(common):
    """The command line's settings: provider, every installed provider's own (each named once, its
    help marked with its provider; a name several providers use shows each one's help), the common
    ones."""
    table, seen, own = [PROVIDER], {s.name for s in common}, {}
    for name in registry.PROVIDERS:
        try:
            provider = registry.provider(name)
        except UsageError:   # not installed here: a record naming it says so when it loads
            continue
        for s in provider.SETTINGS:
            if s.name in own:
                own[s.name].help += '; (%s) %s' % (name, s.help)
                own[s.name].secret = own[s.name].secret or s.secret   # a secret to any, masked for all
            elif s.name not in seen:
                own[s.name] = Setting(s.name, s.default, '(%s) %s' % (name, s.help), s.secret, s.short, s.check,
                                      s.repeat, s.metavar)
                table.append(own[s.name])
    return table + common


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
                         % ', '.join(registry.PROVIDERS))
    provider = registry.provider(cfg.provider)
    if not several:   # the flags of a run of several are shared by records of several providers
        mine = {s.name for s in table_of(provider, common)}
        foreign = sorted(name for name in args.values if name not in mine)
        if foreign:
            raise UsageError('%s %s not a setting of provider %s; see --help' % (
                ', '.join('--' + name.replace('_', '-') for name in foreign),
                'is' if len(foreign) == 1 else 'are', cfg.provider))
    return provider
