"""Helpers of the backup tests: databases of either engine, a plugin with a table of every kind of column,
and sites built on a database URL of our choosing (so that one site can be reopened with other plugins)."""

from __future__ import annotations

import contextlib
import datetime
import decimal
import os
import tarfile
import uuid
from pathlib import Path

from sqlalchemy import (JSON, Boolean, Column, Date, DateTime, Float, ForeignKey, Integer, LargeBinary,
                        Numeric, String, Table, Text, Time, create_engine, insert, null, text)
from sqlalchemy.engine import make_url

from host.app import create_app
from host.config import Settings
from host.storage.backends import LocalArea
from host.testing import make_plugin

REST = "/wp-json"


def test_server_url() -> str:
    return os.environ.get("SITEHOST_TEST_DATABASE_URL", "")


def engine_under_test() -> str:
    return "postgresql" if test_server_url().startswith("postgresql") else "sqlite"


def postgres_server() -> str:
    """The PostgreSQL server of the suite's PostgreSQL run, or SITEHOST_TEST_POSTGRES_URL in the SQLite
    run (cross-engine tests need both engines); empty when there is none."""
    server = test_server_url()
    return server if server.startswith("postgresql") else os.environ.get("SITEHOST_TEST_POSTGRES_URL", "")


@contextlib.contextmanager
def new_database(tmp_path: Path, engine: str):
    """A fresh, empty database of `engine`: an SQLite file, or a schema of its own on the test server."""
    if engine == "sqlite":
        yield f"sqlite:///{tmp_path}/db-{uuid.uuid4().hex[:8]}.db"
        return
    server = postgres_server()
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    name = f"b_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{name}"'))
    url = make_url(server)
    try:
        yield url.set(query={**url.query, "options": f"-csearch_path={name}"}).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
        admin.dispose()


# --- a plugin that registers its own table, with every kind of column ---------------------

GRADES = "gradebook_entries"
ARCHIVED = "gradebook_archive"


def _gradebook_tables(metadata):
    Table(GRADES, metadata,
          Column("id", Integer, primary_key=True),
          Column("student", String(100), nullable=False),
          Column("author", Integer, ForeignKey("users.id"), nullable=True),
          Column("score", Numeric(6, 2), nullable=True),
          Column("weight", Float, nullable=True),
          Column("passed", Boolean, nullable=False, default=False),
          Column("exam_day", Date, nullable=True),
          Column("exam_time", Time, nullable=True),
          Column("recorded", DateTime, nullable=False),
          Column("details", JSON, nullable=True),
          Column("scan", LargeBinary, nullable=True),
          Column("notes", Text, nullable=False, default=""),
          sqlite_autoincrement=True)


def gradebook_plugin():
    """An enabled plugin of the test: `gradebook_entries`, rows of every column type."""

    def register_tables(metadata):
        _gradebook_tables(metadata)

    return make_plugin("gradebook", register_tables, version="2.3.1")


def archive_plugin():
    """A plugin that is disabled in the tests after it wrote its rows: its table must still be backed up."""

    def register_tables(metadata):
        Table(ARCHIVED, metadata,
              Column("id", Integer, primary_key=True),
              Column("title", String(200), nullable=False))

    return make_plugin("oldarchive", register_tables, version="0.9.0")


GRADE_ROWS = [
    {"student": "Ada Lovelace", "score": decimal.Decimal("97.50"), "weight": 0.25, "passed": True,
     "exam_day": datetime.date(2025, 6, 12), "exam_time": datetime.time(9, 30, 15),
     "recorded": datetime.datetime(2025, 6, 12, 11, 0, 5, 123456), "details": {"b": [1, 2], "a": "ü ✓"},
     "scan": b"\x00\x01\xfe\xff binary", "notes": "line one\nline two \"quoted\" \u2603 😀"},
    {"student": "Null Values", "score": None, "weight": None, "passed": False, "exam_day": None, "exam_time": None,
     "recorded": datetime.datetime(2025, 1, 1, 0, 0, 0), "details": null(), "scan": None, "notes": ""},
    {"student": "JSON null", "score": decimal.Decimal("0.00"), "weight": -1.5e-7, "passed": False,
     "exam_day": datetime.date(2024, 2, 29), "exam_time": datetime.time(0, 0),
     "recorded": datetime.datetime(2024, 2, 29, 23, 59, 59), "details": JSON.NULL, "scan": b"",
     "notes": "stored JSON null, not SQL NULL"},
]


