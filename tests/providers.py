"""The updaters as the tests see them: one adapter per provider (its tool, fake, zone, settings, state
files, how its fake holds a record), so that a test runs for every provider through PROVIDERS
instead of branching on the tool's name. A third provider is one more adapter here."""


def registry():
    """ddkit.registry of the library beside these tests, imported."""
    import os
    import sys
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'lib')
    if lib not in sys.path:
        sys.path.insert(0, lib)
    from ddkit import registry
    return registry


class Adapter:
    def __init__(self, tool, provider, letter, noun, files, credentials, content, store, calls, session=None,
                 stem=None, failure=('find zone', 'not found')):
        self.tool, self.letter, self.noun, self.files = tool, letter, noun, files
        self.provider = provider         # its name in the registry (ddkit.registry)
        # its lock, log and status files' prefix: the seed tool's name, or the provider's own (ddkit runs it)
        self.stem = stem or tool
        self.seed = tool != 'ddkit'      # a seed tool fixed to this provider (updater_a), else run by ddkit
        self.failure = failure           # (step, kind) of its row 'failed: no such name' (test_provider_tables)
        self.calls = calls               # outcome row -> the exact requests its fake gets (test_provider_tables)
        self.session = session or (lambda box: {})   # box -> {state file: text} of a cached session
        self.store = store               # the fake's attribute holding its records by id
        self.credentials = credentials   # DDNS_* settings that satisfy it offline (no request is made)
        self.content = content           # a record's value as the fake holds it
        self.label = provider            # its name in a test's id

    def lacking(self):
        """Why this provider's fake cannot play it in this Python (a test-only package it checks the
        requests with is missing: the demo and the bench run outside the venv), or None."""
        try:
            self.needs()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:   # the tests' skip, or no pytest here at all
            return 'its fake checks each request with a test-only package missing here (%s)' % (
                str(e).split('(')[0].strip() or 'pip install -r tests/requirements.txt')
        return None

    def needs(self):
        """Skip (fail under CI) a test of this adapter when a test-only package it needs is missing."""

    def fake(self, box):
        return box.fakes[self.provider]

    def zone(self, box):
        return box.zones[self.provider]

    def env(self, box, state):
        """The DDNS_* environment that points the tool at the sandbox, state in `state`."""
        env = box.env_of(self.provider, str(state))
        return env if self.seed else dict(env, DDNS_PROVIDER=self.provider)

    def add(self, box, name, rtype, ip):
        """A record at the fake, as a user's record that already exists."""
        return self.fake(box).add_record(self.zone(box), name, rtype, self.content(ip))

    def held(self, box, name):
        """What the fake's first record of this name holds, in the form content() makes."""
        found = self.fake(box).find(name)[0]
        return found['content'] if 'content' in found else found['records']

    def hold(self, box, name, rtype, ip):
        """Every record of this name and type at the fake holds ip now (as if changed there)."""
        for found in self.fake(box).find(name, rtype):
            found['content' if 'content' in found else 'records'] = self.content(ip)

    def remove(self, box, name):
        """Every record of this name at the fake, gone (as if never made)."""
        records = getattr(self.fake(box), self.store)
        for rid in [rid for rid, r in records.items() if r['name'].rstrip('.') == name.rstrip('.')]:
            del records[rid]

    def module(self):
        """The provider as the registry gives it: its module of the library
        (lib/ddkit/providers/<provider>.py), or a preset's protocol module under the preset's name."""
        return registry().provider(self.provider)

    @property
    def module_name(self):
        """The module it runs: its own, or a preset's protocol (ddkit.registry.module_name)."""
        return registry().module_name(self.provider)

    @property
    def package(self):
        """The package that brings it: its own, or a preset's protocol's."""
        return 'ddkit-' + self.module_name

    @property
    def told(self):
        """Only told the IP, never read (ddkit.provider.told): no zone, no ids file."""
        return 'ids_file' not in self.files

    def ip_file(self, name):
        return self.files['ip_file'] % name

    def __repr__(self):
        return self.provider


