"""Backups that run in the server: asked for over REST or due by the schedule, one at a time per site.

A database lease (`backup_lease`) decides which process runs a backup: it is taken with one
conditional UPDATE (or the first INSERT), renewed while the backup reports progress, and
released at the end; a process that dies leaves it to expire. The job row (`backup_jobs`)
carries the progress that GET backup/v1/jobs/<id> shows, whichever worker answers.
"""

from __future__ import annotations

import datetime
import logging
import os
import socket
import threading
import time
import uuid

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from host.stash import StashKey

from . import shelf
from .create import create_backup
from .progress import Reporter
from .settings import current_schedule, settings_of
from .tables import jobs_table, lease_table

log = logging.getLogger("sitehost.backup")

LEASE_NAME = "backup"
LEASE_SECONDS = 120
REPORT_EVERY = 0.5
SCHEDULER_TICK = 30.0


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Interrupted(Exception):
    """The server is stopping: the backup in progress is abandoned (its partial file removed)."""


class Runtime:
    """Per-app state: the holder name of this process, the stop signal and running threads."""

    def __init__(self):
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.scheduler: threading.Thread | None = None


RUNTIME = StashKey[Runtime]("backup.runtime")


def runtime_of(app) -> Runtime:
    return app.stash.setdefault_by(RUNTIME, Runtime)


# --- the lease -------------------------------------------------------------------------

def take_lease(app, holder: str, seconds: int = LEASE_SECONDS) -> bool:
    """True when `holder` now holds the backup lease (free, expired, or already its own)."""
    lease = lease_table(app)
    now = utcnow()
    expires = now + datetime.timedelta(seconds=seconds)
    with app.db.session(write=True) as session, session.begin():
        taken = session.execute(
            update(lease).where(lease.c.name == LEASE_NAME, (lease.c.expires < now) | (lease.c.holder == holder))
            .values(holder=holder, expires=expires)).rowcount
        if taken == 1:
            return True
        if session.execute(select(lease.c.name).where(lease.c.name == LEASE_NAME)).first() is not None:
            return False
    try:
        with app.db.session(write=True) as session, session.begin():
            session.execute(insert(lease).values(name=LEASE_NAME, holder=holder, expires=expires))
        return True
    except IntegrityError:  # another process inserted it at the same moment
        return False


def release_lease(app, holder: str) -> None:
    lease = lease_table(app)
    with app.db.session(write=True) as session, session.begin():
        session.execute(update(lease).where(lease.c.name == LEASE_NAME, lease.c.holder == holder)
                        .values(expires=utcnow() - datetime.timedelta(seconds=1)))


def lease_holder(app) -> tuple[str, datetime.datetime] | None:
    """The live holder of the lease and until when, or None when nobody holds it."""
    lease = lease_table(app)
    with app.db.session() as session:
        row = session.execute(select(lease.c.holder, lease.c.expires).where(lease.c.name == LEASE_NAME)).first()
    if row is None or row.expires < utcnow():
        return None
    return row.holder, row.expires


# --- jobs ------------------------------------------------------------------------------

class JobReporter(Reporter):
    """Writes a job's progress to its row (at most twice a second) and keeps the lease alive."""

    def __init__(self, app, job_id: int, holder: str, stopping: threading.Event):
        self.app = app
        self.job_id = job_id
        self.holder = holder
        self.stopping = stopping
        self.stage_name = ""
        self.done = 0
        self.total = 0
        self.written_at = 0.0

    def stage(self, name: str, total: int, unit: str = "rows") -> None:
        self.stage_name, self.total, self.done = name, total, 0
        self.flush()

    def advance(self, amount: int) -> None:
        if self.stopping.is_set():
            raise Interrupted("the server is stopping")
        self.done += amount
        if time.monotonic() - self.written_at >= REPORT_EVERY:
            self.flush()

    def flush(self) -> None:
        self.written_at = time.monotonic()
        jobs = jobs_table(self.app)
        with self.app.db.session(write=True) as session, session.begin():
            session.execute(update(jobs).where(jobs.c.id == self.job_id)
                            .values(stage=self.stage_name, done=self.done, total=self.total))
        take_lease(self.app, self.holder)


