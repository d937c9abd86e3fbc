"""deSEC (API v1, RRsets): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `desec`. Every call carries a token as
`Authorization: Token <token>`. A domain is named by its name; the record is the RRset of its
subname and type (/api/v1/domains/<domain>/rrsets/<subname or @>/<type>/): a PATCH changes only the
fields it sends, so an update sends the records alone and the RRset keeps its TTL. A new RRset is
made by a bulk PATCH of the domain's rrsets/ (it creates or changes, so sending it twice does no
harm), with the domain's minimum TTL. A record without lines is the RRset holding one address; with
`lines` each line's address is one record of the RRset (SEVERAL), known again by its address (kept
in the ids file) or by its operator's prefix. deSEC throttles (HTTP 429 with Retry-After): a wait a
run can afford is waited for, a longer one fails the run, saying how long.
API reference: https://desec.readthedocs.io/en/latest/dns/rrsets.html,
https://desec.readthedocs.io/en/latest/dns/domains.html, https://desec.readthedocs.io/en/latest/rate-limits.html,
https://desec.readthedocs.io/en/latest/auth/tokens.html
"""

from ddkit import Failure, decimal
from ddkit.ipcheck import same_ip
from ddkit.provider import (ProviderSession, Record, Stale, Zone, address_id, address_of, address_record,
                            secret_setting, state_files, url_setting)

NAME = 'desec'
STEM = 'ddkit_desec'                     # its lock and log files' prefix (no seed tool)
SUMMARY = 'Keep one A or AAAA record at deSEC (API v1, RRsets) equal to this host\'s public IP.'
API_PATH = '/api/v1'
SETTINGS = [
    secret_setting('api_token', 'a deSEC API token (Token Management, or POST auth/tokens/)'),
    url_setting('https://desec.io', 'API base URL (a trailing /api/v1, as the provider\'s documents write it, is '
                'taken off: the tool adds it)', API_PATH),
]
FILES = state_files(NAME)
REQUIRED = ('api_token',)
URLS = ('base_url',)
NOUN = 'record'
SEVERAL = True    # no resolution lines; an RRset holds several addresses: each line's is one of them
DEFAULT_TTL = 3600    # the minimum TTL of a domain whose answer does not say it (deSEC's default)
MAX_TTL = 604800
THROTTLED = ('deSEC throttles writes to a domain\'s RRsets (2/s, 15/min, 100/h, 300/day) and reads (10/s, 50/min): '
             'run less often; the next run tries again')
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    401: 'api_token is not a valid deSEC token (deleted, expired by its max_age or max_unused_period, or not copied '
         'whole): create a new one',
    403: 'the token may not write this RRset, or not from this address: give it a policy with perm_write for the '
         'domain, subname and type (and allowed_subnets that hold this host\'s address)',
    404: 'zone_name must be a domain of this deSEC account (the domain as deSEC lists it, e.g. example.com or '
         'name.dedyn.io)',
    429: THROTTLED,
}


class Session(ProviderSession):
    """The RRset this record's run read last (a line's create adds its address to it), and whether
    one was read (None: the RRset does not exist); the domain as this run read it."""

    def __init__(self):
        self.read, self.rrset, self.domain = False, None, None


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_token


def login(job):
    """--check: the token is accepted when the account's domains can be listed (a read call).
    https://desec.readthedocs.io/en/latest/dns/domains.html#listing-domains"""
    call(job, 'GET', '/domains/?owns_qname=%s' % job.cfg.record_name, 'login')
    return ' (API token)'


def domain(job):
    """The domain zone_name, read once a run (its minimum TTL); one the account lacks is a Failure.
    https://desec.readthedocs.io/en/latest/dns/domains.html#retrieving-a-specific-domain"""
    cfg = job.cfg
    job.session.domain = job.shared(('domain', account(cfg), cfg.zone_name), lambda: call(
        job, 'GET', '/domains/%s/' % cfg.zone_name, 'find zone', zone=True))
    return job.session.domain


def list_zones(job):
    """[the domain named zone_name]."""
    cfg = job.cfg
    name = str(domain(job).get('name') or cfg.zone_name).lower().rstrip('.')
    if name != cfg.zone_name:
        raise Failure.at('find zone', 'unexpected answer: the domain read is %s, not %s' % (name[:80], cfg.zone_name),
                         kind='unexpected')
    return [name]


def choose_zone(job, zones):
    """The zone: its id is its name."""
    return Zone(zones[0], zones[0])


def account_zones(job):
    """Every domain of the account (one listing: up to 500; more needs a cursor, and zone_name then).
    https://desec.readthedocs.io/en/latest/dns/domains.html#listing-domains"""
    data = call(job, 'GET', '/domains/', 'find zone', listed=True)
    if not isinstance(data, list):
        raise Failure.at('find zone', 'unexpected answer: the domain list is not a list', kind='unexpected')
    names = [str(d.get('name') or '').lower().rstrip('.') for d in data if isinstance(d, dict)]
    return [Zone(name, name) for name in names if name]


