"""Repeating events: the `recurrence` field of cal/events/v1, its limits, occurrences in lists and by address."""

from __future__ import annotations

import datetime

import pytest

from host.testing import assert_rest_error, client_as, create_test_user, recorded_statements

from tests.calendar.helpers import API, LONDON, new_event

EVENTS = f"{API}/events"
JUNE = {"start_date": "2030-06-01", "end_date": "2030-06-30"}


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    choir = new_event(admin, title="Choir practice", start_date="2030-06-03 16:00", end_date="2030-06-03 17:00",
                      recurrence={"rule": "FREQ=WEEKLY;COUNT=6", "exdates": ["2030-06-17 16:00"]})
    sports = new_event(admin, title="Sports day", start_date="2030-06-12 09:00", end_date="2030-06-12 15:00")
    clocks = new_event(admin, title="Staff briefing", start_date="2030-03-18 09:00", end_date="2030-03-18 09:30",
                       recurrence={"rule": "FREQ=WEEKLY;UNTIL=20300415T235959Z"})
    term = new_event(admin, title="Half term", all_day=True, start_date="2030-02-17", end_date="2030-02-21",
                     recurrence={"rule": "FREQ=YEARLY;COUNT=3"})
    draft = new_event(admin, title="Draft club", status="draft", start_date="2030-06-04 12:00",
                      end_date="2030-06-04 13:00", recurrence={"rule": "FREQ=DAILY;COUNT=3"})
    from webtest import TestApp

    anonymous = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    return {"app": app, "admin": admin, "anonymous": anonymous, "choir": choir, "sports": sports,
            "clocks": clocks, "term": term, "draft": draft}


def test_an_event_reads_back_its_rule_and_excluded_dates_in_its_zone(site):
    assert site["choir"]["recurrence"] == {"rule": "FREQ=WEEKLY;COUNT=6", "exdates": ["2030-06-17 16:00:00"]}
    assert site["sports"]["recurrence"] is None
    read = site["anonymous"].get(f"{EVENTS}/{site['choir']['id']}").json
    assert read["recurrence"] == site["choir"]["recurrence"]
    assert read["start_date"] == "2030-06-03 16:00:00"  # the first occurrence


def test_the_list_counts_each_occurrence_inside_the_window_in_start_order(site):
    response = site["anonymous"].get(EVENTS, JUNE)
    listed = [(event["title"], event["start_date"]) for event in response.json["events"]]
    assert listed == [("Choir practice", "2030-06-03 16:00:00"), ("Choir practice", "2030-06-10 16:00:00"),
                      ("Sports day", "2030-06-12 09:00:00"), ("Choir practice", "2030-06-24 16:00:00")]
    assert response.json["total"] == 4 and response.headers["X-CAL-Total"] == "4"
    occurrence = response.json["events"][1]
    assert occurrence["id"] == site["choir"]["id"]
    assert occurrence["end_date"] == "2030-06-10 17:00:00"
    assert occurrence["utc_start_date"] == "2030-06-10 15:00:00"
    assert occurrence["occurrence"]["start"] == "20300610T150000Z"
    assert occurrence["occurrence"]["rest_url"].endswith(f"/events/{site['choir']['id']}/occurrences/20300610T150000Z")
    assert "occurrence" not in response.json["events"][2]


def test_occurrences_page_like_events(site):
    first = site["anonymous"].get(EVENTS, {**JUNE, "per_page": 3}).json
    assert first["total"] == 4 and first["total_pages"] == 2 and "next_rest_url" in first
    second = site["anonymous"].get(EVENTS, {**JUNE, "per_page": 3, "page": 2}).json
    assert [event["start_date"] for event in second["events"]] == ["2030-06-24 16:00:00"]
    past = site["anonymous"].get(EVENTS, {**JUNE, "per_page": 3, "page": 3}, status=404)
    assert_rest_error(past, "event-archive-page-not-found", 404)


