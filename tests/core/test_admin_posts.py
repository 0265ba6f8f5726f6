"""The Posts and Pages lists of the admin area (WebTest): status filters and counts, search, pages, bulk Trash
and Restore with their refusals, and the View and Edit links (the builder's editor for its documents)."""

from __future__ import annotations

import pytest

from host.testing import create_test_user
from tests.admin.helpers import sign_in
from tests.core.helpers import API


@pytest.fixture
def school(make_app):
    app = make_app(plugins=["core"], extra={"auth": {"slow_seconds": 0}})
    return app, create_test_user(app, "administrator")


def make(app, user, base="posts", **fields):
    fields.setdefault("status", "publish")
    return app.client.post_json(f"{API}/{base}", fields, headers=user.headers, status=201).json


def listed_titles(page) -> list[str]:
    return [row.select_one("[data-label=Title] strong").text for row in page.html.select("main tbody tr")]


def counts_of(page) -> dict[str, str]:
    return {link.text.split(" (")[0]: link.select_one(".muted").text for link in page.html.select("ul.filters a")}


def bulk_post(client, page, action, ids):
    form = page.html.select_one("form[aria-label='Bulk actions']")
    return client.post(form["action"], [("csrf_token", form.select_one("[name=csrf_token]")["value"]),
                                         ("action", action), *[("ids", str(item)) for item in ids]],
                       expect_errors=True)


def test_each_status_filter_lists_its_posts_with_counts(school):
    app, admin = school
    made = {status: make(app, admin, title=f"A {status} post", status=status)
            for status in ("publish", "draft", "pending", "private")}
    make(app, admin, title="A future post", status="future", date="2099-01-01T09:00:00")
    trashed = make(app, admin, title="A trashed post")
    app.client.delete(f"{API}/posts/{trashed['id']}", headers=admin.headers)
    client = sign_in(app, admin)
    page = client.get("/admin/posts")
    assert counts_of(page) == {"All": "(5)", "Published": "(1)", "Scheduled": "(1)", "Drafts": "(1)",
                               "Pending": "(1)", "Private": "(1)", "Trash": "(1)"}
    assert "A trashed post" not in listed_titles(page) and len(listed_titles(page)) == 5
    for status, title in (("publish", "A publish post"), ("future", "A future post"), ("draft", "A draft post"),
                          ("pending", "A pending post"), ("private", "A private post"),
                          ("trash", "A trashed post")):
        assert listed_titles(client.get(f"/admin/posts?status={status}")) == [title]
    row = page.html.select_one(f"#post-{made['publish']['id']}")
    assert row.select_one("a.view")["href"] == made["publish"]["link"]
    assert row.select_one("a.edit")["href"] == f"http://school.test/wp-json/core/v2/posts/{made['publish']['id']}"
    assert row.select_one("[data-label=Author]").text == admin.login  # a test user's display name is its login
    assert all(cell.has_attr("data-label") for cell in page.html.select("main tbody td"))
    assert [th["scope"] for th in page.html.select("main thead th")] == ["col"] * 5


def test_search_pages_and_bad_filters(school):
    app, admin = school
    for number in range(21):
        make(app, admin, base="pages", title=f"Page {number:02d}")
    make(app, admin, base="pages", title="Term dates")
    client = sign_in(app, admin)
    first = client.get("/admin/pages")
    assert len(listed_titles(first)) == 20 and "Page 1 of 2" in first.text
    second = client.get(first.html.select_one("a[rel=next]")["href"])
    assert len(listed_titles(second)) == 2 and "Page 2 of 2" in second.text
    found = client.get("/admin/pages", {"s": "term dates"})
    assert listed_titles(found) == ["Term dates"] and "1 page (matching" in found.text
    assert "No pages match that search" in client.get("/admin/pages", {"s": "nothing like it"}).text
    assert "no such status" in client.get("/admin/pages?status=bogus", status=400).text
    assert "whole number" in client.get("/admin/pages?paged=x", status=400).text
    assert "at most 200" in client.get("/admin/pages", {"s": "y" * 201}, status=400).text
    assert client.get("/admin/pages?paged=5", status=400).html.select_one(".notice.error")
    client.get("/admin/pages/extra", status=404)


