"""Stored term counts: every write path keeps `count` equal to a recount, in its own transaction.

The counts are kept by triggers (plugins/core/tables.py); these tests write over HTTP through
core/v2, batch/v1 and a plugin that writes through `app.content`, then compare what the term
routes answer with a COUNT of the published posts linked to each term.
"""

from __future__ import annotations

import random

import pytest

from marshmallow import Schema, fields
from sqlalchemy import text

from host import Namespace, Route
from host.app import create_app
from host.config import Settings
from host.testing import make_plugin

from tests.core.helpers import API

RECOUNT = text("SELECT t.id, (SELECT COUNT(*) FROM term_relationships r JOIN posts p ON p.id = r.post_id "
               "WHERE r.term_id = t.id AND p.status = 'publish') FROM terms t")


class ContentWriteArgs(Schema):
    id = fields.Integer()
    status = fields.String()
    categories = fields.List(fields.Integer())
    tags = fields.List(fields.Integer())
    action = fields.String()


def content_writer_plugin():
    """Writes posts and their terms through app.content, as a plugin would (no core modules)."""

    def write(request):
        params, content = request.params, request.app.content
        terms = {taxonomy: params[field] for field, taxonomy in (("categories", "category"), ("tags", "post_tag"))
                 if field in params}
        action = params.get("action", "create")
        if action == "create":
            item = content.create(request, "post", title="Written by a plugin", content="<p>x</p>",
                                  status=params.get("status", "publish"), terms=terms)
            return {"id": item["id"]}
        if action == "update":
            changes = {"terms": terms} if terms else {}
            if params.get("status"):
                changes["status"] = params["status"]
            content.update(request, params["id"], **changes)
        elif action == "trash":
            content.trash(request, params["id"])
        elif action == "delete":
            content.delete(request, params["id"])
        return {"id": params["id"]}

    return make_plugin("contentwriter", requires=("core",),
                       register_namespaces=lambda: [Namespace("contentwriter/v1")],
                       register_routes=lambda: [Route("contentwriter/v1", "/write", "POST", write,
                                                      args=ContentWriteArgs)])


def stored_counts(client, headers) -> dict[int, int]:
    counts = {}
    for base in ("categories", "tags"):
        page = 1
        while True:
            response = client.get(f"{API}/{base}?per_page=100&page={page}", headers=headers)
            counts.update({term["id"]: term["count"] for term in response.json})
            if page >= int(response.headers["X-WP-TotalPages"]):
                break
            page += 1
    return counts


def recount(app) -> dict[int, int]:
    with app.db.engine.connect() as connection:
        return dict(connection.execute(RECOUNT).all())


