"""`[plugins.calendar]` in sitehost.toml, validated once in `startup`."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import Schema, ValidationError, fields, validate

from host import StartupError
from host.stash import StashKey


class CalendarSettingsSchema(Schema):
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


@dataclass(frozen=True)
class CalendarSettings:
    enabled: bool
    currency_symbol: str
    currency_code: str
    currency_position: str
    list_months: int


SETTINGS = StashKey[CalendarSettings]("calendar.settings")


def parse(raw: dict) -> CalendarSettings:
    try:
        return CalendarSettings(**CalendarSettingsSchema().load(dict(raw)))
    except ValidationError as error:
        raise StartupError(f"[plugins.calendar] is invalid: {error.messages}") from None


def load(app) -> CalendarSettings:
    app.stash[SETTINGS] = parse(app.plugin_config("calendar"))
    return app.stash[SETTINGS]


def settings_of(app) -> CalendarSettings:
    found = app.stash.get(SETTINGS)
    return found if found is not None else load(app)
