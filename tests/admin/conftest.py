"""An admin-area site: every plugin, sign-in limits that never sleep, and a user of each role."""

from __future__ import annotations

import pytest

from host.testing import role_users


@pytest.fixture
def site(make_app):
    return make_app(extra={"auth": {"slow_seconds": 0, "max_failures": 3}})


@pytest.fixture
def people(site):
    return role_users(site)
