"""The oEmbed plugin's table: the proxy's cache of remote answers."""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Index, String, Table


def define_tables(metadata) -> None:
    Table(
        "oembed_proxy_cache", metadata,
        Column("key", String(64), primary_key=True),  # sha256 of the request's params
        Column("data", JSON, nullable=False),
        Column("expires", DateTime, nullable=False),
        Index("ix_oembed_proxy_cache_expires", "expires"),
    )
