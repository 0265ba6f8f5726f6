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


DATED = ("date", "date_gmt", "modified", "modified_gmt")


def _undated(body: dict) -> dict:
    return {key: value for key, value in body.items() if key not in DATED}


def test_a_25_create_batch_answers_as_25_single_creates(make_app, make_user):
    """Same site, same requests: each batch item's status, headers and body equal a single create's
    (its dates apart), including an item in the middle that fails; the others are created around it."""
    bodies = [{"title": f"Assembly note {number}", "content": f"<p>Hall &amp; stage, row {number}</p>",
               "status": "publish", "categories": [1], "tags": [], "excerpt": "Note"} for number in range(25)]
    bodies[12] = {"title": "Refused", "status": "publish", "sticky": True, "password": "secret"}
    single_site, batch_site = make_app(plugins=["core"]), make_app(plugins=["core"])
    single_author = make_user(single_site, "author", login="writer").headers
    batch_author = make_user(batch_site, "author", login="writer").headers

    singles = []
    for body in bodies:
        answer = single_site.client.post_json(f"{API}/posts", body, headers=single_author, expect_errors=True)
        singles.append((answer.status_int, answer.json, answer.headers))
    batch = batch_site.client.post_json("/wp-json/batch/v1", {"requests": [
        {"method": "POST", "path": "/core/v2/posts", "body": body} for body in bodies]},
        headers=batch_author, status=207).json["responses"]

    refused = singles[12][0]
    assert refused in (400, 403) and [item["status"] for item in batch] == [201] * 12 + [refused] + [201] * 12
    for number, ((status, body, headers), item) in enumerate(zip(singles, batch)):
        assert item["status"] == status, number
        assert _undated(item["body"]) == _undated(body), number
        if status == 201:
            assert item["headers"] == {"Location": headers["Location"], "Allow": headers["Allow"]}, number
    created = [item["body"]["id"] for item in batch if item["status"] == 201]
    listed = batch_site.client.get(f"{API}/posts?per_page=100&context=edit", headers=batch_author).json
    assert sorted(post["id"] for post in listed) == sorted(created) and len(created) == 24
    assert batch_site.client.get(f"{API}/categories/1").json["count"] == \
        single_site.client.get(f"{API}/categories/1").json["count"]
    assert batch_site.client.get(f"{API}/posts", {"search": "stage"}).headers["X-WP-Total"] == "24"


def test_items_refused_before_running_carry_the_allow_of_their_route(client, users):
    """As WordPress answers them through their matched route: headers an object with `Allow`, `[]` without a route."""
    editor = users["editor"].headers
    response = client.post_json("/wp-json/batch/v1", {"requests": [
        {"path": "/core/v2/posts", "body": {"title": "Bad", "status": "shouting"}},
        {"path": "/core/v2/media", "body": {}},
        {"path": "/core/v2/nowhere", "body": {}},
    ]}, headers=editor, status=207)
    invalid, not_batchable, unrouted = response.json["responses"]
    assert (invalid["status"], invalid["headers"]) == (400, {"Allow": "GET, POST"})
    assert not_batchable["body"]["code"] == "rest_batch_not_allowed"
    assert not_batchable["headers"] == {"Allow": "GET, POST"}
    assert (unrouted["status"], unrouted["headers"]) == (404, [])
    validating = client.post_json("/wp-json/batch/v1", {"validation": "require-all-validate", "requests": [
        {"path": "/core/v2/posts", "body": {"title": "Bad", "status": "shouting"}}]}, headers=editor, status=207)
    assert validating.json["responses"][0]["headers"] == []  # WordPress's bare error response there
