"""An administrator backs the site up, verifies and downloads the archive and sets a schedule in headless
Chromium against a real `sitehost serve` (two workers: the job's state is read from the database)."""

from __future__ import annotations

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
        assert "No backup yet" in page.locator("main").inner_text()
        page.get_by_role("button", name="Back up now").click()
        assert "Backup done" in page.get_by_role("status").first.inner_text()
        name = page.locator("section[aria-labelledby=archives-heading] tbody code").first.inner_text()
        page.get_by_role("button", name=f"Verify {name}").click()
        assert "match their checksums" in page.get_by_role("status").first.inner_text()
        with page.expect_download() as download:
            page.get_by_role("link", name=f"Download {name}").click()
        assert download.value.suggested_filename == name
        download.value.save_as(tmp_path / "copy.tar")
        assert (tmp_path / "copy.tar").read_bytes() == (tmp_path / "backups" / name).read_bytes()
        page.get_by_role("textbox", name="Schedule").fill("daily 2:30")
        page.get_by_role("button", name="Save schedule").click()
        assert "Backups now run daily at 02:30" in page.get_by_role("status").first.inner_text()
        assert "Chosen on this page" in page.locator("main").inner_text()
    finally:
        page.close()
        stop_sitehost(process)
