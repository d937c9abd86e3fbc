"""Alibaba Cloud DNS (Alidns API 2015-01-09, RPC style): keep one A or AAAA record equal to this host's
public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `alidns`. Every request is signed with the
AccessKey pair (the RPC style's HMAC-SHA1 signature, version 1.0): the secret itself is never sent.
The domain name is the zone: no zone call is made (list_zones says why). A record is found and made
on its job's resolution line (LINES; the default line for a record without lines).
API reference: https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-overview (operations),
https://www.alibabacloud.com/help/en/sdk/product-overview/rpc-mechanism (request syntax and signature),
https://www.alibabacloud.com/help/en/dns/pubz-resolve-line-enumeration (resolution line codes)
"""

import time

from ddkit import Failure
from ddkit.native import os
from ddkit.provider import (Exists, Record, Stale, Zone, account_zones as every_zone, alibaba_fixes, canonical_query,
                            declaration, key_pair, listing, relative_name, rpc_signature, safe_id, url_setting,
                            zone_by_name as choose_zone)
from ddkit.settings import printable_ascii

NAME = 'alidns'
SUMMARY = 'Keep an A or AAAA record at Alibaba Cloud DNS (Alidns API)'
SETTINGS = key_pair('access_key_id', 'AccessKey ID of a RAM user allowed to change the domain\'s records',
                    'access_key_secret', 'its AccessKey secret',
                    check=printable_ascii(', as the RAM console shows it')) + [
    url_setting('https://alidns.aliyuncs.com', 'API endpoint (scheme and host)')]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
VERSION = '2015-01-09'       # the API version every request names
METHOD = 'POST'              # what the official SDK's Alidns requests use, every parameter in the query
# each operator line's resolution line code ("Resolution line enumeration"); a job without a line
# is on the default line
LINES = {'default': 'default', 'ct': 'telecom', 'cm': 'mobile', 'cu': 'unicom'}
PAGE_SIZE = 100              # records of one name on every line: a few; the API allows up to 500
TTL_MAX = 86400              # the API's longest ttl: a longer one read back is not sent
ZONE_GONE = {'IncorrectDomainUser', 'InvalidDomainName.NoExist'}   # the domain is not this account's
RECORD_GONE = {'DomainRecordNotBelongToUser'}                       # no such record id in this account
# a delete's record gone already: the error center's "does not exist in your account", and the code
# Alibaba's own Terraform provider also takes for a record id that is gone
DELETED = RECORD_GONE | {'InvalidRR.NoExist'}
DUPLICATE = 'DomainRecordDuplicate'  # a record of this name, type, line and value exists already
PERMISSION = ('the RAM user may not change DNS records: grant it AliyunDNSFullAccess, or '
              'alidns:DescribeSubDomainRecords, DescribeDomainRecordInfo, AddDomainRecord, UpdateDomainRecord and '
              '(records with lines) DeleteDomainRecord on this domain')
FIXES = {   # what to do about the API's error codes users meet (docs/providers.md)
    **alibaba_fixes(PERMISSION),
    'IncorrectDomainUser': 'zone_name must be a domain of this account in Alibaba Cloud DNS (the root domain, '
                           'e.g. example.com)',
    'InvalidDomainName.NoExist': 'zone_name must be a domain of this account in Alibaba Cloud DNS (the root '
                                 'domain, e.g. example.com)',
    'DomainRecordNotBelongToUser': 'the record is gone at the provider: the ids are looked up again and the '
                                   'record created',
    'DomainRecordConflict': 'another record (e.g. a CNAME) already uses this name: remove it or choose another '
                            'record_name',
    'DomainRecordLocked': 'the record is locked: unlock it in the Alibaba Cloud DNS console',
    'SubDomainInvalid.Value': 'record_name must be a valid name inside zone_name',
}



def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.access_key_id, cfg.access_key_secret


def login(job):
    """--check: the credentials are accepted when the API answers the record's listing with the
    records, or with a domain that is not this account's (the zone check says that one)."""
    try:
        listed(job, job.cfg.zone_name, 'find zone')
    except Failure as e:
        if e.code not in ZONE_GONE:
            raise
    return ' (AccessKey %s)' % job.cfg.access_key_id


