"""Demo content: the Open day landing page renders in its HTML view, and a template waits in the library."""

from __future__ import annotations

from host.testing import create_test_user

from .helpers import BUILDER, calendar_stand_in


def test_open_day_page_renders_in_the_html_view(make_app):
    app = make_app(plugins=["core", "builder", calendar_stand_in()])
    assert "demo content written" in app.install_site(demo=True)
    pages = app.client.get("/wp-json/core/v2/pages?search=Open day").json
    page = next(page for page in pages if page["title"]["rendered"] == "Open day")
    view = app.client.get(f"/?page_id={page['id']}")
    html = view.text
    assert view.status_int == 200 and "/builder/page.css" in html
    assert '<h1 class="builder-heading" style="color:#FFFFFF">Open day: Saturday 14 March</h1>' in html
    assert "Meet our teachers, tour the science labs" in html
    assert 'alt="Pupils working together in a bright classroom"' in html
    assert 'href="mailto:admissions@school.invalid"' in html and "Book your visit</a>" in html
    assert "background-color:var(--builder-color-primary)" in html
    assert "Coming up at Riverside</h2><ul class=\"builder-events\"><li>" in html  # the calendar's demo events
    assert page["content"]["rendered"] in html  # the same HTML as the API's content.rendered
    admin = create_test_user(app, "administrator")
    documents = app.client.get("/wp-json/builder/v1/documents", headers=admin.headers).json["documents"]
    assert {(doc["title"], doc["template_type"]) for doc in documents} == {
        ("Open day", "wp-page"), ("Admissions call to action", "section")}
    templates = app.client.get(f"{BUILDER}/template-library/templates", headers=admin.headers).json
    assert [(item["title"], item["type"]) for item in templates] == [("Admissions call to action", "section")]
