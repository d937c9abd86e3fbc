#!/usr/bin/env python3
"""Keep one DNS record (A or AAAA) at DNS provider A equal to this host's public IP.

Flow (service.md 3): get current IP; get previous IP; stop if unchanged; resolve zone and record
ids; read the record, then update it (or create it); record the new IP.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, 'lib'))  # ddkit-path

from ddkit import Failure, decimal, http, updater  # noqa: E402
from ddkit.settings import Setting, check_header, check_url  # noqa: E402

TOOL = 'updater_a'
SUMMARY = 'Keep one A or AAAA record at DNS provider A (API v4) equal to this host\'s public IP.'
SETTINGS = [
    Setting('auth_email', help='account e-mail (with auth_key)', short='-u', check=check_header),
    Setting('auth_key', help='global API key (prefer DDNS_AUTH_KEY or --config: argv is visible)',
            short='-k', secret=True, check=check_header),
    Setting('api_token', help='API token, sent as Authorization: Bearer (instead of e-mail + key)',
            secret=True, check=check_header),
    Setting('base_url', 'https://api.cloudflare.com', help='API base URL', check=check_url),
]
FILES = {'ip_file': '.cf-wan_ip_%s.txt', 'ids_file': '.cf-id_%s.txt'}
TTL_MAX = 86400                          # the provider's longest ttl: a longer one read back is not sent
NOT_FOUND = {81044, 7003, 7000, 1001}   # record or zone id no longer valid: look the ids up again
FIXES = {   # what to do about the provider's error codes users meet (README: troubleshooting)
    6003: 'the credential headers are malformed: an API token belongs in api_token, not auth_key',
    6007: 'the provider could not read the request (usually transient): the next run retries',
    7000: 'the zone or record id is not valid for these credentials: check auth_email, auth_key and '
          'zone_name (stored ids are looked up again)',
    7003: 'the zone or record id is not valid for these credentials: check auth_email, auth_key and '
          'zone_name (stored ids are looked up again)',
    9005: 'the record content was refused: check record_type (A for IPv4, AAAA for IPv6)',
    9103: 'auth_email must be the account e-mail and auth_key its Global API Key (an API token '
          'belongs in api_token)',
    9106: 'set auth_email and auth_key, or api_token',
    9107: 'set auth_email and auth_key, or api_token',
    9109: 'the API token is not valid: create a new one with Zone.DNS edit permission',
    10000: 'the API token is not valid or lacks permission: it needs Zone.Zone read and Zone.DNS edit '
           'for this zone',
    81044: 'the record is gone at the provider: the ids are looked up again and the record created',
    81053: 'another record (e.g. a CNAME) already uses this name: remove it or choose another record_name',
    81057: 'an identical record already exists: remove the duplicate at the provider',
}


def main(argv=None):
    started = updater.start(argv, TOOL, SUMMARY, SETTINGS, (), FILES, each=run_record)
    if isinstance(started, int):
        return started
    return run_record(*started)


def run_record(cfg, log):
    """One record: --check, or its update (a run of several records calls this for each)."""
    if cfg.check:
        return check(cfg)
    if missing_credentials(cfg):
        print('%s: %s: %s' % ((TOOL,) + missing_credentials(cfg)), file=sys.stderr)
        return 2
    return updater.run(cfg, log, update)


def missing_credentials(cfg):
    """(problem, fix) when neither an API token nor e-mail and key are set, else None."""
    if cfg.api_token or (cfg.auth_email and cfg.auth_key):
        return None
    return ('missing credentials', 'set api_token, or auth_email and auth_key '
            '(e.g. DDNS_AUTH_EMAIL and DDNS_AUTH_KEY)')


def check(cfg):
    """--check: each step of an update, read-only, one ok/FAIL line each (ddkit.check)."""
    from ddkit.check import Report
    report = Report(cfg)
    log = report.log
    report.settings_complete([missing_credentials(cfg)] if missing_credentials(cfg) else [])
    report.state_dir_writable()
    report.tls_working([cfg.base_url, cfg.ip_lookup_url if cfg.ip_source == 'url' else None])
    current = report.current_ip()
    zones = report.step('credentials accepted', lambda: list_zones(cfg, log),
                        lambda _: 'credentials accepted (%s)' % (
                            'API token' if cfg.api_token else 'global API key of %s' % cfg.auth_email))
    zone = report.step('zone found', lambda: choose_zone(cfg, zones),
                       lambda z: 'zone %s found (id %s)' % (z.get('name'), z['id']))
    record = report.step('record found', lambda: find_record(cfg, log, zone['id']),
                         lambda r: '%s record %s found (id %s)' % (cfg.record_type, cfg.record_name, r['id'])
                         if r else '%s record %s does not exist yet: it will be created on the first '
                         'update' % (cfg.record_type, cfg.record_name))
    report.compare(record is not None, record and record.get('content'), current)
    return report.finish()


def update(cfg, log):
    current = updater.get_current_ip(cfg, log)
    if current is None:
        return 0
    previous = updater.get_previous_ip(cfg, log)
    if updater.unchanged(cfg, log, current, previous):
        return 0
    sent = True
    for attempt in (1, 2):
        zone_id, record = resolve_ids(cfg, log, fresh=attempt == 2)
        try:
            if record is None:
                record_id = create_record(cfg, log, zone_id, current)
            elif record.get('content') == current and not cfg.force:
                log.info('Record %s already holds %s; nothing sent.' % (cfg.record_name, current))
                sent = False
                record_id = record['id']
            else:
                record_id = update_record(cfg, log, zone_id, record, current)
            break
        except Stale:
            if attempt == 2:
                raise Failure('update record: the provider still says the record does not exist')
            log.info('Stored ids are stale; looking them up again.')
    updater.record_ip(cfg, log, [zone_id, record_id], current, sent)
    return 0


def resolve_ids(cfg, log, fresh=False):
    """Step 4: (zone id, record or None) from the ids file, else from the zone and record lookups."""
    ids = None if fresh else updater.read_ids(cfg)
    if ids:
        try:
            return ids[0], read_record(cfg, log, *ids)
        except Stale:
            log.info('Stored ids are stale; looking them up again.')
    zone_id = find_zone(cfg, log)
    return zone_id, find_record(cfg, log, zone_id)


def find_zone(cfg, log):
    return updater.shared(cfg, ('zone', account(cfg), cfg.zone_name),
                          lambda: choose_zone(cfg, list_zones(cfg, log))['id'])


def account(cfg):
    """Whose zones and records a lookup sees: the key of what several records of a run share."""
    return cfg.base_url, cfg.api_token, cfg.auth_email, cfg.auth_key


def list_zones(cfg, log):
    """The zones listed for zone_name: a read call, so --check also uses it to test the credentials."""
    data = call(cfg, log, 'GET', '/zones?name=%s' % cfg.zone_name, 'find zone')
    return [z for z in updater.listing(data, 'result', 'find zone') if updater.safe_id(z.get('id'))]


def choose_zone(cfg, zones):
    """The zone named exactly zone_name, else the first listed."""
    exact = [z for z in zones if z.get('name') == cfg.zone_name]
    if not zones:
        raise Failure('find zone: no zone named %s in this account; check zone_name (the root domain, '
                      'not a zone id) and the credentials' % cfg.zone_name)
    return (exact or zones)[0]


def find_record(cfg, log, zone_id):
    # several records in a run list a name once for both families (service.md 4.1's older variant)
    query = 'name=%s' % cfg.record_name + ('&type=%s' % cfg.record_type if cfg.run is None else '')
    data = updater.shared(cfg, ('records', account(cfg), zone_id, query), lambda: call(
        cfg, log, 'GET', '/zones/%s/dns_records?%s' % (zone_id, query), 'find record'))
    records = [r for r in updater.listing(data, 'result', 'find record') if updater.safe_id(r.get('id'))
               and r.get('type') == cfg.record_type]
    return records[0] if records else None


def read_record(cfg, log, zone_id, record_id):
    """The record as the provider holds it now, so an update keeps its other fields."""
    data = call(cfg, log, 'GET', '/zones/%s/dns_records/%s' % (zone_id, record_id), 'read record')
    record = data.get('result')
    if not isinstance(record, dict) or record.get('type') != cfg.record_type \
            or record.get('name') != cfg.record_name or record.get('id') != record_id:
        raise Stale()  # ids of another record: find ours again
    return record


def create_record(cfg, log, zone_id, ip):
    body = {'id': zone_id, 'type': cfg.record_type, 'name': cfg.record_name, 'content': ip,
            'ttl': 1, 'proxied': False}
    if cfg.dry_run:
        log.info('Dry run: would create %s record %s with %s.' % (cfg.record_type, cfg.record_name, ip))
        return 'new'
    data = call(cfg, log, 'POST', '/zones/%s/dns_records' % zone_id, 'create record', body)
    log.info('Created %s record %s.' % (cfg.record_type, cfg.record_name))
    updater.changed(cfg, 'created')
    return record_id_of(data, 'create record')


def update_record(cfg, log, zone_id, record, ip):
    """PUT overwrites the whole record: send back its ttl, proxied, comment and tags with the new IP."""
    body = {'id': zone_id, 'type': cfg.record_type, 'name': cfg.record_name, 'content': ip}
    ttl = record.get('ttl')
    if isinstance(ttl, int) and not isinstance(ttl, bool) and 0 < ttl <= TTL_MAX:  # 1: automatic
        body['ttl'] = ttl
    for key, kind in (('proxied', bool), ('comment', str), ('tags', list)):
        if isinstance(record.get(key), kind):
            body[key] = record[key]
    if cfg.dry_run:
        log.info('Dry run: would update %s from %s to %s.' % (cfg.record_name, record.get('content'), ip))
        return record['id']
    data = call(cfg, log, 'PUT', '/zones/%s/dns_records/%s' % (zone_id, record['id']), 'update record', body)
    updater.changed(cfg, 'updated')
    return record_id_of(data, 'update record', known=record['id'])


class Stale(Exception):
    """The stored zone or record id is no longer valid at the provider."""


def call(cfg, log, method, path, step, body=None):
    """One API call; the envelope checked as in service.md 7 (success false, error, empty)."""
    headers = {'Content-Type': 'application/json'}  # service.md 4.1: on every call
    if cfg.api_token:
        headers['Authorization'] = 'Bearer ' + cfg.api_token
    else:
        headers.update({'X-Auth-Email': cfg.auth_email, 'X-Auth-Key': cfg.auth_key})
    answer = http.request(method, cfg.base_url + '/client/v4' + path, step, headers=headers,
                          json_body=body, timeout=cfg.timeout, ca_file=cfg.ca_file)
    if not answer.body.strip():
        raise Failure('%s: empty answer (HTTP %d): the request timed out; check connectivity'
                      % (step, answer.status))
    data = answer.json()
    if not isinstance(data, dict):
        raise Failure('%s: unexpected answer: %s' % (step, http.snippet(answer.text)))
    if data.get('success') is False or 'error' in data:
        errors = updater.listing(data, 'errors', step)
        codes = set()
        for e in errors:
            log.error('%s: error %s: %s' % (step, e.get('code'), e.get('message')))
            codes.add(_int(e.get('code')))
        if 'error' in data:
            log.error('%s: %s' % (step, data['error']))
        if step in ('read record', 'update record') and (codes & NOT_FOUND or answer.status == 404):
            raise Stale()
        fixes = [FIXES[_int(e.get('code'))] for e in errors if _int(e.get('code')) in FIXES]
        raise Failure('%s: the provider refused the request (HTTP %d%s)%s' % (
            step, answer.status, ', codes ' + ', '.join(str(e.get('code')) for e in errors) if errors else '',
            '; ' + fixes[0] if fixes else ''))
    if data.get('success') is not True:
        raise Failure('%s: unexpected answer: %s' % (step, http.snippet(answer.text)))
    return data


def record_id_of(data, step, known=None):
    """The record id in an answer; an update that says success without one keeps the known id."""
    result = data.get('result')
    found = updater.safe_id(result.get('id')) if isinstance(result, dict) else None
    if not found and not known:
        raise Failure('%s: the answer has no usable record id' % step)
    return found or known


def _int(value):
    """An error code as a number, or None (jsontext already refused 1e999 and NaN; a string may be
    anything)."""
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else ''
    return decimal(text) if len(text) <= 9 else None


if __name__ == '__main__':
    sys.exit(main())
