"""Backups in the admin area: the archives (download, verify), a backup now, the jobs' state and the schedule.

The page uses this plugin's own modules. A backup and a verification run as jobs in a background
thread (jobs.py, a host job, one at a time per site); the page waits a few seconds
for them, so a small site sees the outcome at once, and otherwise shows the running job, whose
state any worker reads from `backup_jobs`. Restoring replaces the whole site, so it stays a
command on the server; the page says which. Only holders of the plugin's own capability
(`backup_basic`, administrators) reach the page and its downloads.
"""

from __future__ import annotations

import datetime
from sqlalchemy import select

from host import PageAnswer
from host.admin import AdminRequest
from host.storage import ObjectInfo, serve_object

from . import archive as archives
from . import shelf
from .create import is_archive_name
from .jobs import job_state, last_scheduled, running_holder, start_job, start_verify_job
from .settings import MAX_EVERY_HOURS, current_schedule, settings_of, stored_schedule_text, store_schedule
from .tables import jobs_table

ACTIONS = ("create", "verify", "schedule")
DOWNLOAD = "download"
PER_PAGE = 20
JOBS_SHOWN = 10
WAIT_SECONDS = 5.0  # how long a POST waits for its job before showing it running
MAX_SCHEDULE = 40
KINDS = {"schedule": "scheduled", "rest": "asked for over REST", "admin": "made in the admin area"}


