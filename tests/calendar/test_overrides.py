"""Changed occurrences of a repeating event: iCalendar RECURRENCE-ID overrides in and out.

A moved, retitled or cancelled occurrence is imported by `sitehost calendar import` (the real command on
the test database, SQLite or PostgreSQL), listed at its own time by cal/events/v1, the occurrence route,
the calendar views and the .ics feeds, and exported beside its series. What an import cannot represent
is named and counted. The round trip is checked by an independent RFC 5545 expander
(recurring-ical-events): the source file and our export give the same occurrences over one window.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import icalendar
import pytest
import recurring_ical_events
from click.testing import CliRunner

from host.cli import main
from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON

DATA = Path(__file__).parent / "data"
WINTER_PLAY = DATA / "winter-play.ics"
NOT_REPRESENTABLE = DATA / "not-representable.ics"
SERIES_UID = "winter-play-rehearsal@riverside.test"
SOURCE_UIDS = {SERIES_UID, "carol-concert-2026@riverside.test", "inset-2027-01@riverside.test",
               "staff-briefing@riverside.test", "governors-dec-2026@riverside.test"}
WINTER = {"start_date": "2026-11-01", "end_date": "2027-01-31", "per_page": 50}
SERIES_TEXT = "Bring your script.\nSoft shoes, please.\n\nMr Hale runs the session."
AGG = "/wp-json/cal/event-aggregator/v1"


def _site_file(app, folder: Path) -> str:
    """A sitehost.toml for the command line, on the test app's own database."""
    path = folder / "sitehost.toml"
    path.write_text(f'database_url = "{app.settings.database_url}"\n[site]\ntimezone_string = "Europe/London"\n')
    return str(path)


def _run(config: str, *args):
    return CliRunner().invoke(main, ["--config", config, *args], catch_exceptions=False)