def subname(cfg):
    """The record's subname: record_name without the zone ('' for the zone itself)."""
    return '' if cfg.record_name == cfg.zone_name else cfg.record_name[:-len(cfg.zone_name) - 1]


def rrset_path(zone, cfg):
    """The RRset's endpoint; the zone apex is written @ (an empty segment would not survive)."""
    return '/domains/%s/rrsets/%s/%s/' % (zone, subname(cfg) or '@', cfg.record_type)


def read_rrset(job, zone, step, fresh=False):
    """The RRset of the record's subname and type, or None. A line's record is one address of an
    RRset other lines change too: always read afresh; a record without lines once a run.
    https://desec.readthedocs.io/en/latest/dns/rrsets.html#retrieving-a-specific-rrset"""
    cfg = job.cfg
    key = None if fresh or job.line is not None else ('rrset', account(cfg), zone, cfg.record_name, cfg.record_type)
    rrset = job.shared(key, lambda: call(job, 'GET', rrset_path(zone, cfg), step, missing=True))
    if rrset is not None and (not isinstance(rrset, dict) or rrset.get('type', cfg.record_type) != cfg.record_type
                              or not isinstance(rrset.get('records', []), list)):
        raise Failure.at(step, 'unexpected answer: not the %s RRset of %s' % (cfg.record_type, cfg.record_name),
                         kind='unexpected')
    job.session.read, job.session.rrset = True, rrset
    return rrset


def addresses(rrset):
    """The addresses an RRset holds."""
    return [r for r in (rrset or {}).get('records', []) if isinstance(r, str)]


def of_line(job, found, hint=None):
    """The Record of the job's line in an RRset (ddkit.provider.address_record)."""
    return address_record(job, addresses(found), found, hint)


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of a line: its address in the RRset), or None."""
    found = read_rrset(job, zone_id, 'find record', fresh=strict)
    if found is None:
        return None
    if job.line is None:
        return Record(job.cfg.record_name, addresses(found), found)
    return of_line(job, found)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name. A record without lines is not read unless asked (held): a
    PATCH keeps what it does not send, and says when the RRset is gone. A line's is read, its id
    being its address (gone from the RRset: Stale); the record's own id, from before it had lines,
    is the default line's: the address of its operator, else the RRset's one address."""
    cfg = job.cfg
    if zone_id != cfg.zone_name:
        raise Stale()   # ids of another zone_name: find ours again
    if job.line is None:
        if record_id != cfg.record_name:
            raise Stale()
        if not held:
            return Record(record_id)
        found = read_rrset(job, zone_id, 'read record', fresh=True)
        if found is None:
            raise Stale()
        return Record(record_id, addresses(found), found)
    found = read_rrset(job, zone_id, 'read record', fresh=True)
    if found is None:
        raise Stale()
    if record_id == cfg.record_name:
        held_now = addresses(found)
        record = of_line(job, found) or (of_line(job, found, held_now[0]) if len(held_now) == 1 else None)
    else:
        record = of_line(job, found, address_of(record_id)) if address_of(record_id) else None
    if record is None:
        raise Stale()
    return record


def minimum_ttl(job):
    """The domain's minimum TTL (what a new RRset gets: the shortest it may have), from the domain
    this run read (after stale ids, the run reads it afresh once, not again for this)."""
    ttl = (job.session.domain or domain(job)).get('minimum_ttl')
    return ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and 0 < ttl <= MAX_TTL else DEFAULT_TTL


def create(job, zone_id, records, step):
    """A new RRset of these records, by a bulk PATCH of the domain's RRsets: it creates one that is
    not there and changes one that is, so a retry after a lost answer does no harm.
    https://desec.readthedocs.io/en/latest/dns/rrsets.html#bulk-operations"""
    cfg = job.cfg
    call(job, 'PATCH', '/domains/%s/rrsets/' % zone_id, step,
         [{'subname': subname(cfg), 'type': cfg.record_type, 'ttl': minimum_ttl(job), 'records': records}], stale=True)
    job.session.read = False


def patch(job, zone_id, records, step):
    """The RRset's records set (its TTL kept: a PATCH changes only what it sends); [] deletes it.
    https://desec.readthedocs.io/en/latest/dns/rrsets.html#modifying-an-rrset"""
    call(job, 'PATCH', rrset_path(zone_id, job.cfg), step, {'records': records}, stale=True)
    job.session.read = False


def create_record(job, zone_id, ip):
    """A record without lines: the RRset, made holding ip alone. A line's: its address added to the
    RRset (read by this run's lookup, else now), which is made when there is none."""
    cfg = job.cfg
    if job.line is None:
        create(job, zone_id, [ip], 'create record')
        return cfg.record_name
    found = job.session.rrset if job.session.read else read_rrset(job, zone_id, 'create record', fresh=True)
    if found is None:
        create(job, zone_id, [ip], 'create record')
    else:
        patch(job, zone_id, addresses(found) + [ip], 'create record')
    return address_id(ip)


