"""The builder's own tables: the kit, site options, per-user editor data, usage events, and an
index of which content items are builder documents (kept by the content events)."""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, Integer, String, Table, Text, UniqueConstraint

KITS = "builder_kits"
OPTIONS = "builder_options"
FAVORITES = "builder_favorites"
USER_DATA = "builder_user_data"
EVENTS = "builder_events"
DOCUMENTS = "builder_documents"


def define_tables(metadata) -> None:
    Table(KITS, metadata,
          Column("id", Integer, primary_key=True),
          Column("title", String(200), nullable=False),
          Column("settings", Text, nullable=False),  # JSON: system/custom colours and typography
          Column("element_defaults", Text, nullable=False),  # JSON: {element type: settings}
          Column("version", Integer, nullable=False, default=1),  # bumped by every change: render cache key
          Column("modified_gmt", DateTime, nullable=False))
    Table(OPTIONS, metadata,
          Column("key", String(80), primary_key=True),
          Column("value", Text, nullable=False))  # JSON
    Table(FAVORITES, metadata,
          Column("id", Integer, primary_key=True),
          Column("user_id", Integer, nullable=False),
          Column("type", String(40), nullable=False),
          Column("slug", String(100), nullable=False),
          Column("created_gmt", DateTime, nullable=False),
          UniqueConstraint("user_id", "type", "slug", name="uq_builder_favorites"))
    Table(USER_DATA, metadata,
          Column("user_id", Integer, nullable=False, primary_key=True),
          Column("key", String(80), nullable=False, primary_key=True),
          Column("value", Text, nullable=False))  # JSON
    events = Table(EVENTS, metadata,
                   Column("id", Integer, primary_key=True),
                   Column("user_id", Integer, nullable=False),
                   Column("name", String(100), nullable=False),
                   Column("data", Text, nullable=False),  # JSON, bounded by settings.max_event_bytes
                   Column("created_gmt", DateTime, nullable=False))
    Index("ix_builder_events_name", events.c.name)
    Table(DOCUMENTS, metadata,
          Column("post_id", Integer, primary_key=True),
          Column("type", String(40), nullable=False),
          Column("template_type", String(40), nullable=False, default=""),
          Column("modified_gmt", DateTime, nullable=False))


def table(app, name: str):
    """This app's table `name` (each app has its own MetaData)."""
    return app.db.metadata.tables[name]
