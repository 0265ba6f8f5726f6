"""One event by id and by slug: §1.4's checks in order, the password, json_ld (schema.org Event)."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, new_event, new_organizer, new_venue

EVENTS = f"{API}/events"


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    author = create_test_user(app, "author")
    hall = new_venue(admin, venue="Main hall", address="Mill Lane", city="Riverside", zip="RV1 2AB",
                     country="United Kingdom", phone="01234 567890")
    office = new_organizer(admin, organizer="School office", email="office@school.test", phone="01234 567890",
                           website="https://riverside.example")
    evening = new_event(admin, title="Parents' evening", start_date="2030-11-20 16:30", end_date="2030-11-20 19:30",
                        venue=[hall["id"]], organizer=[office["id"]], cost="0",
                        description="<p>Meet the teachers.</p>", website="https://riverside.example/evening")
    secret = new_event(admin, title="Governors", start_date="2030-02-04 18:00", end_date="2030-02-04 20:00",
                       description="Minutes.")
    admin.post_json(f"{EVENTS}/{secret['id']}", {"password": "minutes"}, status=200)
    draft = new_event(admin, title="Draft event", status="draft")
    gone = new_event(admin, title="Cancelled disco")
    admin.delete(f"{EVENTS}/{gone['id']}", status=200)
    post = admin.post_json("/wp-json/core/v2/posts", {"title": "News", "status": "publish"}).json
    return {"app": app, "admin": admin, "author": client_as(app, author), "evening": evening, "secret": secret,
            "draft": draft, "gone": gone, "post": post, "hall": hall, "office": office}


def test_single_event_with_json_ld(site):
    event = site["app"].client.get(f"{EVENTS}/{site['evening']['id']}").json
    assert event["title"] == "Parents' evening" and event["description"] == "<p>Meet the teachers.</p>"
    assert event["website"] == "https://riverside.example/evening"
    assert event["cost"] == "Free" and event["cost_details"]["values"] == ["0"]
    assert event["venue"]["venue"] == "Main hall" and event["venue"]["zip"] == "RV1 2AB"
    assert [organizer["organizer"] for organizer in event["organizer"]] == ["School office"]
    ld = event["json_ld"]
    assert ld["@context"] == "http://schema.org" and ld["@type"] == "Event" and ld["name"] == "Parents' evening"
    assert ld["startDate"] == "2030-11-20T16:30:00+00:00" and ld["endDate"] == "2030-11-20T19:30:00+00:00"
    assert ld["location"]["@type"] == "Place" and ld["location"]["name"] == "Main hall"
    assert ld["location"]["address"] == {"@type": "PostalAddress", "streetAddress": "Mill Lane",
                                         "addressLocality": "Riverside", "postalCode": "RV1 2AB",
                                         "addressCountry": "United Kingdom"}
    assert ld["location"]["telephone"] == "01234 567890"
    assert ld["organizer"] == {"@type": "Person", "name": "School office", "url": "https://riverside.example",
                               "telephone": "01234 567890", "email": "office@school.test"}
    assert ld["offers"]["price"] == "0" and ld["offers"]["priceCurrency"] == "GBP"
    # A single event's venue and organizer are read as single too: each carries its own JSON-LD.
    assert event["venue"]["json_ld"]["@type"] == "Place" and event["venue"]["json_ld"]["name"] == "Main hall"
    assert event["organizer"][0]["json_ld"]["@type"] == "Person"
    listed = site["app"].client.get(EVENTS, {"include": site["evening"]["id"]}).json["events"][0]
    assert "json_ld" not in listed["venue"] and "json_ld" not in listed["organizer"][0]


def test_by_slug_reads_the_same_event(site):
    client = site["app"].client
    by_slug = client.get(f"{EVENTS}/by-slug/{site['evening']['slug']}").json
    assert by_slug == client.get(f"{EVENTS}/{site['evening']['id']}").json
    body = assert_rest_error(client.get(f"{EVENTS}/by-slug/no-such-event", status=400), "rest_invalid_param", 400)
    assert list(body["data"]["params"]) == ["slug"]


def test_checks_in_order(site):
    client = site["app"].client
    assert_rest_error(client.get(f"{EVENTS}/999999", status=404), "rest-event-not-found", 404)
    assert_rest_error(client.get(f"{EVENTS}/{site['post']['id']}", status=400), "rest-invalid-event-id", 400)
    assert_rest_error(client.get(f"{EVENTS}/{site['hall']['id']}", status=400), "rest-invalid-event-id", 400)
    assert_rest_error(client.get(f"{EVENTS}/{site['gone']['id']}", status=403), "event-no-longer-available", 403)
    assert_rest_error(client.get(f"{EVENTS}/{site['draft']['id']}", status=403), "event-not-accessible", 403)
    assert_rest_error(site["author"].get(f"{EVENTS}/{site['draft']['id']}", status=403), "event-not-accessible", 403)
    assert site["admin"].get(f"{EVENTS}/{site['draft']['id']}").json["status"] == "draft"


def test_password(site):
    client, secret = site["app"].client, site["secret"]
    assert_rest_error(client.get(f"{EVENTS}/{secret['id']}", status=403), "event-password-protected", 403)
    assert_rest_error(client.get(f"{EVENTS}/{secret['id']}", {"password": "wrong"}, status=403),
                      "event-password-protected", 403)
    opened = client.get(f"{EVENTS}/{secret['id']}", {"password": "minutes"}).json
    assert opened["description"] == "Minutes." and "json_ld" in opened
    assert site["admin"].get(f"{EVENTS}/{secret['id']}").json["description"] == "Minutes."  # an editor of it
    by_slug = client.get(f"{EVENTS}/by-slug/{secret['slug']}", {"password": "minutes"})
    assert by_slug.json["id"] == secret["id"]


def test_core_v2_serves_the_event_type_too(site):
    listed = site["app"].client.get("/wp-json/core/v2/cal_events").json
    assert site["evening"]["id"] in [item["id"] for item in listed]
    types = site["app"].client.get("/wp-json/core/v2/types").json
    assert {"cal_event", "cal_venue", "cal_organizer"} <= set(types)
    taxonomies = site["app"].client.get("/wp-json/core/v2/taxonomies").json
    assert {"cal_events_cat", "cal_event_tag"} <= set(taxonomies)