def backups_page(page: AdminRequest):
    first, _slash, rest = page.subpath.partition("/")
    if first == DOWNLOAD and rest and page.method == "GET":
        return download(page, rest)
    if page.subpath:
        notice(page, "no-page", "error")
        return PageAnswer("", 404)
    status = 200
    if page.method == "POST":
        status = {"create": create_now, "verify": verify, "schedule": change_schedule}[page.action](page)
    raw_page = page.query_text("paged", "1")
    number = int(raw_page) if raw_page.isdigit() and len(raw_page) < 7 else 0
    paths = list(reversed(shelf.stored_archives(page.app)))
    total_pages = max(1, -(-len(paths) // PER_PAGE))
    if not 1 <= number <= total_pages:
        notice(page, "past-the-end", "error", total_pages=total_pages)
        return PageAnswer(render(page, [], 1, total_pages), 400)
    shown = paths[(number - 1) * PER_PAGE: number * PER_PAGE]
    return PageAnswer(render(page, archive_rows(page, shown), number, total_pages), status)


# --- reading -------------------------------------------------------------------------------------

def archive_rows(page: AdminRequest, paths: list[ObjectInfo]) -> list[dict]:
    jobs = jobs_table(page.app)
    names = [path.key for path in paths]
    with page.app.db.session() as session:
        triggers = dict(session.execute(select(jobs.c.archive, jobs.c.trigger).where(
            jobs.c.archive.in_(names), jobs.c.trigger != "verify", jobs.c.status == "done")).all()) if names else {}
    rows = []
    for path in paths:
        row = {"name": path.key, "size": path.size, "created": "", "problem": "",
               "kind": KINDS.get(triggers.get(path.key, ""), "made on the command line"),
               "download": page.url(DOWNLOAD, path.key)}
        try:
            manifest = shelf.manifest_of(page.app, path.key)
            row["created"] = utc_text(str(manifest.get("created", "")))
        except archives.ArchiveError as error:
            row["problem"] = str(error)
        rows.append(row)
    return rows


def utc_text(stamp: str) -> str:
    """An ISO 8601 time as "YYYY-MM-DD HH:MM:SS" in UTC (the manifest's own text when it is not one)."""
    try:
        moment = datetime.datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def recent_jobs(page: AdminRequest) -> list[dict]:
    jobs = jobs_table(page.app)
    with page.app.db.session() as session:
        found = session.execute(select(jobs).order_by(jobs.c.id.desc()).limit(JOBS_SHOWN)).all()
    held = running_holder(page.app)
    rows = []
    for row in found:
        status = job_state(row, held is not None and held == row.holder)
        percent = int(100 * row.done / row.total) if row.total else (100 if status == "done" else 0)
        rows.append({"id": row.id, "status": status, "trigger": row.trigger, "stage": row.stage,
                     "percent": min(percent, 100), "archive": row.archive, "message": row.message,
                     "created": row.created.replace(microsecond=0).isoformat(sep=" ")})
    return rows


def human_size(size: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:,} {unit}" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1024
    return str(size)


def render(page: AdminRequest, rows: list[dict], number: int, total_pages: int):
    settings = settings_of(page.app)
    schedule = current_schedule(page.app)
    stored = stored_schedule_text(page.app)
    schedule_text = "" if schedule is None else (f"daily {schedule.at:%H:%M}" if schedule.kind == "daily"
                                                 else f"every {schedule.hours} hours")
    config = page.app.settings.config_file
    jobs = recent_jobs(page)
    next_run = ""
    if schedule is not None:
        zone = page.app.timezone()
        now = datetime.datetime.now(datetime.timezone.utc)
        due = schedule.next_run(last_scheduled(page.app), now, zone)
        next_run = "now" if due <= now else due.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    return page.render("backup_admin.html", rows=rows, jobs=jobs, human_size=human_size,
                       running=any(job["status"] == "running" for job in jobs), directory=shelf.where_kept(page.app),
                       keep=settings.keep, schedule=schedule, schedule_text=schedule_text,
                       next_run=next_run, schedule_from=("Chosen on this page." if stored is not None
                                      else "From [plugins.backup] schedule in sitehost.toml."),
                       zone=str(page.app.timezone()), max_hours=MAX_EVERY_HOURS,
                       restore_command=("sitehost " + (f"--config {config} " if config else "")
                                        + f"backup restore {settings.directory}/ARCHIVE --force"),
                       current=number, total_pages=total_pages, page_url=lambda n: page.url() + f"?paged={n}")


# --- downloading ---------------------------------------------------------------------------------

def download(page: AdminRequest, name: str):
    """The archive as an attachment, streamed from where it is kept (never read into memory)."""
    if shelf.find(page.app, name) is None:
        notice(page, "no-archive", "error")
        return PageAnswer("", 404)
    return serve_object(shelf.backups_area(page.app), name, "application/x-tar",
                        {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store",
                         "X-Content-Type-Options": "nosniff"})


# --- actions -------------------------------------------------------------------------------------

def create_now(page: AdminRequest) -> int:
    started = start_job(page.app, "admin", page.user.id)
    if started is None:
        notice(page, "busy", "error")
        return 409
    job_id, job = started
    job.join(WAIT_SECONDS)
    report_job(page, job_id, "Backup")
    return 200


def verify(page: AdminRequest) -> int:
    name = page.form.get("name", "")
    if shelf.find(page.app, name) is None:
        notice(page, "no-archive", "error")
        return 404 if is_archive_name(name) else 400
    started = start_verify_job(page.app, name, page.user.id)
    if started is None:
        notice(page, "busy", "error")
        return 409
    job_id, job = started
    job.join(WAIT_SECONDS)
    report_job(page, job_id, f"Verification of {name}")
    return 200


def notice(page: AdminRequest, done: str, kind: str = "success", **context) -> None:
    """A notice of this page, from templates/backup_notice.html."""
    page.notice(page.render("backup_notice.html", done=done, **context), kind)


def report_job(page: AdminRequest, job_id: int, what: str) -> None:
    job = next((job for job in recent_jobs(page) if job["id"] == job_id), None)
    if job is None or job["status"] == "running":
        notice(page, "running", what=what, job_id=job_id)
    elif job["status"] == "done":
        notice(page, "job-done", what=what, job_id=job_id, message=job["message"])
    else:
        notice(page, "job-failed", "error", what=what, job_id=job_id, message=job["message"])


def change_schedule(page: AdminRequest) -> int:
    text = " ".join(page.form.get("schedule", "").split())
    if len(text) > MAX_SCHEDULE:
        page.error("schedule", f"Write at most {MAX_SCHEDULE} characters.")
        return 400
    try:
        schedule = store_schedule(page.app, text)
    except ValueError as error:
        page.error("schedule", str(error)[:1].upper() + str(error)[1:] + ".")
        return 400
    page.form.clear()  # show the schedule as kept
    notice(page, "scheduled", schedule=schedule.describe() if schedule else "only when asked for")
    return 200
