"""core/v2 types, statuses and taxonomies, with WordPress's shapes, contexts and permissions."""

from __future__ import annotations

import pytest

from host import PostType, Status, Taxonomy
from host.testing import assert_rest_error, create_test_user, make_plugin

from tests.core.helpers import API


@pytest.fixture
def site(make_app):
    canteen = make_plugin(
        "canteen", requires=("core",),
        register_post_types=lambda: [PostType("menu", "Menus", rest_base="menus")],
        register_taxonomies=lambda: [Taxonomy("diet", "Diets", rest_base="diets", object_types=("menu",))],
        register_statuses=lambda: [Status("menu-planned", "Planned", post_types=("menu",))])
    app = make_app(plugins=["core", canteen])
    app.roles = {role: create_test_user(app, role) for role in ("administrator", "editor", "subscriber")}
    return app


def test_types_list_every_registered_type_with_its_rest_base(site):
    types = site.client.get(f"{API}/types").json
    assert {"post", "page", "attachment", "menu"} <= set(types) and "revision" not in types
    menu = types["menu"]
    assert {key: menu[key] for key in ("name", "slug", "rest_base", "rest_namespace", "hierarchical", "taxonomies")} == {
        "name": "Menus", "slug": "menu", "rest_base": "menus", "rest_namespace": "core/v2", "hierarchical": False,
        "taxonomies": ["diet"]}
    assert "capabilities" not in menu and "supports" not in menu  # edit context only
    assert menu["_links"]["wp:items"] == [{"href": "http://school.test/wp-json/core/v2/menus"}]
    assert site.client.get(f"{API}/types/page").json["hierarchical"] is True


def test_type_contexts_and_errors(site):
    editor = site.roles["editor"].headers
    edit = site.client.get(f"{API}/types/post", {"context": "edit"}, headers=editor).json
    assert edit["capabilities"]["edit_posts"] == "edit_posts" and edit["supports"]["editor"] is True
    embed = site.client.get(f"{API}/types/post", {"context": "embed"}).json
    assert set(embed) == {"name", "slug", "rest_base", "rest_namespace", "icon", "template", "template_lock", "_links"}
    assert_rest_error(site.client.get(f"{API}/types/post", {"context": "edit"}, status=401), "rest_forbidden_context", 401)
    assert_rest_error(site.client.get(f"{API}/types/post", {"context": "edit"}, headers=site.roles["subscriber"].headers,
                                      status=403), "rest_forbidden_context", 403)
    assert_rest_error(site.client.get(f"{API}/types", {"context": "edit"}, status=401), "rest_cannot_view", 401)
    assert_rest_error(site.client.get(f"{API}/types/nothing", status=404), "rest_type_invalid", 404)
    assert_rest_error(site.client.get(f"{API}/types", {"context": "mine"}, status=400), "rest_invalid_param", 400)


def test_statuses_show_non_public_ones_only_to_editors(site):
    assert sorted(site.client.get(f"{API}/statuses").json) == ["publish"]
    editor_view = site.client.get(f"{API}/statuses", headers=site.roles["editor"].headers).json
    assert {"publish", "future", "draft", "pending", "private", "trash", "menu-planned"} <= set(editor_view)
    assert "inherit" not in editor_view and "auto-draft" not in editor_view
    draft = site.client.get(f"{API}/statuses/draft", {"context": "edit"}, headers=site.roles["editor"].headers).json
    assert (draft["name"], draft["protected"], draft["public"], draft["date_floating"]) == ("Draft", True, False, True)
    planned = site.client.get(f"{API}/statuses/menu-planned", headers=site.roles["editor"].headers).json
    assert planned["_links"]["archives"] == [{"href": "http://school.test/wp-json/core/v2/menus"}]
    assert_rest_error(site.client.get(f"{API}/statuses/draft", status=401), "rest_cannot_read_status", 401)
    assert_rest_error(site.client.get(f"{API}/statuses/draft", headers=site.roles["subscriber"].headers, status=403),
                      "rest_cannot_read_status", 403)
    assert_rest_error(site.client.get(f"{API}/statuses/nothing", status=404), "rest_status_invalid", 404)
    assert_rest_error(site.client.get(f"{API}/statuses", {"context": "edit"}, status=401), "rest_cannot_view", 401)


def test_taxonomies_list_filter_by_type_and_contexts(site):
    everything = site.client.get(f"{API}/taxonomies").json
    assert set(everything) == {"category", "post_tag", "diet"}
    assert set(site.client.get(f"{API}/taxonomies", {"type": "menu"}).json) == {"diet"}
    assert site.client.get(f"{API}/taxonomies", {"type": "page"}).json == {}
    category = site.client.get(f"{API}/taxonomies/category").json
    assert (category["hierarchical"], category["rest_base"], category["types"]) == (True, "categories", ["post"])
    assert "capabilities" not in category
    edit = site.client.get(f"{API}/taxonomies/diet", {"context": "edit"}, headers=site.roles["editor"].headers).json
    assert edit["capabilities"]["manage_terms"] == "manage_categories" and edit["show_cloud"] is True
    assert_rest_error(site.client.get(f"{API}/taxonomies/diet", {"context": "edit"}, status=401),
                      "rest_forbidden_context", 401)
    assert_rest_error(site.client.get(f"{API}/taxonomies/nothing", status=404), "rest_taxonomy_invalid", 404)


def test_the_root_index_and_options_advertise_them(site):
    routes = site.client.get("/wp-json/").json["routes"]
    for path in ("/core/v2/types", "/core/v2/types/(?P<type>[\\w-]+)", "/core/v2/statuses",
                 "/core/v2/statuses/(?P<status>[\\w-]+)", "/core/v2/taxonomies", "/core/v2/taxonomies/(?P<taxonomy>[\\w-]+)"):
        assert path in routes, path
    assert site.client.options(f"{API}/types").json["schema"]["title"] == "type"
    post = site.client.post_json(f"{API}/posts", {"title": "About", "status": "publish"},
                                 headers=site.roles["editor"].headers).json
    about = post["_links"]["about"][0]["href"]
    assert site.client.get(about.replace("http://school.test", "")).json["slug"] == "post"


def test_types_carry_template_and_template_lock_and_a_null_icon(site):
    """WordPress's types answer `template` ([] without one), `template_lock` (false) and `icon` null, in every context."""
    admin = site.roles["administrator"].headers
    for query, headers in (("", {}), ("?context=edit", admin), ("?context=embed", {})):
        post = site.client.get(f"{API}/types/post{query}", headers=headers).json
        assert (post["template"], post["template_lock"], post["icon"]) == ([], False, None), query
    schema = site.client.options(f"{API}/types/post").json["schema"]["properties"]
    assert schema["template_lock"]["enum"] == ["all", "insert", "contentOnly", False]
    assert schema["template"]["type"] == ["array"] and schema["icon"]["type"] == ["string", "null"]
