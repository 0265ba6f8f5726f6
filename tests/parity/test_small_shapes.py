"""_envelope and batch headers, duplicate term additional_data, autosave route args."""

from __future__ import annotations

from host.testing import assert_rest_error

API = "/wp-json/core/v2"


def test_envelope_gives_totals_as_numbers(client, make_post):
    for _ in range(3):
        make_post()
    response = client.get(f"{API}/posts?per_page=2&_envelope")
    assert response.status_int == 200
    headers = response.json["headers"]
    assert headers["X-WP-Total"] == 3 and headers["X-WP-TotalPages"] == 2
    assert 'rel="next"' in headers["Link"] and headers["Allow"] == "GET"
    assert response.json["status"] == 200 and len(response.json["body"]) == 2
    assert "X-WP-Total" not in response.headers


def test_batch_sub_responses_give_headers_as_an_object_or_empty_list(client, users):
    admin = users["administrator"].headers
    created = client.post_json(f"{API}/categories", {"name": "Existing"}, headers=admin).json
    response = client.post_json("/wp-json/batch/v1", {"requests": [
        {"method": "POST", "path": "/core/v2/tags", "body": {"name": "Fresh"}},
        {"method": "POST", "path": "/core/v2/nowhere", "body": {}},
        {"method": "DELETE", "path": f"/core/v2/categories/{created['id']}?force=true"},
    ]}, headers=admin, status=207)
    first, second, third = response.json["responses"]
    assert first["status"] == 201
    assert first["headers"]["Location"].endswith(f"/core/v2/tags/{first['body']['id']}")
    assert first["headers"]["Allow"] == "GET, POST"
    assert second["status"] == 404 and second["headers"] == []
    assert third["status"] == 200 and third["headers"] == []  # deleted for good: no Allow


def test_duplicate_term_name_gives_top_level_additional_data(client, users):
    admin = users["administrator"].headers
    first = client.post_json(f"{API}/tags", {"name": "Robotics"}, headers=admin).json
    duplicate = client.post_json(f"{API}/tags", {"name": "robotics"}, headers=admin, status=400)
    body = assert_rest_error(duplicate, "term_exists", 400)
    assert body["data"]["term_id"] == first["id"]
    assert body["additional_data"] == [first["id"]]
    other = client.post_json(f"{API}/tags", {"name": "Chess"}, headers=admin).json
    renamed = client.post_json(f"{API}/tags/{other['id']}", {"name": "Robotics"}, headers=admin, status=400)
    assert renamed.json["additional_data"] == [first["id"]]


def _endpoint(route: dict, method: str) -> dict:
    return next(endpoint for endpoint in route["endpoints"] if method in endpoint["methods"])


def test_autosave_routes_declare_wordpress_args(client):
    routes = client.get(f"{API}").json["routes"]
    collection = routes["/core/v2/posts/(?P<id>[\\d]+)/autosaves"]
    listing = _endpoint(collection, "GET")["args"]
    assert listing == {
        "parent": {"description": "The ID for the parent of the autosave.", "type": "integer", "required": False},
        "context": listing["context"]}
    assert listing["context"]["enum"] == ["view", "embed", "edit"] and listing["context"]["default"] == "view"
    create = _endpoint(collection, "POST")["args"]
    assert create["parent"] == {"description": "The ID for the parent of the autosave.", "type": "integer",
                                "required": False}
    assert "id" not in create  # WordPress takes the parent from the path only
    assert {"title", "content", "excerpt", "status", "categories"} <= set(create)
    assert all("default" not in arg and arg["required"] is False for arg in create.values())
    item = _endpoint(routes["/core/v2/posts/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)"], "GET")["args"]
    assert item["parent"]["description"] == "The ID for the parent of the autosave."
    assert item["id"] == {"description": "The ID for the autosave.", "type": "integer", "required": False}
    pages = _endpoint(routes["/core/v2/pages/(?P<id>[\\d]+)/autosaves"], "POST")["args"]
    assert pages["parent"]["description"] == "The ID for the parent of the post."  # the page's own field wins
