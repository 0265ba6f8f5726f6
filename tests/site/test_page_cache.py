"""Core's public pages through the response cache: an anonymous visitor's second GET is a hit
(`X-Cache: hit`), every write that changes what a page shows purges it before the write's answer
goes out, and nothing per-visitor (a signed-in user, a post password, any cookie) is served from the
cache or kept for the next visitor; a draft's title never reaches a cached page."""

from __future__ import annotations

import pytest
from webtest import TestApp

from host.testing import create_test_user

from .helpers import PAGES, POSTS, SITE, parse_strict

CATEGORIES = "/wp-json/core/v2/categories"
TAGS = "/wp-json/core/v2/tags"
COMMENTS = "/wp-json/core/v2/comments"
SETTINGS = "/wp-json/core/v2/settings"
DRAFT_TITLE = "Unannounced head teacher"


@pytest.fixture(params=["", "/%year%/%monthnum%/%postname%/"], ids=["plain", "pretty"])
def school(request, make_app):
    """A site with the cache plugin, one published post with a category, a tag and an approved comment."""
    app = make_app(plugins=["core", "cache"], site={
        "permalink_structure": request.param, "comment_flood": 0, "comment_moderation": False,
        "comment_previously_approved": False})
    admin = create_test_user(app, "administrator")
    sport = app.client.post_json(CATEGORIES, {"name": "Sport"}, headers=admin.headers).json
    summer = app.client.post_json(TAGS, {"name": "summer"}, headers=admin.headers).json
    post = app.client.post_json(POSTS, {"title": "Sports day", "status": "publish", "date": "2026-03-14T09:30:00",
                                        "content": "<p>Races on the river field.</p>", "categories": [sport["id"]],
                                        "tags": [summer["id"]]}, headers=admin.headers).json
    comment = app.client.post_json(COMMENTS, {"post": post["id"], "content": "Well run, everyone",
                                              "author_name": "Sam", "author_email": "sam@example.org"},
                                   headers=admin.headers).json
    return {"app": app, "admin": admin, "post": post, "sport": sport, "summer": summer, "comment": comment}


def _path(link: str) -> str:
    assert link.startswith(SITE)
    return link.removeprefix(SITE)


def _addresses(school) -> dict[str, str]:
    """One address of each page family core serves, as the site links to it."""
    app, post, sport, summer = school["app"], school["post"], school["sport"], school["summer"]
    author = app.client.get(f"/wp-json/core/v2/users/{post['author']}").json
    return {"post": _path(post["link"]), "home": "/", "category": _path(sport["link"]), "tag": _path(summer["link"]),
            "author": _path(author["link"]), "search": "/?s=river"}


def _warmed(school) -> dict[str, str]:
    """Every page family's address, each requested twice so the cache holds it."""
    addresses = _addresses(school)
    for path in addresses.values():
        _miss_then_hit(school["app"].client, path)
    return addresses


def _miss_then_hit(client, path: str, **headers):
    """The first anonymous GET builds the page (no X-Cache), the second comes from the cache."""
    first = client.get(path, headers=headers)
    assert first.status_int == 200 and "X-Cache" not in first.headers, path
    second = client.get(path, headers=headers)
    assert second.headers.get("X-Cache") == "hit" and second.body == first.body, path
    return second


def test_every_page_family_is_a_miss_then_a_hit(school):
    app = school["app"]
    for family, path in _addresses(school).items():
        hit = _miss_then_hit(app.client, path)
        assert "Sports day" in hit.text, family
        assert hit.headers["Content-Type"].startswith("text/html")
        assert {part.strip() for part in hit.headers["Vary"].split(",")} >= {"Accept-Encoding", "Cookie", "Authorization"}
        app.client.get(path, headers={"If-None-Match": hit.headers["ETag"]}, status=304)
    single = app.client.get(_addresses(school)["post"])
    assert single.headers["Link"].startswith(f'<{SITE}/wp-json/core/v2/posts/{school["post"]["id"]}>')  # kept with the page


