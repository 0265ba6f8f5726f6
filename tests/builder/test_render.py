"""Builder documents render their element trees into content.rendered and the HTML view, safely."""

from __future__ import annotations

import json
import logging

import pytest

from host.testing import create_test_user

from .helpers import BUILDER, PAGES, add_events, builder_meta, calendar_stand_in, create_page, section, widget

EVERY_WIDGET = [
    section("s1", widget("w1", "heading", title="Admissions <em>2026</em>", header_size="h1",
                         link={"url": "https://school.test/apply"}, title_color="#123456"),
            widget("w2", "text-editor", editor="<p>Apply by <strong>1 March</strong>.</p>"),
            widget("w3", "image", image={"url": "https://cdn.example.org/hall.jpg", "alt": "The main hall"},
                   caption="Our hall"),
            widget("w4", "button", text="Book a visit", link={"url": "mailto:office@school.invalid"}),
            widget("w5", "spacer", space={"unit": "px", "size": 40}),
            widget("w6", "divider", weight={"unit": "px", "size": 3}),
            widget("w7", "video", youtube_url="https://www.youtube.com/watch?v=dQw4w9WgXcQ", title="School tour"),
            widget("w8", "icon-list", icon_list=[{"text": "Small classes", "selected_icon": {"value": "fas fa-check"}},
                                                 {"text": "Find us", "link": {"url": "/?page_id=2"}}]),
            background_color="#FAFAFA"),
    {"id": "k1", "elType": "container", "settings": {"flex_direction": "row", "html_tag": "aside"},
     "elements": [widget("k2", "heading", title="Contact", __globals__={"title_color": "globals/colors?id=accent"})]},
]
HOSTILE = [section("h1", widget(
    "h2", "text-editor", editor='<p onclick="steal()">Hi<script>alert(1)</script><img src=x onerror=alert(2)>'
                               '<a href="javascript:alert(3)">x</a><iframe src="https://evil.example"></iframe></p>'),
    widget("h3", "heading", title='"><script>alert(4)</script>'),
    widget("h4", "button", text="Go", link={"url": "javascript:alert(5)"}),
    widget("h5", "image", image={"url": "data:image/svg+xml,<svg onload=alert(6)>", "alt": '" onerror="x'}),
    widget("h6", "video", youtube_url="https://evil.example/watch?v=dQw4w9WgXcQ"),
    widget("h7", "heading", title="Styled", title_color="red;background:url(https://evil.example/x)"),
    _element_id='x" onmouseover="alert(7)', _css_classes='a" onclick="x', background_color="expression(alert(8))")]


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "builder"])
    admin = create_test_user(app, "administrator")
    author = create_test_user(app, "author")
    pages = {
        "every": create_page(app.client, admin.headers, EVERY_WIDGET).json["id"],
        "hostile": app.client.post_json("/wp-json/core/v2/posts", {
            "title": "Hostile", "status": "publish", "meta": builder_meta(HOSTILE)}, headers=author.headers).json["id"],
        "unknown": create_page(app.client, admin.headers, [section("u1", widget("u2", "slider", slides=[1]),
                                                                   widget("u3", "heading", title="Still here"))]
                               ).json["id"],
        "plain": app.client.post_json(PAGES, {"title": "Plain", "status": "publish", "content": "Just text.",
                                              "meta": {"_builder_data": json.dumps(EVERY_WIDGET)}},
                                      headers=admin.headers).json["id"],
    }
    return app, admin, author, pages


def rendered(app, page_id, path="pages"):
    return app.client.get(f"/wp-json/core/v2/{path}/{page_id}").json["content"]["rendered"]


def test_every_common_widget_becomes_accessible_html(site):
    app, _admin, _author, pages = site
    html = rendered(app, pages["every"])
    assert html.startswith('<div class="builder-page builder-document-')
    assert '<section class="builder-section builder-element-s1" style="background-color:#FAFAFA">' in html
    assert '<div class="builder-column builder-element-s1c" style="flex-basis:calc(100% - 2rem)">' in html
    assert '<h1 class="builder-heading" style="color:#123456"><a href="https://school.test/apply" ' in html
    assert "Admissions <em>2026</em></a></h1>" in html
    assert '<div class="builder-text"><p>Apply by <strong>1 March</strong>.</p></div>' in html
    assert '<figure class="builder-image"><img src="https://cdn.example.org/hall.jpg" alt="The main hall" ' \
           'loading="lazy"' in html and "<figcaption>Our hall</figcaption>" in html
    assert 'href="mailto:office@school.invalid"' in html and ">Book a visit</a>" in html
    assert '<div class="builder-spacer" aria-hidden="true" style="height:40px"></div>' in html
    assert '<hr class="builder-divider" style="border:0;border-top:3px solid currentColor">' in html
    assert '<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" title="School tour"' in html
    assert '<span class="builder-icon" aria-hidden="true">\u2713</span> Small classes' in html
    assert '<a href="/?page_id=2" rel="noopener noreferrer">Find us</a>' in html
    assert '<aside class="builder-container builder-element-k1" style="flex-direction:row">' in html
    assert 'style="color:var(--builder-color-accent)">Contact</h2>' in html


