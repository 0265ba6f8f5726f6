"""A witness for tests/cluster/: every node records each content_saved it fires, in the shared database.

Installed into the three nodes through an entry point (never imported by the suite itself), so that
"a scheduled post went live once" is counted where it happens: one row per event, whichever node fired it.
"""

from sqlalchemy import Boolean, Column, Integer, String, Table, insert

from host import PluginInfo, hookimpl

PLUGIN = PluginInfo(name="witness", version="1.0", description="Counts content_saved events (tests/cluster).")
TABLE = "witness_saved"


@hookimpl
def register_tables(metadata):
    Table(TABLE, metadata, Column("id", Integer, primary_key=True), Column("item", Integer, nullable=False),
          Column("type", String(40), nullable=False), Column("status", String(40), nullable=False),
          Column("created", Boolean, nullable=False))


@hookimpl
def content_saved(app, event):
    table = app.db.metadata.tables[TABLE]
    with app.db.session(write=True) as session, session.begin():
        session.execute(insert(table).values(item=event.id, type=event.type, status=event.status,
                                             created=bool(event.created)))
