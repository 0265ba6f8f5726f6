"""The validated `[plugins.oembed]` settings, loaded once in `startup` and kept in `app.stash`."""

from __future__ import annotations

from host.stash import StashKey

from .settings import OembedConfig, load_config

CONFIG = StashKey[OembedConfig]("oembed.config")


def configure(app) -> OembedConfig:
    config = load_config(app.plugin_config("oembed"))
    app.stash[CONFIG] = config
    return config


def config_of(app) -> OembedConfig:
    return app.stash[CONFIG]


def forget(app) -> None:
    app.stash.pop(CONFIG)
