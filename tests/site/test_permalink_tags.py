"""The `%category%` and `%author%` permalink tags: links made with them open the post, plain links
redirect to them, and a wrong segment behaves as WordPress's redirect_canonical makes it (301 to the
permalink, or 404 when nothing else names the post)."""

from __future__ import annotations

import pytest

from host.testing import create_test_user

from .helpers import POSTS, SITE, parse_strict

CATEGORIES = "/wp-json/core/v2/categories"


def _site(make_app, structure: str):
    app = make_app(plugins=["core"], site={"permalink_structure": structure})
    return app, create_test_user(app, "administrator", login="j.smith")


def _post(app, admin, **fields):
    fields = {"status": "publish", "date": "2026-03-14T09:30:00", **fields}
    return app.client.post_json(POSTS, fields, headers=admin.headers, status=201).json


def _category(app, admin, name: str, parent: int = 0) -> dict:
    return app.client.post_json(CATEGORIES, {"name": name, "parent": parent}, headers=admin.headers, status=201).json


def _nicename(app, admin, user_id: int) -> str:
    return app.client.get(f"/wp-json/core/v2/users/{user_id}", headers=admin.headers).json["slug"]


def _opens(app, link: str, title: str):
    page = app.client.get(link.removeprefix(SITE), status=200)
    assert parse_strict(page.text).find(".//main/h1").text == title
    return page


def test_category_tag_is_the_first_categorys_path_with_its_parents(make_app):
    """The lowest category id wins (WordPress sorts by term_id); a child category brings its parents."""
    app, admin = _site(make_app, "/%category%/%postname%/")
    news = _category(app, admin, "News")
    sport = _category(app, admin, "Sport", parent=news["id"])
    later = _category(app, admin, "Trips")
    post = _post(app, admin, title="Sports day", slug="sports-day", categories=[later["id"], sport["id"]])
    assert post["link"] == f"{SITE}/news/sport/sports-day/"
    edit = app.client.get(f"{POSTS}/{post['id']}", {"context": "edit"}, headers=admin.headers).json
    assert edit["permalink_template"] == f"{SITE}/news/sport/%postname%/"
    page = _opens(app, post["link"], "Sports day")
    assert f'<link rel="canonical" href="{post["link"]}">' in page.text
    assert app.client.get(f"/?p={post['id']}", status=301).headers["Location"] == post["link"]


def test_category_tag_of_a_post_without_categories_is_the_default_category(make_app):
    app, admin = _site(make_app, "/%category%/%postname%/")
    post = _post(app, admin, title="Open evening", slug="open-evening")
    assert post["link"] == f"{SITE}/uncategorized/open-evening/"
    _opens(app, post["link"], "Open evening")
    notices = _category(app, admin, "Notices")
    app.client.post_json("/wp-json/core/v2/settings", {"default_category": notices["id"]}, headers=admin.headers)
    # a post the default category was taken from (its category deleted) shows the new default
    app.client.delete(f"{CATEGORIES}/1", {"force": "true"}, headers=admin.headers, expect_errors=True)
    bare = _post(app, admin, title="Bare", slug="bare", categories=[notices["id"]])
    assert bare["link"] == f"{SITE}/notices/bare/"


def test_a_wrong_category_moves_to_the_permalink_and_another_of_its_categories_shows_it(make_app):
    """WordPress's redirect_canonical: a category the post is in shows it (canonical link: the permalink);
    one it is not in, a missing one, or a child without its parents answers 301 to the permalink."""
    app, admin = _site(make_app, "/%category%/%postname%/")
    news = _category(app, admin, "News")
    sport = _category(app, admin, "Sport", parent=news["id"])
    trips = _category(app, admin, "Trips")
    _category(app, admin, "Clubs")
    post = _post(app, admin, title="Sports day", slug="sports-day", categories=[sport["id"], trips["id"]])
    assert post["link"] == f"{SITE}/news/sport/sports-day/"
    also = _opens(app, f"{SITE}/trips/sports-day/", "Sports day")
    assert f'<link rel="canonical" href="{post["link"]}">' in also.text
    for wrong in ("/clubs/sports-day/", "/no-such-category/sports-day/", "/sport/sports-day/", "/news/sports-day/",
                  "/a/b/c/sports-day/"):
        moved = app.client.get(wrong, status=301)
        assert moved.headers["Location"] == post["link"], wrong
    app.client.get("/news/sport/no-such-post/", status=404)


@pytest.mark.parametrize("structure, wrong_author", [("/%author%/%postname%/", 301), ("/%author%/%post_id%/", 404)])
def test_author_tag_is_the_authors_nicename(make_app, structure, wrong_author):
    """Another author's nicename: WordPress's query finds nothing, then its guess by the post's name moves
    to the permalink (301); with only `%post_id%` there is no name to guess by (404)."""
    app, admin = _site(make_app, structure)
    nicename = _nicename(app, admin, admin.id)
    post = _post(app, admin, title="Sports day secret", slug="sports-day")
    tail = "sports-day" if "%postname%" in structure else str(post["id"])
    assert post["link"] == f"{SITE}/{nicename}/{tail}/"
    _opens(app, post["link"], "Sports day secret")
    assert app.client.get(f"/?p={post['id']}", status=301).headers["Location"] == post["link"]
    other = create_test_user(app, "author")
    for author in (_nicename(app, admin, other.id), "nobody"):
        answer = app.client.get(f"/{author}/{tail}/", status=wrong_author)
        if wrong_author == 301:
            assert answer.headers["Location"] == post["link"]
        else:
            assert "Sports day secret" not in answer.text


def test_every_tag_together_builds_and_resolves(make_app):
    app, admin = _site(make_app, "/%category%/%author%/%year%/%monthnum%/%day%/%hour%%minute%%second%/"
                                 "%post_id%-%postname%/")
    nicename = _nicename(app, admin, admin.id)
    clubs = _category(app, admin, "Clubs")
    post = _post(app, admin, title="Chess club", slug="chess-club", categories=[clubs["id"]])
    assert post["link"] == f"{SITE}/clubs/{nicename}/2026/03/14/093000/{post['id']}-chess-club/"
    _opens(app, post["link"], "Chess club")


def test_drafts_and_private_posts_keep_plain_links_and_their_pretty_paths_answer_404(make_app):
    app, admin = _site(make_app, "/%category%/%author%/%postname%/")
    nicename = _nicename(app, admin, admin.id)
    for status in ("draft", "private"):
        item = _post(app, admin, title=f"Hidden {status} post", slug=f"hidden-{status}", status=status)
        assert "?" in item["link"]
        answer = app.client.get(f"/uncategorized/{nicename}/hidden-{status}/", status=404)
        assert f"Hidden {status} post" not in answer.text

