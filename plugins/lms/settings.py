"""`[plugins.lms]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from babel.numbers import get_currency_precision, is_currency
from marshmallow import ValidationError, fields, validate

from host import PluginSettings

METHOD_PATTERN = r"^[a-z0-9_-]{1,40}$"


def _known_currency(code: str) -> None:
    if not is_currency(code):
        raise ValidationError(f"{code!r} is not an ISO 4217 currency code (upper case, such as GBP or EUR).")


@dataclass(frozen=True)
class LmsSettings:
    per_page: int
    stripe_webhook_secret: str
    webhook_secrets: Mapping[str, str]
    webhook_tolerance: int
    max_webhook_bytes: int
    currency: str

    @property
    def currency_digits(self) -> int:
        """Decimal places of the currency's smallest unit (GBP 2, JPY 0): payments count in that unit."""
        return get_currency_precision(self.currency)


class LmsConfigSchema(PluginSettings):
    settings_class = LmsSettings

    per_page = fields.Integer(load_default=10, validate=validate.Range(min=1, max=100), metadata={
        "description": "Courses per page of lms/v1/courses (the catalogue's pagination setting)."})
    stripe_webhook_secret = fields.String(load_default="", validate=validate.Length(max=200), metadata={
        "description": "Signing secret (whsec_...) of the Stripe endpoint lms/v1/ecommerce-webhook/stripe; "
                       "empty: Stripe events are refused."})
    webhook_secrets = fields.Dict(keys=fields.String(validate=validate.Regexp(METHOD_PATTERN)),
                                  values=fields.String(validate=validate.Length(min=16, max=200)),
                                  load_default=dict, metadata={
        "description": "Other payment methods: {method: secret}; their events are signed with an "
                       "HMAC-SHA256 of the raw body, hex, in X-Webhook-Signature."})
    webhook_tolerance = fields.Integer(load_default=300, validate=validate.Range(min=1, max=86400), metadata={
        "description": "Seconds a signed Stripe event's timestamp may be from the server's clock, either way "
                       "(older replays and future-dated signatures are refused)."})
    currency = fields.String(load_default="GBP", validate=_known_currency, metadata={
        "description": "ISO 4217 code of course prices (lms_price); a payment in another currency, or of "
                       "another amount, enrols no one and is recorded as refused."})
    max_webhook_bytes = fields.Integer(load_default=262144, validate=validate.Range(min=1024, max=4194304), metadata={
        "description": "Largest webhook body accepted, in bytes."})

    def prepare(self, data):
        if "stripe" in data["webhook_secrets"]:
            raise ValidationError({"webhook_secrets": "set the Stripe secret as stripe_webhook_secret, "
                                                      "not in webhook_secrets"})
        return {**data, "webhook_secrets": MappingProxyType(dict(data["webhook_secrets"]))}


def settings_of(app) -> LmsSettings:
    return app.plugin_settings("lms")
