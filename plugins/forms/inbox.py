"""/admin/form-submissions: what visitors sent, per form (as Flamingo's inbound messages for the reference).

    /admin/form-submissions                     the forms with their submission counts
    /admin/form-submissions/ID?s=&status=&paged= one form's submissions, searched over the values sent
    /admin/form-submissions/ID/export.csv?s=&status=  the same list as CSV, streamed
    /admin/form-submissions/ID/SUB              one submission: fields, files, mails; resend, delete
    /admin/form-submissions/ID/SUB/files/N      its Nth file, as a download (the only way to reach it)

The submissions of a deleted form stay readable (the reference keeps them too); they cannot be resent.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, urlencode

from markupsafe import Markup

from host import PageAnswer, redirect
from host.storage import serve_object

from . import store
from . import submissions as stored
from .editor import MAX_ID, rest_request
from .files import files_area

ACTIONS = ("resend", "delete")
PER_PAGE = 20
MAX_PAGE = 100_000
SUBPATH = re.compile(r"^(?P<form>[1-9][0-9]{0,9})(?:/(?:(?P<export>export\.csv)|(?P<submission>[1-9][0-9]{0,9})"
                     r"(?:/files/(?P<file>[0-9]{1,3}))?))?$")
DOWNLOAD_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                    "Content-Security-Policy": "default-src 'none'; sandbox"}
STATUS_LABELS = {"mail_sent": "Mail sent", "mail_failed": "Mail failed", "validation_failed": "Invalid fields",
                 "acceptance_missing": "Terms not accepted", "spam": "Spam", "aborted": "Aborted", "error": "Error"}


def submissions_page(page):
    if page.subpath == "":
        if page.method == "POST":
            page.notice(page.render("forms_notice.html", done="open-submission"), "error")
            return PageAnswer(index_html(page), 400)
        return index_html(page)
    match = SUBPATH.match(page.subpath)
    if match is None or any(int(match[name] or 0) > MAX_ID for name in ("form", "submission")):
        return PageAnswer(page.render("forms_notice.html", done="no-such-page"), 404)
    form_id = int(match["form"])
    if match["submission"] and match["file"] is None:
        return submission_page(page, form_id, int(match["submission"]))
    if page.method == "POST":
        page.notice(page.render("forms_notice.html", done="open-submission"), "error")
        return PageAnswer("", 400)
    if match["export"]:
        return export(page, form_id)
    if match["file"] is not None:
        return download(page, form_id, int(match["submission"]), int(match["file"]))
    return list_page(page, form_id)


def form_title(form: store.Form | None, form_id: int) -> str:
    return (form.title or "(no title)") if form is not None else f"Deleted form {form_id}"


def not_found(page) -> PageAnswer:
    return PageAnswer(page.render("forms_notice.html", done="no-such-submission"), 404)


# --- the forms ------------------------------------------------------------------------------

def index_html(page) -> Markup:
    with rest_request(page) as request:
        forms = store.list_forms(request)
        counts = stored.counts_by_form(page.app, request.session)
    listed = [{"id": form["id"], "title": form["title"] or "(no title)", "count": counts.get(form["id"], 0)}
              for form in forms]
    known = {form["id"] for form in forms}
    listed += [{"id": form_id, "title": f"Deleted form {form_id}", "count": count}
               for form_id, count in sorted(counts.items()) if form_id not in known]
    return page.render("forms_admin_inbox_index.html", forms=listed)


# --- one form's submissions ----------------------------------------------------------------------

def filters(page) -> dict[str, Any] | None:
    """The list's query (s, status, paged), or None after marking the bad one (400)."""
    term, status, paged = page.query_text("s"), page.query_text("status"), page.query_text("paged", "1")
    if len(term) > stored.MAX_SEARCH:
        page.error("s", f"Search for at most {stored.MAX_SEARCH} characters.")
    if status and status not in stored.STATUSES:
        page.error("status", "Choose a status from the list.")
    if not (paged.isascii() and paged.isdigit() and 1 <= int(paged[:7]) <= MAX_PAGE):
        page.error("paged", f"Pages are numbered 1 to {MAX_PAGE:,}.")
    if page.field_errors:
        return None
    return {"s": term.strip(), "status": status, "paged": int(paged)}


