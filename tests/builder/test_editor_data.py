"""builder/v1/editor/documents/{id} and builder/v1/global-classes, as the reference and the real builder define them."""

from __future__ import annotations

from host.testing import assert_rest_error, client_as, create_test_user

from .helpers import BUILDER, create_page, section, widget

CLASSES = f"{BUILDER}/global-classes"


def _class(class_id: str, label: str, color: str = "red") -> dict:
    return {"id": class_id, "type": "class", "label": label,
            "variants": [{"meta": {"breakpoint": "desktop", "state": None},
                          "props": {"color": {"$$type": "color", "value": color}}}]}


def _put(client, items: list[dict], changes: dict, status: int = 204, **extra):
    body = {"items": {item["id"]: item for item in items}, "order": [item["id"] for item in items],
            "changes": {"added": [], "deleted": [], "modified": [], **changes}, **extra}
    return client.put_json(CLASSES, body, status=status)


def test_editor_document_answers_its_settings_and_elements_by_id(make_app):
    app = make_app(plugins=["core", "builder"])
    admin_user, author_user = create_test_user(app, "administrator"), create_test_user(app, "author")
    admin, author = client_as(app, admin_user), client_as(app, author_user)
    elements = [section("s1", widget("w1", "heading", title="Open day")), section("s2", widget("w2", "text-editor"))]
    page = create_page(app.client, admin_user.headers, elements).json
    document = admin.get(f"{BUILDER}/editor/documents/{page['id']}")
    assert document.status_int == 200
    assert document.json["id"] == page["id"] and document.json["settings"] == {}
    assert list(document.json["elements"]) == ["s1", "s2"]
    assert document.json["elements"]["s1"]["elements"][0]["elements"][0]["settings"] == {"title": "Open day"}
    # Permissions: edit_posts for the route, edit_post for the document; an unknown id is invalid_document_id.
    assert_rest_error(app.client.get(f"{BUILDER}/editor/documents/{page['id']}", status=401), "rest_forbidden", 401)
    assert_rest_error(author.get(f"{BUILDER}/editor/documents/{page['id']}", status=403), "rest_cannot_edit", 403)
    assert_rest_error(admin.get(f"{BUILDER}/editor/documents/999999", status=404), "invalid_document_id", 404)
    assert_rest_error(admin.get(f"{BUILDER}/editor/documents/home", status=404), "invalid_document_id", 404)
    assert_rest_error(admin.get(f"{BUILDER}/editor/documents/{'9' * 30}", status=400), "rest_invalid_param", 400)


def test_global_classes_read_write_and_only_the_named_changes_are_saved(make_app):
    app = make_app(plugins=["core", "builder"])
    admin = client_as(app, create_test_user(app, "administrator"))
    editor = client_as(app, create_test_user(app, "editor"))
    assert admin.get(CLASSES).json == {"data": {}, "meta": {"order": []}}
    saved = _put(admin, [_class("g-1", "title"), _class("g-2", "button")], {"added": ["g-1", "g-2"]})
    assert saved.status_int == 204 and saved.body == b""
    assert admin.get(CLASSES).json == {"data": {"g-1": _class("g-1", "title"), "g-2": _class("g-2", "button")},
                                       "meta": {"order": ["g-1", "g-2"]}}
    # Another editor's payload that still holds an old g-2 changes only what it names (g-1), and drops extra keys.
    _put(admin, [{**_class("g-1", "title", "blue"), "extra": "dropped"}, _class("g-2", "stale")], {"modified": ["g-1"]})
    stored = admin.get(CLASSES).json["data"]
    assert stored["g-1"] == _class("g-1", "title", "blue") and stored["g-2"]["label"] == "button"
    _put(admin, [_class("g-1", "title", "blue")], {"deleted": ["g-2"]})
    assert admin.get(CLASSES).json == {"data": {"g-1": _class("g-1", "title", "blue")}, "meta": {"order": ["g-1"]}}
    # The preview copy is separate; before it is written it reads the frontend copy.
    assert admin.get(CLASSES, {"context": "preview"}).json["meta"]["order"] == ["g-1"]
    _put(admin, [_class("g-1", "title"), _class("g-3", "card")], {"added": ["g-3"]}, context="preview")
    assert admin.get(CLASSES, {"context": "preview"}).json["meta"]["order"] == ["g-1", "g-3"]
    assert admin.get(CLASSES).json["meta"]["order"] == ["g-1"]
    # Site-wide styles: administrators only (manage_options), as the real routes.
    assert_rest_error(editor.get(CLASSES, status=403), "rest_forbidden", 403)
    assert_rest_error(_put(app.client, [_class("g-9", "x")], {"added": ["g-9"]}, status=401), "rest_forbidden", 401)
    assert_rest_error(_put(editor, [_class("g-9", "x")], {"added": ["g-9"]}, status=403), "rest_forbidden", 403)
    assert "g-9" not in admin.get(CLASSES).json["data"]


