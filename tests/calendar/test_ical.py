"""iCalendar feeds: events.ics (the list's filters and rules), events/{id}.ics and /events/feed.ics."""

from __future__ import annotations

import datetime

import icalendar
import pytest
from webtest import TestApp

from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, new_event, new_venue

FEED = f"{API}/events.ics"
JUNE = {"start_date": "2030-06-01", "end_date": "2030-06-30"}
LONG = "A very long description that goes on and on, with commas, semicolons; and more words " * 4


def parse(response) -> icalendar.Calendar:
    assert response.status_int == 200
    assert response.headers["Content-Type"] == "text/calendar; charset=utf-8"
    raw = response.body
    assert raw.startswith(b"BEGIN:VCALENDAR\r\n") and raw.endswith(b"END:VCALENDAR\r\n")
    assert all(len(line) <= 75 for line in raw.split(b"\r\n"))  # folded (RFC 5545 3.1)
    return icalendar.Calendar.from_ical(raw)


def vevents(calendar) -> dict[str, icalendar.Event]:
    return {str(event["SUMMARY"]): event for event in calendar.walk("VEVENT")}


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    editor = client_as(app, create_test_user(app, "editor"))
    hall = new_venue(admin, venue="Main hall", address="1 School Lane", city="Riverside")
    sport = admin.post_json(f"{API}/categories", {"name": "Sport"}).json
    events = {
        "sports": new_event(admin, title="Sports day, races; games", start_date="2030-06-12 09:00",
                            end_date="2030-06-12 15:00", description=f"<p>{LONG}</p>", venue=[hall["id"]],
                            categories=[sport["id"]]),
        "fair": new_event(admin, title="Summer fair", all_day=True, start_date="2030-06-28", end_date="2030-06-29"),
        "visit": new_event(admin, title="Exchange visit call", timezone="America/New_York",
                           start_date="2030-06-05 10:00", end_date="2030-06-05 11:00"),
        "choir": new_event(admin, title="Choir practice", start_date="2030-06-03 16:00", end_date="2030-06-03 17:00",
                           recurrence={"rule": "FREQ=WEEKLY;COUNT=4", "exdates": ["2030-06-17 16:00"]}),
        "draft": new_event(admin, title="Draft meeting", status="draft", start_date="2030-06-12 12:00",
                           end_date="2030-06-12 13:00"),
        "locked": new_event(admin, title="Locked evening", start_date="2030-06-14 18:00",
                            end_date="2030-06-14 19:00", description="Secret agenda"),
    }
    admin.post_json(f"{API}/events/{events['locked']['id']}", {"password": "letmein"})
    visitor = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    return {"app": app, "admin": admin, "editor": editor, "visitor": visitor, "events": events, "sport": sport}


def test_the_list_feed_is_valid_icalendar_with_a_timezone_per_zone(site):
    calendar = parse(site["visitor"].get(FEED, JUNE))
    assert str(calendar["VERSION"]) == "2.0" and "PRODID" in calendar
    zones = {str(zone["TZID"]) for zone in calendar.walk("VTIMEZONE")}
    assert zones == {"Europe/London", "America/New_York"}
    found = vevents(calendar)
    assert set(found) == {"Sports day, races; games", "Summer fair", "Exchange visit call", "Choir practice",
                          "Locked evening"}
    sports = found["Sports day, races; games"]
    assert sports["DTSTART"].dt == datetime.datetime(2030, 6, 12, 9, 0, tzinfo=sports["DTSTART"].dt.tzinfo)
    assert sports["DTSTART"].params["TZID"] == "Europe/London"
    assert str(sports["LOCATION"]) == "Main hall, 1 School Lane, Riverside"
    assert str(sports["DESCRIPTION"]) == " ".join(LONG.split())
    assert sports.get("CATEGORIES").cats == ["Sport"]
    assert "DTSTAMP" in sports and str(sports["UID"]) == f"event-{site['events']['sports']['id']}@school.test"
    visit = found["Exchange visit call"]
    assert visit["DTSTART"].params["TZID"] == "America/New_York" and visit["DTSTART"].dt.hour == 10


def test_text_is_escaped_and_long_lines_folded(site):
    raw = site["visitor"].get(FEED, JUNE).body
    assert b"SUMMARY:Sports day\\, races\\; games\r\n" in raw
    assert b"\r\n " in raw  # a folded continuation line


def test_all_day_events_use_date_values(site):
    fair = vevents(parse(site["visitor"].get(FEED, JUNE)))["Summer fair"]
    assert fair["DTSTART"].dt == datetime.date(2030, 6, 28) and fair["DTEND"].dt == datetime.date(2030, 6, 30)
    assert fair["DTSTART"].params.get("VALUE") == "DATE" or "VALUE=DATE" in fair.to_ical().decode()


