"""calx/v1 (§2): bare-array lists with X-WP-Total, the status rule, orderby/order, CRUD, force and /docs.

Events, venues and organizers are the same items as cal/events/v1's: what one API writes, the
other reads the same.
"""

from __future__ import annotations

import datetime

import pytest

from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, new_event, new_organizer, new_venue

CALX = "/wp-json/calx/v1"


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    editor = client_as(app, create_test_user(app, "editor"))
    author = client_as(app, create_test_user(app, "author"))
    hall = new_venue(admin, venue="Main hall")
    office = new_organizer(admin, organizer="School office")
    made = {
        "concert": new_event(admin, title="Summer concert", start_date="2030-07-01 19:00",
                             end_date="2030-07-01 21:00", venue=[hall["id"]], organizer=[office["id"]]),
        "assembly": new_event(admin, title="Assembly", start_date="2030-06-01 09:00", end_date="2030-06-01 09:30",
                              featured=True),
        "bake": new_event(admin, title="Bake sale", start_date="2030-06-15 12:00", end_date="2030-06-15 14:00"),
        "draft": new_event(admin, title="Draft trip", status="draft", start_date="2030-08-01 08:00",
                           end_date="2030-08-03 18:00"),
        "private": new_event(admin, title="Staff meeting", status="private", start_date="2030-06-20 16:00",
                             end_date="2030-06-20 17:00"),
    }
    return {"app": app, "admin": admin, "editor": editor, "author": author, "hall": hall, "office": office, **made}


def _titles(response) -> list[str]:
    return [entity["title"]["rendered"] for entity in response.json]


def test_event_list_is_a_bare_array_with_paging_headers(site):
    response = site["app"].client.get(f"{CALX}/events", {"per_page": 2})
    assert isinstance(response.json, list)
    assert _titles(response) == ["Assembly", "Bake sale"]  # event_date ascending by default
    assert response.headers["X-WP-Total"] == "3" and response.headers["X-WP-TotalPages"] == "2"
    assert 'rel="next"' in response.headers["Link"]
    second = site["app"].client.get(f"{CALX}/events", {"per_page": 2, "page": 2})
    assert _titles(second) == ["Summer concert"] and 'rel="prev"' in second.headers["Link"]
    past_end = site["app"].client.get(f"{CALX}/events", {"per_page": 2, "page": 3}, status=404)
    assert past_end.json["message"] == "The requested page was not found."
    # The real archive's code (tec_rest_<type>_page_not_found) with the namespace's neutral prefix.
    assert_rest_error(past_end, "calx_rest_events_page_not_found", 404)
    for plural in ("venues", "organizers"):
        assert_rest_error(site["app"].client.get(f"{CALX}/{plural}", {"page": 2}, status=404),
                          f"calx_rest_{plural}_page_not_found", 404)


def test_orderby_and_order(site):
    client = site["app"].client
    assert _titles(client.get(f"{CALX}/events", {"order": "DESC"})) == ["Summer concert", "Bake sale", "Assembly"]
    assert _titles(client.get(f"{CALX}/events", {"orderby": "title"})) == ["Assembly", "Bake sale", "Summer concert"]
    assert _titles(client.get(f"{CALX}/events", {"orderby": "title", "order": "DESC"})) == [
        "Summer concert", "Bake sale", "Assembly"]
    by_date = _titles(client.get(f"{CALX}/events", {"orderby": "date"}))  # publication date: order of creation
    assert by_date == ["Summer concert", "Assembly", "Bake sale"]
    assert _titles(client.get(f"{CALX}/events", {"orderby": "modified", "order": "DESC"}))[0] == "Bake sale"
    assert len(client.get(f"{CALX}/events", {"orderby": "menu_order"}).json) == 3
    for bad in ({"orderby": "start"}, {"order": "asc"}, {"per_page": 101}, {"per_page": 0}, {"page": 0},
                {"status[]": "trash"}, {"venue[]": ["1", "1"]}):
        assert_rest_error(client.get(f"{CALX}/events", bad, status=400), "rest_invalid_param", 400)


