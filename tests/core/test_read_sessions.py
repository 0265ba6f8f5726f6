"""Reading requests at the fewest round trips, writing GETs still in a transaction.

On PostgreSQL a GET's session runs its SELECTs in autocommit (no BEGIN and COMMIT around a
page); its first statement that may write opens a real transaction, so a GET that writes
commits or rolls back as a whole, as before. On SQLite nothing changes.
"""

from __future__ import annotations

import pytest
from marshmallow import Schema, fields
from sqlalchemy import event, select, text

from host import Namespace, RestError, Route
from host.testing import make_plugin

from tests.core.helpers import API


class WriteArgs(Schema):
    title = fields.String(required=True)
    fail = fields.Boolean(load_default=False)


class NoArgs(Schema):
    pass


def in_transaction(request) -> bool:
    """Whether the request's connection is inside a transaction now (always, on SQLite)."""
    connection = request.session.connection()
    if connection.dialect.name != "postgresql":
        return True
    return connection.connection.driver_connection.info.transaction_status != 0  # 0: idle


def reading_writer_plugin():
    """GET routes that write, as a plugin's might (a counter, a queue, a lazily built row)."""

    def write_on_get(request):
        before = in_transaction(request)
        request.session.execute(text("SELECT 1")).scalar()  # a read first, as handlers do
        after_read = in_transaction(request)
        first = request.app.content.create(request, "post", title=request.params["title"], status="publish",
                                           terms={"category": [1]})
        second = request.app.content.create(request, "post", title=request.params["title"] + " too",
                                            status="draft")
        if request.params["fail"]:
            raise RestError("written_then_failed", "Wrote two posts, then failed.", 409)
        return {"ids": [first["id"], second["id"]], "before": before, "after_read": after_read,
                "after_write": in_transaction(request)}

    def lock_on_get(request):
        posts = request.app.db.metadata.tables["posts"]
        request.session.execute(select(posts.c.id).where(posts.c.id == 1).with_for_update()).all()
        return {"after_lock": in_transaction(request)}

    return make_plugin("readingwriter", requires=("core",),
                       register_namespaces=lambda: [Namespace("readingwriter/v1")],
                       register_routes=lambda: [
                           Route("readingwriter/v1", "/write", "GET", write_on_get, args=WriteArgs),
                           Route("readingwriter/v1", "/lock", "GET", lock_on_get, args=NoArgs)])


def titles(client, headers) -> list[str]:
    return sorted(post["title"]["raw"] for post in client.get(f"{API}/posts?status=any&per_page=100&context=edit",
                                                              headers=headers).json)


def test_a_get_that_writes_commits_its_writes_together(make_app, make_user):
    app = make_app(plugins=["core", reading_writer_plugin()])
    admin = make_user(app, "administrator").headers
    count = app.client.get(f"{API}/categories/1").json["count"]
    answer = app.client.get("/wp-json/readingwriter/v1/write?title=Lazy", headers=admin).json
    assert titles(app.client, admin) == ["Lazy", "Lazy too"]
    assert app.client.get(f"{API}/categories/1").json["count"] == count + 1
    assert answer["after_write"] is True
    if app.db.engine.dialect.name == "postgresql":
        assert answer["before"] is False and answer["after_read"] is False  # the reads ran in autocommit


def test_a_get_that_writes_and_fails_leaves_nothing_written(make_app, make_user):
    app = make_app(plugins=["core", reading_writer_plugin()])
    admin = make_user(app, "administrator").headers
    count = app.client.get(f"{API}/categories/1").json["count"]
    response = app.client.get("/wp-json/readingwriter/v1/write?title=Undone&fail=true", headers=admin, status=409)
    assert response.json["code"] == "written_then_failed"
    assert titles(app.client, admin) == []
    assert app.client.get(f"{API}/categories/1").json["count"] == count


