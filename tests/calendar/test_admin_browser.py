"""An operator imports a term-dates file from the Calendar admin page in headless Chromium, against a
real `sitehost serve`, and reads the summary: what was created and what was not imported, and why."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

from playwright.sync_api import expect

from host.testing import stop_sitehost
from tests.admin.served import init_site, serve

TERM = Path(__file__).parent / "data" / "school-term.ics"


def test_an_operator_imports_an_ics_file_and_reads_the_summary(browser, tmp_path):
    config, login, password = init_site(tmp_path, demo=False)
    process, site, rest = serve(config, workers="1")
    page = browser.new_page()
    try:
        page.goto(site + "/admin/calendar")
        page.get_by_label("Username or email address").fill(login)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(lambda url: url.endswith("/admin/calendar"))
        page.get_by_label("iCalendar file (.ics)").set_input_files(str(TERM))
        page.get_by_role("button", name="Import the file").click()
        summary = page.get_by_role("region", name="Import summary")
        expect(summary).to_contain_text("4 created", use_inner_text=True)
        expect(summary).to_contain_text("1 failed", use_inner_text=True)
        expect(page.get_by_role("alert")).to_have_text(re.compile(r"^Import finished: 4 created"), use_inner_text=True)
        expect(summary.get_by_role("listitem")).to_have_count(1)  # the event not imported, with its reason
        with urllib.request.urlopen(rest + "/core/v2/cal_events?per_page=100", timeout=30) as response:
            assert response.status == 200 and response.headers["X-WP-Total"] == "4"  # what the summary counted
            assert len(json.load(response)) == 4
        page.get_by_label("Time zone").fill("Europe/Dublin")
        page.get_by_role("button", name="Save calendar settings").click()
        # The page being left has the same fields: the notice says the saved page is the one shown.
        expect(page.get_by_role("status")).to_have_text("Calendar settings saved.", use_inner_text=True)
        expect(page.get_by_label("Month")).to_be_checked()  # as stored
        expect(page.get_by_label("Day")).to_be_checked()
        expect(page.get_by_label("Time zone")).to_have_value("Europe/Dublin")
    finally:
        page.close()
        stop_sitehost(process)
