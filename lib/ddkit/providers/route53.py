"""Amazon Route 53 (API 2013-04-01): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `route53`. Every request is signed AWS
Signature Version 4 (service route53, region us-east-1: the global endpoint's) with an access key, and
a temporary key's session token; the secret itself is never sent. Requests and answers are XML, read
without an XML parser (python3-light has none): the few elements needed, each found by its tags in
the bounded answer. A hosted zone is found by its name (ListHostedZonesByName; a private zone of the
same name is skipped); the record is the resource record set of its name and type, read with
ListResourceRecordSets, which is no filter: it starts at the name and type and lists what follows,
so the set read must carry the name and type asked for. A change is one ChangeResourceRecordSets
UPSERT, which replaces the whole set: it sends back the TTL read (a new set gets NEW_TTL). A set that
is an alias or of a routing policy (weighted, latency, ...) is left alone. Without `lines` the record
is the set holding one address; with `lines` each line's address is one value of the set (SEVERAL),
known again by its address or by its operator's prefix; the last one taken out deletes the set.
API reference: https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListHostedZonesByName.html,
https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html,
https://docs.aws.amazon.com/Route53/latest/APIReference/API_ChangeResourceRecordSets.html,
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html (signing)
"""

import time

from ddkit import Failure, rrset
from ddkit.provider import (PAGES, RRsetSession, Zone, declaration, host_header, key_pair, safe_id, secret_setting,
                            url_setting)

NAME = 'route53'
SUMMARY = 'Keep an A or AAAA record at Amazon Route 53 (Signature V4)'
API_PATH = '/2013-04-01'
SETTINGS = key_pair('access_key_id', 'Access key ID of an IAM user (AKIA...) or of a temporary key (ASIA...)',
                    'secret_access_key', 'its secret access key') + [
    secret_setting('session_token', 'the session token of a temporary key (from STS or an instance role); none for '
                   'an IAM user\'s access key'),
    url_setting('https://route53.amazonaws.com', 'Route 53 API endpoint (scheme and host)', API_PATH)]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, required=('access_key_id', 'secret_access_key'))
SEVERAL = True         # no resolution lines; a set holds several addresses: each line's is one of them
SERVICE, REGION = 'route53', 'us-east-1'   # the signing scope of the global endpoint
NAMESPACE = 'https://route53.amazonaws.com/doc/2013-04-01/'
NEW_TTL = 300          # a new set's TTL; an UPSERT of a set sends back its own
MAX_TTL = 2147483647
ZONE_PAGE = 100        # hosted zones a page of the account's listing (the API's most)
SAME_NAME = 10         # zones of one name a lookup by name reads: a public and a private one, or more
FIELD_MAX = 1000       # characters of one element's text read from an answer
PERMISSION = ('attach to the IAM user (or role) a policy allowing route53:ListHostedZones and '
              'route53:ListHostedZonesByName (resource *), route53:ListResourceRecordSets and '
              'route53:ChangeResourceRecordSets on arn:aws:route53:::hostedzone/<the zone\'s ID>')
CLOCK = 'this host\'s clock is more than 5 minutes off: set the time (NTP; OpenWrt: System > System > Time ' \
        'Synchronization)'
FIXES = {   # what to do about the API's error codes users meet (docs/providers.md)
    'SignatureDoesNotMatch': 'secret_access_key is not the secret of access_key_id: copy both from the same access '
                             'key; when the message says the signature expired, this host\'s clock is off: set the '
                             'time (NTP)',
    'InvalidClientTokenId': 'access_key_id is no access key of AWS (a deleted key is unknown too), or a temporary '
                            'key (ASIA...) without its session_token: check both, or create a new access key',
    'ExpiredToken': 'the temporary key\'s session_token has expired: get a new one, or use an IAM user\'s access '
                    'key, which does not expire',
    'RequestExpired': CLOCK,
    'AccessDenied': PERMISSION,
    'InvalidChangeBatch': 'Route 53 refused the change for the zone\'s records (its message says why: e.g. a CNAME '
                          'of the name): fix the records of record_name in the hosted zone',
    'InvalidInput': 'Route 53 refused a value of the request: check record_name and zone_name',
    'NoSuchHostedZone': 'the hosted zone is gone: check zone_name (the hosted zone\'s name, e.g. example.com)',
    'Throttling': 'too many requests to Route 53 (5 a second an account): run less often; the next run tries again',
    'PriorRequestNotComplete': 'a change to this hosted zone is still in progress: the next run tries again',
}


