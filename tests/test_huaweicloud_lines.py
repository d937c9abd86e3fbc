"""Provider B's records with operator lines: each line's recordset on its resolution line, through the
v2.1 API, in-process against the fake, in both credential forms (a token, an access key). The
official SDK is the oracle: what the module sends (method, path, query, body) is what huaweicloudsdkdns's
v2.1 request models and client make, and its own client is served by the fake."""

import types

import pytest

import needs
from conftest import RECORD
from providers import of

B = of('updater_b')
OLD, NEW, OTHER = '81.2.69.1', '81.2.69.10', '81.2.69.77'
# job.line -> the line ID its recordset is held on (the DNS API reference, "resolution line types")
LINES = [('default', 'default_view'), ('ct', 'Dianxin'), ('cm', 'Yidong'), ('cu', 'Liantong')]
FORMS = ['token', 'aksk']
# the fake's v2.1 route -> (the SDK's request model, the client's request maker, the body's model)
SDK_CALLS = {
    'list_line_records': ('ShowRecordSetByZoneRequest', '_show_record_set_by_zone_http_info', None),
    'create_line_record': ('CreateRecordSetWithLineRequest', '_create_record_set_with_line_http_info',
                           'CreateRecordSetWithLineRequestBody'),
    'get_line_record': ('ShowRecordSetWithLineRequest', '_show_record_set_with_line_http_info', None),
    'update_line_record': ('UpdateRecordSetsRequest', '_update_record_sets_http_info', 'UpdateRecordSetsReq'),
    'delete_line_record': ('DeleteRecordSetsRequest', '_delete_record_sets_http_info', None),
}


def sdk():
    """The SDK's modules, or the test skipped (failed under CI) without them."""
    try:
        from huaweicloudsdkcore.auth.credentials import BasicCredentials
        from huaweicloudsdkcore.utils import http_utils
        from huaweicloudsdkdns.v2 import DnsClient, model
    except ImportError:
        needs.missing('huaweicloudsdkcore and huaweicloudsdkdns are not installed (pip install -r '
                      'tests/requirements.txt): they are the oracle of the v2.1 requests and the signature')
    return types.SimpleNamespace(BasicCredentials=BasicCredentials, http_utils=http_utils, DnsClient=DnsClient,
                                 model=model)


@pytest.fixture
def fake(box):
    return box.provider_b


@pytest.fixture
def state(tmp_path):
    made = tmp_path / 'state'
    made.mkdir()
    return made


def line_job(box, state, line, form='token', run=None):
    """A Job of the sandbox's record on this line, run in-process against the fake (form: its
    credentials; run: a Run of several records to share)."""
    sdk()   # the fake checks each access key's signature with the SDK's signer
    provider = B.module()
    from ddkit import settings, updater
    from ddkit.log import Log
    from ddkit.provider import Job, Run
    env = dict(box.env_b(str(state)), DDNS_PROVIDER='huaweicloud')
    if form == 'aksk':
        env.update(box.provider_b.signed_settings())
    table = provider.SETTINGS + updater.COMMON
    cfg = settings.load(settings.parse_args([], table, updater.SWITCHES), table, updater.SWITCHES, environ=env)
    job = Job(provider, cfg, run or Run(), Log(None, quiet=True))
    job.line = line
    return job


def routes(fake):
    """The requests' routes, the token's apart (a token form asks for one first)."""
    return [name for name in fake.calls() if name != 'get_token']


def as_the_sdk_sends(fake):
    """Each v2.1 request as the SDK would make it: its request model takes the query and the path's ids,
    the body's model its attributes (of the types it names) and serializes it back to the body sent; the
    client's method and path are the request's."""
    sdk_ = sdk()
    checked = 0
    for req in fake.requests:
        if req.route not in SDK_CALLS:
            continue
        request_model, maker, body_model = SDK_CALLS[req.route]
        ids = req.path.split('/')[3::2]   # /v2.1/zones/<zone_id>/recordsets[/<recordset_id>]
        params = dict(zip(('zone_id', 'recordset_id'), ids), **req.query)
        if body_model:
            body_class = getattr(sdk_.model, body_model)
            for key, value in req.json.items():
                kind = body_class.openapi_types[key]
                assert {'str': isinstance(value, str), 'int': type(value) is int,
                        'list[str]': isinstance(value, list) and all(isinstance(v, str) for v in value)}[kind], \
                    (key, value, kind)
            params['body'] = body_class(**req.json)   # an attribute the model lacks: TypeError
            assert sdk_.http_utils.sanitize_for_serialization(params['body']) == req.json
        made = getattr(sdk_.DnsClient, maker)(getattr(sdk_.model, request_model)(**params))
        assert made['method'] == req.method
        assert made['resource_path'].format(**made['path_params']) == req.path
        assert sorted((k, str(v)) for k, v in made['query_params'] if v is not None) == sorted(req.query.items())
        checked += 1
    return checked


