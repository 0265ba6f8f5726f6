"""Values kept in process while nothing was committed to the database: the host's one helper for it.

A value built from database reads stays true while no transaction commits anywhere (any connection,
any process). `Database.commit_mark()` (or `request.commit_mark()` in a request) is a token that
changes with every commit; where the database gives none (PostgreSQL) it is None and nothing is kept.
Read the mark *before* the reads the value is built from, so that a commit in between makes the
entry stale at once. The time bound covers what no commit shows (a database file swapped under the
site, a clock-based rule).
"""

from __future__ import annotations

import time
from typing import Any, Generic, Hashable, TypeVar

from .lru import LruCache

V = TypeVar("V")


class KeptWhileNothingCommitted(Generic[V]):
    """At most `entries` values, each served while the commit mark it was stored with is still current,
    for at most `seconds`. Thread-safe (waitress serves from several threads)."""

    def __init__(self, seconds: float, entries: int):
        self.seconds = seconds
        self.entries = LruCache(entries)

    def get(self, key: Hashable, mark: Any) -> V | None:
        """The value kept for `key` with this very `mark` and not yet expired, or None."""
        if mark is None:
            return None
        entry = self.entries.get(key)
        if entry is not None and entry[0] == mark and entry[1] > time.monotonic():
            return entry[2]
        return None

    def put(self, key: Hashable, mark: Any, value: V) -> None:
        """Keep `value` for `key`, valid while the commit mark stays `mark` (nothing is kept without a mark)."""
        if mark is not None:
            self.entries.put(key, (mark, time.monotonic() + self.seconds, value))
