"""newsletter/v1 lists, forms and subscribers: administrators only, every argument and error."""

from __future__ import annotations

import pytest

from host.testing import assert_collection, assert_in_root_index, assert_rest_error, create_test_user

from .helpers import API, Site, standard_site


@pytest.fixture(scope="module")
def site(make_module_app):
    return standard_site(make_module_app(plugins=["newsletter"]))


def test_namespace_is_discoverable_and_the_form_route_declares_no_args(site):
    index = assert_in_root_index(site.app, "newsletter/v1")
    assert "/newsletter/v1/form" in index["routes"]
    described = site.app.client.get("/wp-json/newsletter/v1").json["routes"]["/newsletter/v1/form"]
    assert described["methods"] == ["POST"]
    assert described["endpoints"][0]["args"] == []
    document = site.app.client.get("/openapi.json").json
    assert "/wp-json/newsletter/v1/lists/{id}" in document["paths"]
    assert document["paths"]["/wp-json/newsletter/v1/subscribers"]["get"]["x-capability"] == "manage_options"


@pytest.mark.parametrize("role", ["editor", "author", "subscriber"])
def test_only_administrators_manage(site, role):
    user = create_test_user(site.app, role)
    for path in ("/lists", "/forms", "/subscribers", f"/forms/{site.forms['family']}"):
        assert_rest_error(site.app.client.get(API + path, status=401), "rest_forbidden", 401)
        assert_rest_error(site.app.client.get(API + path, headers=user.headers, status=403), "rest_forbidden", 403)
    assert_rest_error(site.app.client.post_json(API + "/lists", {"name": "Mine"}, headers=user.headers, status=403),
                      "rest_forbidden", 403)
    assert site.admin.get(API + "/lists").json[0]["name"] != "Mine"


def test_lists_are_paged_searched_and_counted(site):
    lists = assert_collection(site.admin.get(API + "/lists"), total=2, total_pages=1)
    assert [item["name"] for item in lists] == ["Whole school", "Year 7 parents"]
    assert lists[0]["subscribers"] == {"pending": 0, "confirmed": 0, "unsubscribed": 0}
    assert lists[0]["_links"]["self"][0]["href"].endswith(f"/newsletter/v1/lists/{site.lists['Whole school']}")
    found = assert_collection(site.admin.get(API + "/lists", {"search": "YEAR 7"}), total=1)
    assert found[0]["id"] == site.lists["Year 7 parents"]
    assert_collection(site.admin.get(API + "/lists", {"search": "100%_"}), total=0)
    second = assert_collection(site.admin.get(API + "/lists", {"per_page": 1, "page": 2}), total=2, total_pages=2)
    assert second[0]["name"] == "Year 7 parents"
    assert_rest_error(site.admin.get(API + "/lists", {"per_page": 101}, status=400), "rest_invalid_param", 400)
    assert_rest_error(site.admin.get(API + "/lists/999", status=404), "newsletter_list_not_found", 404)


def test_forms_show_every_message_with_its_type(site):
    form = site.admin.get(f"{API}/forms/{site.forms['family']}").json
    assert form["action"] == "subscribe" and form["list_choice"] is True
    assert [field["tag"] for field in form["fields"]] == ["EMAIL", "FNAME", "LNAME"]
    assert form["fields"][0]["required"] is True and form["fields"][2]["required"] is False
    assert set(form["messages"]) == {"subscribed", "updated", "already_subscribed", "unsubscribed", "not_subscribed",
                                     "error", "no_lists_selected", "spam", "invalid_email", "required_field_missing",
                                     "rate_limited", "unsubscribe_requested"}
    assert form["message_types"]["already_subscribed"] == "notice"
    assert form["message_types"]["invalid_email"] == "error"
    assert form["message_types"]["subscribed"] == "success"
    assert all(text.strip() for text in form["messages"].values())
    assert_collection(site.admin.get(API + "/forms"), total=2)
    assert_rest_error(site.admin.get(API + "/forms/999", status=404), "newsletter_form_not_found", 404)


def test_subscribers_collection_filters_are_validated(site):
    assert_collection(site.admin.get(API + "/subscribers"), total=0)
    assert_rest_error(site.admin.get(API + "/subscribers", {"status": "gone"}, status=400), "rest_invalid_param", 400)
    assert_rest_error(site.admin.get(API + "/subscribers", {"list": 0}, status=400), "rest_invalid_param", 400)
    assert_rest_error(site.admin.get(API + "/subscribers/5", status=404), "newsletter_subscriber_not_found", 404)


