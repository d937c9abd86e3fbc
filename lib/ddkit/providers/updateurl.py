"""updateurl: tell a service this host's public IP by requesting its update URL, as ddns-scripts does.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md),
registered as `updateurl`: one GET of an update URL in which ddns-scripts' placeholders are filled in as
its updater fills them: [USERNAME], [PASSWORD] and [PARAMENC] percent-encoded, [PARAMOPT] as given,
[DOMAIN] the record's name, [IP] the address. The registry's presets of this module are the services
of ddns-scripts' list that are an update URL (ddkit.registry.URL_SERVICES names them; SERVICES here
holds each one's URL for IPv4, its URL for IPv6 where the list has one, and the answer its success
must hold). A user:password@
before the host goes as HTTP Basic authentication, never in the URL; only the URL's origin is ever
shown (its path and query may hold a key). Success is a 2xx answer whose body holds `answer` (a
regular expression in any letter case, as ddns-scripts greps it; none: any 2xx answer). A URL
without [IP] lets the service take the address the request comes from, so it is sent over the
record's family. Such a service is only told the IP, never read (ddkit.provider.told).
Reference: https://openwrt.org/docs/guide-user/services/ddns/client (the options and placeholders) and
https://github.com/openwrt/packages/blob/master/net/ddns-scripts/files/usr/lib/ddns/dynamic_dns_functions.sh
(send_update: how the URL is filled and its answer checked)
"""

from ddkit import Failure
from ddkit.provider import declaration, secret_setting, url_setting
from ddkit.settings import Setting, check_text

NAME = 'updateurl'
SUMMARY = 'Tell a service this host\'s IP by its update URL (ddns-scripts\')'
# the placeholders by the setting that fills them (DOMAIN and IP: the record's name and address)
FILLED_BY = {'USERNAME': 'username', 'PASSWORD': 'password', 'PARAMENC': 'param_enc', 'PARAMOPT': 'param_opt',
             'DOMAIN': 'record_name', 'IP': None}
ENCODED = ('USERNAME', 'PASSWORD', 'PARAMENC')   # percent-encoded, as ddns-scripts' urlencode does


def check_update_url(value):
    """An http(s):// URL template whose [PLACEHOLDERS] are ddns-scripts' (a typo such as [HOST] would
    be sent as it is)."""
    text = value.strip()
    if not text.lower().startswith(('http://', 'https://')) or any(ord(c) <= 32 or ord(c) == 127 for c in text):
        raise ValueError('must be an http:// or https:// URL, without blanks, its values written as [USERNAME], '
                         '[PASSWORD], [PARAMENC], [PARAMOPT], [DOMAIN] and [IP]')
    unknown = [word for word in placeholders(text) if word not in FILLED_BY]
    if unknown:
        raise ValueError('[%s] is not a placeholder of an update URL: they are %s' % (
            unknown[0], ', '.join('[%s]' % word for word in FILLED_BY)))
    return text


def check_answer(value):
    """A regular expression (grep -E's, which Python's reads alike for what an answer needs)."""
    import re
    try:
        re.compile(value)
    except re.error as e:
        raise ValueError('is not a regular expression (%s): e.g. good|nochg' % e)
    return value


def check_param_opt(value):
    """[PARAMOPT] goes into the URL as it is: printable ASCII without blanks."""
    if not value or any(not 32 < ord(c) < 127 for c in value):
        raise ValueError('goes into the URL as it is: printable ASCII without blanks (percent-encode the rest, '
                         'or give it as param_enc, which is encoded)')
    return value


