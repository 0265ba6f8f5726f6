"""The database: one SQLAlchemy engine per app, tables of the enabled plugins, sessions.

SQLite (the default) runs in WAL mode with foreign keys and a busy timeout, and write
requests take the write lock up front (BEGIN IMMEDIATE) so that concurrent writers
queue on the busy timeout instead of failing with "database is locked" when a read
transaction tries to upgrade. On PostgreSQL, a request that only reads runs its statements
in autocommit (no BEGIN/COMMIT round trips; `Database.read_session`) until its first write,
and pooled connections are pinged only after they sat idle (`PING_AFTER_IDLE`). Other
databases are used as they come.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import functools
import logging
import os
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from sqlalchemy import MetaData, create_engine, event
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from .text import html_to_text, index_text

log = logging.getLogger("sitehost.db")

SQLITE_BUSY_TIMEOUT_MS = 30000
SQLITE_CACHE_KB = 8192
# Every connection keeps its own page cache (SQLITE_CACHE_KB), so a worker's SQLite memory grew with
# its connections (serving threads, the job runner, the cache plugin's probe): the soft heap limit
# bounds all of them together, in bytes, per process. SQLite recycles cache pages beyond it.
SQLITE_SOFT_HEAP_LIMIT_BYTES = 24 * 1024 * 1024
HANDOFF_AFTER = 0.02  # s a writer waits before the write lock is handed to it (ProcessWriteLock)
FILE_RETRY = 0.0005  # s between a writer's tries at the lock file until then
WRITE_LOCK_SUFFIX = "-writer"  # site.db-writer: the file whose flock orders the writers (ProcessWriteLock)
STARTUP_LOCK_SUFFIX = "-startup"  # site.db-startup: the file whose flock queues the processes' start-up DDL
STARTUP_LOCK_KEY = 0x517E4057  # pg_advisory_lock key of Database.startup_lock ("sitehost")
PING_AFTER_IDLE = 10.0  # s a pooled PostgreSQL connection may sit idle before its checkout pings the server
AUTOCOMMIT_READS = "sitehost_autocommit_reads"  # execution option of Database.read_session's connections
# A process that writes to an SQLite file copies the write-ahead log back into the file from a thread
# of its own (WalCheckpointer), this long after a write transaction of its own ended.
WAL_CHECKPOINT_AFTER = 0.1
# The committing connection's own checkpoint (SQLite's default is 1,000 frames) stays as a backstop,
# for a log the thread has not caught up with: about 32 MB of 4 KB pages.
WAL_AUTOCHECKPOINT_FRAMES = 8000
PRIVATE_FILE, PRIVATE_FOLDER = 0o600, 0o700  # the database holds password hashes and the site secrets


class Database:
    """Engine, metadata and session factories of one app."""

    def __init__(self, url: str, echo: bool = False):
        self.url = make_url(url)
        self.metadata = MetaData()
        self.is_sqlite = self.url.get_backend_name() == "sqlite"
        self.startup_lock_path: Path | None = None  # SQLite files only: see startup_lock
        self.write_lock: ProcessWriteLock | None = None  # SQLite only: see ProcessWriteLock
        self.checkpointer: WalCheckpointer | None = None  # SQLite files only: see WalCheckpointer
        if self.is_sqlite:
            database = self.url.database
            if database and database.startswith("file:"):  # an SQLite URI: SQLite reads its options
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            elif database and database != ":memory:":
                prepare_sqlite_file(Path(database))
            self.engine = create_engine(
                self.url, echo=echo,
                connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
                # A small pool per thread is cheapest for SQLite files; :memory: needs one connection.
                poolclass=None if database and database != ":memory:" else NullPool,
            )
            on_disk = database if database and database != ":memory:" else None  # the file's name
            write_lock = ProcessWriteLock(Path(on_disk + WRITE_LOCK_SUFFIX) if on_disk else None)
            self.write_lock = write_lock
            self.startup_lock_path = Path(on_disk + STARTUP_LOCK_SUFFIX) if on_disk else None
            # A plain file only: an SQLite URI may name options (or memory) that a connection of the
            # thread's own would not reproduce.
            self.checkpointer = WalCheckpointer(Path(on_disk).absolute()) \
                if on_disk and not on_disk.startswith("file:") else None
            _configure_sqlite(self.engine, write_lock, self.checkpointer)
        elif self.url.get_backend_name() == "postgresql":
            self.engine = create_engine(self.url, echo=echo, pool_size=10, max_overflow=20)
            _configure_postgresql(self.engine)
        else:
            self.engine = create_engine(self.url, echo=echo, pool_pre_ping=True, pool_size=10, max_overflow=20)
        self._read_sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._autocommit_reads = self._read_sessions
        self._reads_engine = self.engine
        if self.url.get_backend_name() == "postgresql":
            reads = self._reads_engine = self.engine.execution_options(isolation_level="AUTOCOMMIT",
                                                                       **{AUTOCOMMIT_READS: True})
            self._autocommit_reads = sessionmaker(reads, expire_on_commit=False)
        write_engine = self.engine.execution_options(sitehost_write=True) if self.is_sqlite else self.engine
        self._write_sessions = sessionmaker(write_engine, expire_on_commit=False)
        self._prepared: dict[str, Any] = {}
        database = self.url.database or ""
        self._commits = CommitWatch(os.path.abspath(database)) if self.is_sqlite and not self.url.query \
            and database not in ("", ":memory:") and not database.startswith("file:") else None

    def commit_mark(self) -> Any:
        """A token that stays equal while nothing is committed to the database, by any connection of
        any process; None where no such token is kept (anything but an SQLite file).

        Read it BEFORE reading what you keep, and keep the two together: a later equal mark means
        nothing was committed since, so what was read is still what the database holds. A commit
        racing with the read only changes the next mark (one more read, never a stale answer).
        See CommitWatch.
        """
        return self._commits.mark() if self._commits is not None else None

    def prepared(self, name: str, build: Callable[[], Any]) -> Any:
        """A statement of a per-request path, built once per app with bind parameters.

        Building a statement and computing its cache key cost several times more than running
        it on SQLite; a statement object reused across requests keeps its cache key. Names are
        shared by every caller of this database: prefix them with your plugin's name.
        """
        statement = self._prepared.get(name)
        if statement is None:
            statement = self._prepared.setdefault(name, build())
        return statement

    def session(self, write: bool = False) -> Session:
        """A new session; `write` sessions on SQLite begin with BEGIN IMMEDIATE."""
        return (self._write_sessions if write else self._read_sessions)()

    def read_session(self) -> Session:
        """A session for work that expects to only read (a GET request), at the fewest round trips.

        On PostgreSQL its statements run in autocommit: a read costs one round trip instead of
        BEGIN, the read and COMMIT. Under PostgreSQL's READ COMMITTED every statement of a
        transaction takes its own snapshot anyway, so reads see what they saw before. Its first
        statement that may write (anything but a plain SELECT; a SELECT that locks rows or takes
        a transaction-scoped advisory lock) opens a real transaction first, and everything from
        there on commits or rolls back together as in `session()`. Elsewhere it is `session()`.
        """
        return self._autocommit_reads()

    def read_connection(self) -> Connection:
        """A Core connection for a few reads of their own (a sign-in check, a status read), as cheap
        as `read_session`'s: on PostgreSQL its plain SELECTs run in autocommit, one round trip each
        instead of BEGIN, the read and a ROLLBACK when it is closed, and each sees the latest commit.
        A statement that may write opens a transaction first; closing without `commit()` rolls that
        back, as on a plain connection. Elsewhere it is `engine.connect()`.
        """
        return self._reads_engine.connect()

    def create_tables(self) -> None:
        self.metadata.create_all(self.engine)
        if self.engine.dialect.name == "sqlite":
            for table in self.metadata.sorted_tables:
                if table.dialect_options["sqlite"].get("autoincrement"):
                    rebuild_with_autoincrement(self.engine, table)

    @contextlib.contextmanager
    def startup_lock(self) -> Iterator[None]:
        """One process at a time creates tables and runs the plugins' start-up DDL.

        Workers of `sitehost serve` start together (and again together on a reload that brings a
        new plugin's tables). On PostgreSQL two `CREATE OR REPLACE FUNCTION` or `CREATE TRIGGER`
        at once fail with "tuple concurrently updated", and the worker that lost left the plugin
        out; a session-level advisory lock queues them. On SQLite a process whose read of the
        schema turns into a CREATE while another process writes gets "database is locked" at
        once (SQLite's busy handler cannot wait out that deadlock), and the worker died: an
        exclusive flock of a file beside the database queues them there.
        """
        if self.is_sqlite:
            if self.startup_lock_path is None:  # in memory: one process only
                yield
                return
            with open(self.startup_lock_path, "a+b") as lock_file:
                os.chmod(self.startup_lock_path, PRIVATE_FILE)
                fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.flock(lock_file.fileno(), fcntl.LOCK_UN)
            return
        if self.engine.dialect.name != "postgresql":
            yield
            return
        with self.engine.connect() as connection:
            connection.exec_driver_sql(f"SELECT pg_advisory_lock({STARTUP_LOCK_KEY})")
            connection.commit()
            try:
                yield
            finally:
                connection.exec_driver_sql(f"SELECT pg_advisory_unlock({STARTUP_LOCK_KEY})")
                connection.commit()

    def dispose(self) -> None:
        if self.checkpointer is not None:
            self.checkpointer.stop()
        self.engine.dispose()
        if self.write_lock is not None:
            self.write_lock.close()
        if self._commits is not None:
            self._commits.close()


class CommitWatch:
    """`PRAGMA data_version` of an SQLite file, on one probe connection of this process's own.

    The value changes whenever any other connection, in this or another process (the sqlite3
    shell too), commits to the file; the probe never writes, so it changes exactly when
    something was committed. About 5 microseconds under a lock, where the cheapest pooled
    SQLAlchemy SELECT costs a few hundred. A forked process opens a probe of its own; a probe
    opened again (after an error) starts a new generation, so no old mark can equal a new one.
    Unusable (the file cannot be opened), `mark` answers None: callers then read the database.
    """

    def __init__(self, path: str):
        self.path = path
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._generation = 0
        self._closed = False

    def mark(self) -> tuple[int, int] | None:
        with self._lock:
            if self._closed:
                return None
            connection = self._connection
            if connection is None or self._pid != os.getpid():
                connection = self._open()
                if connection is None:
                    return None
            try:
                return self._generation, connection.execute("PRAGMA data_version").fetchone()[0]
            except sqlite3.Error:
                log.warning("PRAGMA data_version failed on %s; reading the database instead", self.path,
                            exc_info=True)
                self._connection = None  # a new probe (a new generation) next time
                return None

    def _open(self) -> sqlite3.Connection | None:
        """The new probe connection, or None if the file cannot be watched (yet)."""
        if not os.path.exists(self.path):
            return None  # not created yet: connecting would create an empty file
        try:
            # A forked child leaves its parent's probe alone (closing it there could touch the parent's locks).
            self._connection = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                               check_same_thread=False)
        except sqlite3.Error:
            log.warning("cannot open %s to watch its commits", self.path, exc_info=True)
            self._connection = None
            return None
        self._pid = os.getpid()
        self._generation += 1
        return self._connection

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connection, self._connection = self._connection, None
            if connection is not None and self._pid == os.getpid():
                connection.close()


class WalCheckpointer:
    """Copies an SQLite file's write-ahead log back into the file from a thread of its own.

    SQLite checkpoints on the connection that commits, inside its COMMIT, once the log holds
    1,000 pages. Here every writer holds the write lock (ProcessWriteLock) until its connection
    goes back to the pool, so whoever committed at that moment copied the log back while every
    other writer waited for it: a create writes about 27 pages, so one in every 37 did, and the
    write lock was held 13% longer per create (10,000 posts, in process). A PASSIVE checkpoint
    waits for nobody and nobody waits for it: readers and writers go on while it copies.

    So once a write transaction of this process ends (`wrote`), this thread checkpoints
    WAL_CHECKPOINT_AFTER seconds later: one checkpoint covers what every process committed
    meanwhile, and a page written many times is copied once. The committing connections keep
    SQLite's own checkpoint at WAL_AUTOCHECKPOINT_FRAMES, for a log this thread has not caught up
    with. The thread starts at the first write of each process (a forked worker starts its own)
    and sleeps while the process does not write.
    """

    def __init__(self, path: Path, after: float = WAL_CHECKPOINT_AFTER):
        self.path = path
        self.after = after
        self.checkpoints = 0  # PASSIVE checkpoints run by this process's thread
        self._lock = threading.Lock()
        self._wrote = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None

    def wrote(self) -> None:
        """A write transaction of this process ended: checkpoint soon."""
        if self._pid != os.getpid():  # the first write of this process (a fork inherits no thread)
            with self._lock:
                if self._pid != os.getpid() and not self._stopped.is_set():
                    self._pid = os.getpid()
                    self._wrote = threading.Event()
                    self._thread = threading.Thread(target=self._run, name="sitehost-wal-checkpoint", daemon=True)
                    self._thread.start()
        self._wrote.set()

    @property
    def running(self) -> bool:
        """Whether this process's checkpoint thread is alive."""
        thread = self._thread
        return thread is not None and self._pid == os.getpid() and thread.is_alive()

    def stop(self) -> None:
        """End the thread (its connection closes); later writes leave the checkpoints to SQLite's backstop."""
        self._stopped.set()
        self._wrote.set()
        thread = self._thread
        if thread is not None and self._pid == os.getpid() and thread is not threading.current_thread():
            thread.join(timeout=10)

    def _run(self) -> None:
        connection: sqlite3.Connection | None = None
        try:
            while True:
                self._wrote.wait()
                if self._stopped.wait(self.after):
                    return
                self._wrote.clear()
                if self._stopped.is_set():
                    # `stop` came while this thread waited for the GIL after its sleep: the clear above
                    # undid stop's wake-up, and the next wait would never end.
                    return
                connection = connection or self._connect()
                if connection is None:
                    continue
                try:
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    self.checkpoints += 1
                except sqlite3.Error:
                    log.warning("a checkpoint of %s failed; the next write tries again", self.path, exc_info=True)
                    connection.close()
                    connection = None
        finally:
            if connection is not None:
                connection.close()

    def _connect(self) -> sqlite3.Connection | None:
        try:
            # mode=rw: a file that is gone stays gone (a plain connect would create an empty one).
            return sqlite3.connect(f"{self.path.as_uri()}?mode=rw", uri=True, timeout=1, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error:
            log.warning("cannot open %s to checkpoint it; the next write tries again", self.path, exc_info=True)
            return None


def rebuild_with_autoincrement(engine: Engine, table) -> bool:
    """Give an SQLite table made by an earlier version AUTOINCREMENT, so ids are never used twice.

    Without it SQLite hands a deleted post's id to the next post, and a client holding the old
    id reads a different post; PostgreSQL sequences and WordPress never reuse ids.
    SQLite cannot add the keyword to a table, so this is its documented rebuild: with foreign
    keys off, create the new table, copy the rows, drop the old one, rename, recreate indexes
    (triggers are re-created by the plugins' start-up). One transaction; a second process
    starting at the same moment waits for the lock and then finds the work done. True if rebuilt.
    """
    from sqlalchemy.schema import CreateIndex, CreateTable

    name = table.name
    with engine.connect() as connection:
        driver = connection.connection.driver_connection
        if driver is None:  # only a detached or invalidated connection has none
            raise RuntimeError(f"no SQLite connection to rebuild {name} with")
        driver.execute("PRAGMA foreign_keys=OFF")  # DROP TABLE would otherwise cascade to post_meta...
        try:
            driver.execute("BEGIN IMMEDIATE")
            found = driver.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
            if found is None or "AUTOINCREMENT" in found[0].upper():
                driver.execute("ROLLBACK")
                return False
            existing = {row[1] for row in driver.execute(f'PRAGMA table_info("{name}")')}
            columns = ", ".join(f'"{column.name}"' for column in table.columns if column.name in existing)
            copies = MetaData()
            for key in table.foreign_keys:  # the copy's foreign keys must find their tables
                if key.column.table is not table:
                    key.column.table.to_metadata(copies)
            rebuilt = table.to_metadata(copies, name=f"{name}__rebuilt")
            driver.execute(str(CreateTable(rebuilt).compile(dialect=engine.dialect)))
            driver.execute(f'INSERT INTO "{name}__rebuilt" ({columns}) SELECT {columns} FROM "{name}"')
            # Triggers of other tables that name this one would stop the rename (SQLite checks them while the
            # table is gone); the plugins' start-up re-creates every trigger it misses.
            for (trigger,) in driver.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE ?",
                                             (f"%{name}%",)).fetchall():
                driver.execute(f'DROP TRIGGER "{trigger}"')
            driver.execute(f'DROP TABLE "{name}"')
            driver.execute(f'ALTER TABLE "{name}__rebuilt" RENAME TO "{name}"')
            for index in table.indexes:
                driver.execute(str(CreateIndex(index).compile(dialect=engine.dialect)))
            problems = driver.execute(f'PRAGMA foreign_key_check("{name}")').fetchall()
            if problems:
                raise RuntimeError(f"rebuilding {name} would break {len(problems)} foreign keys")
            driver.execute("COMMIT")
        except BaseException:
            if driver.in_transaction:
                driver.execute("ROLLBACK")
            raise
        finally:
            driver.execute("PRAGMA foreign_keys=ON")
    log.warning("table %s rebuilt with AUTOINCREMENT: deleted ids are no longer handed out again", name)
    return True


def insert_if_absent(session, table):
    """INSERT that leaves an existing row alone (two processes may record the same fact at once)."""
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert
        return postgresql_insert(table).on_conflict_do_nothing()
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert
    return sqlite_insert(table).on_conflict_do_nothing()


def _visible_text(markup):
    return html_to_text(markup) if isinstance(markup, str) else markup


def _index_text(markup):
    return index_text(markup) if isinstance(markup, str) else markup


SQLITE_HEADER = b"SQLite format 3\x00"


def make_private_folder(path: Path) -> None:
    """Create `path` and each missing parent 0700. Folders that exist are left as they are: one may
    be the operator's working folder, whose mode is theirs to choose."""
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_FOLDER)
        except FileExistsError:  # another process made it meanwhile
            pass


def prepare_sqlite_file(path: Path) -> None:
    """Make the database file 0600 (its folder 0700 when we create it) before SQLite opens it.

    It holds password hashes and the site secrets, and SQLite creates a missing file with the
    umask's mode (0644: readable by every local user). Creating it first, empty (a valid empty
    database), leaves no moment when another user could open it; SQLite then gives its -wal and
    -shm files the database file's mode. A file of ours from before (0644) is tightened, with its
    -wal and -shm, and the change logged once.
    """
    make_private_folder(path.parent)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
        return
    except FileExistsError:
        pass
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            status = file.stat()
            if status.st_mode & 0o077 and status.st_uid == os.geteuid():
                os.chmod(file, status.st_mode & 0o700)
                log.warning("%s could be read by other local users (mode %o); it is now owner-only (%o)",
                            file, status.st_mode & 0o777, status.st_mode & 0o700)
        except FileNotFoundError:
            continue
        except PermissionError:  # not ours to change: the operator's choice
            log.warning("%s can be read by other local users and cannot be made owner-only", file)


def missing_site(url: str) -> str | None:
    """Why there is no site at `url` (one line for the operator), or None when there is one.

    Commands that only read ask this first, so that they never create a database: for an
    SQLite file it looks at the file alone; any other database is connected to (never
    created) and must hold sitehost's `site_state` table.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database in ("", ":memory:"):
            return "no site: the database is in memory, so it is empty in every new process"
        path = Path(database)
        if not path.is_file():
            return f"no site here: {path} does not exist (`sitehost init` or `sitehost serve` creates it)"
        with path.open("rb") as handle:
            if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                return f"no site here: {path} is not an SQLite database"
        return None
    from sqlalchemy import inspect
    from sqlalchemy.exc import SQLAlchemyError

    engine = create_engine(parsed, poolclass=NullPool)
    shown = parsed.render_as_string(hide_password=True)
    try:
        with engine.connect() as connection:
            if not inspect(connection).has_table("site_state"):
                return f"no site here: {shown} has no sitehost tables (`sitehost init` creates them)"
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        return f"cannot reach the database {shown}: {reason}"
    finally:
        engine.dispose()
    return None


class ProcessWriteLock:
    """SQLite's write lock as sitehost's writers take it: soon after it is free, and nobody for long.

    SQLite's busy handler polls: a writer that finds the file locked sleeps 1, 2, 5 ... up to 100
    ms and tries again. Under a burst of writes two things go wrong. A waiter sleeps on after the
    lock was freed (p99 of 1.7 s). And worse, a process whose threads queue for the
    lock hands it from one thread to the next within microseconds, so the other worker process,
    polling every 100 ms, finds it held at nearly every try and starves until the first one's
    queue runs dry: a 25-create batch waited up to 11 s while the other process wrote on.

    Strict turns are no cure either: handing the lock to a sleeping thread costs its wake-up and
    its wait for its process's GIL, during which nobody writes (creates fell 20-30%). So, as a
    fair mutex does: whoever finds the lock free takes it at once, and a writer that has waited
    HANDOFF_AFTER gets it next. In this process, threads queue in `_take_turn`; the one whose
    turn it is meets the other processes at an exclusive `flock` of a file next to the database,
    trying every half millisecond; once it has waited HANDOFF_AFTER it closes a second file, the
    gate, that every attempt passes first, so the holder's next writer cannot cut in. A writer
    that has waited the busy timeout (30 s) fails with "database is locked", as before.
    Held from BEGIN IMMEDIATE to COMMIT/ROLLBACK; a thread that already holds it (a nested write
    session) does not wait for itself. Writers outside sitehost (the sqlite3 shell) still meet the
    busy handler; the lock files order sitehost's writers, SQLite's own lock still guards the data.
    """

    def __init__(self, path: Path | None = None, timeout: float = SQLITE_BUSY_TIMEOUT_MS / 1000):
        self._mutex = threading.Lock()  # guards _held and _queue, held for microseconds
        self._held = False
        self._queue: collections.deque[_Waiter] = collections.deque()
        self._owner: int | None = None
        self.timeout = timeout
        self.path = path  # None (an in-memory database): the thread queue alone
        self._files: tuple | None = None  # (lock, gate), opened by this process
        self._files_pid: int | None = None

    def acquire(self) -> bool:
        """True if this call took the lock (and must release it); False if the thread held it already."""
        me = threading.get_ident()
        if self._owner == me:
            return False
        self._take_turn()
        try:
            if self.path is not None:
                self._take_file()
        except BaseException:
            self._pass_turn()
            raise
        self._owner = me
        return True

    def release(self) -> None:
        self._owner = None
        try:
            if self.path is not None and self._files is not None:
                fcntl.flock(self._files[0].fileno(), fcntl.LOCK_UN)
        finally:
            self._pass_turn()

    def _take_turn(self) -> None:
        """Wait for this process's turn. A thread that finds the turn free takes it at once (handing it
        to a sleeping thread costs that thread's wake-up and GIL wait, during which nobody writes);
        but once the longest waiter has waited HANDOFF_AFTER, the turn goes to it directly, so nobody
        waits seconds while later threads go first (threading.Lock alone let that happen)."""
        deadline = time.monotonic() + self.timeout
        with self._mutex:
            if not self._held:
                self._held = True
                return
            waiter = _Waiter()
            self._queue.append(waiter)
        while True:
            remaining = deadline - time.monotonic()
            woken = remaining > 0 and waiter.wake.acquire(timeout=remaining)
            with self._mutex:
                waiter.signalled = False
                if waiter.granted:
                    return
                if woken and not self._held:
                    self._held = True
                    self._queue.remove(waiter)
                    return
                if not woken:
                    self._queue.remove(waiter)
                    from sqlite3 import OperationalError

                    raise OperationalError("database is locked (waited for this process's other writer)")

    def _pass_turn(self) -> None:
        with self._mutex:
            if not self._queue:
                self._held = False
                return
            first = self._queue[0]
            if time.monotonic() - first.since >= HANDOFF_AFTER:
                self._queue.popleft()
                first.granted = True  # _held stays True: the turn passes straight to it
            else:
                self._held = False  # first come, first served among the running; the woken one may compete
            if not first.signalled:
                first.signalled = True
                first.wake.release()

    def _take_file(self) -> None:
        """This process's writer against the other processes' (see the class)."""
        lock, gate = (opened.fileno() for opened in self._lock_files())
        started = time.monotonic()
        while True:
            fcntl.flock(gate, fcntl.LOCK_SH)  # waits while another process's long waiter holds the gate
            fcntl.flock(gate, fcntl.LOCK_UN)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass
            if time.monotonic() - started >= HANDOFF_AFTER:
                break
            time.sleep(FILE_RETRY)
        fcntl.flock(gate, fcntl.LOCK_EX)  # new attempts wait; the holder's next writer cannot cut in
        try:
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return
                except BlockingIOError:
                    pass
                if time.monotonic() - started >= self.timeout:
                    from sqlite3 import OperationalError

                    raise OperationalError("database is locked (waited for another process's writer)")
                time.sleep(FILE_RETRY)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)

    def close(self) -> None:
        """Close this process's lock files (the app is closing; a later write opens them again)."""
        with self._mutex:
            files, self._files = self._files, None
        if files is not None and self._files_pid == os.getpid():
            for opened in files:
                opened.close()

    def _lock_files(self) -> tuple:
        """This process's own open files: a forked worker must not share its parent's (a flock
        belongs to the open file, so processes sharing one would not exclude each other)."""
        if self.path is None:
            raise RuntimeError("an in-memory database has no lock files")  # _take_file runs only with a path
        if self._files is None or self._files_pid != os.getpid():
            self._files = tuple(os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, PRIVATE_FILE), "a+b")
                                for path in (self.path, str(self.path) + "-gate"))  # owner-only: nobody else may flock them
            self._files_pid = os.getpid()
        return self._files


