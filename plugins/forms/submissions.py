"""Stored submissions for the admin pages: search over field values, CSV export, files, resend, delete.

Search matches the values a visitor sent, never the field names: the database narrows the rows
with a LIKE over the stored JSON (ASCII terms only, where SQL's lower() agrees with Python's),
and each candidate's values are then compared in Python, case-folded.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from sqlalchemy import delete, func, select, update

from . import files as uploads
from . import mailing, store
from .settings import settings_of
from .feedback import admin_email

MAX_SEARCH = 200
CSV_CHUNK = 200
# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
STATUSES = ("mail_sent", "mail_failed", "validation_failed", "acceptance_missing", "spam", "aborted", "error")


class ResendRefused(Exception):
    """A stored submission whose mail cannot be sent again (the message says why)."""


def table(app):
    return app.db.metadata.tables["forms_submissions"]


def counts_by_form(app, session) -> dict[int, int]:
    submissions = table(app)
    query = select(submissions.c.form_id, func.count()).group_by(submissions.c.form_id)
    return {form_id: count for form_id, count in session.execute(query)}


def field_values(fields: dict[str, Any]) -> list[str]:
    """Every text a visitor sent in `fields` (lists flattened, empty values left out)."""
    found: list[str] = []
    for value in fields.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item:
                found.append(item)
    return found


def matches(fields: dict[str, Any], term: str) -> bool:
    wanted = term.casefold()
    return any(wanted in value.casefold() for value in field_values(fields))


def matching_ids(app, session, form_id: int, term: str = "", status: str = "") -> list[int]:
    """Ids of the form's submissions, newest first, whose values contain `term` (all when empty)."""
    submissions = table(app)
    conditions = [submissions.c.form_id == form_id]
    if status:
        conditions.append(submissions.c.status == status)
    term = term.strip()[:MAX_SEARCH]
    if not term:
        query = select(submissions.c.id).where(*conditions).order_by(submissions.c.id.desc())
        return list(session.execute(query).scalars())
    if term.isascii():
        fragment = json.dumps(term.lower(), ensure_ascii=False)[1:-1]  # as the stored JSON spells it
        conditions.append(func.lower(submissions.c.fields).contains(fragment, autoescape=True))
    query = select(submissions.c.id, submissions.c.fields).where(*conditions).order_by(submissions.c.id.desc())
    return [row.id for row in session.execute(query) if matches(json.loads(row.fields), term)]


def rows_by_ids(app, session, ids: list[int]) -> list[dict[str, Any]]:
    """The rows of `ids`, in the order given."""
    if not ids:
        return []
    submissions = table(app)
    found = {row["id"]: dict(row) for row in session.execute(
        select(submissions).where(submissions.c.id.in_(ids))).mappings()}
    return [found[submission_id] for submission_id in ids if submission_id in found]


def load(app, session, form_id: int, submission_id: int) -> dict[str, Any] | None:
    submissions = table(app)
    row = session.execute(select(submissions).where(
        submissions.c.id == submission_id, submissions.c.form_id == form_id)).mappings().first()
    return dict(row) if row is not None else None


def summary(row: dict[str, Any], limit: int = 160) -> str:
    """The first values a visitor sent, joined, for one line of a list."""
    text = " · ".join(field_values(json.loads(row["fields"])))
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- files --------------------------------------------------------------------------------

def stored_files(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in json.loads(row["files"]) if isinstance(item, dict)]


def file_key(app, item: dict[str, Any]) -> str | None:
    """The stored file's key in the form-files area, or None when it is gone or its path leaves the area."""
    key = uploads.stored_key(str(item.get("path", "")))
    if key is None or not uploads.files_area(app).exists(key):
        return None
    return key


def remove_files(app, row: dict[str, Any]) -> None:
    for item in stored_files(row):
        uploads.remove(uploads.files_area(app), str(item.get("path", "")))


# --- CSV ------------------------------------------------------------------------------------

def csv_cell(value: Any) -> str:
    """One cell's text: lists joined, and a leading formula character made harmless with a quote."""
    if isinstance(value, list):
        text = ", ".join(item for item in value if isinstance(item, str))
    elif value is None:
        text = ""
    else:
        text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_columns(form: store.Form | None) -> list[tuple[str, str]]:
    """(field name, basetype) of every named field of the form's template, in template order
    (none for a deleted form: its values all go to "Other fields")."""
    columns: list[tuple[str, str]] = []
    for tag in form.parsed.tags if form is not None else []:
        if tag.name and tag.basetype != "submit" and tag.name not in {name for name, _ in columns}:
            columns.append((tag.name, tag.basetype))
    return columns


