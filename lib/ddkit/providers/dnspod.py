"""DNSPod (Tencent Cloud API 3.0, version 2021-03-23): keep one A or AAAA record equal to this host's
public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `dnspod` (ddkit.registry). Every call is a
POST of a JSON body to the endpoint, named by its X-TC-Action header and signed TC3-HMAC-SHA256 with
a SecretId and SecretKey (ddkit.provider.tc3). The zone is the domain itself (zone_name: no zone id
to look up); a record is its host (SubDomain: record_name without the zone, '@' for the apex) and
type, on its job's resolution line (LINES; the default line for a record without lines).
API reference: https://cloud.tencent.com/document/api/1427/56166 (records),
https://cloud.tencent.com/document/api/1427/56167 (resolution lines),
https://cloud.tencent.com/document/api/1427/56189 (signing),
https://cloud.tencent.com/document/api/1427/56192 (error codes)
"""

from ddkit import Failure, decimal
from ddkit.provider import (PAGE, PAGES, Record, Stale, Zone, account_zones as every_zone, declaration, listing,
                            relative_name, tc3_fixes, tc3_settings, whole_zone)

NAME = 'dnspod'
SUMMARY = 'Keep an A or AAAA record at DNSPod (Tencent Cloud API 3.0)'
SETTINGS = tc3_settings('https://dnspod.tencentcloudapi.com', 'Tencent Cloud API endpoint of DNSPod')
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
VERSION = '2021-03-23'
SERVICE = 'dnspod'                       # the signature's credential scope names the service
# each operator line's resolution line by name (what RecordLine takes; DescribeRecordLineList lists
# them), and their ids (what an answer may carry instead); a job without a line is on the default one
LINES = {'default': '默认', 'ct': '电信', 'cm': '移动', 'cu': '联通'}
LINE_IDS = {'默认': '0', '电信': '10=0', '联通': '10=1', '移动': '10=3'}
TTL_MAX = 604800                         # the API's longest TTL: a longer one read back is not sent
ID_MAX = 2 ** 63                         # record ids are 64-bit integers
NO_RECORDS = 'ResourceNotFound.NoDataOfRecord'   # an empty listing: no such record, not a failure
ZONE_MISSING = {'InvalidParameterValue.DomainNotExists', 'InvalidParameter.DomainIdInvalid'}
RECORD_GONE = {'InvalidParameter.RecordIdInvalid', NO_RECORDS}   # also: a delete's record is gone already
# the credentials themselves refused, or not allowed to act: --check's credentials step fails on these
DENIED = {'AuthFailure.UnauthorizedOperation', 'UnauthorizedOperation', 'OperationDenied.AccessDenied'}
PERMISSION = ('grant the key\'s CAM user DNSPod access to this domain (the policy QcloudDNSPodFullAccess, '
              'or one allowing dnspod:DescribeRecordList, DescribeRecord, CreateRecord, ModifyDynamicDNS and, '
              'for records with lines, DeleteRecord)')
FIXES = {   # what to do about the provider's error codes users meet (docs/providers.md)
    **tc3_fixes(PERMISSION),
    'OperationDenied.AccessDenied': PERMISSION,
    'OperationDenied.NoPermissionToOperateDomain': 'this account may not manage the domain: check '
                                                   'zone_name and whose key this is',
    'InvalidParameterValue.DomainNotExists': 'check zone_name (the domain as listed in DNSPod, e.g. '
                                             'example.com) and that the key belongs to its account',
    'InvalidParameter.DomainInvalid': 'zone_name must be the main domain, e.g. example.com',
    'InvalidParameter.SubdomainInvalid': 'check record_name: a name inside zone_name',
    'InvalidParameter.RecordValueInvalid': 'check record_type (A for IPv4, AAAA for IPv6)',
    'InvalidParameter.RecordTypeInvalid': 'check record_type (A or AAAA)',
    'InvalidParameter.RecordLineInvalid': 'the domain\'s plan does not offer the record\'s resolution line: '
                                          'check the domain\'s plan in the DNSPod console',
    'InvalidParameter.DomainRecordExist': 'an identical record exists: remove the duplicate at DNSPod',
    'LimitExceeded.AAAACountLimit': 'the domain\'s plan allows no more AAAA records of this name',
    'LimitExceeded.RecordTtlLimit': 'the record\'s TTL is below what the domain\'s plan allows: raise it '
                                    'in the DNSPod console',
    'FailedOperation.DomainIsLocked': 'the domain is locked at DNSPod: unlock it in the console',
    'FailedOperation.DomainIsSpam': 'DNSPod has blocked the domain: see the DNSPod console',
    'FailedOperation.AccountIsLocked': 'the account is locked: see the Tencent Cloud console',
}


