"""Per-app objects of the cache plugin (settings and the response cache), found by app.

Each App builds its own (tests build many apps in one process), so nothing is global.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from .settings import CacheConfig
from .store import ResponseCache

_RUNTIMES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


@dataclass
class Runtime:
    config: CacheConfig
    cache: ResponseCache


def attach(app, config: CacheConfig) -> Runtime:
    runtime = Runtime(config, ResponseCache(app, config))
    _RUNTIMES[app] = runtime
    return runtime


def runtime_of(app) -> Runtime | None:
    return _RUNTIMES.get(app)


def detach(app) -> None:
    runtime = _RUNTIMES.pop(app, None)
    if runtime:
        runtime.cache.close()
