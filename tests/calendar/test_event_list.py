"""GET cal/events/v1/events: the wrapper, the default window, every filter, paging and its errors (§1.2)."""

from __future__ import annotations

import datetime

import pytest

from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, local_today, new_event, new_organizer, new_venue, titles

EVENTS = f"{API}/events"


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "calendar"], site=LONDON)
    admin = create_test_user(app, "administrator")
    editor = create_test_user(app, "editor")
    contributor = create_test_user(app, "contributor")
    client = client_as(app, admin)
    hall = new_venue(client, venue="Main hall", city="Riverside")
    field = new_venue(client, venue="Playing fields")
    office = new_organizer(client, organizer="School office", email="office@school.test")
    sport = client.post_json(f"{API}/categories", {"name": "Sport"}).json
    trips = client.post_json(f"{API}/categories", {"name": "Trips"}).json
    year7 = client.post_json(f"{API}/tags", {"name": "Year 7"}).json
    today = local_today()
    day = datetime.timedelta(days=1)
    ids = {}

    def add(key, **fields):
        ids[key] = new_event(client, **fields)["id"]

    # Around today, for the default window (site zone Europe/London).
    add("ended", title="Ended yesterday", start_date=f"{today - 2 * day} 09:00", end_date=f"{today - day} 17:00")
    add("ongoing", title="Ongoing exhibition", start_date=f"{today - day} 09:00", end_date=f"{today + day} 17:00")
    add("soon", title="Football fixture", start_date=f"{today + 3 * day} 15:45", end_date=f"{today + 3 * day} 17:00",
        venue=[field["id"]], categories=[sport["id"]], tags=[year7["id"]], featured=True)
    add("far", title="Reunion in 30 months", start_date=f"{today + 900 * day} 18:00",
        end_date=f"{today + 900 * day} 21:00")
    add("hidden", title="Hidden staff training", start_date=f"{today + 2 * day} 09:00",
        end_date=f"{today + 2 * day} 12:00", hide_from_listings=True)
    add("draft", title="Draft concert", status="draft", start_date=f"{today + 5 * day} 19:00",
        end_date=f"{today + 5 * day} 21:00")
    # Fixed dates in 2030, across both clock changes of Europe/London (31 March and 27 October).
    add("spring", title="Monday assembly after the spring change", start_date="2030-04-01 09:00",
        end_date="2030-04-01 09:30", venue=[hall["id"]], organizer=[office["id"]])
    add("autumn", title="Monday assembly after the autumn change", start_date="2030-10-28 09:00",
        end_date="2030-10-28 09:30", venue=[hall["id"]])
    add("trip", title="Year 7 lakes trip", start_date="2030-05-13 08:30", end_date="2030-05-15 16:00",
        categories=[trips["id"]], tags=[year7["id"]], description="Canoeing and climbing at the lakes.")
    add("term", title="Summer term starts", all_day=True, start_date="2030-04-23", end_date="2030-04-23")
    # Beyond the date line: 08:00 on 15 January at Kiritimati (UTC+14) is 14 January in London.
    add("kiritimati", title="Partner school call", timezone="Pacific/Kiritimati", start_date="2030-01-15 08:00",
        end_date="2030-01-15 09:00")
    add("secret", title="Governors' meeting", start_date="2030-02-04 18:00",
        end_date="2030-02-04 20:00", venue=[hall["id"]], cost="5", description="Agenda inside.")
    client.post_json(f"{API}/events/{ids['secret']}", {"password": "minutes"}, status=200)  # on update only
    child_of = new_event(client, title="Trip briefing", start_date="2030-05-06 18:00", end_date="2030-05-06 19:00")
    ids["briefing"] = child_of["id"]
    return {"app": app, "admin": client, "editor": client_as(app, editor),
            "contributor": client_as(app, contributor), "ids": ids, "hall": hall, "field": field,
            "office": office, "sport": sport, "trips": trips, "year7": year7, "today": today}


