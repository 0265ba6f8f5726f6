"""The durable outbox: `app.mail.send` writes a row, a delivery pass sends due rows over SMTP.

Sending and delivering are separate on purpose. `send` only inserts a row, inside the
caller's transaction when it passes its session, so a message exists exactly when the
caller's own writes were committed (a form submission and its notification go together).
`deliver_pending` claims due rows in groups (a conditional UPDATE that marks them with this
pass's claim, so two processes never send the same row at once), talks to the SMTP server of `[mail]`, or writes .eml
files when no server is configured, and records the outcome:

- sent: `status = 'sent'`, `sent_at` set;
- a temporary failure (server down, 4xx): `attempts + 1`, retried after `retry_seconds`
  doubled per attempt (at most a day), `failed` once `max_attempts` is reached;
- a permanent refusal (5xx): `failed` at once.

A row claimed by a process that died mid-delivery is claimable again once its claim
expires, so a crash loses nothing (the message may then be delivered twice: at least once,
never zero times).
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import secrets
import smtplib
import socket
import ssl
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column, DateTime, Index, Integer, LargeBinary, MetaData, String, Table, Text, and_, bindparam, insert, or_, select,
    update,
)

from .message import Message, check_message, render
from .settings import MailSettings

log = logging.getLogger("sitehost.mail")

QUEUED, SENDING, SENT, FAILED = "queued", "sending", "sent", "failed"
STATUSES = (QUEUED, SENDING, SENT, FAILED)
CLAIM_SECONDS = 300  # a delivery taking longer than this is taken to have died with its process
CLAIM_GROUP = 50  # rows claimed (and marked sent) per transaction
MAX_RETRY_SECONDS = 86400
ERROR_LENGTH = 500


def define_mail_tables(metadata: MetaData) -> dict[str, Table]:
    outbox = Table(
        "mail_outbox", metadata,
        Column("id", Integer, primary_key=True),
        Column("created_at", DateTime, nullable=False),
        Column("status", String(16), nullable=False),
        Column("attempts", Integer, nullable=False, default=0),
        Column("next_attempt_at", DateTime, nullable=False),
        Column("claimed_until", DateTime, nullable=True),
        Column("sent_at", DateTime, nullable=True),
        Column("last_error", Text, nullable=False, default=""),
        Column("sender", String(320), nullable=False),
        Column("recipients", Text, nullable=False),  # JSON list of addresses (the SMTP envelope)
        Column("subject", Text, nullable=False),
        # The checked message as JSON (host.mail.message.check_message); rendered to RFC 5322 bytes when
        # it is delivered, so queueing costs a request no MIME work.
        Column("content", LargeBinary, nullable=False),
        Index("mail_outbox_due", "status", "next_attempt_at"),
        sqlite_autoincrement=True,
    )
    return {"mail_outbox": outbox}


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def retry_delay(settings: MailSettings, attempts: int) -> float:
    """Seconds to wait after the `attempts`-th failure: retry_seconds, doubled each time, at most a day."""
    return min(float(settings.retry_seconds) * (2 ** max(attempts - 1, 0)), MAX_RETRY_SECONDS)


class DeliveryError(Exception):
    def __init__(self, reason: str, permanent: bool = False):
        super().__init__(reason)
        self.permanent = permanent


class MailService:
    """`app.mail`: queue messages (`send`), deliver them (`deliver_pending`), look at the queue (`outbox`)."""

    def __init__(self, app, settings: MailSettings, tables: dict[str, Table]):
        self.app = app
        self.settings = settings
        self.tables = tables

    # --- queueing ----------------------------------------------------------------------

    def send(self, message: Message, session=None) -> int:
        """Queue `message`; its outbox id. ValueError when the message is not valid (nothing queued).

        With `session`, the row is written in that session's transaction and commits or rolls
        back with the caller's writes; without it, in a transaction of its own. Never talks to SMTP.
        """
        envelope_sender, recipients, spec = check_message(message, self.settings.from_address, self._domain())
        content = json.dumps(spec, ensure_ascii=False).encode("utf-8")
        now = utcnow()
        table = self.tables["mail_outbox"]
        statement = self.app.db.prepared("mail.outbox_insert", lambda: insert(table))
        values = {"created_at": now, "status": QUEUED, "attempts": 0, "next_attempt_at": now, "claimed_until": None,
                  "sent_at": None, "last_error": "", "sender": envelope_sender, "recipients": json.dumps(recipients),
                  "subject": message.subject or "", "content": content}
        if session is not None:
            return int(session.execute(statement, values).inserted_primary_key[0])
        with self.app.db.session(write=True) as own, own.begin():
            return int(own.execute(statement, values).inserted_primary_key[0])

    def _domain(self) -> str:
        from urllib.parse import urlsplit

        return urlsplit(self.app.settings.site.get("url") or "").hostname or ""

    # --- looking -----------------------------------------------------------------------

    def outbox(self, status: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The newest outbox rows (without their content), newest first."""
        table = self.tables["mail_outbox"]
        query = select(*[column for column in table.c if column.name != "content"]).order_by(table.c.id.desc())
        if status:
            query = query.where(table.c.status == status)
        with self.app.db.session() as session:
            rows = session.execute(query.limit(limit)).mappings().all()
        return [dict(row, recipients=json.loads(row["recipients"])) for row in rows]

    def states(self, outbox_ids: list[int]) -> dict[int, dict[str, Any]]:
        """Outbox rows by id (without their content): what became of the mail a plugin queued."""
        if not outbox_ids:
            return {}
        table = self.tables["mail_outbox"]
        query = select(*[column for column in table.c if column.name != "content"]).where(
            table.c.id.in_(list(outbox_ids)[:1000]))
        with self.app.db.session() as session:
            rows = session.execute(query).mappings().all()
        return {row["id"]: dict(row, recipients=json.loads(row["recipients"])) for row in rows}

    def statuses(self, outbox_ids: list[int]) -> dict[int, str]:
        """{outbox id: status} of any number of rows (read 1,000 at a time): a mailing's progress."""
        table = self.tables["mail_outbox"]
        wanted = list(dict.fromkeys(outbox_ids))
        found: dict[int, str] = {}
        with self.app.db.session() as session:
            for start in range(0, len(wanted), 1000):
                found.update(session.execute(select(table.c.id, table.c.status).where(
                    table.c.id.in_(wanted[start:start + 1000]))).all())
        return found

    def message(self, outbox_id: int) -> dict[str, Any] | None:
        """One outbox row with its content (the RFC 5322 bytes), or None."""
        table = self.tables["mail_outbox"]
        with self.app.db.session() as session:
            row = session.execute(select(table).where(table.c.id == outbox_id)).mappings().first()
        return None if row is None else _with_message(row)

    def uses_files(self) -> bool:
        return not self.settings.smtp_host

    def eml_folder(self) -> Path:
        return Path(self.settings.eml_dir).resolve()

    def describe_transport(self) -> str:
        if self.uses_files():
            return f".eml files in {self.eml_folder()} (no [mail] smtp_host set)"
        return f"SMTP {self.settings.smtp_host}:{self.settings.smtp_port}"

    # --- delivering --------------------------------------------------------------------

    def deliver_pending(self, limit: int | None = None) -> int:
        """One delivery pass now: every due message (at most `limit`); how many were delivered.

        Rows are claimed and marked sent in groups of CLAIM_GROUP, so a busy outbox costs the
        database's write lock two short transactions per group instead of two per message.
        """
        table = self.tables["mail_outbox"]
        now = utcnow()
        due = or_(and_(table.c.status == QUEUED, table.c.next_attempt_at <= now),
                  and_(table.c.status == SENDING, table.c.claimed_until < now))
        query = select(table.c.id).where(due).order_by(table.c.next_attempt_at, table.c.id)
        if limit is not None:
            query = query.limit(limit)
        with self.app.db.session() as session:
            candidates = list(session.execute(query).scalars())
        delivered = 0
        transport = None
        unreachable = ""
        try:
            for start in range(0, len(candidates), CLAIM_GROUP):
                rows = self._claim(candidates[start:start + CLAIM_GROUP], due)
                sent: list[dict[str, Any]] = []
                try:
                    for row in rows:
                        if unreachable:
                            self._record_failure(row, unreachable, False)
                            continue
                        try:
                            row["content"] = render(json.loads(row["content"]))
                        except (ValueError, KeyError, TypeError) as error:  # no sender can ever render it
                            self._record_failure(row, f"the stored message cannot be rendered: {error}", True)
                            continue
                        if transport is None:
                            try:
                                transport = self._open_transport()
                            except DeliveryError as error:
                                # The server is unreachable for every message of this pass alike.
                                unreachable = str(error)
                                self._record_failure(row, unreachable, False)
                                continue
                        try:
                            transport.deliver(row)
                        except DeliveryError as error:
                            self._record_failure(row, str(error), error.permanent)
                            if not transport.alive():
                                transport.close()
                                transport = None
                            continue
                        sent.append(row)
                finally:
                    self._record_sent(sent)
                delivered += len(sent)
        finally:
            if transport is not None:
                transport.close()
        return delivered

    def _claim(self, outbox_ids: list[int], due) -> list[dict[str, Any]]:
        """Claim the due rows among `outbox_ids` for this pass (one transaction); the rows claimed."""
        if not outbox_ids:
            return []
        table = self.tables["mail_outbox"]
        # The claim's expiry, to the microsecond, tells this pass's rows from another process's.
        token = utcnow() + datetime.timedelta(seconds=CLAIM_SECONDS, microseconds=secrets.randbelow(1_000_000))
        with self.app.db.session(write=True) as session, session.begin():
            session.execute(update(table).where(table.c.id.in_(outbox_ids), due)
                            .values(status=SENDING, claimed_until=token))
            rows = session.execute(select(table).where(table.c.id.in_(outbox_ids), table.c.status == SENDING,
                                                       table.c.claimed_until == token)
                                   .order_by(table.c.id)).mappings().all()
        return [dict(row, recipients=json.loads(row["recipients"])) for row in rows]

    def _record_sent(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        table = self.tables["mail_outbox"]
        with self.app.db.session(write=True) as session, session.begin():
            session.execute(update(table).where(table.c.id == bindparam("row_id")).values(
                status=SENT, sent_at=bindparam("now"), claimed_until=None, attempts=bindparam("tries"), last_error=""),
                [{"row_id": row["id"], "now": utcnow(), "tries": row["attempts"] + 1} for row in rows])

    def _record_failure(self, row: dict[str, Any], reason: str, permanent: bool) -> None:
        table = self.tables["mail_outbox"]
        attempts = row["attempts"] + 1
        failed = permanent or attempts >= self.settings.max_attempts
        next_attempt = utcnow() + datetime.timedelta(seconds=retry_delay(self.settings, attempts))
        with self.app.db.session(write=True) as session, session.begin():
            session.execute(update(table).where(table.c.id == row["id"]).values(
                status=FAILED if failed else QUEUED, attempts=attempts, claimed_until=None,
                next_attempt_at=next_attempt, last_error=reason[:ERROR_LENGTH]))
        log.warning("mail %d to %s: attempt %d failed (%s)%s", row["id"], ", ".join(row["recipients"]), attempts,
                    reason, "; marked failed" if failed else f"; retry after {next_attempt:%H:%M:%S} UTC")

    def _open_transport(self):
        if self.uses_files():
            return FileTransport(self.eml_folder())
        return SmtpTransport(self.settings)


def _with_message(row) -> dict[str, Any]:
    """An outbox row as a dict, its recipients a list and its content the message's bytes."""
    return dict(row, recipients=json.loads(row["recipients"]), content=render(json.loads(row["content"])))


class FileTransport:
    """Writes each message as OUTBOX-ID.eml into a folder (first start, development)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def deliver(self, row: dict[str, Any]) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            target = self.folder / f"{row['id']:08d}.eml"
            temporary = target.with_suffix(".eml.tmp")
            temporary.write_bytes(row["content"])
            os.replace(temporary, target)  # a reader never sees half a message
        except OSError as error:
            raise DeliveryError(f"cannot write {self.folder}: {error.strerror or error}") from error

    def alive(self) -> bool:
        return True

    def close(self) -> None:
        pass


class SmtpTransport:
    """One SMTP connection for a delivery pass (opened on first use, reused for every message)."""

    def __init__(self, settings: MailSettings):
        self.settings = settings
        self.connection: smtplib.SMTP | None = None
        try:
            self.connection = self._connect()
        except (OSError, smtplib.SMTPException) as error:
            raise DeliveryError(f"cannot reach {settings.smtp_host}:{settings.smtp_port}: {_reason(error)}") from error

    def _connect(self) -> smtplib.SMTP:
        settings = self.settings
        if settings.ssl:
            connection: smtplib.SMTP = smtplib.SMTP_SSL(settings.smtp_host, settings.smtp_port,
                                                        timeout=settings.timeout_seconds,
                                                        context=ssl.create_default_context())
        else:
            connection = smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=settings.timeout_seconds)
        try:
            connection.ehlo_or_helo_if_needed()
            if settings.starttls:
                connection.starttls(context=ssl.create_default_context())
                connection.ehlo()
            if settings.username:
                connection.login(settings.username, settings.password)
        except BaseException:
            connection.close()
            raise
        return connection

    def deliver(self, row: dict[str, Any]) -> None:
        if self.connection is None:
            raise DeliveryError("no SMTP connection")
        try:
            refused = self.connection.sendmail(row["sender"], row["recipients"], row["content"])
        except smtplib.SMTPRecipientsRefused as error:
            codes = [code for code, _text in error.recipients.values()]
            raise DeliveryError(f"every recipient refused: {_reason(error)}",
                                permanent=all(code >= 500 for code in codes)) from error
        except smtplib.SMTPResponseException as error:
            raise DeliveryError(_reason(error), permanent=error.smtp_code >= 500) from error
        except (OSError, smtplib.SMTPException) as error:
            self.close()
            raise DeliveryError(_reason(error)) from error
        if refused:
            log.warning("mail %d: some recipients refused: %s", row["id"], ", ".join(sorted(refused)))

    def alive(self) -> bool:
        return self.connection is not None

    def close(self) -> None:
        if self.connection is None:
            return
        try:
            self.connection.quit()
        except (OSError, smtplib.SMTPException, socket.error):
            self.connection.close()
        self.connection = None


def _reason(error: BaseException) -> str:
    if isinstance(error, smtplib.SMTPResponseException):
        text = error.smtp_error.decode("utf-8", "replace") if isinstance(error.smtp_error, bytes) else str(error.smtp_error)
        return f"{error.smtp_code} {text}".strip()
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return "; ".join(f"{address}: {code} {text.decode('utf-8', 'replace') if isinstance(text, bytes) else text}"
                         for address, (code, text) in error.recipients.items())
    return f"{type(error).__name__}: {getattr(error, 'strerror', None) or error}"
