"""On PostgreSQL the cache hears new versions through LISTEN/NOTIFY instead of a SELECT per hit.

A real `sitehost serve` process and this test process share one PostgreSQL schema: a write here
must empty the served process's cache, also when its listening connection was cut (a missed
notification), and a hit costs no query.
"""

from __future__ import annotations

import os
import time

import pytest
from sqlalchemy import event

from host.testing import client_as, create_test_user, stop_sitehost
from tests.host.test_serve import fetch, start_server

from plugins.cache.runtime import runtime_of
from plugins.cache.store import PostgresVersionListener, report_prefix

from .helpers import NOTES

REST = "/wp-json"

pytestmark = pytest.mark.skipif(
    not os.environ.get("SITEHOST_TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="LISTEN/NOTIFY is PostgreSQL's; SQLite files use PRAGMA data_version (test_version_reads.py)")


def listener_of(app):
    reader = runtime_of(app).cache._reader
    assert isinstance(reader, PostgresVersionListener)
    assert reader.wait_until_trusted()
    return reader


def test_a_hit_costs_no_query_and_a_write_is_heard_at_once(cache_app):
    app = cache_app()
    listener_of(app)
    editor = client_as(app, create_test_user(app, "editor"))
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "miss"
    statements = []
    event.listen(app.db.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    for _ in range(20):
        assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    assert statements == []
    editor.post_json(REST + NOTES, {"title": "Fresh", "status": "publish"}, status=201)
    response = app.client.get(REST + NOTES)
    assert response.headers["X-Cache"] == "miss" and response.json[0]["title"] == "Fresh"


def test_a_write_in_a_process_alone_purges_in_one_statement(cache_app):
    """A lone process's write bumps the version, notifies and finds nobody else listening in one
    statement, run in autocommit: no transaction around it, and no second look at who listens."""
    app = cache_app()
    listener_of(app)
    editor = client_as(app, create_test_user(app, "editor"))
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "miss"
    statements = []

    def note(connection, _cursor, statement, *_rest):
        statements.append((statement, connection.connection.driver_connection.autocommit))

    event.listen(app.db.engine, "before_cursor_execute", note)
    editor.post_json(REST + NOTES, {"title": "Fresh", "status": "publish"}, status=201)
    event.remove(app.db.engine, "before_cursor_execute", note)
    purges = [(statement, autocommit) for statement, autocommit in statements
              if "cache_version" in statement or "pg_stat_activity" in statement]
    assert len(purges) == 1, purges
    statement, autocommit = purges[0]
    assert "pg_notify" in statement and "pg_stat_activity" in statement and autocommit is True
    assert listener_of(app).late_acknowledgements == 0
    response = app.client.get(REST + NOTES)
    assert response.headers["X-Cache"] == "miss" and [note["title"] for note in response.json] == ["Fresh"]
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"


def test_a_served_process_hears_writes_also_after_losing_its_listening_connection(cache_app, tmp_path,
                                                                                   example_plugin):
    local = cache_app()
    listener_of(local)
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "{local.settings.database_url}"\n[plugins]\ndisabled = ["core"]\n'
                      f'[plugins.cache]\npaths = ["{NOTES}"]\n')
    pythonpath = os.pathsep.join([str(example_plugin["site_packages"]), str(example_plugin["source"]),
                                  os.environ.get("PYTHONPATH", "")])
    process, rest = start_server(config, env={"PYTHONPATH": pythonpath})
    try:
        editor = client_as(local, create_test_user(local, "editor"))

        def served_titles_become(expected, within=3.0):
            deadline = time.monotonic() + within
            while True:
                status, _headers, body = fetch(rest + NOTES)
                assert status == 200
                if [note["title"] for note in body] == expected or time.monotonic() > deadline:
                    return [note["title"] for note in body]
                time.sleep(0.02)

        def some_worker_hits():  # `serve` may run several workers, each with its own memory
            return any(fetch(rest + NOTES)[1]["X-Cache"] == "hit" for _ in range(12))

        assert served_titles_become([]) == []
        assert some_worker_hits()
        editor.post_json(REST + NOTES, {"title": "First", "status": "publish"}, status=201)
        # Heard by NOTIFY: the next request (or one a few milliseconds later) is already fresh.
        assert served_titles_become(["First"], within=0.5) == ["First"]
        assert some_worker_hits()
        assert all(fetch(rest + NOTES)[2][0]["title"] == "First" for _ in range(12))

        # Cut the listening connections (the served process's and ours), as a network failure or a server restart would.
        prefix = report_prefix(listener_of(local).channel)  # each listening connection's name begins so
        with local.db.engine.connect() as connection:
            killed = connection.exec_driver_sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE left(application_name, %(length)s) = %(prefix)s",
                {"length": len(prefix), "prefix": prefix}).all()
        assert len(killed) >= 2, "the served process and this one listen"
        editor.post_json(REST + NOTES, {"title": "Second", "status": "publish"}, status=201)
        # Missed while disconnected: the process reads the version per hit until it listens again,
        # then reads it once, so the write shows within the reconnect delay.
        assert served_titles_become(["Second", "First"], within=3.0) == ["Second", "First"]
        editor.post_json(REST + NOTES, {"title": "Third", "status": "publish"}, status=201)
        assert served_titles_become(["Third", "Second", "First"], within=0.5) == ["Third", "Second", "First"]
        assert listener_of(local).reconnects >= 1
    finally:
        stop_sitehost(process)


def two_processes(cache_app, make_app):
    """Two apps of one site, as two server processes would be; the reader holds a hit of the notes list."""
    writer = cache_app()
    reader = make_app(plugins=["example", "cache"], config=writer.settings.plugins,
                      database_url=writer.settings.database_url)
    editor = client_as(writer, create_test_user(writer, "editor"))
    assert reader.client.get(REST + NOTES).headers["X-Cache"] == "miss"
    assert reader.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    return writer, reader, editor


def test_a_writes_answer_leaves_once_every_listening_process_has_taken_it_in(cache_app, make_app):
    """A client that writes through one process and reads through another must see its write: the
    writer answers only once every listening process of the site reports the new versions."""
    writer, reader, editor = two_processes(cache_app, make_app)
    listening, writing = listener_of(reader), listener_of(writer)
    for title in ("Sports day moved", "Concert moved"):
        editor.post_json(REST + NOTES, {"title": title, "status": "publish"}, status=201)
        assert listening._known == runtime_of(reader).cache.current_versions()  # already, without waiting
        response = reader.client.get(REST + NOTES)
        assert (response.headers["X-Cache"], response.json[0]["title"]) == ("miss", title)
        assert reader.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    assert writing.late_acknowledgements == 0


def test_a_process_that_has_not_taken_in_a_notification_yet_asks_the_database(cache_app, make_app, caplog):
    """A process too busy (or stopped) to report within the bound does not hold the write back for
    longer; while the notification is unread there, that process asks the database instead."""
    writer, reader, editor = two_processes(cache_app, make_app)
    listening, writing = listener_of(reader), listener_of(writer)
    # Holding the listening connection keeps the reader's thread from taking anything in, as a busy
    # machine that has not scheduled it would.
    with listening._connection.lock:
        editor.post_json(REST + NOTES, {"title": "Sports day moved", "status": "publish"}, status=201)
        assert writing.late_acknowledgements == 1
        assert "1 listening process(es) had not heard a cache purge" in caplog.text
        stale_for_now = listening._known
        response = reader.client.get(REST + NOTES)
        assert (response.headers["X-Cache"], [note["title"] for note in response.json]) == ("miss",
                                                                                            ["Sports day moved"])
    assert stale_for_now is not None  # still trusted: the database was asked because a notification waited
    deadline = time.monotonic() + 3
    while reader.client.get(REST + NOTES).headers["X-Cache"] != "hit" and time.monotonic() < deadline:
        time.sleep(0.02)  # taken in once the thread runs again: hits resume
    response = reader.client.get(REST + NOTES)
    assert (response.headers["X-Cache"], response.json[0]["title"]) == ("hit", "Sports day moved")
