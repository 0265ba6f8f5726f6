"""The calendar's state row: a version for cached list totals and the longest event's duration."""

from __future__ import annotations

from sqlalchemy import case, insert, select, update

from host import Kept

from .tables import STATE_ROW, tables

KEPT_SECONDS = 60  # a kept total or event also expires, for events whose scheduled publication time comes
TOTALS_KEPT = 512
PAGES_KEPT = 256
SHAPES_KEPT = 2000


def ensure_row(app) -> None:
    state = tables(app)["state"]
    with app.db.session(write=True) as session, session.begin():
        if session.execute(select(state.c.id).where(state.c.id == STATE_ROW)).first() is None:
            session.execute(insert(state).values(id=STATE_ROW, version=0, longest_s=0))


def changed(session, app, duration_s: int = 0) -> None:
    """In the writing transaction: bump the version (and raise the longest duration if needed)."""
    state = tables(app)["state"]
    session.execute(update(state).where(state.c.id == STATE_ROW).values(
        version=state.c.version + 1,
        longest_s=case((state.c.longest_s < duration_s, duration_s), else_=state.c.longest_s)))


def read(session, app) -> tuple[int, int]:
    """(version, longest event in seconds)."""
    state = tables(app)["state"]
    statement = app.db.prepared("calendar.state", lambda: select(state.c.version, state.c.longest_s)
                                .where(state.c.id == STATE_ROW))
    row = session.connection().execute(statement).first()  # Core, not the ORM: cheaper per request
    return (row.version, row.longest_s) if row is not None else (0, 0)


def totals(app) -> Kept:
    """Totals of filtered lists by filter key, at a calendar version (see listing._total)."""
    return app.kept("calendar.totals", TOTALS_KEPT, KEPT_SECONDS)


def pages(app) -> Kept:
    """The event ids of a plain list's page by (filter key, page size, page), at a calendar version (as totals)."""
    return app.kept("calendar.pages", PAGES_KEPT, KEPT_SECONDS)


def shapes(app) -> Kept:
    """Event objects of lists, kept per (REST root, event id, version): see listing.listed_events."""
    return app.kept("calendar.shapes", SHAPES_KEPT, KEPT_SECONDS)
