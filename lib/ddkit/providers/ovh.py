"""OVHcloud (API 1.0, /domain/zone): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `ovh`. Every call carries the application
key, the consumer key and OVH's signature: "$1$" and the SHA-1 of the application secret, the consumer
key, the method, the full URL, the body as sent and the timestamp, joined by "+"; the timestamp is
the API's own clock (GET /auth/time, once a run, its difference to this host's clock added), so a
router whose clock is off still signs in time. A zone is named by its domain; a record is one value
(OVH keeps one record per address: several of a name are several records), found by its subdomain
and type. A change is not published until the zone is refreshed (POST .../refresh): each write is
followed by one, and a refresh that failed (a state file says so) is sent by the next run that reads
the zone.
API reference: https://eu.api.ovh.com/console/ (/domain/zone, /auth/time),
https://help.ovhcloud.com/csm/en-gb-api-getting-started-ovhcloud-api (the signature, the consumer key)
"""

from ddkit import Failure
from ddkit.provider import (Record, Stale, declaration, number, relative_name, safe_id, secret_setting,
                            zone_by_name as choose_zone)
from ddkit.settings import Setting, check_header

NAME = 'ovh'
SUMMARY = 'Keep an A or AAAA record at OVHcloud (API 1.0, signed)'
API_PATH = '/1.0'
ENDPOINTS = {'ovh-eu': 'https://eu.api.ovh.com', 'ovh-ca': 'https://ca.api.ovh.com',
             'ovh-us': 'https://api.us.ovhcloud.com'}   # python-ovh's names of the endpoints


def check_endpoint(value):
    """base_url: one of python-ovh's endpoint names (ovh-eu, ovh-ca, ovh-us: its URL), or a base URL."""
    from ddkit.settings import api_base_url
    return ENDPOINTS.get(value.lower()) or api_base_url(API_PATH)(value)


SETTINGS = [
    Setting('application_key', help='the application key (AK) of an application created for ddkit '
            '(https://eu.api.ovh.com/createApp/, or ca.api.ovh.com, api.us.ovhcloud.com)', check=check_header),
    secret_setting('application_secret', 'its application secret (AS)'),
    secret_setting('consumer_key', 'a consumer key (CK) of that application, validated by the account\'s owner, '
                   'with access rules to the zone\'s records'),
    Setting('base_url', ENDPOINTS['ovh-eu'], help='the API endpoint: ovh-eu (%s), ovh-ca (%s), ovh-us (%s), or '
            'another base URL, scheme and host (a trailing /1.0 is taken off)' % tuple(ENDPOINTS.values()),
            check=check_endpoint, label='API endpoint'),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, refresh_file='refresh')
MOST = 20             # records of a name and type read at most: the first of them is the record
RULES = ('GET /domain/zone, GET /domain/zone/<zone>/*, POST /domain/zone/<zone>/record, PUT '
         '/domain/zone/<zone>/record/*, POST /domain/zone/<zone>/refresh')
FIXES = {   # what to do about the API's error codes users meet (docs/providers.md)
    'INVALID_KEY': 'application_key is no application key of this endpoint (base_url: ovh-eu, ovh-ca or ovh-us, '
                   'where the application was created)',
    'INVALID_CREDENTIAL': 'consumer_key is unknown, expired or not validated yet: open the validation URL its '
                          'request gave, or request a new one with the access rules ' + RULES,
    'NOT_CREDENTIAL': 'consumer_key is unknown, expired or not validated yet: request a new one with the access '
                      'rules ' + RULES,
    'NOT_GRANTED_CALL': 'the consumer key\'s access rules lack this call: request one with the rules ' + RULES,
    'INVALID_SIGNATURE': 'application_secret is not the secret of application_key: copy both from the same '
                         'application',
    'QUERY_TIME_OUT': 'the request reached OVH too late (a slow link, or a clock that jumped): the next run '
                      'tries again',
    'Client::NotFound': 'zone_name must be a DNS zone of this OVH account (the domain, e.g. example.com)',
    'Client::BadRequest': 'OVH refused a value of the request: check record_name and record_type',
    'Client::Forbidden': 'the account may not change this zone: check zone_name and the consumer key\'s account',
}


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.application_key, cfg.consumer_key


