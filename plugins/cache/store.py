"""The in-memory response cache of one app (one server process), checked against the database.

The site's cache version is one counter per kind of write (FAMILIES: content, comments, terms,
users, settings), one row each in `cache_version`. Each entry remembers the versions that were
current BEFORE its response was built, and the families its answer is built from (the route's
`changes_with`; everything for an `_embed` answer, a page or a route that declares nothing). A
hit is served only while each of those families' versions in the database still equals the
remembered one, so once a write has bumped its family (which happens before the write's response
is sent), no process serves anything built from older data, and a write of another kind (a
comment, for the categories list) leaves the entry alone. On an SQLite file `SqliteVersionReader`
skips the SELECT while nothing at all was committed since the last one; on PostgreSQL
`PostgresVersionListener` learns each new version from a NOTIFY sent in the bumping
transaction, and reads the table only when it cannot trust what it heard.
"""

from __future__ import annotations

import hashlib
import logging
import os
from select import POLLIN, poll as new_poll
import sqlite3
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field

import orjson
from sqlalchemy import String, bindparam, case, cast, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from host import WRITE_KINDS, compression, exact_bytes

from .tables import tables
from .settings import CacheConfig

log = logging.getLogger("sitehost.cache")

# Headers that depend on the asking client, not on the resource: the host recomputes them.
_CLIENT_HEADERS = {"access-control-allow-origin", "access-control-allow-methods",
                   "access-control-allow-credentials", "vary", "x-cache", "content-encoding"}
# A post password unlocks content for the one who knows it, never for the next reader.
_UNCACHEABLE_QUERY = frozenset({"password"})
# What the answer of `context=edit` holds is for editors only: never kept, whoever asks.
_PRIVATE_CONTEXTS = ("edit",)

# The kinds of writes (host.WRITE_KINDS), one version row each (row id = position + 1; row 1 was the
# only row once, so an older site's counter carries on as `content`). A route's `changes_with` names
# some of them; `settings` (the site's title, permalinks, plugin set) is part of every answer.
FAMILIES = WRITE_KINDS
EVERY_FAMILY = tuple(range(len(FAMILIES)))
_SETTINGS = FAMILIES.index("settings")
Versions = tuple[int, ...]


def family_indexes(names) -> tuple[int, ...]:
    """Positions of the named families in a version tuple; unknown names raise ValueError."""
    return tuple(sorted({FAMILIES.index(name) for name in names}))


def answer_families(request) -> tuple[int, ...]:
    """The families an answer to `request` is built from: the route's `changes_with` and the settings.

    Everything for a page, an `_embed` answer (the embedded author, terms, media and replies) and a
    route that declares nothing."""
    endpoint = getattr(request, "endpoint", None)
    declared = getattr(endpoint, "changes_with", ())
    if not declared or "_embed" in request.query:
        return EVERY_FAMILY
    return tuple(sorted({*family_indexes(declared), _SETTINGS}))


