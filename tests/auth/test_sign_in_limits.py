"""Brute-force protection: failures counted per account, address and pair; the failing source is locked.

ten failed sign-ins as `admin` from anywhere used to refuse the administrator's
valid application password too, a loop kept the lock for ever, and the email form of the
login had a budget of its own. Now only the failing source is refused.
"""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import func, insert, select
from webtest import TestApp

from host.config import ConfigError
from host.testing import assert_rest_error, create_test_user

from .helpers import basic, content_stand_in

ME = "/wp-json/core/v2/users/me"
LIMITS = {"max_failures": 3, "max_failures_per_address": 5, "window_seconds": 600, "lockout_seconds": 300,
          "slow_after": 2, "slow_seconds": 0}


@pytest.fixture
def guarded(make_app):
    return make_app(plugins=["core", content_stand_in()], extra={"auth": LIMITS})


def from_address(app, address):
    return TestApp(app, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": address})


def test_a_source_guessing_an_account_is_locked_and_the_owner_is_not(guarded):
    victim = create_test_user(guarded, "administrator")
    attacker = from_address(guarded, "203.0.113.66")
    for _attempt in range(3):
        assert_rest_error(attacker.get(ME, headers=basic(victim.login, "guess"), status=401), "incorrect_password", 401)
    refused = attacker.get(ME, headers=basic(victim.login, "guess"), status=429)
    body = assert_rest_error(refused, "too_many_sign_in_attempts", 429)
    assert 0 < int(refused.headers["Retry-After"]) <= 300 and body["data"]["retry_after"] == int(refused.headers["Retry-After"])
    assert "Try again in" in body["message"]
    # the administrator, from their own address, is never refused: valid application password and form alike
    owner = from_address(guarded, "198.51.100.7")
    assert owner.get(ME, headers=victim.headers).json["id"] == victim.id
    form = owner.get("/authorize-application").forms[0]
    form["log"], form["pwd"] = victim.login, victim.password
    assert form.submit().status_int == 303


def test_the_email_form_of_the_login_shares_the_account_budget(guarded):
    victim = create_test_user(guarded, "editor")
    attacker = from_address(guarded, "203.0.113.67")
    attacker.get(ME, headers=basic(victim.login, "guess"), status=401)
    attacker.get(ME, headers=basic(victim.email, "guess"), status=401)
    attacker.get(ME, headers=basic(victim.email.upper(), "guess"), status=401)
    assert_rest_error(attacker.get(ME, headers=basic(victim.login, "guess"), status=429), "too_many_sign_in_attempts", 429)


def test_attempts_during_a_lock_out_keep_only_the_attacker_locked(guarded):
    victim = create_test_user(guarded, "editor")
    attacker = from_address(guarded, "203.0.113.68")
    for _attempt in range(3):
        attacker.get(ME, headers=basic(victim.login, "guess"), status=401)
    table = guarded.host_tables["rate_events"]
    with guarded.db.session() as session:
        before = session.execute(select(func.count()).select_from(table)).scalar_one()
    for _attempt in range(4):
        attacker.get(ME, headers=basic(victim.login, "guess"), status=429)
    with guarded.db.session() as session:
        assert session.execute(select(func.count()).select_from(table)).scalar_one() == before + 4 * 3
    assert from_address(guarded, "198.51.100.8").get(ME, headers=victim.headers).json["id"] == victim.id


def test_an_account_under_attack_from_many_addresses_gives_each_few_tries(guarded):
    victim = create_test_user(guarded, "editor")
    for number in range(3):  # three addresses, one failure each: the account is under attack
        from_address(guarded, f"203.0.113.{100 + number}").get(ME, headers=basic(victim.login, "guess"), status=401)
    fresh = from_address(guarded, "203.0.113.200")
    for _attempt in range(2):  # slow_after
        fresh.get(ME, headers=basic(victim.login, "guess"), status=401)
    fresh.get(ME, headers=basic(victim.login, "guess"), status=429)
    assert from_address(guarded, "198.51.100.9").get(ME, headers=victim.headers).json["id"] == victim.id


def test_the_state_is_shared_by_apps_on_one_database(guarded, make_app):
    victim = create_test_user(guarded, "editor")
    attacker = from_address(guarded, "203.0.113.70")
    for _attempt in range(3):
        attacker.get(ME, headers=basic(victim.login, "guess"), status=401)
    second_process = make_app(plugins=["core", content_stand_in()], extra={"auth": LIMITS},
                              database_url=guarded.settings.database_url)
    assert_rest_error(from_address(second_process, "203.0.113.70").get(ME, headers=basic(victim.login, "guess"),
                                                                          status=429), "too_many_sign_in_attempts", 429)


def test_one_address_is_limited_across_logins(guarded):
    client = from_address(guarded, "192.0.2.50")
    for index in range(5):
        client.get(ME, headers=basic(f"nobody{index}", "guess"), status=401)
    real = create_test_user(guarded, "subscriber")
    assert_rest_error(client.get(ME, headers=real.headers, status=429), "too_many_sign_in_attempts", 429)
    assert from_address(guarded, "192.0.2.51").get(ME, headers=real.headers).json["id"] == real.id


def test_a_locked_pair_is_refused_with_the_right_password_too_and_long_addresses_count_alike(guarded):
    """The sign-in look-up reads the pair's failures in SQL (subject cut at 200 characters, as recorded)."""
    for address in ("192.0.2.70", "2001:db8::" + "a" * 240):
        user = create_test_user(guarded, "author")  # one each: three failures put an account under attack
        client = from_address(guarded, address)
        for _attempt in range(3):
            assert_rest_error(client.get(ME, headers=basic(user.login, "guess"), status=401), "incorrect_password", 401)
        assert_rest_error(client.get(ME, headers=user.headers, status=429), "too_many_sign_in_attempts", 429)
    assert from_address(guarded, "192.0.2.71").get(ME, headers=user.headers).json["id"] == user.id


def test_success_clears_the_pair_count(guarded):
    user = create_test_user(guarded, "author")
    client = from_address(guarded, "192.0.2.60")
    table = guarded.host_tables["rate_events"]
    for attempts in (2, 1):
        for _attempt in range(attempts):
            client.get(ME, headers=basic(user.login, "guess"), status=401)
        assert client.get(ME, headers=user.headers).json["id"] == user.id
        with guarded.db.session() as session:
            pairs = session.execute(select(func.count()).select_from(table).where(table.c.scope == "signin.pair")).scalar_one()
        assert pairs == 0


def test_login_form_is_limited_per_source_too(guarded):
    user = create_test_user(guarded, "editor")
    browser = from_address(guarded, "203.0.113.4")
    for _attempt in range(3):
        form = browser.get("/authorize-application").forms[0]
        form["log"], form["pwd"] = user.login, "guess"
        assert "incorrect" in form.submit().text
    form = browser.get("/authorize-application").forms[0]
    form["log"], form["pwd"] = user.login, user.password
    refused = form.submit(status=429)
    assert "Too many failed sign-in attempts" in refused.text and int(refused.headers["Retry-After"]) > 0
    # the same source is refused on REST too; the owner elsewhere is not
    assert_rest_error(browser.get(ME, headers=user.headers, status=429), "too_many_sign_in_attempts", 429)
    assert from_address(guarded, "198.51.100.10").get(ME, headers=user.headers).json["id"] == user.id


def test_operators_unlock_an_account_or_an_address(guarded):
    from host.auth import ratelimit

    victim = create_test_user(guarded, "editor")
    attacker = from_address(guarded, "203.0.113.80")
    for _attempt in range(3):
        attacker.get(ME, headers=basic(victim.login, "guess"), status=401)
    attacker.get(ME, headers=victim.headers, status=429)
    with guarded.db.session(write=True) as session, session.begin():
        assert ratelimit.unlock_account(guarded, session, victim.id) > 0
    assert attacker.get(ME, headers=victim.headers).json["id"] == victim.id
    for index in range(2):  # with the 3 before, the address reaches max_failures_per_address (5)
        attacker.get(ME, headers=basic(f"nobody{index}", "guess"), status=401)
    attacker.get(ME, headers=victim.headers, status=429)
    with guarded.db.session(write=True) as session, session.begin():
        assert ratelimit.unlock_address(guarded, session, "203.0.113.80") > 0
    assert attacker.get(ME, headers=victim.headers).json["id"] == victim.id


def test_old_failures_are_pruned(guarded):
    table = guarded.host_tables["rate_events"]
    with guarded.db.session(write=True) as session, session.begin():
        session.execute(insert(table).values(scope="signin.account", subject="name:ghost",
                                             at=datetime.datetime(2000, 1, 1)))
    from_address(guarded, "192.0.2.90").get(ME, headers=basic("someone", "guess"), status=401)
    with guarded.db.session() as session:
        subjects = sorted(session.execute(select(table.c.subject)).scalars().all())
    assert subjects == ["192.0.2.90", "name:someone", "name:someone|192.0.2.90"]


def test_bad_limits_and_unknown_keys_stop_the_start(make_app):
    with pytest.raises(ConfigError, match="max_failures"):
        make_app(plugins=["core"], extra={"auth": {"max_failures": 0}})
    with pytest.raises(ConfigError, match="unknown setting 'max_failure'"):
        make_app(plugins=["core"], extra={"auth": {"max_failure": 5}})
    with pytest.raises(ConfigError) as raised:  # every bad key at once, as for a plugin's table
        make_app(plugins=["core"], extra={"auth": {"max_failure": 5, "window_seconds": -1, "slow_seconds": "x"}})
    message = str(raised.value)
    assert "unknown setting 'max_failure'" in message and "window_seconds = -1 is not valid" in message
    assert "slow_seconds = 'x' is not valid" in message
