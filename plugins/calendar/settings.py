"""`[plugins.calendar]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import fields, validate

from host import PluginSettings


@dataclass(frozen=True)
class CalendarSettings:
    enabled: bool
    currency_symbol: str
    currency_code: str
    currency_position: str
    list_months: int
    import_timeout_seconds: float = 20.0
    import_max_bytes: int = 10 * 1024 * 1024
    import_allow_private_targets: bool = False
    import_batch_size: int = 100


class CalendarSettingsSchema(PluginSettings):
    settings_class = CalendarSettings

    enabled = fields.Boolean(load_default=True, metadata={
        "description": "Serve cal/events/v1; false registers none of its routes (404 rest_no_route)."})
    currency_symbol = fields.String(load_default="£", validate=validate.Length(max=10),
                                    metadata={"description": "Currency symbol of event costs."})
    currency_code = fields.String(load_default="GBP", validate=validate.Regexp(r"^[A-Z]{3}$"),
                                  metadata={"description": "ISO 4217 code of event costs."})
    currency_position = fields.String(load_default="prefix", validate=validate.OneOf(["prefix", "postfix"]),
                                      metadata={"description": "Whether the symbol goes before or after the amount."})
    list_months = fields.Integer(load_default=24, validate=validate.Range(min=1, max=120),
                                 metadata={"description": "Months ahead the event list's default window reaches."})
    import_timeout_seconds = fields.Float(load_default=20.0, validate=validate.Range(min=1, max=120), metadata={
        "description": "`sitehost calendar import URL`: seconds the whole download may take."})
    import_max_bytes = fields.Integer(load_default=10 * 1024 * 1024, validate=validate.Range(min=1024, max=100 * 1024 * 1024),
                                      metadata={"description": "Largest .ics file or download an import reads."})
    import_allow_private_targets = fields.Boolean(load_default=False, metadata={
        "description": "Let `sitehost calendar import URL` fetch from private and loopback addresses (tests, "
                       "intranets); false refuses them as the oEmbed proxy does."})
    import_batch_size = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000), metadata={
        "description": "Events an import writes per batch (one transaction, one batch hash)."})


def settings_of(app) -> CalendarSettings:
    return app.plugin_settings("calendar")
