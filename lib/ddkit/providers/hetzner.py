"""Hetzner DNS (the Hetzner Cloud API's zones and RRsets): keep one A or AAAA record equal to this
host's public IP.

A provider module of the shared update loop (ddkit.reconcile; the contract: docs/design.md): its
settings, files, error fixes and API calls, registered as `hetzner`. Hetzner's DNS is part of the
Cloud API (the older DNS Console API is to be switched off): every call carries a project's API token
as `Authorization: Bearer <token>`. A zone is named by its name; the record is the RRset of its
relative name (`@` the apex) and type, each of its records a value and a comment. A new RRset is
made by a POST of the zone's rrsets (no TTL sent: the zone's applies); a changed one by its
set_records action, which replaces the records and keeps the TTL, labels and protection: an update
sends back every record's comment, so the RRset is read first. A record without lines is the RRset
holding one address; with `lines` each line's address is one record of the RRset (SEVERAL), known
again by its address (kept in the ids file) or by its operator's prefix.
API reference: https://docs.hetzner.cloud/reference/cloud#zones, https://docs.hetzner.cloud/reference/cloud#zone-rrsets,
https://docs.hetzner.cloud/reference/cloud#zone-rrset-actions
"""

from ddkit import Failure, rrset
from ddkit.provider import (RRsetSession, declaration, listing, number, relative_name, token_account, token_settings,
                            zone_by_name)

NAME = 'hetzner'
SUMMARY = 'Keep an A or AAAA record at Hetzner DNS (Cloud API, RRsets)'
API_PATH = '/v1'
SETTINGS = token_settings('a Hetzner Cloud API token of the project that holds the zone, with Read & Write '
                          '(Hetzner Console: the project, Security, API tokens)', 'https://api.hetzner.cloud',
                          api_path=API_PATH)
STEM, FILES, REQUIRED, URLS, NOUN = declaration(NAME, SETTINGS)
choose_zone = zone_by_name   # a zone is named by its name
SEVERAL = True    # no resolution lines; an RRset holds several addresses: each line's is one of them
ZONE_ROWS = 50    # zones a page of the project's listing (the API's largest page)
ZONE_PAGES = 20   # more pages of zones than this: zone_name must be given
FIXES = {   # what to do about the API's HTTP statuses users meet (docs/providers.md)
    401: 'api_token is not a valid Hetzner Cloud API token (deleted, or not copied whole): create one in the '
         'Hetzner Console (the project, Security, API tokens)',
    403: 'the API token is read-only (create one with Read & Write in the project that holds the zone), or the '
         'RRset is protected against changes (disable its change protection in the Hetzner Console)',
    404: 'zone_name must be a zone of the token\'s project in the Hetzner Console (e.g. example.com); a zone '
         'still in the old DNS Console must be moved to the Console first',
    422: 'the zone is a secondary zone (its records come from its primary name servers): change the record '
         'there, or make the zone primary',
    429: 'too many requests (3,600 an hour per project): run less often; the next run tries again',
}


Session = RRsetSession


account = token_account


def login(job):
    """--check: the token is accepted when the project's zones can be listed (a read call).
    https://docs.hetzner.cloud/reference/cloud#zones-list-zones"""
    call(job, 'GET', '/zones?name=%s' % job.cfg.zone_name, 'login')
    return ' (Cloud API token)'


def list_zones(job):
    """[the zone named zone_name], read once a run; a zone the project lacks is a Failure.
    https://docs.hetzner.cloud/reference/cloud#zones-get-a-zone"""
    from ddkit import rest
    cfg = job.cfg
    data = job.shared(('zone', account(cfg), cfg.zone_name), lambda: call(
        job, 'GET', '/zones/%s' % cfg.zone_name, 'find zone', zone=True))
    zone = data.get('zone')
    return rest.zone_read(zone if isinstance(zone, dict) else {}, cfg)


def account_zones(job):
    """Every zone of the token's project, page by page; more than ZONE_PAGES pages is a Failure asking
    for zone_name. https://docs.hetzner.cloud/reference/cloud#zones-list-zones"""
    from ddkit import rest

    def page(n):
        data = call(job, 'GET', '/zones?page=%d&per_page=%d' % (n + 1, ZONE_ROWS), 'find zone')
        pages = data.get('meta', {}).get('pagination') if isinstance(data.get('meta'), dict) else None
        following = number(pages.get('next_page')) if isinstance(pages, dict) else None
        return rest.domain_zones(z.get('name') for z in listing(data, 'zones', 'find zone')), \
            bool(following) and following > n + 1
    return rest.listed_zones(page, ZONE_PAGES, '%d zones' % (ZONE_ROWS * ZONE_PAGES))


