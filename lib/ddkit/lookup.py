"""The helper calls of the updaters: the current IP (from the kernel or a lookup service) and the
previous one from DoH. Both go direct, never through the record's proxy (which a lookup would see
instead of this host), unless proxy_lookup says otherwise."""

from ddkit import Failure, Reason, ipcheck

DOH_TYPES = {'A': 1, 'AAAA': 28}
NXDOMAIN = 3   # a DoH answer's Status: the name does not exist
# ip_lookup_url's default by record type, tried in order: a service by name, then one reached at an
# IP address over HTTPS (its certificate names the address), so a broken resolver costs no update
LOOKUP = {'A': ('https://ipv4.icanhazip.com', 'https://1.1.1.1/cdn-cgi/trace'),
          'AAAA': ('https://ipv6.icanhazip.com', 'https://[2606:4700:4700::1111]/cdn-cgi/trace')}
# doh_url's default, tried in order: Google's JSON API (the spec's default), then DNSPod's public
# resolver, which answers from mainland China, where dns.google does not (its JSON API is served at
# /dns-query, as Cloudflare's is)
DOH = ('https://dns.google', 'https://doh.pub/dns-query')


def current_ip(cfg, operator=None):
    """Return (address, source, why-not): from the router's kernel (no request) or from the first
    lookup service of ip_lookup_url that answers with a valid one. operator: the first group
    (ipcheck.OPERATORS) the IPv6 address must start with: one operator line's, of a kernel source."""
    kind, _, spec = cfg.ip_source.partition(':')
    if kind == 'url':
        return from_urls(cfg)
    if kind in ('prefix', 'eui64', 'neigh'):
        from ddkit import lan  # a LAN host's address, checked already: only on those runs
        ip, source, why = (lan.from_neighbour if kind == 'neigh' else lan.from_prefix)(cfg, spec, operator)
        return ip or None, source, why
    text, source, why = from_iface(cfg, spec, operator)
    if why:
        return None, source, why
    ip, why = ipcheck.valid_ip(text, cfg.record_type)
    return ip, source, why


def from_iface(cfg, name, operator=None):
    """The interface's own address: its best stable global IPv6 one (of the operator's prefix, when
    given), or its IPv4 one."""
    from ddkit import iface
    if cfg.record_type == 'AAAA':
        found = [a for a in iface.global_ipv6(name) if ipcheck.of_operator(a.address, operator)]
        text = found[0].address if found else ''
    else:
        text = iface.ipv4_address(name) or ''
    if not text and iface.flags(name) is None:
        return '', 'interface ' + name, Reason('interface %s does not exist' % name, 'no interface')
    return text, 'interface ' + name, None if text else Reason('interface %s has no %s address%s' % (
        name, 'stable global IPv6' if cfg.record_type == 'AAAA' else 'IPv4', ipcheck.in_operator_prefix(operator)),
        'no address')


def from_urls(cfg):
    """(address, the URL that gave it, None), or (None, where, why): each lookup service in order, each
    within the timeout, until one answers with a valid address. Every one without an answer: the
    Failure (no connectivity, exit 1); a single service: its own words, as they were."""
    urls, refused, failures = cfg.ip_lookup_url, [], []
    for number, url in enumerate(urls):
        try:
            text = from_url(cfg, url, retries=None if number == len(urls) - 1 else 0)
        except Failure as e:
            if len(urls) == 1:
                raise
            failures.append(e)
            refused.append('%s: %s' % (url, e.why or e))
            continue
        ip, why = ipcheck.valid_ip(text, cfg.record_type)
        if ip or len(urls) == 1:
            return ip, url, why
        refused.append('%s: %s' % (url, why))
        last = why
    if len(failures) == len(urls):
        raise Failure.at('get current IP', 'no lookup service answered (%s)' % '; '.join(refused),
                         kind=failures[-1].kind)
    return None, 'the lookup services', Reason('; '.join(refused), last.kind)


