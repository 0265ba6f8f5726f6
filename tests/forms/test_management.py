"""forms/v1 management: list, create, read, update, delete, permissions and their error codes."""

from __future__ import annotations

import pytest

from host.testing import assert_in_root_index, assert_rest_error

from .helpers import BASE, SIMPLE_FORM, VALID, create_form, site, submit


@pytest.fixture(scope="module")
def shared(make_module_app):
    from host.testing import role_users

    app = make_module_app(plugins=["core", "forms"])
    app.people = role_users(app)
    first = create_form(app, title="Admissions enquiry")
    second = create_form(app, title="Absence report", additional_settings="demo_mode: on\nskip_mail: off\nx: y")
    app.forms = (first, second)
    return app


def test_namespace_is_served_with_every_route(shared):
    index = assert_in_root_index(shared, "forms/v1")
    assert set(index["routes"]) >= {
        "/forms/v1", "/forms/v1/contact-forms", "/forms/v1/contact-forms/(?P<id>[\\d]+)",
        "/forms/v1/contact-forms/(?P<id>[\\d]+)/feedback", "/forms/v1/contact-forms/(?P<id>[\\d]+)/feedback/schema",
        "/forms/v1/contact-forms/(?P<id>[\\d]+)/refill", "/forms/v1/submissions"}
    item = index["routes"]["/forms/v1/contact-forms/(?P<id>[\\d]+)"]
    assert item["methods"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]


def test_list_is_a_bare_array_of_summaries_without_paging_headers(shared):
    response = shared.client.get(BASE, headers=shared.people["contributor"].headers)
    assert response.status_int == 200
    assert "X-WP-Total" not in response.headers
    first, second = shared.forms
    assert response.json == [
        {"id": first["id"], "hash": response.json[0]["hash"], "slug": "admissions-enquiry",
         "title": "Admissions enquiry", "locale": "en_US"},
        {"id": second["id"], "hash": response.json[1]["hash"], "slug": "absence-report", "title": "Absence report",
         "locale": "en_US"}]
    assert len(response.json[0]["hash"]) == 40 and response.json[0]["hash"] != response.json[1]["hash"]


@pytest.mark.parametrize("query, titles", [
    ({"order": "desc"}, ["Absence report", "Admissions enquiry"]),
    ({"orderby": "title"}, ["Absence report", "Admissions enquiry"]),
    ({"per_page": 1}, ["Admissions enquiry"]),
    ({"offset": 1}, ["Absence report"]),
    ({"search": "absence"}, ["Absence report"]),
    ({"per_page": -1, "offset": 5}, []),
])
def test_list_params(shared, query, titles):
    response = shared.client.get(BASE, query, headers=shared.people["editor"].headers)
    assert [item["title"] for item in response.json] == titles


@pytest.mark.parametrize("query", [{"per_page": -2}, {"per_page": 101}, {"offset": -1}, {"order": "up"},
                                   {"orderby": "colour"}])
def test_bad_list_params_are_400(shared, query):
    assert_rest_error(shared.client.get(BASE, query, headers=shared.people["editor"].headers, expect_errors=True),
                      "rest_invalid_param", 400)


def test_item_has_the_reference_get_shape(shared):
    _first, second = shared.forms
    body = shared.client.get(f"{BASE}/{second['id']}", headers=shared.people["editor"].headers).json
    assert set(body) == {"id", "slug", "title", "locale", "properties"}
    properties = body["properties"]
    assert set(properties) == {"form", "mail", "mail_2", "messages", "additional_settings"}
    assert properties["form"]["content"] == SIMPLE_FORM
    assert [field["name"] for field in properties["form"]["fields"]] == ["your-name", "your-email", "your-message", ""]
    assert properties["form"]["fields"][0] == {
        "type": "text*", "basetype": "text", "name": "your-name", "options": [], "raw_values": [], "labels": [],
        "values": [], "pipes": [], "content": ""}
    assert properties["additional_settings"] == {"content": "demo_mode: on\nskip_mail: off\nx: y",
                                                 "settings": [["demo_mode", True], ["skip_mail", False], ["x", "y"]]}
    assert set(properties["mail"]) == {"active", "subject", "sender", "body", "recipient", "additional_headers",
                                       "attachments", "use_html", "exclude_blank"}
    assert properties["mail"]["active"] is True and properties["mail_2"]["active"] is False
    assert len(properties["messages"]) == 23
    assert {"mail_sent_ok", "mail_sent_ng", "validation_error", "spam", "accept_terms",
            "invalid_required"} <= set(properties["messages"])


