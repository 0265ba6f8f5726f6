"""Fixtures of the reliability suite: the probe plugin beside the example plugin, apps with users."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from host.testing import ROLES, create_test_user

PROBE_SOURCE = Path(__file__).parent / "probe"


@pytest.fixture
def probe_module(monkeypatch):
    monkeypatch.syspath_prepend(str(PROBE_SOURCE))
    importlib.invalidate_caches()
    module = importlib.import_module("sitehost_probe")
    yield module
    sys.modules.pop("sitehost_probe", None)


@pytest.fixture
def site(make_app, example_plugin, probe_module):
    """Every built-in plugin, the example plugin and the probe, so new plugins are covered as they land."""
    app = make_app(extra_plugins=[probe_module])
    assert app.plugin("probe").loaded and app.plugin("example").loaded
    return app


@pytest.fixture
def site_users(site):
    return {role: create_test_user(site, role) for role in ROLES}


@pytest.fixture(scope="module")
def shared_site(make_module_app):
    """Every built-in plugin, and an administrator: for checks that only read (test_undeclared_params_N.py)."""
    app = make_module_app()
    return app, create_test_user(app, "administrator").headers