def from_url(cfg, url, retries=None):
    """What one lookup service answers: the address this host is seen with (a /cdn-cgi/trace page:
    its ip= line)."""
    from ddkit import http  # not on the kernel paths: they make no request
    family = 6 if cfg.record_type == 'AAAA' else 4
    try:
        answer = http.request('GET', url, 'get current IP', timeout=cfg.timeout, ca_file=cfg.ca_file,
                              family=family, max_body=4096, direct=not cfg.proxy_lookup,
                              **({} if retries is None else {'retries': retries}))
        text = answer.text if answer.status == 200 else '<HTTP %d>' % answer.status
    except http.TooLarge:
        text = '<an answer of more than 4096 bytes: a web page, not an address>'
    except Failure as e:
        if e.kind == 'resolve':  # the name did not resolve in that family
            wrong_family(cfg, http.split_url(url)[1], family)
        raise
    for line in text.split('\n') if 'ip=' in text else ():
        if line.startswith('ip='):
            return line[3:].strip()
    return text


def by_ping(cfg, log):
    """The address one ping of the record name shows, or None (logged): a previous IP's last resort."""
    from ddkit.native import os
    import subprocess
    count = '-n' if os.name == 'nt' else '-c'
    argv = ['ping'] + (['-6'] if cfg.record_type == 'AAAA' else []) + [count, '1', cfg.record_name]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=cfg.timeout + 5)
    except (OSError, subprocess.SubprocessError) as e:
        log.info('No previous IP from ping: %s.' % e)
        return None
    # "PING name (addr) ...", "Pinging name [addr] ...", "64 bytes from addr: ...": no reply needed,
    # the name resolving is what tells the previous IP
    text = done.stdout[:8192].decode('utf-8', 'replace')
    for word in text.replace('(', ' ').replace(')', ' ').replace('[', ' ').replace(']', ' ').split():
        for candidate in (word, word.rstrip(',:')):
            ip, _ = ipcheck.valid_ip(candidate, cfg.record_type)
            if ip:
                return ip
    log.info('No previous IP from ping: no %s address in its output.' % cfg.record_type)
    return None


def wrong_family(cfg, host, family):
    """After a failed lookup: a Failure that says so when the URL's host has no address of the family
    the record type asks over (an AAAA record's IP must be seen over IPv6, an A record's over IPv4)."""
    from ddkit import native
    sockets = native.sockets()   # _socket, or socket
    try:
        sockets.getaddrinfo(host.encode('ascii', 'replace'), None,
                            sockets.AF_INET6 if family == 6 else sockets.AF_INET)
        return
    except OSError:
        try:
            sockets.getaddrinfo(host.encode('ascii', 'replace'), None)
        except OSError:
            return  # no address at all: the request's own error says it
    raise Failure.at('get current IP', '%s has no IPv%d address, and %s records are looked up over IPv%d: set '
                     'ip_lookup_url to a service reachable over IPv%d (default %s)'
                     % (host, family, cfg.record_type, family, family, ' '.join(LOOKUP[cfg.record_type])),
                     kind='resolve', fix='set ip_lookup_url to a service reachable over IPv%d' % family)


def doh_urls(cfg):
    """The DoH resolvers of a record, in the order they are asked: doh_url as given (a list, as every
    setting given several times is), else DOH."""
    return list(cfg.doh_url or DOH)


def doh_query(base, name, record_type):
    """The JSON API's URL of one question: a resolver given by its origin alone (https://dns.google)
    is asked at /resolve, one given with a path (https://doh.pub/dns-query) at that path."""
    rest = base.partition('://')[2].rstrip('/')
    path = rest.partition('/')[2]
    # name passed settings.check_name: host-name characters only, nothing to escape
    query = 'name=%s&type=%s' % (name, record_type)
    if not path:
        return '%s/resolve?%s' % (base.rstrip('/'), query)
    return '%s%s%s' % (base, '&' if '?' in path else '?', query)


