"""axe-core in Chromium on every public page type of a served demo site with every plugin: no serious or
critical WCAG 2.1 A/AA violation, at desktop and phone sizes. Core's pages (home, post with comments, page,
category, tag and author archives, search, 404), the calendar's (event, events list and month, venue,
organizer, event category), the catalogue's (course, lesson and quiz, as an anonymous visitor and as an
enrolled pupil) and a contact form's page, before and after it is sent without JavaScript."""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from host.testing import stop_sitehost
from tests.admin.served import init_site, serve
from tests.forms.test_public_form_pages import demo_contact_page, fill_contact_form
from tests.lms.test_public_browser import COURSE, LESSON, add_pupil, enrol_pupil

from .axe_check import axe_violations

VIEWPORTS = ({"width": 1280, "height": 900}, {"width": 390, "height": 844})


def _read(url: str):
    with urllib.request.urlopen(url) as response:
        return json.load(response)


def _first_link(rest: str, collection: str) -> str:
    items = _read(f"{rest}/core/v2/{collection}?per_page=100")
    return next(item["link"] for item in items if collection not in ("categories", "tags") or item["count"])


def _calendar_addresses(site: str, rest: str) -> dict[str, str]:
    calendar = f"{rest}/cal/events/v1"
    events = _read(f"{calendar}/events?per_page=50&start_date=2000-01-01&end_date=2100-01-01")["events"]
    event = next(event for event in events if event.get("venue") and event.get("organizer"))
    category = next(term for term in _read(f"{calendar}/categories?per_page=50")["categories"] if term["count"])
    return {"event": event["url"], "events list": site + "/events/list/", "events month": site + "/events/",
            "venue": _read(f"{calendar}/venues?per_page=1")["venues"][0]["url"],
            "organizer": _read(f"{calendar}/organizers?per_page=1")["organizers"][0]["url"],
            "event category": category["url"]}


def _check(page, name: str, found: dict) -> None:
    """axe on the page as it is now, at each viewport; violations kept under `name` and the width."""
    for viewport in VIEWPORTS:
        page.set_viewport_size(viewport)
        violations = axe_violations(page)
        if violations:
            found[f"{name} {viewport['width']}px"] = violations


def _visit_all(page, addresses: dict[str, str], found: dict) -> None:
    for name, address in addresses.items():
        response = page.goto(address)
        assert response is not None and response.status in (200, 404), (name, address, response and response.status)
        _check(page, name, found)


def test_every_page_type_has_no_serious_accessibility_violation(browser, tmp_path):
    config, _login, _password = init_site(tmp_path)
    add_pupil(config)
    with config.open("a", encoding="utf-8") as file:
        file.write('\n[site]\npermalink_structure = "/%year%/%monthnum%/%postname%/"\n')
    process, site, rest = serve(config)
    found: dict[str, list] = {}
    try:
        contact, form_id = demo_contact_page(site, rest)
        quiz = _first_link(rest, "quizzes")
        addresses = {"home": site + "/", "post": _first_link(rest, "posts"), "page": _first_link(rest, "pages"),
                     "category": _first_link(rest, "categories"), "tag": _first_link(rest, "tags"),
                     "author": _first_link(rest, "users"), "search": site + "/?s=school",
                     "not found": site + "/no-such-page/", **_calendar_addresses(site, rest),
                     "course": site + COURSE, "lesson": site + LESSON, "quiz": quiz,
                     "form": f"{site}/contact-forms/{form_id}", "page with a form": contact}
        page = browser.new_page(viewport=VIEWPORTS[0])
        try:
            _visit_all(page, addresses, found)
            assert "/contact-forms/" not in page.url  # (the last page: the form inside its page)

            # The form sent without JavaScript (forms.js not loaded): the answer is the form's own page.
            page.route("**/forms.js", lambda route: route.abort())
            page.goto(f"{site}/contact-forms/{form_id}")
            fill_contact_form(page, "Could the office tell me when the accessibility check runs?")
            page.get_by_role("button", name="Send message").click()
            page.wait_for_url(f"{site}/contact-forms/{form_id}")
            expect(page.locator("form.forms-form")).to_have_attribute("data-status", "sent")
            _check(page, "form sent without JavaScript", found)
            page.get_by_label("Your email").fill("sam@")
            page.get_by_role("button", name="Send message").click()
            expect(page.locator("form.forms-form")).to_have_attribute("data-status", "invalid")
            _check(page, "form refused without JavaScript", found)
            page.unroute("**/forms.js")

            # An enrolled pupil's course, lesson and quiz pages (the text shown, the next-step links).
            enrol_pupil(page, site)
            _check(page, "course enrolled", found)
            _visit_all(page, {"lesson enrolled": site + LESSON, "quiz enrolled": quiz,
                              "post signed in": addresses["post"]}, found)
        finally:
            page.close()
        assert found == {}
    finally:
        stop_sitehost(process)