def test_list_writes(make_app):
    site = Site(make_app(plugins=["newsletter"]))
    created = site.admin.post_json(API + "/lists", {"name": " Sports news ", "description": "Fixtures"}, status=201)
    assert created.headers["Location"].endswith(f"/newsletter/v1/lists/{created.json['id']}")
    assert (created.json["name"], created.json["description"]) == ("Sports news", "Fixtures")
    assert_rest_error(site.admin.post_json(API + "/lists", {"name": "sports NEWS"}, status=400),
                      "newsletter_list_exists", 400)
    assert_rest_error(site.admin.post_json(API + "/lists", {"description": "x"}, status=400),
                      "rest_missing_callback_param", 400)
    assert_rest_error(site.admin.post_json(API + "/lists", {"name": "   "}, status=400), "rest_invalid_param", 400)
    assert_rest_error(site.admin.post_json(API + "/lists", {"name": "x" * 201}, status=400), "rest_invalid_param", 400)
    item = f"{API}/lists/{created.json['id']}"
    renamed = site.admin.patch_json(item, {"name": "Sport"}).json
    assert (renamed["name"], renamed["description"]) == ("Sport", "Fixtures")
    assert_rest_error(site.admin.delete(item, status=501), "rest_trash_not_supported", 501)
    deleted = site.admin.delete(item + "?force=true").json
    assert deleted["deleted"] is True and deleted["previous"]["name"] == "Sport"
    assert_rest_error(site.admin.get(item, status=404), "newsletter_list_not_found", 404)


def test_form_writes_and_editable_texts(make_app):
    site = Site(make_app(plugins=["newsletter"]))
    school = site.add_list("Whole school")
    created = site.admin.post_json(API + "/forms", {
        "title": "Footer form", "lists": [school], "fields": [{"tag": "FNAME", "required": True}],
        "messages": {"subscribed": "Nearly there: check your inbox!"}}, status=201).json
    assert [field["tag"] for field in created["fields"]] == ["EMAIL", "FNAME"]
    assert created["messages"]["subscribed"] == "Nearly there: check your inbox!"
    assert created["messages"]["spam"].startswith("Sorry")
    item = f"{API}/forms/{created['id']}"
    edited = site.admin.post_json(item, {"messages": {"spam": "No robots, please."}, "action": "unsubscribe"}).json
    assert edited["messages"]["spam"] == "No robots, please."
    assert edited["messages"]["subscribed"] == "Nearly there: check your inbox!"
    assert edited["action"] == "unsubscribe" and edited["lists"] == [school]
    for body, code in [({"title": "x", "lists": [999]}, "newsletter_unknown_list"),
                       ({"title": "x", "fields": [{"tag": "FNAME"}, {"tag": "FNAME"}]}, "newsletter_duplicate_field"),
                       ({"title": "x", "fields": [{"tag": "first name"}]}, "rest_invalid_param"),
                       ({"title": "x", "action": "delete"}, "rest_invalid_param"),
                       ({"title": "x", "messages": {"spam": ""}}, "rest_invalid_param"),
                       ({"title": "x", "messages": {"spam": "y" * 1001}}, "rest_invalid_param"),
                       ({"title": "x", "fields": [{"tag": f"F{index}"} for index in range(31)]}, "rest_invalid_param"),
                       ({"lists": [school]}, "rest_missing_callback_param")]:
        assert_rest_error(site.admin.post_json(API + "/forms", body, status=400), code, 400)
    assert_collection(site.admin.get(API + "/forms"), total=1)
    assert_rest_error(site.admin.delete(item, status=501), "rest_trash_not_supported", 501)
    assert site.admin.delete(item, {"force": "true"}).json["previous"]["title"] == "Footer form"
    assert_collection(site.admin.get(API + "/forms"), total=0)


def test_huge_ids_are_simply_not_found(site):
    for path, code in (("/lists/", "newsletter_list_not_found"), ("/forms/", "newsletter_form_not_found"),
                       ("/subscribers/", "newsletter_subscriber_not_found")):
        assert_rest_error(site.admin.get(API + path + "9" * 15, status=404), code, 404)
