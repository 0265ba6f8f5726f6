"""The comment form for a visitor signed in through the sign-in page: "Logged in as NAME" instead of name
and email fields, the comment saved as that user (author id set) and approved as WordPress approves it (at
once for a user who may moderate comments), and the session's nonce required as WordPress's REST cookie
check requires it: a wrong nonce saves nothing, no nonce is an anonymous visitor's post."""

from __future__ import annotations

from host.testing import admin_sign_in, create_test_user

from .helpers import COMMENTS, SITE, parse_strict, sports_day_site


def _form(page):
    form = parse_strict(page.text).find(".//form[@class='comment-form']")
    assert form.get("action") == f"{SITE}/comment-post"
    return form, {field.get("name"): field.get("value") or "" for field in form.iterfind(".//input")}


def _comments(app, admin, post) -> list[dict]:
    return app.client.get(COMMENTS, {"post": post["id"], "status": "all", "context": "edit"},
                          headers=admin.headers).json


def test_signed_in_visitor_sees_logged_in_as_and_posts_as_themself(make_app):
    app, admin, post = sports_day_site(make_app, comment_moderation=False, comment_previously_approved=True)
    pupil = create_test_user(app, "subscriber", login="sam")
    name = app.client.get(f"/wp-json/core/v2/users/{pupil.id}", {"context": "edit"}, headers=admin.headers).json["name"]
    browser = admin_sign_in(app, pupil)

    page = browser.get("/sports-day/")
    assert page.headers["Cache-Control"] == "private, no-store"  # the page names who is signed in
    form, fields = _form(page)
    assert "".join(form.find(".//p[@class='logged-in-as']").itertext()) == f"Logged in as {name}."
    assert "author_name" not in fields and "author_email" not in fields
    assert fields["_wpnonce"] and fields["post_id"] == str(post["id"])
    assert "Logged in as" not in app.client.get("/sports-day/").text  # an anonymous visitor still gets the fields

    done = browser.post("/comment-post", {**fields, "content": "Can we bring our own water?"}, status=303)
    assert done.headers["Location"] == f"{SITE}/sports-day/?comment=held#respond"  # a first comment waits
    [saved] = _comments(app, admin, post)
    assert saved["author"] == pupil.id and saved["author_name"] == name and saved["status"] == "hold"
    assert saved["author_email"] == pupil.email and saved["content"]["raw"] == "Can we bring our own water?"


def test_a_user_who_moderates_comments_is_approved_at_once(make_app):
    app, admin, post = sports_day_site(make_app, comment_moderation=True)
    editor = create_test_user(app, "editor")
    browser = admin_sign_in(app, editor)
    _form_element, fields = _form(browser.get("/sports-day/"))
    done = browser.post("/comment-post", {**fields, "content": "Tents go up at nine."}, status=303)
    [saved] = _comments(app, admin, post)
    assert done.headers["Location"] == f"{SITE}/sports-day/?comment=shown#comment-{saved['id']}"
    assert saved["author"] == editor.id and saved["status"] == "approved"
    shown = app.client.get("/sports-day/")
    assert "Tents go up at nine." in shown.text


def test_a_wrong_nonce_saves_nothing_and_no_nonce_is_an_anonymous_post(make_app):
    app, admin, post = sports_day_site(make_app, comment_moderation=False)
    editor = create_test_user(app, "editor")
    browser = admin_sign_in(app, editor)
    _form_element, fields = _form(browser.get("/sports-day/"))

    forged = browser.post("/comment-post", {**fields, "_wpnonce": "not-the-nonce", "content": "Forged words"},
                          status=403)
    assert "nothing was saved" in parse_strict(forged.text).find(".//p[@role='alert']").text
    assert forged.headers["Cache-Control"] == "no-store"
    _again, refilled = _form(forged)
    assert refilled["_wpnonce"] == fields["_wpnonce"]  # the form again, with the session's nonce
    assert _comments(app, admin, post) == []

    without = {key: value for key, value in fields.items() if key != "_wpnonce"}
    anonymous = browser.post("/comment-post", {**without, "content": "Cross-site words"}, status=400)
    assert "author name and email" in anonymous.text  # treated as a visitor, who must give both
    assert _comments(app, admin, post) == []
    browser.post("/comment-post", {**without, "content": "Signed words", "author_name": "Visitor",
                                   "author_email": "visitor@example.org"}, status=303)
    [saved] = _comments(app, admin, post)
    assert saved["author"] == 0 and saved["author_name"] == "Visitor"
