"""Comments under posts: approved ones threaded, a form without JavaScript that goes through core's
comment creation (moderation, flood rule, spam check) and answers in place; visitor markup never survives."""

from __future__ import annotations

from .helpers import COMMENTS, POSTS, SITE, parse_strict, sports_day_site


def _form(page_text: str) -> dict:
    form = parse_strict(page_text).find(".//form[@class='comment-form']")
    assert form.get("action") == f"{SITE}/comment-post" and form.get("method") == "post"
    return {field.get("name"): field.get("value") or "" for field in form.iterfind(".//input")}


def test_comments_are_threaded_and_escaped(make_app):
    app, admin, post = sports_day_site(make_app)
    first = app.client.post_json(COMMENTS, {"post": post["id"], "content": "Great <script>alert(1)</script> day",
                                            "author_name": "Sam <b>", "author_email": "sam@example.org"},
                                 headers=admin.headers).json
    app.client.post_json(COMMENTS, {"post": post["id"], "parent": first["id"], "content": "Thanks Sam",
                                    "author_name": "Head", "author_email": "head@example.org"}, headers=admin.headers)
    app.client.post_json(COMMENTS, {"post": post["id"], "content": "Held secret words", "status": "hold",
                                    "author_name": "Pat", "author_email": "pat@example.org"}, headers=admin.headers)
    page = app.client.get("/sports-day/")
    document = parse_strict(page.text)
    top = document.find(f".//ol[@class='comment-list']/li[@id='comment-{first['id']}']")
    assert "".join(top.find(".//span[@class='comment-author']").itertext()) == "Sam"  # core strips the tag
    assert "Great <script>alert(1)</script> day" in "".join(top.find(".//div[@class='comment-content']").itertext())
    assert "<script>alert(1)" not in page.text and "<b>" not in page.text.split('id="comments"')[1]
    assert "".join(top.find("ol/li//div[@class='comment-content']").itertext()).strip() == "Thanks Sam"
    assert "Held secret words" not in page.text
    reply = top.find(".//p[@class='comment-reply']/a").get("href")
    assert reply == f"{SITE}/sports-day/?replytocom={first['id']}#respond"
    assert _form(app.client.get(reply.removeprefix(SITE).split("#")[0]).text)["parent"] == str(first["id"])


def test_form_posts_a_comment_that_shows_or_waits(make_app):
    app, _admin, post = sports_day_site(make_app, comment_previously_approved=False, comment_moderation=False)
    fields = _form(app.client.get("/sports-day/").text)
    fields.update(author_name="Alex", author_email="alex@example.org", content="See you <i>there</i>!")
    done = app.client.post("/comment-post", fields, status=303)
    assert done.headers["Location"].startswith(f"{SITE}/sports-day/?comment=shown#comment-")
    shown = app.client.get("/sports-day/?comment=shown")
    assert "your comment is published below" in shown.text and "See you &lt;i&gt;there&lt;/i&gt;!" in shown.text

    held_app, _admin, _post = sports_day_site(make_app, comment_moderation=True)
    fields = _form(held_app.client.get("/sports-day/").text)
    fields.update(author_name="Alex", author_email="alex@example.org", content="Waiting words")
    held = held_app.client.post("/comment-post", fields, status=303)
    assert held.headers["Location"] == f"{SITE}/sports-day/?comment=held#respond"
    page = held_app.client.get("/sports-day/?comment=held")
    assert "awaiting moderation" in page.text and "Waiting words" not in page.text


def test_refused_comment_shows_the_form_again_with_the_reason(make_app):
    app, _admin, post = sports_day_site(make_app)
    fields = _form(app.client.get("/sports-day/").text)
    fields.update(author_name="", author_email="", content="No name <b>here</b>")
    refused = app.client.post("/comment-post", fields, status=400)
    document = parse_strict(refused.text)
    assert "requires valid author name and email" in document.find(".//p[@role='alert']").text
    assert document.find(".//textarea[@name='content']").text == "No name <b>here</b>"
    assert app.client.get(COMMENTS, {"post": post["id"]}).json == []
    app.client.post("/comment-post", {"post_id": "x", "content": "hi"}, status=400)
    draft = app.client.post_json(POSTS, {"title": "Draft", "status": "draft"}, headers=_admin.headers).json
    app.client.post("/comment-post", {"post_id": draft["id"], "content": "hi", "author_name": "a",
                                      "author_email": "a@example.org"}, status=404)


def test_flood_rule_applies_to_the_form(make_app):
    app, _admin, _post = sports_day_site(make_app, comment_flood=60, comment_moderation=False, comment_previously_approved=False)
    fields = _form(app.client.get("/sports-day/").text)
    fields.update(author_name="Alex", author_email="alex@example.org", content="First")
    app.client.post("/comment-post", fields, status=303)
    fields["content"] = "Second, too soon"
    again = app.client.post("/comment-post", fields, status=400)
    assert "too quickly" in again.text


def test_post_page_follows_each_write_to_what_it_shows(make_app):
    """The page's comments, author, terms and reply links are kept per content version: each write shows at once."""
    app, admin, post = sports_day_site(make_app)
    category = app.client.post_json("/wp-json/core/v2/categories", {"name": "Events"}, headers=admin.headers).json
    app.client.post_json(f"{POSTS}/{post['id']}", {"categories": [category["id"]]}, headers=admin.headers)
    held = app.client.post_json(COMMENTS, {"post": post["id"], "content": "Lovely day", "status": "hold",
                                           "author_name": "Pat", "author_email": "pat@example.org"},
                                headers=admin.headers).json
    before = app.client.get("/sports-day/").text
    assert "Lovely day" not in before and ">Events<" in before and 'class="comment-reply"' not in before

    app.client.post_json(f"{COMMENTS}/{held['id']}", {"status": "approved"}, headers=admin.headers)
    app.client.post_json(f"/wp-json/core/v2/categories/{category['id']}", {"name": "Fixtures"}, headers=admin.headers)
    app.client.post_json(f"/wp-json/core/v2/users/{admin.id}", {"name": "Head Teacher"}, headers=admin.headers)
    after = app.client.get("/sports-day/").text
    assert "Lovely day" in after and ">Fixtures<" in after and ">Head Teacher<" in after
    assert f"replytocom={held['id']}" in after

    app.client.post_json(f"{POSTS}/{post['id']}", {"comment_status": "closed"}, headers=admin.headers)
    closed = app.client.get("/sports-day/").text
    assert "Comments are closed." in closed and "replytocom=" not in closed and "Lovely day" in closed
