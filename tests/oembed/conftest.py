"""An app with core, cache and oembed; a local HTTP server standing in for remote sites."""

from __future__ import annotations

import pytest

from tests.helpers import FakeRemote


@pytest.fixture
def remote():
    server = FakeRemote()
    yield server
    server.stop()