def test_a_hit_carries_the_headers_of_the_page_it_kept(school):
    """A hit is answered before bottle routes it: it must say what the built page said (the discovery Link,
    the security headers, validators, Vary), with its own Content-Length, and the gzip form its own ETag."""
    app = school["app"]
    for family, path in _addresses(school).items():
        built = app.client.get(path)
        hit = app.client.get(path)
        assert hit.headers["X-Cache"] == "hit" and hit.body == built.body, family
        for name in ("Content-Type", "Link", "Vary", "ETag", "Last-Modified", "Content-Security-Policy",
                     "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy"):
            assert hit.headers[name] == built.headers[name], (family, name)
        assert [value for name, value in hit.headerlist if name == "Link"] \
            == [value for name, value in built.headerlist if name == "Link"][-1:], family  # (bottle keeps the last)
        assert int(hit.headers["Content-Length"]) == len(hit.body)
        zipped = app.client.get(path, headers={"Accept-Encoding": "gzip"})  # gzip kept when worth it (host.compression)
        assert zipped.headers["X-Cache"] == "hit" and int(zipped.headers["Content-Length"]) == len(zipped.body)
        # A page kept with its gzip form sends that form, under its own tag; one kept without it (an HTML page
        # that never named its Content-Type) sends the plain form under the built tag. WebTest decodes a gzip
        # body and drops its Content-Encoding, so the body is the built page's either way.
        assert zipped.body == built.body, family
        assert zipped.headers["ETag"] in (built.headers["ETag"], built.headers["ETag"][:-1] + '-gzip"'), family


def test_a_page_that_is_not_found_is_never_kept(school):
    app = school["app"]
    for _attempt in range(2):
        missing = app.client.get("/no-such-page/", status=404)
        assert "X-Cache" not in missing.headers and "ETag" not in missing.headers


def test_editing_the_post_purges_every_page_that_shows_it(school):
    app, admin, post = school["app"], school["admin"], school["post"]
    addresses = _warmed(school)
    app.client.post_json(f"{POSTS}/{post['id']}", {"title": "Sports day results"}, headers=admin.headers)
    for family, path in addresses.items():
        if family == "post" and app.settings.site["permalink_structure"]:
            path = _path(app.client.get(f"{POSTS}/{post['id']}").json["link"])  # the slug stays; the date too
        fresh = app.client.get(path)
        assert "X-Cache" not in fresh.headers and "Sports day results" in fresh.text, family


def test_unpublishing_or_deleting_the_post_takes_it_off_the_cached_lists(school):
    app, admin, post = school["app"], school["admin"], school["post"]
    addresses = _warmed(school)
    app.client.post_json(f"{POSTS}/{post['id']}", {"status": "draft"}, headers=admin.headers)
    app.client.get(addresses["post"], status=404)
    app.client.get(addresses["author"], status=404)  # nothing published any more: no archive
    for family in ("home", "category", "tag", "search"):
        assert "Sports day" not in app.client.get(addresses[family]).text, family
    app.client.post_json(f"{POSTS}/{post['id']}", {"status": "publish"}, headers=admin.headers)
    _miss_then_hit(app.client, addresses["home"])
    app.client.delete(f"{POSTS}/{post['id']}", headers=admin.headers)
    assert "Sports day" not in app.client.get(addresses["home"]).text


def test_comments_approved_edited_and_deleted_show_at_once(school):
    app, admin, post, comment = school["app"], school["admin"], school["post"], school["comment"]
    path = _addresses(school)["post"]
    assert "Well run, everyone" in _miss_then_hit(app.client, path).text
    held = app.client.post_json(COMMENTS, {"post": post["id"], "content": "Can we have it again in June?",
                                           "status": "hold", "author_name": "Pat", "author_email": "pat@example.org"},
                                headers=admin.headers).json
    assert "again in June" not in _miss_then_hit(app.client, path).text
    app.client.post_json(f"{COMMENTS}/{held['id']}", {"status": "approve"}, headers=admin.headers)
    assert "again in June" in _miss_then_hit(app.client, path).text
    app.client.post_json(f"{COMMENTS}/{comment['id']}", {"content": "Well run, every single one of you"},
                         headers=admin.headers)
    assert "every single one of you" in _miss_then_hit(app.client, path).text
    app.client.delete(f"{COMMENTS}/{comment['id']}", headers=admin.headers)
    assert "every single one of you" not in _miss_then_hit(app.client, path).text


