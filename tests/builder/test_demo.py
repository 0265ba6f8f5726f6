"""Demo content: the Open day landing page renders in its HTML view, and a template waits in the library.

The view's CSP refuses inline styles and images from other hosts, so the demo page shows core's demo
picture from the site's own uploads, and its HTML view carries no `style` attribute (the document's
stylesheet carries the styles); all-day events show their day without a time.
"""

from __future__ import annotations

import re

from host.testing import create_test_user
from host.text import without_style_attributes

from .helpers import BUILDER, calendar_stand_in


def test_open_day_page_renders_in_the_html_view(make_app):
    app = make_app(plugins=["core", "builder", calendar_stand_in()])
    assert "demo content written" in app.install_site(demo=True)
    pages = app.client.get("/wp-json/core/v2/pages?search=Open day").json
    page = next(page for page in pages if page["title"]["rendered"] == "Open day")
    view = app.client.get(f"/?page_id={page['id']}")
    html = view.text
    assert view.status_int == 200 and "/builder/page.css" in html
    assert '<h1 class="builder-heading">Open day: Saturday 14 March</h1>' in html
    assert "Meet our teachers, tour the science labs" in html
    assert 'href="mailto:admissions@school.invalid"' in html and "Book your visit</a>" in html
    assert " style=" not in html  # every style is in the linked stylesheets
    stylesheet = re.search(r'href="[^"]*(/builder/css/\d+\.css\?ver=[^"]+)"', html).group(1)
    assert "background-color:var(--builder-color-primary)" in app.client.get(stylesheet).text
    assert "Coming up at Riverside</h2><ul class=\"builder-events\"><li>" in html  # the calendar's demo events
    assert without_style_attributes(page["content"]["rendered"]) in html  # the API's HTML, styles aside
    assert 'style="color:#FFFFFF"' in page["content"]["rendered"]  # API readers keep the inline styles
    image = re.search(r'<img src="(/uploads/[^"]+\.png)" alt="Pupils working together in a bright classroom"', html)
    assert image is not None, "the demo picture is served from the site itself"
    picture = app.client.get(image.group(1))
    assert picture.status_int == 200 and picture.content_type == "image/png" and picture.body[:4] == b"\x89PNG"
    media = app.client.get("/wp-json/core/v2/media?slug=open-day-classroom").json
    assert [item["alt_text"] for item in media] == ["Pupils working together in a bright classroom"]
    assert media[0]["media_details"]["width"] == 640 and media[0]["source_url"].endswith(image.group(1))
    admin = create_test_user(app, "administrator")
    documents = app.client.get("/wp-json/builder/v1/documents", headers=admin.headers).json["documents"]
    assert {(doc["title"], doc["template_type"]) for doc in documents} == {
        ("Open day", "wp-page"), ("Admissions call to action", "section")}
    templates = app.client.get(f"{BUILDER}/template-library/templates", headers=admin.headers).json
    assert [(item["title"], item["type"]) for item in templates] == [("Admissions call to action", "section")]


def test_all_day_events_show_their_day_without_a_time(make_app):
    app = make_app(plugins=["core", "builder", calendar_stand_in()])
    app.install_site(demo=True)
    events = app.client.get("/wp-json/cal/events/v1/events?per_page=3").json["events"]
    assert events and all(event["all_day"] for event in events)  # the demo's first events are term dates
    page = next(page for page in app.client.get("/wp-json/core/v2/pages?search=Open day").json
                if page["title"]["rendered"] == "Open day")
    listing = app.client.get(f"/?page_id={page['id']}").html.select_one("ul.builder-events")
    times = listing.select("time")
    assert len(times) == len(events)
    for event, shown in zip(events, times):
        assert shown["datetime"] == event["start_date"][:10]
        assert ":" not in shown.text and shown.text.strip()  # "19 December 2026", not "..., 00:00"
