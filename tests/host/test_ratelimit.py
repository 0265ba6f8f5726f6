"""host.ratelimit, the one rate limiter: sliding windows counted in the database, over HTTP through a
small plugin's route, shared by two apps on one database (two workers or nodes)."""

from __future__ import annotations

import pytest

from host import Namespace, RestError, Route
from host.ratelimit import RateLimit, retry_after, take
from host.testing import assert_rest_error, make_plugin

PER_HOUR = RateLimit("probe.greetings", limit=2, window_seconds=3600)


def greet(request):
    address = request.environ.get("REMOTE_ADDR", "")
    wait = take(request.app, request.session, PER_HOUR, address)
    if wait:
        raise RestError("probe_rate_limited", f"Try again in {wait} seconds.", 429, {"retry_after": wait},
                        headers={"Retry-After": str(wait)})
    return {"hello": address}


def peek(request):
    return {"retry_after": retry_after(request.app, request.session, PER_HOUR, request.environ["REMOTE_ADDR"])}


def limited_plugin():
    return make_plugin("probe", register_namespaces=lambda: [Namespace("probe/v1")],
                       register_routes=lambda: [Route("probe/v1", "/greet", "POST", greet),
                                                Route("probe/v1", "/greet", "GET", peek)])


def test_the_limit_is_per_subject_shared_by_every_process_and_answers_retry_after(make_app):
    app = make_app(plugins=[limited_plugin()])
    other_node = make_app(plugins=[limited_plugin()], database_url=app.settings.database_url)
    school = {"REMOTE_ADDR": "192.0.2.10"}
    assert app.client.post("/wp-json/probe/v1/greet", extra_environ=school, status=200).json == {"hello": "192.0.2.10"}
    assert app.client.get("/wp-json/probe/v1/greet", extra_environ=school).json == {"retry_after": 0}
    other_node.client.post("/wp-json/probe/v1/greet", extra_environ=school, status=200)
    refused = app.client.post("/wp-json/probe/v1/greet", extra_environ=school, status=429)
    body = assert_rest_error(refused, "probe_rate_limited", 429)
    assert 3500 <= body["data"]["retry_after"] <= 3600 and refused.headers["Retry-After"] == str(body["data"]["retry_after"])
    assert other_node.client.get("/wp-json/probe/v1/greet", extra_environ=school).json["retry_after"] > 0
    events = app.host_tables["rate_events"]
    with app.db.session() as session:
        assert session.execute(events.select()).all().__len__() == 2  # a refusal counts nothing
    assert other_node.client.post("/wp-json/probe/v1/greet", extra_environ={"REMOTE_ADDR": "198.51.100.7"},
                                  status=200).json == {"hello": "198.51.100.7"}


@pytest.mark.parametrize("scope, window", [("", 60), ("x" * 65, 60), ("probe.ok", 0)])
def test_a_limit_needs_a_short_scope_and_a_window(scope, window):
    with pytest.raises(ValueError):
        RateLimit(scope, 1, window)
