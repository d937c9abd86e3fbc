"""Tencent Cloud EdgeOne (TEO, Tencent Cloud API 3.0, version 2022-09-01): keep one A or AAAA record
of a site's DNS records equal to this host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `edgeone` (ddkit.registry). Every call is
a POST of a JSON body to the endpoint, named by its X-TC-Action header and signed TC3-HMAC-SHA256
with a SecretId and SecretKey for the service teo (ddkit.provider.tc3). The zone is an EdgeOne site
(its ZoneId, zone-...), found by its name; a record is its full name and type on the default
resolution line (Location Default). The operator lines' Location codes could not be confirmed, so
`lines` is refused here.
API reference: https://cloud.tencent.com/document/api/1552/80716 (DescribeDnsRecords),
https://cloud.tencent.com/document/product/1552/80720 (CreateDnsRecord),
https://cloud.tencent.com/document/product/1552/114252 (ModifyDnsRecords),
https://cloud.tencent.com/document/api/1552/80713 (DescribeZones),
https://cloud.tencent.com/document/product/1552/80729 (error codes)
"""

from ddkit.provider import Record, Stale, declaration, listing, safe_id, site_fixes, tc3_fixes, tc3_settings

NAME = 'edgeone'
SUMMARY = 'Keep an A or AAAA record of a Tencent Cloud EdgeOne site'
SETTINGS = tc3_settings('https://teo.tencentcloudapi.com', 'Tencent Cloud API endpoint of EdgeOne (the international '
                        'site: https://teo.intl.tencentcloudapi.com)')
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
VERSION = '2022-09-01'
SERVICE = 'teo'                          # the signature's credential scope names the service
LOCATION = 'Default'                     # the default resolution line, which every record here is on
TTL_RANGE = (60, 86400)                  # what the API takes: a TTL read back outside it is not sent
WEIGHT_RANGE = (-1, 100)
PRIORITY_RANGE = (0, 50)
ZONES_PAGE = 100                         # DescribeZones' largest page
ZONES_PAGES = 20                         # an account of more sites than that names its zone_name
RECORDS_PAGE = 1000                      # DescribeDnsRecords' largest page: the records of one name fit
# the site is not (any more) the account's: the error codes name it several ways, and which action
# answers which is not documented, so each of them means it
ZONE_GONE = {'InvalidParameter.ZoneNotFound', 'InvalidParameterValue.ZoneNotFound', 'ResourceNotFound.ZoneNotFound',
             'ResourceUnavailable.ZoneNotFound'}
NOTHING = 'ResourceNotFound'             # a listing or a record that is not there
# the refusals that say nothing about the record (credentials, permission, rate): no second look
NOT_ABOUT_THE_RECORD = ('AuthFailure', 'UnauthorizedOperation', 'RequestLimitExceeded', 'InternalError')
PERMISSION, SITE = site_fixes('EdgeOne', 'key', 'key\'s CAM user', ('teo:DescribeZones', 'teo:DescribeDnsRecords',
                                                                      'teo:CreateDnsRecord', 'teo:ModifyDnsRecords'))
FIXES = {   # what to do about the API's error codes users meet (docs/providers.md)
    **tc3_fixes(PERMISSION),
    'UnauthorizedOperation.CamUnauthorized': PERMISSION,
    'UnauthorizedOperation.NoPermission': PERMISSION,
    'InvalidParameter.ZoneNotFound': SITE,
    'InvalidParameterValue.ZoneNotFound': SITE,
    'ResourceNotFound.ZoneNotFound': SITE,
    'ResourceUnavailable.ZoneNotFound': SITE,
    'InvalidParameterValue.ZonePaused': 'the site is disabled in EdgeOne: enable it in the console',
    'InvalidParameterValue.InvalidDNSName': 'check record_name: a name inside zone_name',
    'InvalidParameterValue.InvalidDNSContent': 'check record_type (A for IPv4, AAAA for IPv6)',
    'InvalidParameterValue.ConflictRecord': 'another record of this name (e.g. a CNAME) conflicts: remove it in '
                                            'the EdgeOne console, or choose another record_name',
    'InvalidParameterValue.ConflictWithNSRecord': 'an NS record delegates this name elsewhere: remove it, or '
                                                  'choose another record_name',
    'InvalidParameterValue.ConflictWithDNSSEC': 'the record conflicts with the site\'s DNSSEC: see the EdgeOne '
                                                'console',
    'OperationDenied.RecordIsForbidden': 'EdgeOne does not allow this record: DNS records need a site connected '
                                         'in NS mode',
}


