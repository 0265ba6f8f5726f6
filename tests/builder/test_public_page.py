"""A builder page on the public site: its rendered document inside the site layout, with both stylesheets
linked from the site's own address (whatever shape the page's permalink has), each answering CSS; a draft
builder page shows nothing of itself, and its stylesheet is not served."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import html5lib

from host.testing import create_test_user

from .helpers import PAGES, builder_meta, create_page, section, widget


def test_a_builder_page_shows_its_rendered_document_in_the_site_layout(make_app):
    app = make_app(plugins=["core", "builder"])
    admin = create_test_user(app, "administrator")
    elements = [section("s1", widget("h1", "heading", title="Sports day", header_size="h2", title_color="#1F4E79"),
                        widget("t1", "text-editor", editor="<p>Races start at <strong>10:00</strong> on the field.</p>"),
                        widget("b1", "button", text="Read the timetable", link={"url": "/?page_id=2"}))]
    page = create_page(app.client, admin.headers, elements, title="Sports day").json
    view = app.client.get(urlsplit(page["link"]).path + "?" + urlsplit(page["link"]).query)
    assert view.status_int == 200
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(view.text)
    main = view.html.select_one("main")
    assert main.select_one("h2.builder-heading").text == "Sports day"
    assert "Races start at <strong>10:00</strong> on the field." in str(main)
    assert main.select_one("a.builder-button").text.strip() == "Read the timetable"
    assert " style=" not in view.text  # the CSP refuses inline styles: the stylesheets carry them
    links = [link["href"] for link in view.html.select('head link[rel="stylesheet"]')]
    assert "http://school.test/builder/page.css" in links
    document_css = next(href for href in links if re.fullmatch(rf"http://school\.test/builder/css/{page['id']}\.css"
                                                              r"\?ver=\d+-\d+", href))
    for href in ("http://school.test/builder/page.css", document_css):
        stylesheet = app.client.get(href.removeprefix("http://school.test"))
        assert stylesheet.status_int == 200 and stylesheet.content_type == "text/css"
    assert "#1F4E79" in app.client.get(document_css.removeprefix("http://school.test")).text  # the heading colour

    draft = app.client.post_json(PAGES, {"title": "Secret rehearsal", "status": "draft", "meta": builder_meta(elements)},
                                 headers=admin.headers).json
    hidden = app.client.get(f"/?page_id={draft['id']}", status=404)
    assert "Secret rehearsal" not in hidden.text and "Races start" not in hidden.text
    app.client.get(f"/builder/css/{draft['id']}.css", status=404)
