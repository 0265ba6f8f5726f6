"""The host's own table: facts about the site installation itself."""

from __future__ import annotations

from sqlalchemy import Column, MetaData, String, Table, Text


def define_host_tables(metadata: MetaData) -> dict[str, Table]:
    site_state = Table(
        "site_state", metadata,
        Column("key", String(100), primary_key=True),
        Column("value", Text, nullable=False, default=""),
    )
    return {"site_state": site_state}
