"""Writing builder data (bounded, refused when malformed), the documents list, media import,
the events list widget and the builder cache."""

from __future__ import annotations

from html import escape as html_escape

import json

import pytest

from host.testing import assert_rest_error, create_test_user, stored_files

from .helpers import (add_events, LazyUsers, BUILDER, PAGES, ImageServer, builder_meta, calendar_stand_in, create_page, png_bytes, section,
                      widget)

DOCUMENTS = "/wp-json/builder/v1/documents"


@pytest.fixture
def site(make_app):
    app = make_app(plugins=["core", "builder"], config={"builder": {"max_depth": 4, "max_elements": 20,
                                                                    "max_data_bytes": 4096}})
    return app, LazyUsers(app)


@pytest.fixture(scope="module")
def refusing_site(make_module_app):
    """One site for the refusals (they change nothing): an administrator and a page to keep."""
    app = make_module_app(plugins=["core", "builder"], config={"builder": {"max_depth": 4, "max_elements": 20,
                                                                           "max_data_bytes": 4096}})
    admin = create_test_user(app, "administrator")
    page = create_page(app.client, admin.headers, [section("ok1", widget("ok2", "heading", title="Kept"))]).json
    return app, admin.headers, page


@pytest.mark.parametrize("data, reason", [
    ("{not json", "is not valid JSON"),
    ('{"id": "a"}', "must be a JSON array of elements"),
    ('[{"id": "a", "elType": "row"}]', "elType must be one of section, column, container, widget"),
    ('[{"id": "a", "elType": "widget"}]', "widgetType must name the widget"),
    ('[{"id": "a b", "elType": "section"}]', ".id must be a string"),
    ('[{"id": "a", "elType": "section", "settings": "x"}]', "settings must be an object"),
    ('[{"id": "a", "elType": "widget", "widgetType": "heading", "elements": [{"id": "b", "elType": "section"}]}]',
     "is a widget and cannot hold elements"),
    (json.dumps([{"id": "a", "elType": "section", "elements": [{"id": "b", "elType": "column", "elements": [
        {"id": "c", "elType": "container", "elements": [{"id": "d", "elType": "container", "elements": [
            {"id": "e", "elType": "container"}]}]}]}]}]), "nests elements deeper than 4 levels"),
    (json.dumps([{"id": f"w{n}", "elType": "widget", "widgetType": "spacer"} for n in range(21)]),
     "has more than 20 elements"),
    (json.dumps([{"id": "a", "elType": "widget", "widgetType": "heading", "settings": {"title": "x" * 5000}}]),
     "is larger than 4096 bytes"),
    ("[" * 5000 + "]" * 5000, "is larger than 4096 bytes"),
])
def test_malformed_or_oversized_data_is_refused_and_nothing_changes(refusing_site, data, reason):
    app, headers, page = refusing_site
    refused = app.client.post_json(f"{PAGES}/{page['id']}", {"meta": {"_builder_data": data}, "title": "Changed"},
                                   headers=headers, status=400)
    body = assert_rest_error(refused, "rest_invalid_param", 400)
    assert reason in body["data"]["params"]["meta"] and body["data"]["params"]["meta"].startswith("meta._builder_data")
    stored = app.client.get(f"{PAGES}/{page['id']}?context=edit", headers=headers).json
    assert stored["title"]["raw"] == "Landing" and "Kept" in stored["meta"]["_builder_data"]
    created = app.client.post_json(PAGES, {"title": "New", "meta": {"_builder_data": data}}, headers=headers,
                                   status=400)
    assert_rest_error(created, "rest_invalid_param", 400)


