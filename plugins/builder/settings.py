"""`[plugins.builder]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import ValidationError, fields, validate

from host import PluginSettings


@dataclass(frozen=True)
class BuilderSettings:
    max_depth: int
    max_elements: int
    max_data_bytes: int
    max_events: int
    max_event_bytes: int
    import_max_images: int
    import_max_bytes: int
    import_timeout_seconds: float
    allow_private_targets: bool
    secret_key: str


class BuilderSettingsSchema(PluginSettings):
    settings_class = BuilderSettings

    max_depth = fields.Integer(load_default=12, validate=validate.Range(min=2, max=40), metadata={
        "description": "Deepest nesting of elements a builder document may have."})
    max_elements = fields.Integer(load_default=2000, validate=validate.Range(min=1, max=20000), metadata={
        "description": "Most elements (sections, columns, widgets ...) in one builder document."})
    max_data_bytes = fields.Integer(load_default=1024 * 1024, validate=validate.Range(min=1024, max=16 * 1024 * 1024),
                                    metadata={"description": "Largest `_builder_data` JSON text, in bytes."})
    max_events = fields.Integer(load_default=10000, validate=validate.Range(min=10, max=1_000_000), metadata={
        "description": "Editor usage events kept (send-event); the oldest go first."})
    max_event_bytes = fields.Integer(load_default=4096, validate=validate.Range(min=64, max=65536), metadata={
        "description": "Largest `event_data` of one usage event, as JSON."})
    import_max_images = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500), metadata={
        "description": "Most external images one media import copies."})
    import_max_bytes = fields.Integer(load_default=10 * 1024 * 1024, validate=validate.Range(min=1024), metadata={
        "description": "Largest image a media import downloads."})
    import_timeout_seconds = fields.Float(load_default=10.0, validate=validate.Range(min=0.1, max=60), metadata={
        "description": "Seconds one image download may take."})
    allow_private_targets = fields.Boolean(load_default=False, metadata={
        "description": "Let media import fetch private, loopback and link-local addresses (refused by default)."})
    secret_key = fields.String(load_default="", validate=validate.Length(max=500), metadata={
        "description": "Secret the library token's encryption key is derived from; empty: one is generated and "
                       "kept in the database (set it here so a database copy alone cannot decrypt the token)."})

    def prepare(self, data):
        if data["secret_key"] and len(data["secret_key"]) < 32:
            raise ValidationError({"secret_key": "at least 32 characters, or leave it empty"})
        return data


def settings_of(app) -> BuilderSettings:
    return app.plugin_settings("builder")
