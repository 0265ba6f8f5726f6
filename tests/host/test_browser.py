"""The `browser` fixture drives the system's Chromium against a real `sitehost serve`.

The calendar's and the admin area's browser tests build on this; here a visitor opens a published
post's HTML view from the post list and reads its title as a person would see it.
"""

import json
import os
import urllib.request

from playwright.sync_api import expect

from host.testing import start_sitehost, stop_sitehost


def test_a_visitor_reads_a_published_post_in_chromium(browser, tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n')
    process, rest = start_sitehost(config, "--workers", "1", "--threads", "2", env={**os.environ})
    try:
        with urllib.request.urlopen(f"{rest}/core/v2/posts?per_page=1") as response:
            post = json.load(response)[0]
        page = browser.new_page()
        try:
            answer = page.goto(post["link"])
            assert answer.status == 200
            assert answer.headers["content-type"].startswith("text/html")
            assert post["title"]["rendered"] in page.title()
            expect(page.locator("h1").first).to_have_text(post["title"]["rendered"], use_inner_text=True)
        finally:
            page.close()
    finally:
        stop_sitehost(process)