@pytest.mark.parametrize("role, status", [("anonymous", 403), ("subscriber", 403), ("contributor", 200),
                                          ("author", 200), ("editor", 200), ("administrator", 200)])
def test_list_needs_edit_posts_and_refusals_are_forms_forbidden(shared, role, status):
    headers = shared.people[role].headers if role != "anonymous" else {}
    response = shared.client.get(BASE, headers=headers, expect_errors=True)
    if status == 200:
        assert response.status_int == 200
    else:
        assert_rest_error(response, "forms_forbidden", status)


@pytest.mark.parametrize("role, status", [("anonymous", 403), ("subscriber", 403), ("contributor", 403),
                                          ("author", 403)])
def test_reading_creating_editing_and_deleting_need_an_editor(shared, role, status):
    headers = shared.people[role].headers if role != "anonymous" else {}
    form_id = shared.forms[0]["id"]
    for method, path in (("GET", f"{BASE}/{form_id}"), ("POST", BASE), ("POST", f"{BASE}/{form_id}"),
                         ("PATCH", f"{BASE}/{form_id}"), ("DELETE", f"{BASE}/{form_id}")):
        response = shared.client.request(path, method=method, headers=headers, expect_errors=True)
        assert_rest_error(response, "forms_forbidden", status)


@pytest.mark.parametrize("method, suffix", [("GET", ""), ("POST", ""), ("PUT", ""), ("DELETE", ""),
                                            ("GET", "/feedback/schema"), ("GET", "/refill")])
def test_a_missing_form_is_forms_not_found_on_every_route(shared, method, suffix):
    response = shared.client.request(f"{BASE}/999999{suffix}", method=method, expect_errors=True,
                                     headers=shared.people["editor"].headers)
    assert_rest_error(response, "forms_not_found", 404)


def test_create_answers_200_with_config_errors_and_stores(make_app):
    app = site(make_app)
    body = create_form(app, title="Trip consent", locale="fr_FR")
    assert body["config_errors"] == []
    assert body["id"] > 0 and body["slug"] == "trip-consent" and body["locale"] == "fr_FR"
    assert app.client.get(f"{BASE}/{body['id']}", headers=app.people["editor"].headers).json["title"] == "Trip consent"


def test_create_reports_configuration_problems_and_still_stores_them(make_app):
    app = site(make_app)
    body = create_form(app, form="[text* name] [colour fav] [number n min:x]",
                       mail={"recipient": "not an address", "sender": "Riverside <noreply@school.test>"})
    errors = body["config_errors"]
    assert set(errors) == {"form", "mail.recipient"}
    assert any("Unknown tag [colour]" in item["message"] for item in errors["form"])
    assert any("min needs a number" in item["message"] for item in errors["form"])
    assert any("no [submit]" in item["message"] for item in errors["form"])
    assert all(set(item) == {"message", "link"} for items in errors.values() for item in items)
    assert app.client.get(f"{BASE}/{body['id']}", headers=app.people["editor"].headers).status_int == 200


def test_dry_run_checks_without_storing(make_app):
    app = site(make_app)
    response = app.client.post_json(BASE, {"title": "Draft", "form": "[oops]", "context": "dry-run"},
                                    headers=app.people["editor"].headers)
    assert response.json["id"] is None and "form" in response.json["config_errors"]
    assert app.client.get(BASE, headers=app.people["editor"].headers).json == []


def test_create_with_an_id_is_forms_post_exists(make_app):
    app = site(make_app)
    response = app.client.post_json(BASE, {"id": 5, "title": "x"}, headers=app.people["editor"].headers,
                                    expect_errors=True)
    assert_rest_error(response, "forms_post_exists", 400)
    assert app.client.get(BASE, headers=app.people["editor"].headers).json == []


@pytest.mark.parametrize("body", [{"title": "x" * 201}, {"locale": "english"}, {"mail": "text"},
                                  {"mail": {"active": "maybe"}}, {"messages": {"spam": 5}}, {"form": ["a"]}])
def test_bad_write_values_are_400_and_change_nothing(make_app, body):
    app = site(make_app)
    assert_rest_error(app.client.post_json(BASE, body, headers=app.people["editor"].headers, expect_errors=True),
                      "rest_invalid_param", 400)
    assert app.client.get(BASE, headers=app.people["editor"].headers).json == []


