"""The host's one in-process cache of values read from the database or the settings: `Kept`.

A kept value is tied to the *version* it was built at, a value that changes whenever anything it was
built from may have changed, and it is served again only while the version read now is that same
value. Read the version BEFORE the reads the value is built from: a write that lands in between makes
the entry stale at once, never a stale entry current. A version of None keeps nothing.

The versions to tie to, by what the value is built from:

- the commit mark, `request.commit_mark()` (or `app.db.commit_mark()` outside a reading request):
  changes with every commit of any connection of any process on an SQLite file (`PRAGMA data_version`);
  None on PostgreSQL and other servers, where nothing is kept by it. Use it for values built from
  tables no trigger versions (application passwords, sign-in state, a plugin's own tables).
- the content version, `app.content.version(request)`: a row bumped by triggers inside every writing
  transaction on items, their meta, terms, term links, comments, users, user meta and the site
  settings (core's tables.VERSIONED_TABLES), on SQLite *and* PostgreSQL, so a value kept by one
  process is stale as soon as any process committed such a write. One single-row read per use.
- a plugin's own version: a counter its writes bump in their transaction (lms's answers), or what
  a value also depends on (`(content version, next due moment)`): any hashable value.
- the settings: `app.settings` and `app.plugin_settings(name)` are frozen for the app's life, so a
  value built from them alone needs no version (`version=()`); the site settings stored in the
  database (title, address, permalinks) are in the content version.

`seconds` bounds what no version shows (a clock-based rule such as a scheduled post coming due, a
database file swapped under the site). Every `Kept` holds at most `entries` values (least recently
used first out) and is safe to use from waitress's threads. Make one per app with
`app.kept(name, entries=..., seconds=...)`, never at module level (two apps in one process, the
test kit's second app on the same database, must not share entries).

What stays `functools.lru_cache` (the rule: the result is a pure function of its arguments, which come
from code, packaged files or a bounded set, never from the database or a request, so no write can make it
stale): host/linear.py `pattern` (compiled RE2 patterns), host/db.py `_plain_select` (statement texts),
host/rest/schemas.py `_converter` (apispec's converter), host/admin/templating.py `environment` and
host/theme `_environment` (Jinja2 environments by package and folder; Jinja2 reloads changed templates
itself), host/theme `static_version` (digest of a packaged file), host/migrations.py `scripts` (a
migrations folder's revision files), host/mail/message.py `_checked_address` (parsing an address),
plugins/core/render.py `render_title`, plugins/core/item_schemas.py (schema classes by type),
plugins/core/permissions.py `_caps_of` (capability names), plugins/core/permalinks.py
`_structure_pattern` (a structure's regex), plugins/calendar/common.py `_QUERY_TEXTS` (query texts by
pairs) and plugins/core/store/listing.py's compiled statements (by query shape).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Generic, Hashable, TypeVar

from .lru import LruCache
from .stash import StashKey

V = TypeVar("V")


class Kept(Generic[V]):
    """At most `entries` values, each served while the version it was stored with is the version now,
    for at most `seconds` (None: no time bound). Thread-safe (waitress serves from several threads)."""

    def __init__(self, entries: int, seconds: float | None = None, name: str = "",
                 max_bytes: int | None = None, size_of: Callable[[Any], int] = len):
        if entries < 1:
            raise ValueError(f"kept {name!r}: entries must be at least 1, not {entries}")
        self.name = name
        self.seconds = seconds
        self.entries = LruCache(entries)
        self.max_bytes = max_bytes  # and at most this much of them, by `size_of(value)` (large answers)
        self.size_of = size_of

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: Hashable, version: Any) -> V | None:
        """The value kept for `key` at this very `version` and not yet expired, or None."""
        if version is None:
            return None
        entries = self.entries  # LruCache.get inlined: a page of items asks once per item
        with entries.lock:
            entry = entries.entries.get(key)
            if entry is None:
                return None
            entries.entries.move_to_end(key)
        if entry[0] == version and (entry[1] is None or entry[1] > time.monotonic()):
            return entry[2]
        return None

    def peek(self, key: Hashable) -> V | None:
        """The value last kept for `key`, whatever its version and age, or None: a hint (how large an
        answer was lately), never an answer."""
        entries = self.entries
        with entries.lock:
            entry = entries.entries.get(key)
        return None if entry is None else entry[2]

    def get_many(self, keys: list[Hashable], version: Any) -> list[V | None]:
        """`get` of each key, in order, under one lock: a page of items asks for all of them at once
        (a Python call and a lock per item were a tenth of a cached posts list's work)."""
        if version is None:
            return [None] * len(keys)
        values: list[V | None] = []
        entries = self.entries
        with entries.lock:
            table = entries.entries
            now = None
            for key in keys:
                entry = table.get(key)
                if entry is None:
                    values.append(None)
                    continue
                table.move_to_end(key)
                if entry[0] != version:
                    values.append(None)
                elif entry[1] is None:
                    values.append(entry[2])
                else:
                    if now is None:
                        now = time.monotonic()
                    values.append(entry[2] if entry[1] > now else None)
        return values

    def stored(self, key: Hashable) -> tuple[Any, V] | None:
        """(version, value) kept for `key` and not yet expired, for a caller that learns from the entry
        how to read the version now (host/rest/kept_embeds.py: the version function of its route)."""
        entry = self.entries.get(key)
        if entry is not None and (entry[1] is None or entry[1] > time.monotonic()):
            return entry[0], entry[2]
        return None

    def put(self, key: Hashable, version: Any, value: V, seconds: float | None = None) -> None:
        """Keep `value` for `key` while the version stays `version` (nothing is kept without one), for at
        most `seconds` if given, else the Kept's own bound."""
        if version is None:
            return
        bound = self.seconds if seconds is None else min(seconds, self.seconds or seconds)
        self.entries.put(key, (version, None if bound is None else time.monotonic() + bound, value))
        if self.max_bytes is not None:
            with self.entries.lock:  # the least recently used go first, the newest always stays
                kept = self.entries.entries
                total = sum(self.size_of(entry[2]) for entry in kept.values())
                while total > self.max_bytes and len(kept) > 1:
                    _key, entry = kept.popitem(last=False)
                    total -= self.size_of(entry[2])

    def get_or_build(self, key: Hashable, version: Any, build: Callable[[], V]) -> V:
        """The kept value, or `build()` kept at `version` (read the version before calling this)."""
        value = self.get(key, version)
        if value is None:
            value = build()
            self.put(key, version, value)
        return value

    def items(self) -> list[tuple[Hashable, V]]:
        """(key, value) of every entry, least recently used first (what a test or a health page shows)."""
        with self.entries.lock:
            return [(key, entry[2]) for key, entry in self.entries.entries.items()]

    def clear(self) -> None:
        """Forget everything (a change no version shows, e.g. the plugin set)."""
        with self.entries.lock:
            self.entries.entries.clear()


KEPT = StashKey[dict]("host.kept")
_CREATE_LOCK = threading.Lock()


def kept_of(app, name: str, entries: int, seconds: float | None = None, max_bytes: int | None = None,
            size_of: Callable[[Any], int] = len) -> Kept:
    """The app's `Kept` called `name` (made on first use with these bounds). Names are shared by every
    plugin of the app: prefix them with your plugin's name ("calendar.feeds")."""
    # A lock of its own, not the stash's: a value the stash is making may ask for a Kept (core's totals).
    found = app.stash.get(KEPT)
    kept = found.get(name) if found is not None else None
    if kept is None:
        with _CREATE_LOCK:
            found = app.stash.get(KEPT)
            if found is None:
                found = app.stash[KEPT] = {}
            kept = found.get(name)
            if kept is None:
                kept = found[name] = Kept(entries, seconds, name, max_bytes, size_of)
    return kept