def test_default_window_is_events_starting_yesterday_onwards_for_24_months_in_the_site_zone(site):
    response = site["app"].client.get(EVENTS)
    assert response.status_int == 200
    assert list(response.json) == ["events", "rest_url", "total", "total_pages"]
    assert titles(response) == ["Ongoing exhibition", "Football fixture"]
    assert response.json["total"] == 2 and response.json["total_pages"] == 1
    assert response.headers["X-CAL-Total"] == "2" and response.headers["X-CAL-TotalPages"] == "1"
    rest_url = response.json["rest_url"]
    # As the real plugin: page (also the first) and the status the caller sees are named.
    assert rest_url.startswith("http://school.test/wp-json/cal/events/v1/events?page=1&per_page=10&start_date=")
    yesterday = site["today"] - datetime.timedelta(days=1)
    assert f"start_date={yesterday}+00%3A00%3A00" in rest_url
    assert "end_date=" in rest_url and rest_url.endswith("&status=publish")
    assert site["admin"].get(EVENTS).json["rest_url"].endswith("&status=any")
    assert site["admin"].get(EVENTS, {"status": "draft"}).json["rest_url"].endswith("&status=draft")


def test_event_shape_in_a_list(site):
    event = site["app"].client.get(EVENTS).json["events"][1]
    for name in ("id", "global_id", "global_id_lineage", "author", "status", "date", "date_utc", "modified",
                 "modified_utc", "url", "rest_url", "title", "description", "excerpt", "slug", "image", "all_day",
                 "start_date", "start_date_details", "end_date", "end_date_details", "utc_start_date",
                 "utc_start_date_details", "utc_end_date", "utc_end_date_details", "timezone", "timezone_abbr",
                 "cost", "cost_details", "website", "show_map", "show_map_link", "hide_from_listings", "sticky",
                 "featured", "categories", "tags", "venue", "organizer", "custom_fields"):
        assert name in event, name
    assert "json_ld" not in event
    assert event["featured"] is True and event["image"] is False
    assert event["author"] == str(event["author"]) and event["author"].isdigit()
    assert event["venue"]["venue"] == "Playing fields"  # one venue: an object
    assert event["organizer"] == []
    assert [term["name"] for term in event["categories"]] == ["Sport"]
    category = event["categories"][0]
    assert category["urls"] == {"self": f"http://school.test{API}/categories/{site['sport']['id']}",
                                "collection": f"http://school.test{API}/categories"}
    # The stored term record as the real plugin casts it inside an event: no link, url or meta.
    assert category == {"id": site["sport"]["id"], "name": "Sport", "slug": "sport", "term_group": 0,
                        "term_taxonomy_id": site["sport"]["id"], "taxonomy": "cal_events_cat",
                        "description": category["description"], "parent": 0, "count": category["count"],
                        "filter": "raw", "urls": category["urls"]}
    assert [term["name"] for term in event["tags"]] == ["Year 7"]
    assert event["website"] == event["url"]  # no website of its own: the permalink


def test_dst_changes_move_utc_but_not_local_time(site):
    client = site["app"].client
    spring = client.get(f"{EVENTS}/{site['ids']['spring']}").json
    autumn = client.get(f"{EVENTS}/{site['ids']['autumn']}").json
    assert (spring["start_date"], spring["utc_start_date"]) == ("2030-04-01 09:00:00", "2030-04-01 08:00:00")
    assert spring["timezone"] == "Europe/London" and spring["timezone_abbr"] == "BST"
    assert (autumn["start_date"], autumn["utc_start_date"]) == ("2030-10-28 09:00:00", "2030-10-28 09:00:00")
    assert autumn["timezone_abbr"] == "GMT"
    assert spring["start_date_details"] == {"year": "2030", "month": "04", "day": "01", "hour": "09",
                                            "minutes": "00", "seconds": "00"}
    assert spring["utc_start_date_details"]["hour"] == "08"
    assert spring["json_ld"]["startDate"] == "2030-04-01T09:00:00+01:00"
    assert autumn["json_ld"]["startDate"] == "2030-10-28T09:00:00+00:00"


