"""The content service, app.content: a plugin reads and writes items of its own post type."""

from __future__ import annotations

import pytest
from marshmallow import Schema, fields, validate

from host import MetaKey, Namespace, PostType, RestError, Route
from host.content import ItemIdsTaken
from host.testing import create_test_user, make_plugin

from tests.core.helpers import API


class DishArgs(Schema):
    title = fields.String(required=True)
    status = fields.String(load_default="publish")


class ManyDishesArgs(Schema):
    titles = fields.List(fields.String(validate=validate.Length(max=200)), required=True,
                         validate=validate.Length(min=1, max=20))
    ids = fields.List(fields.Integer(validate=validate.Range(min=0)), validate=validate.Length(max=20))  # 0: none asked
    content = fields.String(validate=validate.Length(max=1000))
    keep_ids = fields.Boolean()


class DishCommentsArgs(Schema):
    post = fields.Integer(required=True, validate=validate.Range(min=1))
    contents = fields.List(fields.String(validate=validate.Length(max=500)), required=True,
                           validate=validate.Length(min=1, max=20))
    status = fields.String(validate=validate.Length(max=20))
    parent = fields.Integer(validate=validate.Range(min=0))


def canteen_plugin(events: list):
    def create_dish(request):
        item = request.app.content.create(request, "dish", title=request.params["title"],
                                          status=request.params["status"], meta={"calories": 450})
        return {"id": item["id"], "slug": item["slug"], "status": item["status"], "meta": item["meta"]}

    def create_dishes(request):
        params = request.params
        asked = (params.get("ids") or []) + [0] * len(params["titles"])
        entries = [{"post_type": "dish", "title": title, "status": "publish", "content": params.get("content") or "",
                    "meta": {"calories": 100 + index}, "item_id": asked[index] or None}
                   for index, title in enumerate(params["titles"])]
        try:
            items = request.app.content.create_many(request, entries, keep_ids=bool(params.get("keep_ids")))
        except ItemIdsTaken as taken:
            raise RestError("canteen_ids_taken", str(taken), 409, {"ids": taken.ids}) from None
        return [{"id": item["id"], "slug": item["slug"], "title": item["title"], "content": item["content"],
                 "meta": item["meta"]} for item in items]

    def comment_on_dish(request):
        params = request.params
        entries = [{"post_id": params["post"], "content": text, "status": params.get("status") or "approved",
                    "parent": params.get("parent") or 0, "author_name": "Cook"} for text in params["contents"]]
        try:
            stored = request.app.comments.create_many(request, entries)
        except ValueError as wrong:
            raise RestError("canteen_bad_comment", str(wrong), 400) from None
        except LookupError as missing:
            raise RestError("canteen_no_dish", str(missing), 404) from None
        return [{"id": comment["id"], "parent": comment["parent"], "content": comment["content"]} for comment in stored]

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
            Route("canteen/v1", "/dishes/many", "POST", create_dishes, args=ManyDishesArgs),
            Route("canteen/v1", "/dishes/comments", "POST", comment_on_dish, args=DishCommentsArgs),
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


def test_create_many_writes_what_one_create_after_another_would(canteen):
    client, editor = canteen.client, canteen.editor.headers
    client.post_json("/wp-json/canteen/v1/dishes", {"title": "Soup"}, headers=editor)
    canteen.events.clear()
    made = client.post_json("/wp-json/canteen/v1/dishes/many", {"titles": ["Soup", "Pie", "Soup", "Feed"]},
                            headers=editor).json
    # each item sees the slugs stored and those given before it; a reserved name gets a number
    assert [dish["slug"] for dish in made] == ["soup-2", "pie", "soup-3", "feed-2"]
    assert [dish["meta"] for dish in made] == [{"calories": 100}, {"calories": 101}, {"calories": 102},
                                               {"calories": 103}]
    assert made == sorted(made, key=lambda dish: dish["id"])
    assert canteen.events == [("saved", "dish", title, True) for title in ("Soup", "Pie", "Soup", "Feed")]
    listed = client.get("/wp-json/canteen/v1/dishes").json
    assert listed["total"] == 5 and listed["titles"].count("Soup") == 3
    stored = {dish["id"]: dish for dish in client.get(f"{API}/dishes", params={"per_page": 100}).json}
    assert {dish["id"]: dish["slug"] for dish in made} == {key: stored[key]["slug"] for key in stored
                                                           if key in {dish["id"] for dish in made}}
    assert client.get(f"{API}/dishes", params={"search": "pie"}).json[0]["id"] == made[1]["id"]


