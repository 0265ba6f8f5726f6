"""The editor's data: favorites, checklist, user data, site navigation, the post picker,
templates, the library connection, usage events and the AI probe."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from host.testing import assert_collection, assert_rest_error, create_test_user

from .helpers import LazyUsers, BUILDER, PAGES, calendar_stand_in, create_page, section, widget


@pytest.fixture
def site(make_app):
    app = make_app(plugins=["core", "builder"], config={"builder": {"max_events": 10, "max_event_bytes": 200}})
    return app, LazyUsers(app)


def test_favorites_are_per_user_and_paginated(site):
    app, users = site
    editor, author = users["editor"].headers, users["author"].headers
    path = f"{BUILDER}/favorites/widgets"
    assert app.client.post_json(path, {"favorite": "heading"}, headers=editor).json == ["heading"]
    assert app.client.post_json(path, {"favorite": "button"}, headers=editor).json == ["heading", "button"]
    assert app.client.post_json(path, {"favorite": "heading"}, headers=editor).json == ["heading", "button"]
    assert app.client.post_json(f"{BUILDER}/favorites/templates", {"favorite": "hero-1"}, headers=editor).json == [
        "hero-1"]
    refused = app.client.post_json(path, {"favorite": "slider"}, headers=editor, status=400)
    assert_rest_error(refused, "rest_invalid_param", 400)
    missing = app.client.post_json(path, {}, headers=editor, status=400)
    assert_rest_error(missing, "rest_missing_callback_param", 400)
    assert_rest_error(app.client.post_json(path, {"favorite": "a b"}, headers=editor, status=400),
                      "rest_invalid_param", 400)
    listed = assert_collection(app.client.get(f"{BUILDER}/favorites?per_page=2", headers=editor), total=3,
                               total_pages=2)
    assert listed == [{"type": "templates", "favorite": "hero-1"}, {"type": "widgets", "favorite": "button"}]
    assert assert_collection(app.client.get(f"{BUILDER}/favorites?search=head", headers=editor), total=1)[0][
        "favorite"] == "heading"
    assert assert_collection(app.client.get(f"{BUILDER}/favorites", headers=author), total=0) == []
    assert_rest_error(app.client.get(f"{BUILDER}/favorites?per_page=101", headers=editor, status=400),
                      "rest_invalid_param", 400)
    assert app.client.delete(f"{path}?favorite=heading", headers=editor).json == ["button"]
    assert_rest_error(app.client.post_json(path, {"favorite": "heading"}, headers=users["subscriber"].headers,
                                           status=403), "rest_forbidden", 403)


def test_checklist_steps_and_progress(site):
    app, users = site
    admin, editor = users["administrator"].headers, users["editor"].headers
    steps = assert_collection(app.client.get(f"{BUILDER}/checklist", headers=editor), total=5)
    keys = {"id", "title", "description", "cta_text", "cta_url", "image_src", "learn_more_text", "learn_more_url",
            "is_completion_immutable", "promotion_data", "is_marked_completed", "is_immutable_completed",
            "is_absolute_completed", "position"}
    assert set(steps[0]) == keys and [step["id"] for step in steps][:2] == ["add_logo", "set_fonts_and_colors"]
    assert not any(step["is_absolute_completed"] for step in steps)
    assert app.client.get(f"{BUILDER}/checklist/2", headers=editor).json["id"] == "set_fonts_and_colors"
    assert_rest_error(app.client.get(f"{BUILDER}/checklist/9", headers=editor, status=404), "rest_invalid_step_id", 404)
    assert_rest_error(app.client.get(f"{BUILDER}/checklist/steps", headers=editor, status=403), "rest_forbidden", 403)
    assert len(app.client.get(f"{BUILDER}/checklist/steps", headers=admin).json["data"]) == 5
    assert app.client.get(f"{BUILDER}/checklist/steps/1", headers=admin).json["id"] == "add_logo"
    marked = app.client.put_json(f"{BUILDER}/checklist/steps/add_logo", {"is_marked_completed": True},
                                 headers=admin).json["data"]
    assert marked["is_marked_completed"] is True and marked["is_absolute_completed"] is False
    assert_rest_error(app.client.put_json(f"{BUILDER}/checklist/steps/fly_a_kite", {"is_marked_completed": True},
                                          headers=admin, status=404), "rest_invalid_step_id", 404)
    # the site itself completes steps: a changed kit, a builder page
    app.client.post_json(f"{BUILDER}/globals/colors/primary", {"title": "Primary", "value": "#000080"}, headers=admin)
    create_page(app.client, admin, [widget("x1", "spacer")])
    done = {step["id"]: step for step in app.client.get(f"{BUILDER}/checklist/steps", headers=admin).json["data"]}
    assert done["set_fonts_and_colors"]["is_absolute_completed"] and done["set_fonts_and_colors"]["is_immutable_completed"]
    assert done["create_pages"]["is_absolute_completed"] and not done["save_template"]["is_absolute_completed"]
    progress = app.client.get(f"{BUILDER}/checklist/user-progress", headers=admin).json["data"]
    assert progress["first_closed_checklist_in_editor"] is False and progress["completed"] == 3
    assert app.client.post_json(f"{BUILDER}/checklist/user-progress", {}, headers=admin).json == {"data": "success"}
    first = app.client.get(f"{BUILDER}/checklist/user-progress", headers=admin).json["data"]["first_closed_at"]
    app.client.patch_json(f"{BUILDER}/checklist/user-progress", {}, headers=admin)
    assert app.client.get(f"{BUILDER}/checklist/user-progress", headers=admin).json["data"]["first_closed_at"] == first
    assert_rest_error(app.client.post_json(f"{BUILDER}/checklist/user-progress", {}, headers=editor, status=403),
                      "rest_forbidden", 403)


def test_user_data_suppressed_messages(site):
    app, users = site
    editor = users["editor"].headers
    path = f"{BUILDER}/user-data/current-user"
    data = app.client.get(path, headers=editor).json
    assert data["suppressedMessages"] == [] and data["capabilities"]["edit_posts"] is True
    assert data["capabilities"]["manage_options"] is False
    saved = app.client.patch_json(path, {"suppressedMessages": ["welcome", "kit_tip", "welcome"]}, headers=editor).json
    assert saved["suppressedMessages"] == ["welcome", "kit_tip"]
    assert app.client.get(path, headers=users["author"].headers).json["suppressedMessages"] == []
    assert_rest_error(app.client.patch_json(path, {"suppressedMessages": "x" * 200}, headers=editor, status=400),
                      "rest_invalid_param", 400)
    assert_rest_error(app.client.get(path, status=401), "rest_forbidden", 401)


def test_site_navigation(site):
    app, users = site
    admin, author = users["administrator"].headers, users["author"].headers
    pages = [create_page(app.client, admin, [widget(f"n{n}", "spacer")], title=f"Page {n}").json for n in range(3)]
    post = app.client.post_json("/wp-json/core/v2/posts", {"title": "Mine", "status": "draft"}, headers=author).json
    recent = app.client.get(f"{BUILDER}/site-navigation/recent-posts?posts_per_page=2&post__not_in={pages[2]['id']}",
                            headers=admin).json
    assert [item["id"] for item in recent] == [post["id"], pages[1]["id"]]
    assert set(recent[0]) == {"id", "title", "post_type", "status", "date_modified", "user_name", "edit_url"}
    only_mine = app.client.get(f"{BUILDER}/site-navigation/recent-posts?posts_per_page=10", headers=author).json
    assert [item["id"] for item in only_mine] == [post["id"]]
    assert_rest_error(app.client.get(f"{BUILDER}/site-navigation/recent-posts", headers=admin, status=400),
                      "rest_missing_callback_param", 400)
    created = app.client.post_json(f"{BUILDER}/site-navigation/add-new-post", {"post_type": "page"}, headers=admin,
                                   status=201)
    assert created.headers["Location"] == f"http://school.test/wp-json/core/v2/pages/{created.json['id']}"
    stored = app.client.get(created.headers["Location"] + "?context=edit", headers=admin).json
    assert stored["status"] == "draft" and stored["meta"]["_builder_edit_mode"] == "builder"
    assert stored["title"]["raw"] == f"Builder #{created.json['id']}"
    default = app.client.post_json(f"{BUILDER}/site-navigation/add-new-post", {}, headers=author, status=201).json
    assert default["post_type"] == "post"
    assert_rest_error(app.client.post_json(f"{BUILDER}/site-navigation/add-new-post", {"post_type": "page"},
                                           headers=author, status=403), "rest_cannot_create", 403)
    assert_rest_error(app.client.post_json(f"{BUILDER}/site-navigation/add-new-post", {"post_type": "attachment"},
                                           headers=admin, status=400), "rest_invalid_param", 400)


def test_post_picker(site):
    app, users = site
    admin = users["administrator"].headers
    app.client.post_json(PAGES, {"title": "Admissions policy", "status": "publish"}, headers=admin)
    app.client.post_json("/wp-json/core/v2/posts", {"title": "Admissions news", "status": "publish"}, headers=admin)
    app.client.post_json(PAGES, {"title": "Uniform", "status": "publish"}, headers=admin)
    found = app.client.get(f"{BUILDER}/post?term=Admissions", headers=admin).json
    assert sorted(item["post_title"] for item in found) == ["Admissions news", "Admissions policy"]
    assert set(found[0]) == {"ID", "post_title", "post_type", "post_status", "post_name"}
    only_pages = app.client.get(f"{BUILDER}/post?term=Admissions&excluded_post_types=post,builder_library",
                                headers=admin).json
    assert [item["post_type"] for item in only_pages] == ["page"]
    mapped = app.client.get(f"{BUILDER}/post", {"term": "Uniform", "post_keys_conversion_map":
                                                json.dumps({"ID": "id", "post_title": "text"})}, headers=admin).json
    assert mapped == [{"id": mapped[0]["id"], "text": "Uniform", "post_type": "page", "post_status": "publish",
                       "post_name": "uniform"}]
    pairs = app.client.get(f"{BUILDER}/post?term=Uniform&post_keys_conversion_map=ID:value", headers=admin).json
    assert "value" in pairs[0] and "ID" not in pairs[0]
    assert len(app.client.get(f"{BUILDER}/post?max_count=1", headers=admin).json) == 1
    assert_rest_error(app.client.get(f"{BUILDER}/post?max_count=0", headers=admin, status=400), "rest_invalid_param", 400)
    assert_rest_error(app.client.get(f"{BUILDER}/post?post_keys_conversion_map=nonsense", headers=admin, status=400),
                      "rest_invalid_param", 400)
    assert_rest_error(app.client.get(f"{BUILDER}/post", headers=users["subscriber"].headers, status=403),
                      "rest_forbidden", 403)


def test_templates_are_their_own_type_and_insert_as_copies(site, make_app):
    app, users = site
    admin, author = users["administrator"].headers, users["author"].headers
    path = f"{BUILDER}/template-library/templates"
    hero = [section("t1", widget("t2", "heading", title="Apply now"))]
    created = app.client.post_json(path, {"title": "Hero", "type": "section", "content": {"elements": hero}},
                                   headers=author, status=201).json
    assert created["type"] == "section" and created["source"] == "local" and created["elements"] == 3
    listed = app.client.get(path, headers=admin).json
    assert [(item["template_id"], item["title"]) for item in listed] == [(created["template_id"], "Hero")]
    for body in ({"title": "x", "type": "popup", "content": {"elements": []}}, {"title": "x"},
                 {"title": "x", "type": "page", "content": {"elements": [{"id": "a", "elType": "row"}]}},
                 {"title": "x", "type": "calx_event_single_static", "content": {"elements": []}}):
        refused = app.client.post_json(path, body, headers=admin, status=400)
        assert refused.json["code"] in ("rest_invalid_param", "rest_missing_callback_param")
    page = create_page(app.client, admin, [widget("p1", "spacer")]).json
    insert = f"{path}/{created['template_id']}/insert"
    first = app.client.post_json(insert, {"document": page["id"]}, headers=admin).json
    second = app.client.post_json(insert, {"document": page["id"], "position": 0}, headers=admin).json
    assert first["position"] == 1 and second["position"] == 0
    stored = json.loads(app.client.get(f"{PAGES}/{page['id']}?context=edit", headers=admin).json["meta"][
        "_builder_data"])
    assert [element["id"] for element in stored] == [second["inserted"][0], "p1", first["inserted"][0]]
    ids = [element["id"] for element in stored] + [child["id"] for element in stored
                                                    for child in element.get("elements", [])]
    assert len(ids) == len(set(ids)) and "t1" not in ids
    assert "Apply now" in app.client.get(f"{PAGES}/{page['id']}").json["content"]["rendered"]
    assert_rest_error(app.client.post_json(insert, {"document": page["id"]}, headers=author, status=403),
                      "rest_cannot_edit", 403)
    assert_rest_error(app.client.post_json(f"{path}/99999/insert", {"document": page["id"]}, headers=admin,
                                           status=404), "builder_template_not_found", 404)
    assert app.client.get("/wp-json/core/v2/types", headers=admin).json.get("builder_library") is None
    with_calendar = make_app(plugins=["core", "builder", calendar_stand_in()])
    calendar_admin = create_test_user(with_calendar, "administrator").headers
    with_calendar.client.post_json(path, {"title": "Event", "type": "calx_event_single_static",
                                          "content": {"elements": []}}, headers=calendar_admin, status=201)


def test_library_token_is_encrypted_and_never_answered(site):
    app, users = site
    admin = users["administrator"].headers
    path = f"{BUILDER}/library/connect"
    token = "lib-token-5f1e2d3c4b5a"
    assert_rest_error(app.client.post_json(path, {"token": token}, headers=users["editor"].headers, status=403),
                      "rest_forbidden", 403)
    answer = app.client.post_json(path, {"token": token}, headers=admin)
    assert answer.json["connected"] is True and token not in answer.text
    options = app.db.metadata.tables["builder_options"]
    with app.db.session() as session:
        stored = session.execute(select(options.c.value).where(options.c.key == "library_token")).scalar()
    assert token not in stored and json.loads(stored)["token"].startswith("gAAAA")  # a Fernet token
    for route in app.registry.routes:
        if route.startswith("/builder") and "(?P<" not in route and app.registry.routes[route].endpoint_for("GET"):
            assert token not in app.client.get("/wp-json" + route, headers=admin, expect_errors=True).text
    assert_rest_error(app.client.post_json(path, {}, headers=admin, status=400), "rest_missing_callback_param", 400)
    assert app.client.delete(path, headers=admin).json == {"connected": False, "was_connected": True}
    with app.db.session() as session:
        assert session.execute(select(options.c.value).where(options.c.key == "library_token")).scalar() is None


def test_usage_events_stay_local_and_bounded(site):
    app, users = site
    editor, admin = users["editor"].headers, users["administrator"].headers
    for number in range(12):
        answer = app.client.post_json(f"{BUILDER}/send-event", {"event_data": {"event": "panel_open", "n": number}},
                                      headers=editor, status=201)
    assert answer.json == {"success": True, "data": {"recorded": "panel_open"}}
    app.client.post_json(f"{BUILDER}/send-event", {"event_data": {"event": "widget_drop"}}, headers=editor)
    events = assert_collection(app.client.get(f"{BUILDER}/send-event?per_page=3", headers=admin), total=10,
                               total_pages=4)
    assert events[0]["event"] == "widget_drop" and events[1]["event_data"] == {"event": "panel_open", "n": 11}
    assert assert_collection(app.client.get(f"{BUILDER}/send-event?search=widget", headers=admin), total=1)
    assert_rest_error(app.client.get(f"{BUILDER}/send-event", headers=editor, status=403), "rest_forbidden", 403)
    big = app.client.post_json(f"{BUILDER}/send-event", {"event_data": {"event": "x" * 300}}, headers=editor,
                               status=400)
    assert_rest_error(big, "rest_invalid_param", 400)
    assert_rest_error(app.client.post_json(f"{BUILDER}/send-event", {}, headers=editor, status=400),
                      "rest_missing_callback_param", 400)
    assert_rest_error(app.client.post_json(f"{BUILDER}/send-event", {"event_data": {"event": "x"}}, status=401),
                      "rest_forbidden", 401)


def test_ai_probe_says_there_is_no_ai_service(site):
    app, users = site
    answer = app.client.get("/wp-json/builder-ai/v1/permissions", headers=users["administrator"].headers).json
    assert answer["success"] is True and answer["data"]["site_planner_connect"] is False
    assert answer["data"]["ai_available"] is False and "no AI service" in answer["data"]["reason"]
    assert_rest_error(app.client.get("/wp-json/builder-ai/v1/permissions", headers=users["editor"].headers,
                                     status=403), "rest_forbidden", 403)
