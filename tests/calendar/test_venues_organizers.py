"""Venues and organizers (§1.3, §1.6): lists with their filters, single reads, writes and their codes."""

from __future__ import annotations

import datetime

import pytest

from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, local_today, new_event, new_organizer, new_venue

VENUES, ORGANIZERS = f"{API}/venues", f"{API}/organizers"


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    hall = new_venue(admin, venue="Main hall", address="Mill Lane", city="Riverside", phone="01234 567890",
                     show_map="false")
    field = new_venue(admin, venue="Playing fields", description="Behind the sports hall.")
    museum = new_venue(admin, venue="Town museum")
    draft = admin.post_json(VENUES, {"venue": "Draft venue", "status": "draft"}).json
    office = new_organizer(admin, organizer="School office", email="office@school.test",
                           website="https://riverside.example")
    pe = new_organizer(admin, organizer="PE department")
    soon = (local_today() + datetime.timedelta(days=7)).isoformat()
    past = new_event(admin, title="Last year's fair", start_date="2020-06-01 10:00", end_date="2020-06-01 12:00",
                     venue=[museum["id"]], organizer=[office["id"]])
    upcoming = new_event(admin, title="Fixture", start_date=f"{soon} 15:00", end_date=f"{soon} 16:00",
                         venue=[field["id"]], organizer=[pe["id"]])
    return {"app": app, "admin": admin, "hall": hall, "field": field, "museum": museum, "draft": draft,
            "office": office, "pe": pe, "past": past, "upcoming": upcoming}


def test_venue_list_wrapper_and_shape(site):
    response = site["app"].client.get(VENUES)
    assert list(response.json) == ["venues", "rest_url", "total", "total_pages"]
    assert response.headers["X-CAL-Total"] == "3"
    assert [venue["venue"] for venue in response.json["venues"]] == ["Main hall", "Playing fields", "Town museum"]
    hall = response.json["venues"][0]
    assert hall["address"] == "Mill Lane" and hall["phone"] == "01234 567890"
    assert "zip" not in hall and "description" not in hall and "image" not in hall  # empty fields left out
    assert hall["show_map"] is False and hall["show_map_link"] is True
    assert hall["global_id"] == f"school.test?id={hall['id']}" and hall["global_id_lineage"] == [hall["global_id"]]
    assert "json_ld" not in hall


def test_venue_filters(site):
    client = site["app"].client

    def names(**query):
        return [venue["venue"] for venue in client.get(VENUES, query).json["venues"]]

    assert names(event=site["upcoming"]["id"]) == ["Playing fields"]
    assert names(has_events="true") == ["Playing fields", "Town museum"]
    assert names(has_events="false") == ["Main hall"]
    assert names(only_with_upcoming="true") == ["Playing fields"]
    assert names(search="museum") == ["Town museum"]
    assert_rest_error(client.get(VENUES, {"status": "draft"}, status=400), "rest_invalid_param", 400)
    assert [venue["venue"] for venue in site["admin"].get(VENUES, {"status": "draft"}).json["venues"]] == [
        "Draft venue"]
    assert_rest_error(client.get(VENUES, {"page": 9}, status=404), "venue-archive-page-not-found", 404)
    paged = client.get(VENUES, {"per_page": 2})
    assert paged.json["total_pages"] == 2 and "page=2" in paged.json["next_rest_url"]


def test_bad_search_string(site):
    # A search that is not a string (or too long) fails the argument check, before the handler.
    assert_rest_error(site["app"].client.get(VENUES, {"search": "x" * 1001}, status=400), "rest_invalid_param", 400)
    body = assert_rest_error(site["admin"].post_json(f"{VENUES}?_method=GET", {"search": ["a", "b"]}, status=400),
                             "rest_invalid_param", 400)
    assert list(body["data"]["params"]) == ["search"]


