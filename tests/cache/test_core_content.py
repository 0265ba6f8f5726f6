"""The cache in front of core/v2 (its default paths): lists follow every write at once."""

from __future__ import annotations

from host.testing import client_as, create_test_user

POSTS = "/wp-json/core/v2/posts"


def cached_twice(app, url):
    """GET `url` until it is served from the cache; return that hit."""
    app.client.get(url)
    hit = app.client.get(url)
    assert hit.headers["X-Cache"] == "hit"
    return hit


def test_a_cached_post_list_changes_after_publish_update_and_trash(make_app):
    app = make_app(plugins=["core", "cache"])
    editor = client_as(app, create_test_user(app, "editor"))
    post = editor.post_json(POSTS, {"title": "Draft news", "status": "draft"}, status=201).json
    assert cached_twice(app, POSTS).json == []

    editor.post_json(f"{POSTS}/{post['id']}", {"status": "publish"}, status=200)
    published = app.client.get(POSTS)
    assert published.headers["X-Cache"] == "miss"
    assert [item["title"]["rendered"] for item in published.json] == ["Draft news"]

    cached_twice(app, f"{POSTS}/{post['id']}")
    editor.post_json(f"{POSTS}/{post['id']}", {"title": "Final news"}, status=200)
    assert app.client.get(f"{POSTS}/{post['id']}").json["title"]["rendered"] == "Final news"
    assert [item["title"]["rendered"] for item in app.client.get(POSTS).json] == ["Final news"]

    cached_twice(app, POSTS)
    editor.delete(f"{POSTS}/{post['id']}", status=200)
    assert app.client.get(POSTS).json == []
    assert app.client.get(f"{POSTS}/{post['id']}", expect_errors=True).status_int == 401


def test_users_are_not_cached_by_default(make_app):
    app = make_app(plugins=["core", "cache"])
    app.client.get("/wp-json/core/v2/users")
    assert "X-Cache" not in app.client.get("/wp-json/core/v2/users").headers
