"""Backups that run in the server: asked for over REST or due by the schedule, one at a time per site.

Each backup and each check of an archive is a queued job of the host (`app.jobs`, host.jobs): its
lease in the database decides which process runs it, is renewed while it runs, and a job whose
process died is run again by another once the lease expired. The host job's key `backup` makes
them one at a time: a second backup is refused while one is queued or running. The schedule is the
periodic job `backup.schedule`. The backup's own row (`backup_jobs`) carries the progress that
GET backup/v1/jobs/<id> shows, whichever process answers; its `holder` names the host job.
"""

from __future__ import annotations

import datetime
import logging
import time

from sqlalchemy import insert, select, update

from host.jobs import Job, JobContext, JobInterrupted

from . import shelf
from .create import create_backup
from .progress import Reporter, StageAdapter
from .settings import current_schedule, settings_of
from .tables import jobs_table
from .restore import RestoreRefused, check_archive
from .catalog import build_catalog
from .archive import ArchiveError

log = logging.getLogger("sitehost.backup")

ONE_AT_A_TIME = "backup"  # the host job key every backup and check shares
REPORT_EVERY = 0.5
SCHEDULER_TICK = 30.0


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def declared_jobs() -> list[Job]:
    return [Job("backup.create", run_backup_job), Job("backup.verify", run_verify_job),
            Job("backup.schedule", check_schedule, every=SCHEDULER_TICK)]


def running_holder(app) -> str | None:
    """The `holder` of the backup job queued or running under a live lease now, or None."""
    found = app.jobs.by_key(ONE_AT_A_TIME)
    if found is None or (found["state"] == "running" and not found["leased"]):
        return None
    return holder_of(found["id"])


def holder_of(host_job_id: int) -> str:
    return f"job:{host_job_id}"


# --- jobs ------------------------------------------------------------------------------

class JobReporter(Reporter):
    """Writes a job's progress to its row (at most twice a second); stops the job when the server stops."""

    def __init__(self, app, job_id: int, context: JobContext):
        self.app = app
        self.job_id = job_id
        self.context = context
        self.stage_name = ""
        self.done = 0
        self.total = 0
        self.written_at = 0.0

    def stage(self, name: str, total: int, unit: str = "rows") -> None:
        self.stage_name, self.total, self.done = name, total, 0
        self.flush()

    def advance(self, amount: int) -> None:
        self.context.check()
        self.done += amount
        if time.monotonic() - self.written_at >= REPORT_EVERY:
            self.flush()

    def flush(self) -> None:
        self.written_at = time.monotonic()
        jobs = jobs_table(self.app)
        with self.app.db.session(write=True) as session, session.begin():
            session.execute(update(jobs).where(jobs.c.id == self.job_id)
                            .values(stage=self.stage_name, done=self.done, total=self.total))


def new_job(app, session, trigger: str, user_id: int, archive: str = "") -> int:
    jobs = jobs_table(app)
    return session.execute(insert(jobs).values(
        trigger=trigger, status="running", stage="", done=0, total=0, archive=archive, message="",
        user_id=user_id, holder="", created=utcnow())).inserted_primary_key[0]


def finish_job(app, job_id: int, status: str, archive: str = "", message: str = "") -> None:
    jobs = jobs_table(app)
    with app.db.session(write=True) as session, session.begin():
        values = {"status": status, "archive": archive, "message": message[:2000], "finished": utcnow()}
        if status == "done":
            values["stage"] = "finished"
        session.execute(update(jobs).where(jobs.c.id == job_id).values(**values))


class _KeyTaken(Exception):
    """Another backup or check is queued or running: the new job row is rolled back."""


def queue_job(app, host_job: str, trigger: str, user_id: int, archive: str = "") -> tuple[int, int] | None:
    """Write the backup's row and queue its host job in one transaction: (row id, host job id), or None
    while another backup or check is queued or running (nothing written)."""
    jobs = jobs_table(app)
    try:
        with app.db.session(write=True) as session, session.begin():
            job_id = new_job(app, session, trigger, user_id, archive)
            host_job_id = app.jobs.enqueue(host_job, {"job": job_id}, key=ONE_AT_A_TIME, session=session)
            if host_job_id is None:
                raise _KeyTaken
            session.execute(update(jobs).where(jobs.c.id == job_id).values(holder=holder_of(host_job_id)))
    except _KeyTaken:
        return None
    return job_id, host_job_id


def start_job(app, trigger: str, user_id: int):
    """Queue a backup and start it in a thread of this process: (row id, host.jobs.StartedJob), or None
    when one is already queued or running."""
    queued = queue_job(app, "backup.create", trigger, user_id)
    if queued is None:
        return None
    return queued[0], app.jobs.run_here(queued[1])


