"""The DNS providers by name: one entry each. A provider is the module ddkit.providers.<name> (its
settings, files, error fixes and API calls: the contract in docs/design.md), or a preset: a protocol's
module at one service (noip is dyndns2 at No-IP's server), with no module and no package of its own.
`ddkit --provider <name>` runs it, and the packages, services, docs tables and test adapters are
derived from this list. ddkit.providers is a namespace package (a directory without __init__.py):
each provider's package installs its module into it, and no package owns the directory."""

from ddkit import UsageError

PACKAGE = 'ddkit.providers.'   # where each provider's module is


class Preset(str):
    """A registered name that runs its protocol's module at one service: the name itself (so that
    PROVIDERS stays a tuple of names), the protocol (the module's name), its one-line summary there,
    and what it changes: a setting's default by the setting's name (server=...), a constant of the
    module by its upper-case name (a mapping is laid over the module's). The protocol's package
    brings it."""

    def __new__(cls, name, protocol, summary, **changes):
        self = str.__new__(cls, name)
        self.protocol, self.summary, self.changes = protocol, summary, changes
        return self


PROVIDERS = (
    'cloudflare',     # Cloudflare API v4 (updater_a)
    'huaweicloud',    # Huawei Cloud DNS v2 with an IAM token (updater_b)
    'dyndns2',        # the dyndns2 update protocol (DynDNS and the services that speak it)
    'dnspod',         # DNSPod through Tencent Cloud API 3.0 (TC3-HMAC-SHA256)
    'alidns',         # Alibaba Cloud DNS (Alidns API 2015-01-09, AccessKey-signed RPC calls)
    'webhook',        # any HTTP endpoint, told the IP by a request the user describes
    'volcengine',     # Volcengine TrafficRoute DNS (OpenAPI 2018-08-01, HMAC-SHA256 signed)
    'baiducloud',     # Baidu AI Cloud DNS (API v1, bce-auth-v1 signed)
    'namecom',        # Name.com core API (HTTP Basic: user name and API token)
    'spaceship',      # Spaceship DNS records API (API key and secret headers)
    'dynv6',          # dynv6 REST API v2 (HTTP token; the zone's own address is the zone's)
    'cloudns',        # ClouDNS HTTP API (auth-id or a sub-user, and its password)
    'gcore',          # Gcore DNS API v2 (RRsets), a permanent API token
    'desec',          # deSEC API v1 (RRsets), a token
    'edgeone',        # Tencent Cloud EdgeOne DNS records (TEO API 3.0, TC3-HMAC-SHA256)
    'aliesa',         # Alibaba Cloud ESA DNS records (API 2024-09-10, ACS3-HMAC-SHA256)
    'westcn',         # West.cn 西部数码 domain DNS (API v2, md5 token of the API password)
    'namesilo',       # NameSilo API (an API key in the query string)
    'porkbun',        # Porkbun API v3 (API key and secret in a JSON body)
    Preset('noip', 'dyndns2', 'Tell No-IP this host\'s IP for one of its host names (dyndns2)',
           server='https://dynupdate.no-ip.com',
           FIXES={'badauth': 'the user name or password is wrong: check username (the account\'s e-mail or '
                             'user name, or a DDNS key\'s user name) and password (the account\'s, or that '
                             'DDNS key\'s)'}),
    # Dynu takes each family in a field of its own, and "no" leaves the other one as it is
    Preset('dynu', 'dyndns2', 'Tell Dynu this host\'s IP for one of its host names (dyndns2)',
           server='https://api.dynu.com', ADDRESS_QUERY={'A': 'myip=%s&myipv6=no', 'AAAA': 'myip=no&myipv6=%s'},
           FIXES={'badauth': 'the user name or password is wrong: check username (Dynu\'s user name, shown in its '
                             'control panel) and password (the account\'s, or its IP update password)'}),
    # Hurricane Electric logs a record in as itself: the user name is the host name, so not required
    Preset('he', 'dyndns2', 'Tell Hurricane Electric\'s dns.he.net this host\'s IP (dyndns2)',
           server='https://dyn.dns.he.net', REQUIRED=('password',),
           FIXES={'badauth': 'the host name and key do not match: password is that record\'s dynamic DNS key '
                             '(dns.he.net: the record\'s DDNS key), and username, when set, the host name '
                             'itself (as record_name)',
                  'badsys': 'the service refused the request\'s form: report it to the ddkit project'}),
    'duckdns',        # DuckDNS's update URL, told the IP (the account's token in the query string)
    'namecheap',      # Namecheap's Dynamic DNS update URL, told the IPv4 address (its password in the query)
)


