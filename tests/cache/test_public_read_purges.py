"""Each family of public reads over HTTP: a miss, then a hit; a write that changes the answer purges it,
a write that does not leaves it; a signed-in, cookie or password request is neither served from the
cache nor stored in it."""

from __future__ import annotations

import pytest

from host.testing import client_as, create_test_user

REST = "/wp-json/core/v2"
POSTS, CATEGORIES, USERS, COMMENTS = REST + "/posts", REST + "/categories", REST + "/users", REST + "/comments"


def kept(app, url):
    """GET `url` twice: a miss, then the same answer from the cache; the hit."""
    first = app.client.get(url)
    assert first.headers["X-Cache"] == "miss", url
    hit = app.client.get(url)
    assert hit.headers["X-Cache"] == "hit" and hit.body == first.body, url
    return hit


def still_kept(app, url):
    answer = app.client.get(url)
    assert answer.headers["X-Cache"] == "hit", url
    return answer


def purged(app, url):
    answer = app.client.get(url)
    assert answer.headers["X-Cache"] == "miss", url
    return answer


@pytest.fixture
def school(make_app):
    """A site with core and the cache: an administrator, an author, a published post in "News"."""
    app = make_app(plugins=["core", "cache"])
    admin = client_as(app, create_test_user(app, "administrator"))
    author = create_test_user(app, "author")
    admin.post_json(f"{USERS}/{author.id}", {"name": "Ada Teacher"}, status=200)
    news = admin.post_json(CATEGORIES, {"name": "News"}, status=201).json
    post = client_as(app, author).post_json(POSTS, {"title": "Sports day", "status": "publish",
                                                   "categories": [news["id"]]}, status=201).json
    return app, admin, author, news, post


def comment_on(app, post_id: int, writer=None, content: str = "Well done"):
    """An approved comment by `writer` (a moderator's comments are approved at once); a visitor's, held for
    moderation, when None."""
    body = {"post": post_id, "content": content}
    if writer is None:
        return app.client.post_json(COMMENTS, {**body, "author_name": "Parent", "author_email": "parent@school.test"},
                                    extra_environ={"REMOTE_ADDR": "198.51.100.7"}, status=201)
    return writer.post_json(COMMENTS, body, status=201)


def test_an_embed_list_follows_its_author_terms_and_replies(school):
    app, admin, author, news, post = school
    url = POSTS + "?_embed=1"
    embedded = kept(app, url).json[0]["_embedded"]
    assert embedded["author"][0]["name"] == "Ada Teacher" and embedded["wp:term"][0][0]["name"] == "News"

    admin.post_json(f"{USERS}/{author.id}", {"password": "a new password for Ada"}, status=200)  # shows nowhere
    still_kept(app, url)

    admin.post_json(f"{USERS}/{author.id}", {"name": "Ada Lovelace"}, status=200)
    assert purged(app, url).json[0]["_embedded"]["author"][0]["name"] == "Ada Lovelace"

    still_kept(app, url)
    admin.post_json(f"{CATEGORIES}/{news['id']}", {"name": "School news"}, status=200)
    assert purged(app, url).json[0]["_embedded"]["wp:term"][0][0]["name"] == "School news"

    still_kept(app, url)
    comment_on(app, post["id"], admin)
    assert purged(app, url).json[0]["_embedded"]["replies"][0][0]["content"]["rendered"].strip() == "<p>Well done</p>"


def test_a_fields_list_is_left_by_a_comment_and_purged_by_a_title(school):
    app, admin, _author, _news, post = school
    url = POSTS + "?_fields=id,title"
    assert kept(app, url).json == [{"id": post["id"], "title": {"rendered": "Sports day"}}]
    comment_on(app, post["id"], admin)
    still_kept(app, url)
    admin.post_json(f"{POSTS}/{post['id']}", {"title": "Sports day moved"}, status=200)
    assert purged(app, url).json == [{"id": post["id"], "title": {"rendered": "Sports day moved"}}]


def test_the_categories_list_follows_counts_and_names_not_comments(school):
    app, admin, author, news, post = school
    url = CATEGORIES + "?_fields=id,name,count"
    assert {"id": news["id"], "name": "News", "count": 1} in kept(app, url).json
    comment_on(app, post["id"], admin)
    comment_on(app, post["id"], content="Lovely day")
    still_kept(app, url)

    client_as(app, author).post_json(POSTS, {"title": "Concert", "status": "publish", "categories": [news["id"]]},
                                     status=201)
    assert {"id": news["id"], "name": "News", "count": 2} in purged(app, url).json
    still_kept(app, url)
    admin.post_json(f"{CATEGORIES}/{news['id']}", {"name": "School news"}, status=200)
    assert {"id": news["id"], "name": "School news", "count": 2} in purged(app, url).json
    still_kept(app, url)
    admin.delete(f"{POSTS}/{post['id']}", status=200)  # trashed: no longer counted
    assert {"id": news["id"], "name": "School news", "count": 1} in purged(app, url).json


