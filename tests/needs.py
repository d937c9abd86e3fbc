"""The one way a test says it cannot run here: skipped on a developer's machine, failed under CI
(CI=true), which installs everything the suite needs (.ci/run)."""

import os


def missing(reason):
    """Skip the calling test (fail it under CI=true): reason says what is missing and how to get it."""
    import pytest
    if os.environ.get('CI') == 'true':
        pytest.fail('cannot run under CI=true: %s' % reason)
    pytest.skip(reason)
