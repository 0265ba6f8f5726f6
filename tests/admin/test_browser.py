"""An operator uses the admin area in headless Chromium against a real `sitehost serve` (two workers).

Signs in, disables a plugin and sees its namespace leave /wp-json/ without a restart, enables
it again, adds a user, creates and revokes an application password, and signs out.
"""

from __future__ import annotations

import re

from host.testing import stop_sitehost

from .served import init_site, serve, wait_for_namespaces


def test_an_operator_manages_the_site_from_the_browser(browser, tmp_path):
    config, login, password = init_site(tmp_path, demo=False)
    process, site, rest = serve(config)
    page = browser.new_page()
    menu = page.get_by_role("navigation", name="Admin")
    try:
        page.goto(site + "/admin/")
        assert page.url.endswith("/admin/sign-in?next=/admin/")
        # With the keyboard alone: type, Tab to the password, Enter submits; focus is visible.
        page.get_by_label("Username or email address").focus()
        page.keyboard.type(login)
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == page.get_by_label("Password").get_attribute("id")
        assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
        page.keyboard.type(password)
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url: "/sign-in" not in url)  # the sign-in URL itself ends in ?next=/admin/
        assert page.get_by_role("heading", level=1).inner_text() == "Dashboard"

        menu.get_by_role("link", name="Plugins").click()
        page.get_by_role("button", name="Disable oembed").click()
        assert "oembed disabled" in page.get_by_role("status").inner_text()
        assert wait_for_namespaces(rest, lambda names: "oembed/1.0" not in names), "oembed stayed in /wp-json/"
        menu.get_by_role("link", name="Plugins").click()
        page.get_by_role("button", name="Enable oembed").click()
        assert wait_for_namespaces(rest, lambda names: "oembed/1.0" in names), "oembed did not come back"

        menu.get_by_role("link", name="Users").click()
        page.get_by_label("Login").fill("sam")
        page.get_by_label("Email address").fill("sam@school.test")
        page.get_by_label("Role").select_option("editor")
        page.get_by_role("button", name="Add user").click()
        assert "User sam added" in page.get_by_role("status").inner_text()
        assert page.get_by_role("cell", name="sam@school.test").is_visible()

        menu.get_by_role("link", name="Your profile").click()
        page.get_by_label("Name", exact=True).fill("Phone")
        page.get_by_role("button", name="Create application password").click()
        assert re.fullmatch(r"(\w{4} ){5}\w{4}", page.locator("kbd.new-application-password").inner_text())
        page.get_by_role("button", name="Revoke Phone").click()
        assert "Phone</strong> revoked" in page.locator(".notice").inner_html()
        assert page.get_by_role("button", name="Revoke Phone").count() == 0

        page.get_by_role("button", name="Sign out").click()
        assert page.url.endswith("/admin/sign-in")
        page.goto(site + "/admin/users")
        assert "/admin/sign-in" in page.url
    finally:
        page.close()
        stop_sitehost(process)
