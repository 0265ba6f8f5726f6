"""`/-/health`, the load balancer's probe: 200 only when the database answers and holds
every table and column this node expects, else 503 with one line saying why; open to anyone, never cached."""

import os

import pytest
from sqlalchemy import Column, Integer, String, Table, text

from host.testing import client_as, create_test_user, make_plugin

ON_POSTGRES = os.environ.get("SITEHOST_TEST_DATABASE_URL", "").startswith("postgresql")


def notes_plugin():
    def register_tables(metadata):
        Table("probe_notes", metadata, Column("id", Integer, primary_key=True), Column("body", String(200)))

    return make_plugin("notes", register_tables)


def assert_healthy(client):
    response = client.get("/-/health")
    assert (response.status_int, response.text) == (200, "ok\n")
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert response.headers["Cache-Control"] == "no-store"
    assert "Set-Cookie" not in response.headers


def test_a_site_with_every_plugin_disabled_answers_the_probe(make_app):
    assert_healthy(make_app(plugins=[]).client)


def test_a_full_site_answers_without_credentials_and_head_has_no_body(make_app):
    app = make_app()
    assert_healthy(app.client)
    head = app.client.head("/-/health")
    assert (head.status_int, head.body, head.headers["Content-Length"]) == (200, b"", "3")
    refused = app.client.post("/-/health", status=405)
    assert refused.headers["Allow"] == "GET, HEAD"
    # A query string changes nothing (a balancer may add one to dodge a cache in between).
    assert app.client.get("/-/health?nocache=1").text == "ok\n"


def test_a_missing_column_answers_503_naming_it(make_app):
    app = make_app(plugins=["core", notes_plugin()])
    assert_healthy(app.client)
    with app.db.engine.begin() as connection:
        connection.execute(text("ALTER TABLE probe_notes DROP COLUMN body"))
    response = app.client.get("/-/health", status=503)
    assert response.text == "schema behind this node's code: missing columns: probe_notes.body\n"
    assert response.headers["Cache-Control"] == "no-store"


def test_a_missing_table_answers_503_naming_it_and_site_health_agrees(make_app):
    app = make_app(plugins=["core", "site_health", notes_plugin()])
    with app.db.engine.begin() as connection:
        connection.execute(text("DROP TABLE probe_notes"))
    assert app.client.get("/-/health", status=503).text == (
        "schema behind this node's code: missing tables: probe_notes\n")
    admin = client_as(app, create_test_user(app, "administrator"))
    result = admin.get("/wp-json/site-health/v1/tests/database").json
    assert result["status"] == "critical"
    assert "missing tables: probe_notes" in result["description"]


@pytest.mark.skipif(ON_POSTGRES, reason="breaks the database file itself: SQLite only")
def test_a_database_that_does_not_answer_gives_503_without_details(make_app):
    app = make_app(plugins=[])
    path = app.db.url.database
    app.db.engine.dispose()
    with open(path, "r+b") as database:
        database.write(b"this is no database any more" * 10)
    response = app.client.get("/-/health", status=503)
    assert response.text == "database unreachable (DatabaseError)\n"
    assert path not in response.text
