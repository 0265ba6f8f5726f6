"""`/wp-sitemap.xml` and its per-type sitemaps (the sitemaps.org shape, as WordPress serves them), and robots.txt."""

from __future__ import annotations

import datetime
import re

from defusedxml import ElementTree
from sqlalchemy import insert

from host import PostType, hookimpl
from host.testing import make_plugin
from tests.core.helpers import API

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
W3C_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")
LOC = re.compile(r"^https?://[^\s]+$")


def _read(client, path: str, root: str):
    """The document at `path`, checked against the sitemaps.org schema's shape; its <loc>s and <lastmod>s."""
    response = client.get(path)
    assert response.headers["Content-Type"] == "application/xml; charset=UTF-8"
    assert response.body.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")
    document = ElementTree.fromstring(response.body)
    assert document.tag == f"{SITEMAP}{root}"
    child = "sitemap" if root == "sitemapindex" else "url"
    entries = []
    for entry in document:
        assert entry.tag == f"{SITEMAP}{child}"
        assert {part.tag for part in entry} <= {f"{SITEMAP}loc", f"{SITEMAP}lastmod"}
        loc, lastmod = entry.findtext(f"{SITEMAP}loc"), entry.findtext(f"{SITEMAP}lastmod")
        assert LOC.match(loc) and len(loc) < 2048
        assert lastmod is None or W3C_DATETIME.match(lastmod)
        entries.append((loc, lastmod))
    assert 0 < len(entries) <= (50000 if root == "sitemapindex" else 2000)
    return entries


def _locs(client, path: str) -> list[str]:
    return [loc for loc, _lastmod in _read(client, path, "urlset")]


def test_index_lists_a_sitemap_per_public_type_taxonomy_and_the_users(client, make_post, users):
    post = make_post(title="Sports day", categories=[1])
    page = make_post(base="pages", title="Admissions")
    index = [loc for loc, _lastmod in _read(client, "/wp-sitemap.xml", "sitemapindex")]
    assert index == ["http://school.test/wp-sitemap-posts-post-1.xml", "http://school.test/wp-sitemap-posts-page-1.xml",
                     "http://school.test/wp-sitemap-taxonomies-category-1.xml", "http://school.test/wp-sitemap-users-1.xml"]
    for address in index:
        assert client.get(address.removeprefix("http://school.test")).status_int == 200
    posts = _read(client, "/wp-sitemap-posts-post-1.xml", "urlset")
    assert [loc for loc, _lastmod in posts] == [post["link"]]
    assert posts[0][1] == post["modified_gmt"] + "+00:00"
    assert _locs(client, "/wp-sitemap-posts-page-1.xml") == ["http://school.test/", page["link"]]
    category = client.get(f"{API}/categories/1").json
    assert _locs(client, "/wp-sitemap-taxonomies-category-1.xml") == [category["link"]]
    author = client.get(f"{API}/users/me", headers=users["administrator"].headers).json
    assert _locs(client, "/wp-sitemap-users-1.xml") == [author["link"]]
    assert client.get("/sitemap.xml", status=301).headers["Location"] == "http://school.test/wp-sitemap.xml"


def test_only_published_unprotected_items_and_used_terms_appear(client, make_post, users):
    admin = users["administrator"].headers
    secret_tag = client.post_json(f"{API}/tags", {"name": "Secret tag"}, headers=admin).json
    public = make_post(title="Open day")
    hidden = [make_post(title="Draft plans", status="draft", tags=[secret_tag["id"]]),
              make_post(title="Staff only memo", status="private"),
              make_post(title="Awaiting review", status="pending"),
              make_post(title="Timetable", status="future", date="2099-01-01T09:00:00"),
              make_post(title="Exam answers", password="sesame"),
              make_post(base="pages", title="Draft page", status="draft")]
    make_post(title="A contributor's draft", role="contributor", status="draft")
    locs = _locs(client, "/wp-sitemap-posts-post-1.xml")
    assert locs == [public["link"]]
    assert _locs(client, "/wp-sitemap-posts-page-1.xml") == ["http://school.test/"]
    every_body = "".join(client.get(path).text for path in (
        "/wp-sitemap.xml", "/wp-sitemap-posts-post-1.xml", "/wp-sitemap-posts-page-1.xml",
        "/wp-sitemap-taxonomies-category-1.xml", "/wp-sitemap-users-1.xml"))
    for item in hidden:
        assert f"p={item['id']}<" not in every_body and f"page_id={item['id']}<" not in every_body
    assert "post_tag" not in every_body  # the secret tag is on a draft only: no tag sitemap
    client.get("/wp-sitemap-taxonomies-post_tag-1.xml", status=404)
    contributor = client.get(f"{API}/users/me", headers=users["contributor"].headers).json
    assert contributor["slug"] not in every_body


