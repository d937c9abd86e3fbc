"""Google Cloud DNS (API v1, RRsets): keep one A or AAAA record equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `googlecloud`. A service account's JSON key
(key_file, or its text in key_json) signs a JWT with RS256 (RSASSA-PKCS1-v1_5 and SHA-256, computed
here with pow() on the key's numbers, read from its PEM's DER by hand: no crypto library), which the
key's token_uri exchanges for an OAuth access token; the token is kept (mode 600) and sent as Bearer
until shortly before it expires. The key file is read as the tool reads its own files: a regular
file of root or this user, never through a link, and refused when another user could change it. A
managed zone is found by its DNS name (a private one is skipped); the record is the RRset of its name
and type (names end with a dot), changed by a PATCH that sends its TTL back, made by a POST. A record
without lines is the RRset holding one address; with `lines` each line's address is one rrdata of the
RRset (SEVERAL), known again by its address or by its operator's prefix.
API reference: https://cloud.google.com/dns/docs/reference/rest/v1/managedZones/list,
https://cloud.google.com/dns/docs/reference/rest/v1/resourceRecordSets (list, create, patch, delete),
https://developers.google.com/identity/protocols/oauth2/service-account (the JWT and the token)
"""

import time

from ddkit import Failure, rrset
from ddkit.provider import ProviderSession, Zone, declaration, listing, safe_id, secret_setting, url_setting
from ddkit.settings import Setting, check_text

NAME = 'googlecloud'
SUMMARY = 'Keep an A or AAAA record at Google Cloud DNS (API v1)'
API_PATH = '/dns/v1'
SETTINGS = [
    Setting('key_file', help='the service account\'s JSON key file (IAM, Service accounts, Keys, Add key, JSON), '
            'mode 600, owned by root or the user ddkit runs as', check=check_text, label='Key file'),
    secret_setting('key_json', 'the JSON key\'s text itself, instead of key_file', check=check_text,
                   label='Key (JSON)'),
    Setting('project_id', help='the project holding the managed zone (default: the key\'s project_id)',
            check=check_text, label='Project ID'),
    url_setting('https://dns.googleapis.com', 'Cloud DNS API base URL, scheme and host (a trailing /dns/v1 is '
                'taken off)', API_PATH),
]
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS, required=(), auth_file='token')
SEVERAL = True        # no resolution lines; an RRset holds several addresses: each line's is one of them
SCOPE = 'https://www.googleapis.com/auth/ndev.clouddns.readwrite'
GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
LIFETIME = 3600       # seconds a JWT is valid (the most Google takes)
EARLY = 300           # a token is renewed this long before it expires
KEY_MAX = 16384       # bytes of a key file read (a 2048-bit key's JSON: about 2.4 KB)
TOKEN_MAX = 4096      # characters of a token kept
NEW_TTL = 300         # a new RRset's TTL; a PATCH sends back the RRset's own
MAX_TTL = 2147483647
ZONE_PAGES = 4
DIGEST_INFO = bytes.fromhex('3031300d060960864801650304020105000420')   # DER of SHA-256's DigestInfo, less the hash
PERMISSION = ('grant the service account, on the project, a role with dns.managedZones.list, '
              'dns.resourceRecordSets.list, dns.resourceRecordSets.create, dns.resourceRecordSets.update (and '
              'dns.resourceRecordSets.delete for lines) and dns.changes.create (the predefined DNS Administrator '
              'works with much more)')
CLOCK = 'this host\'s clock is off: set the time (NTP; OpenWrt: System > System > Time Synchronization)'
FIXES = {   # what to do about the token's and the API's error codes users meet (docs/providers.md)
    'invalid_grant': 'Google refused the signed key: the key was deleted or is not this service account\'s '
                     '(make a new JSON key), or ' + CLOCK,
    'invalid_client': 'the service account is disabled or deleted: enable it, or make a key of another one',
    'unauthorized_client': 'the service account may not get a token this way: make a new JSON key of it',
    'invalid_scope': 'the token\'s scope was refused: report it to the ddkit project',
    'forbidden': PERMISSION + '; or the project is wrong (project_id), or its Cloud DNS API is not enabled '
                 '(enable dns.googleapis.com)',
    'accessNotConfigured': 'enable the Cloud DNS API (dns.googleapis.com) in the project',
    'notFound': 'zone_name must be a public managed zone of the project (its DNS name, e.g. example.com)',
    'conditionNotMet': 'the RRset changed meanwhile: the next run reads it again',
    'invalid': 'Cloud DNS refused a value of the request: check record_name and the zone\'s records',
    'rateLimitExceeded': 'too many requests to Cloud DNS (the project\'s quota): run less often',
}


