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

import weakref
from typing import Any

from .lru import LruCache, per_app

ENTRIES = 2048  # about 4 KB each with a 2 KB body: a few MB per worker

_BY_APP: "weakref.WeakKeyDictionary[Any, LruCache]" = weakref.WeakKeyDictionary()


def encoded_items(app) -> LruCache:
    return per_app(_BY_APP, app, lambda: LruCache(ENTRIES))
