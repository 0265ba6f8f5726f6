"""The forms plugin's tables: form properties, every submission, the shared rate-limit counters."""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, Integer, String, Table, Text


def define_tables(metadata) -> None:
    # One row per form (the post of type forms_contact_form holds title, slug and status).
    Table(
        "forms_forms", metadata,
        Column("form_id", Integer, primary_key=True, autoincrement=False),
        Column("hash", String(40), nullable=False, unique=True),
        # Copies of the post's title, slug and status (only this plugin writes them), so a submission
        # reads one row instead of the post with its meta and terms.
        Column("title", Text, nullable=False, default=""),
        Column("slug", String(200), nullable=False, default=""),
        Column("status", String(20), nullable=False, default="publish"),
        Column("locale", String(20), nullable=False, default="en_US"),
        Column("properties", Text, nullable=False),  # JSON: form, mail, mail_2, messages, additional_settings
        Column("config_errors", Text, nullable=False, default="{}"),  # JSON, as found on the last save
        Column("version", Integer, nullable=False, default=1),  # bumped on every save (parsed-form cache)
    )
    Table(
        "forms_submissions", metadata,
        Column("id", Integer, primary_key=True),
        Column("form_id", Integer, nullable=False),
        Column("created_at", DateTime, nullable=False),
        Column("status", String(32), nullable=False),
        Column("posted_data_hash", String(32), nullable=False, default=""),
        Column("unit_tag", String(100), nullable=False, default=""),
        Column("container_post", Integer, nullable=False, default=0),
        Column("remote_ip", String(64), nullable=False, default=""),
        Column("user_agent", Text, nullable=False, default=""),
        Column("user_id", Integer, nullable=False, default=0),
        Column("guid", String(64), nullable=False),
        Column("fields", Text, nullable=False),  # JSON {name: value} of the form's fields as posted
        Column("files", Text, nullable=False, default="[]"),  # JSON [{field, name, content_type, size, path}]
        Column("mail_ids", Text, nullable=False, default="[]"),  # JSON outbox ids (host.mail)
        Column("invalid_fields", Text, nullable=False, default="[]"),
        Column("spam_log", Text, nullable=False, default="[]"),
        Index("ix_forms_submissions_form", "form_id", "id"),
        sqlite_autoincrement=True,
    )
    Table(
        "forms_secrets", metadata,
        Column("name", String(40), primary_key=True),
        Column("value", String(128), nullable=False),
    )