class Session(ProviderSession):
    """The service account's key as read, the token this run uses (and whether it came from the token
    file), and the RRset this record's run read last (a line's create adds its address to it)."""

    def __init__(self):
        self.key = self.token = None
        self.cached = False
        self.read, self.rrset = False, None


def missing_credentials(cfg):
    """[(setting, fix)]: a key is needed, in key_file or key_json."""
    if cfg.key_file or cfg.key_json:
        return []
    return [('key_file', 'set key_file to the service account\'s JSON key file (or its text in key_json)')]


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.key_file, cfg.key_json, cfg.project_id   # in memory only: run keys


def login(job):
    """--check: a token is given for the key (never the kept one) and the zone listing answers."""
    zones_named(job)
    return ' (service account %s, project %s)' % (service_key(job)['client_email'], project(job))


# --- the service account's key -------------------------------------------------------------------

def service_key(job):
    """The key's fields (client_email, private_key, private_key_id, token_uri, project_id), read once a
    record's run from key_json or key_file; a key that cannot be read or used is a Failure naming it."""
    if job.session.key is None:
        from ddkit import jsontext
        from ddkit.settings import check_url
        cfg = job.cfg
        setting = 'key_json' if cfg.key_json else 'key_file'
        text = cfg.key_json or key_text(job, cfg.key_file)
        try:
            data = jsontext.loads(text)
        except ValueError:
            data = None
        fields = ('client_email', 'private_key', 'private_key_id', 'token_uri')
        data = data if isinstance(data, dict) else {}
        try:
            if not all(isinstance(data.get(k), str) and data[k] for k in fields):
                raise ValueError('it lacks one of %s' % ', '.join(fields))
            check_url(data['token_uri'])
            job.log.add_secret(data['private_key'])
        except ValueError as e:
            fix = '%s must be a service account\'s JSON key, as Google Cloud gives it' % setting
            raise Failure.at('get token', '%s is no service account key (%s); %s' % (setting, e, fix),
                             kind='unexpected', fix=fix, setting=setting)
        job.session.key = data
    return job.session.key


def key_text(job, path):
    """The key file's text, read as the tool reads its own files: a regular file of root or this user,
    never through a link, that no other user can change (a key readable by them is warned of)."""
    from ddkit.native import os
    from ddkit import state
    fix = 'key_file must be a regular file of root or this user: chown root %s; chmod 600 %s' % (path, path)
    try:
        fd, st = state.open_file(path, os.O_RDONLY, keep=0o7777, stat=True)
    except OSError as e:
        raise Failure.at('get token', 'cannot read key_file %s: %s' % (path, e.strerror or e), kind='state',
                         fix=fix, setting='key_file')
    try:
        if os.name == 'posix' and st.st_mode & 0o022:
            raise Failure.at('get token', 'key_file %s (mode %04o) can be changed by another user: refused' % (
                path, st.st_mode & 0o7777), kind='state', fix=fix, setting='key_file')
        if os.name == 'posix' and st.st_mode & 0o044:
            job.log.info('key_file %s is readable by other users; run: chmod 600 %s' % (path, path))
        return os.read(fd, KEY_MAX).decode('utf-8', 'replace')
    finally:
        os.close(fd)


def project(job):
    """The project of the managed zone: project_id, else the key's."""
    found = job.cfg.project_id or service_key(job).get('project_id')
    if not isinstance(found, str) or not safe_id(found):
        fix = 'set project_id (the project holding the managed zone)'
        raise Failure.at('find zone', 'no project: the key names none; %s' % fix, kind='unexpected', fix=fix,
                         setting='project_id')
    return found


# --- RS256: RSASSA-PKCS1-v1_5 with SHA-256, by hand -----------------------------------------------

def der(data, at=0):
    """(tag, value, the offset after it) of the DER element at offset at; ValueError when it does not
    fit in data."""
    if at + 2 > len(data):
        raise ValueError('the key is cut short')
    tag, size, at = data[at], data[at + 1], at + 2
    if size & 0x80:
        count = size & 0x7f
        if not 0 < count <= 4 or at + count > len(data):
            raise ValueError('the key has a length it cannot have')
        size, at = int.from_bytes(data[at:at + count], 'big'), at + count
    if at + size > len(data):
        raise ValueError('the key is cut short')
    return tag, data[at:at + size], at + size


