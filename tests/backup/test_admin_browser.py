"""An administrator backs the site up, verifies and downloads the archive and sets a schedule in headless
Chromium against a real `sitehost serve` (two workers: the job's state is read from the database)."""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from host.testing import stop_sitehost
from tests.admin.served import init_site, serve


def test_an_administrator_backs_up_verifies_downloads_and_schedules(browser, tmp_path):
    config, login, password = init_site(tmp_path)
    process, site, _rest = serve(config)
    page = browser.new_page(accept_downloads=True)
    try:
        page.goto(site + "/admin/sign-in")
        page.get_by_label("Username or email address").fill(login)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(lambda url: "/sign-in" not in url)
        page.get_by_role("navigation", name="Admin").get_by_role("link", name="Backups").click()
        expect(page.locator("main")).to_contain_text("No backup yet", use_inner_text=True)
        page.get_by_role("button", name="Back up now").click()
        job_ends_well(page, site, "Backup")
        name = page.locator("section[aria-labelledby=archives-heading] tbody code").first.inner_text()
        page.get_by_role("button", name=f"Verify {name}").click()
        job_ends_well(page, site, f"Verification of {name}", "match their checksums")
        with page.expect_download() as download:
            page.get_by_role("link", name=f"Download {name}").click()
        assert download.value.suggested_filename == name
        download.value.save_as(tmp_path / "copy.tar")
        assert (tmp_path / "copy.tar").read_bytes() == (tmp_path / "backups" / name).read_bytes()
        page.get_by_role("textbox", name="Schedule").fill("daily 2:30")
        page.get_by_role("button", name="Save schedule").click()
        expect(page.get_by_role("status").first).to_contain_text("Backups now run daily at 02:30",
                                                                 use_inner_text=True)
        expect(page.locator("main")).to_contain_text("Chosen on this page", use_inner_text=True)
    finally:
        page.close()
        stop_sitehost(process)


def job_ends_well(page, site: str, what: str, message: str = "") -> None:
    """The job a button started ends well, as the operator sees it: "<what> done (job N): <message>".

    The page waits a few seconds for the job; on a busy machine it answers "<what> is running (job N)"
    instead, and the operator reloads, as that notice asks, until the Jobs table shows the job done
    with its message.
    """
    notice = page.get_by_role("status").first
    expect(notice).to_have_text(re.compile(rf"^{re.escape(what)} (done|is running) \(job \d+\)"), use_inner_text=True)
    text = notice.inner_text()
    if " is running " not in text:
        assert f"{what} done" in text and message in text, text
        return
    job = re.search(r"\(job (\d+)\)", text).group(1)
    row = page.locator("section[aria-labelledby=jobs-heading] tbody tr").filter(
        has=page.locator("td[data-label=Job]", has_text=re.compile(rf"^{job}$")))
    state = row.locator("td[data-label=State] .status")  # its "running" is followed by the stage and percent
    deadline = time.monotonic() + 120
    while True:
        page.goto(site + "/admin/backups")  # a GET: reloading the POST's answer would post it again
        if state.inner_text() != "running" or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    expect(state).to_have_text("done", use_inner_text=True)
    expect(row.locator("td[data-label=Result]")).to_contain_text(message, use_inner_text=True)
