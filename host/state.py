"""The host's own tables: facts about the site installation itself, the site's secrets and rate-limit events."""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, Integer, MetaData, String, Table, Text


def define_host_tables(metadata: MetaData) -> dict[str, Table]:
    site_state = Table(
        "site_state", metadata,
        Column("key", String(100), primary_key=True),
        Column("value", Text, nullable=False, default=""),
    )
    # Random secrets made once per site and name (app.site_secret): signing keys every process shares.
    site_secrets = Table(
        "site_secrets", metadata,
        Column("name", String(100), primary_key=True),
        Column("value", Text, nullable=False),
    )
    # Counted events of the host's rate limiter (host.ratelimit): one row per event, read as a sliding window.
    rate_events = Table(
        "rate_events", metadata,
        Column("id", Integer, primary_key=True),
        Column("scope", String(64), nullable=False),
        Column("subject", String(200), nullable=False),
        Column("at", DateTime, nullable=False),  # naive UTC
        Index("rate_events_subject", "scope", "subject", "at"),
        sqlite_autoincrement=True,
    )
    return {"site_state": site_state, "site_secrets": site_secrets, "rate_events": rate_events}
