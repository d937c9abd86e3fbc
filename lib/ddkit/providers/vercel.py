"""Vercel DNS (the REST API's domains and DNS records): keep one A or AAAA record equal to this host's
public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `vercel`. Every call carries an access
token as `Authorization: Bearer`, and, for a team's domain, the team as `?teamId=` (on every call).
A domain is named by its name; its records are listed whole (page by page: the API filters by
nothing), each with an id, its name relative to the domain (`""` the apex). A PATCH of a record by
its id changes what it sends: an update sends the address alone and the record keeps its TTL and
comment, so a record of stored ids is updated unread. Vercel has no resolution lines but holds
several records of a name: a line's record is one of them (SEVERAL), made with a comment naming its
line. A bad or expired token is HTTP 403 with invalidToken (not 401).
API reference: https://vercel.com/docs/rest-api/reference/endpoints/dns (list, create, update, delete
DNS records), https://vercel.com/docs/rest-api/reference/endpoints/domains (list domains),
https://vercel.com/docs/rest-api/reference/welcome (authentication, teamId, errors, rate limits)
"""

from ddkit.provider import (Record, Stale, declaration, listing, relative_name, safe_id, token_settings,
                            zone_by_name as choose_zone)
from ddkit.settings import Setting


def check_team(value):
    """A team's id (team_...) or slug: it goes into every URL's query, so only what an id may hold."""
    if not safe_id(value.strip()):
        raise ValueError('must be a Vercel team id (team_...): letters, digits, - and _')
    return value.strip()


NAME = 'vercel'
SUMMARY = 'Keep an A or AAAA record at Vercel DNS (REST API)'
SETTINGS = token_settings('a Vercel access token (Account Settings, Tokens), scoped to the team that owns the '
                          'domain', 'https://api.vercel.com', 'API base URL, scheme and host (the API paths are the '
                          'tool\'s)') + [
    Setting('team_id', help='the id of the team that owns the domain (Team Settings: Team ID, team_...); empty for '
            'a domain of a personal account', check=check_team, label='Team ID')]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, required=('api_token',))
SEVERAL = True                           # no resolution lines: each line's address is a record of the name
LINE_COMMENT = 'ddkit line %s'           # the comment a line's record is made with: how it is found again
PAGE_ROWS = 100                          # records (or domains) a page of a listing
PAGES = 10                               # pages of a listing read at most
TOKEN_FIX = ('api_token is not a valid Vercel token (revoked, expired, or not copied whole): create one under '
             'Account Settings, Tokens, scoped to the team that owns the domain')
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md; a 403 of invalidToken: TOKEN_FIX)
    400: 'the record was refused (see the message): check record_name and record_type (A for IPv4, AAAA for IPv6)',
    403: 'the token may not use this team or domain: create a token scoped to the team that owns the domain, and '
         'set team_id to that team\'s id (Team Settings: Team ID; empty for a personal account\'s domain)',
    404: 'zone_name must be a domain of this Vercel account, or of the team team_id names (the domain as its '
         'Domains page lists it, e.g. example.com)',
    429: 'too many requests: run less often (Vercel limits each token\'s requests a minute)',
}


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_token, cfg.team_id


def login(job):
    """--check: the token is accepted when the domains it sees can be listed (a read call).
    https://vercel.com/docs/rest-api/reference/endpoints/domains/list-all-the-domains"""
    call(job, 'GET', '/v5/domains?limit=1', 'login')
    return ' (access token%s)' % (' of team %s' % job.cfg.team_id if job.cfg.team_id else '')


def list_zones(job):
    """The domain is the zone: [zone_name] once its records could be listed (the listing find_record
    reads then, shared); a domain the account (or team) lacks is a Failure of 'find zone'."""
    records(job, 'find zone', zone=True)
    return [job.cfg.zone_name]


def pages(fetch, key, step):
    """The objects of a listing under key, page by page (fetch(until): a page's answer; the next page
    is the one until its pagination.next), at most PAGES pages: more is a Failure."""
    from ddkit import Failure
    found, until = [], None
    for _ in range(PAGES):
        data = fetch(until)
        found += listing(data, key, step)
        pagination = data.get('pagination') if isinstance(data.get('pagination'), dict) else {}
        until = cursor(pagination.get('next'))
        if not until:
            return found
    raise Failure.at(step, 'the listing has more than %d %s: more than a run reads' % (PAGES * PAGE_ROWS, key),
                     kind='unexpected', fix='set zone_name' if key == 'domains' else None)


def cursor(value):
    """A page's cursor of an answer (a time in milliseconds: 13 digits), else None."""
    found = value if isinstance(value, int) and not isinstance(value, bool) else None
    return found if found and 0 < found < 10 ** 15 else None


