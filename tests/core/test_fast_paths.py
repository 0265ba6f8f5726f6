"""The caches and indexes that make listing fast never change what a reader sees."""

from __future__ import annotations

from sqlalchemy import text, update

from plugins.core.render import RenderedCache
from tests.core.conftest import API


def test_rendered_html_follows_an_edit_through_the_api(client, make_post, users):
    post = make_post(content="First words")
    assert "First words" in client.get(f"{API}/posts/{post['id']}").json["content"]["rendered"]
    client.post_json(f"{API}/posts/{post['id']}", {"content": "Second words"},
                     headers=users["administrator"].headers, status=200)
    body = client.get(f"{API}/posts/{post['id']}").json
    assert "Second words" in body["content"]["rendered"]
    assert "First words" not in body["content"]["rendered"]
    assert "Second words" in body["excerpt"]["rendered"]


def test_rendered_html_follows_a_direct_write_that_keeps_modified(app, client, make_post):
    """Another process (or a migration) may change the text without touching `modified`."""
    post = make_post(content="Original body")
    listed = client.get(f"{API}/posts").json
    assert "Original body" in listed[0]["content"]["rendered"]
    posts = app.db.metadata.tables["posts"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(update(posts).where(posts.c.id == post["id"]).values(content="Rewritten body"))
    body = client.get(f"{API}/posts/{post['id']}").json
    assert "Rewritten body" in body["content"]["rendered"]
    assert "Rewritten body" in body["excerpt"]["rendered"]


def test_the_rendered_cache_is_bounded_and_keeps_recent_entries():
    cache = RenderedCache(size=3)
    for number in range(5):
        cache.put(("content", number), f"<p>{number}</p>")
    assert cache.get(("content", 0)) is None
    assert cache.get(("content", 1)) is None
    assert cache.get(("content", 4)) == "<p>4</p>"
    cache.get(("content", 2))  # used: it outlives 3 when the next entry arrives
    cache.put(("content", 5), "<p>5</p>")
    assert cache.get(("content", 2)) == "<p>2</p>"
    assert cache.get(("content", 3)) is None
    assert len(cache.entries) == 3


def test_indexes_added_later_are_created_on_an_existing_database(make_app, tmp_path):
    """`create_all` skips existing tables; startup adds the listing indexes to them."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    first = make_app(plugins=["core"], database_url=url)
    with first.db.engine.begin() as connection:
        connection.execute(text("DROP INDEX ix_posts_type_date_id"))
        connection.execute(text("DROP INDEX ix_posts_type_status_date_gmt"))
    first.close()
    second = make_app(plugins=["core"], database_url=url)
    with second.db.engine.connect() as connection:
        names = {row[0] for row in connection.execute(text("SELECT name FROM sqlite_master WHERE type = 'index'"))}
    assert {"ix_posts_type_date_id", "ix_posts_type_status_date_gmt"} <= names
    assert second.client.get(f"{API}/posts").status_int == 200
