"""The backup plugin's tables: backup jobs (progress readable by any worker) and the admin's options.

They live in the site's database so that every server process sees them: a job started by one
worker is followed through another. Which process runs a backup is host.jobs' lease (jobs.py).
"""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, Integer, MetaData, String, Table, Text

JOBS = "backup_jobs"
OPTIONS = "backup_options"


def define_tables(metadata: MetaData) -> None:
    Table(
        JOBS, metadata,
        Column("id", Integer, primary_key=True),
        Column("trigger", String(20), nullable=False),  # rest | schedule | verify
        Column("status", String(20), nullable=False),  # running | done | failed
        Column("stage", String(20), nullable=False, default=""),  # tables | uploads
        Column("done", Integer, nullable=False, default=0),
        Column("total", Integer, nullable=False, default=0),
        Column("archive", String(200), nullable=False, default=""),
        Column("message", Text, nullable=False, default=""),
        Column("user_id", Integer, nullable=False, default=0),
        Column("holder", String(100), nullable=False, default=""),
        Column("created", DateTime, nullable=False),  # naive UTC, as every date here
        Column("finished", DateTime, nullable=True),
        Index("ix_backup_jobs_trigger_id", "trigger", "id"),
        sqlite_autoincrement=True,
    )
    # Settings an operator changed in the admin area (the schedule): a row wins over sitehost.toml,
    # in every server process, since a web page cannot rewrite the server's configuration file.
    Table(
        OPTIONS, metadata,
        Column("name", String(40), primary_key=True),
        Column("value", Text, nullable=False),
    )


def jobs_table(app) -> Table:
    return app.db.metadata.tables[JOBS]


def options_table(app) -> Table:
    return app.db.metadata.tables[OPTIONS]
