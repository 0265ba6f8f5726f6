"""Apps with the cache plugin and the example plugin (whose notes fire the content hooks)."""

from __future__ import annotations

import pytest

from tests.helpers import FakeRemote

from .helpers import NOTES, SECRET, SERVICE_ADDRESSES


@pytest.fixture
def cache_app(make_app, example_plugin):
    """cache_app(extra=None, **cache_settings) -> app with cache + example, caching the notes routes.

    `extra` sets host settings beside `[plugins.cache]` (trust_proxy).
    """

    def build(extra=None, **settings):
        config = {"paths": [NOTES], "callback_secret": SECRET, **settings}
        return make_app(plugins=["example", "cache"], config={"cache": config}, **({"extra": extra} if extra else {}))

    return build


@pytest.fixture
def remote():
    """A pretend remote on 127.0.0.1 (tests.helpers.FakeRemote): the service's lists, IP detection."""
    server = FakeRemote()
    yield server
    server.stop()


@pytest.fixture
def service_app(cache_app, remote):
    """service_app(addresses=SERVICE_ADDRESSES, **cache_settings) -> app whose callbacks trust the
    addresses `remote` publishes at /ips, as the optimisation service publishes its own."""

    def build(addresses=SERVICE_ADDRESSES, **settings):
        url = remote.serve("/ips", list(addresses), content_type="application/json")
        return cache_app(**{"service_ips_url": url, "allow_private_targets": True, **settings})

    return build