Session = RRsetSession


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.access_key_id


def login(job):
    """--check: the credentials are accepted when the hosted zones of zone_name are listed (a read
    call, which the zone lookup then takes)."""
    zones_named(job)
    return ' (access key %s%s)' % (job.cfg.access_key_id, ' with a session token' if job.cfg.session_token else '')


def zones_named(job):
    """The public hosted zones named zone_name, once a run: [(their ID, name)].
    https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListHostedZonesByName.html"""
    cfg = job.cfg
    query = {'dnsname': cfg.zone_name, 'maxitems': str(SAME_NAME)}
    return job.shared(('zones', account(cfg), cfg.zone_name), lambda: [
        zone for zone in public_zones(call(job, 'GET', '/hostedzonesbyname', 'find zone',
                                           'ListHostedZonesByNameResponse', query)) if zone[1] == cfg.zone_name])


def list_zones(job):
    """The public hosted zones named zone_name: [(ID, name)]."""
    return zones_named(job)


def choose_zone(job, zones):
    """The one public hosted zone of that name; none, or several (which is delegated to cannot be
    told from here), is a Failure."""
    name = job.cfg.zone_name
    if len(zones) == 1:
        return Zone(*zones[0])
    fix = ('check zone_name (a public hosted zone of this account, e.g. example.com)' if not zones else
           'delete the hosted zones of %s that are not delegated to (whose NS records the registrar does not '
           'hold), then run again' % name)
    said = 'no public hosted zone named %s in this account' % name if not zones else \
        '%d public hosted zones are named %s (%s)' % (len(zones), name, ', '.join(z[0] for z in zones))
    raise Failure.at('find zone', '%s; %s' % (said, fix), kind='not found' if not zones else 'unexpected', fix=fix)


def account_zones(job):
    """Every public hosted zone of the account, page by page (marker, maxitems); more than PAGES pages
    is a Failure asking for zone_name.
    https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListHostedZones.html"""
    from ddkit import rest
    marker = ['']

    def page(n):
        query = dict({'maxitems': str(ZONE_PAGE)}, **({'marker': marker[0]} if marker[0] else {}))
        text = call(job, 'GET', '/hostedzone', 'find zone', 'ListHostedZonesResponse', query)
        marker[0] = safe_id(value(text, 'NextMarker')) or ''
        return [Zone(*z) for z in public_zones(text)], value(text, 'IsTruncated') == 'true' and bool(marker[0])
    return rest.listed_zones(page, PAGES, '%d hosted zones' % (PAGES * ZONE_PAGE))


def public_zones(text):
    """[(ID, name)] of the public hosted zones an answer lists: the ID without its /hostedzone/, the
    name lower-case without the root's dot."""
    found = []
    for zone in elements(text, 'HostedZone'):
        zone_id = safe_id((value(zone, 'Id') or '').rpartition('/')[2])
        name = dns_name(value(zone, 'Name'))
        if zone_id and name and value(zone, 'PrivateZone') != 'true':
            found.append((zone_id, name))
    return found


def dns_name(text):
    """A name as Route 53 writes it (\\ddd octal escapes, a trailing dot), lower-case, without the dot;
    '' for none."""
    if not text:
        return ''
    parts = text.split('\\')
    for n, part in enumerate(parts[1:], 1):
        parts[n] = chr(int(part[:3], 8)) + part[3:] if part[:3].isdigit() and '8' not in part[:3] and \
            '9' not in part[:3] else '\\' + part
    return ''.join(parts).lower().rstrip('.')


