"""Porkbun (API v3): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `porkbun`. Every call is a POST to
<base_url>/api/json/v3/... of a JSON body holding the API key and its secret (apikey, secretapikey).
The domain is the zone (no zone id to look up); a listing names each record in full
(home.example.com), while a create or an edit takes the subdomain alone ('' for the apex: a full name
would move the record). An edit replaces the whole record: the record's TTL, priority and notes are
sent back. Porkbun has no resolution lines but holds several records of a name: each line's record
is one of them, made with a note naming its line (SEVERAL).
API reference: https://porkbun.com/api/json/v3/documentation (also https://porkbun.com/llms/dns and
the OpenAPI document https://porkbun.com/api/json/v3/spec)
"""

from ddkit import Failure, decimal
from ddkit.provider import (Record, Stale, declaration, listing, number, relative_name, safe_id, secret_setting,
                            url_setting, zone_by_name as choose_zone)

NAME = 'porkbun'
SUMMARY = 'Keep an A or AAAA record at Porkbun (API v3)'
API_PATH = '/api/json/v3'
SETTINGS = [
    secret_setting('api_key', 'API key (pk1_...) of the Porkbun account'),
    secret_setting('secret_api_key', 'its secret API key (sk1_...)'),
    url_setting('https://api.porkbun.com', 'API base URL, scheme and host (a trailing /api/json/v3, as the '
                'provider\'s documents write it, is taken off: the tool adds it)', API_PATH),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True                           # no resolution lines: each line's address is a record of the name
LINE_NOTE = 'ddkit line %s'              # the notes a line's record is made with: how it is found again
TTL_MIN, TTL_MAX = 600, 2 ** 31 - 1      # a TTL read back outside these is not sent (600: the API's minimum)
CHUNK, CHUNK_PAGES = 1000, 10            # domains a chunk of the account's holds at most; chunks read at most
INVALID_DOMAIN = 'Invalid domain.'
NOT_OPTED_IN = 'Domain is not opted in to API access.'
CREDENTIALS = ('Invalid API key. (001)', 'Invalid API key. (002)', 'All API requests require an API key.')
OPT_IN = ('switch on API ACCESS for the domain at Porkbun (Domain Management, the domain\'s Details), '
          'or opt in all domains under Account, API Access')
# the prefixes that tell the key from its secret: no secret, so never written as pk1_... in a message,
# which the log would mask as the start of the secret it begins (ddkit.log: an excerpt cut in a secret)
KEY_PREFIX, SECRET_PREFIX = 'pk1_', 'sk1_'
FIXES = {   # what to do about the API's messages users meet (it sends no codes; docs/providers.md)
    'Invalid API key. (001)': 'api_key is not a Porkbun API key: copy the API key (it starts %s) from Account, '
                              'API Access, or create a new key there' % KEY_PREFIX,
    'Invalid API key. (002)': 'secret_api_key is not the secret of api_key: copy the secret API key shown with '
                              'that key (it starts %s), or create a new key' % SECRET_PREFIX,
    'All API requests require an API key.': 'set api_key and secret_api_key',
    INVALID_DOMAIN: 'zone_name must be a domain of this Porkbun account (the registered domain, e.g. example.com, '
                    'not a subdomain)',
    NOT_OPTED_IN: OPT_IN,
    'Edit error: We were unable to edit the DNS record.': 'Porkbun could not change the record (changed or '
                                                          'deleted meanwhile?): the next run looks it up again',
}


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_key, cfg.secret_api_key


def login(job):
    """--check: /ping, a read-only call that answers only to an accepted key and secret.
    API: https://porkbun.com/api/json/v3/documentation#Authentication"""
    call(job, '/ping', 'login')
    return ' (API key and secret)'


def list_zones(job):
    """[zone_name] once the API lists the record's name in it. Porkbun names a zone by its domain, so
    no zone call is made: the listing find_record reads anyway (the same request, shared) proves the
    domain is this account's and open to the API."""
    records(job, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, as Zones named in lower case (chunks of up to 1000, read until one
    is empty): the zone a record without zone_name belongs to is the longest that record_name ends with.
    API: https://porkbun.com/api/json/v3/documentation#Domain%20List%20All"""
    from ddkit import rest
    start = [0]   # where the next chunk starts: after every domain listed so far

    def chunk(n):
        domains = listing(call(job, '/domain/listAll', 'find zone', {'start': str(start[0])}), 'domains', 'find zone')
        start[0] += len(domains)
        return rest.domain_zones(item.get('domain') for item in domains), bool(domains)
    return rest.listed_zones(chunk, CHUNK_PAGES, '%d domains' % (CHUNK_PAGES * CHUNK))


def subdomain(cfg):
    """The record's name as a create or an edit takes it: without the zone, '' for the zone itself."""
    return relative_name(cfg, '')


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of the job's line), or None; strict: a fresh listing."""
    return first(records(job, 'find record', fresh=strict), job.cfg, job.line)


def records(job, step, fresh=False):
    """The records listed for this name: by name and type for a lone record; the whole domain when
    the run has several records or lines (every name and type in one listing)."""
    cfg = job.cfg
    if job.run.several:
        path = '/dns/retrieve/%s' % cfg.zone_name
    else:   # the apex: no subdomain in the path at all
        path = '/dns/retrieveByNameType/%s/%s%s' % (cfg.zone_name, cfg.record_type,
                                                    '/' + subdomain(cfg) if subdomain(cfg) else '')
    return job.shared(None if fresh else ('records', account(cfg), path), lambda: listing(
        call(job, path, step), 'records', step))


def first(listed, cfg, line=None):
    """The first listed record of this name and type, or None; of a line: the one made for it (its
    notes), else one that holds an address of the line's operator and was made for no other line."""
    from ddkit import rest
    named = [r for r in listed if safe_id(r.get('id')) and str(r.get('type', '')).upper() == cfg.record_type
             and str(r.get('name', '')).lower().rstrip('.') == cfg.record_name]
    listed = rest.on_line(named, line, 'content', 'notes', LINE_NOTE)
    return Record(safe_id(listed[0]['id']), [listed[0].get('content')], listed[0]) if listed else None


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, as Porkbun holds it now (an edit sends its TTL, priority and
    notes back); Stale when it is gone, another record's, or of another line. An answer refusing the
    read for anything but the credentials is taken as stale too: the lookup that follows says it.
    API: https://porkbun.com/api/json/v3/documentation#DNS%20Retrieve%20Records%20by%20Domain%20or%20ID"""
    cfg = job.cfg
    if zone_id != cfg.zone_name:
        raise Stale()   # ids of another domain (zone_name changed)
    data = call(job, '/dns/retrieve/%s/%s' % (zone_id, record_id), 'read record', stale=True)
    found = first([r for r in listing(data, 'records', 'read record') if safe_id(r.get('id')) == record_id],
                  cfg, job.line)
    if found is None:
        raise Stale()
    return found


def create_record(job, zone_id, ip):
    """The new record's id, with Porkbun's default TTL (600); a line's record with its note.
    API: https://porkbun.com/api/json/v3/documentation#DNS%20Create%20Record"""
    from ddkit import rest
    cfg = job.cfg
    body = {'name': subdomain(cfg), 'type': cfg.record_type, 'content': ip}
    if job.line:
        body['notes'] = LINE_NOTE % job.line
    data = call(job, '/dns/create/%s' % zone_id, 'create record', body, repeatable=False)
    return rest.new_id(safe_id(data.get('id')), 'create record')


def update_record(job, zone_id, record, ip):
    """An edit replaces the record: its subdomain (a full name would move it), type and new address,
    with its own TTL, priority and notes sent back (left out, they would become 600, none and none).
    API: https://porkbun.com/api/json/v3/documentation#DNS%20Edit%20Record%20by%20Domain%20and%20ID"""
    cfg, held = job.cfg, record.raw
    body = {'name': subdomain(cfg), 'type': cfg.record_type, 'content': ip}
    ttl, prio = number(held.get('ttl')), number(held.get('prio'))
    if ttl is not None and TTL_MIN <= ttl <= TTL_MAX:
        body['ttl'] = str(ttl)
    if prio is not None and prio < 2 ** 16:
        body['prio'] = str(prio)
    if isinstance(held.get('notes'), str) and held['notes']:
        body['notes'] = held['notes'][:500]
    call(job, '/dns/edit/%s/%s' % (zone_id, record.id), 'update record', body)
    return record.id


def delete_record(job, zone_id, record):
    """A line's record, its line without an address; one gone already is success: a refused delete
    is checked with a read of the id, since the API's words for a record that is gone are not known.
    API: https://porkbun.com/api/json/v3/documentation#DNS%20Delete%20Record%20by%20Domain%20and%20ID"""
    try:
        call(job, '/dns/delete/%s/%s' % (zone_id, record.id), 'delete record')
    except Failure as refused:
        if refused.kind != 'refused' or refused.provider_message in CREDENTIALS:
            raise
        data = call(job, '/dns/retrieve/%s/%s' % (zone_id, record.id), 'delete record')
        if any(safe_id(r.get('id')) == record.id for r in listing(data, 'records', 'delete record')):
            raise refused
        job.log.info('delete record: the record is gone already.')
    return None



def swapped(cfg):
    """The fix when api_key and secret_api_key are given the wrong way round (told by the prefixes
    their values start with), else None."""
    if (cfg.api_key or '').startswith(SECRET_PREFIX) or (cfg.secret_api_key or '').startswith(KEY_PREFIX):
        return ('api_key and secret_api_key are swapped: api_key is the API key (it starts %s), secret_api_key '
                'the secret API key (it starts %s)' % (KEY_PREFIX, SECRET_PREFIX))
    return None


def call(job, path, step, body=None, stale=False, repeatable=True):
    """One call: POST path with the credentials in the JSON body; its answer, checked. stale: an error
    answer (but one about the credentials) raises Stale, so the loop looks the ids up again. A domain
    that is not this account's, or not open to the API, is a Failure of 'find zone'."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    sent = dict(body or {}, apikey=cfg.api_key, secretapikey=cfg.secret_api_key)
    answer = http.request('POST', cfg.base_url + API_PATH + path, step, json_body=sent, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, repeatable=repeatable)
    answer.nonempty()
    data = answer.json()
    outcome = data.get('status') if isinstance(data, dict) else None
    if outcome == 'SUCCESS' and answer.status < 300:
        if isinstance(data.get('warnings'), str) and data['warnings']:   # the domain's DNS is served elsewhere
            log.info('%s: Porkbun warns: %s' % (step, data['warnings'][:300]))
        return data
    if outcome != 'ERROR':
        raise Failure.at(step, 'unexpected answer (HTTP %d): %s' % (answer.status, http.snippet(answer.text)),
                         url=answer.where, status=answer.status,
                         kind='server error' if answer.status >= 500 else 'unexpected')
    message = str(data['message']).strip()[:300] if isinstance(data.get('message'), (str, int)) else None
    if stale and message not in CREDENTIALS:
        log.info('%s: %s' % (step, message))
        raise Stale()
    log.error('%s: error: %s' % (step, message))
    fix = swapped(cfg) if message in CREDENTIALS else None
    fix = fix or FIXES.get(message)
    # the key's two halves are told apart by the number the message ends with: its only code
    code = message[-4:-1] if message and message.endswith(')') and decimal(message[-4:-1]) is not None else None
    if message in (INVALID_DOMAIN, NOT_OPTED_IN):
        raise Failure.at('find zone', ('no domain %s in this account (%s); %s' if message == INVALID_DOMAIN else
                                       'the API is not switched on for domain %s (%s); %s') % (
            cfg.zone_name, message, fix), url=answer.where, status=answer.status,
            kind='not found' if message == INVALID_DOMAIN else 'refused', provider_message=message, fix=fix)
    raise Failure.at(step, 'the provider refused the request (HTTP %d%s)%s' % (
        answer.status, ', code %s' % code if code else '', '; ' + fix if fix else ''), url=answer.where,
        status=answer.status, code=code, provider_message=message, fix=fix,
        kind='server error' if answer.status >= 500 else 'refused')
