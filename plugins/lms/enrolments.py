"""Enrolments: who may take which course, written by the payment webhook, the import and the demo."""

from __future__ import annotations

from sqlalchemy import select, update

from .apikeys import utcnow
from .tables import ENROLMENTS, table


def enrol(request_or_context, course_id: int, user_id: int, source: str, event_id: str = "") -> str:
    """Enrol (or re-enrol after a refund); "enrolled", or "already" when the enrolment stands."""
    enrolments = table(request_or_context.app, ENROLMENTS)
    session = request_or_context.session
    now = utcnow()
    row = session.execute(select(enrolments).where(enrolments.c.course_id == course_id,
                                                   enrolments.c.user_id == user_id)).first()
    if row is None:
        session.execute(enrolments.insert().values(course_id=course_id, user_id=user_id, status="completed",
                                                   source=source, event_id=event_id, created=now, updated=now))
        return "enrolled"
    if row.status == "completed":
        return "already"
    session.execute(update(enrolments).where(enrolments.c.id == row.id).values(
        status="completed", source=source, event_id=event_id, updated=now))
    return "enrolled"


def revoke(request, course_id: int, user_id: int) -> bool:
    """Cancel a standing enrolment (a refund); False when there is none to cancel."""
    enrolments = table(request.app, ENROLMENTS)
    result = request.session.execute(update(enrolments).where(
        enrolments.c.course_id == course_id, enrolments.c.user_id == user_id, enrolments.c.status == "completed")
        .values(status="cancelled", updated=utcnow()))
    return result.rowcount > 0


def enrolment_record(row) -> dict:
    return {"id": row.id, "course_id": row.course_id, "user_id": row.user_id, "status": row.status,
            "source": row.source, "event_id": row.event_id, "created": row.created.isoformat(),
            "updated": row.updated.isoformat()}