def csv_record(row: dict[str, Any], columns: list[tuple[str, str]]) -> list[str]:
    fields = json.loads(row["fields"])
    files: dict[str, list[str]] = {}
    for item in stored_files(row):
        files.setdefault(str(item.get("field", "")), []).append(str(item.get("name", "")))
    cells = [str(row["id"]), row["created_at"].isoformat(sep=" ", timespec="seconds"), row["status"]]
    for name, basetype in columns:
        cells.append(csv_cell(files.get(name, []) if basetype == "file" else fields.get(name)))
    known = {name for name, _ in columns}
    others = {name: value for name, value in fields.items() if name not in known and value not in (None, "", [])}
    cells.append(csv_cell(json.dumps(others, ensure_ascii=False)) if others else "")
    return cells


def csv_stream(app, form: store.Form | None, ids: list[int]) -> Iterator[bytes]:
    """The CSV of `ids` in chunks: a BOM (spreadsheets then read UTF-8), the header row, one row each.

    Rows are read CSV_CHUNK at a time, each chunk in a read session of its own, so a long export
    holds neither a transaction nor every row in memory.
    """
    columns = csv_columns(form)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["Submission", "Date (UTC)", "Status", *[csv_cell(name) for name, _ in columns], "Other fields"])
    yield ("\ufeff" + buffer.getvalue()).encode("utf-8")
    for start in range(0, len(ids), CSV_CHUNK):
        buffer.seek(0)
        buffer.truncate()
        with app.db.session() as session:
            for row in rows_by_ids(app, session, ids[start:start + CSV_CHUNK]):
                writer.writerow(csv_record(row, columns))
        yield buffer.getvalue().encode("utf-8")


# --- resend and delete -------------------------------------------------------------------------

def _attachable(app, row: dict[str, Any]) -> tuple[dict[str, list[dict]], dict[str, bytes], list[str]]:
    """(uploads by field, bytes by stored path, names of files no longer on disk) of a stored row."""
    by_field: dict[str, list[dict[str, Any]]] = {}
    data: dict[str, bytes] = {}
    missing: list[str] = []
    for item in stored_files(row):
        key = file_key(app, item)
        if key is None:
            missing.append(str(item.get("name", "")))
            continue
        data[str(item["path"])] = uploads.files_area(app).read(key)
        by_field.setdefault(str(item.get("field", "")), []).append(
            {key: item[key] for key in ("name", "content_type", "size", "path")})
    return by_field, data, missing


def resend(request, form: store.Form, row: dict[str, Any]) -> tuple[int, list[str]]:
    """Queue the form's mail again for a stored submission, with its files; (outbox id, missing files).

    `request` is a writing RestRequest: the outbox row and the submission's new mail id commit
    together. Raises ResendRefused when the mail is off, goes to an address the visitor typed
    (autoreplies are sent once, after the spam check, never on an operator's click), or cannot be built.
    """
    app = request.app
    mail = form.properties.get("mail") or {}
    if not mail.get("active"):
        raise ResendRefused("The form's mail is turned off; turn it on in the form editor first.")
    if not settings_of(app).store_submissions and row["fields"] == "{}":
        raise ResendRefused("This submission's fields were not kept (store_submissions is off).")
    files, data, missing = _attachable(app, row)
    templates = json.dumps(mail)
    facts = {"id": row["id"], "ip": row["remote_ip"], "user_agent": row["user_agent"],
             "container_post": row["container_post"], "site_url": app.site_address(request.session),
             "admin_email": admin_email(request, request.session) if "_site_admin_email" in templates else "",
             "url": ""}
    try:
        message, _attached, visitor_given = mailing.build(app, form, mail, json.loads(row["fields"]), files, data,
                                                          facts)
    except ValueError as error:
        raise ResendRefused(f"The mail could not be built: {error}") from None
    if visitor_given:
        raise ResendRefused("The form's mail goes to an address the visitor typed; such a mail is not sent again.")
    try:
        outbox_id = app.mail.send(message, session=request.session)
    except ValueError as error:
        raise ResendRefused(f"The mail could not be queued: {error}") from None
    submissions = table(app)
    request.session.execute(update(submissions).where(submissions.c.id == row["id"]).values(
        mail_ids=json.dumps([*json.loads(row["mail_ids"]), outbox_id])))
    return outbox_id, missing


def delete_submission(request, row: dict[str, Any]) -> None:
    """Remove the row now and its files once that commits."""
    submissions = table(request.app)
    request.session.execute(delete(submissions).where(submissions.c.id == row["id"]))
    request.after_commit(lambda: remove_files(request.app, row))
