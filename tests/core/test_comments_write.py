"""core/v2/comments writes: who may comment, approval, flood, duplicates, threading, moderation, delete."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error

from tests.core.helpers import API

COMMENTS = f"{API}/comments"
VISITOR = {"author_name": "Priya Shah", "author_email": "priya.shah@example.org"}


def _site(make_app, **site):
    return make_app(plugins=["core"], site=site) if site else make_app(plugins=["core"])


@pytest.fixture
def school(make_app):
    from host.testing import role_users

    app = make_app(plugins=["core"])
    people = role_users(app)
    post = app.client.post_json(f"{API}/posts", {"title": "Sports day", "status": "publish"},
                                headers=people["author"].headers, status=201).json
    return app, people, post


def _visitor(app, post, content, status=201, address="10.0.0.1", **extra):
    return app.client.post_json(COMMENTS, {"post": post["id"], "content": content, **VISITOR, **extra},
                                extra_environ={"REMOTE_ADDR": address}, status=status)


def test_a_visitors_first_comment_is_held_and_later_ones_approved(school):
    app, people, post = school
    first = _visitor(app, post, "What time does sports day start?")
    assert first.status_int == 201
    assert first.headers["Location"] == f"http://school.test{COMMENTS}/{first.json['id']}"
    body = first.json
    assert body["status"] == "hold" and body["author"] == 0 and body["author_name"] == "Priya Shah"
    assert "author_email" not in body and "raw" not in body["content"]  # a visitor gets the view context
    assert body["content"]["rendered"] == "<p>What time does sports day start?</p>\n"
    assert body["link"].endswith(f"?p={post['id']}#comment-{body['id']}")
    # held: not public yet, and a second comment is held too
    assert app.client.get(COMMENTS, {"post": post["id"]}).json == []
    editor = people["editor"].headers
    approved = app.client.post_json(f"{COMMENTS}/{body['id']}", {"status": "approve"}, headers=editor).json
    assert approved["status"] == "approved" and approved["author_email"] == "priya.shah@example.org"
    later = _visitor(app, post, "Thank you, see you there!", address="10.0.0.2")
    assert later.json["status"] == "approved"
    public = app.client.get(COMMENTS, {"post": post["id"]})
    assert [item["id"] for item in public.json] == [later.json["id"], body["id"]]
    assert public.headers["X-WP-Total"] == "2"


def test_moderators_and_the_posts_author_are_approved_at_once(school):
    app, people, post = school
    mine = app.client.post_json(COMMENTS, {"post": post["id"], "content": "Bring water bottles."},
                                headers=people["author"].headers, status=201).json
    assert mine["status"] == "approved" and mine["author"] == people["author"].id
    editor = app.client.post_json(COMMENTS, {"post": post["id"], "content": "Reminder sent."},
                                  headers=people["editor"].headers, status=201).json
    assert editor["status"] == "approved" and editor["author_email"]  # edit context for moderators
    contributor = app.client.post_json(COMMENTS, {"post": post["id"], "content": "Can parents watch?"},
                                       headers=people["contributor"].headers, status=201).json
    assert contributor["status"] == "hold"


def test_comment_registration_requires_sign_in(make_app):
    from host.testing import role_users

    app = _site(make_app, comment_registration=True)
    people = role_users(app)
    post = app.client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"},
                                headers=people["editor"].headers).json
    refused = _visitor(app, post, "Hello", status=401)
    assert_rest_error(refused, "rest_comment_login_required", 401)
    app.client.post_json(COMMENTS, {"post": post["id"], "content": "Hello"}, headers=people["subscriber"].headers,
                         status=201)


def test_refusals_follow_the_reference(school):
    app, people, post = school
    editor = people["editor"].headers
    assert_rest_error(_visitor(app, {"id": 999999}, "x", status=401), "rest_comment_invalid_post_id", 401)
    draft = app.client.post_json(f"{API}/posts", {"title": "Draft"}, headers=editor).json
    assert_rest_error(app.client.post_json(COMMENTS, {"post": draft["id"], "content": "x"}, headers=editor,
                                           status=403), "rest_comment_draft_post", 403)
    closed = app.client.post_json(f"{API}/posts", {"title": "Closed", "status": "publish", "comment_status": "closed"},
                                  headers=editor).json
    assert_rest_error(_visitor(app, closed, "x", status=401), "rest_comment_closed", 401)
    private = app.client.post_json(f"{API}/posts", {"title": "Staff", "status": "private"}, headers=editor).json
    assert_rest_error(_visitor(app, private, "x", status=401), "rest_cannot_read_post", 401)
    assert_rest_error(_visitor(app, post, "   ", status=400), "rest_comment_content_invalid", 400)
    assert_rest_error(app.client.post_json(COMMENTS, {"post": post["id"], "content": "x"}, status=400),
                      "rest_comment_author_data_required", 400)
    assert_rest_error(_visitor(app, post, "x", status=400, author_email="not-an-address"), "rest_invalid_param", 400)
    assert_rest_error(app.client.post_json(COMMENTS, {"post": post["id"], "content": "x", "status": "approved",
                                                      **VISITOR}, status=401), "rest_comment_invalid_status", 401)
    assert_rest_error(app.client.post_json(COMMENTS, {"post": post["id"], "content": "x", "author": 1, **VISITOR},
                                           status=401), "rest_comment_invalid_author", 401)
    assert_rest_error(_visitor(app, post, "x" * 65526, status=400), "comment_content_column_length", 400)
    assert_rest_error(_visitor(app, post, "x", status=400, author_name="n" * 246), "comment_author_column_length", 400)
    assert app.client.get(COMMENTS, {"status": "all"}, headers=editor).json == []  # nothing was stored


def test_flood_control_and_duplicates(school):
    app, people, post = school
    _visitor(app, post, "First question about the kit list.")
    flooded = _visitor(app, post, "Second question, right away.", status=400)
    assert_rest_error(flooded, "comment_flood", 400)
    duplicate = _visitor(app, post, "First question about the kit list.", status=409, address="10.9.9.9")
    assert_rest_error(duplicate, "comment_duplicate", 409)
    # moderators are never flooded
    editor = people["editor"].headers
    for number in range(3):
        app.client.post_json(COMMENTS, {"post": post["id"], "content": f"Note {number}"}, headers=editor, status=201)


def test_flood_interval_is_configurable(make_app):
    from host.testing import role_users

    app = _site(make_app, comment_flood=0)
    people = role_users(app)
    post = app.client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"},
                                headers=people["editor"].headers).json
    _visitor(app, post, "One")
    _visitor(app, post, "Two")


def test_threads_through_parent(school):
    app, people, post = school
    editor = people["editor"].headers
    top = app.client.post_json(COMMENTS, {"post": post["id"], "content": "Top"}, headers=editor).json
    reply = app.client.post_json(COMMENTS, {"post": post["id"], "parent": top["id"], "content": "Reply"},
                                 headers=editor).json
    assert reply["parent"] == top["id"]
    assert reply["_links"]["in-reply-to"][0]["href"].endswith(f"/comments/{top['id']}")
    top_again = app.client.get(f"{COMMENTS}/{top['id']}").json
    assert top_again["_links"]["children"][0]["href"].endswith(f"/comments?parent={top['id']}")
    assert [item["id"] for item in app.client.get(COMMENTS, {"parent": top["id"]}).json] == [reply["id"]]
    other = app.client.post_json(f"{API}/posts", {"title": "Other", "status": "publish"}, headers=editor).json
    wrong = app.client.post_json(COMMENTS, {"post": other["id"], "parent": top["id"], "content": "x"},
                                 headers=editor, status=400)
    assert_rest_error(wrong, "rest_comment_invalid_parent", 400)
    parent = reply["id"]
    for depth in range(8):
        parent = app.client.post_json(COMMENTS, {"post": post["id"], "parent": parent, "content": f"d{depth}"},
                                      headers=editor).json["id"]
    too_deep = app.client.post_json(COMMENTS, {"post": post["id"], "parent": parent, "content": "deeper"},
                                    headers=editor, status=400)
    assert_rest_error(too_deep, "rest_comment_too_deep", 400)
    # deleting a comment for good moves its replies up
    app.client.delete(f"{COMMENTS}/{top['id']}?force=true", headers=editor, status=200)
    assert app.client.get(f"{COMMENTS}/{reply['id']}").json["parent"] == 0


def test_statuses_and_trash(school):
    app, people, post = school
    editor = people["editor"].headers
    held = _visitor(app, post, "Is the pool open?").json
    url = f"{COMMENTS}/{held['id']}"
    for word, status in (("spam", "spam"), ("unspam", "hold"), ("approved", "approved"), ("0", "hold"),
                         ("1", "approved"), ("trash", "trash"), ("untrash", "approved")):
        assert app.client.put_json(url, {"status": word}, headers=editor).json["status"] == status, word
    assert_rest_error(app.client.put_json(url, {"status": "glorious"}, headers=editor, status=400),
                      "rest_invalid_param", 400)
    trashed = app.client.delete(url, headers=editor).json
    assert trashed["status"] == "trash"
    assert_rest_error(app.client.delete(url, headers=editor, status=410), "rest_already_trashed", 410)
    assert app.client.get(COMMENTS, {"status": "trash"}, headers=editor).json[0]["id"] == held["id"]
    gone = app.client.delete(url + "?force=true", headers=editor).json
    assert gone["deleted"] is True and gone["previous"]["id"] == held["id"]
    assert_rest_error(app.client.get(url, headers=editor, status=404), "rest_comment_invalid_id", 404)


def test_who_may_edit_and_delete(school):
    app, people, post = school
    held = _visitor(app, post, "Please call me back.").json
    url = f"{COMMENTS}/{held['id']}"
    assert_rest_error(app.client.put_json(url, {"content": "x"}, status=401), "rest_cannot_edit", 401)
    for role in ("subscriber", "contributor"):
        assert_rest_error(app.client.put_json(url, {"content": "x"}, headers=people[role].headers, status=403),
                          "rest_cannot_edit", 403)
    assert_rest_error(app.client.delete(url, headers=people["subscriber"].headers, status=403),
                      "rest_cannot_delete", 403)
    # the post's author may moderate comments on their own post (edit_comment -> edit_post)
    edited = app.client.put_json(url, {"content": "Please call me back tomorrow.", "status": "approve"},
                                 headers=people["author"].headers).json
    assert edited["content"]["raw"] == "Please call me back tomorrow." and edited["status"] == "approved"
    assert_rest_error(app.client.put_json(url, {"content": ""}, headers=people["author"].headers, status=400),
                      "rest_comment_content_invalid", 400)
    assert_rest_error(app.client.put_json(url, {"post": 999999}, headers=people["editor"].headers, status=403),
                      "rest_comment_invalid_post_id", 403)
    assert_rest_error(app.client.put_json(url, {"author": 999999}, headers=people["editor"].headers, status=400),
                      "rest_comment_author_invalid", 400)
    moved = app.client.put_json(url, {"author_ip": "192.0.2.7", "date_gmt": "2025-01-02T03:04:05"},
                                headers=people["editor"].headers).json
    assert moved["author_ip"] == "192.0.2.7" and moved["date_gmt"] == "2025-01-02T03:04:05"


def test_comment_writes_fire_content_events(make_app):
    from host import hookimpl
    from host.testing import make_plugin, role_users

    seen = []

    @hookimpl
    def content_saved(event):
        seen.append(("saved", event.type, event.status, event.item.get("previous_status")))

    @hookimpl
    def content_deleted(event):
        seen.append(("deleted", event.type, event.status, event.force))

    app = make_app(plugins=["core", make_plugin("listener", content_saved, content_deleted)])
    people = role_users(app)
    editor = people["editor"].headers
    post = app.client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"}, headers=editor).json
    seen.clear()
    comment = _visitor(app, post, "When do we leave?").json
    app.client.put_json(f"{COMMENTS}/{comment['id']}", {"status": "spam"}, headers=editor)
    app.client.delete(f"{COMMENTS}/{comment['id']}?force=true", headers=editor)
    assert seen == [("saved", "comment", "hold", ""), ("saved", "comment", "spam", "hold"),
                    ("deleted", "comment", "spam", True)]


def test_comment_writes_invalidate_the_cached_comment_lists_and_leave_the_post_lists(make_app):
    """With the cache plugin: every comment write (create, approve, spam, trash, delete) purges the cached
    comment lists, which show the change at once, and leaves the cached post lists (a post shows no comment)."""
    from host.testing import role_users

    app = make_app(plugins=["core", "cache"], site={"comment_flood": 0},
                   config={"cache": {"paths": ["/core/v2/posts", "/core/v2/comments"]}})
    people = role_users(app)
    editor = people["editor"].headers
    post = app.client.post_json(f"{API}/posts", {"title": "Fair", "status": "publish"}, headers=editor).json
    posts_url, comments_url = f"{API}/posts", f"{COMMENTS}?post={post['id']}"

    def cached(url):
        app.client.get(url)
        hit = app.client.get(url)
        assert hit.headers["X-Cache"] == "hit"
        return hit

    def after_write(check):
        assert app.client.get(posts_url).headers["X-Cache"] == "hit"
        comments = app.client.get(comments_url)
        assert comments.headers["X-Cache"] == "miss" and [item["id"] for item in comments.json] == check

    cached(posts_url), cached(comments_url)
    comment = _visitor(app, post, "What a lovely fair!").json
    after_write([])  # held
    for status, visible in (("approved", [comment["id"]]), ("spam", []), ("approved", [comment["id"]])):
        cached(posts_url), cached(comments_url)
        app.client.put_json(f"{COMMENTS}/{comment['id']}", {"status": status}, headers=editor)
        after_write(visible)
    cached(posts_url), cached(comments_url)
    app.client.delete(f"{COMMENTS}/{comment['id']}", headers=editor)
    after_write([])


def test_demo_site_has_comments_and_a_spam_history(make_app):
    from host.testing import role_users

    app = make_app(plugins=["core", "spam"])
    assert app.install_site(demo=True)
    editor = role_users(app)["editor"].headers
    public = app.client.get(COMMENTS, {"per_page": 100}).json
    assert len(public) == 3 and all(item["status"] == "approved" for item in public)
    reply = next(item for item in public if item["parent"])
    assert reply["author_name"] == "Riverside School office"
    held = app.client.get(COMMENTS, {"status": "hold"}, headers=editor).json
    assert [item["author_name"] for item in held] == ["Aisha Rahman"]
    admin = role_users(app)["administrator"].headers
    stats = app.client.get("/wp-json/spam/v1/stats", headers=admin).json["all"]
    assert stats["spam"] == 2 and stats["ham"] == 3


def test_parents_must_be_readable_and_never_form_a_loop(school):
    app, people, post = school
    editor = people["editor"].headers
    held = _visitor(app, post, "A held question").json
    refused = _visitor(app, post, "Replying to it", address="10.0.0.3", parent=held["id"], status=400)
    assert_rest_error(refused, "rest_comment_invalid_parent", 400)  # a visitor cannot see the held comment
    top = app.client.post_json(COMMENTS, {"post": post["id"], "content": "Top"}, headers=editor).json
    reply = app.client.post_json(COMMENTS, {"post": post["id"], "parent": top["id"], "content": "Reply"},
                                 headers=editor).json
    for parent in (top["id"], reply["id"]):
        loop = app.client.put_json(f"{COMMENTS}/{top['id']}", {"parent": parent}, headers=editor, status=400)
        assert_rest_error(loop, "rest_comment_invalid_parent", 400)
    assert app.client.get(f"{COMMENTS}/{top['id']}").json["parent"] == 0


def test_moderation_settings(make_app):
    from host.testing import create_test_user

    app = _site(make_app, comment_moderation=True, require_name_email=False, comment_flood=0)
    editor = create_test_user(app, "editor").headers
    post = app.client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"}, headers=editor).json
    first = _visitor(app, post, "First").json
    app.client.put_json(f"{COMMENTS}/{first['id']}", {"status": "approved"}, headers=editor)
    assert _visitor(app, post, "Second, after an approved one").json["status"] == "hold"  # moderation holds all
    nameless = app.client.post_json(COMMENTS, {"post": post["id"], "content": "No name given"}, status=201).json
    assert nameless["author_name"] == "" and nameless["status"] == "hold"
    assert app.client.post_json(COMMENTS, {"post": post["id"], "content": "Staff note"},
                                headers=editor).json["status"] == "approved"  # moderators are never held


def test_a_visitors_name_and_url_are_served_without_markup_or_script_urls(school):
    """The reference strips both: an http(s) author URL only, no markup in the name; rows stored
    before that rule are cleaned on the way out too."""
    app, people, post = school
    editor = people["editor"].headers
    comment = app.client.post_json(COMMENTS, {
        "post": post["id"], "content": "Lovely photos!", "author_email": "x@example.org",
        "author_name": "<img src=x onerror=alert(1)>Sam <b>Parent</b> <script>alert(2)</script>",
        "author_url": " JaVa\tScRiPt:alert(document.domain)"}, status=201).json
    assert comment["author_name"] == "Sam Parent" and comment["author_url"] == ""
    app.client.post_json(f"{COMMENTS}/{comment['id']}", {"status": "approve"}, headers=editor, status=200)
    public = app.client.get(COMMENTS, {"post": post["id"]}).json
    assert [(item["author_name"], item["author_url"]) for item in public] == [("Sam Parent", "")]
    # a moderator's edit is cleaned the same way; a site address without a scheme gets http://
    edited = app.client.post_json(f"{COMMENTS}/{comment['id']}", {
        "author_name": "a <b", "author_url": "data:text/html,<script>alert(1)</script>"}, headers=editor).json
    assert (edited["author_name"], edited["author_url"]) == ("a &lt;b", "")
    edited = app.client.post_json(f"{COMMENTS}/{comment['id']}", {"author_url": "parent.example.org/blog"},
                                  headers=editor).json
    assert edited["author_url"] == "http://parent.example.org/blog"
    # a row stored before the rule (written straight into the table) is served cleaned
    from sqlalchemy import update

    comments = app.db.metadata.tables["comments"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(update(comments).where(comments.c.id == comment["id"]).values(
            author_name="<img src=x onerror=alert(1)>", author_url="javascript:alert(document.domain)"))
    for served in (app.client.get(f"{COMMENTS}/{comment['id']}").json, app.client.get(COMMENTS).json[0],
                   app.client.get(f"{COMMENTS}/{comment['id']}", {"context": "edit"}, headers=editor).json):
        assert (served["author_name"], served["author_url"]) == ("", "")
