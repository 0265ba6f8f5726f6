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
    # The commit round (host.content.commit_round) whose purges this thread made last, and of which families.
    purged: threading.local = field(default_factory=threading.local)

    def invalidate_once(self, commit_round: object | None, families: tuple[str, ...]) -> None:
        """Purge these families, less those this thread purged for the same commit round already
        (None: always purge)."""
        if commit_round is None or getattr(self.purged, "round", None) is not commit_round:
            self.purged.round, self.purged.families = commit_round, set()
        wanted = tuple(family for family in families if family not in self.purged.families)
        if not wanted:
            return
        self.cache.invalidate(wanted)
        self.purged.families.update(wanted)


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
