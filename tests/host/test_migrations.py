"""Table migrations (host.migrations): a plugin's revisions in its own migrations/ folder and version table.

A third-party plugin, `shelf`, is installed as pip would (a package and its .dist-info on the path of real
`sitehost` processes). Release 1 has a table and no migrations; release 2 adds a column to it with one
revision. Sites move from one to the other through `sitehost serve` and `sitehost migrate`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool

from host.testing import start_sitehost, stop_sitehost

INIT = '''\
"""A bookshelf: one table, one list route."""

from host import Namespace, PluginInfo, Route, hookimpl

PLUGIN = PluginInfo(name="shelf", version="RELEASE")


@hookimpl
def register_tables(metadata):
    from .tables import define_tables

    define_tables(metadata)


@hookimpl
def register_namespaces():
    return [Namespace("shelf/v1", description="Books")]


@hookimpl
def register_routes():
    from .tables import list_books

    return [Route("shelf/v1", "/books", "GET", list_books)]
'''

TABLES_1 = '''\
from sqlalchemy import Column, Integer, String, Table, select


def define_tables(metadata):
    Table("shelf_books", metadata,
          Column("id", Integer, primary_key=True),
          Column("title", String(200), nullable=False))


def list_books(request):
    books = request.app.db.metadata.tables["shelf_books"]
    return [dict(row._mapping) for row in request.session.execute(select(books).order_by(books.c.id))]
'''

TABLES_2 = TABLES_1.replace(
    '''          Column("title", String(200), nullable=False))''',
    '''          Column("title", String(200), nullable=False),
          Column("pages", Integer, nullable=False, server_default="0"))''')

PAGES_REVISION = '''\
"""Books have a page count."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade():
    with op.batch_alter_table("shelf_books") as batch:
        batch.add_column(sa.Column("pages", sa.Integer, nullable=False, server_default="0"))


def downgrade():
    with op.batch_alter_table("shelf_books") as batch:
        batch.drop_column("pages")