def update_record(job, zone_id, record, ip):
    """A record without lines: the RRset holding ip alone. A line's: its address replaced, the
    others kept."""
    if job.line is None:
        patch(job, zone_id, [ip], 'update record')
        return record.id
    old = record.content[0]
    patch(job, zone_id, [ip if same_ip(a, old) else a for a in addresses(record.raw)], 'update record')
    return address_id(ip)


def delete_record(job, zone_id, record):
    """A line's address taken out of the RRset (the RRset deleted with its last one: records []);
    one gone already is success."""
    found = job.session.rrset if job.session.read else read_rrset(job, zone_id, 'delete record', fresh=True)
    old = record.content[0] if record.content else address_of(record.id)
    held = addresses(found)
    kept = [a for a in held if not (old and same_ip(a, old))]
    if found is None or len(kept) == len(held):
        job.log.info('delete record: %s is gone already.' % (old or record.id))
        return None
    try:
        patch(job, zone_id, kept, 'delete record')
    except Stale:
        job.log.info('delete record: the RRset is gone already.')
    return None


def call(job, method, path, step, data=None, stale=False, missing=False, zone=False, listed=False):
    """One API call with the token; its JSON answer ({} when it has none: 204). stale: HTTP 404
    raises Stale (the domain or the RRset is gone: the loop looks again); missing: HTTP 404 gives None
    (no such RRset); zone: HTTP 404 is the domain that is not this account's; listed: HTTP 400 is a
    listing too long for one page."""
    from ddkit import http  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=data, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'Token ' + cfg.api_token})
    status = answer.status
    if 200 <= status < 300:
        if status == 204 or not answer.body.strip():
            return {}
        found = answer.json()
        if not isinstance(found, (dict, list)):
            raise Failure.at(step, 'unexpected answer: %s' % http.snippet(answer.text), url=answer.where,
                             status=status, kind='unexpected')
        return found
    said, fields = error_of(answer)
    if status == 404 and missing and not zone:
        return None
    if status == 404 and stale:
        log.info('%s: %s (HTTP 404)' % (step, said or 'not found'))
        raise Stale()
    log.error('%s: HTTP %d: %s' % (step, status, said or http.snippet(answer.text)))
    if status == 404 and zone:
        raise Failure.at('find zone', 'no domain %s in this account (HTTP 404%s); %s' % (
            cfg.zone_name, ': ' + said if said else '', FIXES[404]), url=answer.where, status=status,
            kind='not found', provider_message=said, fix=FIXES[404])
    if status == 400 and listed:
        raise Failure.at(step, 'the account has more than one page of domains (%s): set zone_name' % said,
                         url=answer.where, status=status, kind='unexpected', provider_message=said,
                         fix='set zone_name')
    shown = said or http.snippet(answer.text)
    if status == 429:
        wait = decimal((answer.headers.get('retry-after') or '').strip())
        raise Failure.at(step, 'the API asks to wait%s (HTTP 429: %s); %s' % (
            ' %d seconds' % wait if wait is not None else '', shown, THROTTLED), url=answer.where, status=status,
            kind='refused', provider_message=said, fix=THROTTLED)
    if status >= 500:
        raise Failure.at(step, 'the API failed (HTTP %d)%s; the next run tries again' % (
            status, ': ' + shown if shown else ''), url=answer.where, status=status, kind='server error',
            provider_message=said)
    fix = FIXES.get(status) if status != 404 else None
    if status == 400 and 'ttl' in fields:
        fix = 'the RRset\'s TTL is outside what the domain allows (its minimum_ttl up to 604800): set it at deSEC'
    raise Failure.at(step, 'the provider refused the request (HTTP %d%s)%s' % (
        status, ': ' + shown if shown else '', '; ' + fix if fix else ''), url=answer.where, status=status,
        provider_message=said, fix=fix, kind='refused')


def error_of(answer):
    """(the API's words in an error answer, the fields they are about): {"detail": ...}, or the
    fields' messages of a refused body ({"<field>": [...]}, or a list of them for a bulk request) as
    "field: message"; (None, set()) when there are none."""
    try:
        data = answer.json()
    except Failure:
        return None, set()
    parts, fields = [], set()
    for item in data if isinstance(data, list) else [data]:
        if not isinstance(item, dict):
            continue
        for key, value in item.items():
            words = value if isinstance(value, list) else [value]
            text = '; '.join(str(w) for w in words if isinstance(w, (str, int)) and not isinstance(w, bool))
            if text:
                parts.append(text if key == 'detail' else '%s: %s' % (key, text))
                fields.add(key)
    return '; '.join(parts)[:200] or None, fields
