"""`[plugins.oembed]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import fields, validate

from host import PluginSettings


@dataclass(frozen=True)
class OembedConfig:
    allow_private_targets: bool
    fetch_timeout_seconds: float
    max_response_bytes: int
    max_redirects: int
    cache_ttl_seconds: int


class OembedConfigSchema(PluginSettings):
    settings_class = OembedConfig

    allow_private_targets = fields.Boolean(load_default=False, metadata={
        "description": "Let the proxy fetch private, loopback and link-local addresses (refused by default)."})
    fetch_timeout_seconds = fields.Float(load_default=5.0, validate=validate.Range(min=0.1, max=30),
                                         metadata={"description": "Seconds one provider fetch may take."})
    max_response_bytes = fields.Integer(load_default=1024 * 1024,
                                        validate=validate.Range(min=1024, max=10 * 1024 * 1024),
                                        metadata={"description": "Largest provider answer read."})
    max_redirects = fields.Integer(load_default=3, validate=validate.Range(min=0, max=10),
                                   metadata={"description": "Redirects one fetch follows."})
    cache_ttl_seconds = fields.Integer(load_default=24 * 60 * 60, validate=validate.Range(min=0),
                                       metadata={"description": "Seconds a provider's answer is kept."})


def config_of(app) -> OembedConfig:
    return app.plugin_settings("oembed")