SETTINGS = [
    Setting('update_url', help='the service\'s update URL, in which [USERNAME], [PASSWORD], [PARAMENC], '
            '[PARAMOPT], [DOMAIN] and [IP] are filled in (as ddns-scripts fills them); a user:password@ before '
            'the host is sent as HTTP Basic authentication; only its scheme, host and port are ever shown',
            secret=True, check=check_update_url, label='Update URL'),
    Setting('update_url6', help='the update URL of an AAAA record, where the service has one of its own '
            '(unset: update_url)', secret=True, check=check_update_url, label='Update URL for IPv6'),
    Setting('answer', help='what the service\'s answer holds on success: a regular expression, in any letter '
            'case (e.g. good|nochg); unset: any answer of HTTP status 2xx', check=check_answer),
    Setting('username', help='the account\'s user name, sent as [USERNAME]', check=check_text),
    secret_setting('password', 'the account\'s password, key or token, sent as [PASSWORD]', check=check_text),
    secret_setting('param_enc', 'a further value the service needs, sent as [PARAMENC], percent-encoded',
                   check=check_text, label='Parameter (encoded)'),
    secret_setting('param_opt', 'a further value the service needs, sent as [PARAMOPT] as it is',
                   check=check_param_opt, label='Parameter (as is)'),
    url_setting(None, 'replaces the update URL\'s scheme and host (scheme://host[:port]): a copy of the service '
                'elsewhere, or https:// where the URL says http://'),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, noun='host', required=(), ids=False)
FAMILIES = ('A', 'AAAA')   # a preset whose service has no IPv6 URL holds A records only

SERVICE_SUMMARY = 'Tell this service this host\'s %s (ddns-scripts\' update URL)'   # IP or IPv4: one for all
SAME = 'the IPv4 URL'   # a service whose IPv4 URL takes IPv6 addresses too