def test_a_comment_from_the_page_form_shows_on_the_cached_page(school):
    """The form without JavaScript goes through core's comment creation, which purges like any write."""
    app = school["app"]
    path = _addresses(school)["post"]
    form = parse_strict(_miss_then_hit(app.client, path).text).find(".//form[@class='comment-form']")
    fields = {field.get("name"): field.get("value") or "" for field in form.iterfind(".//input")}
    fields.update(author_name="Ann", author_email="ann@example.org", content="Thank you for organising it")
    app.client.post("/comment-post", fields, status=303)
    after = app.client.get(path)
    assert "X-Cache" not in after.headers and "Thank you for organising it" in after.text


def test_renaming_a_term_purges_the_post_and_its_archives(school):
    app, admin, sport, summer = school["app"], school["admin"], school["sport"], school["summer"]
    addresses = _addresses(school)
    for family in ("post", "category", "tag"):
        _miss_then_hit(app.client, addresses[family])
    app.client.post_json(f"{CATEGORIES}/{sport['id']}", {"name": "Athletics"}, headers=admin.headers)
    app.client.post_json(f"{TAGS}/{summer['id']}", {"name": "midsummer"}, headers=admin.headers)
    page = parse_strict(app.client.get(addresses["post"]).text)
    links = ["".join(link.itertext()) for link in page.iterfind(".//main//a")]
    assert "Athletics" in links and "#midsummer" in links and "Sport" not in links
    assert "Athletics" in app.client.get(addresses["category"]).text
    assert "midsummer" in app.client.get(addresses["tag"]).text


def test_a_new_top_level_page_joins_the_menu_of_cached_pages(school):
    app, admin = school["app"], school["admin"]
    addresses = _warmed(school)
    app.client.post_json(PAGES, {"title": "Term dates", "status": "publish"}, headers=admin.headers)
    for family, path in addresses.items():
        menu = ["".join(link.itertext()) for link in
                parse_strict(app.client.get(path).text).iterfind(".//nav[@aria-label='Site']//a")]
        assert "Term dates" in menu, family


def test_site_title_and_tagline_changes_reach_cached_pages(school):
    app, admin = school["app"], school["admin"]
    addresses = _warmed(school)
    app.client.post_json(SETTINGS, {"title": "Riverside Primary", "description": "Learning by the water"},
                         headers=admin.headers)
    for family, path in addresses.items():
        assert "Riverside Primary" in app.client.get(path).text, family
    assert "Learning by the water" in app.client.get("/").text


def test_renaming_the_author_purges_their_posts_pages(school):
    """The author line of a post and the author archive show the display name (a purge on commit)."""
    app, admin = school["app"], school["admin"]
    addresses = _warmed(school)
    app.client.post_json("/wp-json/core/v2/users/me", {"name": "Mrs Head Teacher"}, headers=admin.headers)
    for family in ("post", "author"):
        fresh = app.client.get(addresses[family])
        assert "X-Cache" not in fresh.headers and "Mrs Head Teacher" in fresh.text, family
    app.client.post_json("/wp-json/core/v2/users/me", {"password": "a new long password"}, headers=admin.headers)
    assert app.client.get(addresses["post"]).headers.get("X-Cache") == "hit"  # shown nowhere: nothing purged


def test_a_write_that_changes_no_page_leaves_them_cached(school):
    """The purge follows content, terms and settings: an application password is none of them."""
    app, admin = school["app"], school["admin"]
    path = _addresses(school)["post"]
    _miss_then_hit(app.client, path)
    app.client.post_json("/wp-json/core/v2/users/me/application-passwords", {"name": "phone"},
                         headers=admin.headers, status=201)
    assert app.client.get(path).headers.get("X-Cache") == "hit"