def test_a_zone_beyond_the_date_line(site):
    client = site["app"].client
    event = client.get(f"{EVENTS}/{site['ids']['kiritimati']}").json
    assert event["start_date"] == "2030-01-15 08:00:00" and event["utc_start_date"] == "2030-01-14 18:00:00"
    assert event["json_ld"]["startDate"] == "2030-01-15T08:00:00+14:00"
    # Date filters are read in the site's zone: in London the call happens on 14 January.
    assert titles(client.get(EVENTS, {"start_date": "2030-01-14", "end_date": "2030-01-14"})) == ["Partner school call"]
    assert titles(client.get(EVENTS, {"start_date": "2030-01-15", "end_date": "2030-01-15"})) == []


def test_all_day_events_cover_whole_local_days(site):
    event = site["app"].client.get(f"{EVENTS}/{site['ids']['term']}").json
    assert event["all_day"] is True
    assert (event["start_date"], event["end_date"]) == ("2030-04-23 00:00:00", "2030-04-23 23:59:59")
    assert (event["utc_start_date"], event["utc_end_date"]) == ("2030-04-22 23:00:00", "2030-04-23 22:59:59")
    assert event["json_ld"]["startDate"] == "2030-04-23"


def test_inclusive_and_strict_dates(site):
    client = site["app"].client
    # Inclusive: start_date moves to 00:00 and end_date to 23:59:59 of their days; an event is listed
    # when it starts on or after start_date and ends on or before end_date (the trip: 13 to 15 May).
    assert titles(client.get(EVENTS, {"start_date": "2030-05-13 12:00", "end_date": "2030-05-15 12:00"})) == [
        "Year 7 lakes trip"]
    assert titles(client.get(EVENTS, {"start_date": "2030-05-14", "end_date": "2030-05-20"})) == []
    assert titles(client.get(EVENTS, {"start_date": "2030-05-10", "end_date": "2030-05-14"})) == []
    strict = client.get(EVENTS, {"start_date": "2030-05-13 08:31", "end_date": "2030-05-20", "strict_dates": "true"})
    assert titles(strict) == []
    assert "strict_dates=true" in strict.json["rest_url"]
    assert titles(client.get(EVENTS, {"start_date": "2030-05-13 08:30", "end_date": "2030-05-15 15:59",
                                      "strict_dates": "true"})) == []
    assert titles(client.get(EVENTS, {"start_date": "2030-05-13 08:30", "end_date": "2030-05-15 16:00",
                                      "strict_dates": "true"})) == ["Year 7 lakes trip"]
    assert_rest_error(client.get(EVENTS, {"start_date": "2030-05-20", "end_date": "2030-05-10"}, status=400),
                      "rest_invalid_param", 400)
    assert_rest_error(client.get(EVENTS, {"start_date": "the day after never"}, status=400), "rest_invalid_param", 400)


def test_the_default_list_has_yesterdays_events_and_ends_after_lists_those_under_way(make_app):
    """start_date means "starts on or after" (default yesterday 00:00): an exhibition that opened three
    days ago is not in the default list, yesterday's concert is; ends_after lists what is under way."""
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    client = client_as(app, create_test_user(app, "administrator"))
    today, day = local_today(), datetime.timedelta(days=1)
    new_event(client, title="Art exhibition", start_date=f"{today - 3 * day} 09:00", end_date=f"{today + 2 * day} 17:00")
    new_event(client, title="Yesterday's concert", start_date=f"{today - day} 19:00", end_date=f"{today - day} 21:00")
    new_event(client, title="Last week's fair", start_date=f"{today - 7 * day} 10:00", end_date=f"{today - 7 * day} 12:00")
    new_event(client, title="Sports day", start_date=f"{today + day} 09:00", end_date=f"{today + day} 15:00")
    assert titles(app.client.get(EVENTS)) == ["Yesterday's concert", "Sports day"]
    assert titles(app.client.get(EVENTS, {"start_date": str(today - 3 * day)})) == [
        "Art exhibition", "Yesterday's concert", "Sports day"]
    # An end_date before an event's end leaves it out, though the event starts inside the window.
    assert titles(app.client.get(EVENTS, {"start_date": str(today - 3 * day), "end_date": str(today)})) == [
        "Yesterday's concert"]
    now = app.client.get(EVENTS, {"ends_after": "now", "strict_dates": "true"})
    assert titles(now) == ["Art exhibition", "Sports day"]
    assert "start_date=" not in now.json["rest_url"] and "ends_after=" in now.json["rest_url"]


