"""Which `sitehost serve` processes serve a database, and keeping them off it during a restore.

Every `sitehost serve` process holds a lock on its database for its lifetime (ServingLock). The
operating system (SQLite) or the database server (PostgreSQL) releases it when the process
ends, however it ends (kill -9 included), so a lock that is held always means a live server.
Its workers are forked with the lock and hold it too until they exit (they stop within a
second of their parent).

- SQLite: beside `site.db` a folder `site.db.serving/` (0700) holds `site.lock`, on which every
  server holds a shared flock and a restore an exclusive one, and `PID.server`, one file per
  server on which it holds an exclusive flock; the file names the process (pid and host).
- PostgreSQL: a session-level advisory lock keyed by the site's schema, taken shared by a
  connection each server keeps open (its `application_name` names the process) and exclusive
  by a restore; pg_locks and pg_stat_activity list the holders.

A restore takes the exclusive lock (held_for_restore): while it holds it, no server starts on
the database; while a server holds its lock, the restore is refused (ServersRunning names the
servers), unless it was told to stop them (stop_servers: SIGTERM, then wait until they exit).
This module is public API for plugins (the backup plugin's restore uses it).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import socket
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

LOCK_CLASS = 0x51735E  # the first key of sitehost's advisory locks ("sitehost serve")
APPLICATION_PREFIX = "sitehost serve"
STOP_TIMEOUT_SECONDS = 60.0  # how long stop_servers waits for the servers it signalled to exit
POLL_SECONDS = 0.2


class RestoreRunning(Exception):
    """A server may not start: a restore holds the database."""


@dataclass(frozen=True)
class RunningServer:
    """A `sitehost serve` process that holds the database's lock."""

    pid: int
    host: str

    @property
    def here(self) -> bool:
        """On this machine, so that a signal reaches it."""
        return self.host == socket.gethostname()

    def describe(self) -> str:
        return f"sitehost serve pid {self.pid} on {self.host}"


class ServersRunning(Exception):
    """Servers serve the database; `servers` names them (possibly empty when they cannot be named)."""

    def __init__(self, servers: list[RunningServer]):
        self.servers = servers
        if servers:
            super().__init__(f"the database is being served ({', '.join(server.describe() for server in servers)})")
        else:
            super().__init__("the database is held by a server that is starting or by another restore")


def _identity() -> tuple[int, str]:
    return os.getpid(), socket.gethostname()


# --- SQLite: flocks on files beside the database ------------------------------------------

def _sqlite_folder(url) -> Path | None:
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    path = Path(database).resolve()
    return path.with_name(path.name + ".serving")


