"""SQLite writers of different processes queue on the write lock's file, not in SQLite's busy handler.

A flock belongs to an open file, so two Database objects on one file in this process exclude
each other as two worker processes do. The second writer's SQLite busy timeout is 0 here: had
it gone on to BEGIN IMMEDIATE while the first held the database, it would fail at once with
"database is locked"; it waits for its turn instead and then writes.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from sqlalchemy import Column, Integer, Table, event, insert, select

from host.db import STARTUP_LOCK_SUFFIX, WRITE_LOCK_SUFFIX, Database, ProcessWriteLock


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
    with pytest.raises(Exception):  # noqa: B017 (whichever error the database raises for a duplicate id)
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


START_TOGETHER = """
import sys, time
from host.app import create_app
start_at = float(sys.argv[2])
while time.time() < start_at:
    time.sleep(0.001)
create_app(database_url="sqlite:///" + sys.argv[1]).close()
print("started")
"""


def test_processes_starting_together_on_a_new_file_take_turns_at_creating_the_tables(tmp_path):
    """Workers of a reload that brings a new plugin create its tables at the same moment. Without the
    start-up lock SQLite answered "database is locked" at once to all but one, and they died."""
    database = tmp_path / "site.db"
    start_at = str(time.time() + 3)
    processes = [subprocess.Popen([sys.executable, "-c", START_TOGETHER, str(database), start_at],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outcomes = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0, 0], [error[-500:] for _out, error in outcomes]
    assert all(out.strip().endswith("started") for out, _error in outcomes)
    assert (tmp_path / f"site.db{STARTUP_LOCK_SUFFIX}").exists()
