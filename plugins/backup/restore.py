"""Restoring an archive into an SQLite or PostgreSQL database (the way to move between them).

In order:
1. the archive is verified completely (check_archive: every byte, a manifest with no upload path
   outside the uploads folder, and tables this installation's plugins define): a damaged or
   unfitting archive changes nothing. `sitehost backup verify` runs the same check_archive;
2. the target is checked: every table of the site must be empty there (or absent), and the
   uploads folder empty or already holding exactly the archive's files, unless `force`;
3. one transaction creates the missing tables, empties the site's tables (with `force`),
   loads every row, and puts the id counters back (PostgreSQL sequences, SQLite's
   sqlite_sequence) where the source had them. Killed at any point before its commit, the
   target keeps what it had: nothing, or the site it held;
4. the uploads, unpacked beside the uploads folder beforehand and checked against the
   manifest, take its place (the folder they replace is kept, renamed, with `force`);
5. the site is started once on the target, so that every plugin's start-up rebuilds what is
   derived from the rows: the full-text index (SQLite's FTS table is dropped first, so its
   start-up indexes every restored post again; PostgreSQL's GIN index is created, or kept up
   to date by the load), triggers and counters. PostgreSQL tables are then ANALYZEd.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from sqlalchemy import create_engine, event, func, insert, inspect, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from host import prepare_sqlite_file
from host.storage import Area, Storage

from .archive import (CHUNK, ArchiveError, ArchiveReader, HashingReader, Progress, Verified, safe_upload_path,
                      verify_archive)
from .catalog import Catalog
from .codec import RowDecoder
from .progress import SILENT, Reporter, StageAdapter

BATCH = 1000


class RestoreRefused(Exception):
    """The target is not empty (and no `force`), or the archive does not fit this site's plugins."""


@dataclass
class RestoreResult:
    manifest: dict
    tables: int = 0
    rows: int = 0
    files: int = 0
    moved_aside: Path | str | None = None  # a folder, or a place in the object store
    notes: list[str] = field(default_factory=list)


