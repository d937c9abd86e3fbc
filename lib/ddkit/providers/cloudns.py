"""ClouDNS (HTTP API): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `cloudns`. Every call is a POST of a form
to <base_url>/<group>/<method>.json whose body carries the credentials (auth-id, or a sub-user's
sub-auth-id or sub-auth-user, and auth-password): the API takes them in a query string too, which a
log or a failure would show, so they never go there. Errors come at HTTP 200 as {"status": "Failed",
"statusDescription": ...}: the description is the API's only code. The domain name is the zone; a
name may hold several records of a type (SEVERAL), each with its id; there are no resolution lines.
API reference: https://www.cloudns.net/wiki/article/42/ (API users and sub-users),
https://www.cloudns.net/wiki/article/45/ (login), https://www.cloudns.net/wiki/article/50/ (list zones),
https://www.cloudns.net/wiki/article/57/ (list records), https://www.cloudns.net/wiki/article/58/ (add),
https://www.cloudns.net/wiki/article/60/ (modify), https://www.cloudns.net/wiki/article/59/ (delete),
https://www.cloudns.net/wiki/article/188/ (TTLs)
"""

from ddkit import Failure, decimal
from ddkit.provider import (Record, Stale, declaration, relative_name, safe_id, secret_setting, url_setting,
                            zone_by_name as choose_zone)
from ddkit.settings import Setting, check_text

NAME = 'cloudns'
SUMMARY = 'Keep an A or AAAA record at ClouDNS (HTTP API)'
# how auth_id names the API user: its digits alone (auth-id), or a sub-user by id or by name
SUB_ID, SUB_USER = 'sub-auth-id:', 'sub-auth-user:'


def check_auth_id(value):
    """An API user's auth-id (digits), sub-auth-id:<digits>, or sub-auth-user:<name> (a bare name that
    is not digits is a sub-user's name too): printable ASCII, no spaces."""
    if not value or any(not 32 < ord(c) < 127 for c in value):
        raise ValueError('must be printable ASCII with no spaces')
    kind, name = auth_parameter(value)
    if not name or kind != 'sub-auth-user' and decimal(name) is None:
        raise ValueError('must be the API user\'s auth-id (digits), sub-auth-id:<digits> or '
                         'sub-auth-user:<name> (ClouDNS: API & Resellers)')
    return value


def auth_parameter(value):
    """(the API's name of the user parameter, its value) of an auth_id setting."""
    for prefix in (SUB_ID, SUB_USER):
        if value.startswith(prefix):
            return prefix[:-1], value[len(prefix):]
    return ('auth-id' if decimal(value) is not None else 'sub-auth-user'), value


