"""Plugins' public pages render through the theme, so the operator's template folder (`[site]
templates_dir`) overrides them as it does core's: a calendar venue page, the events list, an lms course page
and the forms plugin's missing-form page each take the operator's file of the same name."""

from __future__ import annotations

from urllib.parse import urlsplit

from .helpers import parse_strict


def _path(link: str) -> str:
    return urlsplit(link).path


def test_operator_templates_replace_plugin_page_templates(make_app, tmp_path):
    folder = tmp_path / "theme"
    (folder / "public").mkdir(parents=True)
    (folder / "public" / "venue.html").write_text(
        '<p class="operator-venue">Find {{ place.venue }} by the river gate.</p>\n', encoding="utf-8")
    (folder / "public" / "views.html").write_text(
        '<p class="operator-events">The {{ view }} of the school calendar.</p>\n', encoding="utf-8")
    (folder / "lms_page_course.html").write_text(
        '<p class="operator-course">{{ course.title }}: ask the school office about places.</p>\n', encoding="utf-8")
    (folder / "forms_missing.html").write_text('<p class="operator-form">That form has moved.</p>\n', encoding="utf-8")
    app = make_app(plugins=["core", "calendar", "lms", "forms"], site={"templates_dir": str(folder)})
    app.install_site(demo=True)
    venue = app.client.get("/wp-json/cal/events/v1/venues", {"per_page": 1}).json["venues"][0]
    course = app.client.get("/wp-json/core/v2/courses", {"per_page": 1}).json[0]

    page = app.client.get(_path(venue["url"]))
    document = parse_strict(page.text)
    assert page.status_int == 200
    assert "".join(document.find(".//main/p[@class='operator-venue']").itertext()) == \
        f"Find {venue['venue']} by the river gate."
    assert document.find(".//main/h1").text == venue["venue"]  # still in the theme's layout
    assert "calp-place" not in page.text and "calendar-pages.css" in page.text  # the head stays the plugin's

    page = app.client.get("/events/list/")
    assert parse_strict(page.text).find(".//main/div/p[@class='operator-events']").text == \
        "The list of the school calendar."

    page = app.client.get(_path(course["link"]))
    document = parse_strict(page.text)
    assert page.status_int == 200
    assert document.find(".//main/p[@class='operator-course']").text == \
        f"{course['title']['rendered']}: ask the school office about places."
    assert "Course content" not in page.text

    page = app.client.get("/contact-forms/999999", status=404)
    assert parse_strict(page.text).find(".//main/p[@class='operator-form']").text == "That form has moved."


def test_plugin_pages_use_their_own_templates_without_an_operator_folder(make_app):
    app = make_app(plugins=["core", "calendar", "lms"])
    app.install_site(demo=True)
    venue = app.client.get("/wp-json/cal/events/v1/venues", {"per_page": 1}).json["venues"][0]
    course = app.client.get("/wp-json/core/v2/courses", {"per_page": 1}).json[0]
    assert "operator-venue" not in app.client.get(_path(venue["url"])).text
    assert "operator-course" not in app.client.get(_path(course["link"])).text