class _Waiter:
    """A thread waiting for its process's write turn."""

    __slots__ = ("wake", "since", "granted", "signalled")

    def __init__(self):
        self.wake = threading.Lock()
        self.wake.acquire()
        self.since = time.monotonic()
        self.granted = False
        self.signalled = False


_HOLDS_WRITE_LOCK = "sitehost_holds_write_lock"
_IDLE_SINCE = "sitehost_idle_since"
# What makes a SELECT more than a read: row locks and transaction-scoped advisory locks last
# until COMMIT, so in autocommit they would end with the statement.
_LOCKING_SELECT = (" FOR UPDATE", " FOR SHARE", " FOR NO KEY UPDATE", " FOR KEY SHARE", "_xact_lock")


def _only_reads(statement: str, context) -> bool:
    """Whether `statement` is a plain SELECT (a read that needs no transaction around it)."""
    if context is not None and (context.isinsert or context.isupdate or context.isdelete):
        return False
    return _plain_select(statement)


# A WITH statement is a read unless one of its parts writes (WITH ... AS (UPDATE ... RETURNING ...)).
_WRITING_WORD = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE)\b")


@functools.lru_cache(maxsize=1024)
def _plain_select(statement: str) -> bool:
    # Cached by text: a request's statements are the same few strings each time (str keeps its hash).
    head = statement.lstrip()[:6].upper()
    upper = statement.upper()
    if head[:4] == "WITH" and head[4:5].isspace():
        if _WRITING_WORD.search(upper):  # a word in a name or a comment too: then a transaction, to be safe
            return False
    elif head != "SELECT":
        return False  # DML, SAVEPOINT, DDL, SET ...: a transaction first
    return not any(marker.upper() in upper for marker in _LOCKING_SELECT)