# The services of OpenWrt's ddns-scripts that are an update URL (openwrt/packages,
# net/ddns-scripts/files/usr/share/ddns/default/*.json of package 2.8.4), the registry's presets of this
# module (ddkit.registry.URL_SERVICES names them): by the name its service_name gives each, (the answer
# a success holds or None for any 2xx, its IPv4 URL, its IPv6 URL: SAME, or None where the list has
# none). As the list has them, the odd ones too (a URL without [IP], a literal DYNAMIC_IP, a doubled
# user:pass@ prefix). Here, not in the registry: only a router with this package carries them.
SERVICES = {
    '3322.org': (None,
     'http://[USERNAME]:[PASSWORD]@members.3322.org/dyndns/update?system=dyndns&hostname=[DOMAIN]&myip=[IP]', None),
    'afraid.org-basicauth': (None,
     'https://[USERNAME]:[PASSWORD]@freedns.afraid.org/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    'afraid.org-keyauth': (None, 'https://freedns.afraid.org/dynamic/update.php?[PASSWORD]&address=[IP]', SAME),
    'afraid.org-v2-basic': (None, 'https://[USERNAME]:[PASSWORD]@sync.afraid.org/u/?h=[DOMAIN]&ip=[IP]',
     'https://[USERNAME]:[PASSWORD]@v6.sync.afraid.org/u/?h=[DOMAIN]&ip=[IP]'),
    'afraid.org-v2-token': (None, 'https://sync.afraid.org/u/[PASSWORD]/?address=[IP]',
     'https://v6.sync.afraid.org/u/[PASSWORD]/?address=[IP]'),
    'all-inkl.com': (None, 'http://[USERNAME]:[PASSWORD]@dyndns.kasserver.com/?myip=[IP]', SAME),
    'apertodns.com-token': ('good|nochg',
     'https://[PASSWORD]:[PASSWORD]@api.apertodns.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    'apertodns.com': ('good|nochg',
     'https://[USERNAME]:[PASSWORD]@api.apertodns.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    'changeip.com': ('Successful',
     'http://[USERNAME]:[PASSWORD]@nic.changeip.com/nic/update?u=[USERNAME]&p=[PASSWORD]&cmd=update'
     '&hostname=[DOMAIN]&ip=[IP]',
     None),
    'core-networks.de': ('good',
     'http://[USERNAME]:[PASSWORD]@dyndns.core-networks.de/?hostname=[DOMAIN]&myip=[IP]&keepipv6=1',
     'http://[USERNAME]:[PASSWORD]@dyndns.core-networks.de/?hostname=[DOMAIN]&myip=[IP]&keepipv4=1'),
    'ddnss.de': ('Updated|No change',
     'http://ip4.ddnss.de/upd.php?user=[USERNAME]&pwd=[PASSWORD]&host=[DOMAIN]&ip=[IP]', None),
    'ddo.jp': (None, 'http://free.ddo.jp/dnsupdate.php?dn=[DOMAIN]&pw=[PASSWORD]&ip=[IP]', None),
    'desec.io': ('good|nochg',
     'https://update.dedyn.io/update?username=[USERNAME]&password=[PASSWORD]&hostname=[DOMAIN]&myipv4=[IP]'
     '&myipv6=preserve',
     'https://update.dedyn.io/update?username=[USERNAME]&password=[PASSWORD]&hostname=[DOMAIN]&myipv6=[IP]'
     '&myipv4=preserve'),
    'dhis.org': (None, 'http://[USERNAME]:[PASSWORD]@is.dhis.org/', SAME),
    'dnsdynamic.org': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@www.dnsdynamic.org/api/?hostname=[DOMAIN]&myip=[IP]', None),
    'dnsever.com': (None, 'http://[USERNAME]:[PASSWORD]@dyna.dnsever.com/update.php?host[[DOMAIN]]', None),
    'dnsexit.com': (None,
     'http://update.dnsexit.com/RemoteUpdate.sv?login=[USERNAME]&password=[PASSWORD]&host=[DOMAIN]&myip=[IP]', None),
    'dnshome.de': (None, 'http://[USERNAME]:[PASSWORD]@www.dnshome.de/dyndns.php?hostname=[DOMAIN]&ip=[IP]',
     'http://[USERNAME]:[PASSWORD]@www.dnshome.de/dyndns.php?hostname=[DOMAIN]&ip6=[IP]'),
    'dnsmadeeasy.com': ('success|ip-same',
     'http://cp.dnsmadeeasy.com/servlet/updateip?username=[USERNAME]&password=[PASSWORD]&id=[DOMAIN]&ip=[IP]', None),
    'dnsmax.com': (None,
     'http://update.dnsmax.com/update/?username=[USERNAME]&password=[PASSWORD]&resellerid=1&clientname=openwrt'
     '&clientversion=8.09&protocolversion=2.0&updatehostname=[DOMAIN]&ip=[IP]',
     None),
    'dnsomatic.com': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@updates.dnsomatic.com/nic/update?hostname=[DOMAIN]&myip=[IP]', None),
    'dnspark.com': ('ok|nochange',
     'http://[USERNAME]:[PASSWORD]@control.dnspark.com/api/dynamic/update.php?hostname=[DOMAIN]&ip=[IP]', None),
    'do.de': ('good|nochg', 'http://ddns.do.de/?myip=[IP]&hostname=[DOMAIN]&username=[USERNAME]&password=[PASSWORD]',
     SAME),
    'domopoli.de': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@http://dyndns.domopoli.de/nic/update?hostname=[DOMAIN]&myip=[IP]', None),
    'dondominio.com': ('OK',
     'http://dondns.dondominio.com/plain/?user=[USERNAME]&password=[PASSWORD]&host=[DOMAIN]&ip=[IP]', None),
    'duckdns.org': ('OK', 'http://www.duckdns.org/update?domains=[DOMAIN]&token=[PASSWORD]&ip=[IP]',
     'http://www.duckdns.org/update?domains=[DOMAIN]&token=[PASSWORD]&ipv6=[IP]'),
    'duiadns.net': (None, 'http://ip.duiadns.net/dynamic.duia?host=[DOMAIN]&password=[PASSWORD]&ip4=[IP]',
     'http://ip.duiadns.net/dynamic.duia?host=[DOMAIN]&password=[PASSWORD]&ip6=[IP]'),
    'dy.fi': ('good|nochg', 'http://[USERNAME]:[PASSWORD]@www.dy.fi/nic/update?hostname=[DOMAIN]', None),
    'dyn.com': ('good|nochg', 'http://[USERNAME]:[PASSWORD]@members.dyndns.org/v3/update?hostname=[DOMAIN]&myip=[IP]',
     SAME),
    'dyndns.it': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@update.dyndns.it/nic/update?system=dyndns&hostname=[DOMAIN]&myip=[IP]', None),
    'dyndns.org': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@members.dyndns.org/v3/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    'dynu.com': (None,
     'http://api.dynu.com/nic/update?hostname=[DOMAIN]&myip=[IP]&username=[USERNAME]&password=[PASSWORD]',
     'http://api.dynu.com/nic/update?hostname=[DOMAIN]&myip=no&myipv6=[IP]&username=[USERNAME]&password=[PASSWORD]'),
    'dynv6.com': ('updated|unchanged', 'http://dynv6.com/api/update?hostname=[DOMAIN]&token=[PASSWORD]&ipv4=[IP]',
     'http://dynv6.com/api/update?hostname=[DOMAIN]&token=[PASSWORD]&ipv6=[IP]'),
    'easydns.com': ('OK|NOERROR',
     'http://[USERNAME]:[PASSWORD]@api.cp.easydns.com/dyn/generic.php?hostname=[DOMAIN]&myip=[IP]', SAME),
    'eurodns.com': ('good|nochg',
     'https://[USERNAME]:[PASSWORD]@update.eurodyndns.org/update/?hostname=[DOMAIN]&myip=[IP]', SAME),
    'goip.de': (None, 'http://www.goip.de/setip?username=[USERNAME]&password=[PASSWORD]&subdomain=[DOMAIN]&ip=[IP]',
     'http://www.goip.de/setip?username=[USERNAME]&password=[PASSWORD]&subdomain=[DOMAIN]&ip6=[IP]'),
    'google.com': ('good|nochg',
     'https://[USERNAME]:[PASSWORD]@domains.google.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    'he.net': ('good|nochg', 'https://dyn.dns.he.net/nic/update?hostname=[DOMAIN]&password=[PASSWORD]&myip=[IP]',
     SAME),
    'hosting.de': ('good|nochg',
     'https://[USERNAME]:[PASSWORD]@ddns.hosting.de/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    'infomaniak.com': ('good|nochg',
     'https://[USERNAME]:[PASSWORD]@infomaniak.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    'inwx.de': ('good|nochg', 'http://[USERNAME]:[PASSWORD]@dyndns.inwx.com/nic/update?myip=[IP]',
     'http://[USERNAME]:[PASSWORD]@dyndns.inwx.com/nic/update?myipv6=[IP]'),
    'ipnodns.ru': ('ok', 'https://ipnodns.ru/cgi-bin/dyndns.cgi?login=[USERNAME]&secret=[PASSWORD]', None),
    'ipv64.net': ('good|nochg', 'http://ipv64.net/nic/update?domain=[DOMAIN]&key=[PASSWORD]&ip=[IP]',
     'http://ipv64.net/nic/update?domain=[DOMAIN]&key=[PASSWORD]&ipv6=[IP]'),
    'joker.com': ('good|nochg',
     'http://svc.joker.com/nic/update?username=[USERNAME]&password=[PASSWORD]&myip=[IP]&hostname=[DOMAIN]', SAME),
    'loopia.se': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@dns.loopia.se/XDynDNSServer/XDynDNS.php?system=custom&hostname=[DOMAIN]&myip=[IP]',
     SAME),
    'moniker.com': ('success',
     'https://dynamicdns.key-systems.net/update.php?hostname=[DOMAIN]&password=[PASSWORD]&ip=[IP]', None),
    'mydns.jp': (None, 'http://www.mydns.jp/directip.html?MID=[USERNAME]&PWD=[PASSWORD]&IPV4ADDR=[IP]',
     'http://www.mydns.jp/directip.html?MID=[USERNAME]&PWD=[PASSWORD]&IPV6ADDR=[IP]'),
    'myonlineportal.net': ('good|nochg',
     'http://myonlineportal.net/updateddns?hostname=[DOMAIN]&ip=[IP]&username=[USERNAME]&password=[PASSWORD]',
     'http://myonlineportal.net/updateddns?hostname=[DOMAIN]&ip6=[IP]&username=[USERNAME]&password=[PASSWORD]'),
    'mythic-beasts.com-v2': (None, 'https://[USERNAME]:[PASSWORD]@ipv4.api.mythic-beasts.com/dns/v2/dynamic/[DOMAIN]',
     'https://[USERNAME]:[PASSWORD]@ipv6.api.mythic-beasts.com/dns/v2/dynamic/[DOMAIN]'),
    'mythic-beasts.com': (None,
     'http://dnsapi4.mythic-beasts.com/?domain=[USERNAME]&password=[PASSWORD]'
     '&command=REPLACE%20[DOMAIN]%2060%20A%20DYNAMIC_IP&origin=.',
     'http://dnsapi6.mythic-beasts.com/?domain=[USERNAME]&password=[PASSWORD]'
     '&command=REPLACE%20[DOMAIN]%2060%20AAAA%20DYNAMIC_IP&origin=.'),
    'namecheap.com': (None,
     'http://dynamicdns.park-your-domain.com/update?host=[USERNAME]&domain=[DOMAIN]&password=[PASSWORD]&ip=[IP]',
     None),
    'njal.la': (None, 'https://njal.la/update/?h=[DOMAIN]&k=[PASSWORD]&a=[IP]',
     'https://njal.la/update/?h=[DOMAIN]&k=[PASSWORD]&aaaa=[IP]'),
    'no-ip.pl': (None, 'http://[USERNAME]:[PASSWORD]@update.no-ip.pl/?hostname=[DOMAIN]', SAME),
    'now-dns.com': ('good|nochg', 'https://[USERNAME]:[PASSWORD]@now-dns.com/update?hostname=[DOMAIN]', SAME),
    'nsupdate.info': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@ipv4.nsupdate.info/nic/update?hostname=[DOMAIN]&myip=[IP]',
     'http://[USERNAME]:[PASSWORD]@ipv6.nsupdate.info/nic/update?hostname=[DOMAIN]&myip=[IP]'),
    'opendns.com': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@updates.opendns.com/nic/update?hostname=[DOMAIN]&myip=[IP]', None),
    'oray.com': (None, 'http://[USERNAME]:[PASSWORD]@ddns.oray.com/ph/update?hostname=[DOMAIN]&myip=[IP]', None),
    'ovh.com': ('good|nochg',
     'https://[USERNAME]:[PASSWORD]@dns.eu.ovhapis.com/nic/update?system=dyndns&hostname=[DOMAIN]&myip=[IP]', SAME),
    'regfish.de': ('success|100|101',
     'http://dyndns.regfish.de/?fqdn=[DOMAIN]&forcehost=1&authtype=secure&token=[PASSWORD]&ipv4=[IP]',
     'http://dyndns.regfish.de/?fqdn=[DOMAIN]&forcehost=1&authtype=secure&token=[PASSWORD]&ipv6=[IP]'),
    'schokokeks.org': ('good|nochg', 'http://[USERNAME]:[PASSWORD]@dyndns.schokokeks.org/nic/update?myip=[IP]', None),
    'selfhost.de': ('good|nochg|200|204',
     'http://carol.selfhost.de/update?username=[USERNAME]&password=[PASSWORD]&myip=[IP]&hostname=1', None),
    'simply.com': ('good|nochg', 'https://[USERNAME]:[PASSWORD]@api.simply.com/2/ddns/?hostname=[DOMAIN]&myip=[IP]',
     SAME),
    'sitelutions.com': ('success',
     'https://dnsup.sitelutions.com/dnsup?user=[USERNAME]&pass=[PASSWORD]&id=[DOMAIN]&ip=[IP]', None),
    'spdyn.de': ('good|nochg',
     'https://update.spdyn.de/nic/update?hostname=[DOMAIN]&myip=[IP]&user=[USERNAME]&pass=[PASSWORD]', SAME),
    'strato.com': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@dyndns.strato.com/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    'system-ns.com': ('0',
     'http://system-ns.com/api?type=dynamic&command=set&domain=[DOMAIN]&token=[PASSWORD]&ip=[IP]', None),
    'thatip.com': (None,
     'http://update.dnsmax.com/update/?username=[USERNAME]&password=[PASSWORD]&resellerid=2&clientname=openwrt'
     '&clientversion=8.09&protocolversion=2.0&updatehostname=[DOMAIN]&ip=[IP]',
     None),
    'twodns.de': (None, 'http://[USERNAME]:[PASSWORD]@update.twodns.de/update?hostname=[DOMAIN]&ip=[IP]', None),
    'udmedia.de': (None, 'http://[USERNAME]:[PASSWORD]@www.udmedia.de/nic/update?myip=[IP]', SAME),
    'variomedia.de': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@dyndns.variomedia.de/nic/update?hostname=[DOMAIN]&myip=[IP]', SAME),
    'xlhost.de': ('good|nochg',
     'http://[USERNAME]:[PASSWORD]@nsupdate.xlhost.de/nic/update?hostname=[DOMAIN]&myip=[IP]', None),
    'ydns.io': ('good|nochg', 'https://[USERNAME]:[PASSWORD]@ydns.io/api/v1/update/?host=[DOMAIN]&ip=[IP]', SAME),
    'zoneedit.com': (None,
     'http://[USERNAME]:[PASSWORD]@dynamic.zoneedit.com/auth/dynamic.html?host=[DOMAIN]&dnsto=[IP]', None),}