# --- the lines and the fake, held to the API reference and the SDK -------------------------------------
def test_the_line_ids_are_the_documented_ones_and_the_fake_knows_them():
    from fakes import provider_b
    assert B.module().LINES == dict(LINES)
    assert set(provider_b.LINES) == set(B.module().LINES.values()) and provider_b.DEFAULT_LINE == 'default_view'


def test_the_fake_takes_what_the_sdk_v21_models_name():
    """Its v2.1 query parameters and body attributes are the SDK models' (path parameters apart); a
    recordset's `line` is the body's field, as the module sends it."""
    from fakes import provider_b
    model = sdk().model
    assert provider_b.LINE_RECORDSETS_QUERY == set(model.ShowRecordSetByZoneRequest.attribute_map) - {'zone_id'}
    assert provider_b.LINE_CREATE_ATTRIBUTES == set(model.CreateRecordSetWithLineRequestBody.attribute_map)
    assert model.CreateRecordSetWithLineRequestBody.openapi_types['line'] == 'str'
    assert provider_b.LINE_UPDATE_ATTRIBUTES == set(model.UpdateRecordSetsReq.attribute_map)
    assert 'line' not in model.UpdateRecordSetsReq.attribute_map   # an update keeps the recordset's line
    for name in ('ShowRecordSetWithLineRequest', 'DeleteRecordSetsRequest', 'DeleteRecordSetRequest'):
        assert set(getattr(model, name).attribute_map) == {'zone_id', 'recordset_id'}
    assert set(model.ShowRecordSetByZoneResp.attribute_map) >= {'id', 'name', 'type', 'records', 'line'}


def test_the_sdk_dns_client_is_served_by_the_fake_on_v21(box, fake):
    """The SDK's own client, signing as it does: creates on a line, lists by line, shows, updates and
    deletes; an unknown line is refused DNS.1601, a recordset gone is 404 DNS.0313."""
    sdk_ = sdk()
    from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException
    from huaweicloudsdkcore.http.http_config import HttpConfig
    model = sdk_.model
    config = HttpConfig.get_default_config()
    config.timeout = (5, 10)
    client = sdk_.DnsClient.new_builder().with_http_config(config).with_endpoints([fake.url]).with_credentials(
        sdk_.BasicCredentials(fake.access_key, fake.access_keys[fake.access_key], 'p' * 32)).build()
    zone = box.zone_b
    made = client.create_record_set_with_line(model.CreateRecordSetWithLineRequest(zone_id=zone, body=(
        model.CreateRecordSetWithLineRequestBody(name=RECORD + '.', type='A', ttl=120, records=[OLD], line='Yidong'))))
    assert made.line == 'Yidong' and fake.by_line(RECORD) == {'Yidong': [OLD]}
    listed = client.show_record_set_by_zone(model.ShowRecordSetByZoneRequest(zone_id=zone, name=RECORD, type='A',
                                                                            line_id='Yidong'))
    assert [(r.id, r.line) for r in listed.recordsets] == [(made.id, 'Yidong')] and listed.metadata.total_count == 1
    assert client.show_record_set_by_zone(model.ShowRecordSetByZoneRequest(
        zone_id=zone, name=RECORD, line_id='Dianxin')).metadata.total_count == 0
    client.update_record_sets(model.UpdateRecordSetsRequest(zone_id=zone, recordset_id=made.id,
                                                            body=model.UpdateRecordSetsReq(records=[NEW])))
    shown = client.show_record_set_with_line(model.ShowRecordSetWithLineRequest(zone_id=zone, recordset_id=made.id))
    assert (shown.records, shown.line) == ([NEW], 'Yidong')
    assert client.delete_record_sets(model.DeleteRecordSetsRequest(zone_id=zone, recordset_id=made.id)).id == made.id
    assert fake.by_line(RECORD) == {}
    refused = []
    for call, request in (
            (client.delete_record_sets, model.DeleteRecordSetsRequest(zone_id=zone, recordset_id=made.id)),
            (client.create_record_set_with_line, model.CreateRecordSetWithLineRequest(zone_id=zone, body=(
                model.CreateRecordSetWithLineRequestBody(name=RECORD + '.', type='A', records=[OLD], line='Mars'))))):
        with pytest.raises(ClientRequestException) as e:
            call(request)
        refused.append((e.value.status_code, e.value.error_code))
    assert refused == [(404, 'DNS.0313'), (400, 'DNS.1601')] and fake.by_line(RECORD) == {}
    assert routes(fake) == ['create_line_record', 'list_line_records', 'list_line_records', 'update_line_record',
                            'get_line_record', 'delete_line_record', 'delete_line_record', 'create_line_record']
    assert len(fake.signed) == 8


