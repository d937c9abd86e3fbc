"""namecheap: tell Namecheap's Dynamic DNS this host's public IPv4 address for one host of a domain.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md),
registered as `namecheap`: one `GET /update?host=<host>&domain=<zone_name>&password=<password>&ip=<IPv4>`
(host `@` for the domain itself), answered in XML. Namecheap's Dynamic DNS takes IPv4 addresses
only, so an AAAA record is refused before anything is sent (FAMILIES). It is only told the IP, never
read (ddkit.provider.told): the ip file alone says what it was last told. The domain's Dynamic DNS
password travels in the query string, so a URL is only ever shown without its query, and the
password is masked in every log line. The answer is read without an XML parser (python3-light has
none): the few fields needed, each found by its tags in the bounded answer; its declaration's
encoding is not trusted (Namecheap has been seen naming utf-16 on a UTF-8 body).
Reference: https://www.namecheap.com/support/knowledgebase/article.aspx/29/11/how-do-i-use-a-browser-to-dynamically-update-the-hosts-ip/
"""

from ddkit import Failure
from ddkit.provider import declaration, secret_setting, url_setting
from ddkit.settings import check_text

NAME = 'namecheap'
SUMMARY = 'Tell Namecheap\'s Dynamic DNS this host\'s IPv4 for one host'
UPDATE_PATH = '/update'
SETTINGS = [
    secret_setting('password', 'the domain\'s Dynamic DNS password (Namecheap: Domain List > Manage > Advanced '
                   'DNS > Dynamic DNS; not the account\'s password)', check=check_text),
    url_setting('https://dynamicdns.park-your-domain.com', 'the Dynamic DNS service\'s base URL, scheme and host '
                '(the tool adds /update)', UPDATE_PATH),
]
# zone_name is required: the domain is sent apart from the host
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, noun='host', required=('password', 'zone_name'),
                                                ids=False)
FAMILIES = ('A',)   # IPv4 only: an AAAA record is refused before anything is sent
FIELD_MAX = 1000    # characters of one field read from an answer
FIXES = {   # what to do about Namecheap's ResponseNumber codes (docs/providers.md)
    '304156': 'Namecheap refused a field (its message says which; ddkit sends a checked IPv4 address): check '
              'password, the domain\'s Dynamic DNS password (Advanced DNS > Dynamic DNS), not the account\'s',
    '316153': 'the domain is not found with this password: check zone_name (the domain at Namecheap) and that '
              'Dynamic DNS is on for it',
}
FIX_OTHER = ('Namecheap refused the update: check password (the domain\'s Dynamic DNS password), zone_name and '
             'record_name')


def send_ip(job, ip):
    """Tell Namecheap the IP (never "already held": its answer does not say). GET
    /update?host=&domain=&password=&ip= (the reference in the module's docstring)."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    from ddkit.urls import quote
    cfg = job.cfg
    query = 'host=%s&domain=%s&password=%s&ip=%s' % (quote(host_of(cfg)), quote(cfg.zone_name), quote(cfg.password),
                                                     quote(ip))
    # a GET that changes state, yet safe to repeat: the same IP again changes nothing
    answer = http.request('GET', '%s%s?%s' % (cfg.base_url, UPDATE_PATH, query), 'update record',
                          timeout=cfg.timeout, ca_file=cfg.ca_file, headers={'Accept': 'application/xml, text/xml'})
    text = decoded(answer.body)
    errors = field(text, 'ErrCount')
    if answer.status == 200 and errors == '0':
        return None
    if answer.status == 200 and errors.isdigit():
        code = field(text, 'ResponseNumber') or None
        said = field(text, 'Err1') or field(text, 'ResponseString') or 'no message'
        fix = FIXES.get(code, FIX_OTHER)
        raise Failure.at('update record', 'Namecheap refused the update: %s%s; %s' % (
            said, ' (%s)' % code if code else '', fix), url=answer.where, status=200, kind='refused', code=code,
            provider_message=said[:200], fix=fix)
    if answer.status >= 500:
        raise Failure.at('update record', 'Namecheap failed (HTTP %d): %s; the next run tries again' % (
            answer.status, http.snippet(text)), url=answer.where, status=answer.status, kind='server error')
    raise Failure.at('update record', 'unexpected answer (HTTP %d): %s; check base_url (Namecheap\'s Dynamic DNS '
                     'URL)' % (answer.status, http.snippet(text)), url=answer.where, status=answer.status,
                     kind='unexpected', fix='check base_url (Namecheap\'s Dynamic DNS URL)')


def host_of(cfg):
    """The host as Namecheap names it: record_name without zone_name, @ for the domain itself (* for
    a wildcard)."""
    if cfg.record_name == cfg.zone_name:
        return '@'
    return cfg.record_name[:-len(cfg.zone_name) - 1]


def decoded(body):
    """The answer's text: UTF-16 only when it begins with a UTF-16 byte order mark, else UTF-8,
    whatever its XML declaration says."""
    if body[:2] in (b'\xff\xfe', b'\xfe\xff'):
        return body.decode('utf-16', 'replace')
    return body.decode('utf-8', 'replace')


def field(text, tag):
    """The text of the answer's first <tag>...</tag>, stripped, its XML entities undone ('' when there
    is none, or it is longer than FIELD_MAX)."""
    start = text.find('<%s>' % tag)
    if start < 0:
        return ''
    start += len(tag) + 2
    end = text.find('</%s>' % tag, start, start + FIELD_MAX + len(tag) + 3)
    if end < 0:
        return ''
    value = text[start:end].strip()
    for entity, char in (('&lt;', '<'), ('&gt;', '>'), ('&quot;', '"'), ('&apos;', "'"), ('&amp;', '&')):
        value = value.replace(entity, char)
    return value
