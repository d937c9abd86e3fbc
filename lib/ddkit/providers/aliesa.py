"""Alibaba Cloud ESA (Edge Security Acceleration, API version 2024-09-10): keep one A or AAAA record of
a site's DNS records equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `aliesa`. Every request is an RPC-style
call, its parameters in the query (ddkit.provider.canonical_query), signed ACS3-HMAC-SHA256 with the
AccessKey pair: the secret itself is never sent. The zone is an ESA site (its SiteId), found by its
name; a record is its full name and the one type ESA has for addresses, `A/AAAA`: an IPv4 and an
IPv6 record of a name are told apart by their value alone. ESA records have no resolution lines.
API reference: https://www.alibabacloud.com/help/en/edge-security-acceleration/esa/api-esa-2024-09-10-listrecords,
https://www.alibabacloud.com/help/en/edge-security-acceleration/esa/api-esa-2024-09-10-createrecord,
https://www.alibabacloud.com/help/en/edge-security-acceleration/esa/api-esa-2024-09-10-getrecord,
https://help.aliyun.com/zh/edge-security-acceleration/esa/api-esa-2024-09-10-updaterecord,
https://help.aliyun.com/zh/edge-security-acceleration/esa/api-esa-2024-09-10-listsites,
https://www.alibabacloud.com/help/en/sdk/product-overview/v3-request-structure-and-signature (signature)
"""

import time

from ddkit import Failure
from ddkit.native import os
from ddkit.provider import (ALIBABA_NONCE_USED, Record, Stale, alibaba_fixes, canonical_query, declaration,
                            host_header, key_pair, listing, safe_id, site_fixes, url_setting)

NAME = 'aliesa'
SUMMARY = 'Keep an A or AAAA record of an Alibaba Cloud ESA site'
SETTINGS = key_pair('access_key_id', 'AccessKey ID of a RAM user allowed to change the ESA site\'s records',
                    'access_key_secret', 'its AccessKey secret') + [
    url_setting('https://esa.cn-hangzhou.aliyuncs.com', 'ESA API endpoint (scheme and host, '
                'https://esa.<region>.aliyuncs.com)')]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
VERSION = '2024-09-10'       # the API version every request names
ALGORITHM = 'ACS3-HMAC-SHA256'
EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'   # of the empty body
TYPE = 'A/AAAA'              # ESA's one record type for an address of either family
AUTOMATIC_TTL = 1            # what a create sends: ESA chooses the TTL
TTL_RANGE = (30, 86400)      # what an update sends back, besides 1 (automatic)
PAGE_SIZE = 500              # ListSites' and ListRecords' largest page
SITE_PAGES = 4               # an account of more sites than that names its zone_name
# the refusals that say nothing about the site or the record (credentials, permission, rate, the
# service itself): what a stored id's lookup raises as it is, never as "gone"
NOT_ABOUT_THE_RECORD = ('InvalidAccessKeyId', 'SignatureDoesNotMatch', 'IncompleteSignature', 'InvalidTimeStamp',
                        ALIBABA_NONCE_USED, 'Forbidden', 'NoPermission', 'Throttling', 'InternalError',
                        'ServiceUnavailable')
PERMISSION, SITE = site_fixes('ESA', 'AccessKey', 'RAM user', ('esa:ListSites', 'esa:ListRecords', 'esa:GetRecord',
                                                                 'esa:CreateRecord', 'esa:UpdateRecord'))
FIXES = {   # what to do about the API's error codes users meet (docs/providers.md)
    **alibaba_fixes(PERMISSION),
    'NoPermission': PERMISSION,
}


def account(cfg):
    """Whose sites and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.access_key_id, cfg.access_key_secret


def login(job):
    """--check: the credentials are accepted when the site lookup passes (a read call, the one the
    zone check then uses)."""
    list_zones(job)
    return ' (AccessKey %s)' % job.cfg.access_key_id


def list_zones(job):
    """The sites listed for zone_name (SiteSearchType exact), once a run.
    API: https://help.aliyun.com/zh/edge-security-acceleration/esa/api-esa-2024-09-10-listsites"""
    return job.shared(('zones', account(job.cfg), job.cfg.zone_name), lambda: named_sites(job))


def named_sites(job):
    """The first page of the sites named zone_name."""
    return sites_page(job, 'find zone', {'SiteName': job.cfg.zone_name, 'SiteSearchType': 'exact'}, 1)[0]


def sites_page(job, step, params, page):
    """(sites, how many there are or None) of one page of ListSites."""
    from ddkit import rest
    return rest.counted(call(job, 'GET', 'ListSites', dict(params, PageNumber=str(page), PageSize=str(PAGE_SIZE)),
                             step), 'Sites', step)


