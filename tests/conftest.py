"""Shared fixtures of sitehost's own suite (the plugin-author fixtures come from host.testing)."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

from tests.helpers import EXAMPLE_SOURCE, install_entry_point_plugin, install_example_plugin


def pytest_configure(config):
    """Let the suite's processes keep compiled bytecode, even where PYTHONDONTWRITEBYTECODE is set.

    Many tests start a real `sitehost` process (serve, init, the CLI, backups), and each imports
    the whole host: with no bytecode on disk every one of them compiles every module of host/
    and plugins/ again, seconds of CPU each. The bytecode goes to the usual __pycache__ folders
    (ignored by git); the xdist workers and every subprocess inherit this environment, as they do
    the resolver's options below.
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    os.environ.setdefault("RES_OPTIONS", RESOLVER_OPTIONS)


# The suite looks up names that cannot resolve here (the test sites' `school.test`, the outbound services
# of the cache and site-health plugins, a few hundred lookups in all). A resolver that drops a query
# leaves glibc waiting out its 5-second timeout before it asks again: this machine's resolver drops every
# 25th query, which cost the suite a minute per database. One second bounds a dropped query; a second
# attempt keeps a name that does resolve (a package index) resolving. glibc reads RES_OPTIONS when a
# process first resolves a name, so this is set before any test runs and every subprocess inherits it.
RESOLVER_OPTIONS = "timeout:1 attempts:2"


@pytest.fixture
def install_plugin(monkeypatch):
    """install_plugin(folder, distribution, version, name, module): put a plugin package on sys.path as installed."""

    def install(folder: Path, distribution: str, version: str, name: str, module: str) -> Path:
        install_entry_point_plugin(folder, distribution, version, name, module)
        monkeypatch.syspath_prepend(str(folder))
        importlib.invalidate_caches()
        return folder

    yield install


@pytest.fixture
def example_plugin(tmp_path, monkeypatch):
    """The example plugin installed as the package `sitehost-example` (entry point `example`)."""
    site = install_example_plugin(tmp_path, monkeypatch, "sitehost-example", "1.2.3", "example", "sitehost_example")
    yield {"site_packages": site, "source": EXAMPLE_SOURCE}
    sys.modules.pop("sitehost_example", None)


@pytest.fixture
def example_app(make_app, example_plugin):
    """An app with only the example plugin, loaded through its entry point."""
    return make_app(plugins=["example"])


_CLUSTER_FIGURES: list[str] = []


def pytest_runtest_logreport(report):
    """Keep the figures of tests/cluster's workload (a user property: it crosses from xdist's workers)."""
    if report.when == "call":
        _CLUSTER_FIGURES.extend(value for name, value in report.user_properties if name == "cluster_workload")


def pytest_terminal_summary(terminalreporter):
    if _CLUSTER_FIGURES:
        terminalreporter.section("cluster workload (tests/cluster)")
        for line in _CLUSTER_FIGURES:
            terminalreporter.write_line(line)
