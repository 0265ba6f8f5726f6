"""Table migrations with Alembic: the host's and each plugin's own revisions, run at start and by `sitehost migrate`.

Each owner of tables (the host, each plugin) that has a `migrations/` folder beside its `__init__.py`
keeps its own revisions there and its own version table, `alembic_version_<name>`, so plugins'
revision ids never meet and a plugin's revisions run only while it is enabled. What a start does,
per owner with a folder, under the start-up lock (Database.startup_lock: one process at a time):

- a version table exists: the revisions after its row run (`upgrade heads`);
- no version table, but some of the owner's tables exist (a database an earlier release made, before
  the owner had revisions): the database is taken to be at the beginning, before the owner's first
  revision, and every revision runs (core's first one brings what earlier releases made to the
  baseline);
- none of its tables exist (a new site, a plugin enabled for the first time): its tables are created
  from the metadata, which describes the newest revision, and stamped with the heads; no revision runs.

Tables that do not exist yet are created from the metadata after the revisions ran (a new table needs
no revision). On SQLite, foreign keys are off while revisions run, so a batch operation that copies a
table does not cascade the old table's deletion; `PRAGMA foreign_key_check` must then find nothing.
A database whose version row this release does not know was migrated by a newer release (a rolling
upgrade): its revisions are left alone, as are all revisions while `may_change_schema` says no.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import MetaData, inspect
from sqlalchemy.engine import Connection

import host

from .auth.models import define_auth_tables
from .plugin_state import apply_stored_set
from .plugins import build_plugin_manager
from .state import define_host_tables
from .upgrades import may_change_schema

log = logging.getLogger("sitehost")
# Alembic's own lines ("Context impl SQLiteImpl." for every connection) would fill the site's log at every
# start; sitehost logs one line per owner whose revisions ran, and Alembic's warnings still show.
logging.getLogger("alembic").setLevel(logging.WARNING)

FOLDER = "migrations"
VERSION_TABLE_PREFIX = "alembic_version_"
HOST = "host"  # the owner name of the host's own tables (site_state, users ...)


@dataclass
class Owner:
    """Who owns some tables: the host or a plugin, its migrations folder (or None) and its table names."""

    name: str
    folder: Path | None
    tables: set[str] = field(default_factory=set)

    @property
    def version_table(self) -> str:
        return version_table(self.name)


@dataclass
class Outcome:
    """What a start (or `sitehost migrate`) did, or would do, to one owner's tables."""

    name: str
    action: str  # created | upgraded | current | pending | newer | held | new | downgraded
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    revisions: list[str] = field(default_factory=list)  # applied (or pending), oldest first

    def line(self) -> str:
        """One line for the operator."""
        return _LINES[self.action].format(name=self.name, before=", ".join(self.before) or "base",
                                          after=", ".join(self.after) or "base", revisions=_revisions(self.revisions))


_LINES = {
    "created": "{name}: tables created at {after}",
    "upgraded": "{name}: {before} -> {after} ({revisions})",
    "downgraded": "{name}: {before} -> {after} (down: {revisions})",
    "current": "{name}: at {after} (current)",
    "pending": "{name}: at {before}, would run {revisions}",
    "new": "{name}: no tables yet (created at {after} at the next start)",
    "newer": "{name}: at {before}, a revision this release does not know (a newer release migrated it)",
    "held": "{name}: at {before}, not migrated (a newer sitehost release changed the tables)",
}


def _revisions(revisions: list[str]) -> str:
    return f"{len(revisions)} revision{'' if len(revisions) == 1 else 's'}: {', '.join(revisions)}"


def version_table(name: str) -> str:
    """`alembic_version_<name>`, the plugin's name made a plain identifier."""
    return VERSION_TABLE_PREFIX + re.sub(r"[^a-z0-9_]", "_", name.lower())


