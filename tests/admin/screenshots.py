"""Screenshots of every admin page in headless Chromium (docs/admin/*.png), linked from the README.

Run: python -m tests.admin.screenshots [OUT_FOLDER]

Serves a fresh demo site, signs in as its administrator, adds an editor, then photographs each page at a
desktop width, the plugins page with a refused change, a form with field errors, the settings
form after a save, and the dashboard at a phone's width.
"""

from __future__ import annotations

import re
import sys
import tempfile
import urllib.request
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from host.testing import BROWSER_WAIT_MS, chromium_path, stop_sitehost

from .served import init_site, serve

OUT = Path(__file__).resolve().parents[2] / "docs" / "admin"
CALENDAR_DATA = Path(__file__).resolve().parents[1] / "calendar" / "data"
WORDPRESS_DATA = Path(__file__).resolve().parents[1] / "wordpress_migrate" / "data"


def main(out: Path = OUT) -> None:
    # Each action's page is waited for before its photograph (a click returns once its navigation starts).
    expect.set_options(timeout=BROWSER_WAIT_MS)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        config, login, password = init_site(Path(folder))
        with config.open("a") as handle:  # Stripe events for the Courses page's pending payments
            handle.write(f"\n[plugins.lms]\nstripe_webhook_secret = \"{SCREENSHOT_STRIPE_SECRET}\"\n")
        process, site, rest = serve(config, workers="1")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1200, "height": 800})

                def shot(name: str, full: bool = True) -> None:
                    page.screenshot(path=str(out / f"{name}.png"), full_page=full)
                    print(out / f"{name}.png")

                page.goto(site + "/admin/sign-in")
                shot("sign-in", full=False)
                page.get_by_label("Username or email address").fill(login)
                page.get_by_label("Password").fill(password)
                page.get_by_role("button", name="Sign in").click()
                page.wait_for_url(lambda url: "/sign-in" not in url)
                page.goto(site + "/admin/users")
                page.get_by_label("Login").fill("ms-okafor")
                page.get_by_label("Email address").fill("okafor@riverside.example")
                page.get_by_label("Role").select_option("editor")
                page.get_by_label("Password").fill("a good long password")
                page.get_by_role("button", name="Add user").click()
                expect(page.get_by_role("status")).to_contain_text("User ms-okafor added")
                page.goto(site + "/admin/sign-in")
                shot("dashboard")
                page.goto(site + "/admin/plugins")
                shot("plugins")
                page.get_by_role("button", name="Disable core").click()
                expect(page.get_by_role("alert")).to_contain_text("Nothing was changed")
                shot("plugins-refused", full=False)
                page.goto(site + "/admin/users")
                page.get_by_label("Login").fill("admin")
                page.get_by_label("Email address").fill("office@riverside.example")
                page.get_by_label("Password").fill("short")
                page.get_by_role("button", name="Add user").click()
                expect(page.get_by_role("alert").first).to_contain_text("Please correct the fields")
                shot("users-errors")
                page.goto(site + "/admin/users")
                shot("users")
                page.goto(site + "/admin/profile")
                page.get_by_label("Name", exact=True).fill("Timetable app")
                page.get_by_role("button", name="Create application password").click()
                expect(page.locator("kbd.new-application-password")).to_be_visible()
                shot("profile")
                page.goto(site + "/admin/settings")
                page.get_by_label("Tagline").fill("Learning together by the river")
                page.get_by_label("Blog pages show at most").fill("12")
                page.get_by_role("button", name="Save settings").click()
                expect(page.get_by_role("status")).to_contain_text("Settings saved")
                shot("settings")
                for _read in range(3):
                    urllib.request.urlopen(rest + "/core/v2/posts").read()
                page.goto(site + "/admin/cache")
                shot("cache")
                _shoot_calendar(page, site, shot)
                _shoot_core(page, site, shot)
                _shoot_backup(page, site, shot)
                _shoot_forms(page, site, shot)
                _shoot_newsletter(page, site, shot)
                _shoot_courses(page, site, shot)
                _shoot_wordpress_migrate(page, site, shot)
                page.set_viewport_size({"width": 390, "height": 844})
                page.goto(site + "/admin/")
                shot("dashboard-phone", full=False)
                page.goto(site + "/admin/users")
                shot("users-phone", full=False)  # stacked rows keep their column labels
                browser.close()
        finally:
            stop_sitehost(process)