def test_edit_mode_and_template_type_enums_are_enforced(site):
    app, users = site
    headers = users["administrator"].headers
    refused = app.client.post_json(PAGES, {"title": "x", "meta": {"_builder_edit_mode": "elementor"}},
                                   headers=headers, status=400)
    assert_rest_error(refused, "rest_invalid_param", 400)
    refused = app.client.post_json(PAGES, {"title": "x", "meta": {"_builder_template_type": "calx_event_single_static"}},
                                   headers=headers, status=400)
    assert_rest_error(refused, "rest_invalid_param", 400)
    page = app.client.post_json(PAGES, {"title": "x", "meta": {"_builder_template_type": "section",
                                                                "_builder_page_settings": {"hide_title": "yes",
                                                                                           "custom": 1}}},
                                headers=headers, status=201).json
    edit = app.client.get(f"{PAGES}/{page['id']}?context=edit", headers=headers).json["meta"]
    assert edit["_builder_template_type"] == "section"
    huge = app.client.post_json(f"{PAGES}/{page['id']}", {"meta": {"_builder_page_settings": {"notes": "x" * 70000}}},
                                headers=headers, status=400)
    assert "meta._builder_page_settings: must be at most 65536 bytes" in huge.json["data"]["params"]["meta"]
    assert edit["_builder_page_settings"] == {"hide_title": "yes", "custom": 1}


def test_documents_lists_what_the_caller_may_edit(site):
    app, users = site
    admin, author = users["administrator"].headers, users["author"].headers
    theirs = create_page(app.client, admin, [section("a1", widget("a2", "heading", title="Admissions"))],
                         title="Admissions").json
    mine = app.client.post_json("/wp-json/core/v2/posts", {"title": "Trip", "status": "draft",
                                                           "meta": builder_meta([widget("t1", "spacer")])},
                                headers=author, status=201).json
    app.client.post_json(PAGES, {"title": "Not built", "status": "publish"}, headers=admin, status=201)
    listed = app.client.get(DOCUMENTS, headers=admin).json
    assert listed["namespace"] == "builder/v1/documents" and "routes" in listed
    assert [(doc["id"], doc["type"]) for doc in listed["documents"]] == [(mine["id"], "post"), (theirs["id"], "page")]
    assert listed["documents"][1]["_links"]["self"][0]["href"].endswith(f"/core/v2/pages/{theirs['id']}")
    assert [doc["id"] for doc in app.client.get(DOCUMENTS, headers=author).json["documents"]] == [mine["id"]]
    assert "documents" not in app.client.get(DOCUMENTS, headers=users["subscriber"].headers).json
    assert "documents" not in app.client.get(DOCUMENTS).json
    # leaving builder mode, or deleting for good, takes a document off the list
    app.client.post_json(f"{PAGES}/{theirs['id']}", {"meta": {"_builder_edit_mode": ""}}, headers=admin)
    app.client.delete(f"/wp-json/core/v2/posts/{mine['id']}?force=true", headers=author, status=200)
    assert app.client.get(DOCUMENTS, headers=admin).json["documents"] == []


def test_media_import_copies_external_images_and_rewrites_the_document(make_app, storage_backend):
    server = ImageServer({"/hall.png": ("image/png", png_bytes()), "/page.html": ("text/html", b"<p>no</p>")})
    try:
        app = make_app(plugins=["core", "builder"], config={"builder": {"allow_private_targets": True}},
                       storage=storage_backend)
        admin = create_test_user(app, "administrator")
        author = create_test_user(app, "author")
        tree = [section("m1", widget("m2", "image", image={"url": server.base + "/hall.png", "alt": "Hall"}),
                        widget("m3", "image", image={"url": server.base + "/hall.png"}),
                        widget("m4", "image", image={"url": server.base + "/missing.png"}),
                        widget("m5", "image", image={"url": server.base + "/page.html"}),
                        background_image={"url": "http://school.test/uploads/local.png"})]
        page = create_page(app.client, admin.headers, tree).json
        path = f"{DOCUMENTS}/{page['id']}/media/import"
        assert_rest_error(app.client.post_json(path, {}, status=401), "rest_forbidden", 401)
        assert_rest_error(app.client.post_json(path, {}, headers=author.headers, status=403), "rest_cannot_edit", 403)
        answer = app.client.post_json(path, {}, headers=admin.headers, status=200).json
        assert server.hits.count("/hall.png") == 1  # the same image is copied once
        assert [entry["url"] for entry in answer["imported"]] == [server.base + "/hall.png"]
        assert {entry["code"] for entry in answer["failed"]} == {"builder_fetch_failed", "builder_not_an_image"}
        media_id = answer["imported"][0]["media_id"]
        media = app.client.get(f"/wp-json/core/v2/media/{media_id}").json
        assert media["mime_type"] == "image/png"
        stored = json.loads(app.client.get(f"{PAGES}/{page['id']}?context=edit",
                                           headers=admin.headers).json["meta"]["_builder_data"])
        images = [element["settings"]["image"] for element in stored[0]["elements"][0]["elements"][:2]]
        assert images == [{"url": media["source_url"], "alt": "Hall", "id": media_id},
                          {"url": media["source_url"], "id": media_id}]
        assert app.client.get(media["source_url"].replace("http://school.test", "")).body == png_bytes()
        # the copy is kept where the site keeps its uploads (the folder, or the bucket), once
        assert stored_files(app) == {media["source_url"].split("/uploads/", 1)[1]: png_bytes()}
    finally:
        server.close()


