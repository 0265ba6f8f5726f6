"""The cache plugin's per-app objects (settings and the response cache), kept in `app.stash`."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from host.stash import StashKey

from .settings import CacheConfig
from .store import ResponseCache


@dataclass
class Runtime:
    config: CacheConfig
    cache: ResponseCache
    # The commit round (host.content.commit_round) whose purge this thread made last.
    purged: threading.local = field(default_factory=threading.local)

    def invalidate_once(self, commit_round: object | None) -> None:
        """Purge, unless this thread purged for the same commit round already (None: always purge)."""
        if commit_round is not None and getattr(self.purged, "round", None) is commit_round:
            return
        self.cache.invalidate()
        self.purged.round = commit_round


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
