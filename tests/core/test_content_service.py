"""The content service, app.content: a plugin reads and writes items of its own post type (issue 14.1)."""

from __future__ import annotations

import pytest
from marshmallow import Schema, fields

from host import MetaKey, Namespace, PostType, Route
from host.testing import create_test_user, make_plugin

from tests.core.helpers import API


class DishArgs(Schema):
    title = fields.String(required=True)
    status = fields.String(load_default="publish")


def canteen_plugin(events: list):
    def create_dish(request):
        item = request.app.content.create(request, "dish", title=request.params["title"],
                                          status=request.params["status"], meta={"calories": 450})
        return {"id": item["id"], "slug": item["slug"], "status": item["status"], "meta": item["meta"]}

    def list_dishes(request):
        items, total = request.app.content.query(request, "dish", orderby="title", order="asc")
        return {"titles": [item["title"] for item in items], "total": total}

    def rename_dish(request):
        item = request.app.content.update(request, int(request.params["id"]), title=request.params["title"])
        return {"title": item["title"], "modified_after_date": item["modified"] >= item["date"]}

    def remove_dish(request):
        request.app.content.delete(request, int(request.params["id"]))
        return {"deleted": True, "still_there": request.app.content.get(request, int(request.params["id"]))}

    def content_saved(event):
        events.append(("saved", event.type, event.item["title"], event.created))

    def content_deleted(event):
        events.append(("deleted", event.type, event.id, event.force))

    class RenameArgs(Schema):
        id = fields.Integer()
        title = fields.String(required=True)

    class IdArgs(Schema):
        id = fields.Integer()

    dish = r"/dishes/(?P<id>[\d]+)"
    return make_plugin(
        "canteen", content_saved, content_deleted, requires=("core",),
        register_post_types=lambda: [PostType("dish", "Dishes", rest_base="dishes")],
        register_meta=lambda: [MetaKey("dish", "calories", {"type": "integer", "default": 0})],
        register_namespaces=lambda: [Namespace("canteen/v1")],
        register_routes=lambda: [
            Route("canteen/v1", "/dishes", "POST", create_dish, args=DishArgs),
            Route("canteen/v1", "/dishes", "GET", list_dishes),
            Route("canteen/v1", dish, "POST", rename_dish, args=RenameArgs),
            Route("canteen/v1", dish, "DELETE", remove_dish, args=IdArgs),
        ])


@pytest.fixture
def canteen(make_app):
    events: list = []
    app = make_app(plugins=["core", canteen_plugin(events)])
    app.events = events
    app.editor = create_test_user(app, "editor")
    return app


def test_a_plugin_creates_lists_updates_and_deletes_its_items_through_the_service(canteen):
    client, editor = canteen.client, canteen.editor.headers
    soup = client.post_json("/wp-json/canteen/v1/dishes", {"title": "Soup of the day"}, headers=editor).json
    assert soup["slug"] == "soup-of-the-day" and soup["status"] == "publish" and soup["meta"] == {"calories": 450}
    client.post_json("/wp-json/canteen/v1/dishes", {"title": "Apple pie"}, headers=editor)
    client.post_json("/wp-json/canteen/v1/dishes", {"title": "Draft stew", "status": "draft"}, headers=editor)
    assert client.get("/wp-json/canteen/v1/dishes").json == {"titles": ["Apple pie", "Soup of the day"], "total": 2}

    # the same items through core/v2, whose routes the registered type got
    assert client.get(f"{API}/dishes/{soup['id']}").json["meta"] == {"calories": 450}

    renamed = client.post_json(f"/wp-json/canteen/v1/dishes/{soup['id']}", {"title": "Tomato soup"},
                               headers=editor).json
    assert renamed == {"title": "Tomato soup", "modified_after_date": True}
    assert client.delete(f"/wp-json/canteen/v1/dishes/{soup['id']}", headers=editor).json == {
        "deleted": True, "still_there": None}
    client.get(f"{API}/dishes/{soup['id']}", status=404)
    assert canteen.events == [("saved", "dish", "Soup of the day", True), ("saved", "dish", "Apple pie", True),
                              ("saved", "dish", "Draft stew", True), ("saved", "dish", "Tomato soup", False),
                              ("deleted", "dish", soup["id"], True)]


def test_wrong_use_of_the_service_raises_a_clear_error_and_writes_nothing(canteen):
    from host.rest.request import RestRequest

    request = RestRequest(canteen, "POST", "/", [], {}, base_url="http://school.test/wp-json", internal=True)
    service = canteen.content
    try:
        with pytest.raises(ValueError, match="not a registered post type"):
            service.create(request, "lunch", title="x")
        with pytest.raises(ValueError, match="not writable"):
            service.create(request, "dish", title="x", status="trash")
        with pytest.raises(ValueError, match="not registered"):
            service.create(request, "dish", title="x", meta={"colour": "red"})
        with pytest.raises(ValueError, match="cannot be updated"):
            service.update(request, 1, guid="x")
        with pytest.raises(LookupError):
            service.delete(request, 999999)
    finally:
        request.finish(success=False)
    assert canteen.client.get(f"{API}/dishes").json == []


def test_without_the_core_plugin_app_content_says_so(make_app):
    app = make_app(plugins=[make_plugin("lonely")])
    with pytest.raises(RuntimeError, match="no content service"):
        _ = app.content
