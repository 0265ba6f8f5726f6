"""Route args are marshmallow Schema classes built on host.args."""

from __future__ import annotations

from marshmallow import fields

from host import Namespace, Route
from host.args import CollectionArgs, ContextArgs, orderby_field
from host.testing import assert_rest_error, make_plugin

API = "/wp-json/core/v2"


class MenuCollectionArgs(CollectionArgs):
    orderby = orderby_field(["date", "id"], "date", "Sort collection by menu attribute.")
    course = fields.Integer(metadata={"description": "Limit result set to menus of a course."})


def _lunch_plugin(args):
    return make_plugin("lunch", register_namespaces=lambda: [Namespace("lunch/v1")],
                       register_routes=lambda: [Route("lunch/v1", "/menus", "GET", lambda request: request.params,
                                                      args=args)])


def test_a_collection_schema_gives_paging_search_include_exclude_offset_and_order(make_app):
    app = make_app(plugins=[_lunch_plugin(MenuCollectionArgs)])
    args = app.client.get("/wp-json/lunch/v1").json["routes"]["/lunch/v1/menus"]["endpoints"][0]["args"]
    assert set(args) == {"context", "page", "per_page", "search", "include", "exclude", "offset", "order",
                         "orderby", "course"}
    assert args["page"] == {"description": "Current page of the collection.", "default": 1, "type": "integer",
                            "minimum": 1, "required": False}
    assert args["per_page"]["maximum"] == 100 and args["per_page"]["default"] == 10
    assert args["orderby"]["enum"] == ["date", "id"] and args["orderby"]["default"] == "date"
    assert args["context"]["enum"] == ["view", "embed", "edit"]

    sent = app.client.get("/wp-json/lunch/v1/menus?include=3,4&per_page=5&order=asc").json
    assert sent["include"] == [3, 4] and sent["per_page"] == 5 and sent["order"] == "asc" and sent["page"] == 1
    response = app.client.get("/wp-json/lunch/v1/menus?per_page=0", status=400)
    assert_rest_error(response, "rest_invalid_param", 400)
    assert "per_page" in response.json["data"]["params"]


def test_a_route_whose_args_are_not_a_schema_class_leaves_its_plugin_out_with_a_clear_reason(make_app):
    app = make_app(plugins=[_lunch_plugin({"day": {"type": "string"}})])
    record = app.plugin("lunch")
    assert record.state == "failed"
    assert "args must be a marshmallow Schema class" in record.error and "/menus" in record.error
    app.client.get("/wp-json/lunch/v1/menus", status=404)


def test_a_schema_instance_is_refused_too(make_app):
    app = make_app(plugins=[_lunch_plugin(ContextArgs())])
    assert "args must be a marshmallow Schema class" in app.plugin("lunch").error


def _posts_args(app, method="GET", path="/core/v2/posts"):
    endpoints = app.client.get(API).json["routes"][path]["endpoints"]
    return next(endpoint for endpoint in endpoints if method in endpoint["methods"])["args"]


def test_term_filters_are_declared_with_one_of_and_no_default(app):
    args = _posts_args(app)
    categories = args["categories"]
    assert "default" not in categories and "anyOf" not in categories
    assert categories["type"] == ["object", "array"]
    listed, query = categories["oneOf"]
    assert listed == {"title": "Term ID List", "description": "Match terms with the listed IDs.", "type": "array",
                      "items": {"type": "integer"}}
    assert query["title"] == "Term ID Taxonomy Query" and query["additionalProperties"] is False
    assert set(query["properties"]) == {"terms", "include_children", "operator"}
    assert set(args["tags"]["oneOf"][1]["properties"]) == {"terms", "operator"}  # tags are flat
    assert set(args["categories_exclude"]["oneOf"][1]["properties"]) == {"terms", "include_children"}


