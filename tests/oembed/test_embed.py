"""GET oembed/1.0/embed over HTTP: published posts and pages only, JSON and XML, width clamping."""

from __future__ import annotations

import html
import re
from xml.etree import ElementTree

import pytest

from host.testing import assert_in_root_index, assert_not_in_root_index, assert_rest_error, client_as, create_test_user

EMBED = "/wp-json/oembed/1.0/embed"


@pytest.fixture
def site(make_app):
    app = make_app(plugins=["core", "oembed"], site={"name": "Riverside School"})
    app.editor = create_test_user(app, "editor", login="mrs-hughes")
    app.as_editor = client_as(app, app.editor)
    return app


def publish(app, kind="posts", **fields):
    body = {"title": "Science fair winners", "content": "Well done!", "status": "publish", **fields}
    return app.as_editor.post_json(f"/wp-json/core/v2/{kind}", body, status=201).json


def test_a_published_post_as_rich_json(site):
    post = publish(site)
    data = site.client.get(EMBED, {"url": post["link"]}).json
    assert {key: data[key] for key in ("version", "provider_name", "provider_url", "title", "type", "width",
                                       "height")} == {
        "version": "1.0", "provider_name": "Riverside School", "provider_url": "http://school.test",
        "title": "Science fair winners", "type": "rich", "width": 600, "height": 338}
    assert data["author_name"] == "mrs-hughes"
    assert data["author_url"] == "http://school.test/author/mrs-hughes/"
    assert '<blockquote class="wp-embedded-content"' in data["html"]
    assert f'href="http://school.test/?p={post["id"]}"' in data["html"]
    assert 'sandbox="allow-scripts"' in data["html"] and "embed=true#?secret=" in data["html"]


def test_a_published_page_embeds_too(site):
    page = publish(site, "pages", title="Admissions")
    data = site.client.get(EMBED, {"url": page["link"], "maxwidth": "300"}).json
    assert (data["title"], data["width"], data["height"]) == ("Admissions", 300, 200)


@pytest.mark.parametrize("maxwidth, size", [("600", (600, 338)), ("0", (200, 200)), ("100", (200, 200)),
                                            ("5000", (600, 338)), ("-400", (400, 225)), ("abc", (200, 200)),
                                            ("450px", (450, 254))])
def test_maxwidth_is_clamped(site, maxwidth, size):
    post = publish(site)
    data = site.client.get(EMBED, {"url": post["link"], "maxwidth": maxwidth}).json
    assert (data["width"], data["height"]) == size


@pytest.mark.parametrize("status", ["draft", "private", "pending"])
def test_unpublished_items_are_not_found(site, status):
    post = publish(site, status=status)
    for client in (site.client, site.as_editor):
        assert_rest_error(client.get(EMBED, {"url": post["link"]}, expect_errors=True), "oembed_invalid_url", 404)


def test_trashed_items_and_foreign_or_unknown_urls_are_not_found(site):
    post = publish(site)
    site.as_editor.delete(f"/wp-json/core/v2/posts/{post['id']}", status=200)
    for url in (post["link"], "http://school.test/?p=9999", "http://elsewhere.test/?p=1", "http://school.test/",
                "http://school.test/news/?p=1", "http://school.test/?cat=1"):
        assert_rest_error(site.client.get(EMBED, {"url": url}, expect_errors=True), "oembed_invalid_url", 404)


def test_url_is_required_and_anything_but_a_local_permalink_is_not_found(site):
    assert_rest_error(site.client.get(EMBED, expect_errors=True), "rest_missing_callback_param", 400)
    assert_rest_error(site.client.get(EMBED, {"url": "not a url"}, expect_errors=True), "oembed_invalid_url", 404)


def test_xml_format(site):
    post = publish(site, title="Fish & chips <day>")
    response = site.client.get(EMBED, {"url": post["link"], "format": "xml"})
    assert response.headers["Content-Type"] == "text/xml; charset=UTF-8"
    assert response.body.startswith(b'<?xml version="1.0"?>\n<oembed>')
    root = ElementTree.fromstring(response.body)
    assert root.tag == "oembed"
    assert root.findtext("type") == "rich" and root.findtext("width") == "600"
    assert root.findtext("title") == site.client.get(EMBED, {"url": post["link"]}).json["title"]
    assert root.findtext("html").startswith('<blockquote class="wp-embedded-content"')


def test_xml_errors_keep_their_status(site):
    response = site.client.get(EMBED, {"url": "http://school.test/?p=4242", "format": "xml"}, expect_errors=True)
    assert response.status_int == 404
    assert response.headers["Content-Type"] == "text/xml; charset=UTF-8"
    root = ElementTree.fromstring(response.body)
    assert (root.findtext("code"), root.findtext("message"), root.findtext("data/status")) == (
        "oembed_invalid_url", "Not Found", "404")


def test_any_other_format_quietly_becomes_json(site):
    post = publish(site)
    response = site.client.get(EMBED, {"url": post["link"], "format": "yaml"})
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json["type"] == "rich"


def test_enabling_or_disabling_the_plugin_changes_the_root_index(make_app):
    enabled = make_app(plugins=["core", "oembed"])
    index = assert_in_root_index(enabled, "oembed/1.0")
    assert set(index["routes"]) == {"/oembed/1.0", "/oembed/1.0/embed", "/oembed/1.0/proxy"}
    assert index["routes"]["/oembed/1.0/embed"]["endpoints"][0]["args"]["url"]["format"] == "uri"
    disabled = make_app(plugins=["core", "oembed"], disabled=["oembed"])
    assert_not_in_root_index(disabled, "oembed/1.0")
    without_core = make_app(plugins=["core", "oembed"], disabled=["core"])
    assert without_core.plugin("oembed").state == "failed"
    assert_not_in_root_index(without_core, "oembed/1.0")


