"""`[plugins.newsletter]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from marshmallow import ValidationError, fields, validate, validates

from host import PluginSettings

DAY = 86400


@dataclass(frozen=True)
class NewsletterSettings:
    check_deliverability: bool
    address_limit: int
    address_window_seconds: int
    email_limit: int
    email_window_seconds: int
    exempt_addresses: frozenset[str]
    confirm_max_age_seconds: int
    unsubscribe_max_age_seconds: int
    sender: str


class NewsletterSettingsSchema(PluginSettings):
    settings_class = NewsletterSettings

    check_deliverability = fields.Boolean(load_default=False, metadata={
        "description": "Ask DNS whether a sign-up's email domain accepts mail (needs network access)."})
    address_limit = fields.Integer(load_default=10, validate=validate.Range(min=1, max=100000), metadata={
        "description": "Sign-ups accepted from one client address per address window; more answer 429."})
    address_window_seconds = fields.Integer(load_default=3600, validate=validate.Range(min=1, max=30 * DAY),
                                            metadata={"description": "The address window, in seconds."})
    email_limit = fields.Integer(load_default=3, validate=validate.Range(min=1, max=1000), metadata={
        "description": "Mails (confirmations, unsubscribe links) sent to one email address per email "
                       "window; further requests for that address are accepted without another mail."})
    email_window_seconds = fields.Integer(load_default=3600, validate=validate.Range(min=1, max=30 * DAY),
                                          metadata={"description": "The email window, in seconds."})
    exempt_addresses = fields.List(fields.String(), load_default=lambda: ["127.0.0.1", "::1"], metadata={
        "description": "Client addresses the address limit does not count (this machine: a local proxy "
                       "outside trusted_proxies, health checks, benchmarks)."})
    confirm_max_age_seconds = fields.Integer(load_default=7 * DAY, validate=validate.Range(min=60, max=365 * DAY),
                                             metadata={"description": "How long a confirmation link works."})
    unsubscribe_max_age_seconds = fields.Integer(
        load_default=730 * DAY, validate=validate.Range(min=DAY, max=3650 * DAY),
        metadata={"description": "How long the unsubscribe link of a mail works."})
    sender = fields.String(load_default="", validate=validate.Length(max=320), metadata={
        "description": "From address of newsletter mails; empty: the mail service's default sender."})

    @validates("exempt_addresses")
    def _addresses(self, value, **_kwargs):
        for address in value:
            try:
                ipaddress.ip_address(address)
            except ValueError:
                raise ValidationError(f"{address!r} is not an IP address") from None

    def prepare(self, data):
        return {**data, "exempt_addresses": frozenset(str(ipaddress.ip_address(address))
                                                      for address in data["exempt_addresses"])}


def settings_of(app) -> NewsletterSettings:
    return app.plugin_settings("newsletter")
