"""Benchmark of the WordPress import: an export of 10,000 posts with 30,000 comments.

    python -m tests.benchmarks.wordpress_migrate [--posts 10000] [--comments 3] [--postgres URL]

Writes the export with tests/wordpress_migrate/generate.py, then runs `sitehost import wordpress`
as its own process on a fresh SQLite site (and on a fresh PostgreSQL schema when --postgres or
SITEHOST_TEST_DATABASE_URL names a server), timing each run and reading its peak RSS, and runs the
import a second time on SQLite (everything unchanged). Budget: under 60 s on SQLite and 120 s on
PostgreSQL, peak RSS under 300 MB; each import's line says whether it met both. CPU seconds are
printed beside the wall time: on a shared machine the wall time also counts the waits for a core.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import uuid
from pathlib import Path

from tests.wordpress_migrate.generate import write_wxr

from .backup import run

BUDGET_SECONDS = {"SQLite": 60.0, "PostgreSQL": 120.0}
RSS_BUDGET_MB = 300


def new_site(work: Path, name: str, url: str) -> Path:
    import subprocess

    config = work / f"{name}.toml"
    config.write_text(f'database_url = "{url}"\nuploads_dir = "{work / (name + "-uploads")}"\n')
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    subprocess.run([sys.executable, "-m", "host.cli", "--config", str(config), "init"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    return config


def postgres_schema_url(server: str) -> str:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    schema = f"bench_{uuid.uuid4().hex[:10]}"
    with create_engine(server, isolation_level="AUTOCOMMIT").connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(server)
    return url.set(query={**url.query, "options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--posts", type=int, default=10_000)
    parser.add_argument("--comments", type=int, default=3, help="comments per post")
    parser.add_argument("--postgres", default=os.environ.get("SITEHOST_TEST_DATABASE_URL", ""))
    options = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="sitehost-wxr-bench-"))
    export = write_wxr(work / "export.xml", options.posts, options.comments)
    print(f"export: {options.posts:,} posts, {options.posts * options.comments:,} comments, "
          f"{export.stat().st_size / 1e6:.1f} MB", flush=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    targets = [("SQLite", f"sqlite:///{work / 'site.db'}")]
    if options.postgres.startswith("postgresql"):
        targets.append(("PostgreSQL", postgres_schema_url(options.postgres)))
    failures = []
    print("| run | wall s | CPU s | peak RSS MB | budget | summary |\n|---|---|---|---|---|---|", flush=True)

    def measured(label: str, command: list[str], budget_seconds: float | None) -> list[str]:
        """Run and print one line; what it missed of its budget (none given: nothing)."""
        seconds, rss, output, cpu = run(command, work, env)
        missed = []
        if budget_seconds is not None and seconds > budget_seconds:
            missed.append(f"{label}: {seconds:.1f} s > {budget_seconds:.0f} s")
        if budget_seconds is not None and rss > RSS_BUDGET_MB:
            missed.append(f"{label}: peak RSS {rss:.0f} MB > {RSS_BUDGET_MB} MB")
        verdict = "–" if budget_seconds is None else (
            f"{'NOT MET' if missed else 'met'} (< {budget_seconds:.0f} s, < {RSS_BUDGET_MB} MB)")
        print(f"| {label} | {seconds:.1f} | {cpu:.1f} | {rss:.0f} | {verdict} | {output.splitlines()[0]} |", flush=True)
        return missed

    for name, url in targets:
        config = new_site(work, name.lower(), url)
        command = [sys.executable, "-m", "host.cli", "--config", str(config), "import", "wordpress", str(export)]
        failures += measured(f"import -> {name}", command, BUDGET_SECONDS[name])
        if name == "SQLite":
            measured("second import -> SQLite", command, None)
    if failures:
        print("over budget: " + "; ".join(failures))
        return 1
    print(f"within budget (SQLite < 60 s, PostgreSQL < 120 s, peak RSS < {RSS_BUDGET_MB} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
