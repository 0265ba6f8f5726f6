"""Signing in to the admin area with WebTest, as a browser would (cookies, the CSRF token of each form)."""

from __future__ import annotations

from webtest import TestApp

ADDRESS = "192.0.2.9"


def browser(site, address: str = ADDRESS) -> TestApp:
    return TestApp(site, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": address})


def sign_in(site, user, address: str = ADDRESS) -> TestApp:
    client = browser(site, address)
    form = client.get("/admin/sign-in").forms[0]
    form["log"], form["pwd"] = user.login, user.password
    answer = form.submit()
    assert answer.status_int == 303, answer.text
    return client


def csrf_of(client) -> str:
    """The session's CSRF token, read from the sign-out form every admin page carries."""
    page = client.get("/admin/profile")
    return page.html.select_one("form.sign-out input[name=csrf_token]")["value"]


def form_with(page, action: str, **fields):
    """The form of `page` that posts `action` (and has the given hidden values), filled with `fields`."""
    match = fields.pop("_match", {})
    for form in page.forms.values():
        if form.fields.get("action") and form["action"].value == action and all(
                name in form.fields and form[name].value == value for name, value in match.items()):
            for name, value in fields.items():
                form[name] = value
            return form
    raise AssertionError(f"no form with action {action!r}")