def preset(name):
    """(summary, changes) of the registry's preset of the service name (ddkit.registry.PresetProvider
    lays the changes over this module): its URLs, its answer, and A records alone where it has no
    IPv6 URL."""
    answer, four, six = SERVICES[name]
    return SERVICE_SUMMARY % ('IPv4' if six is None else 'IP'), {
        'update_url': four, 'update_url6': None if six is SAME else six, 'answer': answer,
        'FAMILIES': ('A',) if six is None else ('A', 'AAAA')}


def placeholders(template):
    """The words of a template's [WORD] placeholders (upper-case letters), in order."""
    found, at = [], template.find('[')
    while at >= 0:
        end = template.find(']', at)
        if end < 0:
            break
        word = template[at + 1:end]
        if word.isalpha() and word.isupper():
            found.append(word)
            at = template.find('[', end)
        else:
            at = template.find('[', at + 1)
    return found


def template_of(cfg, record_type):
    """The update URL a record of this type requests."""
    return cfg.update_url6 or cfg.update_url if record_type == 'AAAA' else cfg.update_url


def missing_credentials(cfg):
    """[(setting, fix)] of what the update URL sends and the record lacks, and the URL itself when
    none is set."""
    lacking = []
    for record_type in cfg.record_type.split():
        template = template_of(cfg, record_type)
        if not template:
            lacking.append(('update_url', 'set update_url to the service\'s update URL, e.g. '
                            'https://[USERNAME]:[PASSWORD]@example.com/nic/update?hostname=[DOMAIN]&myip=[IP]'))
        for word in placeholders(template or ''):
            name = FILLED_BY[word]
            if name not in (None, 'record_name') and not getattr(cfg, name) and name not in [n for n, _ in lacking]:
                lacking.append((name, 'the update URL sends [%s]: set %s' % (word, name)))
    return lacking