def test_a_repeating_event_appears_once_with_its_rule(site):
    choir = vevents(parse(site["visitor"].get(FEED, JUNE)))["Choir practice"]
    assert choir["RRULE"]["FREQ"] == ["WEEKLY"] and choir["RRULE"]["COUNT"] == [4]
    excluded = [moment.dt for moment in choir["EXDATE"].dts]
    assert [(value.month, value.day, value.hour) for value in excluded] == [(6, 17, 16)]
    assert site["visitor"].get(FEED, JUNE).body.count(b"SUMMARY:Choir practice") == 1


def test_the_feed_follows_the_lists_permission_rules(site):
    visitor = site["visitor"]
    raw = visitor.get(FEED, JUNE).body
    assert b"Draft meeting" not in raw and b"Secret agenda" not in raw
    assert_rest_error(visitor.get(FEED, {**JUNE, "status": "draft"}, status=400), "rest_invalid_param", 400)
    staff = vevents(parse(site["editor"].get(FEED, {**JUNE, "status": "draft"})))
    assert set(staff) == {"Draft meeting"} and str(staff["Draft meeting"]["STATUS"]) == "TENTATIVE"


def test_the_feed_takes_the_lists_filters(site):
    only_sport = vevents(parse(site["visitor"].get(FEED, {**JUNE, "categories": site["sport"]["slug"]})))
    assert set(only_sport) == {"Sports day, races; games"}
    later = vevents(parse(site["visitor"].get(FEED, {"start_date": "2030-06-20", "end_date": "2030-06-30"})))
    assert set(later) == {"Summer fair", "Choir practice"}
    assert_rest_error(site["visitor"].get(FEED, {"start_date": "not a date"}, status=400), "rest_invalid_param", 400)


def test_uids_and_bytes_are_stable_and_unchanged_feeds_answer_304(site):
    visitor = site["visitor"]
    first = visitor.get(FEED, JUNE)
    again = visitor.get(FEED, JUNE)
    assert first.body == again.body and first.headers["ETag"] == again.headers["ETag"]
    assert first.headers["Last-Modified"].endswith(" GMT")
    etag = first.headers["ETag"]
    unchanged = visitor.get(FEED, JUNE, headers={"If-None-Match": etag}, status=304)
    assert unchanged.body == b"" and unchanged.headers["ETag"] == etag
    assert "Content-Type" not in unchanged.headers  # a 304 carries no representation metadata
    visitor.get(FEED, JUNE, headers={"If-None-Match": '"other"'}, status=200)
    visitor.get(FEED, JUNE, headers={"If-Modified-Since": first.headers["Last-Modified"]}, status=304)
    visitor.get(FEED, JUNE, headers={"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"}, status=200)
    visitor.get(FEED, JUNE, headers={"If-Modified-Since": "garbage"}, status=200)


def test_concurrent_visitors_of_an_unbuilt_feed_get_one_and_the_same_feed(site):
    """Threads that find an anonymous feed being built wait for that build (ical._building)."""
    from concurrent.futures import ThreadPoolExecutor

    from plugins.calendar.ical import BUILDING

    query = {"start_date": "2030-06-02", "end_date": "2030-06-29"}  # a feed no other test asks for
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: site["visitor"].get(FEED, query), range(12)))
    assert {answer.status_int for answer in answers} == {200}
    assert len({answer.body for answer in answers}) == 1 and len({answer.headers["ETag"] for answer in answers}) == 1
    assert set(vevents(parse(answers[0]))) == {"Sports day, races; games", "Summer fair", "Exchange visit call",
                                                "Choir practice", "Locked evening"}
    _guard, locks = site["app"].stash.setdefault_by(BUILDING, lambda: (None, {}))
    assert locks == {}  # every build lock is dropped once its last waiter is done


def test_kept_anonymous_feeds_stay_within_their_byte_budget(site):
    from plugins.calendar import ical

    visitor = site["visitor"]
    first = visitor.get(FEED, {"start_date": "2030-06-01", "end_date": "2030-06-20"})
    second = visitor.get(FEED, {"start_date": "2030-06-02", "end_date": "2030-06-21"})
    kept = site["app"].kept("calendar.ical.feeds", ical.FEEDS_KEPT)
    # Room for two feeds of this size, not three.
    kept.max_bytes = len(first.body) + len(second.body) + len(second.body) // 2
    third = visitor.get(FEED, {"start_date": "2030-06-03", "end_date": "2030-06-22"})
    bodies = [body for _key, body in kept.items()]
    assert sum(map(len, bodies)) <= kept.max_bytes and bodies[-1] == third.body
    starts = [dict(query).get("start_date") for (_base, query), _body in kept.items()]
    assert starts == ["2030-06-02", "2030-06-03"]  # the least recently used went first
    again = visitor.get(FEED, {"start_date": "2030-06-01", "end_date": "2030-06-20"})
    assert again.body == first.body and again.headers["ETag"] == first.headers["ETag"]  # built again, the same


