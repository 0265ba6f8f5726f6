"""Pending enrolments: a paid checkout from an address that has no account yet.

The webhook keeps such a payment here instead of losing it (webhook.py). It is granted (the
buyer enrolled, the payment event then reads `enrolled`, so a later refund finds it) when an
account with that address is created (the host's `user_created` hook, in the creating
transaction) or when an operator assigns it to an existing user (REST and the Courses page).
A full refund of a payment still pending marks it `refunded` and enrols no one.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select, update

from .apikeys import utcnow
from .enrolments import enrol
from .tables import EVENTS, PENDING, table

PENDING_STATUS, GRANTED, REFUNDED = "pending", "granted", "refunded"
STATUSES = (PENDING_STATUS, GRANTED, REFUNDED)


@dataclass
class Writer:
    """What `enrol` needs: the app and the session to write in."""

    app: object
    session: object


def keep(app, session, provider: str, payment, course_id: int) -> None:
    """Record a paid checkout whose buyer is unknown (the caller records the payment event)."""
    session.execute(table(app, PENDING).insert().values(
        provider=provider, event_id=payment.event_id, course_id=course_id, email=payment.email[:320],
        email_key=payment.email.strip().lower()[:320], reference=payment.reference, amount=payment.amount,
        currency=payment.currency, received=utcnow(), status=PENDING_STATUS, user_id=0, granted_by=""))


def record(row) -> dict:
    return {"id": row.id, "provider": row.provider, "event_id": row.event_id, "course_id": row.course_id,
            "email": row.email, "reference": row.reference, "amount": row.amount, "currency": row.currency,
            "received": row.received.isoformat(), "status": row.status, "user_id": row.user_id,
            "granted_by": row.granted_by, "resolved": row.resolved.isoformat() if row.resolved else None}


def find(app, session, pending_id: int):
    pending = table(app, PENDING)
    return session.execute(select(pending).where(pending.c.id == pending_id)).first()


def listing(app, session, *, status: str | None = None, course: int | None = None, page: int = 1,
            per_page: int = 20) -> tuple[list, int]:
    """(rows of one page, newest first; total)."""
    pending = table(app, PENDING)
    conditions = [column == value for column, value in ((pending.c.status, status), (pending.c.course_id, course))
                  if value]
    total = session.execute(select(func.count()).select_from(pending).where(*conditions)).scalar_one()
    rows = session.execute(select(pending).where(*conditions).order_by(pending.c.id.desc())
                           .limit(per_page).offset((page - 1) * per_page)).all()
    return rows, total


def grant(app, session, row, user_id: int, granted_by: str) -> bool:
    """Enrol `user_id` in the pending payment's course; False when it is no longer pending (nothing changed)."""
    pending, events = table(app, PENDING), table(app, EVENTS)
    claimed = session.execute(update(pending).where(pending.c.id == row.id, pending.c.status == PENDING_STATUS)
                              .values(status=GRANTED, user_id=user_id, granted_by=granted_by[:100],
                                      resolved=utcnow())).rowcount
    if not claimed:
        return False
    enrol(Writer(app, session), row.course_id, user_id, row.provider, row.event_id)
    session.execute(update(events).where(events.c.provider == row.provider, events.c.event_id == row.event_id)
                    .values(outcome="enrolled", user_id=user_id))
    return True


def grant_to_new_user(app, session, user) -> int:
    """Every payment pending for the new account's address, granted to it. Returns how many."""
    if not user.email:
        return 0
    pending = table(app, PENDING)
    rows = session.execute(select(pending).where(pending.c.email_key == user.email.strip().lower(),
                                                 pending.c.status == PENDING_STATUS).order_by(pending.c.id)).all()
    return sum(grant(app, session, row, user.id, "registration") for row in rows)


def refund(app, session, provider: str, reference: str):
    """Mark the payment still pending under `reference` refunded; its row, or None when there is none."""
    if not reference:
        return None
    pending = table(app, PENDING)
    row = session.execute(select(pending).where(pending.c.provider == provider, pending.c.reference == reference,
                                                pending.c.status == PENDING_STATUS)).first()
    if row is not None:
        session.execute(update(pending).where(pending.c.id == row.id).values(status=REFUNDED, resolved=utcnow()))
    return row
