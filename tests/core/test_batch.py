"""batch/v1 with core/v2 posts and pages: both validation modes, per-item permissions."""

from host.testing import assert_rest_error

API = "/wp-json/core/v2"


def total(client, base="posts", headers=None):
    return int(client.get(f"{API}/{base}?status=any", headers=headers or {}).headers["X-WP-Total"])


def test_core_routes_are_marked_batchable(client):
    routes = client.get("/wp-json/core/v2").json["routes"]
    for path in ("/core/v2/posts", "/core/v2/posts/(?P<id>[\\d]+)", "/core/v2/pages", "/core/v2/pages/(?P<id>[\\d]+)"):
        assert all(endpoint.get("allow_batch") == {"v1": True} for endpoint in routes[path]["endpoints"]), path
    assert all("allow_batch" not in endpoint for endpoint in routes["/core/v2/media"]["endpoints"])


def test_normal_mode_creates_updates_and_deletes_posts(client, users):
    editor = users["editor"].headers
    existing = client.post_json(f"{API}/posts", {"title": "Old", "status": "publish"}, headers=editor).json
    doomed = client.post_json(f"{API}/posts", {"title": "Doomed", "status": "publish"}, headers=editor).json
    response = client.post_json("/wp-json/batch/v1", {"requests": [
        {"path": "/core/v2/posts", "body": {"title": "Sports day", "status": "publish"}},
        {"method": "PUT", "path": f"/core/v2/posts/{existing['id']}", "body": {"title": "Renamed"}},
        {"method": "DELETE", "path": f"/core/v2/posts/{doomed['id']}?force=true"},
        {"path": "/core/v2/pages", "body": {"title": "Admissions", "status": "publish"}},
        {"path": "/core/v2/posts", "body": {"title": "Bad", "status": "shouting"}},
    ]}, headers=editor, status=207)
    statuses = [item["status"] for item in response.json["responses"]]
    assert statuses == [201, 200, 200, 201, 400]
    created = response.json["responses"][0]
    assert created["body"]["title"]["raw"] == "Sports day"
    assert created["headers"]["Location"] == f"http://school.test{API}/posts/{created['body']['id']}"
    assert response.json["responses"][2]["body"]["deleted"] is True
    assert client.get(f"{API}/posts/{existing['id']}").json["title"]["rendered"] == "Renamed"
    assert_rest_error(client.get(f"{API}/posts/{doomed['id']}", status=404), "rest_post_invalid_id", 404)


def test_require_all_validate_writes_nothing_when_one_item_is_invalid(client, users):
    author = users["author"].headers
    before = total(client, headers=users["editor"].headers)
    response = client.post_json("/wp-json/batch/v1", {"validation": "require-all-validate", "requests": [
        {"path": "/core/v2/posts", "body": {"title": "Fine"}},
        {"path": "/core/v2/posts", "body": {"title": "Broken", "comment_status": "maybe"}},
    ]}, headers=author, status=207)
    assert response.json["failed"] == "validation"
    assert response.json["responses"][0] is None
    assert response.json["responses"][1]["body"]["code"] == "rest_invalid_param"
    assert total(client, headers=users["editor"].headers) == before


def test_require_all_validate_runs_all_when_valid(client, users):
    author = users["author"].headers
    response = client.post_json("/wp-json/batch/v1", {"validation": "require-all-validate", "requests": [
        {"path": "/core/v2/posts", "body": {"title": f"Post {index}", "status": "publish"}} for index in range(3)
    ]}, headers=author, status=207)
    assert "failed" not in response.json
    assert [item["status"] for item in response.json["responses"]] == [201, 201, 201]
    assert all(item["body"]["author"] == users["author"].id for item in response.json["responses"])


def test_permissions_are_checked_per_item(client, users):
    contributor = users["contributor"].headers
    response = client.post_json("/wp-json/batch/v1", {"requests": [
        {"path": "/core/v2/posts", "body": {"title": "Draft is fine", "status": "draft"}},
        {"path": "/core/v2/posts", "body": {"title": "Publishing is not", "status": "publish"}},
        {"path": "/core/v2/pages", "body": {"title": "Pages are not"}},
    ]}, headers=contributor, status=207)
    items = response.json["responses"]
    assert items[0]["status"] == 201
    assert (items[1]["status"], items[1]["body"]["code"]) == (403, "rest_cannot_publish")
    assert (items[2]["status"], items[2]["body"]["code"]) == (403, "rest_cannot_create")
    anonymous = client.post_json("/wp-json/batch/v1", {"requests": [
        {"path": "/core/v2/posts", "body": {"title": "No"}}]}, status=207)
    assert anonymous.json["responses"][0]["status"] == 401


def test_26_requests_are_refused_with_a_clear_code(client, users):
    requests = [{"path": "/core/v2/posts", "body": {"title": f"P{index}"}} for index in range(26)]
    before = total(client, headers=users["editor"].headers)
    body = assert_rest_error(client.post_json("/wp-json/batch/v1", {"requests": requests},
                                              headers=users["editor"].headers, status=400), "rest_invalid_param", 400)
    assert body["data"]["details"]["requests"]["code"] == "rest_too_many_items"
    assert total(client, headers=users["editor"].headers) == before


def test_media_is_not_batchable(client, users):
    response = client.post_json("/wp-json/batch/v1", {"requests": [{"path": "/core/v2/media", "body": {}}]},
                                headers=users["editor"].headers, status=207)
    assert response.json["responses"][0]["body"]["code"] == "rest_batch_not_allowed"
