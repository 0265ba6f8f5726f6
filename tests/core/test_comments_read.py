"""core/v2/comments reads: who sees which comment, in lists, totals, items, search and _embed.

One site for the module (read-only tests): a published post by the author with an approved,
a held and a spam comment; a password-protected post and a private post with approved ones.
"""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error, role_users

from tests.core.helpers import API

COMMENTS = f"{API}/comments"


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core"], site={"comment_flood": 0})
    people = role_users(app)
    author, editor = people["author"].headers, people["editor"].headers
    post = app.client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"}, headers=author).json
    locked = app.client.post_json(f"{API}/posts", {"title": "Locked", "status": "publish", "password": "owl"},
                                  headers=editor).json
    private = app.client.post_json(f"{API}/posts", {"title": "Staff", "status": "private"}, headers=editor).json
    made = {}
    for name, status in (("approved", "approved"), ("held", "hold"), ("spam", "spam")):
        made[name] = app.client.post_json(COMMENTS, {"post": post["id"], "content": f"{name} marker-{name}",
                                                     "author_name": "Visitor", "author_email": f"{name}@example.org",
                                                     "status": status}, headers=editor).json
    made["locked"] = app.client.post_json(COMMENTS, {"post": locked["id"], "content": "locked marker-locked"},
                                          headers=editor).json
    made["private"] = app.client.post_json(COMMENTS, {"post": private["id"], "content": "private marker-private"},
                                           headers=editor).json
    made["own"] = app.client.post_json(COMMENTS, {"post": post["id"], "content": "mine marker-own"},
                                       headers=people["contributor"].headers).json
    assert made["own"]["status"] == "hold"
    return app, people, {"post": post, "locked": locked, "private": private}, made


def _ids(response):
    return sorted(item["id"] for item in response.json)


def test_the_public_sees_approved_comments_on_readable_posts_only(site):
    app, _people, posts, made = site
    listed = app.client.get(COMMENTS)
    assert _ids(listed) == [made["approved"]["id"]]
    assert listed.headers["X-WP-Total"] == "1" and listed.headers["X-WP-TotalPages"] == "1"
    for name in ("held", "spam", "private", "locked", "own"):
        assert_rest_error(app.client.get(f"{COMMENTS}/{made[name]['id']}", status=401), "rest_cannot_read", 401)
    item = app.client.get(f"{COMMENTS}/{made['approved']['id']}").json
    assert set(item) >= {"id", "post", "parent", "author", "author_name", "author_url", "date", "date_gmt", "content",
                         "link", "status", "type", "author_avatar_urls", "meta", "_links"}
    assert "author_email" not in item and "author_ip" not in item and "raw" not in item["content"]
    assert item["_links"]["up"][0]["href"].endswith(f"/posts/{posts['post']['id']}")
    for query in ({"search": "marker"}, {"search": "example.org"}, {"post": posts["post"]["id"]}):
        assert _ids(app.client.get(COMMENTS, query)) == ([made["approved"]["id"]] if "marker" in str(query)
                                                          or "post" in query else [])


def test_protected_params_and_contexts_need_rights(site):
    app, people, _posts, _made = site
    for query, code in (({"status": "hold"}, "rest_forbidden_param"), ({"author_email": "a@example.org"},
                                                                        "rest_forbidden_param"),
                        ({"author": 1}, "rest_forbidden_param"), ({"type": "pingback"}, "rest_forbidden_param"),
                        ({"context": "edit"}, "rest_forbidden_context"), ({"post": 0}, "rest_cannot_read")):
        assert_rest_error(app.client.get(COMMENTS, query, status=401), code, 401)
        assert_rest_error(app.client.get(COMMENTS, query, headers=people["subscriber"].headers, status=403), code, 403)
    refused = app.client.get(COMMENTS, {"status": "hold", "author": 1}, status=401).json
    assert refused["message"] == "Query parameter not permitted: author, status"


def test_password_and_private_posts(site):
    app, people, posts, made = site
    locked = posts["locked"]["id"]
    assert_rest_error(app.client.get(COMMENTS, {"post": locked}, status=401), "rest_cannot_read_post", 401)
    assert _ids(app.client.get(COMMENTS, {"post": locked, "password": "owl"})) == [made["locked"]["id"]]
    assert_rest_error(app.client.get(COMMENTS, {"post": locked, "password": "cat"}, status=401),
                      "rest_cannot_read_post", 401)
    assert app.client.get(f"{COMMENTS}/{made['locked']['id']}", {"password": "owl"}).json["id"] == made["locked"]["id"]
    assert_rest_error(app.client.get(COMMENTS, {"post": posts["private"]["id"]}, status=401),
                      "rest_cannot_read_post", 401)


