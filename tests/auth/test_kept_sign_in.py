"""Sign-ins kept in process by the database's commit mark (the builder/v1/globals budget line).

A verified application password or lms API key is served again from memory only while nothing
was committed to the database since it was checked (host Database.commit_mark, PRAGMA
data_version on an SQLite file). These tests sign in often enough that a sign-in is kept, then
show that revocation, a role change and failures recorded by the lock-out still take effect at
the very next request, and that a kept GET of builder/v1/globals reads nothing at all.
"""

from __future__ import annotations

import pytest
from sqlalchemy import event, func, select
from webtest import TestApp

from host.testing import assert_rest_error, create_test_user

from .helpers import basic

ME = "/wp-json/core/v2/users/me"
GLOBALS = "/wp-json/builder/v1/globals"
LMS = "/wp-json/lms/v1"
LIMITS = {"max_failures": 3, "max_failures_per_address": 4, "window_seconds": 600, "lockout_seconds": 300,
          "slow_after": 3, "slow_seconds": 0}


@pytest.fixture
def app(make_app):
    return make_app(plugins=["core", "builder", "lms"], extra={"auth": LIMITS})


def from_address(app, address):
    return TestApp(app, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": address})


def statements(app):
    """A list that fills with every statement the app's engine sends, while the test runs."""
    sent: list[str] = []

    def note(_connection, _cursor, statement, *_rest):
        sent.append(statement)

    event.listen(app.db.engine, "before_cursor_execute", note)
    return sent


def kept_sign_ins(app) -> bool:
    return app.db.commit_mark() is not None


def test_the_commit_mark_moves_with_every_commit_of_any_connection(app):
    if not kept_sign_ins(app):
        pytest.skip("no commit mark on this database (PostgreSQL): every sign-in is checked in the database")
    first = app.db.commit_mark()
    assert app.db.commit_mark() == first
    editor = create_test_user(app, "editor")  # written through the app's own pool
    second = app.db.commit_mark()
    assert second != first
    assert app.client.get(ME, headers=editor.headers).json["id"] == editor.id


def test_a_kept_globals_read_sends_no_statement_and_a_kit_change_shows_at_once(app):
    author = create_test_user(app, "author")
    administrator = create_test_user(app, "administrator")
    for _warm in range(3):  # the first sign-in notes its last use (a commit); then it is kept
        assert app.client.get(GLOBALS, headers=author.headers).json["colors"]["primary"]["value"] == "#1F4E79"
    sent = statements(app)
    assert app.client.get(GLOBALS, headers=author.headers).json["colors"]["primary"]["value"] == "#1F4E79"
    if kept_sign_ins(app):
        assert sent == []  # the sign-in and the kit both kept: nothing read
    app.client.post_json(f"{GLOBALS}/colors/primary", {"title": "Primary", "value": "#000080"},
                         headers=administrator.headers)
    assert app.client.get(GLOBALS, headers=author.headers).json["colors"]["primary"]["value"] == "#000080"


def test_a_kit_changed_by_another_process_shows_at_once(app, make_app):
    author = create_test_user(app, "author")
    administrator = create_test_user(app, "administrator")
    for _warm in range(3):
        app.client.get(GLOBALS, headers=author.headers)
    other = make_app(plugins=["core", "builder", "lms"], extra={"auth": LIMITS},
                     database_url=app.settings.database_url)
    other.client.post_json(f"{GLOBALS}/colors/primary", {"title": "Primary", "value": "#800000"},
                           headers=administrator.headers)
    assert app.client.get(GLOBALS, headers=author.headers).json["colors"]["primary"]["value"] == "#800000"


def test_a_kept_password_revoked_is_refused_at_the_next_request(app):
    subscriber = create_test_user(app, "subscriber")
    created = app.client.post_json("/wp-json/core/v2/users/me/application-passwords", {"name": "Laptop"},
                                   headers=subscriber.headers).json
    headers = basic(subscriber.login, created["password"])
    for _warm in range(3):
        assert app.client.get(ME, headers=headers).json["id"] == subscriber.id
    app.client.delete(f"/wp-json/core/v2/users/me/application-passwords/{created['uuid']}",
                      headers=subscriber.headers)
    assert_rest_error(app.client.get(ME, headers=headers, status=401), "incorrect_password", 401)


def test_a_role_taken_away_counts_at_the_next_request(app):
    author = create_test_user(app, "author")
    administrator = create_test_user(app, "administrator")
    for _warm in range(3):
        assert app.client.get(GLOBALS, headers=author.headers).status_int == 200
    app.client.post_json(f"/wp-json/core/v2/users/{author.id}", {"roles": ["subscriber"]},
                         headers=administrator.headers)
    assert_rest_error(app.client.get(GLOBALS, headers=author.headers, status=403), "rest_forbidden", 403)


def test_wrong_passwords_are_counted_and_lock_out_a_source_whose_sign_in_was_kept(app):
    victim = create_test_user(app, "editor")
    client = from_address(app, "203.0.113.90")
    for _warm in range(3):
        assert client.get(ME, headers=victim.headers).json["id"] == victim.id
    table = app.host_tables["rate_events"]
    for index in range(4):  # max_failures_per_address: other logins from the same address
        assert_rest_error(client.get(ME, headers=basic(f"nobody{index}", "guess"), status=401),
                          "incorrect_password", 401)
    with app.db.session() as session:
        assert session.execute(select(func.count()).select_from(table)).scalar_one() == 4 * 3
    # the address is refused now, the kept sign-in of its valid password too; others are not
    assert_rest_error(client.get(ME, headers=victim.headers, status=429), "too_many_sign_in_attempts", 429)
    assert from_address(app, "198.51.100.90").get(ME, headers=victim.headers).json["id"] == victim.id


def test_a_kept_password_with_a_wrong_one_beside_it(app):
    editor = create_test_user(app, "editor")
    for _warm in range(3):
        app.client.get(ME, headers=editor.headers)
    assert_rest_error(app.client.get(ME, headers=basic(editor.login, editor.password + "x"), status=401),
                      "incorrect_password", 401)
    assert app.client.get(ME, headers=editor.headers).json["id"] == editor.id


def test_a_kept_api_key_revoked_is_refused_and_a_wrong_secret_counted(app):
    administrator = create_test_user(app, "administrator")
    created = app.client.post_json(f"{LMS}/api-keys", {"permission": "read"}, headers=administrator.headers,
                                   status=201).json
    headers = basic(created["key"], created["secret"])
    for _warm in range(3):
        assert app.client.get(f"{LMS}/courses", headers=headers).json["code"] == "not_found"
    assert_rest_error(app.client.get(f"{LMS}/courses", headers=basic(created["key"], "secret_guess"), status=401),
                      "rest_forbidden", 401)
    table = app.host_tables["rate_events"]
    with app.db.session() as session:
        assert session.execute(select(func.count()).select_from(table)).scalar_one() == 3
    assert app.client.get(f"{LMS}/courses", headers=headers).json["code"] == "not_found"
    app.client.delete(f"{LMS}/api-keys/{created['id']}", headers=administrator.headers, status=200)
    assert_rest_error(app.client.get(f"{LMS}/courses", headers=headers, status=401), "rest_forbidden", 401)
