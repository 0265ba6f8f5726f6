"""An editor moderates comments and tidies posts in headless Chromium against a real `sitehost serve`."""

from __future__ import annotations

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
        row = page.locator("main tbody tr")
        assert row.count() == 1 and "Aisha Rahman" in row.inner_text()
        row.locator("summary").click()  # opens the reply form
        page.get_by_label("Your reply").fill("Yes: a coach leaves the school at 9:00.")
        page.get_by_role("button", name="Publish reply").click()
        assert "Your reply to comment" in page.get_by_role("status").inner_text()
        assert menu.get_by_role("link", name="Comments", exact=True).is_visible()  # nothing pending: no count
        page.get_by_role("navigation", name="Comment lists").get_by_role("link", name="Approved").click()
        assert "a coach leaves the school at 9:00" in page.locator("main tbody").inner_text()
        page.get_by_role("button", name="Spam comment by Aisha Rahman", exact=False).click()
        assert "marked as spam" in page.get_by_role("status").inner_text()

        menu.get_by_role("link", name="Posts").click()
        title = page.locator("main tbody tr").first.locator("[data-label=Title] strong").inner_text()
        page.get_by_label(f"Select {title}").check()
        page.get_by_role("button", name="Move ticked posts to the Trash").click()
        assert "1 post moved to the Trash" in page.get_by_role("status").inner_text()
        page.get_by_role("navigation", name="Posts by status").get_by_role("link", name="Trash").click()
        page.get_by_label(f"Select {title}").check()
        page.get_by_role("button", name="Restore ticked posts").click()
        assert "1 post restored as drafts" in page.get_by_role("status").inner_text()
        page.get_by_role("navigation", name="Posts by status").get_by_role("link", name="Drafts").click()
        assert title in page.locator("main tbody").inner_text()
    finally:
        page.close()
        stop_sitehost(process)
