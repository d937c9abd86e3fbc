"""What a DNS provider module works with (docs/design.md, "The provider contract"): the record's run
(Job), the run of several records (Run), the values the shared loop reads (Zone, Record), the
outcomes a provider raises (Stale, Exists), small helpers for its answers, and the parts of request
signing that several providers' APIs share (Tencent Cloud's TC3, Alibaba Cloud's canonical query).

A provider module supplies only its API; ddkit.reconcile drives it, ddkit.check diagnoses through it.
"""

import time

from ddkit import Failure
from ddkit.native import os


class Stale(Exception):
    """The stored zone or record id is no longer valid at the provider: the loop looks them up again."""


class Exists(Exception):
    """A create met a record of the same name and type: the loop finds that one and updates it."""


class Absent(Failure):
    """The provider says there is no such record (a failed lookup a caller may take as "none")."""


class Zone:
    """The zone a record belongs to: its id, its name, and the other zones a loose listing showed."""

    def __init__(self, id, name, others=()):
        self.id, self.name, self.others = id, name, list(others)


class Record:
    """A record as the provider holds it: its id and addresses (None: not read, e.g. an id from the
    ids file that the update's answer will confirm), and the provider's own object."""

    def __init__(self, id, content=None, raw=None):
        self.id, self.content, self.raw = id, content, raw or {}

    def holds(self, ip):
        """True when the record holds exactly this address."""
        from ddkit import ipcheck
        return self.content is not None and len(self.content) == 1 and ipcheck.same_ip(str(self.content[0]), ip)


# --- what most providers declare alike ------------------------------------------------------------

def state_files(name, ids=True, **own):
    """A provider's FILES, named after it (its NAME): the ip file '.<name>-ip_%s.txt', the ids file
    '.<name>-id_%s.txt' (ids; none for a provider only told the IP) and its own files by role, each
    named by its word (hold_file='hold': '.<name>-hold_%s.txt'). The seed tools' providers keep the
    names their tools had."""
    files = {'ip_file': '.%s-ip_%%s.txt' % name}
    if ids:
        files['ids_file'] = '.%s-id_%%s.txt' % name
    files.update((role, '.%s-%s_%%s.txt' % (name, word)) for role, word in own.items())
    return files


def declaration(name, settings, noun='record', required=None, urls=('base_url',), ids=True, **own):
    """(STEM, FILES, REQUIRED, URLS, NOUN) of a provider no seed tool runs, from its NAME and SETTINGS:
    its lock and log files' prefix ddkit_<name>, its state files (state_files: ids, own), the
    settings it cannot run without (those without a default, unless required names them), its URL
    settings and what it calls a record (noun)."""
    if required is None:
        required = tuple(s.name for s in settings if s.default is None)
    return 'ddkit_' + name, state_files(name, ids, **own), required, urls, noun


def secret_setting(name, help, check=None, label=None):
    """A credential's setting (a token, a password, a key's secret): its value is masked in every
    message; check: its check, ddkit.settings.check_header (one header's value) unless given; label:
    what a form calls it (ddkit.settings.Setting)."""
    from ddkit.settings import Setting, check_header
    return Setting(name, help=help, secret=True, check=check or check_header, label=label)


def key_pair(key_id, id_help, secret, secret_help, check=None, label=None):
    """The settings of an access key: its ID (key_id, shown; label: what a form calls it) and its
    secret (masked), each checked by check (ddkit.settings.check_header unless given)."""
    from ddkit.settings import Setting, check_header
    return [Setting(key_id, help=id_help, check=check or check_header, label=label),
            secret_setting(secret, secret_help, check=check)]


def site_fixes(lister, key, user, actions):
    """The fixes of the refusals of an API whose zones are sites (a CDN's): (the key may not change the
    site's records, the site is not the key's account's). lister: the console listing the sites; key:
    what the credential is called; user: whose policy grants it; actions: the ones a run calls, as a
    policy names them (esa:ListSites)."""
    permission = 'grant the %s access to the site\'s DNS records: a policy allowing %s and %s' % (
        user, ', '.join(actions[:-1]), actions[-1])
    site = 'check zone_name (the site as %s lists it, e.g. example.com) and that the %s belongs to the site\'s ' \
        'account' % (lister, key)
    return permission, site