def test_a_category_rename_purges_the_post_lists_and_leaves_the_comments(school):
    app, admin, _author, news, post = school
    comment_on(app, post["id"], admin)
    kept(app, COMMENTS)
    kept(app, POSTS)
    kept(app, f"{CATEGORIES}/{news['id']}")
    admin.post_json(f"{CATEGORIES}/{news['id']}", {"description": "What happens at school"}, status=200)
    still_kept(app, COMMENTS)
    purged(app, POSTS)
    assert purged(app, f"{CATEGORIES}/{news['id']}").json["description"] == "What happens at school"

    comment_on(app, post["id"], admin, content="See you there")
    assert len(purged(app, COMMENTS).json) == 2


def test_search_and_a_single_post_follow_posts_not_comments(school):
    app, admin, author, _news, post = school
    search, single = REST + "/search?search=day", f"{POSTS}/{post['id']}"
    assert [item["title"] for item in kept(app, search).json] == ["Sports day"]
    kept(app, single)
    comment_on(app, post["id"], admin)
    still_kept(app, search)
    still_kept(app, single)
    client_as(app, author).post_json(POSTS, {"title": "Open day", "status": "publish"}, status=201)
    assert sorted(item["title"] for item in purged(app, search).json) == ["Open day", "Sports day"]


@pytest.mark.parametrize("path", [POSTS + "?_embed=1", POSTS + "?_fields=id,title", CATEGORIES, USERS, COMMENTS,
                                  REST + "/search?search=day"])
def test_signed_in_and_cookie_requests_are_neither_served_nor_stored(school, path):
    app, admin, *_ = school
    anonymous = kept(app, path)
    edit = path + ("&" if "?" in path else "?") + "context=edit"  # refused where there is no edit context
    for answer in (admin.get(path), admin.get(path), app.client.get(path, headers={"Cookie": "sitehost_session=x"}),
                   admin.get(edit, expect_errors=True)):
        assert "X-Cache" not in answer.headers, path
    assert still_kept(app, path).body == anonymous.body  # what they were answered was not stored


def test_a_password_protected_post_is_never_kept(school):
    app, admin, *_ = school
    secret = admin.post_json(POSTS, {"title": "Staff room", "content": "The code is 4711", "status": "publish",
                                     "password": "staff"}, status=201).json
    for _attempt in range(2):
        unlocked = app.client.get(f"{POSTS}/{secret['id']}?password=staff")
        assert "X-Cache" not in unlocked.headers and "4711" in unlocked.json["content"]["rendered"]
    locked = kept(app, f"{POSTS}/{secret['id']}")
    assert "4711" not in locked.text and locked.json["content"]["protected"] is True


def test_the_calendar_lists_follow_their_items(make_app):
    app = make_app(plugins=["core", "cache", "calendar"])
    editor = client_as(app, create_test_user(app, "editor"))
    base = "/wp-json/cal/events/v1"
    venue = editor.post_json(base + "/venues", {"venue": "Main hall", "status": "publish"}, status=201).json
    organizer = editor.post_json(base + "/organizers", {"organizer": "PTA", "status": "publish"}, status=201).json
    editor.post_json(base + "/events", {"title": "Concert", "start_date": "2031-03-01 18:00:00",
                                        "end_date": "2031-03-01 20:00:00", "venue": venue["id"],
                                        "organizer": [organizer["id"]], "status": "publish"}, status=201)
    lists = [base + "/events?start_date=2031-01-01", base + "/venues", base + "/organizers",
             f"{base}/venues/{venue['id']}"]
    for url in lists:
        kept(app, url)
    user = create_test_user(app, "subscriber")
    client_as(app, user).post_json(f"{REST}/users/me", {"password": "another long password"}, status=200)
    for url in lists:
        still_kept(app, url)
    editor.post_json(f"{base}/venues/{venue['id']}", {"venue": "New hall"}, status=200)
    assert purged(app, lists[0]).json["events"][0]["venue"]["venue"] == "New hall"
    assert purged(app, f"{base}/venues/{venue['id']}").json["venue"] == "New hall"


def test_the_course_list_follows_its_courses(make_app):
    app = make_app(plugins=["core", "cache", "lms"])
    editor = client_as(app, create_test_user(app, "administrator"))
    course = editor.post_json(REST + "/courses", {"title": "Algebra", "status": "publish"}, status=201).json
    url = REST + "/courses?_fields=id,title"
    assert kept(app, url).json == [{"id": course["id"], "title": {"rendered": "Algebra"}}]
    editor.post_json(f"{REST}/courses/{course['id']}", {"title": "Algebra I"}, status=200)
    assert purged(app, url).json == [{"id": course["id"], "title": {"rendered": "Algebra I"}}]
