"""An editor moderates comments and tidies posts in headless Chromium against a real `sitehost serve`."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from host.testing import stop_sitehost
from tests.admin.served import init_site, serve


def sign_in(page, site, login, password):
    page.goto(site + "/admin/sign-in")
    page.get_by_label("Username or email address").fill(login)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/sign-in" not in url)


def test_an_operator_moderates_comments_and_trashes_and_restores_a_post(browser, tmp_path):
    config, login, password = init_site(tmp_path)  # the demo: one comment waits for moderation
    process, site, _rest = serve(config)
    page = browser.new_page()
    menu = page.get_by_role("navigation", name="Admin")
    try:
        sign_in(page, site, login, password)
        menu.get_by_role("link", name="Comments, 1 pending").click()
        page.get_by_role("navigation", name="Comment lists").get_by_role("link", name="Pending").click()
        page.wait_for_url(re.compile(r"/admin/comments\?status=hold$"))
        row = page.locator("main tbody tr")
        expect(row).to_have_count(1)
        expect(row).to_contain_text("Aisha Rahman", use_inner_text=True)
        row.locator("summary").click()  # opens the reply form
        page.get_by_label("Your reply").fill("Yes: a coach leaves the school at 9:00.")
        page.get_by_role("button", name="Publish reply").click()
        expect(page.get_by_role("status")).to_contain_text("Your reply to comment", use_inner_text=True)
        expect(menu.get_by_role("link", name="Comments", exact=True)).to_be_visible()  # nothing pending: no count
        page.get_by_role("navigation", name="Comment lists").get_by_role("link", name="Approved").click()
        page.wait_for_url(re.compile(r"/admin/comments\?status=approved$"))
        expect(page.locator("main tbody")).to_contain_text("a coach leaves the school at 9:00", use_inner_text=True)
        page.get_by_role("button", name="Spam comment by Aisha Rahman", exact=False).click()
        expect(page.get_by_role("status")).to_contain_text("marked as spam", use_inner_text=True)

        menu.get_by_role("link", name="Posts").click()
        page.wait_for_url(re.compile(r"/admin/posts$"))
        title = page.locator("main tbody tr").first.locator("[data-label=Title] strong").inner_text()
        page.get_by_label(f"Select {title}").check()
        page.get_by_role("button", name="Move ticked posts to the Trash").click()
        expect(page.get_by_role("status")).to_contain_text("1 post moved to the Trash", use_inner_text=True)
        page.get_by_role("navigation", name="Posts by status").get_by_role("link", name="Trash").click()
        page.wait_for_url(re.compile(r"/admin/posts\?status=trash$"))
        page.get_by_label(f"Select {title}").check()
        page.get_by_role("button", name="Restore ticked posts").click()
        expect(page.get_by_role("status")).to_contain_text("1 post restored as drafts", use_inner_text=True)
        page.get_by_role("navigation", name="Posts by status").get_by_role("link", name="Drafts").click()
        page.wait_for_url(re.compile(r"/admin/posts\?status=draft$"))
        expect(page.locator("main tbody")).to_contain_text(title, use_inner_text=True)
    finally:
        page.close()
        stop_sitehost(process)
