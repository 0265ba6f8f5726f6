"""What lms keeps for a user account, removed when the account is deleted (the host's `user_deleted` hook).

An API key, an enrolment, a quiz attempt, a rating or a Q&A entry belongs to one person. Left behind,
they would outlive the account, and on SQLite a later account can be given the same id: it would then
sign in with the old key and find itself enrolled. Payment events and granted pending enrolments stay:
they are the record of money received.
"""

from __future__ import annotations

from sqlalchemy import delete, select

from .answers import bump
from .tables import API_KEYS, ATTEMPT_ANSWERS, ATTEMPTS, ENROLMENTS, QA, RATINGS, table


def forget_user(app, session, user_id: int) -> None:
    """Delete the user's keys, enrolments, attempts (with their answers), ratings and Q&A; in the caller's
    transaction. A removed rating changes course averages, so kept answers are made stale."""
    attempts = table(app, ATTEMPTS)
    attempt_ids = select(attempts.c.id).where(attempts.c.user_id == user_id).scalar_subquery()
    answers = table(app, ATTEMPT_ANSWERS)
    session.execute(delete(answers).where(answers.c.attempt_id.in_(attempt_ids)))
    for name in (ATTEMPTS, API_KEYS, ENROLMENTS, QA):
        rows = table(app, name)
        session.execute(delete(rows).where(rows.c.user_id == user_id))
    ratings = table(app, RATINGS)
    if session.execute(delete(ratings).where(ratings.c.user_id == user_id)).rowcount:
        bump(app, session)