def request_of(cfg, ip, record_type):
    """(URL, (user, password) of its HTTP Basic authentication or None, its origin) of the request
    that tells the service ip: the template filled in, a user:password@ before its host taken out
    (and the doubled scheme after it that ddns-scripts' list has once), its scheme and host
    base_url's when that is set."""
    from ddkit.urls import authority, origin, quote   # only on a request or a --check
    scheme, _, rest = template_of(cfg, record_type).partition('://')
    userinfo = None
    if '@' in authority(rest):
        userinfo, _, rest = rest.partition('@')
        if rest.lower().startswith(('http://', 'https://')):   # user:pass@http://host/...
            scheme, _, rest = rest.partition('://')
    values = {'USERNAME': cfg.username or '', 'PASSWORD': cfg.password or '', 'PARAMENC': cfg.param_enc or '',
              'PARAMOPT': cfg.param_opt or '', 'DOMAIN': cfg.record_name, 'IP': ip}
    encoded = dict(values, **{word: quote(values[word]) for word in ENCODED})
    url = '%s://%s' % (scheme.lower(), fill(rest, encoded))
    if cfg.base_url:
        url = cfg.base_url + url[len(origin(url)):]
    auth = None
    if userinfo is not None:   # as a URL's user and password are read: percent-decoded
        user, _, password = fill(userinfo, encoded).partition(':')
        auth = (decoded(user), decoded(password))
    return url, auth, origin(url)