def login(job):
    """--check: the keys are accepted when the account's zones are listed (a read call, which the zone
    lookup then takes). https://eu.api.ovh.com/console/ (GET /domain/zone)"""
    zone_names(job)
    return ' (application key %s and a consumer key)' % job.cfg.application_key


def zone_names(job):
    """The account's DNS zones, once a run: [name]."""
    cfg = job.cfg
    names = job.shared(('zones', account(cfg)), lambda: call(job, 'GET', '/domain/zone', 'find zone', kind=list))
    return [str(name).lower().rstrip('.') for name in names if isinstance(name, str)]


def list_zones(job):
    """[zone_name] when it is one of the account's zones, else a Failure."""
    if job.cfg.zone_name not in zone_names(job):
        fix = FIXES['Client::NotFound']
        raise Failure.at('find zone', 'no DNS zone %s in this account; %s' % (job.cfg.zone_name, fix),
                         kind='not found', fix=fix)
    return [job.cfg.zone_name]


def account_zones(job):
    """Every DNS zone of the account: the zone a record without zone_name belongs to is the longest
    that record_name ends with."""
    from ddkit import rest
    return rest.domain_zones(zone_names(job))


def sub_domain(cfg):
    """The record's subDomain: record_name without the zone ('' for the zone itself)."""
    return relative_name(cfg, '')


def find_record(job, zone_id, strict=False):
    """The record of this name and type (the first, where several are), or None: the ids of the
    name's records of the type, then each record.
    https://eu.api.ovh.com/console/ (GET /domain/zone/{zoneName}/record, .../record/{id})"""
    cfg = job.cfg
    owed(job, 'find record')
    query = {'fieldType': cfg.record_type, 'subDomain': sub_domain(cfg)}
    ids = call(job, 'GET', '/domain/zone/%s/record' % zone_id, 'find record', query=query, kind=list, zone=True)
    for rid in [safe_id(rid) for rid in ids][:MOST]:
        found = rid and record_of(job, call(job, 'GET', '/domain/zone/%s/record/%s' % (zone_id, rid), 'find record',
                                            missing=True) or {})
        if found:
            return found
    return None


def record_of(job, data):
    """The Record of an answer's record when it is of this name and type, else None."""
    cfg = job.cfg
    if safe_id(data.get('id')) and str(data.get('subDomain', '')).lower() == sub_domain(cfg) \
            and data.get('fieldType') == cfg.record_type and isinstance(data.get('target'), str):
        return Record(safe_id(data['id']), [data['target']], data)
    return None


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, read; Stale when it is gone or no longer this name's.
    https://eu.api.ovh.com/console/ (GET /domain/zone/{zoneName}/record/{id})"""
    owed(job, 'read record')
    found = record_of(job, call(job, 'GET', '/domain/zone/%s/record/%s' % (zone_id, record_id), 'read record',
                                stale=True))
    if found is None:
        raise Stale()   # ids of another record: find ours again
    return found


def create_record(job, zone_id, ip):
    """The new record's id: made with the zone's default TTL (0), then the zone refreshed.
    https://eu.api.ovh.com/console/ (POST /domain/zone/{zoneName}/record)"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'POST', '/domain/zone/%s/record' % zone_id, 'create record', {
        'fieldType': cfg.record_type, 'subDomain': sub_domain(cfg), 'target': ip, 'ttl': 0}, stale=True)
    refresh(job, zone_id, 'create record')
    return rest.new_id(safe_id(data.get('id')), 'create record')


def update_record(job, zone_id, record, ip):
    """The record's target set (a PUT keeps the fields it does not send: the TTL), then the zone
    refreshed. https://eu.api.ovh.com/console/ (PUT /domain/zone/{zoneName}/record/{id})"""
    call(job, 'PUT', '/domain/zone/%s/record/%s' % (zone_id, record.id), 'update record', {'target': ip},
         stale=True, kind=(dict, type(None)))
    refresh(job, zone_id, 'update record')
    return record.id


# --- the zone's refresh: a change is published only by it ------------------------------------------

def refresh(job, zone_id, step):
    """The zone refreshed: its servers get what changed. One that fails is owed: a state file says so,
    and the next run that reads the zone sends it (the record already holds the address then, so no
    write of that run would).
    https://eu.api.ovh.com/console/ (POST /domain/zone/{zoneName}/refresh)"""
    try:
        call(job, 'POST', '/domain/zone/%s/refresh' % zone_id, step, kind=(dict, type(None)), repeatable=True)
    except Failure:
        job.log.info('%s: the change is made, but not published until the zone is refreshed: the next run '
                     'refreshes it.' % step)
        job.save(job.files['refresh_file'], [zone_id], cache=True)
        raise
    job.discard(job.files['refresh_file'])


