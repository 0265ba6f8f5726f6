"""Renderings stored per row: a single read of any item skips the display filters
while its row and its render inputs are unchanged, and never answers anything stale or private.

Each test reads over HTTP; `store.write_pending` writes the renderings a process has gathered
(a request does it itself once a batch is due), so that the next read finds them stored.
"""

from __future__ import annotations

from sqlalchemy import insert, select, update

from host.testing import make_plugin
from plugins.core import store
from plugins.core.tables import RENDERED_CONTENT

API = "/wp-json/core/v2"


def _stored(app, post_id):
    with app.db.session() as session:
        return store.stored_rendering(app, session, post_id)


def _mark_stored(app, post_id, marker: str) -> None:
    """Change the stored HTML but not its digest: whatever then shows `marker` came from the store."""
    table = RENDERED_CONTENT
    with app.db.session(write=True) as session, session.begin():
        session.execute(update(table).where(table.c.post_id == post_id).values(
            content=f"<p>{marker}</p>\n", excerpt=f"<p>{marker} excerpt</p>\n"))


def _read(app, post_id, headers=None, **query):
    return app.client.get(f"{API}/posts/{post_id}", query, headers=headers or {}, expect_errors=True)


def _publish(app, editor, **fields):
    fields.setdefault("status", "publish")
    return app.client.post_json(f"{API}/posts", fields, headers=editor.headers, status=201).json


def test_a_read_stores_the_rendering_and_later_reads_use_it_until_the_row_changes(make_app, make_user):
    app = make_app(plugins=["core"])
    editor = make_user(app, "editor")
    post = _publish(app, editor, title="Open evening", content="Doors open at six -- all welcome.")
    store.write_pending(app)  # the create's answer rendered it: stored without any read
    digest, content, excerpt = _stored(app, post["id"])
    first = _read(app, post["id"])
    assert first.status_int == 200
    assert first.json["content"]["rendered"] == content and "&#8212;" in content
    assert first.json["excerpt"]["rendered"] == excerpt

    _mark_stored(app, post["id"], "From the store")
    assert _read(app, post["id"]).json["content"]["rendered"] == "<p>From the store</p>\n"
    assert _read(app, post["id"]).json["excerpt"]["rendered"] == "<p>From the store excerpt</p>\n"

    app.client.post_json(f"{API}/posts/{post['id']}", {"content": "Doors open at seven."},
                         headers=editor.headers, status=200)
    after = _read(app, post["id"]).json
    assert "Doors open at seven." in after["content"]["rendered"] and "From the store" not in after["content"]["rendered"]
    assert "Doors open at seven." in after["excerpt"]["rendered"]
    store.write_pending(app)
    assert _stored(app, post["id"])[0] != digest  # the new row's rendering replaced the old one


def test_a_term_change_shows_in_a_single_read_of_a_stored_item(make_app, make_user):
    app = make_app(plugins=["core"])
    admin = make_user(app, "administrator")
    category = app.client.post_json(f"{API}/categories", {"name": "Drama"}, headers=admin.headers, status=201).json
    post = _publish(app, admin, title="School play", content="Rehearsals on Monday.", categories=[category["id"]])
    _read(app, post["id"])
    store.write_pending(app)
    assert _stored(app, post["id"]) is not None
    app.client.post_json(f"{API}/categories/{category['id']}", {"slug": "theatre"}, headers=admin.headers, status=200)
    body = _read(app, post["id"]).json
    assert "category-theatre" in body["class_list"] and "category-drama" not in body["class_list"]
    app.client.post_json(f"{API}/posts/{post['id']}", {"categories": [1]}, headers=admin.headers, status=200)
    body = _read(app, post["id"]).json
    assert body["categories"] == [1] and "Rehearsals on Monday." in body["content"]["rendered"]


