"""app.stash and request.state: where plugins keep per-app and per-request state."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from host import Namespace, Route
from host.stash import Stash, StashKey
from host.testing import make_plugin


@dataclass(frozen=True)
class CanteenSettings:
    opens: str


SETTINGS = StashKey[CanteenSettings]("canteen.settings")


def canteen_plugin(seen_at_shutdown: list):
    def startup(app):
        app.stash[SETTINGS] = CanteenSettings(opens=app.plugin_config("canteen").get("opens", "11:30"))

    def shutdown(app):
        seen_at_shutdown.append(app.stash[SETTINGS])

    def hours(request):
        counted = request.state.setdefault("canteen_calls", [])
        counted.append(1)
        return {"opens": request.app.stash[SETTINGS].opens, "calls_this_request": len(counted)}

    return make_plugin("canteen", startup=startup, shutdown=shutdown,
                       register_namespaces=lambda: [Namespace("canteen/v1")],
                       register_routes=lambda: [Route("canteen/v1", "/hours", "GET", hours)])


def test_settings_loaded_in_startup_are_read_from_the_stash_and_dropped_after_shutdown(make_app):
    seen: list = []
    app = make_app(plugins=[canteen_plugin(seen)], config={"canteen": {"opens": "12:00"}})
    assert app.client.get("/wp-json/canteen/v1/hours").json == {"opens": "12:00", "calls_this_request": 1}
    assert app.client.get("/wp-json/canteen/v1/hours").json["calls_this_request"] == 1  # request.state is per request
    app.close()
    assert seen == [CanteenSettings("12:00")]
    assert SETTINGS not in app.stash


def test_each_app_has_its_own_stash(make_app):
    first = make_app(plugins=[canteen_plugin([])], config={"canteen": {"opens": "08:00"}})
    second = make_app(plugins=[canteen_plugin([])], config={"canteen": {"opens": "09:00"}})
    assert first.client.get("/wp-json/canteen/v1/hours").json["opens"] == "08:00"
    assert second.client.get("/wp-json/canteen/v1/hours").json["opens"] == "09:00"


def test_a_missing_key_says_which_key_and_setdefault_by_creates_once():
    stash = Stash()
    with pytest.raises(KeyError, match="canteen.settings"):
        stash[SETTINGS]
    made = []
    key = StashKey[list]("canteen.list")
    assert stash.setdefault_by(key, lambda: made.append(1) or ["x"]) == ["x"]
    assert stash.setdefault_by(key, lambda: made.append(1) or ["y"]) == ["x"]
    assert made == [1]
