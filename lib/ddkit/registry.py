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


URL_PROTOCOL = 'updateurl'   # the module that runs a service of URL_SERVICES
SERVICE_SUMMARY = 'Tell this service this host\'s %s (ddns-scripts\' update URL)'   # IP or IPv4: one for all
SAME = 'the IPv4 URL'   # a service of URL_SERVICES whose IPv4 URL takes IPv6 addresses too

# The services of OpenWrt's ddns-scripts that are an update URL (openwrt/packages,
# net/ddns-scripts/files/usr/share/ddns/default/*.json of package 2.8.4), each a preset of the updateurl
# protocol under the name its service_name gives it: (name, the answer a success holds or None for
# any 2xx, its IPv4 URL, its IPv6 URL: SAME, or None where the list has none). As the list has them,
# the odd ones too (a URL without [IP], a literal DYNAMIC_IP, a doubled user:pass@ prefix).
URL_SERVICES = (
    ('3322.org', None,
     'http://[USERNAME]:[PASSWORD]@members.3322.org/dyndns/update?system=dyndns&hostname=[DOMAIN]&myip=[IP]', None),
    ('afraid.org-basicauth', None,
     'https://[USERNAME]:[PASSWORD]@freedns.afraid.org/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('afraid.org-keyauth', None, 'https://freedns.afraid.org/dynamic/update.php?[PASSWORD]&address=[IP]', SAME),
    ('afraid.org-v2-basic', None, 'https://[USERNAME]:[PASSWORD]@sync.afraid.org/u/?h=[DOMAIN]&ip=[IP]',
     'https://[USERNAME]:[PASSWORD]@v6.sync.afraid.org/u/?h=[DOMAIN]&ip=[IP]'),
    ('afraid.org-v2-token', None, 'https://sync.afraid.org/u/[PASSWORD]/?address=[IP]',
     'https://v6.sync.afraid.org/u/[PASSWORD]/?address=[IP]'),
    ('all-inkl.com', None, 'http://[USERNAME]:[PASSWORD]@dyndns.kasserver.com/?myip=[IP]', SAME),
    ('apertodns.com-token', 'good|nochg',
     'https://[PASSWORD]:[PASSWORD]@api.apertodns.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('apertodns.com', 'good|nochg',
     'https://[USERNAME]:[PASSWORD]@api.apertodns.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('changeip.com', 'Successful',
     'http://[USERNAME]:[PASSWORD]@nic.changeip.com/nic/update?u=[USERNAME]&p=[PASSWORD]&cmd=update'
     '&hostname=[DOMAIN]&ip=[IP]',
     None),
    ('core-networks.de', 'good',
     'http://[USERNAME]:[PASSWORD]@dyndns.core-networks.de/?hostname=[DOMAIN]&myip=[IP]&keepipv6=1',
     'http://[USERNAME]:[PASSWORD]@dyndns.core-networks.de/?hostname=[DOMAIN]&myip=[IP]&keepipv4=1'),
    ('ddnss.de', 'Updated|No change',
     'http://ip4.ddnss.de/upd.php?user=[USERNAME]&pwd=[PASSWORD]&host=[DOMAIN]&ip=[IP]', None),
    ('ddo.jp', None, 'http://free.ddo.jp/dnsupdate.php?dn=[DOMAIN]&pw=[PASSWORD]&ip=[IP]', None),
    ('desec.io', 'good|nochg',
     'https://update.dedyn.io/update?username=[USERNAME]&password=[PASSWORD]&hostname=[DOMAIN]&myipv4=[IP]'
     '&myipv6=preserve',
     'https://update.dedyn.io/update?username=[USERNAME]&password=[PASSWORD]&hostname=[DOMAIN]&myipv6=[IP]'
     '&myipv4=preserve'),
    ('dhis.org', None, 'http://[USERNAME]:[PASSWORD]@is.dhis.org/', SAME),
    ('dnsdynamic.org', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@www.dnsdynamic.org/api/?hostname=[DOMAIN]&myip=[IP]', None),
    ('dnsever.com', None, 'http://[USERNAME]:[PASSWORD]@dyna.dnsever.com/update.php?host[[DOMAIN]]', None),
    ('dnsexit.com', None,
     'http://update.dnsexit.com/RemoteUpdate.sv?login=[USERNAME]&password=[PASSWORD]&host=[DOMAIN]&myip=[IP]', None),
    ('dnshome.de', None, 'http://[USERNAME]:[PASSWORD]@www.dnshome.de/dyndns.php?hostname=[DOMAIN]&ip=[IP]',
     'http://[USERNAME]:[PASSWORD]@www.dnshome.de/dyndns.php?hostname=[DOMAIN]&ip6=[IP]'),
    ('dnsmadeeasy.com', 'success|ip-same',
     'http://cp.dnsmadeeasy.com/servlet/updateip?username=[USERNAME]&password=[PASSWORD]&id=[DOMAIN]&ip=[IP]', None),
    ('dnsmax.com', None,
     'http://update.dnsmax.com/update/?username=[USERNAME]&password=[PASSWORD]&resellerid=1&clientname=openwrt'
     '&clientversion=8.09&protocolversion=2.0&updatehostname=[DOMAIN]&ip=[IP]',
     None),
    ('dnsomatic.com', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@updates.dnsomatic.com/nic/update?hostname=[DOMAIN]&myip=[IP]', None),
    ('dnspark.com', 'ok|nochange',
     'http://[USERNAME]:[PASSWORD]@control.dnspark.com/api/dynamic/update.php?hostname=[DOMAIN]&ip=[IP]', None),
    ('do.de', 'good|nochg', 'http://ddns.do.de/?myip=[IP]&hostname=[DOMAIN]&username=[USERNAME]&password=[PASSWORD]',
     SAME),
    ('domopoli.de', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@http://dyndns.domopoli.de/nic/update?hostname=[DOMAIN]&myip=[IP]', None),
    ('dondominio.com', 'OK',
     'http://dondns.dondominio.com/plain/?user=[USERNAME]&password=[PASSWORD]&host=[DOMAIN]&ip=[IP]', None),
    ('duckdns.org', 'OK', 'http://www.duckdns.org/update?domains=[DOMAIN]&token=[PASSWORD]&ip=[IP]',
     'http://www.duckdns.org/update?domains=[DOMAIN]&token=[PASSWORD]&ipv6=[IP]'),
    ('duiadns.net', None, 'http://ip.duiadns.net/dynamic.duia?host=[DOMAIN]&password=[PASSWORD]&ip4=[IP]',
     'http://ip.duiadns.net/dynamic.duia?host=[DOMAIN]&password=[PASSWORD]&ip6=[IP]'),
    ('dy.fi', 'good|nochg', 'http://[USERNAME]:[PASSWORD]@www.dy.fi/nic/update?hostname=[DOMAIN]', None),
    ('dyn.com', 'good|nochg', 'http://[USERNAME]:[PASSWORD]@members.dyndns.org/v3/update?hostname=[DOMAIN]&myip=[IP]',
     SAME),
    ('dyndns.it', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@update.dyndns.it/nic/update?system=dyndns&hostname=[DOMAIN]&myip=[IP]', None),
    ('dyndns.org', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@members.dyndns.org/v3/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('dynu.com', None,
     'http://api.dynu.com/nic/update?hostname=[DOMAIN]&myip=[IP]&username=[USERNAME]&password=[PASSWORD]',
     'http://api.dynu.com/nic/update?hostname=[DOMAIN]&myip=no&myipv6=[IP]&username=[USERNAME]&password=[PASSWORD]'),
    ('dynv6.com', 'updated|unchanged', 'http://dynv6.com/api/update?hostname=[DOMAIN]&token=[PASSWORD]&ipv4=[IP]',
     'http://dynv6.com/api/update?hostname=[DOMAIN]&token=[PASSWORD]&ipv6=[IP]'),
    ('easydns.com', 'OK|NOERROR',
     'http://[USERNAME]:[PASSWORD]@api.cp.easydns.com/dyn/generic.php?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('eurodns.com', 'good|nochg',
     'https://[USERNAME]:[PASSWORD]@update.eurodyndns.org/update/?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('goip.de', None, 'http://www.goip.de/setip?username=[USERNAME]&password=[PASSWORD]&subdomain=[DOMAIN]&ip=[IP]',
     'http://www.goip.de/setip?username=[USERNAME]&password=[PASSWORD]&subdomain=[DOMAIN]&ip6=[IP]'),
    ('google.com', 'good|nochg',
     'https://[USERNAME]:[PASSWORD]@domains.google.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('he.net', 'good|nochg', 'https://dyn.dns.he.net/nic/update?hostname=[DOMAIN]&password=[PASSWORD]&myip=[IP]',
     SAME),
    ('hosting.de', 'good|nochg',
     'https://[USERNAME]:[PASSWORD]@ddns.hosting.de/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('infomaniak.com', 'good|nochg',
     'https://[USERNAME]:[PASSWORD]@infomaniak.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('inwx.de', 'good|nochg', 'http://[USERNAME]:[PASSWORD]@dyndns.inwx.com/nic/update?myip=[IP]',
     'http://[USERNAME]:[PASSWORD]@dyndns.inwx.com/nic/update?myipv6=[IP]'),
    ('ipnodns.ru', 'ok', 'https://ipnodns.ru/cgi-bin/dyndns.cgi?login=[USERNAME]&secret=[PASSWORD]', None),
    ('ipv64.net', 'good|nochg', 'http://ipv64.net/nic/update?domain=[DOMAIN]&key=[PASSWORD]&ip=[IP]',
     'http://ipv64.net/nic/update?domain=[DOMAIN]&key=[PASSWORD]&ipv6=[IP]'),
    ('joker.com', 'good|nochg',
     'http://svc.joker.com/nic/update?username=[USERNAME]&password=[PASSWORD]&myip=[IP]&hostname=[DOMAIN]', SAME),
    ('loopia.se', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@dns.loopia.se/XDynDNSServer/XDynDNS.php?system=custom&hostname=[DOMAIN]&myip=[IP]',
     SAME),
    ('moniker.com', 'success',
     'https://dynamicdns.key-systems.net/update.php?hostname=[DOMAIN]&password=[PASSWORD]&ip=[IP]', None),
    ('mydns.jp', None, 'http://www.mydns.jp/directip.html?MID=[USERNAME]&PWD=[PASSWORD]&IPV4ADDR=[IP]',
     'http://www.mydns.jp/directip.html?MID=[USERNAME]&PWD=[PASSWORD]&IPV6ADDR=[IP]'),
    ('myonlineportal.net', 'good|nochg',
     'http://myonlineportal.net/updateddns?hostname=[DOMAIN]&ip=[IP]&username=[USERNAME]&password=[PASSWORD]',
     'http://myonlineportal.net/updateddns?hostname=[DOMAIN]&ip6=[IP]&username=[USERNAME]&password=[PASSWORD]'),
    ('mythic-beasts.com-v2', None, 'https://[USERNAME]:[PASSWORD]@ipv4.api.mythic-beasts.com/dns/v2/dynamic/[DOMAIN]',
     'https://[USERNAME]:[PASSWORD]@ipv6.api.mythic-beasts.com/dns/v2/dynamic/[DOMAIN]'),
    ('mythic-beasts.com', None,
     'http://dnsapi4.mythic-beasts.com/?domain=[USERNAME]&password=[PASSWORD]'
     '&command=REPLACE%20[DOMAIN]%2060%20A%20DYNAMIC_IP&origin=.',
     'http://dnsapi6.mythic-beasts.com/?domain=[USERNAME]&password=[PASSWORD]'
     '&command=REPLACE%20[DOMAIN]%2060%20AAAA%20DYNAMIC_IP&origin=.'),
    ('namecheap.com', None,
     'http://dynamicdns.park-your-domain.com/update?host=[USERNAME]&domain=[DOMAIN]&password=[PASSWORD]&ip=[IP]',
     None),
    ('njal.la', None, 'https://njal.la/update/?h=[DOMAIN]&k=[PASSWORD]&a=[IP]',
     'https://njal.la/update/?h=[DOMAIN]&k=[PASSWORD]&aaaa=[IP]'),
    ('no-ip.pl', None, 'http://[USERNAME]:[PASSWORD]@update.no-ip.pl/?hostname=[DOMAIN]', SAME),
    ('now-dns.com', 'good|nochg', 'https://[USERNAME]:[PASSWORD]@now-dns.com/update?hostname=[DOMAIN]', SAME),
    ('nsupdate.info', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@ipv4.nsupdate.info/nic/update?hostname=[DOMAIN]&myip=[IP]',
     'http://[USERNAME]:[PASSWORD]@ipv6.nsupdate.info/nic/update?hostname=[DOMAIN]&myip=[IP]'),
    ('opendns.com', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@updates.opendns.com/nic/update?hostname=[DOMAIN]&myip=[IP]', None),
    ('oray.com', None, 'http://[USERNAME]:[PASSWORD]@ddns.oray.com/ph/update?hostname=[DOMAIN]&myip=[IP]', None),
    ('ovh.com', 'good|nochg',
     'https://[USERNAME]:[PASSWORD]@dns.eu.ovhapis.com/nic/update?system=dyndns&hostname=[DOMAIN]&myip=[IP]', SAME),
    ('regfish.de', 'success|100|101',
     'http://dyndns.regfish.de/?fqdn=[DOMAIN]&forcehost=1&authtype=secure&token=[PASSWORD]&ipv4=[IP]',
     'http://dyndns.regfish.de/?fqdn=[DOMAIN]&forcehost=1&authtype=secure&token=[PASSWORD]&ipv6=[IP]'),
    ('schokokeks.org', 'good|nochg', 'http://[USERNAME]:[PASSWORD]@dyndns.schokokeks.org/nic/update?myip=[IP]', None),
    ('selfhost.de', 'good|nochg|200|204',
     'http://carol.selfhost.de/update?username=[USERNAME]&password=[PASSWORD]&myip=[IP]&hostname=1', None),
    ('simply.com', 'good|nochg', 'https://[USERNAME]:[PASSWORD]@api.simply.com/2/ddns/?hostname=[DOMAIN]&myip=[IP]',
     SAME),
    ('sitelutions.com', 'success',
     'https://dnsup.sitelutions.com/dnsup?user=[USERNAME]&pass=[PASSWORD]&id=[DOMAIN]&ip=[IP]', None),
    ('spdyn.de', 'good|nochg',
     'https://update.spdyn.de/nic/update?hostname=[DOMAIN]&myip=[IP]&user=[USERNAME]&pass=[PASSWORD]', SAME),
    ('strato.com', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@dyndns.strato.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('system-ns.com', '0',
     'http://system-ns.com/api?type=dynamic&command=set&domain=[DOMAIN]&token=[PASSWORD]&ip=[IP]', None),
    ('thatip.com', None,
     'http://update.dnsmax.com/update/?username=[USERNAME]&password=[PASSWORD]&resellerid=2&clientname=openwrt'
     '&clientversion=8.09&protocolversion=2.0&updatehostname=[DOMAIN]&ip=[IP]',
     None),
    ('twodns.de', None, 'http://[USERNAME]:[PASSWORD]@update.twodns.de/update?hostname=[DOMAIN]&ip=[IP]', None),
    ('udmedia.de', None, 'http://[USERNAME]:[PASSWORD]@www.udmedia.de/nic/update?myip=[IP]', SAME),
    ('variomedia.de', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@dyndns.variomedia.de/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    ('xlhost.de', 'good|nochg',
     'http://[USERNAME]:[PASSWORD]@nsupdate.xlhost.de/nic/update?hostname=[DOMAIN]&myip=[IP]', None),
    ('ydns.io', 'good|nochg', 'https://[USERNAME]:[PASSWORD]@ydns.io/api/v1/update/?host=[DOMAIN]&ip=[IP]', SAME),
    ('zoneedit.com', None,
     'http://[USERNAME]:[PASSWORD]@dynamic.zoneedit.com/auth/dynamic.html?host=[DOMAIN]&dnsto=[IP]', None),
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
) + tuple(Preset(name, URL_PROTOCOL, SERVICE_SUMMARY % ('IPv4' if six is None else 'IP'),
                 update_url=four, update_url6=None if six is SAME else six, answer=answer,
                 FAMILIES=('A',) if six is None else ('A', 'AAAA'))
          for name, answer, four, six in URL_SERVICES)


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
        self.module, self.__doc__ = module, module.__doc__
        self.NAME, self.SUMMARY = str(preset), preset.summary
        self.STEM = module.STEM.replace(module.NAME, self.NAME)
        self.FILES = {role: pattern.replace(module.NAME, self.NAME) for role, pattern in module.FILES.items()}
        self.SETTINGS = [s if s.name not in preset.changes else
                         Setting(s.name, preset.changes[s.name], s.help, s.secret, s.short, s.check, s.repeat,
                                 s.metavar, s.decides, s.choices, s.commas, s.label) for s in module.SETTINGS]
        for key, value in preset.changes.items():
            if key.isupper():
                mine = getattr(module, key)
                setattr(self, key, dict(mine, **value) if isinstance(mine, dict) else value)

    def __getattr__(self, name):
        return getattr(self.module, name)

    def __repr__(self):
        return '<provider %s: %s>' % (self.NAME, self.module.__name__)