def test_create_many_filters_html_for_writers_without_unfiltered_html(canteen):
    author = create_test_user(canteen, "author")
    made = canteen.client.post_json("/wp-json/canteen/v1/dishes/many", {
        "titles": ["<b>Stew</b><script>x()</script>"], "content": "<p onclick='x()'>Hot</p><script>x()</script>"},
        headers=author.headers).json
    assert "script" not in made[0]["title"] and "script" not in made[0]["content"]
    assert "onclick" not in made[0]["content"] and "Hot" in made[0]["content"]


def test_create_many_keeps_free_ids_and_refuses_held_ones_when_asked_to_keep_them(canteen):
    client, editor = canteen.client, canteen.editor.headers
    held = client.post_json("/wp-json/canteen/v1/dishes", {"title": "Held"}, headers=editor).json["id"]
    free = held + 50
    kept = client.post_json("/wp-json/canteen/v1/dishes/many", {"titles": ["Kept", "New"], "ids": [free, 0]},
                            headers=editor).json
    assert kept[0]["id"] == free and kept[1]["id"] > free  # a new id comes after every kept one
    moved = client.post_json("/wp-json/canteen/v1/dishes/many", {"titles": ["Moved"], "ids": [held]},
                             headers=editor).json
    assert moved[0]["id"] not in (held, free)
    canteen.events.clear()
    refused = client.post_json("/wp-json/canteen/v1/dishes/many", {"titles": ["A", "B"], "ids": [free + 10, held],
                                                                   "keep_ids": True}, headers=editor, status=409).json
    assert refused["code"] == "canteen_ids_taken" and refused["data"]["ids"] == [held]
    assert canteen.events == [] and client.get("/wp-json/canteen/v1/dishes").json["total"] == 4
    assert client.get(f"{API}/dishes/{free + 10}", status=404)


def test_the_comments_service_stores_many_comments_at_once_with_their_thread(canteen):
    client, editor = canteen.client, canteen.editor.headers
    admin = create_test_user(canteen, "administrator")
    dish = client.post_json("/wp-json/canteen/v1/dishes", {"title": "Curry"}, headers=editor).json["id"]
    first = client.post_json("/wp-json/canteen/v1/dishes/comments", {"post": dish, "contents": ["Spicy!", "Mild?"]},
                             headers=editor).json
    assert first[1]["id"] == first[0]["id"] + 1 and [comment["parent"] for comment in first] == [0, 0]
    reply = client.post_json("/wp-json/canteen/v1/dishes/comments", {"post": dish, "contents": ["Both."],
                                                                     "parent": first[1]["id"]}, headers=editor).json
    stored = {comment["id"]: comment for comment in client.get(f"{API}/comments", params={"post": dish},
                                                               headers=admin.headers).json}
    assert sorted(stored) == [first[0]["id"], first[1]["id"], reply[0]["id"]]
    assert stored[reply[0]["id"]]["parent"] == first[1]["id"] and stored[first[0]["id"]]["author_name"] == "Cook"
    # a bad status or a missing post refuses the whole call
    refused = client.post_json("/wp-json/canteen/v1/dishes/comments", {"post": dish, "contents": ["x"],
                                                                       "status": "shouting"}, headers=editor, status=400)
    assert refused.json["code"] == "canteen_bad_comment"
    client.post_json("/wp-json/canteen/v1/dishes/comments", {"post": dish + 1000, "contents": ["x"]}, headers=editor,
                     status=404)
    assert len(client.get(f"{API}/comments", params={"post": dish}, headers=admin.headers).json) == 3


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
        with pytest.raises(ValueError, match="not registered"):  # the bad entry is the last: nothing is written
            service.create_many(request, [{"post_type": "dish", "title": "x"},
                                          {"post_type": "dish", "title": "y", "meta": {"colour": "red"}}])
        with pytest.raises(ValueError, match="unknown arguments"):
            service.create_many(request, [{"post_type": "dish", "title": "x", "guid": "x"}])
    finally:
        request.finish(success=False)
    assert canteen.client.get(f"{API}/dishes").json == []


def test_without_the_core_plugin_app_content_says_so(make_app):
    app = make_app(plugins=[make_plugin("lonely")])
    with pytest.raises(RuntimeError, match="no content service"):
        _ = app.content