def rrset_path(zone, cfg):
    """The RRset's endpoint: its name relative to the zone (@ the apex), and type."""
    return '/zones/%s/rrsets/%s/%s' % (zone, relative_name(cfg), cfg.record_type)


# The record is an RRset (ddkit.rest): its entries are records, each a value and a comment; an
# update sends them all back (set_records replaces them), so the RRset is read first.

def get_rrset(job, zone_id, step):
    """The RRset of the record's name and type, or None.
    https://docs.hetzner.cloud/reference/cloud#zone-rrsets-get-an-rrset"""
    data = call(job, 'GET', rrset_path(zone_id, job.cfg), step, missing=True)
    return None if data is None else data.get('rrset', data)


def is_rrset(rrset, cfg):
    return isinstance(rrset, dict) and rrset.get('type') == cfg.record_type \
        and isinstance(rrset.get('records', []), list)


def entries(rrset, step):
    """The RRset's records as set_records sends them back: value and comment each."""
    return [{k: r[k] for k in ('value', 'comment') if isinstance(r.get(k), str)}
            for r in listing(rrset or {}, 'records', step) if isinstance(r.get('value'), str)]


def address(record):
    return record['value']


def entry(ip, like=None):
    """A record of ip; like's comment kept."""
    return dict(like, value=ip) if like else {'value': ip}


def write_rrset(job, zone_id, found, records, step):
    """The RRset made holding these records (none was found; its TTL the zone's), its records set
    (set_records: its TTL, labels and protection kept), or, with none, deleted. Each change is an
    action the API carries out after it answers.
    https://docs.hetzner.cloud/reference/cloud#zone-rrsets-create-an-rrset,
    https://docs.hetzner.cloud/reference/cloud#zone-rrset-actions-set-records-of-an-rrset,
    https://docs.hetzner.cloud/reference/cloud#zone-rrsets-delete-an-rrset"""
    cfg = job.cfg
    if found is None:
        made = {'name': relative_name(cfg), 'type': cfg.record_type, 'records': records}
        data = call(job, 'POST', '/zones/%s/rrsets' % zone_id, step, made, stale=True, exists=True)
    elif not records:
        data = call(job, 'DELETE', rrset_path(zone_id, cfg), step, missing=True) or {}
    else:
        data = call(job, 'POST', rrset_path(zone_id, cfg) + '/actions/set_records', step, {'records': records},
                    stale=True)
    action = data.get('action')
    failed = action.get('error') if isinstance(action, dict) and action.get('status') == 'error' else None
    if failed is not None:
        said = failed.get('message') if isinstance(failed, dict) else None
        raise Failure.at(step, 'the API could not carry out the change (%s)' % str(said or failed)[:200],
                         kind='refused', provider_message=str(said or failed)[:200])


# the record is an RRset: ddkit.rest finds, reads and writes it through the functions above
find_record, read_record, create_record, update_record, delete_record = rrset.records()


def call(job, method, path, step, body=None, stale=False, missing=False, zone=False, exists=False):
    """One API call with the token; its JSON answer. stale: HTTP 404 raises Stale (the zone or the
    RRset is gone: the loop looks again); missing: HTTP 404 gives None (no such RRset); zone: HTTP 404
    is the zone that is not the project's; exists: HTTP 409 (uniqueness_error) raises Exists (a
    create met the RRset, made meanwhile: the loop updates it)."""
    from ddkit import http, rest  # only on a request: a run that sends none loads none of it
    from ddkit.provider import Exists
    cfg = job.cfg
    answer = http.request(method, cfg.base_url + API_PATH + path, step, json_body=body, timeout=cfg.timeout,
                          ca_file=cfg.ca_file, headers={'Authorization': 'Bearer ' + cfg.api_token},
                          repeatable=method != 'POST' or not exists)
    if 200 <= answer.status < 300:
        return rest.json_of(answer, step, empty=True)
    if answer.status == 404 and missing and not zone:
        return None
    code, said = error_of(answer)
    if answer.status == 409 and exists:
        job.log.info('%s: error %s (%s)' % (step, code, said))
        raise Exists()
    rest.refused(job, answer, step, said, code, stale=stale, zone='zone %s' if zone else None)


def error_of(answer):
    """(the error's code, its message) of an error answer ({"error": {"code", "message"}}), each
    None when it gives none."""
    from ddkit import rest
    found = rest.error_json(answer).get('error')
    found = found if isinstance(found, dict) else {}
    return tuple(str(found[k])[:200] if isinstance(found.get(k), str) and found[k] else None
                 for k in ('code', 'message'))
