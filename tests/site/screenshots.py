"""Screenshots of every public page type on the demo site, in the theme, for docs/site/ (not a test):

    python -m tests.site.screenshots [FOLDER]

Serves a fresh demo site (every plugin) with pretty permalinks and saves, at 1280x900 (whole page): home,
post with comments, page, category archive, search, 404, an event, the events list, a venue and an
organizer, a course, a lesson as a visitor (locked) and as the enrolled pupil, a contact form's page, the form
refused (a bad email) and sent; and on a 390x844 phone (the first screen): the home page, a post, the event,
the lesson and the form.
"""

from __future__ import annotations

import json
import sys
import tempfile
import urllib.request
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from host.testing import chromium_path, stop_sitehost
from tests.admin.served import init_site, serve
from tests.forms.test_public_form_pages import demo_contact_page, fill_contact_form
from tests.lms.test_public_browser import COURSE, LESSON, add_pupil, enrol_pupil

OUT = Path(__file__).resolve().parents[2] / "docs" / "site"
DESKTOP, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}
PHONE_SHOTS = ("home", "post-with-comments", "event", "lesson", "form")
EVENT = "Year 11 parents' evening"


def _read(url: str):
    with urllib.request.urlopen(url) as response:
        return json.load(response)


def _items(rest: str, collection: str) -> list[dict]:
    return _read(f"{rest}/core/v2/{collection}?per_page=100")


def addresses(site: str, rest: str) -> dict[str, str]:
    """The address of each page type to photograph, by file name."""
    commented = {comment["post"] for comment in _items(rest, "comments")}
    posts = _items(rest, "posts")
    post = next((item for item in posts if item["id"] in commented), posts[0])
    category = next(item for item in _items(rest, "categories") if item["count"])
    events = _read(f"{rest}/cal/events/v1/events?per_page=50&start_date=2000-01-01&end_date=2100-01-01")["events"]
    event = next(item for item in events if item["title"] == EVENT)
    _contact, form_id = demo_contact_page(site, rest)
    return {"home": site + "/", "post-with-comments": post["link"], "page": _items(rest, "pages")[0]["link"],
            "archive": category["link"], "search": site + "/?s=school", "not-found": site + "/no-such-page/",
            "event": event["url"], "events-list": site + "/events/list/",
            "venue": _read(f"{rest}/cal/events/v1/venues?per_page=1")["venues"][0]["url"],
            "organizer": _read(f"{rest}/cal/events/v1/organizers?per_page=1")["organizers"][0]["url"],
            "course": site + COURSE, "lesson-locked": site + LESSON, "form": f"{site}/contact-forms/{form_id}"}


def _shoot(page, folder: Path, name: str) -> Path:
    phone = page.viewport_size["width"] < 500
    path = folder / f"{name}{'-phone' if phone else ''}.png"
    page.screenshot(path=str(path), full_page=not phone)
    return path


def photograph(folder: Path) -> list[Path]:
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as work:
        config, _login, _password = init_site(Path(work))
        add_pupil(config)
        with config.open("a", encoding="utf-8") as file:
            file.write('\n[site]\npermalink_structure = "/%year%/%monthnum%/%postname%/"\n')
        process, site, rest = serve(config)
        try:
            shots = addresses(site, rest)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
                for viewport in (DESKTOP, PHONE):
                    page = browser.new_page(viewport=viewport)
                    for name, address in shots.items():
                        if viewport is DESKTOP or name in PHONE_SHOTS:
                            page.goto(address, wait_until="networkidle")
                            written.append(_shoot(page, folder, name))
                    page.close()
                page = browser.new_page(viewport=DESKTOP)
                page.goto(shots["form"])
                page.get_by_label("Your email").fill("sam@")
                page.get_by_role("button", name="Send message").click()
                expect(page.locator("form.forms-form")).to_have_attribute("data-status", "invalid")
                written.append(_shoot(page, folder, "form-invalid"))
                fill_contact_form(page, "Could the office tell me when the Year 7 trip letters go out?")
                page.get_by_role("button", name="Send message").click()
                expect(page.locator("form.forms-form")).to_have_attribute("data-status", "sent")
                written.append(_shoot(page, folder, "form-sent"))
                enrol_pupil(page, site)  # the pupil enrols and opens the lesson
                for viewport in (DESKTOP, PHONE):
                    page.set_viewport_size(viewport)
                    page.goto(site + LESSON, wait_until="networkidle")
                    written.append(_shoot(page, folder, "lesson"))
                page.close()
                browser.close()
        finally:
            stop_sitehost(process)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    target.mkdir(parents=True, exist_ok=True)
    for shot in photograph(target):
        print(shot)