def migrations_folder(module: Any) -> Path | None:
    """The `migrations/` folder of a package (a plugin's module, or `host`), None when it has none."""
    locations = getattr(module, "__path__", None)  # a plain module (not a package) has no folder of its own
    if not locations:
        return None
    folder = Path(list(locations)[0]) / FOLDER
    return folder if folder.is_dir() else None


@functools.lru_cache(maxsize=64)
def scripts(folder: str):
    """The Alembic script directory of a migrations folder (revision files read once per process)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory(folder, version_locations=[folder])


def owners(app) -> list[Owner]:
    """The host and each enabled plugin, in start order, with the tables each registered."""
    found = [Owner(HOST, migrations_folder(host), set(app.table_owners.get(HOST, ())))]
    for record in app.enabled_plugins:
        module = record.module if not isinstance(record.module, str) else None
        found.append(Owner(record.name, migrations_folder(module), set(app.table_owners.get(record.name, ()))))
    return found


def owners_of_settings(settings) -> list[Owner]:
    """`owners` without an app (an app migrates as it is built): the plugins the site would load,
    each with the tables its `register_tables` declares."""
    apply_stored_set(settings)
    manager, records = build_plugin_manager(settings)
    metadata = MetaData()
    define_host_tables(metadata)
    define_auth_tables(metadata)
    tables: dict[str, set[str]] = {HOST: set(metadata.tables)}
    for implementation in manager.hook.register_tables.get_hookimpls():
        before = set(metadata.tables)
        implementation.function(metadata=metadata)
        owner = HOST if implementation.plugin_name.startswith("host.") else implementation.plugin_name
        tables.setdefault(owner, set()).update(set(metadata.tables) - before)
    return [Owner(HOST, migrations_folder(host), tables[HOST])] + [
        Owner(record.name, migrations_folder(record.module), tables.get(record.name, set()))
        for record in records if record.loaded]


@contextlib.contextmanager
def _migration_connection(engine) -> Iterator[Connection]:
    """A connection for revisions: SQLite's foreign keys off (a batch copy drops the old table), checked after."""
    sqlite = engine.dialect.name == "sqlite"
    with engine.execution_options(sitehost_write=True).connect() as connection:
        driver = connection.connection.driver_connection
        if sqlite:
            driver.execute("PRAGMA foreign_keys=OFF")  # outside any transaction: SQLite ignores it inside one
        try:
            yield connection
            if sqlite:
                problems = driver.execute("PRAGMA foreign_key_check").fetchall()
                if problems:
                    raise RuntimeError(f"the migrations left {len(problems)} rows whose foreign keys find nothing "
                                       f"(first: {problems[0]})")
        finally:
            if sqlite:
                driver.execute("PRAGMA foreign_keys=ON")


def _context(connection: Connection, owner: Owner, **opts: Any):
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection, opts={"version_table": owner.version_table, **opts})


def upgrade(connection: Connection, owner: Owner) -> Outcome:
    """Run the owner's revisions after the database's version row, in one transaction."""
    from alembic.operations import Operations
    from alembic.util import CommandError

    script = scripts(str(owner.folder))
    applied: list[str] = []

    def note(ctx, step, heads, run_args):
        applied.extend(step.up_revision_ids)

    with connection.begin():
        before = _context(connection, owner).get_current_heads()
        try:
            steps = list(script._upgrade_revs("heads", before))  # alembic's own `upgrade` command does this
        except CommandError:
            log.warning("warning: %s's tables are at revision %s, which this release does not know: "
                        "left as a newer release made them", owner.name, ", ".join(before))
            return Outcome(owner.name, "newer", before, before)
        if not steps:
            return Outcome(owner.name, "current", before, before)
        context = _context(connection, owner, fn=lambda _heads, _context: steps, on_version_apply=[note])
        with Operations.context(context):
            context.run_migrations()
        after = context.get_current_heads()
    log.info("%s's tables migrated from %s to %s", owner.name, ", ".join(before) or "base", ", ".join(after))
    return Outcome(owner.name, "upgraded", before, after, applied)