SETTINGS = [
    Setting('auth_id', help='the API user\'s auth-id (digits); a sub-user: sub-auth-id:<id> or sub-auth-user:<name>',
            check=check_auth_id),
    secret_setting('auth_password', 'the API user\'s (or sub-user\'s) password', check=check_text),
    url_setting('https://api.cloudns.net', 'API base URL (scheme and host; the tool adds the paths)'),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True    # no resolution lines, several records of a name: each line's address is a record of its own
# the only TTLs the API takes (article 188); a new record gets NEW_TTL, an update sends the record's own
TTLS = (60, 300, 900, 1800, 3600, 21600, 43200, 86400, 172800, 259200, 604800, 1209600, 2592000)
NEW_TTL = 300
ROWS = 100        # zones a page of list-zones (10, 20, 30, 50 or 100)
ZONE_PAGES = 20   # more pages of zones than this: zone_name must be given
NOT_MASTER = ('slave', 'parked')   # zone types whose records the API does not change
AUTH = 'Invalid authentication, incorrect auth-id or auth-password.'
SUB_AUTH = 'Invalid authentication, incorrect sub-auth-id, sub-auth-user or auth-password.'
NO_ZONE = 'Missing domain-name'          # a zone the account (or sub-user) does not have
RECORD_GONE = 'Invalid record-id param.'
FIXES = {   # what to do about the API's status descriptions users meet (docs/providers.md)
    AUTH: 'auth_id must be an API user\'s auth-id and auth_password its password (ClouDNS: API & Resellers); '
          'an API user limited to some IP addresses must allow this host\'s',
    SUB_AUTH: 'auth_id must name the API sub-user (sub-auth-id:<id> or sub-auth-user:<name>) and auth_password '
              'be its password (ClouDNS: API & Resellers > API sub-users)',
    NO_ZONE: 'zone_name must be a master zone of this account (for a sub-user: one delegated to it), e.g. '
             'example.com',
    RECORD_GONE: 'the record is gone at the provider: the ids are looked up again and the record created',
}
THROTTLED = 'too many requests: run less often (the next run tries again)'


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.auth_id, cfg.auth_password


def login(job):
    """--check: the credentials are accepted by the API's login check (a read call).
    https://www.cloudns.net/wiki/article/45/"""
    call(job, 'login/login.json', {}, 'login')
    kind, name = auth_parameter(job.cfg.auth_id)
    return ' (%s %s)' % ('API user' if kind == 'auth-id' else 'API sub-user', name)


def list_zones(job):
    """[zone_name] once the record listing has found the domain (a zone the account lacks is a
    Failure there): the domain name is the zone's id, so no zone call is made."""
    listed(job, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every zone the credentials see whose records the API can change, page by page (list-zones):
    a slave or parked zone is none (records.json serves master zones alone); more than ZONE_PAGES
    pages is a Failure asking for zone_name. https://www.cloudns.net/wiki/article/50/"""
    from ddkit import rest

    def page(n):
        data = call(job, 'dns/list-zones.json', {'page': str(n + 1), 'rows-per-page': str(ROWS)}, 'find zone')
        if not isinstance(data, list):
            raise Failure.at('find zone', 'unexpected answer: the zone list is not a list', kind='unexpected')
        zones = [z for z in data if isinstance(z, dict)]
        return rest.domain_zones(z.get('name') for z in zones if z.get('type') not in NOT_MASTER), len(zones) >= ROWS
    return rest.listed_zones(page, ZONE_PAGES, '%d zones' % (ROWS * ZONE_PAGES))


def host(cfg):
    """The record's host as ClouDNS names it: record_name without the zone, '' for the zone itself."""
    return relative_name(cfg, '')


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of a line: the one in its operator's prefix), or None;
    strict: a fresh listing."""
    return first(listed(job, 'find record', fresh=strict), job)


def listed(job, step, fresh=False):
    """The records of the name, listed once a run (of this type alone; every type when the run has
    several records, so that both families share it). https://www.cloudns.net/wiki/article/57/"""
    cfg = job.cfg
    params = {'domain-name': cfg.zone_name, 'host': host(cfg)}
    if not job.run.several:
        params['type'] = cfg.record_type
    key = None if fresh else ('records', account(cfg), cfg.zone_name, params['host'], params.get('type'))
    return job.shared(key, lambda: records_of(call(job, 'dns/records.json', params, step), step))


def records_of(data, step):
    """The records of a listing: an object keyed by record id, or [] when there are none."""
    if isinstance(data, list) and not data:
        return []
    if not isinstance(data, dict):
        raise Failure.at(step, 'unexpected answer: the record list is not an object', kind='unexpected')
    return [r for r in data.values() if isinstance(r, dict)]


def first(records, job):
    """The first listed record of this name and type (of a line: one holding an address of the
    line's operator), or None."""
    from ddkit import rest
    cfg, name = job.cfg, host(job.cfg)
    found = rest.on_line([r for r in records if safe_id(r.get('id')) and str(r.get('host', '')).lower() == name
                          and r.get('type') == cfg.record_type], job.line, 'record')
    return as_record(found[0]) if found else None


def as_record(found):
    return Record(safe_id(found['id']), [found.get('record')], found)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, read (its host and TTL go back with an update); Stale when it
    is gone or is another name's. get-record is not in the API's published reference (clients use it):
    when its answer is no record of this id, the documented listing of the name says whether it exists."""
    cfg = job.cfg
    if zone_id != cfg.zone_name or decimal(record_id) is None:
        raise Stale()   # ids of another zone_name, or not ClouDNS's
    data = call(job, 'dns/get-record.json', {'domain-name': zone_id, 'record-id': record_id}, 'read record',
                tolerate=True)
    if not (isinstance(data, dict) and str(data.get('id')) == record_id):
        # the listing the lookup by name shares, if the id turns out to be gone
        data = ([r for r in listed(job, 'read record') if str(r.get('id')) == record_id] or [None])[0]
    if data is None:
        raise Stale()
    if str(data.get('host', '')).lower() != host(cfg) or data.get('type') != cfg.record_type:
        raise Stale()   # ids of another record: find ours again
    return as_record(dict(data, id=record_id))


def create_record(job, zone_id, ip):
    """The new record's id, with NEW_TTL (the API requires one).
    https://www.cloudns.net/wiki/article/58/"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'dns/add-record.json', {'domain-name': zone_id, 'record-type': cfg.record_type,
                                             'host': host(cfg), 'record': ip, 'ttl': str(NEW_TTL)},
                'create record', stale=True, repeatable=False)
    inner = data.get('data') if isinstance(data, dict) else None
    found = safe_id(inner.get('id')) if isinstance(inner, dict) else None
    return rest.new_id(found if found and decimal(found) is not None else None, 'create record')


