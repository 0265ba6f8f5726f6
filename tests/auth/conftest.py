"""Fixtures of the auth tests: an app with the core plugin, users of every role, published content."""

from __future__ import annotations

import pytest

from host.testing import create_test_user

from .helpers import content_stand_in


@pytest.fixture
def site(make_app):
    """The core plugin (users routes) plus a posts table; sign-in limits that never sleep."""
    return make_app(plugins=["core", content_stand_in()], extra={"auth": {"slow_seconds": 0}})


@pytest.fixture
def people(site):
    return {role: create_test_user(site, role) for role in
            ("administrator", "editor", "author", "contributor", "subscriber")}
