"""Contact forms from a WordPress export (`sitehost import wordpress`), read back over forms/v1,
and back out through `export_wordpress_items` in the reference plugin's meta shape."""

from __future__ import annotations

from host.testing import create_test_user
from host.wxr import php_unserialize
from tests.helpers import (HILLSIDE_WXR, assert_not_imported, import_again_unchanged, import_wordpress, round_trip,
                           without, write_wxr, wxr_file_meta, wxr_item)

API = "/wp-json/forms/v1/contact-forms"


def contact_form(app, admin) -> dict:
    listed = app.client.get(API, headers=admin.headers, status=200).json
    found = [form for form in listed if form["title"] == "Contact the school office"]
    assert len(found) == 1, listed
    return {**app.client.get(f"{API}/{found[0]['id']}", headers=admin.headers, status=200).json,
            "hash": found[0]["hash"]}


def test_a_contact_form_comes_across_with_every_property_and_a_second_import_changes_nothing(make_app, tmp_path):
    app = make_app()
    admin = create_test_user(app, "administrator")
    result, report = import_wordpress(app, tmp_path, HILLSIDE_WXR)
    assert result.exit_code == 0, result.output
    meta = wxr_file_meta(HILLSIDE_WXR, 60)
    form = contact_form(app, admin)
    assert form["slug"] == "contact-form-1"
    assert form["locale"] == meta["_locale"]
    if len(meta.get("_hash", "")) == 40:
        assert form["hash"] == meta["_hash"]  # the reference's shortcodes name a form by its hash
    properties = form["properties"]
    assert properties["form"]["content"] == meta["_form"]
    assert [field["name"] for field in properties["form"]["fields"] if field["name"]] == [
        "your-name", "your-email", "your-subject", "your-message"]
    for key in ("_mail", "_mail_2"):
        assert properties[key[1:]] == php_unserialize(meta[key])  # all nine fields, flags as booleans
    assert properties["messages"] == php_unserialize(meta["_messages"])
    assert properties["additional_settings"]["content"] == meta.get("_additional_settings", "")

    import_again_unchanged(app, tmp_path, HILLSIDE_WXR)
    assert contact_form(app, admin) == form
    assert len(app.client.get(API, headers=admin.headers).json) == 1


def test_unreadable_meta_names_the_form_and_changes_nothing_else(make_app, tmp_path):
    app = make_app()
    admin = create_test_user(app, "administrator")
    good = [("_form", "[email* your-email]\n[submit]"), ("_mail", 'a:2:{s:6:"active";b:1;s:7:"subject";s:2:"Hi";}'),
            ("_locale", "de_DE")]
    wxr = write_wxr(tmp_path / "forms.xml",
                    wxr_item(501, "wpcf7_contact_form", "Cut short", [("_form", "[submit]"),
                                                                       ("_mail", 'a:9:{s:6:"active";b:1;s:7:"subj')]),
                    wxr_item(502, "wpcf7_contact_form", "An object", [("_mail", 'O:8:"stdClass":0:{}')]),
                    wxr_item(503, "wpcf7_contact_form", "Too deep",
                             [("_messages", "a:1:{i:0;" * 40 + "N;" + "}" * 40)]),
                    wxr_item(504, "wpcf7_contact_form", "Trashed", good, status="trash"),
                    wxr_item(505, "wpcf7_contact_form", "Odd message", good + [
                        ("_messages", 'a:2:{s:12:"mail_sent_ok";s:4:"Sent";s:9:"no_such_1";s:1:"x";}')]))
    result, report = import_wordpress(app, tmp_path, wxr)
    assert result.exit_code == 0, result.output
    assert_not_imported(report, "wpcf7_contact_form 501 ('Cut short')", "malformed serialized PHP value")
    assert_not_imported(report, "wpcf7_contact_form 502 ('An object')", "objects and references are refused")
    assert_not_imported(report, "wpcf7_contact_form 503 ('Too deep')", "nested too deeply")
    assert_not_imported(report, "wpcf7_contact_form 504 ('Trashed')", "trash")
    assert_not_imported(report, "message 'no_such_1'", "no contact form message of that name")
    listed = app.client.get(API, headers=admin.headers, status=200).json
    assert [form["title"] for form in listed] == ["Odd message"]
    odd = app.client.get(f"{API}/{listed[0]['id']}", headers=admin.headers).json
    assert odd["locale"] == "de_DE" and odd["properties"]["messages"] == {"mail_sent_ok": "Sent"}
    assert odd["properties"]["mail"]["subject"] == "Hi" and odd["properties"]["mail"]["active"] is True
    assert odd["properties"]["mail_2"]["active"] is False  # a form without `_mail_2` sends no second mail


