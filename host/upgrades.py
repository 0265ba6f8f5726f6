"""Rolling upgrades: the newest release that changed the tables, and who may change them now.

Nodes of one site are replaced one at a time, so for a while old and new releases serve the same
database. Each node's start-up runs its table changes under the start-up lock (Database.startup_lock:
an advisory lock on PostgreSQL, a file lock on SQLite), so they run once: the next node finds them
made. The release that made them is recorded in `site_state`; a node of an OLDER release that starts
(or restarts) meanwhile must not change tables, triggers or functions back to its own version, so
`app.schema_changes_allowed` is False there and plugins skip their start-up DDL that rewrites
(creating what is missing stays allowed: it cannot undo anything). Which changes need a maintenance
window instead: docs/deploy/upgrades.md.
"""

from __future__ import annotations

import logging
from importlib import metadata

from packaging.version import InvalidVersion, Version
from sqlalchemy import delete, insert, select

log = logging.getLogger("sitehost")

SCHEMA_RELEASE_KEY = "schema_release"  # site_state: the release whose start-up last changed the tables


def code_release() -> str:
    """The release of the sitehost code running here."""
    try:
        return metadata.version("sitehost")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0"


def _parsed(release: str) -> Version:
    try:
        return Version(release)
    except InvalidVersion:
        return Version("0")


def stored_release(app) -> str | None:
    site_state = app.host_tables["site_state"]
    with app.db.session() as session:
        return session.execute(select(site_state.c.value).where(site_state.c.key == SCHEMA_RELEASE_KEY)).scalar()


def may_change_schema(app) -> bool:
    """False when a newer release than this node's already changed the tables (say so in the log)."""
    stored, ours = stored_release(app), code_release()
    if stored is not None and _parsed(stored) > _parsed(ours):
        log.warning("warning: the database's tables were last changed by sitehost %s, newer than this node's %s: "
                    "serving without changing them (a rolling upgrade; replace this node with the new release)",
                    stored, ours)
        return False
    return True


def record_release(app) -> None:
    """After this node's table changes: record its release, once per release (a line in the log when it changes)."""
    stored, ours = stored_release(app), code_release()
    if stored == ours:
        return
    site_state = app.host_tables["site_state"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(site_state).where(site_state.c.key == SCHEMA_RELEASE_KEY))
        session.execute(insert(site_state).values(key=SCHEMA_RELEASE_KEY, value=ours))
    if stored is None:  # a new database, or one made before releases were recorded: which, no one can tell
        log.info("sitehost %s recorded as the release of this database's tables", ours)
    else:
        log.info("table changes of sitehost %s made (the database was at %s)", ours, stored)
