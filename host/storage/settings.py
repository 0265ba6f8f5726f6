"""The `[storage]` table of sitehost.toml, checked once at start-up into a frozen StorageSettings.

Credentials are never read from the file: boto3 finds them as it always does (AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, AWS_PROFILE, the shared credentials file, an instance role), so a key
written into the table is named as an error instead of being used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from marshmallow import Schema, ValidationError, fields, validate

from ..config import ConfigError, check_section

BACKENDS = ("local", "s3")
SERVE_MODES = ("stream", "redirect")
# Names people reach for when they paste credentials into the table; each is refused by name.
CREDENTIAL_KEYS = ("access_key", "access_key_id", "aws_access_key_id", "secret_key", "secret_access_key",
                   "aws_secret_access_key", "session_token", "aws_session_token", "password")


def _bucket(value: str) -> None:
    # S3's naming rule (3-63 characters: lower-case letters, digits, dots, hyphens; a letter or digit at
    # each end), checked with a plain scan: no regular expression runs on a setting.
    allowed = "allowed: an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens)"
    if value and (not 3 <= len(value) <= 63 or not value[0].isalnum() or not value[-1].isalnum()
                  or any(not (character.isdigit() or "a" <= character <= "z" or character in ".-")
                         for character in value)):
        raise ValidationError(allowed)


def _endpoint(value: str) -> None:
    parts = urlsplit(value)
    if value and (parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment):
        raise ValidationError("allowed: empty (AWS itself) or the http(s) address of an S3-compatible server, "
                              "such as https://s3.eu-west-2.amazonaws.com or http://127.0.0.1:9000")


def _prefix(value: str) -> None:
    if value.startswith("/") or "//" in value or any(part in (".", "..") for part in value.split("/")) \
            or any(ord(character) < 32 for character in value):
        raise ValidationError("allowed: empty or a key prefix such as `riverside/` (no leading slash, no "
                              "empty, `.` or `..` parts)")


def _text(description: str, **options) -> fields.String:
    return fields.String(error_messages={"invalid": "allowed: a string"}, metadata={"description": description},
                         **options)


class StorageSettingsSchema(Schema):
    """`[storage]`: where uploads, form files and backup archives are kept, and how files are served."""

    backend = _text("`local`: the folders on this machine (`uploads_dir` and each plugin's own); `s3`: an "
                    "S3-compatible object store, shared by every node (see docs/storage.md).",
                    load_default="local", validate=validate.OneOf(BACKENDS, error="allowed: local or s3"))
    bucket = _text("Bucket of the object store (backend `s3`; it must exist).", load_default="",
                   validate=_bucket)
    endpoint_url = _text("Address of the S3-compatible server (MinIO, Ceph, Garage...); empty: AWS S3 itself.",
                         load_default="", validate=_endpoint)
    region = _text("Region of the bucket; empty: boto3's own choice (AWS_DEFAULT_REGION, ~/.aws/config).",
                   load_default="", validate=validate.Length(max=64, error="allowed: a region name"))
    prefix = _text("Prefix of every key this site writes, so that several sites can share a bucket "
                   "(`riverside/`); empty: none.", load_default="",
                   validate=validate.And(validate.Length(max=200, error="allowed: at most 200 characters"), _prefix))
    serve = _text("`stream`: sitehost sends each file itself; `redirect`: a public file answers 302 to a signed "
                  "URL of the object store (private files are always streamed after the permission check).",
                  load_default="stream", validate=validate.OneOf(SERVE_MODES, error="allowed: stream or redirect"))
    url_expires_seconds = fields.Integer(
        strict=True, load_default=300,
        validate=validate.Range(10, 604_800, error="allowed: a whole number from 10 to 604,800 (seconds)"),
        error_messages={"invalid": "allowed: a whole number from 10 to 604,800 (seconds)"},
        metadata={"description": "How long a signed URL of `serve = \"redirect\"` stays valid."})


@dataclass(frozen=True)
class StorageSettings:
    backend: str = "local"
    bucket: str = ""
    endpoint_url: str = ""
    region: str = ""
    prefix: str = ""
    serve: str = "stream"
    url_expires_seconds: int = 300


def load_storage_settings(table: Any, environment: dict[str, tuple[str, str]] | None = None) -> StorageSettings:
    """StorageSettings from the `[storage]` table; one ConfigError naming every key that is not allowed."""
    if table is None:
        table = {}
    if not isinstance(table, dict):
        raise ConfigError("[storage] must be a table")
    table = dict(table)
    pasted = [key for key in table if key.lower() in CREDENTIAL_KEYS]
    if pasted:
        raise ConfigError(*(f"[storage]: {key} must not be written in sitehost.toml; the object store's "
                            "credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) "
                            "or boto3's usual files and roles" for key in pasted))
    check_section(StorageSettingsSchema(), table, "[storage]", environment)
    loaded = StorageSettingsSchema().load(table)
    if loaded["backend"] == "s3" and not loaded["bucket"]:
        raise ConfigError("[storage]: backend = \"s3\" needs a bucket (bucket = \"NAME\")")
    if loaded["prefix"] and not loaded["prefix"].endswith("/"):
        loaded["prefix"] += "/"
    return StorageSettings(**loaded)
