"""SQLite writers of different processes queue on the write lock's file, not in SQLite's busy handler.

A flock belongs to an open file, so two Database objects on one file in this process exclude
each other as two worker processes do. The second writer's SQLite busy timeout is 0 here: had
it gone on to BEGIN IMMEDIATE while the first held the database, it would fail at once with
"database is locked"; it waits for its turn instead and then writes.
"""

from __future__ import annotations

import sqlite3
import threading

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, event, insert, select

from host.db import WRITE_LOCK_SUFFIX, Database, ProcessWriteLock


@pytest.fixture
def two_processes(tmp_path):
    url = f"sqlite:///{tmp_path / 'site.db'}"
    first, second = Database(url), Database(url)
    for database in (first, second):
        Table("notes", database.metadata, Column("id", Integer, primary_key=True))
    first.create_tables()
    event.listen(second.engine, "connect", lambda connection, _record: connection.execute("PRAGMA busy_timeout=0"))
    yield first, second
    first.dispose()
    second.dispose()


def test_a_writer_of_another_process_waits_for_the_lock_file_and_then_writes(two_processes, tmp_path):
    first, second = two_processes
    notes = first.metadata.tables["notes"]
    outcome: dict = {}

    def second_writer():
        try:
            with second.session(write=True) as session, session.begin():
                session.execute(insert(second.metadata.tables["notes"]).values(id=2))
            outcome["done"] = True
        except Exception as error:  # noqa: BLE001 (asserted below)
            outcome["error"] = error

    with first.session(write=True) as session, session.begin():
        session.execute(insert(notes).values(id=1))
        writer = threading.Thread(target=second_writer)
        writer.start()
        writer.join(0.5)
        assert writer.is_alive() and outcome == {}, "the second writer waits while the first holds the lock"
    writer.join(10)
    assert outcome == {"done": True}
    with first.session() as session:
        assert session.execute(select(notes.c.id).order_by(notes.c.id)).scalars().all() == [1, 2]
    assert (tmp_path / f"site.db{WRITE_LOCK_SUFFIX}").exists()


def test_a_failed_write_lets_the_other_process_in(two_processes):
    first, second = two_processes
    notes = first.metadata.tables["notes"]
    with pytest.raises(Exception):
        with first.session(write=True) as session, session.begin():
            session.execute(insert(notes).values(id=1))
            session.execute(insert(notes).values(id=1))  # the same key again: the transaction fails
    with second.session(write=True) as session, session.begin():
        session.execute(insert(second.metadata.tables["notes"]).values(id=3))
    with first.session() as session:
        assert session.execute(select(notes.c.id)).scalars().all() == [3]


def test_a_writer_that_waits_out_the_busy_timeout_fails_as_sqlite_would(tmp_path):
    path = tmp_path / f"site.db{WRITE_LOCK_SUFFIX}"
    holder, waiter = ProcessWriteLock(path), ProcessWriteLock(path, timeout=0.2)
    try:
        assert holder.acquire()
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            waiter.acquire()
        holder.release()
        assert waiter.acquire(), "the gate was opened again when the waiter gave up"
        waiter.release()
    finally:
        holder.close()
        waiter.close()
