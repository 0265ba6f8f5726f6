"""every item's `_links.self[0].targetHints.allow`, from the Allow checks."""

from __future__ import annotations

import pytest

API = "/wp-json/core/v2"
EVERYTHING = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def _allow(item: dict) -> list[str] | None:
    return item["_links"]["self"][0].get("targetHints", {}).get("allow")


@pytest.mark.parametrize("role, own, expected", [
    (None, None, ["GET"]),
    ("subscriber", None, ["GET"]),
    ("contributor", None, ["GET"]),
    ("author", "author", EVERYTHING),
    ("author", None, ["GET"]),
    ("editor", None, EVERYTHING),
    ("administrator", None, EVERYTHING),
])
def test_post_hints_match_the_allow_header(client, users, make_post, role, own, expected):
    post = make_post(role=own or "administrator")
    headers = users[role].headers if role else {}
    single = client.get(f"{API}/posts/{post['id']}", headers=headers)
    assert _allow(single.json) == expected == single.headers["Allow"].split(", ")
    listed = client.get(f"{API}/posts", headers=headers).json
    assert [_allow(item) for item in listed] == [expected]


def test_hints_differ_per_caller_on_reused_list_items(client, users, make_post):
    mine = make_post(role="author")
    other = make_post()
    anonymous = client.get(f"{API}/posts").json  # fills the kept encodings
    assert {item["id"]: _allow(item) for item in anonymous} == {mine["id"]: ["GET"], other["id"]: ["GET"]}
    author = client.get(f"{API}/posts", headers=users["author"].headers).json
    assert {item["id"]: _allow(item) for item in author} == {mine["id"]: EVERYTHING, other["id"]: ["GET"]}
    again = client.get(f"{API}/posts").json
    assert {item["id"]: _allow(item) for item in again} == {mine["id"]: ["GET"], other["id"]: ["GET"]}


def test_drafts_pages_media_terms_and_users_carry_hints(client, users):
    admin = users["administrator"].headers
    draft = client.post_json(f"{API}/posts?context=edit", {"title": "D", "status": "draft"}, headers=admin).json
    assert _allow(draft) == EVERYTHING
    page = client.post_json(f"{API}/pages", {"title": "P", "status": "publish"}, headers=admin).json
    assert _allow(client.get(f"{API}/pages/{page['id']}", headers=users["author"].headers).json) == ["GET"]
    tag = client.post_json(f"{API}/tags", {"name": "Chess"}, headers=admin).json
    assert _allow(tag) == EVERYTHING
    assert [_allow(item) for item in client.get(f"{API}/tags").json] == [["GET"]]
    assert _allow(client.get(f"{API}/categories/1", headers=admin).json) == ["GET", "POST", "PUT", "PATCH"]
    me = client.get(f"{API}/users/me", headers=users["author"].headers).json
    assert _allow(me) == ["GET", "POST", "PUT", "PATCH"]
    listed = client.get(f"{API}/users", headers=admin).json
    assert all(_allow(item) == EVERYTHING for item in listed if item["id"] != users["administrator"].id)


def test_embedded_authors_carry_hints(client, users, make_post):
    post = make_post(role="author")
    embedded = client.get(f"{API}/posts/{post['id']}?_embed=author").json["_embedded"]["author"][0]
    assert embedded["id"] == users["author"].id and _allow(embedded) == ["GET"]


def test_hints_follow_fields(client, make_post):
    post = make_post()
    assert client.get(f"{API}/posts/{post['id']}?_fields=id").json == {"id": post["id"]}
    linked = client.get(f"{API}/posts/{post['id']}?_fields=id,_links").json
    assert _allow(linked) == ["GET"]


def test_list_hints_cost_no_query_per_item(app, client, users, make_post):
    from sqlalchemy import event

    for _ in range(6):
        make_post()
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(app.db.engine, "before_cursor_execute", count)
    try:
        for headers, expected in (({}, ["GET"]), (users["editor"].headers, EVERYTHING)):
            # A first signed-in request notes the password's use (a commit), so the next one checks
            # the sign-in again before it is kept (host.auth, commit mark): warm up past both.
            client.get(f"{API}/posts?per_page=1", headers=headers)
            counts = []
            for per_page in (1, 2, 6):  # the first request also reads what a worker keeps  # `_fields` takes the path that reads and builds every item
                statements.clear()
                page = client.get(f"{API}/posts?per_page={per_page}&_fields=id,_links", headers=headers).json
                assert [_allow(item) for item in page] == [expected] * per_page
                counts.append(len(statements))
            assert counts[1] == counts[2], statements
    finally:
        event.remove(app.db.engine, "before_cursor_execute", count)
