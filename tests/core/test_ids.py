"""Ids are never used twice, on SQLite as on PostgreSQL and WordPress."""

from __future__ import annotations

from sqlalchemy import text

from tests.core.helpers import API


def test_a_force_deleted_posts_id_is_not_given_to_the_next_post(client, users):
    admin = users["administrator"].headers
    first = client.post_json(f"{API}/posts", {"title": "First", "status": "publish"}, headers=admin).json["id"]
    last = client.post_json(f"{API}/posts", {"title": "Last", "status": "publish"}, headers=admin).json["id"]
    client.delete(f"{API}/posts/{last}?force=true", headers=admin)
    after = client.post_json(f"{API}/posts", {"title": "After", "status": "publish"}, headers=admin).json["id"]
    assert after > last > first
    assert client.get(f"{API}/posts/{last}", expect_errors=True).status_int == 404


def test_deleted_term_and_user_ids_are_not_reused(client, users, make_user):
    admin = users["administrator"].headers
    term = client.post_json(f"{API}/tags", {"name": "Chess"}, headers=admin).json["id"]
    client.delete(f"{API}/tags/{term}?force=true", headers=admin)
    assert client.post_json(f"{API}/tags", {"name": "Go"}, headers=admin).json["id"] > term
    user = client.post_json(f"{API}/users", {"username": "leaver", "email": "leaver@school.test",
                                             "password": "a long password 1"}, headers=admin).json["id"]
    client.delete(f"{API}/users/{user}?force=true&reassign=1", headers=admin)
    joined = client.post_json(f"{API}/users", {"username": "joiner", "email": "joiner@school.test",
                                               "password": "a long password 2"}, headers=admin).json["id"]
    assert joined > user


def test_tables_of_an_earlier_version_are_rebuilt_with_their_rows_and_links(make_app, tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    first = make_app(plugins=["core"], database_url=url)
    admin = first.client.post_json  # write through the API, then strip AUTOINCREMENT as old versions had it
    from host.testing import role_users

    headers = role_users(first)["administrator"].headers
    tag = admin(f"{API}/tags", {"name": "Music"}, headers=headers).json["id"]
    kept = admin(f"{API}/posts", {"title": "Kept", "status": "publish", "tags": [tag],
                                  "meta": {}}, headers=headers).json["id"]
    gone = admin(f"{API}/posts", {"title": "Gone", "status": "publish"}, headers=headers).json["id"]
    first.client.delete(f"{API}/posts/{gone}?force=true", headers=headers)
    with first.db.engine.begin() as connection:
        connection.execute(text("PRAGMA writable_schema=ON"))
        connection.execute(text("UPDATE sqlite_master SET sql = replace(sql, 'AUTOINCREMENT', '') "
                                "WHERE name IN ('posts', 'terms')"))
        connection.execute(text("PRAGMA writable_schema=OFF"))
    first.close()

    second = make_app(plugins=["core"], database_url=url)
    with second.db.engine.connect() as connection:
        schema = connection.execute(text("SELECT sql FROM sqlite_master WHERE name = 'posts'")).scalar()
        indexes = {row[0] for row in connection.execute(text("SELECT name FROM sqlite_master WHERE tbl_name = 'posts'"))}
    assert "AUTOINCREMENT" in schema
    assert {"ix_posts_type_date_id_status", "content_version_posts_insert", "posts_search_insert"} <= indexes
    body = second.client.get(f"{API}/posts/{kept}").json
    assert (body["title"]["rendered"], body["tags"]) == ("Kept", [tag])
    assert [item["id"] for item in second.client.get(f"{API}/posts", {"search": "kept"}).json] == [kept]
    headers = role_users(second)["administrator"].headers
    new = second.client.post_json(f"{API}/posts", {"title": "New", "status": "publish"}, headers=headers).json["id"]
    assert new > kept
