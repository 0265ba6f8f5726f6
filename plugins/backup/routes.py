"""backup/v1: the version probe, and the operator's backups (create, list, download, delete, progress).

Permission functions first, then handlers, then the route table. Every archive route needs
`manage_options` (declared as the routes' `capability`, so 401/403 before any handler runs);
`versions` needs the plugin's own `backup_basic` capability (administrators).
"""

from __future__ import annotations

import datetime

from sqlalchemy import func, select

from host import FileBody, RestError, RestResponse, Route, invalid_param

from host.storage import ObjectInfo

from . import archive as archives
from . import shelf
from .create import is_archive_name, sitehost_version
from .jobs import job_state, running_holder, start_job
from .schemas import (ArchiveNameArgs, BackupListArgs, BackupSchema, CreateBackupArgs, JobArgs, JobListArgs,
                      JobSchema, VersionsSchema)
from .tables import jobs_table

NAMESPACE = "backup/v1"
BASIC_CAPABILITY = "backup_basic"
WAIT_SECONDS = 10  # how long POST backups waits for the backup before answering 202
NAME_GROUP = r"(?P<name>[A-Za-z0-9._-]+)"  # checked by the args (a backup name only)


# --- permissions -----------------------------------------------------------------------

# The plugin's "basic" capability; refused with the original's message (401/403, not its 500).
PROBE_VERSIONS = {"capability": BASIC_CAPABILITY, "refusal": ("rest_forbidden", "You cannot execute this action.")}


# --- handlers --------------------------------------------------------------------------

def versions(request):
    """{success:false, message:"", wp:<sitehost version>, plugin:<backup plugin version>}.

    `success` stays false as in the original (its handler never sets it); clients written for
    it ignore the flag and read the versions, so a `true` would change nothing for them but
    would break a client that compares the whole answer.
    """
    record = request.app.plugin("backup")
    return {"success": False, "message": "", "wp": sitehost_version(), "plugin": record.version if record else "0"}


def _archive(request, name: str) -> ObjectInfo:
    if not is_archive_name(name):
        raise invalid_param({"name": "Not the name of a backup archive."})
    found = shelf.find(request.app, name)
    if found is None:
        raise RestError("backup_not_found", "No backup of that name.", 404)
    return found


def _summary(request, found: ObjectInfo) -> dict:
    name = found.key
    data = {"name": name, "size": found.size, "created": "", "site": {}, "sitehost_version": "", "schema_version": "",
            "engine": "", "tables": 0, "rows": 0, "uploads": 0, "plugins": {}, "readable": True}
    try:
        manifest = shelf.manifest_of(request.app, name)
    except archives.ArchiveError as error:
        data.update(readable=False, problem=str(error))
        manifest = None
    if manifest is not None:
        data.update(created=manifest.get("created", ""), site=manifest.get("site", {}),
                    sitehost_version=manifest.get("sitehost_version", ""),
                    schema_version=manifest.get("schema_version", ""),
                    engine=manifest.get("snapshot", {}).get("engine", ""), tables=len(manifest["tables"]),
                    rows=sum(int(table.get("rows", 0)) for table in manifest["tables"]),
                    uploads=int(manifest["uploads"].get("count", 0)), plugins=manifest.get("plugins", {}))
    base = f"{request.base_url}/{NAMESPACE}/backups/{name}"
    data["_links"] = {"self": [{"href": base}], "download": [{"href": f"{base}/download"}],
                      "collection": [{"href": f"{request.base_url}/{NAMESPACE}/backups"}]}
    return data


def list_backups(request):
    paths = list(reversed(shelf.stored_archives(request.app)))
    page, per_page = request.params["page"], request.params["per_page"]
    total = len(paths)
    if page > 1 and (page - 1) * per_page >= total:
        raise RestError("rest_invalid_page_number",
                        "The page number requested is larger than the number of pages available.", 400)
    shown = paths[(page - 1) * per_page: page * per_page]
    return RestResponse.collection(request, [_summary(request, path) for path in shown], total, per_page, page)


def get_backup(request):
    return _summary(request, _archive(request, request.params["name"]))


def download_backup(request):
    """The archive itself, streamed from where it is kept (never read into memory), as an attachment."""
    found = _archive(request, request.params["name"])
    handle = shelf.backups_area(request.app).open(found.key)
    return RestResponse(FileBody(handle, found.size, "application/x-tar"), 200, {
        "Content-Disposition": f'attachment; filename="{found.key}"',
        "Cache-Control": "no-store"})


