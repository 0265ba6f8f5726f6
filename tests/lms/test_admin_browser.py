"""An operator manages courses in headless Chromium against a real `sitehost serve` (demo site, two
workers): two paid Stripe checkouts arrive from addresses without accounts (signed with stripe's own
helper); one is assigned to an existing user, the other is granted when the Users page adds that
address; an enrolment is cancelled; an API key is issued (secret shown once) and revoked."""

from __future__ import annotations

import json
import re
import urllib.request

import stripe
from playwright.sync_api import expect

from host.testing import stop_sitehost

from tests.admin.served import init_site, serve

from .test_webhook import STRIPE_SECRET, checkout_event


def post_stripe(rest: str, payload: str) -> dict:
    header = stripe.WebhookSignature.generate_signature_header(payload, STRIPE_SECRET)
    request = urllib.request.Request(rest + "/lms/v1/ecommerce-webhook/stripe", data=payload.encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Stripe-Signature": header})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def test_an_operator_assigns_payments_cancels_and_manages_keys(browser, tmp_path):
    config, login, password = init_site(tmp_path, demo=True)
    with config.open("a") as handle:
        handle.write(f"\n[plugins.lms]\nstripe_webhook_secret = {json.dumps(STRIPE_SECRET)}\n")
    process, site, rest = serve(config)
    page = browser.new_page()
    try:
        with urllib.request.urlopen(rest + "/core/v2/courses?slug=gcse-maths-revision") as response:
            course = json.load(response)[0]["id"]
        for number, email in enumerate(("grandma@elsewhere.test", "late.parent@families.test")):
            answer = post_stripe(rest, checkout_event(f"evt_browser_{number}", course, email=email,
                                                      reference=f"pi_browser_{number}"))
            assert answer["data"]["outcome"] == "pending"

        page.goto(site + "/admin/sign-in")
        page.get_by_label("Username or email address").fill(login)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(lambda url: "/sign-in" not in url)
        menu = page.get_by_role("navigation", name="Admin")
        menu.get_by_role("link", name="Courses").click()
        tabs = page.get_by_role("navigation", name="Courses sections")
        tabs.get_by_role("link", name="Pending payments").click()
        page.wait_for_url(re.compile(r"/admin/courses/pending$"))
        expect(page.locator("main tbody tr")).to_have_count(2)
        page.get_by_label("User to enrol with the payment of grandma@elsewhere.test").fill(login)
        page.get_by_role("button", name="Assign grandma@elsewhere.test").click()
        expect(page.get_by_role("status")).to_contain_text(f"now enrols {login}", use_inner_text=True)
        expect(page.locator("main tbody tr")).to_have_count(1)

        menu.get_by_role("link", name="Users").click()  # the other buyer gets an account: the hook enrols them
        page.wait_for_url(re.compile(r"/admin/users$"))
        page.get_by_label("Login").fill("late-parent")
        page.get_by_label("Email address").fill("late.parent@families.test")
        page.get_by_role("button", name="Add user").click()
        expect(page.get_by_role("status")).to_contain_text("User late-parent added", use_inner_text=True)

        menu.get_by_role("link", name="Courses").click()
        page.get_by_role("form", name="Filter enrolments").get_by_label("Course").select_option(str(course))
        page.get_by_role("button", name="Filter").click()
        page.wait_for_url(re.compile(rf"/admin/courses\?course={course}&"))  # the filtered list, loaded
        who = page.locator("td[data-label=Who]").all_inner_texts()
        assert any(text.startswith("late-parent") for text in who) and any(text.startswith(login) for text in who)
        page.get_by_role("button", name="Cancel late-parent in").click()
        expect(page.get_by_role("status")).to_contain_text("cancelled", use_inner_text=True)
        expect(page.locator("tr", has_text="late-parent").locator("td[data-label=Status]")).to_contain_text(
            "cancelled", use_inner_text=True)

        tabs.get_by_role("link", name="API keys").click()
        page.get_by_label("Description").fill("Timetable app")
        page.get_by_role("button", name="Issue key").click()
        expect(page.locator("kbd.api-secret")).to_have_text(re.compile(r"^secret_"), use_inner_text=True)
        secret = page.locator("kbd.api-secret").inner_text()
        tabs.get_by_role("link", name="API keys").click()
        # Same address as the page with the secret: the fresh one is the one without its notice.
        expect(page.get_by_role("status")).to_have_count(0)
        assert secret not in page.content()
        page.get_by_role("button", name="Revoke Timetable app").click()
        expect(page.get_by_role("status")).to_contain_text("revoked", use_inner_text=True)
        expect(page.get_by_role("button", name="Revoke Timetable app")).to_have_count(0)
    finally:
        page.close()
        stop_sitehost(process)
