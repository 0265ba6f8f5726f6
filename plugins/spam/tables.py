"""The spam filter's tables: verdicts (the history every statistic comes from), their events,
the classifier's model (shared by every worker) and the options the spam/v1 routes edit."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Float, Index, Integer, String, Table, Text

CHECKS = "spam_checks"
HISTORY = "spam_history"
TOKENS = "spam_tokens"
MODEL = "spam_model"
OPTIONS = "spam_options"


def define_tables(metadata) -> None:
    # One row per judged submission; the item it judged stores the same guid (a comment's
    # spam_guid), as the reference keeps it in the comment's meta. Addresses are kept only as SHA-256 digests (enough to
    # recognise a returning sender); the text is kept so `sitehost spam train` can relearn.
    Table(CHECKS, metadata,
          Column("id", Integer, primary_key=True),
          Column("guid", String(64), nullable=False, unique=True),
          Column("type", String(20), nullable=False),
          Column("spam", Boolean, nullable=False),
          Column("score", Float, nullable=False),
          Column("reason", String(40), nullable=False),
          Column("discarded", Boolean, nullable=False, default=False),
          Column("source", String(20), nullable=False, default="local"),  # local or service
          Column("email_hash", String(64), nullable=False, default=""),
          Column("ip_hash", String(64), nullable=False, default=""),
          Column("content_hash", String(64), nullable=False, default=""),
          Column("author", String(245), nullable=False, default=""),
          Column("url", String(200), nullable=False, default=""),
          Column("email_domain", String(100), nullable=False, default=""),
          Column("content", Text, nullable=False, default=""),
          Column("created", DateTime, nullable=False),
          # A moderator's decision: label spam/ham; reversed says when it contradicted the verdict.
          Column("label", String(10), nullable=False, default=""),
          Column("reversed", String(20), nullable=False, default=""),
          Column("trained", String(10), nullable=False, default=""),
          # (key, id): the newest verdicts of a sender or a text, read without a sort.
          Index("ix_spam_checks_email", "email_hash", "id"),
          Index("ix_spam_checks_ip", "ip_hash", "id"),
          Index("ix_spam_checks_content", "content_hash", "id"),
          Index("ix_spam_checks_created", "created"))
    Table(HISTORY, metadata,
          Column("id", Integer, primary_key=True),
          Column("guid", String(64), nullable=False, index=True),
          Column("event", String(40), nullable=False),
          Column("actor", String(80), nullable=False, default=""),
          Column("message", String(255), nullable=False, default=""),
          Column("created", DateTime, nullable=False))
    Table(TOKENS, metadata,
          Column("token", String(64), primary_key=True),
          Column("spam", Integer, nullable=False, default=0),
          Column("ham", Integer, nullable=False, default=0))
    # One row (id 1): documents learnt per class, and a version every training bumps so that
    # each worker reloads its in-memory copy of the model when (and only when) it changed.
    Table(MODEL, metadata,
          Column("id", Integer, primary_key=True),
          Column("version", Integer, nullable=False, default=0),
          Column("spam_docs", Integer, nullable=False, default=0),
          Column("ham_docs", Integer, nullable=False, default=0))
    Table(OPTIONS, metadata,
          Column("name", String(64), primary_key=True),
          Column("value", Text, nullable=False))


def table(app, name: str):
    return app.db.metadata.tables[name]
