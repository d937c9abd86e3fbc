"""The Todaynic DNS API of Eranet and Now.cn 时代互联: keep one A or AAAA record equal to this host's
public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `eranet` (https://www.eranet.com), and as
the preset `nowcn` (the same API, the same paths, at https://api.now.cn). Every call is a GET of
<base_url>/api/Dns/<action>?..., signed in Alibaba Cloud's RPC style: AccessInstanceID, a nonce and
the time among the parameters, their HMAC-SHA1 keyed by the API key (the key itself is never sent),
so no URL this module logs, shows or puts in a Failure has its query. The domain is the zone (no zone
id, no call listing the account's domains); a record is its host ('@' for the domain itself) and
type, listed by DescribeRecordIndex; no call reads one record by its id. A refusal is an answer
carrying "error" (words, no code) or any HTTP status but 200; the words may be Chinese, in UTF-8 or
GBK (ddkit.rest.any_json). No resolution line and no delete are known of this API, so `lines` is
refused.
API reference: https://www.todaynic.com/docApi/ (DescribeRecordIndex, AddDomainRecord,
UpdateDomainRecord; the signature)
"""

import time

from ddkit import Failure
from ddkit.native import os
from ddkit.provider import (Record, Stale, canonical_query, declaration, key_pair, number, relative_name,
                            rpc_signature, safe_id, url_setting, zone_by_name as choose_zone)
from ddkit.settings import printable_ascii

NAME = 'eranet'
SUMMARY = 'Keep an A or AAAA record at Eranet (Todaynic DNS API)'
API_PATH = '/api/Dns'
SETTINGS = key_pair('access_instance_id', 'AccessInstanceID of the account\'s HTTP API (Eranet or Now.cn: the API '
                    'page of the account, its auth-userid)', 'api_key', 'the API key of that AccessInstanceID (its '
                    'api-key), which signs each request', check=printable_ascii(', as the account\'s API page shows '
                    'it'), label='AccessInstanceID') + [
    url_setting('https://www.eranet.com', 'API base URL, scheme and host: https://www.eranet.com (Eranet), '
                'https://api.now.cn (Now.cn: the nowcn provider); a trailing /api/Dns is taken off', API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
METHOD = 'GET'           # the method every call is sent and signed with
TTL = 600                # a new record's TTL (the peers' default)
TTL_MAX = 86400          # a TTL read back outside 1 to this is not sent back
REFUSED = ('check access_instance_id and api_key (the API page of the account), this host\'s clock (each '
           'request carries the time: NTP), and that zone_name is a domain of this account on its DNS; the API\'s '
           'own words are on the log line before')
FIXES = {   # the API gives no error codes: what to do about its HTTP statuses (docs/providers.md)
    401: REFUSED,
    403: REFUSED,
}


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.access_instance_id, cfg.api_key


def login(job):
    """--check: the credentials are accepted when the API lists the record's name in zone_name (a
    refusal may also be about the domain: the API says which in words only)."""
    records(job, 'find zone')
    return ' (AccessInstanceID %s)' % job.cfg.access_instance_id


def list_zones(job):
    """[zone_name] once the API lists the record's name in it: the domain is the zone, and the listing
    find_record reads anyway (the same request, shared) proves it is this account's."""
    records(job, 'find zone')
    return [job.cfg.zone_name]


def host(cfg):
    """The record's Host: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def records(job, step, fresh=False):
    """DescribeRecordIndex: the records of this host and type, once a run ([] when none).
    API: https://www.todaynic.com/docApi/ (DescribeRecordIndex)"""
    cfg = job.cfg
    query = {'Domain': cfg.zone_name, 'Host': host(cfg), 'Type': cfg.record_type}

    def fetch():
        listed = call(job, 'DescribeRecordIndex', query, step).get('Data')
        if listed is None:
            return []
        if not isinstance(listed, list):
            raise Failure.at(step, 'unexpected answer: "Data" is not a list', kind='unexpected')
        return [r for r in listed if isinstance(r, dict)]
    return job.shared(None if fresh else ('records', account(cfg), cfg.zone_name, query['Host'], query['Type']),
                      fetch)


def first(listed, cfg, record_id=None):
    """The first listed record of this host and type (and id, when given), or None."""
    for r in listed:
        if safe_id(r.get('id')) and str(r.get('Host', '')).lower() == host(cfg) and \
                str(r.get('Type', '')).upper() == cfg.record_type and record_id in (None, safe_id(r['id'])):
            return Record(safe_id(r['id']), [r.get('Value')], r)
    return None


def find_record(job, zone_id, strict=False):
    """The record of this name and type, or None; strict: a fresh listing."""
    return first(records(job, 'find record', fresh=strict), job.cfg)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, from its name's listing (no call reads one record): an update
    sends back its TTL; Stale when the listing has no record of that id, name and type."""
    if zone_id != job.cfg.zone_name:
        raise Stale()   # ids of another domain (zone_name changed)
    found = first(records(job, 'read record'), job.cfg, record_id)
    if found is None:
        raise Stale()   # gone, or another record's id: find ours again
    return found


def create_record(job, zone_id, ip):
    """AddDomainRecord with the TTL TTL; the new record's id. Sent once: a create is not sent again
    after a lost answer (the next run finds the record by name).
    API: https://www.todaynic.com/docApi/ (AddDomainRecord)"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'AddDomainRecord', {'Domain': zone_id, 'Host': host(cfg), 'Type': cfg.record_type, 'Value': ip,
                                         'Ttl': str(TTL)}, 'create record', create=True)
    return rest.new_id(safe_id(data.get('Id')), 'create record')


