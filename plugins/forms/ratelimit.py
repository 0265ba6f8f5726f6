"""Submissions per client address per minute, counted in the database so every worker shares them.

One row per (address, minute): an upsert adds one and answers the new count in the same
statement, inside the submission's transaction. Rows of earlier minutes are removed now and
then by the request that opens a new minute.
"""

from __future__ import annotations

import time

from sqlalchemy import delete

from host import RestError


def _upsert(session, table):
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    statement = insert(table)
    return statement.on_conflict_do_update(index_elements=[table.c.address, table.c.window],
                                           set_={"count": table.c.count + 1}).returning(table.c.count)


def count_submission(request, address: str, limit: int) -> None:
    """Count one submission from `address`; RestError 429 past `limit` per minute (0: no limit)."""
    if limit <= 0:
        return
    table = request.app.db.metadata.tables["forms_rate"]
    session = request.session
    minute = int(time.time() // 60)
    statement = request.app.db.prepared("forms.rate_upsert", lambda: _upsert(session, table))
    count = session.execute(statement, {"address": address[:64], "window": minute, "count": 1}).scalar_one()
    if count == 1:  # the first submission of this minute from this address: tidy old minutes
        session.execute(delete(table).where(table.c.window < minute - 1))
    if count > limit:
        seconds = 60 - int(time.time() % 60)
        raise RestError("forms_rate_limited", f"Too many submissions from your address; try again in {seconds} "
                        "seconds.", 429, {"retry_after": seconds}, headers={"Retry-After": str(seconds)})
