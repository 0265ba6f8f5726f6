"""`[plugins.site_health]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import fields, validate

from host import PluginSettings


@dataclass(frozen=True)
class SiteHealthConfig:
    loopback_timeout_seconds: float
    low_free_bytes: int
    critical_free_bytes: int


class SiteHealthConfigSchema(PluginSettings):
    settings_class = SiteHealthConfig

    loopback_timeout_seconds = fields.Float(load_default=5.0, validate=validate.Range(min=0.5, max=30), metadata={
        "description": "Seconds the loopback and Authorization-header tests wait for the site to answer itself."})
    low_free_bytes = fields.Integer(load_default=1024 ** 3, validate=validate.Range(min=0), metadata={
        "description": "Free space on the uploads disk below which the uploads test recommends action."})
    critical_free_bytes = fields.Integer(load_default=100 * 1024 ** 2, validate=validate.Range(min=0), metadata={
        "description": "Free space on the uploads disk below which the uploads test is critical."})


def config_of(app) -> SiteHealthConfig:
    return app.plugin_settings("site_health")
