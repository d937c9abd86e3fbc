"""GoDaddy (Domains API v1): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `godaddy`. Every call carries the API key
and its secret as `Authorization: sso-key <key>:<secret>`. A domain registered at GoDaddy is the
zone (no sub-zones); the records of a name and type are read and written together at
/v1/domains/<domain>/records/<type>/<name> (the name relative, `@` the apex): a PUT there replaces
all of them, so it makes the record as it changes it, and sends back the TTL read. The record is
thus an RRset (ddkit.rest): without lines the records of its name and type are the one address;
with `lines` each line's address is one of them (SEVERAL), known by its address or its operator's
prefix. Since 2024 GoDaddy refuses its production Domains API to smaller accounts (HTTP 403).
API reference: https://developer.godaddy.com/doc/endpoint/domains (records: GET, PUT and DELETE of
/v1/domains/{domain}/records/{type}/{name}; GET /v1/domains), https://developer.godaddy.com/getstarted
(keys, the sso-key header, rate limits)
"""

from ddkit import rrset
from ddkit.provider import (RRsetSession, declaration, key_pair, number, relative_name, url_setting,
                            zone_by_name as choose_zone)

NAME = 'godaddy'
SUMMARY = 'Keep an A or AAAA record at GoDaddy (Domains API v1)'
API_PATH = '/v1'
SETTINGS = key_pair('api_key', 'a GoDaddy API key (developer.godaddy.com, API Keys: a Production key)',
                    'api_secret', 'the secret of that API key', label='API key') + [
    url_setting('https://api.godaddy.com', 'API base URL, scheme and host (https://api.ote-godaddy.com is the '
                'test environment; a trailing /v1 is taken off: the tool adds it)', API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True                       # no resolution lines: each line's address is a record of the name
NEW_TTL = 600                        # a new record's TTL: GoDaddy's minimum (its default is not documented)
TTL_MIN, TTL_MAX = 600, 2 ** 31 - 1  # a TTL read back outside these is not sent back
ZONES_PAGE, ZONE_PAGES = 1000, 10    # domains a page of the account's listing, and pages read at most
KEY_FIX = ('api_key and api_secret must be a Production API key of the account that owns the domain and its '
           'secret (developer.godaddy.com, API Keys; an OTE key works only with https://api.ote-godaddy.com)')
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    401: KEY_FIX,
    403: 'GoDaddy refused this key the Domains API: since 2024 it does so for accounts with fewer than 10 domains '
         'or without a Discount Domain Club plan (move the domain\'s DNS to another provider then); else ' + KEY_FIX,
    404: 'zone_name must be a domain registered in this GoDaddy account and using GoDaddy\'s DNS (the domain '
         'itself, e.g. example.com: GoDaddy has no sub-zones)',
    422: 'the record was refused (see the fields): check record_name and record_type, and that the TTL is at '
         'least 600',
    429: 'too many requests (GoDaddy allows 60 a minute for each endpoint): run less often',
}


Session = RRsetSession


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_key, cfg.api_secret


def login(job):
    """--check: the key is accepted when the account's domains can be listed (a read call).
    https://developer.godaddy.com/doc/endpoint/domains#/v1/list"""
    call(job, 'GET', '/domains?limit=1', 'login', listed=True)
    return ' (API key and secret)'


def list_zones(job):
    """The domain is the zone: [zone_name] once the records of the record's name and type could be
    read in it (the read find_record takes then, shared); a domain the account lacks is a Failure."""
    from ddkit import rest
    rest.read_rrset(job, job.cfg.zone_name, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, page by page (the next after the last one listed; at most
    ZONE_PAGES pages, then a Failure asking for zone_name).
    https://developer.godaddy.com/doc/endpoint/domains#/v1/list"""
    from ddkit import rest
    last = ['']

    def page(n):
        found = call(job, 'GET', '/domains?limit=%d%s' % (ZONES_PAGE, '&marker=' + last[0] if last[0] else ''),
                     'find zone', listed=True)
        zones = rest.domain_zones(d.get('domain') for d in found)
        last[0] = zones[-1].name if zones else ''
        return zones, len(found) >= ZONES_PAGE and bool(zones)
    return rest.listed_zones(page, ZONE_PAGES, '%d domains' % (ZONES_PAGE * ZONE_PAGES))


def records_path(zone, cfg):
    return '/domains/%s/records/%s/%s' % (zone, cfg.record_type, relative_name(cfg, '@'))


# The record is an RRset (ddkit.rest): its entries are the records of the name and type, each an
# address and its TTL, and a PUT replaces them all, so an update sends back the TTL it read.

def get_rrset(job, zone_id, step):
    """The records of the record's name and type, or None when there are none.
    https://developer.godaddy.com/doc/endpoint/domains#/v1/recordGet"""
    found = call(job, 'GET', records_path(zone_id, job.cfg), step, listed=True, zone=True)
    return found or None


def is_rrset(rrset, cfg):
    return isinstance(rrset, list) and all(r.get('type', cfg.record_type) == cfg.record_type for r in rrset)


def entries(rrset, step):
    """The records as a PUT sends them back: each address with its TTL."""
    return [{'data': r['data'], 'ttl': r.get('ttl')} for r in rrset or () if isinstance(r.get('data'), str)]


def address(entry):
    return entry['data']


def entry(ip, like=None):
    """A record of ip; like's TTL kept."""
    return dict(like, data=ip) if like else {'data': ip}


def write_rrset(job, zone_id, found, records, step):
    """PUT the name's records of the type: these, each with its TTL as read (one without: the first
    one's, else NEW_TTL); none: they are deleted (gone already is success).
    https://developer.godaddy.com/doc/endpoint/domains#/v1/recordReplaceTypeName,
    https://developer.godaddy.com/doc/endpoint/domains#/v1/recordDeleteTypeName"""
    path = records_path(zone_id, job.cfg)
    if not records:
        call(job, 'DELETE', path, step, missing=True)
        return
    ttls = [ttl(r.get('ttl')) for r in records if ttl(r.get('ttl'))]
    sent = [{'data': r['data'], 'ttl': ttl(r.get('ttl')) or (ttls[0] if ttls else NEW_TTL)} for r in records]
    call(job, 'PUT', path, step, sent, zone=True)


def ttl(value):
    """A TTL read back that the API takes, else None."""
    found = number(value)
    return found if found is not None and TTL_MIN <= found <= TTL_MAX else None


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records()


def call(job, method, path, step, body=None, listed=False, zone=False, missing=False):
    """One API call with the key; the JSON of a 2xx answer ({} for one without a body; listed: the
    objects of a JSON array). zone: HTTP 404 is the domain that is not this account's (or has no
    zone at GoDaddy); missing: HTTP 404 is nothing there (a delete's records gone already)."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'sso-key %s:%s' % (cfg.api_key,
                                                                                           cfg.api_secret)})
    if 200 <= answer.status < 300:
        data = rest.json_of(answer, step, empty=not listed, kind=list if listed else dict)
        return [item for item in data if isinstance(item, dict)] if listed else data
    if answer.status == 404 and missing:
        return None
    code, said = error_of(answer)
    rest.refused(job, answer, step, said, code, zone='domain %s' if zone else None)


def error_of(answer):
    """(code, words) of an error answer: {"code", "message", "fields": [{"path", "message"}]}; (None,
    None) for any other."""
    from ddkit import rest
    data = rest.error_json(answer)
    code = str(data['code'])[:80] if isinstance(data.get('code'), str) and data['code'] else None
    parts = [str(data['message'])[:200]] if isinstance(data.get('message'), str) and data['message'] else []
    fields = data.get('fields') if isinstance(data.get('fields'), list) else []
    parts += [('%s: %s' % (f.get('path'), f.get('message')))[:200] for f in fields[:4] if isinstance(f, dict)]
    return code, '; '.join(parts) or None
