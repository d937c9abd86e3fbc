"""Dynadot (API3, its DNS commands): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `dynadot`. Every call is a GET of
<base_url>/api3.json?key=<API key>&command=<command>&...: the key travels in the query string, so no
URL this module logs, shows or puts in a Failure has its query, and an answer's text is scrubbed of
the key before it is shown. Dynadot serves one request of an account at a time: each call waits for
its answer before the next is sent.
A domain's DNS is one set: get_dns reads all of it (the domain's own records, MainDomains; the
subdomains' records, SubDomains; one TTL for the domain), and set_dns2 writes a set. The set it is
sent REPLACES every record the domain has, and with add_dns_to_current_setting the records sent are
added beside the old ones, so an old address would stay beside the new. A change is therefore always:
the set read, the entries of the record's name and type changed in it, the whole set sent back, every
other record (with its Value2: an MX distance, a forward's options) and the domain's TTL as read. A
domain whose DNS Dynadot does not serve (name servers elsewhere, parked, forwarded) is refused, never
switched to Dynadot DNS. The record is the entries of its name and type (ddkit.rest's RRset shape);
with `lines` each line's address is one entry of them (SEVERAL).
API reference: https://www.dynadot.com/domain/api3.html (commands list_domain, get_dns, set_dns2),
https://www.dynadot.com/help/question/find-API-settings (the key and its allowed IPs)
"""

from ddkit import Failure
from ddkit.provider import (ProviderSession, Zone, declaration, number, relative_name, secret_setting,
                            url_setting)

