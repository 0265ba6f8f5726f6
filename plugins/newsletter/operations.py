"""What the operator commands do, apart from reading arguments and printing: export rows,
import rows, queue a mailing, erase an address. Each works in the caller's transaction."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, insert, select

from . import mailer, store
from .settings import settings_of
from .tables import LISTS, MAILINGS, table

MAX_IMPORT_FIELDS = 30
MAX_IMPORT_VALUE = 500


class OperationError(Exception):
    """Something the operator must fix; the message says what."""


def find_list(app, session, name_or_id: str):
    lists = table(app, LISTS)
    row = None
    if name_or_id.isdigit():
        row = session.execute(select(lists).where(lists.c.id == int(name_or_id))).first()
    if row is None:
        row = session.execute(select(lists).where(func.lower(lists.c.name) == name_or_id.strip().lower())).first()
    if row is None:
        names = [name for (name,) in session.execute(select(lists.c.name).order_by(lists.c.name))]
        raise OperationError(f"no list named {name_or_id!r} (lists: {', '.join(names) or 'none yet'})")
    return row


def export_csv(app, session, list_row, out) -> int:
    """The list's confirmed subscribers as CSV: address, merge fields, consent time, IP and source."""
    rows = store.confirmed_rows(app, session, list_row.id)
    tags = sorted({tag for row in rows for tag in (row.fields or {})},
                  key=lambda tag: ({"FNAME": 0, "LNAME": 1}.get(tag, 2), tag))
    writer = csv.writer(out)
    writer.writerow(["email", *tags, "consent_time_utc", "consent_ip", "requested_utc", "source"])
    for row in rows:
        fields = row.fields or {}
        writer.writerow([row.email, *[_cell(fields.get(tag, "")) for tag in tags],
                         row.confirmed.isoformat() if row.confirmed else "", row.confirm_ip,
                         row.requested.isoformat() if row.requested else "", row.source])
    return len(rows)


def _cell(value) -> str:
    """A spreadsheet would run a cell starting with = + - @ as a formula: quote it (CSV injection)."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@dataclass
class ImportReport:
    added: list = field(default_factory=list)  # subscriber rows, for confirmation mails
    exists: int = 0
    suppressed: int = 0
    unsubscribed: int = 0
    invalid: list[str] = field(default_factory=list)  # "line N: reason"


def import_csv(app, session, list_row, text: str, source: str) -> ImportReport:
    """Add each address of a CSV (a column named email, any case; others become merge fields) as pending."""
    reader = csv.DictReader(io.StringIO(text))
    headers = reader.fieldnames or []
    email_column = next((name for name in headers if name and name.strip().lower() == "email"), None)
    if email_column is None:
        raise OperationError("the CSV file needs a header line with an `email` column")
    other = [name for name in headers if name and name != email_column][:MAX_IMPORT_FIELDS]
    report = ImportReport()
    check_dns = settings_of(app).check_deliverability
    for number, line in enumerate(reader, start=2):
        raw = (line.get(email_column) or "").strip()
        try:
            email = validate_email(raw, check_deliverability=check_dns).normalized
        except EmailNotValidError as error:
            report.invalid.append(f"line {number}: {raw[:80]!r}: {error}")
            continue
        fields = {}
        for name in other:
            tag = "".join(char for char in name.strip().upper() if char.isalnum() or char == "_")[:30]
            value = (line.get(name) or "").strip()[:MAX_IMPORT_VALUE]
            if tag and value and tag != "EMAIL":
                fields[tag] = value
        outcome = store.import_pending(app, session, email, email.lower(), fields, list_row.id, source)
        if outcome == "added":
            report.added.append(store.find_by_email(app, session, email.lower()))
        elif outcome == "exists":
            report.exists += 1
        elif outcome == "suppressed":
            report.suppressed += 1
        else:
            report.unsubscribed += 1
    return report


def queue_confirmations(app, session, list_row, subscribers, site_url: str) -> int:
    for subscriber in subscribers:
        app.mail.send(mailer.confirmation_message(app, site_url, subscriber, [list_row.name]), session=session)
    return len(subscribers)


def queue_mailing(app, session, list_row, subject: str, body: str, site_url: str, progress=None) -> tuple[int, int]:
    """One mail per confirmed subscriber, through the outbox. Returns (mailing id, mails queued)."""
    recipients = store.confirmed_rows(app, session, list_row.id)
    mailing_id = session.execute(insert(table(app, MAILINGS)).values(
        list_id=list_row.id, subject=subject, recipients=len(recipients), created=store.utcnow())).inserted_primary_key[0]
    for recipient in (progress(recipients) if progress else recipients):
        app.mail.send(mailer.mailing_message(app, site_url, recipient, list_row.id, list_row.name, subject, body),
                      session=session)
    return mailing_id, len(recipients)


def erase_address(app, session, email: str) -> bool:
    """Erase the subscriber with this address (True), or only record the suppression (False)."""
    key = email.strip().lower()
    subscriber = store.find_by_email(app, session, key)
    if subscriber is not None:
        store.erase(app, session, subscriber)
        return True
    from .tables import SUPPRESSIONS
    from .tokens import email_hash
    store.insert_ignoring_conflict(session, table(app, SUPPRESSIONS),
                                   {"email_hash": email_hash(app, key), "created": store.utcnow()}, ["email_hash"])
    return False
