"""Every link the REST API hands out opens a page: on the demo site with every plugin, under a date-based
and a category-and-author permalink structure, walk the collection of each public post type and each
taxonomy (from the registry) and the users, follow each item's `link` (attachments' pretty links among
them), and expect 200; a draft, a private and a trashed item, the files attached to the unpublished ones
and the course announcements (not public) answer 404 without their titles."""

from __future__ import annotations

import pytest

from host.testing import create_test_user
from tests.builder.helpers import png_bytes

from .helpers import POSTS, SITE, parse_strict

MEDIA = "/wp-json/core/v2/media"
CATEGORIES = "/wp-json/core/v2/categories"
ANNOUNCEMENTS = "/wp-json/core/v2/course-announcements"

# Types or taxonomies whose pages another helper builds on a branch not merged yet, whose links may
# 404 meanwhile (name -> reason). Empty: on main every walked link of every plugin answers 200.
PAGES_BUILT_ELSEWHERE: dict[str, str] = {}


STRUCTURES = ["/%year%/%monthnum%/%postname%/", "/%category%/%author%/%postname%/"]


@pytest.fixture(scope="module", params=STRUCTURES)
def demo(make_module_app, request):
    app = make_module_app(site={"permalink_structure": request.param})
    assert app.install_site(demo=True)
    return app


def _collections(app) -> list[tuple[str, str]]:
    """(registered name, REST collection path) of every public post type and every taxonomy with a route."""
    index = app.client.get("/wp-json/").json["routes"]
    found = []
    for name, (post_type, _owner) in app.registry.post_types.items():
        path = f"/core/v2/{post_type.rest_base or name}"
        if post_type.public and path in index:
            found.append((name, path))
    for name, (taxonomy, _owner) in app.registry.taxonomies.items():
        path = f"/core/v2/{taxonomy.rest_base or name}"
        if path in index:
            found.append((name, path))
    return found + [("user", "/core/v2/users")]


def _follow(app, link: str, hops: int = 3):
    """GET the link, following the site's own redirects (a topic's link moves to its course's section)."""
    response = app.client.get(link.removeprefix(SITE), expect_errors=True)
    while response.status_int in (301, 302, 303, 307, 308) and hops > 0:
        target = response.headers["Location"]
        assert target.startswith(SITE), target  # never sends a visitor off the site
        response = app.client.get(target.split("#", 1)[0].removeprefix(SITE), expect_errors=True)
        hops -= 1
    return response


def test_every_public_link_opens_a_page(demo):
    collections = _collections(demo)
    assert {"post", "page", "attachment", "category", "post_tag", "user"} <= {name for name, _path in collections}
    broken, walked = [], 0
    for name, path in collections:
        items = demo.client.get(f"/wp-json{path}", {"per_page": 100}).json
        for item in items:
            link = item.get("link") or item.get("url")
            if not link or (name in ("category", "post_tag") and item.get("count") == 0):
                continue  # an empty term has no archive page, as in WordPress
            assert link.startswith(SITE), link
            response = _follow(demo, link)
            walked += 1
            if response.status_int != 200 and name not in PAGES_BUILT_ELSEWHERE:
                broken.append((name, link, response.status_int))
            elif response.status_int == 200 and response.content_type == "text/html":
                parse_strict(response.text)
    assert walked > 20 and broken == []


def test_every_search_result_url_opens_a_page(demo):
    """core/v2/search answers each item's permalink as its `url` (a page's, a course's, a lesson's)."""
    results = demo.client.get("/wp-json/core/v2/search", {"per_page": 100}).json
    assert {"post", "page", "lms_course", "lms_lesson"} <= {result["subtype"] for result in results}
    broken = [(result["url"], status) for result in results
              if (status := _follow(demo, result["url"]).status_int) != 200]
    assert broken == []


def test_links_follow_the_structure_and_attachments_have_pretty_links(demo):
    """Posts' links are made of the structure's tags; every attachment of something published (or of
    nothing) has a pretty link, and the walk above opened each."""
    structure = demo.settings.site["permalink_structure"]
    posts = demo.client.get(POSTS, {"per_page": 100}).json
    assert posts and all("?" not in post["link"] for post in posts)
    if "%category%" in structure:
        categories = {term["id"]: term for term in demo.client.get(CATEGORIES, {"per_page": 100}).json}

        def path(term_id: int) -> str:  # a child category's path starts with its parents'
            term = categories[term_id]
            return (path(term["parent"]) + "/" if term["parent"] else "") + term["slug"]

        for post in posts:
            assert post["link"].startswith(f"{SITE}/{path(min(post['categories']))}/"), post["link"]
    media = demo.client.get(MEDIA, {"per_page": 100}).json
    assert media and all("?" not in item["link"] for item in media), [item["link"] for item in media]


def test_announcements_are_not_walked_as_public_and_answer_404(demo):
    """A course announcement is for its course's learners: no public page, whoever follows its link."""
    assert "lms_announcement" not in {name for name, _path in _collections(demo)}
    admin = create_test_user(demo, "administrator")
    notices = demo.client.get(ANNOUNCEMENTS, {"per_page": 100}, headers=admin.headers).json
    assert notices
    for notice in notices:
        answer = demo.client.get(notice["link"].removeprefix(SITE), status=404)
        assert notice["title"]["rendered"] not in answer.text


def test_items_nobody_may_read_answer_404_without_their_title(demo):
    admin = create_test_user(demo, "administrator")
    made = [demo.client.post_json(POSTS, {"title": f"Walk {status} secret", "status": status}, headers=admin.headers).json
            for status in ("draft", "private")]
    trashed = demo.client.post_json(POSTS, {"title": "Walk trashed secret", "status": "publish", "slug": "walk-trashed"},
                                    headers=admin.headers).json
    pretty = trashed["link"]
    demo.client.delete(f"{POSTS}/{trashed['id']}", headers=admin.headers)
    for item in made + [trashed]:
        for link in {item["link"], pretty}:
            response = demo.client.get(link.removeprefix(SITE), status=404)
            assert item["title"]["raw"] not in response.text
    for item in made:  # the files of an unpublished post keep plain links, which open nothing
        upload = demo.client.post(MEDIA, {"post": str(item["id"]), "title": f"File of {item['title']['raw']}"},
                                  upload_files=[("file", "secret.png", png_bytes(), "image/png")],
                                  headers=admin.headers, status=201).json
        assert "?attachment_id=" in upload["link"]
        response = demo.client.get(upload["link"].removeprefix(SITE), status=404)
        assert upload["title"]["raw"] not in response.text