def choose_zone(job, zones):
    """The site named zone_name."""
    from ddkit import rest
    return rest.zone_named(job, zones, 'SiteId', 'SiteName', 'ESA site', SITE)


def account_zones(job):
    """Every site the credentials see, as [Zone] (names lower-case, no trailing dot), page by page;
    an account of more than SITE_PAGES pages is a Failure naming zone_name as the fix.
    API: https://help.aliyun.com/zh/edge-security-acceleration/esa/api-esa-2024-09-10-listsites"""
    from ddkit import rest
    return rest.site_pages(lambda n: sites_page(job, 'find zone', {}, n + 1), 'SiteId', 'SiteName', PAGE_SIZE,
                           SITE_PAGES)


def about_record(failure):
    """True when a refusal may be about the record: a code that says nothing of the credentials, the
    permission, the rate or the service, and no server error."""
    code = failure.code
    return code is not None and not code.startswith(NOT_ABOUT_THE_RECORD) and (failure.status or 0) < 500


def find_record(job, zone_id, strict=False):
    """The record of this name and family, or None; strict: a fresh listing (a create was refused
    because the record exists)."""
    return first(records(job, zone_id, 'find record', fresh=strict), job)


def records(job, zone_id, step, fresh=False):
    """The A/AAAA records of the record's name, listed once a run for both families (a record of
    each takes its own from the one listing).
    API: https://www.alibabacloud.com/help/en/edge-security-acceleration/esa/api-esa-2024-09-10-listrecords"""
    cfg = job.cfg
    params = {'SiteId': zone_id, 'RecordName': cfg.record_name, 'RecordMatchType': 'exact', 'Type': TYPE,
              'PageSize': str(PAGE_SIZE)}
    key = None if fresh else ('records', account(cfg), zone_id, cfg.record_name)
    return job.shared(key, lambda: listing(call(job, 'GET', 'ListRecords', params, step), 'Records', step))


def family(value):
    """'A' or 'AAAA': the family of an address as a record holds it (what tells ESA's A/AAAA
    records of a name apart), else None."""
    value = str(value or '')
    return 'AAAA' if ':' in value else 'A' if '.' in value else None


def value_of(record):
    """The address a record holds (its Data's Value), or None."""
    data = record.get('Data')
    return data.get('Value') if isinstance(data, dict) else None


def first(found, job):
    """The first listed A/AAAA record of this name holding an address of the record's family, or None."""
    cfg = job.cfg
    for r in found:
        if safe_id(r.get('RecordId')) and str(r.get('RecordName', '')).lower().rstrip('.') == cfg.record_name \
                and r.get('RecordType', TYPE) in (TYPE, cfg.record_type) and family(value_of(r)) == cfg.record_type:
            return Record(safe_id(r['RecordId']), [value_of(r)], r)
    return None


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, as ESA holds it now (its TTL, proxying and comment are sent
    back with an update). Stale when it is gone (which code says so is not documented: a refusal not
    about the credentials, the permission or the rate), is no longer this name's record of the
    family, or is of another site.
    API: https://www.alibabacloud.com/help/en/edge-security-acceleration/esa/api-esa-2024-09-10-getrecord"""
    data = call(job, 'GET', 'GetRecord', {'RecordId': record_id}, 'read record', stale=True)
    model = data.get('RecordModel')
    record = first([model], job) if isinstance(model, dict) else None
    if record is None or record.id != record_id or str(model.get('SiteId', zone_id)) != zone_id:
        raise Stale()   # ids of another record or site: find ours again
    return record


def proxied_site(job, zone_id):
    """True when the site is connected by CNAME (its records are proxied: nothing else resolves
    there), as the site lookup of the run listed it (not looked up again after stale ids)."""
    sites = job.run.shared(('zones', account(job.cfg), job.cfg.zone_name), lambda: named_sites(job))
    return any(str(s.get('SiteId')) == zone_id and s.get('AccessType') == 'CNAME' for s in sites)


def create_record(job, zone_id, ip):
    """CreateRecord of the name, type A/AAAA, with ESA's automatic TTL; proxied (as a web site) at a
    site connected by CNAME. A refusal other than of the credentials is looked at again: when the
    record exists after all (made meanwhile; which code a duplicate gets is not documented), Exists,
    and the loop updates it.
    API: https://www.alibabacloud.com/help/en/edge-security-acceleration/esa/api-esa-2024-09-10-createrecord"""
    from ddkit import jsontext, rest
    cfg = job.cfg
    params = {'SiteId': zone_id, 'RecordName': cfg.record_name, 'Type': TYPE, 'Data': jsontext.dumps({'Value': ip}),
              'Ttl': str(AUTOMATIC_TTL)}
    if proxied_site(job, zone_id):
        params.update(Proxied='true', BizName='web')
    data = rest.created(job, zone_id, lambda: call(job, 'POST', 'CreateRecord', params, 'create record', create=True),
                        about_record)
    return rest.new_id(safe_id(data.get('RecordId')), 'create record')


