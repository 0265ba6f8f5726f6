"""batch/v1 over the example plugin's batchable notes route."""

import pytest

from host.testing import assert_rest_error, create_test_user


@pytest.fixture
def editor(example_app):
    return create_test_user(example_app, "editor")


def note_count(app):
    return int(app.client.get("/wp-json/example/v1/notes").headers["X-WP-Total"])


def batch(app, payload, headers=None, status=207):
    return app.client.post_json("/wp-json/batch/v1", payload, headers=headers or {}, status=status)


def test_batch_is_a_route_but_not_a_namespace(example_app):
    root = example_app.client.get("/wp-json/").json
    assert "batch/v1" not in root["namespaces"]
    descriptor = root["routes"]["/batch/v1"]
    assert descriptor["namespace"] == ""
    args = descriptor["endpoints"][0]["args"]
    assert args["requests"]["maxItems"] == 25 and args["requests"]["required"] is True
    assert args["validation"]["enum"] == ["require-all-validate", "normal"]
    assert list(root["routes"])[:2] == ["/", "/batch/v1"]


def test_normal_mode_runs_every_item_and_reports_each(example_app, editor):
    response = batch(example_app, {"requests": [
        {"path": "/example/v1/notes", "body": {"title": "First"}},
        {"path": "/example/v1/notes", "body": {"title": ""}},
        {"method": "POST", "path": "/example/v1/notes?_fields=title", "body": {"title": "Third"}},
    ]}, headers=editor.headers)
    responses = response.json["responses"]
    assert "failed" not in response.json
    assert [item["status"] for item in responses] == [201, 400, 201]
    assert responses[0]["body"]["title"] == "First"
    assert responses[0]["headers"]["Location"].endswith(f"/example/v1/notes/{responses[0]['body']['id']}")
    assert responses[1]["body"]["code"] == "rest_invalid_param"
    # refused before running but routed, as WordPress: the route's Allow, in an object
    assert responses[1]["headers"] == {"Allow": responses[0]["headers"]["Allow"]}
    assert responses[2]["body"] == {"title": "Third"}
    assert note_count(example_app) == 2


def test_require_all_validate_writes_nothing_when_one_item_is_invalid(example_app, editor):
    response = batch(example_app, {"validation": "require-all-validate", "requests": [
        {"path": "/example/v1/notes", "body": {"title": "Kept out"}},
        {"path": "/example/v1/notes", "body": {"title": "x" * 200}},
    ]}, headers=editor.headers)
    assert response.json["failed"] == "validation"
    first, second = response.json["responses"]
    assert first is None
    assert second["status"] == 400 and second["body"]["code"] == "rest_invalid_param"
    assert note_count(example_app) == 0


def test_require_all_validate_runs_when_everything_is_valid(example_app, editor):
    response = batch(example_app, {"validation": "require-all-validate", "requests": [
        {"path": "/example/v1/notes", "body": {"title": "One"}},
        {"path": "/example/v1/notes", "body": {"title": "Two"}},
    ]}, headers=editor.headers)
    assert "failed" not in response.json
    assert [item["status"] for item in response.json["responses"]] == [201, 201]
    assert note_count(example_app) == 2


def test_more_than_25_requests_is_refused_whole(example_app, editor):
    requests = [{"path": "/example/v1/notes", "body": {"title": f"N{index}"}} for index in range(26)]
    body = assert_rest_error(batch(example_app, {"requests": requests}, headers=editor.headers, status=400),
                             "rest_invalid_param", 400)
    assert body["data"]["details"]["requests"]["code"] == "rest_too_many_items"
    assert body["data"]["params"]["requests"] == "requests must contain at most 25 items."
    assert note_count(example_app) == 0


def test_exactly_25_requests_are_accepted(example_app, editor):
    requests = [{"path": "/example/v1/notes", "body": {"title": f"N{index}"}} for index in range(25)]
    response = batch(example_app, {"requests": requests}, headers=editor.headers)
    assert len(response.json["responses"]) == 25
    assert note_count(example_app) == 25


def test_get_is_not_a_batch_method(example_app, editor):
    response = batch(example_app, {"requests": [{"method": "GET", "path": "/example/v1/notes"}]},
                     headers=editor.headers, status=400)
    assert response.json["data"]["params"]["requests"] == \
        "requests[0][method] is not one of POST, PUT, PATCH, and DELETE."


def test_missing_requests_and_bad_validation(example_app):
    assert_rest_error(batch(example_app, {}, status=400), "rest_missing_callback_param", 400)
    body = assert_rest_error(batch(example_app, {"validation": "some", "requests": []}, status=400),
                             "rest_invalid_param", 400)
    assert "validation" in body["data"]["params"]


def test_items_to_unbatchable_or_unknown_routes(example_app, editor):
    response = batch(example_app, {"requests": [
        {"path": "/example/v1/echo", "body": {"needed": "x"}},
        {"path": "/example/v1/nowhere"},
    ]}, headers=editor.headers)
    first, second = response.json["responses"]
    assert (first["status"], first["body"]["code"]) == (400, "rest_batch_not_allowed")
    assert (second["status"], second["body"]["code"]) == (404, "rest_no_route")
    nested = batch(example_app, {"requests": [{"path": "/batch/v1", "body": {"requests": []}}]}, headers=editor.headers)
    assert nested.json["responses"][0]["body"]["code"] == "rest_batch_not_allowed"


def test_permissions_are_checked_per_item_as_the_caller(example_app):
    response = batch(example_app, {"requests": [{"path": "/example/v1/notes", "body": {"title": "Sneaky"}}]})
    item = response.json["responses"][0]
    assert (item["status"], item["body"]["code"]) == (401, "rest_forbidden")
    subscriber = create_test_user(example_app, "subscriber")
    response = batch(example_app, {"requests": [{"path": "/example/v1/notes", "body": {"title": "Sneaky"}}]},
                     headers=subscriber.headers)
    assert response.json["responses"][0]["status"] == 403
    assert note_count(example_app) == 0
