"""The comments page of the admin area (WebTest): the moderation queue, its filters, counts, search and pages,
every action and its refusals, the menu's pending count, and the mail to moderators when a comment is held."""

from __future__ import annotations

import pytest

from host.testing import create_test_user
from tests.admin.helpers import form_with, sign_in
from tests.core.helpers import API
from tests.spam.helpers import flush, rows

COMMENTS = f"{API}/comments"


def visitor(app, post, text, name="Priya Shah", email="priya@example.org", address="10.0.0.1", status=201):
    return app.client.post_json(COMMENTS, {"post": post["id"], "content": text, "author_name": name,
                                           "author_email": email}, extra_environ={"REMOTE_ADDR": address},
                                status=status).json


def comment_status(app, admin, comment_id) -> str:
    return app.client.get(f"{COMMENTS}/{comment_id}", {"context": "edit"}, headers=admin.headers).json["status"]


def listed_ids(page) -> list[int]:
    return [int(row["id"].removeprefix("comment-")) for row in page.html.select("main tbody tr")]


@pytest.fixture
def school(make_app):
    app = make_app(plugins=["core"], site={"comment_flood": 0}, extra={"auth": {"slow_seconds": 0}})
    admin = create_test_user(app, "administrator")
    author = create_test_user(app, "author")
    post = app.client.post_json(f"{API}/posts", {"title": "Sports day", "status": "publish"},
                                headers=author.headers, status=201).json
    return app, admin, author, post


def test_the_queue_lists_each_status_with_counts_search_and_pages(school):
    app, admin, _author, post = school
    held = [visitor(app, post, f"Question number {n} about the day", name=f"Parent {n}", email=f"p{n}@example.org")
            for n in range(3)]
    app.client.post_json(f"{COMMENTS}/{held[0]['id']}", {"status": "approved"}, headers=admin.headers)
    app.client.post_json(f"{COMMENTS}/{held[1]['id']}", {"status": "spam"}, headers=admin.headers)
    client = sign_in(app, admin)
    page = client.get("/admin/comments")
    counts = {link.text.split(" (")[0]: link.select_one(".muted").text
              for link in page.html.select("ul.filters a")}
    assert counts == {"All": "(2)", "Pending": "(1)", "Approved": "(1)", "Spam": "(1)", "Trash": "(0)"}
    assert sorted(listed_ids(page)) == sorted([held[0]["id"], held[2]["id"]])
    assert listed_ids(client.get("/admin/comments?status=hold")) == [held[2]["id"]]
    assert listed_ids(client.get("/admin/comments?status=approved")) == [held[0]["id"]]
    assert listed_ids(client.get("/admin/comments?status=spam")) == [held[1]["id"]]
    assert listed_ids(client.get("/admin/comments?status=trash")) == []
    assert "No comments in this list" in client.get("/admin/comments?status=trash").text
    found = client.get("/admin/comments", {"s": "number 2"})
    assert listed_ids(found) == [held[2]["id"]] and "1 comment (matching" in found.text
    row = found.html.select_one("main tbody tr")
    assert row.select_one("[data-label=Author]").text.count("p2@example.org") == 1
    assert row.select_one("[data-label='In response to'] a").text == "Sports day"
    assert all(cell.has_attr("data-label") for cell in found.html.select("main tbody td"))


def test_pages_of_twenty_and_bad_filters_are_refused_with_a_message(school):
    app, admin, _author, post = school
    for n in range(21):
        visitor(app, post, f"Comment {n}", name=f"P{n}", email=f"p{n}@example.org", address=f"10.0.1.{n}")
    client = sign_in(app, admin)
    first = client.get("/admin/comments?status=hold")
    assert len(listed_ids(first)) == 20 and "Page 1 of 2" in first.text
    second = client.get(first.html.select_one("a[rel=next]")["href"])
    assert len(listed_ids(second)) == 1 and "Page 2 of 2" in second.text
    assert client.get("/admin/comments?status=nonsense", status=400).html.select_one(".notice.error")
    assert "whole number" in client.get("/admin/comments?paged=0", status=400).text
    assert "at most 200" in client.get("/admin/comments", {"s": "x" * 201}, status=400).text
    assert client.get("/admin/comments?paged=9", status=400).html.select_one(".notice.error")


def test_each_action_moves_a_comment_and_says_so(school):
    app, admin, _author, post = school
    comment = visitor(app, post, "Is there parking at the field?")
    client = sign_in(app, admin)
    steps = [("hold", "approve", "approved"), ("approved", "unapprove", "hold"), ("hold", "spam", "spam"),
             ("spam", "not-spam", "hold"), ("hold", "trash", "trash"), ("trash", "restore", "hold")]
    for listed, action, after in steps:
        page = client.get(f"/admin/comments?status={listed}")
        answer = form_with(page, action, _match={"id": str(comment["id"])}).submit()
        assert answer.status_int == 200, answer.text
        assert f"Comment {comment['id']}" in answer.html.select_one(".notice[role=status]").text
        assert comment_status(app, admin, comment["id"]) == after
        assert answer.request.url.endswith(f"status={listed}")  # the list the action was taken from stays


