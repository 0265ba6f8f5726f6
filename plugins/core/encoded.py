"""Encoded list items kept per content version.

Most list pages repeat items the site answered moments ago. The content version (a row
that triggers bump inside every write to posts, meta, terms and term links, in any
process) says whether anything an item is built from may have changed; while it has not,
the JSON built for an item and a REST root is exactly what building it again would give.
A list page then reads only its ids and the version from the listing index, and builds
only the items not kept. Only public, unprotected items in the `view` context are kept:
what a reader may see of those never depends on who asks.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Any

ENTRIES = 2048  # about 4 KB each with a 2 KB body: a few MB per worker


class EncodedItems:
    """A thread-safe LRU of encoded items, one per app."""

    def __init__(self, size: int = ENTRIES):
        self.size = size
        self.entries: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key) -> Any:
        with self.lock:
            value = self.entries.get(key)
            if value is not None:
                self.entries.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self.lock:
            self.entries[key] = value
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)


_BY_APP: "weakref.WeakKeyDictionary[Any, EncodedItems]" = weakref.WeakKeyDictionary()


def encoded_items(app) -> EncodedItems:
    found = _BY_APP.get(app)
    if found is None:
        found = _BY_APP.setdefault(app, EncodedItems())
    return found