NAME = 'dynadot'
SUMMARY = 'Keep an A or AAAA record at Dynadot (API3, an API key)'
API_PATH = '/api3.json'
SETTINGS = [
    secret_setting('api_key', 'API key from the Dynadot account\'s API settings (Tools, API), where this host\'s '
                              'IP must be allowed'),
    url_setting('https://api.dynadot.com', 'API base URL, scheme and host (a trailing /api3.json, as the '
                'provider\'s documents write it, is taken off: the tool adds it)', API_PATH),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
SEVERAL = True           # no resolution lines; a name holds several entries of a type: each line's is one
OK = '0'                 # ResponseCode of a command that succeeded (Status "success")
HOSTED = 'dynadot dns'   # NameServerSettings.Type of a domain whose DNS Dynadot serves
MAIN_MAX, SUB_MAX = 20, 100   # the entries set_dns2 takes: main_record0..19, subdomain0..99
TTL_MAX = 604800         # a domain TTL read back above this is not sent
CREDENTIALS = ('check api_key (Tools, API in the Dynadot account; the key is account-wide), that this host\'s '
               'public IP is among the API\'s allowed IPs there, and that the domain is this account\'s; an '
               'error about the connection to Dynadot\'s main server passes: the next run tries again')
ZONE_FIX = 'zone_name must be a domain of this Dynadot account (the registered domain, e.g. example.com)'
HOSTING_FIX = ('the domain\'s DNS must be Dynadot DNS (Manage Domains, DNS Settings: Dynadot DNS); ddkit never '
               'switches a domain\'s name servers, which would replace its DNS')
FIXES = {   # what to do about the API's ResponseCode (docs/providers.md); -1 is its only error code
    '-1': CREDENTIALS,
}


class Session(ProviderSession):
    """The entries this record's run read last and whether it read them (rest's RRset shape), and the
    domain's whole DNS set as read then: a write sends it back changed."""

    def __init__(self):
        self.read, self.rrset, self.dns = False, None, None


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_key


def login(job):
    """--check: the key (and this host's IP) is accepted when the account's domains are listed."""
    domains(job)
    return ' (API key)'


def domains(job):
    """list_domain: the account's domains as Zones (their names lower case), once a run.
    API: https://www.dynadot.com/domain/api3.html (list_domain)"""
    from ddkit import rest

    def fetch():
        listed = call(job, 'list_domain', [], 'find zone').get('MainDomains', [])
        if not isinstance(listed, list):
            raise Failure.at('find zone', 'unexpected answer: "MainDomains" is not a list', kind='unexpected')
        return rest.domain_zones(d.get('Name') for d in listed if isinstance(d, dict))
    return job.shared(('domains', account(job.cfg)), fetch)


def list_zones(job):
    """The account's domains: the zone is the one named zone_name."""
    return domains(job)


def account_zones(job):
    """Every domain of the account: the zone a record without zone_name belongs to is the longest
    that record_name ends with."""
    return domains(job)


def choose_zone(job, zones):
    """The domain named zone_name (a domain's id is its name); none is a Failure of 'find zone'."""
    name = job.cfg.zone_name
    if name not in [zone.name for zone in zones]:
        raise Failure.at('find zone', 'no domain %s in this account; %s' % (name, ZONE_FIX), kind='not found',
                         fix=ZONE_FIX)
    return Zone(name, name)


def host(cfg):
    """The record's subdomain, as SubDomains names it ('' for the domain itself: a main record)."""
    return relative_name(cfg, '')


def get_dns(job, zone_id, step):
    """get_dns: the domain's whole DNS set, {'main': [entries], 'sub': [entries], 'ttl': its TTL or None},
    each entry as read (RecordType, Value, Value2, Subhost); kept on the session. A domain whose DNS
    Dynadot does not serve is a Failure of 'find zone', as is an entry that cannot be read whole
    (a set sent back without it would lose it).
    API: https://www.dynadot.com/domain/api3.html (get_dns)"""
    found = call(job, 'get_dns', [('domain', zone_id)], step).get('GetDns')
    settings = found.get('NameServerSettings') if isinstance(found, dict) else None
    if not isinstance(settings, dict):
        raise Failure.at(step, 'unexpected answer: no "GetDns.NameServerSettings"', kind='unexpected')
    kind = settings.get('Type')
    if str(kind).strip().lower() != HOSTED:
        raise Failure.at('find zone', 'the DNS of %s is not Dynadot DNS (%s); %s' % (
            zone_id, str(kind)[:40], HOSTING_FIX), kind='not found', fix=HOSTING_FIX)
    ttl = number(settings.get('TTL', found.get('TTL')))   # the domain's one TTL, or beside the set
    dns = {'main': readable(settings.get('MainDomains'), 'MainDomains', step, False),
           'sub': readable(settings.get('SubDomains'), 'SubDomains', step, True),
           'ttl': ttl if ttl is not None and 0 < ttl <= TTL_MAX else None}
    job.session.dns = dns
    return dns


def readable(listed, key, step, sub):
    """The entries under key, each with its RecordType and Value as text (and Subhost, sub); anything
    else is a Failure: a set sent back must hold every record it read."""
    fields = ('RecordType', 'Value', 'Value2') + (('Subhost',) if sub else ())
    entries = [] if listed is None else listed
    if not isinstance(entries, list):
        raise Failure.at(step, 'unexpected answer: "%s" is not a list' % key, kind='unexpected')
    kept = []
    for item in entries:
        item = item if isinstance(item, dict) else {}
        texts = {k: str(item[k]) for k in fields if isinstance(item.get(k), (str, int)) and
                 not isinstance(item.get(k), bool)}
        if not texts.get('RecordType') or 'Value' not in texts or sub and 'Subhost' not in texts:
            raise Failure.at(step, 'unexpected answer: an entry of "%s" without its type, value or host' % key,
                             kind='unexpected')
        kept.append(texts)
    return kept


def of_record(entry, cfg):
    """True when an entry of the set is one of the record's name and type."""
    return entry['RecordType'].upper() == cfg.record_type and entry.get('Subhost', '').lower() == host(cfg)


# The record is the set's entries of its name and type (ddkit.rest's RRset shape); what it is read
# and written with is the domain's whole set.

def get_rrset(job, zone_id, step):
    """The record's entries in the domain's set (with the set they were read in), or None when there
    are none."""
    cfg = job.cfg
    dns = get_dns(job, zone_id, step)
    mine = [e for e in dns['sub' if host(cfg) else 'main'] if of_record(e, cfg)]
    return {'type': cfg.record_type, 'entries': mine, 'dns': dns} if mine else None


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and rrset.get('type') == cfg.record_type


def entries(rrset, step):
    """The record's entries."""
    return list((rrset or {}).get('entries', []))


def address(held):
    return held.get('Value')


def entry(ip, like=None):
    """An entry of ip; like's other fields (Value2) kept."""
    return dict(like or {}, Value=ip)


def write_rrset(job, zone_id, found, records, step):
    """set_dns2 of the domain's whole set as read, the record's entries replaced by records (where
    the first of them was, else after the others; [] takes them out): every other main and sub
    record, and the domain's TTL, sent back as read. Sent without add_dns_to_current_setting, so the
    set sent is what the domain holds after it, and sending it again does no harm.
    API: https://www.dynadot.com/domain/api3.html (set_dns2)"""
    cfg = job.cfg
    dns = found['dns'] if found else job.session.dns or get_dns(job, zone_id, step)
    part, others = ('sub', 'main') if host(cfg) else ('main', 'sub')
    mine = [dict(e, RecordType=cfg.record_type, **({'Subhost': host(cfg)} if host(cfg) else {})) for e in records]
    held = dns[part]
    at = next((n for n, e in enumerate(held) if of_record(e, cfg)), len(held))
    kept = [e for e in held[:at] if not of_record(e, cfg)] + mine + [e for e in held[at:] if not of_record(e, cfg)]
    sets = {part: kept, others: dns[others]}
    if len(sets['main']) > MAIN_MAX or len(sets['sub']) > SUB_MAX:
        raise Failure.at(step, 'the domain would hold more than %d main or %d subdomain records, which set_dns2 '
                         'cannot take: nothing was sent' % (MAIN_MAX, SUB_MAX), kind='refused',
                         fix='remove records of %s at Dynadot that are no longer needed' % zone_id)
    params = [('domain', zone_id)] + ([('ttl', str(dns['ttl']))] if dns['ttl'] else [])
    for n, e in enumerate(sets['main']):
        params += fields(e, 'main_record_type%d' % n, 'main_record%d' % n, 'main_recordx%d' % n)
    for n, e in enumerate(sets['sub']):
        params += [('subdomain%d' % n, e['Subhost'])] + fields(
            e, 'sub_record_type%d' % n, 'sub_record%d' % n, 'sub_recordx%d' % n)
    call(job, 'set_dns2', params, step)
    job.session.dns = None   # the set changed: a later write of this run reads it again


def fields(e, kind, value, extra):
    """The parameters of one entry: its type in lower case, its value, its Value2 when it has one."""
    return [(kind, e['RecordType'].lower()), (value, e['Value'])] + ([(extra, e['Value2'])] if e.get('Value2') else [])


def rrset(shape, *args):
    """What ddkit.rest's RRset shape (its function named shape) does for this record: the contract's
    record calls below, ddkit.rest imported only once the API is called."""
    from ddkit import rest
    return getattr(rest, shape)(*args)


def find_record(job, zone_id, strict=False):
    """The record of this name and type (of a line: its address among the entries), or None."""
    return rrset('find_rrset_record', job, zone_id, strict)


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, read always (held or not): a write sends the whole set back."""
    return rrset('read_rrset_record', job, zone_id, record_id)


def create_record(job, zone_id, ip):
    """The record made holding ip (a line's: its entry added), in the set sent back whole."""
    return rrset('create_rrset_record', job, zone_id, ip)


def update_record(job, zone_id, record, ip):
    """The record holding ip alone (a line's: its entry's address replaced), in the set sent back whole."""
    return rrset('update_rrset_record', job, zone_id, record, ip)


def delete_record(job, zone_id, record):
    """A line's entry taken out of the set sent back whole; one gone already is success."""
    return rrset('delete_rrset_record', job, zone_id, record)


def scrub(text, cfg):
    """text without the API key, in any form a server may echo it in."""
    from ddkit.mask import secret_forms
    for form in sorted(secret_forms(cfg.api_key), key=len, reverse=True):
        text = text.replace(form, '***')
    return text


def call(job, command, params, step):
    """One command, a GET with the key in the query; the object its answer holds under
    "<Command>Response", checked: ResponseCode 0 and Status success, else a Failure of step with the
    API's Error, the key taken out of all it shows. Dynadot answers an error at HTTP 200."""
    from ddkit import http, jsontext  # only on a request: a run that sends none loads none of it
    from ddkit.urls import quote
    cfg, log = job.cfg, job.log
    query = [('key', cfg.api_key), ('command', command)] + params
    url = '%s%s?%s' % (cfg.base_url, API_PATH, '&'.join('%s=%s' % (k, quote(v)) for k, v in query))
    # a read, or a whole set written again, may be sent again: its effect is the same
    answer = http.request('GET', url, step, timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=True)
    said = scrub(http.snippet(answer.nonempty().text), cfg)
    try:
        data = jsontext.loads(answer.body.decode('utf-8'))
    except ValueError:
        raise http.NotJson.at(step, '%s answered HTTP %d with no JSON: %s' % (answer.where, answer.status, said),
                              url=answer.where, status=answer.status,
                              kind='server error' if answer.status >= 500 else 'not json')
    found = [v for k, v in data.items() if k.endswith('Response') and isinstance(v, dict)] \
        if isinstance(data, dict) else []
    reply = found[0] if len(found) == 1 else {}
    code = reply.get('ResponseCode')
    code = str(code)[:12] if isinstance(code, (str, int)) and not isinstance(code, bool) else None
    if code is None:
        raise Failure.at(step, 'unexpected answer (HTTP %d): %s' % (answer.status, said), url=answer.where,
                         status=answer.status, kind='server error' if answer.status >= 500 else 'unexpected')
    if code == OK and reply.get('Status', 'success') == 'success' and answer.status < 300:
        return reply
    error = reply.get('Error')
    message = scrub(str(error)[:300], cfg) if isinstance(error, (str, int)) and not isinstance(error, bool) else None
    log.error('%s: error %s: %s' % (step, code, message))
    fix = FIXES.get(code)
    raise Failure.at(step, 'the provider refused the request (%scode %s: %s)%s' % (
        'HTTP %d, ' % answer.status if answer.status != 200 else '', code, message or 'no details',
        '; ' + fix if fix else ''), url=answer.where, status=answer.status, code=code, provider_message=message,
        fix=fix, kind='server error' if answer.status >= 500 else 'refused')