def token_settings(token_help, default, url_help=None, api_path=''):
    """The settings of an API that takes one token: api_token (masked), and the base URL (its
    default, help and API path: url_setting)."""
    return [secret_setting('api_token', token_help), url_setting(default, url_help, api_path)]


def url_setting(default, help=None, api_path='', name='base_url', label=None):
    """The setting of the API's base URL, scheme and host (ddkit.settings.api_base_url: api_path, the
    path the provider's documents write it with, is taken off; the tool adds it to every call), its
    help saying so unless given."""
    from ddkit.settings import Setting, api_base_url
    help = help or ('API base URL (a trailing %s, as the provider\'s documents write it, is taken off: the tool '
                    'adds it)' % api_path)
    return Setting(name, default, help=help, check=api_base_url(api_path), label=label)


class ProviderSession:
    """What a provider keeps for itself during one record's run (a token): each Job gets one of the
    provider's Session class (this one when it keeps nothing), and only the provider reads it."""

class RRsetSession(ProviderSession):
    """The Session of a provider whose record is an RRset (ddkit.rest): the RRset this record's run
    read last (a line's create adds its address to it), and whether one was read (None: there is
    none)."""

    def __init__(self):
        self.read, self.rrset = False, None


class Run:
    """What the records of one run share: lookups made once (zone, listing, current IP, token), the
    health-check pings and notify's notices to send at the end, and whether it runs several records."""

    def __init__(self, several=False):
        self.cache, self.pings, self.several = {}, {}, several
        self.notices = []   # [(notify URLs, (what, line) or None, ca_file, timeout, proxy route)]: ddkit.notices

    def shared(self, key, make):
        """make(), once per key in this run; a Failure is kept too (every record sharing it fails)."""
        if key is None:
            return make()
        if key not in self.cache:
            try:
                self.cache[key] = (True, make())
            except Failure as e:
                self.cache[key] = (False, e)
        done, value = self.cache[key]
        if not done:
            raise value
        return value

    def remember(self, key, value):
        """Keep value for the other records of this run (a token); None forgets it."""
        self.cache[key] = (True, value)

    def recall(self, key):
        """What a record of this run remembered under key, else None."""
        done, value = self.cache.get(key, (False, None))
        return value if done else None


