"""The settings reference (docs/settings.md) is generated from the schemas that check the settings.

If this fails, a setting was added or changed: paste the printed block between the
`settings-reference` markers of docs/settings.md.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import importlib

import pytest

from host.auth.ratelimit import SignInLimits
from host.config import AUTH_DEFAULTS, DEFAULT_SITE, AuthSettings, HostSettings, Settings, SiteSettings, settings_reference
from host.jobs.service import DEFAULTS as JOB_DEFAULTS, JobSettingsSchema
from host.storage.settings import StorageSettingsSchema
from plugins import BUILTIN

pytestmark = pytest.mark.static  # the code and docs alone: the same on every database

SETTINGS_DOC = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
START, END = "<!-- settings-reference:start -->", "<!-- settings-reference:end -->"


def plugin_settings_schemas() -> list[tuple[str, object]]:
    """(name, schema instance) of every built-in plugin that declares `PluginInfo.settings`, in load order."""
    found = []
    for name, module in BUILTIN.items():
        declared = importlib.import_module(module).PLUGIN.settings
        if declared is not None:
            found.append((name, declared()))
    return found


def expected_block() -> str:
    defaults = {spec.name: spec.default if spec.default is not dataclasses.MISSING else spec.default_factory()
                for spec in dataclasses.fields(Settings)}
    defaults.update(database_url="sqlite:///sitehost.db", trust_proxy=False, trusted_proxies=[], site={}, plugins={}, auth={},
                    jobs={}, storage={})
    rows = ["| key | default | meaning |", "|---|---|---|"]
    rows += settings_reference(HostSettings(), defaults)
    rows += settings_reference(SiteSettings(), DEFAULT_SITE, "site")
    rows += ["| `plugins.disabled` | `[]` | Plugins not loaded (a name that is not installed is a warning). |"]
    rows += settings_reference(AuthSettings(), AUTH_DEFAULTS, "auth")
    rows += settings_reference(JobSettingsSchema(), JOB_DEFAULTS, "jobs")
    rows += settings_reference(StorageSettingsSchema(), None, "storage")
    for name, schema in plugin_settings_schemas():
        rows += settings_reference(schema, None, f"plugins.{name}")
    return "\n".join(rows)


def test_readme_settings_table_matches_the_schemas():
    text = SETTINGS_DOC.read_text(encoding="utf-8")
    assert START in text and END in text
    written = text.split(START, 1)[1].split(END, 1)[0].strip()
    expected = expected_block()
    assert written == expected, "docs/settings.md is stale; replace it with:\n" + expected


def test_every_setting_has_a_meaning():
    for schema in (HostSettings(), SiteSettings(), AuthSettings(), JobSettingsSchema(), StorageSettingsSchema(),
                   *(schema for _name, schema in plugin_settings_schemas())):
        for name, declared in schema.fields.items():
            assert declared.metadata.get("description"), f"{type(schema).__name__}.{name} has no description"


def test_every_auth_key_is_described_with_its_real_default():
    limits = SignInLimits()
    for spec in dataclasses.fields(SignInLimits):
        assert AUTH_DEFAULTS[spec.name] == getattr(limits, spec.name), spec.name
    assert set(AUTH_DEFAULTS) == set(AuthSettings().fields) == {
        spec.name for spec in dataclasses.fields(SignInLimits)} | {"admin_login", "admin_email"}


def test_every_plugin_with_a_settings_module_declares_its_schema():
    """A plugin's `[plugins.NAME]` table is checked at start-up only through PluginInfo.settings."""
    for name, module in BUILTIN.items():
        folder = Path(importlib.import_module(module).__file__).parent
        if (folder / "settings.py").exists():
            assert importlib.import_module(module).PLUGIN.settings is not None, f"{name} has settings.py but no PluginInfo.settings"


if __name__ == "__main__":  # python tests/kit/test_readme_settings.py: print the block to paste
    print(expected_block())
