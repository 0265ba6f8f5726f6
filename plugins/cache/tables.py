"""The cache plugin's tables: the shared invalidation counter, small state, optimisation results.

`cache_version` is what makes invalidation reach every server process: one row per kind of
write (store.FAMILIES, row id = position + 1), and the in-memory response cache of each process
trusts an entry only while the versions of the families it is built from still equal the ones
that were current when the cached response was built.
"""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Index, Integer, MetaData, String, Table, Text, UniqueConstraint


def define_tables(metadata: MetaData) -> None:
    Table(
        "cache_version", metadata,
        Column("id", Integer, primary_key=True),  # one row per family of writes (store.FAMILIES)
        Column("version", Integer, nullable=False, default=0),
    )
    Table(
        "cache_state", metadata,
        Column("key", String(100), primary_key=True),
        Column("value", JSON, nullable=True),
    )
    Table(
        "cache_image_results", metadata,
        Column("id", Integer, primary_key=True),
        Column("row_key", String(40), nullable=False),  # the optimisation service's working-row id
        Column("attachment_id", Integer, nullable=False),
        Column("file_id", Integer, nullable=False, default=0),
        Column("server", String(255), nullable=False),
        Column("status", String(40), nullable=False),
        Column("src_size", Integer, nullable=False, default=0),
        Column("ori_reduced", Integer, nullable=False, default=0),
        Column("webp_reduced", Integer, nullable=False, default=0),
        Column("avif_reduced", Integer, nullable=False, default=0),
        Column("details", JSON, nullable=True),
        Column("updated", DateTime, nullable=False),
        UniqueConstraint("row_key", name="uq_cache_image_results_row"),
        Index("ix_cache_image_results_attachment", "attachment_id"),
    )
    Table(
        "cache_page_results", metadata,
        Column("id", Integer, primary_key=True),
        Column("kind", String(10), nullable=False),  # ccss | ucss | vpi
        Column("queue_k", String(200), nullable=False),
        Column("request_url", Text, nullable=False),
        Column("payload", Text, nullable=False),
        Column("updated", DateTime, nullable=False),
        UniqueConstraint("kind", "queue_k", name="uq_cache_page_results_key"),
    )


def tables(app) -> dict[str, Table]:
    return app.db.metadata.tables
