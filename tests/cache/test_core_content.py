"""The cache in front of core/v2 (its default paths): lists follow every write at once."""

from __future__ import annotations

from host.testing import client_as, create_test_user

POSTS = "/wp-json/core/v2/posts"
USERS = "/wp-json/core/v2/users"


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


def test_the_public_users_list_is_cached_and_follows_a_rename(make_app):
    """The anonymous users list shows the authors of published posts only; a rename purges it, a comment does not."""
    app = make_app(plugins=["core", "cache"])
    admin = client_as(app, create_test_user(app, "administrator"))
    author = create_test_user(app, "author")
    admin.post_json(f"{USERS}/{author.id}", {"name": "Ada Teacher"}, status=200)
    post = client_as(app, author).post_json(POSTS, {"title": "Timetable", "status": "publish"}, status=201).json
    assert [user["name"] for user in cached_twice(app, USERS).json] == ["Ada Teacher"]

    app.client.post_json("/wp-json/core/v2/comments", {"post": post["id"], "author_name": "Parent",
                                                       "author_email": "parent@school.test", "content": "Thanks"})
    assert app.client.get(USERS).headers["X-Cache"] == "hit"

    admin.post_json(f"{USERS}/{author.id}", {"name": "Ada Lovelace"}, status=200)
    renamed = app.client.get(USERS)
    assert renamed.headers["X-Cache"] == "miss" and [user["name"] for user in renamed.json] == ["Ada Lovelace"]


def test_a_hit_serves_the_gzip_form_kept_with_the_entry(make_app):
    """The entry keeps its gzip form from the store: hits for gzip clients send those bytes, others the plain ones."""
    import gzip

    from webob import Request

    from host import compression

    def raw(**headers):
        return Request.blank(POSTS, headers={"Host": "school.test", **headers}).get_response(app)

    def vary(response):
        return {part.strip().lower() for part in response.headers.get("Vary", "").split(",")}

    app = make_app(plugins=["core", "cache"])
    editor = client_as(app, create_test_user(app, "editor"))
    for index in range(4):
        editor.post_json(POSTS, {"title": f"News {index}", "content": "Words " * 60, "status": "publish"}, status=201)
    miss = raw(**{"Accept-Encoding": "gzip"})
    assert (miss.headers["X-Cache"], miss.headers["Content-Encoding"]) == ("miss", "gzip")
    plain_hit = raw()
    assert plain_hit.headers["X-Cache"] == "hit" and "Content-Encoding" not in plain_hit.headers
    assert "accept-encoding" in vary(plain_hit)
    hits = [raw(**{"Accept-Encoding": "gzip, br"}) for _ in range(2)]
    for hit in hits:
        assert (hit.headers["X-Cache"], hit.headers["Content-Encoding"]) == ("hit", "gzip")
        assert "accept-encoding" in vary(hit) and int(hit.headers["Content-Length"]) == len(hit.body)
        assert gzip.decompress(hit.body) == plain_hit.body == gzip.decompress(miss.body)
    # the bytes kept with the entry (compressed once, at its better level), not compressed per hit
    assert hits[0].body == hits[1].body == compression.gzip_bytes(plain_hit.body, compression.KEPT_LEVEL)
    head = Request.blank(POSTS, method="HEAD", headers={"Host": "school.test", "Accept-Encoding": "gzip"}).get_response(app)
    assert head.status_code == 200 and head.body == b"" and head.headers["Content-Encoding"] == "gzip"
    editor.post_json(POSTS, {"title": "Late news", "status": "publish"}, status=201)
    after = raw(**{"Accept-Encoding": "gzip"})
    assert after.headers["X-Cache"] == "miss" and b"Late news" in gzip.decompress(after.body)


def test_a_kept_gzip_form_under_1kb_still_says_vary(make_app):
    from webob import Request

    app = make_app(plugins=["core", "cache"])
    editor = client_as(app, create_test_user(app, "editor"))
    editor.post_json(POSTS, {"title": "Short", "content": "Hi", "status": "publish"}, status=201)

    def raw(**headers):
        return Request.blank(POSTS, headers={"Host": "school.test", **headers}).get_response(app)

    assert len(raw().body) > 1024
    raw(**{"Accept-Encoding": "gzip"})
    hit = raw(**{"Accept-Encoding": "gzip"})
    assert hit.headers["X-Cache"] == "hit" and hit.headers["Content-Encoding"] == "gzip" and len(hit.body) < 1024
    assert "Accept-Encoding" in hit.headers["Vary"]
