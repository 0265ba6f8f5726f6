"""The post-password form (`POST /postpass`) is rate limited per client address with the host's limiter:
past `[plugins.core] postpass_limit` submissions in the window it answers 429 with a page that says what
to do, and the password is not compared (the right one sets no cookie). Other addresses are not held up."""

from __future__ import annotations

import pytest

from host.config import ConfigError
from host.testing import create_test_user

from .helpers import POSTS, SITE, parse_strict

LIMITED = {"core": {"postpass_limit": 3, "postpass_window_seconds": 600}}
PARENT = {"REMOTE_ADDR": "203.0.113.7"}
NEIGHBOUR = {"REMOTE_ADDR": "198.51.100.20"}


def _protected_post(app):
    admin = create_test_user(app, "administrator")
    return app.client.post_json(POSTS, {"title": "Class photos", "slug": "class-photos", "status": "publish",
                                        "password": "river", "content": "<p>The photo gallery.</p>"},
                                headers=admin.headers, status=201).json


def test_password_form_answers_429_past_the_limit_without_checking_the_password(make_app):
    app = make_app(plugins=["core"], config=LIMITED)
    post = _protected_post(app)
    for guess in ("sea", "lake", "pond"):
        wrong = app.client.post("/postpass", {"post_id": post["id"], "post_password": guess},
                                extra_environ=PARENT, status=303)
        assert wrong.headers["Location"].endswith("password=wrong")

    limited = app.client.post("/postpass", {"post_id": post["id"], "post_password": "river"},
                              extra_environ=PARENT, status=429)
    assert "Set-Cookie" not in limited.headers  # the right password unlocks nothing past the limit
    assert 1 <= int(limited.headers["Retry-After"]) <= 600
    assert limited.headers["Cache-Control"] == "no-store" and limited.content_type == "text/html"
    document = parse_strict(limited.text)
    assert document.find(".//main/h1").text == "Too many attempts"
    assert "Please wait 10 minutes" in "".join(document.find(".//main/p[@role='alert']").itertext())
    assert "The photo gallery." not in limited.text
    app.client.post("/postpass", {"post_id": "x"}, extra_environ=PARENT, status=429)  # refused before reading

    neighbour = app.client.post("/postpass", {"post_id": post["id"], "post_password": "river"},
                                extra_environ=NEIGHBOUR, status=303)
    assert neighbour.headers["Location"] == f"{SITE}/?p={post['id']}" and "wp-postpass-" in neighbour.headers["Set-Cookie"]


def test_bad_forms_count_against_the_limit_too(make_app):
    """A malformed form is still an attempt, so nobody probes ids or lengths past the limit either."""
    app = make_app(plugins=["core"], config=LIMITED)
    post = _protected_post(app)
    app.client.post("/postpass", {"post_id": "x", "post_password": "river"}, extra_environ=PARENT, status=400)
    app.client.post("/postpass", {"post_id": "999999", "post_password": "river"}, extra_environ=PARENT, status=404)
    app.client.post("/postpass", {"post_id": post["id"], "post_password": "sea"}, extra_environ=PARENT, status=303)
    app.client.post("/postpass", {"post_id": post["id"], "post_password": "river"}, extra_environ=PARENT, status=429)


def test_a_postpass_limit_of_zero_stops_the_start_naming_the_key(make_app):
    with pytest.raises(ConfigError, match=r"\[plugins.core\]: postpass_limit = 0"):
        make_app(plugins=["core"], config={"core": {"postpass_limit": 0}})
