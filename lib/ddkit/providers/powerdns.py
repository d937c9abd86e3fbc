"""PowerDNS Authoritative (its HTTP API, RRsets): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `powerdns`. The API is the user's own
server's (its webserver, api=yes in pdns.conf), reached at base_url; every call carries the server's
API key as X-API-Key, and names the one server id an Authoritative server has, localhost. A zone is
named by its name (the server's zone id is the name with its trailing dot); the record is the RRset
of its name and type, read with the zone (narrowed to that RRset by rrset_name and rrset_type: a
server that does not narrow answers the whole zone, and the RRset is picked from it). A PATCH of the
zone with changetype REPLACE sets the whole RRset, creating it when missing: it sends the RRset's
own TTL back (a new one gets NEW_TTL), and the RRset's comments, which it does not send, stay. A
record without lines is the RRset holding one address; with `lines` each line's address is one
record of the RRset (SEVERAL), known again by its address (kept in the ids file) or by its
operator's prefix.
API reference: https://doc.powerdns.com/authoritative/http-api/zone.html,
https://doc.powerdns.com/authoritative/http-api/server.html, https://doc.powerdns.com/authoritative/http-api/index.html
"""

from ddkit import Failure, rrset
from ddkit.provider import (RRsetSession, declaration, listing, number, secret_setting, url_setting,
                            zone_by_name as choose_zone)