def _shoot_wordpress_migrate(page, site: str, shot) -> None:
    """The WordPress import page: its upload form, then the summary of the school export's import."""
    page.goto(site + "/admin/wordpress-import")
    shot("wordpress-import")
    page.get_by_label("WordPress export file (.xml)").set_input_files(str(WORDPRESS_DATA / "hillside.wxr"))
    page.get_by_role("button", name="Import the file").click()
    page.wait_for_selector("#summary-headline", timeout=120_000)
    shot("wordpress-import-summary")


def _shoot_calendar(page, site: str, shot) -> None:
    """The calendar page after an uploaded .ics file's import, with its summary."""
    page.goto(site + "/admin/calendar")
    page.get_by_label("iCalendar file (.ics)").set_input_files(str(CALENDAR_DATA / "school-term.ics"))
    page.get_by_role("button", name="Import the file").click()
    expect(page.get_by_role("region", name="Import summary")).to_be_visible()
    shot("calendar")


def _shoot_core(page, site: str, shot) -> None:
    """Comments (the queue with its pending count, a reply with an error, one comment's page), posts and pages."""
    page.goto(site + "/admin/comments")
    shot("core-comments")
    page.goto(site + "/admin/comments?status=hold")
    page.locator("main tbody summary").first.click()
    page.get_by_role("button", name="Publish reply").click()
    expect(page.get_by_role("alert").first).to_contain_text("Please correct the fields")
    shot("core-comments-reply-error")
    comment = page.locator("main tbody tr").first.get_attribute("id").removeprefix("comment-")
    page.goto(site + f"/admin/comments/{comment}?confirm=approve")
    shot("core-comment-confirm")
    page.goto(site + "/admin/posts")
    shot("core-posts")
    page.goto(site + "/admin/pages")
    shot("core-pages")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(site + "/admin/comments")
    shot("core-comments-phone", full=False)
    page.set_viewport_size({"width": 1200, "height": 800})


def _shoot_backup(page, site: str, shot) -> None:
    """Backups after a backup and a check, with the schedule refused and then saved."""
    page.goto(site + "/admin/backups")
    page.get_by_role("button", name="Back up now").click()
    expect(page.get_by_role("status").first).to_contain_text("Backup done")
    name = page.locator("section[aria-labelledby=archives-heading] tbody code").first.inner_text()
    page.get_by_role("button", name=f"Verify {name}").click()
    expect(page.get_by_role("status").first).to_contain_text("match their checksums")
    page.get_by_role("textbox", name="Schedule").fill("weekly")
    page.get_by_role("button", name="Save schedule").click()
    expect(page.get_by_role("alert").first).to_contain_text("Please correct the fields")
    shot("backup-schedule-error")
    page.get_by_role("textbox", name="Schedule").fill("daily 02:30")
    page.get_by_role("button", name="Save schedule").click()
    expect(page.get_by_role("status").first).to_contain_text("Backups now run daily at 02:30")
    shot("backup")


def _shoot_forms(page, site: str, shot) -> None:
    """The forms plugin's pages: the list, the editor with a preview, a form's submissions, one submission."""
    page.goto(site + "/admin/forms")
    shot("forms-list")
    page.get_by_role("link", name="Contact the school office", exact=True).click()
    page.wait_for_url(re.compile(r"/admin/forms/\d+$"))
    form_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    for name, message in (("Sam Parent", "Is there a place in Year 7 next September?"),
                          ("Alex Carer", "Could you send the uniform list again, please?"),
                          ("Jo Guardian", "Which bus stops near the new sports hall?")):
        page.request.post(f"{site}/wp-json/forms/v1/contact-forms/{form_id}/feedback", multipart={
            "_forms": str(form_id), "_forms_unit_tag": f"forms-f{form_id}-p0-o1", "_forms_container_post": "0",
            "your-name": name, "your-email": "parent@riverside.example", "your-subject": "Admissions",
            "your-message": message, "privacy": "1"})
    template = page.get_by_label("Form template")
    template.fill(template.input_value().replace("[submit", "<label> Your phone (optional)\n    [tel your-phone] "
                                                 "</label>\n\n[submit"))
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("status")).to_contain_text("nothing was saved")
    shot("forms-editor-preview", full=False)
    page.goto(f"{site}/admin/form-submissions/{form_id}")
    shot("forms-submissions")
    page.locator("tbody tr").first.get_by_role("link").click()
    expect(page.get_by_role("heading", name="Values sent")).to_be_visible()
    shot("forms-submission")


