"""A test plugin whose jobs leave their side effects in the database, so a test counts them.

Installed as a package (a `.dist-info` on PYTHONPATH) into served processes by tests/host/test_jobs.py.
Each row of `jobprobe_runs` is one step of one run: which job, its host job id, the node (the folder of
its sitehost.toml) and the phase (`start`, `end`, `tick`).
"""

from __future__ import annotations

import datetime
import os
import time
from pathlib import Path

from sqlalchemy import Column, DateTime, Integer, String, Table, insert

from host import PluginInfo, hookimpl
from host.jobs import Job

PLUGIN = PluginInfo(name="jobprobe", version="1.0", description="Counts the runs of its jobs (tests only).")
TICK_SECONDS = 2.0


@hookimpl
def register_tables(metadata):
    Table("jobprobe_runs", metadata,
          Column("id", Integer, primary_key=True),
          Column("job", String(40), nullable=False),
          Column("job_id", Integer, nullable=False),
          Column("node", String(200), nullable=False),
          Column("phase", String(10), nullable=False),
          Column("at", DateTime, nullable=False))


@hookimpl
def register_jobs():
    return [Job("jobprobe.count", count), Job("jobprobe.slow", slow), Job("jobprobe.fail", fail),
            Job("jobprobe.tick", tick, every=TICK_SECONDS)]


def record(context, phase: str) -> None:
    app = context.app
    config = app.settings.config_file
    node = Path(config).parent.name if config else f"pid-{os.getpid()}"
    with app.db.session(write=True) as session, session.begin():
        session.execute(insert(app.db.metadata.tables["jobprobe_runs"]).values(
            job=context.name, job_id=context.job_id, node=node, phase=phase,
            at=datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)))


def count(context) -> None:
    record(context, "end")


def slow(context) -> None:
    """Runs `seconds` (longer than a lease: the worker renews it), then records its end."""
    record(context, "start")
    deadline = time.monotonic() + float(context.payload.get("seconds", 1))
    while time.monotonic() < deadline:
        context.check()
        time.sleep(0.05)
    record(context, "end")


def fail(context) -> None:
    record(context, "start")
    raise RuntimeError("the probe fails on purpose")


def tick(context) -> None:
    record(context, "tick")
