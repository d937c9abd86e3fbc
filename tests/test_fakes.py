"""The fakes themselves: provider A validates request bodies against the published schema."""

import os

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


def test_schema_copy_matches_the_shared_spec():
    shared = os.path.join(ROOT, os.pardir, 'shared', 'spec', 'cloudflare-dns-openapi-subset.json')
    if not os.path.exists(shared):
        pytest.skip('no ../shared/spec beside this checkout')
    with open(shared, 'rb') as a, open(provider_a.SPEC, 'rb') as b:
        assert a.read() == b.read()
