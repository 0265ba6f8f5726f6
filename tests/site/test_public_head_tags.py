"""Head tags of core's pages: canonical link, Open Graph and JSON-LD, escaped so no text closes the block."""

from __future__ import annotations

import json

from host.testing import create_test_user
from tests.builder.helpers import png_bytes

from .helpers import PAGES, POSTS, SITE, parse_strict


def test_post_has_canonical_open_graph_and_blogposting(make_app):
    app = make_app(plugins=["core"], site={"permalink_structure": "/%postname%/", "name": "Riverside School"})
    admin = create_test_user(app, "administrator")
    media = app.client.post("/wp-json/core/v2/media", {"alt_text": "Track"},
                            upload_files=[("file", "race.png", png_bytes(), "image/png")], headers=admin.headers).json
    post = app.client.post_json(POSTS, {"title": "Sports </script><b>day</b>", "slug": "sports-day", "status": "publish",
                                        "excerpt": "Races & prizes </script>", "featured_media": media["id"],
                                        "date": "2026-03-14T09:30:00"}, headers=admin.headers).json
    response = app.client.get("/sports-day/")
    document = parse_strict(response.text)
    head = document.find("head")
    assert head.find("link[@rel='canonical']").get("href") == post["link"] == f"{SITE}/sports-day/"
    og = {meta.get("property"): meta.get("content") for meta in head.iterfind("meta[@property]")}
    assert og["og:title"] == "Sports day" and og["og:type"] == "article" and og["og:url"] == post["link"]
    assert og["og:image"] == media["source_url"] and og["og:description"] == "Races & prizes"
    blocks = head.findall("script[@type='application/ld+json']")
    assert len(blocks) == 1 and "</script><b>" not in response.text
    data = json.loads(blocks[0].text)
    assert data["@type"] == "BlogPosting" and data["headline"] == "Sports day"
    assert data["url"] == post["link"] and data["image"] == media["source_url"]
    assert data["datePublished"] == "2026-03-14T09:30:00Z" and data["publisher"]["name"] == "Riverside School"
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]  # the data block needs no exception


def test_page_is_a_webpage_and_locked_items_give_no_summary(make_app):
    app = make_app(plugins=["core"])
    admin = create_test_user(app, "administrator")
    page = app.client.post_json(PAGES, {"title": "About us", "status": "publish", "content": "<p>Our school.</p>"},
                                headers=admin.headers).json
    head = parse_strict(app.client.get(f"/?page_id={page['id']}").text).find("head")
    assert head.find("link[@rel='canonical']").get("href") == page["link"]
    assert json.loads(head.find("script[@type='application/ld+json']").text)["@type"] == "WebPage"
    locked = app.client.post_json(POSTS, {"title": "Photos", "status": "publish", "password": "river",
                                          "content": "<p>Gallery words</p>"}, headers=admin.headers).json
    text = app.client.get(f"/?p={locked['id']}").text
    assert "Gallery words" not in text and "og:description" not in text
