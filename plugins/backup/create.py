"""Making a backup: a consistent snapshot of every table, the uploads, a manifest; then retention."""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import text

from host import PRIVATE_FILE, make_private_folder

from .archive import ArchiveWriter, FORMAT, FORMAT_VERSION, SUFFIX
from .catalog import Catalog, build_catalog
from .codec import RowEncoder
from .progress import SILENT, Reporter, StageAdapter
from .snapshot import Snapshot, open_snapshot

log = logging.getLogger("sitehost.backup")
PREFIX = "sitehost-backup-"
MAX_NAME = 120


def sitehost_version() -> str:
    try:
        return importlib.metadata.version("sitehost")
    except importlib.metadata.PackageNotFoundError:
        return "0"


def new_archive_name(now: datetime.datetime) -> str:
    """`sitehost-backup-20260101T020000123Z-1a2b3c.tar`: UTC time to the millisecond, so names sort by age."""
    return f"{PREFIX}{now:%Y%m%dT%H%M%S}{now.microsecond // 1000:03d}Z-{secrets.token_hex(3)}{SUFFIX}"


def is_archive_name(name: str) -> bool:
    """A name this plugin gives its archives (checked before any file is opened by a route)."""
    if not (name.startswith(PREFIX) and name.endswith(SUFFIX)) or len(name) > MAX_NAME:
        return False
    middle = name[len(PREFIX):-len(SUFFIX)]
    return bool(middle) and all(character.isascii() and (character.isalnum() or character == "-")
                                for character in middle)


def schema_fingerprint(catalog: Catalog, names: list[str]) -> str:
    """A short digest of the tables' definitions (names, columns, types, nullability)."""
    digest = hashlib.sha256()
    for name in sorted(names):
        table = catalog.metadata.tables[name]
        digest.update(name.encode())
        for column in table.columns:
            digest.update(f"|{column.name}:{type(column.type).__name__}:{int(column.nullable)}".encode())
        digest.update(b"\n")
    return digest.hexdigest()[:16]


def _sequence_position(snapshot: Snapshot, table) -> int | None:
    """Where the table's id counter stands (ids handed out and deleted are not handed out again)."""
    keys = list(table.primary_key.columns)
    if len(keys) != 1 or not keys[0].autoincrement or keys[0].type.python_type is not int:
        return None
    connection = snapshot.connection
    if snapshot.engine_name == "sqlite":
        if "sqlite_sequence" not in _sqlite_tables(connection):
            return None
        found = connection.execute(text("SELECT seq FROM sqlite_sequence WHERE name = :name"),
                                   {"name": table.name}).first()
        return int(found[0]) if found is not None else None
    if snapshot.engine_name == "postgresql":
        sequence = connection.execute(text("SELECT pg_get_serial_sequence(:table, :column)"),
                                      {"table": table.name, "column": keys[0].name}).scalar()
        if not sequence:
            return None
        value, called = connection.execute(text(f"SELECT last_value, is_called FROM {sequence}")).one()
        return int(value) if called else None
    return None


def _sqlite_tables(connection) -> set[str]:
    return {row[0] for row in connection.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}


@dataclass
class BackupResult:
    path: Path  # where it was written (on S3 it is uploaded from there and this file goes)
    manifest: dict
    seconds: float
    size: int = 0  # bytes of the archive


def create_backup(app, directory: Path, reporter: Reporter = SILENT, name: str | None = None) -> BackupResult:
    """Write a complete archive of the site into `directory`; returns its path and manifest."""
    started = datetime.datetime.now(datetime.timezone.utc)
    clock = datetime.datetime.now().timestamp()
    make_private_folder(directory)
    make_archives_private(directory)
    catalog = build_catalog(app)
    path = directory / (name or new_archive_name(started))
    writer = ArchiveWriter(path, started.timestamp())
    try:
        tables, absent = [], []
        with open_snapshot(str(app.db.url.render_as_string(hide_password=False)), directory) as snapshot:
            present = [table for table in catalog.tables if table.name in snapshot.existing]
            absent = [table.name for table in catalog.tables if table.name not in snapshot.existing]
            counts = {table.name: snapshot.count(table) for table in present}
            reporter.stage("tables", sum(counts.values()), "rows")
            adapter = StageAdapter(reporter)
            for table in present:
                encoder = RowEncoder(list(table.columns))
                lines = (encoder.line(row) for row in snapshot.rows(table))
                written = writer.add_table(table.name, lines, adapter)
                tables.append({
                    "name": table.name, "plugin": catalog.owners.get(table.name, "host"),
                    "columns": [column.name for column in table.columns],
                    "primary_key": [column.name for column in table.primary_key.columns],
                    "rows": written.rows, "sha256": written.sha256, "bytes": written.size,
                    "sequence": _sequence_position(snapshot, table),
                })
            engine_name, method, taken_at = snapshot.engine_name, snapshot.method, snapshot.taken_at
        area = app.storage.uploads()  # the uploads folder, or uploads/ of the object store
        files = list(area.list())
        reporter.stage("uploads", sum(stored.size for stored in files), "bytes")
        uploads = []
        for stored in files:
            entry = writer.add_file(stored.key, area, stored, StageAdapter(reporter))
            if entry is not None:
                uploads.append(entry)
        site = app.settings.site
        manifest = {
            "format": FORMAT, "format_version": FORMAT_VERSION,
            "site": {"name": site.get("name", ""), "url": site.get("url", "") or site.get("home", "")},
            "sitehost_version": sitehost_version(),
            "plugins": {name: info for name, info in catalog.plugins.items() if info["enabled"]},
            "disabled_plugins": {name: info for name, info in catalog.plugins.items() if not info["enabled"]},
            "schema_version": schema_fingerprint(catalog, [table["name"] for table in tables]),
            "created": started.isoformat(timespec="seconds"),
            "snapshot": {"engine": engine_name, "method": method,
                         "taken_at": taken_at.isoformat() if hasattr(taken_at, "isoformat") else str(taken_at)},
            "tables": tables,
            "absent_tables": absent,
            "uploads": {"count": len(uploads), "bytes": sum(entry["size"] for entry in uploads), "files": uploads},
            "warnings": list(catalog.warnings),
        }
        writer.finish(manifest)
    except BaseException:
        writer.abandon()
        raise
    return BackupResult(path=path, manifest=manifest, seconds=datetime.datetime.now().timestamp() - clock,
                        size=path.stat().st_size)


def make_archives_private(directory: Path) -> None:
    """Archives written before they were made 0600 (0644: any local user could read the password
    hashes in them) become owner-only at the next backup. The folder itself is left as it is: it
    may be one the operator chose and shares (`[plugins.backup] directory`)."""
    for path in list_archives(directory):
        mode = path.stat().st_mode & 0o777
        if mode & ~PRIVATE_FILE:
            os.chmod(path, PRIVATE_FILE)
            log.warning("backup %s could be read by other local users (mode %o); it is now %o", path, mode,
                        PRIVATE_FILE)


def list_archives(directory: Path) -> list[Path]:
    """The complete archives in `directory`, oldest first (their names start with the UTC time)."""
    if not directory.is_dir():
        return []
    return sorted(path for path in directory.iterdir() if path.is_file() and is_archive_name(path.name))
