"""The library plugin (tests/example_plugin/sitehost_library) installed through a real entry point."""

from __future__ import annotations

import sys

import pytest

from tests.helpers import install_example_plugin


@pytest.fixture
def library_plugin(tmp_path, monkeypatch):
    """The package `sitehost-library` 0.2.0, entry point `library`, as pip would install it."""
    yield install_example_plugin(tmp_path, monkeypatch, "sitehost-library", "0.2.0", "library", "sitehost_library")
    for name in [name for name in sys.modules if name == "sitehost_library" or name.startswith("sitehost_library.")]:
        sys.modules.pop(name)


@pytest.fixture
def library_app(make_app, library_plugin):
    """A site with core (users, the admin Users page) and the library, loaded through its entry point."""
    return make_app(plugins=["core", "library"])