def test_a_get_that_locks_rows_holds_the_lock_in_a_transaction(make_app, make_user):
    app = make_app(plugins=["core", reading_writer_plugin()])
    admin = make_user(app, "administrator").headers
    app.client.post_json(f"{API}/posts", {"title": "Locked", "status": "publish"}, headers=admin, status=201)
    assert app.client.get("/wp-json/readingwriter/v1/lock", headers=admin).json == {"after_lock": True}


def statements_and_autocommit(app, path: str):
    """GET `path`, and (first word, whether the connection was in autocommit) of each PostgreSQL statement it sent."""
    seen = []

    def note(connection, _cursor, statement, *_rest):
        if connection.dialect.name == "postgresql":
            seen.append((statement.split(None, 1)[0], connection.connection.driver_connection.autocommit))

    event.listen(app.db.engine, "before_cursor_execute", note)
    try:
        response = app.client.get(path)
    finally:
        event.remove(app.db.engine, "before_cursor_execute", note)
    return response, seen


def test_a_plain_list_sends_no_transaction_on_postgresql(make_app, make_user):
    app = make_app(plugins=["core"])
    admin = make_user(app, "administrator").headers
    for number in range(3):
        app.client.post_json(f"{API}/posts", {"title": f"Listed {number}", "status": "publish"}, headers=admin,
                             status=201)
    app.client.get(f"{API}/posts")  # warm: the first page after writes counts its total
    response, seen = statements_and_autocommit(app, f"{API}/posts")
    assert response.status_int == 200 and response.headers["X-WP-Total"] == "3"
    assert [post["title"]["rendered"] for post in response.json] == ["Listed 2", "Listed 1", "Listed 0"]
    if app.db.engine.dialect.name == "postgresql":
        assert seen and all(autocommit for _kind, autocommit in seen), seen
        # A write request after it is a transaction again (the pool gave the connection back as it was).
        app.client.post_json(f"{API}/posts", {"title": "Listed 3", "status": "publish"}, headers=admin, status=201)
        assert app.client.get(f"{API}/posts").headers["X-WP-Total"] == "4"


def test_a_pooled_connection_that_died_while_idle_is_replaced_unseen(make_app, make_user):
    """No ping per checkout on PostgreSQL: a connection idle past PING_AFTER_IDLE is pinged first, and
    one the server closed meanwhile (a restart, an idle timeout) is replaced before the request uses it."""
    from sqlalchemy import create_engine

    from host import db as host_db

    app = make_app(plugins=["core"])
    if app.db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no server to lose")
    admin = make_user(app, "administrator").headers
    app.client.post_json(f"{API}/posts", {"title": "Still here", "status": "publish"}, headers=admin, status=201)
    assert app.client.get(f"{API}/posts").status_int == 200
    pool = app.db.engine.pool
    idle = list(pool._pool.queue)  # the connections waiting in the pool
    assert idle
    for record in idle:
        record.info[host_db._IDLE_SINCE] -= host_db.PING_AFTER_IDLE + 1
    pids = [record.dbapi_connection.info.backend_pid for record in idle]
    killer = create_engine(app.settings.database_url, isolation_level="AUTOCOMMIT")
    try:
        with killer.connect() as connection:
            for pid in pids:
                assert connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar()
    finally:
        killer.dispose()
    response = app.client.get(f"{API}/posts")
    assert response.status_int == 200 and [post["title"]["rendered"] for post in response.json] == ["Still here"]