def delete_backup(request):
    found = _archive(request, request.params["name"])
    previous = _summary(request, found)
    shelf.remove(request.app, found.key)
    return {"deleted": True, "previous": previous}


def _job_data(request, row, live_holder: str | None) -> dict:
    status = job_state(row, live_holder is not None and live_holder == row.holder)
    percent = int(100 * row.done / row.total) if row.total else (100 if status == "done" else 0)
    data = {
        "id": row.id, "status": status, "trigger": row.trigger, "stage": row.stage, "done": row.done,
        "total": row.total, "percent": min(percent, 100), "archive": row.archive, "message": row.message,
        "created": _iso(row.created), "finished": _iso(row.finished) if row.finished else None,
        "_links": {"self": [{"href": f"{request.base_url}/{NAMESPACE}/jobs/{row.id}"}]},
    }
    if status == "done" and row.archive:
        data["_links"]["archive"] = [{"href": f"{request.base_url}/{NAMESPACE}/backups/{row.archive}"}]
    return data


def _iso(value: datetime.datetime) -> str:
    return value.replace(microsecond=0).isoformat()


def _live_holder(request) -> str | None:
    return running_holder(request.app)


def create_backup_job(request):
    """Start a backup in the background and wait for it a little.

    201 with the finished job when it is done within WAIT_SECONDS (a small site), else 202 with
    the running job, whose progress GET jobs/<id> shows; 409 while another backup runs. The
    backup goes on in its thread either way.
    """
    started = start_job(request.app, "rest", request.user.id)
    if started is None:
        raise RestError("backup_in_progress", "A backup is already running; wait for it to finish.", 409)
    job_id, job = started
    job.join(WAIT_SECONDS)
    job = _read_job(request, job_id)
    return RestResponse(job, 202 if job["status"] == "running" else 201,
                        {"Location": f"{request.base_url}/{NAMESPACE}/jobs/{job_id}"})


def _read_job(request, job_id: int) -> dict:
    jobs = jobs_table(request.app)
    row = request.session.execute(select(jobs).where(jobs.c.id == job_id)).first()
    if row is None:
        raise RestError("backup_job_not_found", "No backup job with that id.", 404)
    return _job_data(request, row, _live_holder(request))


def get_job(request):
    return _read_job(request, request.params["id"])


def list_jobs(request):
    jobs = jobs_table(request.app)
    page, per_page = request.params["page"], request.params["per_page"]
    total = request.session.execute(select(func.count()).select_from(jobs)).scalar_one()
    if page > 1 and (page - 1) * per_page >= total:
        raise RestError("rest_invalid_page_number",
                        "The page number requested is larger than the number of pages available.", 400)
    rows = request.session.execute(select(jobs).order_by(jobs.c.id.desc())
                                   .limit(per_page).offset((page - 1) * per_page)).all()
    holder = _live_holder(request)
    return RestResponse.collection(request, [_job_data(request, row, holder) for row in rows], total, per_page, page)


# --- route table -----------------------------------------------------------------------

def routes() -> list[Route]:
    operator = {"capability": "manage_options"}
    return [
        Route(NAMESPACE, "/versions", "GET", versions, **PROBE_VERSIONS, schema=VersionsSchema),
        Route(NAMESPACE, "/backups", "GET", list_backups, args=BackupListArgs, schema=BackupSchema, **operator),
        Route(NAMESPACE, "/backups", "POST", create_backup_job, args=CreateBackupArgs, schema=JobSchema, **operator),
        Route(NAMESPACE, f"/backups/{NAME_GROUP}", "GET", get_backup, args=ArchiveNameArgs, schema=BackupSchema,
              **operator),
        Route(NAMESPACE, f"/backups/{NAME_GROUP}", "DELETE", delete_backup, args=ArchiveNameArgs, **operator),
        Route(NAMESPACE, f"/backups/{NAME_GROUP}/download", "GET", download_backup, args=ArchiveNameArgs, **operator),
        Route(NAMESPACE, "/jobs", "GET", list_jobs, args=JobListArgs, schema=JobSchema, **operator),
        Route(NAMESPACE, r"/jobs/(?P<id>[\d]+)", "GET", get_job, args=JobArgs, schema=JobSchema, **operator),
    ]
