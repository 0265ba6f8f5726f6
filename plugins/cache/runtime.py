"""The cache plugin's per-app objects (settings and the response cache), kept in `app.stash`."""

from __future__ import annotations

from dataclasses import dataclass

from host.stash import StashKey

from .settings import CacheConfig
from .store import ResponseCache


@dataclass
class Runtime:
    config: CacheConfig
    cache: ResponseCache


RUNTIME = StashKey[Runtime]("cache.runtime")


def attach(app, config: CacheConfig) -> Runtime:
    runtime = Runtime(config, ResponseCache(app, config))
    app.stash[RUNTIME] = runtime
    return runtime


def runtime_of(app) -> Runtime | None:
    return app.stash.get(RUNTIME)


def detach(app) -> None:
    runtime = app.stash.pop(RUNTIME)
    if runtime:
        runtime.cache.close()