def test_a_series_that_began_before_the_window_still_shows_its_later_occurrences(site):
    response = site["anonymous"].get(EVENTS, {"start_date": "2030-06-20", "end_date": "2030-06-30"})
    assert [(e["title"], e["start_date"]) for e in response.json["events"]] == [
        ("Choir practice", "2030-06-24 16:00:00")]


def test_wall_time_is_kept_across_the_clock_change(site):
    response = site["anonymous"].get(EVENTS, {"start_date": "2030-03-18", "end_date": "2030-04-16"})
    briefing = [event for event in response.json["events"] if event["title"] == "Staff briefing"]
    assert [event["start_date"] for event in briefing] == [
        "2030-03-18 09:00:00", "2030-03-25 09:00:00", "2030-04-01 09:00:00", "2030-04-08 09:00:00",
        "2030-04-15 09:00:00"]
    assert [event["utc_start_date"][11:] for event in briefing] == ["09:00:00", "09:00:00", "08:00:00", "08:00:00",
                                                                     "08:00:00"]
    assert briefing[2]["timezone_abbr"] == "BST"


def test_all_day_series_repeat_whole_days(site):
    response = site["anonymous"].get(EVENTS, {"start_date": "2031-01-01", "end_date": "2032-12-31"})
    term = [event for event in response.json["events"] if event["title"] == "Half term"]
    assert [(event["start_date"], event["end_date"]) for event in term] == [
        ("2031-02-17 00:00:00", "2031-02-21 23:59:59"), ("2032-02-17 00:00:00", "2032-02-21 23:59:59")]


def test_an_occurrence_is_addressable(site):
    choir = site["choir"]["id"]
    found = site["anonymous"].get(f"{EVENTS}/{choir}/occurrences/20300624T150000Z").json
    assert (found["start_date"], found["end_date"]) == ("2030-06-24 16:00:00", "2030-06-24 17:00:00")
    assert found["occurrence"]["start"] == "20300624T150000Z"
    assert found["json_ld"]["startDate"] == "2030-06-24T16:00:00+01:00"
    for missing in ("20300617T150000Z", "20300625T150000Z", "20300715T150000Z"):  # excluded, off-rule, past COUNT
        response = site["anonymous"].get(f"{EVENTS}/{choir}/occurrences/{missing}", status=404)
        assert_rest_error(response, "rest-occurrence-not-found", 404)
    single = site["anonymous"].get(f"{EVENTS}/{site['sports']['id']}/occurrences/20300612T080000Z", status=404)
    assert_rest_error(single, "rest-occurrence-not-found", 404)
    site["anonymous"].get(f"{EVENTS}/{choir}/occurrences/2030-06-24", status=404)  # not an occurrence address


def test_unpublished_series_stay_hidden(site):
    anonymous_titles = {event["title"] for event in site["anonymous"].get(EVENTS, JUNE).json["events"]}
    assert "Draft club" not in anonymous_titles
    draft = site["draft"]["id"]
    response = site["anonymous"].get(f"{EVENTS}/{draft}/occurrences/20300605T110000Z", status=403)
    assert_rest_error(response, "event-not-accessible", 403)
    staff = site["admin"].get(EVENTS, JUNE).json["events"]
    assert [event["start_date"] for event in staff if event["title"] == "Draft club"] == [
        "2030-06-04 12:00:00", "2030-06-05 12:00:00", "2030-06-06 12:00:00"]