def owed(job, step):
    """The refresh a failed run left owed, sent before the zone is read (not by --check or a dry run:
    they change nothing)."""
    from ddkit import state
    if job.cfg.dry_run:
        return
    zone = safe_id((state.read_lines(job.files['refresh_file']) or [''])[0])
    if zone:
        job.log.info('%s: the zone %s owes a refresh (a change of an earlier run); sending it.' % (step, zone))
        refresh(job, zone, step)


# --- one signed call ------------------------------------------------------------------------------

def server_time(job, step):
    """The API's clock less this host's, in seconds: asked once a run (GET /auth/time, unsigned).
    https://eu.api.ovh.com/console/ (GET /auth/time)"""
    import time
    from ddkit import http

    def ask():
        answer = http.request('GET', job.cfg.base_url + API_PATH + '/auth/time', step, timeout=job.cfg.timeout,
                              ca_file=job.cfg.ca_file)
        said = number(answer.text.strip()) if answer.status == 200 and len(answer.body) <= 20 else None
        if said is None:
            # no time of the API's: its failure, or no OVH API at base_url
            failure = Failure if answer.status >= 500 else http.NotJson
            raise failure.at(step, 'unexpected answer to the time request (HTTP %d): %s' % (
                answer.status, http.snippet(answer.text)), url=answer.where, status=answer.status,
                kind='server error' if answer.status >= 500 else 'not json')
        return said - int(time.time())
    return job.run.shared(('server time', job.cfg.base_url), ask)


def compact(body):
    """A JSON object of strings and numbers as python-ovh writes one: no spaces (the signature covers
    the bytes sent)."""
    from ddkit import jsontext
    return '{%s}' % ','.join('%s:%s' % (jsontext.dumps(k), jsontext.dumps(v)) for k, v in body.items())


def signature(secret, consumer_key, method, url, body, timestamp):
    """OVH's signature of a request: "$1$" and the SHA-1 of these, joined by "+".
    https://help.ovhcloud.com/csm/en-gb-api-getting-started-ovhcloud-api"""
    import hashlib
    return '$1$' + hashlib.sha1('+'.join((secret, consumer_key, method, url, body, str(timestamp)))
                                .encode('utf-8')).hexdigest()


def call(job, method, path, step, body=None, query=None, stale=False, zone=False, missing=False, kind=dict,
         repeatable=None):
    """One signed API call; its JSON answer, of kind. An error answer is a Failure of step with the
    API's code (errorCode, or its class) and message and the fix; stale: HTTP 404 raises Stale (the
    record or the zone is gone: the loop looks again); zone: HTTP 404 is the zone the account lacks;
    missing: HTTP 404 gives None (a record listed, deleted since)."""
    import time
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    from ddkit.provider import canonical_query
    cfg = job.cfg
    url = cfg.base_url + API_PATH + path + ('?' + canonical_query(query) if query else '')
    payload = compact(body) if body is not None else ''
    timestamp = int(time.time()) + server_time(job, step)
    headers = {'X-Ovh-Application': cfg.application_key, 'X-Ovh-Consumer': cfg.consumer_key,
               'X-Ovh-Timestamp': str(timestamp),
               'X-Ovh-Signature': signature(cfg.application_secret, cfg.consumer_key, method, url, payload, timestamp)}
    if payload:
        headers['Content-Type'] = 'application/json'
    answer = http.request(method, url, step, headers=headers, data=payload.encode('utf-8') or None,
                          timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=repeatable)
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, kind=kind)
    data = rest.error_json(answer)
    code = data.get('errorCode') or data.get('class')
    code = str(code)[:80] if isinstance(code, str) and code else None
    message = str(data['message'])[:300] if isinstance(data.get('message'), str) else None
    job.log.error('%s: HTTP %d, error %s: %s' % (step, answer.status, code, message))
    if answer.status == 404 and (stale or missing):
        if missing:
            return None
        raise Stale()
    raise rest.code_refused(job, answer, step, code, message, zone='DNS zone %s' if answer.status == 404 and zone
                            else None)