def rest_calls(find, read=('get_record',), verify=None, missing=None, create=('create_record',),
               update=('update_record',), by_name=True):
    """The requests each outcome row makes at a provider whose records are read (test_provider_tables):
    find, the lookups of a record by its name (the zone, the name's records); read, those of a record
    by its stored ids before an update sends it back (none: the update alone); verify, those that
    read it to verify (default: read); missing, those that meet a zone the account lacks (default:
    the first lookup); create and update, the writes. by_name: the lookups by name are a row too
    (test_verify)."""
    find, read, create, update = list(find), list(read), list(create), list(update)
    verify = read if verify is None else list(verify)
    calls = {'created': find + create, 'updated': find + update, 'updated with stored ids': read + update,
             'unchanged': [], 'verified': verify, 'drift healed': verify + update,
             'failed: no such zone': find[:1] if missing is None else list(missing)}
    if by_name:
        calls['found by name'] = find
    return calls


def told_calls():
    """The requests each outcome row makes at a provider only told the IP (one update call)."""
    return {'updated': ['update'], 'unchanged': [], 'failed: no such name': ['update']}


def run_by_ddkit(provider, noun, credentials, calls, content=lambda ip: ip, store='records', files=('ip', 'ids'),
                 told=False):
    """The adapter of a provider of the registry that ddkit runs: its state files `.<provider>-<kind>_%s.txt`
    (kind ip, id, hold), its lock, log and status files' prefix ddkit_<provider>; told: only told the
    IP, its failure a refused update."""
    names = {'ip': 'ip_file', 'ids': 'ids_file', 'hold': 'hold_file'}
    kinds = {'ip': 'ip', 'ids': 'id', 'hold': 'hold'}
    return Adapter('ddkit', provider, None, noun, {names[k]: '.%s-%s_%%s.txt' % (provider, kinds[k]) for k in files},
                   credentials, content, store, calls, stem='ddkit_' + provider,
                   **({'failure': ('update record', 'refused')} if told else {}))


A = Adapter('updater_a', 'cloudflare', 'a', 'record', {'ip_file': '.cf-wan_ip_%s.txt', 'ids_file': '.cf-id_%s.txt'},
            {'DDNS_AUTH_EMAIL': 'a@example.com', 'DDNS_AUTH_KEY': 'k' * 37}, lambda ip: ip, 'records',
            # an update sends back what the record holds (ttl, comment): it is read first
            calls=rest_calls(find=['list_zones', 'list_records'], by_name=False))
B = Adapter('updater_b', 'huaweicloud', 'b', 'recordset', {'ip_file': '.hw-wan_ip_%s.txt', 'ids_file': '.hw-id_%s.txt',
                                            'auth_file': '.hw-token_%s.txt'},
            {'DDNS_USERNAME': 'user', 'DDNS_PASSWORD': 'pw-secret', 'DDNS_PROJECT_NAME': 'cn-north-4'},
            lambda ip: [ip], 'recordsets',
            # the update's answer says whether the stored recordset still exists; the token is cached
            calls=rest_calls(find=['get_token', 'list_zones', 'list_records'], read=[], verify=['get_record'],
                             missing=['get_token', 'list_zones'], by_name=False),
            session=lambda box: {'auth_file': '%d %s\n' % (box.provider_b.now() + 3600, box.provider_b.issue_token())})
DYNDNS2 = run_by_ddkit('dyndns2', 'host', {'DDNS_USERNAME': 'user', 'DDNS_PASSWORD': 'pw-secret'}, told_calls(),
                       store='hosts', files=('ip', 'hold'), told=True)
DNSPOD = run_by_ddkit('dnspod', 'record', {'DDNS_SECRET_ID': 'AKID' + 'x' * 32, 'DDNS_SECRET_KEY': 'k' * 32},
                      # the update sends back the record's TTL (ModifyDynamicDNS would reset it): read
                      # first; the domain is the zone: the record listing is what finds it missing
                      rest_calls(find=['list_records']))
ALIDNS = run_by_ddkit('alidns', 'record', {'DDNS_ACCESS_KEY_ID': 'LTAI5tEXAMPLEkeyId01',
                                           'DDNS_ACCESS_KEY_SECRET': 'example-secret-0123456789'},
                      # no zone call: the domain name is the zone, and the record's listing proves it is
                      # the account's; an update sends back the record's ttl, so it is read first
                      rest_calls(find=['list_records']))
