"""`[plugins.core]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import ValidationError, fields, validate

from host import PluginSettings

DEFAULT_MAX_UPLOAD = 10 * 1024 * 1024
DEFAULT_AVATAR_URL = "https://secure.gravatar.com/avatar/"


def _avatar_url(value: str) -> None:
    from urllib.parse import urlsplit

    if value and (urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc):
        raise ValidationError("allowed: empty (no avatar_urls) or an http(s) URL such as "
                              "https://secure.gravatar.com/avatar/")


@dataclass(frozen=True)
class CoreSettings:
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD
    avatar_url: str = DEFAULT_AVATAR_URL
    sideload_allow_private_targets: bool = False
    sideload_timeout_seconds: float = 10.0
    sideload_max_redirects: int = 3
    postpass_limit: int = 10
    postpass_window_seconds: int = 600


class CoreSettingsSchema(PluginSettings):
    settings_class = CoreSettings

    max_upload_bytes = fields.Integer(load_default=DEFAULT_MAX_UPLOAD, validate=validate.Range(min=1, max=2**40),
                                      metadata={"description": "Largest media file accepted (uploaded or sideloaded)."})
    avatar_url = fields.String(load_default=DEFAULT_AVATAR_URL, validate=_avatar_url, metadata={
        "description": "Base of users' `avatar_urls` (the email's SHA-256 hash is appended); empty: users have no "
                       "`avatar_urls`."})
    sideload_allow_private_targets = fields.Boolean(load_default=False, metadata={
        "description": "Let media `url` sideloading fetch private, loopback and link-local addresses (refused by "
                       "default)."})
    sideload_timeout_seconds = fields.Float(load_default=10.0, validate=validate.Range(min=0.1, max=120), metadata={
        "description": "Seconds one media sideload fetch may take."})
    sideload_max_redirects = fields.Integer(load_default=3, validate=validate.Range(min=0, max=10), metadata={
        "description": "Redirects one media sideload fetch follows."})
    postpass_limit = fields.Integer(load_default=10, validate=validate.Range(min=1, max=10_000), metadata={
        "description": "Post-password form submissions (`POST /postpass`) one client address may make per "
                       "`postpass_window_seconds`; past it the form answers 429 and checks no password."})
    postpass_window_seconds = fields.Integer(load_default=600, validate=validate.Range(min=1, max=86_400), metadata={
        "description": "The window of `postpass_limit`, in seconds."})


def settings_of(app) -> CoreSettings:
    return app.plugin_settings("core")
