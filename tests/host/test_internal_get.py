"""request.internal_get: a plugin reads another plugin's routes as the caller."""

from __future__ import annotations

from marshmallow import Schema, fields

from host import Namespace, Route
from host.testing import make_plugin


class PeekArgs(Schema):
    id = fields.Integer(required=True)


def peek_plugin():
    def peek(request):
        answer = request.internal_get(f"/core/v2/posts/{request.params['id']}", context="view",
                                      _fields=["id", "title"])
        listing = request.internal_get("/core/v2/posts", per_page=1, status=["publish"], ignore_sticky=True)
        return {"status": answer.status, "ok": answer.ok, "data": answer.data if answer.ok else answer.data["code"],
                "listed": len(listing.data), "total": listing.headers.get("X-WP-Total")}

    return make_plugin("peek", requires=("core",), register_namespaces=lambda: [Namespace("peek/v1")],
                       register_routes=lambda: [Route("peek/v1", "/posts", "GET", peek, args=PeekArgs)])


def test_internal_get_runs_the_routes_own_permission_checks_for_the_same_caller(make_app, make_user):
    app = make_app(plugins=["core", peek_plugin()])
    editor = make_user(app, "editor")
    draft = app.client.post_json("/wp-json/core/v2/posts", {"title": "Hidden", "status": "draft"},
                                 headers=editor.headers, status=201).json
    app.client.post_json("/wp-json/core/v2/posts", {"title": "Shown", "status": "publish"}, headers=editor.headers)

    as_anonymous = app.client.get(f"/wp-json/peek/v1/posts?id={draft['id']}").json
    assert as_anonymous == {"status": 401, "ok": False, "data": "rest_forbidden", "listed": 1, "total": "1"}

    as_editor = app.client.get(f"/wp-json/peek/v1/posts?id={draft['id']}", headers=editor.headers).json
    assert as_editor["status"] == 200 and as_editor["ok"] is True
    assert as_editor["data"] == {"id": draft["id"], "title": {"rendered": "Hidden"}}


def test_internal_options_answers_the_routes_description_as_an_outside_options_request_does(make_app, make_user):
    """internal_request("OPTIONS", ...) describes a route (its endpoints' args and schema), e.g. for the admin forms."""
    def describe(request):
        answer = request.internal_request("OPTIONS", "/core/v2/tags")
        return {"status": answer.status, "data": answer.data, "allow": answer.headers.get("Allow")}

    plugin = make_plugin("describe", requires=("core",), register_namespaces=lambda: [Namespace("describe/v1")],
                         register_routes=lambda: [Route("describe/v1", "/tags", "GET", describe)])
    app = make_app(plugins=["core", plugin])
    editor = make_user(app, "editor")
    inside = app.client.get("/wp-json/describe/v1/tags", headers=editor.headers).json
    outside = app.client.options("/wp-json/core/v2/tags", headers=editor.headers)
    assert inside["status"] == 200 and inside["allow"] == outside.headers["Allow"] == "GET, POST"
    assert inside["data"]["endpoints"] == outside.json["endpoints"] and inside["data"]["schema"] == outside.json["schema"]
    assert "name" in next(endpoint for endpoint in inside["data"]["endpoints"] if "POST" in endpoint["methods"])["args"]
