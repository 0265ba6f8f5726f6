"""The `[mail]` table of sitehost.toml, checked once at start-up into a frozen MailSettings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from marshmallow import Schema, fields, validate

from ..config import ConfigError, checked_table

DEFAULTS: dict[str, Any] = {
    "smtp_host": "",
    "smtp_port": 25,
    "username": "",
    "password": "",
    "starttls": False,
    "ssl": False,
    "timeout_seconds": 30,
    "from_address": "noreply@school.invalid",
    "eml_dir": "mail",
    "max_attempts": 8,
    "retry_seconds": 60,
    "poll_seconds": 5,
}


def _count(minimum: int, maximum: int, description: str) -> fields.Integer:
    allowed = f"allowed: a whole number from {minimum:,} to {maximum:,}"
    return fields.Integer(strict=True, validate=validate.Range(minimum, maximum, error=allowed),
                          error_messages={"invalid": allowed}, metadata={"description": description})


def _flag(description: str) -> fields.Boolean:
    return fields.Boolean(truthy={True}, falsy={False}, error_messages={"invalid": "allowed: true or false"},
                          metadata={"description": description})


def _text(description: str, **options) -> fields.String:
    return fields.String(error_messages={"invalid": "allowed: a string"}, metadata={"description": description},
                         **options)


def _address(value: str) -> None:
    from marshmallow import ValidationError

    from .message import parse_address

    try:
        parse_address(value, "from_address")
    except ValueError as error:
        raise ValidationError(f"allowed: an email address such as office@school.example ({error})") from None


class MailSettingsSchema(Schema):
    """`[mail]`: the outgoing mail server and the outbox's retry rules."""

    smtp_host = _text("SMTP server to deliver through; empty: mail is written as .eml files to `eml_dir`.")
    smtp_port = _count(1, 65535, "Port of the SMTP server (587 with starttls, 465 with ssl).")
    username = _text("SMTP login; empty: no authentication.")
    password = _text("SMTP password (with `username`).")
    starttls = _flag("Upgrade the SMTP connection with STARTTLS before logging in.")
    ssl = _flag("Connect with TLS from the start (SMTPS, usually port 465).")
    timeout_seconds = _count(1, 600, "Seconds to wait for the SMTP server before an attempt counts as failed.")
    from_address = _text("From address of mail that does not name its own sender.", validate=_address)
    eml_dir = _text("Folder the .eml files go to when no `smtp_host` is set.",
                    validate=validate.Length(min=1, error="allowed: a folder path"))
    max_attempts = _count(1, 100, "Delivery attempts before a message is marked failed.")
    retry_seconds = _count(0, 86400, "Wait after the first failed attempt; doubled after each further one "
                                     "(at most a day).")
    poll_seconds = _count(1, 3600, "How often the background job `host.mail.deliver` of `sitehost serve` looks at the "
                                   "outbox.")


@dataclass(frozen=True)
class MailSettings:
    smtp_host: str = DEFAULTS["smtp_host"]
    smtp_port: int = DEFAULTS["smtp_port"]
    username: str = DEFAULTS["username"]
    password: str = DEFAULTS["password"]
    starttls: bool = DEFAULTS["starttls"]
    ssl: bool = DEFAULTS["ssl"]
    timeout_seconds: int = DEFAULTS["timeout_seconds"]
    from_address: str = DEFAULTS["from_address"]
    eml_dir: str = DEFAULTS["eml_dir"]
    max_attempts: int = DEFAULTS["max_attempts"]
    retry_seconds: int = DEFAULTS["retry_seconds"]
    poll_seconds: int = DEFAULTS["poll_seconds"]


def load_mail_settings(table: Any, environment: dict[str, tuple[str, str]] | None = None) -> MailSettings:
    """MailSettings from the `[mail]` table; one ConfigError naming every key whose value is not allowed.

    `environment`: the SITEHOST_MAIL__* values (Settings.environment["mail"]), read as the schema's types.
    """
    table = checked_table(MailSettingsSchema(), table, "mail", environment)
    if table.get("starttls") and table.get("ssl"):
        raise ConfigError("[mail]: starttls and ssl cannot both be true (ssl is TLS from the start)")
    return MailSettings(**{**DEFAULTS, **table})