class Job:
    """One record's run: its settings (cfg, never changed here), the provider module, the log, its
    state files, and what the run finds out (the outcome on_change hears, the IPs)."""

    def __init__(self, provider, cfg, run, log, tool=None, line=None):
        self.provider, self.cfg, self.run, self.log = provider, cfg, run, log
        self.tool = tool or provider.STEM   # the command that runs it, for messages and hooks
        self.session = getattr(provider, 'Session', ProviderSession)()
        self.outcome = self.old_ip = self.new_ip = None   # outcome: set by changed(), then by the loop
        self.failure = None   # the Failure of a failed run: its fields are what the hook and status tell
        self.fresh = False    # True: stored ids were stale, so what the run looked up may be too
        self.zone_found = False   # True: zone_name was found in the account's zones, not given
        # the operator line this job's record is on ('default', 'ct', 'cm', 'cu': a provider's LINES
        # names it), or None: a record without lines, the one record of its name and type;
        # line_plan: that ddkit.lines.Line (where its address comes from)
        self.line, self.line_plan = (line.code, line) if line else (None, None)
        # the seed tools' names, whichever command runs the record; an AAAA record gets files of its own
        key = '%s_AAAA' % cfg.record_name if cfg.record_type == 'AAAA' else cfg.record_name
        # a line's record has its own ip and ids files (a provider's own files, a token, stay the record's)
        own = key + line.suffix if line else key
        # each file's path is the directory's, joined once, and its name (no name starts with a slash):
        # os.path.join costs a record 6,000 instructions a file
        directory = os.path.join(cfg.state_dir, '')
        self.files = {name: directory + pattern % (own if name in ('ip_file', 'ids_file') else key)
                      for name, pattern in provider.FILES.items()}
        self.ip_file, self.ids_file = self.files['ip_file'], self.files.get('ids_file')
        self.lock_file = directory + '.%s_%s.lock' % (provider.STEM, own)
        self.files['status_file'] = directory + '.%s_%s.status' % (provider.STEM, own)

    @property
    def name(self):
        """The record's name for the log: its xn-- form, and as the user wrote it when that differs;
        and its line."""
        written = self.cfg.names.get('record_name')
        name = '%s (%s)' % (self.cfg.record_name, written) if written else self.cfg.record_name
        return '%s line %s' % (name, self.line) if self.line else name

    def shared(self, key, make):
        """A lookup made once per run (Run.shared), made again after the record's ids went stale."""
        if self.fresh:
            self.run.cache.pop(key, None)
        return self.run.shared(key, make)

    def untrusted_dirs(self):
        """(problem, fix) when another user could change the state or the log file's directory, so
        plant links or files where a root run writes; else None. --check gives the same verdict."""
        log_file = self.cfg.log_file
        log_dir = os.path.dirname(log_file if os.path.isabs(log_file) else os.path.abspath(log_file))
        # once per pair of directories in a run of several records (they share their state_dir): only
        # root or this user, who own every trusted directory, could change the verdict meanwhile
        return self.run.shared(('untrusted', self.cfg.state_dir, log_dir), lambda: self._untrusted_dirs(log_dir))

    def _untrusted_dirs(self, log_dir):
        from ddkit import state
        for directory in (self.cfg.state_dir, log_dir):
            found = self.run.shared(('untrusted', directory), lambda: state.untrusted(directory))
            if found:
                return 'directory %s cannot be trusted: %s' % (directory, found[0]), found[1]
        return None

    def missing(self):
        """[(setting, fix or None)] this record lacks (missing())."""
        return missing(self.provider, self.cfg)

    def verify_due(self, verified):
        """True when the record is to be read at the provider: verify_interval seconds have passed
        since the ip file was last confirmed (verified: its modification time), or the clock went
        back past it."""
        if self.cfg.verify_interval is None or told(self.provider):   # told: it cannot be read
            return False
        now = time.time()
        return verified is None or now - verified >= self.cfg.verify_interval or verified > now + 60

    def last_verified(self, verified):
        """When the provider last confirmed the ip file, for a log line."""
        from ddkit.log import stamp
        when = stamp(verified) if verified else 'never'
        return '%s: %s' % ('last told to the provider' if told(self.provider) else 'last verified at the provider', when)

    def changed(self, outcome):
        """The provider took a write (CREATED or UPDATED): what the run's outcome is, unless it fails."""
        from ddkit import CREATED
        if self.outcome != CREATED:
            self.outcome = outcome

    def save(self, path, lines, private=False, touch=False, cache=False):
        """Write a state file (not in a dry run; touch: state.write_if_changed); a full or read-only
        disk is a Failure, state kept; cache: a file that only saves work later (a token), whose
        failed write is logged and the run goes on."""
        from ddkit import state
        if self.cfg.dry_run:
            return False
        try:
            return state.write_if_changed(path, lines, private=private, touch=touch)
        except OSError as e:
            if not cache:
                raise Failure('cannot write state file %s: %s' % (path, e.strerror or e), step='save state',
                              kind='state', fix='state_dir must be a writable directory with room')
            self.log.info('cannot write state file %s: %s; going on without it.' % (path, e.strerror or e))
            return False

    def discard(self, path):
        """Remove a state file that no longer holds (not in a dry run); one that cannot be removed
        is logged, and the run goes on."""
        from ddkit import state
        problem = None if self.cfg.dry_run else state.remove(path)
        if problem:
            self.log.info('cannot remove state file %s: %s.' % (path, problem))


