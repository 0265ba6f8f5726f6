"""Rolling upgrades: a newer node makes its table changes once, under the start-up lock,
and an older node that starts meanwhile serves without changing them back."""

from __future__ import annotations

import copy
import logging
import os
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import delete, insert, select

from host.app import create_app
from host.testing import start_sitehost, stop_sitehost
from host.upgrades import SCHEMA_RELEASE_KEY, code_release

NEWER = "999.0"
OLDER = "0.0.1"


def stored_release(app):
    site_state = app.host_tables["site_state"]
    with app.db.session() as session:
        return session.execute(select(site_state.c.value).where(site_state.c.key == SCHEMA_RELEASE_KEY)).scalar()


def mark_release(app, release):
    site_state = app.host_tables["site_state"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(site_state).where(site_state.c.key == SCHEMA_RELEASE_KEY))
        session.execute(insert(site_state).values(key=SCHEMA_RELEASE_KEY, value=release))


def term_count_triggers(app) -> set[str]:
    with app.db.engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            query = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'term_count_%'"
        else:
            query = ("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND left(tgname, 11) = 'term_count_' "
                     "AND tgrelid IN ('posts'::regclass, 'term_relationships'::regclass)")
        return {row[0] for row in connection.exec_driver_sql(query)}


def drop_term_count_triggers(app) -> None:
    with app.db.engine.begin() as connection:
        for name in term_count_triggers(app):
            if connection.dialect.name == "sqlite":
                connection.exec_driver_sql(f'DROP TRIGGER "{name}"')
            else:
                for table in ("posts", "term_relationships"):
                    connection.exec_driver_sql(f'DROP TRIGGER IF EXISTS "{name}" ON {table}')


def another_node(app):
    """A second App on the same database, as a second node starting."""
    return create_app(copy.deepcopy(app.settings))


def test_a_new_site_records_the_release_that_made_its_tables(make_app):
    app = make_app(plugins=["core"])
    assert app.schema_changes_allowed is True
    assert stored_release(app) == code_release()


def test_a_newer_node_makes_its_changes_and_records_its_release(make_app, caplog):
    app = make_app(plugins=["core"])
    made = term_count_triggers(app)
    drop_term_count_triggers(app)
    mark_release(app, OLDER)  # the database as an older release left it
    with caplog.at_level(logging.INFO, logger="sitehost"):
        node = another_node(app)
    try:
        assert node.schema_changes_allowed is True
        assert term_count_triggers(node) == made
        assert stored_release(node) == code_release()
        assert f"table changes of sitehost {code_release()} made (the database was at {OLDER})" in caplog.text
    finally:
        node.close()


def test_an_older_node_serves_without_undoing_a_newer_nodes_changes(make_app, caplog):
    app = make_app(plugins=["core"])
    drop_term_count_triggers(app)  # stands for what the newer release changed
    mark_release(app, NEWER)
    with caplog.at_level(logging.WARNING, logger="sitehost"):
        node = another_node(app)
    try:
        assert node.schema_changes_allowed is False
        assert term_count_triggers(node) == set()  # left as the newer release made it
        assert stored_release(node) == NEWER
        assert f"last changed by sitehost {NEWER}, newer than this node's {code_release()}" in caplog.text
        from webtest import TestApp

        client = TestApp(node, extra_environ={"HTTP_HOST": "school.test"})
        assert client.get("/-/health").text == "ok\n"
        assert client.get("/wp-json/core/v2/posts").status_int == 200
    finally:
        node.close()


def test_nodes_starting_together_make_the_changes_once(make_app, tmp_path):
    """Three `sitehost serve` processes in three folders start at once on a database an older release left."""
    app = make_app(plugins=["core"])
    drop_term_count_triggers(app)
    mark_release(app, OLDER)
    url = app.db.url.render_as_string(hide_password=False)
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    env["SITEHOST_DISABLE"] = ",".join(record.name for record in app.plugin_records if record.name != "core")
    folders = []
    for number in range(3):
        folder = tmp_path / f"node{number}"
        folder.mkdir()
        (folder / "sitehost.toml").write_text(f'database_url = "{url}"\nuploads_dir = "uploads"\n'
                                             f'[mail]\neml_dir = "mail"\n')
        folders.append(folder)

    def start(folder):
        return start_sitehost(folder / "sitehost.toml", "--workers", "1", "--quiet", env=env,
                              global_args=("--log-file", str(folder / "sitehost.log")))

    with ThreadPoolExecutor(3) as pool:
        started = list(pool.map(start, folders))
    for process, _rest in started:
        stop_sitehost(process)
    logs = [(folder / "sitehost.log").read_text() for folder in folders]
    assert sum("table changes of sitehost" in text for text in logs) == 1, logs
    assert not any("Traceback" in text for text in logs)
    assert stored_release(app) == code_release()
    assert term_count_triggers(app)
