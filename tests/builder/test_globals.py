"""Global colours and fonts, kit element defaults and the typed builder settings."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error, create_test_user

from .helpers import LazyUsers, BUILDER, calendar_stand_in


@pytest.fixture
def site(make_app):
    app = make_app(plugins=["core", "builder"])
    return app, LazyUsers(app)


def test_reads_need_edit_posts(site):
    app, users = site
    for path in ("/globals", "/globals/colors", "/globals/typography", "/globals/colors/primary",
                 "/kit-elements-defaults", "/settings/container_width"):
        assert_rest_error(app.client.get(BUILDER + path, status=401), "rest_forbidden", 401)
        assert_rest_error(app.client.get(BUILDER + path, headers=users["subscriber"].headers, status=403),
                          "rest_forbidden", 403)
        assert app.client.get(BUILDER + path, headers=users["contributor"].headers).status_int == 200


def test_globals_index_and_maps(site):
    app, users = site
    headers = users["editor"].headers
    index = app.client.get(f"{BUILDER}/globals", headers=headers).json
    assert index["controller"] == "globals" and index["namespace"] == "builder/v1"
    assert index["routes"]["colors"]["href"] == "http://school.test/wp-json/builder/v1/globals/colors"
    assert index["_links"]["up"][0]["href"] == "http://school.test/wp-json/"
    colors = app.client.get(f"{BUILDER}/globals/colors", headers=headers).json
    assert list(colors) == ["primary", "secondary", "text", "accent"]
    assert colors["primary"] == {"id": "primary", "title": "Primary", "value": "#1F4E79"}
    fonts = app.client.get(f"{BUILDER}/globals/typography", headers=headers).json
    assert fonts["primary"]["value"]["typography_font_family"] == "Georgia, serif"
    missing = app.client.get(f"{BUILDER}/globals/colors/nothing", headers=headers, status=404)
    assert_rest_error(missing, "global_not_found", 404)


def test_admins_add_change_and_delete_custom_colours(site):
    app, users = site
    admin, editor = users["administrator"].headers, users["editor"].headers
    path = f"{BUILDER}/globals/colors/house_red"
    assert_rest_error(app.client.post_json(path, {"title": "House red", "value": "#C8102E"}, headers=editor,
                                           status=403), "rest_forbidden", 403)
    assert_rest_error(app.client.post_json(path, {"value": "#C8102E"}, headers=admin, status=400), "invalid_title", 400)
    bad = app.client.post_json(path, {"title": "x", "value": "red;background:url(x)"}, headers=admin, status=400)
    assert_rest_error(bad, "rest_invalid_param", 400)
    assert_rest_error(app.client.post_json(f"{BUILDER}/globals/colors/bad-id", {"title": "x", "value": "#fff"},
                                           headers=admin, status=404), "rest_no_route", 404)
    created = app.client.post_json(path, {"title": "House red", "value": "#C8102E"}, headers=admin, status=200).json
    assert created == {"id": "house_red", "title": "House red", "value": "#C8102E"}
    assert app.client.get(path, headers=editor).json == created
    changed = app.client.post_json(f"{BUILDER}/globals/colors/primary", {"title": "Navy", "value": "rgb(0, 0, 80)"},
                                   headers=admin).json
    assert changed == {"id": "primary", "title": "Navy", "value": "rgb(0, 0, 80)"}
    assert list(app.client.get(f"{BUILDER}/globals/colors", headers=editor).json) == [
        "primary", "secondary", "text", "accent", "house_red"]
    assert_rest_error(app.client.delete(f"{BUILDER}/globals/colors/primary", headers=admin, status=400),
                      "builder_system_global", 400)
    removed = app.client.delete(path, headers=admin).json
    assert removed == {"deleted": True, "previous": created}
    assert_rest_error(app.client.delete(path, headers=admin, status=404), "global_not_found", 404)


def test_typography_values_are_an_allow_list(site):
    app, users = site
    admin = users["administrator"].headers
    path = f"{BUILDER}/globals/typography/headline"
    value = {"typography_typography": "custom", "typography_font_family": "Merriweather, serif",
             "typography_font_size": {"unit": "rem", "size": 2.5}, "typography_font_weight": "700",
             "typography_text_transform": "uppercase"}
    saved = app.client.post_json(path, {"title": "Headline", "value": value}, headers=admin, status=200).json
    assert saved["value"]["typography_font_size"] == {"unit": "rem", "size": 2.5, "sizes": []}
    for wrong in ({"typography_font_family": "x;}</style><script>"}, {"font_family": "Arial"},
                  {"typography_font_size": {"unit": "parsec", "size": 1}}, {"typography_font_weight": "heavy"}):
        refused = app.client.post_json(path, {"title": "Headline", "value": wrong}, headers=admin, status=400)
        assert_rest_error(refused, "rest_invalid_param", 400)
    page = app.client.post_json("/wp-json/core/v2/pages", {"title": "T", "status": "publish", "meta": {
        "_builder_edit_mode": "builder", "_builder_data": '[{"id":"a","elType":"widget","widgetType":"spacer"}]'}},
        headers=admin).json
    wrapper = page["content"]["rendered"].split(">", 1)[0]
    assert "--builder-font-headline-family:Merriweather, serif" in wrapper
    assert "--builder-font-headline-size:2.5rem" in wrapper and "--builder-font-headline-transform:uppercase" in wrapper


def test_kit_element_defaults(site, make_app):
    app, users = site
    admin, editor = users["administrator"].headers, users["editor"].headers
    assert app.client.get(f"{BUILDER}/kit-elements-defaults", headers=editor).json == {}
    saved = app.client.put_json(f"{BUILDER}/kit-elements-defaults/heading",
                                {"settings": {"title_color": "#00FF00", "header_size": "h3", "onclick": "x"}},
                                headers=admin, status=200)
    assert saved.json == {}
    assert app.client.get(f"{BUILDER}/kit-elements-defaults", headers=editor).json == {
        "heading": {"title_color": "#00FF00", "header_size": "h3"}}
    page = app.client.post_json("/wp-json/core/v2/pages", {"title": "T", "status": "publish", "meta": {
        "_builder_edit_mode": "builder",
        "_builder_data": '[{"id":"a","elType":"widget","widgetType":"heading","settings":{"title":"Hi"}}]'}},
        headers=admin).json
    assert '<h3 class="builder-heading" style="color:#00FF00">Hi</h3>' in page["content"]["rendered"]
    refused = app.client.patch_json(f"{BUILDER}/kit-elements-defaults/slider", {"settings": {}}, headers=admin,
                                    status=400)
    assert_rest_error(refused, "rest_invalid_param", 400)
    missing = app.client.put_json(f"{BUILDER}/kit-elements-defaults/heading", {}, headers=admin, status=400)
    assert_rest_error(missing, "rest_missing_callback_param", 400)
    assert_rest_error(app.client.put_json(f"{BUILDER}/kit-elements-defaults/heading", {"settings": {}},
                                          headers=editor, status=403), "rest_forbidden", 403)
    assert app.client.delete(f"{BUILDER}/kit-elements-defaults/heading", headers=admin).json == {}
    assert app.client.get(f"{BUILDER}/kit-elements-defaults", headers=editor).json == {}
    calendar = make_app(plugins=["core", "builder", calendar_stand_in()])
    calendar_admin = create_test_user(calendar, "administrator").headers
    calendar.client.put_json(f"{BUILDER}/kit-elements-defaults/cal-events-list", {"settings": {"posts_per_page": 3}},
                             headers=calendar_admin, status=200)
    assert_rest_error(app.client.put_json(f"{BUILDER}/kit-elements-defaults/cal-events-list",
                                          {"settings": {"posts_per_page": 3}}, headers=admin, status=400),
                      "rest_invalid_param", 400)


def test_no_kit_answers_not_found(site):
    app, users = site
    from sqlalchemy import delete

    kits = app.db.metadata.tables["builder_kits"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(kits))
    answer = app.client.get(f"{BUILDER}/globals/colors", headers=users["editor"].headers, status=404)
    assert assert_rest_error(answer, "not-found", 404)["message"] == "Kit doesn't exist."


def test_settings_are_typed(site):
    app, users = site
    admin, editor = users["administrator"].headers, users["editor"].headers
    path = f"{BUILDER}/settings/container_width"
    assert app.client.get(path, headers=editor).json == {"key": "container_width", "value": 1140, "default": 1140}
    assert app.client.post_json(path, {"value": 1200}, headers=admin).json["value"] == 1200
    assert app.client.put_json(f"{BUILDER}/settings/lightbox_enable", {"value": "no"}, headers=admin).json["value"] \
        == "no"
    assert app.client.patch_json(f"{BUILDER}/settings/disable_color_schemes", {"value": True},
                                 headers=admin).json["value"] is True
    assert app.client.get(path, headers=editor).json["value"] == 1200
    for key, value in (("container_width", 10), ("container_width", "wide"), ("lightbox_enable", "maybe"),
                       ("disable_color_schemes", "yes")):
        refused = app.client.post_json(f"{BUILDER}/settings/{key}", {"value": value}, headers=admin, status=400)
        assert_rest_error(refused, "rest_invalid_param", 400)
    assert_rest_error(app.client.post_json(path, {}, headers=admin, status=400), "rest_invalid_param", 400)
    assert_rest_error(app.client.get(f"{BUILDER}/settings/secret_sauce", headers=admin, status=400),
                      "rest_invalid_param", 400)
    assert_rest_error(app.client.post_json(path, {"value": 1300}, headers=editor, status=403), "rest_forbidden", 403)
    assert app.client.get(path, headers=editor).json["value"] == 1200
