"""NameSilo (API version 1): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `namesilo`. Every call is a GET of
<base_url>/api/<operation>?version=1&type=json&key=<API key>&...: the key travels in the query string,
so no URL this module logs, shows or puts in a Failure has its query, and an answer's text is
scrubbed of the key before it is shown. The domain is the zone (no zone id to look up); its records
are listed whole (dnsListRecords, hosts as full names) and a record is found there by name and type,
also when read by its stored id (no call reads one record). Every successful update gives the record
a new id, which is the one kept. NameSilo has no resolution lines and keeps no note on a record that
would tell one line's record from another's, so `lines` is refused.
API reference: https://www.namesilo.com/api-reference (operations, answers and response codes)
"""

from ddkit import Failure
from ddkit.provider import (Record, Stale, declaration, number, relative_name, safe_id, secret_setting, url_setting,
                            zone_by_name as choose_zone)

NAME = 'namesilo'
SUMMARY = 'Keep an A or AAAA record at NameSilo (API key)'
API_PATH = '/api'
SETTINGS = [
    secret_setting('api_key', 'API key from the API Manager of the NameSilo account'),
    url_setting('https://www.namesilo.com', 'API base URL, scheme and host (a trailing /api, as the provider\'s '
                'documents write it, is taken off: the tool adds it)', API_PATH),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
VERSION = '1'
OK = 300                                 # the reply code of a successful operation
ZONE_GONE = 200                          # the domain is not active, or not this account's
TTL_MIN, TTL_MAX = 3600, 2592000         # a TTL read back outside these is not sent (an update below 3600 fails)
PAGE_SIZE = 100                          # domains a page of listDomains asks for
ZONE_PAGES = 20                          # pages of the account's domains read at most (2,000 domains)
FIXES = {   # what to do about the API's reply codes users meet (docs/providers.md)
    110: 'api_key is not a valid NameSilo API key: copy it again from the API Manager (Account, API Manager), '
         'or generate a new one',
    112: 'the API is not available to sub-accounts: use an API key of the main account',
    113: 'the API key may not be used from this host\'s IP: allow it in the API Manager (IP restriction), or '
         'remove the restriction',
    200: 'zone_name must be an active domain of this NameSilo account (the registered domain, e.g. example.com)',
    201: 'NameSilo had an internal error (usually transient): the next run retries',
    210: 'NameSilo refused the request: see its detail in the log line before this one',
    280: 'NameSilo refused the DNS change: see its detail in the log line before this one (a TTL below 3600 is '
         'refused)',
}


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_key


def login(job):
    """--check: the key is accepted when the API answers the domain's listing, or says the domain
    is not this account's (the zone check says that one)."""
    try:
        listed(job, 'find zone')
    except Failure as e:
        if e.code != str(ZONE_GONE):
            raise
    return ' (API key)'


def list_zones(job):
    """[zone_name] once the API lists its records. NameSilo names a zone by its domain, so no zone call
    is made: the listing find_record reads anyway (the same request, shared) proves the domain is this
    account's (code 200 otherwise)."""
    listed(job, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, as Zones named in lower case: the zone a record without
    zone_name belongs to is the longest that record_name ends with.
    API: listDomains (https://www.namesilo.com/api-reference)"""
    from ddkit import rest

    def page(n):
        reply = call(job, 'listDomains', {'page': str(n + 1), 'pageSize': str(PAGE_SIZE)}, 'find zone')
        zones = rest.domain_zones(domain_names(reply.get('domains')))
        pager = reply.get('pager') if isinstance(reply.get('pager'), dict) else {}
        total, size = number(pager.get('total')), number(pager.get('pageSize'))
        return zones, bool(zones) and total is not None and bool(size) and (n + 1) * size < total
    return rest.listed_zones(page, ZONE_PAGES, '%d domains' % (ZONE_PAGES * PAGE_SIZE))


def domain_names(domains):
    """The domain names of listDomains' `domains`, however the answer's JSON holds them (a list of
    objects with `domain`, of names, or an object whose `domain` is one or a list), lower case."""
    if isinstance(domains, dict):
        domains = domains.get('domain', [])
    if not isinstance(domains, list):
        domains = [domains]
    names = []
    for item in domains:
        name = item.get('domain') if isinstance(item, dict) else item
        name = str(name).lower().rstrip('.') if isinstance(name, str) else ''
        if name and safe_id(name):
            names.append(name)
    return names


def host(cfg):
    """The record's rrhost: record_name without the zone, '' for the zone itself."""
    return relative_name(cfg, '')


def find_record(job, zone_id, strict=False):
    """The record of this name and type, or None; strict: a fresh listing."""
    return first(listed(job, 'find record', fresh=strict), job.cfg)


def listed(job, step, fresh=False):
    """dnsListRecords: every record of the domain, listed once a run for all its names.
    API: https://www.namesilo.com/api-reference#dns/dns-list-records"""
    cfg = job.cfg

    def fetch():
        records = call(job, 'dnsListRecords', {'domain': cfg.zone_name}, step).get('resource_record', [])
        if isinstance(records, dict):   # one record, as an XML answer turned into JSON may hold it
            records = [records]
        if not isinstance(records, list):
            raise Failure.at(step, 'unexpected answer: "resource_record" is not a list', kind='unexpected')
        return [r for r in records if isinstance(r, dict)]
    return job.shared(None if fresh else ('records', account(cfg), cfg.zone_name), fetch)


def first(records, cfg):
    """The first listed record of this name (`host` is the full name) and type, or None."""
    for r in records:
        if safe_id(r.get('record_id')) and str(r.get('host', '')).lower().rstrip('.') == cfg.record_name \
                and str(r.get('type', '')).upper() == cfg.record_type:
            return Record(safe_id(r['record_id']), [r.get('value')], r)
    return None


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, from the domain's listing (no call reads one record): an update
    sends back its TTL; Stale when the listing has no record of that id, name and type (an update
    elsewhere gave it a new id, or it is gone)."""
    cfg = job.cfg
    if zone_id != cfg.zone_name:
        raise Stale()   # ids of another domain (zone_name changed)
    found = first([r for r in listed(job, 'read record') if safe_id(r.get('record_id')) == record_id], cfg)
    if found is None:
        raise Stale()
    return found


def create_record(job, zone_id, ip):
    """dnsAddRecord, with NameSilo's default TTL (7207); the new record's id. Sent once: a create is
    not repeated after a lost answer (the next run finds the record by name).
    API: https://www.namesilo.com/api-reference#dns/dns-add-record"""
    from ddkit import rest
    cfg = job.cfg
    reply = call(job, 'dnsAddRecord', {'domain': zone_id, 'rrtype': cfg.record_type, 'rrhost': host(cfg),
                                       'rrvalue': ip}, 'create record', repeatable=False)
    return rest.new_id(safe_id(reply.get('record_id')), 'create record')


def update_record(job, zone_id, record, ip):
    """dnsUpdateRecord: the address, with the record's own TTL sent back (without it the TTL becomes
    7207); the record's NEW id, which every successful update gives it. Sent once: the id it names is
    gone once it took effect (the next run finds the record by name).
    API: https://www.namesilo.com/api-reference#dns/dns-update-record"""
    cfg = job.cfg
    params = {'domain': zone_id, 'rrid': record.id, 'rrhost': host(cfg), 'rrvalue': ip}
    ttl = number(record.raw.get('ttl'))
    if ttl is not None and TTL_MIN <= ttl <= TTL_MAX:
        params['rrttl'] = str(ttl)
    reply = call(job, 'dnsUpdateRecord', params, 'update record', repeatable=False)
    found = safe_id(reply.get('record_id'))
    if not found:
        job.log.info('update record: the answer has no record id; the next run looks the record up by name.')
    return found or record.id



def scrub(text, cfg):
    """text without the API key, as it is or percent-encoded (a server may echo the request line)."""
    from ddkit.urls import quote
    for form in (cfg.api_key, quote(cfg.api_key)):
        text = text.replace(form, '***') if form else text
    return text


def call(job, operation, params, step, repeatable=True):
    """One call; its `reply`, checked. A domain the account does not have is a Failure of 'find zone';
    any other code but 300 a Failure of step. The URL of a Failure is the one without its query."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    from ddkit.urls import quote
    cfg, log = job.cfg, job.log
    query = dict(params, version=VERSION, type='json', key=cfg.api_key)
    url = '%s%s/%s?%s' % (cfg.base_url, API_PATH, operation, '&'.join(
        '%s=%s' % (quote(k), quote(v)) for k, v in query.items()))
    answer = http.request('GET', url, step, timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=repeatable)
    answer.nonempty()
    try:
        data = answer.json()
    except http.NotJson:
        raise http.NotJson.at(step, '%s answered HTTP %d with no JSON: %s' % (
            answer.where, answer.status, scrub(http.snippet(answer.text), cfg)), url=answer.where,
            status=answer.status, kind='server error' if answer.status >= 500 else 'not json')
    reply = data.get('reply') if isinstance(data, dict) else None
    code = number(reply.get('code')) if isinstance(reply, dict) else None
    if code is None:
        raise Failure.at(step, 'unexpected answer (HTTP %d): %s' % (
            answer.status, scrub(http.snippet(answer.text), cfg)), url=answer.where, status=answer.status,
                         kind='server error' if answer.status >= 500 else 'unexpected')
    if code == OK and answer.status < 300:
        return reply
    detail = reply.get('detail')
    message = scrub(str(detail)[:300], cfg) if isinstance(detail, (str, int)) and not isinstance(detail, bool) else None
    log.error('%s: error %s: %s' % (step, code, message))
    fix = FIXES.get(code)
    if code == ZONE_GONE:
        raise Failure.at('find zone', 'no active domain %s in this account (code %d); %s' % (cfg.zone_name, code, fix),
                         url=answer.where, status=answer.status, kind='not found', code=str(code),
                         provider_message=message, fix=fix)
    raise Failure.at(step, 'the provider refused the request (%scode %d)%s' % (
        'HTTP %d, ' % answer.status if answer.status != 200 else '', code, '; ' + fix if fix else ''),
        url=answer.where, status=answer.status, code=str(code), provider_message=message, fix=fix,
        kind='server error' if answer.status >= 500 or code == 201 else 'refused')
