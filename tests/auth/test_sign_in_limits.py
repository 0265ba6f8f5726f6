"""Brute-force protection: failures counted in the database, then 429 with Retry-After."""

from __future__ import annotations

import pytest
from webtest import TestApp

from host.config import ConfigError
from host.testing import assert_rest_error, create_test_user

from .helpers import basic, content_stand_in

ME = "/wp-json/core/v2/users/me"
LIMITS = {"max_failures": 3, "max_failures_per_address": 5, "window_seconds": 600, "lockout_seconds": 300,
          "slow_seconds": 0}


@pytest.fixture
def guarded(make_app):
    return make_app(plugins=["core", content_stand_in()], extra={"auth": LIMITS})


def test_basic_auth_locks_a_login_after_max_failures(guarded):
    victim = create_test_user(guarded, "editor")
    for _attempt in range(3):
        assert_rest_error(guarded.client.get(ME, headers=basic(victim.login, "guess"), status=401), "incorrect_password", 401)
    refused = guarded.client.get(ME, headers=victim.headers, status=429)
    body = assert_rest_error(refused, "too_many_sign_in_attempts", 429)
    assert 0 < int(refused.headers["Retry-After"]) <= 300 and body["data"]["retry_after"] == int(refused.headers["Retry-After"])
    assert "Try again in" in body["message"]
    # another login from another address is unaffected
    other = create_test_user(guarded, "author")
    elsewhere = TestApp(guarded, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": "198.51.100.9"})
    assert elsewhere.get(ME, headers=other.headers).json["id"] == other.id


def test_the_state_is_shared_by_apps_on_one_database(guarded, make_app):
    victim = create_test_user(guarded, "editor")
    for _attempt in range(3):
        guarded.client.get(ME, headers=basic(victim.login, "guess"), status=401)
    second_process = make_app(plugins=["core", content_stand_in()], extra={"auth": LIMITS},
                              database_url=guarded.settings.database_url)
    assert_rest_error(second_process.client.get(ME, headers=victim.headers, status=429), "too_many_sign_in_attempts", 429)


def test_one_address_is_limited_across_logins(guarded):
    client = TestApp(guarded, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": "192.0.2.50"})
    for index in range(5):
        client.get(ME, headers=basic(f"nobody{index}", "guess"), status=401)
    real = create_test_user(guarded, "subscriber")
    assert_rest_error(client.get(ME, headers=real.headers, status=429), "too_many_sign_in_attempts", 429)
    assert guarded.client.get(ME, headers=real.headers).json["id"] == real.id  # from another address


def test_success_clears_the_login_count(guarded):
    user = create_test_user(guarded, "author")
    for _round in range(2):
        for _attempt in range(2):
            guarded.client.get(ME, headers=basic(user.login, "guess"), status=401)
        assert guarded.client.get(ME, headers=user.headers).json["id"] == user.id


def test_login_form_is_limited_too(guarded):
    user = create_test_user(guarded, "editor")
    browser = TestApp(guarded, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": "203.0.113.4"})
    for _attempt in range(3):
        form = browser.get("/authorize-application").forms[0]
        form["log"], form["pwd"] = user.login, "guess"
        assert "incorrect" in form.submit().text
    form = browser.get("/authorize-application").forms[0]
    form["log"], form["pwd"] = user.login, user.password
    refused = form.submit(status=429)
    assert "Too many failed sign-in attempts" in refused.text and int(refused.headers["Retry-After"]) > 0
    # and the REST side sees the same lock-out for that login
    assert_rest_error(guarded.client.get(ME, headers=user.headers, status=429), "too_many_sign_in_attempts", 429)


def test_old_failures_are_pruned(guarded):
    import datetime

    from sqlalchemy import func, insert, select

    table = guarded.auth_tables["sign_in_failures"]
    with guarded.db.session(write=True) as session, session.begin():
        session.execute(insert(table).values(scope="login", subject="ghost",
                                             failed_at=datetime.datetime(2000, 1, 1)))
    guarded.client.get(ME, headers=basic("someone", "guess"), status=401)
    with guarded.db.session() as session:
        subjects = session.execute(select(table.c.subject)).scalars().all()
        assert "ghost" not in subjects and "someone" in subjects
        assert session.execute(select(func.count()).select_from(table)).scalar_one() == 1  # no client address here


def test_bad_limits_stop_the_start(make_app):
    with pytest.raises(ConfigError, match="max_failures"):
        make_app(plugins=["core"], extra={"auth": {"max_failures": 0}})
