"""Screenshots of the calendar's public pages in headless Chromium (docs/site/calendar-*.png).

Run: python -m tests.calendar.screenshot_public [FOLDER]

Starts a real `sitehost serve` on a fresh demo site (`sitehost init --demo`) and photographs the
parents' evening event, the main hall venue and the school office organizer, at desktop
(1280×900) and phone (390×844) sizes, with Debian's /usr/bin/chromium.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

from host.testing import start_sitehost, stop_sitehost

from tests.calendar.screenshot_views import CHROMIUM_ARGS, new_site

SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


def first_url(rest: str, path: str, name_field: str, name: str) -> str:
    with urllib.request.urlopen(f"{rest}/cal/events/v1/{path}", timeout=60) as response:
        found = json.loads(response.read())
    items = found[path.split("?", 1)[0]]
    return next(item["url"] for item in items if item[name_field] == name)


def main(folder: str) -> None:
    from playwright.sync_api import sync_playwright

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    config, _sitehost = new_site("--demo")
    process, rest = start_sitehost(config, "--quiet")
    try:
        pages = {"event": first_url(rest, "events?start_date=2000-01-01&end_date=2100-01-01&per_page=50", "title",
                                    "Year 11 parents' evening"),
                 "venue": first_url(rest, "venues", "venue", "Riverside School main hall"),
                 "organizer": first_url(rest, "organizers", "organizer", "Riverside School office")}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for kind, url in pages.items():
                for size, (width, height) in SIZES.items():
                    view = browser.new_page(viewport={"width": width, "height": height})
                    view.goto(url, wait_until="networkidle")
                    name = out / f"calendar-{kind}{'-phone' if size == 'phone' else ''}.png"
                    view.screenshot(path=str(name), full_page=True)
                    view.close()
                    print("screenshot:", name)
            browser.close()
    finally:
        stop_sitehost(process)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/site")