def test_signed_in_visitors_are_never_served_from_the_cache_nor_fill_it(school):
    app, admin = school["app"], school["admin"]
    for family, path in _addresses(school).items():
        signed_in = app.client.get(path, headers=admin.headers)  # first: an admin's answer must not be kept
        assert "X-Cache" not in signed_in.headers and "ETag" not in signed_in.headers, family
        anonymous = app.client.get(path)
        assert "X-Cache" not in anonymous.headers, family  # a miss: nothing was kept for it
        assert app.client.get(path).headers.get("X-Cache") == "hit"
        again = app.client.get(path, headers=admin.headers)  # and the kept page never goes to an admin
        assert "X-Cache" not in again.headers, family


@pytest.mark.parametrize("cookie", ["wordpress_logged_in_abc=admin%7C123", "comment_author_abc=Sam", "theme=dark"])
def test_any_cookie_bypasses_the_cache(school, cookie):
    """Signed-in sessions, comment authors' cookies, anything: a visitor with a cookie gets a page built for them."""
    app = school["app"]
    path = _addresses(school)["post"]
    with_cookie = app.client.get(path, headers={"Cookie": cookie})
    assert "X-Cache" not in with_cookie.headers
    assert "X-Cache" not in app.client.get(path).headers  # the cookie's answer was not kept
    assert app.client.get(path).headers.get("X-Cache") == "hit"
    assert "X-Cache" not in app.client.get(path, headers={"Cookie": cookie}).headers


def test_a_password_protected_post_is_never_kept_nor_served_from_the_cache(school):
    app, admin, sport = school["app"], school["admin"], school["sport"]
    secret = app.client.post_json(POSTS, {"title": "Staff rota", "status": "publish", "password": "owl",
                                          "content": "<p>Rota words only for the staff.</p>",
                                          "categories": [sport["id"]]}, headers=admin.headers).json
    path = _path(secret["link"])
    for _attempt in range(2):
        locked = app.client.get(path)
        assert "X-Cache" not in locked.headers and "ETag" not in locked.headers
        assert locked.headers["Cache-Control"] == "no-store" and "Rota words" not in locked.text
    visitor = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})  # a browser of its own: its cookie jar
    visitor.post("/postpass", {"post_id": str(secret["id"]), "post_password": "owl"}, status=303)
    unlocked = visitor.get(path)
    assert "Rota words only for the staff." in unlocked.text and "X-Cache" not in unlocked.headers
    after = app.client.get(path)
    assert "Rota words" not in after.text and "X-Cache" not in after.headers
    assert "Rota words" not in app.client.get(_addresses(school)["category"]).text  # lists never show its text


def test_a_draft_title_never_reaches_a_cached_page(school):
    app, admin, sport, summer = school["app"], school["admin"], school["sport"], school["summer"]
    addresses = _addresses(school)
    draft = app.client.post_json(POSTS, {"title": DRAFT_TITLE, "status": "draft", "content": "<p>the river</p>",
                                         "categories": [sport["id"]], "tags": [summer["id"]]},
                                 headers=admin.headers).json
    app.client.post_json(POSTS, {"title": "Staff only river memo", "status": "private"}, headers=admin.headers)
    seen = [app.client.get(path, headers=admin.headers).text for path in addresses.values()]  # an editor first
    seen += [app.client.get(f"/?p={draft['id']}", headers=admin.headers, expect_errors=True).text]
    for _round in range(2):
        seen += [app.client.get(path).text for path in addresses.values()]
        seen += [app.client.get(f"/?p={draft['id']}", status=404).text, app.client.get("/?s=unannounced").text]
    assert not any(DRAFT_TITLE in text or "Staff only river memo" in text for text in seen)
    app.client.post_json(f"{POSTS}/{draft['id']}", {"title": "Still a draft: " + DRAFT_TITLE}, headers=admin.headers)
    assert not any(DRAFT_TITLE in app.client.get(path).text for path in addresses.values())
