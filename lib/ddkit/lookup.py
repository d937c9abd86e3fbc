"""The helper calls of the updaters: the current IP (from the kernel or a lookup service) and the
previous one from DoH."""

from ddkit import Failure, Reason, ipcheck

DOH_TYPES = {'A': 1, 'AAAA': 28}
# ip_lookup_url's default by record type
LOOKUP = {'A': 'https://ipv4.icanhazip.com', 'AAAA': 'https://ipv6.icanhazip.com'}


def current_ip(cfg):
    """Return (address, source, why-not): from the router's kernel (no request) or from ip_lookup_url."""
    kind, _, spec = cfg.ip_source.partition(':')
    if kind in ('prefix', 'eui64', 'neigh'):
        from ddkit import lan  # a LAN host's address: only on those runs
        text, source, why = (lan.from_neighbour if kind == 'neigh' else lan.from_prefix)(cfg, spec)
    else:
        text, source, why = from_iface(cfg, spec) if kind == 'iface' else from_url(cfg)
    if why:
        return None, source, why
    ip, why = ipcheck.valid_ip(text, cfg.record_type)
    return ip, source, why


def from_iface(cfg, name):
    """The interface's own address: its best stable global IPv6 one, or its IPv4 one."""
    from ddkit import iface
    if cfg.record_type == 'AAAA':
        found = iface.global_ipv6(name)
        text = found[0].address if found else ''
    else:
        text = iface.ipv4_address(name) or ''
    if not text and iface.flags(name) is None:
        return '', 'interface ' + name, Reason('interface %s does not exist' % name, 'interface')
    return text, 'interface ' + name, None if text else Reason('interface %s has no %s address' % (
        name, 'stable global IPv6' if cfg.record_type == 'AAAA' else 'IPv4'), 'interface')


def from_url(cfg):
    """The lookup service's answer: the address this host is seen with."""
    from ddkit import http  # not on the kernel paths: they make no request
    family = 6 if cfg.record_type == 'AAAA' else 4
    try:
        answer = http.request('GET', cfg.ip_lookup_url, 'get current IP', timeout=cfg.timeout,
                              ca_file=cfg.ca_file, family=family, max_body=4096)
        text = answer.text if answer.status == 200 else '<HTTP %d>' % answer.status
    except http.TooLarge:
        text = '<an answer of more than 4096 bytes: a web page, not an address>'
    except Failure as e:
        if type(e.__context__).__name__ == 'gaierror':  # the name did not resolve in that family
            wrong_family(cfg, http.split_url(cfg.ip_lookup_url)[1], family)
        raise
    return text, cfg.ip_lookup_url, None


def wrong_family(cfg, host, family):
    """After a failed lookup: a Failure that says so when the URL's host has no address of the family
    the record type asks over (an AAAA record's IP must be seen over IPv6, an A record's over IPv4)."""
    import _socket
    try:
        _socket.getaddrinfo(host.encode('ascii', 'replace'), None,
                            _socket.AF_INET6 if family == 6 else _socket.AF_INET)
        return
    except OSError:
        try:
            _socket.getaddrinfo(host.encode('ascii', 'replace'), None)
        except OSError:
            return  # no address at all: the request's own error says it
    raise Failure('get current IP: %s has no IPv%d address, and %s records are looked up over IPv%d: set '
                  'ip_lookup_url to a service reachable over IPv%d (default %s)'
                  % (host, family, cfg.record_type, family, family, LOOKUP[cfg.record_type]))


def resolve(cfg, name):
    """Return (address, why-not) for name from the DoH resolver: a Status 0 answer of the record's type."""
    # name passed settings.check_name: host-name characters only, nothing to escape
    url = '%s/resolve?name=%s&type=%s' % (cfg.doh_url, name, cfg.record_type)
    from ddkit import http
    try:
        answer = http.request('GET', url, 'resolve previous IP over DoH', timeout=cfg.timeout,
                              ca_file=cfg.ca_file, headers={'accept': 'application/dns-json'})
        data = answer.json()
    except Failure as e:
        return None, str(e)
    if not isinstance(data, dict) or data.get('Status') != 0:
        return None, 'DoH answered Status %s' % (data.get('Status') if isinstance(data, dict) else '?')
    answers = data.get('Answer')
    for entry in answers if isinstance(answers, list) else []:
        if isinstance(entry, dict) and entry.get('type') == DOH_TYPES[cfg.record_type]:
            ip, why = ipcheck.valid_ip(str(entry.get('data', '')), cfg.record_type)
            if ip:
                return ip, None
    return None, 'DoH has no %s answer for %s' % (cfg.record_type, name)


def fix(cfg, why):
    """The fix for a rejected current IP, by the kind of reason (a ddkit.Reason) it was refused for."""
    kind, _, spec = cfg.ip_source.partition(':')
    name = spec.partition('/')[0]
    if kind == 'neigh':
        return ('check the MAC and ip -6 neigh show dev %s: a device is listed once it speaks IPv6 through '
                'the router; or give it a fixed interface id and use prefix:%s/<id>' % (name, name))
    if kind in ('prefix', 'eui64'):
        return 'name the LAN interface that holds the delegated prefix (ip -6 addr show dev %s)' % name
    kind_of = getattr(why, 'kind', None)
    if kind_of == 'interface':
        return ('check the interface name (ip addr), that it is up and holds a global address; or use '
                'ip_source=url')
    if kind_of == 'not public':
        if cfg.ip_source != 'url':
            return 'the interface holds a private address: name the WAN interface, or use ip_source=url'
        return ('this host has no public address of its own (behind another router or carrier-grade '
                'NAT): ask the ISP for a public address, or keep an AAAA record instead')
    if kind_of == 'wrong family':
        return 'set record_type to match the address family, or an ip_lookup_url of the right family'
    if kind_of == 'not an address':
        return ('the lookup service did not answer with a bare address (an HTML page?): set '
                'ip_lookup_url to a service that answers with the address as plain text')
    return 'try again later, or set ip_lookup_url to another service (e.g. %s)' % LOOKUP[cfg.record_type]
