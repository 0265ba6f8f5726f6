"""Renderings stored per row: gathered as requests render, written in small batches.

A read that had to render an item (its stored rendering missing or out of date) hands the
result here; the batch is written after some request's transaction has ended, in its own
write transaction, so a read never takes the write lock for one row. What is pending is
only an optimisation: a batch lost with its process (or refused by a busy database) costs
one more rendering later, never a wrong answer, since readers check every row's digest.
"""

from __future__ import annotations

import logging
import threading
import time

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from host.stash import StashKey

from ..tables import RENDERED_CONTENT, tables
from .listing import rows_by_ids
from .items import row_to_item
from .. import render

log = logging.getLogger(__name__)

BATCH = 64  # renderings per write: one short transaction instead of one per read
MAX_WAIT = 1.0  # seconds a rendering waits for its batch to fill before it is written anyway
MAX_PENDING = 4 * BATCH  # beyond this (the database refusing writes), new renderings are dropped


class PendingRenderings:
    """Renderings not yet stored, by post id (the latest one per row wins), and when the batch began."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries: dict[int, tuple[str, str, str]] = {}
        self.since = 0.0
        self.writing = False

    def add(self, post_id: int, rendering: tuple[str, str, str]) -> bool:
        """Keep `rendering`; True when the batch is due and no other thread is writing one."""
        with self.lock:
            if len(self.entries) >= MAX_PENDING and post_id not in self.entries:
                return False
            if not self.entries:
                self.since = time.monotonic()
            self.entries[post_id] = rendering
            return self._due()

    def _due(self) -> bool:
        return not self.writing and bool(self.entries) and (
            len(self.entries) >= BATCH or time.monotonic() - self.since >= MAX_WAIT)

    def take(self) -> dict[int, tuple[str, str, str]]:
        with self.lock:
            if self.writing:
                return {}
            taken, self.entries = self.entries, {}
            self.writing = bool(taken)
            return taken

    def done(self, failed: dict[int, tuple[str, str, str]] | None = None) -> None:
        with self.lock:
            self.writing = False
            for post_id, rendering in (failed or {}).items():
                if len(self.entries) < MAX_PENDING:
                    self.entries.setdefault(post_id, rendering)


PENDING = StashKey[PendingRenderings]("core.pending_renderings")


def pending_renderings(app) -> PendingRenderings:
    return app.stash.setdefault_by(PENDING, PendingRenderings)


def stores_renderings(app) -> bool:
    return app.db.engine.dialect.name in ("sqlite", "postgresql")


def keep_rendering(request, post_id: int, rendering: tuple[str, str, str]) -> None:
    """Queue a fresh rendering of `post_id`; when its batch is due, write it after this request."""
    app = request.app
    if not stores_renderings(app):
        return
    if pending_renderings(app).add(post_id, rendering):
        request.after_commit(lambda: write_pending(app))


def write_pending(app) -> int:
    """Store the pending renderings in one transaction (an upsert per row); how many were written."""
    pending = pending_renderings(app)
    batch = pending.take()
    if not batch:
        return 0
    rows = [{"post_id": post_id, "digest": digest, "content": content, "excerpt": excerpt}
            for post_id, (digest, content, excerpt) in sorted(batch.items())]  # one lock order for every writer
    try:
        with app.db.session(write=True) as session:
            session.execute(_upsert(app), rows)
            session.commit()
    except Exception as error:  # a busy or read-only database: keep them for the next batch
        log.warning("could not store %d renderings (%s); they stay pending", len(rows), error)
        pending.done(batch)
        return 0
    pending.done()
    return len(rows)


def _upsert(app):
    """The insert-or-replace of stored renderings, built once per app: a batch is written after a
    request that rendered (every create), and building it anew each time made its `excluded` columns
    and cache key again."""
    return app.db.prepared("core.rendered_upsert", lambda: _build_upsert(app))


def _build_upsert(app):
    table = RENDERED_CONTENT
    dialect = postgresql if app.db.engine.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(table)
    return statement.on_conflict_do_update(index_elements=[table.c.post_id], set_={
        "digest": statement.excluded.digest, "content": statement.excluded.content,
        "excerpt": statement.excluded.excerpt})


def fill_renderings(app, chunk: int = 500) -> int:
    """Render and store every item that has no stored rendering yet; how many were stored.

    Rows written around the API (an import, the benchmark's seed) have none until first read;
    this renders them all ahead, a chunk per transaction. Revisions are left out (never read
    one at a time by readers).
    """
    if not stores_renderings(app):
        return 0
    t = tables(app)
    posts, table = t["posts"], RENDERED_CONTENT
    missing = (select(posts.c.id, posts.c.type)
               .join_from(posts, table, table.c.post_id == posts.c.id, isouter=True)
               .where(table.c.post_id.is_(None), posts.c.type != "revision").order_by(posts.c.id))
    with app.db.session() as session:
        by_type: dict[str, list[int]] = {}
        for post_id, post_type in session.execute(missing):
            by_type.setdefault(post_type, []).append(post_id)
    stored = 0
    for post_type, ids in by_type.items():
        for start in range(0, len(ids), chunk):
            with app.db.session() as session:
                found = rows_by_ids(app, session, post_type, ids[start:start + chunk])
            rows = []
            for post_id, row in found.items():
                item = row_to_item(app, row, post_type)
                item["_rendering"] = None
                _content, _excerpt, to_store = render.render_item(app, item)
                if to_store is not None:
                    digest, content, excerpt = to_store
                    rows.append({"post_id": post_id, "digest": digest, "content": content, "excerpt": excerpt})
            if rows:
                with app.db.session(write=True) as session:
                    session.execute(_upsert(app), rows)
                    session.commit()
                stored += len(rows)
    return stored


def stored_rendering(app, session, post_id: int):
    """The (digest, content, excerpt) stored for `post_id`, or None."""
    table = RENDERED_CONTENT
    row = session.execute(select(table.c.digest, table.c.content, table.c.excerpt)
                          .where(table.c.post_id == post_id)).first()
    return tuple(row) if row is not None else None
