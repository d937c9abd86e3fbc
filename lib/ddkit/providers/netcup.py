"""netcup (the CCP DNS API, JSON): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `netcup`. Every call is a POST of
{"action", "param"} to one endpoint, answered HTTP 200 with a status and a status code. A run logs in
once (customer number, API key and API password) and sends the session id with its other calls,
never the password; the session ends when it has been idle a few minutes. The API lists no zones to
a customer: zone_name is needed. A record has an id and a host name relative to the zone (`@` the
zone itself); there is no TTL of a record (the zone's applies). updateDnsRecords writes a set of
records: one with an id is changed (the whole record sent: host name, type, priority, destination),
one without is made. netcup has no resolution lines but holds several records of a name: a line's
record is one of them (SEVERAL).
API reference: https://ccp.netcup.net/run/webservice/servers/endpoint.php (the functions: login,
infoDnsZone, infoDnsRecords, updateDnsRecords), https://www.netcup-wiki.de/wiki/DNS_API
"""

from ddkit import Failure
from ddkit.provider import (Record, Stale, declaration, key_pair, listing, relative_name, safe_id, url_setting,
                            zone_by_name)
from ddkit.settings import Setting, check_header

NAME = 'netcup'
SUMMARY = 'Keep an A or AAAA record at netcup (CCP DNS API)'
API_PATH = '/run/webservice/servers/endpoint.php'
SETTINGS = [Setting('customer_number', help='the netcup customer number (the CCP login)', check=check_header)] + \
    key_pair('api_key', 'an API key of that customer (CCP: Master Data, API)', 'api_password',
             'the customer\'s API password (CCP: Master Data, API)') + \
    [url_setting('https://ccp.netcup.net', api_path=API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
choose_zone = zone_by_name   # a zone is named by its domain
SEVERAL = True      # no resolution lines: each line's address is a record of the name
ZONE_MISSING = ('5028',)   # the zone is not the customer's, or not on netcup's name servers
CREDENTIALS = 'customer_number, api_key and api_password must be the customer\'s (CCP: Master Data, API: the ' \
    'key and the API password, which is not the CCP password)'
FIXES = {   # what to do about the API's status codes users meet (docs/providers.md)
    '4013': 'the request was refused: ' + CREDENTIALS + '; or over 180 requests a minute: run less often',
    '4001': 'the session ended (usually transient): the next run logs in again',
    '5028': 'zone_name must be a domain of this netcup customer whose zone is on netcup\'s name servers '
            '(e.g. example.com)',
    401: CREDENTIALS,
}


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.customer_number, cfg.api_key, cfg.api_password


def login(job):
    """--check: the credentials are accepted when the API gives a session (a read call).
    https://ccp.netcup.net/run/webservice/servers/endpoint.php#login"""
    session_id(job)
    return ' (customer %s)' % job.cfg.customer_number


def session_id(job):
    """The session id, from one login a run (the records of a run share it)."""
    cfg = job.cfg

    def log_in():
        data = call(job, 'login', {'customernumber': cfg.customer_number, 'apikey': cfg.api_key,
                                   'apipassword': cfg.api_password}, 'get token', session=False)
        found = data.get('apisessionid') if isinstance(data, dict) else None
        if not safe_id(found):
            raise Failure.at('get token', 'unexpected answer: the login gave no session id', kind='unexpected')
        return found
    return job.run.shared(('session', account(cfg)), log_in)   # stale ids leave the session as it is


def list_zones(job):
    """[zone_name] once its records could be listed (the listing find_record reads then, shared); a
    zone that is not the customer's is a Failure of 'find zone'."""
    records(job, 'find zone')
    return [job.cfg.zone_name]


def records(job, step, fresh=False):
    """The zone's records, listed once a run (the zone's lookup lists them afresh after stale ids,
    find_record takes that listing); fresh: listed now.
    https://ccp.netcup.net/run/webservice/servers/endpoint.php#infoDnsRecords"""
    cfg = job.cfg
    shared = job.shared if step == 'find zone' else job.run.shared
    return shared(None if fresh else ('records', account(cfg), cfg.zone_name), lambda: listing(
        call(job, 'infoDnsRecords', {'domainname': cfg.zone_name}, step, zone=True), 'dnsrecords', step))


def named(found, cfg):
    """True when a record of an answer is of this name and type, with a usable id."""
    host = found.get('hostname')
    return found.get('type') == cfg.record_type and isinstance(host, str) and host.lower() == relative_name(cfg) \
        and safe_id(found.get('id')) is not None and found.get('deleterecord') is not True


def as_record(found):
    return Record(safe_id(found['id']), [found.get('destination')], found)


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of a line: one holding an address of its operator), or None;
    strict: a fresh listing."""
    from ddkit import rest
    found = rest.on_line([r for r in records(job, 'find record', fresh=strict) if named(r, job.cfg)], job.line,
                         'destination')
    return as_record(found[0]) if found else None


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name: unread (a write of its id says when it is gone) unless asked
    (held), then found in the zone's listing; Stale when it is not there."""
    if zone_id != job.cfg.zone_name or not safe_id(record_id):
        raise Stale()   # ids of another zone_name: find ours again
    if not held:
        return Record(record_id)
    found = [r for r in records(job, 'read record', fresh=True) if named(r, job.cfg) and safe_id(r['id']) == record_id]
    if not found:
        raise Stale()
    return as_record(found[0])


def gone(job, step, record_id):
    """True when the zone's records, listed afresh, hold no record of this id (a refused write of it
    is then about a record deleted meanwhile: netcup's code for that is not documented)."""
    return not [r for r in records(job, step, fresh=True) if safe_id(r.get('id')) == record_id]


def write(job, step, record):
    """updateDnsRecords of one record (with an id: changed; without: made); the zone's records as the
    answer gives them. https://ccp.netcup.net/run/webservice/servers/endpoint.php#updateDnsRecords"""
    cfg = job.cfg
    data = call(job, 'updateDnsRecords', {'domainname': cfg.zone_name, 'dnsrecordset': {'dnsrecords': [record]}},
                step, zone=True)
    return listing(data if isinstance(data, dict) else {}, 'dnsrecords', step)


def made(found, cfg, ip, step, known=None):
    """The id of the record of this name and type holding ip in a write's answer (known: the record's
    own, when the answer names none)."""
    from ddkit import rest
    from ddkit.ipcheck import same_ip
    ids = [safe_id(r['id']) for r in found if named(r, cfg) and isinstance(r.get('destination'), str)
           and same_ip(r['destination'], ip)]
    return rest.new_id(ids[-1] if ids else None, step, known)


def create_record(job, zone_id, ip):
    """The new record's id (the zone's TTL applies)."""
    cfg = job.cfg
    record = {'hostname': relative_name(cfg), 'type': cfg.record_type, 'destination': ip, 'deleterecord': False}
    return made(write(job, 'create record', record), cfg, ip, 'create record')


def update_record(job, zone_id, record, ip):
    """The record of its id sent whole with the new address (its priority kept when it was read); a
    record deleted meanwhile is Stale."""
    cfg = job.cfg
    sent = {'id': record.id, 'hostname': relative_name(cfg), 'type': cfg.record_type, 'destination': ip,
            'deleterecord': False}
    if isinstance(record.raw.get('priority'), str):
        sent['priority'] = record.raw['priority']
    try:
        found = write(job, 'update record', sent)
    except Failure as e:
        if e.kind != 'refused' or not gone(job, 'update record', record.id):
            raise
        raise Stale()
    return made(found, cfg, ip, 'update record', record.id)


def delete_record(job, zone_id, record):
    """A line's record, its line without an address (deleterecord: true); one gone already is success."""
    cfg = job.cfg
    try:
        write(job, 'delete record', {'id': record.id, 'hostname': relative_name(cfg), 'type': cfg.record_type,
                                     'destination': record.content[0] if record.content else '',
                                     'deleterecord': True})
    except Failure as e:
        if e.kind != 'refused' or not gone(job, 'delete record', record.id):
            raise
    return None


def call(job, action, param, step, session=True, zone=False):
    """One API call: its responsedata when its status is success. session: the call carries the
    customer number, API key and session id; zone: a code of ZONE_MISSING is the zone that is not the
    customer's."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    cfg = job.cfg
    if session:
        param = dict(param, customernumber=cfg.customer_number, apikey=cfg.api_key, apisessionid=session_id(job))
    answer = http.request('POST', cfg.base_url + API_PATH + '?JSON', step, json_body={'action': action, 'param': param},
                          timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=action != 'updateDnsRecords')
    if not 200 <= answer.status < 300:
        rest.refused(job, answer, step, None)
    data = rest.json_of(answer, step)
    code = data.get('statuscode')
    code = str(code)[:10] if isinstance(code, (int, str)) and not isinstance(code, bool) else None
    if data.get('status') == 'success':
        return data.get('responsedata')
    said = ' '.join(str(data[k])[:200] for k in ('shortmessage', 'longmessage') if isinstance(data.get(k), str))
    if said:
        job.log.error('%s: error %s: %s' % (step, code, said))
    raise rest.code_refused(job, answer, step, code, said or None,
                            zone='zone %s' if zone and code in ZONE_MISSING else None)
