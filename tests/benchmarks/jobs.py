"""Benchmark of background jobs (host.jobs): queued jobs through several served nodes on one database.

    python -m tests.benchmarks.jobs [--jobs 500] [--nodes 2] [--postgres URL]

Starts `--nodes` real `sitehost serve` processes, each in its own folder, on one fresh database
(PostgreSQL with --postgres or SITEHOST_TEST_DATABASE_URL, else one SQLite file), with the probe plugin
of tests/host/jobprobe (each run of its `jobprobe.count` job writes one row). Queues `--jobs` jobs at
once and measures the time until every one ran, the jobs per second, how the work split over the
nodes, and the runs counted twice. Budget: no job runs twice, and at least 50 jobs a second through
two nodes.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text

from tests.host.test_jobs import FAST, Nodes, runs

JOBS_PER_SECOND_BUDGET = 50


def fresh_database(base: str | None, folder: Path) -> tuple[str, callable]:
    if not base:
        return f"sqlite:///{folder}/site.db", lambda: None
    name = f"sitehost_bench_jobs_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = base.rsplit("/", 1)[0] + f"/{name}"

    def drop():
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--postgres", default=os.environ.get("SITEHOST_TEST_DATABASE_URL", ""))
    options = parser.parse_args(argv)
    from host.app import create_app
    from host.config import Settings

    with tempfile.TemporaryDirectory() as folder:
        url, drop = fresh_database(options.postgres if options.postgres.startswith("postgresql") else None,
                                   Path(folder))
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host" / "jobprobe"))
        import sitehost_jobprobe

        settings = Settings(database_url=url, uploads_dir=f"{folder}/uploads", only_plugins=["jobprobe"],
                            extra_plugins=[sitehost_jobprobe])
        settings.extra["jobs"] = dict(FAST)
        control = create_app(settings)
        nodes = Nodes(Path(folder), url, FAST)
        try:
            for number in range(options.nodes):
                nodes.start(f"node-{number}")
            started = time.perf_counter()
            with control.db.session(write=True) as session, session.begin():
                for number in range(options.jobs):
                    control.jobs.enqueue("jobprobe.count", {"n": number}, session=session)
            while len(runs(control, "end", "jobprobe.count")) < options.jobs:
                time.sleep(0.05)
            seconds = time.perf_counter() - started
            time.sleep(1.0)
            done = runs(control, "end", "jobprobe.count")
        finally:
            nodes.stop_all()
            control.close()
            drop()
    twice = len(done) - len({row.job_id for row in done})
    split = collections.Counter(row.node for row in done)
    rate = options.jobs / seconds
    engine = "postgresql" if url.startswith("postgresql") else "sqlite"
    print("| engine | nodes | jobs | seconds | jobs/s | run twice | per node |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {engine} | {options.nodes} | {options.jobs} | {seconds:.2f} | {rate:.0f} | {twice} | "
          f"{', '.join(f'{node}: {count}' for node, count in sorted(split.items()))} |")
    met = twice == 0 and (options.nodes < 2 or rate >= JOBS_PER_SECOND_BUDGET)
    print(f"budget: no job twice, at least {JOBS_PER_SECOND_BUDGET} jobs/s through two nodes: "
          f"{'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