def test_status_filter_is_honoured_only_for_editors(site):
    wanted = {"status[]": ["draft", "private"]}
    assert sorted(_titles(site["editor"].get(f"{CALX}/events", wanted))) == ["Draft trip", "Staff meeting"]
    assert site["editor"].get(f"{CALX}/events", wanted).headers["X-WP-Total"] == "2"
    for client in (site["app"].client, site["author"]):  # silently given publish, and totals say so too
        answer = client.get(f"{CALX}/events", wanted)
        assert _titles(answer) == ["Assembly", "Bake sale", "Summer concert"] and answer.headers["X-WP-Total"] == "3"


def test_event_filters(site):
    client = site["app"].client
    assert _titles(client.get(f"{CALX}/events", {"featured": "true"})) == ["Assembly"]
    assert _titles(client.get(f"{CALX}/events", {"venue[]": site["hall"]["id"]})) == ["Summer concert"]
    assert _titles(client.get(f"{CALX}/events", {"organizer[]": site["office"]["id"]})) == ["Summer concert"]
    assert _titles(client.get(f"{CALX}/events", {"search": "bake"})) == ["Bake sale"]
    assert _titles(client.get(f"{CALX}/events", {"start_date": "2030-06-10T00:00:00",
                                                 "end_date": "2030-06-30T00:00:00"})) == ["Bake sale"]
    assert _titles(client.get(f"{CALX}/events", {"starts_after": "2030-06-15T13:00:00"})) == ["Summer concert"]
    assert _titles(client.get(f"{CALX}/events", {"ends_before": "2030-06-02T00:00:00"})) == ["Assembly"]
    assert client.get(f"{CALX}/events", {"ticketed": "true"}).json == []
    assert_rest_error(client.get(f"{CALX}/events", {"start_date": "whenever"}, status=400), "rest_invalid_param", 400)


def test_single_event_entity_shape(site):
    entity = site["app"].client.get(f"{CALX}/events/{site['concert']['id']}").json
    assert entity["type"] == "cal_event" and entity["title"] == {"rendered": "Summer concert"}
    assert (entity["start_date"], entity["end_date"]) == ("2030-07-01 19:00:00", "2030-07-01 21:00:00")
    assert (entity["start_date_utc"], entity["end_date_utc"]) == ("2030-07-01 18:00:00", "2030-07-01 20:00:00")
    assert entity["timezone"] == "Europe/London" and entity["duration"] == 7200 and entity["multiday"] is False
    assert entity["venues"] == [site["hall"]["id"]] and entity["organizers"] == [site["office"]["id"]]
    assert entity["organizer_names"] == ["School office"] and entity["displays_on"] == ["2030-07-01"]
    assert entity["is_past"] is False and entity["ticketed"] is False
    assert entity["schedule_details"] == "July 1, 2030 @ 7:00 pm - 9:00 pm"
    for name in ("date", "date_gmt", "guid", "modified", "modified_gmt", "slug", "status", "link", "content",
                 "excerpt", "author", "featured_media", "comment_status", "ping_status", "sticky", "template",
                 "format", "tags", "cal_events_cat", "is_now", "all_day", "starts_this_week", "ends_this_week",
                 "happens_this_week", "this_week_duration", "featured", "cost", "short_schedule_details"):
        assert name in entity
    # The model's dates: event zone, UTC, site zone and as displayed, each as PHP's DateTime encodes it.
    london = {"timezone_type": 3, "timezone": "Europe/London"}
    assert entity["dates"] == {
        "start": {"date": "2030-07-01 19:00:00.000000", **london},
        "start_utc": {"date": "2030-07-01 18:00:00.000000", "timezone_type": 3, "timezone": "UTC"},
        "start_site": {"date": "2030-07-01 19:00:00.000000", **london},
        "start_display": {"date": "2030-07-01 19:00:00.000000", **london},
        "end": {"date": "2030-07-01 21:00:00.000000", **london},
        "end_utc": {"date": "2030-07-01 20:00:00.000000", "timezone_type": 3, "timezone": "UTC"},
        "end_site": {"date": "2030-07-01 21:00:00.000000", **london},
        "end_display": {"date": "2030-07-01 21:00:00.000000", **london}}
    assert entity["class_list"] == [f"post-{entity['id']}", "cal_event", "type-cal_event", "status-publish", "hentry"]