'''


def install_shelf(site_packages, release: int) -> None:
    """Write release 1 or 2 of the shelf plugin over the installed one, with its dist-info, as pip would."""
    package = site_packages / "sitehost_shelf"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(INIT.replace("RELEASE", f"{release}.0"))
    (package / "tables.py").write_text(TABLES_1 if release == 1 else TABLES_2)
    migrations = package / "migrations"
    if release == 2:
        migrations.mkdir(exist_ok=True)
        (migrations / "0001_pages.py").write_text(PAGES_REVISION)
    for old in site_packages.glob("sitehost_shelf-*.dist-info"):
        for file in old.iterdir():
            file.unlink()
        old.rmdir()
    dist_info = site_packages / f"sitehost_shelf-{release}.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sitehost-shelf\nVersion: {release}.0\n")
    (dist_info / "entry_points.txt").write_text("[sitehost]\nshelf = sitehost_shelf\n")


@pytest.fixture
def shelf_site(make_app, tmp_path):
    """A site (core and shelf release 1) whose `sitehost` processes find the shelf plugin: (folder, env, url)."""
    site_packages = tmp_path / "site-packages"
    install_shelf(site_packages, 1)
    url = make_app(plugins=["core"]).db.url.render_as_string(hide_password=False)  # an empty site's database
    from plugins import BUILTIN

    # Only core and the shelf: the other built-ins' tables are not what these tests are about.
    others = ", ".join(f'"{name}"' for name in BUILTIN if name != "core")
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "sitehost.toml").write_text(f'database_url = "{url}"\nuploads_dir = "uploads"\n'
                                          f'[mail]\neml_dir = "mail"\n[plugins]\ndisabled = [{others}]\n')
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    env["PYTHONPATH"] = os.pathsep.join([str(site_packages), env.get("PYTHONPATH", "")])
    return folder, env, url, site_packages


def sitehost(folder, env, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "host.cli", "--config", str(folder / "sitehost.toml"), *args],
                          capture_output=True, text=True, env=env, cwd=str(folder), timeout=120)


def served_books(folder, env) -> tuple[int, list]:
    """Start `sitehost serve`, read shelf/v1/books over HTTP, stop it."""
    import requests

    process, rest = start_sitehost(folder / "sitehost.toml", "--workers", "1", "--quiet", env=env)
    try:
        answer = requests.get(f"{rest}/shelf/v1/books", timeout=30)
        health = requests.get(rest.rsplit("/", 1)[0] + "/-/health", timeout=30)
        assert health.status_code == 200, health.text  # the tables are what the metadata says
        return answer.status_code, answer.json()
    finally:
        stop_sitehost(process)


def columns(url: str, table: str) -> list[str]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            found = inspect(connection)
            return [column["name"] for column in found.get_columns(table)] if found.has_table(table) else []
    finally:
        engine.dispose()


def versions(url: str, plugin: str) -> list[str] | None:
    """The rows of the plugin's version table, None when it has none."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            if not inspect(connection).has_table(f"alembic_version_{plugin}"):
                return None
            return [row[0] for row in connection.execute(text(f"SELECT version_num FROM alembic_version_{plugin}"))]
    finally:
        engine.dispose()


def add_book(url: str, title: str) -> None:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO shelf_books (title) VALUES (:title)"), {"title": title})
    finally:
        engine.dispose()


def test_a_plugins_new_revision_adds_its_column_at_the_next_start(shelf_site):
    """Release 1 made its table without migrations; release 2's revision runs once at start, and keeps the rows."""
    folder, env, url, site_packages = shelf_site
    assert served_books(folder, env) == (200, [])
    assert columns(url, "shelf_books") == ["id", "title"]
    assert versions(url, "shelf") is None  # release 1 has no migrations folder: no version table
    add_book(url, "Matilda")
    install_shelf(site_packages, 2)
    status = sitehost(folder, env, "migrate", "--dry-run")
    assert status.returncode == 0, status.stderr
    assert "shelf: at base, would run 1 revision: 0001" in status.stdout.splitlines()
    assert "core: at 0001 (current)" in status.stdout.splitlines()
    assert columns(url, "shelf_books") == ["id", "title"]  # a dry run changes nothing
    assert served_books(folder, env) == (200, [{"id": 1, "title": "Matilda", "pages": 0}])
    assert versions(url, "shelf") == ["0001"]
    again = sitehost(folder, env, "migrate")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == ["core: at 0001 (current)", "shelf: at 0001 (current)"]


def test_sitehost_migrate_runs_the_revisions_and_says_so(shelf_site):
    folder, env, url, site_packages = shelf_site
    assert served_books(folder, env) == (200, [])
    install_shelf(site_packages, 2)
    done = sitehost(folder, env, "migrate")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["core: at 0001 (current)", "shelf: base -> 0001 (1 revision: 0001)"]
    assert "shelf's tables migrated from base to 0001" in done.stderr  # the log
    assert columns(url, "shelf_books") == ["id", "title", "pages"]


def test_a_new_site_gets_the_newest_tables_stamped_without_running_revisions(shelf_site):
    folder, env, url, site_packages = shelf_site
    install_shelf(site_packages, 2)
    done = sitehost(folder, env, "migrate")
    assert done.returncode == 0, done.stderr
    assert "shelf: tables created at 0001" in done.stdout.splitlines()
    assert "migrated" not in done.stderr
    assert columns(url, "shelf_books") == ["id", "title", "pages"]
    assert versions(url, "shelf") == ["0001"]


def test_a_disabled_plugins_tables_are_left_alone_until_it_is_enabled(shelf_site):
    folder, env, url, site_packages = shelf_site
    assert served_books(folder, env) == (200, [])
    add_book(url, "Holes")
    disabled = sitehost(folder, env, "plugins", "disable", "shelf")
    assert disabled.returncode == 0, disabled.stderr
    install_shelf(site_packages, 2)
    status = sitehost(folder, env, "migrate", "--dry-run")
    assert status.stdout.splitlines() == ["core: at 0001 (current)"]
    done = sitehost(folder, env, "migrate")
    assert done.stdout.splitlines() == ["core: at 0001 (current)"]
    process, rest = start_sitehost(folder / "sitehost.toml", "--workers", "1", "--quiet", env=env)
    try:
        import requests

        assert requests.get(f"{rest}/shelf/v1/books", timeout=30).status_code == 404
    finally:
        stop_sitehost(process)
    assert columns(url, "shelf_books") == ["id", "title"]
    assert versions(url, "shelf") is None
    assert sitehost(folder, env, "plugins", "enable", "shelf").returncode == 0
    assert served_books(folder, env) == (200, [{"id": 1, "title": "Holes", "pages": 0}])
    assert versions(url, "shelf") == ["0001"]


def test_processes_starting_together_run_a_revision_once(shelf_site):
    """Three `sitehost migrate` at once: the start-up lock lets one run the revision, the others find it done."""
    folder, env, url, site_packages = shelf_site
    assert served_books(folder, env) == (200, [])
    install_shelf(site_packages, 2)
    with ThreadPoolExecutor(3) as pool:
        runs = list(pool.map(lambda _number: sitehost(folder, env, "migrate"), range(3)))
    assert [run.returncode for run in runs] == [0, 0, 0], [run.stderr for run in runs]
    lines = sorted(line for run in runs for line in run.stdout.splitlines() if line.startswith("shelf:"))
    assert lines == ["shelf: at 0001 (current)"] * 2 + ["shelf: base -> 0001 (1 revision: 0001)"]
    assert columns(url, "shelf_books") == ["id", "title", "pages"]


def test_migrate_needs_a_site(tmp_path):
    (tmp_path / "sitehost.toml").write_text('database_url = "sqlite:///absent.db"\n')
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    done = sitehost(tmp_path, env, "migrate")
    assert done.returncode == 1
    assert "no site here" in done.stderr
    assert not (tmp_path / "absent.db").exists()


def test_revisions_of_a_newer_release_are_left_alone(shelf_site):
    """A database a newer release migrated (a revision this release does not know): served as it is, with a warning."""
    folder, env, url, site_packages = shelf_site
    install_shelf(site_packages, 2)
    assert sitehost(folder, env, "migrate").returncode == 0
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version_shelf SET version_num = '0002'"))
    finally:
        engine.dispose()
    done = sitehost(folder, env, "migrate")
    assert done.returncode == 0, done.stderr
    assert "shelf: at 0002, a revision this release does not know (a newer release migrated it)" in done.stdout
    assert "which this release does not know" in done.stderr
    assert served_books(folder, env) == (200, [])