# --- a line's recordset, made, found, read, updated and deleted on its line alone ----------------------
@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('line, line_id', LINES, ids=[line for line, _ in LINES])
def test_a_lines_recordset_is_made_found_read_updated_and_deleted_on_its_line_alone(box, fake, state, line,
                                                                                      line_id, form):
    """Beside the name's recordset on another line: that one is never taken, read as this line's,
    changed or deleted. Every request is the SDK's, signed or with the token."""
    from ddkit.provider import Stale
    provider, zone = B.module(), box.zone_b
    other_line = 'Dianxin' if line_id == 'default_view' else 'default_view'
    other = fake.add_record(zone, RECORD, 'A', [OTHER], line=other_line)
    job = line_job(box, state, line, form)
    assert provider.find_record(job, zone) is None
    rid = provider.create_record(job, zone, OLD)
    assert fake.by_line(RECORD) == {line_id: [OLD], other_line: [OTHER]}
    found = provider.find_record(job, zone, strict=True)
    assert (found.id, found.content) == (rid, [OLD])
    with pytest.raises(Stale):
        provider.read_record(job, zone, other)
    record = provider.read_record(job, zone, rid)   # read even when what it holds is not asked for
    assert (record.id, record.content) == (rid, [OLD])
    assert provider.update_record(job, zone, record, NEW) == rid
    assert fake.by_line(RECORD) == {line_id: [NEW], other_line: [OTHER]}   # the update kept the line
    assert provider.delete_record(job, zone, record) is None
    assert fake.by_line(RECORD) == {other_line: [OTHER]}
    assert provider.delete_record(job, zone, record) is None   # gone already: success
    assert fake.by_line(RECORD) == {other_line: [OTHER]}
    assert routes(fake) == ['list_line_records', 'create_line_record', 'list_line_records', 'get_line_record',
                            'get_line_record', 'update_line_record', 'delete_line_record', 'delete_line_record']
    if form == 'aksk':
        assert len(fake.signed) == 8 and fake.issued == []
    else:
        assert fake.calls()[0] == 'get_token' and fake.calls().count('get_token') == 1 and fake.signed == []
    lookups = fake.calls('list_line_records')
    assert [r.query for r in lookups] == [{'name': RECORD, 'type': 'A', 'line_id': line_id}] * 2
    assert fake.calls('create_line_record')[0].json['line'] == line_id
    assert as_the_sdk_sends(fake) == 8


@pytest.mark.parametrize('form', FORMS)
def test_every_line_of_a_run_shares_one_listing(box, fake, state, form):
    """A run of several records lists the zone once, every line: each line's job takes its own line's
    recordset from it, never another's."""
    from ddkit.provider import Run
    provider, zone = B.module(), box.zone_b
    ids = {line_id: fake.add_record(zone, RECORD, 'A', ['81.2.69.%d' % n], line=line_id)
           for n, (_, line_id) in enumerate(LINES, 1)}
    fake.add_record(zone, RECORD, 'AAAA', ['240e:1::5'], line='Dianxin')   # another family of a line
    fake.add_record(zone, 'www.' + RECORD, 'A', [OTHER], line='Yidong')   # another name on a line
    run = Run(several=True)
    jobs = [line_job(box, state, line, form, run) for line, _ in LINES]
    assert [provider.find_record(job, zone).id for job in jobs] == [ids[line_id] for _, line_id in LINES]
    assert routes(fake) == ['list_line_records']
    assert set(fake.calls('list_line_records')[0].query) == {'limit', 'offset'}   # the whole zone, every line
    assert as_the_sdk_sends(fake) == 1


def test_a_zone_too_large_to_list_shares_the_names_listing_on_every_line(box, fake, state, monkeypatch):
    """A zone of more pages than a run lists: the name is listed once on every line, each job takes its
    own line's."""
    from ddkit import provider as contract
    from ddkit.provider import Run
    provider, zone = B.module(), box.zone_b
    monkeypatch.setattr(provider, 'PAGE', 1)   # a recordset a page: the zone's 2 + 4 are more than PAGES
    assert contract.PAGES < 6
    ids = {line_id: fake.add_record(zone, RECORD, 'A', ['81.2.69.%d' % n], line=line_id)
           for n, (_, line_id) in enumerate(LINES, 1)}
    run = Run(several=True)
    jobs = [line_job(box, state, line, 'aksk', run) for line, _ in reversed(LINES)]
    assert [provider.find_record(job, zone).id for job in jobs] == [ids[line_id] for _, line_id in reversed(LINES)]
    # the first page tells the zone's size; then the name, without line_id: every line's
    assert [r.query for r in fake.calls('list_line_records')] == [{'limit': '1', 'offset': '0'}, {'name': RECORD}]
    assert as_the_sdk_sends(fake) == 2


