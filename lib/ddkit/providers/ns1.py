"""NS1 (IBM NS1 Connect, API v1): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `ns1`. Every call carries an API key as
`X-NSONE-Key`. A zone is named by its name; the record of a name and type is read and written at
/v1/zones/<zone>/<full name>/<type>, and holds answers (one address each, with its own meta), its
TTL, filters and the rest: a PUT there makes it, a POST changes what it sends (the answers alone: its
TTL and all else stay). The record is thus an RRset (ddkit.rest): without lines the record holding
the one address; with `lines` each line's address is one answer of it (SEVERAL), known by its
address or its operator's prefix.
API reference: https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/ (zones; records: GET,
PUT, POST and DELETE of /v1/zones/{zone}/{domain}/{type}), and the SDK ns1-python's ns1/rest/records.py,
zones.py, errors.py
"""

from ddkit import rrset
from ddkit.provider import RRsetSession, declaration, listing, secret_setting, url_setting, zone_by_name as choose_zone

NAME = 'ns1'
SUMMARY = 'Keep an A or AAAA record at NS1 (IBM NS1 Connect, API v1)'
API_PATH = '/v1'
SETTINGS = [secret_setting('api_key', 'an NS1 API key (Account settings, Users & teams, API keys) with the DNS '
                           'permissions View zones and Manage records'),
            url_setting('https://api.nsone.net', api_path=API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True                               # no resolution lines: each line's address is an answer of the record
KEPT = (('meta', dict), ('region', str))     # what an answer keeps besides its address when sent back
PERMISSIONS = 'the DNS permissions View zones and Manage records (for this zone)'
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    400: 'the record was refused (see the message): check record_name (a name inside zone_name) and record_type',
    401: 'api_key is not a valid NS1 API key (deleted, or not copied whole): create a key with ' + PERMISSIONS,
    403: 'the API key lacks a permission this needs: give it ' + PERMISSIONS,
    404: 'zone_name must be a zone of this NS1 account (the zone as the Zones page lists it, e.g. example.com)',
    429: 'too many requests (NS1 limits each key\'s requests by the X-RateLimit headers): run less often',
}


Session = RRsetSession


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_key


def login(job):
    """--check: the key is accepted when the account's zones can be listed (a read call).
    https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/ (GET /v1/zones)"""
    call(job, 'GET', '/zones', 'login', listed=True)
    return ' (API key)'


def list_zones(job):
    """[the zone named zone_name], read once a run; a zone the account lacks is a Failure.
    https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/ (GET /v1/zones/{zone})"""
    from ddkit import rest
    cfg = job.cfg
    return rest.zone_read(job.shared(('zone', account(cfg), cfg.zone_name), lambda: call(
        job, 'GET', '/zones/%s' % cfg.zone_name, 'find zone', zone=True)), cfg, key='zone')


def account_zones(job):
    """Every zone of the account, for a record without zone_name (one listing).
    https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/ (GET /v1/zones)"""
    from ddkit import rest
    return rest.domain_zones(z.get('zone') for z in call(job, 'GET', '/zones', 'find zone', listed=True))


def record_path(zone, cfg):
    return '/zones/%s/%s/%s' % (zone, cfg.record_name, cfg.record_type)


# The record is an RRset (ddkit.rest): its entries are its answers, each an address with its meta,
# and a POST changes what it sends, so an update sends the answers alone (read first: their meta).

def get_rrset(job, zone_id, step):
    """The record of the name and type, or None.
    https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/ (GET /v1/zones/{zone}/{domain}/{type})"""
    return call(job, 'GET', record_path(zone_id, job.cfg), step, missing=True)


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and rrset.get('type', cfg.record_type) == cfg.record_type \
        and str(rrset.get('domain', cfg.record_name)).lower().rstrip('.') == cfg.record_name


def entries(rrset, step):
    """The record's answers as a POST sends them back: the address, its meta and region."""
    kept = []
    for answer in listing(rrset or {}, 'answers', step):
        if isinstance(answer.get('answer'), list) and answer['answer']:
            kept.append(dict({k: answer[k] for k, kind in KEPT if isinstance(answer.get(k), kind)},
                             answer=answer['answer']))
    return kept


def address(answer):
    """An answer's address: its first field."""
    return answer['answer'][0] if isinstance(answer['answer'][0], str) else None


def entry(ip, like=None):
    """An answer of ip; like's meta and region kept."""
    return dict(like, answer=[ip]) if like else {'answer': [ip]}


def write_rrset(job, zone_id, found, answers, step):
    """The record set to hold these answers: a POST of the answers alone (its TTL and the rest stay);
    none found: a PUT that makes it (its TTL the zone's; one made meanwhile is updated instead); no
    answers: it is deleted (gone already is success).
    https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/ (PUT, POST, DELETE of
    /v1/zones/{zone}/{domain}/{type})"""
    from ddkit import rest
    cfg, path = job.cfg, record_path(zone_id, job.cfg)
    if not answers:
        call(job, 'DELETE', path, step, missing=True)
    elif found is None:
        made = {'zone': zone_id, 'domain': cfg.record_name, 'type': cfg.record_type, 'answers': answers}
        rest.created(job, zone_id, lambda: call(job, 'PUT', path, step, made, stale=True),
                     lambda failure: failure.status == 400)
    else:
        call(job, 'POST', path, step, {'answers': answers}, stale=True)


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records()


def call(job, method, path, step, body=None, stale=False, missing=False, zone=False, listed=False):
    """One API call with the key; the JSON of a 2xx answer ({} for none; listed: the objects of a
    JSON array). stale: HTTP 404 raises Stale (the record or zone is gone: the loop looks again);
    missing: HTTP 404 gives None (no such record); zone: HTTP 404 is the zone that is not this
    account's."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'X-NSONE-Key': cfg.api_key}, repeatable=method != 'PUT')
    if 200 <= answer.status < 300:
        data = rest.json_of(answer, step, empty=not listed, kind=list if listed else dict)
        return [item for item in data if isinstance(item, dict)] if listed else data
    if answer.status == 404 and missing:
        return None
    said = rest.error_json(answer).get('message')
    said = str(said)[:200] if isinstance(said, str) and said else None
    rest.refused(job, answer, step, said, stale=stale, zone='zone %s' if zone else None)
