"""Submissions per client address per minute, counted in the database so every worker shares them.

One row per (address, minute). A read refuses an address that used up its minute before any
work is done; the submission's own write transaction then adds one with an upsert that answers
the new count in the same statement (refusing, and rolling the submission back, past the limit). Rows of earlier minutes are removed now and
then by the request that opens a new minute.

Autoreplies (mail to an address the visitor typed) are counted the same way, per recipient
and day (`take_autoreply`).
"""

from __future__ import annotations

import email.utils
import hashlib
import time

from sqlalchemy import bindparam, delete, select

from host import RestError


def _upsert(session, table):
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    statement = insert(table)
    return statement.on_conflict_do_update(index_elements=[table.c.address, table.c.window],
                                           set_={"count": table.c.count + 1}).returning(table.c.count)


def _refusal() -> RestError:
    seconds = 60 - int(time.time() % 60)
    return RestError("forms_rate_limited", f"Too many submissions from your address; try again in {seconds} "
                     "seconds.", 429, {"retry_after": seconds}, headers={"Retry-After": str(seconds)})


def precheck(app, session, address: str, limit: int) -> None:
    """Refuse (429) an address that used up this minute's submissions: a read, no lock taken."""
    if limit <= 0:
        return
    table = app.db.metadata.tables["forms_rate"]
    statement = app.db.prepared("forms.rate_read", lambda: select(table.c.count).where(
        table.c.address == bindparam("address"), table.c.window == bindparam("window")))
    count = session.execute(statement, {"address": address[:64], "window": int(time.time() // 60)}).scalar()
    if count is not None and count >= limit:
        raise _refusal()


def count_submission(app, session, address: str, limit: int) -> None:
    """Count one submission from `address` in the submission's own write transaction; 429 past `limit`.

    The refusal rolls the whole submission back, so the limit holds exactly even when several
    requests passed `precheck` at the same moment.
    """
    if limit <= 0:
        return
    table = app.db.metadata.tables["forms_rate"]
    minute = int(time.time() // 60)
    statement = app.db.prepared("forms.rate_upsert", lambda: _upsert(session, table))
    count = session.execute(statement, {"address": address[:64], "window": minute, "count": 1}).scalar_one()
    if count == 1:  # the first submission of this minute from this address: tidy old minutes
        session.execute(delete(table).where(table.c.window < minute - 1))
    if count > limit:
        raise _refusal()


def recipient_key(address: str) -> str:
    """The digest an autoreply's recipient is counted under: case and a +tag do not make another address."""
    local, _, domain = email.utils.parseaddr(address)[1].strip().lower().rpartition("@")
    return hashlib.sha256(f"{local.split('+', 1)[0]}@{domain}".encode("utf-8")).hexdigest()


def take_autoreply(app, session, address: str, limit: int) -> bool:
    """Count one autoreply to `address` in the submission's write transaction; False past `limit` a day.

    Autoreplies go to whatever address a visitor types: without a limit per recipient, a form
    is a relay that mails anyone the visitor's text from the school's server.
    """
    if limit <= 0:
        return False
    table = app.db.metadata.tables["forms_autoreply_rate"]
    day = int(time.time() // 86400)
    statement = app.db.prepared("forms.autoreply_upsert", lambda: _upsert(session, table))
    count = session.execute(statement, {"address": recipient_key(address), "window": day, "count": 1}).scalar_one()
    if count == 1:  # the first autoreply of the day to this address: tidy earlier days
        session.execute(delete(table).where(table.c.window < day - 1))
    return count <= limit
