"""An SQLite site's write-ahead log is copied back into its file by a thread of each writing process
(host.db.WalCheckpointer), not by whichever writer commits while holding the write lock.

The database file alone (opened `immutable`, so SQLite reads no log beside it) shows what the
checkpoints copied.
"""

from __future__ import annotations

import sqlite3
import threading
import time

from sqlalchemy import Column, Integer, String, Table, insert, select

from host.db import WAL_AUTOCHECKPOINT_FRAMES, Database, WalCheckpointer
from host.testing import client_as, create_test_user


def _in_file_alone(path, query: str) -> list | None:
    """`query`'s rows from the database file without its write-ahead log; None while the file cannot
    answer it (the site's tables too may still be in the log alone, or a checkpoint is copying)."""
    connection = sqlite3.connect(f"{path.absolute().as_uri()}?immutable=1", uri=True)
    try:
        return connection.execute(query).fetchall()
    except sqlite3.DatabaseError:
        return None
    finally:
        connection.close()


def _eventually(check, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def test_a_created_post_reaches_the_database_file_from_the_checkpoint_thread(make_app, tmp_path):
    path = tmp_path / "site.db"  # an SQLite file in either pass of the suite: the thread is SQLite's
    app = make_app(plugins=["core"], database_url=f"sqlite:///{path}")
    with app.db.engine.connect() as connection:
        # The committing connection's own checkpoint waits for a log this long: one create never gets there.
        assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == WAL_AUTOCHECKPOINT_FRAMES
    editor = create_test_user(app, "editor")
    response = client_as(app, editor).post_json("/wp-json/core/v2/posts",
                                               {"title": "Checkpointed at once", "status": "publish"}, status=201)
    post_id = response.json["id"]

    found = _eventually(lambda: _in_file_alone(path, f"SELECT title FROM posts WHERE id = {post_id}"))
    assert found == [("Checkpointed at once",)]
    assert app.db.checkpointer.checkpoints >= 1
    # The site reads it as before.
    assert app.client.get(f"/wp-json/core/v2/posts/{post_id}").json["title"]["rendered"] == "Checkpointed at once"


def test_two_processes_write_while_the_checkpoints_run_and_nothing_is_lost(tmp_path):
    """Two Database objects on one file stand for two worker processes (each its own write lock and thread)."""
    url = f"sqlite:///{tmp_path / 'site.db'}"
    databases = [Database(url), Database(url)]
    for database in databases:
        Table("notes", database.metadata, Column("id", Integer, primary_key=True), Column("body", String))
    databases[0].create_tables()
    failures: list = []

    def write(database: Database, first: int) -> None:
        notes = database.metadata.tables["notes"]
        try:
            for number in range(first, first + 150):
                with database.session(write=True) as session, session.begin():
                    session.execute(insert(notes).values(id=number, body="x" * 3000))  # a page of its own
        except Exception as error:  # noqa: BLE001 (asserted below)
            failures.append(error)

    writers = [threading.Thread(target=write, args=(database, first))
               for database, first in zip(databases, (1, 1001))]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
    assert failures == []
    assert all(database.checkpointer.checkpoints >= 1 for database in databases)
    with databases[1].session() as session:
        ids = session.execute(select(databases[1].metadata.tables["notes"].c.id)).scalars().all()
    assert sorted(ids) == list(range(1, 151)) + list(range(1001, 1151))
    for database in databases:
        database.dispose()
    assert not any(database.checkpointer.running for database in databases), "closing the site ends its thread"
    # Every row was copied back into the file, and the file is whole.
    assert _in_file_alone(tmp_path / "site.db", "SELECT count(*) FROM notes") == [(300,)]
    assert _in_file_alone(tmp_path / "site.db", "PRAGMA integrity_check") == [("ok",)]


def test_the_checkpoint_thread_never_creates_a_missing_file(tmp_path):
    missing = tmp_path / "gone.db"
    checkpointer = WalCheckpointer(missing, after=0.01)
    checkpointer.wrote()
    time.sleep(0.2)
    checkpointer.stop()
    assert not missing.exists()
    assert checkpointer.checkpoints == 0


def test_a_stopped_checkpointer_starts_no_thread(tmp_path):
    checkpointer = WalCheckpointer(tmp_path / "site.db")
    checkpointer.stop()
    checkpointer.wrote()
    assert not checkpointer.running


def test_a_stop_that_comes_as_the_thread_wakes_ends_it_at_once(tmp_path):
    """`stop` at about the moment the thread's wait after a write ends: the thread must not clear stop's
    wake-up and then wait forever (closing a site waited out the 10 s join, one time in ten)."""
    path = tmp_path / "site.db"
    sqlite3.connect(path).execute("PRAGMA journal_mode=WAL").fetchone()
    for _ in range(40):
        checkpointer = WalCheckpointer(path, after=0.01)
        checkpointer.wrote()
        time.sleep(0.01)
        started = time.monotonic()
        checkpointer.stop()
        assert time.monotonic() - started < 2
        assert not checkpointer.running
