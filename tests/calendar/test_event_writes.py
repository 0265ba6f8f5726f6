"""Creating, updating and trashing events (§1.5): fields, zones, inline venues, downgrades and errors."""

from __future__ import annotations

from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, new_event, new_venue

EVENTS = f"{API}/events"


def test_create_with_every_field_and_inline_venue_and_organizer(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    category = admin.post_json(f"{API}/categories", {"name": "Trips"}).json
    tag = admin.post_json(f"{API}/tags", {"name": "Year 7"}).json
    created = admin.post_json(EVENTS, {
        "title": "Lakes trip", "description": "Canoeing.", "excerpt": "Three days away.", "slug": "lakes",
        "status": "publish", "timezone": "Europe/Paris", "start_date": "2030-05-13 08:30",
        "end_date": "15 May 2030 4pm", "cost": 95, "website": "https://lakes.example", "show_map": False,
        "show_map_link": False, "sticky": True, "featured": True, "categories": [category["id"]],
        "tags": [tag["id"]], "venue": {"venue": "Lakeside centre", "city": "Keswick", "country": "UK"},
        "organizer": [{"organizer": "Trips office", "email": "trips@school.test"}],
        "custom_fields": {"Kit list": "Waterproofs"}, "date_utc": "2030-01-01 12:00:00",
    })
    assert created.status_int == 201
    event = created.json
    assert created.headers["Location"] == event["rest_url"] == f"http://school.test{EVENTS}/{event['id']}"
    assert (event["start_date"], event["end_date"]) == ("2030-05-13 08:30:00", "2030-05-15 16:00:00")
    assert (event["utc_start_date"], event["utc_end_date"]) == ("2030-05-13 06:30:00", "2030-05-15 14:00:00")
    assert event["timezone"] == "Europe/Paris" and event["timezone_abbr"] == "CEST"
    assert event["slug"] == "lakes" and event["excerpt"] == "Three days away."
    assert event["cost"] == "£95" and event["website"] == "https://lakes.example"
    assert (event["show_map"], event["show_map_link"], event["sticky"], event["featured"]) == (False, False, True, True)
    assert event["categories"][0]["id"] == category["id"] and event["tags"][0]["name"] == "Year 7"
    assert event["venue"]["venue"] == "Lakeside centre" and event["venue"]["city"] == "Keswick"
    assert event["organizer"][0]["email"] == "trips@school.test"
    assert event["custom_fields"] == {"Kit list": {"label": "Kit list", "value": "Waterproofs"}}
    assert event["date_utc"] == "2030-01-01 12:00:00" and event["date"] == "2030-01-01 12:00:00"
    venues = app.client.get(f"{API}/venues").json["venues"]
    assert [venue["venue"] for venue in venues] == ["Lakeside centre"]


def test_create_checks_its_arguments(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    missing = assert_rest_error(admin.post_json(EVENTS, {"title": "No dates"}, status=400),
                                "rest_missing_callback_param", 400)
    assert sorted(missing["data"]["params"]) == ["end_date", "start_date"]
    assert_rest_error(admin.post_json(EVENTS, {"start_date": "2030-01-01", "end_date": "2030-01-01"}, status=400),
                      "rest_missing_callback_param", 400)
    bad = [({"timezone": "Mars/Olympus"}, "timezone"), ({"timezone": "UTC+2"}, "timezone"),
           ({"start_date": "soonish"}, "start_date"), ({"end_date": "2030-06-09 09:00"}, "end_date"),
           ({"venue": [999999]}, "venue"), ({"organizer": [999999]}, "organizer"), ({"categories": [999999]}, "categories"),
           ({"status": "cal-ignored"}, "status"), ({"website": "javascript:alert(1)"}, "website"),
           ({"image": 999999}, "image"), ({"image": "https://elsewhere.example/a.jpg"}, "image")]
    for fields, name in bad:
        body = assert_rest_error(admin.post_json(EVENTS, {"title": "Bad", "start_date": "2030-06-10 09:00",
                                                          "end_date": "2030-06-10 10:00", **fields}, status=400),
                                 "rest_invalid_param", 400)
        assert list(body["data"]["params"]) == [name], fields
    body = assert_rest_error(admin.post_json(EVENTS, {"title": "Bad", "start_date": "2030-06-10 09:00",
                                                      "end_date": "2030-06-10 10:00", "venue": {"city": "Nowhere"}},
                                             status=400), "could-not-create-venue", 400)
    assert "name" in body["message"]
    assert_rest_error(admin.post_json(EVENTS, {"title": "Bad", "start_date": "2030-06-10 09:00",
                                               "end_date": "2030-06-10 10:00", "organizer": [{"phone": "1"}]},
                                      status=400), "could-not-create-organizer", 400)
    assert app.client.get(EVENTS, {"start_date": "2020-01-01"}).json["total"] == 0  # nothing half-written
    assert app.client.get(f"{API}/venues").json["total"] == 0


def test_permissions_and_the_contributor_downgrade(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    event = {"title": "Chess club", "start_date": "2030-06-10 15:30", "end_date": "2030-06-10 16:30",
             "status": "publish"}
    assert_rest_error(app.client.post_json(EVENTS, event, status=401), "rest_cannot_create", 401)
    subscriber = client_as(app, create_test_user(app, "subscriber"))
    assert_rest_error(subscriber.post_json(EVENTS, event, status=403), "rest_cannot_create", 403)
    contributor = client_as(app, create_test_user(app, "contributor"))
    assert contributor.post_json(EVENTS, event).json["status"] == "pending"
    assert contributor.post_json(EVENTS, {**event, "status": "future"}).json["status"] == "pending"
    assert contributor.post_json(EVENTS, {k: v for k, v in event.items() if k != "status"}).json["status"] == "draft"
    author = client_as(app, create_test_user(app, "author"))
    own = author.post_json(EVENTS, event).json
    assert own["status"] == "publish"
    other = client_as(app, create_test_user(app, "author"))
    assert_rest_error(other.post_json(f"{EVENTS}/{own['id']}", {"title": "Mine now"}, status=403),
                      "rest_cannot_edit", 403)
    assert_rest_error(other.delete(f"{EVENTS}/{own['id']}", status=403), "rest_cannot_delete", 403)
    assert_rest_error(app.client.delete(f"{EVENTS}/{own['id']}", status=401), "rest_cannot_delete", 401)
    assert_rest_error(author.post_json(EVENTS, {**event, "author": 1}, status=403), "rest_cannot_edit_others", 403)


def test_update_keeps_local_times_and_writes_a_revision(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    hall = new_venue(admin, venue="Main hall")
    event = new_event(admin, title="Assembly", start_date="2030-03-25 09:00", end_date="2030-03-25 09:30",
                      venue=[hall["id"]])
    assert event["utc_start_date"] == "2030-03-25 09:00:00"
    moved = admin.post_json(f"{EVENTS}/{event['id']}", {"start_date": "2030-04-01 09:00",
                                                        "end_date": "2030-04-01 09:30"}).json
    assert (moved["start_date"], moved["utc_start_date"]) == ("2030-04-01 09:00:00", "2030-04-01 08:00:00")
    rezoned = admin.put_json(f"{EVENTS}/{event['id']}", {"timezone": "America/New_York"}).json
    assert (rezoned["start_date"], rezoned["utc_start_date"]) == ("2030-04-01 09:00:00", "2030-04-01 13:00:00")
    assert rezoned["venue"]["venue"] == "Main hall"  # venue untouched when not sent
    renamed = admin.patch_json(f"{EVENTS}/by-slug/{event['slug']}", {"title": "Whole-school assembly",
                                                                      "venue": [], "all_day": True}).json
    assert renamed["title"] == "Whole-school assembly" and renamed["venue"] == []
    assert (renamed["start_date"], renamed["end_date"]) == ("2030-04-01 00:00:00", "2030-04-01 23:59:59")
    revisions = admin.get(f"/wp-json/core/v2/cal_events/{event['id']}/revisions", {"context": "edit"}).json
    assert [revision["title"]["raw"] for revision in revisions][0] == "Whole-school assembly"
    assert_rest_error(admin.post_json(f"{EVENTS}/999999", {"title": "x"}, status=404), "rest-event-not-found", 404)
    assert_rest_error(admin.post_json(f"{EVENTS}/{hall['id']}", {"title": "x"}, status=400),
                      "rest-invalid-event-id", 400)
    assert_rest_error(admin.post_json(f"{EVENTS}/by-slug/nothing-here", {"title": "x"}, status=400),
                      "rest_invalid_param", 400)
    assert_rest_error(admin.post_json(f"{EVENTS}/{event['id']}", {"end_date": "2020-01-01"}, status=400),
                      "rest_invalid_param", 400)


def test_delete_trashes_and_the_trash_is_final_here(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Disco")
    trashed = admin.delete(f"{EVENTS}/{event['id']}")
    assert trashed.status_int == 200 and trashed.json["id"] == event["id"] and trashed.json["status"] == "trash"
    assert_rest_error(admin.delete(f"{EVENTS}/{event['id']}", status=410), "event-is-in-trash", 410)
    assert_rest_error(app.client.get(f"{EVENTS}/{event['id']}", status=403), "event-no-longer-available", 403)
    assert app.client.get(EVENTS, {"start_date": "2030-01-01"}).json["total"] == 0
    restored = admin.post_json(f"/wp-json/core/v2/cal_events/{event['id']}", {"status": "publish"}).json
    assert restored["status"] == "publish"
    assert app.client.get(EVENTS, {"start_date": "2030-01-01"}).json["total"] == 1  # core/v2 writes reach the list
    second = new_event(admin, title="Quiz night")
    assert admin.delete(f"{EVENTS}/by-slug/{second['slug']}").json["status"] == "trash"
    assert_rest_error(admin.delete(f"{EVENTS}/999999", status=404), "rest-event-not-found", 404)
    admin.delete(f"/wp-json/core/v2/cal_events/{event['id']}?force=true", status=200)
    assert app.client.get(EVENTS, {"start_date": "2030-01-01"}).json["total"] == 0


def test_events_written_through_core_v2_join_the_list(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    made = admin.post_json("/wp-json/core/v2/cal_events", {"title": "Made in core", "status": "publish",
                                                           "date": "2025-09-01T10:00:00"}).json
    listed = app.client.get(EVENTS, {"start_date": "2025-09-01", "end_date": "2025-09-01"}).json["events"]
    assert [(event["id"], event["start_date"]) for event in listed] == [(made["id"], "2025-09-01 10:00:00")]


def test_a_contributors_event_venue_and_organizer_are_kept_without_script(make_app):
    """Writers without unfiltered_html get core's filtering of titles and texts through the content
    service, and one-line fields (phone, cost, custom fields) no markup at all, as core/v2 posts and
    comments do; one-line fields stored before that are cleaned when served."""
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    contributor = client_as(app, create_test_user(app, "contributor"))
    event = new_event(contributor, title="<img src=x onerror=alert(1)>Trip",
                      description="<script>alert(1)</script><p onclick=\"alert(2)\">Bring a coat.</p>",
                      excerpt="<svg onload=alert(3)>Away", start_date="2030-05-13 08:30", end_date="2030-05-13 10:30",
                      cost="<b onmouseover=alert(4)>5</b>", website="https://trip.example/\"><script>",
                      venue={"venue": "<img src=x onerror=alert(5)>Hall", "phone": "<b>0123</b>",
                             "city": "<script>alert(6)</script>Leeds"},
                      organizer=[{"organizer": "<svg onload=alert(7)>Office"}],
                      custom_fields={"<i>Kit</i>": "<img src=x onerror=alert(8)>Coat"})
    served = contributor.get(f"{API}/events/{event['id']}").json
    for shown in (event, served):
        assert (shown["title"], shown["description"], shown["excerpt"]) == ("Trip", "<p>Bring a coat.</p>", "Away")
        assert (shown["cost"], shown["website"]) == ("£5", "https://trip.example/")
        assert (shown["venue"]["venue"], shown["venue"]["phone"], shown["venue"]["city"]) == ("Hall", "0123", "Leeds")
        assert shown["organizer"][0]["organizer"] == "Office"
        assert shown["custom_fields"] == {"Kit": {"label": "Kit", "value": "Coat"}}
    # a venue's phone and an event's custom field stored before writes were cleaned are served cleaned
    import json

    from sqlalchemy import update

    meta, calendar_events = app.db.metadata.tables["post_meta"], app.db.metadata.tables["cal_events"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(update(meta).where(meta.c.post_id == event["venue"]["id"], meta.c.key == "phone")
                        .values(value=json.dumps("<img src=x onerror=alert(9)>0123")))
        session.execute(update(calendar_events).where(calendar_events.c.post_id == event["id"]).values(
            custom_fields=json.dumps({"Kit": {"label": "<b>Kit</b>", "value": "<svg onload=alert(10)>Coat"}}),
            website="javascript:alert(11)"))
    served = contributor.get(f"{API}/events/{event['id']}").json
    assert served["venue"]["phone"] == "0123" and served["custom_fields"] == {"Kit": {"label": "Kit", "value": "Coat"}}
    assert served["website"] == served["url"]  # no website of its own: the event's page
    assert contributor.get(f"{API}/venues/{event['venue']['id']}").json["phone"] == "0123"
