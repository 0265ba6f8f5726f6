"""The site's secrets: random values made once per site and name, shared by every server process.

A plugin that signs links or tokens needs a key that every worker of `sitehost serve` (and
every host on one PostgreSQL database) agrees on, that survives restarts, and that no
operator has to configure. `app.site_secret("newsletter.signing")` is that key: on the first
read of a name in a site it is made with `secrets.token_urlsafe` and stored in the host table
`site_secrets`; later reads, in any process, get the same value. It is kept in memory per app
after the first read, as it never changes. On SQLite they are as private as the database file,
which host.db creates 0600 (owner only).

Two processes starting together may both find no row: each inserts its candidate only if the
name is still absent (INSERT ... ON CONFLICT DO NOTHING, on SQLite and PostgreSQL) and then
reads back the row that won, so both use the same secret.

`adopt` serves plugins that kept a key of their own before this store existed: when the store
has no secret of the name yet, `adopt(session)` may answer the old value, which is stored instead
of a new random one, so tokens signed with it before (links in sent mail) keep working.
"""

from __future__ import annotations

import secrets
from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from .db import insert_if_absent

MAX_NAME = 100  # the column's length
SECRET_BYTES = 32


def read_or_make(app, name: str, adopt: Callable[[Session], str | None] | None = None) -> bytes:
    """The secret `name` of `app`'s site, made (or adopted) on its first read; see the module's docstring."""
    if not isinstance(name, str) or not name or len(name) > MAX_NAME:
        raise ValueError(f"a site secret's name is a string of 1 to {MAX_NAME} characters, not {name!r}")
    table = app.host_tables["site_secrets"]
    query = select(table.c.value).where(table.c.name == name)
    with app.db.session() as session:
        value = session.execute(query).scalar()
    if value is None:
        with app.db.session(write=True) as session, session.begin():
            value = session.execute(query).scalar()
            if value is None:
                candidate = (adopt(session) if adopt is not None else None) or secrets.token_urlsafe(SECRET_BYTES)
                session.execute(insert_if_absent(session, table).values(name=name, value=candidate))
                value = session.execute(query).scalar_one()  # ours, or the one another process stored first
    return value.encode()