def list_page(page, form_id: int):
    wanted = filters(page)
    chosen = wanted or {"s": "", "status": "", "paged": 1}
    with rest_request(page) as request:
        form = store.load(request, form_id)
        ids = stored.matching_ids(page.app, request.session, form_id, chosen["s"], chosen["status"])
        if form is None and not stored.counts_by_form(page.app, request.session).get(form_id):
            return not_found(page)
        start = (chosen["paged"] - 1) * PER_PAGE
        rows = stored.rows_by_ids(page.app, request.session, ids[start:start + PER_PAGE])
    if page.query_text("deleted"):
        page.notice(page.render("forms_notice.html", done="submission-deleted"))
    shown = [{"id": row["id"], "date": row["created_at"].isoformat(sep=" ", timespec="minutes"),
              "status": STATUS_LABELS.get(row["status"], row["status"]), "summary": stored.summary(row),
              "files": len(stored.stored_files(row))} for row in rows]
    base = {key: chosen[key] for key in ("s", "status") if chosen[key]}
    body = page.render("forms_admin_inbox_list.html", form_id=form_id, title=form_title(form, form_id), rows=shown,
                       total=len(ids), filters=chosen, statuses=[("", "Any status"), *STATUS_LABELS.items()],
                       pages=max(1, -(-len(ids) // PER_PAGE)),
                       page_url=lambda number: page.url(form_id) + "?" + urlencode({**base, "paged": number}),
                       export_url=page.url(form_id, "export.csv") + ("?" + urlencode(base) if base else ""))
    return PageAnswer(body, 200 if wanted is not None else 400)


def export(page, form_id: int):
    """The list's submissions (its search and status) as CSV, streamed in chunks."""
    wanted = filters(page)
    if wanted is None:
        return PageAnswer(page.render("forms_notice.html", done="export-refused"), 400)
    with rest_request(page) as request:
        form = store.load(request, form_id)
        ids = stored.matching_ids(page.app, request.session, form_id, wanted["s"], wanted["status"])
    if form is None and not ids:
        return not_found(page)
    headers = {**DOWNLOAD_HEADERS, "Content-Type": "text/csv; charset=utf-8",
               "Content-Disposition": f"attachment; filename=\"form-{form_id}-submissions.csv\""}
    return PageAnswer(stored.csv_stream(page.app, form, ids), 200, headers=headers)


# --- one submission -------------------------------------------------------------------------------

def submission_page(page, form_id: int, submission_id: int):
    status = 200
    if page.method == "POST":
        answer = delete(page, form_id, submission_id) if page.action == "delete" else \
            resend(page, form_id, submission_id)
        if isinstance(answer, PageAnswer):
            return answer
        status = answer
    with rest_request(page) as request:
        form = store.load(request, form_id)
        row = stored.load(page.app, request.session, form_id, submission_id)
    if row is None:
        return not_found(page)
    return PageAnswer(submission_html(page, form, form_id, row), status)


def submission_html(page, form: store.Form | None, form_id: int, row: dict[str, Any]) -> Markup:
    states = page.app.mail.states(json.loads(row["mail_ids"]))
    mails = [{"id": outbox_id, **{key: states[outbox_id][key] for key in ("status", "attempts", "last_error")},
              "to": ", ".join(states[outbox_id]["recipients"])}
             for outbox_id in json.loads(row["mail_ids"]) if outbox_id in states]
    files = [{"name": item.get("name", ""), "size": item.get("size", 0), "field": item.get("field", ""),
              "kept": stored.file_key(page.app, item) is not None,
              "url": page.url(form_id, row["id"], "files", number)}
             for number, item in enumerate(stored.stored_files(row))]
    fields = [(name, ", ".join(value) if isinstance(value, list) else "" if value is None else str(value))
              for name, value in json.loads(row["fields"]).items()]
    return page.render("forms_admin_inbox_item.html", form_id=form_id, title=form_title(form, form_id), row=row,
                       status=STATUS_LABELS.get(row["status"], row["status"]), fields=fields, files=files, mails=mails,
                       invalid=json.loads(row["invalid_fields"]), spam_log=json.loads(row["spam_log"]),
                       can_resend=form is not None)


def resend(page, form_id: int, submission_id: int) -> int | PageAnswer:
    with rest_request(page, write=True) as request:
        form = store.load(request, form_id)
        row = stored.load(page.app, request.session, form_id, submission_id)
        if row is None:
            return not_found(page)
        if form is None:
            page.notice(page.render("forms_notice.html", done="form-gone"), "error")
            return 409
        try:
            outbox_id, missing = stored.resend(request, form, row)
        except stored.ResendRefused as refused:
            page.notice(page.render("forms_notice.html", done="resend-refused", reason=str(refused)), "error")
            return 409
    page.notice(page.render("forms_notice.html", done="resent", outbox_id=outbox_id, missing=missing))
    return 200


def delete(page, form_id: int, submission_id: int) -> PageAnswer:
    with rest_request(page, write=True) as request:
        row = stored.load(page.app, request.session, form_id, submission_id)
        if row is None:
            return not_found(page)
        stored.delete_submission(request, row)
    return redirect(page.url(form_id) + "?deleted=1", 303, {"Cache-Control": "no-store"})


def download(page, form_id: int, submission_id: int, number: int):
    """A stored file as an attachment: never shown inline in the admin's origin, whatever its type."""
    with rest_request(page) as request:
        row = stored.load(page.app, request.session, form_id, submission_id)
    items = stored.stored_files(row) if row is not None else []
    key = stored.file_key(page.app, items[number]) if number < len(items) else None
    if key is None:
        return PageAnswer(page.render("forms_notice.html", done="file-gone"), 404)
    name = str(items[number].get("name") or "file")
    fallback = name.encode("ascii", "replace").decode().replace("?", "_").replace('"', "_")
    # Streamed from the store after the permission check, never redirected: the files are private.
    return serve_object(files_area(page.app), key, "application/octet-stream", {
        **DOWNLOAD_HEADERS,
        "Content-Disposition": f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"})
