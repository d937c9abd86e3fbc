"""Gandi LiveDNS (API v5, RRsets): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `gandi`. Every call carries a personal
access token as `Authorization: Bearer` (the older `Apikey` is deprecated). A domain is named by its
name; the record is the RRset of its name and type (/v5/livedns/domains/<domain>/records/<name>/
<type>, the name relative, `@` the apex): a PUT there makes or replaces the whole RRset, and without
its TTL the RRset falls to Gandi's default (10800), so an update sends back the TTL read. A record
without lines is the RRset holding one address; with `lines` each line's address is one value of the
RRset (SEVERAL), known by its address or its operator's prefix.
API reference: https://api.gandi.net/docs/livedns/ (domains; records: GET, PUT and DELETE of
/livedns/domains/{fqdn}/records/{rrset_name}/{rrset_type}), https://api.gandi.net/docs/authentication/
(personal access tokens)
"""

from ddkit import rrset
from ddkit.provider import (RRsetSession, declaration, number, relative_name, token_account, token_settings,
                            zone_by_name as choose_zone)

NAME = 'gandi'
SUMMARY = 'Keep an A or AAAA record at Gandi LiveDNS (API v5, RRsets)'
API_PATH = '/v5/livedns'
SETTINGS = token_settings('a Gandi personal access token (Account, Authentication options), restricted to the '
                          'domain, with the right to manage its technical configuration', 'https://api.gandi.net',
                          api_path=API_PATH)
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True                     # no resolution lines; an RRset holds several addresses: each line's is one
NEW_TTL = 300                      # a new RRset's TTL: Gandi's shortest (its default, 10800, is long for a DDNS name)
TTL_MIN, TTL_MAX = 300, 2592000    # a TTL read back outside these is not sent back
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    401: 'api_token is not a valid Gandi personal access token (expired, deleted, or not copied whole; an API '
         'key is not one): create a token under Account, Authentication options',
    403: 'the token may not change this domain: give it the domain (or all domains) and the right "Manage domain '
         'name technical configurations"',
    404: 'zone_name must be a domain of this Gandi account using LiveDNS (the domain as Gandi lists it, e.g. '
         'example.com)',
    409: 'the RRset changed at Gandi meanwhile: the next run reads it again',
    429: 'too many requests: run less often',
}


Session = RRsetSession


account = token_account


def login(job):
    """--check: the token is accepted when the domains it may use can be listed (a read call).
    https://api.gandi.net/docs/livedns/#get-v5-livedns-domains"""
    call(job, 'GET', '/domains', 'login', listed=True)
    return ' (personal access token)'


def list_zones(job):
    """[the domain named zone_name], read once a run; a domain the account lacks (or that is not at
    LiveDNS) is a Failure. https://api.gandi.net/docs/livedns/#get-v5-livedns-domains-fqdn"""
    from ddkit import rest
    cfg = job.cfg
    return rest.zone_read(job.shared(('zone', account(cfg), cfg.zone_name), lambda: call(
        job, 'GET', '/domains/%s' % cfg.zone_name, 'find zone', zone=True)), cfg, 'domain', key='fqdn')


def account_zones(job):
    """Every domain at LiveDNS the token may use, for a record without zone_name (one listing).
    https://api.gandi.net/docs/livedns/#get-v5-livedns-domains"""
    from ddkit import rest
    return rest.domain_zones(d.get('fqdn') for d in call(job, 'GET', '/domains', 'find zone', listed=True))


def rrset_path(zone, cfg):
    return '/domains/%s/records/%s/%s' % (zone, relative_name(cfg, '@'), cfg.record_type)


# The record is an RRset (ddkit.rest): its entries are its values (addresses), and a PUT replaces
# the whole RRset, so an update sends back the TTL it read.

def get_rrset(job, zone_id, step):
    """The RRset of the record's name and type, or None.
    https://api.gandi.net/docs/livedns/#get-v5-livedns-domains-fqdn-records-rrset_name-rrset_type"""
    return call(job, 'GET', rrset_path(zone_id, job.cfg), step, missing=True)


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and rrset.get('rrset_type', cfg.record_type) == cfg.record_type \
        and isinstance(rrset.get('rrset_values', []), list)


def entries(rrset, step):
    """The addresses an RRset holds."""
    return [v for v in (rrset or {}).get('rrset_values', []) if isinstance(v, str)]


def address(held):
    return held


def entry(ip, like=None):
    return ip


def write_rrset(job, zone_id, found, values, step):
    """PUT the RRset with these values and its TTL as read (a new one: NEW_TTL): it makes or replaces
    the whole RRset; no values: it is deleted (gone already is success).
    https://api.gandi.net/docs/livedns/#put-v5-livedns-domains-fqdn-records-rrset_name-rrset_type,
    https://api.gandi.net/docs/livedns/#delete-v5-livedns-domains-fqdn-records-rrset_name-rrset_type"""
    path = rrset_path(zone_id, job.cfg)
    if not values:
        call(job, 'DELETE', path, step, missing=True)
        return
    ttl = number((found or {}).get('rrset_ttl'))
    call(job, 'PUT', path, step, {'rrset_values': values, 'rrset_ttl': ttl if ttl and TTL_MIN <= ttl <= TTL_MAX
                                  else NEW_TTL}, zone=True)


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records()


def call(job, method, path, step, body=None, missing=False, zone=False, listed=False):
    """One API call with the token; the JSON of a 2xx answer ({} for none; listed: the objects of a
    JSON array). missing: HTTP 404 gives None (no such RRset); zone: HTTP 404 is the domain that is
    not this account's."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'Bearer ' + cfg.api_token})
    if 200 <= answer.status < 300:
        data = rest.json_of(answer, step, empty=not listed, kind=list if listed else dict)
        return [item for item in data if isinstance(item, dict)] if listed else data
    if answer.status == 404 and missing:
        return None
    data = rest.error_json(answer)
    said = '; '.join(str(data[k])[:200] for k in ('message', 'cause') if isinstance(data.get(k), str) and data[k])
    rest.refused(job, answer, step, said or None, zone='domain %s' if zone else None)
