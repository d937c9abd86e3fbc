"""A third DNS provider, for the tests only: its zones and records live in this module's memory, no
HTTP at all. It is what a new provider module looks like (docs/design.md, "The provider contract"):
its settings, files and calls, nothing of the update loop. `fail` tells it to break as real
providers do; `calls` counts what the loop asked of it."""

from ddkit import Failure
from ddkit.provider import Exists, Record, Stale, Zone
from ddkit.settings import Setting, check_text

NAME = 'memory'
STEM = 'updater_m'
SUMMARY = 'Keep one record at the in-memory test provider equal to this host\'s public IP.'
SETTINGS = [Setting('account', help='whose zones', check=check_text, secret=True)]
REQUIRED = ('account',)
FILES = {'ip_file': '.m-ip_%s.txt', 'ids_file': '.m-id_%s.txt'}
URLS = ()
NOUN = 'entry'

zones = {}      # zone id -> name
records = {}    # record id -> {'zone', 'name', 'type', 'content'}
calls = []      # (call, argument) in order
fail = {}       # call -> what to do next time: 'stale', 'exists', 'error', 'no id' (or a list, in turn)


def reset():
    zones.clear()
    records.clear()
    del calls[:]
    fail.clear()
    zones['z1'] = 'example.com'


def _call(name, argument=None):
    calls.append((name, argument))
    what = fail.pop(name, None)
    if isinstance(what, list):
        what, rest = what[0], what[1:]
        if rest:
            fail[name] = rest
    if what == 'stale':
        raise Stale()
    if what == 'exists':
        raise Exists()
    if what == 'error':
        raise Failure('%s: the provider is down' % name)
    return what


def account(cfg):
    return (cfg.account,)


def login(job):
    _call('login')
    return ' (account %s)' % len(job.cfg.account)


def list_zones(job):
    _call('list_zones', job.cfg.zone_name)
    return [{'id': zid, 'name': name} for zid, name in zones.items() if name == job.cfg.zone_name]


def choose_zone(job, zones_listed):
    if not zones_listed:
        raise Failure('find zone: no zone named %s' % job.cfg.zone_name)
    return Zone(zones_listed[0]['id'], zones_listed[0]['name'])


def find_record(job, zone_id, strict=False):
    _call('find_record', job.cfg.record_name)
    for rid, record in sorted(records.items()):
        if (record['zone'], record['name'], record['type']) == (zone_id, job.cfg.record_name, job.cfg.record_type):
            return Record(rid, [record['content']], record)
    return None


def read_record(job, zone_id, record_id, held=False):
    _call('read_record', record_id)
    record = records.get(record_id)
    if record is None or record['zone'] != zone_id:
        raise Stale()
    return Record(record_id, [record['content']], record)


def create_record(job, zone_id, ip):
    _call('create_record', ip)
    rid = 'r%d' % (len(records) + 1)
    records[rid] = {'zone': zone_id, 'name': job.cfg.record_name, 'type': job.cfg.record_type, 'content': ip}
    return rid


def update_record(job, zone_id, record, ip):
    if _call('update_record', ip) == 'no id':
        return None
    if record.id not in records:
        raise Stale()
    records[record.id]['content'] = ip
    return record.id
