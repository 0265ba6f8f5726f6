"""A consistent copy of the database to read from, while the site keeps serving and writing.

SQLite: the online backup API copies the database file page by page in one step (one read
transaction), into a scratch file beside the archive; writers carry on in the WAL meanwhile.
PostgreSQL (and other servers): one REPEATABLE READ, READ ONLY transaction, whose snapshot
every table is read in, through a server-side cursor so that no table is held in memory.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import orjson
from sqlalchemy import (JSON, TEXT, VARCHAR, Boolean, Date, DateTime, Float, Integer, String, Text, Unicode,
                        UnicodeText, create_engine, inspect, select, text)
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.pool import NullPool

FETCH_ROWS = 2000


@dataclass
class Snapshot:
    connection: Connection
    existing: set[str]
    engine_name: str
    method: str
    taken_at: datetime.datetime

    def rows(self, table, generic: bool = False) -> Iterator[tuple]:
        """The table's rows in primary-key order (all columns when it has none), streamed.

        On SQLite, a table whose columns are all of the plain kinds (_SQLITE_READERS) is read
        straight from the driver, each value turned into what SQLAlchemy's type would give (the
        same values, in about half the time); any other table, or `generic`, goes through
        SQLAlchemy's result processing.
        """
        if self.engine_name == "sqlite" and not generic:
            readers = _sqlite_readers(table)
            if readers is not None:
                yield from self._raw_sqlite_rows(table, readers)
                return
        order = list(table.primary_key.columns) or list(table.columns)
        # A JSON column reads SQL NULL and a stored JSON null both as None: a flag per JSON
        # column, after the columns, tells them apart (codec.RowEncoder consumes it).
        flags = [column.is_(None) for column in table.columns if isinstance(column.type, JSON)]
        statement = select(*table.columns, *flags).order_by(*order)
        result = self.connection.execution_options(stream_results=True, yield_per=FETCH_ROWS).execute(statement)
        try:
            for partition in result.partitions(FETCH_ROWS):
                yield from partition
        finally:
            result.close()

    def _raw_sqlite_rows(self, table, readers) -> Iterator[tuple]:
        order = list(table.primary_key.columns) or list(table.columns)
        quote = self.connection.dialect.identifier_preparer.quote
        columns = ", ".join(quote(column.name) for column in table.columns)
        ordering = ", ".join(quote(column.name) for column in order)
        json_indexes = [index for index, column in enumerate(table.columns) if isinstance(column.type, JSON)]
        converters = [(index, reader) for index, reader in enumerate(readers) if reader is not None]
        cursor = self.connection.connection.driver_connection.cursor()
        try:
            cursor.execute(f"SELECT {columns} FROM {quote(table.name)} ORDER BY {ordering}")
            while batch := cursor.fetchmany(FETCH_ROWS):
                for raw in batch:
                    values = list(raw)
                    flags = [values[index] is None for index in json_indexes]
                    for index, reader in converters:
                        if values[index] is not None:
                            values[index] = reader(values[index])
                    values.extend(flags)
                    yield values
        finally:
            cursor.close()

    def count(self, table) -> int:
        from sqlalchemy import func

        return self.connection.execute(select(func.count()).select_from(table)).scalar_one()


def _json_value(text):
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # what orjson refuses (integers beyond 64 bits, NaN): the standard parser
        return json.loads(text)


def _sqlite_datetime(value):
    return datetime.datetime.fromisoformat(value) if isinstance(value, str) else value


def _sqlite_date(value):
    return datetime.date.fromisoformat(value) if isinstance(value, str) else value


def _sqlite_readers(table) -> list | None:
    """Per column, how a raw SQLite value becomes SQLAlchemy's (None: as it is); None for other tables."""
    readers = []
    for column in table.columns:
        kind = column.type
        if isinstance(kind, Boolean):
            readers.append(bool)
        elif isinstance(kind, DateTime):
            readers.append(_sqlite_datetime)
        elif isinstance(kind, Date):
            readers.append(_sqlite_date)
        elif isinstance(kind, JSON):
            readers.append(_json_value)
        elif isinstance(kind, (Integer, Float)) or (isinstance(kind, String) and type(kind) in _PLAIN_STRINGS):
            readers.append(None)
        else:
            return None
    return readers


_PLAIN_STRINGS = (String, Text, Unicode, UnicodeText, VARCHAR, TEXT)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


@contextlib.contextmanager
def open_snapshot(database_url: str, scratch_dir: Path) -> Iterator[Snapshot]:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        yield from _sqlite_snapshot(url, scratch_dir)
    else:
        yield from _server_snapshot(url)


def _sqlite_snapshot(url, scratch_dir: Path):
    source_path = url.database
    scratch_dir.mkdir(parents=True, exist_ok=True)
    handle, scratch_name = tempfile.mkstemp(prefix=".snapshot-", suffix=".db", dir=scratch_dir)
    import os

    os.close(handle)
    scratch = Path(scratch_name)
    try:
        source = sqlite3.connect(source_path, timeout=30)
        try:
            target = sqlite3.connect(scratch)
            try:
                taken_at = _now()
                # pages=-1: one step, so the copy is one read transaction's view (a stepwise copy
                # restarts whenever another connection writes, which a busy site always does).
                source.backup(target, pages=-1)
            finally:
                target.close()
        finally:
            source.close()
        engine = create_engine(f"sqlite:///{scratch}", poolclass=NullPool)
        try:
            with engine.connect() as connection:
                existing = set(inspect(connection).get_table_names())
                yield Snapshot(connection, existing, "sqlite", "SQLite online backup API", taken_at)
        finally:
            engine.dispose()
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(scratch) + suffix).unlink(missing_ok=True)


def _server_snapshot(url):
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect().execution_options(isolation_level="REPEATABLE READ") as connection:
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    connection.exec_driver_sql("SET TRANSACTION READ ONLY")
                    taken_at = connection.execute(text("SELECT now()")).scalar_one()
                else:
                    taken_at = _now()
                existing = set(inspect(connection).get_table_names())
                yield Snapshot(connection, existing, connection.dialect.name,
                               "one REPEATABLE READ transaction", taken_at)
    finally:
        engine.dispose()
