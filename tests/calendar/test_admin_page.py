"""The Calendar admin page over HTTP (WebTest, signed in as a browser would): importing an uploaded .ics
file and a feed's address, the summary with what was not imported and why, importing again by UID, and
the calendar settings saved through the wizard's route; every error beside its field, changing nothing."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

from host.testing import create_test_user
from tests.admin.helpers import form_with, sign_in

DATA = Path(__file__).parent / "data"
TERM = DATA / "school-term.ics"
WIZARD = "/wp-json/calx/v2/onboarding/wizard"


@pytest.fixture
def site(make_app):
    return make_app(plugins=["core", "calendar"], site={"timezone_string": "Europe/London"},
                    config={"calendar": {"import_allow_private_targets": True, "import_max_bytes": 100_000}})


@pytest.fixture
def admin(site):
    return create_test_user(site, "administrator")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        return None


@pytest.fixture
def feed_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(DATA)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def event_titles(site) -> list[str]:
    events = site.client.get("/wp-json/cal/events/v1/events?start_date=2030-01-01&end_date=2031-01-01"
                             "&per_page=50").json["events"]
    return sorted({event["title"] for event in events})  # a repeating event is listed once per occurrence


def upload(client, name: str, data: bytes, status: int = 200):
    form = form_with(client.get("/admin/calendar"), "upload")
    form["ics_file"] = (name, data)
    return form.submit(status=status)


def test_an_uploaded_file_is_imported_with_its_summary_and_again_creates_nothing(site, admin):
    client = sign_in(site, admin)
    page = client.get("/admin/calendar")
    assert page.status_int == 200 and page.html.select_one("h1").text == "Calendar"
    assert "No imports yet." in page.text
    answer = upload(client, "school-term.ics", TERM.read_bytes())
    summary = answer.html.select_one("section.import-summary")
    assert "upload: school-term.ics" in summary.text
    assert "4 created" in summary.text and "1 failed" in summary.text
    problems = [item.text for item in summary.select("ul.problems li")]
    assert len(problems) == 1 and problems[0]  # the event that could not be imported, named with its reason
    assert answer.html.select_one(".notice.error").text.startswith("Import finished: 4 created")
    assert len(event_titles(site)) == 4
    assert all(answer.html.select_one(f"#field-view_{view}").has_attr("checked") for view in ("month", "list", "day"))
    again = upload(client, "school-term.ics", TERM.read_bytes())
    assert "0 created" in again.html.select_one("section.import-summary").text
    assert "4 skipped" in again.html.select_one("section.import-summary").text
    rows = again.html.select("section[aria-labelledby=imports-heading] tbody tr")
    assert len(rows) == 2 and all("upload: school-term.ics" in row.text for row in rows)
    assert rows[0].select_one("td[data-label=Again]").text.strip() == "\u2013"  # an upload cannot be fetched again
    assert len(event_titles(site)) == 4


@pytest.mark.parametrize(("name", "data", "message"), [
    ("", b"", "Choose an .ics file to import."),
    ("notes.ics", b"this is not a calendar", "This file cannot be imported: not an iCalendar file"),
    ("huge.ics", b"BEGIN:VCALENDAR\r\n" + b"X" * 100_001, "larger than 100,000 bytes"),
])
def test_a_bad_upload_is_refused_beside_its_field_and_imports_nothing(site, admin, name, data, message):
    client = sign_in(site, admin)
    form = form_with(client.get("/admin/calendar"), "upload")
    if name:
        form["ics_file"] = (name, data)
    answer = form.submit(status=400)
    error = answer.html.select_one("#field-ics_file-error")
    assert error is not None and message in error.text
    assert answer.html.select_one("#field-ics_file")["aria-invalid"] == "true"
    assert event_titles(site) == [] and "No imports yet." in answer.text


def test_a_feed_address_is_imported_and_can_be_imported_again(site, admin, feed_server):
    client = sign_in(site, admin)
    url = f"{feed_server}/school-term.ics"
    answer = form_with(client.get("/admin/calendar"), "import-url", feed_url=url).submit()
    assert "4 created" in answer.html.select_one("section.import-summary").text
    again = form_with(answer, "import-again", _match={"import_id": answer.html.select_one(
        "section[aria-labelledby=imports-heading] tbody tr input[name=import_id]")["value"]}).submit()
    summary = again.html.select_one("section.import-summary").text
    assert url in summary and "0 created" in summary and "4 skipped" in summary
    assert len(event_titles(site)) == 4


@pytest.mark.parametrize(("url", "message"), [
    ("ftp://example.test/term.ics", "Enter the feed's http:// or https:// address"),
    ("https://" + "a" * 2000 + ".test/x.ics", "at most 2000 characters"),
    ("MISSING", "The feed could not be imported"),
])
def test_a_bad_feed_address_is_refused_beside_its_field(site, admin, feed_server, url, message):
    client = sign_in(site, admin)
    url = f"{feed_server}/no-such-file.ics" if url == "MISSING" else url
    answer = form_with(client.get("/admin/calendar"), "import-url", feed_url=url).submit(status=400)
    assert message in answer.html.select_one("#field-feed_url-error").text
    assert event_titles(site) == []


def test_a_private_feed_address_is_refused_unless_allowed(make_app, feed_server):
    site = make_app(plugins=["core", "calendar"])
    client = sign_in(site, create_test_user(site, "administrator"))
    answer = form_with(client.get("/admin/calendar"), "import-url",
                       feed_url=f"{feed_server}/school-term.ics").submit(status=400)
    assert "calendar_import_private_target" in answer.html.select_one("#field-feed_url-error").text
    assert event_titles(site) == []


def test_importing_again_an_unknown_import_changes_nothing(site, admin):
    client = sign_in(site, admin)
    upload(client, "school-term.ics", TERM.read_bytes())
    page = client.get("/admin/calendar")
    form = form_with(page, "settings")  # any form of the page gives the session's CSRF token
    answer = client.post("/admin/calendar", {"csrf_token": form["csrf_token"].value, "action": "import-again",
                                             "import_id": "nope"}, status=409)
    assert "There is no import from a feed address with that id" in answer.text
    assert len(answer.html.select("section[aria-labelledby=imports-heading] tbody tr")) == 1


def test_calendar_settings_are_saved_through_the_wizard_and_errors_change_nothing(site, admin):
    client = sign_in(site, admin)
    page = client.get("/admin/calendar")
    assert page.html.select_one("#field-timezone_string")["value"] == "Europe/London"
    assert page.html.select_one("#field-currency")["value"] == "GBP"
    assert all(page.html.select_one(f"#field-view_{view}").has_attr("checked") for view in ("month", "list", "day"))
    form = form_with(page, "settings", timezone_string="Europe/Paris", date_format="j F Y", start_of_week="0",
                     currency="eur")
    form["view_day"] = False
    saved = form.submit()
    assert "Calendar settings saved." in saved.text
    stored = site.client.get(WIZARD, headers=admin.headers).json["settings"]
    assert stored == {"timezone_string": "Europe/Paris", "date_format": "j F Y", "start_of_week": 0,
                      "calEnableViews": ["month", "list"]}
    assert saved.html.select_one("#field-currency")["value"] == "EUR"
    assert saved.html.select_one("#field-start_of_week option[selected]")["value"] == "0"
    assert not saved.html.select_one("#field-view_day").has_attr("checked")
    progress = site.client.get(WIZARD, headers=admin.headers).json["progress"]
    assert 1 in progress["completedTabs"]
    bad_zone = form_with(saved, "settings", timezone_string="Mars/Olympus").submit(status=400)
    assert "Not an IANA time zone" in bad_zone.html.select_one("#field-timezone_string-error").text
    assert bad_zone.html.select_one("#field-timezone_string")["value"] == "Mars/Olympus"  # kept as typed
    no_views = form_with(saved, "settings")
    for view in ("month", "list", "day"):
        no_views[f"view_{view}"] = False
    refused = no_views.submit(status=400)
    assert refused.html.select_one("#field-views-error").text == "Tick at least one view."
    bad_currency = form_with(saved, "settings", currency="pounds").submit(status=400)
    assert bad_currency.html.select_one("#field-currency-error").text
    assert site.client.get(WIZARD, headers=admin.headers).json["settings"] == stored  # nothing changed


def test_the_page_is_for_administrators_only(site):
    editor = create_test_user(site, "editor")
    assert sign_in(site, editor).get("/admin/calendar", status=403).status_int == 403


def test_what_an_import_cannot_represent_is_named_in_the_summary(site, admin):
    client = sign_in(site, admin)
    answer = upload(client, "not-representable.ics", (DATA / "not-representable.ics").read_bytes())
    summary = answer.html.select_one("section.import-summary")
    unsupported = int(summary.select_one(".count-unsupported").text.split()[0])
    named = [item.text for item in summary.select("ul.problems li") if item.text.startswith("not representable")]
    assert unsupported > 0 and len(named) == unsupported
    row = answer.html.select_one("section[aria-labelledby=imports-heading] tbody tr")
    assert [item.text for item in row.select("td[data-label='Not imported, and why'] li")
            if item.text.startswith("not representable")] == named