def test_a_direct_table_write_by_a_plugin_is_never_answered_from_the_old_rendering(make_app, make_user):
    app = make_app(plugins=["core"])
    editor = make_user(app, "editor")
    post = _publish(app, editor, title="Trip letter", content="Bring a packed lunch.")
    _read(app, post["id"])
    store.write_pending(app)
    posts = app.db.metadata.tables["posts"]
    with app.db.session(write=True) as session, session.begin():  # keeps `modified`, as an import might
        session.execute(update(posts).where(posts.c.id == post["id"]).values(content="Lunch is provided.",
                                                                              excerpt="Changed plans."))
    body = _read(app, post["id"]).json
    assert "Lunch is provided." in body["content"]["rendered"] and "packed" not in body["content"]["rendered"]
    assert "Changed plans." in body["excerpt"]["rendered"]
    meta = app.db.metadata.tables["post_meta"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(insert(meta).values(post_id=post["id"], key="footnotes", value='"[1] Menu"'))
    assert _read(app, post["id"]).json["meta"]["footnotes"] == "[1] Menu"


def test_a_render_cache_key_change_renders_again_and_an_opt_out_is_never_stored(make_app, make_user):
    state = {"next_event": "Sports day", "version": 1, "cache": True}

    def render_content(item, content):
        content["html"] += f'<aside>Next: {state["next_event"]}</aside>'

    def render_cache_key(item):
        return state["version"] if state["cache"] else False

    app = make_app(plugins=["core", make_plugin("events_block", render_content, render_cache_key)])
    editor = make_user(app, "editor")
    post = _publish(app, editor, title="News", content="Hello")
    assert "Next: Sports day" in _read(app, post["id"]).json["content"]["rendered"]
    store.write_pending(app)
    assert "Next: Sports day" in _stored(app, post["id"])[1]
    state.update(next_event="Concert", version=2)
    assert "Next: Concert" in _read(app, post["id"]).json["content"]["rendered"]
    store.write_pending(app)
    assert "Next: Concert" in _stored(app, post["id"])[1]
    state.update(next_event="Fair", cache=False)  # opted out: rendered afresh every time, never stored
    assert "Next: Fair" in _read(app, post["id"]).json["content"]["rendered"]
    store.write_pending(app)
    assert "Next: Concert" in _stored(app, post["id"])[1]
    state["next_event"] = "Play"
    assert "Next: Play" in _read(app, post["id"]).json["content"]["rendered"]


def test_a_password_protected_post_is_never_stored_nor_shown_without_its_password(make_app, make_user):
    app = make_app(plugins=["core"])
    editor = make_user(app, "editor")
    post = _publish(app, editor, title="Staff notes", content="Secret agenda", password="letmein")
    locked = _read(app, post["id"])
    assert locked.status_int == 200
    assert locked.json["content"] == {"rendered": "", "protected": True}
    assert locked.json["excerpt"] == {"rendered": "", "protected": True}
    assert "Secret agenda" in _read(app, post["id"], password="letmein").json["content"]["rendered"]
    wrong = _read(app, post["id"], password="guess")
    assert wrong.status_int == 403 and wrong.json["code"] == "rest_post_incorrect_password"
    store.write_pending(app)
    assert _stored(app, post["id"]) is None
    assert _read(app, post["id"]).json["content"] == {"rendered": "", "protected": True}

    app.client.post_json(f"{API}/posts/{post['id']}", {"password": ""}, headers=editor.headers, status=200)
    _read(app, post["id"])
    store.write_pending(app)
    assert "Secret agenda" in _stored(app, post["id"])[1]
    app.client.post_json(f"{API}/posts/{post['id']}", {"password": "again"}, headers=editor.headers, status=200)
    assert _read(app, post["id"]).json["content"] == {"rendered": "", "protected": True}  # stored, still not shown


def test_private_items_and_drafts_stay_unreadable_with_a_stored_rendering(make_app, make_user):
    app = make_app(plugins=["core"])
    editor = make_user(app, "editor")
    private = _publish(app, editor, title="Governors only", content="Budget", status="private")
    draft = _publish(app, editor, title="Not yet", content="Draft words", status="draft")
    for post in (private, draft):
        assert _read(app, post["id"], editor.headers).status_int == 200
    store.write_pending(app)
    for post in (private, draft):
        assert _stored(app, post["id"]) is not None
        refused = _read(app, post["id"])
        assert refused.status_int == 401 and "Budget" not in refused.text and "Draft words" not in refused.text


def test_another_process_uses_the_stored_rendering_and_sees_every_change(make_app, make_user):
    first = make_app(plugins=["core"])
    editor = make_user(first, "editor")
    post = _publish(first, editor, title="Sports day", content="Races start at ten.")
    _read(first, post["id"])
    store.write_pending(first)
    second = make_app(plugins=["core"], database_url=first.settings.database_url)
    _mark_stored(first, post["id"], "Stored by the first")
    assert _read(second, post["id"]).json["content"]["rendered"] == "<p>Stored by the first</p>\n"
    first.client.post_json(f"{API}/posts/{post['id']}", {"content": "Races start at eleven."},
                           headers=editor.headers, status=200)
    assert "Races start at eleven." in _read(second, post["id"]).json["content"]["rendered"]
    first.client.delete(f"{API}/posts/{post['id']}?force=true", headers=editor.headers, status=200)
    assert _stored(first, post["id"]) is None
    assert _read(second, post["id"]).status_int == 404


def test_a_rendering_stored_under_other_renderers_is_not_used(make_app, make_user):
    """A plugin that rewrites content, enabled on one site and not the other sharing its database
    (or disabled later): neither answers from what the other's renderers made."""
    def render_content(item, content):
        content["html"] = content["html"].replace("lunch", "LUNCH")

    with_plugin = make_app(plugins=["core", make_plugin("shouting", render_content)])
    editor = make_user(with_plugin, "editor")
    post = _publish(with_plugin, editor, title="Menu", content="Soup for lunch.")
    assert "LUNCH" in _read(with_plugin, post["id"]).json["content"]["rendered"]
    store.write_pending(with_plugin)
    plain = make_app(plugins=["core"], database_url=with_plugin.settings.database_url)
    assert "Soup for lunch." in _read(plain, post["id"]).json["content"]["rendered"]
    store.write_pending(plain)
    assert "LUNCH" in _read(with_plugin, post["id"]).json["content"]["rendered"]


def test_rows_written_around_the_api_get_their_renderings_filled(make_app, make_user):
    app = make_app(plugins=["core"])
    editor = make_user(app, "editor")
    post = _publish(app, editor, title="Imported", content="Old newsletter")
    table = RENDERED_CONTENT
    store.write_pending(app)
    with app.db.session(write=True) as session, session.begin():
        session.execute(table.delete())
    assert store.fill_renderings(app) >= 1
    with app.db.session() as session:
        assert session.execute(select(table.c.post_id)).scalars().all() == [post["id"]]
    assert "Old newsletter" in _read(app, post["id"]).json["content"]["rendered"]