def test_pages_carry_the_kit_as_css_custom_properties(site):
    app, _admin, _author, pages = site
    html = rendered(app, pages["every"])
    wrapper = html.split(">", 1)[0]
    assert "--builder-color-primary:#1F4E79" in wrapper and "--builder-color-accent:#2E8540" in wrapper
    assert "--builder-font-primary-family:Georgia, serif" in wrapper and "--builder-font-text-weight:400" in wrapper


def test_output_is_sanitized_whoever_wrote_it(site):
    app, _admin, _author, pages = site
    html = rendered(app, pages["hostile"], "posts")
    for bad in ("<script", "onclick", "onerror", "onmouseover", "javascript:", "data:image", "evil.example",
                "expression(", "alert(4)"):
        assert bad not in html, bad
    assert "<p>Hi" in html
    assert '<span class="builder-button builder-size-md"' in html  # a link that is not safe is dropped, text kept
    assert '<h2 class="builder-heading">Styled</h2>' in html  # an invalid colour is left out


def test_unknown_widgets_render_as_nothing_and_are_logged(site, caplog):
    app, admin, _author, pages = site
    caplog.set_level(logging.WARNING, logger="sitehost.builder")
    # clearing the builder cache makes the next read render afresh
    app.client.delete(f"{BUILDER}/cache", headers=admin.headers, status=200)
    html = rendered(app, pages["unknown"])
    assert "slider" not in html and "builder-element-u2" not in html
    assert "Still here</h2>" in html
    assert any("'slider' is not registered" in record.getMessage() for record in caplog.records)


def test_only_builder_mode_renders_the_tree(site):
    app, _admin, _author, pages = site
    assert rendered(app, pages["plain"]) == "<p>Just text.</p>\n"


def test_html_view_shows_the_rendered_tree_with_its_stylesheets(site):
    app, _admin, _author, pages = site
    view = app.client.get(f"/?page_id={pages['every']}")
    assert view.status_int == 200 and view.content_type == "text/html"
    assert "default-src 'self'" in view.headers["Content-Security-Policy"]  # inline styles would be ignored
    assert '<link rel="stylesheet" href="http://school.test/builder/page.css">' in view.text
    css_path = view.text.split(f'href="http://school.test/builder/css/{pages["every"]}.css?ver=', 1)[1].split('"')[0]
    assert '<div class="builder-page builder-document-' in view.text  # inside the theme's article
    assert "Admissions <em>2026</em>" in view.text
    layout = app.client.get("/builder/page.css")
    assert layout.content_type == "text/css" and ".builder-section-inner{display:flex" in layout.text
    css = app.client.get(f"/builder/css/{pages['every']}.css?ver={css_path}")
    assert css.content_type == "text/css"
    assert f".builder-document-{pages['every']}{{--builder-color-primary:#1F4E79;" in css.text
    assert ".builder-element-s1{background-color:#FAFAFA}" in css.text
    assert ".builder-element-w1 .builder-heading{color:#123456}" in css.text
    assert ".builder-element-k2 .builder-heading{color:var(--builder-color-accent)}" in css.text
    plain = app.client.get(f"/?page_id={pages['plain']}")
    assert "builder/page.css" not in plain.text
    app.client.get(f"/builder/css/{pages['plain']}.css", status=404)
    app.client.get("/builder/css/99999.css", status=404)


def test_stylesheets_hold_nothing_hostile(site):
    app, _admin, _author, pages = site
    css = app.client.get(f"/builder/css/{pages['hostile']}.css").text
    for bad in ("url(", "expression", "</style", "<script", "}{"):
        assert bad not in css, bad


def test_builder_meta_is_edit_context_only_with_defaults(site):
    app, admin, _author, pages = site
    view = app.client.get(f"{PAGES}/{pages['every']}").json["meta"]
    assert not any(key.startswith("_builder") for key in view)
    edit = app.client.get(f"{PAGES}/{pages['plain']}?context=edit", headers=admin.headers).json["meta"]
    assert edit["_builder_edit_mode"] == "" and edit["_builder_template_type"] == ""
    assert edit["_builder_page_settings"] == {} and json.loads(edit["_builder_data"]) == EVERY_WIDGET


