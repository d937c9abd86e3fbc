"""zone_name may be left out at a provider that can list the account's zones (account_zones): the
record's zone is the longest zone its name is in, found once and kept with the ids, so a later run
asks nothing more; against the fakes over real HTTP, for every such provider."""

import os
import re

import pytest

from conftest import in_process

from providers import PROVIDERS

# the providers whose module lists the account's zones
LISTING = [p for p in PROVIDERS if hasattr(p.module(), 'account_zones')]
EACH = pytest.mark.parametrize('p', LISTING, ids=[p.provider for p in LISTING])
OLD, NEW = '81.2.69.1', '81.2.69.10'
RECORD = 'home.lab.example.com'


def env(p, box, state, **more):
    """The provider's settings, the record in the zone lab.example.com, zone_name not given."""
    return dict(p.env(box, state), DDNS_ZONE_NAME='', DDNS_RECORD_NAME=RECORD, DDNS_PROVIDER=p.provider, **more)


def test_a_provider_that_lists_zones_is_among_them():
    assert LISTING and all(hasattr(p.module(), 'account_zones') for p in LISTING)


@EACH
def test_the_longest_zone_the_name_is_in_is_found_once_and_kept_with_the_ids(p, box, tmp_path):
    fake = p.fake(box)
    p.zone(box)   # example.com, then its sub-zone and one the name is not in
    lab = fake.add_zone('lab.example.com')
    fake.add_zone('ample.com')
    fake.add_record(lab, RECORD, 'A', p.content(OLD))
    box.lookup.answer = NEW
    state = tmp_path / 'state'
    done = in_process('ddkit', env=env(p, box, state))
    assert done.returncode == 0, done.stdout + done.stderr
    assert p.held(box, RECORD) == p.content(NEW)
    assert [r['zone_id'] if 'zone_id' in r else None for r in fake.find(RECORD)][:1] in ([lab], [None])
    ids = (state / (p.files['ids_file'] % RECORD)).read_text().split()
    assert ids[2:] == ['lab.example.com']   # the zone found, kept with the ids
    # a later run that reads the record asks for no zone: only what a verified run asks
    before = len(fake.calls())
    again = in_process('ddkit', env=env(p, box, state, DDNS_VERIFY_INTERVAL='0'))
    assert again.returncode == 0, again.stdout + again.stderr
    assert fake.calls()[before:] == p.calls['verified'], fake.calls()[before:]


@EACH
def test_a_name_in_no_zone_of_the_account_fails_naming_zone_name(p, box, tmp_path):
    p.zone(box)
    box.lookup.answer = NEW
    done = in_process('ddkit', env=dict(env(p, box, tmp_path / 'state'), DDNS_RECORD_NAME='home.example.net'))
    assert done.returncode == 1 and 'find zone: no zone of this account holds home.example.net' in done.stdout \
        + done.stderr, done.stdout + done.stderr
    assert 'Traceback' not in done.stderr
    assert not os.path.exists(str(tmp_path / 'state' / (p.files['ids_file'] % 'home.example.net')))


@EACH
def test_check_says_which_zone_it_found(p, box, tmp_path):
    fake = p.fake(box)
    p.zone(box)
    fake.add_zone('lab.example.com')
    box.lookup.answer = NEW
    done = in_process('ddkit', ['--check'], env=env(p, box, tmp_path / 'state'))
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^ok +zone lab\.example\.com\.? found .*among the account's zones", done.stdout, re.M), done.stdout
    assert 'zone_name is missing' not in done.stdout
