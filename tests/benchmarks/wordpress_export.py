"""Benchmark of the WordPress export: `sitehost export wordpress` of 10,000 posts with 30,000 comments.

    python -m tests.benchmarks.wordpress_export [--posts 10000] [--comments 30000] [--postgres URL]

Seeds an SQLite site (tests/benchmarks/seed.py: school news posts of about 2 KB, categories, tags)
and threaded comments in several statuses spread over the posts, then runs the export as its own
process and reports its wall time, CPU time and peak RSS (VmHWM), and the file's size; with
--postgres (or SITEHOST_TEST_DATABASE_URL naming PostgreSQL) the same on a PostgreSQL schema.

Budget: the import's (10,000 posts with 30,000 comments in under 60 s on SQLite and 120 s on
PostgreSQL, peak memory under 300 MB); the export is held to the same lines.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import os
import sys
import tempfile
import uuid
from pathlib import Path

from .backup import run
from .seed import seed

RSS_BUDGET_MB = 300
TIME_BUDGET_SECONDS = {"SQLite": 60, "PostgreSQL": 120}
STATUSES = ("approved", "approved", "hold", "approved", "spam", "trash")


def add_comments(database_url: str, config: Path, count: int) -> None:
    """`count` comments over the site's posts, three per post in turn: a comment, a reply to it, and
    another comment, in the statuses of STATUSES (bulk inserts: the replies after their parents)."""
    from sqlalchemy import func, insert, select

    from host.app import create_app
    from host.config import load_settings

    app = create_app(load_settings(config, env={}, database_url=database_url, disabled=[]))
    try:
        posts, comments = app.db.metadata.tables["posts"], app.db.metadata.tables["comments"]
        moment = datetime.datetime(2025, 3, 1, 9, 0)
        with app.db.engine.begin() as connection:
            post_ids = list(connection.execute(select(posts.c.id).where(posts.c.type == "post")
                                               .order_by(posts.c.id)).scalars())

            def row(number: int) -> dict:
                content = f"<p>Comment {number}: thank you for the news, Größe & café ]]> noted.</p>"
                status = STATUSES[number % len(STATUSES)]
                when = moment + datetime.timedelta(minutes=number)
                return {"post": post_ids[(number // 3) % len(post_ids)], "parent": 0, "author": None,
                        "author_name": f"Parent {number}", "author_email": f"parent{number}@example.org",
                        "author_url": "", "author_ip": f"203.0.113.{number % 250}", "author_user_agent": "bench",
                        "date": when, "date_gmt": when, "content": content,
                        "content_hash": hashlib.sha256(content.encode()).hexdigest(), "status": status,
                        "pre_trash_status": "approved" if status == "trash" else "", "type": "comment"}

            firsts = [row(number) for number in range(count) if number % 3 != 1]
            for start in range(0, len(firsts), 5000):
                connection.execute(insert(comments), firsts[start:start + 5000])
            first_of_post = dict(connection.execute(select(comments.c.post, func.min(comments.c.id))
                                                    .group_by(comments.c.post)).all())
            replies = [dict(row(number), parent=0) for number in range(count) if number % 3 == 1]
            for reply in replies:
                reply["parent"] = first_of_post[reply["post"]]
            for start in range(0, len(replies), 5000):
                connection.execute(insert(comments), replies[start:start + 5000])
    finally:
        app.close()


def measure(label: str, work: Path, config: Path, env: dict) -> tuple:
    target = work / f"export-{label}.xml"
    seconds, rss, output, cpu = run([sys.executable, "-m", "host.cli", "--config", str(config), "export",
                                     "wordpress", "--out", str(target)], work, env)
    return label, seconds, cpu, rss, target.stat().st_size / 1e6, output.strip().splitlines()[-1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--posts", type=int, default=10_000)
    parser.add_argument("--comments", type=int, default=30_000)
    parser.add_argument("--postgres", default=os.environ.get("SITEHOST_TEST_DATABASE_URL", ""))
    parser.add_argument("--keep", action="store_true", help="Keep the working folder.")
    options = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="sitehost-wxr-export-bench-"))
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    rows = []
    database = work / "site.db"
    config = work / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{database}"\nuploads_dir = "{work / "uploads"}"\n')
    print(f"seeding {options.posts:,} posts and {options.comments:,} comments in {work} ...", flush=True)
    seed(config, database, options.posts)
    add_comments(f"sqlite:///{database}", config, options.comments)
    rows.append(measure("SQLite", work, config, env))
    if options.postgres.startswith("postgresql"):
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        admin = create_engine(options.postgres, isolation_level="AUTOCOMMIT")
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        with admin.connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = make_url(options.postgres)
        target = url.set(query={**url.query, "options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
        pg_config = work / "sitehost-pg.toml"
        pg_config.write_text(f'database_url = "{target}"\nuploads_dir = "{work / "uploads"}"\n')
        try:
            seed(pg_config, work / "unused.db", options.posts, database_url=target)
            add_comments(target, pg_config, options.comments)
            rows.append(measure("PostgreSQL", work, pg_config, env))
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            admin.dispose()
    print()
    print(f"| sitehost export wordpress ({options.posts:,} posts, {options.comments:,} comments) "
          "| wall s | CPU s | peak RSS MB | file MB |")
    print("|---|---:|---:|---:|---:|")
    for label, seconds, cpu, rss, size, _summary in rows:
        print(f"| {label} | {seconds:.1f} | {cpu:.1f} | {rss:.0f} | {size:.0f} |")
    met = True
    for label, seconds, _cpu, rss, _size, summary in rows:
        print(f"{label}: {summary}")
        time_ok, rss_ok = seconds < TIME_BUDGET_SECONDS[label], rss < RSS_BUDGET_MB
        met = met and time_ok and rss_ok
        print(f"budget: {label} export {seconds:.1f} s < {TIME_BUDGET_SECONDS[label]} s: {'met' if time_ok else 'NOT MET'}; "
              f"peak RSS {rss:.0f} MB < {RSS_BUDGET_MB} MB: {'met' if rss_ok else 'NOT MET'}")
    if options.keep:
        print(f"kept {work}")
    else:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
