"""`[plugins.site_health]` in sitehost.toml, checked once at start-up into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import Schema, fields, validate

from host import load_plugin_table
from host.stash import StashKey


class SiteHealthConfigSchema(Schema):
    loopback_timeout_seconds = fields.Float(load_default=5.0, validate=validate.Range(min=0.5, max=30), metadata={
        "description": "Seconds the loopback and Authorization-header tests wait for the site to answer itself."})
    low_free_bytes = fields.Integer(load_default=1024 ** 3, validate=validate.Range(min=0), metadata={
        "description": "Free space on the uploads disk below which the uploads test recommends action."})
    critical_free_bytes = fields.Integer(load_default=100 * 1024 ** 2, validate=validate.Range(min=0), metadata={
        "description": "Free space on the uploads disk below which the uploads test is critical."})


@dataclass(frozen=True)
class SiteHealthConfig:
    loopback_timeout_seconds: float
    low_free_bytes: int
    critical_free_bytes: int


CONFIG = StashKey[SiteHealthConfig]("site_health.config")
DEFAULT = SiteHealthConfig(**SiteHealthConfigSchema().load({}))


def load_config(raw: dict) -> SiteHealthConfig:
    return SiteHealthConfig(**load_plugin_table(SiteHealthConfigSchema(), raw, "site_health"))


def config_of(app) -> SiteHealthConfig:
    """The settings read at start-up (defaults when the plugin has not started, as in `doctor`)."""
    return app.stash.get(CONFIG) or DEFAULT