def test_a_change_changes_the_etag(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Open evening", start_date="2030-06-05 18:00", end_date="2030-06-05 20:00")
    first = admin.get(FEED, JUNE)
    admin.post_json(f"{API}/events/{event['id']}", {"title": "Open evening (moved)", "start_date": "2030-06-06 18:00",
                                                    "end_date": "2030-06-06 20:00"})
    changed = admin.get(FEED, JUNE, headers={"If-None-Match": first.headers["ETag"]}, status=200)
    assert changed.headers["ETag"] != first.headers["ETag"]
    assert "Open evening (moved)" in vevents(parse(changed))


def test_a_single_event_feed_runs_the_single_events_checks(site):
    visitor, events = site["visitor"], site["events"]
    one = parse(visitor.get(f"{API}/events/{events['sports']['id']}.ics"))
    assert list(vevents(one)) == ["Sports day, races; games"]
    assert {str(zone["TZID"]) for zone in one.walk("VTIMEZONE")} == {"Europe/London"}
    assert_rest_error(visitor.get(f"{API}/events/{events['draft']['id']}.ics", status=403), "event-not-accessible", 403)
    assert_rest_error(visitor.get(f"{API}/events/999999.ics", status=404), "rest-event-not-found", 404)
    locked = f"{API}/events/{events['locked']['id']}.ics"
    assert_rest_error(visitor.get(locked, status=403), "event-password-protected", 403)
    opened = vevents(parse(visitor.get(locked, {"password": "letmein"})))
    assert str(opened["Locked evening"]["DESCRIPTION"]) == "Secret agenda"
    etag = visitor.get(f"{API}/events/{events['fair']['id']}.ics").headers["ETag"]
    visitor.get(f"{API}/events/{events['fair']['id']}.ics", headers={"If-None-Match": etag}, status=304)


def test_the_public_subscription_page_lists_what_visitors_may_read(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    visitor = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    empty = parse(visitor.get("/events/feed.ics"))
    assert not empty.walk("VEVENT") and [str(zone["TZID"]) for zone in empty.walk("VTIMEZONE")] == ["Europe/London"]
    soon = datetime.date.today() + datetime.timedelta(days=7)
    new_event(admin, title="Parents evening", start_date=f"{soon} 17:00", end_date=f"{soon} 19:00")
    new_event(admin, title="Draft meeting", status="draft", start_date=f"{soon} 12:00", end_date=f"{soon} 13:00")
    feed = visitor.get("/events/feed.ics")
    assert set(vevents(parse(feed))) == {"Parents evening"}
    assert feed.headers["Content-Disposition"] == 'inline; filename="events.ics"'
    visitor.get("/events/feed.ics", headers={"If-None-Match": feed.headers["ETag"]}, status=304)


def _as_event_fields(component: icalendar.Event) -> dict:
    """What a client reads from a VEVENT to write the event again through cal/events/v1."""
    start, end = component["DTSTART"].dt, component["DTEND"].dt
    fields = {"title": str(component["SUMMARY"]), "status": "publish",
              "description": str(component.get("DESCRIPTION", ""))}
    if isinstance(start, datetime.datetime):
        fields.update(timezone=str(component["DTSTART"].params["TZID"]), start_date=f"{start:%Y-%m-%d %H:%M:%S}",
                      end_date=f"{end:%Y-%m-%d %H:%M:%S}")
    else:
        fields.update(all_day=True, start_date=f"{start}", end_date=f"{end - datetime.timedelta(days=1)}")
    if "RRULE" in component:
        exdates = [moment.dt for exdate in ([component["EXDATE"]] if "EXDATE" in component else [])
                   for moment in exdate.dts]
        fields["recurrence"] = {"rule": component["RRULE"].to_ical().decode(),
                                "exdates": [f"{moment:%Y-%m-%d %H:%M:%S}" for moment in exdates]}
    return fields


def _comparable(calendar) -> list[tuple]:
    """Each VEVENT without what names its copy (UID, DTSTAMP, CREATED, LAST-MODIFIED, URL)."""
    kept = []
    for component in calendar.walk("VEVENT"):
        kept.append(tuple(sorted((name, value.to_ical() if hasattr(value, "to_ical") else str(value))
                                 for name, value in component.property_items(recursive=False)
                                 if name not in ("UID", "DTSTAMP", "CREATED", "LAST-MODIFIED", "URL", "BEGIN",
                                                 "END"))))
    return sorted(kept)


def test_export_then_sitehost_calendar_import_into_a_fresh_site_gives_the_same_events(site, tmp_path):
    """The issue's round trip: our feed, imported by `sitehost calendar import` into a new site, exports the same."""
    from click.testing import CliRunner

    from host.app import create_app
    from host.cli import main
    from host.config import load_settings

    exported = site["visitor"].get(FEED, JUNE)
    feed_file = tmp_path / "june.ics"
    feed_file.write_bytes(exported.body)
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "fresh.db"}"\n[site]\n'
                      f'timezone_string = "Europe/London"\n')
    runner = CliRunner()
    assert runner.invoke(main, ["--config", str(config), "init"], catch_exceptions=False).exit_code == 0
    imported = runner.invoke(main, ["--config", str(config), "calendar", "import", str(feed_file), "--quiet"],
                             catch_exceptions=False)
    assert imported.exit_code == 0, imported.output
    assert "5 created, 0 updated, 0 skipped, 0 failed" in imported.output
    again_run = runner.invoke(main, ["--config", str(config), "calendar", "import", str(feed_file), "--quiet"],
                              catch_exceptions=False)
    assert "0 created, 0 updated, 5 skipped, 0 failed" in again_run.output  # by UID, categories included
    fresh = create_app(load_settings(str(config)))
    try:
        again = parse(TestApp(fresh, extra_environ={"HTTP_HOST": "school.test"}).get(FEED, JUNE))
    finally:
        fresh.close()
    assert len(again.walk("VEVENT")) == len(parse(exported).walk("VEVENT")) == 5
    assert _comparable(again) == _comparable(parse(exported))
    assert {str(zone["TZID"]) for zone in again.walk("VTIMEZONE")} == {"Europe/London", "America/New_York"}


