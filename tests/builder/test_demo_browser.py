"""The demo's pages in headless Chromium, served by a real `sitehost serve`: nothing the site's own CSP
refuses (no inline style, no image from another host), the demo picture shown, the Contact page's form.

The browser reports each refused inline style or image as a console error; a favicon the site does
not have yet (the public site's theme will add one) is the only error allowed.
"""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from host.testing import stop_sitehost
from tests.admin.served import init_site, serve


def _page_links(rest: str) -> dict[str, str]:
    with urllib.request.urlopen(rest + "/core/v2/pages?per_page=50") as answer:
        return {page["slug"]: page["link"] for page in json.load(answer)}


def test_demo_pages_load_without_errors_and_show_their_picture_and_form(browser, tmp_path):
    config, _login, _password = init_site(tmp_path)
    process, site, rest = serve(config, workers="1")
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    refused_urls: list[str] = []
    page.on("response", lambda response: refused_urls.append(response.url) if response.status >= 400 else None)
    try:
        links = _page_links(rest)
        page.goto(links["open-day"])
        page.wait_for_load_state("networkidle")
        picture = page.get_by_role("img", name="Pupils working together in a bright classroom")
        assert picture.evaluate("image => image.complete && image.naturalWidth") == 640
        assert picture.get_attribute("src").startswith("/uploads/")
        heading = page.get_by_role("heading", name="Open day: Saturday 14 March")
        assert heading.evaluate("element => getComputedStyle(element).color") == "rgb(255, 255, 255)"  # from CSS
        page.goto(links["contact"])
        page.wait_for_load_state("networkidle")
        expect(page.get_by_role("button", name="Send message")).to_be_visible()
        expect(page.locator("p form, p div.forms")).to_have_count(0)  # the form is not inside a paragraph
        unexpected = [url for url in refused_urls if not url.endswith("/favicon.ico")]
        assert unexpected == [], unexpected
        # The favicon's 404 is logged as a failed load (playwright does not report its response).
        assert [text for text in errors if not text.startswith("Failed to load resource")] == []
        assert len(errors) <= 2  # at most that one failed load per page
        assert not any("Content Security Policy" in text for text in errors)
    finally:
        page.close()
        stop_sitehost(process)
