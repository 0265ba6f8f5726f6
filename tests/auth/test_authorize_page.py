"""The authorize page, browser-free: forms, session cookie, CSRF, approve, reject, errors."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from webtest import TestApp

from host.testing import TEST_SITE_ADDRESS, assert_rest_error

from .helpers import assert_no_hash, basic

PAGE = "/authorize-application"
APP_ID = "0b7e6a3c-1d2f-4a5b-8c9d-0e1f2a3b4c5d"


def browser(site):
    return TestApp(site, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": "192.0.2.7"})


def sign_in(client, query: str, login: str, password: str):
    form = client.get(f"{PAGE}?{query}").forms[0]
    form["log"], form["pwd"] = login, password
    return form.submit()


def test_full_flow_from_login_to_users_me(site, people):
    client = browser(site)
    editor = people["editor"]
    query = f"app_name=Lesson+Planner&app_id={APP_ID}&success_url=https%3A%2F%2Fplanner.example%2Fdone%3Fstate%3Dabc"
    login_page = client.get(f"{PAGE}?{query}")
    assert login_page.status_int == 200 and "Lesson Planner" in login_page.text
    assert "HttpOnly" in login_page.headers["Set-Cookie"] and "SameSite=Lax" in login_page.headers["Set-Cookie"]
    assert login_page.forms[0]["csrf_token"].value
    assert_no_hash(login_page)
    signed_in = sign_in(client, query, editor.login, editor.password)
    assert signed_in.status_int == 303
    cookie = signed_in.headers["Set-Cookie"]
    assert cookie.startswith("sitehost_session=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    approve_page = signed_in.follow()
    assert approve_page.status_int == 200 and editor.login in approve_page.text
    assert "https://planner.example" in approve_page.headers["Content-Security-Policy"]
    form = approve_page.forms[0]
    assert form["name"].value == "Lesson Planner"
    redirect = form.submit("action", value="approve")
    assert redirect.status_int == 302
    location = urlsplit(redirect.headers["Location"])
    assert (location.scheme, location.netloc, location.path) == ("https", "planner.example", "/done")
    query_args = parse_qs(location.query)
    assert query_args["state"] == ["abc"]
    assert query_args["site_url"] == ["http://school.test"] and query_args["user_login"] == [editor.login]
    password = query_args["password"][0]
    assert len(password) == 24 and password.isalnum()
    me = site.client.get("/wp-json/core/v2/users/me", headers=basic(query_args["user_login"][0], password))
    assert me.json["id"] == editor.id
    introspected = site.client.get("/wp-json/core/v2/users/me/application-passwords/introspect",
                                   headers=basic(editor.login, password)).json
    assert introspected["name"] == "Lesson Planner" and introspected["app_id"] == APP_ID


def test_without_success_url_the_password_is_shown_once(site, people):
    client = browser(site)
    author = people["author"]
    approve_page = sign_in(client, "app_name=Robot", author.login, author.password).follow()
    form = approve_page.forms[0]
    form["name"] = "Robot <b>arm</b>"
    shown = form.submit("action", value="approve")
    assert shown.status_int == 200 and shown.headers["Cache-Control"] == "no-store"
    password = shown.html.select_one("kbd.new-application-password").text
    assert len(password) == 29
    assert site.client.get("/wp-json/core/v2/users/me", headers=basic(author.login, password)).json["id"] == author.id
    records = site.client.get("/wp-json/core/v2/users/me/application-passwords", headers=author.headers).json
    assert "Robot arm" in [record["name"] for record in records]
    assert_no_hash(shown)


@pytest.mark.parametrize("query, expected", [
    ("success_url=https%3A%2F%2Fapp.example%2Fcb", "https://app.example/cb?success=false"),
    ("success_url=https%3A%2F%2Fapp.example%2Fcb%3Fa%3D1&reject_url=http%3A%2F%2F127.0.0.1%3A8000%2Fno",
     "http://127.0.0.1:8000/no"),
])
def test_reject_redirects(site, people, query, expected):
    client = browser(site)
    subscriber = people["subscriber"]
    approve_page = sign_in(client, query, subscriber.login, subscriber.password).follow()
    response = approve_page.forms[0].submit("action", value="reject")
    assert response.status_int == 302 and response.headers["Location"] == expected
    records = site.client.get("/wp-json/core/v2/users/me/application-passwords", headers=subscriber.headers).json
    assert [record["name"] for record in records] == ["tests"]


def test_reject_without_urls_shows_a_page(site, people):
    client = browser(site)
    approve_page = sign_in(client, "app_name=X", people["author"].login, people["author"].password).follow()
    response = approve_page.forms[0].submit("action", value="reject")
    assert response.status_int == 200 and "no password was created" in response.text


@pytest.mark.parametrize("query, code", [
    ("app_id=not-a-uuid", "invalid_app_id"),
    (f"app_id={APP_ID.upper()}", "invalid_app_id"),
    ("success_url=javascript%3Aalert(1)", "invalid_redirect_url_format"),
    ("success_url=data%3Atext%2Fhtml%2Cx", "invalid_redirect_url_format"),
    ("success_url=%2Frelative", "invalid_redirect_url_format"),
    ("success_url=http%3A%2F%2Fapp.example%2Fcb", "invalid_redirect_scheme"),
    ("reject_url=http%3A%2F%2F10.0.0.1%2Fcb", "invalid_redirect_scheme"),
])
def test_invalid_requests_get_a_400_error_page(site, query, code):
    response = browser(site).get(f"{PAGE}?{query}", status=400)
    assert "The Authorize Application request is not allowed." in response.text and code in response.text
    assert response.forms == {}


@pytest.mark.parametrize("url", ["http://localhost:9000/cb", "http://127.0.0.5/cb", "http://[::1]:8080/cb",
                                 "myapp://callback"])
def test_loopback_http_and_app_schemes_are_allowed(site, url):
    from urllib.parse import quote

    assert browser(site).get(f"{PAGE}?success_url={quote(url, safe='')}").status_int == 200


def test_csrf_is_required_on_every_form(site, people):
    client = browser(site)
    editor = people["editor"]
    form = client.get(PAGE).forms[0]
    form["log"], form["pwd"], form["csrf_token"] = editor.login, editor.password, "forged"
    assert form.submit(status=403).status_int == 403
    approve_page = sign_in(client, "", editor.login, editor.password).follow()
    form = approve_page.forms[0]
    form["csrf_token"] = "forged"
    assert form.submit("action", value="approve", status=403).status_int == 403
    records = site.client.get("/wp-json/core/v2/users/me/application-passwords", headers=editor.headers).json
    assert len(records) == 1
    # a cross-site POST without any cookie cannot sign in either
    fresh = browser(site)
    response = fresh.post(PAGE, {"action": "login", "log": editor.login, "pwd": editor.password, "csrf_token": "x"},
                          status=403)
    assert "sitehost_session" not in response.headers.get("Set-Cookie", "")


def test_wrong_login_and_sign_out(site, people):
    client = browser(site)
    editor = people["editor"]
    failed = sign_in(client, "", editor.login, "wrong password")
    assert failed.status_int == 200 and "incorrect" in failed.text and failed.forms[0]["action"].value == "login"
    approve_page = sign_in(client, "", editor.email, editor.password).follow()
    signed_out = approve_page.forms[1].submit("action", value="logout")
    assert signed_out.status_int == 303 and "Max-Age=0" in signed_out.headers["Set-Cookie"]
    assert signed_out.follow().forms[0]["action"].value == "login"
    # the old session is gone on the server as well
    response = client.post(PAGE, {"action": "approve", "name": "x", "csrf_token": "x"})
    assert response.forms[0]["action"].value == "login"


def test_rest_routes_ignore_the_session_cookie(site, people):
    client = browser(site)
    sign_in(client, "", people["editor"].login, people["editor"].password)
    assert_rest_error(client.get("/wp-json/core/v2/users/me", status=401), "rest_not_logged_in", 401)


def test_sign_in_costs_one_password_hash_check_whoever_signs_in(site, people, monkeypatch):
    """Unknown login, user without a login password, wrong password: the same argon2 work."""
    from argon2 import PasswordHasher

    from host.auth import users as user_service

    verified = []
    original = PasswordHasher.verify
    monkeypatch.setattr(PasswordHasher, "verify", lambda self, *args: verified.append(1) or original(self, *args))
    no_password = user_service.create_user  # a user made without a login password (as the CLI can)
    with site.db.session(write=True) as session, session.begin():
        no_password(site, session, "kiosk", "kiosk@school.test", "subscriber", None)
    answers = []
    for login in ("nobody-here", "kiosk", people["editor"].login):
        verified.clear()
        answers.append(sign_in(browser(site), "app_name=Planner", login, "wrong password"))
        assert verified == [1], login
    assert len({answer.status_int for answer in answers}) == 1
    assert all("The username, email address or password is incorrect." in answer.text for answer in answers)


def test_the_site_url_an_application_is_sent_is_the_site_address_not_the_host_header(site, people):
    client = TestApp(site, extra_environ={"HTTP_HOST": "evil.example", "REMOTE_ADDR": "192.0.2.7"})
    query = f"app_name=Planner&app_id={APP_ID}&success_url=https%3A%2F%2Fplanner.example%2Fdone"
    approve_page = sign_in(client, query, people["editor"].login, people["editor"].password).follow()
    redirect = approve_page.forms[0].submit("action", value="approve")
    assert parse_qs(urlsplit(redirect.headers["Location"]).query)["site_url"] == [TEST_SITE_ADDRESS]