WEBHOOK = run_by_ddkit('webhook', 'record', {'DDNS_URL': 'https://hooks.example.com/hook/{name}?ip={ip}',
                                             'DDNS_BEARER_TOKEN': 'wh-token'}, told_calls(), files=('ip',), told=True)
# presets of dyndns2 (ddkit.registry.Preset): the protocol's adapter with the preset's own files
NOIP = run_by_ddkit('noip', 'host', {'DDNS_USERNAME': 'owner@example.com', 'DDNS_PASSWORD': 'pw-secret'},
                    told_calls(), store='hosts', files=('ip', 'hold'), told=True)
DYNU = run_by_ddkit('dynu', 'host', {'DDNS_USERNAME': 'dynu-user', 'DDNS_PASSWORD': 'pw-secret'},
                    told_calls(), store='hosts', files=('ip', 'hold'), told=True)
# the password is the record's key; the user name, the host name itself, need not be set
HE = run_by_ddkit('he', 'host', {'DDNS_PASSWORD': 'key-secret'}, told_calls(), store='hosts', files=('ip', 'hold'),
                  told=True)
DUCKDNS = run_by_ddkit('duckdns', 'domain', {'DDNS_TOKEN': '9f1c2d3e-0000-4000-8000-0a1b2c3d4e5f'}, told_calls(),
                       files=('ip',), told=True)
NAMECHEAP = run_by_ddkit('namecheap', 'host', {'DDNS_PASSWORD': '0123456789abcdef0123456789abcdef'}, told_calls(),
                         files=('ip',), told=True)
# a service's update URL (updateurl), and the services of ddns-scripts' list that are one, its presets
# (tests/url_services.py says what each is sent): the outcome tables run updateurl and a sample of them
URL = run_by_ddkit('updateurl', 'host', {'DDNS_UPDATE_URL': 'https://[USERNAME]:[PASSWORD]@ddns.example.com/nic/update?'
                                   'hostname=[DOMAIN]&myip=[IP]', 'DDNS_USERNAME': 'owner@example.com',
                                   'DDNS_PASSWORD': 'p4ss&w/rd #1', 'DDNS_ANSWER': 'good|nochg'},
                   told_calls(), files=('ip',), told=True)
URL_SERVICES = [run_by_ddkit(name, 'host', {'DDNS_USERNAME': 'owner@example.com', 'DDNS_PASSWORD': 'p4ss&w/rd #1'},
                             told_calls(), files=('ip',), told=True)
                for name in registry().services()]
VOLCENGINE = run_by_ddkit('volcengine', 'record', {'DDNS_ACCESS_KEY_ID': 'AKLTexampleAccessKeyId01',
                                                   'DDNS_SECRET_ACCESS_KEY': 'example-secret-0123456789'},
                          # the zone's ZID by its name (ListZones), then the name's records; an update sends
                          # back the record's TTL, weight and remark, so one by stored ids is read first
                          rest_calls(find=['list_zones', 'list_records'], by_name=False))
BAIDUCLOUD = run_by_ddkit('baiducloud', 'record', {'DDNS_ACCESS_KEY_ID': 'example0access0key0id00000000001',
                                                   'DDNS_SECRET_ACCESS_KEY': 'example-secret-0123456789'},
                          # no zone call: the paths carry the zone's name, and the name's listing proves it
                          # is the account's (a refused one is explained by the zone listing); an update
                          # sends back the record's ttl and description, so one by stored ids is read first
                          rest_calls(find=['list_records'], missing=['list_records', 'list_zones']))
NAMECOM = run_by_ddkit('namecom', 'record', {'DDNS_USERNAME': 'user', 'DDNS_API_TOKEN': 'namecom-token-0123'},
                       # the domain is the zone: its record listing finds it; an update sends back the
                       # record's TTL (UpdateRecord overwrites the whole record), so it is read first
                       rest_calls(find=['list_records']))
