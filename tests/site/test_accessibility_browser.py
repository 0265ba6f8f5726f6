"""axe-core in Chromium on every page type of core, on a served demo site: no serious or critical
WCAG 2.1 A/AA violation (home, post with comments, page, category, tag and author archives, search, 404)."""

from __future__ import annotations

import json
import urllib.request

from host.testing import stop_sitehost
from tests.admin.served import init_site, serve

from .axe_check import axe_violations


def _first_link(rest: str, collection: str) -> str:
    with urllib.request.urlopen(f"{rest}/core/v2/{collection}?per_page=100") as response:
        items = json.load(response)
    return next(item["link"] for item in items if collection not in ("categories", "tags") or item["count"])


def test_core_page_types_have_no_serious_accessibility_violation(browser, tmp_path):
    config, _login, _password = init_site(tmp_path)
    with config.open("a", encoding="utf-8") as file:
        file.write('\n[site]\npermalink_structure = "/%year%/%monthnum%/%postname%/"\n')
    process, site, rest = serve(config)
    try:
        addresses = {"home": site + "/", "post": _first_link(rest, "posts"), "page": _first_link(rest, "pages"),
                     "category": _first_link(rest, "categories"), "tag": _first_link(rest, "tags"),
                     "author": _first_link(rest, "users"), "search": site + "/?s=school",
                     "not found": site + "/no-such-page/"}
        found = {}
        for viewport in ({"width": 1280, "height": 900}, {"width": 390, "height": 844}):
            page = browser.new_page(viewport=viewport)
            try:
                for name, address in addresses.items():
                    page.goto(address)
                    violations = axe_violations(page)
                    if violations:
                        found[f"{name} {viewport['width']}px"] = violations
            finally:
                page.close()
        assert found == {}
    finally:
        stop_sitehost(process)
