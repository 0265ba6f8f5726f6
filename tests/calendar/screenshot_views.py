"""Screenshots of the calendar views in headless Chromium (docs/calendar/*.png).

Run: python -m tests.calendar.screenshot_views [FOLDER]

Starts a real `sitehost serve` on a fresh demo site, writes a term of school events through
cal/events/v1 (weekly fixtures as repeating events, an all-day INSET day, a half-term week), and
photographs the month (desktop and phone widths), list and day views with Debian's
/usr/bin/chromium. Needs the `playwright` Python package (a test dependency).
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from host.testing import start_sitehost, stop_sitehost

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
MONTH = "2027-03"
EVENTS = [
    {"title": "Whole-school assembly", "start_date": f"{MONTH}-01 08:50", "end_date": f"{MONTH}-01 09:20",
     "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=MO;COUNT=12"}, "venue": "hall"},
    {"title": "U13 football v Hillside", "start_date": f"{MONTH}-03 15:45", "end_date": f"{MONTH}-03 17:00",
     "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=WE;COUNT=6", "exdates": [f"{MONTH}-24 15:45"]}, "venue": "field"},
    {"title": "World Book Day", "all_day": True, "start_date": f"{MONTH}-04", "end_date": f"{MONTH}-04",
     "description": "Come dressed as your favourite book character."},
    {"title": "Year 11 parents' evening", "start_date": f"{MONTH}-09 16:30", "end_date": f"{MONTH}-09 19:30",
     "venue": "hall", "description": "Book appointments with subject teachers through the school office."},
    {"title": "Science week", "all_day": True, "start_date": f"{MONTH}-15", "end_date": f"{MONTH}-19",
     "description": "Workshops, a visiting planetarium and the Year 8 rocket launch."},
    {"title": "Year 8 rocket launch", "start_date": f"{MONTH}-18 13:30", "end_date": f"{MONTH}-18 15:00",
     "venue": "field"},
    {"title": "Governors' meeting", "start_date": f"{MONTH}-11 18:00", "end_date": f"{MONTH}-11 20:00",
     "venue": "library"},
    {"title": "Spring concert", "start_date": f"{MONTH}-25 19:00", "end_date": f"{MONTH}-25 21:00", "venue": "hall",
     "description": "The orchestra, the choirs and the jazz band. Tickets from the office, £3."},
    {"title": "Year 9 museum trip", "start_date": f"{MONTH}-10 08:30", "end_date": f"{MONTH}-10 16:00",
     "description": "Coach leaves from the front gate at 8:30 sharp; packed lunch needed."},
    {"title": "Choir rehearsal", "start_date": f"{MONTH}-02 12:30", "end_date": f"{MONTH}-02 13:15",
     "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=16"}, "venue": "music"},
    {"title": "INSET day (school closed to pupils)", "all_day": True, "start_date": f"{MONTH}-26",
     "end_date": f"{MONTH}-26"},
    {"title": "Easter holidays", "all_day": True, "start_date": f"{MONTH}-29", "end_date": "2027-04-09"},
    {"title": "Bake sale for charity", "start_date": f"{MONTH}-12 12:00", "end_date": f"{MONTH}-12 13:30",
     "venue": "hall"},
]
VENUES = {"hall": {"venue": "Main hall", "address": "1 School Lane"}, "field": {"venue": "Playing fields"},
          "library": {"venue": "Library"}, "music": {"venue": "Music room"}}


def call(url: str, authorization: str, method: str = "GET", body: dict | None = None):
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": authorization, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def new_site(*init_options: str) -> tuple[Path, list[str]]:
    """A fresh SQLite site in a temporary folder, `sitehost init`ed: its config file and the command to run."""
    work = Path(tempfile.mkdtemp(prefix="calendar-shot-"))
    config = work / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{work}/site.db"\nuploads_dir = "{work}/uploads"\n'
                      '[site]\nname = "Riverside School"\ntimezone_string = "Europe/London"\n')
    sitehost = [sys.executable, "-m", "host.cli", "--config", str(config)]
    subprocess.run(sitehost + ["init", *init_options], check=True, capture_output=True)
    return config, sitehost


def main(folder: str) -> None:
    from playwright.sync_api import sync_playwright

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    config, sitehost = new_site()
    created = subprocess.run(sitehost + ["user", "list"], check=True, capture_output=True, text=True).stdout
    login = next(line.split()[1] for line in created.splitlines() if "administrator" in line)
    password = subprocess.run(sitehost + ["app-password", "create", login, "screenshot"], check=True,
                              capture_output=True, text=True).stdout.strip().splitlines()[-1]
    authorization = "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()
    process, rest = start_sitehost(config, "--quiet")
    site = rest[: -len("/wp-json")]
    try:
        venues = {key: call(f"{rest}/cal/events/v1/venues", authorization, "POST", fields)["id"]
                  for key, fields in VENUES.items()}
        for event in EVENTS:
            body = {**event, "status": "publish"}
            if "venue" in body:
                body["venue"] = [venues[body["venue"]]]
            call(f"{rest}/cal/events/v1/events", authorization, "POST", body)
        shots = [("month.png", f"/events/month/{MONTH}/", 1200), ("list.png", f"/events/list/?start={MONTH}-08", 1000),
                 ("day.png", f"/events/day/{MONTH}-18/", 1000), ("month-phone.png", f"/events/month/{MONTH}/", 390)]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for name, path, width in shots:
                view = browser.new_page(viewport={"width": width, "height": 900})
                view.goto(site + path, wait_until="networkidle")
                view.screenshot(path=str(out / name), full_page=True)
                view.close()
                print("screenshot:", out / name)
            browser.close()
    finally:
        stop_sitehost(process)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/calendar")
