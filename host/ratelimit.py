"""The host's rate limiter: at most `limit` events per subject in a sliding window, counted in the database.

    from host.ratelimit import RateLimit, retry_after, take

    SIGN_UPS = RateLimit("library.sign_ups", limit=10, window_seconds=3600)

    wait = take(app, request.session, SIGN_UPS, address)   # counts one, or answers the seconds to wait
    if wait:
        raise RestError("library_rate_limited", f"Try again in {wait} seconds.", 429, {"retry_after": wait},
                        headers={"Retry-After": str(wait)})

Every event is a row of the host table `rate_events` (scope, subject, time), so every process and every
node on one database sees the same counts; a count kept in one process's memory would multiply by the
workers. `take` counts and checks inside the caller's write transaction: on SQLite that transaction holds
the write lock, and on PostgreSQL a transaction-scoped advisory lock on (scope, subject) is taken first,
so two processes never both take the last slot, and a caller that refuses later rolls its count back
with its other writes. `retry_after` only reads (a check before any work is done). Now and then a `take`
removes the events its scope's window has forgotten. Subjects longer than SUBJECT_LENGTH are cut; pass
a digest for anything personal (an email address). The forms and newsletter limits use it.

`sign_in` is the host's count of failed sign-ins (host.auth.ratelimit), for a plugin whose credentials are
checked as a password is and must lock out the same way (lms's API keys).
"""

from __future__ import annotations

import datetime
import hashlib
import math
import random
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, func, insert, select, text

from .auth import ratelimit as sign_in  # public here: see the docstring

__all__ = ["RateLimit", "SUBJECT_LENGTH", "retry_after", "sign_in", "take"]

SUBJECT_LENGTH = 200
SCOPE_LENGTH = 64
CLEANUP_SHARE = 0.01  # one take in a hundred removes its scope's forgotten events


@dataclass(frozen=True)
class RateLimit:
    """`limit` events per subject within `window_seconds`, under the name `scope` ("plugin.what")."""

    scope: str
    limit: int
    window_seconds: int

    def __post_init__(self):
        if not self.scope or len(self.scope) > SCOPE_LENGTH:
            raise ValueError(f"a rate limit's scope is 1 to {SCOPE_LENGTH} characters, not {self.scope!r}")
        if self.window_seconds <= 0:
            raise ValueError(f"rate limit {self.scope}: window_seconds must be positive")


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def _table(app):
    return app.host_tables["rate_events"]


def _window(app, session, rule: RateLimit, subject: str, now: datetime.datetime) -> tuple[int, datetime.datetime | None]:
    """(events of `subject` within the window, the oldest of them)."""
    events = _table(app)
    statement = app.db.prepared("host.rate_events_window", lambda: select(func.count(), func.min(events.c.at)).where(
        events.c.scope == bindparam("scope"), events.c.subject == bindparam("subject"),
        events.c.at >= bindparam("since")))
    count, oldest = session.execute(statement, {"scope": rule.scope, "subject": subject,
                                                "since": now - datetime.timedelta(seconds=rule.window_seconds)}).one()
    return int(count), oldest


def _wait(rule: RateLimit, count: int, oldest, now) -> int:
    """Seconds until a slot frees (at least 1) when `count` fills the window, else 0."""
    if count < rule.limit:
        return 0
    if oldest is None:
        return rule.window_seconds
    return max(1, math.ceil(rule.window_seconds - (now - oldest).total_seconds()))


def retry_after(app, session, rule: RateLimit, subject: str) -> int:
    """0 while `subject` has a slot left, else the seconds until one frees: a read, nothing counted."""
    subject = subject[:SUBJECT_LENGTH]
    now = _now()
    count, oldest = _window(app, session, rule, subject, now)
    return _wait(rule, count, oldest, now)


def take(app, session, rule: RateLimit, subject: str) -> int:
    """Count one event of `subject` in `session`'s write transaction and answer 0, or, when the window is
    full, count nothing and answer the seconds until a slot frees."""
    subject = subject[:SUBJECT_LENGTH]
    _one_at_a_time(session, rule.scope, subject)
    now = _now()
    count, oldest = _window(app, session, rule, subject, now)
    wait = _wait(rule, count, oldest, now)
    if wait:
        return wait
    events = _table(app)
    session.execute(app.db.prepared("host.rate_events_insert", lambda: insert(events)),
                    {"scope": rule.scope, "subject": subject, "at": now})
    if random.random() < CLEANUP_SHARE:
        session.execute(delete(events).where(events.c.scope == rule.scope, events.c.at < now - datetime.timedelta(
            seconds=rule.window_seconds)))
    return 0


def _one_at_a_time(session, scope: str, subject: str) -> None:
    """On PostgreSQL, wait for other transactions counting the same subject (SQLite: one writer anyway)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    key = int.from_bytes(hashlib.sha256(f"{scope}\x00{subject}".encode()).digest()[:8], "big", signed=True)
    session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