SPACESHIP = run_by_ddkit('spaceship', 'record', {'DDNS_API_KEY': 'spaceship-key', 'DDNS_API_SECRET': 'spaceship-secret'},
                         # the domain is the zone, its one listing finds it and reads a record (a record has
                         # no id: it is its type, name and address); a changed address is the old record
                         # deleted and the new one saved (PUT), its TTL the old one's
                         rest_calls(find=['list_records'], read=['list_records'], create=['save_records'],
                                    update=['delete_records', 'save_records']))
DYNV6 = run_by_ddkit('dynv6', 'record', {'DDNS_API_TOKEN': 'dynv6-token-0123'},
                     # the zone by its name, then its records; an update by the stored ids reads the record
                     # first (its name and type go with the new data: a record of other ids is never changed)
                     rest_calls(find=['zone_by_name', 'list_records']))
CLOUDNS = run_by_ddkit('cloudns', 'record', {'DDNS_AUTH_ID': '8625', 'DDNS_AUTH_PASSWORD': 'example-password'},
                       # the domain name is the zone (the record listing finds it); an update sends back the
                       # record's host and TTL, so the record is read first
                       rest_calls(find=['list_records']))
GCORE = run_by_ddkit('gcore', 'record', {'DDNS_API_TOKEN': '29841$example-token'},
                     # the zone read by its name; the record is the RRset of its name and type, read whole
                     # before a PUT sends back what it holds (its TTL, meta, pickers); a PUT that makes it
                     # is create_record
                     rest_calls(find=['get_zone', 'get_record']), content=lambda ip: [ip], store='rrsets')
DESEC = run_by_ddkit('desec', 'record', {'DDNS_API_TOKEN': 'example-desec-token'},
                     # the domain read by its name (its minimum TTL); the record is the RRset of its
                     # subname and type, which a PATCH changes keeping what it does not send (its TTL):
                     # with stored ids an update needs no read; a new RRset is a bulk PATCH of the
                     # domain's rrsets/
                     rest_calls(find=['get_zone', 'get_record'], read=[], verify=['get_record']),
                     content=lambda ip: [ip], store='rrsets')


def teo_sdk():
    """The EdgeOne fake checks each signature with the Tencent Cloud SDK's signer and each request
    against its teo models: the tests of the adapter need the SDK."""
    try:
        import tencentcloud.teo.v20220901.models  # noqa: F401
    except ImportError:
        import needs
        needs.missing('tencentcloud-sdk-python-common and tencentcloud-sdk-python-teo are not installed (pip '
                      'install -r tests/requirements.txt): the fake checks each signature with the SDK')


EDGEONE = run_by_ddkit('edgeone', 'record', {'DDNS_SECRET_ID': 'AKID' + 'e' * 32, 'DDNS_SECRET_KEY': 'k' * 32},
                       # the site is found by name (its ZoneId kept); an update sends back the record's
                       # TTL, weight and priority, so a record of stored ids is read first (by its id)
                       rest_calls(find=['list_zones', 'list_records'], by_name=False))
EDGEONE.needs = teo_sdk


def esa_sdk():
    """The ESA fake checks each signature with alibabacloud-tea-openapi's signer and each request
    against alibabacloud-esa20240910's models: the tests of the adapter need both."""
    try:
        import alibabacloud_esa20240910.models  # noqa: F401
        import alibabacloud_tea_openapi.utils  # noqa: F401
    except ImportError:
        import needs
        needs.missing('alibabacloud-tea-openapi and alibabacloud-esa20240910 are not installed (pip install -r '
                      'tests/requirements.txt): the fake checks each signature with the SDK')


ALIESA = run_by_ddkit('aliesa', 'record', {'DDNS_ACCESS_KEY_ID': 'LTAI5tEXAMPLEesaKey01',
                                           'DDNS_ACCESS_KEY_SECRET': 'example-esa-secret-0123'},
                      # the site is found by name (its SiteId kept); an update sends back the record's TTL,
                      # proxying and comment, so a record of stored ids is read first
                      rest_calls(find=['list_zones', 'list_records'], by_name=False))
ALIESA.needs = esa_sdk
WESTCN = run_by_ddkit('westcn', 'record', {'DDNS_USERNAME': 'ddkituser', 'DDNS_API_PASSWORD': 'example-api-password'},
                      # no zone call: the domain is the zone, and the record's listing proves it is the
                      # account's; no call reads a record by id: the stored ids are checked in the listing
                      rest_calls(find=['list_records'], read=['list_records']))
