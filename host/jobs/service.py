"""Background jobs, a kernel service: `app.jobs`. Work that runs once per site, whatever the number of
processes and machines serving it, with leases kept in the database.

A plugin declares its jobs with the `register_jobs` hook:

    from host.jobs import Job

    @hookimpl
    def register_jobs(app):
        return [Job("library.remind", send_reminders, every=3600),   # periodic: once an hour, site-wide
                Job("library.import", import_catalogue)]               # queued: runs when enqueued

and queues work with `app.jobs.enqueue("library.import", {"url": url}, session=request.session)`.
Each job's function receives a `JobContext` (`context.app`, `context.payload`, `context.stopping`).

Every job is a row of the `jobs` table. A worker (one thread per `sitehost serve` process, started on
`serve_started` and stopped on `shutdown`) claims due rows: on PostgreSQL with
`SELECT ... FOR UPDATE SKIP LOCKED` and a conditional UPDATE, on SQLite with the conditional UPDATE
alone (the database's write lock serialises the processes of one server). A claimed row carries its
holder and a lease expiry that the worker renews while the job runs. A row whose lease expired (its
process died or hung) is claimed again; while a lease holds, nobody else takes the row. So a queued job
runs once, and again only when the node running it was lost before it finished. A periodic job has one
row that is never finished: each run moves its `run_at` one interval on.

Why not procrastinate: it needs PostgreSQL (the site's default database is SQLite, which must keep
working as today), its own worker process and an asyncio stack; a table and two statements here do
what the site needs with the engine it already has.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import socket
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from marshmallow import Schema, fields, validate
from sqlalchemy import (Column, DateTime, Index, Integer, MetaData, String, Table, Text, and_, delete, or_, select,
                        update)

from ..config import checked_table
from ..db import insert_if_absent
from ..stash import JOBS_SERVICE as JOBS_SERVICE  # kept in host.stash (host.app reads it there)

log = logging.getLogger("sitehost.jobs")

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
NAME_LENGTH = 100
KEY_LENGTH = 200
ERROR_LENGTH = 2000
PAYLOAD_LIMIT = 64 * 1024  # bytes of JSON: a job carries ids and small values, never a file
KEEP_FINISHED = datetime.timedelta(days=7)  # finished queued jobs are shown this long, then removed

DEFAULTS: dict[str, Any] = {"poll_seconds": 1.0, "lease_seconds": 30.0, "concurrency": 4, "max_attempts": 5}


class JobSettingsSchema(Schema):
    """`[jobs]`: how often the worker looks for due jobs, and how long a lease lasts."""

    poll_seconds = fields.Float(validate=validate.Range(0.05, 3600, error="allowed: 0.05 to 3600 seconds"),
                                metadata={"description": "How often each serving process looks for due jobs."})
    lease_seconds = fields.Float(validate=validate.Range(1, 86400, error="allowed: 1 to 86,400 seconds"),
                                 metadata={"description": "How long a claimed job is its node's: renewed every "
                                                          "third of it while the job runs; a job whose node "
                                                          "died is taken again once it expired."})
    concurrency = fields.Integer(strict=True, validate=validate.Range(1, 64, error="allowed: 1 to 64"),
                                 metadata={"description": "Jobs one serving process runs at the same time."})
    max_attempts = fields.Integer(strict=True, validate=validate.Range(1, 100, error="allowed: 1 to 100"),
                                  metadata={"description": "Runs of a queued job that failed (raised) before it "
                                                           "is marked failed; waits double between them."})


@dataclass(frozen=True)
class JobSettings:
    poll_seconds: float = DEFAULTS["poll_seconds"]
    lease_seconds: float = DEFAULTS["lease_seconds"]
    concurrency: int = DEFAULTS["concurrency"]
    max_attempts: int = DEFAULTS["max_attempts"]


def load_job_settings(table: Any, environment: dict[str, tuple[str, str]] | None = None) -> JobSettings:
    """JobSettings from the `[jobs]` table; one ConfigError naming every bad key."""
    return JobSettings(**{**DEFAULTS, **checked_table(JobSettingsSchema(), table, "jobs", environment)})


@dataclass(frozen=True)
class Job:
    """A job a plugin declares (hook `register_jobs`).

    `name`: unique on the site, prefixed with the plugin's name ("backup.create").
    `run(context)`: does the work; raising counts as a failed attempt (retried for a queued job,
    logged for a periodic one). `every`: seconds between runs of a periodic job (None: a queued job,
    run when enqueued). `lease_seconds`: this job's lease when it differs from `[jobs] lease_seconds`.
    """

    name: str
    run: Callable[["JobContext"], Any]
    every: float | None = None
    lease_seconds: float | None = None

    def __post_init__(self):
        if not self.name or len(self.name) > NAME_LENGTH:
            raise ValueError(f"job name must be 1 to {NAME_LENGTH} characters: {self.name!r}")
        if self.every is not None and self.every <= 0:
            raise ValueError(f"job {self.name}: every must be a positive number of seconds")


class JobInterrupted(Exception):
    """Raised by `context.check()` when the process stops: the job goes back to the queue at once."""


@dataclass
class JobContext:
    """What a running job receives: the app, its payload, and the stop signal of its process."""

    app: Any
    name: str
    job_id: int
    payload: dict[str, Any]
    attempt: int
    stopping: threading.Event = field(repr=False)

    def check(self) -> None:
        """Raise JobInterrupted when the server is stopping (call it between steps of a long job)."""
        if self.stopping.is_set():
            raise JobInterrupted(f"job {self.name} {self.job_id} interrupted: the server is stopping")


def define_job_tables(metadata: MetaData) -> Table:
    return Table(
        "jobs", metadata,
        Column("id", Integer, primary_key=True),
        Column("name", String(NAME_LENGTH), nullable=False),
        # A periodic job's row has key "every:<name>"; a queued job may carry a key to be one at a time
        # (a second enqueue with a key still queued or running is refused). Cleared when it finishes.
        Column("key", String(KEY_LENGTH), nullable=True, unique=True),
        Column("payload", Text, nullable=False, default="{}"),
        Column("state", String(16), nullable=False),  # queued | running | done | failed
        Column("run_at", DateTime, nullable=False),  # naive UTC: due from then on
        Column("holder", String(200), nullable=True),
        Column("lease_until", DateTime, nullable=True),
        Column("attempts", Integer, nullable=False, default=0),
        Column("last_error", Text, nullable=False, default=""),
        Column("created_at", DateTime, nullable=False),
        Column("started_at", DateTime, nullable=True),
        Column("finished_at", DateTime, nullable=True),
        Index("jobs_due", "state", "run_at"),
        sqlite_autoincrement=True,
    )


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def periodic_key(name: str) -> str:
    return f"every:{name}"


@dataclass
class StartedJob:
    """A job `app.jobs.start` claimed and runs in a thread of this process."""

    id: int
    thread: threading.Thread | None  # None: another process's worker claimed it first and runs it

    def join(self, timeout: float | None = None) -> bool:
        """Wait for it at most `timeout` seconds; True when it finished here."""
        if self.thread is None:
            return False
        self.thread.join(timeout)
        return not self.thread.is_alive()


class JobService:
    """`app.jobs`: enqueue work, look at it, and (in a serving process) run what is due."""

    def __init__(self, app, settings: JobSettings, table: Table):
        self.app = app
        self.settings = settings
        self.table = table
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.stopping = threading.Event()
        self._wake = threading.Event()
        self._worker: threading.Thread | None = None
        self._running: dict[int, tuple[Job, threading.Thread]] = {}
        self._running_lock = threading.Lock()
        self._declared: dict[str, Job] | None = None

    # --- declarations --------------------------------------------------------------------

    @property
    def declared(self) -> dict[str, Job]:
        """{name: Job} of every enabled plugin (read on first use, after every plugin started)."""
        if self._declared is None:
            found: dict[str, Job] = {}
            for result in self.app.hook.register_jobs(app=self.app):
                for job in result or []:
                    if not isinstance(job, Job):
                        raise TypeError(f"register_jobs must return host.jobs.Job items, not {job!r}")
                    if job.name in found:
                        raise ValueError(f"job {job.name!r} is declared twice")
                    found[job.name] = job
            self._declared = found
        return self._declared

    def job(self, name: str) -> Job:
        try:
            return self.declared[name]
        except KeyError:
            raise ValueError(f"no job named {name!r} is declared by an enabled plugin") from None

    def lease_of(self, job: Job) -> datetime.timedelta:
        return datetime.timedelta(seconds=job.lease_seconds or self.settings.lease_seconds)

    # --- queueing ------------------------------------------------------------------------

    def enqueue(self, name: str, payload: dict[str, Any] | None = None, run_at: datetime.datetime | None = None,
                key: str | None = None, session=None) -> int | None:
        """Queue job `name` with `payload` (JSON), due at `run_at` (naive or aware UTC; None: now).

        With `session`, the row is written in that session's transaction (it exists exactly when the
        caller's writes commit). With `key`, the job is one at a time: None is answered, and nothing
        queued, while a job with that key is still queued or running. Returns the job's id.
        """
        job = self.job(name)
        if job.every is not None:
            raise ValueError(f"job {name!r} is periodic; it cannot be enqueued")
        text = json.dumps(payload or {}, separators=(",", ":"))
        if len(text.encode("utf-8")) > PAYLOAD_LIMIT:
            raise ValueError(f"job {name!r}: the payload is larger than {PAYLOAD_LIMIT:,} bytes")
        if run_at is not None and run_at.tzinfo is not None:
            run_at = run_at.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        now = utcnow()
        values = {"name": name, "key": key[:KEY_LENGTH] if key else None, "payload": text, "state": QUEUED,
                  "run_at": run_at or now, "attempts": 0, "last_error": "", "created_at": now}
        if session is not None:
            found = self._insert(session, values)
        else:
            with self.app.db.session(write=True) as own, own.begin():
                found = self._insert(own, values)
        if found is not None and session is None:
            self._wake.set()
        return found

    def _insert(self, session, values: dict[str, Any]) -> int | None:
        statement = insert_if_absent(session, self.table).values(**values).returning(self.table.c.id)
        return session.execute(statement).scalar()

    def start(self, name: str, payload: dict[str, Any] | None = None, key: str | None = None) -> StartedJob | None:
        """Queue job `name` and run it now in a thread of this process (a request that waits for it a
        little); None when `key` is taken. Another node never takes it while this one's lease holds."""
        job_id = self.enqueue(name, payload, key=key)
        return None if job_id is None else self.run_here(job_id)

    def run_here(self, job_id: int) -> StartedJob:
        """Claim queued job `job_id` (enqueued in the caller's committed transaction) and run it in a
        thread of this process; when a worker took it first, it runs there and the thread is empty."""
        claimed = self._claim(job_id)
        if claimed is None:  # a worker of this or another process took it first: it runs there
            return StartedJob(job_id, None)
        return StartedJob(job_id, self._launch(claimed))

    def cancel(self, job_id: int) -> bool:
        """Remove a queued job that nobody runs yet; True when it was removed."""
        with self.app.db.session(write=True) as session, session.begin():
            return session.execute(delete(self.table).where(
                self.table.c.id == job_id, self.table.c.state == QUEUED)).rowcount == 1

    def run_soon(self, name: str) -> None:
        """Make periodic job `name` due now (an operator's "run now"); a worker takes it at its next look."""
        with self.app.db.session(write=True) as session, session.begin():
            session.execute(update(self.table).where(self.table.c.key == periodic_key(name),
                                                     self.table.c.state == QUEUED).values(run_at=utcnow()))
        self._wake.set()

    # --- looking -------------------------------------------------------------------------

    def get(self, job_id: int) -> dict[str, Any] | None:
        with self.app.db.session() as session:
            row = session.execute(select(self.table).where(self.table.c.id == job_id)).mappings().first()
        return None if row is None else self._described(row)

    def by_key(self, key: str) -> dict[str, Any] | None:
        """The queued or running job holding `key`, or None."""
        with self.app.db.session() as session:
            row = session.execute(select(self.table).where(self.table.c.key == key)).mappings().first()
        return None if row is None else self._described(row)

    def listing(self, limit: int = 100) -> list[dict[str, Any]]:
        """Periodic jobs, then the newest other jobs (`sitehost jobs list`)."""
        with self.app.db.session() as session:
            rows = session.execute(select(self.table).order_by(
                self.table.c.key.like("every:%").desc(), self.table.c.id.desc()).limit(limit)).mappings().all()
        return [self._described(row) for row in rows]

    def _described(self, row) -> dict[str, Any]:
        found = dict(row)
        found["payload"] = json.loads(found["payload"] or "{}")
        found["leased"] = (found["state"] == RUNNING and found["lease_until"] is not None
                           and found["lease_until"] > utcnow())
        found["periodic"] = bool(found["key"] and found["key"].startswith("every:"))
        return found

    # --- claiming and running ------------------------------------------------------------

    def ensure_periodic_rows(self) -> None:
        """One row per declared periodic job (due now when new); two processes may do it at once."""
        now = utcnow()
        with self.app.db.session(write=True) as session, session.begin():
            for job in self.declared.values():
                if job.every is None:
                    continue
                session.execute(insert_if_absent(session, self.table).values(
                    name=job.name, key=periodic_key(job.name), payload="{}", state=QUEUED, run_at=now, attempts=0,
                    last_error="", created_at=now))

    def _due(self, now: datetime.datetime):
        table = self.table
        return or_(and_(table.c.state == QUEUED, table.c.run_at <= now),
                   and_(table.c.state == RUNNING, table.c.lease_until < now))

    def _claim(self, job_id: int | None = None, names: list[str] | None = None) -> dict[str, Any] | None:
        """Take one due job this process knows (or job `job_id`, or one of `names`) under a fresh lease;
        its row, or None.

        A plain read looks first, so an idle site's polls never take SQLite's write lock; the write
        transaction then picks again (FOR UPDATE SKIP LOCKED on PostgreSQL: rows another node is
        claiming are passed over) and takes its row with a conditional UPDATE, which decides on SQLite.
        """
        table = self.table
        names = [name for name in (names or self.declared) if name in self.declared]
        if not names:
            return None
        now = utcnow()
        due = self._due(now)
        query = select(table.c.id, table.c.name).where(due, table.c.name.in_(names))
        if job_id is not None:
            query = query.where(table.c.id == job_id)
        query = query.order_by(table.c.run_at, table.c.id).limit(1)
        with self.app.db.session() as session:
            if session.execute(query).first() is None:
                return None
        with self.app.db.session(write=True) as session, session.begin():
            found = session.execute(query.with_for_update(skip_locked=True)).first()
            if found is None:
                return None
            lease_until = now + self.lease_of(self.declared[found.name])
            taken = session.execute(update(table).where(table.c.id == found.id, due).values(
                state=RUNNING, holder=self.holder, lease_until=lease_until, started_at=now,
                attempts=table.c.attempts + 1))
            if taken.rowcount != 1:
                return None
            row = session.execute(select(table).where(table.c.id == found.id)).mappings().one()
        return dict(row)

    def _launch(self, row: dict[str, Any]) -> threading.Thread:
        job = self.declared[row["name"]]
        thread = threading.Thread(target=self._run, args=(job, row), name=f"job-{row['name']}-{row['id']}",
                                  daemon=True)
        with self._running_lock:
            self._running[row["id"]] = (job, thread)
        thread.start()
        return thread

    def _run(self, job: Job, row: dict[str, Any]) -> None:
        context = JobContext(self.app, job.name, row["id"], json.loads(row["payload"] or "{}"), row["attempts"],
                             self.stopping)
        try:
            job.run(context)
        except JobInterrupted:
            self._finish(job, row, interrupted=True)
        except Exception as error:  # recorded on the row; a queued job is retried, a periodic one runs again
            log.exception("job %s %d failed (attempt %d)", job.name, row["id"], row["attempts"])
            self._finish(job, row, error=f"{type(error).__name__}: {error}")
        else:
            self._finish(job, row)
        finally:
            with self._running_lock:
                self._running.pop(row["id"], None)
            self._wake.set()

    def _finish(self, job: Job, row: dict[str, Any], error: str = "", interrupted: bool = False) -> None:
        """Record the outcome, only while this process still holds the row (else another took it over)."""
        table = self.table
        now = utcnow()
        values: dict[str, Any] = {"holder": None, "lease_until": None, "finished_at": now,
                                  "last_error": error[:ERROR_LENGTH]}
        if interrupted:  # back to the queue, due at once, the attempt not counted
            values.update(state=QUEUED, run_at=now, attempts=table.c.attempts - 1, finished_at=None, last_error="")
        elif job.every is not None:
            started = row["started_at"] or now
            values.update(state=QUEUED, run_at=max(started + datetime.timedelta(seconds=job.every), now))
        elif error and row["attempts"] < self.settings.max_attempts:
            delay = self.settings.poll_seconds * 2 ** row["attempts"]
            values.update(state=QUEUED, run_at=now + datetime.timedelta(seconds=min(delay, 3600)), finished_at=None)
        else:
            values.update(state=FAILED if error else DONE, key=None)
        try:
            with self.app.db.session(write=True) as session, session.begin():
                kept = session.execute(update(table).where(table.c.id == row["id"], table.c.holder == self.holder,
                                                           table.c.state == RUNNING).values(**values)).rowcount
        except Exception:  # the lease expires and another process runs it again
            log.exception("job %s %d: its outcome could not be recorded", job.name, row["id"])
            return
        if not kept:
            log.warning("job %s %d finished after its lease was lost (another process took it over)",
                        job.name, row["id"])

    def renew_leases(self) -> None:
        """Extend the lease of every job this process runs (the worker calls it every third of a lease)."""
        with self._running_lock:
            running = [(job_id, job) for job_id, (job, _thread) in self._running.items()]
        if not running:
            return
        now = utcnow()
        with self.app.db.session(write=True) as session, session.begin():
            for job_id, job in running:
                session.execute(update(self.table).where(
                    self.table.c.id == job_id, self.table.c.holder == self.holder,
                    self.table.c.state == RUNNING).values(lease_until=now + self.lease_of(job)))

    def run_due(self, limit: int | None = None, wait: bool = True, names: list[str] | None = None) -> int:
        """Claim and run due jobs (only `names`, when given) until none is left, at most `limit`; how many
        ran. `sitehost jobs run` runs them all; a plugin runs its own now when a reader must see their
        writes (the spam filter's history)."""
        if names is None:
            self.ensure_periodic_rows()
        started: list[threading.Thread] = []
        while limit is None or len(started) < limit:
            row = self._claim(names=names)
            if row is None:
                break
            started.append(self._launch(row))
            if wait:
                self._wait_renewing(started[-1])
        return len(started)

    def _wait_renewing(self, thread: threading.Thread) -> None:
        while thread.is_alive():
            thread.join(self.renew_every())
            if thread.is_alive():
                self.renew_leases()

    def renew_every(self) -> float:
        shortest = min([job.lease_seconds or self.settings.lease_seconds for job in self.declared.values()]
                       or [self.settings.lease_seconds])
        return max(shortest / 3, 0.05)

    # --- the worker of a serving process -------------------------------------------------

    def start_worker(self) -> None:
        if self._worker is not None or not self.declared:
            return
        self.ensure_periodic_rows()
        self._worker = threading.Thread(target=self._work, name="jobs-worker", daemon=True)
        self._worker.start()

    def _work(self) -> None:
        renewed = utcnow()
        while not self.stopping.is_set():
            try:
                if (utcnow() - renewed).total_seconds() >= self.renew_every():
                    self.renew_leases()
                    renewed = utcnow()
                while not self.stopping.is_set() and self._free_slots() > 0:
                    row = self._claim()
                    if row is None:
                        break
                    self._launch(row)
            except Exception:  # the worker must outlive a database hiccup; the next look tries again
                log.exception("jobs: looking for due jobs failed")
            self._wake.wait(min(self.settings.poll_seconds, self.renew_every()))
            self._wake.clear()

    def _free_slots(self) -> int:
        with self._running_lock:
            return self.settings.concurrency - len(self._running)

    def stop(self, timeout: float = 10) -> None:
        """Stop claiming, tell running jobs to stop (context.check), wait for them a little."""
        self.stopping.set()
        self._wake.set()
        if self._worker is not None:
            self._worker.join(timeout)
            self._worker = None
        with self._running_lock:
            threads = [thread for _job, thread in self._running.values()]
        for thread in threads:
            thread.join(timeout)



def prune_finished(context: JobContext) -> None:
    """The host's own periodic job: forget finished queued jobs after KEEP_FINISHED."""
    service = context.app.jobs
    table = service.table
    with context.app.db.session(write=True) as session, session.begin():
        session.execute(delete(table).where(table.c.state.in_([DONE, FAILED]),
                                            table.c.finished_at < utcnow() - KEEP_FINISHED))
