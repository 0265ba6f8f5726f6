"""`sitehost calendar import FILE|URL`: iCalendar in, events by UID, batches under an import record.

Runs the real command (click's CliRunner) on a real site file, reads the result over HTTP.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from webtest import TestApp

from host.app import create_app
from host.cli import main
from host.config import load_settings

from tests.calendar.helpers import API

DATA = Path(__file__).parent / "data"
TERM = DATA / "school-term.ics"
CALX = "/wp-json/calx/v1"


def _site_file(tmp_path: Path, calendar: str = "") -> str:
    path = tmp_path / "sitehost.toml"
    path.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n[site]\ntimezone_string = "Europe/London"\n'
                    f'[plugins.calendar]\n{calendar}')
    return str(path)


@pytest.fixture
def config(tmp_path):
    made = _site_file(tmp_path, "import_batch_size = 2\n")
    assert run(made, "init").exit_code == 0
    return made


def run(config, *args):
    return CliRunner().invoke(main, ["--config", config, *args], catch_exceptions=False)


@pytest.fixture
def client_of():
    apps = []

    def build(config):
        app = create_app(load_settings(config))
        apps.append(app)
        return TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    yield build
    for app in apps:
        app.close()


def _events(client) -> dict:
    listed = client.get(f"{API}/events", {"start_date": "2030-01-01", "end_date": "2031-01-01", "per_page": 50}).json
    first = {}  # a repeating event is listed once per occurrence: keep its first
    for event in listed["events"]:
        first.setdefault(event["title"], event)
    return first


def test_import_a_file_creates_events_then_a_second_run_creates_nothing(config, client_of):
    first = run(config, "calendar", "import", str(TERM), "--quiet")
    assert first.exit_code == 1  # one entry has no DTSTART: reported, and the exit code says so
    assert "4 created, 0 updated, 0 skipped, 1 failed" in first.output
    assert "broken-2030@riverside.test: no DTSTART" in first.output
    client = client_of(config)
    events = _events(client)
    assert sorted(events) == ["Choir practice", "Governors' meeting", "Sports days", "Year 9 parents' evening"]
    evening = events["Year 9 parents' evening"]
    assert (evening["start_date"], evening["end_date"], evening["timezone"]) == (
        "2030-06-11 17:00:00", "2030-06-11 19:30:00", "Europe/London")
    assert evening["utc_start_date"] == "2030-06-11 16:00:00"
    assert evening["description"] == "Meet your child's teachers, book slots online.\nBring the report."
    assert evening["website"] == "https://riverside.test/parents-evening" and evening["venue"]["venue"] == "Main hall"
    assert "ical?uid=parents-evening-2030@riverside.test" in evening["global_id_lineage"]
    sports = events["Sports days"]  # DATE values: an all-day event over two days (DTEND is exclusive)
    assert sports["all_day"] is True and (sports["start_date"], sports["end_date"]) == (
        "2030-07-03 00:00:00", "2030-07-04 23:59:59")
    governors = events["Governors' meeting"]  # a UTC time with a DURATION
    assert (governors["utc_start_date"], governors["utc_end_date"], governors["timezone"]) == (
        "2030-09-18 18:00:00", "2030-09-18 20:00:00", "UTC")
    calx = client.get(f"{CALX}/events/{evening['id']}").json
    assert calx["start_date"] == evening["start_date"]

    second = run(config, "calendar", "import", str(TERM), "--quiet")
    assert "0 created, 0 updated, 4 skipped, 1 failed" in second.output
    assert len(_events(client)) == 4 and client.get(f"{API}/venues").json["total"] == 3

    records = json.loads(run(config, "calendar", "imports", "--json").output)
    assert len(records) == 2
    newest = records[0]
    assert newest["status"] == "cal-ea-success" and newest["percentage_complete"] == 100
    assert newest["interval"] == 10 and newest["total_events"] == 5 and newest["origin"] == "ics"
    assert newest["activity"] == {"created": 0, "updated": 0, "skipped": 4, "failed": 1, "unsupported": 0, "unsupported_items": []}
    assert records[1]["activity"]["created"] == 4
    table = run(config, "calendar", "imports").output
    assert "cal-ea-success" in table and "100%" in table and str(TERM) in table


def test_recurrence_is_written_as_tables_py_documents(config, client_of):
    run(config, "calendar", "import", str(TERM), "--quiet")
    client = client_of(config)
    choir = _events(client)["Choir practice"]
    app = create_app(load_settings(config))
    try:
        from sqlalchemy import select

        recurrence = app.db.metadata.tables["cal_event_recurrence"]
        with app.db.session() as session:
            rows = [dict(row._mapping) for row in session.execute(select(recurrence)).all()]
    finally:
        app.close()
    assert rows == [{"event_id": choir["id"], "rule": "FREQ=WEEKLY;UNTIL=20300715T143000Z;BYDAY=MO",
                     "exdates": json.dumps(["2030-05-27T14:30:00Z"])}]
    assert (choir["start_date"], choir["end_date"]) == ("2030-05-06 15:30:00", "2030-05-06 16:30:00")


def test_changed_events_are_updated_and_ignored_ones_left_alone(config, client_of, tmp_path):
    run(config, "calendar", "import", str(TERM), "--quiet")
    client = client_of(config)
    events = _events(client)
    changed = TERM.read_text().replace("SUMMARY:Year 9 parents' evening", "SUMMARY:Year 9 parents' evening (hall)")
    changed = changed.replace("SUMMARY:Sports days", "SUMMARY:Sports days (rained off)")
    edited = tmp_path / "edited.ics"
    edited.write_text(changed)
    ignored = events["Sports days"]["id"]
    assert run(config, "calendar", "ignore", str(ignored)).exit_code == 0
    result = run(config, "calendar", "import", str(edited), "--quiet")
    assert "0 created, 1 updated, 3 skipped, 1 failed" in result.output
    titles = sorted(_events(client))
    assert "Year 9 parents' evening (hall)" in titles and "Sports days" not in titles  # ignored: hidden, untouched
    evening_id = events["Year 9 parents' evening"]["id"]
    assert client.get(f"{API}/events/{evening_id}").json["title"] == "Year 9 parents' evening (hall)"
    assert run(config, "calendar", "ignore", str(ignored), "--undo").exit_code == 0
    assert run(config, "calendar", "ignore", "999999").exit_code == 1


def test_import_refuses_missing_files_and_non_calendars(config, tmp_path):
    missing = run(config, "calendar", "import", str(tmp_path / "nope.ics"))
    assert missing.exit_code == 1 and "no such file" in missing.output
    junk = tmp_path / "junk.ics"
    junk.write_text("this is not a calendar")
    refused = run(config, "calendar", "import", str(junk))
    # Validated before a progress bar is drawn: one Error line, no "events ... 0/?".
    assert refused.exit_code == 1
    assert len(refused.output.splitlines()) == 1 and refused.output.startswith("Error: not an iCalendar file")
    assert len(missing.output.splitlines()) == 1 and missing.output.startswith("Error: ")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def served():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(DATA)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_import_from_a_url_needs_the_private_address_allowance(tmp_path, served, client_of):
    url = f"{served}/school-term.ics"
    guarded = tmp_path / "guarded"
    guarded.mkdir()
    config = _site_file(guarded)
    assert run(config, "init").exit_code == 0
    refused = run(config, "calendar", "import", url, "--quiet")
    assert refused.exit_code == 1 and "calendar_import_private_target" in refused.output
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    config = _site_file(allowed, "import_allow_private_targets = true\nimport_max_bytes = 100000\n")
    assert run(config, "init").exit_code == 0
    result = run(config, "calendar", "import", url, "--quiet")
    assert "4 created, 0 updated, 0 skipped, 1 failed" in result.output
    assert len(_events(client_of(config))) == 4
    small = tmp_path / "small"
    small.mkdir()
    config = _site_file(small, "import_allow_private_targets = true\nimport_max_bytes = 1024\n")
    assert run(config, "init").exit_code == 0
    too_big = run(config, "calendar", "import", url, "--quiet")
    assert too_big.exit_code == 1 and "calendar_import_response_too_large" in too_big.output


def test_vtimezone_definitions_and_floating_times(config, client_of):
    """A TZID that is no IANA name is read through its VTIMEZONE (the instant is kept, shown in the site's
    zone); a floating time is the site's wall time."""
    result = run(config, "calendar", "import", str(DATA / "custom-zones.ics"), "--quiet")
    assert "3 created, 0 updated, 0 skipped, 0 failed" in result.output
    events = _events(client_of(config))
    assert events["Windows zone"]["utc_start_date"] == "2030-06-10 07:00:00"  # 09:00 at +02:00
    assert events["Custom zone"]["utc_start_date"] == "2030-06-10 06:00:00"  # 09:00 at +03:00
    assert events["Windows zone"]["timezone"] == events["Custom zone"]["timezone"] == "Europe/London"
    floating = events["Floating"]
    assert (floating["start_date"], floating["utc_start_date"], floating["timezone"]) == (
        "2030-06-10 09:00:00", "2030-06-10 08:00:00", "Europe/London")