NAMESILO = run_by_ddkit('namesilo', 'record', {'DDNS_API_KEY': 'example0api0key0namesilo'},
                        # the domain is the zone, its whole listing proves it is the account's; the stored
                        # ids are checked in that listing (no call reads one record)
                        rest_calls(find=['list_records'], read=['list_records']))
PORKBUN = run_by_ddkit('porkbun', 'record', {'DDNS_API_KEY': 'pk1_example', 'DDNS_SECRET_API_KEY': 'sk1_example'},
                       # the domain is the zone, the record's listing proves it; an edit replaces the
                       # record, so its TTL and notes are read first
                       rest_calls(find=['list_records']))
HETZNER = run_by_ddkit('hetzner', 'record', {'DDNS_API_TOKEN': 'example-hcloud-token'},
                       # the zone read by its name; the record is the RRset of its name and type, read
                       # whole before set_records sends back its records' comments (the TTL stays)
                       rest_calls(find=['get_zone', 'get_record']), content=lambda ip: [{'value': ip, 'comment': ''}],
                       store='rrsets')
DIGITALOCEAN = run_by_ddkit('digitalocean', 'record', {'DDNS_API_TOKEN': 'dop_v1_example'},
                            # the domain is the zone, the listing of the record's name and type proves it; a
                            # PATCH keeps what it does not send (the TTL): with stored ids an update needs no read
                            rest_calls(find=['list_records'], read=[], verify=['get_record']))
DYNADOT = run_by_ddkit('dynadot', 'record', {'DDNS_API_KEY': 'example0dynadot0key'},
                       # the zone among the account's domains (list_domain); the record is its name's entries
                       # in the domain's DNS set, read whole (get_dns) before set_dns2 sends the whole set back
                       rest_calls(find=['list_zones', 'get_dns'], read=['get_dns'], create=['set_dns'],
                                  update=['set_dns']))
ERANET = run_by_ddkit('eranet', 'record', {'DDNS_ACCESS_INSTANCE_ID': 'ERA00000001',
                                           'DDNS_API_KEY': 'example-era-key'},
                      # the domain is the zone, the record's listing proves it is the account's (a refusal names
                      # no cause: its step is find zone, its kind refused); no call reads a record by id
                      rest_calls(find=['list_records'], read=['list_records']))
ERANET.failure = ('find zone', 'refused')
NOWCN = run_by_ddkit('nowcn', 'record', {'DDNS_ACCESS_INSTANCE_ID': 'NOW00000001', 'DDNS_API_KEY': 'example-now-key'},
                     rest_calls(find=['list_records'], read=['list_records']))   # a preset of eranet: the same API
NOWCN.failure = ERANET.failure
POWERDNS = run_by_ddkit('powerdns', 'record', {'DDNS_API_KEY': 'example-pdns-api-key',
                                               'DDNS_BASE_URL': 'http://127.0.0.1:8081'},
                        # the zone found by name in the server's listing; the record is the RRset of its name
                        # and type, read with the zone before a PATCH REPLACEs it whole (its TTL sent back),
                        # which makes it when missing too
                        rest_calls(find=['list_zones', 'get_record'], create=['update_record']),
                        content=lambda ip: [ip], store='rrsets')
DNSPODTOKEN = run_by_ddkit('dnspodtoken', 'record', {'DDNS_TOKEN_ID': '520001',
                                                       'DDNS_TOKEN': 'example0dnspod0token'},
                            # the domain is the zone, the record's listing proves it is the account's; no
                            # call of ours reads one record: stored ids are checked in the name's listing
                            rest_calls(find=['list_records'], read=['list_records']),
                            files=('ip', 'ids', 'hold'))

def botocore_signer():
    """The route53 fake checks each signature with botocore's own SigV4Auth and each request against
    its model of the API: the tests of the adapter need botocore."""
    try:
        import botocore.auth  # noqa: F401
    except ImportError:
        import needs
        needs.missing('botocore is not installed (pip install -r tests/requirements.txt): the fake checks each '
                      'signature with its SigV4 signer')


