"""The url-details cache: what a URL's page said, kept for `cache_ttl_seconds`."""

from __future__ import annotations

from sqlalchemy import Column, DateTime, MetaData, String, Table, Text


def define_tables(metadata: MetaData) -> None:
    Table(
        "block_editor_url_details", metadata,
        Column("url_hash", String(64), primary_key=True),  # SHA-256 of the URL: URLs are long, keys stay short
        Column("url", Text, nullable=False),
        Column("details", Text, nullable=False),  # JSON: title, icon, description, image
        Column("fetched_at", DateTime, nullable=False),
    )
