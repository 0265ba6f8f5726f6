"""Small named values of the cache plugin (crawler switches, CDN status, domain errors), in the DB."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select, update

from .tables import tables


def get_state(session, app, key: str, default: Any = None) -> Any:
    table = tables(app)["cache_state"]
    row = session.execute(select(table.c.value).where(table.c.key == key)).first()
    return default if row is None or row.value is None else row.value


def set_state(session, app, key: str, value: Any) -> None:
    """Upsert inside the caller's write transaction (BEGIN IMMEDIATE serialises writers)."""
    table = tables(app)["cache_state"]
    changed = session.execute(update(table).where(table.c.key == key).values(value=value)).rowcount
    if not changed:
        session.execute(insert(table).values(key=key, value=value))