def fill(template, values):
    """The template with each [WORD] placeholder replaced by its value, in one pass (a value holding
    [IP] stays as it is); any other bracket is the URL's own (dnsever.com's host[[DOMAIN]])."""
    out, at = [], 0
    while True:
        start = template.find('[', at)
        end = template.find(']', start + 1) if start >= 0 else -1
        if end < 0:
            return ''.join(out) + template[at:]
        word = template[start + 1:end]
        if word in values:
            out.append(template[at:start] + values[word])
            at = end + 1
        else:
            out.append(template[at:start + 1])
            at = start + 1


def decoded(text):
    """A URL's user or password as it means: each %XX the byte it stands for (UTF-8); as written when
    that is broken."""
    from ddkit.urls import unquoted
    try:
        return unquoted(text)
    except ValueError:
        return text


def check_urls(cfg):
    """The origins a record's requests go to, one per record type: what --check verifies (TLS,
    the proxy) without sending an update (ddkit.check.remote_urls)."""
    return [request_of(cfg, '2001:db8::1' if t == 'AAAA' else '192.0.2.1', t)[2]
            for t in cfg.record_type.split() if template_of(cfg, t)]


FIXES = {   # what to do about the HTTP statuses a service refuses with (docs/providers.md)
    401: 'check username and password (the account\'s, or the key the service gave for updates)',
    403: 'check username and password (the account\'s, or the key the service gave for updates), and record_name',
    404: 'check update_url (its path) and base_url: the service has no such page',
}
FIX_ANSWER = ('check what the update URL sends (username, password, record_name) and answer: the service\'s '
              'answer above says why')