# The record is a resource record set (ddkit.rest's RRset): its entries are its values, and an
# UPSERT replaces the whole set, so an update sends back its TTL.

def get_rrset(job, zone_id, step):
    """The set of the record's name and type: {'ttl', 'values', 'health'}, or None. The listing
    starts at that name and type: the set it gives first is the record's only when it carries both.
    https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html"""
    cfg = job.cfg
    text = call(job, 'GET', '/hostedzone/%s/rrset' % zone_id, step, 'ListResourceRecordSetsResponse', {
        'name': cfg.record_name, 'type': cfg.record_type, 'maxitems': '1'}, stale=True)
    found = elements(text, 'ResourceRecordSet')
    if not found or dns_name(value(found[0], 'Name')) != cfg.record_name or value(found[0], 'Type') != cfg.record_type:
        return None
    rrset = found[0]
    if '<AliasTarget>' in rrset or '<SetIdentifier>' in rrset:
        fix = 'ddkit keeps a simple record: make %s a simple record, or use another name' % cfg.record_name
        raise Failure.at(step, 'the %s record %s is %s at Route 53; %s' % (
            cfg.record_type, cfg.record_name, 'an alias' if '<AliasTarget>' in rrset else 'of a routing policy', fix),
            kind='unexpected', fix=fix)
    from ddkit.provider import number
    ttl = number(value(rrset, 'TTL'))
    return {'type': cfg.record_type, 'ttl': ttl if ttl is not None and ttl <= MAX_TTL else None,
            'values': [v for v in (unescaped(v) for v in elements(rrset, 'Value')) if v],
            'health': safe_id(value(rrset, 'HealthCheckId'))}


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and rrset.get('type') == cfg.record_type


def entries(rrset, step):
    """The values a set holds."""
    return list((rrset or {}).get('values', []))


def address(held):
    return held


def entry(ip, like=None):
    return ip


def write_rrset(job, zone_id, found, values, step):
    """The set made to hold these values by one UPSERT, its TTL (and health check) as read (a new set:
    NEW_TTL); no values: the set as read is deleted (a DELETE must name it exactly).
    https://docs.aws.amazon.com/Route53/latest/APIReference/API_ChangeResourceRecordSets.html"""
    cfg, found = job.cfg, found or {}
    action = 'UPSERT' if values else 'DELETE'
    held = values or found.get('values', [])
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n<ChangeResourceRecordSetsRequest xmlns="%s"><ChangeBatch>'
            '<Changes><Change><Action>%s</Action><ResourceRecordSet><Name>%s.</Name><Type>%s</Type><TTL>%d</TTL>'
            '<ResourceRecords>%s</ResourceRecords>%s</ResourceRecordSet></Change></Changes></ChangeBatch>'
            '</ChangeResourceRecordSetsRequest>' % (
                NAMESPACE, action, escaped(cfg.record_name), cfg.record_type, found.get('ttl') or NEW_TTL,
                ''.join('<ResourceRecord><Value>%s</Value></ResourceRecord>' % escaped(v) for v in held),
                '<HealthCheckId>%s</HealthCheckId>' % found['health'] if found.get('health') else ''))
    call(job, 'POST', '/hostedzone/%s/rrset/' % zone_id, step, 'ChangeResourceRecordSetsResponse',
         body=body.encode('utf-8'), stale=True, repeatable=bool(values))


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records(named=False)


# --- XML, read and written by hand ------------------------------------------------------------------

def elements(text, tag):
    """The texts inside each <tag>...</tag> of text, in order (the API nests no element in one of its
    own name)."""
    found, at = [], 0
    while True:
        start = text.find('<%s>' % tag, at)
        end = text.find('</%s>' % tag, start) if start >= 0 else -1
        if end < 0:
            return found
        found.append(text[start + len(tag) + 2:end])
        at = end


def value(text, tag):
    """The text of the first <tag> element, stripped and bounded, its entities left; None when none."""
    found = elements(text, tag)
    return found[0].strip() if found and len(found[0]) <= FIELD_MAX else None