def test_term_filters_accept_an_id_list_or_a_query_object_and_refuse_anything_else(client, users):
    editor = users["editor"].headers
    client.post_json(f"{API}/categories", {"name": "Sport"}, headers=editor, status=201)
    sport = client.get(f"{API}/categories?slug=sport").json[0]["id"]
    tagged = client.post_json(f"{API}/posts", {"title": "Match", "status": "publish", "categories": [sport]},
                              headers=editor, status=201).json["id"]
    client.post_json(f"{API}/posts", {"title": "Other", "status": "publish"}, headers=editor, status=201)

    assert [post["id"] for post in client.get(f"{API}/posts?categories={sport}").json] == [tagged]
    by_object = client.get(f"{API}/posts?categories[terms]={sport}&categories[operator]=AND").json
    assert [post["id"] for post in by_object] == [tagged]
    assert tagged not in [post["id"] for post in client.get(f"{API}/posts?categories_exclude={sport}").json]
    assert len(client.get(f"{API}/posts").json) >= 2  # no filter when the arg is absent

    response = client.get(f"{API}/posts?categories[colour]=red", status=400)
    assert_rest_error(response, "rest_invalid_param", 400)
    assert response.json["data"]["details"]["categories"]["code"] == "rest_no_matching_schema"


def test_title_content_and_excerpt_are_declared_as_the_reference_declares_them(app):
    args = _posts_args(app, "POST")
    title, content, excerpt = args["title"], args["content"], args["excerpt"]
    for arg in (title, content, excerpt):
        assert arg["type"] == "object" and "anyOf" not in arg and "oneOf" not in arg
        assert arg["properties"]["raw"]["context"] == ["edit"]
        assert arg["properties"]["rendered"]["readonly"] is True
    assert title["properties"]["raw"]["description"] == "Title for the post, as it exists in the database."
    assert title["properties"]["rendered"]["description"] == "HTML title for the post, transformed for display."
    assert set(content["properties"]) == {"raw", "rendered", "block_version", "protected"}
    assert set(excerpt["properties"]) == {"raw", "rendered", "protected"}
    assert excerpt["properties"]["raw"]["description"] == "Excerpt for the post, as it exists in the database."


def test_title_content_and_excerpt_take_a_string_or_an_object_and_refuse_other_values(client, users):
    editor = users["editor"].headers
    created = client.post_json(f"{API}/posts", {"title": "Plain", "content": {"raw": "<p>Body</p>"},
                                                "excerpt": "Short", "status": "draft"}, headers=editor, status=201)
    post = created.json
    assert post["title"]["raw"] == "Plain" and post["content"]["raw"] == "<p>Body</p>"
    assert post["excerpt"]["raw"] == "Short"
    updated = client.post_json(f"{API}/posts/{post['id']}", {"title": {"raw": "Object"}}, headers=editor).json
    assert updated["title"]["raw"] == "Object"

    for bad in ([1, 2], 5, {"raw": 7}, None):
        response = client.post_json(f"{API}/posts/{post['id']}", {"title": bad}, headers=editor, status=400)
        assert_rest_error(response, "rest_invalid_param", 400)
        assert "title" in response.json["data"]["params"]
    response = client.post_json(f"{API}/posts", {"content": ["x"], "title": "Never"}, headers=editor, status=400)
    assert "content" in response.json["data"]["params"]
    assert client.get(f"{API}/posts/{post['id']}?context=edit", headers=editor).json["title"]["raw"] == "Object"
    assert "Never" not in [item["title"]["raw"] for item in
                           client.get(f"{API}/posts?context=edit&status=any", headers=editor).json]



def test_args_keep_the_reference_order_path_variables_first(app):
    posts = list(_posts_args(app))
    assert posts[:17] == ["context", "page", "per_page", "search", "after", "modified_after", "author",
                          "author_exclude", "before", "modified_before", "exclude", "include", "search_semantics",
                          "offset", "order", "orderby", "search_columns"]
    assert list(_posts_args(app, "GET", "/core/v2/posts/(?P<id>[\\d]+)")) == ["id", "context", "excerpt_length",
                                                                              "password"]
    revisions = "/core/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)"
    assert list(_posts_args(app, "DELETE", revisions)) == ["parent", "id", "force"]
    categories = list(_posts_args(app, "GET", "/core/v2/categories"))
    assert "offset" not in categories and categories.index("parent") == categories.index("hide_empty") + 1