def test_a_record_without_lines_keeps_to_the_v2_api(box, fake, state):
    """job.line None: as before lines, v2 lists, creates, updates and deletes (no line sent, none asked)."""
    provider, zone = B.module(), box.zone_b
    job = line_job(box, state, None, 'aksk')
    assert provider.find_record(job, zone) is None
    rid = provider.create_record(job, zone, OLD)
    assert fake.by_line(RECORD) == {'default_view': [OLD]}
    record = provider.read_record(job, zone, rid)
    assert record.content is None   # unread: the update's answer tells whether it exists
    assert provider.update_record(job, zone, record, NEW) == rid
    assert provider.delete_record(job, zone, record) is None and fake.by_line(RECORD) == {}
    assert provider.delete_record(job, zone, record) is None   # gone already: success
    assert fake.calls() == ['list_records', 'create_record', 'update_record', 'delete_record', 'delete_record']
    assert 'line' not in fake.calls('create_record')[0].json
    assert [r.path for r in fake.calls('delete_record')] == ['/v2/zones/%s/recordsets/%s' % (zone, rid)] * 2


def test_a_region_line_is_not_its_operators_line(box, fake, state):
    """line_id matches loosely: a listing for Dianxin shows a region line of China Telecom too (an
    illustrative ID that begins with its operator's); the ct job takes the Dianxin recordset alone."""
    provider, zone = B.module(), box.zone_b
    fake.add_record(zone, RECORD, 'A', [OTHER], line='Dianxin_Beijing')
    job = line_job(box, state, 'ct', 'aksk')
    assert provider.find_record(job, zone) is None
    assert len(fake.calls('list_line_records')) == 1   # which listed the region line's recordset
    rid = provider.create_record(job, zone, NEW)
    assert provider.find_record(job, zone, strict=True).id == rid
    assert fake.by_line(RECORD) == {'Dianxin': [NEW], 'Dianxin_Beijing': [OTHER]}


# --- failures --------------------------------------------------------------------------------------------
def test_a_delete_whose_answer_was_lost_is_success(box, fake, state):
    """The delete takes effect and its answer is lost; sent again, it is answered 404 DNS.0313: the
    recordset is gone, as asked."""
    from ddkit.provider import Record
    rid = fake.add_record(box.zone_b, RECORD, 'A', [OLD], line='Liantong')
    fake.fail('lost', route='delete_line_record')
    assert B.module().delete_record(line_job(box, state, 'cu', 'aksk'), box.zone_b, Record(rid)) is None
    assert fake.by_line(RECORD) == {} and len(fake.calls('delete_line_record')) == 2


@pytest.mark.parametrize('form', FORMS)
@pytest.mark.parametrize('refusal', ['default recordset', 'zone gone'])
def test_a_refused_delete_is_a_failure_with_its_fields(box, fake, state, form, refusal):
    """Only a recordset gone is success: the zone's own SOA (DNS.0317), or a zone that is gone
    (DNS.0302, a 404 too), fails with the provider's code, message and fix."""
    from ddkit import Failure
    from ddkit.provider import Record
    provider = B.module()
    zone = box.zone_b if refusal == 'default recordset' else 'ff8080827' + '0' * 23
    soa = [rid for rid, r in fake.recordsets.items() if r['type'] == 'SOA'][0]
    with pytest.raises(Failure) as refused:
        provider.delete_record(line_job(box, state, 'default', form), zone, Record(soa))
    e = refused.value
    code, status = ('DNS.0317', 400) if refusal == 'default recordset' else ('DNS.0302', 404)
    assert (e.step, e.code, e.status, e.kind) == ('delete record', code, status, 'refused')
    assert e.provider_message and e.url == '%s/v2.1/zones/%s/recordsets/%s' % (fake.url, zone, soa)
    assert e.fix == provider.FIXES.get(code)
    assert soa in fake.recordsets and routes(fake) == ['delete_line_record']


def test_a_line_the_zone_refuses_is_a_failure_with_its_fix(box, fake, state, monkeypatch):
    """A line ID the API does not take is refused DNS.1601 "Invalid line ID.": the create fails, said so."""
    from ddkit import Failure
    provider = B.module()
    monkeypatch.setitem(provider.LINES, 'ct', 'Dianxin_Mars')
    with pytest.raises(Failure) as refused:
        provider.create_record(line_job(box, state, 'ct', 'aksk'), box.zone_b, NEW)
    e = refused.value
    assert (e.step, e.code, e.status, e.kind) == ('create record', 'DNS.1601', 400, 'refused')
    assert e.fix == provider.FIXES['DNS.1601'] and fake.by_line(RECORD) == {}