# the kinds of a failure after which no answer of the provider's API came from the URL it went to:
# nothing answered, an answer that was no JSON, a redirect; the URL setting is the likely cause
NO_API = ('resolve', 'unreachable', 'timeout', 'tls', 'not json', 'redirect')


def cause(job, failure):
    """The name of the setting whose value caused the failure, or None: the one it names (its field
    setting), else the URL setting its request went to when no answer of the provider's API came
    from there (NO_API, or unserved)."""
    if failure.setting:
        return failure.setting
    if failure.kind not in NO_API and not unserved(failure):
        return None
    url = failure.url or ''
    for name in job.provider.URLS:
        value = getattr(job.cfg, name, None)
        if value and (url == value or url.startswith(value + '/') or url.startswith(value + '?')):
            return name
    return None


def unserved(failure):
    """True for an HTTP 404 that carries no code of the API's: a path the host does not serve (another
    service's URL, an API path in a base URL), not an answer of the API."""
    return failure.status == 404 and failure.code is None and failure.kind in ('refused', 'unexpected')


def caused_by(job, failure):
    """What a FAIL or ERROR line adds when a setting caused the failure (cause): ' (base_url from
    DDNS_BASE_URL)', where its value came from (the environment beats a config file unseen); '' when
    none did, or its value is the default. The failure keeps the setting's name."""
    from ddkit.settings import origin
    failure.setting = cause(job, failure)
    said = failure.setting and origin(job.cfg, failure.setting)
    return ' (%s)' % said if said else ''


def missing(provider, cfg):
    """[(setting, fix or None)] of what a record lacks: the names every updater needs, the provider's
    required ones and its credentials (of which several forms may do)."""
    from ddkit.settings import missing
    found = [(name, None) for name in missing(cfg, required(provider))]
    return found + list(getattr(provider, 'missing_credentials', lambda cfg: [])(cfg))


def required(provider):
    """The settings a record of this provider cannot do without (its credentials aside, when several
    forms of them may do): the names every updater needs, then the provider's REQUIRED. zone_name
    only where the zone cannot be found: a provider only told the IP has none, and one that lists the
    account's zones (account_zones) finds the record's (ddkit.update.zone_of)."""
    finds = told(provider) or hasattr(provider, 'account_zones')
    return (('record_name',) if finds else ('zone_name', 'record_name')) + tuple(provider.REQUIRED)


def token_account(cfg):
    """account(cfg) of a provider reached with one API token at its base_url: whose zones and records
    a lookup sees, the key of what several records of a run share."""
    return cfg.base_url, cfg.api_token


def account_zones(fetch, step='find zone'):
    """[Zone] of every zone an account's listing gives, page by page (fetch(page): (the page's
    Zones, the number of pages or None)); an account of more than PAGES pages is a Failure: its
    records name their zone_name."""
    zones = whole_zone(fetch)
    if zones is None:
        raise Failure.at(step, 'the account has too many zones to search for the record\'s', kind='unexpected',
                         fix='set zone_name to the zone the record is in')
    return [zone for zone in zones if zone.id and zone.name]


def address_id(address):
    """The id a record known by its address alone is kept by in the ids file (a line's address in an
    RRset): 'ip-' and the address, ':' written '-' (what an id may hold)."""
    return 'ip-' + address.replace(':', '-')


def relative_name(cfg, apex='@'):
    """The record's name as an API names it inside its zone: record_name without the zone, and apex
    for the zone itself."""
    return apex if cfg.record_name == cfg.zone_name else cfg.record_name[:-len(cfg.zone_name) - 1]


def zone_by_name(job, zones):
    """choose_zone of a provider that names a zone by its domain: the one list_zones gave, its name
    its id."""
    return Zone(zones[0], zones[0])