def test_stored_counts_equal_a_recount_after_500_random_writes(make_app, make_user):
    app = make_app(plugins=["core", content_writer_plugin()])
    client = app.client
    admin = make_user(app, "administrator").headers
    rng = random.Random(2025)
    categories = [1] + [client.post_json(f"{API}/categories", {"name": f"Category {n}"}, headers=admin).json["id"]
                        for n in range(5)]
    tags = [client.post_json(f"{API}/tags", {"name": f"tag {n}"}, headers=admin).json["id"] for n in range(6)]
    posts: list[int] = []
    trashed: set[int] = set()
    done: dict[str, int] = {}

    def some(pool, most=3):
        return rng.sample(pool, rng.randint(0, min(most, len(pool))))

    def body():
        return {"title": f"Post {len(posts)}", "status": rng.choice(["publish", "publish", "draft", "pending"]),
                "categories": some(categories), "tags": some(tags)}

    def live():
        return [post for post in posts if post not in trashed]

    actions = ["create", "create", "status", "terms", "trash", "untrash", "delete", "batch", "plugin_create",
               "plugin_update", "plugin_trash", "plugin_delete", "term_create", "term_delete", "private"]
    writes = 0
    while writes < 500:
        action = rng.choice(actions)
        if action not in ("create", "plugin_create", "term_create") and not live():
            action = "create"
        target = rng.choice(live()) if live() else None
        if action == "create":
            posts.append(client.post_json(f"{API}/posts", body(), headers=admin, status=201).json["id"])
        elif action == "status":
            client.post_json(f"{API}/posts/{target}", {"status": rng.choice(["publish", "draft", "pending"])},
                             headers=admin, status=200)
        elif action == "private":
            client.post_json(f"{API}/posts/{target}", {"status": "private"}, headers=admin, status=200)
        elif action == "terms":
            client.post_json(f"{API}/posts/{target}", {"categories": some(categories), "tags": some(tags)},
                             headers=admin, status=200)
        elif action == "trash":
            client.delete(f"{API}/posts/{target}", headers=admin, status=200)
            trashed.add(target)
        elif action == "untrash":
            if not trashed:
                continue
            back = rng.choice(sorted(trashed))
            client.post_json(f"{API}/posts/{back}", {"status": rng.choice(["publish", "draft"])}, headers=admin,
                             status=200)
            trashed.discard(back)
        elif action == "delete":
            client.delete(f"{API}/posts/{target}?force=true", headers=admin, status=200)
            posts.remove(target)
        elif action == "batch":
            requests = [{"path": "/core/v2/posts", "body": body()},
                        {"method": "PUT", "path": f"/core/v2/posts/{target}",
                         "body": {"status": rng.choice(["publish", "draft"]), "tags": some(tags)}}]
            answer = client.post_json("/wp-json/batch/v1", {"requests": requests}, headers=admin, status=207).json
            assert [item["status"] for item in answer["responses"]] == [201, 200]
            posts.append(answer["responses"][0]["body"]["id"])
            trashed.discard(target)
        elif action == "plugin_create":
            posts.append(client.post_json("/wp-json/contentwriter/v1/write", {
                "status": rng.choice(["publish", "draft"]), "categories": some(categories), "tags": some(tags)},
                headers=admin, status=200).json["id"])
        elif action == "plugin_update":
            client.post_json("/wp-json/contentwriter/v1/write", {
                "action": "update", "id": target, "status": rng.choice(["publish", "draft"]),
                "categories": some(categories), "tags": some(tags)}, headers=admin, status=200)
        elif action == "plugin_trash":
            client.post_json("/wp-json/contentwriter/v1/write", {"action": "trash", "id": target},
                             headers=admin, status=200)
            trashed.add(target)
        elif action == "plugin_delete":
            client.post_json("/wp-json/contentwriter/v1/write", {"action": "delete", "id": target},
                             headers=admin, status=200)
            posts.remove(target)
            trashed.discard(target)
        elif action == "term_create":
            taxonomy, pool = rng.choice([("categories", categories), ("tags", tags)])
            pool.append(client.post_json(f"{API}/{taxonomy}", {"name": f"Term {writes}"}, headers=admin,
                                         status=201).json["id"])
        elif action == "term_delete":
            taxonomy, pool = rng.choice([("categories", categories), ("tags", tags)])
            choices = [term for term in pool if term != 1]
            if len(choices) < 2:
                continue
            doomed = rng.choice(choices)
            client.delete(f"{API}/{taxonomy}/{doomed}?force=true", headers=admin, status=200)
            pool.remove(doomed)
        done[action] = done.get(action, 0) + 1
        writes += 1
    assert set(done) == set(actions), "every kind of write ran at least once"
    expected = recount(app)
    assert stored_counts(client, admin) == expected
    assert sum(expected.values()) > 0
    # The stored column is what the list filters and sorts by.
    shown = {term["id"] for term in client.get(f"{API}/tags?hide_empty=true&per_page=100", headers=admin).json}
    assert shown == {term for term in tags if expected[term] > 0}
    by_count = client.get(f"{API}/tags?orderby=count&order=desc&per_page=100", headers=admin).json
    assert [term["count"] for term in by_count] == sorted((expected[term] for term in tags), reverse=True)


def test_a_category_with_only_a_used_child_is_not_empty(client, users):
    admin = users["administrator"].headers
    parent = client.post_json(f"{API}/categories", {"name": "Parent"}, headers=admin).json["id"]
    child = client.post_json(f"{API}/categories", {"name": "Child", "parent": parent}, headers=admin).json["id"]
    client.post_json(f"{API}/posts", {"title": "In the child", "status": "publish", "categories": [child]},
                     headers=admin, status=201)
    listed = {term["id"]: term["count"] for term in client.get(f"{API}/categories?hide_empty=true").json}
    assert listed[parent] == 0 and listed[child] == 1


