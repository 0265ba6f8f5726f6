"""Encoded list items kept by the exact row they were built from.

Most list pages repeat items the site answered moments ago. An item's public view is a
function of its row (every column, the terms, meta, revision count and parent status the
page SELECT brings along) and the REST root it links to, so the JSON built for that pair
can be reused for as long as the row is unchanged: any edit changes a value in the key
and misses. Only public, unprotected items in the `view` context are kept; what a reader
may see never depends on who asks for those, and everything else is built per request.
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