def told(provider):
    """True for a provider that is only told the IP (send_ip) and cannot be read: no zone, no record
    lookup, no verification; the ip file alone says what it was last told (an update protocol, a
    user's HTTP endpoint)."""
    known = TOLD.get(provider)
    if known is None:   # asked a few times a record: a module's missing attribute costs an exception
        known = TOLD[provider] = hasattr(provider, 'send_ip')
    return known


TOLD = {}   # provider -> told(provider)


# A run of several records lists a zone once, page by page, instead of once per name
PAGE = 500    # records a page: an answer of ~200 KiB at most, under what ddkit.http reads
PAGES = 4     # a zone of more pages is looked up name by name


def whole_zone(fetch):
    """Every record of a zone: fetch(page) gives (the page's records, the number of pages or None);
    None when the zone has more than PAGES pages, so that each name is looked up on its own."""
    found, page = [], 1
    while True:
        records, pages = fetch(page)
        found += records
        if not isinstance(pages, int) or isinstance(pages, bool) or page >= pages:
            return found
        if pages > PAGES:
            return None
        page += 1


def listing(data, key, step):
    """The objects listed under key in a provider's answer ([] when absent); not a list: a Failure."""
    items = data.get(key)
    if items is None:
        return []
    if not isinstance(items, list):
        raise Failure.at(step, 'unexpected answer: "%s" is not a list' % key, kind='unexpected')
    return [item for item in items if isinstance(item, dict)]


def number(value):
    """A whole number of an answer (a count, a code, a TTL: an int, or a string of digits), else None."""
    from ddkit import decimal
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 <= value < 10 ** 12 else None
    text = value if isinstance(value, str) else ''
    return decimal(text) if len(text) <= 12 else None


ID_CHARS = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.')


def safe_id(value):
    """An id from a provider's answer or the ids file, only when it is safe in a URL path; else None."""
    value = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ''
    # a hostile or broken answer must not steer a request ("../", "?", "#") or the ids file
    return value if value and set(value) <= ID_CHARS and not value.startswith('.') else None


# --- request signing that several providers' APIs share -------------------------------------------

def host_header(url):
    """The Host header ddkit.wire sends for url (a signature covers it): its host, and its port when
    it is not the scheme's own."""
    from ddkit.urls import split_url
    scheme, name, port, _ = split_url(url)
    name = '[%s]' % name if ':' in name else name
    return name if port == (443 if scheme == 'https' else 80) else '%s:%d' % (name, port)


# Alibaba Cloud's refusal of a request that repeats a nonce it has seen: a retry after a lost answer
ALIBABA_NONCE_USED = 'SignatureNonceUsed'


def alibaba_fixes(permission):
    """What to do about Alibaba Cloud's common error codes (the AccessKey, the clock, a nonce, the rate;
    permission: what to grant the RAM user).
    https://www.alibabacloud.com/help/en/sdk/product-overview/rpc-mechanism"""
    return {
        'SignatureDoesNotMatch': 'access_key_secret is not the secret of access_key_id: copy both from the same '
                                 'AccessKey pair',
        'IncompleteSignature': 'access_key_secret is not the secret of access_key_id: copy both from the same '
                               'AccessKey pair',
        'InvalidAccessKeyId.NotFound': 'access_key_id is no AccessKey ID of Alibaba Cloud (a deleted key is unknown '
                                       'too): check it, or create a new AccessKey',
        'InvalidAccessKeyId.Inactive': 'the AccessKey is disabled: enable it in the RAM console, or create a new one',
        'InvalidTimeStamp.Expired': 'this host\'s clock is more than 15 minutes off: set it right (NTP; OpenWrt: '
                                    'System > System > Time Synchronization)',
        ALIBABA_NONCE_USED: 'a request was sent twice (usually transient): the next run retries',
        'Forbidden.RAM': permission,
        'Forbidden': permission,
        'Throttling.User': 'too many requests: run at most every few minutes',
        'Throttling': 'too many requests: run at most every few minutes',
    }


