"""Sign-up limits per client address and per email address, counted in the database.

The events live in `newsletter_rate_events`, so every server process sharing the database
sees the same counts (a limit kept in one process's memory would multiply by the workers).
They are read and written inside the sign-up's own transaction, one subject at a time: on
SQLite that transaction holds the write lock, and on PostgreSQL a transaction-scoped advisory
lock on the subject is taken before counting, so two processes never both take the last slot.

- per address: `address_limit` accepted sign-ups per `address_window_seconds`; one more
  answers 429 (`rate_limited`). Addresses in `exempt_addresses` are not counted.
- per email: `email_limit` mails (confirmations, "already subscribed" notes, unsubscribe links)
  per `email_window_seconds`; a request beyond it is accepted (a sign-up's data kept) but sends
  no further mail, so nobody can flood a family's inbox.
  The email is counted under its keyed hash, never in clear.
"""

from __future__ import annotations

import datetime
import hashlib
import random

from sqlalchemy import bindparam, delete, func, insert, select, text

from host import RestError
from host.auth.pages import client_address as host_client_address

from .settings import settings_of
from .tables import RATE_EVENTS, table
from .tokens import email_hash

ADDRESS, EMAIL = "ip", "email"
CLEANUP_SHARE = 0.01  # one sign-up in a hundred deletes the events every window has forgotten


def client_address(app, environ) -> str:
    """The client's address by the host's rule (X-Forwarded-For only from `trusted_proxies`), at most 100 characters."""
    return host_client_address(app, environ)[:100]


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def _one_at_a_time(session, scope: str, subject: str) -> None:
    """On PostgreSQL, wait for other transactions counting the same subject (SQLite: one writer anyway)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    key = int.from_bytes(hashlib.sha256(f"newsletter:{scope}:{subject}".encode()).digest()[:8], "big", signed=True)
    session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


def _count(app, session, events, scope: str, subject: str, window: int, now) -> int:
    statement = app.db.prepared("newsletter.rate_events_since", lambda: select(func.count()).select_from(events).where(
        events.c.scope == bindparam("scope"), events.c.subject == bindparam("subject"),
        events.c.at >= bindparam("since")))
    return session.execute(statement, {"scope": scope, "subject": subject,
                                       "since": now - datetime.timedelta(seconds=window)}).scalar_one()


def _add_event(app, session, events, scope: str, subject: str, now) -> None:
    session.execute(app.db.prepared("newsletter.insert_rate_event", lambda: insert(events)),
                    {"scope": scope, "subject": subject, "at": now})


def check_address(app, session, address: str, message: str) -> None:
    """Count one sign-up from `address`, or raise 429 when its window is full."""
    settings = settings_of(app)
    if address in settings.exempt_addresses:
        return
    events, now = table(app, RATE_EVENTS), _now()
    subject = (address or "-")[:100]
    _one_at_a_time(session, ADDRESS, subject)
    if _count(app, session, events, ADDRESS, subject, settings.address_window_seconds, now) >= settings.address_limit:
        oldest = session.execute(select(func.min(events.c.at)).where(
            events.c.scope == ADDRESS, events.c.subject == subject,
            events.c.at >= now - datetime.timedelta(seconds=settings.address_window_seconds))).scalar_one()
        retry = settings.address_window_seconds - int((now - oldest).total_seconds()) if oldest else 60
        retry = max(1, retry)
        raise RestError("rate_limited", message, 429, {"retry_after": retry}, headers={"Retry-After": str(retry)})
    _add_event(app, session, events, ADDRESS, subject, now)
    _maybe_clean(app, session, events, now)


def take_email_slot(app, session, email_key: str) -> bool:
    """Whether one more mail may go to this address now (and count it if so)."""
    settings = settings_of(app)
    events, now = table(app, RATE_EVENTS), _now()
    subject = email_hash(app, email_key)
    _one_at_a_time(session, EMAIL, subject)
    if _count(app, session, events, EMAIL, subject, settings.email_window_seconds, now) >= settings.email_limit:
        return False
    _add_event(app, session, events, EMAIL, subject, now)
    _maybe_clean(app, session, events, now)
    return True


def _maybe_clean(app, session, events, now) -> None:
    if random.random() >= CLEANUP_SHARE:
        return
    settings = settings_of(app)
    longest = max(settings.address_window_seconds, settings.email_window_seconds)
    session.execute(delete(events).where(events.c.at < now - datetime.timedelta(seconds=longest)))