def der_items(data):
    """The elements of a DER SEQUENCE's value."""
    items, at = [], 0
    while at < len(data):
        tag, value, at = der(data, at)
        items.append((tag, value))
    return items


def rsa_numbers(pem):
    """(n, e, d, p, q, dP, dQ, qInv) of an RSA private key in PEM: PKCS#8 (BEGIN PRIVATE KEY, what
    Google's keys hold) or PKCS#1 (BEGIN RSA PRIVATE KEY). ValueError when it is neither.
    https://www.rfc-editor.org/rfc/rfc5208 (PKCS#8), https://www.rfc-editor.org/rfc/rfc8017#appendix-A.1.2"""
    import binascii
    kinds = {'PRIVATE KEY': 8, 'RSA PRIVATE KEY': 1}
    for label, kind in kinds.items():
        begin, end = '-----BEGIN %s-----' % label, '-----END %s-----' % label
        if begin in pem and end in pem:
            break
    else:
        raise ValueError('no PEM private key')
    try:
        data = binascii.a2b_base64(pem.split(begin, 1)[1].split(end, 1)[0])
    except binascii.Error:
        raise ValueError('its PEM is not base64')
    tag, body, _ = der(data)
    items = der_items(body) if tag == 0x30 else []
    if kind == 8:   # PrivateKeyInfo: version, AlgorithmIdentifier (rsaEncryption), OCTET STRING of PKCS#1
        if len(items) < 3 or items[2][0] != 0x04 or bytes.fromhex('2a864886f70d010101') not in items[1][1]:
            raise ValueError('not an RSA key')
        tag, body, _ = der(items[2][1])
        items = der_items(body) if tag == 0x30 else []
    if len(items) < 9 or any(t != 0x02 for t, _ in items[:9]):
        raise ValueError('not an RSA private key')
    return tuple(int.from_bytes(value, 'big') for _, value in items[1:9])


def rs256(pem, message):
    """The RS256 signature of message (bytes): EMSA-PKCS1-v1_5 of its SHA-256, to the power d mod n (by
    the Chinese remainder theorem), checked with e before it is used.
    https://www.rfc-editor.org/rfc/rfc8017#section-8.2.1"""
    import hashlib
    n, e, d, p, q, dp, dq, qinv = rsa_numbers(pem)
    size = (n.bit_length() + 7) // 8
    digest = DIGEST_INFO + hashlib.sha256(message).digest()
    if size < len(digest) + 11:
        raise ValueError('the key is too short')
    m = int.from_bytes(b'\x00\x01' + b'\xff' * (size - len(digest) - 3) + b'\x00' + digest, 'big')
    m1, m2 = pow(m, dp, p), pow(m, dq, q)
    s = m2 + (qinv * (m1 - m2) % p) * q
    if pow(s, e, n) != m:   # numbers that do not belong together: a key damaged or not RSA's
        raise ValueError('its numbers do not make a working key')
    return s.to_bytes(size, 'big')


def b64url(data):
    import base64
    return base64.urlsafe_b64encode(data).rstrip(b'=').decode('ascii')


def assertion(key, now):
    """The JWT a token is asked for with: RS256 over base64url(header).base64url(claims).
    https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests"""
    from ddkit import jsontext
    header = {'alg': 'RS256', 'typ': 'JWT', 'kid': key['private_key_id']}
    claims = {'iss': key['client_email'], 'scope': SCOPE, 'aud': key['token_uri'], 'iat': now, 'exp': now + LIFETIME}
    signed = '%s.%s' % (b64url(jsontext.dumps(header).encode('utf-8')), b64url(jsontext.dumps(claims).encode('utf-8')))
    return '%s.%s' % (signed, b64url(rs256(key['private_key'], signed.encode('ascii'))))


# --- the access token ----------------------------------------------------------------------------

def token(job):
    """The access token: this run's, the token file's while it has more than EARLY seconds left and is
    of this key, else a new one."""
    from ddkit import decimal, state
    cfg, log = job.cfg, job.log
    if job.session.token:
        return job.session.token
    key = service_key(job)
    known = job.run.recall(('token', account(cfg)))
    lines = [] if known or cfg.check else state.read_lines(job.files['auth_file'], limit=TOKEN_MAX, private=True)
    # '<expiry> <token> <the id of the key it was got with>': a token of another key is not used
    expiry, kept, kid = (lines[0].split(' ', 2) + ['', ''])[:3] if lines else ('', '', '')
    if known or kid in ('', key['private_key_id']) and safe_token(kept) and \
            time.time() < ((decimal(expiry) if len(expiry) <= 12 else None) or 0):
        job.session.token, job.session.cached = known or kept, True
    else:
        job.session.token, job.session.cached = new_token(job, key), False
    log.add_secret(job.session.token)
    job.run.remember(('token', account(cfg)), job.session.token)
    return job.session.token


