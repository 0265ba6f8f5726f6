"""Core's public pages: posts and pages at pretty permalinks (`[site] permalink_structure`), pages at
their hierarchical path, attachments, redirects from plain links, 404 for what is not public, and
the password form of protected items."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from host.config import SiteSettings
from host.testing import create_test_user
from tests.builder.helpers import png_bytes

from .helpers import PAGES, POSTS, SITE, parse_strict

MEDIA = "/wp-json/core/v2/media"


def _site(make_app, structure=""):
    app = make_app(plugins=["core"], site={"permalink_structure": structure})
    return app, create_test_user(app, "administrator")


def _create(app, admin, base, **fields):
    fields.setdefault("status", "publish")
    return app.client.post_json(base, fields, headers=admin.headers, status=201).json


def _path(link: str) -> str:
    assert link.startswith(SITE)
    return link.removeprefix(SITE)


@pytest.mark.parametrize("structure, expected", [
    ("/%year%/%monthnum%/%postname%/", "/2026/03/sports-day/"),
    ("/%postname%/", "/sports-day/"),
    ("/%year%/%monthnum%/%day%/%postname%/", "/2026/03/14/sports-day/"),
    ("/archives/%post_id%", "/archives/{id}"),
    ("/%year%/%monthnum%/%day%/%hour%/%minute%/%second%/%postname%/", "/2026/03/14/09/30/00/sports-day/"),
    ("/%post_id%-%postname%.html", "/{id}-sports-day.html"),
])
def test_post_links_follow_the_structure_and_open(make_app, structure, expected):
    app, admin = _site(make_app, structure)
    post = _create(app, admin, POSTS, title="Sports day", slug="sports-day", date="2026-03-14T09:30:00",
                   content="<p>Races on the field.</p>")
    assert post["link"] == SITE + expected.format(id=post["id"])
    edit = app.client.get(f"{POSTS}/{post['id']}?context=edit", headers=admin.headers).json
    assert edit["permalink_template"] == SITE + expected.format(id=post["id"]).replace("sports-day", "%postname%")
    page = app.client.get(_path(post["link"]))
    assert page.status_int == 200
    document = parse_strict(page.text)
    assert document.find(".//main/h1").text == "Sports day"
    assert "<p>Races on the field.</p>" in page.text
    moved = app.client.get(f"/?p={post['id']}", status=301)
    assert moved.headers["Location"] == post["link"]


def test_post_page_shows_date_author_terms_and_featured_image(make_app):
    app, admin = _site(make_app, "/%year%/%monthnum%/%postname%/")
    media = app.client.post(MEDIA, {"alt_text": "Children racing"}, upload_files=[("file", "race.png", png_bytes(), "image/png")],
                            headers=admin.headers, status=201).json
    category = app.client.post_json("/wp-json/core/v2/categories", {"name": "Sport & Games"}, headers=admin.headers).json
    tag = app.client.post_json("/wp-json/core/v2/tags", {"name": "summer"}, headers=admin.headers).json
    post = _create(app, admin, POSTS, title="Sports day", date="2026-03-14T09:30:00", featured_media=media["id"],
                   categories=[category["id"]], tags=[tag["id"]])
    document = parse_strict(app.client.get(_path(post["link"])).text)
    time = document.find(".//p[@class='entry-meta']/time")
    assert time.get("datetime") == "2026-03-14T09:30:00" and time.text == "March 14, 2026"
    author = document.find(".//a[@rel='author']")
    user = app.client.get(f"/wp-json/core/v2/users/{admin.id}").json
    assert author.get("href") == user["link"] and author.text == user["name"]
    assert [link.text for link in document.iterfind(".//ul[@class='entry-terms']//a")] == ["Sport & Games", "#summer"]
    image = document.find(".//figure[@class='featured-image']/img")
    assert image.get("src") == media["source_url"] and image.get("alt") == "Children racing"
    attachment = app.client.get(f"/?attachment_id={media['id']}", status=301).follow()
    assert attachment.status_int == 200 and media["source_url"] in attachment.text
    parse_strict(attachment.text)


def test_pages_live_at_their_hierarchical_path(make_app):
    app, admin = _site(make_app, "/%postname%/")
    about = _create(app, admin, PAGES, title="About us", slug="about")
    history = _create(app, admin, PAGES, title="Our history", slug="history", parent=about["id"])
    assert about["link"] == f"{SITE}/about/" and history["link"] == f"{SITE}/about/history/"
    edit = app.client.get(f"{PAGES}/{history['id']}?context=edit", headers=admin.headers).json
    assert edit["permalink_template"] == f"{SITE}/about/%pagename%/"
    assert parse_strict(app.client.get("/about/history/").text).find(".//main/h1").text == "Our history"
    assert app.client.get(f"/?page_id={history['id']}", status=301).headers["Location"] == history["link"]
    app.client.get("/history/", status=404)  # a child page only at its whole path
    menu = parse_strict(app.client.get("/about/").text).find(".//nav[@aria-label='Site']//a")
    assert menu.get("href") == f"{SITE}/about/" and menu.get("aria-current") == "page"


def test_plain_structure_keeps_query_links(make_app):
    app, admin = _site(make_app)
    post = _create(app, admin, POSTS, title="Sports day", slug="sports-day")
    assert post["link"] == f"{SITE}/?p={post['id']}"
    assert app.client.get(f"/?p={post['id']}").status_int == 200
    app.client.get("/sports-day/", status=404)


@pytest.mark.parametrize("structure", ["", "/%postname%/"])
def test_items_nobody_may_read_answer_404_without_their_title(make_app, structure):
    app, admin = _site(make_app, structure)
    hidden = [
        _create(app, admin, POSTS, title="Secret draft", slug="secret-draft", status="draft"),
        _create(app, admin, POSTS, title="Staff private", slug="staff-private", status="private"),
        _create(app, admin, POSTS, title="Future plan", slug="future-plan", status="future", date="2099-01-01T00:00:00"),
        _create(app, admin, PAGES, title="Hidden page", slug="hidden-page", status="draft"),
    ]
    trashed = _create(app, admin, POSTS, title="Old news", slug="old-news")
    app.client.delete(f"{POSTS}/{trashed['id']}", headers=admin.headers)
    for item in hidden + [trashed]:
        query = "page_id" if item["type"] == "page" else "p"
        for path in (f"/?{query}={item['id']}", f"/{item['slug']}/", "/old-news/"):
            response = app.client.get(path, status=404)
            assert item["title"]["raw"] not in response.text
            parse_strict(response.text)


def test_password_protected_post_asks_for_the_password(make_app):
    app, admin = _site(make_app, "/%postname%/")
    post = _create(app, admin, POSTS, title="Class photos", slug="class-photos", password="river",
                   content="<p>The photo gallery.</p>")
    locked = app.client.get("/class-photos/")
    assert locked.status_int == 200 and "The photo gallery." not in locked.text
    assert locked.headers["Cache-Control"] == "no-store"
    form = parse_strict(locked.text).find(".//form[@class='password-form']")
    assert form.get("action") == f"{SITE}/postpass" and form.get("method") == "post"

    wrong = app.client.post("/postpass", {"post_id": post["id"], "post_password": "sea"}, status=303)
    assert wrong.headers["Location"] == f"{SITE}/class-photos/?password=wrong"
    assert "Set-Cookie" not in wrong.headers
    assert "not right" in app.client.get("/class-photos/?password=wrong").text

    right = app.client.post("/postpass", {"post_id": post["id"], "post_password": "river"}, status=303)
    assert right.headers["Location"] == f"{SITE}/class-photos/" and "river" not in right.headers["Set-Cookie"]
    assert "The photo gallery." in app.client.get("/class-photos/").text

    app.client.post("/postpass", {"post_id": "x", "post_password": "river"}, status=400)
    app.client.post("/postpass", {"post_id": post["id"], "post_password": "r" * 300}, status=400)
    draft = _create(app, admin, POSTS, title="Draft photos", password="river", status="draft")
    refused = app.client.post("/postpass", {"post_id": draft["id"], "post_password": "river"}, status=404)
    assert "Draft photos" not in refused.text


def test_structure_setting_is_checked():
    for good in ("", "/%postname%/", "/archives/%post_id%", "/%year%/%monthnum%/%day%/%postname%/",
                 "/%category%/%postname%/", "/%author%/%post_id%/"):
        SiteSettings().load({"permalink_structure": good}, partial=True)
    for bad in ("%postname%", "/%year%/", "/%category%/", "/%tag%/%postname%/", "/<script>/%postname%/"):
        with pytest.raises(ValidationError):
            SiteSettings().load({"permalink_structure": bad}, partial=True)