ENTITIES = (('&lt;', '<'), ('&gt;', '>'), ('&quot;', '"'), ('&apos;', "'"), ('&amp;', '&'))


def unescaped(text):
    """An element's text with its XML entities undone."""
    text = text.strip()[:FIELD_MAX]
    for entity, char in ENTITIES:
        text = text.replace(entity, char)
    return text


def escaped(text):
    """Text as an XML element holds it."""
    for entity, char in reversed(ENTITIES[:2] + ENTITIES[4:]):
        text = text.replace(char, entity)
    return text


# --- one signed call ------------------------------------------------------------------------------

def sign(cfg, method, url, query, payload, timestamp):
    """The headers of one request signed AWS Signature Version 4: X-Amz-Date, the session token's
    X-Amz-Security-Token when there is one, and the Authorization over the method, the path, the
    canonical query, the Host and those headers, and the payload's SHA-256, as botocore's SigV4Auth
    signs. https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html"""
    import hashlib
    import hmac
    from ddkit.urls import split_url
    when = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(timestamp))
    signed = {'host': host_header(url), 'x-amz-date': when}
    if cfg.session_token:
        signed['x-amz-security-token'] = cfg.session_token
    names = sorted(signed)
    canonical = '\n'.join((method, '/' + split_url(url)[3], query, ''.join('%s:%s\n' % (n, signed[n]) for n in names),
                           ';'.join(names), hashlib.sha256(payload).hexdigest()))
    scope = '%s/%s/%s/aws4_request' % (when[:8], REGION, SERVICE)
    to_sign = 'AWS4-HMAC-SHA256\n%s\n%s\n%s' % (when, scope, hashlib.sha256(canonical.encode('utf-8')).hexdigest())
    key = ('AWS4' + cfg.secret_access_key).encode('utf-8')
    for part in (when[:8], REGION, SERVICE, 'aws4_request'):
        key = hmac.new(key, part.encode('utf-8'), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode('utf-8'), hashlib.sha256).hexdigest()
    del signed['host']   # ddkit.wire sends it
    signed['Authorization'] = 'AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s' % (
        cfg.access_key_id, scope, ';'.join(names), signature)
    return signed


def call(job, method, path, step, root, query=None, body=b'', stale=False, repeatable=True):
    """One signed API call; its answer's text (XML), whose root element is root (else no answer of
    the API's: a Failure). An error answer is a Failure of step with the API's code and message and its
    fix; stale: NoSuchHostedZone raises Stale (the stored zone is gone: the loop looks again).
    repeatable: the request may be sent again after a lost answer (an UPSERT; not a DELETE, which then
    finds nothing to delete)."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    from ddkit.provider import Stale, canonical_query
    cfg = job.cfg
    url = cfg.base_url + API_PATH + path
    canonical = canonical_query(query or {})
    headers = sign(cfg, method, url, canonical, body, time.time())
    if body:
        headers['Content-Type'] = 'application/xml'
    answer = http.request(method, url + ('?' + canonical if canonical else ''), step, headers=headers,
                          data=body or None, timeout=cfg.timeout, ca_file=cfg.ca_file, repeatable=repeatable)
    text = answer.text
    if 200 <= answer.status < 300:
        if '<%s ' % root in text[:300] or '<%s>' % root in text[:300]:
            return text
        raise http.NotJson.at(step, '%s answered HTTP %d with no answer of Route 53\'s: %s' % (
            answer.where, answer.status, http.snippet(text)), url=answer.where, status=answer.status, kind='not json')
    # an InvalidChangeBatch answer is an element of that name holding its messages; the others an Error
    code = safe_id(value(text, 'Code')) or ('InvalidChangeBatch' if '<InvalidChangeBatch' in text else None)
    message = unescaped(value(text, 'Message') or '')[:300] or None
    if code:
        job.log.error('%s: HTTP %d, error %s: %s' % (step, answer.status, code, message))
    if code == 'NoSuchHostedZone' and stale:
        raise Stale()
    raise rest.code_refused(job, answer, step, code, message, server=('InternalFailure', 'ServiceUnavailable'))
