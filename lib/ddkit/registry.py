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
    module by its upper-case name (a mapping is laid over the module's). A summary of None leaves
    both to the module (its preset(name): a table its package brings). The protocol's package brings
    it."""

    def __new__(cls, name, protocol, summary, **changes):
        self = str.__new__(cls, name)
        self.protocol, self.summary, self.changes = protocol, summary, changes
        return self

    def made(self, module):
        """(summary, changes) of this preset over its protocol's module: its own, or the module's
        preset(name) where it names no summary (read only when its provider is built)."""
        return (self.summary, self.changes) if self.summary is not None else module.preset(str(self))


URL_PROTOCOL = 'updateurl'   # the module that runs a service of URL_SERVICES

# The services of OpenWrt's ddns-scripts that are an update URL (openwrt/packages,
# net/ddns-scripts/files/usr/share/ddns/default/*.json of package 2.8.4), each a preset of the updateurl
# protocol under the name its service_name gives it. Their URLs and answers are that module's
# (updateurl.SERVICES), which its package brings: a router that runs none carries their names alone.
URL_SERVICES = (
    '3322.org', 'afraid.org-basicauth', 'afraid.org-keyauth', 'afraid.org-v2-basic', 'afraid.org-v2-token',
    'all-inkl.com', 'apertodns.com-token', 'apertodns.com', 'changeip.com', 'core-networks.de', 'ddnss.de',
    'ddo.jp', 'desec.io', 'dhis.org', 'dnsdynamic.org', 'dnsever.com', 'dnsexit.com', 'dnshome.de',
    'dnsmadeeasy.com', 'dnsmax.com', 'dnsomatic.com', 'dnspark.com', 'do.de', 'domopoli.de', 'dondominio.com',
    'duckdns.org', 'duiadns.net', 'dy.fi', 'dyn.com', 'dyndns.it', 'dyndns.org', 'dynu.com', 'dynv6.com',
    'easydns.com', 'eurodns.com', 'goip.de', 'google.com', 'he.net', 'hosting.de', 'infomaniak.com', 'inwx.de',
    'ipnodns.ru', 'ipv64.net', 'joker.com', 'loopia.se', 'moniker.com', 'mydns.jp', 'myonlineportal.net',
    'mythic-beasts.com-v2', 'mythic-beasts.com', 'namecheap.com', 'njal.la', 'no-ip.pl', 'now-dns.com',
    'nsupdate.info', 'opendns.com', 'oray.com', 'ovh.com', 'regfish.de', 'schokokeks.org', 'selfhost.de',
    'simply.com', 'sitelutions.com', 'spdyn.de', 'strato.com', 'system-ns.com', 'thatip.com', 'twodns.de',
    'udmedia.de', 'variomedia.de', 'xlhost.de', 'ydns.io', 'zoneedit.com',
)

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
    'hetzner',        # Hetzner DNS (the Hetzner Cloud API's zones and RRsets, a project's API token)
    'dnsimple',       # DNSimple API v2 (the account found from its access token)
    'luadns',         # LuaDNS REST API v1 (the account's e-mail and an API key, HTTP Basic)
    'scaleway',       # Scaleway Domains and DNS API v2beta1 (an API key's secret key)
    'netcup',         # netcup CCP DNS API (JSON; a session from the customer number, API key and password)
    'digitalocean',   # DigitalOcean Domains (API v2), a personal access token
    'powerdns',       # PowerDNS Authoritative's HTTP API (PATCH of an RRset), X-API-Key
    'dynadot',        # Dynadot API3 (an API key in the query; the domain's whole DNS set read and sent back)
    'dnspodtoken',    # DNSPod's own API (dnsapi.cn, api.dnspod.com), a DNSPod Token: login_token=ID,Token
    'dnscom',         # 51DNS (formerly DNS.COM), an API key and secret: each request's MD5 hash
    'dnsla',          # DNS.LA API v2 (an API ID and secret, HTTP Basic)
    'rainyun',        # Rainyun 雨云 domain DNS records (API v2, x-api-key)
    'route53',        # Amazon Route 53 (API 2013-04-01, XML), AWS Signature Version 4
    'ovh',            # OVHcloud API 1.0 (EU, CA, US endpoints), OVH's $1$ SHA-1 signature with the server's time
    'googlecloud',    # Google Cloud DNS v1 (RRsets), a service account's JSON key: an RS256 JWT for an OAuth token
    'godaddy',        # GoDaddy Domains API v1 (a name's records of a type PUT together), sso-key
    'vercel',         # Vercel DNS records (REST API), a bearer token and the team's id
    'ns1',            # NS1 / IBM NS1 Connect API v1 (a record's answers), X-NSONE-Key
    'gandi',          # Gandi LiveDNS API v5 (RRsets), a personal access token
    'rfc2136',        # DNS UPDATE (RFC 2136) to the zone's primary server, signed with a TSIG key
    'eranet',         # Eranet's Todaynic DNS API (GET calls signed HMAC-SHA1 in Alibaba Cloud's RPC style)
    # Now.cn 时代互联 serves the same Todaynic API, the same paths, at a host of its own
    Preset('nowcn', 'eranet', 'Keep an A or AAAA record at Now.cn 时代互联 (Todaynic DNS API)',
           base_url='https://api.now.cn'),
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
    'updateurl',      # a service's update URL, filled in as ddns-scripts fills it
) + tuple(Preset(name, URL_PROTOCOL, None) for name in URL_SERVICES)


# The services of ddns-scripts' list that name an update script (update_*.sh), by the provider here
# that speaks the same API: `--provider cloudflare.com-v4` runs cloudflare (a record's files are the
# provider's), and `ddkit --import-ddns` carries a section of it there. One not registered (yet), or
# None, is a service ddkit has no provider for: the import names it.
SCRIPT_SERVICES = {
    'cloudflare.com-v4': 'cloudflare', 'huaweicloud.com': 'huaweicloud', 'aliyun.com': 'alidns',
    'dnspod.cn-v3': 'dnspod', 'dnspod.cn': 'dnspodtoken', 'porkbun.com-v3': 'porkbun',
    'namesilo.com-v1': 'namesilo', 'no-ip.com': 'noip', 'route53-v1': 'route53',
    'cloud.google.com-v1': 'googlecloud', 'digitalocean.com-v2': 'digitalocean', 'godaddy.com-v1': 'godaddy',
    'gandi.net': 'gandi', 'hetzner.cloud': 'hetzner', 'luadns.com-v1': 'luadns', 'netcup.com': 'netcup',
    'ns1.com': 'ns1', 'scaleway.com': 'scaleway', 'bind-nsupdate': 'rfc2136', 'pdns': 'powerdns',
    'beget.com': None, 'blazingfast.io': None, 'cnkuai.cn': None, 'freedns.42.pl': None, 'one.com': None,
    'servercow.de': None, 'transip.nl': None,
}


def canonical(name):
    """The registered provider a name runs: itself, or the provider of a ddns-scripts service that
    names an update script (SCRIPT_SERVICES), where one is registered; else the name as it is."""
    target = SCRIPT_SERVICES.get(name)
    return target if target in PROVIDERS else name

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


def services():
    """The presets of URL_SERVICES (ddns-scripts' services that are an update URL), in registry order."""
    return tuple(name for name in PROVIDERS if isinstance(name, Preset) and name.protocol == URL_PROTOCOL)


def known():
    """The registered providers as a message names them: each but the update URLs of ddns-scripts'
    services, which are counted (ddkit --providers lists every one)."""
    shown = [name for name in PROVIDERS if name not in services()]
    return '%s and the %d services of ddns-scripts that are an update URL (ddkit --providers lists them)' % (
        ', '.join(shown), len(PROVIDERS) - len(shown))


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
        raise UsageError('unknown provider %r%s: known providers are %s' % (name, did_you_mean(name), known()))
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
        summary, changes = preset.made(module)
        self.module, self.__doc__ = module, module.__doc__
        self.NAME, self.SUMMARY = str(preset), summary
        self.STEM = module.STEM.replace(module.NAME, self.NAME)
        self.FILES = {role: pattern.replace(module.NAME, self.NAME) for role, pattern in module.FILES.items()}
        self.SETTINGS = [s if s.name not in changes else
                         Setting(s.name, changes[s.name], s.help, s.secret, s.short, s.check, s.repeat,
                                 s.metavar, s.decides, s.choices, s.commas, s.label) for s in module.SETTINGS]
        for key, value in changes.items():
            if key.isupper():
                mine = getattr(module, key)
                setattr(self, key, dict(mine, **value) if isinstance(mine, dict) else value)

    def __getattr__(self, name):
        return getattr(self.module, name)

    def __repr__(self):
        return '<provider %s: %s>' % (self.NAME, self.module.__name__)