def test_global_classes_refusals_change_nothing(make_app):
    app = make_app(plugins=["core", "builder"])
    admin = client_as(app, create_test_user(app, "administrator"))
    _put(admin, [_class("g-1", "title")], {"added": ["g-1"]})
    before = admin.get(CLASSES).json
    many = [_class(f"g-{number}", f"c{number}") for number in range(50)]
    body = assert_rest_error(_put(admin, many, {"added": [item["id"] for item in many]}, status=400),
                             "global_classes_limit_exceeded", 400)
    assert body["message"] == "Global classes limit exceeded. Maximum allowed: 50"
    mismatched = {"items": {"g-1": _class("g-9", "title")}, "order": ["g-1"],
                  "changes": {"added": [], "deleted": [], "modified": ["g-1"]}}
    body = assert_rest_error(admin.put_json(CLASSES, mismatched, status=400), "invalid_items", 400)
    assert "g-1.id: mismatching_value" in body["message"]
    bad_variant = {**_class("g-1", "title"), "variants": [{"props": "red"}]}
    assert_rest_error(_put(admin, [bad_variant], {"modified": ["g-1"]}, status=400), "invalid_items", 400)
    wrong_order = {"items": {"g-1": _class("g-1", "title")}, "order": ["g-1", "g-7"],
                   "changes": {"added": [], "deleted": [], "modified": ["g-1"]}}
    body = assert_rest_error(admin.put_json(CLASSES, wrong_order, status=400), "invalid_order", 400)
    assert "g-7: excess" in body["message"]
    missing = {"items": {"g-1": _class("g-1", "title")}, "order": [],
               "changes": {"added": [], "deleted": [], "modified": []}}
    assert "g-1: missing" in assert_rest_error(admin.put_json(CLASSES, missing, status=400), "invalid_order",
                                               400)["message"]
    assert_rest_error(admin.put_json(CLASSES, {"items": {}, "order": []}, status=400), "rest_missing_callback_param",
                      400)
    for refused in ({"items": {}, "order": [], "changes": {"added": [], "deleted": []}},
                    {"items": {}, "order": [], "changes": {"added": [], "deleted": [], "modified": [], "x": []}},
                    {"items": {"g-1": {**_class("g-1", "title"), "type": "id"}}, "order": ["g-1"],
                     "changes": {"added": [], "deleted": [], "modified": []}},
                    {"items": {"g-1": {**_class("g-1", "x" * 51)}}, "order": ["g-1"],
                     "changes": {"added": [], "deleted": [], "modified": []}},
                    {"items": {}, "order": ["a" * 61], "changes": {"added": [], "deleted": [], "modified": []}},
                    {"items": {}, "order": [], "changes": {"added": [], "deleted": [], "modified": []},
                     "context": "draft"}):
        assert_rest_error(admin.put_json(CLASSES, refused, status=400), "rest_invalid_param", 400)
    assert_rest_error(admin.get(CLASSES, {"context": "draft"}, status=400), "rest_invalid_param", 400)
    assert admin.get(CLASSES).json == before