def test_bulk_trash_and_restore_of_ticked_rows(school):
    app, admin = school
    posts = [make(app, admin, title=f"News {number}") for number in range(3)]
    client = sign_in(app, admin)
    page = client.get("/admin/posts")
    answer = bulk_post(client, page, "trash", [posts[0]["id"], posts[1]["id"]])
    assert answer.status_int == 200 and "2 posts moved to the Trash" in answer.text
    assert listed_titles(answer) == ["News 2"]
    trash = client.get("/admin/posts?status=trash")
    assert sorted(listed_titles(trash)) == ["News 0", "News 1"]
    assert trash.html.select_one("form[aria-label='Bulk actions'] button").text.startswith("Restore")
    restored = bulk_post(client, trash, "restore", [posts[0]["id"]])
    assert "1 post restored as drafts" in restored.text and restored.request.url.endswith("status=trash")
    state = app.client.get(f"{API}/posts/{posts[0]['id']}", {"context": "edit"}, headers=admin.headers).json
    assert state["status"] == "draft"


def test_refused_bulk_changes_change_nothing(school):
    app, admin = school
    post = make(app, admin, title="Kept")
    client = sign_in(app, admin)
    page = client.get("/admin/posts")
    assert "Tick the posts" in bulk_post(client, page, "trash", []).text
    assert bulk_post(client, page, "trash", []).status_int == 400
    assert bulk_post(client, page, "trash", ["abc"]).status_int == 400
    assert bulk_post(client, page, "trash", list(range(1, 102))).status_int == 400
    not_in_trash = bulk_post(client, page, "restore", [post["id"]])
    assert not_in_trash.status_int == 409 and "not in the Trash" in not_in_trash.text
    missing = bulk_post(client, page, "trash", [99999])
    assert missing.status_int == 409 and "Post 99999 was not changed" in missing.text
    assert app.client.get(f"{API}/posts/{post['id']}").json["status"] == "publish"


def test_an_author_sees_counts_of_what_they_may_list_and_cannot_trash_others_posts(school):
    app, admin = school
    author = create_test_user(app, "author")
    make(app, admin, title="The head's private note", status="private")
    theirs = make(app, admin, title="The head's news")
    mine = make(app, author, title="My class news")
    client = sign_in(app, author)
    page = client.get("/admin/posts")
    assert counts_of(page)["Private"] == "(0)" and "The head's private note" not in page.text
    refused = bulk_post(client, page, "trash", [theirs["id"], mine["id"]])
    assert refused.status_int == 409 and "1 post moved to the Trash" in refused.text
    assert f"Post {theirs['id']} was not changed" in refused.text
    assert app.client.get(f"{API}/posts/{theirs['id']}").json["status"] == "publish"
    sign_in(app, create_test_user(app, "subscriber")).get("/admin/posts", status=403)


def test_edit_goes_to_the_builder_for_its_documents(make_app):
    app = make_app(plugins=["core", "builder"], extra={"auth": {"slow_seconds": 0}})
    admin = create_test_user(app, "administrator")
    built = make(app, admin, base="pages", title="Open day", meta={"_builder_edit_mode": "builder"})
    plain = make(app, admin, base="pages", title="Policies")
    page = sign_in(app, admin).get("/admin/pages")
    assert page.html.select_one(f"#page-{built['id']} a.edit")["href"] == \
        "http://school.test/wp-json/builder/v1/documents"
    assert page.html.select_one(f"#page-{plain['id']} a.edit")["href"] == \
        f"http://school.test/wp-json/core/v2/pages/{plain['id']}"
