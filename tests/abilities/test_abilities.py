"""abilities/v1 over HTTP: listing, one ability, categories, and running abilities of three plugins."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from host import WRITE_KINDS, Ability
from host.rest.validation import validate_value
from host.testing import assert_collection, assert_rest_error, make_plugin, role_users

NS = "/wp-json/abilities/v1"


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app()
    users = role_users(app)
    editor = users["editor"].headers
    for number in range(3):
        app.client.post_json("/wp-json/core/v2/posts", {"title": f"Sports day {number}", "status": "publish",
                                                        "content": "<p>Races on the field.</p>"}, headers=editor,
                             status=201)
    draft = app.client.post_json("/wp-json/core/v2/posts", {"title": "Secret draft", "status": "draft"},
                                 headers=users["administrator"].headers, status=201).json
    return app, users, draft


def _run_get(app, name, headers, value=None, status=200):
    query = "" if value is None else "?input=" + quote(json.dumps(value))
    return app.client.get(f"{NS}/abilities/{name}/run{query}", headers=headers, status=status)


def _output_matches_schema(app, name, output):
    schema = app.client.get(f"{NS}/abilities/{name}", headers=role_users(app)["administrator"].headers).json
    validate_value(output, schema["output_schema"], "output")  # raises when the promise is broken


def test_list_names_at_least_five_abilities_of_three_plugins(site):
    app, users, _draft = site
    body = assert_collection(app.client.get(f"{NS}/abilities", headers=users["subscriber"].headers), 10)
    names = {ability["name"] for ability in body}
    assert names == {"core/find-posts", "core/get-post", "core/create-draft", "core/site-info", "cache/status",
                     "cache/purge", "oembed/embed-post", "calendar/upcoming-events", "forms/list-forms",
                     "wordpress/import"}
    one = next(ability for ability in body if ability["name"] == "core/find-posts")
    assert set(one) >= {"name", "label", "description", "category", "input_schema", "output_schema", "meta", "_links"}
    assert one["meta"]["annotations"] == {"readonly": True, "destructive": False, "idempotent": True}
    assert one["_links"]["self"][0]["href"].endswith("/abilities/v1/abilities/core/find-posts")
    assert one["_links"]["self"][0]["targetHints"] == {"allow": ["GET"]}


def test_list_filters_by_category_and_pages(site):
    app, users, _draft = site
    headers = users["subscriber"].headers
    site_abilities = app.client.get(f"{NS}/abilities?category=site", headers=headers).json
    assert {ability["category"] for ability in site_abilities} == {"site"} and len(site_abilities) >= 3
    page = app.client.get(f"{NS}/abilities?per_page=2&page=2", headers=headers)
    assert len(page.json) == 2 and int(page.headers["X-WP-TotalPages"]) >= 4
    assert_rest_error(app.client.get(f"{NS}/abilities?page=99", headers=headers, status=400),
                      "rest_invalid_page_number", 400)
    assert app.client.get(f"{NS}/abilities?category=nothing-here", headers=headers).json == []


def test_one_ability_and_unknown_ones(site):
    app, users, _draft = site
    headers = users["subscriber"].headers
    body = app.client.get(f"{NS}/abilities/core/create-draft", headers=headers, status=200).json
    assert body["input_schema"]["required"] == ["title"] and body["meta"]["annotations"]["readonly"] is False
    for path in ("/abilities/core/nothing", "/abilities/core/nothing/run"):
        assert_rest_error(app.client.get(NS + path, headers=headers, status=404), "rest_ability_not_found", 404)


def test_categories(site):
    app, users, _draft = site
    headers = users["subscriber"].headers
    body = assert_collection(app.client.get(f"{NS}/categories", headers=headers), 2)
    assert {category["slug"] for category in body} >= {"content", "site"}
    content = app.client.get(f"{NS}/categories/content", headers=headers).json
    assert content["label"] == "Content" and content["_links"]["abilities"][0]["href"].endswith("?category=content")
    assert_rest_error(app.client.get(f"{NS}/categories/nope", headers=headers, status=404),
                      "rest_ability_category_not_found", 404)


def test_anonymous_callers_see_and_run_nothing(site):
    app, _users, _draft = site
    for path in ("/abilities", "/abilities/core/find-posts", "/abilities/core/find-posts/run", "/categories",
                 "/categories/content"):
        assert_rest_error(app.client.get(NS + path, status=401), "rest_forbidden", 401)
    assert_rest_error(app.client.post_json(f"{NS}/abilities/core/create-draft/run", {"input": {"title": "x"}},
                                           status=401), "rest_forbidden", 401)


def test_find_posts_shows_only_what_the_caller_may_read(site):
    app, users, draft = site
    found = _run_get(app, "core/find-posts", users["subscriber"].headers, {"search": "Secret"}).json
    assert found == []
    found = _run_get(app, "core/find-posts", users["administrator"].headers, {"per_page": 20}).json
    assert draft["id"] not in [post["id"] for post in found]  # the posts list shows published posts
    found = _run_get(app, "core/find-posts", users["subscriber"].headers, {"search": "Sports", "per_page": 2}).json
    assert len(found) == 2 and all(post["title"].startswith("Sports day") for post in found)
    _output_matches_schema(app, "core/find-posts", found)


def test_get_post_refuses_a_draft_to_a_subscriber_with_the_route_error(site):
    app, users, draft = site
    response = _run_get(app, "core/get-post", users["subscriber"].headers, {"id": draft["id"]}, status=403)
    assert_rest_error(response, "rest_forbidden", 403)
    body = _run_get(app, "core/get-post", users["administrator"].headers, {"id": draft["id"]}).json
    assert body["title"] == "Secret draft" and body["status"] == "draft"
    _output_matches_schema(app, "core/get-post", body)


def test_input_is_checked_against_the_ability_schema(site):
    app, users, _draft = site
    headers = users["subscriber"].headers
    cases = [({"per_page": 0}, "input[per_page] must be between 1 (inclusive) and 20 (inclusive)"),
             ({"search": "x" * 201}, "input[search] must be at most 200 characters long."),
             ({"surprise": 1}, "surprise is not a valid property of Object.")]
    for value, message in cases:
        body = assert_rest_error(_run_get(app, "core/find-posts", headers, value, status=400),
                                 "ability_invalid_input", 400)
        assert body["message"].startswith(message)
    response = app.client.get(f"{NS}/abilities/core/find-posts/run?input=%7Bnot-json", headers=headers, status=400)
    assert_rest_error(response, "ability_invalid_input", 400)
    missing = app.client.post_json(f"{NS}/abilities/core/create-draft/run", {}, headers=users["author"].headers,
                                   status=400)
    assert_rest_error(missing, "ability_missing_input_schema", 400)
    assert_rest_error(_run_get(app, "core/site-info", headers, {"x": 1}, status=400), "ability_invalid_input", 400)


def test_the_method_follows_the_readonly_annotation(site):
    app, users, _draft = site
    headers = users["administrator"].headers
    response = app.client.post_json(f"{NS}/abilities/core/find-posts/run", {}, headers=headers, status=405)
    assert_rest_error(response, "rest_ability_invalid_method", 405)
    response = app.client.get(f"{NS}/abilities/cache/purge/run", headers=headers, status=405)
    assert_rest_error(response, "rest_ability_invalid_method", 405)


def test_create_draft_needs_edit_posts_and_writes_a_draft(site):
    app, users, _draft = site
    refused = app.client.post_json(f"{NS}/abilities/core/create-draft/run", {"input": {"title": "From a bot"}},
                                   headers=users["subscriber"].headers, status=403)
    assert_rest_error(refused, "rest_ability_cannot_execute", 403)
    before = int(app.client.get("/wp-json/core/v2/posts?status=draft", headers=users["administrator"].headers)
                 .headers["X-WP-Total"])
    created = app.client.post_json(f"{NS}/abilities/core/create-draft/run",
                                   {"input": {"title": "Trip letter", "content": "<p>Bring a coat.</p>"}},
                                   headers=users["author"].headers, status=200).json
    _output_matches_schema(app, "core/create-draft", created)
    stored = app.client.get(f"/wp-json/core/v2/posts/{created['id']}?context=edit",
                            headers=users["author"].headers).json
    assert (stored["status"], stored["title"]["raw"], stored["author"]) == ("draft", "Trip letter", users["author"].id)
    after = int(app.client.get("/wp-json/core/v2/posts?status=draft", headers=users["administrator"].headers)
                .headers["X-WP-Total"])
    assert after == before + 1


def test_cache_abilities_are_for_operators(site):
    app, users, _draft = site
    assert_rest_error(_run_get(app, "cache/status", users["editor"].headers, status=403),
                      "rest_ability_cannot_execute", 403)
    status = _run_get(app, "cache/status", users["administrator"].headers).json
    _output_matches_schema(app, "cache/status", status)
    purged = app.client.post_json(f"{NS}/abilities/cache/purge/run", {}, headers=users["administrator"].headers).json
    # A purge of everything bumps every kind of write's counter; the one number the status shows is their sum.
    assert purged["version"] == status["version"] + len(WRITE_KINDS)
    _output_matches_schema(app, "cache/purge", purged)


def test_oembed_and_site_info_abilities(site):
    app, users, _draft = site
    headers = users["subscriber"].headers
    post = app.client.get("/wp-json/core/v2/posts?per_page=1").json[0]
    embed = _run_get(app, "oembed/embed-post", headers, {"url": post["link"]}).json
    assert embed["type"] == "rich" and post["title"]["rendered"] in embed["title"]
    _output_matches_schema(app, "oembed/embed-post", embed)
    missing = _run_get(app, "oembed/embed-post", headers, {"url": "http://school.test/?p=999999"}, status=404)
    assert missing.json["data"]["status"] == 404
    info = _run_get(app, "core/site-info", headers).json
    assert info["name"] == "Riverside School" and info["url"] == "http://school.test"
    _output_matches_schema(app, "core/site-info", info)


def test_an_ability_that_breaks_its_output_schema_answers_500_without_internals(make_app):
    def register_abilities():
        return [Ability("liar/count", "Count", "Promises a number.", "site", lambda request, value: True,
                        lambda request, value: "not a number", output_schema={"type": "integer"}, readonly=True)]

    app = make_app(plugins=["core", "abilities", make_plugin("liar", register_abilities)])
    response = app.client.get(f"{NS}/abilities/liar/count/run", headers=role_users(app)["subscriber"].headers,
                              status=500)
    assert_rest_error(response, "ability_invalid_output", 500)
    assert "not a number" not in response.text


def test_ability_names_are_checked_when_registered():
    for bad in ("nonamespace", "Core/find", "core/find/more", "core/" + "x" * 65, "core/bad_name"):
        with pytest.raises(ValueError):
            Ability(bad, "x", "x", "site", lambda r, v: True, lambda r, v: None)


def test_calendar_and_forms_abilities(site):
    app, users, _draft = site
    admin, editor = users["administrator"].headers, users["editor"].headers
    app.client.post_json("/wp-json/cal/events/v1/events", {"title": "Sports day", "status": "publish",
                                                            "start_date": "2027-06-10 09:00:00",
                                                            "end_date": "2027-06-10 15:00:00"}, headers=admin,
                         status=201)
    upcoming = _run_get(app, "calendar/upcoming-events", users["subscriber"].headers, {"search": "Sports"}).json
    assert [event["title"] for event in upcoming] == ["Sports day"] and upcoming[0]["start_date"].startswith("2027-06-10")
    _output_matches_schema(app, "calendar/upcoming-events", upcoming)
    app.client.post_json("/wp-json/forms/v1/contact-forms", {"title": "Absence report",
                                                             "form": "[text* your-name] [submit]"}, headers=admin)
    forms = _run_get(app, "forms/list-forms", editor, {"search": "Absence"}).json
    assert [form["title"] for form in forms] == ["Absence report"]
    _output_matches_schema(app, "forms/list-forms", forms)
    assert_rest_error(_run_get(app, "forms/list-forms", users["subscriber"].headers, status=403),
                      "rest_ability_cannot_execute", 403)
