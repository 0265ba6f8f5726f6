"""Screenshots of core's page types on the demo site for docs/site/ (not a test):

    python -m tests.site.screenshots

Serves a fresh demo site with pretty permalinks and saves home, post (with comments), page,
archive, search and 404 at 1280x900, and the home and a post on a 390x844 phone.
"""

from __future__ import annotations

import json
import tempfile
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

from host.testing import chromium_path, stop_sitehost
from tests.admin.served import init_site, serve

OUT = Path(__file__).resolve().parents[2] / "docs" / "site"


def _items(rest: str, collection: str) -> list[dict]:
    with urllib.request.urlopen(f"{rest}/core/v2/{collection}?per_page=100") as response:
        return json.load(response)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        config, _login, _password = init_site(Path(folder))
        with config.open("a", encoding="utf-8") as file:
            file.write('\n[site]\npermalink_structure = "/%year%/%monthnum%/%postname%/"\n')
        process, site, rest = serve(config)
        try:
            commented = {comment["post"] for comment in _items(rest, "comments")}
            post = next((item for item in _items(rest, "posts") if item["id"] in commented), _items(rest, "posts")[0])
            category = next(item for item in _items(rest, "categories") if item["count"])
            shots = {"home": site + "/", "post-with-comments": post["link"], "page": _items(rest, "pages")[0]["link"],
                     "archive": category["link"], "search": site + "/?s=school", "not-found": site + "/no-such-page/"}
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
                for viewport, names in (({"width": 1280, "height": 900}, shots), ({"width": 390, "height": 844},
                                                                                   ("home", "post-with-comments"))):
                    page = browser.new_page(viewport=viewport)
                    for name in names:
                        page.goto(shots[name])
                        suffix = "-phone" if viewport["width"] < 500 else ""
                        page.screenshot(path=str(OUT / f"{name}{suffix}.png"), full_page=viewport["width"] >= 500)
                    page.close()
                browser.close()
        finally:
            stop_sitehost(process)


if __name__ == "__main__":
    main()
