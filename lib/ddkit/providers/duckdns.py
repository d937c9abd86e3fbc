"""duckdns: tell DuckDNS this host's public IP for one of its domains.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md),
registered as `duckdns`: one `GET /update?domains=<name>&token=<token>&ip=<IPv4>&verbose=true` (an AAAA
record: `ipv6=<IPv6>` and no ip, which also keeps DuckDNS from detecting an IPv4 address from the
request). DuckDNS is only told the IP, never read (ddkit.provider.told): the ip file alone says what it
was last told. The account's token travels in the query string, so a URL is only ever shown without
its query, and the token is masked in every log line.
API reference: https://www.duckdns.org/spec.jsp
"""

from ddkit import Failure
from ddkit.provider import declaration, secret_setting, url_setting
from ddkit.settings import check_text

NAME = 'duckdns'
SUMMARY = 'Tell DuckDNS (duckdns.org) this host\'s IP for one domain'
UPDATE_PATH = '/update'
SETTINGS = [
    secret_setting('token', 'the account\'s token, shown at duckdns.org when logged in', check=check_text),
    url_setting('https://www.duckdns.org', 'DuckDNS\'s base URL, scheme and host (the tool adds /update)',
                UPDATE_PATH),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, noun='domain', ids=False)
# the field that carries the address, by record type: an IPv6 one in ipv6, which turns off DuckDNS's
# detection of the IPv4 address from the request (that would set the A record to the router's address)
FIELD = {'A': 'ip', 'AAAA': 'ipv6'}
FIXES = {   # what to do about DuckDNS's answers (docs/providers.md)
    'KO': 'DuckDNS refused the update: check token (the account\'s, at duckdns.org) and record_name (a domain '
          'of that account, e.g. home.duckdns.org)',
}


def send_ip(job, ip):
    """Tell DuckDNS the IP: True when it says it held it already (NOCHANGE). GET /update?domains=
    &token=&ip= (or ipv6=) &verbose=true (https://www.duckdns.org/spec.jsp)."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    from ddkit.urls import quote
    cfg = job.cfg
    query = 'domains=%s&token=%s&%s=%s&verbose=true' % (quote(cfg.record_name), quote(cfg.token),
                                                       FIELD[cfg.record_type], quote(ip))
    # a GET that changes state, yet safe to repeat: the same IP again is NOCHANGE
    answer = http.request('GET', '%s%s?%s' % (cfg.base_url, UPDATE_PATH, query), 'update record',
                          timeout=cfg.timeout, ca_file=cfg.ca_file)
    lines = answer.text.split()
    said = lines[0] if lines else ''
    if answer.status == 200 and said == 'OK' and lines[-1] in ('UPDATED', 'NOCHANGE'):
        return lines[-1] == 'NOCHANGE'
    if answer.status == 200 and said == 'KO':
        raise Failure.at('update record', 'DuckDNS answered KO: %s' % FIXES['KO'], url=answer.where, status=200,
                         kind='refused', code='KO', fix=FIXES['KO'])
    if answer.status >= 500:
        raise Failure.at('update record', 'DuckDNS failed (HTTP %d): %s; the next run tries again' % (
            answer.status, http.snippet(answer.text)), url=answer.where, status=answer.status, kind='server error')
    raise Failure.at('update record', 'unexpected answer (HTTP %d): %s; check base_url (DuckDNS\'s base URL)' % (
        answer.status, http.snippet(answer.text)), url=answer.where, status=answer.status, kind='unexpected',
        fix='check base_url (DuckDNS\'s base URL)')