@pytest.mark.parametrize("rule, reason", [
    ("FREQ=SECONDLY;COUNT=5", "FREQ"), ("FREQ=MINUTELY;COUNT=5", "FREQ"), ("FREQ=HOURLY;COUNT=5", "FREQ"),
    ("FREQ=DAILY;BYHOUR=1,2,3", "BYHOUR"), ("FREQ=DAILY;BYMINUTE=5", "BYMINUTE"),
    ("FREQ=DAILY;COUNT=5000", "COUNT"), ("FREQ=WEEKLY;UNTIL=20600101T000000Z", "years"),
    ("FREQ=WEEKLY;UNTIL=20200101T000000Z", "before"), ("FREQ=WEEKLY;COUNT=3;UNTIL=20310101T000000Z", "both"),
    ("FREQ=DAILY;INTERVAL=99999", "INTERVAL"), ("not a rule", "FREQ"), ("BYDAY=MO", "FREQ"), ("", "RRULE"),
    # No 30 February: the rule matches nothing, and once walked to the year 9999 on every read.
    ("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30 has no occurrence within 10 years"),
    ("FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=4,6,9,11", "no occurrence"),
    # Its first match (10 January 2042) lies past the bound: the walk stops there, matches or not.
    ("FREQ=YEARLY;INTERVAL=12;BYMONTH=1", "no occurrence within 10 years"),
])
def test_rules_a_site_refuses_are_400_and_change_nothing(site, rule, reason):
    admin = site["admin"]
    before = admin.get(EVENTS, {"status": "any", "per_page": 50, "start_date": "2020-01-01"}).json["total"]
    response = new_event(admin, expect=400, title="Refused", recurrence={"rule": rule})
    assert response["code"] == "rest_invalid_param" and reason in response["data"]["params"]["recurrence"]
    after = admin.get(EVENTS, {"status": "any", "per_page": 50, "start_date": "2020-01-01"}).json["total"]
    assert after == before


@pytest.mark.parametrize("value", [{"rule": "FREQ=DAILY", "exdates": ["not a date"]},
                                   {"rule": "FREQ=DAILY", "exdates": ["2030-01-01"] * 501},
                                   {"exdates": []}, "FREQ=DAILY", {"rule": "FREQ=DAILY", "other": 1}])
def test_malformed_recurrence_values_are_400(site, value):
    response = new_event(site["admin"], expect=400, title="Refused", recurrence=value)
    assert response["code"] == "rest_invalid_param"


def test_a_rule_can_change_and_be_removed(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Fixtures", start_date="2030-09-07 10:00", end_date="2030-09-07 12:00",
                      recurrence={"rule": "RRULE:FREQ=WEEKLY;BYDAY=SA;COUNT=10"})
    assert event["recurrence"]["rule"] == "FREQ=WEEKLY;COUNT=10;BYDAY=SA"
    window = {"start_date": "2030-09-01", "end_date": "2030-12-31"}
    assert admin.get(EVENTS, window).json["total"] == 10
    changed = admin.post_json(f"{EVENTS}/{event['id']}", {"recurrence": {"rule": "FREQ=WEEKLY;BYDAY=SA;COUNT=4",
                                                                         "exdates": ["2030-09-14 10:00"]}}).json
    assert changed["recurrence"]["exdates"] == ["2030-09-14 10:00:00"]
    assert admin.get(EVENTS, window).json["total"] == 3
    admin.post_json(f"{EVENTS}/{event['id']}", {"title": "Fixtures (renamed)"})  # untouched when not sent
    assert admin.get(EVENTS, window).json["total"] == 3
    removed = admin.post_json(f"{EVENTS}/{event['id']}", {"recurrence": None}).json
    assert removed["recurrence"] is None
    assert admin.get(EVENTS, window).json["total"] == 1


def test_an_event_that_starts_repeating_after_a_list_was_read_is_expanded_in_the_next_one(make_app):
    """The repeating events' ids are kept per calendar version: adding a rule must renew them."""
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Chess club", start_date="2030-10-01 15:30", end_date="2030-10-01 16:30")
    window = {"start_date": "2030-10-01", "end_date": "2030-10-31"}
    assert app.client.get(EVENTS, window).json["total"] == 1
    admin.post_json(f"{EVENTS}/{event['id']}", {"recurrence": {"rule": "FREQ=WEEKLY;COUNT=3"}})
    response = app.client.get(EVENTS, window)
    assert response.json["total"] == 3 and response.headers["X-CAL-Total"] == "3"
    assert [item["start_date"] for item in response.json["events"]] == [
        "2030-10-01 15:30:00", "2030-10-08 15:30:00", "2030-10-15 15:30:00"]


