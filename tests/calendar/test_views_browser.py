"""A visitor browses the calendar in a real Chromium: /events/, "Next month", that month's events."""

from __future__ import annotations

import datetime
import os
import re
import time
from zoneinfo import ZoneInfo

from playwright.sync_api import expect

from host.app import create_app
from host.testing import client_as, create_test_user, start_sitehost, stop_sitehost

from tests.calendar.helpers import new_event


def test_a_visitor_pages_to_next_month_and_sees_its_events(browser, tmp_path):
    database = f"sqlite:///{tmp_path / 'site.db'}"
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "{database}"\n[site]\ntimezone_string = "Europe/London"\n')
    today = datetime.datetime.now(ZoneInfo("Europe/London")).date()
    following = (today.replace(day=1) + datetime.timedelta(days=32)).replace(day=1)
    app = create_app(database_url=database, site={"timezone_string": "Europe/London"})
    try:
        admin = client_as(app, create_test_user(app, "administrator"))
        new_event(admin, title="Spring concert", start_date=f"{following:%Y-%m}-14 19:00",
                  end_date=f"{following:%Y-%m}-14 21:00")
        new_event(admin, title="Staff only briefing", status="draft", start_date=f"{following:%Y-%m}-15 08:00",
                  end_date=f"{following:%Y-%m}-15 08:30")
    finally:
        app.close()
    process, rest = start_sitehost(config, "--workers", "1", "--threads", "2", "--quiet", env={**os.environ})
    site = rest[: -len("/wp-json")]
    try:
        page = browser.new_page()
        views = []
        page.on("response", lambda response: views.append(response.status) if "/cal/views/v2/html" in response.url
                else None)
        try:
            answer = page.goto(f"{site}/events/")
            assert answer.status == 200
            heading = page.locator("#cal-heading")
            showing(heading, f"{today:%B %Y}")
            page.get_by_role("link", name="Next month").click()
            showing(heading, f"{following:%B %Y}")
            page.wait_for_url(f"{site}/events/month/{following:%Y-%m}/")
            grid = page.get_by_role("table")
            expect(grid).to_contain_text("Spring concert", use_inner_text=True)
            assert "Staff only briefing" not in page.content()
            assert views == [200]  # re-rendered in place through cal/views/v2/html with the page's tokens
            cell = page.get_by_role("link", name=f"{datetime.date(following.year, following.month, 14):%A} 14 "
                                                 f"{following:%B %Y}, 1 event")
            expect(cell).to_have_count(1)
            grid.get_by_role("link", name="19:00 Spring concert").click()  # the event's day, at the event
            concert_day = datetime.date(following.year, following.month, 14)
            showing(heading, f"{concert_day:%A} 14 {following:%B %Y}")
            assert page.evaluate("document.activeElement.className") == "cal-event"
            expect(page.locator("article.cal-event")).to_contain_text("19:00–21:00", use_inner_text=True)
            page.go_back()
            showing(heading, f"{following:%B %Y}")
            page.go_forward()
            showing(heading, f"{concert_day:%A} 14 {following:%B %Y}")
            assert views == [200, 200, 200, 200]

            # Two Back presses whose answers arrive in the opposite order: the month the visitor left
            # (answered last) must not replace the one the address bar shows.
            held = []
            page.route("**/cal/views/v2/html", lambda route: held.append(route))
            page.go_back()
            waiting_for(page, lambda: len(held) == 1)
            page.go_back()
            waiting_for(page, lambda: len(held) == 2)
            held[1].continue_()
            showing(heading, f"{today:%B %Y}")
            with page.expect_response(lambda response: response.request == held[0].request):
                held[0].continue_()
            page.wait_for_timeout(500)  # time for a stale answer to be (wrongly) drawn
            assert heading.inner_text() == f"{today:%B %Y}"  # read now, on purpose: nothing may change it
            assert page.url == f"{site}/events/"
        finally:
            page.close()
    finally:
        stop_sitehost(process)


def showing(heading, text: str) -> None:
    """Assert, waiting, that the heading reads exactly `text`: "December 2026" is also part of a day's heading."""
    expect(heading).to_have_text(re.compile(f"^{re.escape(text)}$"), use_inner_text=True)


def waiting_for(page, condition, seconds: float = 10) -> None:
    """Let the page run (its events, our route handlers) until `condition()` holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the page did not get there in time"
        page.wait_for_timeout(20)
