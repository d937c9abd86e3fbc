"""Volcengine TrafficRoute DNS (云解析 DNS, OpenAPI version 2018-08-01): keep one A or AAAA record
equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `volcengine`. Every call is a POST of a JSON
body to base_url with Action and Version in the query, as the official SDK sends them, signed
HMAC-SHA256 (credential scope <date>/cn-beijing/dns/request) with the AccessKey pair: the secret itself
is never sent. A zone is found by its name (ListZones), a record by its host ('@' for the apex) and
type on the `default` line. A record with lines holds each line's address as a record of its own on
the default line (SEVERAL), told apart by its remark: the operator lines' values are not documented
where they could be checked, so no record is made on one.
API reference: https://www.volcengine.com/docs/6758/155104 (CreateRecord; its siblings: the other actions),
https://docs.byteplus.com/en/docs/byteplus-dns-suite/reference-listrecords (the same API, in English, and
its siblings), https://www.volcengine.com/docs/6469/1126804 (signature),
https://docs.byteplus.com/en/docs/byteplus-dns-suite/reference-handling-the-response (DNS error codes),
https://www.volcengine.com/docs/6408/78947 (common error codes)
"""

import time

from ddkit import Failure, decimal
from ddkit.provider import (PAGE, Exists, Record, Stale, Zone, declaration, host_header, key_pair, listing,
                            relative_name, safe_id, url_setting, whole_zone)

NAME = 'volcengine'
SUMMARY = 'Keep an A or AAAA record at Volcengine TrafficRoute DNS'
SETTINGS = key_pair('access_key_id', 'Access Key ID of an IAM user allowed to change the zone\'s records',
                    'secret_access_key', 'its Secret Access Key') + [
    url_setting('https://open.volcengineapi.com', 'OpenAPI endpoint (scheme and host)')]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
VERSION = '2018-08-01'
SERVICE, REGION = 'dns', 'cn-beijing'   # the credential scope the official SDKs sign DNS requests with
ALGORITHM = 'HMAC-SHA256'
DEFAULT_LINE = 'default'                 # the one line value the reference documents
SEVERAL = True                           # each line's address is a record of the name on the default line
LINE_REMARK = 'ddkit line %s'            # the remark a line's record is made with: how it is found again
NAME_PAGE = 100                          # records of one name on every line: a few (the API allows 500)
TTL_MAX = 604800                         # a longer ttl read back is no answer of the API's: not sent
WEIGHT_MAX = 10000
REMARK_MAX = 255                         # the API's longest remark
ID_MAX = 2 ** 63                         # a zone's ZID is an integer
ZONE_GONE = {'ErrZoneNotFound'}
RECORD_GONE = {'ErrDBNotFound'}          # also: a delete's record gone already
DUPLICATE = 'ErrDBDuplicated'            # a record of this host, type, line and value exists already
PERMISSION = ('grant the IAM user TrafficRoute DNS access: a policy allowing dns:ListZones, dns:ListRecords, '
              'dns:QueryRecord, dns:CreateRecord, dns:UpdateRecord and (records with lines) dns:DeleteRecord')
CLOCK = 'this host\'s clock is off, or the signature expired (15 minutes): set the time (NTP)'
FIXES = {   # what to do about the API's error codes users meet (docs/providers.md)
    'InvalidAccessKey': 'access_key_id is no Access Key ID of Volcengine (a deleted key is unknown too): '
                        'check it, or create a new key in the IAM console',
    'SignatureDoesNotMatch': 'secret_access_key is not the secret of access_key_id: copy both from the same '
                             'access key',
    'MissingAuthenticationToken': 'set access_key_id and secret_access_key',
    'InvalidTimestamp': CLOCK,
    'InvalidActionOrVersion': 'check base_url: the OpenAPI endpoint alone, e.g. https://open.volcengineapi.com',
    'LackPolicy': PERMISSION,
    'AccessDenied': PERMISSION,
    'ErrZoneNotFound': 'check zone_name (the domain as listed in TrafficRoute DNS, e.g. example.com) and that '
                       'the key belongs to its account',
    'ErrDBNotFound': 'the record is gone at the provider: the ids are looked up again and the record created',
    'ErrDBDuplicated': 'a record of this name already holds the address: remove the duplicate in the console',
    'ErrParamInvalid': 'check record_name (a name inside zone_name) and record_type (A or AAAA)',
    'ErrHostCanNotBeEmpty': 'check record_name: a name inside zone_name',
    'ErrSpecNotValid': 'the zone\'s edition does not allow this record (its count, TTL or weight): upgrade the '
                       'edition, or remove other records',
    'AccountFlowLimitExceeded': 'too many requests: run at most every few minutes',
}


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.access_key_id, cfg.secret_access_key