def target_engine(url: str):
    """An engine whose transactions really begin where we say (SQLite: BEGIN IMMEDIATE, DDL included)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database in ("", ":memory:"):
            raise RestoreRefused("cannot restore into an in-memory SQLite database: name a file")
        prepare_sqlite_file(Path(database))  # 0600 before a row of password hashes is written into it
        engine = create_engine(parsed, poolclass=NullPool, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def on_connect(dbapi_connection, _record):
            dbapi_connection.isolation_level = None
            dbapi_connection.execute("PRAGMA foreign_keys=ON")
            dbapi_connection.execute("PRAGMA busy_timeout=30000")

        @event.listens_for(engine, "begin")
        def on_begin(connection):
            connection.connection.driver_connection.execute("BEGIN IMMEDIATE")

        return engine
    return create_engine(parsed, poolclass=NullPool)


# Tables older versions kept and this one no longer has, whose rows mean nothing on the target: leases of
# processes long gone (background work is leased in host.jobs' `jobs` table now) and rate-limit counts
# (the host's `rate_events` now). An archive's copy of them is left out.
RETIRED_TABLES = frozenset({"mail_lease", "backup_lease", "forms_rate", "forms_autoreply_rate",
                            "newsletter_rate_events", "sign_in_failures"})


HOST_JOBS = "jobs"  # host.jobs' table


def _forget_source_leases(connection, jobs) -> None:
    """The source's processes ran some jobs when the archive was made; on the target nobody does. A
    periodic job is due again; a queued one that was running (the backup that made this archive among
    them) is dropped, so its backup row reads as interrupted, which is what it is here."""
    running = jobs.c.state == "running"
    connection.execute(update(jobs).where(running, jobs.c.key.like("every:%")).values(
        state="queued", holder=None, lease_until=None))
    connection.execute(jobs.delete().where(running))


def _check_fits(manifest: dict, catalog: Catalog) -> list[str]:
    problems = []
    for table in manifest["tables"]:
        if table["name"] in RETIRED_TABLES:
            continue
        defined = catalog.metadata.tables.get(table["name"])
        if defined is None:
            problems.append(f"table {table['name']} (plugin {table.get('plugin', '?')}) is in the backup, but no "
                            f"plugin installed here defines it: install that plugin first")
            continue
        missing = [name for name in table["columns"] if name not in defined.columns]
        if missing:
            problems.append(f"table {table['name']}: the backup has columns {', '.join(missing)} that this "
                            f"version of plugin {table.get('plugin', '?')} does not have")
    return problems


def check_archive(archive: Path, catalog: Catalog, progress: Progress | None = None) -> Verified:
    """Every check a restore applies to the archive itself, before it touches the target: its bytes and
    manifest (archive.verify_archive) and that this installation's plugins define each of its tables
    and columns. Restore and `sitehost backup verify` both call it, so a verified archive is one that
    restores (into an empty target). Raises ArchiveError or RestoreRefused."""
    verified = verify_archive(archive, progress)
    problems = _check_fits(verified.manifest, catalog)
    if problems:
        raise RestoreRefused("; ".join(problems))
    return verified


def _non_empty_tables(engine, catalog: Catalog) -> list[str]:
    with engine.connect() as connection:
        existing = set(inspect(connection).get_table_names())
        found = []
        for table in catalog.tables:
            if table.name in existing and connection.execute(select(1).select_from(table).limit(1)).first():
                found.append(table.name)
        return found


def _digest(chunks) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


def _file_chunks(path: Path):
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            yield chunk


def _uploads_state(present: dict[str, tuple[int, Callable[[], str]]], files: list[dict]) -> str:
    """'empty', 'same' (exactly the archive's files) or 'different'; `present`: key -> (size, its sha256())."""
    if not present:
        return "empty"
    wanted = {entry["path"]: entry for entry in files}
    if set(present) != set(wanted):
        return "different"
    for key, (size, sha256) in present.items():
        if size != wanted[key]["size"] or sha256() != wanted[key]["sha256"]:
            return "different"
    return "same"


def _folder_files(root: Path) -> dict[str, tuple[int, Callable[[], str]]]:
    if not root.exists():
        return {}
    return {path.relative_to(root).as_posix(): (path.stat().st_size, lambda path=path: _digest(_file_chunks(path)))
            for path in root.rglob("*") if path.is_file()}


def _stored_files(area: Area) -> dict[str, tuple[int, Callable[[], str]]]:
    return {found.key: (found.size, lambda key=found.key: _digest(area.get(key))) for found in area.list()}


def _unpack_uploads(reader: ArchiveReader, files: list[dict], root: Path, reporter: Reporter) -> Path:
    """The archive's uploads in a fresh folder beside `root`, each checked against the manifest."""
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.restoring-", dir=root.parent))
    reporter.stage("uploads", sum(entry["size"] for entry in files), "bytes")
    for entry in files:
        relative = safe_upload_path(entry["path"])
        if relative is None:  # check_archive refused it already; kept so no later caller can skip it
            shutil.rmtree(staging, ignore_errors=True)
            raise ArchiveError([f"upload {entry['path']!r}: a path outside the uploads folder"])
        target = staging.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        with reader.upload(entry["path"]) as source, open(target, "wb") as sink:
            while chunk := source.read(CHUNK):
                digest.update(chunk)
                sink.write(chunk)
                reporter.advance(len(chunk))
        if digest.hexdigest() != entry["sha256"]:
            shutil.rmtree(staging, ignore_errors=True)
            raise ArchiveError([f"upload {entry['path']}: checksum mismatch (the file was changed or damaged)"])
    return staging


def _stage_in_store(reader: ArchiveReader, files: list[dict], staging: Area, reporter: Reporter) -> None:
    """The archive's uploads into a fresh area of the object store, each checked against the manifest
    (a checksum that does not match empties the area again)."""
    reporter.stage("uploads", sum(entry["size"] for entry in files), "bytes")
    for entry in files:
        if safe_upload_path(entry["path"]) is None:  # check_archive refused it already
            staging.delete_prefix("")
            raise ArchiveError([f"upload {entry['path']!r}: a path outside the uploads folder"])
        with reader.upload(entry["path"]) as member:
            source = HashingReader(member, StageAdapter(reporter))
            staging.put(entry["path"], source)
        if source.digest.hexdigest() != entry["sha256"]:
            staging.delete_prefix("")
            raise ArchiveError([f"upload {entry['path']}: checksum mismatch (the file was changed or damaged)"])


def _swap_in_store(storage: Storage, staged: Area, state: str, stamp: str, folder: Path) -> str | None:
    """The staged uploads become the site's (copies inside the store); what was there before is kept
    under `uploads.before-restore-<time>/`, whose place is returned."""
    uploads = storage.uploads()
    moved_aside = None
    if state == "different":
        aside = storage.area(f"uploads.before-restore-{stamp}", folder)
        for found in list(uploads.list()):
            uploads.move(found.key, aside)
        moved_aside = f"uploads.before-restore-{stamp}/ of {storage.describe()}"
    for found in list(staged.list()):
        staged.move(found.key, uploads)
    return moved_aside


def _drop_derived_sqlite_objects(connection) -> None:
    """Triggers and virtual tables (full-text indexes) are rebuilt by the plugins' start-up."""
    rows = connection.exec_driver_sql(
        "SELECT type, name, sql FROM sqlite_master WHERE type = 'trigger' "
        "OR (type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%')").fetchall()
    for kind, name, _sql in rows:
        if kind == "trigger":
            connection.exec_driver_sql(f'DROP TRIGGER IF EXISTS "{name}"')
    for kind, name, _sql in rows:
        if kind == "table":
            connection.exec_driver_sql(f'DROP TABLE IF EXISTS "{name}"')


def _plugin_triggers(connection, tables, enabled: bool) -> None:
    """On PostgreSQL, the plugins' triggers stay off while archived rows load, as SQLite's are dropped.

    The rows already carry what triggers derive (core's stored term counts, versions): a trigger
    firing on each loaded link would count it a second time.
    """
    if connection.dialect.name != "postgresql":
        return
    for table in tables:
        name = connection.dialect.identifier_preparer.quote(table.name)
        connection.exec_driver_sql(f"ALTER TABLE {name} {'ENABLE' if enabled else 'DISABLE'} TRIGGER USER")


def _empty_tables(connection, catalog: Catalog, existing: set[str]) -> None:
    tables = [table for table in catalog.tables if table.name in existing]
    if connection.dialect.name == "postgresql" and tables:
        names = ", ".join(connection.dialect.identifier_preparer.quote(table.name) for table in tables)
        connection.exec_driver_sql(f"TRUNCATE {names}")
        return
    for table in reversed(tables):
        connection.execute(table.delete())


def _set_sequence(connection, table, stored: int | None) -> None:
    keys = list(table.primary_key.columns)
    if len(keys) != 1 or not keys[0].autoincrement or keys[0].type.python_type is not int:
        return
    column = keys[0]
    highest = connection.execute(select(func.max(column))).scalar()
    position = max(value for value in (highest, stored, 0) if value is not None)
    dialect = connection.dialect.name
    if dialect == "postgresql":
        sequence = connection.execute(text("SELECT pg_get_serial_sequence(:table, :column)"),
                                      {"table": table.name, "column": column.name}).scalar()
        if sequence:
            connection.execute(text("SELECT setval(CAST(:sequence AS regclass), :position, :called)"),
                               {"sequence": sequence, "position": max(position, 1), "called": position > 0})
    elif dialect == "sqlite" and table.dialect_options["sqlite"].get("autoincrement") and position > 0:
        updated = connection.execute(text("UPDATE sqlite_sequence SET seq = :position WHERE name = :name"),
                                     {"position": position, "name": table.name}).rowcount
        if not updated:
            connection.execute(text("INSERT INTO sqlite_sequence (name, seq) VALUES (:name, :position)"),
                               {"position": position, "name": table.name})


def restore_archive(archive: Path, target_url: str, catalog: Catalog, uploads_dir: Path, force: bool = False,
                    reporter: Reporter = SILENT, start_site=None, storage: Storage | None = None) -> RestoreResult:
    """Restore `archive` into the database at `target_url` and the folder `uploads_dir`.

    `storage`: the target site's storage (host.storage); when it is an object store, the uploads go
    to its `uploads/` instead of the folder, staged in `uploads.restoring-<time>/` first, and files that
    were there are kept under `uploads.before-restore-<time>/` (with --force).

    `catalog` describes the tables of this installation's plugins (built on a scratch site, so
    that the target is not touched before it is checked). `start_site(url)` starts and closes the
    site on the target afterwards, so that plugins rebuild derived indexes; None skips it.
    Raises ArchiveError (damaged archive) or RestoreRefused (target not empty, plugins missing).
    """
    archive = Path(archive)
    reporter.stage("verify", archive.stat().st_size, "bytes")
    manifest = check_archive(archive, catalog, StageAdapter(reporter)).manifest
    files = manifest["uploads"].get("files", [])
    engine = target_engine(target_url)
    result = RestoreResult(manifest=manifest)
    in_store = storage is not None and storage.backend != "local"
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    try:
        occupied = _non_empty_tables(engine, catalog)
        present = _stored_files(storage.uploads()) if in_store else _folder_files(uploads_dir)
        uploads_state = _uploads_state(present, files)
        if not force:
            refusals = []
            if occupied:
                refusals.append(f"the target database is not empty (rows in {', '.join(occupied[:8])}"
                                f"{' ...' if len(occupied) > 8 else ''})")
            if uploads_state == "different":
                refusals.append(f"the uploads {'of ' + storage.describe() if in_store else 'folder ' + str(uploads_dir)} "
                                "hold other files")
            if refusals:
                raise RestoreRefused(" and ".join(refusals) + ": restore into an empty site, or pass --force "
                                     "to replace what is there")
        reader = ArchiveReader(archive)
        staging = staged = None
        try:
            if uploads_state != "same" and in_store:
                staged = storage.area(f"uploads.restoring-{stamp}", uploads_dir)
                _stage_in_store(reader, files, staged, reporter)
            elif uploads_state != "same":
                staging = _unpack_uploads(reader, files, uploads_dir, reporter)
            archived = {table["name"]: table for table in manifest["tables"]}
            reporter.stage("tables", sum(table["rows"] for table in manifest["tables"]), "rows")
            with engine.begin() as connection:
                existing = set(inspect(connection).get_table_names())
                if connection.dialect.name == "sqlite":
                    connection.exec_driver_sql("PRAGMA defer_foreign_keys=ON")
                    _drop_derived_sqlite_objects(connection)
                wanted = [table for table in catalog.tables if table.name in archived]
                catalog.metadata.create_all(connection, tables=wanted, checkfirst=True)
                _empty_tables(connection, catalog, existing)
                _plugin_triggers(connection, wanted, enabled=False)
                for table in wanted:
                    entry = archived[table.name]
                    reporter.note(f"loading table {table.name} ({entry['rows']} rows)")
                    decoder = RowDecoder([table.c[name] for name in entry["columns"]])
                    statement = insert(table)
                    batch = []
                    for line in reader.table_lines(table.name):
                        batch.append(decoder.row(line))
                        if len(batch) == BATCH:
                            connection.execute(statement, batch)
                            reporter.advance(len(batch))
                            batch = []
                    if batch:
                        connection.execute(statement, batch)
                        reporter.advance(len(batch))
                    _set_sequence(connection, table, entry.get("sequence"))
                    result.tables += 1
                    result.rows += entry["rows"]
                _plugin_triggers(connection, wanted, enabled=True)
                if HOST_JOBS in catalog.metadata.tables and HOST_JOBS in archived:
                    _forget_source_leases(connection, catalog.metadata.tables[HOST_JOBS])
            if staged is not None:
                result.moved_aside = _swap_in_store(storage, staged, uploads_state, stamp, uploads_dir)
                staged = None
            if staging is not None:
                if uploads_dir.exists() and uploads_state == "empty":
                    shutil.rmtree(uploads_dir)  # empty folders only: nothing to keep
                elif uploads_dir.exists():
                    result.moved_aside = uploads_dir.with_name(f"{uploads_dir.name}.before-restore-{stamp}")
                    os.replace(uploads_dir, result.moved_aside)
                os.replace(staging, uploads_dir)
                staging = None
            result.files = len(files)
        finally:
            reader.close()
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            if staged is not None:
                staged.delete_prefix("")
        if engine.dialect.name == "postgresql":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                for table in catalog.tables:
                    if table.name in archived:
                        connection.exec_driver_sql(f'ANALYZE "{table.name}"')
    finally:
        engine.dispose()
    if start_site is not None:
        start_site(target_url)
    return result
