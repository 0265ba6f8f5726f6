"""Tables of users, application passwords, browser sessions and sign-in failures."""

from __future__ import annotations

import datetime

from sqlalchemy import (
    Column, DateTime, ForeignKey, Integer, MetaData, String, Table, Text, UniqueConstraint,
)


def utcnow() -> datetime.datetime:
    """Now in UTC, naive and to the second, as the tables store times."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)


def define_auth_tables(metadata: MetaData) -> dict[str, Table]:
    users = Table(
        "users", metadata,
        Column("id", Integer, primary_key=True),
        Column("login", String(60), nullable=False, unique=True),
        Column("email", String(100), nullable=False, unique=True),
        Column("display_name", String(250), nullable=False, default=""),
        Column("slug", String(60), nullable=False, default=""),
        Column("url", String(200), nullable=False, default=""),
        Column("description", Text, nullable=False, default=""),
        Column("first_name", String(100), nullable=False, default=""),
        Column("last_name", String(100), nullable=False, default=""),
        Column("nickname", String(250), nullable=False, default=""),
        Column("roles", String(200), nullable=False, default="subscriber"),  # comma-separated
        Column("password_hash", String(255), nullable=False, default=""),
        Column("registered", DateTime, nullable=False),
        sqlite_autoincrement=True,
    )
    application_passwords = Table(
        "application_passwords", metadata,
        Column("uuid", String(36), primary_key=True),
        Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("app_id", String(36), nullable=False, default=""),
        Column("name", String(200), nullable=False),
        Column("password_hash", String(100), nullable=False),
        Column("created", DateTime, nullable=False),
        Column("last_used", DateTime, nullable=True),
        Column("last_ip", String(45), nullable=True),
    )
    # Browser sessions of the site's own pages (the authorize page). The cookie holds a random
    # token; only its SHA-256 is stored, so a copy of the database cannot be replayed as cookies.
    auth_sessions = Table(
        "auth_sessions", metadata,
        Column("token_hash", String(64), primary_key=True),
        Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("csrf_token", String(64), nullable=False),
        Column("created", DateTime, nullable=False),
        Column("expires", DateTime, nullable=False, index=True),
    )
    # Values of the user meta keys plugins register (`MetaKey("user", ...)`), JSON-encoded.
    user_meta = Table(
        "user_meta", metadata,
        Column("id", Integer, primary_key=True),
        Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        Column("key", String(255), nullable=False),
        Column("value", Text, nullable=False, default=""),
        UniqueConstraint("user_id", "key", name="uq_user_meta_user_key"),
    )
    return {"users": users, "application_passwords": application_passwords,
            "auth_sessions": auth_sessions, "user_meta": user_meta}