@dataclass
class Entry:
    version: Versions  # every family's version when the answer was built
    families: tuple[int, ...]  # the positions in `version` the answer is built from
    status: int
    headers: dict[str, str]
    body: bytes
    stored_at: float
    gzipped: bytes | None = None  # the body gzip-compressed once at store time, when worth it (host.compression)
    keep_seconds: float | None = None  # the request's own bound (a page's `keep_seconds`), besides ttl_seconds
    _hit_headers: dict[str, str] | None = field(default=None, repr=False)  # what `answer` hands every hit
    _gzip_hit_headers: dict[str, str] | None = field(default=None, repr=False)

    def current(self, versions: Versions) -> bool:
        """Whether no family this answer is built from was bumped since (after the fast whole-tuple check)."""
        if self.version == versions:
            return True
        version = self.version
        return len(version) == len(versions) and all(version[index] == versions[index] for index in self.families)

    @property
    def size(self) -> int:
        return (len(self.body) + len(self.gzipped or b"")
                + sum(len(name) + len(value) for name, value in self.headers.items()))

    def answer(self, request) -> tuple[int, dict[str, str], bytes]:
        """(status, headers, body) for this client: the kept gzip form when it accepts gzip.

        Every hit of one form gets the same headers dict (built on the first), which the host's
        `cached_response` callers only read: a busy page's finished headers are memoized by it.
        """
        if self.gzipped is not None and compression.accepts_gzip(request.header("accept-encoding")):
            if self._gzip_hit_headers is None:
                headers = {**self.headers, "Content-Encoding": "gzip", "X-Cache": "hit"}
                for name in [name for name in headers if name.lower() == "etag"]:  # bottle spells it "Etag"
                    headers[name] = compression.gzip_etag(headers[name])  # another representation, another tag
                self._gzip_hit_headers = headers
            return self.status, self._gzip_hit_headers, self.gzipped
        if self._hit_headers is None:
            self._hit_headers = {**self.headers, "X-Cache": "hit"}
        return self.status, self._hit_headers, self.body


class _ProbeConnection(sqlite3.Connection):
    """A plain sqlite3 connection that can be weakly referenced, so it goes away with its thread."""


class SqliteVersionReader:
    """The shared version on an SQLite file, read through SQLAlchemy only after some commit.

    `PRAGMA data_version` on a connection of our own (one per thread, never writing) changes
    whenever any other connection, in any process, commits to the file. Each thread keeps
    the (data_version, version) pair of its last real read; data_version is read BEFORE the
    version, so a commit racing with the real read only costs one more real read later,
    never a stale answer. About 4 microseconds instead of a pooled SQLAlchemy SELECT.
    """

    def __init__(self, path: str, read_version):
        self.path = path
        self._read_version = read_version
        self._local = threading.local()
        self._connections: weakref.WeakSet = weakref.WeakSet()  # to close at shutdown; dead threads' go
        self._lock = threading.Lock()
        self._closed = False

    def read(self) -> Versions:
        local = self._local
        cursor = getattr(local, "cursor", None) or self._open()
        if cursor is None:
            return self._read_version()
        try:
            data_version = cursor.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:
            if not self._closed:
                log.warning("PRAGMA data_version failed; reading the cache version directly", exc_info=True)
            return self._read_version()
        if data_version == local.data_version:
            return local.version
        version = self._read_version()
        local.data_version, local.version = data_version, version
        return version

    def _open(self) -> sqlite3.Cursor | None:
        with self._lock:
            if self._closed:
                return None
            try:
                connection = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False,
                                             factory=_ProbeConnection)
            except sqlite3.Error:
                log.warning("cannot open %s for PRAGMA data_version", self.path, exc_info=True)
                return None
            self._connections.add(connection)
        self._local.cursor, self._local.data_version, self._local.version = connection.cursor(), None, None
        return self._local.cursor

    def close(self) -> None:
        """Close every thread's connection (at app shutdown); later reads go to the database."""
        with self._lock:
            self._closed = True
            connections = list(self._connections)
            self._connections.clear()
        for connection in connections:
            connection.close()


# Bounded staleness on PostgreSQL: however a notification might go missing without the connection
# failing, the listener reads the version itself at least this often.
VERSION_RECHECK_SECONDS = 1.0
RECONNECT_SECONDS = 0.5
WAIT_SLICE_SECONDS = 0.1
NOTIFY_WAIT_SECONDS = 1.0
# The other listening connections of this site (their reports in application_name), in pg_stat_activity.
LISTENING_OTHERS = ("datname = current_database() AND left(application_name, :length) = :prefix "
                    "AND pid <> :own")


def version_channel(schema: str) -> str:
    """The NOTIFY channel of one site: channels are per database, a site is per schema."""
    return f"sitehost_cache_{schema}"[:63]