def downgrade(app, name: str, revision: str = "base") -> Outcome:
    """Run an enabled owner's `downgrade()`s down to `revision` ("base": before its first), in one transaction.

    For tests of a revision (host.testing.downgrade_tables): the tables as the previous release left them.
    """
    from alembic.operations import Operations

    owner = next((found for found in owners(app) if found.name == name and found.folder is not None), None)
    if owner is None:
        raise ValueError(f"{name!r} is not an enabled plugin with a migrations folder")
    script = scripts(str(owner.folder))
    with _migration_connection(app.db.engine) as connection, connection.begin():
        before = _context(connection, owner).get_current_heads()
        steps = list(script._downgrade_revs(revision, before))  # as alembic's own `downgrade` command
        context = _context(connection, owner, fn=lambda _heads, _context: steps)
        with Operations.context(context):
            context.run_migrations()
        after = context.get_current_heads()
    return Outcome(name, "downgraded", before, after, [step.revision.revision for step in steps])


def stamp_heads(connection: Connection, owner: Owner) -> Outcome:
    """Record that the owner's tables, just made from its metadata, are at its newest revisions.

    Alembic's `stamp` without its reads: the version table is known to be missing (a new site
    stamps every owner, and the test suite makes many sites).
    """
    heads = tuple(scripts(str(owner.folder)).get_heads())
    with connection.begin():
        impl = _context(connection, owner).impl
        table = impl.version_table_impl(version_table=owner.version_table, version_table_schema=None,
                                        version_table_pk=True)
        table.create(connection)
        if heads:
            connection.execute(table.insert(), [{"version_num": head} for head in heads])
    return Outcome(owner.name, "created", (), heads)


def migrate(app) -> tuple[bool, list[Outcome]]:
    """Bring the enabled owners' tables to their newest revisions, then create missing tables (see the module).

    Answers whether this release may change the tables (host.upgrades: not while a newer release
    already did; a new database: yes) and what was done to each owner with a migrations folder.
    """
    engine = app.db.engine
    with engine.connect() as connection:
        existing = set(inspect(connection).get_table_names())
    allowed = "site_state" not in existing or may_change_schema(app)
    outcomes: list[Outcome] = []
    new: list[Owner] = []
    to_upgrade: list[Owner] = []
    for owner in owners(app):
        if owner.folder is None:
            continue
        if owner.version_table in existing or owner.tables & existing:
            to_upgrade.append(owner)
        else:
            new.append(owner)
    if to_upgrade:
        with _migration_connection(engine) as connection:
            for owner in to_upgrade:
                if allowed:
                    outcomes.append(upgrade(connection, owner))
                else:
                    before = _context(connection, owner).get_current_heads()
                    outcomes.append(Outcome(owner.name, "held", before, before))
    app.db.create_tables()
    if new:
        with engine.execution_options(sitehost_write=True).connect() as connection:
            outcomes.extend(stamp_heads(connection, owner) for owner in new)
    return allowed, outcomes


def status(engine, found: list[Owner]) -> list[Outcome]:
    """What `migrate` would do to each owner with a folder, without changing anything (`sitehost migrate --dry-run`)."""
    from alembic.util import CommandError

    outcomes: list[Outcome] = []
    with engine.connect() as connection:
        existing = set(inspect(connection).get_table_names())
        for owner in found:
            if owner.folder is None:
                continue
            script = scripts(str(owner.folder))
            heads = tuple(script.get_heads())
            if owner.version_table not in existing and not owner.tables & existing:
                outcomes.append(Outcome(owner.name, "new", (), heads))
                continue
            before = _context(connection, owner).get_current_heads() if owner.version_table in existing else ()
            try:
                steps = list(script._upgrade_revs("heads", before))
            except CommandError:
                outcomes.append(Outcome(owner.name, "newer", before, before))
                continue
            revisions = [step.revision.revision for step in steps]
            outcomes.append(Outcome(owner.name, "pending" if revisions else "current", before,
                                    heads if revisions else before, revisions))
    return outcomes
