"""51DNS (formerly DNS.COM): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `dnscom`. Every call is a POST of a form to
<base_url>/api/<group>/<action>/ carrying apiKey, timestamp and hash: the MD5 (lower-case hex) of every
parameter sorted by name, joined name=value with '&', and the API secret appended; the secret itself
is never sent. Which of a value's forms is hashed, raw or percent-encoded, is not documented: every
value sent is made of characters that need no encoding (checked before anything is sent), so both
forms are the same string. The zone is the domain's id (domain/getsingle); a record is its host ('@'
for the apex), type and view (line): the lines' ids are not confirmed, so no line is sent, a record is
kept on the default view, and records of the name on other views are left alone. Answers are JSON
{"code": 0, "message", "data"}, read as UTF-8 (or as GBK, its Chinese undecoded, should one not be).
API reference: https://www.dns.com/docs/2/4 (the signature method; also under
https://www.51dns.com/document/api/), the calls as NewFuture/DDNS's ddns/provider/dnscom.py makes them
(domain/getsingle, record/list, record/create, record/modify)
"""

import time

from ddkit import Failure
from ddkit.provider import Zone, declaration, key_pair, listing, number, relative_name, safe_id, url_setting
from ddkit.settings import printable_ascii

NAME = 'dnscom'
SUMMARY = 'Keep an A or AAAA record at 51DNS (formerly DNS.COM)'
API_PATH = '/api'
SETTINGS = key_pair('api_key', 'API key of the 51DNS account (its apiKey)', 'api_secret',
                    'its API secret (apiSecret): it signs each request and is never sent', label='API key',
                    check=printable_ascii(', as the 51DNS console shows it')) + [
    url_setting('https://www.51dns.com', 'API base URL, scheme and host (a trailing /api, as the provider\'s '
                'documents write it, is taken off: the tool adds it)', API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
OK = '0'                                 # `code` of a successful call
PAGE_SIZE = 500                          # records of a name a listing asks for
DEFAULT_VIEWS = ('', '0', '1')           # how a listing may show the default view (line)
TTL_MIN, TTL_MAX = 1, 604800             # a TTL read back outside these is not sent
# the characters a value may hold: its raw and percent-encoded forms are the same string, so the hash
# is right whichever the service computes
PLAIN = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~@:')
RECORD_GONE, ZONE_GONE = '4', '5'        # the codes of a record and of a domain not found
CREDENTIALS = ('check api_key and api_secret (51DNS console: API 接口, the apiKey and apiSecret); the hash '
               'carries this host\'s time, so its clock must be right (NTP)')
FIXES = {   # what to do about the API's codes users meet (docs/providers.md; the codes are NewFuture's)
    '1': 'the request was refused as invalid: check record_name and record_type',
    '2': CREDENTIALS,
    '3': 'the key may not manage this domain: check zone_name and whose key this is',
    '4': 'the record is gone at the provider: the ids are looked up again and the record created',
    '5': 'zone_name must be a domain of this 51DNS account (the domain itself, e.g. example.com)',
}


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_key, cfg.api_secret


def login(job):
    """--check: the key is accepted when the domain is read (or answered as not this account's, which
    the zone check then says)."""
    try:
        list_zones(job)
    except Failure as e:
        if e.code != ZONE_GONE:
            raise
    return ' (API key %s...)' % job.cfg.api_key[:6]


def list_zones(job):
    """[the domain read by its name, once a run]: domain/getsingle, whose domainID takes the name.
    API: https://www.51dns.com/document/api/ (domain/getsingle)"""
    cfg = job.cfg
    return job.shared(('zone', account(cfg), cfg.zone_name), lambda: [
        call(job, 'domain/getsingle', {'domainID': cfg.zone_name}, 'find zone')])


def choose_zone(job, zones):
    """The domain by its id; an answer without a usable one is a Failure."""
    found = zones[0] if isinstance(zones[0], dict) else {}
    if not safe_id(found.get('domainID')):
        raise Failure.at('find zone', 'the API answered no domain %s with a usable id' % job.cfg.zone_name,
                         kind='unexpected')
    return Zone(safe_id(found['domainID']), job.cfg.zone_name)


def host(cfg):
    """The record's host as 51DNS names it: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def find_record(job, zone_id, strict=False):
    """The record of this name and type on the default view, or None; strict: a fresh listing."""
    return first(records(job, zone_id, 'find record', fresh=strict), job)


def records(job, zone_id, step, fresh=False):
    """The records of the name, listed once a run (every type: the records of both families share it).
    API: https://www.51dns.com/document/api/ (record/list)"""
    cfg = job.cfg

    def fetch():
        data = call(job, 'record/list', {'domainID': zone_id, 'host': host(cfg), 'pageSize': str(PAGE_SIZE)}, step)
        return listing(data if isinstance(data, dict) else {}, 'data', step)
    return job.shared(None if fresh else ('records', account(cfg), zone_id, host(cfg)), fetch)


def first(listed, job):
    """The first listed record of this name and type on the default view, or None."""
    from ddkit import rest
    return rest.first_named(job, listed, host(job.cfg), ('record', 'type', 'value'), record_id,
                            lambda r: str(r.get('viewID', '')) in DEFAULT_VIEWS, 'recordID')


def read_record(job, zone_id, record_id_text, held=False):
    """The record the stored ids name, as 51DNS holds it now, from its name's listing (an update sends
    its TTL back); Stale when the listing has no record of that id on this name, type and view."""
    from ddkit import rest
    return rest.stored_in_listing(job, zone_id, record_id_text, lambda: records(job, zone_id, 'read record'),
                                  lambda found: first(found, job), record_id, 'recordID', named=False)


def create_record(job, zone_id, ip):
    """record/create on the default view (no viewID sent), with the domain's default TTL.
    API: https://www.51dns.com/document/api/ (record/create)"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'record/create', {'domainID': zone_id, 'host': host(cfg), 'type': cfg.record_type,
                                       'value': ip}, 'create record', repeatable=False)
    return rest.new_id(record_id(data.get('recordID')) if isinstance(data, dict) else None, 'create record')


def update_record(job, zone_id, record, ip):
    """record/modify: the new value, with the record's own TTL sent back (what an omitted one does is
    not documented); Stale when the record is gone (code 4).
    API: https://www.51dns.com/document/api/ (record/modify)"""
    params = {'domainID': zone_id, 'recordID': record.id, 'newvalue': ip}
    ttl = number(record.raw.get('TTL'))
    if ttl is not None and TTL_MIN <= ttl <= TTL_MAX:
        params['newTTL'] = str(ttl)
    call(job, 'record/modify', params, 'update record', gone=RECORD_GONE)
    return record.id


def record_id(value):
    """A record (or domain) id from an answer or the ids file, as text: a positive whole number."""
    found = number(value)
    return str(found) if found and safe_id(value) else None


def signed(params, api_key, api_secret, timestamp):
    """The form of a call: its parameters with apiKey, timestamp and their hash (md5 of the sorted
    name=value pairs joined by '&', the secret appended), in that order; a value of a character
    outside PLAIN is a ValueError (its hashed form would be uncertain)."""
    import hashlib
    sent = dict(params, apiKey=api_key, timestamp=str(timestamp))
    if any(not set(value) <= PLAIN for value in sent.values()):
        raise ValueError('a value holds a character that needs encoding')
    text = '&'.join('%s=%s' % pair for pair in sorted(sent.items()))
    return '%s&hash=%s' % (text, hashlib.md5((text + api_secret).encode('ascii')).hexdigest())


def call(job, action, params, step, gone=None, repeatable=True):
    """One call; its `data`, checked. The code gone raises Stale (the record of the stored ids is
    gone); a domain the account does not have is a Failure of 'find zone'; any other code a Failure."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    try:
        body = signed(params, cfg.api_key, cfg.api_secret, int(time.time()))
    except ValueError:
        raise Failure.at(step, 'a value to send holds a character the signature cannot be sure of: %s' % (
            ', '.join(sorted(params))), kind='unexpected', fix='check zone_name and record_name')
    answer = http.request('POST', '%s%s/%s/' % (cfg.base_url, API_PATH, action), step, data=body.encode('ascii'),
                          headers={'Content-Type': 'application/x-www-form-urlencoded'}, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, repeatable=repeatable)
    data = rest.any_json(answer.nonempty(), step)
    code = data.get('code') if isinstance(data, dict) else None
    code = str(number(code)) if number(code) is not None else None
    if code is None:
        raise Failure.at(step, 'unexpected answer (HTTP %d): %s' % (answer.status, http.snippet(answer.text)),
                         url=answer.where, status=answer.status,
                         kind='server error' if answer.status >= 500 else 'unexpected')
    if code == OK and answer.status < 300:
        return data.get('data')
    message = rest.undecoded(data.get('message'))
    if rest.expected(job, step, code, message, gone=(gone,)):
        return None
    job.log.error('%s: error %s: %s' % (step, code, message))
    raise rest.code_refused(job, answer, step, code, message, zone='domain %s' if code == ZONE_GONE else None)