def test_refused_actions_change_nothing(school):
    app, admin, _author, post = school
    comment = visitor(app, post, "Will there be a cake stall?")
    client = sign_in(app, admin)
    page = client.get("/admin/comments")
    form = form_with(page, "approve", _match={"id": str(comment["id"])})
    form["action"].force_value("not-spam")  # not in spam: does not apply
    refused = form.submit(status=409)
    assert "does not apply" in refused.text and comment_status(app, admin, comment["id"]) == "hold"
    form["action"].force_value("restore")
    form.submit(status=409)
    form["action"].force_value("approve")
    form["id"].force_value("99999")
    assert "Invalid comment ID" in form.submit(status=404).text
    form["id"].force_value("abc")
    assert "No comment was named" in form.submit(status=400).text
    assert comment_status(app, admin, comment["id"]) == "hold"


def test_a_reply_is_published_as_the_signed_in_user_and_approves_a_held_parent(school):
    app, admin, _author, post = school
    comment = visitor(app, post, "Do children need a packed lunch?")
    client = sign_in(app, admin)
    page = client.get("/admin/comments")
    empty = form_with(page, "reply", _match={"id": str(comment["id"])}, content="   ").submit(status=400)
    assert empty.html.select_one(f"#field-content-{comment['id']}-error").text == "Write the reply first."
    assert empty.html.select_one(f"#field-content-{comment['id']}")["aria-invalid"] == "true"
    assert len(app.client.get(COMMENTS, {"status": "all"}, headers=admin.headers).json) == 1  # nothing made
    answer = form_with(empty, "reply", _match={"id": str(comment["id"])},
                       content="Yes, please bring one.").submit()
    assert "Your reply to comment" in answer.text
    replies = app.client.get(COMMENTS, {"parent": comment["id"], "context": "edit"}, headers=admin.headers).json
    assert [(reply["author"], reply["status"], reply["content"]["raw"]) for reply in replies] == [
        (admin.id, "approved", "Yes, please bring one.")]
    assert comment_status(app, admin, comment["id"]) == "approved"


def test_bulk_actions_change_every_ticked_comment(school):
    app, admin, _author, post = school
    made = [visitor(app, post, f"Bulk {n}", name=f"B{n}", email=f"b{n}@example.org") for n in range(3)]
    client = sign_in(app, admin)
    page = client.get("/admin/comments?status=hold")
    form = page.forms["bulk-form"]
    unchosen = form.submit(status=400)
    assert unchosen.html.select_one("#field-bulk_action-error")
    for box in page.html.select("input[name=ids]"):
        assert box["form"] == "bulk-form"
    answer = client.post(page.html.select_one("#bulk-form")["action"], [
        ("csrf_token", form["csrf_token"].value), ("action", "bulk"), ("bulk_action", "spam"),
        ("ids", str(made[0]["id"])), ("ids", str(made[1]["id"]))])
    assert "2 comments marked as spam" in answer.text
    assert [comment_status(app, admin, item["id"]) for item in made] == ["spam", "spam", "hold"]
    nothing = client.post("/admin/comments", [("csrf_token", form["csrf_token"].value), ("action", "bulk"),
                                               ("bulk_action", "trash")], status=400)
    assert "Tick the comments" in nothing.text


def test_the_menu_shows_the_pending_count_to_moderators_only(school):
    app, admin, author, post = school
    client = sign_in(app, admin)
    link = client.get("/admin/").html.select_one("nav[aria-label=Admin] a[href='/admin/comments']")
    assert link.text.strip() == "Comments" and not link.has_attr("aria-label")  # nothing pending: no count
    for n in range(3):
        visitor(app, post, f"Pending {n}", name=f"Q{n}", email=f"q{n}@example.org")
    link = client.get("/admin/").html.select_one("nav[aria-label=Admin] a[href='/admin/comments']")
    assert link["aria-label"] == "Comments, 3 pending"
    assert link.select_one(".menu-count").text == "3" and link.select_one(".menu-count")["aria-hidden"] == "true"
    author_menu = sign_in(app, author).get("/admin/profile").html.select_one("nav[aria-label=Admin]")
    assert author_menu.select_one("a[href='/admin/comments']") is None
    sign_in(app, author).get("/admin/comments", status=403)


def test_a_comments_own_page_asks_before_the_action_a_mail_links_to(school):
    app, admin, _author, post = school
    comment = visitor(app, post, "Where do we collect the children?")
    client = sign_in(app, admin)
    page = client.get(f"/admin/comments/{comment['id']}?confirm=spam")
    assert "You are about to spam this comment" in page.text
    answer = form_with(page, "spam").submit()
    assert answer.status_int == 200 and comment_status(app, admin, comment["id"]) == "spam"
    assert "Not spam" in answer.text
    assert client.get("/admin/comments/99999", status=404).html.select_one(".notice.error")
    client.get("/admin/comments/abc", status=404)


