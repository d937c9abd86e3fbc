"""DNSimple (API v2): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `dnsimple`. Every call carries an access
token as `Authorization: Bearer <token>`, and every path the account it acts for: the one the token
is (whoami; a user token's one account). A zone is named by its name, and the listing of the
record's name in it proves it is the account's; a record has an id. An update is a PATCH of the
record's content alone, which keeps its TTL, priority and regions, so a record of stored ids is
updated unread (the zone id kept with it says the account and the zone). DNSimple has no resolution
lines but holds several records of a name: a line's record is one of them (SEVERAL).
API reference: https://developer.dnsimple.com/v2/ (authentication, rate limiting),
https://developer.dnsimple.com/v2/identity/ (whoami), https://developer.dnsimple.com/v2/accounts/,
https://developer.dnsimple.com/v2/zones/, https://developer.dnsimple.com/v2/zones/records/
"""

from ddkit import Failure
from ddkit.provider import (Record, Stale, Zone, declaration, listing, number, relative_name, token_account,
                            token_settings)

NAME = 'dnsimple'
SUMMARY = 'Keep an A or AAAA record at DNSimple (API v2)'
API_PATH = '/v2'
SETTINGS = token_settings('a DNSimple account access token (the account\'s Access tokens page), or a user '
                          'access token of a user with one account', 'https://api.dnsimple.com',
                          'API base URL, scheme and host (https://api.sandbox.dnsimple.com is the sandbox; a '
                          'trailing /v2 is taken off)', API_PATH)
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True      # no resolution lines: each line's address is a record of the name
ZONE_ROWS = 100     # zones a page of the account's listing (the API's largest page)
ZONE_PAGES = 20     # more pages of zones than this: zone_name must be given
TOKEN_FIX = ('api_token is not a valid DNSimple access token (revoked, a sandbox token at the production API, '
             'or not copied whole): create an account access token (Account, Access tokens)')
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    400: 'the API refused the record (see its words): check record_name and record_type',
    401: TOKEN_FIX,
    402: 'the account\'s plan does not include this feature or record: see the account\'s billing',
    403: 'the token may not change this zone: use an account access token of the account that holds it',
    404: 'zone_name must be a zone of the token\'s account (the zone as DNSimple lists it, e.g. example.com)',
    429: 'too many requests (2,400 an hour per account): run less often; the next run tries again',
}


account = token_account


def login(job):
    """--check: the token is accepted when whoami names its account (a read call).
    https://developer.dnsimple.com/v2/identity/#whoami"""
    return ' (account %s)' % account_id(job)


def account_id(job):
    """The id of the account the token acts for, asked once a run: an account token's own, else a
    user token's one account; a user of several accounts is a Failure (an account token says which).
    https://developer.dnsimple.com/v2/identity/#whoami, https://developer.dnsimple.com/v2/accounts/#listAccounts"""
    def ask():
        data = call(job, 'GET', '/whoami', 'find zone').get('data')
        found = data.get('account') if isinstance(data, dict) else None
        if isinstance(found, dict):
            accounts = [found]
        else:
            accounts = listing(call(job, 'GET', '/accounts', 'find zone'), 'data', 'find zone')
        ids = [str(number(a.get('id'))) for a in accounts if number(a.get('id'))]
        if len(ids) != 1:
            raise Failure.at('find zone', 'the token\'s user has %d accounts: it cannot say which one holds the zone'
                             % len(ids), kind='unexpected', fix='use an account access token of the account that '
                             'holds the zone (Account, Access tokens)')
        return ids[0]
    return job.shared(('account', account(job.cfg)), ask)


def list_zones(job):
    """[the id of the zone named zone_name] once the record's name could be listed in it (the listing
    find_record reads then, shared): a zone the account lacks is a Failure of 'find zone'. Its id says
    the account too (<account>-<zone>), so a record of stored ids is reached without asking whoami."""
    zone_id = '%s-%s' % (account_id(job), job.cfg.zone_name)
    records(job, zone_id, 'find zone')
    return [zone_id]


def choose_zone(job, zones):
    """The zone listed, named zone_name."""
    return Zone(zones[0], job.cfg.zone_name)


def zone_path(zone_id, cfg):
    """The path of the zone a stored zone id names (<account>-<zone>); ids of another zone_name, or
    not of this form, are Stale."""
    owner, _, zone = zone_id.partition('-')
    if zone != cfg.zone_name or not owner.isdigit():
        raise Stale()
    return '/%s/zones/%s' % (owner, zone)