def test_venue_address_fields_and_class_lists(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    venue = new_venue(admin, venue="Sports centre", address="1 Mill Lane", city="Riverside", province="Kent",
                      zip="RV1 2AB", country="United Kingdom")
    category = admin.post_json(f"{API}/categories", {"name": "Sport"}).json
    event = new_event(admin, title="Sports day", venue=[venue["id"]], categories=[category["id"]])
    entity = app.client.get(f"{CALX}/venues/{venue['id']}").json
    assert entity["state_province"] == "Kent"
    assert entity["directions_link"] == ("https://maps.google.com/maps?f=q&source=s_q&hl=en&geocode=&q="
                                         "1+Mill+Lane+Riverside+Kent+RV1+2AB+United+Kingdom")
    assert entity["class_list"] == [f"post-{venue['id']}", "cal_venue", "type-cal_venue", "status-publish", "hentry"]
    bare = new_venue(admin, venue="Somewhere")
    listed = {item["id"]: item for item in app.client.get(f"{CALX}/venues").json}
    assert listed[bare["id"]]["directions_link"] == "" and listed[bare["id"]]["state_province"] == ""
    assert "cal_events_cat-sport" in app.client.get(f"{CALX}/events/{event['id']}").json["class_list"]
    # is_past follows the real model: an event that has begun is past, even while it goes on.
    today = datetime.date.today()
    ongoing = new_event(admin, title="Exhibition", start_date=f"{today - datetime.timedelta(days=1)} 09:00",
                        end_date=f"{today + datetime.timedelta(days=2)} 17:00")
    entity = app.client.get(f"{CALX}/events/{ongoing['id']}").json
    assert entity["is_past"] is True and entity["is_now"] is True


def test_single_reads_and_their_permissions(site):
    client = site["app"].client
    assert_rest_error(client.get(f"{CALX}/events/999999", status=404), "rest_post_invalid_id", 404)
    assert_rest_error(client.get(f"{CALX}/events/{site['hall']['id']}", status=404), "rest_post_invalid_id", 404)
    assert_rest_error(client.get(f"{CALX}/events/{site['draft']['id']}", status=401), "rest_forbidden", 401)
    assert_rest_error(site["author"].get(f"{CALX}/events/{site['private']['id']}", status=403), "rest_forbidden", 403)
    assert site["editor"].get(f"{CALX}/events/{site['private']['id']}").json["status"] == "private"
    venue = client.get(f"{CALX}/venues/{site['hall']['id']}").json
    assert venue["venue"] == "Main hall" and venue["type"] == "cal_venue"
    assert client.get(f"{CALX}/organizers/{site['office']['id']}").json["organizer"] == "School office"


def test_venue_and_organizer_lists(site):
    client = site["app"].client
    venues = client.get(f"{CALX}/venues")
    assert [venue["venue"] for venue in venues.json] == ["Main hall"] and venues.headers["X-WP-Total"] == "1"
    assert client.get(f"{CALX}/venues", {"event": site["bake"]["id"]}).json == []
    assert len(client.get(f"{CALX}/organizers", {"has_events": "true"}).json) == 1
    assert client.get(f"{CALX}/organizers", {"has_events": "false"}).json == []
    assert len(client.get(f"{CALX}/venues", {"only_with_upcoming": "true"}).json) == 1
    assert client.get(f"{CALX}/venues", {"search": "nowhere"}).headers["X-WP-Total"] == "0"


def test_docs_is_public_openapi_of_the_namespace(site):
    document = site["app"].client.get(f"{CALX}/docs").json
    assert document["openapi"].startswith("3")
    paths = list(document["paths"])
    assert paths and all(path.startswith("/wp-json/calx/v1") for path in paths)
    assert "/wp-json/calx/v1/events" in paths


def test_no_experimental_header_is_needed(site):
    """§2.1's gate is dropped (README): no header, a wrong one, the right one all get the same answer."""
    client = site["app"].client
    plain = client.get(f"{CALX}/events").json
    assert client.get(f"{CALX}/events", headers={"X-CAL-EEA": "nope"}).json == plain


def test_written_through_calx_reads_the_same_through_cal_events(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    venue = admin.post_json(f"{CALX}/venues", {"venue": "Sports hall", "city": "Riverside"})
    assert venue.status_int == 201 and venue.json["venue"] == "Sports hall"
    assert venue.headers["Location"].endswith(f"/calx/v1/venues/{venue.json['id']}")
    organizer = admin.post_json(f"{CALX}/organizers", {"organizer": "PE department", "email": "pe@school.test"}).json
    created = admin.post_json(f"{CALX}/events", {
        "title": "Netball final", "description": "Cheer the team on.", "status": "publish",
        "start_date": "2030-03-10 15:30", "end_date": "2030-03-10 17:00", "timezone": "Europe/Paris",
        "venue": [venue.json["id"]], "organizer": [organizer["id"]], "featured": True, "cost": "3"})
    assert created.status_int == 201
    entity = created.json
    classic = app.client.get(f"{API}/events/{entity['id']}").json
    assert classic["title"] == entity["title"]["rendered"] == "Netball final"
    assert classic["description"] == entity["content"]["rendered"] == "Cheer the team on."
    assert (classic["start_date"], classic["end_date"]) == (entity["start_date"], entity["end_date"]) == (
        "2030-03-10 15:30:00", "2030-03-10 17:00:00")
    assert classic["utc_start_date"] == entity["start_date_utc"] == "2030-03-10 14:30:00"
    assert classic["timezone"] == entity["timezone"] == "Europe/Paris"
    assert classic["venue"]["id"] == entity["venues"][0] and classic["venue"]["city"] == "Riverside"
    assert classic["organizer"][0]["email"] == "pe@school.test" and classic["featured"] is entity["featured"] is True
    assert classic["cost"] == entity["cost"] == "£3"
    # and an update through calx is seen by cal/events/v1
    patched = admin.patch_json(f"{CALX}/events/{entity['id']}", {"title": "Netball final (moved)",
                                                                  "start_date": "2030-03-11 15:30",
                                                                  "end_date": "2030-03-11 17:00"}).json
    assert patched["title"]["rendered"] == "Netball final (moved)"
    again = app.client.get(f"{API}/events/{entity['id']}").json
    assert again["title"] == "Netball final (moved)" and again["start_date"] == "2030-03-11 15:30:00"
    assert app.client.get(f"{API}/venues/{venue.json['id']}").json["venue"] == "Sports hall"


def test_written_through_cal_events_reads_the_same_through_calx(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    hall = new_venue(admin, venue="Theatre")
    classic = new_event(admin, title="School play", description="Three nights.", start_date="2030-11-20 19:00",
                        end_date="2030-11-22 21:30", venue=[hall["id"]], all_day=False)
    entity = app.client.get(f"{CALX}/events/{classic['id']}").json
    assert entity["title"]["rendered"] == classic["title"] and entity["content"]["rendered"] == classic["description"]
    assert (entity["start_date"], entity["end_date"]) == (classic["start_date"], classic["end_date"])
    assert entity["start_date_utc"] == classic["utc_start_date"] and entity["venues"] == [hall["id"]]
    assert entity["multiday"] is True and entity["displays_on"] == ["2030-11-20", "2030-11-21", "2030-11-22"]
    admin.post_json(f"{API}/events/{classic['id']}", {"title": "School play (sold out)"})
    assert app.client.get(f"{CALX}/events/{classic['id']}").json["title"]["rendered"] == "School play (sold out)"
    listed = app.client.get(f"{CALX}/events").json
    assert [item["id"] for item in listed] == [classic["id"]]


def test_writes_check_permissions_and_arguments(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    contributor = client_as(app, create_test_user(app, "contributor"))
    subscriber = client_as(app, create_test_user(app, "subscriber"))
    event = admin.post_json(f"{CALX}/events", {"title": "Open day", "start_date": "2030-10-01 10:00",
                                               "end_date": "2030-10-01 14:00", "status": "publish"}).json
    body = {"title": "x", "start_date": "2030-10-01 10:00", "end_date": "2030-10-01 11:00"}
    assert_rest_error(app.client.post_json(f"{CALX}/events", body, status=401), "rest_cannot_create", 401)
    assert_rest_error(subscriber.post_json(f"{CALX}/events", body, status=403), "rest_cannot_create", 403)
    assert_rest_error(contributor.patch_json(f"{CALX}/events/{event['id']}", {"title": "Mine"}, status=403),
                      "rest_cannot_edit", 403)
    assert_rest_error(contributor.delete(f"{CALX}/events/{event['id']}", status=403), "rest_cannot_delete", 403)
    assert_rest_error(app.client.post_json(f"{CALX}/venues", {"venue": "Anon"}, status=401), "rest_cannot_create", 401)
    assert_rest_error(admin.post_json(f"{CALX}/events", {"title": "No dates"}, status=400),
                      "rest_missing_callback_param", 400)
    assert_rest_error(admin.post_json(f"{CALX}/events", {**body, "end_date": "2030-09-01 09:00"}, status=400),
                      "rest_invalid_param", 400)
    assert_rest_error(admin.post_json(f"{CALX}/venues", {"city": "No name"}, status=400),
                      "rest_missing_callback_param", 400)
    pending = contributor.post_json(f"{CALX}/events", {**body, "status": "publish"}).json
    assert pending["status"] == "pending"  # without the right to publish
    assert app.client.get(f"{CALX}/events").headers["X-WP-Total"] == "1"


def test_delete_trashes_then_force_deletes(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Cake stall")
    venue = new_venue(admin, venue="Canteen")
    organizer = new_organizer(admin, organizer="PTA")
    for path in (f"{CALX}/events/{event['id']}", f"{CALX}/venues/{venue['id']}",
                 f"{CALX}/organizers/{organizer['id']}"):
        assert admin.delete(path).json == []
        assert admin.get(path).json["status"] == "trash"
        assert_rest_error(admin.delete(path, status=410), "rest_already_trashed", 410)
        assert admin.delete(path, {"force": "true"}).json == []
        assert_rest_error(admin.get(path, status=404), "rest_post_invalid_id", 404)
    assert app.client.get(f"{API}/events/{event['id']}", status=404).json["code"] == "rest-event-not-found"
    kept = new_event(admin, title="Kept for good")
    assert admin.delete(f"{CALX}/events/{kept['id']}", {"force": "true"}).json == []  # straight past the trash
    assert admin.get(f"{CALX}/events", {"status[]": ["publish", "draft"]}).json == []


def test_password_protected_entities_keep_only_their_outline(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Staff social", description="Secret venue.", cost="5")
    admin.post_json(f"{API}/events/{event['id']}", {"password": "cake"})
    seen = app.client.get(f"{CALX}/events/{event['id']}").json
    assert seen["title"] == {"rendered": "Staff social"} and seen["start_date"] == "2030-06-10 09:00:00"
    assert "content" not in seen and "cost" not in seen and "venues" not in seen
    listed = app.client.get(f"{CALX}/events").json
    assert listed[0]["id"] == event["id"] and "content" not in listed[0]
    assert admin.get(f"{CALX}/events/{event['id']}").json["content"]["rendered"] == "Secret venue."