def test_media_import_refuses_private_addresses_by_default(site):
    app, users = site
    headers = users["administrator"].headers
    page = create_page(app.client, headers, [widget("p1", "image", image={"url": "http://127.0.0.1:9/x.png"})]).json
    answer = app.client.post_json(f"{DOCUMENTS}/{page['id']}/media/import", {}, headers=headers, status=200).json
    assert answer["imported"] == [] and answer["failed"][0]["code"] == "builder_private_target"
    assert app.client.get("/wp-json/core/v2/media", headers=headers).json == []
    missing = app.client.post_json(f"{DOCUMENTS}/99999/media/import", {}, headers=headers, status=404)
    assert_rest_error(missing, "invalid_document_id", 404)


def test_events_list_widget_reads_the_calendar_while_it_is_enabled(make_app):
    tree = [section("e1", widget("e2", "cal-events-list", title="Coming up", posts_per_page=2))]
    app = make_app(plugins=["core", "builder", calendar_stand_in()])
    admin = create_test_user(app, "administrator")
    events = add_events(app, admin.headers)
    html = create_page(app.client, admin.headers, tree).json["content"]["rendered"]
    assert '<h2 class="builder-heading">Coming up</h2><ul class="builder-events">' in html
    link = html_escape(events[0]["url"].split("/", 3)[3])  # rendered outside a request: the host part may differ
    assert f'{link}" rel="noopener noreferrer">Year 7 open evening</a> ' \
           '<time datetime="2027-03-14T18:00:00">14 March 2027, 18:00</time>' in html
    assert "Spring concert &amp; prize giving" in html
    without = make_app(plugins=["core", "builder"])
    admin = create_test_user(without, "administrator")
    html = create_page(without.client, admin.headers, tree).json["content"]["rendered"]
    assert "builder-events" not in html and "Coming up" not in html


def test_cache_delete_renders_afresh_and_drops_cached_answers(make_app):
    app = make_app(plugins=["core", "cache", "builder"])
    admin = create_test_user(app, "administrator")
    page = create_page(app.client, admin.headers, [widget("c1", "heading", title="Hello")]).json
    first = app.client.get(f"{PAGES}/{page['id']}")
    assert app.client.get(f"{PAGES}/{page['id']}").headers.get("X-Cache") != "miss"  # answered from the cache
    assert "--builder-color-primary:#1F4E79" in first.json["content"]["rendered"]
    app.client.post_json(f"{BUILDER}/globals/colors/primary", {"title": "Primary", "value": "#800000"},
                         headers=admin.headers, status=200)
    after = app.client.get(f"{PAGES}/{page['id']}")
    assert after.headers.get("X-Cache") == "miss" and "--builder-color-primary:#800000" in after.json["content"]["rendered"]
    assert_rest_error(app.client.delete(f"{BUILDER}/cache", headers=create_test_user(app, "editor").headers,
                                        status=403), "rest_forbidden", 403)
    assert app.client.delete(f"{BUILDER}/cache", headers=admin.headers).json == {"success": True,
                                                                                  "data": {"cleared": True}}
    assert app.client.get(f"{PAGES}/{page['id']}").headers.get("X-Cache") == "miss"