def new_job(app, trigger: str, user_id: int, holder: str) -> int:
    jobs = jobs_table(app)
    with app.db.session(write=True) as session, session.begin():
        return session.execute(insert(jobs).values(
            trigger=trigger, status="running", stage="", done=0, total=0, archive="", message="",
            user_id=user_id, holder=holder, created=utcnow())).inserted_primary_key[0]


def finish_job(app, job_id: int, status: str, archive: str = "", message: str = "") -> None:
    jobs = jobs_table(app)
    with app.db.session(write=True) as session, session.begin():
        values = {"status": status, "archive": archive, "message": message[:2000], "finished": utcnow()}
        if status == "done":
            values["stage"] = "finished"
        session.execute(update(jobs).where(jobs.c.id == job_id).values(**values))


def run_job(app, job_id: int, holder: str) -> None:
    """Make the backup of job `job_id` (the lease is held), record the outcome, release the lease."""
    runtime = runtime_of(app)
    settings = settings_of(app)
    try:
        result = create_backup(app, settings.directory, JobReporter(app, job_id, holder, runtime.stopping))
        shelf.publish(app, result.path, result.manifest)
        removed = shelf.apply_retention(app, settings.keep)
        note = f"; removed {len(removed)} older archive(s) (keep = {settings.keep})" if removed else ""
        finish_job(app, job_id, "done", result.path.name,
                   f"{sum(t['rows'] for t in result.manifest['tables'])} rows in "
                   f"{len(result.manifest['tables'])} tables, {result.manifest['uploads']['count']} uploads{note}")
        log.info("backup %s written (job %d)", result.path.name, job_id)
    except Interrupted:
        finish_job(app, job_id, "failed", message="interrupted: the server stopped before the backup was complete")
    except Exception as error:  # recorded for the operator; the partial archive is already removed
        log.exception("backup job %d failed", job_id)
        finish_job(app, job_id, "failed", message=f"{type(error).__name__}: {error}")
    finally:
        release_lease(app, holder)


def start_job(app, trigger: str, user_id: int) -> tuple[int, threading.Thread] | None:
    """Take the lease and run a backup in a background thread: (job id, thread), or None when one
    is already running."""
    runtime = runtime_of(app)
    holder = f"{runtime.holder}:{uuid.uuid4().hex[:6]}"
    if not take_lease(app, holder):
        return None
    try:
        job_id = new_job(app, trigger, user_id, holder)
    except BaseException:
        release_lease(app, holder)
        raise
    thread = threading.Thread(target=run_job, args=(app, job_id, holder), name=f"sitehost-backup-{job_id}",
                              daemon=True)
    runtime.threads = [alive for alive in runtime.threads if alive.is_alive()] + [thread]
    thread.start()
    return job_id, thread


def run_verify(app, job_id: int, holder: str, name: str) -> None:
    """Check archive `name` as a restore would (its checksums, and that this site's plugins define its
    tables); the verdict is the job's status (done: it would restore) and message."""
    from .archive import ArchiveError
    from .catalog import build_catalog
    from .progress import StageAdapter
    from .restore import RestoreRefused, check_archive

    runtime = runtime_of(app)
    try:
        reporter = JobReporter(app, job_id, holder, runtime.stopping)
        with shelf.local_copy(app, name) as path:
            reporter.stage("verify", path.stat().st_size, "bytes")
            verified = check_archive(path, build_catalog(app), StageAdapter(reporter))
        rows = sum(int(table.get("rows", 0)) for table in verified.manifest["tables"])
        finish_job(app, job_id, "done", name, f"OK: {verified.checked_tables} tables ({rows:,} rows) and "
                                              f"{verified.checked_files} uploads match their checksums")
    except Interrupted:
        finish_job(app, job_id, "failed", name, "interrupted: the server stopped before the check was complete")
    except (ArchiveError, RestoreRefused, OSError) as error:
        finish_job(app, job_id, "failed", name, f"{'damaged' if isinstance(error, ArchiveError) else 'refused'}: "
                                                f"{error}")
    except Exception as error:  # recorded for the operator
        log.exception("verify job %d failed", job_id)
        finish_job(app, job_id, "failed", name, f"{type(error).__name__}: {error}")
    finally:
        release_lease(app, holder)