NAME = 'powerdns'
SUMMARY = 'Keep an A or AAAA record at a PowerDNS server (its HTTP API)'
API_PATH = '/api/v1'
SERVER = '/servers/localhost'   # the one server id of an Authoritative server
SETTINGS = [secret_setting('api_key', 'the API key of the PowerDNS server (api-key= in its pdns.conf), sent as '
                           'X-API-Key'),
            url_setting(None, 'the PowerDNS server\'s webserver, scheme, host and port (webserver-address and '
                        'webserver-port of its pdns.conf, e.g. http://192.0.2.53:8081; a trailing /api/v1 is taken '
                        'off: the tool adds it)', API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True    # no resolution lines; an RRset holds several addresses: each line's is one of them
NEW_TTL = 300     # a new RRset's TTL; an update sends the RRset's own
MAX_TTL = 2 ** 31 - 1
RECURSOR_FIX = 'base_url must be the webserver of the Authoritative server that holds the zone, not a Recursor\'s'
KEY_FIX = 'api_key must be the api-key of this PowerDNS server (pdns.conf), copied whole'
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    400: 'the server could not read the request (a bug: ddkit sends JSON): report it to the ddkit project',
    401: KEY_FIX,
    403: 'the server\'s webserver does not take requests from this host: add its address to webserver-allow-from '
         'in pdns.conf',
    404: 'zone_name must be a zone of this PowerDNS server (pdnsutil list-all-zones lists them), as a name '
         '(e.g. example.com)',
    422: 'the server refused the RRset (its words say why): record_name must be a name inside zone_name, and no '
         'CNAME may be at that name',
}


Session = RRsetSession


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_key


def login(job):
    """--check: the API key is accepted when the server describes itself (a read call); a server that
    is no Authoritative one (a Recursor's API) is a Failure.
    https://doc.powerdns.com/authoritative/http-api/server.html"""
    data = call(job, 'GET', '', 'login')
    kind, version = data.get('daemon_type'), data.get('version')
    if kind != 'authoritative':
        raise Failure.at('login', 'the server at base_url is no PowerDNS Authoritative server (daemon_type %s); %s' % (
            str(kind)[:40], RECURSOR_FIX), kind='unexpected', fix=RECURSOR_FIX)
    shown = version if isinstance(version, str) and len(version) <= 40 and version.isprintable() else 'unknown'
    return ' (API key; PowerDNS Authoritative %s)' % shown


def list_zones(job):
    """[the zone named zone_name], found among the server's zones by that name (the listing narrowed to
    it by zone=); none is a Failure.
    https://doc.powerdns.com/authoritative/http-api/zone.html#get--servers-server_id-zones"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'GET', '/zones?zone=%s.' % cfg.zone_name, 'find zone', listed=True)
    if cfg.zone_name not in [z.name for z in rest.domain_zones(z.get('name') for z in data)]:
        raise Failure.at('find zone', 'no zone %s on this PowerDNS server; %s' % (cfg.zone_name, FIXES[404]),
                         kind='not found', fix=FIXES[404])
    return [cfg.zone_name]


def account_zones(job):
    """Every zone of the server (one listing: the API has no pages).
    https://doc.powerdns.com/authoritative/http-api/zone.html#get--servers-server_id-zones"""
    from ddkit import rest
    return rest.domain_zones(z.get('name') for z in call(job, 'GET', '/zones', 'find zone', listed=True))


def zone_path(zone):
    """The zone's endpoint: its id is its name with the root's dot."""
    return '/zones/%s.' % zone


# The record is an RRset (ddkit.rest): its entries are records ({"content", "disabled"}), and a PATCH
# REPLACE sets the whole RRset, so an update sends back all it holds, and its TTL.

def get_rrset(job, zone_id, step):
    """The RRset of the record's name and type, or None; the zone gone is Stale, except while it is
    being found (then it is the zone not on the server).
    https://doc.powerdns.com/authoritative/http-api/zone.html#get--servers-server_id-zones-zone_id"""
    cfg = job.cfg
    data = call(job, 'GET', '%s?rrset_name=%s.&rrset_type=%s' % (zone_path(zone_id), cfg.record_name, cfg.record_type),
                step, stale=step != 'find record', zone=step == 'find record')
    found = [r for r in listing(data, 'rrsets', step) if is_rrset(r, cfg)]
    return found[0] if found else None


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and rrset.get('type') == cfg.record_type \
        and str(rrset.get('name', '')).lower().rstrip('.') == cfg.record_name


def entries(rrset, step):
    """The RRset's records as a PATCH sends them back: content and disabled each."""
    return [{'content': r['content'], 'disabled': r.get('disabled') is True}
            for r in listing(rrset or {}, 'records', step) if isinstance(r.get('content'), str)]


def address(record):
    return record['content']


def entry(ip, like=None):
    """A record of ip; like's disabled kept."""
    return dict(like, content=ip) if like else {'content': ip, 'disabled': False}


def write_rrset(job, zone_id, found, records, step):
    """PATCH the zone: the RRset REPLACEd by these records with its TTL as read (a new one: NEW_TTL),
    or DELETEd when there are none; its comments stay (none are sent).
    https://doc.powerdns.com/authoritative/http-api/zone.html#patch--servers-server_id-zones-zone_id"""
    cfg = job.cfg
    rrset = {'name': cfg.record_name + '.', 'type': cfg.record_type, 'changetype': 'REPLACE' if records else 'DELETE'}
    if records:
        ttl = number((found or {}).get('ttl'))
        rrset.update(ttl=ttl if ttl and ttl <= MAX_TTL else NEW_TTL, records=records)
    call(job, 'PATCH', zone_path(zone_id), step, {'rrsets': [rrset]}, stale=True)


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records()


def call(job, method, path, step, data=None, stale=False, zone=False, listed=False):
    """One API call with the key, to the server's path; its JSON answer ({} when it has none: 204;
    listed: a list, its objects). stale: HTTP 404 raises Stale (the zone is gone: the loop looks
    again); zone: HTTP 404 is the zone that is not on the server."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + SERVER + path, step, json_body=data, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'X-API-Key': cfg.api_key})
    if 200 <= answer.status < 300:
        found = rest.json_of(answer, step, empty=not listed, kind=list if listed else dict)
        return [z for z in found if isinstance(z, dict)] if listed else found
    rest.refused(job, answer, step, error_of(answer), stale=stale, zone='zone %s' if zone else None)


def error_of(answer):
    """The API's words in an error answer ({"error": ...}), or None (its text is shown then)."""
    from ddkit import rest
    said = rest.error_json(answer).get('error')
    return str(said)[:200] if isinstance(said, str) else None