ROUTE53 = run_by_ddkit('route53', 'record', {'DDNS_ACCESS_KEY_ID': 'AKIAIOSFODNN7EXAMPLE',
                                             'DDNS_SECRET_ACCESS_KEY': 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'},
                       # the hosted zone by its name; the record is the set of its name and type, read (its
                       # TTL) before one UPSERT replaces it whole, which makes it when missing too
                       rest_calls(find=['list_zones', 'get_record'], create=['change_record'],
                                  update=['change_record']), content=lambda ip: [ip], store='rrsets')
ROUTE53.needs = botocore_signer

DNSIMPLE = run_by_ddkit('dnsimple', 'record', {'DDNS_API_TOKEN': 'example-dnsimple-token'},
                        # the account (whoami), then the name's records, whose listing proves the zone is the
                        # account's; the zone id kept names the account too, and a PATCH of the content keeps
                        # the TTL: with stored ids an update needs no read
                        rest_calls(find=['whoami', 'list_records'], read=[], verify=['get_record'],
                                   missing=['whoami', 'list_records']))
GODADDY = run_by_ddkit('godaddy', 'record', {'DDNS_API_KEY': 'example-godaddy-key', 'DDNS_API_SECRET': 'example'},
                       # the domain is the zone, the read of the name's records of the type proves it; a PUT
                       # replaces them all (their TTL sent back, read first), and makes them when missing
                       rest_calls(find=['get_records'], read=['get_records'], create=['put_records'],
                                  update=['put_records']))


def dns_parser():
    """The rfc2136 fake is a DNS server: it reads each message and checks its TSIG with dnspython, so
    the tests of the adapter need it."""
    try:
        import dns.tsig  # noqa: F401
    except ImportError:
        import needs
        needs.missing('dnspython is not installed (pip install -r tests/requirements.txt): the rfc2136 fake reads '
                      'each DNS message and checks its TSIG with it')


RFC2136 = run_by_ddkit('rfc2136', 'record', {'DDNS_SERVER': '192.0.2.53', 'DDNS_TSIG_KEY_NAME': 'ddkit-key',
                                             'DDNS_TSIG_SECRET': 'ZXhhbXBsZS10c2lnLXNlY3JldA=='},
                       # no HTTP: its fake is a DNS server, its requests named by what each message asks
                       # (find_zone: the zone's SOA; get_record: the name's A or AAAA; update: an UPDATE,
                       # which replaces the RRset whole with its TTL, so it is read first, and makes it too)
                       rest_calls(find=['find_zone', 'get_record'], create=['update'], update=['update']),
                       content=lambda ip: [ip], store='rrsets')
RFC2136.needs = dns_parser
VERCEL = run_by_ddkit('vercel', 'record', {'DDNS_API_TOKEN': 'example-vercel-token'},
                      # the domain is the zone, its records' listing proves it; a PATCH keeps what it does
                      # not send (the TTL): with stored ids an update needs no read, and a read is the listing
                      rest_calls(find=['list_records'], read=[], verify=['list_records']))
DNSCOM = run_by_ddkit('dnscom', 'record', {'DDNS_API_KEY': 'example0dnscom0key',
                                           'DDNS_API_SECRET': 'example-secret'},
                      # the domain's id read by its name (domain/getsingle), then its name's listing; no call
                      # reads one record: stored ids are checked in the name's listing
                      rest_calls(find=['get_zone', 'list_records'], read=['list_records']))
DNSLA = run_by_ddkit('dnsla', 'record', {'DDNS_API_ID': 'example0dnsla0id', 'DDNS_API_SECRET': 'example-secret'},
                     # the domain's id read by its name (GET /api/domain), then the name's listing of its type;
                     # no call reads one record: stored ids are checked in that listing
                     rest_calls(find=['get_zone', 'list_records'], read=['list_records']))
RAINYUN = run_by_ddkit('rainyun', 'record', {'DDNS_API_KEY': 'example0rainyun0key'},
                       # the domain's id by its name in the account's domains, then the domain's records (no
                       # call reads one record: stored ids are checked there); a create's answer has no id,
                       # so the domain is listed again to find it
                       rest_calls(find=['list_zones', 'list_records'], read=['list_records'],
                                  create=['create_record', 'list_records']))
LUADNS = run_by_ddkit('luadns', 'record', {'DDNS_EMAIL': 'owner@example.com', 'DDNS_API_KEY': 'example-luadns-key'},
                      # the zone's id by its name in the account's zones, then the zone's records; an update
                      # replaces the whole record, so one of stored ids is read first (its TTL)
                      rest_calls(find=['list_zones', 'list_records']))

def ovh_signer():
    """The ovh fake checks each signature with python-ovh's own Client.raw_call: the tests of the
    adapter need python-ovh."""
    try:
        import ovh  # noqa: F401
    except ImportError:
        import needs
        needs.missing('ovh is not installed (pip install -r tests/requirements.txt): the fake checks each '
                      'signature with python-ovh')


# the API's clock first (once a run); the zone among the account's; the ids of the name's records of
# the type, then each record (a new record: no id to read); a write, then the zone's refresh
OVH = run_by_ddkit('ovh', 'record', {'DDNS_APPLICATION_KEY': '7kbG7Bk7S9Nt7ZSV',
                                     'DDNS_APPLICATION_SECRET': 'EXEgWIz07P0HYwtQDs7cNIqCiQaWSuHF',
                                     'DDNS_CONSUMER_KEY': 'MtSwSrPpNjqfVSmJhLbPyr2i45lSwPU1'},
                   dict(rest_calls(find=['auth_time', 'list_zones', 'list_records', 'get_record'],
                                   read=['auth_time', 'get_record'], create=['create_record', 'refresh'],
                                   update=['update_record', 'refresh'], missing=['auth_time', 'list_zones']),
                        created=['auth_time', 'list_zones', 'list_records', 'create_record', 'refresh']))
OVH.needs = ovh_signer

SCALEWAY = run_by_ddkit('scaleway', 'record', {'DDNS_SECRET_KEY': 'example-scaleway-secret'},
                        # the zone looked up by its name, then the name's records (no call reads one record:
                        # the stored id is checked in that listing); every write is one PATCH of a change,
                        # a set sending back the record's TTL, priority and comment
                        rest_calls(find=['list_zones', 'list_records'], read=['list_records'],
                                   create=['patch_records'], update=['patch_records']))
NS1 = run_by_ddkit('ns1', 'record', {'DDNS_API_KEY': 'example-ns1-key'},
                   # the zone read by its name; the record of the name and type holds answers, read
                   # before a POST sends them back (their meta; the TTL stays); a PUT makes it
                   rest_calls(find=['get_zone', 'get_record']), content=lambda ip: [ip], store='rrsets')
GANDI = run_by_ddkit('gandi', 'record', {'DDNS_API_TOKEN': 'example-gandi-pat'},
                     # the domain read by its name; the record is the RRset of its name and type, read
                     # before a PUT replaces it whole (its TTL sent back), which makes it when missing too
                     rest_calls(find=['get_zone', 'get_record'], create=['put_record'], update=['put_record']),
                     content=lambda ip: [ip], store='rrsets')

def google_auth():
    """The googlecloud fake checks each JWT with google-auth (RS256 through its crypt module) and makes
    its service account's RSA key with cryptography: the tests of the adapter need both."""
    try:
        import google.auth.jwt  # noqa: F401
        import cryptography  # noqa: F401
    except ImportError:
        import needs
        needs.missing('google-auth is not installed (pip install -r tests/requirements.txt): the fake checks each '
                      'JWT with it')


# a token for the key's JWT (kept: a row with stored ids has one), the public managed zone by its DNS
# name, the RRset of the name and type read whole before a PATCH sends its TTL back (a POST makes one)
GOOGLECLOUD = run_by_ddkit('googlecloud', 'record', {'DDNS_KEY_JSON': '{"type": "service_account"}'},
                           rest_calls(find=['get_token', 'list_zones', 'get_record'],
                                      missing=['get_token', 'list_zones']), content=lambda ip: [ip], store='rrsets')
GOOGLECLOUD.files['auth_file'] = '.googlecloud-token_%s.txt'
GOOGLECLOUD.calls['found by name'] = ['list_zones', 'get_record']   # a run with the kept token


def google_token(box):
    """The token file of a run that got a token a while ago: its expiry, the token, the key's id."""
    import time
    fake = box.fakes['googlecloud']
    return {'auth_file': '%d %s %s\n' % (time.time() + 3000, fake.issue_token(), fake.key['private_key_id'])}


GOOGLECLOUD.session = google_token
GOOGLECLOUD.needs = google_auth

NETCUP = run_by_ddkit('netcup', 'record', {'DDNS_CUSTOMER_NUMBER': '123456', 'DDNS_API_KEY': 'example-netcup-key',
                                           'DDNS_API_PASSWORD': 'example-netcup-password'},
                      # a session (login) for every run that asks, then the domain's records, which prove it
                      # is the customer's; updateDnsRecords makes or changes the one record, a record of
                      # stored ids unread (a verification finds it in the listing: no call reads one)
                      rest_calls(find=['login', 'infoDnsRecords'], read=['login'],
                                 verify=['login', 'infoDnsRecords'],
                                 missing=['login', 'infoDnsRecords'], create=['updateDnsRecords'],
                                 update=['updateDnsRecords']))
PROVIDERS = [A, B, DYNDNS2, DNSPOD, ALIDNS, WEBHOOK, NOIP, DYNU, HE, DUCKDNS, NAMECHEAP, VOLCENGINE, BAIDUCLOUD,
             NAMECOM, SPACESHIP, DYNV6, CLOUDNS, GCORE, DESEC, EDGEONE, ALIESA, WESTCN, NAMESILO, PORKBUN, HETZNER,
             DNSIMPLE, LUADNS, SCALEWAY, NETCUP, DIGITALOCEAN, DYNADOT, ERANET, NOWCN, POWERDNS, DNSPODTOKEN, DNSCOM,
             DNSLA, RAINYUN, ROUTE53, OVH, GOOGLECLOUD, GODADDY, VERCEL, NS1, GANDI, RFC2136] + [URL]


class Form(Adapter):
    """Another form of credentials of a provider's adapter: its tool, fake and files, the DDNS_*
    settings of that form (settings(fake), over the adapter's), the requests each outcome row makes
    with them, and the test-only package its fake needs to check them (needs)."""

    def __init__(self, of, form, settings, credentials, calls, needs=None):
        Adapter.__init__(self, of.tool, of.provider, of.letter, of.noun, of.files, credentials, of.content,
                         of.store, calls, stem=of.stem, failure=of.failure)
        self.settings, self.label, self.requires = settings, '%s-%s' % (of.provider, form), needs

    def env(self, box, state):
        return dict(Adapter.env(self, box, state), **self.settings(self.fake(box)))

    def needs(self):
        if self.requires:
            self.requires()


def huawei_signer():
    """The AK/SK form's fake checks each signature with huaweicloudsdkcore's own signer."""
    try:
        import huaweicloudsdkcore  # noqa: F401
    except ImportError:
        import needs
        needs.missing('huaweicloudsdkcore is not installed (pip install -r tests/requirements.txt): the fake '
                      'checks each AK/SK signature with its signer')


# B with an access key: each request signed (SDK-HMAC-SHA256), no token requested, no auth file
B_SIGNED = Form(B, 'aksk', lambda fake: fake.signed_settings(),
                {'DDNS_ACCESS_KEY': 'HPUAEXAMPLE0ACCESS01', 'DDNS_SECRET_KEY': 'sk-secret-' + 'k' * 30},
                calls=rest_calls(find=['list_zones', 'list_records'], read=[], verify=['get_record'], by_name=False),
                needs=huawei_signer)
FORMS = [B_SIGNED]   # the other credential forms of the providers: the outcome tables run them too
SEEDS = [p for p in PROVIDERS if p.seed]   # the seed's tools: updater_a and updater_b
TOOLS = [p.tool for p in SEEDS]
BY_TOOL = {p.tool: p for p in SEEDS}


def of(tool):
    """The adapter of an updater, by its tool name."""
    return BY_TOOL[tool]
READ = [p for p in PROVIDERS if not p.told]   # the providers whose records are read (zone, record, verify)
