"""Running `sitehost newsletter ...` in-process against a test app's database."""

from __future__ import annotations

import json

from click.testing import CliRunner

from host.cli import main


def write_config(app, folder, mail: dict | None = None, site_url: str = "https://school.example"):
    """A sitehost.toml naming the app's database (SQLite file or PostgreSQL schema) and mail settings."""
    lines = [f"database_url = {json.dumps(app.settings.database_url)}", "", "[site]", f"url = {json.dumps(site_url)}"]
    if mail:
        lines += ["", "[mail]"] + [f"{key} = {json.dumps(value)}" for key, value in mail.items()]
    path = folder / "sitehost.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(config, *args: str, input_text: str | None = None):
    result = CliRunner().invoke(main, ["--config", str(config), "newsletter", *args], input=input_text,
                                catch_exceptions=False)
    return result