def test_an_open_ended_series_expands_only_inside_the_window(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    new_event(admin, title="Breakfast club", start_date="2030-01-01 07:30", end_date="2030-01-01 08:30",
              recurrence={"rule": "FREQ=DAILY"})
    response = admin.get(EVENTS, {"start_date": "2031-05-01", "end_date": "2031-05-31", "per_page": 50})
    assert response.json["total"] == 31
    assert response.json["events"][0]["start_date"] == "2031-05-01 07:30:00"


def test_all_day_exclusions_and_rules_stored_by_imports(make_app):
    """A rule in cal_event_recurrence that the API would refuse (an import wrote it) is not expanded."""
    from sqlalchemy import insert

    from plugins.calendar.tables import tables

    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    fete = new_event(admin, title="Village fete", all_day=True, start_date="2030-07-06", end_date="2030-07-06",
                     recurrence={"rule": "FREQ=YEARLY;COUNT=4", "exdates": ["2031-07-06"]})
    assert fete["recurrence"]["exdates"] == ["2031-07-06 00:00:00"]
    years = admin.get(EVENTS, {"start_date": "2030-01-01", "end_date": "2034-12-31", "search": "fete"}).json["events"]
    assert [event["start_date"] for event in years] == ["2030-07-06 00:00:00", "2032-07-06 00:00:00",
                                                        "2033-07-06 00:00:00"]
    imported = new_event(admin, title="Imported pulse", start_date="2030-01-01 09:00", end_date="2030-01-01 09:01")
    with app.db.session(write=True) as session, session.begin():
        session.execute(insert(tables(app)["recurrence"]).values(event_id=imported["id"], rule="FREQ=MINUTELY",
                                                                 exdates="[]"))
    from plugins.calendar import state

    with app.db.session(write=True) as session, session.begin():
        state.changed(session, app)
    window = {"start_date": "2030-01-01", "end_date": "2031-12-31", "search": "pulse"}
    assert [event["start_date"] for event in admin.get(EVENTS, window).json["events"]] == ["2030-01-01 09:00:00"]


def test_stored_rules_that_never_match_list_their_first_occurrence_only(make_app):
    """Rules written before the check (or by an import) are walked within bounds: DTSTART stays the one occurrence."""
    from sqlalchemy import insert

    from plugins.calendar import state
    from plugins.calendar.tables import tables

    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    stored = {"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30": "2030-01-07 09:00", "FREQ=WEEKLY;BYMONTH=4;BYMONTHDAY=31":
              "2030-01-08 09:00", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30": "2030-01-09 09:00"}
    ids = []
    for rule, start in stored.items():
        event = new_event(admin, title="Never again", start_date=start, end_date=start[:11] + "10:00")
        ids.append(event["id"])
        with app.db.session(write=True) as session, session.begin():
            session.execute(insert(tables(app)["recurrence"]).values(event_id=event["id"], rule=rule, exdates="[]"))
            state.changed(session, app)
    window = {"start_date": "2030-01-01", "end_date": "2031-12-31", "search": "never"}
    listed = app.client.get(EVENTS, window).json
    assert listed["total"] == 3
    assert [event["start_date"] for event in listed["events"]] == [
        "2030-01-07 09:00:00", "2030-01-08 09:00:00", "2030-01-09 09:00:00"]
    feed = app.client.get(f"{API}/events.ics", window)
    assert feed.status_int == 200 and feed.text.count("BEGIN:VEVENT") == 3
    assert app.client.get("/events/month/2030-01/").status_int == 200
    app.client.get(f"{EVENTS}/{ids[0]}/occurrences/20300107T090000Z", status=200)
    app.client.get(f"{EVENTS}/{ids[0]}/occurrences/20300108T090000Z", status=404)


def test_an_endless_series_is_walked_only_to_ten_years_ahead(make_app):
    """Reads bound a stored rule by date range too: nothing is expanded past HORIZON_YEARS from today."""
    from sqlalchemy import insert

    from plugins.calendar import state
    from plugins.calendar.tables import tables

    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Reunion", start_date="2030-05-04 12:00", end_date="2030-05-04 14:00")
    with app.db.session(write=True) as session, session.begin():  # an import's rule: its next match is in 2070
        session.execute(insert(tables(app)["recurrence"]).values(event_id=event["id"], rule="FREQ=YEARLY;INTERVAL=40",
                                                                 exdates="[]"))
        state.changed(session, app)
    assert app.client.get(EVENTS, {"start_date": "2070-01-01", "end_date": "2070-12-31"}).json["total"] == 0
    assert app.client.get(EVENTS, {"start_date": "2030-01-01", "end_date": "2030-12-31"}).json["total"] == 1


def test_an_imported_rule_longer_than_the_api_takes_is_not_expanded(make_app):
    """An iCalendar file's RRULE is stored as it came: thousands of BY values would be tested on every day walked."""
    from sqlalchemy import insert

    from plugins.calendar import state
    from plugins.calendar.tables import tables

    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Long rule", start_date="2030-01-01 09:00", end_date="2030-01-01 10:00")
    rule = "FREQ=DAILY;COUNT=3;BYMONTHDAY=" + ",".join([str(day) for day in range(1, 29)] * 10)
    assert len(rule) > 500
    with app.db.session(write=True) as session, session.begin():
        session.execute(insert(tables(app)["recurrence"]).values(event_id=event["id"], rule=rule, exdates="[]"))
        state.changed(session, app)
    window = {"start_date": "2030-01-01", "end_date": "2030-01-31", "search": "long"}
    assert [item["start_date"] for item in app.client.get(EVENTS, window).json["events"]] == ["2030-01-01 09:00:00"]


def test_occurrences_meet_every_date_bound_of_the_list(site):
    """starts_after, starts_before, ends_after and ends_before apply to each occurrence's own times."""
    def listed(**bounds):
        events = site["anonymous"].get(EVENTS, {**JUNE, "strict_dates": "true", **bounds}).json["events"]
        return [event["start_date"] for event in events if event["title"] == "Choir practice"]

    everything = ["2030-06-03 16:00:00", "2030-06-10 16:00:00", "2030-06-24 16:00:00"]
    assert listed() == everything
    assert listed(starts_after="2030-06-03 16:00") == everything[1:]
    assert listed(starts_before="2030-06-10 16:00") == everything[:2]
    assert listed(ends_after="2030-06-10 17:00") == everything[2:]
    assert listed(ends_before="2030-06-10 17:00") == everything[:2]
    assert listed(starts_after="2030-06-03 16:00", ends_before="2030-06-24 16:59") == everything[1:2]


def test_the_walks_iteration_bound_still_stops_a_rule_that_never_matches():
    """The bound counts a private step of dateutil's rrule iterator (`_BoundedRule`): if a dateutil
    release stopped taking that step, walks would silently be bounded by date range only. A rule
    with no 30 February must stop after the months it was given, not reach the year 9999."""
    from dateutil import rrule

    from plugins.calendar.recurrence import _BoundedRule, _WalkTooLong

    bounded = _BoundedRule(24, freq=rrule.DAILY, dtstart=datetime.datetime(2026, 1, 1), bymonth=(2,), bymonthday=(30,))
    with pytest.raises(_WalkTooLong):
        next(iter(bounded))


def test_start_date_and_end_date_bound_each_occurrence_on_its_own_side(site):
    """An occurrence is listed when it starts on or after start_date and ends on or before end_date."""
    def listed(**window):
        events = site["anonymous"].get(EVENTS, {"strict_dates": "true", **window}).json["events"]
        return [event["start_date"] for event in events if event["title"] == "Choir practice"]

    assert listed(start_date="2030-06-10 16:00", end_date="2030-06-24 17:00") == [
        "2030-06-10 16:00:00", "2030-06-24 16:00:00"]
    assert listed(start_date="2030-06-10 16:01", end_date="2030-06-24 17:00") == ["2030-06-24 16:00:00"]
    assert listed(start_date="2030-06-10 16:00", end_date="2030-06-24 16:59") == ["2030-06-10 16:00:00"]


def test_the_single_events_total_beside_a_series_follows_each_write(make_app):
    """With a series in the window, the single events' count is kept per calendar version: each write renews it."""
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    new_event(admin, title="Choir", start_date="2030-11-04 16:00", end_date="2030-11-04 17:00",
              recurrence={"rule": "FREQ=WEEKLY;COUNT=4"})
    window = {"start_date": "2030-11-01", "end_date": "2030-11-30"}
    assert app.client.get(EVENTS, window).json["total"] == 4
    play = new_event(admin, title="School play", start_date="2030-11-20 18:00", end_date="2030-11-20 20:00")
    response = app.client.get(EVENTS, window)
    assert response.json["total"] == 5 and response.headers["X-CAL-Total"] == "5"
    assert "School play" in [item["title"] for item in response.json["events"]]
    admin.post_json(f"{EVENTS}/{play['id']}", {"start_date": "2030-12-20 18:00", "end_date": "2030-12-20 20:00"})
    assert app.client.get(EVENTS, window).json["total"] == 4
    admin.post_json(f"{EVENTS}/{play['id']}", {"start_date": "2030-11-21 18:00", "end_date": "2030-11-21 20:00"})
    assert app.client.get(EVENTS, window).json["total"] == 5
    admin.delete(f"{EVENTS}/{play['id']}")
    assert app.client.get(EVENTS, window).json["total"] == 4


def test_the_series_rows_of_a_list_are_read_by_key(make_app):
    """SQLite keeps no statistics here: with the series' ids among the other filters it walked the status and
    start index over the whole window (8 ms at 50,000 events in it); read by key first, it probes ten rows."""
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    if app.db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans by its own")
    admin = client_as(app, create_test_user(app, "administrator"))
    new_event(admin, title="Choir", start_date="2030-11-04 16:00", end_date="2030-11-04 17:00",
              recurrence={"rule": "FREQ=WEEKLY;COUNT=4"})
    new_event(admin, title="School play", start_date="2030-11-20 18:00", end_date="2030-11-20 20:00")
    with recorded_statements(app, lambda statement: "series_rows" in statement) as seen:
        response = app.client.get(EVENTS, {"start_date": "2030-11-01", "end_date": "2030-11-30"}, status=200)
    assert response.json["total"] == 5
    ((statement, parameters),) = seen
    with app.db.engine.connect() as connection:
        plan = [row[3] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)]
    assert any(step.startswith("MATERIALIZE series_rows") for step in plan), plan
    reads = [step for step in plan if "cal_events" in step]
    assert reads and all("PRIMARY KEY" in step for step in reads), plan


def test_a_scheduled_event_beside_a_series_is_counted_when_its_time_comes(make_app):
    """The single events' count kept per version must not outlive the moment a scheduled event is due."""
    import time

    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    new_event(admin, title="Choir", start_date="2030-11-04 16:00", end_date="2030-11-04 17:00",
              recurrence={"rule": "FREQ=WEEKLY;COUNT=2"})
    soon = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=2)).strftime("%Y-%m-%d %H:%M:%S")
    new_event(admin, title="Announced later", date_utc=soon, start_date="2030-11-20 18:00",
              end_date="2030-11-20 20:00")
    window = {"start_date": "2030-11-01", "end_date": "2030-11-30"}
    assert app.client.get(EVENTS, window).json["total"] == 2
    time.sleep(2.5)
    response = app.client.get(EVENTS, window)
    assert [item["title"] for item in response.json["events"]] == ["Choir", "Choir", "Announced later"]
    assert response.json["total"] == 3 and response.headers["X-CAL-Total"] == "3"