def test_a_failed_write_changes_no_count(client, users):
    """The count moves in the writer's transaction: a write answered with an error leaves it alone."""
    admin = users["administrator"].headers
    category = client.post_json(f"{API}/categories", {"name": "Kept"}, headers=admin).json["id"]
    response = client.post_json("/wp-json/batch/v1", {"validation": "require-all-validate", "requests": [
        {"path": "/core/v2/posts", "body": {"title": "Fine", "status": "publish", "categories": [category]}},
        {"path": "/core/v2/posts", "body": {"title": "Broken", "comment_status": "maybe"}},
    ]}, headers=admin, status=207)
    assert response.json["failed"] == "validation"
    client.post_json(f"{API}/posts", {"title": "Bad", "status": "publish", "categories": [category],
                                      "sticky": True, "password": "secret"}, headers=admin, status=400)
    assert client.get(f"{API}/categories/{category}").json["count"] == 0


# pg_trigger holds every schema's triggers: other test workers' throwaway schemas (which come and go
# while this test runs) must be neither counted nor touched.
_IN_THIS_SCHEMA = ("WHERE left(tgname, 11) = 'term_count_' AND tgrelid IN "
                   "(SELECT oid FROM pg_class WHERE relnamespace = current_schema()::regnamespace)")


def test_a_database_from_before_stored_counts_is_counted_once_at_start(make_app, make_user):
    app = make_app(plugins=["core"])
    admin = make_user(app, "administrator").headers
    category = app.client.post_json(f"{API}/categories", {"name": "Old site"}, headers=admin).json["id"]
    for status in ("publish", "publish", "draft"):
        app.client.post_json(f"{API}/posts", {"title": "Before", "status": status, "categories": [category]},
                             headers=admin, status=201)
    # What an earlier version left: no count column, no triggers, no migrations' version table.
    with app.db.engine.begin() as connection:
        if connection.dialect.name == "sqlite":
            names = [row[0] for row in connection.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'term_count_%'")]
            for name in names:
                connection.exec_driver_sql(f'DROP TRIGGER "{name}"')
        else:
            for name, table in connection.exec_driver_sql(
                    "SELECT tgname, tgrelid::regclass::text FROM pg_trigger " + _IN_THIS_SCHEMA):
                connection.exec_driver_sql(f'DROP TRIGGER "{name}" ON {table}')
        connection.exec_driver_sql('ALTER TABLE terms DROP COLUMN "count"')
        connection.exec_driver_sql("DROP TABLE alembic_version_core")
    url = app.settings.database_url
    app.close()
    upgraded = create_app(Settings(database_url=url, only_plugins=["core"], uploads_dir=app.settings.uploads_dir))
    try:
        assert recount(upgraded)[category] == 2
        from webtest import TestApp

        client = TestApp(upgraded, extra_environ={"HTTP_HOST": "school.test"})
        assert client.get(f"{API}/categories/{category}").json["count"] == 2
        # From then on the triggers keep it.
        client.post_json(f"{API}/posts", {"title": "After", "status": "publish", "categories": [category]},
                         headers=admin, status=201)
        assert client.get(f"{API}/categories/{category}").json["count"] == 3
    finally:
        upgraded.close()


def test_bulk_statements_keep_counts_exact(make_app, make_user):
    """One statement that links, relinks, unlinks or (un)publishes many posts at once (an import, a
    plugin's own SQL) moves each term by the statement's net change (per statement on PostgreSQL)."""
    app = make_app(plugins=["core"])
    admin = make_user(app, "administrator").headers
    client = app.client
    categories = [client.post_json(f"{API}/categories", {"name": f"Bulk {number}"}, headers=admin).json["id"]
                  for number in range(3)]
    posts = [client.post_json(f"{API}/posts", {"title": f"Bulk {number}", "status": "publish" if number % 3 else "draft"},
                              headers=admin, status=201).json["id"] for number in range(30)]
    low, high = min(posts), max(posts)
    statements = [
        # Every post into the first two categories, in one INSERT.
        f"INSERT INTO term_relationships (post_id, term_id) SELECT p.id, t.id FROM posts p, terms t "
        f"WHERE p.id BETWEEN {low} AND {high} AND t.id IN ({categories[0]}, {categories[1]})",
        # Half of the first category's links move to the third.
        f"UPDATE term_relationships SET term_id = {categories[2]} WHERE term_id = {categories[0]} AND mod(post_id, 2) = 0 "
        f"AND post_id BETWEEN {low} AND {high}",
        # Drafts published and published posts drafted, in one UPDATE.
        f"UPDATE posts SET status = CASE WHEN status = 'publish' THEN 'draft' ELSE 'publish' END "
        f"WHERE id BETWEEN {low} AND {high} AND mod(id, 5) <> 0",
        # A third of the second category's links go.
        f"DELETE FROM term_relationships WHERE term_id = {categories[1]} AND mod(post_id, 3) = 1",
        # Several posts deleted at once (their links with them).
        f"DELETE FROM posts WHERE id BETWEEN {low} AND {high} AND mod(id, 7) = 0",
        # An UPDATE of posts that changes no status moves nothing.
        f"UPDATE posts SET title = title || '.' WHERE id BETWEEN {low} AND {high}",
    ]
    for statement in statements:
        with app.db.engine.begin() as connection:
            connection.exec_driver_sql(statement)
        expected = recount(app)
        stored = stored_counts(client, admin)
        assert {term: stored[term] for term in categories} == {term: expected[term] for term in categories}, statement
    assert any(recount(app)[term] for term in categories)


def test_postgresql_counts_per_statement_and_replaces_row_triggers_at_start(make_app, make_user):
    """An earlier version's row-level triggers (one `terms` update per link) are replaced at start-up by
    the statement-level ones, and the counts are made again."""
    app = make_app(plugins=["core"])
    if app.db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's triggers (SQLite's are per row: each link is a cheap in-page update there)")
    admin = make_user(app, "administrator").headers
    category = app.client.post_json(f"{API}/categories", {"name": "Upgraded"}, headers=admin).json["id"]
    app.client.post_json(f"{API}/posts", {"title": "Counted", "status": "publish", "categories": [category]},
                         headers=admin, status=201)
    with app.db.engine.begin() as connection:
        for name, table in connection.exec_driver_sql(
                "SELECT tgname, tgrelid::regclass::text FROM pg_trigger " + _IN_THIS_SCHEMA).all():
            connection.exec_driver_sql(f'DROP TRIGGER "{name}" ON {table}')
        # What v1 installed: a row trigger on the links (here one that counts nothing, and a wrong count).
        connection.exec_driver_sql("CREATE OR REPLACE FUNCTION sitehost_term_count_links() RETURNS trigger AS $$ "
                                   "BEGIN RETURN NULL; END $$ LANGUAGE plpgsql")
        connection.exec_driver_sql("CREATE TRIGGER term_count_v1_links AFTER INSERT OR UPDATE OR DELETE ON "
                                   "term_relationships FOR EACH ROW EXECUTE FUNCTION sitehost_term_count_links()")
        connection.exec_driver_sql(f'UPDATE terms SET "count" = 7 WHERE id = {category}')
    url = app.settings.database_url
    app.close()
    upgraded = create_app(Settings(database_url=url, only_plugins=["core"], uploads_dir=app.settings.uploads_dir))
    try:
        with upgraded.db.engine.connect() as connection:
            triggers = dict(connection.exec_driver_sql(
                "SELECT tgname, (tgtype & 1) = 1 FROM pg_trigger " + _IN_THIS_SCHEMA).all())
            old_function = connection.exec_driver_sql(
                "SELECT 1 FROM pg_proc WHERE proname = 'sitehost_term_count_links' "
                "AND pronamespace = current_schema()::regnamespace").first()
        assert "term_count_v1_links" not in triggers and old_function is None
        # Per statement, but for the delete of a post (which must take its links while it reads as published).
        assert {name for name, per_row in triggers.items() if per_row} == {"term_count_v2_delete"}
        assert len(triggers) == 5
        from webtest import TestApp

        client = TestApp(upgraded, extra_environ={"HTTP_HOST": "school.test"})
        assert client.get(f"{API}/categories/{category}").json["count"] == 1
        client.post_json(f"{API}/posts", {"title": "After", "status": "publish", "categories": [category]},
                         headers=admin, status=201)
        assert client.get(f"{API}/categories/{category}").json["count"] == 2
    finally:
        upgraded.close()
