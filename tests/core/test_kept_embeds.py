"""`_embed` answers kept for callers without credentials, and renewed by every write.

Core's embeddable routes declare `answer_version` (its content version and the next scheduled
post's time), so an anonymous page with `_embed` reuses the answers of earlier pages. These
tests show the reuse (a repeated page runs only its own statements) and that every write the
answers are built from shows on the very next page, and that answers for a signed-in caller are
never kept or served to anyone else.
"""

from __future__ import annotations

import pytest
from sqlalchemy import event

from host.testing import client_as, role_users
from tests.core.test_media import upload

API = "/wp-json/core/v2"


@pytest.fixture
def site(make_app):
    app = make_app(plugins=["core"], site={"comment_flood": 0})
    users = role_users(app)
    editor = client_as(app, users["editor"])
    news = editor.post_json(f"{API}/categories", {"name": "News"}, status=201).json
    post = editor.post_json(f"{API}/posts", {"title": "Sports day", "content": "Races", "status": "publish",
                                             "categories": [news["id"]]}, status=201).json
    editor.post_json(f"{API}/comments", {"post": post["id"], "content": "Well done"}, status=201)
    app.people, app.editor, app.news, app.post = users, editor, news, post
    return app


def embedded(app, client=None, **query):
    query = {"_embed": "1", "include": app.post["id"], **query}
    answer = (client or app.client).get(f"{API}/posts", query, status=200)
    [item] = answer.json
    return item["_embedded"]


def selects_of(app, url: str) -> list[str]:
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("SELECT"):
            statements.append(statement)

    event.listen(app.db.engine, "before_cursor_execute", record)
    try:
        app.client.get(url, status=200)
    finally:
        event.remove(app.db.engine, "before_cursor_execute", record)
    return statements


def test_a_repeated_anonymous_page_reuses_its_embedded_answers(site):
    url = f"{API}/posts?_embed=1&include={site.post['id']}"
    first = site.client.get(url, status=200)
    again = site.client.get(url, status=200)
    assert again.body == first.body
    assert again.headers["Content-Type"] == first.headers["Content-Type"]
    # The page's own statements only: no user, term or comment is read again.
    statements = selects_of(site, url)
    assert not [sql for sql in statements if "FROM users" in sql or "FROM comments" in sql
                or "JOIN terms" in sql], statements
    # The same answers with _pretty and _fields, which decode the kept answers.
    pretty = site.client.get(url + "&_pretty=1", status=200).json
    assert pretty == first.json
    picked = site.client.get(url + "&_fields=id,_embedded.author", status=200).json
    assert picked == [{"id": site.post["id"], "_embedded": {"author": first.json[0]["_embedded"]["author"]}}]


def test_writes_the_answers_are_built_from_show_on_the_next_page(site):
    before = embedded(site)
    assert [reply["content"]["rendered"] for reply in before["replies"][0]] == ["<p>Well done</p>\n"]
    site.editor.post_json(f"{API}/comments", {"post": site.post["id"], "content": "Thanks"}, status=201)
    assert len(embedded(site)["replies"][0]) == 2

    author_id = before["author"][0]["id"]
    site.editor.post_json(f"{API}/users/{author_id}", {"name": "Ms Renamed"}, status=200)
    assert embedded(site)["author"][0]["name"] == "Ms Renamed"

    site.editor.post_json(f"{API}/categories/{site.news['id']}", {"name": "School news"}, status=200)
    terms = embedded(site)["wp:term"]
    assert "School news" in [term["name"] for group in terms for term in group]


def test_signed_in_callers_are_answered_afresh_and_never_shared(site):
    picture = upload(site.client, site.people["editor"].headers, name="staff.png").json
    site.editor.post_json(f"{API}/media/{picture['id']}", {"status": "private"}, status=200)
    site.editor.post_json(f"{API}/posts/{site.post['id']}", {"featured_media": picture["id"]}, status=200)
    # The editor may read the private picture; an anonymous reader after them gets the error.
    assert embedded(site, site.editor)["wp:featuredmedia"][0]["id"] == picture["id"]
    assert embedded(site)["wp:featuredmedia"][0]["code"] == "rest_forbidden"
    assert embedded(site)["wp:featuredmedia"][0]["code"] == "rest_forbidden"  # kept as what anonymous gets
    assert embedded(site, site.editor)["wp:featuredmedia"][0]["id"] == picture["id"]



def test_large_answers_are_built_again_not_kept(site):
    """What a process keeps is bounded: an answer over MAX_ANSWER_BYTES (many long replies) is not kept."""
    from host.rest.kept_embeds import MAX_ANSWER_BYTES

    reply = "A long and thoughtful reply about the sports day. " * 40
    for number in range(MAX_ANSWER_BYTES // len(reply) + 2):  # numbered: the same text twice is a duplicate
        site.editor.post_json(f"{API}/comments", {"post": site.post["id"], "content": f"{number}. {reply}"},
                              status=201)
    url = f"{API}/posts?_embed=1&include={site.post['id']}"
    first = site.client.get(url, status=200)
    assert len(first.json[0]["_embedded"]["replies"][0]) > MAX_ANSWER_BYTES // len(reply)
    statements = selects_of(site, url)
    assert [sql for sql in statements if "FROM comments" in sql], "the large replies answer was kept"
    assert not [sql for sql in statements if "FROM users" in sql], "the small author answer was not kept"
    assert site.client.get(url, status=200).body == first.body