def report_prefix(channel: str) -> str:
    """How a site's listening connections begin their `application_name` (at most 63 bytes, so the
    channel is hashed): the rest is the versions that process has taken in, which writers read back
    from pg_stat_activity; `-` until its first read."""
    return "shc-" + hashlib.blake2s(channel.encode(), digest_size=5).hexdigest() + ":"


def reported_versions(application_name: str, prefix: str) -> Versions | None:
    """The versions a listening connection reports (None while it has reported none)."""
    try:
        return tuple(int(part, 16) for part in application_name[len(prefix):].split("."))
    except ValueError:
        return None


class PostgresVersionListener:
    """The shared version on PostgreSQL without a query per hit: LISTEN on a connection of its own.

    `invalidate` sends `pg_notify(channel, version)` in the transaction that bumps the row, so
    every listening process hears it when (and only when) the bump commits, in commit order.
    A background thread keeps the last version heard. It is trusted only while the connection
    is up: from start until the first read after LISTEN, and from a lost connection until the
    next LISTEN and read, `read` asks the database (as before, one SELECT per hit). The thread
    also reads the row every VERSION_RECHECK_SECONDS, which bounds how long a missed
    notification could leave a stale version in place.

    A write's answer must not leave while another process still serves what the write made stale
    (a client that writes through one node and reads through the next would see its write undone).
    So each listening connection reports the versions its process has taken in, in its own
    `application_name`, and the writer waits until every listening connection of the site reports
    the versions it bumped (`heard`), up to NOTIFY_WAIT_SECONDS for a process too busy or stopped to
    answer. Past that bound a process still does not trust its known versions while its listening
    socket holds unread bytes, or while the thread is reading them: `read` asks the database then.
    """

    def __init__(self, app, read_version):
        self._app = app
        self._engine = app.db.engine
        self._db = app.db
        self._read_version = read_version
        with self._engine.connect() as connection:
            self.channel = version_channel(connection.exec_driver_sql("SELECT current_schema()").scalar())
        self._known: Versions | None = None  # None: not trusted, ask the database
        self._report_prefix = report_prefix(self.channel)
        self.late_acknowledgements = 0  # writes whose answer left before every process had heard them
        self._merging = threading.Lock()  # the listener and a writing request both raise `_known`
        self._stop = threading.Event()
        # Closing writes a byte here, so the thread stops at once instead of at the end of its wait slice
        # (the PostgreSQL test pass closes thousands of apps: half a slice each added up to minutes).
        self._wake_read, self._wake_write = os.pipe()
        self._connection = None
        self._socket: int | None = None  # the listening connection's socket, while it listens
        self._backend_pid = 0  # the listening connection's server process, while it listens
        self._reported: Versions | None = None  # what the listening connection's name last said
        self._reading = False  # the thread is taking in notifications or reading the row
        self._polls = threading.local()  # one poll object per serving thread (poll() is not shared)
        self.reconnects = 0
        # A thread of this process, not an app.jobs job: every process keeps its own memory cache, so
        # every process must hear the notifications on its own LISTEN connection (a site-wide job runs once).
        self._thread = threading.Thread(target=self._listen, name="cache-version-listener", daemon=True)
        self._thread.start()

    def read(self) -> Versions:
        known = self._known
        if known is None or self._reading or self._unread():
            return self._read_version()
        return known

    def _unread(self) -> bool:
        """Whether the listening socket holds bytes the thread has not read (about a microsecond)."""
        socket = self._socket
        if socket is None:
            return True
        poller = getattr(self._polls, "poller", None)
        if poller is None or self._polls.socket != socket:
            poller = new_poll()
            poller.register(socket, POLLIN)
            self._polls.poller, self._polls.socket = poller, socket
        return bool(poller.poll(0))

    def bump(self, indexes) -> Versions:
        """Bump these families' rows, notify every process of each, read every version and count the
        other listening connections of the site, in ONE statement run in autocommit (instead of BEGIN,
        the UPDATE, the read, a pg_notify per family, COMMIT and a first read of who listens). The
        notifications go out as it commits. Then `heard`: a process alone waits for nobody."""
        table = tables(self._app)["cache_version"]

        def build():
            bumped_rows = (update(table).where(table.c.id.in_(bindparam("ids", expanding=True)))
                           .values(version=table.c.version + 1).returning(table.c.id, table.c.version).cte("bumped"))
            payload = cast(bumped_rows.c.id - 1, String) + ":" + cast(bumped_rows.c.version, String)
            others = select(func.count()).select_from(text("pg_stat_activity")).where(text(LISTENING_OTHERS))
            return (select(table.c.id, func.coalesce(bumped_rows.c.version, table.c.version),
                           case((bumped_rows.c.id.is_not(None), func.pg_notify(bindparam("channel"), payload))),
                           others.scalar_subquery())
                    .select_from(table.outerjoin(bumped_rows, bumped_rows.c.id == table.c.id)))

        statement = self._db.prepared("cache.bump_and_notify", build)
        arguments = {"ids": [index + 1 for index in indexes], "channel": self.channel, **self._listening_arguments()}
        with self._engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            rows = connection.execute(statement, arguments).all()
        versions = versions_of((row_id, version) for row_id, version, _notified, _others in rows)
        self.heard({index: versions[index] for index in indexes}, others_listening=bool(rows and rows[0][3]))
        return versions

    def _listening_arguments(self) -> dict:
        """LISTENING_OTHERS's arguments: this site's report prefix, and this process's own listening
        connection to leave out (it merges its own writes at once)."""
        return {"length": len(self._report_prefix), "prefix": self._report_prefix,
                "own": self._backend_pid if self._known is not None else 0}

    def heard(self, bumped: dict[int, int], wait: float = NOTIFY_WAIT_SECONDS, others_listening: bool = True) -> None:
        """This process bumped these families (position -> new version): trust them at once, and wait
        until every other listening connection of the site reports them taken in (a millisecond or two;
        `wait` bounds it for a process too busy or stopped to answer), so the write's answer leaves after.
        This listener's own report is not waited for: this process has just merged them.
        `others_listening` False: the write's own statement found no other listening connection."""
        if self._known is not None:
            self._merge(bumped)
        if not others_listening:
            return
        deadline = time.monotonic() + wait
        query = text("SELECT application_name FROM pg_stat_activity WHERE " + LISTENING_OTHERS)
        arguments = self._listening_arguments()
        pause = 0.0002
        try:
            # In autocommit each read is a transaction of its own (pg_stat_activity is read once per
            # transaction), one round trip each, with no BEGIN or ROLLBACK between the polls.
            with self._db.read_connection() as connection:
                while True:
                    names = connection.execute(query, arguments).scalars().all()
                    behind = sum(not self._acknowledges(name, bumped) for name in names)
                    if not behind:
                        return
                    if time.monotonic() >= deadline:
                        self.late_acknowledgements += 1
                        log.warning("%d listening process(es) had not heard a cache purge after %.1f s; "
                                    "they ask the database while the notification is unread", behind, wait)
                        return
                    time.sleep(pause)
                    pause = min(pause * 2, 0.002)  # the others' threads may wait for their GIL: ask less often
        except SQLAlchemyError:  # the write has committed: its answer must not fail for want of this wait
            self.late_acknowledgements += 1
            log.warning("could not read which processes heard a cache purge; answering without waiting",
                        exc_info=True)

    def _acknowledges(self, application_name: str, bumped: dict[int, int]) -> bool:
        reported = reported_versions(application_name, self._report_prefix)
        return reported is not None and all(index < len(reported) and reported[index] >= version
                                            for index, version in bumped.items())

    def _merge(self, heard: dict[int, int]) -> None:
        """Take these families' versions (position -> version) and keep the others': each notification
        names one family's row, and one row's notifications arrive in the order its bumps committed."""
        with self._merging:
            known = self._known
            if known is None:
                return
            merged = list(known)
            for index, version in heard.items():
                if 0 <= index < len(merged):
                    merged[index] = version
            self._known = tuple(merged)

    def wait_until_trusted(self, timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while self._known is None and time.monotonic() < deadline:
            time.sleep(0.005)
        return self._known is not None

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                self._listen_once()
            except Exception:  # a lost connection, a restart of the server: distrust, then listen again
                self._known = None
                if not self._stop.is_set():
                    log.warning("cache version listener lost its connection; reading the version per hit "
                                "until it listens again", exc_info=True)
                    self.reconnects += 1
                    self._stop.wait(RECONNECT_SECONDS)
            finally:
                self._known = None
                self._socket = None
                self._close_connection()

    def _listen_once(self) -> None:
        # A connection of its own, outside the pool: it waits for notifications for the app's lifetime.
        # The driver module comes from SQLAlchemy's dialect (psycopg, an extra of `postgres`), so this
        # module imports nothing a site on SQLite lacks.
        driver = self._engine.dialect.dbapi
        conninfo = self._engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        connection = driver.connect(conninfo, autocommit=True, application_name=self._report_prefix + "-")
        self._connection = connection
        quoted = '"' + self.channel.replace('"', '""') + '"'
        connection.execute(f"LISTEN {quoted}")
        self._socket = connection.pgconn.socket
        self._backend_pid = connection.info.backend_pid
        self._reported = None  # a new connection reports nothing until its first read
        waiting = new_poll()
        waiting.register(self._socket, POLLIN)
        waiting.register(self._wake_read, POLLIN)
        # Read after LISTEN: a bump committed in between is either in this read or heard below.
        self._take_in(connection, select_first=True)
        checked = time.monotonic()
        while not self._stop.is_set():
            # A slice at most, for the periodic recheck; closing wakes it through the pipe.
            arrived = any(ready == self._socket for ready, _events in waiting.poll(WAIT_SLICE_SECONDS * 1000))
            recheck = time.monotonic() - checked >= VERSION_RECHECK_SECONDS
            if arrived or recheck:
                self._take_in(connection, select_first=recheck)
            if recheck:
                checked = time.monotonic()

    def _take_in(self, connection, select_first: bool) -> None:
        """Read the row (`select_first`) and then every notification received, and report what was
        taken in; `_reading` is set throughout, so that `read` asks the database until they are merged.

        Notifications that arrive during a statement wait in psycopg's backlog, so after reporting
        the backlog is read again. One row's notifications come in commit order and the SELECT saw
        every commit before it, so one that names an older version than the SELECT read is of a bump
        it already holds: merging it would go back."""
        self._reading = True
        try:
            selected = self._select(connection) if select_first else None
            if selected is not None:
                self._known = selected
            self._merge_notifications(connection, selected)
            while True:
                self._report(connection)
                if not self._merge_notifications(connection, selected):
                    break
        finally:
            self._reading = False

    def _merge_notifications(self, connection, selected: Versions | None) -> int:
        """Merge the notifications received so far; answers how many there were."""
        count = 0
        for notify in connection.notifies(timeout=0):
            count += 1
            try:  # "position:version" of one bumped family
                index, version = (int(part) for part in notify.payload.split(":"))
            except ValueError:
                self._known = selected = self._select(connection)
                continue
            if selected is None or not 0 <= index < len(selected) or version >= selected[index]:
                self._merge({index: version})
        return count

    def _report(self, connection) -> None:
        """Tell writers (through pg_stat_activity) which versions this process has taken in."""
        known = self._known
        if known is not None and known != self._reported:  # the periodic recheck mostly finds nothing new
            name = self._report_prefix + ".".join(format(version, "x") for version in known)
            connection.execute("SELECT set_config('application_name', %s, false)", (name,))
            self._reported = known

    @staticmethod
    def _select(connection) -> Versions:
        return versions_of(connection.execute("SELECT id, version FROM cache_version").fetchall())

    def _close_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except Exception:
                pass

    def disconnect_for_test(self) -> None:
        """Drop the listening connection as a network failure would (tests of the fallback)."""
        connection = self._connection
        if connection is not None:
            connection.pgconn.finish()

    def close(self) -> None:
        self._stop.set()
        os.write(self._wake_write, b"x")
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            os.close(self._wake_read)
            os.close(self._wake_write)


def versions_of(rows) -> Versions:
    """The version tuple from (id, version) rows of `cache_version`; a missing row counts 0."""
    found = {int(row_id): int(version or 0) for row_id, version in rows}
    return tuple(found.get(index + 1, 0) for index in EVERY_FAMILY)


def version_reader(app, read_version):
    """How this app reads the shared version: `read_version` itself, through data_version on an SQLite
    file, or from notifications on PostgreSQL."""
    url = app.db.engine.url
    if url.get_backend_name() == "postgresql" and url.get_driver_name() == "psycopg":
        return PostgresVersionListener(app, read_version)
    if url.get_backend_name() != "sqlite" or url.query or url.database in (None, "", ":memory:") \
            or url.database.startswith("file:"):
        return None
    return SqliteVersionReader(os.path.abspath(url.database), read_version)


class ResponseCache:
    """LRU-bounded by entries and bytes; thread-safe (waitress serves from several threads)."""

    def __init__(self, app, config: CacheConfig):
        self.app = app
        self.config = config
        self._entries: OrderedDict[tuple, Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._pending: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # request -> (key, version)
        self.hits = 0
        self.misses = 0
        self._paths = frozenset(config.paths)
        self._path_prefixes = tuple(path.rstrip("/") + "/" for path in config.paths)  # "/" -> "/": every path
        self._reader = version_reader(app, self.current_versions)
        self._version = self._reader.read if self._reader else self.current_versions

    # --- the shared version counter --------------------------------------------------------

    def ensure_version_row(self) -> None:
        """One version row per family (an older site has the first one only), in one transaction."""
        table = tables(self.app)["cache_version"]
        wanted = {index + 1 for index in EVERY_FAMILY}
        for _attempt in range(3):
            try:
                with self.app.db.session(write=True) as session, session.begin():
                    missing = wanted - set(session.execute(select(table.c.id)).scalars())
                    if missing:
                        session.execute(insert(table), [{"id": row_id, "version": 0} for row_id in sorted(missing)])
                return
            except IntegrityError:  # another process created some at the same moment: look again
                continue

    def current_versions(self) -> Versions:
        """Every family's version in the database, read now (`lookup` reads them through `_version`)."""
        table = tables(self.app)["cache_version"]
        with self.app.db.read_connection() as connection:
            return versions_of(connection.execute(select(table.c.id, table.c.version)).all())

    def current_version(self) -> int:
        """One number that grows with every purge of any family (what the status pages show)."""
        return sum(self.current_versions())

    def invalidate(self, families: tuple[str, ...] = FAMILIES) -> int:
        """Bump these families' versions (every process's entries built from them become stale) and drop
        ours; every family by default (a purge of everything). Answers `current_version()` after it."""
        table = tables(self.app)["cache_version"]
        indexes = family_indexes(families)
        listener = self._reader if isinstance(self._reader, PostgresVersionListener) else None
        if listener is not None:
            versions = listener.bump(indexes)
        else:
            with self.app.db.session(write=True) as session, session.begin():
                ids = [index + 1 for index in indexes]
                session.execute(update(table).where(table.c.id.in_(ids)).values(version=table.c.version + 1))
                versions = versions_of(session.execute(select(table.c.id, table.c.version)).all())
        self._drop_built_from(set(indexes))
        return sum(versions)

    # --- which requests ---------------------------------------------------------------------

    def eligible(self, request) -> bool:
        if not self.config.enabled or request.method != "GET" or request.internal:
            return False
        if request.header("authorization") or request.header("cookie"):
            return False
        query = request.query
        if not _UNCACHEABLE_QUERY.isdisjoint(query) or query.get("context") in _PRIVATE_CONTEXTS:
            return False
        if getattr(request, "cacheable_page", False):  # a site page registered cacheable (host.page_cache)
            return True
        path = request.path
        if self.config.cache_indexes and (path == "/" or path.lstrip("/") in self.app.registry.namespaces):
            return True
        if path in self._paths or path.startswith(self._path_prefixes):
            return True
        matched = self.app.registry.match(path, "GET")  # routes that declare themselves cacheable
        return matched is not None and matched[1].cacheable

    @staticmethod
    def key(request) -> tuple:
        """REST root (scheme, host), route path and the query as the handler sees it.

        The parsed query, not the raw pairs: `per_page=5&per_page=1` and `per_page=1&per_page=5`
        are different requests (the last value wins), while key order does not matter.
        """
        return (request.base_url, request.path, orjson.dumps(request.query, option=orjson.OPT_SORT_KEYS))

    # --- lookup and store -------------------------------------------------------------------

    def lookup(self, request):
        """A (status, headers, body) hit, or None after noting the version for `store`."""
        if not self.eligible(request):
            return None
        try:
            version = self._version()
        except SQLAlchemyError:
            log.exception("cache version unreadable; answering without the cache")
            return None
        key = self.key(request)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and (not entry.current(version) or self._expired(entry)):
                self._drop(key)
                entry = None
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry.answer(request)
            self.misses += 1
        self._pending[request] = (key, version)
        return None

    def was_looked_up(self, request) -> bool:
        return request in self._pending

    def store(self, request, status: int, headers: dict[str, str], body: bytes) -> None:
        noted = self._pending.pop(request, None)
        if noted is None or status != 200:
            return
        if any(name.lower() in ("set-cookie", "content-encoding") for name in headers):
            return  # a cookie is one visitor's; an encoded body (the host's kept gzip index) is not for every client
        key, version = noted
        kept = {name: value for name, value in headers.items() if name.lower() not in _CLIENT_HEADERS}
        body = exact_bytes(body)  # orjson's bytes hold their whole write buffer: keep a tight copy
        gzipped = compression.gzip_bytes(body, compression.KEPT_LEVEL) if compression.compressible(kept, body) else None
        entry = Entry(version, answer_families(request), status, kept, body, time.monotonic(), gzipped,
                      getattr(request, "keep_seconds", None))
        if entry.size > self.config.max_bytes:
            return
        with self._lock:
            if key in self._entries:
                self._drop(key)
            self._entries[key] = entry
            self._bytes += entry.size
            while len(self._entries) > self.config.max_entries or self._bytes > self.config.max_bytes:
                self._drop(next(iter(self._entries)))

    def close(self) -> None:
        if self._reader:
            self._reader.close()
        self.clear()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def stats(self) -> dict:
        with self._lock:
            return {"entries": len(self._entries), "bytes": self._bytes, "hits": self.hits, "misses": self.misses}

    def _drop_built_from(self, families: set[int]) -> None:
        """Drop this process's entries built from any of these families (the others stay valid)."""
        with self._lock:
            for key in [key for key, entry in self._entries.items() if families.intersection(entry.families)]:
                self._drop(key)

    def _expired(self, entry: Entry) -> bool:
        ttl, own = self.config.ttl_seconds, entry.keep_seconds
        if not ttl and not own:  # the usual case: kept until a write makes it stale
            return False
        limit = min(ttl, own) if ttl and own else ttl or own
        return time.monotonic() - entry.stored_at > limit

    def _drop(self, key: tuple) -> None:
        entry = self._entries.pop(key)
        self._bytes -= entry.size
