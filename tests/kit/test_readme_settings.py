"""The README's settings reference is generated from the schemas that check the settings (issue 13.9).

If this fails, a setting was added or changed: paste the printed block between the
`settings-reference` markers of README.md.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from host.auth.ratelimit import AUTH_SETTINGS, SignInLimits
from host.config import DEFAULT_SITE, HostSettings, Settings, SiteSettings, settings_reference
from plugins.cache.settings import CacheConfigSchema
from plugins.newsletter.settings import NewsletterSettingsSchema
from plugins.oembed.settings import OembedConfigSchema

README = Path(__file__).resolve().parents[2] / "README.md"
START, END = "<!-- settings-reference:start -->", "<!-- settings-reference:end -->"


def expected_block() -> str:
    defaults = {spec.name: spec.default if spec.default is not dataclasses.MISSING else spec.default_factory()
                for spec in dataclasses.fields(Settings)}
    defaults.update(database_url="sqlite:///sitehost.db", trust_proxy=False, site={}, plugins={}, auth={})
    rows = ["| key | default | meaning |", "|---|---|---|"]
    rows += settings_reference(HostSettings(), defaults)
    rows += settings_reference(SiteSettings(), DEFAULT_SITE, "site")
    rows += ["| `plugins.disabled` | `[]` | Plugins not loaded (a name that is not installed is a warning). |"]
    rows += [f"| `auth.{key}` | `{json.dumps(default)}` | {meaning} |" for key, (default, meaning) in AUTH_SETTINGS.items()]
    rows += settings_reference(CacheConfigSchema(), None, "plugins.cache")
    rows += settings_reference(OembedConfigSchema(), None, "plugins.oembed")
    rows += settings_reference(NewsletterSettingsSchema(), None, "plugins.newsletter")
    return "\n".join(rows)


def test_readme_settings_table_matches_the_schemas():
    text = README.read_text(encoding="utf-8")
    assert START in text and END in text
    written = text.split(START, 1)[1].split(END, 1)[0].strip()
    expected = expected_block()
    assert written == expected, "README settings reference is stale; replace it with:\n" + expected


def test_every_setting_has_a_meaning():
    for schema in (HostSettings(), SiteSettings(), CacheConfigSchema(), OembedConfigSchema(),
                   NewsletterSettingsSchema()):
        for name, declared in schema.fields.items():
            assert declared.metadata.get("description"), f"{type(schema).__name__}.{name} has no description"


def test_every_auth_key_is_described_with_its_real_default():
    limits = SignInLimits()
    for spec in dataclasses.fields(SignInLimits):
        assert AUTH_SETTINGS[spec.name][0] == getattr(limits, spec.name), spec.name
    assert set(AUTH_SETTINGS) == {spec.name for spec in dataclasses.fields(SignInLimits)} | {"admin_login", "admin_email"}
