"""An operator uses the admin area in headless Chromium against a real `sitehost serve` (two workers).

Signs in, disables a plugin and sees its namespace leave /wp-json/ without a restart, enables
it again, adds a user, creates and revokes an application password, and signs out.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from host.testing import stop_sitehost

from .served import init_site, serve, wait_for_namespaces


def test_an_operator_manages_the_site_from_the_browser(browser, tmp_path):
    config, login, password = init_site(tmp_path, demo=False)
    process, site, rest = serve(config)
    page = browser.new_page()
    menu = page.get_by_role("navigation", name="Admin")
    try:
        page.goto(site + "/admin/")
        expect(page).to_have_url(re.compile(r"/admin/sign-in\?next=/admin/$"))
        # With the keyboard alone: type, Tab to the password, Enter submits; focus is visible.
        page.get_by_label("Username or email address").focus()
        page.keyboard.type(login)
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == page.get_by_label("Password").get_attribute("id")
        assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
        page.keyboard.type(password)
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url: "/sign-in" not in url)  # the sign-in URL itself ends in ?next=/admin/
        expect(page.get_by_role("heading", level=1)).to_have_text("Dashboard", use_inner_text=True)

        menu.get_by_role("link", name="Plugins").click()
        page.get_by_role("button", name="Disable oembed").click()
        expect(page.get_by_role("status")).to_contain_text("oembed disabled", use_inner_text=True)
        assert wait_for_namespaces(rest, lambda names: "oembed/1.0" not in names), "oembed stayed in /wp-json/"
        menu.get_by_role("link", name="Plugins").click()
        # Same address as the page with the notice: the fresh one is the one without it (else the
        # click below could land on the page being left, and the menu's navigation cancel its form).
        expect(page.get_by_role("status")).to_have_count(0)
        page.get_by_role("button", name="Enable oembed").click()
        assert wait_for_namespaces(rest, lambda names: "oembed/1.0" in names), "oembed did not come back"

        menu.get_by_role("link", name="Users").click()
        page.get_by_label("Login").fill("sam")
        page.get_by_label("Email address").fill("sam@school.test")
        page.get_by_label("Role").select_option("editor")
        page.get_by_role("button", name="Add user").click()
        expect(page.get_by_role("status")).to_contain_text("User sam added", use_inner_text=True)
        expect(page.get_by_role("cell", name="sam@school.test")).to_be_visible()

        menu.get_by_role("link", name="Your profile").click()
        page.wait_for_url(re.compile(r"/admin/profile$"))
        page.get_by_label("Name", exact=True).fill("Phone")
        page.get_by_role("button", name="Create application password").click()
        expect(page.locator("kbd.new-application-password")).to_have_text(re.compile(r"^(\w{4} ){5}\w{4}$"),
                                                                         use_inner_text=True)
        page.get_by_role("button", name="Revoke Phone").click()
        # The page being left has a notice too (the new password's): wait for the revocation's.
        expect(page.locator(".notice")).to_contain_text("Phone revoked", use_inner_text=True)
        assert "Phone</strong> revoked" in page.locator(".notice").inner_html()
        expect(page.get_by_role("button", name="Revoke Phone")).to_have_count(0)

        page.get_by_role("button", name="Sign out").click()
        expect(page).to_have_url(re.compile(r"/admin/sign-in$"))
        page.goto(site + "/admin/users")
        expect(page).to_have_url(re.compile(r"/admin/sign-in"))
    finally:
        page.close()
        stop_sitehost(process)