def account(cfg):
    """Whose domains and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.secret_id, cfg.secret_key


def login(job):
    """--check: the credentials are accepted when the record listing passes authentication (a read
    call, the one the zone and record checks then use); a refusal of anything else is theirs to say."""
    try:
        list_zones(job)
    except Failure as e:
        if e.code is None or e.code.startswith('AuthFailure') or e.code in DENIED:
            raise
    return ' (SecretId %s...)' % job.cfg.secret_id[:8]


def list_zones(job):
    """The domain is the zone: [it] once the record listing has found it (the request find_record
    reads then: the zone is found by it); a domain the account does not have is a Failure."""
    records(job, 'find zone')
    return [job.cfg.zone_name]


def account_zones(job):
    """Every domain of the account, for a record without zone_name (its name is its id), PAGE a page:
    DescribeDomainList, https://cloud.tencent.com/document/api/1427/56172"""
    def page(number):
        data = call(job, 'DescribeDomainList', {'Offset': (number - 1) * PAGE, 'Limit': PAGE}, 'find zone')
        info = data.get('DomainCountInfo') if isinstance(data.get('DomainCountInfo'), dict) else {}
        total = info.get('AllTotal')
        pages = -(-total // PAGE) if isinstance(total, int) and not isinstance(total, bool) and total >= 0 else None
        names = [str(d.get('Name', '')).lower().rstrip('.') for d in listing(data, 'DomainList', 'find zone')]
        return [Zone(name, name) for name in names if name], pages
    return every_zone(page)


def choose_zone(job, zones):
    """The domain named zone_name (its name is its id)."""
    if job.cfg.zone_name not in zones:
        raise Failure.at('find zone', 'no domain %s in this account; check zone_name' % job.cfg.zone_name,
                         kind='not found', fix=FIXES['InvalidParameterValue.DomainNotExists'])
    return Zone(job.cfg.zone_name, job.cfg.zone_name)


def line_of(job):
    """The resolution line name of the job's record."""
    return LINES[job.line or 'default']


def find_record(job, zone_id, strict=False):
    """The record of this name and type on the job's line, or None; strict: a fresh listing (a
    create was refused because the record exists)."""
    return first(records(job, 'find record', fresh=strict), job)


def records(job, step, fresh=False):
    """The records listed for this name: on the job's line for a lone record; on every line when the
    run has several records or lines (the whole zone, unless it is large), each job taking its own
    from the one listing; [] when the listing is empty."""
    from ddkit import rest
    cfg = job.cfg
    listed = rest.zone_listing(job, cfg.zone_name, lambda: whole_zone(lambda page: zone_page(job, page, step)), fresh)
    if listed is not None:
        return listed
    # several records in a run list a name once for both families; without RecordLine, every line
    query = {'Domain': cfg.zone_name, 'SubDomain': host(cfg)}
    if not (job.run.several or job.line):
        query['RecordLine'] = line_of(job)
    if not job.run.several:
        query['RecordType'] = cfg.record_type
    key = None if fresh else ('records', account(cfg), cfg.zone_name, query['SubDomain'], query.get('RecordType'),
                              query.get('RecordLine'))
    return job.shared(key, lambda: list_records(job, query, step)[0])


def zone_page(job, page, step):
    """(records, number of pages) of one page of the domain's listing, every line; a full page whose
    answer does not say how many there are counts as a large zone (looked up name by name)."""
    records, total = list_records(job, {'Domain': job.cfg.zone_name, 'Offset': (page - 1) * PAGE, 'Limit': PAGE},
                                  step)
    if total is None:
        return records, PAGES + 1 if len(records) >= PAGE else page
    return records, -(-total // PAGE)


def list_records(job, query, step):
    """DescribeRecordList: (records, how many match or None); an empty listing is answered with an
    error, taken here as no records.
    https://cloud.tencent.com/document/api/1427/56166"""
    data = call(job, 'DescribeRecordList', query, step, empty={NO_RECORDS})
    if data is None:
        return [], 0
    info = data.get('RecordCountInfo') if isinstance(data.get('RecordCountInfo'), dict) else {}
    total = info.get('TotalCount')
    total = total if isinstance(total, int) and not isinstance(total, bool) and 0 <= total < ID_MAX else None
    return listing(data, 'RecordList', step), total


def host(cfg):
    """The record's host as DNSPod names it: record_name without the zone, '@' for the zone itself."""
    return relative_name(cfg)


def first(records, job):
    """The first listed record of this name and type on the job's line, or None."""
    cfg, line = job.cfg, line_of(job)
    name = host(cfg)
    for r in records:
        if record_id(r.get('RecordId')) and str(r.get('Name', '')).lower() == name \
                and r.get('Type') == cfg.record_type and on_line(line, r.get('Line'), r.get('LineId')):
            return Record(record_id(r['RecordId']), [r.get('Value')], r)
    return None


def on_line(line, name, line_id):
    """True when an answer's line name or id is this line's."""
    return name == line or line_id == LINE_IDS[line]


def read_record(job, zone_id, record_id_text, held=False):
    """DescribeRecord: the record the stored ids name, as DNSPod holds it now (its TTL is sent back
    with an update); Stale when it is gone or is no longer this name's record on the job's line.
    https://cloud.tencent.com/document/api/1427/56168"""
    cfg = job.cfg
    number = decimal(record_id_text) if len(record_id_text) <= 19 else None
    if zone_id != cfg.zone_name or not number or number >= ID_MAX:
        raise Stale()   # ids of another domain (zone_name changed), or not DNSPod's
    data = call(job, 'DescribeRecord', {'Domain': zone_id, 'RecordId': number}, 'read record',
                gone=RECORD_GONE | ZONE_MISSING)
    info = data.get('RecordInfo')
    if not isinstance(info, dict) or record_id(info.get('Id')) != record_id_text \
            or str(info.get('SubDomain', '')).lower() != host(cfg) or info.get('RecordType') != cfg.record_type \
            or not on_line(line_of(job), info.get('RecordLine'), info.get('RecordLineId')):
        raise Stale()   # ids of another record: find ours again
    return Record(record_id_text, [info.get('Value')], info)


def create_record(job, zone_id, ip):
    """CreateRecord on the job's line; its TTL is the domain plan's default.
    https://cloud.tencent.com/document/api/1427/56180"""
    from ddkit import rest
    cfg = job.cfg
    data = call(job, 'CreateRecord', {'Domain': zone_id, 'SubDomain': host(cfg), 'RecordType': cfg.record_type,
                                      'RecordLine': line_of(job), 'Value': ip}, 'create record',
                gone=ZONE_MISSING, exists='InvalidParameter.DomainRecordExist')
    return rest.new_id(record_id(data.get('RecordId')), 'create record')


def update_record(job, zone_id, record, ip):
    """ModifyDynamicDNS: the address on the job's line (RecordLine is required), and the TTL read,
    which it would otherwise reset to the domain's; unlike ModifyRecord it keeps the record's status,
    weight, MX and remark unsent.
    https://cloud.tencent.com/document/api/1427/56158"""
    cfg = job.cfg
    body = {'Domain': zone_id, 'RecordId': decimal(record.id), 'SubDomain': host(cfg), 'RecordLine': line_of(job),
            'Value': ip}
    ttl = record.raw.get('TTL')
    if isinstance(ttl, int) and not isinstance(ttl, bool) and 0 < ttl <= TTL_MAX:
        body['TTL'] = ttl
    data = call(job, 'ModifyDynamicDNS', body, 'update record', gone=RECORD_GONE | ZONE_MISSING)
    return record_id(data.get('RecordId')) or record.id


def delete_record(job, zone_id, record):
    """DeleteRecord: the record (record.id) deleted; one already gone is success (None).
    https://cloud.tencent.com/document/api/1427/56176"""
    call(job, 'DeleteRecord', {'Domain': zone_id, 'RecordId': decimal(record.id)}, 'delete record',
         empty=RECORD_GONE)


def record_id(value):
    """A record id from an answer as text: a positive 64-bit integer (not a bool), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < ID_MAX:
        return str(value)
    return None


def call(job, action, params, step, gone=(), exists=None, empty=()):
    """One signed API call; its Response, checked. An error whose code is in gone raises Stale (the
    record or the domain of the stored ids is gone), the code exists raises Exists, a code in empty
    (a listing of nothing, a delete of a record gone) gives None; a domain the account does not have
    is a Failure of 'find zone'; any other error a Failure of step."""
    from ddkit import rest  # only on a request: a run that sends none loads none of it
    # a read, or an update that sets what it sets, may be sent again; a create only when surely unsent
    answer, response, code, message = rest.tc3_call(job, action, params, step, repeatable=action != 'CreateRecord')
    if response is not None:
        return response
    if rest.expected(job, step, code, message, gone, empty, (exists,)):
        return None
    job.log.error('%s: error %s: %s' % (step, code, message))
    if code in ZONE_MISSING:
        raise rest.zone_missing(job, answer, 'domain %s', code, code, message)
    raise rest.tc3_refused(answer, code, message, FIXES.get(code))
