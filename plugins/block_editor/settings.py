"""`[plugins.block_editor]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import fields, validate

from host import PluginSettings


@dataclass(frozen=True)
class BlockEditorConfig:
    allow_private_targets: bool
    fetch_timeout_seconds: float
    max_response_bytes: int
    cache_ttl_seconds: int


class BlockEditorConfigSchema(PluginSettings):
    settings_class = BlockEditorConfig

    allow_private_targets = fields.Boolean(load_default=False, metadata={
        "description": "Let url-details fetch private, loopback and link-local addresses (refused by default)."})
    fetch_timeout_seconds = fields.Float(load_default=5.0, validate=validate.Range(min=0.1, max=30), metadata={
        "description": "Seconds one url-details fetch may take, redirects included."})
    max_response_bytes = fields.Integer(load_default=512 * 1024, validate=validate.Range(min=1024, max=5 * 1024 * 1024),
                                        metadata={"description": "Largest page url-details reads."})
    cache_ttl_seconds = fields.Integer(load_default=60 * 60, validate=validate.Range(min=0), metadata={
        "description": "Seconds a URL's details are kept in the database (0: not kept)."})


def config_of(app) -> BlockEditorConfig:
    return app.plugin_settings("block_editor")