def _configure_postgresql(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def one_process_per_statement(dbapi_connection, _record):
        # A parallel plan starts worker processes for one statement: about a millisecond each time, and a
        # core taken from the other requests (a search's 1,000 matches at 100,000 posts took 2.3 ms in
        # parallel and 1.8 alone). A site answers many small statements at once, so each runs alone.
        autocommit = dbapi_connection.autocommit
        dbapi_connection.autocommit = True
        dbapi_connection.execute("SET max_parallel_workers_per_gather = 0")
        dbapi_connection.autocommit = autocommit

    @event.listens_for(engine, "before_cursor_execute")
    def open_transaction_before_write(connection, _cursor, statement, _parameters, context, _executemany):
        # A read session (Database.read_session) runs in autocommit until its first write; psycopg
        # sends BEGIN before the next statement once autocommit is off, and the session's COMMIT or
        # ROLLBACK ends that transaction. The pool turns autocommit back on for the next reader.
        if not connection.get_execution_options().get(AUTOCOMMIT_READS):
            return
        driver = connection.connection.driver_connection
        if driver.autocommit and not _only_reads(statement, context):
            driver.autocommit = False

    # A connection used moments ago is alive: pinging it on every checkout (pool_pre_ping) cost a
    # round trip per request. One that sat idle PING_AFTER_IDLE is pinged, and replaced if dead (the
    # server restarted, a firewall dropped it). A connection that breaks while in use fails its
    # request, and SQLAlchemy then invalidates every older connection of the pool.
    @event.listens_for(engine.pool, "checkin")
    def note_idle(_dbapi_connection, record):
        if record is not None:
            record.info[_IDLE_SINCE] = time.monotonic()

    @event.listens_for(engine.pool, "checkout")
    def ping_if_idle(dbapi_connection, record, _proxy):
        since = record.info.get(_IDLE_SINCE)
        if since is None or time.monotonic() - since < PING_AFTER_IDLE:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            from sqlalchemy.exc import DisconnectionError

            raise DisconnectionError(f"pooled connection idle for {time.monotonic() - since:.0f} s is gone") from error


def _configure_sqlite(engine: Engine, write_lock: ProcessWriteLock, checkpointer: WalCheckpointer | None) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, _record):
        # Let SQLAlchemy's "begin" event decide how transactions start.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        # 8 MB of page cache per connection instead of 2: the listing indexes of a 100,000-post
        # site stay in memory (a search's first page fell from 0.75 to 0.4 ms).
        cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KB}")
        cursor.execute(f"PRAGMA soft_heap_limit={SQLITE_SOFT_HEAP_LIMIT_BYTES}")  # the process's, not this connection's
        if checkpointer is not None:  # the checkpoints are the thread's; this one is the backstop
            cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_FRAMES}")
        cursor.close()
        # What a reader sees of stored HTML (no tags, no script or style text): the search index's
        # triggers and substring searches read it (PostgreSQL has an SQL function of the same name).
        dbapi_connection.create_function("sitehost_text", 1, _visible_text, deterministic=True)
        # The same words, cheaper, for a full-text index's tokenizer (the search index's triggers).
        dbapi_connection.create_function("sitehost_index_text", 1, _index_text, deterministic=True)

    @event.listens_for(engine, "begin")
    def on_begin(connection):
        # Straight to the driver: a statement through SQLAlchemy's execution machinery cost
        # about as much as the page query it precedes.
        driver = connection.connection.driver_connection
        if connection.get_execution_options().get("sitehost_write"):
            took = write_lock.acquire()
            try:
                driver.execute("BEGIN IMMEDIATE")
            except BaseException:
                if took:
                    write_lock.release()
                raise
            if took:
                connection.connection.info[_HOLDS_WRITE_LOCK] = True
        else:
            driver.execute("BEGIN")

    # Released when the connection goes back to the pool: a session returns it right after its COMMIT or
    # ROLLBACK has run (the engine's commit event fires before, too early: the next writer would meet
    # SQLite's lock still held and sleep in the busy handler). An invalidated connection lets go too.
    def release_write_lock(_dbapi_connection, record, *_rest):
        if record is not None and record.info.pop(_HOLDS_WRITE_LOCK, False):
            write_lock.release()
            if checkpointer is not None:
                checkpointer.wrote()

    event.listen(engine.pool, "checkin", release_write_lock)
    event.listen(engine.pool, "invalidate", release_write_lock)
