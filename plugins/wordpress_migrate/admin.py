"""The WordPress import page of the admin area: upload an export, watch its progress, read its summary.

The upload is stored in a private folder and imported in the background (jobs.py) by the same code
as `sitehost import wordpress`; while it runs the page asks the browser to reload it every few
seconds (a Refresh header), showing the progress line, and then the summary of the run.
"""

from __future__ import annotations

from typing import Any

from host import AdminPage, PageAnswer
from host.admin import AdminRequest
from host.text import sanitize_text_field

from . import jobs

ACTIONS = ("upload",)
MAX_UPLOAD_BYTES = 1024 * 1024 * 1024  # a whole school's export; the import itself streams it
REFRESH_SECONDS = 2
MAX_NAME = 200


def admin_pages(capability: str) -> list[AdminPage]:
    return [AdminPage("WordPress import", "wordpress-import", import_page, capability=capability, actions=ACTIONS)]


def import_page(page: AdminRequest):
    status = 200
    if page.method == "POST":
        status = upload(page)
        page.form.clear()
    active = jobs.active_run(page.app)
    runs = jobs.latest_runs(page.app)
    headers = {"Refresh": str(REFRESH_SECONDS)} if active else {}
    body = page.render("wordpress_import_admin.html", active=active, runs=runs, latest=runs[0] if runs else None,
                       max_bytes=MAX_UPLOAD_BYTES, refresh=REFRESH_SECONDS)
    return PageAnswer(body, status, headers)


def upload(page: AdminRequest) -> int:
    if jobs.active_run(page.app) is not None:
        page.notice(page.render("wordpress_import_notice.html", done="busy"), "error")
        return 409
    sent = page.files.get("wxr_file")
    if sent is None or not sent.raw_filename:
        page.error("wxr_file", "Choose a WordPress export file (.xml) to import.")
        return 400
    path = jobs.store_upload(page.app, sent.filename, sent.file, MAX_UPLOAD_BYTES)
    if path is None:
        page.error("wxr_file", f"The file is larger than {MAX_UPLOAD_BYTES:,} bytes; import it with "
                               "`sitehost import wordpress FILE` on the server instead.")
        return 400
    name = sanitize_text_field(str(sent.filename or "export.xml"))[:MAX_NAME]
    run_id = jobs.start(page.app, path, name, page.user.id, fetch_media=page.form.get("fetch_media") == "1")
    page.notice(page.render("wordpress_import_notice.html", done="started", run_id=run_id))
    return 200


def run_progress(run: dict[str, Any]) -> str:
    """"Checking the file: 1.2 of 45.6 MB" while a run moves."""
    stage = "Checking the file" if run["state"] == "checking" else "Importing"
    return f"{stage}: {run['bytes_done'] / 1e6:,.1f} of {run['bytes_total'] / 1e6:,.1f} MB read"