def account_zones(job):
    """Every zone of the account, page by page; more than ZONE_PAGES pages is a Failure asking for
    zone_name. https://developer.dnsimple.com/v2/zones/#listZones"""
    from ddkit import rest

    def page(n):
        data = call(job, 'GET', '/%s/zones?page=%d&per_page=%d' % (account_id(job), n + 1, ZONE_ROWS), 'find zone')
        pages = data.get('pagination') if isinstance(data.get('pagination'), dict) else {}
        return rest.domain_zones(z.get('name') for z in listing(data, 'data', 'find zone')), \
            (number(pages.get('total_pages')) or 0) > n + 1
    return rest.listed_zones(page, ZONE_PAGES, '%d zones' % (ZONE_ROWS * ZONE_PAGES))


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of a line: one holding an address of its operator), or None;
    strict: a fresh listing (the one shared with list_zones may be older)."""
    from ddkit import rest
    found = [r for r in records(job, zone_id, 'find record', fresh=strict) if named(r, job.cfg)]
    found = rest.on_line(found, job.line, 'content')
    return as_record(found[0]) if found else None


def records(job, zone_id, step, fresh=False):
    """The records of the name and type, listed once a run (the lines of a record share it; the zone's
    lookup lists them afresh after stale ids, find_record takes that listing); fresh: listed now.
    https://developer.dnsimple.com/v2/zones/records/#listZoneRecords"""
    from ddkit.urls import quote
    cfg = job.cfg
    shared = job.shared if step == 'find zone' else job.run.shared
    return shared(None if fresh else ('records', account(cfg), zone_id, cfg.record_name, cfg.record_type),
                  lambda: listing(call(job, 'GET', '%s/records?name=%s&type=%s&per_page=100' % (
                          zone_path(zone_id, cfg), quote(relative_name(cfg, '')), cfg.record_type), step, zone=True),
                          'data', step))


def named(found, cfg):
    """True when a record of an answer is of this name and type, with a usable id."""
    name = found.get('name')
    return found.get('type') == cfg.record_type and isinstance(name, str) and name.lower() == relative_name(cfg, '') \
        and record_id(found.get('id')) is not None


def as_record(found):
    return Record(record_id(found['id']), [found.get('content')], found)


def read_record(job, zone_id, record_id_text, held=False):
    """The record the stored ids name: unread (the update's PATCH keeps what it does not send, and
    says when the record is gone) unless asked (held), then read; Stale when it is gone.
    https://developer.dnsimple.com/v2/zones/records/#getZoneRecord"""
    cfg = job.cfg
    path = zone_path(zone_id, cfg)
    if record_id(record_id_text) is None:
        raise Stale()
    if not held:
        return Record(record_id_text)
    data = call(job, 'GET', '%s/records/%s' % (path, record_id_text), 'read record', stale=True).get('data')
    if not isinstance(data, dict) or not named(data, cfg) or record_id(data.get('id')) != record_id_text:
        raise Stale()   # ids of another record: find ours again
    return as_record(data)


def create_record(job, zone_id, ip):
    """The new record's id; its TTL is the API's default (3600).
    https://developer.dnsimple.com/v2/zones/records/#createZoneRecord"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'POST', '%s/records' % zone_path(zone_id, cfg), 'create record',
                {'name': relative_name(cfg, ''), 'type': cfg.record_type, 'content': ip}, stale=True).get('data')
    return rest.new_id(record_id(data.get('id')) if isinstance(data, dict) else None, 'create record')


def update_record(job, zone_id, record, ip):
    """The record's content changed alone: its TTL, priority and regions stay.
    https://developer.dnsimple.com/v2/zones/records/#updateZoneRecord"""
    data = call(job, 'PATCH', '%s/records/%s' % (zone_path(zone_id, job.cfg), record.id), 'update record',
                {'content': ip}, stale=True).get('data')
    return (record_id(data.get('id')) if isinstance(data, dict) else None) or record.id


def delete_record(job, zone_id, record):
    """A line's record, its line without an address; one gone already (HTTP 404) is success.
    https://developer.dnsimple.com/v2/zones/records/#deleteZoneRecord"""
    try:
        call(job, 'DELETE', '%s/records/%s' % (zone_path(zone_id, job.cfg), record.id), 'delete record', stale=True)
    except Stale:
        return None


def call(job, method, path, step, body=None, stale=False, zone=False):
    """One API call with the token; its JSON answer ({} for none: 204). stale: HTTP 404 raises Stale
    (the zone or the record is gone: the loop looks again); zone: HTTP 404 is the zone that is not the
    account's."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'Bearer ' + cfg.api_token})
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=True)
    rest.refused(job, answer, step, error_of(answer), stale=stale, zone='zone %s' if zone else None)


def error_of(answer):
    """The API's words in an error answer: its message, and each refused field's ("content: is
    invalid"); None when there are none."""
    from ddkit import rest
    data = rest.error_json(answer)
    fields = data.get('errors') if isinstance(data.get('errors'), dict) else {}
    parts = [str(data['message'])] if isinstance(data.get('message'), str) and data['message'] else []
    parts += ['%s: %s' % (k, '; '.join(str(w) for w in v if isinstance(w, str))) for k, v in fields.items()
              if isinstance(v, list)]
    return '; '.join(parts)[:200] or None


def record_id(value):
    """A record id from an answer or the ids file, as text: a positive whole number (ddkit.provider.number
    bounds it), else None."""
    found = number(value)
    return str(found) if found else None
