"""`[plugins.wordpress_migrate]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import fields

from host import PluginSettings


@dataclass(frozen=True)
class WordpressMigrateConfig:
    allow_private_media: bool


class WordpressMigrateConfigSchema(PluginSettings):
    settings_class = WordpressMigrateConfig

    allow_private_media = fields.Boolean(load_default=False, metadata={
        "description": "Let `sitehost import wordpress --fetch-media` download from private and loopback addresses "
                       "(an old site on the same network); off, the outbound guard refuses them."})


def settings_of(app) -> WordpressMigrateConfig:
    return app.plugin_settings("wordpress_migrate")
