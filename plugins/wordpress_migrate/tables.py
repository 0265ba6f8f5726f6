"""The importer's tables: the id map (old site's ids -> this site's), the old links that redirect,
and the runs started from the admin page (their progress line and summary)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, DateTime, Integer, MetaData, PrimaryKeyConstraint, String, Table, Text

ID_MAP, REDIRECTS, RUNS = "wordpress_id_map", "wordpress_redirects", "wordpress_import_runs"


def define_tables(metadata: MetaData) -> None:
    # kind: post (every post type), term, user, comment. fingerprint: a digest of what the file said
    # about the item when it was imported, so a second run tells "unchanged" from "updated" without
    # reading the item back.
    Table(ID_MAP, metadata,
          Column("kind", String(20), nullable=False),
          Column("old_id", BigInteger, nullable=False),
          Column("new_id", Integer, nullable=False),
          Column("fingerprint", String(64), nullable=False, default=""),
          PrimaryKeyConstraint("kind", "old_id"))
    # An old permalink's path (and query), normalised by redirects.old_path, -> the item it now is.
    Table(REDIRECTS, metadata,
          Column("path", String(500), primary_key=True),
          Column("new_id", Integer, nullable=False))
    Table(RUNS, metadata,
          Column("id", Integer, primary_key=True),
          Column("file_name", String(255), nullable=False),
          Column("state", String(20), nullable=False),  # checking, importing, finished, failed
          Column("bytes_total", BigInteger, nullable=False, default=0),
          Column("bytes_done", BigInteger, nullable=False, default=0),
          Column("summary", Text, nullable=False, default=""),
          Column("error", Text, nullable=False, default=""),
          Column("user_id", Integer, nullable=False, default=0),
          Column("started_gmt", DateTime, nullable=False),
          Column("updated_gmt", DateTime, nullable=False),
          Column("finished_gmt", DateTime, nullable=True),
          sqlite_autoincrement=True)


def tables(app) -> dict[str, Table]:
    found = app.db.metadata.tables
    return {name: found[name] for name in (ID_MAP, REDIRECTS, RUNS)}