def login(job):
    """--check: the credentials are accepted when the zone listing (a read call, the one the zone
    check then uses) is answered."""
    list_zones(job)
    return ' (Access Key ID %s)' % job.cfg.access_key_id


def list_zones(job):
    """The zones ListZones answers for zone_name matched exactly.
    API: https://docs.byteplus.com/en/docs/byteplus-dns-suite/reference-listzones"""
    cfg = job.cfg
    body = {'Key': cfg.zone_name, 'SearchMode': 'exact', 'PageNumber': 1, 'PageSize': NAME_PAGE}
    return job.shared(('zones', account(cfg), cfg.zone_name), lambda: [
        z for z in listing(call(job, 'ListZones', body, 'find zone'), 'Zones', 'find zone') if zone_id(z)])


def choose_zone(job, zones):
    """The zone named exactly zone_name."""
    want = job.cfg.zone_name
    exact = [z for z in zones if zone_name(z) == want]
    if not exact:
        fix = FIXES['ErrZoneNotFound']
        raise Failure.at('find zone', 'no zone named %s in this account; %s' % (want, fix), kind='not found',
                         fix=fix)
    return Zone(zone_id(exact[0]), want)


def account_zones(job):
    """Every zone the credentials see, all pages (bounded as provider.whole_zone bounds a listing):
    for a record without zone_name, the zone it ends with.
    API: https://docs.byteplus.com/en/docs/byteplus-dns-suite/reference-listzones"""
    def page_of(page):
        data = call(job, 'ListZones', {'PageNumber': page, 'PageSize': PAGE}, 'find zone')
        return listing(data, 'Zones', 'find zone'), pages(data.get('Total'))
    found = job.shared(('account zones', account(job.cfg)), lambda: whole_zone(page_of))
    if found is None:
        raise Failure.at('find zone', 'the account has too many zones to list; set zone_name', kind='unexpected',
                         fix='set zone_name')
    return [Zone(zone_id(z), zone_name(z)) for z in found if zone_id(z) and zone_name(z)]


def zone_id(zone):
    """A zone's ZID as text: a positive integer (not a bool), else None."""
    value = zone.get('ZID')
    return str(value) if isinstance(value, int) and not isinstance(value, bool) and 0 < value < ID_MAX else None


def zone_name(zone):
    return str(zone.get('ZoneName') or '').lower().rstrip('.')


