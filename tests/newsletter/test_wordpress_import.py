"""Sign-up forms from a WordPress export (`sitehost import wordpress`): the reference plugin's `mc4wp-form`
posts read back over newsletter/v1 (fields from the markup, lists by the old list ids, message texts)."""

from __future__ import annotations

from host.testing import create_test_user
from host.wxr import php_serialize
from tests.helpers import (HILLSIDE_WXR, assert_not_imported, import_again_unchanged, import_wordpress, round_trip,
                           without, write_wxr, wxr_file_meta, wxr_item)

API = "/wp-json/newsletter/v1"


def forms_and_lists(app, admin) -> tuple[list, list]:
    return (app.client.get(f"{API}/forms", headers=admin.headers, status=200).json,
            app.client.get(f"{API}/lists", headers=admin.headers, status=200).json)


def test_a_sign_up_form_comes_across_with_its_fields_lists_and_messages(make_app, tmp_path):
    app = make_app()
    admin = create_test_user(app, "administrator")
    result, report = import_wordpress(app, tmp_path, HILLSIDE_WXR)
    assert result.exit_code == 0, result.output
    forms, lists = forms_and_lists(app, admin)
    assert [form["title"] for form in forms] == ["School newsletter"]
    form = forms[0]
    assert form["action"] == "subscribe" and form["list_choice"] is False
    assert form["fields"] == [{"tag": "EMAIL", "label": "Email address", "type": "email", "required": True},
                              {"tag": "FNAME", "label": "First name", "type": "text", "required": False}]
    assert [(item["id"], item["name"]) for item in lists] == [(form["lists"][0], "a1b2c3d4e5")]
    meta = wxr_file_meta(HILLSIDE_WXR, 95)
    for key, text in meta.items():
        if key.startswith("text_"):
            assert form["messages"][key[5:]] == text
    assert form["messages"]["rate_limited"]  # keys the reference lacks keep this site's text
    # Settings this site has no place for are named; the defaults (double opt-in) are not.
    assert "setting 'subscriber_tags'" in report and "setting 'double_optin'" not in report

    import_again_unchanged(app, tmp_path, HILLSIDE_WXR)
    assert forms_and_lists(app, admin) == (forms, lists)


def test_forms_that_cannot_be_read_are_named_and_nothing_else_changes(make_app, tmp_path):
    app = make_app()
    admin = create_test_user(app, "administrator")
    email = '<label>Email <input type="email" name="EMAIL"></label>'
    wxr = write_wxr(tmp_path / "newsletter.xml",
                    wxr_item(901, "mc4wp-form", "Broken settings", [("_mc4wp_settings", 'a:1:{s:5:"lists"')],
                             content=email),
                    wxr_item(902, "mc4wp-form", "No email", content='<input type="text" name="FNAME">'),
                    wxr_item(903, "mc4wp-form", "Huge", content=email + "x" * 200_000),
                    wxr_item(904, "mc4wp-form", "Leavers", [("_mc4wp_settings", php_serialize({"lists": ["y6"]}))],
                             content=email + '<input type="hidden" name="_mc4wp_action" value="unsubscribe">'
                                             '<input type="checkbox" name="INTERESTS[abc][]" value="1">'))
    result, report = import_wordpress(app, tmp_path, wxr)
    assert result.exit_code == 0, result.output
    assert_not_imported(report, "mc4wp-form 901 ('Broken settings')", "malformed serialized PHP value")
    assert_not_imported(report, "mc4wp-form 902 ('No email')", "no EMAIL field")
    assert_not_imported(report, "mc4wp-form 903 ('Huge')", "markup is longer than")
    assert "mc4wp-form 904 ('Leavers') field 'INTERESTS[abc][]'" in report
    forms, lists = forms_and_lists(app, admin)
    assert [(form["title"], form["action"]) for form in forms] == [("Leavers", "unsubscribe")]
    assert [item["name"] for item in lists] == ["y6"]


def test_an_exported_sign_up_form_imports_back_with_every_field(make_app, tmp_path):
    def forms_with_list_names(app, admin) -> list:
        forms, lists = forms_and_lists(app, admin)
        names = {item["id"]: item["name"] for item in lists}
        return [{**form, "lists": [names[list_id] for list_id in form["lists"]]} for form in forms]

    first, second = round_trip(make_app, tmp_path, forms_with_list_names)
    site_specific = {"id", "created", "modified", "_links"}
    assert without(second, site_specific) == without(first, site_specific)
