"""Events, venues and organizers from a WordPress export (`sitehost import wordpress`), read back over
cal/events/v1: times in their zones, costs, flags, venues and organizers linked, categories and tags."""

from __future__ import annotations

from host.testing import create_test_user
from tests.helpers import (HILLSIDE_WXR, assert_not_imported, import_again_unchanged, import_wordpress, round_trip,
                           without, write_wxr, wxr_item)

API = "/wp-json/cal/events/v1"
YEAR_2025 = {"start_date": "2025-01-01 00:00:00", "end_date": "2025-12-31 23:59:59", "per_page": "50"}


def events_of(app, admin) -> dict[str, dict]:
    listed = app.client.get(f"{API}/events", YEAR_2025, headers=admin.headers, status=200).json["events"]
    return {event["title"]: app.client.get(f"{API}/events/{event['id']}", headers=admin.headers, status=200).json
            for event in listed}


def test_events_venues_and_organizers_come_across_and_a_second_import_changes_nothing(make_app, tmp_path):
    app = make_app()
    admin = create_test_user(app, "administrator")
    result, report = import_wordpress(app, tmp_path, HILLSIDE_WXR)
    assert result.exit_code == 0, result.output
    events = events_of(app, admin)
    assert sorted(events) == ["Open morning", "Summer concert"]

    morning = events["Open morning"]
    assert morning["slug"] == "open-morning" and morning["status"] == "publish"
    assert "Tours of the school for families" in morning["description"]
    assert (morning["start_date"], morning["end_date"]) == ("2025-03-14 10:00:00", "2025-03-14 13:00:00")
    assert (morning["utc_start_date"], morning["utc_end_date"]) == ("2025-03-14 10:00:00", "2025-03-14 13:00:00")
    assert morning["timezone"] == "Europe/London" and morning["timezone_abbr"] == "GMT"
    assert morning["all_day"] is False
    assert morning["cost"] == "Free"
    assert morning["cost_details"] == {"currency_symbol": "£", "currency_code": "GBP", "currency_position": "prefix",
                                       "values": ["0"]}
    assert morning["website"] == "https://hillside.example/visit"
    assert (morning["show_map"], morning["show_map_link"]) == (True, True)
    assert [term["slug"] for term in morning["categories"]] == ["open-days"]
    assert [term["slug"] for term in morning["tags"]] == ["year-6"]
    venue = morning["venue"]
    assert {key: venue.get(key) for key in ("venue", "address", "city", "country", "province", "stateprovince", "zip",
                                            "phone", "website", "show_map", "show_map_link")} == {
        "venue": "School hall", "address": "1 Hill Lane", "city": "Ambridge", "country": "United Kingdom",
        "province": "Borsetshire", "stateprovince": "Borsetshire", "zip": "AB1 2CD", "phone": "01632 960000",
        "website": "https://hillside.example/find-us", "show_map": True, "show_map_link": True}
    organizers = {organizer["organizer"]: organizer for organizer in morning["organizer"]}
    assert sorted(organizers) == ["Friends of Hillside (PTA)", "School office"]  # _EventOrganizerID twice
    assert organizers["School office"]["email"] == "office@hillside.example"
    assert organizers["School office"]["phone"] == "01632 960001"
    assert organizers["School office"]["website"] == "https://hillside.example"
    assert organizers["Friends of Hillside (PTA)"]["email"] == "pta@hillside.example"

    concert = events["Summer concert"]
    assert concert["all_day"] is True
    assert (concert["start_date"], concert["end_date"]) == ("2025-07-11 00:00:00", "2025-07-11 23:59:59")
    assert (concert["utc_start_date"], concert["utc_end_date"]) == ("2025-07-10 23:00:00", "2025-07-11 22:59:59")
    assert concert["timezone_abbr"] == "BST"
    assert concert["cost"] == "£3"
    assert (concert["show_map"], concert["show_map_link"]) == (False, False)  # stored as "" by the reference
    assert concert["venue"]["id"] == venue["id"]  # one venue row for both events
    assert [term["slug"] for term in concert["categories"]] == ["concerts"]

    venues = app.client.get(f"{API}/venues", {"per_page": "50"}, headers=admin.headers).json["venues"]
    assert [place["venue"] for place in venues] == ["School hall"]
    import_again_unchanged(app, tmp_path, HILLSIDE_WXR)
    assert events_of(app, admin) == events


def test_unreadable_events_are_named_and_nothing_else_changes(make_app, tmp_path):
    app = make_app()
    admin = create_test_user(app, "administrator")
    times = [("_EventStartDate", "2025-05-01 18:00:00"), ("_EventEndDate", "2025-05-01 20:00:00")]
    wxr = write_wxr(tmp_path / "events.xml",
                    wxr_item(601, "tribe_events", "No dates", [("_EventCost", "2")]),
                    wxr_item(602, "tribe_events", "Garbled", [("_EventStartDate", "next Tuesday-ish"),
                                                              ("_EventEndDate", "2025-05-01 20:00:00")]),
                    wxr_item(603, "tribe_events", "Backwards", [("_EventStartDate", "2025-05-02 18:00:00"),
                                                                ("_EventEndDate", "2025-05-01 20:00:00")]),
                    # An old offset zone becomes its Etc/ zone; a venue id the file lacks is named, the event kept.
                    wxr_item(604, "tribe_events", "Quiz night", times + [("_EventTimezone", "UTC+2"),
                                                                         ("_EventVenueID", "9999")]),
                    wxr_item(605, "tribe_events", "Binned", times, status="trash"))
    result, report = import_wordpress(app, tmp_path, wxr)
    assert result.exit_code == 0, result.output
    assert_not_imported(report, "tribe_events 601 ('No dates')", "_EventStartDate")
    assert_not_imported(report, "tribe_events 602 ('Garbled')", "its dates cannot be read")
    assert_not_imported(report, "tribe_events 603 ('Backwards')", "ends before it starts")
    assert_not_imported(report, "tribe_events 604 ('Quiz night') venue 9999", "not in the file")
    assert "Binned" not in report  # a trashed event comes across into the trash, as WordPress keeps it
    trashed = app.client.get("/wp-json/core/v2/cal_events", {"status": "trash", "context": "edit"},
                             headers=admin.headers).json
    assert [(item["id"], item["title"]["raw"], item["status"]) for item in trashed] == [(605, "Binned", "trash")]
    listed = app.client.get(f"{API}/events", YEAR_2025, headers=admin.headers).json["events"]
    assert [event["title"] for event in listed] == ["Quiz night"]  # the trash is not listed
    quiz = listed[0]
    assert quiz["timezone"] == "Etc/GMT-2" and quiz["utc_start_date"] == "2025-05-01 16:00:00"
    assert quiz["venue"] == []


def test_exported_events_import_back_with_every_field(make_app, tmp_path):
    """Ids, authors' ids and the links built from them differ between the two sites; nothing else."""
    first, second = round_trip(make_app, tmp_path, events_of)
    site_specific = {"id", "author", "url", "rest_url", "global_id", "global_id_lineage", "json_ld", "modified",
                     "modified_utc", "urls", "term_id", "term_taxonomy_id"}
    assert first["Summer concert"]["website"].startswith("http://school.test/")  # no _EventURL: the permalink
    for event in (*first.values(), *second.values()):
        if event["website"].startswith("http://school.test/"):
            event["website"] = "the permalink"
    assert without(second, site_specific) == without(first, site_specific)