def discovery_links(page_html: str) -> dict[str, str]:
    """{type: href} of the oEmbed discovery link tags in an HTML page."""
    links = {}
    for tag in re.findall(r"<link [^>]*\+oembed[^>]*>", page_html):
        kind = re.search(r'type="([^"]+)"', tag).group(1)
        links[kind] = html.unescape(re.search(r'href="([^"]+)"', tag).group(1))
    return links


def test_html_views_of_published_posts_and_pages_link_their_oembed_urls(site):
    for kind in ("posts", "pages"):
        item = publish(site, kind, title="Open evening")
        page = site.client.get(item["link"].replace("http://school.test", ""))
        links = discovery_links(page.text)
        assert set(links) == {"application/json+oembed", "text/xml+oembed"}
        found = site.client.get(links["application/json+oembed"].replace("http://school.test", "")).json
        assert (found["type"], found["title"]) == ("rich", "Open evening")
        as_xml = site.client.get(links["text/xml+oembed"].replace("http://school.test", ""))
        assert as_xml.headers["Content-Type"] == "text/xml; charset=UTF-8"


def test_views_have_no_discovery_links_without_the_plugin(make_app):
    app = make_app(plugins=["core"])
    editor = client_as(app, create_test_user(app, "editor"))
    post = editor.post_json("/wp-json/core/v2/posts", {"title": "Plain", "status": "publish"}, status=201).json
    assert discovery_links(app.client.get(f"/?p={post['id']}").text) == {}


def upload_picture(app) -> dict:
    from tests.core.test_media import png

    return app.as_editor.post("/wp-json/core/v2/media", png(4, 3), headers={
        "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="fair.png"'}, status=201).json


def test_the_featured_image_is_the_thumbnail_as_core_shows_it(site):
    """thumbnail_url and its size are the media item's source_url and media_details in core/v2/media."""
    picture = upload_picture(site)
    post = publish(site, featured_media=picture["id"])
    media = site.client.get(f"/wp-json/core/v2/media/{picture['id']}").json
    data = site.client.get(EMBED, {"url": post["link"]}).json
    assert (data["thumbnail_url"], data["thumbnail_width"], data["thumbnail_height"]) == (
        media["source_url"], 4, 3)


def test_a_featured_image_the_visitor_may_not_read_gives_no_thumbnail(site):
    """An image attached to a draft is private to its editors (core/v2/media answers 401): the embed of
    a published post that features it names no thumbnail to an anonymous caller, but does to its editor."""
    draft = publish(site, status="draft", title="Plans")
    picture = upload_picture(site)
    site.as_editor.post_json(f"/wp-json/core/v2/media/{picture['id']}", {"post": draft["id"]}, status=200)
    site.client.get(f"/wp-json/core/v2/media/{picture['id']}", status=401)
    post = publish(site, featured_media=picture["id"])
    assert "thumbnail_url" not in site.client.get(EMBED, {"url": post["link"]}).json
    assert site.as_editor.get(EMBED, {"url": post["link"]}).json["thumbnail_url"] == picture["source_url"]


RESIZE_SCRIPT = (
    "<script>window.addEventListener(\"message\",function(e){var d=e.data;"
    "if(!d||typeof d.secret!==\"string\"||d.message!==\"height\")return;"
    "var s=d.secret.replace(/[^A-Za-z0-9]/g,\"\"),f=document.querySelectorAll('iframe[data-secret=\"'+s+'\"]');"
    "for(var i=0;i<f.length;i++){if(f[i].contentWindow===e.source){"
    "f[i].height=Math.max(200,Math.min(1000,parseInt(d.value,10)||0));}}});</script>")


def test_the_embed_html_keeps_its_exact_bytes(make_app):
    """The html field is what WordPress writes (blockquote, sandboxed iframe, resize script), byte for byte;
    the rendered title is kept as HTML, the frame title and addresses escaped."""
    app = make_app(plugins=["core", "oembed"], site={"name": "Riverside & Co"})
    editor = client_as(app, create_test_user(app, "editor"))
    post = editor.post_json("/wp-json/core/v2/posts", {"title": "Fish &amp; <em>chips</em>", "content": "x",
                                                       "status": "publish"}, status=201).json
    data = app.client.get(EMBED, {"url": post["link"], "maxwidth": "400"}).json
    secret = re.search(r'data-secret="([0-9a-f]{10})"', data["html"]).group(1)
    link = f"http://school.test/?p={post['id']}"
    assert data["html"] == (
        f'<blockquote class="wp-embedded-content" data-secret="{secret}"><a href="{link}">'
        f'{post["title"]["rendered"]}</a></blockquote>'
        f'<iframe sandbox="allow-scripts" security="restricted" src="{link}&amp;embed=true#?secret={secret}" '
        f'data-secret="{secret}" width="400" height="225" title="\u201cFish &amp; chips\u201d \u2014 Riverside &amp; Co" '
        'frameborder="0" marginwidth="0" marginheight="0" scrolling="no" class="wp-embedded-content"></iframe>'
        + RESIZE_SCRIPT)