def pages(total):
    """The number of pages of PAGE items a total is, or None when the answer gave none."""
    return -(-total // PAGE) if isinstance(total, int) and not isinstance(total, bool) and total >= 0 else None


def host(cfg):
    """The record's Host: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def find_record(job, zone_id_text, strict=False):
    """The record of this name and type on the default line (of a line: the one made for it), or
    None; strict: a fresh listing (a create was refused because the record exists)."""
    return first(records(job, zone_id_text, 'find record', fresh=strict), job.cfg, job.line)


def records(job, zone_id_text, step, fresh=False):
    """The records listed for this name: its type alone for a lone record; both families when the run
    has several records or lines (the whole zone, unless it is large), each job taking its own from
    the one listing.
    API: https://docs.byteplus.com/en/docs/byteplus-dns-suite/reference-listrecords"""
    from ddkit import rest
    cfg = job.cfg
    zid = number(zone_id_text)
    if zid is None:
        raise Stale()
    listed = rest.zone_listing(job, zone_id_text, lambda: whole_zone(lambda page: zone_page(job, zid, page, step)),
                               fresh)
    if listed is not None:
        return listed
    body = {'ZID': zid, 'Host': host(cfg), 'SearchMode': 'exact', 'PageNumber': 1, 'PageSize': NAME_PAGE}
    if not job.run.several:
        body['Type'] = cfg.record_type
    key = None if fresh else ('records', account(cfg), zone_id_text, body['Host'], body.get('Type'))
    return job.shared(key, lambda: listing(call(job, 'ListRecords', body, step), 'Records', step))


def zone_page(job, zid, page, step):
    """(records, number of pages) of one page of the zone's listing."""
    data = call(job, 'ListRecords', {'ZID': zid, 'PageNumber': page, 'PageSize': PAGE}, step)
    return listing(data, 'Records', step), pages(data.get('TotalCount'))


def first(found, cfg, line=None):
    """The first listed record of this name and type on the default line, or None; of a line: the
    one made for it (its remark), else one that holds an address of the line's operator and was made
    for no other line."""
    from ddkit import rest
    name = host(cfg)
    found = rest.on_line([r for r in found if safe_id(r.get('RecordID')) and str(r.get('Host', '')).lower() == name
                          and r.get('Type') == cfg.record_type and r.get('Line', DEFAULT_LINE) == DEFAULT_LINE],
                         line, 'Value', 'Remark', LINE_REMARK)
    return as_record(found[0]) if found else None


def as_record(found):
    return Record(safe_id(found['RecordID']), [found.get('Value')], found)


def read_record(job, zone_id_text, record_id, held=False):
    """The record the stored ids name, as the API holds it now (held or not): an update sends back
    its TTL, weight and remark; Stale when it is gone or is another name's.
    API: https://docs.byteplus.com/en/docs/byteplus-dns-suite/reference-queryrecord"""
    cfg = job.cfg
    if number(zone_id_text) is None:
        raise Stale()   # not a ZID: ids of another provider
    data = call(job, 'QueryRecord', {'RecordID': record_id}, 'read record', stale=True)
    named = str(data.get('PQDN') or data.get('FQDN') or cfg.record_name).lower().rstrip('.')
    if safe_id(data.get('RecordID')) != record_id or named != cfg.record_name \
            or first([data], cfg, job.line) is None:
        raise Stale()   # ids of another record: find ours again
    return as_record(data)


def create_record(job, zone_id_text, ip):
    """The new record's id: on the default line, with the API's default TTL (600); a line's record
    carries its remark.
    API: https://www.volcengine.com/docs/6758/155104 (CreateRecord)"""
    cfg = job.cfg
    zid = number(zone_id_text)
    if zid is None:
        raise Stale()
    body = {'ZID': zid, 'Host': host(cfg), 'Type': cfg.record_type, 'Value': ip, 'Line': DEFAULT_LINE}
    if job.line:
        body['Remark'] = LINE_REMARK % job.line
    data = call(job, 'CreateRecord', body, 'create record', stale=True, exists=True)
    return record_id_of(data, 'create record')


def update_record(job, zone_id_text, record, ip):
    """The record's id: its value set, its line, TTL, weight and remark sent back as read (what is
    not sent would be the API's default).
    API: https://docs.byteplus.com/en/docs/byteplus-dns-suite/reference-updaterecord"""
    cfg, held = job.cfg, record.raw
    body = {'RecordID': record.id, 'Host': host(cfg), 'Line': DEFAULT_LINE, 'Type': cfg.record_type, 'Value': ip}
    for key, top in (('TTL', TTL_MAX), ('Weight', WEIGHT_MAX)):
        value = held.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top and (value or key != 'TTL'):
            body[key] = value
    if isinstance(held.get('Remark'), str) and len(held['Remark']) <= REMARK_MAX:
        body['Remark'] = held['Remark']
    data = call(job, 'UpdateRecord', body, 'update record', stale=True)
    return record_id_of(data, 'update record', known=record.id)


def delete_record(job, zone_id_text, record):
    """A line's record deleted, its line without an address; one gone already is success (None).
    API: https://docs.byteplus.com/en/docs/byteplus-dns-suite/reference-deleterecord"""
    call(job, 'DeleteRecord', {'RecordID': record.id}, 'delete record', gone=RECORD_GONE)


def number(text):
    """A ZID from the ids file or a zone's id, as the API takes it (an integer), or None."""
    value = decimal(text) if len(text or '') <= 19 else None
    return value if value and value < ID_MAX else None


def record_id_of(data, step, known=None):
    """The record id in an answer; an update that says success without one keeps the known id."""
    from ddkit import rest
    return rest.new_id(safe_id(data.get('RecordID')), step, known)


def canonical(params):
    """A query in canonical form, sorted by name, each name and value percent-encoded (RFC 3986's
    unreserved characters stay): what is signed, and what is sent."""
    from ddkit.urls import quote
    return '&'.join('%s=%s' % (quote(k), quote(v)) for k, v in sorted(params.items()))


def sign(key_id, secret, method, host_value, path, query, payload, timestamp):
    """The headers of one request signed HMAC-SHA256: Content-Type, X-Date, X-Content-Sha256 and the
    Authorization over them, the Host header and the body, as the official SDK's SignerV4 signs.
    https://www.volcengine.com/docs/6469/1126804"""
    import hashlib
    import hmac
    date = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(timestamp))
    digest = hashlib.sha256(payload).hexdigest()
    headers = {'Content-Type': 'application/json', 'X-Content-Sha256': digest, 'X-Date': date}
    signed = dict((k.lower(), v) for k, v in headers.items())
    signed['host'] = host_value
    names = sorted(signed)
    text = '\n'.join((method, path, query, ''.join('%s:%s\n' % (k, signed[k]) for k in names), ';'.join(names),
                      digest))
    scope = '%s/%s/%s/request' % (date[:8], REGION, SERVICE)
    to_sign = '\n'.join((ALGORITHM, date, scope, hashlib.sha256(text.encode('utf-8')).hexdigest()))
    key = secret.encode('utf-8')
    for part in (date[:8], REGION, SERVICE, 'request'):
        key = hmac.new(key, part.encode('utf-8'), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode('utf-8'), hashlib.sha256).hexdigest()
    headers['Authorization'] = '%s Credential=%s/%s, SignedHeaders=%s, Signature=%s' % (
        ALGORITHM, key_id, scope, ';'.join(names), signature)
    return headers


