"""`[plugins.wordpress_migrate]` in sitehost.toml."""

from __future__ import annotations

from marshmallow import Schema, fields


class WordpressMigrateConfigSchema(Schema):
    allow_private_media = fields.Boolean(load_default=False, metadata={
        "description": "Let `sitehost import wordpress --fetch-media` download from private and loopback addresses "
                       "(an old site on the same network); off, the outbound guard refuses them."})
