"""A visitor opens an event from the events list in a real Chromium and adds it to their calendar."""

from __future__ import annotations

import datetime
import os
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
from playwright.sync_api import expect

from host.app import create_app
from host.testing import BROWSER_WAIT_MS, client_as, create_test_user, start_sitehost, stop_sitehost

from tests.calendar.helpers import API, new_event, new_venue


def test_a_visitor_opens_an_event_from_the_list_and_adds_it_to_a_calendar(browser, tmp_path):
    database = f"sqlite:///{tmp_path / 'site.db'}"
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "{database}"\n[site]\ntimezone_string = "Europe/London"\n')
    soon = datetime.datetime.now(ZoneInfo("Europe/London")).date() + datetime.timedelta(days=3)
    app = create_app(database_url=database, site={"timezone_string": "Europe/London"})
    try:
        admin = client_as(app, create_test_user(app, "administrator"))
        hall = new_venue(admin, venue="Main hall", address="Mill Lane", city="Riverside")
        concert = new_event(admin, title="Winter concert", venue=hall["id"], start_date=f"{soon} 19:00",
                            end_date=f"{soon} 21:00", description="<p>Orchestra and choirs.</p>")
        assert admin.get(f"{API}/events/{concert['id']}").json["url"].endswith("/event/winter-concert/")
    finally:
        app.close()
    process, rest = start_sitehost(config, "--workers", "1", "--threads", "2", "--quiet", env={**os.environ})
    site = rest[: -len("/wp-json")]
    try:
        page = browser.new_page(accept_downloads=True)
        try:
            assert page.goto(f"{site}/events/list/").status == 200
            page.get_by_role("link", name="Winter concert").click()
            page.wait_for_url(f"{site}/event/winter-concert/")
            expect(page.get_by_role("heading", level=1)).to_have_text("Winter concert", timeout=BROWSER_WAIT_MS)
            expect(page.locator(".calp-when-main")).to_contain_text("7:00pm to 9:00pm", timeout=BROWSER_WAIT_MS)
            expect(page.get_by_role("link", name="Show Main hall on OpenStreetMap")).to_have_attribute(
                "href", re.compile(r"^https://www\.openstreetmap\.org/search\?query=Main\+hall"))
            with page.expect_download(timeout=BROWSER_WAIT_MS) as downloading:
                page.get_by_role("link", name="Add to calendar (.ics)").click()
            download = downloading.value
            assert download.suggested_filename == "winter-concert.ics"
            calendar = icalendar.Calendar.from_ical(Path(download.path()).read_bytes())
            [event] = calendar.walk("VEVENT")
            assert str(event["SUMMARY"]) == "Winter concert"
            assert str(event["URL"]) == f"{site}/event/winter-concert/"
            assert event.decoded("DTSTART").astimezone(ZoneInfo("Europe/London")).strftime("%H:%M") == "19:00"
        finally:
            page.close()
    finally:
        stop_sitehost(process)