def start_verify_job(app, name: str, user_id: int) -> tuple[int, threading.Thread] | None:
    """Verify archive `name` in a background thread, under the backup lease (one long operation at a
    time): (job id, thread), or None while another backup or check runs."""
    runtime = runtime_of(app)
    holder = f"{runtime.holder}:{uuid.uuid4().hex[:6]}"
    if not take_lease(app, holder):
        return None
    try:
        jobs = jobs_table(app)
        job_id = new_job(app, "verify", user_id, holder)
        with app.db.session(write=True) as session, session.begin():
            session.execute(update(jobs).where(jobs.c.id == job_id).values(archive=name))
    except BaseException:
        release_lease(app, holder)
        raise
    thread = threading.Thread(target=run_verify, args=(app, job_id, holder, name), name=f"sitehost-verify-{job_id}",
                              daemon=True)
    runtime.threads = [alive for alive in runtime.threads if alive.is_alive()] + [thread]
    thread.start()
    return job_id, thread


def job_state(row, holder_alive: bool) -> str:
    """`running` only while the process that runs it still holds the lease; else `interrupted`."""
    if row.status == "running" and not holder_alive:
        return "interrupted"
    return row.status


# --- the schedule ----------------------------------------------------------------------

def last_scheduled(app) -> datetime.datetime | None:
    jobs = jobs_table(app)
    with app.db.session() as session:
        created = session.execute(select(jobs.c.created).where(jobs.c.trigger == "schedule")
                                  .order_by(jobs.c.id.desc()).limit(1)).scalar()
    return created.replace(tzinfo=datetime.timezone.utc) if created is not None else None


def run_due_backup(app, now: datetime.datetime | None = None) -> int | None:
    """One scheduler tick: when a scheduled backup is due and the lease is free, run it here (blocking).

    Returns the job id, or None when nothing was due or another process holds the lease. The
    due time is checked again once the lease is held, so two workers never run the same one.
    """
    schedule = current_schedule(app)
    if schedule is None:
        return None
    now = now or datetime.datetime.now(datetime.timezone.utc)
    zone = app.timezone()
    if schedule.next_run(last_scheduled(app), now, zone) > now:
        return None
    runtime = runtime_of(app)
    holder = f"{runtime.holder}:schedule"
    if not take_lease(app, holder):
        return None
    try:
        if schedule.next_run(last_scheduled(app), now, zone) > now:
            return None
        job_id = new_job(app, "schedule", 0, holder)
    except BaseException:
        release_lease(app, holder)
        raise
    run_job(app, job_id, holder)
    return job_id


def scheduler_loop(app) -> None:
    runtime = runtime_of(app)
    while not runtime.stopping.is_set():
        try:
            run_due_backup(app)
        except Exception:  # a failed tick is logged; the next one tries again
            log.exception("scheduled backup check failed")
        runtime.stopping.wait(SCHEDULER_TICK)


def start_scheduler(app) -> None:
    """Inside `sitehost serve` (hook serve_started): check the schedule every 30 seconds.

    It runs even without a schedule: one set later in the admin area takes effect without a restart.
    """
    settings = settings_of(app)
    runtime = runtime_of(app)
    if runtime.scheduler is not None:
        return
    runtime.scheduler = threading.Thread(target=scheduler_loop, args=(app,), name="sitehost-backup-scheduler",
                                         daemon=True)
    runtime.scheduler.start()
    schedule = current_schedule(app)
    if schedule is not None:
        log.info("backups scheduled %s into %s (keeping %s)", schedule.describe(), settings.directory,
                 settings.keep or "all")


def stop(app, wait: float = 10.0) -> None:
    runtime = app.stash.get(RUNTIME)
    if runtime is None:
        return
    runtime.stopping.set()
    for thread in [*runtime.threads, runtime.scheduler]:
        if thread is not None and thread.is_alive():
            thread.join(wait)
