"""The host's one LRU helper: bounded, thread-safe (waitress serves from several threads)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class LruCache:
    """At most `size` entries; the least recently used goes first. waitress serves from several threads."""

    def __init__(self, size: int):
        self.size = size
        self.entries: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key) -> Any:
        with self.lock:
            value = self.entries.get(key)
            if value is not None:
                self.entries.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self.lock:
            self.entries[key] = value
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

