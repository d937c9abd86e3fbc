"""The fakes themselves: provider A validates request bodies against the published schema; the
IPv6 lookup logs a request before it answers."""

import os
import urllib.request

import pytest

from conftest import ROOT
from fakes import provider_a


def test_request_validation_is_active():
    validator = provider_a._validator()
    assert validator is not None, 'openapi-schema-validator missing: bodies would go unchecked'
    good = {'id': 'a' * 32, 'type': 'A', 'name': 'home.example.com', 'content': '81.2.69.1', 'ttl': 1}
    assert list(validator.iter_errors(good)) == []
    for bad in (dict(good, content='81.2.69.300'), dict(good, ttl=5), dict(good, type='AAAA'),
                dict(good, comment=None), {k: v for k, v in good.items() if k != 'name'}):
        assert list(validator.iter_errors(bad)), bad


SHARED_SCHEMA = os.path.join(ROOT, os.pardir, 'shared', 'spec', 'cloudflare-dns-openapi-subset.json')


# the shared spec is the developers' sibling checkout, not part of this repository: a clean clone
# (CI) has only the copy, which this row compares where both are
@pytest.mark.skipif(not os.path.exists(SHARED_SCHEMA), reason='no ../shared/spec beside this checkout')
def test_schema_copy_matches_the_shared_spec():
    shared = SHARED_SCHEMA
    with open(shared, 'rb') as a, open(provider_a.SPEC, 'rb') as b:
        assert a.read() == b.read()


def test_lookup6_logs_a_request_before_it_answers(tmp_path):
    # the flaky egress6 test read the log as soon as the tool had its answer: the line must be there
    from fakes.lookup6 import Lookup6
    log = str(tmp_path / 'requests.jsonl')
    in_log_when_answered = []

    class Watched(Lookup6):
        def _send(self, h, reply, length=None):
            with open(log) as f:
                in_log_when_answered.append(f.read().count('\n'))
            super()._send(h, reply, length)

    server = Watched('127.0.0.1', log).start()
    try:
        for _ in range(2):
            with urllib.request.urlopen(server.url + '/text', timeout=10) as answer:
                assert answer.read().decode().strip() == '127.0.0.1'
    finally:
        server.stop()
    assert in_log_when_answered == [1, 2]