def list_zones(job):
    """[zone_name] once the API lists the record's name in it. Alibaba Cloud DNS names a zone by its
    domain name, so no zone call is made: one would need the right to list every domain of the
    account, and the listing find_record reads anyway (the same request, shared) proves the domain is
    this account's (IncorrectDomainUser otherwise)."""
    listed(job, job.cfg.zone_name, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, for a record without zone_name (its name is its id),
    DOMAINS_PAGE a page: DescribeDomains (the RAM user needs alidns:DescribeDomains),
    https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-describedomains"""
    def page(number):
        data = call(job, 'DescribeDomains', {'PageNumber': str(number), 'PageSize': str(DOMAINS_PAGE)}, 'find zone')
        holder = data.get('Domains') if isinstance(data.get('Domains'), dict) else {}
        total = data.get('TotalCount')
        pages = -(-total // DOMAINS_PAGE) if isinstance(total, int) and not isinstance(total, bool) and total >= 0 \
            else None
        names = [str(d.get('DomainName', '')).lower().rstrip('.') for d in listing(holder, 'Domain', 'find zone')]
        return [Zone(name, name) for name in names if name], pages
    return every_zone(page)


DOMAINS_PAGE = 100   # domains a page: the most DescribeDomains gives


def relative(cfg):
    """The record's RR: its name without the zone; '@' for the zone's apex (settings keep it inside)."""
    return relative_name(cfg)


def line_of(job):
    """The resolution line code of the job's record."""
    return LINES[job.line or 'default']


def find_record(job, zone_id, strict=False):
    """The record of this name and type on the job's line, or None; strict: a fresh listing (the one
    shared with list_zones may be older than a create that met this record)."""
    return first(listed(job, zone_id, 'find record', fresh=strict), job)


def listed(job, zone, step, fresh=False):
    """The records of the record's name, listed once a run: on the job's line for a lone record;
    on every line, for both families, when the run has several records or lines (each job then
    takes its own from the one listing).
    API: https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-describesubdomainrecords"""
    cfg = job.cfg
    rtype = None if job.run.several else cfg.record_type
    # without Line the API lists every line's records
    line = None if job.run.several or job.line else line_of(job)
    params = {'DomainName': zone, 'SubDomain': cfg.record_name, 'PageSize': str(PAGE_SIZE)}
    if line:
        params['Line'] = line
    if rtype:
        params['Type'] = rtype

    def fetch():
        data = call(job, 'DescribeSubDomainRecords', params, step)
        holder = data.get('DomainRecords', {})
        records = holder.get('Record', []) if isinstance(holder, dict) else None
        if not isinstance(records, list):
            raise Failure.at(step, 'unexpected answer: "DomainRecords.Record" is not a list', kind='unexpected')
        return [r for r in records if isinstance(r, dict)]
    return job.shared(None if fresh else ('records', account(cfg), zone, cfg.record_name, rtype, line), fetch)


def first(records, job):
    """The first listed record of this name and type on the job's line, or None."""
    cfg, line = job.cfg, line_of(job)
    rr = relative(cfg)
    found = [r for r in records if safe_id(r.get('RecordId')) and str(r.get('RR', '')).lower() == rr
             and r.get('Type') == cfg.record_type and r.get('Line', 'default') == line]
    return as_record(found[0]) if found else None


def as_record(found):
    return Record(safe_id(found['RecordId']), [found.get('Value')], found)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, read (held or not): an update sends back its ttl; Stale when
    the ids name another record (another name, type or line), or none.
    API: https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-describedomainrecordinfo"""
    cfg = job.cfg
    if zone_id != cfg.zone_name:
        raise Stale()  # ids of another zone_name: find ours again
    data = call(job, 'DescribeDomainRecordInfo', {'RecordId': record_id}, 'read record', stale=True)
    domain = {str(data.get(key, '')).lower().rstrip('.') for key in ('DomainName', 'PunyCode')}
    if safe_id(data.get('RecordId')) != record_id or first([data], job) is None \
            or ('DomainName' in data and zone_id not in domain):
        raise Stale()  # ids of another record: find ours again
    return as_record(data)


def create_record(job, zone_id, ip):
    """The new record's id, on the job's line with the API's default ttl.
    API: https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-adddomainrecord"""
    cfg = job.cfg
    params = {'DomainName': zone_id, 'RR': relative(cfg), 'Type': cfg.record_type, 'Value': ip,
              'Line': line_of(job)}
    data = call(job, 'AddDomainRecord', params, 'create record', stale=True, create=True)
    return record_id_of(data, 'create record')


def update_record(job, zone_id, record, ip):
    """The record's id: its value set, its line and ttl sent back (what is not sent becomes the
    API's default: the default line, ttl 600).
    An answer that the record holds this value already (a run with --force, a retry after a lost
    answer) is success.
    API: https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-updatedomainrecord"""
    cfg = job.cfg
    params = {'RecordId': record.id, 'RR': relative(cfg), 'Type': cfg.record_type, 'Value': ip,
              'Line': line_of(job)}
    ttl = record.raw.get('TTL')
    if isinstance(ttl, int) and not isinstance(ttl, bool) and 0 < ttl <= TTL_MAX:
        params['TTL'] = str(ttl)
    data = call(job, 'UpdateDomainRecord', params, 'update record', stale=True, same=True)
    if data is None:   # DomainRecordDuplicate
        job.log.info('update record: the %s holds %s already.' % (NOUN, ip))
        return record.id
    return record_id_of(data, 'update record', known=record.id)


def delete_record(job, zone_id, record):
    """Delete the record (record.id); one already gone is success (None).
    API: https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-deletedomainrecord"""
    call(job, 'DeleteDomainRecord', {'RecordId': record.id}, 'delete record', gone=DELETED)


def signature(secret, method, params):
    """The RPC style's signature of these parameters (Signature itself not among them)."""
    return rpc_signature(secret, method, canonical_query(params))


def signed_query(cfg, action, params):
    """The query of one request: its parameters, the common ones (a new nonce and the time) and
    their signature, encoded."""
    from ddkit.urls import quote
    query = canonical_query(dict(params, Action=action, Version=VERSION, Format='JSON',
                                 AccessKeyId=cfg.access_key_id, SignatureMethod='HMAC-SHA1', SignatureVersion='1.0',
                                 SignatureNonce=os.urandom(16).hex(),
                                 Timestamp=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())))
    return query + '&Signature=' + quote(rpc_signature(cfg.access_key_secret, METHOD, query))