def _build(make, folder: Path) -> dict:
    app = make(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator", login="office"))
    return {"app": app, "admin": admin, "visitor": app.client, "config": _site_file(app, folder)}


@pytest.fixture(scope="module")
def site(make_module_app, tmp_path_factory):
    """The winter-play file imported once; the tests here only read."""
    built = _build(make_module_app, tmp_path_factory.mktemp("overrides"))
    built["imported"] = _run(built["config"], "calendar", "import", str(WINTER_PLAY), "--quiet")
    built["html_event"] = built["admin"].post_json(f"{API}/events", {
        "title": "Spring open morning", "status": "publish", "start_date": "2027-03-10 09:00",
        "end_date": "2027-03-10 11:00", "description": "<p>Tours of the school.</p>\n<p>Coffee in the hall<br>"
                                                      "from 8:30 &amp; cake.</p>"}, status=201).json
    return built


@pytest.fixture
def fresh(make_app, tmp_path):
    """A site of its own, for tests that import again or change events."""
    return _build(make_app, tmp_path)


def _listed(client, **window) -> list[dict]:
    answer = client.get(f"{API}/events", {**WINTER, **window})
    assert answer.status_int == 200
    assert answer.headers["X-CAL-Total"] == str(len(answer.json["events"]))
    return answer.json["events"]


def _series(client, **window) -> list[dict]:
    return [event for event in _listed(client, **window) if event["recurrence"] is not None
            and event["recurrence"]["rule"].startswith("FREQ=WEEKLY;COUNT=8")]


def _parse(response) -> icalendar.Calendar:
    assert response.status_int == 200 and response.headers["Content-Type"] == "text/calendar; charset=utf-8"
    return icalendar.Calendar.from_ical(response.body)


def _components(calendar, uid: str) -> list:
    return [component for component in calendar.walk("VEVENT") if str(component["UID"]) == uid]


def _occurrences(calendar, start: datetime.date, end: datetime.date) -> tuple[set, set]:
    """(what happens, what is cancelled) over [start, end) as recurring-ical-events expands the calendar:
    (UID, start, end, SUMMARY, DESCRIPTION, LOCATION) per occurrence, (UID, RECURRENCE-ID) per cancelled one."""
    happening, cancelled = set(), set()
    for event in recurring_ical_events.of(calendar).between(start, end):
        uid = str(event["UID"])
        if str(event.get("STATUS", "")) == "CANCELLED":
            cancelled.add((uid, event["RECURRENCE-ID"].dt))
            continue
        happening.add((uid, event["DTSTART"].dt, event["DTEND"].dt, str(event.get("SUMMARY", "")),
                       str(event.get("DESCRIPTION", "")), str(event.get("LOCATION", ""))))
    return happening, cancelled


# --- the scenario -------------------------------------------------------------------------------

def test_the_moved_dress_rehearsal_is_listed_at_its_new_time_and_not_at_the_old_one(site):
    imported = site["imported"]
    assert imported.exit_code == 0, imported.output
    assert "5 created, 0 updated, 0 skipped, 0 failed, 0 unsupported" in imported.output
    visitor = site["visitor"]
    week = _series(visitor, start_date="2026-12-14", end_date="2026-12-20")
    assert [(event["title"], event["start_date"], event["end_date"]) for event in week] == [
        ("DRESS REHEARSAL (moved)", "2026-12-16 17:00:00", "2026-12-16 18:30:00")]
    moved = week[0]
    assert moved["description"] == "Full costume.\nParents are welcome to watch."
    assert moved["venue"]["venue"] == "Main hall"
    assert moved["occurrence"]["start"] == "20261216T170000Z"
    assert _series(visitor, start_date="2026-12-15", end_date="2026-12-15") == []  # the Tuesday is free

    single = visitor.get(moved["occurrence"]["rest_url"].split("school.test", 1)[1])
    assert single.json["title"] == "DRESS REHEARSAL (moved)" and single.json["utc_end_date"] == "2026-12-16 18:30:00"
    assert single.json["json_ld"]["name"] == "DRESS REHEARSAL (moved)"
    old_slot = visitor.get(f"{API}/events/{moved['id']}/occurrences/20261215T153000Z", status=404)
    assert_rest_error(old_slot, "rest-occurrence-not-found", 404)

    wednesday = visitor.get("/events/day/2026-12-16/").text
    assert "DRESS REHEARSAL (moved)" in wednesday and "17:00" in wednesday and "18:30" in wednesday
    assert "Main hall" in wednesday
    assert "rehearsal" not in visitor.get("/events/day/2026-12-15/").text.lower()


def test_the_feed_writes_the_moved_occurrence_beside_its_series(site):
    feed = _parse(site["visitor"].get(f"{API}/events.ics", {"start_date": "2026-12-14", "end_date": "2026-12-20"}))
    master, *changed = _components(feed, SERIES_UID)
    assert "RECURRENCE-ID" not in master and master["RRULE"]["COUNT"] == [8]
    moved = {component["RECURRENCE-ID"].dt: component for component in changed}[
        datetime.datetime(2026, 12, 15, 15, 30, tzinfo=master["DTSTART"].dt.tzinfo)]
    assert moved["RECURRENCE-ID"].params["TZID"] == "Europe/London"
    assert (moved["DTSTART"].dt.replace(tzinfo=None), moved["DTEND"].dt.replace(tzinfo=None)) == (
        datetime.datetime(2026, 12, 16, 17, 0), datetime.datetime(2026, 12, 16, 18, 30))
    assert str(moved["SUMMARY"]) == "DRESS REHEARSAL (moved)" and str(moved["LOCATION"]) == "Main hall"
    assert str(moved["STATUS"]) == "CONFIRMED" and moved["DTSTAMP"].dt == master["DTSTAMP"].dt


def test_a_retitled_occurrence_keeps_its_time_and_shows_its_new_title(site):
    [retitled] = _series(site["visitor"], start_date="2026-12-08", end_date="2026-12-08")
    assert (retitled["title"], retitled["start_date"], retitled["end_date"]) == (
        "Winter play rehearsal: Act 2 only", "2026-12-08 15:30:00", "2026-12-08 17:00:00")
    assert retitled["description"] == SERIES_TEXT and retitled["venue"]["venue"] == "Drama studio"
    [before] = _series(site["visitor"], start_date="2026-12-01", end_date="2026-12-01")
    assert before["title"] == "Winter play rehearsal"  # the others keep the series' title
    day = site["visitor"].get("/events/day/2026-12-08/").text
    assert "Winter play rehearsal: Act 2 only" in day


def test_a_cancelled_occurrence_is_not_listed_anywhere(site):
    starts = [event["start_date"] for event in _series(site["visitor"])]
    assert starts == ["2026-11-24 15:30:00", "2026-12-01 15:30:00", "2026-12-08 15:30:00", "2026-12-16 17:00:00",
                      "2027-01-05 15:30:00", "2027-01-12 15:30:00"]  # 12-22 cancelled, 12-29 an EXDATE
    assert _series(site["visitor"], start_date="2026-12-22", end_date="2026-12-22") == []
    series_id = _series(site["visitor"])[0]["id"]
    assert_rest_error(site["visitor"].get(f"{API}/events/{series_id}/occurrences/20261222T153000Z", status=404),
                      "rest-occurrence-not-found", 404)
    assert "rehearsal" not in site["visitor"].get("/events/day/2026-12-22/").text.lower()
    feed = _parse(site["visitor"].get(f"{API}/events.ics", WINTER))
    cancelled = [component for component in _components(feed, SERIES_UID) if str(component.get("STATUS")) == "CANCELLED"]
    assert [component["RECURRENCE-ID"].dt.strftime("%Y-%m-%d %H:%M") for component in cancelled] == ["2026-12-22 15:30"]
    assert [moment.dt.strftime("%Y-%m-%d %H:%M") for moment in _components(feed, SERIES_UID)[0]["EXDATE"].dts] == [
        "2026-12-29 15:30"]


def test_the_feed_keeps_the_source_uids(site):
    feed = _parse(site["visitor"].get(f"{API}/events.ics", WINTER))
    assert {str(component["UID"]) for component in feed.walk("VEVENT")} == SOURCE_UIDS
    series_id = _series(site["visitor"])[0]["id"]
    single = _parse(site["visitor"].get(f"{API}/events/{series_id}.ics"))
    assert {str(component["UID"]) for component in single.walk("VEVENT")} == {SERIES_UID}
    assert len(single.walk("VEVENT")) == 4  # the series and its three changed occurrences
    own = _parse(site["visitor"].get(f"{API}/events/{site['html_event']['id']}.ics"))
    assert str(own.walk("VEVENT")[0]["UID"]) == f"event-{site['html_event']['id']}@school.test"


def test_description_line_breaks_survive_import_and_export(site):
    visitor = site["visitor"]
    assert _series(visitor, start_date="2026-12-01", end_date="2026-12-01")[0]["description"] == SERIES_TEXT
    response = visitor.get(f"{API}/events.ics", WINTER)
    unfolded = response.body.replace(b"\r\n ", b"")
    assert b"DESCRIPTION:Bring your script.\\nSoft shoes\\, please.\\n\\nMr Hale runs the session.\r\n" in unfolded
    master = _components(_parse(response), SERIES_UID)[0]
    assert str(master["DESCRIPTION"]) == SERIES_TEXT
    # An event written with HTML: a line per paragraph and per <br>, the markup's own newlines are spaces.
    own = _parse(visitor.get(f"{API}/events/{site['html_event']['id']}.ics")).walk("VEVENT")[0]
    assert str(own["DESCRIPTION"]) == "Tours of the school.\n\nCoffee in the hall\nfrom 8:30 & cake."


def test_round_trip_our_export_expands_to_the_same_occurrences_as_the_source(site, make_app, tmp_path):
    """recurring-ical-events expands the source file and our export over one window: the same occurrences."""
    window = (datetime.date(2026, 11, 1), datetime.date(2027, 2, 1))
    source = icalendar.Calendar.from_ical(WINTER_PLAY.read_bytes())
    exported = site["visitor"].get(f"{API}/events.ics", WINTER)
    expected = _occurrences(source, *window)
    assert len(expected[0]) == 13 and len(expected[1]) == 1
    assert _occurrences(_parse(exported), *window) == expected

    # ... and a second site importing our export exports the same again (UIDs, overrides and all).
    feed_file = tmp_path / "winter.ics"
    feed_file.write_bytes(exported.body)
    second = _build(make_app, tmp_path)
    imported = _run(second["config"], "calendar", "import", str(feed_file), "--quiet")
    assert "5 created, 0 updated, 0 skipped, 0 failed, 0 unsupported" in imported.output, imported.output
    assert _occurrences(_parse(second["visitor"].get(f"{API}/events.ics", WINTER)), *window) == expected


# --- importing again ---------------------------------------------------------------------------------------

def test_importing_the_same_file_again_changes_nothing_and_a_changed_override_updates_its_series(fresh, tmp_path):
    config, visitor = fresh["config"], fresh["visitor"]
    assert _run(config, "calendar", "import", str(WINTER_PLAY), "--quiet").exit_code == 0
    listed = [(event["title"], event["start_date"]) for event in _listed(visitor)]
    again = _run(config, "calendar", "import", str(WINTER_PLAY), "--quiet")
    assert "0 created, 0 updated, 5 skipped, 0 failed, 0 unsupported" in again.output
    assert [(event["title"], event["start_date"]) for event in _listed(visitor)] == listed

    text = WINTER_PLAY.read_bytes().decode()
    cancelled_block = text[text.index("BEGIN:VEVENT\r\nUID:winter-play-rehearsal@riverside.test\r\nDTSTAMP:20261201T090000Z"
                                      "\r\nRECURRENCE-ID;TZID=Europe/London:20261222T153000"):]
    cancelled_block = cancelled_block[:cancelled_block.index("END:VEVENT\r\n") + len("END:VEVENT\r\n")]
    changed = text.replace(cancelled_block, "").replace("DTSTART;TZID=Europe/London:20261216T170000",
                                                        "DTSTART;TZID=Europe/London:20261216T173000")
    changed_file = tmp_path / "winter-changed.ics"
    changed_file.write_bytes(changed.encode())
    assert changed.count("BEGIN:VEVENT") == text.count("BEGIN:VEVENT") - 1
    updated = _run(config, "calendar", "import", str(changed_file), "--quiet")
    assert "0 created, 1 updated, 4 skipped, 0 failed, 0 unsupported" in updated.output
    week = _series(visitor, start_date="2026-12-14", end_date="2026-12-23")
    assert [(event["title"], event["start_date"], event["end_date"]) for event in week] == [
        ("DRESS REHEARSAL (moved)", "2026-12-16 17:30:00", "2026-12-16 18:30:00"),
        ("Winter play rehearsal", "2026-12-22 15:30:00", "2026-12-22 17:00:00")]  # no longer cancelled
    assert "0 created, 0 updated, 5 skipped" in _run(config, "calendar", "import", str(changed_file), "--quiet").output


def test_a_protected_series_shows_no_more_of_its_changed_occurrences_than_of_itself(fresh):
    config, visitor, admin = fresh["config"], fresh["visitor"], fresh["admin"]
    assert _run(config, "calendar", "import", str(WINTER_PLAY), "--quiet").exit_code == 0
    series_id = _series(visitor)[0]["id"]
    admin.post_json(f"{API}/events/{series_id}", {"password": "curtain"})
    [moved] = _series(visitor, start_date="2026-12-16", end_date="2026-12-16")
    assert moved["title"] == "DRESS REHEARSAL (moved)" and moved["description"] == "" and moved["venue"] == []
    feed = visitor.get(f"{API}/events.ics", WINTER).body
    assert b"Full costume" not in feed and b"Main hall" not in feed and b"Drama studio" not in feed
    unlocked = visitor.get(f"{API}/events/{series_id}/occurrences/20261216T170000Z", {"password": "curtain"}).json
    assert unlocked["description"] == "Full costume.\nParents are welcome to watch."
    assert admin.get(f"{API}/events", {"start_date": "2026-12-16", "end_date": "2026-12-16"}).json["events"][0][
        "venue"]["venue"] == "Main hall"


def test_deleting_or_ending_a_series_drops_its_changed_occurrences(fresh):
    config, visitor, admin = fresh["config"], fresh["visitor"], fresh["admin"]
    assert _run(config, "calendar", "import", str(WINTER_PLAY), "--quiet").exit_code == 0
    series_id = _series(visitor)[0]["id"]
    admin.post_json(f"{API}/events/{series_id}", {"recurrence": None})
    titles = [event["title"] for event in _listed(visitor) if event["id"] == series_id]
    assert titles == ["Winter play rehearsal"]  # one event now, at its own start; the overrides went with the rule
    overrides = fresh["app"].db.metadata.tables["cal_event_overrides"]
    from sqlalchemy import func, select

    with fresh["app"].db.session() as session:
        assert session.execute(select(func.count()).select_from(overrides)).scalar() == 0


# --- what an import cannot represent ------------------------------------------------------------------------

NAMED = [
    "open-evening-2027@riverside.test: extra dates (RDATE) with PERIOD values not imported",
    "open-evening-2027@riverside.test: 1 VALARM (reminders) not imported",
    "netball-club@riverside.test: an override with RANGE=THISANDFUTURE (changes every later occurrence) not imported",
    "netball-club@riverside.test: the override of 20270113T160000Z not imported (no occurrence of the series "
    "starts then)",
    "VTODO 'Return permission slips' (permission-slips@riverside.test): not imported (the calendar holds events only)",
    "VJOURNAL 'Trip notes' (trip-notes@riverside.test): not imported (the calendar holds events only)",
    "orchestra@riverside.test: the override of 20270112T153000Z not imported (the file has no event with its UID)",
]


def test_what_an_import_cannot_represent_is_named_and_counted(fresh):
    config, visitor = fresh["config"], fresh["visitor"]
    imported = _run(config, "calendar", "import", str(NOT_REPRESENTABLE), "--quiet")
    assert imported.exit_code == 0, imported.output  # nothing failed: the events are in, the rest is named
    assert "2 created, 0 updated, 0 skipped, 0 failed, 7 unsupported" in imported.output
    assert [line.removeprefix("unsupported: ") for line in imported.output.splitlines()
            if line.startswith("unsupported: ")] == NAMED
    [record] = json.loads(_run(config, "calendar", "imports", "--json").output)
    assert record["activity"] == {"created": 2, "updated": 0, "skipped": 0, "failed": 0, "unsupported": 7,
                                  "unsupported_items": NAMED}
    assert "7 unsupported" in _run(config, "calendar", "imports").output
    netball = [event for event in _listed(visitor, start_date="2027-01-01", end_date="2027-03-31")
               if event["title"].startswith("Netball")]
    assert [event["start_date"] for event in netball] == [f"2027-{day} 16:00:00" for day in (
        "01-11", "01-18", "01-25", "02-01", "02-08", "02-15")]  # no override applied
    assert {event["title"] for event in netball} == {"Netball club"}
    again = _run(config, "calendar", "import", str(NOT_REPRESENTABLE), "--quiet")
    assert "0 created, 0 updated, 2 skipped, 0 failed, 7 unsupported" in again.output  # named on every run


def test_the_import_services_batch_answer_names_what_it_cannot_represent(fresh):
    config, visitor = fresh["config"], fresh["visitor"]
    opened = _run(config, "calendar", "expect-import", "County fixtures feed").output
    values = dict(line.split(":", 1) for line in opened.splitlines())
    answer = visitor.post_json(f"{AGG}/import/{values['import_id'].strip()}/batch", {
        "batch_hash": values["batch_hash"].strip(), "percentage_complete": 100,
        "status": {"data": {"total": 1, "done": 1}, "batch": {"total": 1, "done": 0}},
        "events": [{"uid": "hourly@county.test", "title": "Hourly reading", "start_date": "2030-04-02 09:00",
                    "end_date": "2030-04-02 09:30", "rrule": "FREQ=HOURLY;COUNT=3"}]})
    assert answer.json["activity"] == {
        "created": 1, "updated": 0, "skipped": 0, "failed": 0, "unsupported": 1,
        "unsupported_items": ["hourly@county.test: its rule FREQ=HOURLY;COUNT=3 is listed as its first occurrence "
                              "only"]}
    [record] = json.loads(_run(config, "calendar", "imports", "--json").output)
    assert record["activity"]["unsupported"] == 1 and record["status"] == "cal-ea-success"
