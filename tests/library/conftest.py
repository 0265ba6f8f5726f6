"""The library plugin (tests/example_plugin/sitehost_library) installed through a real entry point."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from tests.helpers import install_entry_point_plugin

EXAMPLE_SOURCE = Path(__file__).parent.parent / "example_plugin"


@pytest.fixture
def library_plugin(tmp_path, monkeypatch):
    """The package `sitehost-library` 0.1.0, entry point `library`, as pip would install it."""
    site = tmp_path / "site-packages"
    site.mkdir()
    install_entry_point_plugin(site, "sitehost-library", "0.1.0", "library", "sitehost_library")
    monkeypatch.syspath_prepend(str(EXAMPLE_SOURCE))
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield site
    for name in [name for name in sys.modules if name == "sitehost_library" or name.startswith("sitehost_library.")]:
        sys.modules.pop(name)


@pytest.fixture
def library_app(make_app, library_plugin):
    """A site with core (users, the admin Users page) and the library, loaded through its entry point."""
    return make_app(plugins=["core", "library"])