def test_meta_enums_and_calendar_template_type_follow_the_registry(site, make_app):
    app, _admin, _author, _pages = site
    described = app.client.options(PAGES).json["endpoints"][1]["args"]["meta"]["properties"]
    template_enum = described["_builder_template_type"]["enum"]
    assert template_enum == ["post", "wp-post", "wp-page", "kit", "not-supported", "page", "section", "container",
                             "floating-buttons", "cloud-template-preview", ""]
    assert described["_builder_edit_mode"]["enum"] == ["", "builder"]
    assert described["_builder_page_settings"]["properties"]["hide_title"]["enum"] == ["yes", "no", ""]
    assert all(described[key]["context"] == ["edit"] for key in described if key.startswith("_builder"))
    with_calendar = make_app(plugins=["core", "builder", calendar_stand_in()])
    described = with_calendar.client.options(PAGES).json["endpoints"][1]["args"]["meta"]["properties"]
    assert "calx_event_single_static" in described["_builder_template_type"]["enum"]


def test_namespaces_are_advertised(site):
    app, _admin, _author, _pages = site
    namespaces = app.client.get("/wp-json/").json["namespaces"]
    assert {"builder/v1", "builder/v1/documents", "builder-ai/v1"} <= set(namespaces)
    index = app.client.get(f"{BUILDER}/documents").json
    assert index["namespace"] == "builder/v1/documents" and "documents" not in index
    assert "/builder/v1/documents/(?P<id>[\\d]+)/media/import" in index["routes"]