def send_ip(job, ip):
    """Tell the service the IP: one GET of the filled update URL; success is a 2xx answer that holds
    answer (never "already held": None). The GET changes state, yet the same IP again changes nothing,
    so it is retried on what http.request takes as transient (send_update in the module's reference)."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    record_type = 'AAAA' if ':' in ip else 'A'
    url, auth, shown = request_of(cfg, ip, record_type)
    headers = {}
    if auth is not None:
        import base64
        headers['Authorization'] = 'Basic ' + base64.b64encode(('%s:%s' % auth).encode('utf-8')).decode('ascii')
    # no [IP]: the service takes the address the request comes from, so it leaves over the record's family
    family = None if 'IP' in placeholders(template_of(cfg, record_type)) else 6 if record_type == 'AAAA' else 4
    try:
        answer = http.request('GET', url, 'update record', headers=headers, timeout=cfg.timeout, ca_file=cfg.ca_file,
                              family=family, repeatable=True, shown=shown)
    except Failure as e:   # its message is masked by the log; its url field is the origin alone
        if e.url:
            e.url = shown
        raise
    status, said = answer.status, http.snippet(answer.text)
    if 200 <= status < 300:
        if not cfg.answer or matches(cfg.answer, answer.text):
            return None
        raise Failure.at('update record', 'the service\'s answer does not hold %s: %s; %s' % (
            cfg.answer, said or '(an empty answer)', FIX_ANSWER), url=shown, status=status, kind='refused',
            provider_message=said[:200] or None, fix=FIX_ANSWER)
    if status >= 500:
        raise Failure.at('update record', 'the service failed (HTTP %d)%s; the next run sends it again' % (
            status, ': ' + said if said else ''), url=shown, status=status, kind='server error',
            provider_message=said[:200] or None)
    fix = FIXES.get(status, FIX_ANSWER)
    raise Failure.at('update record', 'the service refused the update (HTTP %d)%s; %s' % (
        status, ': ' + said if said else '', fix), url=shown, status=status,
        kind='refused' if 400 <= status < 500 else 'unexpected', provider_message=said[:200] or None, fix=fix)


def matches(answer, text):
    """True when the answer's text holds the regular expression answer, in any letter case (grep -i -E)."""
    import re
    return re.search(answer, text, re.IGNORECASE) is not None