def write_grades(app, count_extra: int = 0) -> None:
    table = app.db.metadata.tables[GRADES]
    with app.db.engine.begin() as connection:
        connection.execute(insert(table), GRADE_ROWS)
        if count_extra:
            connection.execute(insert(table), [
                {"student": f"Student {number}", "score": decimal.Decimal(number % 100), "weight": number / 7,
                 "passed": number % 2 == 0, "recorded": datetime.datetime(2025, 1, 1) + datetime.timedelta(
                     minutes=number), "details": {"n": number}, "notes": "x" * (number % 50)}
                for number in range(count_extra)])


def site_settings(url: str, uploads: Path, backups: Path, plugins=(), disabled=()) -> Settings:
    settings = Settings(database_url=url, uploads_dir=str(uploads))
    settings.plugins = {"backup": {"directory": str(backups)}}
    settings.extra_plugins = list(plugins)
    settings.disabled = list(disabled)
    return settings


def open_site(settings: Settings):
    from webtest import TestApp

    app = create_app(settings)
    app.client = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    return app


def raw_rows(url: str, table: str) -> list[tuple]:
    """A table's rows straight from the database, as the driver gives them (NULL and JSON null apart)."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.exec_driver_sql(f'SELECT * FROM "{table}" ORDER BY 1')]
    finally:
        engine.dispose()


def table_counts(url: str) -> dict[str, int]:
    from sqlalchemy import inspect

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            names = [name for name in inspect(connection).get_table_names()
                     if not name.startswith(("posts_search", "sqlite_"))]
            return {name: connection.exec_driver_sql(f'SELECT COUNT(*) FROM "{name}"').scalar() for name in names}
    finally:
        engine.dispose()


def member_offset(archive: Path, name: str) -> tuple[int, int]:
    """(offset of the data, size) of a member of the archive."""
    with tarfile.open(archive) as tar:
        member = tar.getmember(name)
        return member.offset_data, member.size


def craft_archive(path: Path, like: Path | None, uploads: dict[str, bytes],
                  tables: dict[str, list[str]] | None = None) -> Path:
    """A well-formed archive (every checksum right, an end marker) holding what an attacker chose:
    `uploads` {path as listed: bytes} and `tables` {name: columns}, each table one row of nulls.
    The rest of its manifest is copied from the real archive `like`, or made up when None."""
    import hashlib
    import tempfile

    from plugins.backup.archive import FORMAT, FORMAT_VERSION, ArchiveWriter, read_manifest

    manifest = read_manifest(like) if like is not None else {
        "format": FORMAT, "format_version": FORMAT_VERSION, "site": {"name": "Crafted", "url": ""},
        "sitehost_version": "0.1.0", "plugins": {}, "disabled_plugins": {}, "schema_version": "0" * 16,
        "created": "2026-01-01T00:00:00+00:00", "snapshot": {"engine": "sqlite", "method": "crafted", "taken_at": ""},
        "absent_tables": [], "warnings": []}
    writer = ArchiveWriter(path, created=0)
    listed = []
    for name, columns in (tables or {}).items():
        line = ("[" + ",".join(["null"] * len(columns)) + "]\n").encode()
        result = writer.add_table(name, [line])
        listed.append({"name": name, "plugin": "unknown", "columns": columns, "primary_key": [],
                       "rows": result.rows, "sha256": result.sha256, "sequence": None})
    files = []
    with tempfile.TemporaryDirectory() as scratch:
        area = LocalArea(scratch)  # each file under a plain key; `relative` is the name it gets in the archive
        for number, (relative, data) in enumerate(uploads.items()):
            area.put(str(number), data)
            files.append(writer.add_file(relative, area, area.stat(str(number))))
    assert all(entry["sha256"] == hashlib.sha256(data).hexdigest() for entry, data in zip(files, uploads.values()))
    manifest.update(tables=listed, uploads={"count": len(files), "bytes": sum(len(data) for data in uploads.values()),
                                            "files": files})
    return writer.finish(manifest)


@contextlib.contextmanager
def usual_umask():
    """022, the common default, under which files used to be written 0644 (readable by every local user)."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def flip_byte(path: Path, offset: int) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        value = handle.read(1)
        handle.seek(offset)
        handle.write(bytes([value[0] ^ 0x55]))
