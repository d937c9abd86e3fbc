"""The nowcn provider, a preset (ddkit.registry.Preset) of the module of the Todaynic DNS API: that API at
Now.cn 时代互联's host, against its fake over real HTTP: Now.cn's host by default, the module's settings
otherwise, state files, log and status of its own, the same signed requests. What the API does is the
module's own test file's."""

import os

from conftest import RECORD, ZONE
from provider_harness import Harness, kept_nothing, ok, shown
from providers import NOWCN as P, registry

OLD, NEW = '81.2.69.1', '81.2.69.10'

NOWCN = Harness('nowcn', NEW)
fake, state = NOWCN.fixtures()
env_of, run, status, module, _job = NOWCN.bound()


def test_now_cns_host_is_the_default_and_the_rest_is_the_modules():
    names = registry().PROVIDERS
    assert names[names.index('nowcn')].changes == {'base_url': 'https://api.now.cn'}
    preset, protocol = registry().provider('nowcn'), registry().provider(P.module_name)
    assert [s.name for s in preset.SETTINGS] == [s.name for s in protocol.SETTINGS]
    defaults = [{s.name: s.default for s in p.SETTINGS} for p in (preset, protocol)]
    assert defaults[0].pop('base_url') == 'https://api.now.cn' != defaults[1].pop('base_url')
    assert defaults[0] == defaults[1] and preset.FIXES == protocol.FIXES
    assert preset.update_record is protocol.update_record


def test_updated_with_its_own_state_files_log_and_status(box, fake, state):
    P.add(box, RECORD, 'A', OLD)
    done = run(box, state)
    ok(done)
    assert fake.calls() == ['list_records', 'update_record'] and P.held(box, RECORD) == NEW
    assert all(r.query['AccessInstanceID'] == fake.instance_id and r.path.startswith('/api/Dns/')
               for r in fake.requests)
    made = sorted(os.listdir(str(state)))
    assert P.ip_file(RECORD) in made and 'ddkit_nowcn_%s.log' % RECORD in made, made
    assert not [name for name in made if P.module_name in name], made
    assert status(box, state)['provider'] == 'nowcn' and fake.api_key not in shown(done, state)
    assert (state / (P.files['ids_file'] % RECORD)).read_text() == '%s\n%s\n' % (ZONE, fake.find(RECORD)[0]['id'])


def test_check_names_its_own_summary_and_sends_only_reads(box, fake, state):
    done = NOWCN.check(box, state)
    assert 'credentials accepted (AccessInstanceID %s)' % fake.instance_id in done.stdout
    assert set(fake.calls()) == {'list_records'} and kept_nothing(state)