def test_authors_see_every_comment_on_their_posts_and_users_their_own(site):
    app, people, posts, made = site
    as_author = app.client.get(COMMENTS, {"status": "all", "per_page": 100}, headers=people["author"].headers)
    assert _ids(as_author) == sorted([made["approved"]["id"], made["held"]["id"], made["own"]["id"]])
    assert as_author.headers["X-WP-Total"] == "3"
    spam = app.client.get(COMMENTS, {"status": "spam"}, headers=people["author"].headers)
    assert _ids(spam) == [made["spam"]["id"]]
    assert app.client.get(f"{COMMENTS}/{made['held']['id']}", headers=people["author"].headers).json["status"] == "hold"
    assert_rest_error(app.client.get(f"{COMMENTS}/{made['held']['id']}", {"context": "edit"},
                                     headers=people["author"].headers, status=403), "rest_forbidden_context", 403)
    contributor = people["contributor"].headers
    assert _ids(app.client.get(COMMENTS, {"status": "hold"}, headers=contributor)) == [made["own"]["id"]]
    assert app.client.get(f"{COMMENTS}/{made['own']['id']}", headers=contributor).json["status"] == "hold"
    assert_rest_error(app.client.get(f"{COMMENTS}/{made['held']['id']}", headers=contributor, status=403),
                      "rest_cannot_read", 403)


def test_moderators_see_all_of_them_with_filters_and_order(site):
    app, people, posts, made = site
    editor = people["editor"].headers
    everything = app.client.get(COMMENTS, {"status": "all", "per_page": 100}, headers=editor)
    assert len(everything.json) == 5  # hold and approved on every post (spam is its own status)
    edit = app.client.get(COMMENTS, {"context": "edit", "status": "spam"}, headers=editor).json[0]
    assert edit["author_email"] == "spam@example.org" and edit["content"]["raw"] == "spam marker-spam"
    assert "author_ip" in edit and "author_user_agent" in edit
    by_email = app.client.get(COMMENTS, {"author_email": "held@example.org", "status": "hold"}, headers=editor)
    assert _ids(by_email) == [made["held"]["id"]]
    ascending = app.client.get(COMMENTS, {"status": "all", "orderby": "id", "order": "asc"}, headers=editor).json
    assert [item["id"] for item in ascending] == sorted(item["id"] for item in ascending)
    included = app.client.get(COMMENTS, {"include": f"{made['private']['id']},{made['approved']['id']}",
                                         "orderby": "include"}, headers=editor).json
    assert [item["id"] for item in included] == [made["private"]["id"], made["approved"]["id"]]
    paged = app.client.get(COMMENTS, {"status": "all", "per_page": 2, "page": 2}, headers=editor)
    assert len(paged.json) == 2 and paged.headers["X-WP-TotalPages"] == "3"
    assert app.client.get(COMMENTS, {"status": "all", "page": 9}, headers=editor).json == []  # never an error
    after = app.client.get(COMMENTS, {"after": "2000-01-01T00:00:00", "status": "all"}, headers=editor)
    assert len(after.json) == 5
    assert app.client.get(COMMENTS, {"before": "2000-01-01T00:00:00", "status": "all"}, headers=editor).json == []
    assert_rest_error(app.client.get(COMMENTS, {"after": "yesterday"}, headers=editor, status=400),
                      "rest_invalid_param", 400)
    searched = app.client.get(COMMENTS, {"search": "held@example", "status": "all"}, headers=editor)
    assert _ids(searched) == [made["held"]["id"]]  # moderators may search addresses


def test_the_posts_replies_link_and_embed(site):
    app, people, posts, made = site
    post = app.client.get(f"{API}/posts/{posts['post']['id']}", {"_embed": 1}).json
    replies = post["_links"]["replies"][0]
    assert replies["embeddable"] is True and replies["href"].endswith(f"/comments?post={posts['post']['id']}")
    embedded = post["_embedded"]["replies"][0]
    assert [item["id"] for item in embedded] == [made["approved"]["id"]]  # the public's view: approved only
    assert "post" not in embedded[0] and "status" not in embedded[0]  # the embed context
    as_author = app.client.get(f"{API}/posts/{posts['post']['id']}", {"_embed": "replies"},
                               headers=people["author"].headers).json
    assert [item["id"] for item in as_author["_embedded"]["replies"][0]] == [made["approved"]["id"]]
    comment = app.client.get(f"{COMMENTS}/{made['approved']['id']}", {"_embed": 1}).json
    assert comment["_embedded"]["up"][0]["id"] == posts["post"]["id"]
    assert "author" not in comment["_links"]  # written with a visitor's name: no user to link
    own = app.client.get(f"{COMMENTS}/{made['own']['id']}", {"_embed": 1}, headers=people["contributor"].headers).json
    assert own["_embedded"]["author"][0]["id"] == people["contributor"].id


def test_a_list_names_at_most_a_hundred_posts(site):
    app, _people, _posts, _made = site
    too_many = ",".join(str(number) for number in range(1, 102))
    assert_rest_error(app.client.get(COMMENTS, {"post": too_many}, status=400), "rest_invalid_param", 400)
    assert app.client.get(COMMENTS, {"post": ",".join(str(number) for number in range(1000, 1100))}).json == []
