"""Spaceship (the DNS records API, v1): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `spaceship`. Every call carries the API
key and its secret as the X-API-Key and X-API-Secret headers. The domain is the zone; a record has
no id of its own: the API knows it by its type, name and address, so its "id" in the ids file is its
address (':' written '-'). Saving a record of an address adds it (an identical one is kept, its TTL
set): a changed address is the old record deleted and the new one saved, its TTL the old one's.
Only records of the custom group are read; those of Spaceship's own features are left alone.
Spaceship has no resolution lines but holds several records of a name: a line's record is one of
them (SEVERAL).
API reference: https://docs.spaceship.dev/ (authentication, pagination, rate limits; DNS records:
list, save, delete), as Spaceship's official Go SDK (go-spaceship-sdk: client/dns.go,
client/domains.go) calls it
"""

from ddkit import Failure
from ddkit.ipcheck import same_ip
from ddkit.provider import (Record, Stale, declaration, listing, relative_name, safe_id, secret_setting,
                            url_setting, zone_by_name as choose_zone)

NAME = 'spaceship'
SUMMARY = 'Keep an A or AAAA record at Spaceship (DNS records API)'
API_PATH = '/api/v1'
SETTINGS = [
    secret_setting('api_key', 'API key from the Spaceship API Manager, with the dnsrecords:read and '
                   'dnsrecords:write permissions'),
    secret_setting('api_secret', 'the API key\'s secret'),
    url_setting('https://spaceship.dev', 'API base URL, scheme and host (a trailing /api/v1 is taken off: the tool '
                'adds it)', API_PATH),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True                           # no resolution lines: each line's address is a record of the name
TAKE = 100                               # records a page: what every reading of the documented limits allows
MAX_PAGES = 20                           # a zone listed past them is refused, not half read
ZONES_TAKE, ZONE_PAGES = 100, 20         # the domain list's largest page, and how many account_zones reads
TTL, TTL_MIN, TTL_MAX = 3600, 60, 3600   # a new record's TTL (the API's default), and the range it takes
CUSTOM = 'custom'                        # the group of the records made through the API; others are Spaceship's
KEY_FIX = ('api_key and api_secret must be a key and its secret from the Spaceship API Manager '
           '(https://www.spaceship.com/application/api-manager/), copied whole')
PERMISSION_FIX = ('the API key lacks a permission: give it dnsrecords:read and dnsrecords:write in the API '
                  'Manager (and domains:read for a record without zone_name)')
FIXES = {   # what to do about the API's answers users meet, by HTTP status (docs/providers.md)
    400: 'the request was refused as invalid (see the provider\'s details): check record_name and record_type',
    401: KEY_FIX,
    403: PERMISSION_FIX,
    404: 'zone_name must be a domain of this account whose DNS is at Spaceship (Spaceship\'s nameservers): '
         '"SOA record ... not found" says it is not',
    422: 'a record that cannot live beside this one holds the name (a CNAME, or one of a Spaceship feature '
         'such as URL redirect or email forwarding): remove it, or choose another record_name',
    429: 'too many requests (Spaceship allows 300 in 300 seconds for a domain\'s records): run less often',
}


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_key, cfg.api_secret


def login(job):
    """--check: the credentials are accepted when the record listing passes authentication (the
    listing the zone and record checks then use); a domain not at Spaceship is theirs to say."""
    try:
        list_zones(job)
    except Failure as e:
        if e.status in (401, 403) or e.status is None or e.status >= 500:
            raise
    return ' (API key and secret)'   # both secrets: no part of either is shown


def list_zones(job):
    """The domain is the zone: [zone_name] once its records could be listed (the listing find_record
    reads then, shared); a domain without Spaceship DNS is a Failure of 'find zone'."""
    records(job, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, for a record without zone_name (the key then needs domains:read):
    the domain list page by page, at most ZONE_PAGES pages, then a Failure: set zone_name.
    https://docs.spaceship.dev/ (Domains: GET /api/v1/domains?take=&skip=)"""
    from ddkit import rest

    def page(n):
        skip = n * ZONES_TAKE
        data = call(job, 'GET', '/domains?take=%d&skip=%d&orderBy=name' % (ZONES_TAKE, skip), 'find zone')
        items, total = listing(data, 'items', 'find zone'), data.get('total')
        more = bool(items) and isinstance(total, int) and not isinstance(total, bool) and skip + ZONES_TAKE < total
        return rest.domain_zones(d.get('name') for d in items), more
    return rest.listed_zones(page, ZONE_PAGES, '%d domains' % (ZONE_PAGES * ZONES_TAKE))


def relative(cfg):
    """The record's name as Spaceship names it: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def records(job, step, fresh=False):
    """The custom records of the zone, listed once a run (the records of a run share it), page by page.
    https://docs.spaceship.dev/ (DNS records: GET /api/v1/dns/records/{domain}?take=&skip=)"""
    cfg = job.cfg

    def fetch():
        found, skip = [], 0
        for _ in range(MAX_PAGES):
            data = call(job, 'GET', '/dns/records/%s?take=%d&skip=%d' % (cfg.zone_name, TAKE, skip), step, zone=True)
            items = listing(data, 'items', step)
            found += [item for item in items if ours(item)]
            skip += TAKE
            total = data.get('total')
            if not items or not isinstance(total, int) or isinstance(total, bool) or skip >= total:
                return found
        raise Failure.at(step, 'the zone has more than %d records: more than a run reads' % (MAX_PAGES * TAKE),
                         kind='unexpected')
    return job.shared(None if fresh else ('records', account(cfg), cfg.zone_name), fetch)


def ours(item):
    """True for a record the API manages (the custom group, or none named): not one of Spaceship's
    features (URL redirect, email), which only they change."""
    group = item.get('group')
    return group is None or isinstance(group, dict) and group.get('type') in (None, CUSTOM)


def named(item, cfg):
    """True when a listed record is of this name and type, with an address."""
    name = item.get('name')
    return item.get('type') == cfg.record_type and isinstance(name, str) \
        and name.rstrip('.').lower() in (relative(cfg), cfg.record_name) and record_id(item.get('address')) is not None


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of the job's line: one holding an address of its operator),
    or None; strict: a fresh listing."""
    from ddkit import rest
    found = rest.on_line([item for item in records(job, 'find record', fresh=strict) if named(item, job.cfg)],
                         job.line, 'address')
    return as_record(found[0]) if found else None


def as_record(item):
    return Record(record_id(item['address']), [item['address']], item)


def read_record(job, zone_id, record_id_text, held=False):
    """The record the stored ids name (its address), as the listing shows it now (an update sends
    its TTL back); Stale when the zone is another, or no record of this name and type holds it."""
    cfg = job.cfg
    address = address_of(record_id_text)
    if zone_id != cfg.zone_name or address is None:
        raise Stale()   # ids of another zone_name, or not an address
    for item in records(job, 'read record'):
        if named(item, cfg) and same_ip(str(item['address']), address):
            return as_record(item)
    raise Stale()


def item_of(cfg, ip, ttl=None):
    """One record as the API takes it to save or delete."""
    item = {'type': cfg.record_type, 'name': relative(cfg), 'address': ip}
    if ttl is not None:
        item['ttl'] = ttl
    return item


def create_record(job, zone_id, ip):
    """The new record's id (its address), saved with the API's default TTL; a domain gone is Stale.
    https://docs.spaceship.dev/ (DNS records: PUT /api/v1/dns/records/{domain})"""
    save(job, zone_id, item_of(job.cfg, ip, TTL), 'create record')
    return record_id(ip)


def update_record(job, zone_id, record, ip):
    """The record's new id (its new address). Records are known by their address, so the old one is
    deleted and the new one saved with the old one's TTL (what two clients of the API do); deleted
    first, so that a run cut short leaves no second record of the name. An address unchanged (a run
    with --force) is saved again: its TTL is kept.
    https://docs.spaceship.dev/ (DNS records: DELETE and PUT /api/v1/dns/records/{domain})"""
    ttl = record.raw.get('ttl')
    ttl = ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and TTL_MIN <= ttl <= TTL_MAX else None
    old = record.raw.get('address')
    if not (isinstance(old, str) and same_ip(old, ip)):
        delete(job, zone_id, record, 'update record')
    save(job, zone_id, item_of(job.cfg, ip, ttl), 'update record')
    return record_id(ip)


def delete_record(job, zone_id, record):
    """A line's record, its line without an address; one gone already (HTTP 404) is success.
    https://docs.spaceship.dev/ (DNS records: DELETE /api/v1/dns/records/{domain})"""
    delete(job, zone_id, record, 'delete record')


def save(job, zone_id, item, step):
    """Save one record (added, or an identical one's TTL set); HTTP 404, the domain gone, is Stale."""
    call(job, 'PUT', '/dns/records/%s' % zone_id, step, {'items': [item]}, stale=True)


def delete(job, zone_id, record, step):
    """Delete the record as it was listed (type, name, address); one gone already is done."""
    held = record.raw
    name = held.get('name') if isinstance(held.get('name'), str) else relative(job.cfg)
    address = held.get('address') if isinstance(held.get('address'), str) else address_of(record.id)
    try:
        call(job, 'DELETE', '/dns/records/%s' % zone_id, step,
             [{'type': job.cfg.record_type, 'name': name, 'address': address}], stale=True)
    except Stale:
        job.log.info('%s: the %s of %s was gone already.' % (step, NOUN, address))


def call(job, method, path, step, body=None, stale=False, zone=False):
    """One API call, its answer checked: the JSON object of a 2xx answer ({} for none). stale: a 404
    raises Stale (the domain or the record is gone), so the loop looks them up again; zone: a 404 is
    a domain without Spaceship DNS, a Failure of 'find zone'."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    headers = {'X-API-Key': cfg.api_key, 'X-API-Secret': cfg.api_secret}
    if body is not None:
        headers['Content-Type'] = 'application/json'
    answer = http.request(method, cfg.base_url + API_PATH + path, step, headers=headers, json_body=body,
                          timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=True)   # each sets what it sets
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=method != 'GET')   # 204: saved, deleted
    code = answer.headers.get('spaceship-error-code', '').strip()[:80] or None
    rest.refused(job, answer, step, said_of(rest.error_json(answer)), code, stale=stale,
                 zone='domain %s with Spaceship DNS' if zone else None)


def said_of(data):
    """An error answer's words: its detail, and each field's details ({"detail", "data": [{"field",
    "details"}]})."""
    parts = [str(data['detail'])[:200]] if isinstance(data.get('detail'), str) and data['detail'] else []
    for item in listing(data, 'data', 'error') if isinstance(data.get('data'), list) else []:
        field, details = item.get('field'), item.get('details')
        if isinstance(details, str) and details:
            parts.append(('%s: %s' % (field, details) if isinstance(field, str) and field else details)[:200])
    return '; '.join(parts[:4])


def record_id(address):
    """A record's id in the ids file: its address, each ':' written '-' (safe in a file and a URL),
    or None when it is no address (any address: a record may hold a private one)."""
    from ddkit import decimal
    from ddkit.ipcheck import ipv6
    if not isinstance(address, str) or len(address) > 64:
        return None
    parts = address.split('.')
    v4 = len(parts) == 4 and all(decimal(p) is not None and len(p) <= 3 and int(p) <= 255 for p in parts)
    return safe_id(address.replace(':', '-')) if v4 or ':' in address and ipv6(address) else None


def address_of(record_id_text):
    """The address an id of the ids file stands for, or None."""
    address = record_id_text.replace('-', ':')
    return address if record_id(address) else None
