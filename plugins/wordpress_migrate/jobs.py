"""Imports started from the admin page run in the background: the uploaded file is kept in a private
folder, a thread imports it, and its row in wordpress_import_runs carries the progress line and, at the
end, the summary (the page polls it). One import at a time: a second one is refused while the first
moves (a run whose row has not moved for STALE_MINUTES, its process gone, no longer blocks)."""

from __future__ import annotations

import datetime
import json
import logging
import threading
import time
import uuid
from pathlib import Path

from sqlalchemy import select, update

from host import PRIVATE_FILE, make_private_folder

from .reader import WxrError
from .run import import_file
from .tables import tables

log = logging.getLogger(__name__)

STALE_MINUTES = 10
PROGRESS_EVERY_SECONDS = 0.5
ACTIVE = ("checking", "importing")


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def upload_folder(app) -> Path:
    """Where uploaded exports wait (beside the uploads folder, never inside it: that one is public)."""
    folder = Path(app.settings.uploads_dir).resolve().parent / "wordpress-imports"
    make_private_folder(folder)
    return folder


def active_run(app) -> dict | None:
    table = tables(app)["wordpress_import_runs"]
    fresh = utcnow() - datetime.timedelta(minutes=STALE_MINUTES)
    with app.db.session() as session:
        row = session.execute(select(table).where(table.c.state.in_(ACTIVE), table.c.updated_gmt >= fresh)
                              .order_by(table.c.id.desc()).limit(1)).first()
    return dict(row._mapping) if row else None


def latest_runs(app, limit: int = 10) -> list[dict]:
    table = tables(app)["wordpress_import_runs"]
    with app.db.session() as session:
        rows = session.execute(select(table).order_by(table.c.id.desc()).limit(limit)).all()
    runs = []
    for row in rows:
        run = dict(row._mapping)
        run["summary"] = json.loads(run["summary"]) if run["summary"] else None
        runs.append(run)
    return runs


def store_upload(app, name: str, stream, limit: int) -> Path | None:
    """Copy an uploaded file to the private folder in chunks; None when it is larger than `limit` bytes."""
    path = upload_folder(app) / f"{uuid.uuid4().hex}.xml"
    written = 0
    with open(path, "xb") as out:
        path.chmod(PRIVATE_FILE)
        while True:
            chunk = stream.read(1024 * 1024)
            if not chunk:
                break
            written += len(chunk)
            if written > limit:
                out.close()
                path.unlink()
                return None
            out.write(chunk)
    return path


def start(app, path: Path, file_name: str, user_id: int, fetch_media: bool = False, wait: bool = False) -> int:
    """Record a run and import `path` in a thread (joined when `wait`); the run's id."""
    table = tables(app)["wordpress_import_runs"]
    now = utcnow()
    with app.db.session(write=True) as session, session.begin():
        run_id = session.execute(table.insert().values(
            file_name=file_name[:255], state="checking", bytes_total=path.stat().st_size, bytes_done=0, summary="",
            error="", user_id=user_id, started_gmt=now, updated_gmt=now)).inserted_primary_key[0]
    # A thread of the process that received the upload, not an app.jobs job: the export is a file on this
    # node's disk, and a job may be claimed by any process of any node. Its row, not a lease, guards the
    # one-at-a-time rule (active_run), and a run whose process died stops blocking after STALE_MINUTES.
    worker = threading.Thread(target=_work, args=(app, run_id, path, user_id, fetch_media),
                              name=f"wordpress-import-{run_id}", daemon=True)
    worker.start()
    if wait:
        worker.join()
    return run_id


def _set(app, run_id: int, **values) -> None:
    table = tables(app)["wordpress_import_runs"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(update(table).where(table.c.id == run_id).values(updated_gmt=utcnow(), **values))


def _work(app, run_id: int, path: Path, user_id: int, fetch_media: bool) -> None:
    last = [0.0]

    def progress(stage: str, done: int, total: int) -> None:
        if time.monotonic() - last[0] >= PROGRESS_EVERY_SECONDS:
            last[0] = time.monotonic()
            _set(app, run_id, state="checking" if stage == "check" else "importing", bytes_done=done, bytes_total=total)

    try:
        summary = import_file(app, path, fetch_media=fetch_media, importing_user_id=user_id, progress=progress)
    except WxrError as refused:
        _set(app, run_id, state="failed", error=f"{refused}; nothing was imported", finished_gmt=utcnow())
    except Exception:  # logged with its trace; the page says only that it failed
        log.exception("the WordPress import %s failed", run_id)
        _set(app, run_id, state="failed", error="The import stopped on an unexpected error (see the site's log). "
             "Batches written so far are kept; importing the file again goes on where it stopped.",
             finished_gmt=utcnow())
    else:
        _set(app, run_id, state="finished", summary=json.dumps(summary.as_dict() | {"lines": summary.lines()}),
             bytes_done=path.stat().st_size, finished_gmt=utcnow())
    finally:
        path.unlink(missing_ok=True)