def unanswered_of(run):
    """The DoH resolvers that gave no answer to an earlier record of a run: a set its records share
    (asked() passes them over)."""
    return run.shared(('doh unanswered',), set)


def resolve(cfg, name, unanswered=None):
    """Return (address, why-not) for name from the DoH resolvers: the first that answers (asked); when
    none does, why each did not."""
    tried = asked(cfg, name, unanswered)
    ip, why, _, answered = tried[-1]
    if answered or len(tried) == 1:
        return ip, why
    return None, 'no DoH resolver answered (%s)' % '; '.join('%s: %s' % (url, why) for _, why, url, _ in tried)


def asked(cfg, name, unanswered=None):
    """[(address, why-not, resolver, answered)] of the DoH resolvers asked for name, in order until one
    answered (a DoH answer: Status 0 with or without an address of the record's type, or another
    Status); each one before it gave none. Only the last is asked with retries: a resolver this host
    cannot reach (dns.google from mainland China) costs one timeout, not three. unanswered: the
    resolvers that gave no answer to an earlier record of the run (a set, added to), passed over while
    another is left: that timeout once a run, not once a record."""
    urls, tried = doh_urls(cfg), []
    if unanswered:
        urls = [url for url in urls if url not in unanswered] or urls
    for number, url in enumerate(urls):
        ip, why, answered = ask(cfg, url, name, retries=None if number == len(urls) - 1 else 0)
        tried.append((ip, why, url, answered))
        if answered:
            break
        if unanswered is not None:
            unanswered.add(url)
    return tried


def ask(cfg, url, name, retries=None):
    """(address, why-not, answered) of one DoH resolver: answered when it gave a DoH answer."""
    from ddkit import http
    try:
        answer = http.request('GET', doh_query(url, name, cfg.record_type), 'resolve previous IP over DoH',
                              timeout=cfg.timeout, ca_file=cfg.ca_file, headers={'accept': 'application/dns-json'},
                              direct=not cfg.proxy_lookup, **({} if retries is None else {'retries': retries}))
        data = answer.json()
    except Failure as e:
        return None, str(e), False
    status = data.get('Status') if isinstance(data, dict) else None
    if status == NXDOMAIN:
        return None, 'DoH has no %s answer for %s (no such name)' % (cfg.record_type, name), True
    if status != 0:   # no DoH answer (None), or the resolver's trouble (2: SERVFAIL)
        return None, 'DoH answered Status %s' % ('?' if status is None else status), status is not None
    answers = data.get('Answer')
    for entry in answers if isinstance(answers, list) else []:
        if isinstance(entry, dict) and entry.get('type') == DOH_TYPES[cfg.record_type]:
            ip, why = ipcheck.valid_ip(str(entry.get('data', '')), cfg.record_type)
            if ip:
                return ip, None, True
    return None, 'DoH has no %s answer for %s' % (cfg.record_type, name), True


def down(why):
    """True when a kernel source refused for why holds no address now (an interface without one, of
    the operator's prefix, a LAN host not seen): its line is down, where a source that cannot give
    one (no such interface, a private address) is broken."""
    return getattr(why, 'kind', None) == 'no address'


def fix(cfg, why):
    """The fix for a rejected current IP, by the kind of reason (a ddkit.Reason) it was refused for."""
    kind, _, spec = cfg.ip_source.partition(':')
    name = spec.partition('/')[0]
    kind_of = getattr(why, 'kind', None)
    if kind_of == 'no interface':
        return 'name an interface this host has (ip link shows them)'
    if kind == 'neigh':
        return ('check the MAC and ip -6 neigh show dev %s: a device is listed once it speaks IPv6 through '
                'the router; or give it a fixed interface id and use prefix:%s/<id>' % (name, name))
    if kind in ('prefix', 'eui64'):
        return 'name the LAN interface that holds the delegated prefix (ip -6 addr show dev %s)' % name
    if kind_of == 'no address':
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
    return 'try again later, or set ip_lookup_url to another service (e.g. %s)' % LOOKUP[cfg.record_type][0]
