"""The lms plugin's own tables: what hangs off courses and quizzes and is not itself content.

Quiz questions and answers, attempts and their answers, ratings with reviews, Q&A,
enrolments, payment events and API keys live here rather than as comments of their own
type: the content store offers no comments, and these rows are records with typed columns
(marks, ratings 1 to 5, timestamps) that the routes aggregate in SQL (a course's rating
count, sum and per-value counts in one GROUP BY), with unique constraints that make payment
events idempotent (one row per provider event, one enrolment per user and course).
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean, Column, DateTime, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text, UniqueConstraint,
)

QUESTIONS, ANSWERS, ATTEMPTS, ATTEMPT_ANSWERS = "lms_quiz_questions", "lms_quiz_answers", "lms_quiz_attempts", \
    "lms_attempt_answers"
RATINGS, QA, ENROLMENTS, EVENTS, API_KEYS = "lms_ratings", "lms_qa", "lms_enrolments", "lms_payment_events", \
    "lms_api_keys"
PENDING = "lms_pending_enrolments"
STATE = "lms_state"


def define_tables(metadata: MetaData) -> None:
    # Course, quiz and user ids point into the content store and the users table, which belong to
    # others; no foreign keys, so this plugin never blocks (or is cascaded by) their deletes.
    Table(QUESTIONS, metadata,
          Column("id", Integer, primary_key=True),
          Column("quiz_id", Integer, nullable=False),
          Column("title", Text, nullable=False, default=""),
          Column("description", Text, nullable=False, default=""),
          Column("type", String(40), nullable=False, default="single_choice"),
          Column("mark", Float, nullable=False, default=1),
          Column("settings", Text, nullable=False, default="{}"),  # JSON object
          Column("position", Integer, nullable=False, default=0),
          Column("import_key", String(200), nullable=False, default=""),
          Index("ix_lms_quiz_questions_quiz", "quiz_id", "position"))
    Table(ANSWERS, metadata,
          Column("id", Integer, primary_key=True),
          Column("question_id", Integer, ForeignKey(f"{QUESTIONS}.id", ondelete="CASCADE"), nullable=False),
          Column("title", Text, nullable=False, default=""),
          Column("is_correct", Boolean, nullable=False, default=False),
          Column("position", Integer, nullable=False, default=0),
          Index("ix_lms_quiz_answers_question", "question_id", "position"))
    Table(ATTEMPTS, metadata,
          Column("id", Integer, primary_key=True),
          Column("quiz_id", Integer, nullable=False),
          Column("course_id", Integer, nullable=False, default=0),
          Column("user_id", Integer, nullable=False),
          Column("total_questions", Integer, nullable=False, default=0),
          Column("total_answered_questions", Integer, nullable=False, default=0),
          Column("total_marks", Float, nullable=False, default=0),
          Column("earned_marks", Float, nullable=False, default=0),
          Column("info", Text, nullable=False, default="{}"),  # JSON object
          Column("status", String(40), nullable=False, default="attempt_ended"),
          Column("started_at", DateTime, nullable=False),
          Column("ended_at", DateTime, nullable=True),
          Column("is_manually_reviewed", Boolean, nullable=False, default=False),
          Column("manually_reviewed_at", DateTime, nullable=True),
          Index("ix_lms_quiz_attempts_quiz", "quiz_id", "user_id"))
    Table(ATTEMPT_ANSWERS, metadata,
          Column("id", Integer, primary_key=True),
          Column("attempt_id", Integer, ForeignKey(f"{ATTEMPTS}.id", ondelete="CASCADE"), nullable=False),
          Column("question_id", Integer, nullable=False),
          Column("given_answer", Text, nullable=False, default="null"),  # JSON: answer ids or free text
          Column("question_mark", Float, nullable=False, default=0),
          Column("achieved_mark", Float, nullable=False, default=0),
          Column("minus_mark", Float, nullable=False, default=0),
          Column("is_correct", Boolean, nullable=False, default=False),
          Index("ix_lms_attempt_answers_attempt", "attempt_id"))
    Table(RATINGS, metadata,
          Column("id", Integer, primary_key=True),
          Column("course_id", Integer, nullable=False),
          Column("user_id", Integer, nullable=False),
          Column("rating", Integer, nullable=False),  # 1 to 5
          Column("review", Text, nullable=False, default=""),
          Column("status", String(20), nullable=False, default="pending"),  # approved ones count
          Column("created", DateTime, nullable=False),
          UniqueConstraint("course_id", "user_id", name="uq_lms_ratings_course_user"),
          Index("ix_lms_ratings_course_status", "course_id", "status", "rating"))
    Table(QA, metadata,
          Column("id", Integer, primary_key=True),
          Column("course_id", Integer, nullable=False),
          Column("user_id", Integer, nullable=False),
          Column("parent", Integer, nullable=False, default=0),  # 0: a question; else the question answered
          Column("content", Text, nullable=False, default=""),
          Column("created", DateTime, nullable=False),
          Index("ix_lms_qa_course", "course_id", "parent"))
    Table(ENROLMENTS, metadata,
          Column("id", Integer, primary_key=True),
          Column("course_id", Integer, nullable=False),
          Column("user_id", Integer, nullable=False),
          Column("status", String(20), nullable=False),  # completed, or cancelled once refunded
          Column("source", String(40), nullable=False, default=""),  # payment method, "import", "demo"
          Column("event_id", String(255), nullable=False, default=""),  # the payment event that enrolled
          Column("created", DateTime, nullable=False),
          Column("updated", DateTime, nullable=False),
          UniqueConstraint("course_id", "user_id", name="uq_lms_enrolments_course_user"),
          Index("ix_lms_enrolments_user", "user_id"))
    Table(EVENTS, metadata,
          Column("id", Integer, primary_key=True),
          Column("provider", String(40), nullable=False),
          Column("event_id", String(255), nullable=False),
          Column("type", String(100), nullable=False, default=""),
          Column("outcome", String(40), nullable=False),  # enrolled, refunded, ignored, unmatched
          Column("course_id", Integer, nullable=False, default=0),
          Column("user_id", Integer, nullable=False, default=0),
          Column("amount", Integer, nullable=True),  # smallest currency unit, as providers send it
          Column("currency", String(10), nullable=False, default=""),
          Column("reference", String(255), nullable=False, default=""),  # payment intent / order id
          Column("received", DateTime, nullable=False),
          UniqueConstraint("provider", "event_id", name="uq_lms_payment_events_provider_event"),
          Index("ix_lms_payment_events_reference", "provider", "reference"))
    # A paid checkout whose buyer has no account yet: kept until that address registers or an
    # operator assigns it (pending.py); one row per provider event, so a resent event adds nothing.
    Table(PENDING, metadata,
          Column("id", Integer, primary_key=True),
          Column("provider", String(40), nullable=False),
          Column("event_id", String(255), nullable=False),
          Column("course_id", Integer, nullable=False),
          Column("email", String(320), nullable=False),  # as the provider sent it
          Column("email_key", String(320), nullable=False),  # lower case, matched against new accounts
          Column("reference", String(255), nullable=False, default=""),  # payment intent / order id
          Column("amount", Integer, nullable=True),  # smallest currency unit
          Column("currency", String(10), nullable=False, default=""),
          Column("received", DateTime, nullable=False),
          Column("status", String(20), nullable=False, default="pending"),  # pending, granted, refunded
          Column("user_id", Integer, nullable=False, default=0),  # who it was granted to
          Column("granted_by", String(100), nullable=False, default=""),  # "registration" or "operator <login>"
          Column("resolved", DateTime, nullable=True),
          UniqueConstraint("provider", "event_id", name="uq_lms_pending_enrolments_event"),
          Index("ix_lms_pending_enrolments_email", "email_key", "status"))
    # One row: a version bumped with every rating written, so kept answers (answers.py) never outlive one.
    Table(STATE, metadata,
          Column("id", Integer, primary_key=True),
          Column("version", Integer, nullable=False, default=0))
    Table(API_KEYS, metadata,
          Column("id", Integer, primary_key=True),
          Column("user_id", Integer, nullable=False),
          Column("key", String(80), nullable=False, unique=True),  # public half, "key_" + 32 hex
          Column("secret_hash", String(128), nullable=False),  # keyed BLAKE2b of the secret
          Column("permission", String(20), nullable=False),
          Column("description", String(500), nullable=False, default=""),
          Column("created", DateTime, nullable=False),
          Column("last_used", DateTime, nullable=True))


def table(app, name: str) -> Table:
    """One of this app's lms tables (each app has its own MetaData)."""
    return app.db.metadata.tables[name]