def account_zones(job):
    """Every domain the token sees (in team_id's team), for a record without zone_name.
    https://vercel.com/docs/rest-api/reference/endpoints/domains/list-all-the-domains"""
    from ddkit import rest
    found = pages(lambda until: call(job, 'GET', '/v5/domains?limit=%d%s' % (
        PAGE_ROWS, '&until=%d' % until if until else ''), 'find zone'), 'domains', 'find zone')
    return rest.domain_zones(d.get('name') for d in found)


def records(job, step, fresh=False, zone=False):
    """Every record of the domain, listed once a run (the records of a run share it): the zone's
    lookup (zone) lists them afresh after stale ids, and the record's lookup takes that.
    https://vercel.com/docs/rest-api/reference/endpoints/dns/list-existing-dns-records"""
    cfg = job.cfg
    path = '/v5/domains/%s/records?limit=%d' % (cfg.zone_name, PAGE_ROWS)
    shared = job.shared if zone else job.run.shared
    return shared(None if fresh else ('records', account(cfg), cfg.zone_name), lambda: pages(
        lambda until: call(job, 'GET', path + ('&until=%d' % until if until else ''), step, zone=True),
        'records', step))


def named(found, cfg):
    """True when a record of an answer is of this name and type (its name relative, '' the apex)."""
    name = found.get('name')
    return found.get('type') == cfg.record_type and safe_id(found.get('id')) is not None \
        and isinstance(name, str) and name.lower() == relative_name(cfg, '')


def find_record(job, zone_id, strict=False):
    """The first listed record of this name and type; of a line: the one made for it (its comment),
    else one holding an address of its operator and made for no other line; None when none is."""
    from ddkit import rest
    found = rest.on_line([r for r in records(job, 'find record', fresh=strict) if named(r, job.cfg)], job.line,
                         'value', 'comment', LINE_COMMENT)
    return as_record(found[0]) if found else None


def as_record(found):
    return Record(safe_id(found['id']), [found.get('value')], found)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name: unread unless asked (held), since a PATCH keeps what it does
    not send and says when the record is gone; read (the API reads no record alone: in a fresh
    listing), Stale when it is gone or another name's or type's."""
    cfg = job.cfg
    if zone_id != cfg.zone_name or not safe_id(record_id):
        raise Stale()   # ids of another zone_name
    if not held:
        return Record(record_id)
    found = [r for r in records(job, 'read record', fresh=True) if r.get('id') == record_id and named(r, cfg)]
    if not found:
        raise Stale()
    return as_record(found[0])


def create_record(job, zone_id, ip):
    """The new record's id ("uid"); its TTL is Vercel's default (60); a line's record carries a
    comment naming its line.
    https://vercel.com/docs/rest-api/reference/endpoints/dns/create-a-dns-record"""
    from ddkit import rest
    cfg = job.cfg
    body = {'name': relative_name(cfg, ''), 'type': cfg.record_type, 'value': ip}
    if job.line:
        body['comment'] = LINE_COMMENT % job.line
    data = call(job, 'POST', '/v2/domains/%s/records' % zone_id, 'create record', body, stale=True)
    return rest.new_id(safe_id(data.get('uid')), 'create record')


def update_record(job, zone_id, record, ip):
    """PATCH the record's address alone: its TTL, comment and the rest stay.
    https://vercel.com/docs/rest-api/reference/endpoints/dns/update-an-existing-dns-record"""
    data = call(job, 'PATCH', '/v1/domains/records/%s' % record.id, 'update record', {'value': ip}, stale=True)
    return safe_id(data.get('id')) or record.id


def delete_record(job, zone_id, record):
    """A line's record, its line without an address; one gone already (HTTP 404) is success.
    https://vercel.com/docs/rest-api/reference/endpoints/dns/delete-a-dns-record"""
    try:
        call(job, 'DELETE', '/v2/domains/%s/records/%s' % (zone_id, record.id), 'delete record', stale=True)
    except Stale:
        return None


def call(job, method, path, step, body=None, stale=False, zone=False):
    """One API call with the token (and the team); the JSON object of a 2xx answer ({} for none).
    stale: a 404 (the record or the domain is gone) raises Stale; zone: a 404 is a domain the
    account or team does not have, a Failure of 'find zone'."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    if cfg.team_id:
        path += '%steamId=%s' % ('&' if '?' in path else '?', cfg.team_id)
    answer = http.request(method, cfg.base_url + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'Bearer ' + cfg.api_token},
                          repeatable=method != 'POST')
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=True)
    error = rest.error_json(answer).get('error')
    error = error if isinstance(error, dict) else {}
    code, said = (str(error[key])[:200] if isinstance(error.get(key), str) and error[key] else None
                  for key in ('code', 'message'))
    invalid = answer.status == 403 and error.get('invalidToken') is True
    rest.refused(job, answer, step, said, code, stale=stale, zone='domain %s' if zone else None,
                 fix=TOKEN_FIX if invalid else None)
