"""DigitalOcean (API v2, Domains): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `digitalocean`. Every call carries a
personal access token as `Authorization: Bearer`. A domain is named by its name; the records of the
record's name and type are listed by the listing's filter (the full name), each record by its id,
its name relative to the domain (`@` the apex). A PATCH changes only what it sends: an update sends
the type and the address, and the record keeps its TTL, so a record of stored ids is updated unread.
DigitalOcean has no resolution lines but holds several records of a name: a line's record is one of
them (SEVERAL), known by its stored id or its operator's prefix.
API reference: https://docs.digitalocean.com/reference/api/api-reference/ (Domains: List All Domains;
Domain Records: List, Create, Retrieve, Update (PATCH), Delete; Rate Limit)
"""

from ddkit.provider import (Record, Stale, declaration, listing, number, relative_name, token_account, token_settings,
                            zone_by_name as choose_zone)

NAME = 'digitalocean'
SUMMARY = 'Keep an A or AAAA record at DigitalOcean (Domains, API v2)'
API_PATH = '/v2'
SETTINGS = token_settings('a DigitalOcean personal access token (API, Tokens: custom scopes domain:read, '
                          'domain:update and domain:create)', 'https://api.digitalocean.com', api_path=API_PATH)
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True        # no resolution lines: each line's address is a record of the name
PER_PAGE = 200        # the most a page of a listing holds
ZONE_PAGES = 10       # pages of domains read at most: more needs zone_name
SCOPES = ('create a personal access token with the custom scopes domain:read, domain:update and domain:create '
          '(or full access)')
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    401: 'api_token is not a valid DigitalOcean token (revoked, expired, or not copied whole): ' + SCOPES,
    403: 'the token lacks a scope this needs: ' + SCOPES,
    404: 'zone_name must be a domain of this DigitalOcean account (the domain as Networking, Domains lists it, '
         'e.g. example.com)',
    422: 'the record was refused (see the message): check record_name and record_type (A for IPv4, AAAA for IPv6)',
    429: 'too many requests (DigitalOcean allows 250 a minute and 5,000 an hour per token): run less often',
}


account = token_account


def login(job):
    """--check: the token is accepted when the account's domains can be listed (a read call).
    https://docs.digitalocean.com/reference/api/api-reference/#operation/domains_list"""
    call(job, 'GET', '/domains?per_page=1', 'login')
    return ' (personal access token)'


def list_zones(job):
    """The domain is the zone: [zone_name] once the records of the record's name could be listed
    in it (the listing find_record reads then, shared); a domain the account lacks is a Failure."""
    records(job, 'find zone', zone=True)
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, page by page (at most ZONE_PAGES pages, then a Failure asking for
    zone_name); a delegated sub-domain may be a domain of its own.
    https://docs.digitalocean.com/reference/api/api-reference/#operation/domains_list"""
    from ddkit import rest

    def page(n):
        data = call(job, 'GET', '/domains?per_page=%d&page=%d' % (PER_PAGE, n + 1), 'find zone')
        links = data.get('links') if isinstance(data.get('links'), dict) else {}
        pages = links.get('pages') if isinstance(links.get('pages'), dict) else {}
        return rest.domain_zones(d.get('name') for d in listing(data, 'domains', 'find zone')), bool(pages.get('next'))
    return rest.listed_zones(page, ZONE_PAGES, '%d domains' % (ZONE_PAGES * PER_PAGE))


def records(job, step, fresh=False, zone=False):
    """The records of the record's name and type, listed once a run (the filter takes the full name):
    the zone's lookup (zone) lists them afresh after stale ids, and the record's lookup takes that.
    https://docs.digitalocean.com/reference/api/api-reference/#operation/domains_list_records"""
    cfg = job.cfg
    query = 'type=%s&name=%s&per_page=%d' % (cfg.record_type, cfg.record_name, PER_PAGE)
    shared = job.shared if zone else job.run.shared
    return shared(None if fresh else ('records', account(cfg), cfg.zone_name, query), lambda: listing(
        call(job, 'GET', '/domains/%s/records?%s' % (cfg.zone_name, query), step, zone=True), 'domain_records', step))