def test_an_exported_form_imports_back_with_every_field(make_app, tmp_path):
    first, second = round_trip(make_app, tmp_path, contact_form)
    assert without(second, {"id"}) == without(first, {"id"})


def test_imported_pages_shortcodes_name_the_forms_as_imported(make_app, tmp_path):
    """The reference's `[contact-form-7 id="…" title="…"]` keeps showing its form: an old id that was free
    stays as written, an old id or hash that was taken is rewritten to the form's id or hash here."""
    app = make_app(plugins=["core", "forms", "wordpress_migrate"])
    admin = create_test_user(app, "administrator")
    occupant = app.client.post_json("/wp-json/core/v2/posts", {"title": "Already here", "status": "publish"},
                                    headers=admin.headers).json["id"]
    existing = app.client.post_json(API, {"title": "Existing", "form": "[email* your-email]\n[submit]"},
                                    headers=admin.headers).json
    taken_hash = next(form["hash"] for form in app.client.get(API, headers=admin.headers).json
                      if form["id"] == existing["id"])
    form_meta = [("_form", "[text* your-name]\n[submit]"), ("_locale", "en_US")]
    free_id = occupant + 100
    content = (f'<p>By id, moved:</p>\n[contact-form-7 id="{occupant}" title="Moved form"]\n'
               f'<p>By id, kept:</p>\n[contact-form-7 id="{free_id}" title="Kept form"]\n'
               f'<p>By hash, moved:</p>\n[contact-form-7 id="{taken_hash[:7]}" title="Hash form"]\n'
               f"<p>Older name:</p>\n[contact-form id='{occupant}']")
    wxr = write_wxr(tmp_path / "shortcodes.xml",
                    wxr_item(free_id + 50, "page", "Contact", content=content),
                    wxr_item(occupant, "wpcf7_contact_form", "Moved form", form_meta),
                    wxr_item(free_id, "wpcf7_contact_form", "Kept form", form_meta),
                    wxr_item(free_id + 1, "wpcf7_contact_form", "Hash form", form_meta + [("_hash", taken_hash)]))
    result, _report = import_wordpress(app, tmp_path, wxr)
    assert result.exit_code == 0, result.output
    forms = {form["title"]: form for form in app.client.get(API, headers=admin.headers).json}
    moved, kept, by_hash = forms["Moved form"], forms["Kept form"], forms["Hash form"]
    assert moved["id"] != occupant and kept["id"] == free_id and by_hash["hash"] != taken_hash
    page = app.client.get("/wp-json/core/v2/pages", {"search": "Contact", "context": "edit"},
                          headers=admin.headers).json[0]
    assert page["content"]["raw"] == (
        f'<p>By id, moved:</p>\n[contact-form-7 id="{moved["id"]}" title="Moved form"]\n'
        f'<p>By id, kept:</p>\n[contact-form-7 id="{free_id}" title="Kept form"]\n'
        f'<p>By hash, moved:</p>\n[contact-form-7 id="{by_hash["hash"][:7]}" title="Hash form"]\n'
        f"<p>Older name:</p>\n[contact-form id='{moved['id']}']")
    html = app.client.get(f"/?page_id={page['id']}").text
    actions = [f'/wp-json/forms/v1/contact-forms/{form_id}/feedback"'
               for form_id in (moved["id"], free_id, by_hash["id"], moved["id"])]
    assert [html.count(action) for action in actions] == [2, 1, 1, 2]
    assert "[contact-form" not in html and f"contact-forms/{existing['id']}/feedback" not in html
    import_again_unchanged(app, tmp_path, wxr)  # the shortcodes, rewritten once, are left as they are
    assert app.client.get(f"/wp-json/core/v2/pages/{page['id']}", {"context": "edit"},
                          headers=admin.headers).json["content"]["raw"] == page["content"]["raw"]


def test_a_shortcode_naming_no_form_says_so_and_a_title_finds_one(make_app):
    """As the reference renders them: the hash's start, else the id, else the title; else "404 Not Found"."""
    app = make_app(plugins=["core", "forms"])
    admin = create_test_user(app, "administrator")
    form = app.client.post_json(API, {"title": "Office", "form": "[email* your-email]\n[submit]"},
                                headers=admin.headers).json
    content = ('[contact-form-7 id="99999" title="Office"]\n\n[contact-form-7 id="99998" title="Nobody"]\n\n'
               '[contact-form-7 title="Office"]')
    page = app.client.post_json("/wp-json/core/v2/pages", {"title": "Forms", "status": "publish", "content": content},
                                headers=admin.headers).json
    html = app.client.get(f"/?page_id={page['id']}").text
    assert html.count(f'/wp-json/forms/v1/contact-forms/{form["id"]}/feedback"') == 2
    assert html.count('[contact-form-7 404 "Not Found"]') == 1
