"""Attachments' pretty links (WordPress's get_attachment_link): under a published parent's link, at
`/<slug>/` when attached to nothing, with the `attachment/` marker where the parent's path would read
the slug otherwise; each opens the attachment's page (the image or a link to the file, title, caption),
and an attachment of a draft or private item keeps its plain link, which answers 404 without its title."""

from __future__ import annotations

import pytest

from host.testing import create_test_user
from tests.builder.helpers import png_bytes

from .helpers import PAGES, POSTS, SITE, parse_strict

MEDIA = "/wp-json/core/v2/media"
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _site(make_app, structure="/%year%/%monthnum%/%postname%/"):
    app = make_app(plugins=["core"], site={"permalink_structure": structure})
    return app, create_test_user(app, "administrator")


def _item(app, admin, base, **fields):
    fields = {"status": "publish", "date": "2026-03-14T09:30:00", **fields}
    return app.client.post_json(base, fields, headers=admin.headers, status=201).json


def _upload(app, admin, name="race.png", data=None, mime="image/png", **fields):
    fields = {key: str(value) for key, value in fields.items()}
    return app.client.post(MEDIA, fields, upload_files=[("file", name, data or png_bytes(), mime)],
                           headers=admin.headers, status=201).json


def _page(app, link: str, title: str):
    assert link.startswith(SITE), link
    page = app.client.get(link.removeprefix(SITE), status=200)
    document = parse_strict(page.text)
    assert document.find(".//main/h1").text == title
    return page, document


def test_an_attachment_of_a_post_lives_under_the_posts_link_and_shows_its_image(make_app):
    app, admin = _site(make_app)
    post = _item(app, admin, POSTS, title="Sports day", slug="sports-day")
    media = _upload(app, admin, post=post["id"], title="Race photo", slug="race-photo", alt_text="Children racing",
                    caption="The Year 7 relay")
    assert media["link"] == f"{SITE}/2026/03/sports-day/race-photo/"
    page, document = _page(app, media["link"], "Race photo")
    image = document.find(".//figure[@class='attachment-file']/a/img")
    assert image.get("src") == media["source_url"] and image.get("alt") == "Children racing"
    assert "The Year 7 relay" in "".join(document.find(".//figure[@class='attachment-file']/figcaption").itertext())
    assert f'<link rel="canonical" href="{media["link"]}">' in page.text
    assert app.client.get(f"/?attachment_id={media['id']}", status=301).headers["Location"] == media["link"]
    assert app.client.get(f"{MEDIA}/{media['id']}").json["link"] == media["link"]


def test_a_file_that_is_no_image_is_linked_for_download(make_app):
    app, admin = _site(make_app)
    media = _upload(app, admin, "letter.pdf", PDF, "application/pdf", title="Trip letter", slug="trip-letter",
                    caption="Sign and return by Friday")
    assert media["link"] == f"{SITE}/trip-letter/"  # attached to nothing: at the site's root
    _page_answer, document = _page(app, media["link"], "Trip letter")
    link = document.find(".//p[@class='attachment-file']/a")
    assert link.get("href") == media["source_url"] and link.text == "Download letter.pdf"
    assert document.find(".//figure[@class='attachment-file']") is None
    assert "Sign and return by Friday" in "".join(document.find(".//div[@class='attachment-caption']").itertext())


def test_an_attachment_of_a_page_lives_under_the_pages_path(make_app):
    app, admin = _site(make_app)
    about = _item(app, admin, PAGES, title="About", slug="about")
    history = _item(app, admin, PAGES, title="History", slug="history", parent=about["id"])
    media = _upload(app, admin, post=history["id"], title="Old school", slug="old-school")
    assert media["link"] == f"{SITE}/about/history/old-school/"
    _page(app, media["link"], "Old school")


@pytest.mark.parametrize("structure, slug, expected", [
    ("/%year%/%monthnum%/%postname%/", "1912", "/2026/03/sports-day/attachment/1912/"),  # a number reads as a page
    ("/%category%/%postname%/", "race-photo", "/uncategorized/sports-day/attachment/race-photo/"),
    ("/%postname%/", "race-photo", "/sports-day/race-photo/"),
    ("/archives/%post_id%", "race-photo", "/archives/{id}/race-photo/"),
])
def test_the_attachment_marker_where_wordpress_puts_it(make_app, structure, slug, expected):
    app, admin = _site(make_app, structure)
    post = _item(app, admin, POSTS, title="Sports day", slug="sports-day")
    media = _upload(app, admin, post=post["id"], title="Race photo", slug=slug)
    assert media["link"] == SITE + expected.format(id=post["id"])
    _page(app, media["link"], "Race photo")


def test_plain_links_without_a_structure(make_app):
    app, admin = _site(make_app, "")
    post = _item(app, admin, POSTS, title="Sports day", slug="sports-day")
    media = _upload(app, admin, post=post["id"], title="Race photo", slug="race-photo")
    assert media["link"] == f"{SITE}/?attachment_id={media['id']}"
    _page(app, media["link"], "Race photo")
    app.client.get("/sports-day/race-photo/", status=404)


@pytest.mark.parametrize("status", ["draft", "private", "pending"])
def test_an_attachment_of_an_unpublished_item_keeps_its_plain_link_and_does_not_leak(make_app, status):
    """WordPress forces the plain link for it; here that link, and the pretty path it would have had,
    answer 404 to anyone but the REST readers allowed to read the parent, without the title."""
    app, admin = _site(make_app)
    post = _item(app, admin, POSTS, title="Hidden news", slug="hidden-news", status=status)
    media = _upload(app, admin, post=post["id"], title="Secret photo title", slug="secret-photo",
                    caption="Secret caption")
    admin_view = app.client.get(f"{MEDIA}/{media['id']}", headers=admin.headers).json
    assert admin_view["link"] == f"{SITE}/?attachment_id={media['id']}"
    for path in (f"/?attachment_id={media['id']}", "/2026/03/hidden-news/secret-photo/", "/secret-photo/"):
        answer = app.client.get(path, status=404)
        assert "Secret photo title" not in answer.text and "Secret caption" not in answer.text, path
    app.client.get(f"{MEDIA}/{media['id']}", status=401)
    # published later: the pretty link works
    app.client.post_json(f"{POSTS}/{post['id']}", {"status": "publish"}, headers=admin.headers)
    published = app.client.get(f"{MEDIA}/{media['id']}").json
    assert published["link"] == f"{SITE}/2026/03/hidden-news/secret-photo/"
    _page(app, published["link"], "Secret photo title")


def test_a_wrong_parent_path_does_not_open_the_attachment(make_app):
    app, admin = _site(make_app)
    post = _item(app, admin, POSTS, title="Sports day", slug="sports-day")
    _upload(app, admin, post=post["id"], title="Race photo", slug="race-photo")
    for path in ("/2026/04/sports-day/race-photo/", "/race-photo/", "/2026/03/other/race-photo/"):
        app.client.get(path, status=404)
