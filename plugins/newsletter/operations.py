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
from .tables import LISTS, MAILINGS, MAILING_MAILS, SUBSCRIBERS, SUBSCRIPTIONS, SUPPRESSIONS, table
from .tokens import email_hash

MAX_IMPORT_FIELDS = 30
MAX_IMPORT_VALUE = 500
MAX_IMPORT_ROWS = 100_000
EXPORT_COLUMNS = ["email", "consent_time_utc", "consent_ip", "requested_utc", "source"]


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
    lines = 0
    for line in export_lines(app, session, list_row.id):
        out.write(line)
        lines += 1
    return max(lines - 1, 0)  # the first line is the header


def export_lines(app, session, list_id: int, batch: int = 500):
    """The export CSV line by line (the header first), read in batches: a large list is streamed,
    never held whole. Merge-field columns are the list's tags, found by a first pass over the tags."""
    subscribers, subscriptions = table(app, SUBSCRIBERS), table(app, SUBSCRIPTIONS)
    confirmed = (subscriptions.c.list_id == list_id, subscriptions.c.status == store.CONFIRMED)
    tags: set[str] = set()
    for (fields,) in session.execute(select(subscribers.c.fields).join(
            subscriptions, subscriptions.c.subscriber_id == subscribers.c.id).where(*confirmed)
            .execution_options(yield_per=batch)):
        tags.update(tag for tag in (fields or {}) if isinstance(tag, str))
    ordered = sorted(tags, key=lambda tag: ({"FNAME": 0, "LNAME": 1}.get(tag, 2), tag))
    yield _csv_line(["email", *ordered, *EXPORT_COLUMNS[1:]])
    for row in session.execute(store.confirmed_query(app, list_id).execution_options(yield_per=batch)):
        fields = row.fields or {}
        yield _csv_line([row.email, *[fields.get(tag, "") for tag in ordered],
                         row.confirmed.isoformat() if row.confirmed else "", row.confirm_ip,
                         row.requested.isoformat() if row.requested else "", row.source])


def _csv_line(values) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerow([_cell(value) for value in values])
    return buffer.getvalue()


def _cell(value) -> str:
    """A spreadsheet would run a cell starting with = + - @ (or a tab or return) as a formula: quote it
    (CSV injection). Every cell, addresses included: `=cmd@example.org` is a valid address."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@dataclass
class ImportReport:
    added: list = field(default_factory=list)  # subscriber rows, for confirmation mails
    exists: int = 0
    suppressed: int = 0
    unsubscribed: int = 0
    invalid: list[str] = field(default_factory=list)  # "line N: reason"


def import_csv(app, session, list_row, text: str, source: str, confirmed: bool = False,
               consent_text: str = "") -> ImportReport:
    """Add each address of a CSV (a column named email, any case; others become merge fields) as pending,
    or with `confirmed` as confirmed subscribers (consent given elsewhere, `consent_text` says how)."""
    reader = csv.DictReader(io.StringIO(text))
    try:
        headers = reader.fieldnames or []
        report = _import_rows(app, session, list_row, reader, headers, source, confirmed, consent_text)
    except csv.Error as error:
        raise OperationError(f"line {reader.line_num + 1}: the file is not valid CSV ({error})") from None
    return report


def _import_rows(app, session, list_row, reader, headers, source, confirmed, consent_text) -> ImportReport:
    email_column = next((name for name in headers if name and name.strip().lower() == "email"), None)
    if email_column is None:
        raise OperationError("the CSV file needs a header line with an `email` column")
    other = [name for name in headers if name and name != email_column][:MAX_IMPORT_FIELDS]
    report = ImportReport()
    check_dns = settings_of(app).check_deliverability
    for number, line in enumerate(reader, start=2):
        if number - 1 > MAX_IMPORT_ROWS:
            raise OperationError(f"the file has more than {MAX_IMPORT_ROWS:,} rows; split it")
        raw = line.get(email_column) or ""
        raw = raw.strip() if isinstance(raw, str) else ""
        try:
            email = validate_email(raw, check_deliverability=check_dns).normalized
        except EmailNotValidError as error:
            report.invalid.append(f"line {number}: {raw[:80]!r}: {error}")
            continue
        fields = {}
        for name in other:
            tag = "".join(char for char in name.strip().upper() if char.isalnum() or char == "_")[:30]
            value = line.get(name) or ""
            value = value.strip()[:MAX_IMPORT_VALUE] if isinstance(value, str) else ""
            if tag and value and tag != "EMAIL":
                fields[tag] = value
        outcome = store.import_pending(app, session, email, email.lower(), fields, list_row.id, source,
                                       confirmed=confirmed, consent_text=consent_text)
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
    mails = table(app, MAILING_MAILS)
    for recipient in (progress(recipients) if progress else recipients):
        outbox_id = app.mail.send(mailer.mailing_message(app, site_url, recipient, list_row.id, list_row.name,
                                                         subject, body), session=session)
        session.execute(insert(mails).values(mailing_id=mailing_id, outbox_id=outbox_id))
    return mailing_id, len(recipients)


def mailing_progress(app, session, mailing_ids: list[int]) -> dict[int, dict[str, int]]:
    """{mailing id: {queued, sending, sent, failed}} from the host outbox's rows of each mailing."""
    mails = table(app, MAILING_MAILS)
    progress = {mailing_id: {"queued": 0, "sending": 0, "sent": 0, "failed": 0} for mailing_id in mailing_ids}
    if not mailing_ids:
        return progress
    owners = dict(session.execute(select(mails.c.outbox_id, mails.c.mailing_id).where(
        mails.c.mailing_id.in_(mailing_ids))).all())
    for outbox_id, status in app.mail.statuses(list(owners)).items():
        counts = progress[owners[outbox_id]]
        counts[status] = counts.get(status, 0) + 1
    return progress


def pending_confirmations(app, session, list_row, site_url: str) -> int:
    """Queue the confirmation mail again to every subscriber still pending on the list. Returns how many."""
    return queue_confirmations(app, session, list_row, store.pending_rows(app, session, list_row.id), site_url)


def erase_address(app, session, email: str) -> bool:
    """Erase the subscriber with this address (True), or only record the suppression (False)."""
    key = email.strip().lower()
    subscriber = store.find_by_email(app, session, key)
    if subscriber is not None:
        store.erase(app, session, subscriber)
        return True
    store.insert_ignoring_conflict(session, table(app, SUPPRESSIONS),
                                   {"email_hash": email_hash(app, key), "created": store.utcnow()}, ["email_hash"])
    return False
