"""`[plugins.spam]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import fields, validate

from host import PluginSettings


@dataclass(frozen=True)
class SpamConfig:
    service_url: str
    service_timeout: float
    spam_threshold: float
    discard_threshold: float
    max_links: int
    min_seconds: float
    seconds_saved_per_spam: int


class SpamConfigSchema(PluginSettings):
    settings_class = SpamConfig

    service_url = fields.Url(load_default="", require_tld=False, schemes={"http", "https"}, metadata={
        "description": "Base URL of a remote spam service speaking the reference protocol (verify-key, "
                       "comment-check, submit-spam, submit-ham, get-stats); empty: local filtering only, "
                       "nothing is ever sent out."})
    service_timeout = fields.Float(load_default=3.0, validate=validate.Range(min=0.1, max=30), metadata={
        "description": "Seconds to wait for the remote service; on timeout the local verdict stands."})
    spam_threshold = fields.Float(load_default=0.5, validate=validate.Range(min=0.01, max=0.99), metadata={
        "description": "Score above which a submission is spam."})
    discard_threshold = fields.Float(load_default=0.9999, validate=validate.Range(min=0.5, max=1.0), metadata={
        "description": "With strictness on, spam scoring above this is discarded instead of kept in the spam "
                       "folder."})
    max_links = fields.Integer(load_default=2, validate=validate.Range(min=0, max=100), metadata={
        "description": "Links a submission may hold before the link rule counts against it."})
    min_seconds = fields.Float(load_default=3.0, validate=validate.Range(min=0, max=600), metadata={
        "description": "A form filled faster than this (elapsed_seconds) looks automated."})
    seconds_saved_per_spam = fields.Integer(load_default=30, validate=validate.Range(min=0, max=3600), metadata={
        "description": "Moderator time one caught spam saves, for the stats' time_saved."})

    def prepare(self, data):
        return {**data, "service_url": data["service_url"].rstrip("/")}


def settings_of(app) -> SpamConfig:
    return app.plugin_settings("spam")
