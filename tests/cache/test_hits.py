"""What a hit answers: the miss's status and headers (CORS per asking origin), never a caller with credentials.

Anonymous GETs skip authentication when only the host's authenticators exist (they read only the
Authorization header); these tests pin down that a hit still looks exactly like the miss it
replays, and that anything that could sign a request in keeps it away from the cache.
"""

from __future__ import annotations

import pytest

from host import RestError, hookimpl
from host.testing import assert_rest_error, basic_auth_headers, create_test_user, make_plugin

from .helpers import NOTES

REST = "/wp-json"
ALLOWED = "https://app.school.test"
PER_CLIENT = {"X-Cache", "Access-Control-Allow-Origin", "Access-Control-Allow-Methods",
              "Access-Control-Allow-Credentials", "Vary"}


class KioskUser:
    """The canteen kiosk, signed in by a header of its own."""

    id = 9000
    login = "kiosk"
    is_authenticated = True
    roles = ("kiosk",)
    application_password_uuid = None

    def can(self, capability, *args):
        return False


@hookimpl(tryfirst=True)
def authenticate(request):
    token = request.header("x-kiosk-token")
    if token is None:
        return None
    if token != "canteen-42":
        raise RestError("kiosk_bad_token", "The kiosk token is wrong.", 401)
    return KioskUser()


kiosk_authenticate = authenticate  # for tests whose own hook function shadows the name


@pytest.fixture
def cors_cache_app(make_app, example_plugin):
    return make_app(plugins=["example", "cache"], config={"cache": {"paths": [NOTES]}}, cors_origins=[ALLOWED])


def shared_headers(response):
    return {name: value for name, value in response.headers.items() if name not in PER_CLIENT}


@pytest.mark.parametrize("path", ["/", NOTES, NOTES + "?per_page=2&order=asc"])
def test_a_hit_carries_the_status_and_headers_of_the_miss(cors_cache_app, path):
    miss = cors_cache_app.client.get(REST + path)
    hit = cors_cache_app.client.get(REST + path)
    assert (miss.headers["X-Cache"], hit.headers["X-Cache"]) == ("miss", "hit")
    assert hit.status_int == miss.status_int == 200
    assert shared_headers(hit) == shared_headers(miss)
    assert hit.body == miss.body
    assert "Access-Control-Allow-Origin" not in hit.headers


def test_a_hit_answers_cors_for_the_origin_that_asks(cors_cache_app):
    cors_cache_app.client.get(REST + NOTES, headers={"Origin": ALLOWED})  # stored while answering an allowed origin
    allowed = cors_cache_app.client.get(REST + NOTES, headers={"Origin": ALLOWED})
    assert allowed.headers["X-Cache"] == "hit"
    assert allowed.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert allowed.headers["Access-Control-Allow-Credentials"] == "true"
    assert allowed.headers["Vary"] == "Origin"
    for headers in ({"Origin": "https://elsewhere.test"}, {}):
        other = cors_cache_app.client.get(REST + NOTES, headers=headers)
        assert other.headers["X-Cache"] == "hit"
        assert not {"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Vary"} & set(other.headers)


def test_any_authorization_header_keeps_the_request_away_from_the_cache(cors_cache_app):
    app = cors_cache_app
    editor = create_test_user(app, "editor")
    app.client.get(REST + NOTES)
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    wrong = app.client.get(REST + NOTES, headers=basic_auth_headers(editor.login, "not the password"), status=401)
    assert_rest_error(wrong, "incorrect_password", 401)
    assert "X-Cache" not in wrong.headers
    other_scheme = app.client.get(REST + NOTES, headers={"Authorization": "Bearer abc"})
    assert "X-Cache" not in other_scheme.headers
    signed_in = app.client.get(REST + NOTES, headers=editor.headers)
    assert "X-Cache" not in signed_in.headers
    assert "no-store" in signed_in.headers["Cache-Control"]


def test_a_plugins_own_authenticator_is_asked_before_the_cache(make_app, example_plugin):
    app = make_app(plugins=["example", "cache", make_plugin("kiosk", authenticate)],
                   config={"cache": {"paths": [NOTES]}})
    app.client.get(REST + NOTES)
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    kiosk = app.client.get(REST + NOTES, headers={"X-Kiosk-Token": "canteen-42"})
    assert "X-Cache" not in kiosk.headers
    assert "no-store" in kiosk.headers["Cache-Control"]
    refused = app.client.get(REST + NOTES, headers={"X-Kiosk-Token": "nope"}, status=401)
    assert_rest_error(refused, "kiosk_bad_token", 401)
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"


def test_an_authenticator_that_declares_its_header_is_asked_only_when_the_header_comes(make_app, example_plugin):
    """PluginInfo.credential_headers: anonymous reads (cache hits above all) skip the hook."""
    asked = []

    @hookimpl(tryfirst=True)
    def authenticate(request):
        asked.append(request.path)
        return kiosk_authenticate(request)

    declared = make_plugin("kiosk", authenticate, credential_headers=("X-Kiosk-Token",))
    app = make_app(plugins=["example", "cache", declared], config={"cache": {"paths": [NOTES]}})
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "miss"
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    assert asked == []
    kiosk = app.client.get(REST + NOTES, headers={"X-Kiosk-Token": "canteen-42"})
    assert "no-store" in kiosk.headers["Cache-Control"] and asked == [NOTES]
    assert_rest_error(app.client.get(REST + NOTES, headers={"X-Kiosk-Token": "nope"}, status=401),
                      "kiosk_bad_token", 401)
    app.client.get(REST + NOTES, headers={"Cookie": "unrelated=1"})  # the host's session cookie: always asked
    assert len(asked) == 3


def test_an_authenticator_that_declares_nothing_is_asked_for_every_request(make_app, example_plugin):
    asked = []

    @hookimpl(tryfirst=True)
    def authenticate(request):
        asked.append(request.path)

    app = make_app(plugins=["example", "cache", make_plugin("kiosk", authenticate)], config={"cache": {"paths": [NOTES]}})
    app.client.get(REST + NOTES)
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    assert asked == [NOTES, NOTES]
