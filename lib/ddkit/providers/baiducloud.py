"""Baidu AI Cloud DNS (百度智能云 云解析 DNS, API v1): keep one A or AAAA record equal to this host's
public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `baiducloud`. Every request is signed
bce-auth-v1 with the AccessKey pair (the secret itself is never sent). A zone is named by its domain
(the paths carry it); a record is its host (`rr`: record_name without the zone, '@' for the apex) and
type, on its job's resolution line (LINES; the default line for a record without lines). Creates,
updates and deletes carry a clientToken, so one sent again makes no second record; the API's codes
for a record that is gone or already there are not documented, so after a refused write the tool
looks at the records instead of reading the code.
API reference: https://intl.cloud.baidu.com/en/doc/DNS/s/El4s7lssr-intl-en (records and their lines),
https://intl.cloud.baidu.com/en/doc/DNS/s/lkk5elv58-intl-en (common headers, error responses),
https://cloud.baidu.com/doc/DNS/s/Skk5e9in2 (general description, clientToken),
https://cloud.baidu.com/doc/Reference/s/njwvz1yfu (bce-auth-v1 signing)
"""

import time

from ddkit import Failure
from ddkit.native import os
from ddkit.provider import (PAGE, PAGES, Record, Stale, Zone, declaration, host_header, key_pair, listing,
                            relative_name, safe_id, url_setting, zone_by_name as choose_zone)