def update_record(job, zone_id, record, ip):
    """UpdateRecord: the new address in the record's Data (its other fields kept), and its TTL,
    proxying, business scenario and comment as read (whether what is not sent is kept is not
    documented). A refusal not about the credentials is looked at: Stale when the record is gone.
    API: https://help.aliyun.com/zh/edge-security-acceleration/esa/api-esa-2024-09-10-updaterecord"""
    from ddkit import jsontext
    held = record.raw
    data = held.get('Data') if isinstance(held.get('Data'), dict) else {}
    data = {k: v for k, v in data.items() if isinstance(v, (str, int)) and not isinstance(v, bool)}
    params = {'RecordId': record.id, 'Type': TYPE, 'Data': jsontext.dumps(dict(data, Value=ip))}
    ttl = held.get('Ttl')
    if isinstance(ttl, int) and not isinstance(ttl, bool) and (ttl == AUTOMATIC_TTL
                                                                or TTL_RANGE[0] <= ttl <= TTL_RANGE[1]):
        params['Ttl'] = str(ttl)
    if isinstance(held.get('Proxied'), bool):
        params['Proxied'] = 'true' if held['Proxied'] else 'false'
        if held['Proxied'] and isinstance(held.get('BizName'), str) and held['BizName']:
            params['BizName'] = held['BizName']
    if isinstance(held.get('Comment'), str) and held['Comment']:
        params['Comment'] = held['Comment']
    try:
        call(job, 'POST', 'UpdateRecord', params, 'update record')
    except Failure as e:
        if not about_record(e):
            raise
        read_record(job, zone_id, record.id)   # Stale when the record is gone (its code is not documented)
        raise
    return record.id


def sign(key_id, secret, method, host, query, action, stamp, nonce):
    """The headers of one ACS3-HMAC-SHA256 signed request with no body: method, the path '/', the
    canonical query, the host and the x-acs- headers, signed with the AccessKey secret; the Host is
    ddkit.wire's own (signed, not sent from here).
    https://www.alibabacloud.com/help/en/sdk/product-overview/v3-request-structure-and-signature"""
    import hashlib
    import hmac
    headers = {'x-acs-action': action, 'x-acs-content-sha256': EMPTY_SHA256, 'x-acs-date': stamp,
               'x-acs-signature-nonce': nonce, 'x-acs-version': VERSION}
    signed = dict(headers, host=host)
    names = ';'.join(sorted(signed))
    canonical = '%s\n/\n%s\n%s\n%s\n%s' % (method, query, ''.join('%s:%s\n' % (name, signed[name])
                                                                for name in sorted(signed)), names, EMPTY_SHA256)
    to_sign = '%s\n%s' % (ALGORITHM, hashlib.sha256(canonical.encode('utf-8')).hexdigest())
    signature = hmac.new(secret.encode('utf-8'), to_sign.encode('utf-8'), hashlib.sha256).hexdigest()
    headers['Authorization'] = '%s Credential=%s,SignedHeaders=%s,Signature=%s' % (ALGORITHM, key_id, names, signature)
    return headers


def call(job, method, action, params, step, stale=False, create=False):
    """One signed API call, its answer checked. A read or an update may be sent again by ddkit.http
    with the same nonce, which the API refuses once the first one arrived: then it is signed anew
    and sent once more. stale: a refusal that is not about the credentials, the permission or the
    rate (the site or record of stored ids gone) raises Stale; create: the call is not repeated."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    query = canonical_query(params)
    url = cfg.base_url + '/' + ('?' + query if query else '')

    def send():   # signed anew each time: a new nonce and time
        headers = sign(cfg.access_key_id, cfg.access_key_secret, method, host_header(url), query, action,
                       time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()), os.urandom(16).hex())
        return http.request(method, url, step, headers=headers, timeout=cfg.timeout, ca_file=cfg.ca_file,
                            repeatable=not create)
    answer, data, code = rest.alibaba_answer(send, step, log, create)
    if 'Code' not in data and answer.status == 200:   # an error answer names its code, even with HTTP 200
        return data
    message = str(data.get('Message') or '')[:200] or None
    if stale and code and 400 <= answer.status < 500 and not code.startswith(NOT_ABOUT_THE_RECORD):
        log.info('%s: %s (%s): gone.' % (step, code, message))
        raise Stale()
    if code:
        log.error('%s: error %s: %s' % (step, code, message))
    raise rest.code_refused(job, answer, step, code, message)