def call(job, action, params, step, stale=False, create=False, same=False, gone=()):
    """One signed API call, its answer checked. A read or an update may be sent again by ddkit.http
    with the same nonce, which the API refuses once the first one arrived: then it is signed anew
    and sent once more. stale: an answer that the domain or the record is not (any more) this
    account's raises Stale, so the loop looks the ids up again; create: a duplicate raises Exists;
    same: a duplicate (the update's record holds the value already) gives None; an error code in
    gone (a delete's record already gone) gives None."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    answer, data, code = rest.alibaba_answer(lambda: http.request(
        METHOD, cfg.base_url + '/?' + signed_query(cfg, action, params), step, timeout=cfg.timeout,
        ca_file=cfg.ca_file, repeatable=not create), step, log, create)
    if code is None and answer.status == 200:
        return data
    message = str(data.get('Message') or '')[:200] or None
    if code in gone:
        log.info('%s: %s (%s): gone already.' % (step, code, message))
        return None
    if code:
        log.error('%s: error %s: %s' % (step, code, message))
    if code == DUPLICATE and create:
        raise Exists()
    if code == DUPLICATE and same:
        return None
    if stale and code in ZONE_GONE | RECORD_GONE:
        raise Stale()
    raise rest.code_refused(job, answer, step, code, message, zone='domain %s' if code in ZONE_GONE else None)


def record_id_of(data, step, known=None):
    """The record id in an answer; an update that says success without one keeps the known id."""
    from ddkit import rest
    return rest.new_id(safe_id(data.get('RecordId')), step, known)
