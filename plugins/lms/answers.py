"""Answers kept encoded for repeat callers (the course list, course contents), never served stale.

An outside app asks for the same pages again and again. An answer is kept per caller (user id)
and request, with the versions it was built from: the content store's version (items, their
meta, terms and term links, bumped by the database itself whichever process writes) and this
plugin's own (bumped with every rating written). A kept answer is served only while both are
unchanged and for at most KEEP_SECONDS, the limit for changes neither version sees (a teacher's
new display name, a changed role). Requests that reshape the answer (`_fields`, `_envelope` ...)
and databases without a content version are answered afresh every time.
"""

from __future__ import annotations

from typing import Any, Callable

from sqlalchemy import bindparam, select, update

from host import encode_item

from .tables import STATE, table

KEEP_SECONDS = 60.0
ENTRIES = 512


def lms_version(request) -> int:
    state = table(request.app, STATE)
    statement = request.app.db.prepared("lms.state_version", lambda: select(state.c.version).where(state.c.id == 1))
    return request.session.connection().execute(statement).scalar() or 0


def bump(app, session) -> None:
    """Count a change that kept answers must not outlive (ratings); in the writer's transaction."""
    state = table(app, STATE)
    statement = app.db.prepared("lms.state_bump", lambda: update(state).where(state.c.id == bindparam("row"))
                                .values(version=state.c.version + 1))
    if session.execute(statement, {"row": 1}).rowcount == 0:
        session.execute(state.insert().values(id=1, version=1))


def kept(request, name: str, key: Any, build: Callable[[], Any]) -> Any:
    """`build()`'s answer, or the one kept for this caller and `key` while still valid.

    Kept (host `app.kept`) at the two versions; the entry also remembers the database's commit
    mark (host `request.commit_mark`) it was built under: while the mark is unchanged nothing was
    committed anywhere since, so it is served without reading the two versions again.
    """
    if not request.plain:
        return build()
    answers = request.app.kept("lms.answers", ENTRIES, KEEP_SECONDS)
    cache_key = (name, request.user.id, key)
    stored = answers.stored(cache_key)
    mark = request.commit_mark()  # before the versions are read: a commit in between changes the next mark
    if stored is not None and mark is not None and stored[1][1] == mark:
        return stored[1][0]
    content_version = request.app.content.version(request)
    if content_version is None:
        return build()
    versions = (content_version, lms_version(request))
    if stored is not None and stored[0] == versions:
        return stored[1][0]
    encoded = encode_item(build())
    answers.put(cache_key, versions, (encoded, mark))
    return encoded
