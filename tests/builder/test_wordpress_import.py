"""The page builder's data from a WordPress export (`sitehost import wordpress`): a page's element tree
and page settings become its builder document, library templates become templates, the kit's colours
and fonts the site's; hostile trees are named and leave the page's HTML as it was."""

from __future__ import annotations

import json

from host.testing import create_test_user
from host.wxr import php_unserialize
from tests.helpers import (HILLSIDE_WXR, assert_not_imported, import_again_unchanged, import_wordpress, round_trip,
                           without, write_wxr, wxr_file_meta, wxr_item)

PAGES = "/wp-json/core/v2/pages"
BUILDER = "/wp-json/builder/v1"


def builder_state(app, admin) -> dict:
    [page] = app.client.get(PAGES, {"slug": "open-day", "context": "edit"}, headers=admin.headers, status=200).json
    return {"page": page,
            "documents": app.client.get("/wp-json/builder/v1/documents", headers=admin.headers).json["documents"],
            "templates": app.client.get(f"{BUILDER}/template-library/templates", headers=admin.headers).json,
            "colors": app.client.get(f"{BUILDER}/globals/colors", headers=admin.headers).json,
            "typography": app.client.get(f"{BUILDER}/globals/typography", headers=admin.headers).json}


def test_builder_pages_templates_and_the_kit_come_across_and_a_second_import_changes_nothing(make_app, tmp_path):
    app = make_app()
    admin = create_test_user(app, "administrator")
    result, report = import_wordpress(app, tmp_path, HILLSIDE_WXR)
    assert result.exit_code == 0, result.output
    meta = wxr_file_meta(HILLSIDE_WXR, 14)
    state = builder_state(app, admin)
    page = state["page"]
    assert page["meta"]["_builder_edit_mode"] == "builder"
    assert page["meta"]["_builder_template_type"] == "wp-page"
    assert json.loads(page["meta"]["_builder_data"]) == json.loads(meta["_elementor_data"])
    assert page["meta"]["_builder_page_settings"] == php_unserialize(meta["_elementor_page_settings"])
    assert "Book a tour" in page["content"]["rendered"]  # rendered from the tree, not the post's HTML
    assert [(template["title"], template["type"], template["elements"]) for template in state["templates"]] == [
        ("Contact strip", "section", 3)]
    assert sorted((document["id"], document["template_type"]) for document in state["documents"]) == [
        (page["id"], "wp-page"), (state["templates"][0]["template_id"], "section")]
    assert state["colors"]["primary"]["value"] == "#1A4E8A" and state["colors"]["secondary"]["value"] == "#F2B705"
    assert state["colors"]["text"]["value"] == "#333333"  # the kit in the file names two system colours
    assert state["typography"]["primary"]["value"]["typography_font_family"] == "Nunito"
    assert_not_imported(report, "site_name", "global colours and fonts only")

    import_again_unchanged(app, tmp_path, HILLSIDE_WXR)
    assert builder_state(app, admin) == state


def test_hostile_trees_are_named_and_the_page_keeps_its_html(make_app, tmp_path):
    app = make_app()
    admin = create_test_user(app, "administrator")
    huge = json.dumps([{"id": "a1", "elType": "widget", "widgetType": "text-editor",
                        "settings": {"editor": "x" * (10 * 1024 * 1024)}}])
    deep = "[" * 5000 + "]" * 5000
    nested = json.dumps([{"id": "s1", "elType": "section", "elements": [{"id": "c1", "elType": "column", "elements": [
        {"id": "w1", "elType": "widget", "widgetType": "heading", "settings": {"a": {"b": {"c": {"d": {"e": {
            "f": {"g": "too deep"}}}}}}}}]}]}])
    wxr = write_wxr(tmp_path / "builder.xml",
                    wxr_item(801, "page", "Huge", [("_elementor_edit_mode", "builder"), ("_elementor_data", huge)],
                             content="<p>Huge page text</p>"),
                    wxr_item(802, "page", "Deep", [("_elementor_edit_mode", "builder"), ("_elementor_data", deep)],
                             content="<p>Deep page text</p>"),
                    wxr_item(803, "page", "Nested settings", [("_elementor_data", nested)], content="<p>Nested</p>"),
                    wxr_item(804, "page", "Bad settings", [("_elementor_edit_mode", "builder"),
                                                           ("_elementor_page_settings", 'a:1:{s:3:"hid')],
                             content="<p>Bad settings</p>"),
                    wxr_item(805, "elementor_library", "Bad template", [("_elementor_template_type", "popup"),
                                                                       ("_elementor_data", "[]")]))
    result, report = import_wordpress(app, tmp_path, wxr)
    assert result.exit_code == 0, result.output
    assert_not_imported(report, "page 801 ('Huge') builder data", "is larger than")
    assert_not_imported(report, "page 802 ('Deep') builder data", "nested too deeply")
    assert_not_imported(report, "page 803 ('Nested settings') builder data", "nests deeper than")
    assert_not_imported(report, "page 804 ('Bad settings') builder data", "malformed serialized PHP value")
    assert_not_imported(report, "elementor_library 805 ('Bad template')", "'popup' does not exist here")
    pages = {page["title"]["raw"]: page for page in app.client.get(
        PAGES, {"context": "edit", "per_page": "20"}, headers=admin.headers).json}
    assert sorted(pages) == ["Bad settings", "Deep", "Huge", "Nested settings"]
    assert "Huge page text" in pages["Huge"]["content"]["rendered"]
    assert all(page["meta"]["_builder_edit_mode"] == "" and page["meta"]["_builder_data"] == ""
               for page in pages.values())
    documents = app.client.get("/wp-json/builder/v1/documents", headers=admin.headers).json["documents"]
    assert documents == []
    assert app.client.get(f"{BUILDER}/template-library/templates", headers=admin.headers).json == []


def test_exported_builder_data_imports_back_with_every_field(make_app, tmp_path):
    def builder_data(app, admin) -> dict:
        state = builder_state(app, admin)
        return {"page_meta": {key: value for key, value in state["page"]["meta"].items() if key.startswith("_builder")},
                "documents": sorted(document["template_type"] for document in state["documents"]),
                "templates": state["templates"], "colors": state["colors"], "typography": state["typography"]}

    first, second = round_trip(make_app, tmp_path, builder_data)
    assert first["page_meta"]["_builder_data"]
    assert without(second, {"template_id", "author"}) == without(first, {"template_id", "author"})
