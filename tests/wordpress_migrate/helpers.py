"""Running `sitehost import wordpress` against a test site's database (SQLite file or PostgreSQL schema)."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import func, select

from host.cli import main

DATA = Path(__file__).resolve().parent / "data"
SITE_FILE = DATA / "hillside.wxr"
UPLOADS = DATA / "uploads"
OLD = "https://old.hillside.example"


def write_config(app, folder: Path) -> Path:
    """A sitehost.toml naming the test app's database and uploads, for the command and a served process."""
    config = folder / "sitehost.toml"
    config.write_text(f"database_url = {app.settings.database_url!r}\nuploads_dir = {app.settings.uploads_dir!r}\n"
                      f"\n[site]\ntimezone_string = \"Europe/London\"\n", encoding="utf-8")
    return config


def run_import(config: Path, *args: str):
    """`sitehost --config CONFIG import wordpress ARGS` in-process (click's runner), environment cleaned."""
    unset = {key: None for key in os.environ if key.startswith("SITEHOST_")}
    return CliRunner().invoke(main, ["--config", str(config), "import", "wordpress", *args], env=unset,
                              catch_exceptions=False)


def count_rows(app, table: str, **where) -> int:
    found = app.db.metadata.tables[table]
    statement = select(func.count()).select_from(found)
    for column, value in where.items():
        statement = statement.where(found.c[column] == value)
    with app.db.session() as session:
        return session.execute(statement).scalar()