def safe_token(text):
    """True for a token that is safe in a header (what Google gives: letters, digits, '.', '-', '_')."""
    return bool(text) and len(text) <= TOKEN_MAX and all(c.isalnum() and c.isascii() or c in '.-_~+/=' for c in text)


def new_token(job, key):
    """A token for a JWT signed with the key, from its token_uri; kept (mode 600) until EARLY seconds
    before it expires. https://developers.google.com/identity/protocols/oauth2/service-account"""
    from ddkit import http, rest
    from ddkit.provider import number
    from ddkit.urls import quote
    cfg = job.cfg
    job.log.info('Getting a token for service account %s.' % key['client_email'])
    try:
        jwt = assertion(key, int(time.time()))
    except ValueError as e:
        fix = 'make a new JSON key of the service account: its private_key is not a usable RSA key'
        raise Failure.at('get token', 'the key cannot sign (%s); %s' % (e, fix), kind='unexpected', fix=fix,
                         setting='key_json' if cfg.key_json else 'key_file')
    body = ('grant_type=%s&assertion=%s' % (quote(GRANT), jwt)).encode('ascii')
    answer = http.request('POST', key['token_uri'], 'get token', data=body, timeout=cfg.timeout, ca_file=cfg.ca_file,
                          headers={'Content-Type': 'application/x-www-form-urlencoded'}, repeatable=True)
    data = rest.error_json(answer)
    found = data.get('access_token')
    if answer.status == 200 and isinstance(found, str) and safe_token(found):
        job.log.add_secret(found)
        life = number(data.get('expires_in'))
        expiry = int(time.time()) + min(life if life is not None else 0, LIFETIME) - EARLY
        job.save(job.files['auth_file'], ['%d %s %s' % (expiry, found, key['private_key_id'])], private=True,
                 cache=True)
        return found
    code = data.get('error') if isinstance(data.get('error'), str) else None
    said = data.get('error_description')
    said = str(said)[:300] if isinstance(said, str) else None
    job.log.error('get token: HTTP %d, error %s: %s' % (answer.status, code, said))
    raise rest.code_refused(job, answer, 'get token', code and code[:80], said)


def drop_token(job):
    """Forget a token the API refused: the next request gets a new one."""
    job.discard(job.files['auth_file'])
    job.session.token, job.session.cached = None, False
    job.run.remember(('token', account(job.cfg)), None)


# --- zones ----------------------------------------------------------------------------------------

def zones(job, query, step):
    """The public managed zones of the project a listing gives, page by page: [Zone(its name, its DNS
    name)]. https://cloud.google.com/dns/docs/reference/rest/v1/managedZones/list"""
    from ddkit import rest

    after = ['']   # the next page's token

    def page(n):
        asked = dict(query, **({'pageToken': after[0]} if after[0] else {}))
        data = call(job, 'GET', '/projects/%s/managedZones' % project(job), step, query=asked)
        after[0] = data['nextPageToken'] if isinstance(data.get('nextPageToken'), str) else ''
        found = [Zone(safe_id(z.get('name')), str(z.get('dnsName', '')).lower().rstrip('.'))
                 for z in listing(data, 'managedZones', step) if z.get('visibility', 'public') == 'public']
        return [z for z in found if z.id and z.name], bool(after[0])
    return rest.listed_zones(page, ZONE_PAGES, 'four pages of managed zones')


def zones_named(job):
    """The public managed zones whose DNS name is zone_name, once a run."""
    cfg = job.cfg
    return job.shared(('zones', account(cfg), cfg.zone_name), lambda: [
        z for z in zones(job, {'dnsName': cfg.zone_name + '.'}, 'find zone') if z.name == cfg.zone_name])


def list_zones(job):
    return zones_named(job)


def choose_zone(job, found):
    """The public managed zone of zone_name (its name, e.g. example-com, is what the paths name)."""
    if not found:
        fix = FIXES['notFound']
        raise Failure.at('find zone', 'no public managed zone of %s in project %s; %s' % (
            job.cfg.zone_name, project(job), fix), kind='not found', fix=fix)
    return found[0]