def call(job, action, body, step, stale=False, exists=False, gone=()):
    """One signed API call; its Result, checked. stale: an answer that the zone or the record is gone
    raises Stale, so the loop looks the ids up again; exists: a duplicate raises Exists; an error code
    in gone (a delete's record gone already) gives None; a zone the account does not have is a
    Failure of 'find zone'; any other error a Failure of step."""
    from ddkit import http, jsontext, rest  # only on a request: a run that sends none loads none of it
    from ddkit.urls import split_url
    cfg, log = job.cfg, job.log
    query = canonical({'Action': action, 'Version': VERSION})
    url = cfg.base_url + '/?' + query
    payload = jsontext.dumps(body).encode('utf-8')
    headers = sign(cfg.access_key_id, cfg.secret_access_key, 'POST', host_header(url),
                   '/' + split_url(cfg.base_url + '/')[3], query, payload, time.time())
    # a read, an update or a delete may be sent again; a create only when surely unsent
    answer = http.request('POST', url, step, headers=headers, data=payload, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, repeatable=action != 'CreateRecord')
    answer.nonempty()
    data = answer.json()
    meta = data.get('ResponseMetadata') if isinstance(data, dict) else None
    if not isinstance(meta, dict):
        raise Failure.at(step, 'unexpected answer (HTTP %d): %s' % (answer.status, http.snippet(answer.text)),
                         url=answer.where, status=answer.status,
                         kind='server error' if answer.status >= 500 else 'unexpected')
    error = meta.get('Error')
    if error is None and answer.status < 300:
        result = data.get('Result')
        return result if isinstance(result, dict) else {}
    error = error if isinstance(error, dict) else {}
    code = str(error['Code'])[:80] if isinstance(error.get('Code'), (str, int)) and error['Code'] != '' else None
    message = str(error['Message'])[:300] if isinstance(error.get('Message'), (str, int)) else None
    if code in gone:
        log.info('%s: %s (%s): gone already.' % (step, code, message))
        return None
    if code:
        log.error('%s: error %s: %s' % (step, code, message))
    if exists and code == DUPLICATE:
        raise Exists()
    if stale and code in ZONE_GONE | RECORD_GONE:
        raise Stale()
    raise rest.code_refused(job, answer, step, code, message, zone='zone %s' if code in ZONE_GONE else None,
                            server=('InternalError',))