def start_verify_job(app, name: str, user_id: int):
    """Check archive `name` in a thread of this process, one long operation at a time with backups:
    (row id, host.jobs.StartedJob), or None while another backup or check runs."""
    queued = queue_job(app, "backup.verify", "verify", user_id, archive=name)
    if queued is None:
        return None
    return queued[0], app.jobs.run_here(queued[1])


def _row(app, job_id: int):
    jobs = jobs_table(app)
    with app.db.session() as session:
        return session.execute(select(jobs).where(jobs.c.id == job_id)).first()


def _restart(app, job_id: int) -> None:
    """The run was interrupted: its row shows it waiting again (another process or the next start runs it)."""
    jobs = jobs_table(app)
    with app.db.session(write=True) as session, session.begin():
        session.execute(update(jobs).where(jobs.c.id == job_id).values(stage="", done=0, total=0))


def run_backup_job(context: JobContext) -> None:
    """Host job backup.create: make the backup of row `job`, record the outcome."""
    app, job_id = context.app, int(context.payload["job"])
    settings = settings_of(app)
    try:
        result = create_backup(app, settings.directory, JobReporter(app, job_id, context))
        shelf.publish(app, result.path, result.manifest)
        removed = shelf.apply_retention(app, settings.keep)
        note = f"; removed {len(removed)} older archive(s) (keep = {settings.keep})" if removed else ""
        finish_job(app, job_id, "done", result.path.name,
                   f"{sum(t['rows'] for t in result.manifest['tables'])} rows in "
                   f"{len(result.manifest['tables'])} tables, {result.manifest['uploads']['count']} uploads{note}")
        log.info("backup %s written (job %d)", result.path.name, job_id)
    except JobInterrupted:
        _restart(app, job_id)  # the partial archive is already removed; the host queues the job again
        raise
    except Exception as error:  # recorded for the operator; the partial archive is already removed
        log.exception("backup job %d failed", job_id)
        finish_job(app, job_id, "failed", message=f"{type(error).__name__}: {error}")


def run_verify_job(context: JobContext) -> None:
    """Host job backup.verify: check the archive of row `job` as a restore would (its checksums, and
    that this site's plugins define its tables); the verdict is the row's status (done: it would
    restore) and message."""
    app, job_id = context.app, int(context.payload["job"])
    name = _row(app, job_id).archive
    try:
        reporter = JobReporter(app, job_id, context)
        with shelf.local_copy(app, name) as path:
            reporter.stage("verify", path.stat().st_size, "bytes")
            verified = check_archive(path, build_catalog(app), StageAdapter(reporter))
        rows = sum(int(table.get("rows", 0)) for table in verified.manifest["tables"])
        finish_job(app, job_id, "done", name, f"OK: {verified.checked_tables} tables ({rows:,} rows) and "
                                              f"{verified.checked_files} uploads match their checksums")
    except JobInterrupted:
        _restart(app, job_id)
        raise
    except (ArchiveError, RestoreRefused, OSError) as error:
        finish_job(app, job_id, "failed", name, f"{'damaged' if isinstance(error, ArchiveError) else 'refused'}: "
                                                f"{error}")
    except Exception as error:  # recorded for the operator
        log.exception("verify job %d failed", job_id)
        finish_job(app, job_id, "failed", name, f"{type(error).__name__}: {error}")


def job_state(row, holder_alive: bool) -> str:
    """`running` only while its host job is queued or runs under a live lease; else `interrupted` (a
    process that died: another takes the job over once its lease expired)."""
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
    """One scheduler tick: when a scheduled backup is due and no other backup runs, make it here (blocking).

    Returns the backup's row id, or None when nothing was due or another backup is queued or running.
    The tick itself is the periodic host job `backup.schedule`, so one process of the site checks at a
    time, and the due time is read again by whoever checks next.
    """
    schedule = current_schedule(app)
    if schedule is None:
        return None
    now = now or datetime.datetime.now(datetime.timezone.utc)
    if schedule.next_run(last_scheduled(app), now, app.timezone()) > now:
        return None
    queued = queue_job(app, "backup.create", "schedule", 0)
    if queued is None:
        return None
    job_id, host_job_id = queued
    started = app.jobs.run_here(host_job_id)
    while not started.join(1.0) and started.thread is not None:
        app.jobs.renew_leases()
    return job_id


def check_schedule(context: JobContext) -> None:
    """Host job backup.schedule, every 30 seconds. It runs even without a schedule: one set later in
    the admin area takes effect without a restart."""
    run_due_backup(context.app)


def describe_schedule(app) -> None:
    """Inside `sitehost serve` (hook serve_started): say once what the schedule is."""
    schedule = current_schedule(app)
    if schedule is not None:
        settings = settings_of(app)
        log.info("backups scheduled %s into %s (keeping %s)", schedule.describe(), settings.directory,
                 settings.keep or "all")
