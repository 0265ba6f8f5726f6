"""The host's own tables: facts about the site installation itself, and the site's secrets."""

from __future__ import annotations

from sqlalchemy import Column, MetaData, String, Table, Text


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
    return {"site_state": site_state, "site_secrets": site_secrets}