def account(cfg):
    """Whose sites and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.secret_id, cfg.secret_key


def login(job):
    """--check: the credentials are accepted when the site lookup passes (a read call, the one the
    zone check then uses)."""
    list_zones(job)
    return ' (SecretId %s...)' % job.cfg.secret_id[:8]


def list_zones(job):
    """The sites listed for zone_name (DescribeZones' zone-name filter, exact), once a run.
    https://cloud.tencent.com/document/api/1552/80713"""
    cfg = job.cfg
    return job.shared(('zones', account(cfg), cfg.zone_name), lambda: zones_page(
        job, 'find zone', [{'Name': 'zone-name', 'Values': [cfg.zone_name]}], 0)[0])


def zones_page(job, step, filters, offset):
    """(sites, how many there are or None) of one page of DescribeZones."""
    from ddkit import rest
    params = {'Offset': offset, 'Limit': ZONES_PAGE}
    if filters:
        params['Filters'] = filters
    return rest.counted(call(job, 'DescribeZones', params, step), 'Zones', step)


def choose_zone(job, zones):
    """The site named zone_name."""
    from ddkit import rest
    return rest.zone_named(job, zones, 'ZoneId', 'ZoneName', 'EdgeOne site', SITE)


def account_zones(job):
    """Every site the credentials see, as [Zone] (names lower-case, no trailing dot), page by page;
    an account of more than ZONES_PAGES pages is a Failure naming zone_name as the fix.
    https://cloud.tencent.com/document/api/1552/80713"""
    from ddkit import rest
    return rest.site_pages(lambda n: zones_page(job, 'find zone', None, n * ZONES_PAGE), 'ZoneId', 'ZoneName',
                           ZONES_PAGE, ZONES_PAGES)


def find_record(job, zone_id, strict=False):
    """The record of this name and type on the default line, or None; strict: a fresh listing (a
    create was refused because the record exists)."""
    return first(records(job, zone_id, 'find record', fresh=strict), job)


def records(job, zone_id, step, fresh=False):
    """The records of the record's name, listed once a run: of its type for a lone record, of both
    families when the run has several records (each takes its own from the one listing).
    https://cloud.tencent.com/document/api/1552/80716"""
    cfg = job.cfg
    filters = [{'Name': 'name', 'Values': [cfg.record_name]}]
    if not job.run.several:
        filters.append({'Name': 'type', 'Values': [cfg.record_type]})
    key = None if fresh else ('records', account(cfg), zone_id, cfg.record_name, len(filters))

    def fetch():
        data = call(job, 'DescribeDnsRecords', {'ZoneId': zone_id, 'Filters': filters, 'Limit': RECORDS_PAGE},
                    step, empty={NOTHING})
        return [] if data is None else listing(data, 'DnsRecords', step)
    return job.shared(key, fetch)


def full_name(name, zone):
    """A record's name from an answer as a full name, lower-case ('@' and a host without the zone
    are taken as the zone's)."""
    name = str(name or '').lower().rstrip('.')
    if name == '@':
        return zone
    return name if name == zone or name.endswith('.' + zone) else '%s.%s' % (name, zone)


def first(found, job):
    """The first listed record of this name and type on the default line, or None."""
    cfg = job.cfg
    for r in found:
        if safe_id(r.get('RecordId')) and full_name(r.get('Name'), cfg.zone_name) == cfg.record_name \
                and r.get('Type') == cfg.record_type and str(r.get('Location') or LOCATION).lower() == 'default':
            return Record(safe_id(r['RecordId']), [r.get('Content')], r)
    return None


def read_record(job, zone_id, record_id, held=False):
    """The record the stored ids name, as EdgeOne holds it now (its TTL, weight and priority are sent
    back with an update): DescribeDnsRecords by its id. Stale when it is gone, is no longer this
    name's record on the default line, or the site is gone.
    https://cloud.tencent.com/document/api/1552/80716"""
    data = call(job, 'DescribeDnsRecords', {'ZoneId': zone_id, 'Filters': [{'Name': 'id', 'Values': [record_id]}]},
                'read record', gone=ZONE_GONE | {NOTHING})
    record = first([r for r in listing(data, 'DnsRecords', 'read record') if r.get('RecordId') == record_id], job)
    if record is None:
        raise Stale()   # gone, or ids of another record: find ours again
    return record


def create_record(job, zone_id, ip):
    """CreateDnsRecord on the default line, with the API's default TTL (300). A refusal other than of
    the credentials is looked at again: when the record exists after all (made meanwhile; which code
    a duplicate gets is not documented), Exists, and the loop updates it.
    https://cloud.tencent.com/document/product/1552/80720"""
    from ddkit import rest
    cfg = job.cfg
    body = {'ZoneId': zone_id, 'Name': cfg.record_name, 'Type': cfg.record_type, 'Content': ip, 'Location': LOCATION}
    data = rest.created(job, zone_id, lambda: call(job, 'CreateDnsRecord', body, 'create record', gone=ZONE_GONE),
                        lambda e: e.code is not None and not e.code.startswith(NOT_ABOUT_THE_RECORD))
    return rest.new_id(safe_id(data.get('RecordId')), 'create record')


def update_record(job, zone_id, record, ip):
    """ModifyDnsRecords of the one record: its name, type and line, the new address, and the TTL,
    weight and priority read (what is not sent may be reset: the reference does not say).
    https://cloud.tencent.com/document/product/1552/114252"""
    cfg, held = job.cfg, record.raw
    changed = {'RecordId': record.id, 'Name': cfg.record_name, 'Type': cfg.record_type, 'Content': ip,
               'Location': str(held.get('Location') or LOCATION)}
    for key, (low, high) in (('TTL', TTL_RANGE), ('Weight', WEIGHT_RANGE), ('Priority', PRIORITY_RANGE)):
        value = held.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            changed[key] = value
    call(job, 'ModifyDnsRecords', {'ZoneId': zone_id, 'DnsRecords': [changed]}, 'update record',
         gone=ZONE_GONE | {NOTHING})
    return record.id


def call(job, action, params, step, gone=(), empty=()):
    """One signed API call; its Response, checked. An error whose code is in gone raises Stale (the
    site or the record of the stored ids is gone), one in empty gives None (a listing of nothing);
    a site the account does not have is a Failure of 'find zone'; any other error a Failure of step."""
    from ddkit import rest  # only on a request: a run that sends none loads none of it
    # a read, or an update that sets what it sets, may be sent again; a create only when surely unsent
    answer, response, code, message = rest.tc3_call(job, action, params, step,
                                                    repeatable=action != 'CreateDnsRecord')
    if response is not None:
        return response
    if rest.expected(job, step, code, message, gone, empty):
        return None
    job.log.error('%s: error %s: %s' % (step, code, message))
    if code in ZONE_GONE:
        raise rest.zone_missing(job, answer, 'EdgeOne site %s', code, code, message)
    raise rest.tc3_refused(answer, code, message, FIXES.get(code))