def account_zones(job):
    """Every public managed zone of the project."""
    return zones(job, {}, 'find zone')


# The record is an RRset (ddkit.rest): its entries are its rrdatas, and a PATCH sends the RRset whole:
# its TTL as read.

def fqdn(cfg):
    return cfg.record_name + '.'


def get_rrset(job, zone_id, step):
    """The RRset of the record's name and type, or None; one of a routing policy is left alone.
    https://cloud.google.com/dns/docs/reference/rest/v1/resourceRecordSets/list"""
    cfg = job.cfg
    data = call(job, 'GET', '/projects/%s/managedZones/%s/rrsets' % (project(job), zone_id), step, stale=True,
                query={'name': fqdn(cfg), 'type': cfg.record_type})
    found = [r for r in listing(data, 'rrsets', step) if str(r.get('name', '')).lower() == fqdn(cfg)
             and r.get('type') == cfg.record_type]
    if found and 'routingPolicy' in found[0]:
        fix = 'ddkit keeps a plain RRset: make %s one without a routing policy, or use another name' % cfg.record_name
        raise Failure.at(step, 'the %s RRset of %s has a routing policy; %s' % (cfg.record_type, cfg.record_name, fix),
                         kind='unexpected', fix=fix)
    return found[0] if found else None


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and rrset.get('type') == cfg.record_type and \
        isinstance(rrset.get('rrdatas', []), list)


def entries(rrset, step):
    """The addresses an RRset holds."""
    return [r for r in (rrset or {}).get('rrdatas', []) if isinstance(r, str)]


def address(held):
    return held


def entry(ip, like=None):
    return ip


def write_rrset(job, zone_id, found, rrdatas, step):
    """The RRset made to hold these rrdatas: a PATCH of it with its TTL as read, a POST of a new one
    (NEW_TTL), a DELETE of it when none are left.
    https://cloud.google.com/dns/docs/reference/rest/v1/resourceRecordSets/patch (and create, delete)"""
    from ddkit.provider import number
    cfg = job.cfg
    path = '/projects/%s/managedZones/%s/rrsets' % (project(job), zone_id)
    named = '%s/%s/%s' % (path, fqdn(cfg), cfg.record_type)
    if not rrdatas:
        call(job, 'DELETE', named, step, stale=True)
        return
    ttl = number((found or {}).get('ttl'))
    body = {'name': fqdn(cfg), 'type': cfg.record_type, 'ttl': ttl if ttl and ttl <= MAX_TTL else NEW_TTL,
            'rrdatas': rrdatas}
    if found is None:
        call(job, 'POST', path, step, body, stale=True, exists=True)
    else:
        call(job, 'PATCH', named, step, body, stale=True)


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records(named=False)


# --- one call -------------------------------------------------------------------------------------

def call(job, method, path, step, body=None, query=None, stale=False, exists=False):
    """One API call with the token; its JSON answer ({} when it has none). A token refused (HTTP 401) is
    dropped and a new one asked once; stale: HTTP 404 raises Stale (the zone or the RRset is gone: the
    loop looks again); exists: HTTP 409 raises Exists (a create met the RRset). An error answer is a
    Failure of step with the API's reason (error.errors[].reason) and message and the fix."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    from ddkit.provider import Exists, Stale, canonical_query
    cfg = job.cfg
    url = cfg.base_url + API_PATH + path + ('?' + canonical_query(query) if query else '')
    for attempt in (1, 2):
        answer = http.request(method, url, step, json_body=body, timeout=cfg.timeout, ca_file=cfg.ca_file,
                              headers={'Authorization': 'Bearer ' + token(job)}, repeatable=method != 'POST')
        if answer.status != 401 or attempt == 2:
            break
        job.log.info('%s: the token was refused (HTTP 401); getting a new one.' % step)
        drop_token(job)
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=True)
    error = rest.error_json(answer).get('error')
    error = error if isinstance(error, dict) else {}
    reasons = [e.get('reason') for e in listing(error, 'errors', step) if isinstance(e.get('reason'), str)]
    code = reasons[0][:80] if reasons else error.get('status') if isinstance(error.get('status'), str) else None
    said = str(error['message'])[:300] if isinstance(error.get('message'), str) else None
    job.log.error('%s: HTTP %d, error %s: %s' % (step, answer.status, code, said))
    if answer.status == 404 and stale:
        raise Stale()
    if answer.status == 409 and exists:
        raise Exists()
    raise rest.code_refused(job, answer, step, code, said)
