"""The DNS providers by name: one line each. A provider is the module ddkit.providers.<name> (its
settings, files, error fixes and API calls: the contract in docs/design.md); `ddkit --provider <name>`
runs it, and the packages, services, docs tables and test adapters are derived from this list.
ddkit.providers is a namespace package (a directory without __init__.py): each provider's package
installs its module into it, and no package owns the directory."""

from ddkit import UsageError

PACKAGE = 'ddkit.providers.'   # where each provider's module is

PROVIDERS = (
    'cloudflare',     # Cloudflare API v4 (updater_a)
    'huaweicloud',    # Huawei Cloud DNS v2 with an IAM token (updater_b)
    'dyndns2',        # the dyndns2 update protocol (No-IP, Dynu, DynDNS, ...)
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
)


def provider(name):
    """The module of the provider registered under name; a UsageError naming the known ones."""
    if name not in PROVIDERS:
        raise UsageError('unknown provider %r: known providers are %s' % (name, ', '.join(PROVIDERS)))
    try:   # __import__, not importlib: its package loads warnings, which a cron run has no use for
        return __import__(PACKAGE + name, fromlist=['NAME'])
    except ModuleNotFoundError as e:
        # not its module, nor the folder of providers (none installed): a module the provider
        # imports, which is a bug or a broken install
        if e.name not in (PACKAGE + name, PACKAGE[:-1]):
            raise
        # each provider is a package of its own (opkg, apk): a router carries the ones it uses
        raise UsageError('provider %s is not installed: install the package ddkit-%s' % (name, name))