NAME = 'baiducloud'
SUMMARY = 'Keep an A or AAAA record at Baidu AI Cloud DNS (API v1)'
API_PATH = '/v1/dns'
SETTINGS = key_pair('access_key_id', 'Access Key ID of an IAM user allowed to change the zone\'s records',
                    'secret_access_key', 'its Secret Access Key') + [
    url_setting('https://dns.baidubce.com', 'DNS API endpoint (scheme and host)', API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
EXPIRES = 1800                           # seconds a signature is valid (what the official SDK signs with)
SIGNED_HEADERS = 'host;x-bce-date'
# each operator line's line value for the basic and discount editions ("Add resolution record": ct,
# cmnet, cnc); a job without a line is on the default line
LINES = {'default': 'default', 'ct': 'ct', 'cm': 'cmnet', 'cu': 'cnc'}
NAME_PAGE = 100                          # records of one host on every line: a few (the API allows 1000)
TTL_MAX = 86400                          # a longer ttl read back is no answer of the API's: not sent
DESCRIPTION_MAX = 255
DENIED = (401, 403)                      # a write refused for the credentials: no record to look at
CREATED = 'created'                      # the record id kept for a create that answered none
PERMISSION = ('grant the IAM user DNS management (the DNS service\'s full-control system policy, or a custom '
              'policy allowing the zone\'s records to be read and written)')
FIXES = {   # what to do about the API's error codes users meet (docs/providers.md)
    'InvalidAccessKeyId': 'access_key_id is no Access Key ID of Baidu AI Cloud (a deleted key is unknown too): '
                          'check it, or create a new key (Security Authentication, Access Key)',
    'SignatureDoesNotMatch': 'secret_access_key is not the secret of access_key_id: copy both from the same '
                             'access key',
    'InvalidHTTPAuthHeader': 'the API could not read the Authorization header: check access_key_id (as the '
                             'console shows it) and that base_url is the DNS API\'s, https://dns.baidubce.com',
    'RequestExpired': 'this host\'s clock is off: set the time (NTP)',
    'AccessDenied': PERMISSION,
    'QualifyNotPass': 'the account has not passed real-name verification: complete it in the console',
    'NoSuchObject': 'check zone_name (the domain as listed in the DNS console, e.g. example.com) and record_name',
    'InappropriateJSON': 'the API could not read the request (usually transient): the next run retries',
    'InvalidHTTPRequest': 'the API could not read the request (usually transient): the next run retries',
    'InternalError': 'a fault at Baidu AI Cloud (usually transient): the next run retries',
}


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.access_key_id, cfg.secret_access_key


def login(job):
    """--check: the credentials are accepted when the zone listing (a read call) is answered."""
    zones_named(job)
    return ' (Access Key ID %s)' % job.cfg.access_key_id


def list_zones(job):
    """[zone_name] once the listing of the record's name in it is answered (the request find_record
    reads then): the API names a zone by its domain, so no zone call is made. A refused listing is
    explained by the account's zones: a zone it does not have is a Failure of its own."""
    cfg = job.cfg
    try:
        records(job, cfg.zone_name, 'find zone')
    except Failure as e:
        if not about_record(e) or any(zone_name(z) == cfg.zone_name for z in zones_named(job)):
            raise
        fix = 'check zone_name (the domain as listed in the DNS console, e.g. example.com) and that the key ' \
              'belongs to its account'
        raise Failure.at('find zone', 'no zone named %s in this account; %s' % (cfg.zone_name, fix), kind='not found',
                         fix=fix, url=e.url, status=e.status, code=e.code, provider_message=e.provider_message)
    return [cfg.zone_name]


def zones_named(job):
    """The zones the zone listing answers for zone_name (it matches names loosely), page by page until
    zone_name is among them.
    API: https://intl.cloud.baidu.com/en/doc/DNS/s/El4s7lssr-intl-en (Domain Name Related Interfaces:
    GET /v1/dns/zone)"""
    cfg = job.cfg
    return job.shared(('zones', account(cfg), cfg.zone_name), lambda: pages(
        job, '/zone', {'name': cfg.zone_name}, 'zones', 'find zone', until=lambda zones: any(
            zone_name(z) == cfg.zone_name for z in zones)) or [])


def account_zones(job):
    """Every zone the credentials see, all pages (bounded as provider.whole_zone bounds a listing): for
    a record without zone_name, the zone it ends with.
    API: https://intl.cloud.baidu.com/en/doc/DNS/s/El4s7lssr-intl-en (GET /v1/dns/zone)"""
    found = job.shared(('account zones', account(job.cfg)), lambda: pages(job, '/zone', {}, 'zones', 'find zone'))
    if found is None:
        raise Failure.at('find zone', 'the account has too many zones to list; set zone_name', kind='unexpected',
                         fix='set zone_name')
    return [Zone(zone_name(z), zone_name(z)) for z in found if safe_id(zone_name(z))]


def zone_name(zone):
    return str(zone.get('name') or '').lower().rstrip('.')


def pages(job, path, query, key, step, until=None, size=None):
    """The items under key of every page (of size items, PAGE by default) of a listing (marker,
    maxKeys, isTruncated, nextMarker); None when there are more than PAGES pages; until(items): stop
    once it is true."""
    found, marker = [], None
    for _ in range(PAGES):
        asked = dict(query, maxKeys=str(size or PAGE))
        if marker:
            asked['marker'] = marker
        data = call(job, 'GET', path, step, asked)
        found += listing(data, key, step)
        marker = data.get('nextMarker')
        if data.get('isTruncated') is not True or not isinstance(marker, str) or not marker \
                or (until and until(found)):
            return found
    return None


def host(cfg):
    """The record's rr: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def line_of(job):
    """The line value of the job's record."""
    return LINES[job.line or 'default']


def find_record(job, zone_id, strict=False):
    """The record of this name and type on the job's line, or None; strict: a fresh listing (a create
    was refused because the record exists)."""
    return first(records(job, zone_id, 'find record', fresh=strict), job)


def records(job, zone_id, step, fresh=False):
    """The records of this host, every line and type: listed once a run for every family and line of
    the name; when the run has several records, the whole zone once (unless it is large). The
    listing has no type or line filter.
    API: https://intl.cloud.baidu.com/en/doc/DNS/s/El4s7lssr-intl-en (GET /v1/dns/zone/{zoneName}/record)"""
    from ddkit import rest
    cfg = job.cfg
    path = '/zone/%s/record' % zone_id
    listed = rest.zone_listing(job, zone_id, lambda: pages(job, path, {}, 'records', step), fresh)
    if listed is not None:
        return listed

    def fetch():
        found = pages(job, path, {'rr': host(cfg)}, 'records', step, size=NAME_PAGE)
        if found is None:
            raise Failure.at(step, 'the listing of %s has too many pages' % host(cfg), kind='unexpected')
        return found
    return job.shared(None if fresh else ('records', account(cfg), zone_id, host(cfg)), fetch)


def first(found, job, record_id=None):
    """The first listed record of this name and type on the job's line (of this id), or None."""
    cfg, line, name = job.cfg, line_of(job), host(job.cfg)
    for r in found:
        if safe_id(r.get('id')) and str(r.get('rr', '')).lower() == name and r.get('type') == cfg.record_type \
                and r.get('line', 'default') == line and (record_id is None or str(r['id']) == record_id):
            return Record(safe_id(r['id']), [r.get('value')], r)
    return None


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, as the API holds it now (held or not): an update sends back its
    ttl and description; Stale when it is gone or is no longer this name's on the job's line. A
    record whose create answered no id (CREATED) is read by its name, and its id then kept.
    API: https://intl.cloud.baidu.com/en/doc/DNS/s/El4s7lssr-intl-en (GET ...record?id=)"""
    if zone_id != job.cfg.zone_name:
        raise Stale()   # ids of another zone_name: find ours again
    if record_id == CREATED:
        found = first(records(job, zone_id, 'read record'), job)
    else:
        found = first(by_id(job, zone_id, record_id, 'read record'), job, record_id)
    if found is None:
        raise Stale()
    return found


def by_id(job, zone_id, record_id, step):
    """The records the listing answers for a record id (the filter's exactness aside)."""
    return listing(call(job, 'GET', '/zone/%s/record' % zone_id, step, {'id': record_id}), 'records', step)


def about_record(failure):
    """True when a refused write may be about the record (not refused for the credentials)."""
    return failure.kind == 'refused' and failure.status not in DENIED


def gone(job, zone_id, record_id, step):
    """True when the zone holds no record of this id any more (asked after a refused write)."""
    return not any(str(r.get('id')) == record_id for r in by_id(job, zone_id, record_id, step))


def create_record(job, zone_id, ip):
    """The new record's id, on the job's line with the zone's default ttl; the answer may carry none
    (the official Go SDK reads none): then CREATED, and the next read finds the record by its name. A
    refused create whose record exists after all (made meanwhile) raises Exists.
    API: https://intl.cloud.baidu.com/en/doc/DNS/s/El4s7lssr-intl-en (Add resolution record)"""
    from ddkit import rest
    cfg = job.cfg
    body = {'rr': host(cfg), 'type': cfg.record_type, 'value': ip, 'line': line_of(job)}
    data = rest.created(job, zone_id, lambda: call(job, 'POST', '/zone/%s/record' % zone_id, 'create record',
                                                   {'clientToken': token()}, body), about_record)
    return safe_id(data.get('id')) or CREATED


def update_record(job, zone_id, record, ip):
    """The record's id: its value set, its ttl and description sent back as read (the line is not
    sent: an update keeps it). A refused update of a record that is gone raises Stale.
    API: https://intl.cloud.baidu.com/en/doc/DNS/s/El4s7lssr-intl-en (Modify resolution record)"""
    cfg, held = job.cfg, record.raw
    body = {'rr': host(cfg), 'type': cfg.record_type, 'value': ip}
    ttl = held.get('ttl')
    if isinstance(ttl, int) and not isinstance(ttl, bool) and 0 < ttl <= TTL_MAX:
        body['ttl'] = ttl
    if isinstance(held.get('description'), str) and held['description'] \
            and len(held['description']) <= DESCRIPTION_MAX:
        body['description'] = held['description']
    try:
        call(job, 'PUT', '/zone/%s/record/%s' % (zone_id, record.id), 'update record', {'clientToken': token()}, body)
    except Failure as e:
        if not about_record(e) or not gone(job, zone_id, record.id, 'update record'):
            raise
        job.log.info('update record: the %s is gone (%s).' % (NOUN, e.code))
        raise Stale()
    return record.id


def delete_record(job, zone_id, record):
    """Delete the record (record.id); one already gone is success (None).
    API: https://intl.cloud.baidu.com/en/doc/DNS/s/El4s7lssr-intl-en (Delete resolution record)"""
    try:
        call(job, 'DELETE', '/zone/%s/record/%s' % (zone_id, record.id), 'delete record', {'clientToken': token()})
    except Failure as e:
        if not about_record(e) or not gone(job, zone_id, record.id, 'delete record'):
            raise
        job.log.info('delete record: gone already (%s).' % e.code)
    return None


def token():
    """A clientToken: the same write sent again (after a lost answer) makes no second change."""
    return os.urandom(16).hex()


def quote(text, keep=''):
    """text percent-encoded as bce-auth-v1 encodes it: every byte but RFC 3986's unreserved characters
    (and those of keep) as %XX in upper-case hex."""
    from ddkit import UNRESERVED
    return ''.join(chr(b) if chr(b) in UNRESERVED or chr(b) in keep else '%%%02X' % b for b in text.encode('utf-8'))


def canonical_query(params):
    """The query in canonical form, sorted: what is signed, and what is sent."""
    return '&'.join(sorted('%s=%s' % (quote(k), quote(v)) for k, v in params.items()))


def sign(key_id, secret, method, host_value, path, query, timestamp):
    """The headers of one request signed bce-auth-v1: x-bce-date and the Authorization over the method,
    the path, the canonical query, the Host and x-bce-date headers (the body is not signed), as the
    official SDK's bce_v1_signer signs.
    https://cloud.baidu.com/doc/Reference/s/njwvz1yfu"""
    import hashlib
    import hmac
    when = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(timestamp))
    prefix = 'bce-auth-v1/%s/%s/%d' % (key_id, when, EXPIRES)
    key = hmac.new(secret.encode('utf-8'), prefix.encode('utf-8'), hashlib.sha256).hexdigest()
    text = '\n'.join((method, quote(path, '/'), query, 'host:%s\nx-bce-date:%s' % (quote(host_value), quote(when))))
    signature = hmac.new(key.encode('utf-8'), text.encode('utf-8'), hashlib.sha256).hexdigest()
    return {'x-bce-date': when, 'Authorization': '%s/%s/%s' % (prefix, SIGNED_HEADERS, signature)}


def call(job, method, path, step, query=None, body=None):
    """One signed API call; its JSON answer ({} for an empty one), checked. An error answer is a
    Failure of step with the provider's code and message, and its fix."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    from ddkit.urls import split_url
    cfg, log = job.cfg, job.log
    base = cfg.base_url + API_PATH + path
    target = '/' + split_url(base)[3]
    canonical = canonical_query(query or {})
    url = base + ('?' + canonical if canonical else '')
    headers = sign(cfg.access_key_id, cfg.secret_access_key, method, host_header(url), target, canonical, time.time())
    headers['Content-Type'] = 'application/json; charset=utf-8'
    payload = None
    if body is not None:
        from ddkit import jsontext
        payload = jsontext.dumps(body).encode('utf-8')
    # every write carries a clientToken, so any request may be sent again
    answer = http.request(method, url, step, headers=headers, data=payload, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, repeatable=True)
    data = answer.json() if answer.body.strip() else {}
    if answer.status < 300:
        if not isinstance(data, dict):
            raise Failure.at(step, 'unexpected answer (HTTP %d): %s' % (answer.status, http.snippet(answer.text)),
                             url=answer.where, status=answer.status, kind='unexpected')
        return data
    data = data if isinstance(data, dict) else {}
    code = str(data['code'])[:80] if isinstance(data.get('code'), (str, int)) and data['code'] != '' else None
    message = str(data['message'])[:300] if isinstance(data.get('message'), (str, int)) else None
    log.error('%s: error %s: %s' % (step, code, message))
    raise rest.code_refused(job, answer, step, code, message)