def test_single_venue_and_organizer(site):
    client = site["app"].client
    hall = client.get(f"{VENUES}/{site['hall']['id']}").json
    assert hall["json_ld"]["@type"] == "Place" and hall["json_ld"]["address"]["streetAddress"] == "Mill Lane"
    assert client.get(f"{VENUES}/by-slug/{site['hall']['slug']}").json["id"] == site["hall"]["id"]
    assert_rest_error(client.get(f"{VENUES}/by-slug/nowhere", status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(f"{VENUES}/999999", status=404), "venue-not-found", 404)
    assert_rest_error(client.get(f"{VENUES}/{site['office']['id']}", status=400), "rest-invalid-venue-id", 400)
    assert_rest_error(client.get(f"{VENUES}/{site['draft']['id']}", status=403), "venue-not-accessible", 403)
    office = client.get(f"{ORGANIZERS}/{site['office']['id']}").json
    assert office["organizer"] == "School office" and office["email"] == "office@school.test"
    assert office["json_ld"] == {"@context": "http://schema.org", "@type": "Person", "name": "School office",
                                 "url": "https://riverside.example", "email": "office@school.test"}
    assert client.get(f"{ORGANIZERS}/by-slug/{site['pe']['slug']}").json["organizer"] == "PE department"
    assert_rest_error(client.get(f"{ORGANIZERS}/999999", status=404), "organizer-not-found", 404)
    assert_rest_error(client.get(f"{ORGANIZERS}/{site['hall']['id']}", status=400), "rest-invalid-organizer-id", 400)


def test_organizer_list(site):
    client = site["app"].client
    listed = client.get(ORGANIZERS)
    assert list(listed.json) == ["organizers", "rest_url", "total", "total_pages"]
    assert [item["organizer"] for item in listed.json["organizers"]] == ["PE department", "School office"]
    assert [item["organizer"] for item in client.get(ORGANIZERS, {"event": site["past"]["id"]}).json["organizers"]] == [
        "School office"]
    assert [item["organizer"] for item in client.get(ORGANIZERS, {"only_with_upcoming": "true"}).json[
        "organizers"]] == ["PE department"]
    assert_rest_error(client.get(ORGANIZERS, {"page": 3}, status=404), "organizer-archive-page-not-found", 404)


def test_venue_and_organizer_writes(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    assert_rest_error(app.client.post_json(VENUES, {"venue": "Hall"}, status=401), "rest_cannot_create", 401)
    missing = assert_rest_error(admin.post_json(VENUES, {"city": "Riverside"}, status=400),
                                "rest_missing_callback_param", 400)
    assert missing["data"]["params"] == ["venue"]
    venue = admin.post_json(VENUES, {"venue": "Hall", "zip": "RV1"})
    assert venue.status_int == 201 and venue.headers["Location"].endswith(f"/venues/{venue.json['id']}")
    updated = admin.put_json(f"{VENUES}/{venue.json['id']}", {"city": "Riverside", "show_map_link": False}).json
    assert updated["city"] == "Riverside" and updated["zip"] == "RV1" and updated["show_map_link"] is False
    renamed = admin.patch_json(f"{VENUES}/by-slug/hall", {"venue": "Great hall"}).json
    assert renamed["venue"] == "Great hall"
    assert_rest_error(admin.post_json(f"{VENUES}/{venue.json['id']}", {"website": "ftp://x"}, status=400),
                      "rest_invalid_param", 400)
    trashed = admin.delete(f"{VENUES}/{venue.json['id']}").json
    assert trashed["status"] == "trash"
    assert_rest_error(admin.delete(f"{VENUES}/{venue.json['id']}", status=410), "venue-is-in-trash", 410)
    assert_rest_error(app.client.get(f"{VENUES}/{venue.json['id']}", status=403), "venue-no-longer-available", 403)
    organizer = admin.post_json(ORGANIZERS, {"organizer": "Office", "email": "office@school.test"}).json
    assert_rest_error(admin.post_json(ORGANIZERS, {"organizer": "Bad", "email": "not an email"}, status=400),
                      "rest_invalid_param", 400)
    assert admin.post_json(f"{ORGANIZERS}/{organizer['id']}", {"phone": "0123"}).json["phone"] == "0123"
    assert admin.delete(f"{ORGANIZERS}/by-slug/{organizer['slug']}").json["status"] == "trash"
    assert_rest_error(admin.delete(f"{ORGANIZERS}/{organizer['id']}", status=410), "organizer-is-in-trash", 410)
    contributor = client_as(app, create_test_user(app, "contributor"))
    assert contributor.post_json(VENUES, {"venue": "Pending place", "status": "publish"}).json["status"] == "pending"


def test_a_venue_written_with_a_publication_date_keeps_it_and_a_bad_one_is_refused(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    dated = admin.post_json(VENUES, {"venue": "Old hall", "date_utc": "2024-05-01 09:30:00"}, status=201).json
    assert dated["date_utc"] == "2024-05-01 09:30:00" and dated["date"] == "2024-05-01 10:30:00"  # London, BST
    local = admin.post_json(ORGANIZERS, {"organizer": "PTA", "date": "2024-01-10 12:00:00"}, status=201).json
    assert local["date_utc"] == "2024-01-10 12:00:00"
    refused = admin.post_json(VENUES, {"venue": "Nowhere", "date_utc": "\u00be\U0009ea7dk)\u00fb"}, status=400)
    assert_rest_error(refused, "rest_invalid_param", 400)
    assert [venue["venue"] for venue in admin.get(VENUES, {"search": "Nowhere"}).json.get("venues", [])] == []
