"""Screenshots of a contact form's page in headless Chromium (docs/site/forms-*.png).

Run: python -m tests.forms.screenshot_form_pages [FOLDER] [PORT]

Starts a real `sitehost serve` on a fresh demo site and photographs the demo contact form's page
as it opens, after a submission with errors and after a sent one, at desktop (1280x900) and phone
(390x844) sizes, with forms.js answering in place. Needs the `playwright` Python package (a test
dependency) and Debian's chromium.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from host.testing import chromium_path, start_sitehost, stop_sitehost
from tests.admin.served import init_site
from tests.forms.test_public_form_pages import demo_contact_page, fill_contact_form

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def photograph(folder: Path, port: str) -> list[Path]:
    from playwright.sync_api import expect, sync_playwright

    written: list[Path] = []
    with tempfile.TemporaryDirectory() as work:
        config, _login, _password = init_site(Path(work), demo=True)
        process, rest = start_sitehost(config, "--port", port, "--workers", "1", "--quiet")
        site = rest.rsplit("/wp-json", 1)[0]
        try:
            _contact, form_id = demo_contact_page(site, rest)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
                for size, viewport in SIZES.items():
                    page = browser.new_page(viewport=viewport)
                    page.goto(f"{site}/contact-forms/{form_id}")
                    shots = [folder / f"forms-{state}-{size}.png" for state in ("page", "invalid", "sent")]
                    page.screenshot(path=shots[0], full_page=True)
                    page.get_by_label("Your email").fill("sam@")
                    page.get_by_role("button", name="Send message").click()
                    expect(page.locator("form.forms-form")).to_have_attribute("data-status", "invalid")
                    page.screenshot(path=shots[1], full_page=True)
                    fill_contact_form(page, f"Could the office call me back about the {size} screenshot?")
                    page.get_by_role("button", name="Send message").click()
                    expect(page.locator("form.forms-form")).to_have_attribute("data-status", "sent")
                    page.screenshot(path=shots[2], full_page=True)
                    written.extend(shots)
                    page.close()
                browser.close()
        finally:
            stop_sitehost(process)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/site")
    target.mkdir(parents=True, exist_ok=True)
    for path in photograph(target, sys.argv[2] if len(sys.argv) > 2 else "0"):
        print(path)