def test_not_spam_teaches_the_spam_filter(make_app):
    app = make_app(plugins=["core", "spam"], site={"comment_flood": 0}, extra={"auth": {"slow_seconds": 0}})
    admin = create_test_user(app, "administrator")
    post = app.client.post_json(f"{API}/posts", {"title": "Fair", "status": "publish"}, headers=admin.headers,
                                status=201).json
    links = " ".join(f"http://shop{number}.example/deal" for number in range(6))
    comment = visitor(app, post, f"Links to our fair stalls {links}")
    assert comment["status"] == "spam"
    client = sign_in(app, admin)
    form_with(client.get("/admin/comments?status=spam"), "not-spam", _match={"id": str(comment["id"])}).submit()
    flush(app)
    check = next(row for row in rows(app, "spam_checks") if row["guid"])
    assert (check["label"], check["reversed"], check["trained"]) == ("ham", "false_positive", "ham")
    assert rows(app, "spam_history")[-1]["event"] == "report-ham"
    assert rows(app, "spam_history")[-1]["actor"] == str(admin.id)


# --- the mail to moderators --------------------------------------------------------------------------

def test_a_held_comment_mails_the_admin_address_and_the_posts_author(make_app, smtp_server):
    app = make_app(plugins=["core"], site={"comment_flood": 0, "name": "Riverside School"},
                   mail=smtp_server.mail_settings())
    admin = create_test_user(app, "administrator")
    author = create_test_user(app, "author")
    app.client.post_json(f"{API}/settings", {"email": "office@riverside.example"}, headers=admin.headers, status=200)
    post = app.client.post_json(f"{API}/posts", {"title": "Sports day", "status": "publish"},
                                headers=author.headers, status=201).json
    comment = visitor(app, post, "Is the cafe open?\nThanks!", address="203.0.113.5")
    assert app.mail.deliver_pending() == 1
    message = smtp_server.wait_for(1)[0]
    assert sorted(smtp_server.envelopes[0][1]) == sorted(["office@riverside.example", author.email])
    assert message["Subject"] == '[Riverside School] Please moderate: "Sports day"'
    text = message.get_content().replace("\r\n", "\n")
    site = app.site_address().rstrip("/")
    for expected in ("A new comment on the post \"Sports day\" is waiting for your approval",
                     f"?p={post['id']}#comment-{comment['id']}", "Author: Priya Shah (IP address: 203.0.113.5)",
                     "Email: priya@example.org", "Is the cafe open?\nThanks!",
                     f"Approve it: {site}/admin/comments/{comment['id']}?confirm=approve",
                     f"Trash it: {site}/admin/comments/{comment['id']}?confirm=trash",
                     f"Spam it: {site}/admin/comments/{comment['id']}?confirm=spam",
                     "Currently 1 comment is waiting for approval", f"{site}/admin/comments?status=hold"):
        assert expected in text, expected


def test_no_mail_for_approved_comments_or_with_the_setting_off(make_app, smtp_server):
    app = make_app(plugins=["core"], site={"comment_flood": 0}, mail=smtp_server.mail_settings())
    admin = create_test_user(app, "administrator")
    post = app.client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"}, headers=admin.headers,
                                status=201).json
    settings = app.client.get(f"{API}/settings", headers=admin.headers).json
    assert settings["moderation_notify"] is True  # WordPress's default: on
    app.client.post_json(COMMENTS, {"post": post["id"], "content": "Approved at once"}, headers=admin.headers)
    assert app.mail.deliver_pending() == 0
    app.client.post_json(f"{API}/settings", {"moderation_notify": False}, headers=admin.headers, status=200)
    assert visitor(app, post, "Held, but nobody is told")["status"] == "hold"
    assert app.mail.deliver_pending() == 0
    app.client.post_json(f"{API}/settings", {"moderation_notify": None}, headers=admin.headers, status=200)
    visitor(app, post, "Held, and the first administrator is told", address="10.0.0.7")
    assert app.mail.deliver_pending() == 1
    assert smtp_server.wait_for(1) and smtp_server.envelopes[0][1] == [admin.email]


def test_the_settings_page_offers_the_moderation_mail(school):
    app, admin, _author, _post = school
    client = sign_in(app, admin)
    page = client.get("/admin/settings")
    box = page.html.select_one("#field-moderation_notify")
    assert box["type"] == "checkbox" and box.has_attr("checked")
    assert page.html.select_one("label[for=field-moderation_notify]").text == \
        "Email me whenever a comment is held for moderation"
    form = form_with(page, "save")
    form["moderation_notify"] = False
    form.submit()
    assert app.client.get(f"{API}/settings", headers=admin.headers).json["moderation_notify"] is False