def _open_lock(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


def _try_flock(descriptor: int, mode: int) -> bool:
    try:
        fcntl.flock(descriptor, mode | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


class _SqliteLocks:
    def __init__(self, folder: Path):
        self.folder = folder

    def hold_for_serving(self) -> list[int]:
        """The server's shared lock and its own named file; the open descriptors keep them."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        site = _open_lock(self.folder / "site.lock")
        if not _try_flock(site, fcntl.LOCK_SH):
            os.close(site)
            raise RestoreRunning("a restore of this database is running; start the server when it has finished")
        pid, host = _identity()
        # Locked under a temporary name, then renamed: a restore never sees the file unlocked.
        pending = self.folder / f".{pid}.server.new"
        own = _open_lock(pending)
        fcntl.flock(own, fcntl.LOCK_EX)
        os.ftruncate(own, 0)
        os.write(own, f"{pid} {host}\n".encode())
        os.replace(pending, self.folder / f"{pid}.server")
        return [site, own]

    def release_serving(self, descriptors: list[int]) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.folder / f"{os.getpid()}.server").unlink()
        for descriptor in descriptors:
            os.close(descriptor)

    def servers(self) -> list[RunningServer]:
        """The servers whose file is locked; a file nobody locks is a dead server's and is removed."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in sorted(self.folder.glob("*.server")):
            try:
                descriptor = os.open(path, os.O_RDWR | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                if _try_flock(descriptor, fcntl.LOCK_EX):
                    path.unlink(missing_ok=True)  # its server died without removing it (kill -9)
                    continue
                words = os.pread(descriptor, 300, 0).decode(errors="replace").split()
                if len(words) == 2 and words[0].isdigit():
                    found.append(RunningServer(int(words[0]), words[1]))
            finally:
                os.close(descriptor)
        return found

    @contextlib.contextmanager
    def exclusive(self, attempt) -> Iterator[None]:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        site = _open_lock(self.folder / "site.lock")
        try:
            attempt(lambda: _try_flock(site, fcntl.LOCK_EX))
            yield
        finally:
            os.close(site)


# --- PostgreSQL: an advisory lock per schema ----------------------------------------------

class _PostgresLocks:
    def __init__(self, url):
        self.url = url

    def _connect(self, application_name: str):
        engine = create_engine(self.url, poolclass=NullPool, isolation_level="AUTOCOMMIT",
                               connect_args={"application_name": application_name[:63]})
        connection = engine.connect()
        key = connection.execute(text("SELECT current_schema()")).scalar() or "public"
        return engine, connection, zlib.crc32(key.encode()) & 0x7FFFFFFF

    def hold_for_serving(self):
        pid, host = _identity()
        engine, connection, key = self._connect(f"{APPLICATION_PREFIX} pid={pid} host={host}")
        taken = connection.execute(text("SELECT pg_try_advisory_lock_shared(:a, :b)"),
                                   {"a": LOCK_CLASS, "b": key}).scalar()
        if not taken:
            connection.close()
            engine.dispose()
            raise RestoreRunning("a restore of this database is running; start the server when it has finished")
        return engine, connection

    def release_serving(self, held) -> None:
        engine, connection = held
        with contextlib.suppress(Exception):
            connection.close()
        engine.dispose()

    def servers(self) -> list[RunningServer]:
        engine, connection, key = self._connect("sitehost restore")
        try:
            return self._holders(connection, key)
        finally:
            connection.close()
            engine.dispose()

    @staticmethod
    def _holders(connection, key: int) -> list[RunningServer]:
        rows = connection.execute(text(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.mode = 'ShareLock' AND l.objsubid = 2 "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND l.classid::bigint = :a AND l.objid::bigint = :b"), {"a": LOCK_CLASS, "b": key}).scalars()
        found = []
        for name in rows:
            words = dict(part.split("=", 1) for part in (name or "").split() if "=" in part)
            if words.get("pid", "").isdigit():
                found.append(RunningServer(int(words["pid"]), words.get("host", "?")))
        return found

    @contextlib.contextmanager
    def exclusive(self, attempt) -> Iterator[None]:
        engine, connection, key = self._connect("sitehost restore")
        try:
            attempt(lambda: connection.execute(text("SELECT pg_try_advisory_lock(:a, :b)"),
                                               {"a": LOCK_CLASS, "b": key}).scalar())
            yield
        finally:
            connection.close()  # ends the session, which releases the lock
            engine.dispose()


def _locks(database_url: str):
    url = make_url(database_url)
    if url.get_backend_name() == "postgresql":
        return _PostgresLocks(url)
    folder = _sqlite_folder(url)
    return _SqliteLocks(folder) if folder is not None else None


# --- the two sides --------------------------------------------------------------------------

class ServingLock:
    """Held by one `sitehost serve` process (and its workers) on its database until release()."""

    def __init__(self, database_url: str):
        self._locks = _locks(database_url)
        self._held = self._locks.hold_for_serving() if self._locks is not None else None

    def release(self) -> None:
        if self._held is not None:
            self._locks.release_serving(self._held)
            self._held = None


def running_servers(database_url: str) -> list[RunningServer]:
    """The `sitehost serve` processes that hold `database_url`'s lock now."""
    locks = _locks(database_url)
    return locks.servers() if locks is not None else []


@contextlib.contextmanager
def held_for_restore(database_url: str, stop_servers: bool = False,
                     timeout: float = STOP_TIMEOUT_SECONDS) -> Iterator[list[RunningServer]]:
    """Hold `database_url` exclusively for the block: no server serves it, none starts meanwhile.

    Raises ServersRunning when servers hold it, unless `stop_servers`: then each is sent SIGTERM
    (it finishes its requests and exits) and the block starts once they all have; servers on
    another machine cannot be signalled, so they are refused the same way. Yields the servers stopped.
    """
    locks = _locks(database_url)
    if locks is None:
        yield []
        return
    stopped: list[RunningServer] = []

    def attempt(take) -> None:
        if take():
            return
        servers = locks.servers()
        if not stop_servers or not servers or not all(server.here for server in servers):
            raise ServersRunning(servers)
        for server in servers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(server.pid, signal.SIGTERM)
        stopped.extend(servers)
        deadline = time.monotonic() + timeout
        while not take():
            if time.monotonic() > deadline:
                raise ServersRunning(locks.servers())
            time.sleep(POLL_SECONDS)

    with locks.exclusive(attempt):
        yield stopped