def named(found, cfg):
    """True when a record of an answer is of this name and type (its name relative, '@' the apex)."""
    name = found.get('name')
    return found.get('type') == cfg.record_type and record_id(found.get('id')) is not None \
        and isinstance(name, str) and name.lower() == relative_name(cfg, '@')


def find_record(job, zone_id, strict=False):
    """The first listed record of this name and type (of a line: one holding an address of its
    operator), or None; strict: a fresh listing."""
    from ddkit import rest
    found = rest.on_line([r for r in records(job, 'find record', fresh=strict) if named(r, job.cfg)], job.line,
                         'data')
    return as_record(found[0]) if found else None


def as_record(found):
    return Record(record_id(found['id']), [found.get('data')], found)


def read_record(job, zone_id, record_id_text, held=False):
    """The record the stored ids name: unread unless asked (held), since a PATCH keeps what it does
    not send and says when the record is gone; read, Stale when it is gone or another name's or type's.
    https://docs.digitalocean.com/reference/api/api-reference/#operation/domains_get_record"""
    cfg = job.cfg
    if zone_id != cfg.zone_name or not record_id(record_id_text):
        raise Stale()   # ids of another zone_name, or not DigitalOcean's
    if not held:
        return Record(record_id_text)
    data = call(job, 'GET', '/domains/%s/records/%s' % (zone_id, record_id_text), 'read record', stale=True)
    found = data.get('domain_record')
    if not isinstance(found, dict) or not named(found, cfg) or record_id(found.get('id')) != record_id_text:
        raise Stale()   # ids of another record: find ours again
    return as_record(found)


def create_record(job, zone_id, ip):
    """The new record's id; its TTL is the API's default (1800).
    https://docs.digitalocean.com/reference/api/api-reference/#operation/domains_create_record"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'POST', '/domains/%s/records' % zone_id, 'create record',
                {'type': cfg.record_type, 'name': relative_name(cfg, '@'), 'data': ip}, stale=True)
    found = data.get('domain_record')
    return rest.new_id(record_id(found.get('id')) if isinstance(found, dict) else None, 'create record')


def update_record(job, zone_id, record, ip):
    """PATCH the record's type and address alone: its TTL and other fields stay.
    https://docs.digitalocean.com/reference/api/api-reference/#operation/domains_patch_record"""
    data = call(job, 'PATCH', '/domains/%s/records/%s' % (zone_id, record.id), 'update record',
                {'type': job.cfg.record_type, 'data': ip}, stale=True)
    found = data.get('domain_record')
    return (record_id(found.get('id')) if isinstance(found, dict) else None) or record.id


def delete_record(job, zone_id, record):
    """A line's record, its line without an address; one gone already (HTTP 404) is success.
    https://docs.digitalocean.com/reference/api/api-reference/#operation/domains_delete_record"""
    try:
        call(job, 'DELETE', '/domains/%s/records/%s' % (zone_id, record.id), 'delete record', stale=True)
    except Stale:
        return None


def call(job, method, path, step, body=None, stale=False, zone=False):
    """One API call with the token; the JSON object of a 2xx answer ({} for a delete's 204). stale: a
    404 (the record or the domain is gone) raises Stale, so the loop looks the ids up again; zone: a
    404 is a domain the account does not have, a Failure of 'find zone'."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'Bearer ' + cfg.api_token})
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=method == 'DELETE')
    data = rest.error_json(answer)
    code, said = (str(data[key])[:200] if isinstance(data.get(key), str) and data[key] else None
                  for key in ('id', 'message'))
    rest.refused(job, answer, step, said, code, stale=stale, zone='domain %s' if zone else None)


def record_id(value):
    """A record id from an answer or the ids file, as text: a positive whole number, else None."""
    found = number(value)
    return str(found) if found else None

