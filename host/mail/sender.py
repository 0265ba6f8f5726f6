"""The background sender of a serving process: one per site, whatever the number of workers.

Every worker of `sitehost serve` starts a MailSender thread, but only the holder of the
`mail-sender` lease (a row of `mail_lease`) delivers. The holder renews its lease on every
poll; a worker that dies stops renewing, and after LEASE_SECONDS another one takes over.
Deliveries themselves claim each row (host.mail.outbox), so even two holders at once (a
clock jump, a pause longer than the lease) would never send one row twice concurrently.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from .outbox import utcnow

log = logging.getLogger("sitehost.mail")

LEASE_NAME = "mail-sender"
BATCH = 200


class MailSender:
    """A daemon thread that runs `deliver_pending` every `poll_seconds` while it holds the lease."""

    def __init__(self, service):
        self.service = service
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.lease_seconds = max(10, 3 * service.settings.poll_seconds)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="mail-sender", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Deliver soon instead of at the next poll (a message was just queued in this process)."""
        self._wake.set()

    def stop(self, timeout: float = 10) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        try:
            self.release()
        except SQLAlchemyError:
            pass

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self.acquire():
                    while not self._stop.is_set() and self.service.deliver_pending(limit=BATCH) >= BATCH:
                        self.acquire()
            except Exception:  # the thread must outlive a database hiccup; the next poll tries again
                log.exception("mail sender: delivery pass failed")
            self._wake.wait(self.service.settings.poll_seconds)
            self._wake.clear()

    def acquire(self) -> bool:
        """Take or renew the site's sender lease; True while this sender holds it."""
        table = self.service.tables["mail_lease"]
        now = utcnow()
        expires = now + datetime.timedelta(seconds=self.lease_seconds)
        db = self.service.app.db
        with db.session(write=True) as session, session.begin():
            taken = session.execute(
                update(table).where(table.c.name == LEASE_NAME,
                                    or_(table.c.holder == self.holder, table.c.expires_at < now))
                .values(holder=self.holder, expires_at=expires))
            if taken.rowcount == 1:
                return True
            exists = session.execute(select(table.c.name).where(table.c.name == LEASE_NAME)).first()
            if exists is not None:
                return False
        try:
            with db.session(write=True) as session, session.begin():
                session.execute(table.insert().values(name=LEASE_NAME, holder=self.holder, expires_at=expires))
            return True
        except IntegrityError:  # another process created the lease at the same moment
            return False

    def release(self) -> None:
        table = self.service.tables["mail_lease"]
        with self.service.app.db.session(write=True) as session, session.begin():
            session.execute(update(table).where(table.c.name == LEASE_NAME, table.c.holder == self.holder)
                            .values(expires_at=utcnow() - datetime.timedelta(seconds=1)))