def test_a_feed_of_events_years_apart_writes_a_bounded_vtimezone(make_app):
    """Event dates run from year 1 to 9998; a zone's clock changes are written within 100 years of today only."""
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    new_event(admin, title="Founding", start_date="0002-06-01 12:00", end_date="0002-06-01 13:00")
    new_event(admin, title="Far reunion", start_date="9997-06-01 12:00", end_date="9997-06-01 13:00")
    response = app.client.get(FEED, {"start_date": "0002-01-01", "end_date": "9997-12-31"})
    calendar = parse(response)
    assert set(vevents(calendar)) == {"Founding", "Far reunion"}
    (zone,) = calendar.walk("VTIMEZONE")
    found = [part.get("RDATE", []) for part in zone.subcomponents]
    changes = [moment for rdates in found for rdate in (rdates if isinstance(rdates, list) else [rdates])
               for moment in rdate.dts]
    assert 100 < len(changes) < 1000  # the clock changes of ~200 years (about 7 kB), not of 10,000 (about 270 kB)
    assert len(response.body) < 50_000


def test_uids_and_global_ids_do_not_follow_the_host_header(site):
    """A subscriber who reaches the site by two names must not get every event twice."""
    sports = site["events"]["sports"]["id"]
    uids = set()
    for host in ("school.test", "127.0.0.1", "localhost:8080", "evil.example"):
        visitor = TestApp(site["app"], extra_environ={"HTTP_HOST": host})
        uids.add(str(vevents(parse(visitor.get(FEED, JUNE)))["Sports day, races; games"]["UID"]))
        uids.add(str(vevents(parse(visitor.get(f"{API}/events/{sports}.ics")))["Sports day, races; games"]["UID"]))
        assert visitor.get(f"{API}/events/{sports}").json["global_id"] == f"school.test?id={sports}"
    assert uids == {f"event-{sports}@school.test"}


def test_discovery_advertises_the_feed_as_a_path_clients_can_request(site):
    """node-wpapi makes a handler of each route's literal parts and checks a value against the part
    taken as a pattern (`new RegExp(part, "i")`): `events\\.ics` could never be requested."""
    import re

    visitor = site["visitor"]
    routes = visitor.get("/wp-json/cal/events/v1").json["routes"]
    assert "/cal/events/v1/events.ics" in routes
    for route in (route for route in routes if "(" not in route):  # the routes without parameters
        for part in route.split("/"):
            assert re.search(part, part, re.IGNORECASE), f"{route}: {part!r} does not match itself"
    feed = visitor.get(routes["/cal/events/v1/events.ics"]["_links"]["self"][0]["href"].replace("http://school.test", ""))
    assert feed.status_int == 200 and feed.content_type == "text/calendar"
    assert "/cal/events/v1/events.ics" in visitor.get("/wp-json/").json["routes"]
    assert_rest_error(visitor.get(f"{API}/events-ics", status=404), "rest_no_route", 404)