def test_a_comments_allow_and_target_hints_share_one_read_session_after_its_commit(make_app, make_user):
    """After a create commits, its Allow header and its `self` link's targetHints probe read through
    one read session of the request (one pool checkout, not one each), see the committed comment,
    and leave no connection checked out."""
    app = make_app(plugins=["core"])
    editor = make_user(app, "editor").headers
    post = app.client.post_json(f"{API}/posts", {"title": "Open day", "status": "publish"}, headers=editor,
                                status=201).json
    comments = f"{API}/comments"
    app.client.post_json(comments, {"post": post["id"], "content": "Warm-up."}, headers=editor, status=201,
                         extra_environ={"REMOTE_ADDR": "10.0.0.1"})
    checkouts = []

    def note(*_args):
        checkouts.append(1)

    event.listen(app.db.engine.pool, "checkout", note)
    created = app.client.post_json(comments, {"post": post["id"], "content": "See you at ten."}, headers=editor,
                                   status=201, extra_environ={"REMOTE_ADDR": "10.0.0.2"})
    event.remove(app.db.engine.pool, "checkout", note)
    count = len(checkouts)
    assert created.headers["Allow"] == "GET, POST"
    self_link = created.json["_links"]["self"][0]
    assert self_link["href"] == f"http://school.test{comments}/{created.json['id']}"
    assert self_link["targetHints"] == {"allow": ["GET", "POST", "PUT", "PATCH", "DELETE"]}
    assert count == 3  # authentication, the write transaction, and one read session for every check after it
    assert app.db.engine.pool.checkedout() == 0
    visitor = app.client.post_json(comments, {"post": post["id"], "content": "Can parents come?",
                                              "author_name": "Sam Lee", "author_email": "sam.lee@example.org"},
                                   status=201, extra_environ={"REMOTE_ADDR": "10.0.0.3"})
    # A visitor's comment is held for moderation: the probe, reading the committed row, allows the visitor nothing.
    assert visitor.json["status"] == "hold"
    assert visitor.headers["Allow"] == "POST"
    assert visitor.json["_links"]["self"] == [{"href": f"http://school.test{comments}/{visitor.json['id']}"}]
    assert app.db.engine.pool.checkedout() == 0


def test_a_create_on_postgresql_checks_its_sign_in_in_autocommit_and_takes_the_slug_lock_once(make_app, make_user):
    """A create's round trips on PostgreSQL: the sign-in read (application password, failure counts) in
    autocommit, with no BEGIN before it nor ROLLBACK after; then one transaction, in which the slug lock
    is asked once, in the statement that reserves the new id, although the slug and the INSERT need it too."""
    app = make_app(plugins=["core"])
    if app.db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no round trips to save: its reads and its write lock are in process")
    author = make_user(app, "author").headers
    app.client.post_json(f"{API}/posts", {"title": "Counted", "status": "publish"}, headers=author, status=201)
    seen = []

    def note(connection, _cursor, statement, *_rest):
        seen.append((statement, connection.connection.driver_connection.autocommit))

    event.listen(app.db.engine, "before_cursor_execute", note)
    response = app.client.post_json(f"{API}/posts", {"title": "Counted", "status": "publish"}, headers=author,
                                    status=201)
    event.remove(app.db.engine, "before_cursor_execute", note)
    assert response.json["slug"] == "counted-2" and response.json["status"] == "publish"
    sign_in = [autocommit for statement, autocommit in seen if "application_passwords" in statement]
    assert sign_in == [True], seen
    locks = [(statement, autocommit) for statement, autocommit in seen if "pg_advisory_xact_lock" in statement]
    assert len(locks) == 1 and "nextval" in locks[0][0] and locks[0][1] is False, locks
    assert app.client.get(f"{API}/posts?slug=counted-2").json[0]["id"] == response.json["id"]


def test_a_search_reads_in_autocommit_on_postgresql_though_its_page_begins_with(make_app, make_user):
    """A selective search's page reads the full-text hits in a CTE (store.listing.SEARCH_HITS_UP_TO):
    a statement beginning WITH that writes nothing is a read, so no transaction is opened for it."""
    app = make_app(plugins=["core"])
    admin = make_user(app, "administrator").headers
    for title in ("Orchestra rehearsal", "Chess club", "Orchestra concert"):
        app.client.post_json(f"{API}/posts", {"title": title, "status": "publish"}, headers=admin, status=201)
    response, seen = statements_and_autocommit(app, f"{API}/posts?search=orchestra")
    assert response.status_int == 200 and response.headers["X-WP-Total"] == "2"
    assert [post["title"]["rendered"] for post in response.json] == ["Orchestra concert", "Orchestra rehearsal"]
    if app.db.engine.dialect.name == "postgresql":
        assert ("WITH", True) in seen and all(autocommit for _kind, autocommit in seen), seen
