"""A plugin's registered PostType and Taxonomy get their core/v2 routes."""

from __future__ import annotations

import pytest

from host import PostType, Taxonomy
from host.testing import assert_rest_error, create_test_user, make_plugin

from tests.core.helpers import API


def menu_plugin(supports=("title", "editor", "author", "revisions")):
    return make_plugin(
        "canteen", requires=("core",),
        register_post_types=lambda: [PostType("menu", "Menus", rest_base="menus", supports=supports)],
        register_taxonomies=lambda: [Taxonomy("diet", "Diets", rest_base="diets", object_types=("menu",))])


@pytest.fixture
def canteen(make_app):
    app = make_app(plugins=["core", menu_plugin()])
    app.editor = create_test_user(app, "editor")
    app.subscriber = create_test_user(app, "subscriber")
    return app


def test_the_type_and_taxonomy_routes_are_registered_and_advertised(canteen):
    routes = canteen.client.get(API).json["routes"]
    for path in ("/core/v2/menus", "/core/v2/menus/(?P<id>[\\d]+)", "/core/v2/menus/(?P<parent>[\\d]+)/revisions",
                 "/core/v2/menus/(?P<id>[\\d]+)/autosaves", "/core/v2/diets", "/core/v2/diets/(?P<id>[\\d]+)"):
        assert path in routes, path
    assert routes["/core/v2/menus"]["endpoints"][0]["args"]["status"]["default"] == "publish"
    assert "sticky" not in routes["/core/v2/menus"]["endpoints"][0]["args"]  # only posts are sticky


def test_items_of_the_type_are_created_read_listed_updated_and_deleted(canteen):
    client, editor = canteen.client, canteen.editor.headers
    created = client.post_json(f"{API}/menus", {"title": "Monday", "content": "Soup", "status": "publish"},
                               headers=editor, status=201).json
    assert created["type"] == "menu" and created["title"]["raw"] == "Monday"
    assert created["_links"]["self"][0]["href"].endswith(f"/core/v2/menus/{created['id']}")
    assert client.get(f"{API}/menus/{created['id']}").json["content"]["rendered"].strip() == "<p>Soup</p>"
    assert [item["id"] for item in client.get(f"{API}/menus").json] == [created["id"]]
    assert client.get(f"{API}/posts").json == []  # the type's items stay in their own collection
    client.get(f"{API}/posts/{created['id']}", status=404)

    client.post_json(f"{API}/menus/{created['id']}", {"title": "Tuesday"}, headers=editor, status=200)
    revisions = client.get(f"{API}/menus/{created['id']}/revisions", headers=editor).json
    assert revisions and revisions[0]["parent"] == created["id"]
    assert revisions[0]["_links"]["parent"][0]["href"].endswith(f"/core/v2/menus/{created['id']}")

    deleted = client.delete(f"{API}/menus/{created['id']}?force=true", headers=editor, status=200).json
    assert deleted["deleted"] is True
    client.get(f"{API}/menus/{created['id']}", status=404)


def test_the_type_keeps_core_permissions(canteen):
    client = canteen.client
    assert_rest_error(client.post_json(f"{API}/menus", {"title": "x"}, status=401), "rest_cannot_create", 401)
    response = client.post_json(f"{API}/menus", {"title": "x"}, headers=canteen.subscriber.headers, status=403)
    assert_rest_error(response, "rest_cannot_create", 403)
    draft = client.post_json(f"{API}/menus", {"title": "Secret", "status": "draft"},
                             headers=canteen.editor.headers, status=201).json
    client.get(f"{API}/menus/{draft['id']}", status=401)
    assert client.get(f"{API}/menus").json == []


def test_terms_of_the_taxonomy_are_served(canteen):
    client, editor = canteen.client, canteen.editor.headers
    term = client.post_json(f"{API}/diets", {"name": "Vegan"}, headers=editor, status=201).json
    assert term["taxonomy"] == "diet" and term["slug"] == "vegan"
    assert [found["id"] for found in client.get(f"{API}/diets").json] == [term["id"]]


def test_supports_decide_the_revisions_and_autosaves_routes(make_app):
    app = make_app(plugins=["core", menu_plugin(supports=("title", "author"))])
    routes = app.client.get(API).json["routes"]
    assert "/core/v2/menus" in routes
    assert not any(path.startswith("/core/v2/menus/(?P<parent>") or "autosaves" in path and "menus" in path
                   for path in routes)


def test_without_the_plugin_the_routes_are_gone(make_app):
    app = make_app(plugins=["core"])
    assert_rest_error(app.client.get(f"{API}/menus", status=404), "rest_no_route", 404)