def update_record(job, zone_id, record, ip):
    """The record's id: its address set, its own host and TTL sent back (mod-record requires both:
    what is sent is what it keeps). https://www.cloudns.net/wiki/article/60/"""
    cfg, held = job.cfg, record.raw
    ttl = decimal(str(held.get('ttl', '')))
    if ttl not in TTLS:
        job.log.info('update record: the record\'s TTL %r is not one the API takes; sending %d.'
                     % (str(held.get('ttl'))[:20], NEW_TTL))
        ttl = NEW_TTL
    own = held.get('host')
    call(job, 'dns/mod-record.json', {'domain-name': zone_id, 'record-id': record.id, 'record': ip, 'ttl': str(ttl),
                                      'host': own if isinstance(own, str) else host(cfg)},
         'update record', stale=True)
    return record.id


def delete_record(job, zone_id, record):
    """A line's record, its line without an address; one gone already (Invalid record-id param.)
    is success. https://www.cloudns.net/wiki/article/59/"""
    call(job, 'dns/delete-record.json', {'domain-name': zone_id, 'record-id': record.id}, 'delete record',
         gone=True)


def form(cfg, params):
    """The form body of one call: the credentials, then the call's parameters."""
    from ddkit.urls import quote
    kind, name = auth_parameter(cfg.auth_id)
    pairs = [(kind, name), ('auth-password', cfg.auth_password)] + sorted(params.items())
    return '&'.join('%s=%s' % (quote(k), quote(v)) for k, v in pairs).encode('ascii')


def call(job, method, params, step, stale=False, gone=False, tolerate=False, repeatable=True):
    """One API call: a POST of the form (credentials in the body); its answer, checked. stale: a zone
    or record that is gone raises Stale (the loop looks the ids up again); gone: a record that is
    gone gives None (a delete's work is done); tolerate: a refusal other than the credentials' gives
    None; repeatable: sent again after a lost answer (a create is not)."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    answer = http.request('POST', '%s/%s' % (cfg.base_url, method), step, data=form(cfg, params),
                          headers={'Content-Type': 'application/x-www-form-urlencoded'}, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, repeatable=repeatable)
    if answer.status == 429 or answer.status >= 500:
        throttled = answer.status == 429
        raise Failure.at(step, '%s (HTTP %d)%s' % ('the API asks to wait' if throttled else 'the API failed',
                                                    answer.status, '; ' + THROTTLED if throttled else
                                                    ': %s; the next run tries again' % http.snippet(answer.text)),
                         url=answer.where, status=answer.status, kind='refused' if throttled else 'server error',
                         fix=THROTTLED if throttled else None)
    answer.nonempty()
    try:
        data = answer.json()
    except http.NotJson:
        if not tolerate:
            raise
        log.info('%s: no JSON in the answer (HTTP %d)' % (step, answer.status))
        return None
    failed = isinstance(data, dict) and data.get('status') == 'Failed'
    if not failed and answer.status == 200:
        return data
    said = data.get('statusDescription') or data.get('statusMessage') if failed else None
    said = str(said)[:200] if isinstance(said, (str, int)) and said != '' else None
    if gone and said == RECORD_GONE:
        log.info('%s: %s: gone already.' % (step, said))
        return None
    if stale and said in (NO_ZONE, RECORD_GONE):
        log.info('%s: %s' % (step, said))
        raise Stale()
    if tolerate and said not in (AUTH, SUB_AUTH):
        log.info('%s: %s' % (step, said or 'HTTP %d' % answer.status))
        return None
    log.error('%s: %s' % (step, said or 'HTTP %d: %s' % (answer.status, http.snippet(answer.text))))
    fix = FIXES.get(said)
    if said == NO_ZONE:
        raise Failure.at('find zone', 'no zone %s in this account (%s); %s' % (cfg.zone_name, said, fix),
                         url=answer.where, status=answer.status, kind='not found', code=said,
                         provider_message=said, fix=fix)
    why = 'the provider refused the request (%s)' % (said or 'HTTP %d' % answer.status)
    raise Failure.at(step, why + ('; ' + fix if fix else ''), url=answer.where, status=answer.status, code=said,
                     provider_message=said, fix=fix, kind='refused' if failed or answer.status < 500 else 'server error')