def test_starts_and_ends_bounds_drop_the_default_window(site):
    client = site["app"].client
    found = titles(client.get(EVENTS, {"starts_after": "2030-04-30", "starts_before": "2030-05-31"}))
    assert found == ["Trip briefing", "Year 7 lakes trip"]
    assert titles(client.get(EVENTS, {"ends_after": "2030-10-27", "ends_before": "2030-12-31"})) == [
        "Monday assembly after the autumn change"]
    # starts_after is inclusive of the whole day given: events starting on 13 May are not "after" it.
    assert "Year 7 lakes trip" not in titles(client.get(EVENTS, {"starts_after": "2030-05-13",
                                                                 "starts_before": "2030-05-31"}))
    # An explicit start_date still applies with the bounds.
    assert titles(client.get(EVENTS, {"start_date": "2030-05-10", "starts_before": "2030-05-31"})) == [
        "Year 7 lakes trip"]


def test_filters_by_venue_organizer_terms_featured_and_search(site):
    client = site["app"].client
    window = {"start_date": "2025-01-01", "end_date": "2035-01-01"}
    at_hall = titles(client.get(EVENTS, {**window, "venue": site["hall"]["id"]}))
    assert at_hall == ["Governors' meeting", "Monday assembly after the spring change",
                       "Monday assembly after the autumn change"]
    assert titles(client.get(EVENTS, {**window, "organizer": site["office"]["id"]})) == [
        "Monday assembly after the spring change"]
    assert titles(client.get(EVENTS, {**window, "categories": "trips"})) == ["Year 7 lakes trip"]
    assert titles(client.get(EVENTS, {**window, "categories": f"{site['sport']['id']},trips"})) == [
        "Football fixture", "Year 7 lakes trip"]
    assert titles(client.get(EVENTS, {**window, "tags": site["year7"]["id"]})) == ["Football fixture",
                                                                                 "Year 7 lakes trip"]
    assert titles(client.get(EVENTS, {**window, "featured": "true"})) == ["Football fixture"]
    assert "Football fixture" not in titles(client.get(EVENTS, {**window, "featured": "false"}))
    assert titles(client.get(EVENTS, {**window, "search": "canoeing"})) == ["Year 7 lakes trip"]
    assert_rest_error(client.get(EVENTS, {"venue": 999999}, status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(EVENTS, {"organizer": site["hall"]["id"]}, status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(EVENTS, {"categories": "no-such-category"}, status=400), "rest_invalid_param", 400)


def test_an_event_at_several_of_the_venues_asked_for_is_listed_and_counted_once(make_app):
    # The venue and organizer filters ask whether an event names any of the ids: an event that
    # names two of them is one event, in the page and in the totals, on every path of the list.
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    hall, field = new_venue(admin, venue="Main hall"), new_venue(admin, venue="Playing fields")
    office = new_organizer(admin, organizer="School office")
    new_event(admin, title="Sports day", start_date="2031-06-02 09:00", end_date="2031-06-02 16:00",
              venue=[hall["id"], field["id"]], organizer=[office["id"]])
    new_event(admin, title="Concert", start_date="2031-06-03 19:00", end_date="2031-06-03 21:00", venue=[hall["id"]])
    new_event(admin, title="Elsewhere", start_date="2031-06-04 19:00", end_date="2031-06-04 21:00")
    window = {"start_date": "2031-06-01", "end_date": "2031-06-30"}
    both = admin.get(EVENTS, {**window, "venue": f"{hall['id']},{field['id']}"})
    assert titles(both) == ["Sports day", "Concert"]
    assert both.json["total"] == 2 and both.headers["X-CAL-Total"] == "2"
    assert titles(admin.get(EVENTS, {**window, "venue": field["id"]})) == ["Sports day"]
    with_organizer = admin.get(EVENTS, {**window, "venue": f"{hall['id']},{field['id']}", "organizer": office["id"]})
    assert titles(with_organizer) == ["Sports day"] and with_organizer.json["total"] == 1
    assert titles(app.client.get(EVENTS, {**window, "venue": f"{field['id']},{hall['id']}", "per_page": 1,
                                          "page": 2})) == ["Concert"]


def test_include_ignores_dates_and_hidden_events_stay_out_of_lists(site):
    client, ids = site["app"].client, site["ids"]
    assert "Hidden staff training" not in titles(client.get(EVENTS))
    found = client.get(EVENTS, {"include": f"{ids['far']},{ids['ended']},{ids['hidden']}"})
    assert titles(found) == ["Ended yesterday", "Hidden staff training", "Reunion in 30 months"]
    assert "start_date" not in found.json["rest_url"]


def test_post_parent_must_be_an_event(site):
    client = site["app"].client
    # The argument check answers first, as the real plugin's validate callback does.
    refused = client.get(EVENTS, {"post_parent": site["hall"]["id"]}, status=400)
    assert_rest_error(refused, "rest_invalid_param", 400)
    assert refused.json["data"]["params"] == {"post_parent": "Invalid parameter."}
    assert client.get(EVENTS, {"post_parent": site["ids"]["trip"], "start_date": "2025-01-01"}).json["total"] == 0


def test_statuses_visitors_and_editors(site):
    anonymous = site["app"].client
    assert_rest_error(anonymous.get(EVENTS, {"status": "draft"}, status=400), "rest_invalid_param", 400)
    assert_rest_error(site["contributor"].get(EVENTS, {"status": "publish,draft"}, status=400),
                      "rest_invalid_param", 400)
    assert "Draft concert" not in titles(anonymous.get(EVENTS))
    assert titles(site["editor"].get(EVENTS, {"status": "draft"})) == ["Draft concert"]
    assert "Draft concert" in titles(site["editor"].get(EVENTS))  # editors see every status by default
    assert_rest_error(site["editor"].get(EVENTS, {"status": "bogus"}, status=400), "rest_invalid_param", 400)


def test_paging_links_and_the_page_past_the_end(site):
    client = site["app"].client
    window = {"start_date": "2025-01-01", "end_date": "2035-01-01"}
    first = client.get(EVENTS, {**window, "per_page": 3})
    assert first.json["total"] == 11 and first.json["total_pages"] == 4
    assert "previous_rest_url" not in first.json
    assert first.json["rest_url"].startswith(f"http://school.test{EVENTS}?page=1&per_page=3&")
    assert first.json["next_rest_url"] == first.json["rest_url"].replace("page=1&", "") + "&page=2"
    second = client.get(first.json["next_rest_url"].removeprefix("http://school.test"))
    assert "&page=" not in second.json["previous_rest_url"] and "?page=" not in second.json["previous_rest_url"]
    assert second.json["previous_rest_url"] == first.json["rest_url"].replace("page=1&", "")
    last = client.get(EVENTS, {**window, "per_page": 3, "page": 4})
    assert len(last.json["events"]) == 2 and "next_rest_url" not in last.json
    assert "page=3" in last.json["previous_rest_url"]
    assert_rest_error(client.get(EVENTS, {**window, "per_page": 3, "page": 5}, status=404),
                      "event-archive-page-not-found", 404)
    empty = client.get(EVENTS, {"start_date": "2040-01-01", "end_date": "2040-01-02"})
    assert empty.json["events"] == [] and empty.json["total"] == 0 and empty.json["total_pages"] == 0
    capped = client.get(EVENTS, {**window, "per_page": 500})
    assert "per_page=50" in capped.json["rest_url"]
    assert_rest_error(client.get(EVENTS, {"per_page": 0}, status=400), "rest_invalid_param", 400)


def test_extensions_that_are_absent_answer_400(site):
    client = site["app"].client
    for query in ({"geoloc": "true"}, {"geoloc_lat": "51.5", "geoloc_lng": "-0.1"}, {"ticketed": "true"}):
        body = assert_rest_error(client.get(EVENTS, query, status=400), "rest_invalid_param", 400)
        assert "extension" in " ".join(body["data"]["params"].values())
    body = assert_rest_error(client.get(EVENTS, {"geoloc_lat": "51.5"}, status=400), "rest_invalid_param", 400)
    assert list(body["data"]["params"]) == ["geoloc_lng"]


def test_password_protected_events_are_blanked_in_lists(site):
    client = site["app"].client
    listed = client.get(EVENTS, {"include": site["ids"]["secret"]}).json["events"][0]
    assert listed["title"] == "Governors' meeting"
    assert (listed["description"], listed["excerpt"], listed["website"], listed["cost"]) == ("", "", "", "")
    assert listed["image"] is False
    for flag in ("all_day", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured"):
        assert listed[flag] is None
    assert listed["venue"] == [] and listed["organizer"] == [] and listed["categories"] == []
    assert listed["cost_details"]["values"] == []
    full = site["editor"].get(EVENTS, {"include": site["ids"]["secret"]}).json["events"][0]
    assert full["description"] == "Agenda inside." and full["cost"] == "£5"


def test_a_draft_venue_seen_by_an_editor_never_reaches_visitors(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    draft_venue = admin.post_json(f"{API}/venues", {"venue": "Secret annex", "status": "draft"}).json
    new_event(admin, title="Open day", venue=[draft_venue["id"]])
    query = {"start_date": "2030-01-01"}
    assert admin.get(EVENTS, query).json["events"][0]["venue"]["venue"] == "Secret annex"
    assert app.client.get(EVENTS, query).json["events"][0]["venue"] == []
    assert admin.get(EVENTS, query).json["events"][0]["venue"]["venue"] == "Secret annex"
    assert "Secret annex" not in app.client.get(EVENTS, query).text


def test_a_scheduled_event_joins_the_list_when_its_time_comes(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    soon = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=2)).strftime("%Y-%m-%d %H:%M:%S")
    event = new_event(admin, title="Announced later", date_utc=soon)
    assert event["status"] == "future"
    assert app.client.get(EVENTS, {"start_date": "2030-01-01"}).json["total"] == 0
    import time

    time.sleep(2.5)
    response = app.client.get(EVENTS, {"start_date": "2030-01-01"})
    assert titles(response) == ["Announced later"]
    assert response.json["total"] == 1 and response.headers["X-CAL-Total"] == "1"


def test_a_window_read_again_shows_each_write_in_between(make_app):
    """A plain window's page (its ids and total) is kept per calendar version: every event write renews it."""
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    window = {"start_date": "2031-03-01", "end_date": "2031-03-31", "per_page": 2}
    for day in (10, 12, 14):
        new_event(admin, title=f"Match on the {day}th", start_date=f"2031-03-{day} 15:00",
                  end_date=f"2031-03-{day} 17:00")
    assert titles(app.client.get(EVENTS, window)) == ["Match on the 10th", "Match on the 12th"]
    early = new_event(admin, title="Match on the 3rd", start_date="2031-03-03 15:00", end_date="2031-03-03 17:00")
    response = app.client.get(EVENTS, window)
    assert titles(response) == ["Match on the 3rd", "Match on the 10th"]
    assert response.json["total"] == 4 and response.headers["X-CAL-TotalPages"] == "2"
    assert titles(app.client.get(EVENTS, {**window, "page": 2})) == ["Match on the 12th", "Match on the 14th"]
    admin.post_json(f"{EVENTS}/{early['id']}", {"start_date": "2031-04-03 15:00", "end_date": "2031-04-03 17:00"})
    assert titles(app.client.get(EVENTS, window)) == ["Match on the 10th", "Match on the 12th"]
    assert titles(app.client.get(EVENTS, {**window, "page": 2})) == ["Match on the 14th"]
    admin.post_json(f"{EVENTS}/{early['id']}", {"status": "draft", "start_date": "2031-03-01 15:00",
                                                "end_date": "2031-03-01 17:00"})
    assert titles(app.client.get(EVENTS, window)) == ["Match on the 10th", "Match on the 12th"]
    assert titles(admin.get(EVENTS, {**window, "status": "draft"})) == ["Match on the 3rd"]
