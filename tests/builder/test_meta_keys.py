"""The builder's internal meta keys (and core's `_fields_changed`) reach only those who may edit the item."""

from __future__ import annotations

from host.testing import assert_rest_error, client_as, create_test_user

POSTS = "/wp-json/core/v2/posts"
INTERNAL = {"_fields_changed", "_builder_edit_mode", "_builder_template_type", "_builder_data", "_builder_page_settings"}


def test_internal_meta_keys_are_shown_in_edit_context_only(make_app):
    app = make_app(plugins=["core", "builder"])
    admin = client_as(app, create_test_user(app, "administrator"))
    author = client_as(app, create_test_user(app, "author"))
    others = admin.post_json(POSTS, {"title": "Admissions", "status": "publish",
                                     "meta": {"_builder_edit_mode": "builder", "_fields_changed": True}}).json
    own = author.post_json(POSTS, {"title": "My class", "status": "publish"}).json
    for client in (app.client, author, admin):  # view context: only public keys, for everyone
        answer = client.get(f"{POSTS}/{others['id']}")
        assert answer.json["meta"] == {"footnotes": ""}
        listed = client.get(POSTS, {"_fields": "id,meta"}).json
        assert all(set(item["meta"]) == {"footnotes"} for item in listed)
        embedded = client.get(POSTS, {"_embed": "1", "include": others["id"]}).json[0]
        assert not INTERNAL & set(embedded["meta"])
    edited = admin.get(f"{POSTS}/{others['id']}", {"context": "edit"}).json["meta"]
    assert set(edited) == {"footnotes"} | INTERNAL
    assert edited["_builder_edit_mode"] == "builder" and edited["_fields_changed"] is True
    assert set(author.get(f"{POSTS}/{own['id']}", {"context": "edit"}).json["meta"]) == {"footnotes"} | INTERNAL
    # Those who may not edit the item never reach edit context.
    assert_rest_error(author.get(f"{POSTS}/{others['id']}", {"context": "edit"}, status=403), "rest_forbidden_context",
                      403)
    assert_rest_error(app.client.get(f"{POSTS}/{others['id']}", {"context": "edit"}, status=401),
                      "rest_forbidden_context", 401)