def test_update_is_partial_and_sending_mail_turns_it_on(make_app):
    app = site(make_app)
    form = create_form(app, mail={"active": False, "recipient": "office@school.test",
                                  "sender": "Riverside <noreply@school.test>"})
    path, headers = f"{BASE}/{form['id']}", app.people["editor"].headers
    assert app.client.get(path, headers=headers).json["properties"]["mail"]["active"] is False
    body = app.client.post_json(path, {"mail": {"subject": "New subject"}}, headers=headers).json
    assert body["properties"]["mail"]["active"] is True
    assert body["properties"]["mail"]["subject"] == "New subject"
    assert body["properties"]["mail"]["recipient"] == "office@school.test"
    assert body["properties"]["form"]["content"] == SIMPLE_FORM
    assert body["title"] == "Enquiry" and body["config_errors"] == []
    app.client.patch_json(path, {"title": "Renamed"}, headers=headers)
    stored = app.client.get(path, headers=headers).json
    assert stored["title"] == "Renamed" and len(stored["properties"]["messages"]) == 23  # messages not sent stay
    app.client.put_json(path, {"form": "[text* a] [submit]", "context": "dry-run"}, headers=headers)
    assert app.client.get(path, headers=headers).json["properties"]["form"]["content"] == SIMPLE_FORM


def test_sent_messages_replace_the_stored_map_and_the_answer_shows_only_them(make_app):
    """The real plugin stores just the messages sent (unknown keys dropped) and answers that map;
    a key it no longer holds is shown to visitors in its default wording."""
    app = site(make_app)
    form = create_form(app)
    path, headers = f"{BASE}/{form['id']}", app.people["editor"].headers
    body = app.client.patch_json(path, {"messages": {"spam": "No thanks.", "colour": "x"}}, headers=headers).json
    assert body["properties"]["messages"] == {"spam": "No thanks."}
    assert app.client.get(path, headers=headers).json["properties"]["messages"] == {"spam": "No thanks."}
    assert submit(app, form["id"], VALID, headers={"User-Agent": "x"}).json["message"] == "No thanks."
    invalid = submit(app, form["id"], {**VALID, "your-email": "not-an-address"}).json
    assert invalid["status"] == "validation_failed"
    assert invalid["message"] == "Some fields need your attention. Please check them and send again."
    created = create_form(app, messages={"mail_sent_ok": "Got it."})
    assert created["properties"]["messages"] == {"mail_sent_ok": "Got it."}
    dry = app.client.post_json(path, {"messages": {}, "context": "dry-run"}, headers=headers).json
    assert dry["properties"]["messages"] == {}
    assert app.client.get(path, headers=headers).json["properties"]["messages"] == {"spam": "No thanks."}


def test_options_shows_a_schema_only_on_the_schema_route(shared):
    """The real plugin registers a `schema` for feedback/schema alone; OPTIONS elsewhere has none."""
    form_id = shared.forms[0]["id"]
    headers = shared.people["editor"].headers
    for suffix in ("", f"/{form_id}", f"/{form_id}/feedback", f"/{form_id}/refill"):
        body = shared.client.options(BASE + suffix, headers=headers).json
        assert "schema" not in body and body["endpoints"], suffix
    body = shared.client.options(f"{BASE}/{form_id}/feedback/schema", headers=headers).json
    assert set(body["schema"]["properties"]) == {"version", "locale", "rules"}
    openapi = shared.client.get("/openapi.json").json  # the shapes still describe the answers there
    assert any("contact-form" in name.lower() for name in openapi["components"]["schemas"])


def test_delete_answers_deleted_true_and_the_form_is_gone(make_app):
    app = site(make_app)
    form = create_form(app)
    path, headers = f"{BASE}/{form['id']}", app.people["editor"].headers
    assert app.client.delete(path, headers=headers).json == {"deleted": True}
    assert_rest_error(app.client.get(path, headers=headers, expect_errors=True), "forms_not_found", 404)
    assert_rest_error(app.client.delete(path, headers=headers, expect_errors=True), "forms_not_found", 404)
    assert app.client.get(BASE, headers=headers).json == []


def test_the_default_mail_is_valid_and_a_recipient_that_is_no_address_is_reported(make_app):
    app = site(make_app)
    response = app.client.post_json(BASE, {"title": "Defaults"}, headers=app.people["editor"].headers)
    assert response.json["config_errors"] == []
    response = app.client.post_json(BASE, {"title": "Bad", "mail": {"recipient": "[your-name]"}},
                                    headers=app.people["editor"].headers)
    assert response.json["config_errors"] == {
        "mail.recipient": [{"message": "'[your-name]' does not give a valid email address.", "link": ""}]}