def update_record(job, zone_id, record, ip):
    """UpdateDomainRecord: the address, with the record's own TTL sent back when the listing gave it
    (what the call does without one is not documented; one it did not give is left out).
    API: https://www.todaynic.com/docApi/ (UpdateDomainRecord)"""
    cfg = job.cfg
    params = {'Id': record.id, 'Domain': zone_id, 'Host': host(cfg), 'Type': cfg.record_type, 'Value': ip}
    ttl = number(record.raw.get('Ttl'))
    if ttl is not None and 0 < ttl <= TTL_MAX:
        params['Ttl'] = str(ttl)
    call(job, 'UpdateDomainRecord', params, 'update record')
    return record.id


def signed_query(cfg, params):
    """The query of one call: its parameters and the common ones (AccessInstanceID, a new nonce, the
    time), canonical, and their signature."""
    from ddkit.urls import quote
    query = canonical_query(dict(params, AccessInstanceID=cfg.access_instance_id, SignatureMethod='HMAC-SHA1',
                                 SignatureNonce=os.urandom(16).hex(),
                                 Timestamp=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())))
    return query + '&Signature=' + quote(rpc_signature(cfg.api_key, METHOD, query))


def scrubbed(text, query):
    """text without the request's signature, as sent or decoded (a server may echo the request)."""
    sent = query.rpartition('&Signature=')[2]
    for form in (sent, sent.replace('%2B', '+').replace('%2F', '/').replace('%3D', '=')):
        text = text.replace(form, '***') if form else text
    return text


def call(job, action, params, step, create=False):
    """One signed call; its answer's JSON object, checked: a refusal (an "error" in it, or any HTTP
    status but 200) is a Failure of step saying the API's words as they can be shown (UTF-8 as it is,
    GBK's Chinese as '…'), the request's signature taken out. A read or an update may be sent again
    after a lost answer; a create never (create)."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg, log = job.cfg, job.log
    query = signed_query(cfg, params)
    answer = http.request(METHOD, '%s%s/%s?%s' % (cfg.base_url, API_PATH, action, query), step,
                          timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=not create)
    try:
        data = rest.any_json(answer.nonempty(), step)
    except http.NotJson:
        data = None
    error = data.get('error') if isinstance(data, dict) else None
    said = rest.undecoded(scrubbed(str(error) if error else http.snippet(answer.text), query))
    if answer.status != 200:
        rest.refused(job, answer, step, said)
    if not isinstance(data, dict):
        raise Failure.at(step, '%s answered HTTP 200 with no JSON object: %s' % (answer.where, said), url=answer.where,
                         status=answer.status, kind='not json' if data is None else 'unexpected')
    if not error:
        return data
    log.error('%s: error: %s' % (step, said))
    raise Failure.at(step, 'the provider refused the request for domain %s (%s); %s' % (
        params['Domain'], said, REFUSED), url=answer.where, status=answer.status, provider_message=said, fix=REFUSED,
        kind='refused')