SCREENSHOT_STRIPE_SECRET = "whsec_screenshots_" + "0" * 24


def _shoot_newsletter(page, site: str, shot) -> None:
    """docs/admin/newsletter-*.png: lists, an import report with a bad row, consent records, mailings."""
    folder = Path(tempfile.mkdtemp())
    families = folder / "year-7-families.csv"
    families.write_text("email,FNAME,LNAME\nadaeze.obi@example.org,Adaeze,Obi\nmarek.nowak@example.org,Marek,Nowak\n"
                        "not-an-address,Sam,Lee\nfatima.khan@example.org,Fatima,Khan\n", encoding="utf-8")
    page.goto(site + "/admin/newsletter/import")
    page.get_by_label("List").select_option(label="Year 7 parents")
    page.get_by_label("CSV file", exact=True).set_input_files(str(families))
    page.get_by_label("Consent was already given").check()
    page.get_by_label("How consent was given").fill("Paper forms signed at the Year 7 welcome evening, 9 September")
    page.get_by_role("button", name="Import").click()
    expect(page.locator(".notice").first).to_contain_text("added as confirmed")
    shot("newsletter-import")
    page.goto(site + "/admin/newsletter")
    shot("newsletter-lists")
    page.goto(site + "/admin/newsletter/subscribers?search=adaeze")
    page.get_by_role("link", name="adaeze.obi@example.org").click()
    expect(page.get_by_role("heading", name="Consent records")).to_be_visible()
    shot("newsletter-subscriber")
    page.goto(site + "/admin/newsletter/mailings")
    page.get_by_label("List").select_option(label="Year 7 parents")
    page.get_by_label("Subject").fill("Welcome to Year 7")
    page.get_by_label("Text").fill("Dear families,\n\nWelcome to Riverside. Term starts on Monday.")
    page.get_by_role("button", name="Queue the mailing").click()
    expect(page.get_by_role("status")).to_contain_text("mail(s) to Year 7 parents")
    page.wait_for_timeout(2500)  # the server's mail sender delivers (.eml files here)
    page.reload()
    shot("newsletter-mailings")


def _shoot_courses(page, site: str, shot) -> None:
    """docs/admin/courses-*.png: pending payments from unknown addresses, enrolments, a new API key."""
    import json

    import stripe

    rest = site + "/wp-json"
    with urllib.request.urlopen(rest + "/core/v2/courses?slug=gcse-maths-revision") as response:
        course = json.load(response)[0]["id"]
    for number, email in enumerate(("k.mensah@example.org", "j.oconnor@example.org")):
        payload = json.dumps({"id": f"evt_shot_{number}", "object": "event", "type": "checkout.session.completed",
                              "data": {"object": {"id": f"cs_shot_{number}", "object": "checkout.session",
                                                  "payment_status": "paid", "amount_total": 4500, "currency": "gbp",
                                                  "payment_intent": f"pi_3Shot{number}", "customer_email": email,
                                                  "metadata": {"course_id": str(course)}}}})
        header = stripe.WebhookSignature.generate_signature_header(payload, SCREENSHOT_STRIPE_SECRET)
        urllib.request.urlopen(urllib.request.Request(
            rest + "/lms/v1/ecommerce-webhook/stripe", data=payload.encode(), method="POST",
            headers={"Content-Type": "application/json", "Stripe-Signature": header})).read()
    page.goto(site + "/admin/courses/pending")
    shot("courses-pending")
    page.goto(site + "/admin/courses")
    shot("courses-enrolments")
    page.goto(site + "/admin/courses/keys")
    page.get_by_label("Description").fill("Parents' portal")
    page.get_by_role("button", name="Issue key").click()
    expect(page.locator("kbd.api-secret")).to_be_visible()
    shot("courses-keys")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