# Every widget and container setting, and values that need escaping: content.rendered's exact bytes.
EXACT_TREE = [
    section("e1", widget("e2", "text-editor", editor="Line one\n\nLine 'two' & <b>three</b>", text_color="#111",
                         typography_typography="custom", typography_font_size={"unit": "px", "size": 18}),
            widget("e3", "image", image={"url": "/uploads/a b'.jpg", "alt": "A \"quoted\" & 'x' alt"},
                   link={"url": "https://x.test/?a=1&b='2'"}, caption="Cap & <tion> 'q'", width={"unit": "%", "size": 50}),
            widget("e4", "button", text="No link & 'x'", size="lg", button_text_color="#000"),
            widget("e5", "video", video_type="vimeo", vimeo_url="https://vimeo.com/12345", title="A 'vid' & <x>"),
            widget("e6", "icon-list", text_color="#222", icon_list=[{"text": "One & 'two'", "selected_icon": "fa-star", "link": {"url": "tel:+123"}},
                   {"text": "   "}, {"text": "Odd", "selected_icon": {"value": "fas fa-unknown"}}]),
            widget("e7", "heading", title="Plain", header_size="h7", align="center",
                   __globals__={"typography_typography": "globals/typography?id=primary"}),
            widget("e8", "divider", color="#abc", width={"unit": "px", "size": 100}),
            widget("e9", "cal-events-list", title="What's on & more", posts_per_page=5),
            widget("e10", "cal-events-list", posts_per_page=2),
            _element_id="intro-1", _css_classes="big wide x\"y", padding={"unit": "px", "top": 1, "right": 2, "bottom": 3, "left": 4},
            min_height={"unit": "vh", "size": 50}),
    {"id": "c1", "elType": "container", "settings": {"gap": {"unit": "px", "size": 10}, "html_tag": "nav"},
     "elements": [{"id": "c2", "elType": "column", "settings": {"_column_size": "33.5"}, "elements": []},
                  {"id": "c3", "elType": "column", "settings": {"_column_size": "bad"}, "elements": []}]},
]
EXACT_HTML = (
    '<div class="builder-page builder-document-{id}" style="--builder-color-primary:#1F4E79;'
    '--builder-color-secondary:#F2A900;--builder-color-text:#333333;--builder-color-accent:#2E8540;'
    '--builder-font-primary-family:Georgia, serif;--builder-font-primary-weight:700;'
    '--builder-font-secondary-family:Georgia, serif;--builder-font-secondary-weight:400;'
    '--builder-font-text-family:system-ui, sans-serif;--builder-font-text-weight:400;'
    '--builder-font-accent-family:system-ui, sans-serif;--builder-font-accent-weight:600">'
    '<section class="builder-section builder-element-e1 big wide" id="intro-1" style="padding:1px 2px 3px 4px;'
    'min-height:50vh">'
    '<div class="builder-section-inner">'
    '<div class="builder-column builder-element-e1c" style="flex-basis:calc(100% - 2rem)">'
    '<div class="builder-widget builder-widget-text-editor builder-element-e2">'
    '<div class="builder-text" style="color:#111;font-size:18px"><p>Line one</p><p>Line \'two\' &amp; '
    '<b>three</b></p></div></div><div class="builder-widget builder-widget-image builder-element-e3">'
    '<figure class="builder-image"><a href="https://x.test/?a=1&amp;b=\'2\'" rel="noopener noreferrer">'
    '<img src="/uploads/a b\'.jpg" alt="A &quot;quoted&quot; &amp;'
    ' \'x\' alt" loading="lazy" style="width:50%;max-width:100%;height:auto">'
    "</a><figcaption>Cap &amp; &lt;tion&gt; 'q'</figcaption></figure></div>"
    '<div class="builder-widget builder-widget-button builder-element-e4">'
    '<span class="builder-button builder-size-lg" style="background-color:var(--builder-color-accent, #2E8540);'
    'color:#000">No link &amp; \'x\''
    '</span></div><div class="builder-widget builder-widget-video builder-element-e5">'
    '<div class="builder-video" style="position:relative;padding-top:56.25%">'
    '<iframe src="https://player.vimeo.com/video/12345" title="A \'vid\' &amp; &lt;x&gt;'
    '" loading="lazy" allow="encrypted-media;'
    ' picture-in-picture" allowfullscreen="" style="position:absolute;top:0;left:0;width:100%;'
    'height:100%;border:0">'
    '</iframe></div></div><div class="builder-widget builder-widget-icon-list builder-element-e6">'
    '<ul class="builder-icon-list" style="color:#222"><li><span class="builder-icon" aria-hidden="true">★'
    '</span> <a href="tel:+123" rel="noopener noreferrer">One &amp; \'two\'</a></li><li>'
    '<span class="builder-icon" aria-hidden="true">•</span> Odd</li></ul></div>'
    '<div class="builder-widget builder-widget-heading builder-element-e7" style="text-align:center">'
    '<h2 class="builder-heading" style="font-family:var(--builder-font-primary-family);'
    'font-weight:var(--builder-font-primary-weight)">Plain'
    '</h2></div><div class="builder-widget builder-widget-divider builder-element-e8">'
    '<hr class="builder-divider" style="border:0;border-top:1px solid #abc;width:100px"></div>'
    '<div class="builder-widget builder-widget-cal-events-list builder-element-e9">'
    '<h2 class="builder-heading">What\'s on &amp; more</h2><ul class="builder-events"><li>'
    '<a href="http://school.test/event/year-7-open-evening/" rel="noopener noreferrer">Year 7 open evening'
    '</a> <time datetime="2027-03-14T18:00:00">14 March 2027, 18:00</time></li><li>'
    '<a href="http://school.test/event/spring-concert-prize-giving/" rel="noopener noreferrer">Spring concert &amp;'
    ' prize giving'
    '</a> <time datetime="2027-03-20T19:00:00">20 March 2027, 19:00</time></li></ul></div>'
    '<div class="builder-widget builder-widget-cal-events-list builder-element-e10">'
    '<ul class="builder-events"><li>'
    '<a href="http://school.test/event/year-7-open-evening/" rel="noopener noreferrer">Year 7 open evening'
    '</a> <time datetime="2027-03-14T18:00:00">14 March 2027, 18:00</time></li><li>'
    '<a href="http://school.test/event/spring-concert-prize-giving/" rel="noopener noreferrer">Spring concert &amp;'
    ' prize giving'
    '</a> <time datetime="2027-03-20T19:00:00">20 March 2027, 19:00</time></li></ul></div></div></div>'
    '</section><nav class="builder-container builder-element-c1" style="flex-direction:column;gap:10px">'
    '<div class="builder-column builder-element-c2" style="flex-basis:calc(33.5% - 2rem)"></div>'
    '<div class="builder-column builder-element-c3" style="flex-basis:calc(100% - 2rem)"></div></nav>'
    '</div>')


def test_the_rendered_html_keeps_its_exact_bytes(make_app):
    app = make_app(plugins=["core", "builder", "calendar"])
    admin = create_test_user(app, "administrator")
    add_events(app, admin.headers)
    page = create_page(app.client, admin.headers, EXACT_TREE).json
    assert page["content"]["rendered"] == EXACT_HTML.replace("{id}", str(page["id"]))