# what users call a provider, where one registered name is meant: offered as a did-you-mean of a
# provider not known (the name itself is what a record names, so its files and status are found)
ALIASES = {
    'cf': 'cloudflare',
    'huawei': 'huaweicloud', 'hwcloud': 'huaweicloud',
    'tencent': 'dnspod', 'tencentcloud': 'dnspod', 'qcloud': 'dnspod',   # Tencent Cloud's DNS is DNSPod
    'aliyun': 'alidns', 'alibaba': 'alidns', 'alibabacloud': 'alidns',   # Alibaba Cloud's DNS
    'volc': 'volcengine', 'huoshan': 'volcengine',
    'baidu': 'baiducloud', 'bce': 'baiducloud',
    'name.com': 'namecom',
    'west': 'westcn', 'west.cn': 'westcn',
    'no-ip': 'noip',
    'dyndns': 'dyndns2',
}


def did_you_mean(name):
    """'; did you mean x?' for a name that is not a registered provider: a misspelt one (in any letter
    case), or what users call one (ALIASES); else ''."""
    from ddkit import helptext
    return helptext.did_you_mean(name, PROVIDERS, ALIASES)


def module_name(name):
    """The module a registered provider runs: its own, or a preset's protocol."""
    entry = PROVIDERS[PROVIDERS.index(name)]
    return entry.protocol if isinstance(entry, Preset) else str(entry)


def modules():
    """The providers that are a module (each a package ddkit-<name>), in registry order."""
    return tuple(str(name) for name in PROVIDERS if not isinstance(name, Preset))


def provider(name):
    """The provider registered under name: its module, or a preset's (PresetProvider); a UsageError
    naming the known ones, or the package to install."""
    if name not in PROVIDERS:
        raise UsageError('unknown provider %r%s: known providers are %s' % (name, did_you_mean(name),
                                                                          ', '.join(PROVIDERS)))
    module = module_name(name)
    try:   # __import__, not importlib: its package loads warnings, which a cron run has no use for
        found = __import__(PACKAGE + module, fromlist=['NAME'])
    except ModuleNotFoundError as e:
        # not its module, nor the folder of providers (none installed): a module the provider
        # imports, which is a bug or a broken install
        if e.name not in (PACKAGE + module, PACKAGE[:-1]):
            raise
        # each provider module is a package of its own (opkg, apk): a router carries the ones it uses
        raise UsageError('provider %s is not installed: install the package ddkit-%s' % (name, module))
    if module == name:
        return found
    if name not in _PRESETS:   # one object a name: a run keys what records share by their provider
        _PRESETS[name] = PresetProvider(found, PROVIDERS[PROVIDERS.index(name)])
    return _PRESETS[name]


_PRESETS = {}


class PresetProvider:
    """A preset's provider: its protocol's module under the preset's name and summary, with the
    defaults and constants the preset changes, and state files of its own (STEM and FILES named after
    the preset instead of the protocol: a record's files, log and status say which service it was
    told at). Everything else is the module's; its functions read what a preset may change through
    job.provider."""

    def __init__(self, module, preset):
        from ddkit.settings import Setting
        self.module, self.__doc__ = module, module.__doc__
        self.NAME, self.SUMMARY = str(preset), preset.summary
        self.STEM = module.STEM.replace(module.NAME, self.NAME)
        self.FILES = {role: pattern.replace(module.NAME, self.NAME) for role, pattern in module.FILES.items()}
        self.SETTINGS = [s if s.name not in preset.changes else
                         Setting(s.name, preset.changes[s.name], s.help, s.secret, s.short, s.check, s.repeat,
                                 s.metavar, s.decides, s.choices, s.commas) for s in module.SETTINGS]
        for key, value in preset.changes.items():
            if key.isupper():
                mine = getattr(module, key)
                setattr(self, key, dict(mine, **value) if isinstance(mine, dict) else value)

    def __getattr__(self, name):
        return getattr(self.module, name)

    def __repr__(self):
        return '<provider %s: %s>' % (self.NAME, self.module.__name__)