def canonical_query(params):
    """The query of these parameters, sorted by name, each name and value percent-encoded (RFC 3986's
    unreserved characters stay): what Alibaba Cloud's signatures cover, and what is sent."""
    from ddkit import UNRESERVED
    from ddkit.urls import quote
    return '&'.join('%s=%s' % (k if UNRESERVED.issuperset(k) else quote(k), v if UNRESERVED.issuperset(v) else quote(v))
                    for k, v in sorted(params.items()))


def rpc_signature(secret, method, query):
    """The RPC style's signature (Alibaba Cloud's, and the APIs that copied it: Todaynic's) of a
    canonical query: HMAC-SHA1, keyed by the secret and '&', of the method, the path '/' and the
    query, each encoded once more (in an encoded query only '%', '=' and '&' are not unreserved);
    base64."""
    import binascii
    import hashlib
    import hmac
    text = '%s&%%2F&%s' % (method, query.replace('%', '%25').replace('=', '%3D').replace('&', '%26'))
    digest = hmac.new((secret + '&').encode('utf-8'), text.encode('utf-8'), hashlib.sha1).digest()
    return binascii.b2a_base64(digest, newline=False).decode('ascii')


def tc3_settings(endpoint, help):
    """The settings of a provider of Tencent Cloud API 3.0: an API key's SecretId and SecretKey, and the
    endpoint (its default and help)."""
    return key_pair('secret_id', 'SecretId of a Tencent Cloud API key (AKID...)', 'secret_key',
                    'SecretKey of that API key', label='SecretId') + [url_setting(endpoint, help)]


def tc3_fixes(permission):
    """What to do about Tencent Cloud API 3.0's common error codes (the key, the clock, the rate;
    permission: what to grant the key's CAM user).
    https://cloud.tencent.com/document/api/1427/56192"""
    return {
        'AuthFailure.SecretIdNotFound': 'no such SecretId, or the key is disabled: check secret_id in the console '
                                        '(API keys), without spaces around it',
        'AuthFailure.InvalidSecretId': 'secret_id is not a Tencent Cloud API key: use a SecretId (AKID...)',
        'AuthFailure.SignatureFailure': 'secret_key does not match secret_id: copy the SecretKey of this key again',
        'AuthFailure.SignatureExpire': 'this host\'s clock is more than 5 minutes off: set the time (NTP)',
        'AuthFailure.InvalidAuthorization': 'check secret_id: printable, no spaces',
        'AuthFailure.UnauthorizedOperation': permission,
        'UnauthorizedOperation': permission,
        'RequestLimitExceeded': 'too many requests: run less often',
    }


def tc3(secret_id, secret_key, service, version, host, action, payload, timestamp, path='/'):
    """The headers of one Tencent Cloud API 3.0 call: a POST of the JSON payload (bytes) to host at
    timestamp, naming its action and version, signed TC3-HMAC-SHA256 for service (the credential
    scope); the signed headers are content-type and host, as the official SDKs sign them.
    https://cloud.tencent.com/document/api/1427/56189"""
    import hashlib
    import hmac
    date = time.strftime('%Y-%m-%d', time.gmtime(timestamp))
    canonical = 'POST\n%s\n\ncontent-type:application/json\nhost:%s\n\ncontent-type;host\n%s' % (
        path, host, hashlib.sha256(payload).hexdigest())
    scope = '%s/%s/tc3_request' % (date, service)
    to_sign = 'TC3-HMAC-SHA256\n%d\n%s\n%s' % (timestamp, scope, hashlib.sha256(canonical.encode()).hexdigest())
    key = ('TC3' + secret_key).encode()
    for part in (date, service, 'tc3_request'):
        key = hmac.new(key, part.encode(), 'sha256').digest()
    signature = hmac.new(key, to_sign.encode(), 'sha256').hexdigest()
    return {'Content-Type': 'application/json', 'X-TC-Action': action, 'X-TC-Version': version,
            'X-TC-Timestamp': str(timestamp),
            'Authorization': 'TC3-HMAC-SHA256 Credential=%s/%s, SignedHeaders=content-type;host, Signature=%s'
                             % (secret_id, scope, signature)}
