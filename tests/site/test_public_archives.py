"""The blog home, category, tag and author archives and search: published posts only, paged."""

from __future__ import annotations

import pytest

from host.testing import create_test_user

from .helpers import PAGES, POSTS, SITE, parse_strict

CATEGORIES = "/wp-json/core/v2/categories"
TAGS = "/wp-json/core/v2/tags"


def _titles(text: str) -> list[str]:
    return ["".join(link.itertext()) for link in parse_strict(text).iterfind(".//ul[@class='entry-list']/li/h2/a")]


@pytest.fixture(params=["", "/%year%/%monthnum%/%postname%/"], ids=["plain", "pretty"])
def school(request, make_app):
    app = make_app(plugins=["core"], site={"permalink_structure": request.param})
    admin = create_test_user(app, "administrator")
    app.client.post_json("/wp-json/core/v2/settings", {"posts_per_page": 2}, headers=admin.headers)
    sport = app.client.post_json(CATEGORIES, {"name": "Sport"}, headers=admin.headers).json
    summer = app.client.post_json(TAGS, {"name": "summer"}, headers=admin.headers).json
    for day in range(1, 6):
        app.client.post_json(POSTS, {"title": f"News {day}", "status": "publish", "date": f"2026-03-0{day}T10:00:00",
                                     "categories": [sport["id"]] if day % 2 else [], "tags": [summer["id"]] if day > 3 else [],
                                     "content": f"<p>Story number {day} about the river.</p>"}, headers=admin.headers)
    app.client.post_json(POSTS, {"title": "Secret draft", "status": "draft", "categories": [sport["id"]],
                                 "content": "<p>the river</p>"}, headers=admin.headers)
    app.client.post_json(POSTS, {"title": "Staff private", "status": "private", "content": "<p>the river</p>"},
                         headers=admin.headers)
    app.client.post_json(PAGES, {"title": "River trips", "status": "publish"}, headers=admin.headers)
    return app, admin, sport, summer


def test_home_pages_through_published_posts(school):
    app, *_ = school
    first = app.client.get("/")
    assert _titles(first.text) == ["News 5", "News 4"]
    older = parse_strict(first.text).find(".//nav[@class='pagination']/a[@rel='next']").get("href")
    pretty = bool(app.settings.site["permalink_structure"])
    assert older == (f"{SITE}/page/2/" if pretty else f"{SITE}/?paged=2")
    assert _titles(app.client.get(older.removeprefix(SITE)).text) == ["News 3", "News 2"]
    last = app.client.get("/?paged=3").text
    assert _titles(last) == ["News 1"] and "Secret draft" not in last and "Staff private" not in last
    app.client.get("/?paged=4", status=404)
    app.client.get("/?paged=0", status=404)
    app.client.get("/?paged=abc", status=404)


def test_category_tag_and_author_archives(school):
    app, admin, sport, summer = school
    category = app.client.get(f"{CATEGORIES}/{sport['id']}").json["link"]
    page = app.client.get(category.removeprefix(SITE))
    assert parse_strict(page.text).find(".//main/h1").text == "Category: Sport"
    assert _titles(page.text) == ["News 5", "News 3"] and "Secret draft" not in page.text
    tag = app.client.get(f"{TAGS}/{summer['id']}").json["link"]
    assert _titles(app.client.get(tag.removeprefix(SITE)).text) == ["News 5", "News 4"]
    author = app.client.get(f"/wp-json/core/v2/users/{admin.id}").json["link"]
    archive = app.client.get(author.removeprefix(SITE))
    assert archive.status_int == 200 and _titles(archive.text) == ["News 5", "News 4"]
    writer = create_test_user(app, "author")  # nothing published: no archive, no name shown
    slug = app.client.get("/wp-json/core/v2/users/me", headers=writer.headers).json["slug"]
    app.client.get(f"/author/{slug}/", status=404)
    app.client.get("/?cat=999999", status=404)
    app.client.get("/?tag=nothing", status=404)


def test_search_finds_published_posts_and_pages(school):
    app, *_ = school
    found = app.client.get("/?s=river")
    document = parse_strict(found.text)
    assert document.find(".//form[@role='search']//input[@name='s']").get("value") == "river"
    assert len(_titles(found.text)) == 2  # a page of the merged posts and pages
    assert "Secret draft" not in found.text and "Staff private" not in found.text
    everything = _titles(found.text) + _titles(app.client.get("/?s=river&paged=2").text) + \
        _titles(app.client.get("/?s=river&paged=3").text)
    assert sorted(everything) == ["News 1", "News 2", "News 3", "News 4", "News 5", "River trips"]
    empty = app.client.get("/?s=<b>zebra</b>")
    assert "Nothing matched your search." in empty.text and "<b>zebra</b>" not in empty.text
    parse_strict(empty.text)
    app.client.get("/?s=" + "x" * 201, status=400)


def test_other_queries_are_left_to_other_plugins(school):
    app, *_ = school
    assert "News 5" not in app.client.get("/?lunch=today").text  # not a list: the host's front page
