"""Encoded list items kept per content version.

Most list pages repeat items the site answered moments ago. The content version (a row
that triggers bump inside every write to posts, meta, terms and term links, in any
process) says whether anything an item is built from may have changed; while it has not,
the JSON built for an item and a REST root is exactly what building it again would give.
A list page then reads only its ids and the version from the listing index, and builds
only the items not kept. Only public, unprotected items in the `view` context are kept:
what a reader may see of those never depends on who asks, except the targetHints of their
`self` link, so an entry is the item's row with one encoding per distinct targetHints.

Entries are keyed by item, with the version they were built at inside: a write (any write
bumps the version) replaces an item's entry instead of adding one beside it, so a site that
writes while it is read keeps one entry per recently read item, not one per item and version
(the "mixed" benchmark grew each worker by 58 MB of stale versions).
"""

from __future__ import annotations


from host import Kept

ENTRIES = 2048  # about 4 KB each with a 2 KB body: a few MB per worker


def encoded_items(app) -> Kept:
    """(item, render contributions, encodings by targetHints) by (base URL, id), at a content version."""
    return app.kept("core.encoded_items", ENTRIES)
