"""An administrator works with contact forms in headless Chromium against a real `sitehost serve`.

Opens the demo's contact form, edits a message, previews a changed template (nothing saved), saves;
then opens the form's submissions, searches them and exports them as CSV.
"""

from __future__ import annotations

import csv
import io
import re

from playwright.sync_api import expect

from host.testing import stop_sitehost
from tests.admin.served import init_site, serve


def send(page, rest: str, form_id: int, name: str, message: str) -> dict:
    """A visitor's submission, as the form's page posts it (multipart)."""
    answer = page.request.post(f"{rest}/forms/v1/contact-forms/{form_id}/feedback", multipart={
        "_forms": str(form_id), "_forms_version": "1.0.0", "_forms_locale": "en_US",
        "_forms_unit_tag": f"forms-f{form_id}-p0-o1", "_forms_container_post": "0", "your-name": name,
        "your-email": "parent@school.test", "your-subject": "Admissions", "your-message": message, "privacy": "1"})
    assert answer.ok
    return answer.json()


def test_an_administrator_edits_previews_and_saves_a_form_then_searches_and_exports_its_submissions(browser,
                                                                                                   tmp_path):
    config, login, password = init_site(tmp_path, demo=True)
    process, site, rest = serve(config, workers="1")
    page = browser.new_page(accept_downloads=True)
    menu = page.get_by_role("navigation", name="Admin")
    try:
        page.goto(site + "/admin/sign-in")
        page.get_by_label("Username or email address").fill(login)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(lambda url: "/sign-in" not in url)

        menu.get_by_role("link", name="Contact forms").click()
        page.get_by_role("link", name="Contact the school office", exact=True).click()
        page.wait_for_url(re.compile(r"/admin/forms/\d+$"))
        form_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
        page.get_by_label("The message was sent").fill("Thank you! The office answers within two school days.")
        template = page.get_by_label("Form template")
        saved_template = template.input_value()
        template.fill(saved_template.replace("[submit", "<label> Your phone [tel phone] </label>\n[submit"))
        page.get_by_role("button", name="Preview").click()
        expect(page.get_by_role("status")).to_contain_text("nothing was saved", use_inner_text=True)
        preview = page.locator(".forms-preview-frame")
        expect(preview.locator("input[name=phone][type=tel]")).to_be_visible()
        expect(preview.locator("input[type=submit][value='Send message']")).to_be_visible()
        assert send(page, rest, form_id, "Before Save", "x")["message"] != \
            "Thank you! The office answers within two school days."  # the preview saved nothing
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_role("status")).to_have_text("The form was saved.", use_inner_text=True)
        expect(page.get_by_label("The message was sent")).to_have_value(
            "Thank you! The office answers within two school days.")
        answer = send(page, rest, form_id, "Sam Parent", "Is there a place in Year 7 next September?")
        assert answer["status"] == "mail_sent"
        assert answer["message"] == "Thank you! The office answers within two school days."
        send(page, rest, form_id, "Alex Carer", "=SUM(A1:A9) is what my spreadsheet shows")

        menu.get_by_role("link", name="Form submissions").click()
        page.get_by_role("link", name="Contact the school office", exact=True).click()
        page.wait_for_url(re.compile(rf"/admin/form-submissions/{form_id}$"))
        expect(page.locator("tbody tr")).to_have_count(3)
        page.get_by_label("Search the values sent").fill("year 7")
        page.get_by_role("button", name="Search").click()
        page.wait_for_url(re.compile(r"\?s=year\+7&"))
        expect(page.locator("tbody tr")).to_have_count(1)
        expect(page.locator("tbody tr")).to_contain_text("Sam Parent", use_inner_text=True)
        with page.expect_download() as download_info:
            page.get_by_role("link", name="Export as CSV").click()
        download = download_info.value
        assert download.suggested_filename == f"form-{form_id}-submissions.csv"
        table = list(csv.reader(io.StringIO(open(download.path(), encoding="utf-8-sig").read(), newline="")))
        assert table[0][:4] == ["Submission", "Date (UTC)", "Status", "your-name"]
        assert [row[3] for row in table[1:]] == ["Sam Parent"]
        page.get_by_label("Search the values sent").fill("")
        page.get_by_role("button", name="Search").click()
        page.wait_for_url(re.compile(r"\?s=&"))  # else the export link clicked is the filtered page's
        with page.expect_download() as download_info:
            page.get_by_role("link", name="Export as CSV").click()
        text = open(download_info.value.path(), encoding="utf-8-sig", newline="").read()
        streamed = page.request.get(f"{site}/admin/form-submissions/{form_id}/export.csv")
        assert streamed.headers.get("transfer-encoding") == "chunked" and "content-length" not in streamed.headers
        assert streamed.text().lstrip("\ufeff") == text
        assert "'=SUM(A1:A9) is what my spreadsheet shows" in text
        page.locator("tbody tr").first.get_by_role("link").click()
        expect(page.get_by_role("heading", name="Values sent")).to_be_visible()
        expect(page.locator("section[aria-labelledby=fields-heading]")).to_contain_text("Alex Carer",
                                                                                       use_inner_text=True)
    finally:
        page.close()
        stop_sitehost(process)
