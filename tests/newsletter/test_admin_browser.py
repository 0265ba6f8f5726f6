"""An operator runs the newsletter from the admin area in headless Chromium against a real `sitehost serve`
whose mail goes to a real SMTP server (aiosmtpd): create a list, import a CSV as confirmed with a consent
statement, read the consent record, export the list, send a mailing and watch it go out."""

from __future__ import annotations

import csv
import io
import json
import re
import time

from playwright.sync_api import expect

from host.testing import stop_sitehost

from tests.admin.served import init_site, serve


def sign_in(page, site: str, login: str, password: str) -> None:
    page.goto(site + "/admin/sign-in")
    page.get_by_label("Username or email address").fill(login)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/sign-in" not in url)


def test_an_operator_imports_exports_and_sends_a_mailing(browser, tmp_path, smtp_server):
    config, login, password = init_site(tmp_path, demo=False)
    mail = smtp_server.mail_settings(poll_seconds=1)
    with config.open("a") as handle:
        handle.write("\n[mail]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in mail.items()))
    families = tmp_path / "families.csv"
    families.write_text("email,FNAME\nana@example.org,Ana\nnot an address,Bad\nben@example.org,Ben\n",
                        encoding="utf-8")
    process, site, _rest = serve(config)
    page = browser.new_page()
    try:
        sign_in(page, site, login, password)
        page.get_by_role("navigation", name="Admin").get_by_role("link", name="Newsletter").click()
        page.get_by_label("Name", exact=True).fill("Year 8 parents")
        page.get_by_role("button", name="Create list").click()
        expect(page.get_by_role("status")).to_contain_text("Year 8 parents created", use_inner_text=True)

        page.get_by_role("navigation", name="Newsletter sections").get_by_role("link", name="Import").click()
        page.wait_for_url(re.compile(r"/admin/newsletter/import$"))
        page.get_by_label("List").select_option(label="Year 8 parents")
        page.get_by_label("CSV file", exact=True).set_input_files(str(families))
        page.get_by_label("Consent was already given").check()
        page.get_by_label("How consent was given").fill("Paper forms from the September parents' evening")
        page.get_by_role("button", name="Import").click()
        expect(page.locator(".notice")).to_contain_text("2 added as confirmed", use_inner_text=True)
        expect(page.locator("ul.import-problems li")).to_have_text(re.compile(r"^line 3:"), use_inner_text=True)

        page.get_by_role("link", name="Subscribers").click()
        page.get_by_role("link", name="ana@example.org").click()
        record = page.locator("section[aria-labelledby=consents-heading] tbody tr")
        expect(record).to_have_count(1)
        expect(record).to_contain_text("Paper forms from the September parents' evening", use_inner_text=True)

        page.get_by_role("link", name="Lists").click()
        with page.expect_download() as download:
            page.get_by_role("link", name="Export confirmed (CSV) of Year 8 parents").click()
        rows = list(csv.DictReader(io.StringIO(download.value.path().read_text(encoding="utf-8"))))
        assert [row["email"] for row in rows] == ["ana@example.org", "ben@example.org"]

        page.get_by_role("link", name="Mailings").click()
        page.wait_for_url(re.compile(r"/admin/newsletter/mailings$"))
        page.get_by_label("List").select_option(label="Year 8 parents")
        page.get_by_label("Subject").fill("Welcome to Year 8")
        page.get_by_label("Text").fill("Dear families,\nwelcome back.")
        page.get_by_role("button", name="Queue the mailing").click()
        expect(page.get_by_role("status")).to_contain_text("2 mail(s) to Year 8 parents", use_inner_text=True)
        page.reload()  # the answer was a redirect: reloading shows the list, it never queues again
        expect(page.locator("main tbody tr")).to_have_count(1)
        received = smtp_server.wait_for(2, timeout=30)
        assert sorted(message["To"] for message in received) == ["ana@example.org", "ben@example.org"]
        deadline = time.monotonic() + 30
        while page.locator("td[data-label=Sent]").first.inner_text() != "2" and time.monotonic() < deadline:
            time.sleep(0.5)
            page.reload()
        expect(page.locator("td[data-label=Sent]").first).to_have_text("2", use_inner_text=True)
        expect(page.locator("td[data-label=Failed]").first).to_have_text("0", use_inner_text=True)
    finally:
        page.close()
        stop_sitehost(process)
