"""The validated `[plugins.oembed]` settings of each app (tests build many apps in one process)."""

from __future__ import annotations

import weakref

from .settings import OembedConfig, load_config

_CONFIGS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def configure(app) -> OembedConfig:
    config = load_config(app.plugin_config("oembed"))
    _CONFIGS[app] = config
    return config


def config_of(app) -> OembedConfig:
    return _CONFIGS[app]


def forget(app) -> None:
    _CONFIGS.pop(app, None)