def test_pages_hold_2000_urls_and_pagination_is_bounded(app, client, make_post):
    make_post(title="The first")
    posts = app.db.metadata.tables["posts"]
    moment = datetime.datetime(2025, 1, 1, 9, 0)
    with app.db.engine.begin() as connection:  # bulk rows, as tests/benchmarks/seed.py loads them
        connection.execute(insert(posts), [
            {"type": "post", "status": "publish", "slug": f"bulk-{number}", "title": f"Bulk {number}",
             "date": moment, "date_gmt": moment, "modified": moment, "modified_gmt": moment, "guid": ""}
            for number in range(2000)])
    make_post(title="The last")  # also a write through the API: the cache and the totals see the bulk rows
    index = [loc for loc, _lastmod in _read(client, "/wp-sitemap.xml", "sitemapindex")]
    assert "http://school.test/wp-sitemap-posts-post-2.xml" in index
    assert "http://school.test/wp-sitemap-posts-post-3.xml" not in index
    first, second = _locs(client, "/wp-sitemap-posts-post-1.xml"), _locs(client, "/wp-sitemap-posts-post-2.xml")
    assert len(first) == 2000 and len(second) == 2
    assert len(set(first) | set(second)) == 2002
    for path in ("/wp-sitemap-posts-post-3.xml", "/wp-sitemap-posts-post-0.xml", "/wp-sitemap-posts-post-999999.xml",
                 "/wp-sitemap-posts-post-99999999999999999999.xml", "/wp-sitemap-posts-post--1.xml",
                 "/wp-sitemap-posts-revision-1.xml", "/wp-sitemap-posts-attachment-1.xml",
                 "/wp-sitemap-posts-nothing-1.xml", "/wp-sitemap-taxonomies-nothing-1.xml",
                 "/wp-sitemap-taxonomies-category-2.xml", "/wp-sitemap-users-2.xml", "/wp-sitemap-users-0.xml"):
        client.get(path, status=404)


def test_a_plugin_post_type_gets_its_sitemap_through_the_registry(make_app):
    @hookimpl
    def register_post_types():
        return [PostType("school_notice", "Notices", rest_base="notices", rewrite="notice"),
                PostType("school_secret", "Secrets", rest_base="secrets", public=False)]

    app = make_app(plugins=["core", make_plugin("notices", register_post_types)])
    from host.testing import role_users

    admin = role_users(app)["administrator"].headers
    notice = app.client.post_json(f"{API}/notices", {"title": "Snow day", "status": "publish"}, headers=admin).json
    app.client.post_json(f"{API}/secrets", {"title": "Hidden thing", "status": "publish"}, headers=admin)
    index = [loc for loc, _lastmod in _read(app.client, "/wp-sitemap.xml", "sitemapindex")]
    assert "http://school.test/wp-sitemap-posts-school_notice-1.xml" in index
    assert not any("school_secret" in loc for loc in index)
    assert _locs(app.client, "/wp-sitemap-posts-school_notice-1.xml") == [notice["link"]] == \
        ["http://school.test/notice/snow-day/"]
    app.client.get("/wp-sitemap-posts-school_secret-1.xml", status=404)


def test_new_post_purges_the_cached_sitemap_and_an_unrelated_write_does_not(client, make_post, users):
    make_post(title="Sports day")
    client.get("/wp-sitemap-posts-post-1.xml")
    assert client.get("/wp-sitemap-posts-post-1.xml").headers.get("X-Cache") == "hit"
    assert client.get("/wp-sitemap.xml").headers.get("X-Cache") is None
    assert client.get("/wp-sitemap.xml").headers.get("X-Cache") == "hit"
    client.post_json(f"{API}/users/me/application-passwords", {"name": "phone"},
                     headers=users["administrator"].headers, status=201)
    assert client.get("/wp-sitemap-posts-post-1.xml").headers.get("X-Cache") == "hit"
    new = make_post(title="Book week")
    fresh = client.get("/wp-sitemap-posts-post-1.xml")
    assert fresh.headers.get("X-Cache") is None and new["link"] in fresh.text
    etag = fresh.headers["ETag"]
    client.get("/wp-sitemap-posts-post-1.xml", headers={"If-None-Match": etag}, status=304)


def test_robots_txt_keeps_crawlers_out_of_the_admin_area_and_names_the_sitemap(client):
    response = client.get("/robots.txt")
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert response.text == "User-agent: *\nDisallow: /admin/\n\nSitemap: http://school.test/wp-sitemap.xml\n"


def test_head_answers_the_headers_without_a_body(client, make_post):
    make_post(title="Sports day")
    for path, content_type in (("/feed/", "application/rss+xml; charset=UTF-8"),
                               ("/wp-sitemap.xml", "application/xml; charset=UTF-8"),
                               ("/robots.txt", "text/plain; charset=utf-8")):
        for _attempt in range(2):  # built, then from the cache
            response = client.head(path)
            assert response.status_int == 200 and response.body == b""
            assert response.headers["Content-Type"] == content_type and response.headers["ETag"]
