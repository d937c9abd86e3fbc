"""What both egress selectors share: the operator table and the effective-IPv6 lookup chain."""

from ddkit import Failure, http
from ddkit.ipcheck import OPERATORS, first_group  # noqa: F401  (the selectors take them from here too)

# Default IPv6 lookup chain, tried in order (--lookup-url overrides): JSON `ip` (and asn_name),
# LibreSpeed's `processedString`, plain text
LOOKUP_URLS = ('https://ipv6.lookup.test-ipv6.com/ip/', 'https://test6.ustc.edu.cn/backend/getIP.php',
               'https://ipv6.icanhazip.com')


def lookup_setting(help):
    """The --lookup-url setting both selectors take: repeatable, the fallbacks tried in order."""
    from ddkit.settings import Setting, check_url
    return Setting('lookup_url', help='%s (default, in order: %s)' % (help, ', '.join(LOOKUP_URLS)),
                   check=check_url, repeat=True, metavar='URL')


def parse_lookup(text):
    """(address, details) from one lookup answer: JSON `ip`, JSON `processedString`, or plain text."""
    from ddkit import ipcheck  # not ipaddress: start-up cost
    text = text.strip()
    details, candidates = {}, []
    if text.startswith('{'):
        from ddkit import jsontext
        try:
            details = jsontext.loads(text)
        except ValueError:
            details = {}
        if isinstance(details, dict):
            candidates = [details.get('ip'), details.get('processedString')]
        else:
            details = {}
    elif text and len(text) < 64:
        candidates = [text.split()[0]]
    for candidate in candidates:
        # LibreSpeed's processedString may read "<ip> - <isp>, <country>": the address is the first word
        words = str(candidate or '').split()
        address = ipcheck.ipv6(words[0]) if words else None
        if address:
            return address, details
    return None, details


def effective_ipv6(urls, timeout=10, ca_file=None, source=None, refused=None):
    """Ask each lookup URL in order, over IPv6 only, which address we leave with.

    Returns (address, details, url), or (None, {}, None) when no service answered with an address;
    refused, a list, gets (url, why) for each service whose answer was not taken."""
    for url in urls:
        try:
            answer = http.request('GET', url, 'look up the effective IPv6', timeout=timeout,
                                  ca_file=ca_file, family=6, source=source, retries=0, max_body=16384)
        except Failure as e:
            why = e.why or str(e)   # the step's name is the caller's to say
        else:
            address, details = parse_lookup(answer.text) if answer.status == 200 else (None, {})
            if address:
                return address, details, url
            why = 'HTTP %d' % answer.status if answer.status != 200 else \
                'no IPv6 address in the answer: %s' % http.snippet(answer.text, 60)
        if refused is not None:
            refused.append((url, why))
    return None, {}, None


def geolocate(geoip_url, address, timeout=10, ca_file=None):
    """{isp, region, country} of an address from the geolocation service, or {} when it has none."""
    try:
        data = http.request('GET', '%s/%s' % (geoip_url.rstrip('/'), address), 'geolocate',
                            timeout=timeout, ca_file=ca_file, retries=0, max_body=16384).json()
    except Failure:
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: str(data[k]) for k in ('isp', 'region', 'country') if data.get(k)}
